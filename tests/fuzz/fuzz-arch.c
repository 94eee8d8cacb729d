/* fuzz-arch.c - a libFuzzer target for the architecture preset reader
 * (`make fuzz`): each input is a .arch file, loaded and checked by every
 * model, as `--arch FILE` does; then, if accepted, one access of each space
 * is costed on it, so an accepted preset that a model cannot work with is
 * found too. */
#define _GNU_SOURCE
#include "config.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "banks.h"
#include "coalescing.h"
#include "model.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static int fd = -1;
  if (fd < 0)
    fd = memfd_create ("fuzz-arch", 0);
  if (ftruncate (fd, 0) != 0 || pwrite (fd, data, size, 0) != (ssize_t) size)
    return 0;
  char path[64];
  g_snprintf (path, sizeof path, "/proc/self/fd/%d", fd);
  GError *error = NULL;
  MsArch *arch = ms_models_arch_lookup (path, &error);
  if (arch != NULL)
    {
      MsWarpAccess a = { .mask = 0xffffffffu, .width = 16, .op = MS_OP_LD };
      for (int l = 0; l < 32; l++)
        a.addr[l] = (guint64) l * 16 * (guint64) (l % 3 + 1);
      MsGlobalCost g;
      MsSharedCost s;
      ms_coalescing_cost (arch, &a, &g);
      ms_banks_cost (arch, &a, &s);
      MsBankDetail *d = g_new (MsBankDetail, 1);
      ms_banks_detail (arch, &a, d);
      g_free (d);
      ms_arch_free (arch);
    }
  g_clear_error (&error);
  return 0;
}
