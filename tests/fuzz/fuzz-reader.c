/* fuzz-reader.c - a libFuzzer target for one trace reader (`make fuzz`,
 * docs/trace-format.md, "Fuzzing").  Built once per reader with
 * -DFUZZ_OPEN=ms_trace_file_open (memsim), ms_nvbit_open or
 * ms_accelsim_open.  Each input is written to a memory file and read to its
 * end: any outcome but a clean error or a clean end is a bug (ASan and
 * UBSan are on).  With -DFUZZ_PAYLOAD the input is a memsim trace's
 * uncompressed payload, which the target compresses and heads with a valid
 * header, so the mutations reach the record parser rather than zstd. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include "accelsim.h"
#include "nvbit.h"
#include "trace-file.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static int fd = -1;
  if (fd < 0)
    fd = memfd_create ("fuzz-trace", 0);
#ifdef FUZZ_PAYLOAD
  static guint8 *file;
  static gsize cap;
  gsize need = MS_TRACE_HEADER_LEN + ZSTD_compressBound (size);
  if (need > cap)
    file = g_realloc (file, cap = need);
  memset (file, 0, MS_TRACE_HEADER_LEN);
  memcpy (file, MS_TRACE_MAGIC, MS_TRACE_MAGIC_LEN);
  file[8] = MS_TRACE_VERSION;
  file[10] = MS_TRACE_FLAG_ZSTD;
  size = MS_TRACE_HEADER_LEN + ZSTD_compress (file + MS_TRACE_HEADER_LEN, need - MS_TRACE_HEADER_LEN,
                                              data, size, 1);
  data = file;
#endif
  if (ftruncate (fd, 0) != 0 || pwrite (fd, data, size, 0) != (ssize_t) size)
    return 0;
  char path[64];
  g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  GError *error = NULL;
  MsTraceSource *src = FUZZ_OPEN (path, &error);
  if (src != NULL)
    {
      MsWarpAccess a;
      guint64 n = 0;
      while (src->next (src, &a, &error))
        if (++n > 10000000)
          abort ();   /* a reader that never ends */
      src->info (src);
      ms_trace_source_free (src);
    }
  g_clear_error (&error);
  return 0;
}
