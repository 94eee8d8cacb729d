/* Links profiler.o into a gcc-compiled C program (the way memsim links it)
 * and exercises the C API on whatever machine it runs on.
 * Exit status: 0 ok, 1 failure, 77 no usable GPU. */
#include "profiler.h"

#include <stdio.h>
#include <string.h>

static void
noop (void *user)
{
  (void) user;
}

int
main (void)
{
  char name[256], err[512];
  int ma = 0, mi = 0, drv = 0, rt = 0;
  if (ms_gpu_device_info (name, sizeof name, &ma, &mi, &drv, &rt, err, sizeof err) != 0)
    {
      printf ("ctest: %s (driver %d, runtime %d)\n", err, drv, rt);
      return strstr (err, "no CUDA-capable GPU found") ? 77 : 1;
    }
  printf ("ctest: %s cc %d.%d driver %d runtime %d\n", name, ma, mi, drv, rt);
  const char *m[] = { "gpu__time_duration.sum" };
  double v;
  if (ms_gpu_profile (noop, NULL, m, 1, &v, err, sizeof err) == 0)
    {
      printf ("ctest: profiling a call that launches nothing did not fail\n");
      return 1;
    }
  printf ("ctest: expected error: %s\n", err);
  return 0;
}
