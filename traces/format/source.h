/* source.h - a trace file as a producer of the access stream.
 *
 * Every reader (one file per format: trace-read.c for memsim's own format,
 * traces/import/nvbit.c, traces/import/accelsim.c) opens a file into an
 * MsTraceSource: the launch description, then the warp access records in
 * the stream order (sim/stream/stream.h), one at a time, in constant memory
 * whatever the file size.  ms_trace_source_open() picks the reader from the
 * file's first bytes.
 *
 * Errors (GError in MS_TRACE_ERROR) are one line that names the file and
 * the place: "t.trace: payload byte 1234: ..." or "mem.txt:17: ...".
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "launch.h"

G_BEGIN_DECLS

#define MS_TRACE_ERROR (ms_trace_error_quark ())
GQuark ms_trace_error_quark (void);
typedef enum {
  MS_TRACE_ERROR_IO,        /* cannot open, read or write */
  MS_TRACE_ERROR_FORMAT,    /* not a trace memsim knows */
  MS_TRACE_ERROR_VERSION,   /* a memsim trace of another version */
  MS_TRACE_ERROR_CORRUPT,   /* malformed, truncated or absurd content */
} MsTraceError;

typedef struct MsTraceSource MsTraceSource;
struct MsTraceSource {
  /* The launch: kernel, grid, block, params, buffers; source_line gives the
   * sites' source text where the format has it.  Valid until free. */
  const MsRunInfo *(*info) (MsTraceSource *src);
  /* The next record into *a (its site stays valid until free): TRUE; at
   * the end of the stream FALSE with no error; FALSE with an error when the
   * file is malformed. */
  gboolean (*next) (MsTraceSource *src, MsWarpAccess *a, GError **error);
  void (*free) (MsTraceSource *src);
  const char *format;   /* "memsim", "nvbit", "accelsim" */
};

/* Opens any trace memsim reads, by its content. */
MsTraceSource *ms_trace_source_open (const char *path, GError **error);
void ms_trace_source_free (MsTraceSource *src);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsTraceSource, ms_trace_source_free)

/* Sites of imported traces: one MsSite per (file, line, order, compiled,
 * async_copy) for the whole process (the site table keeps pointers),
 * registered; NULL when the site table is full.  compiled: MsSite.compiled
 * (a memsim trace of device code run from its PTX); async_copy:
 * MsSite.async_copy (a line of the trace's `async_copies`). */
const MsSite *ms_trace_site_intern (const char *file, int line, int order, gboolean compiled,
                                    gboolean async_copy);

G_END_DECLS
