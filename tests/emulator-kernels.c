/* emulator-kernels.c - kernels for tests/test-emulator.c that the built-in
 * test kernels (traces/kernels/tests.cu) cannot be: written in memsim's
 * kernel subset (sim/emulator/kernel.h) and compiled for the emulator only,
 * as tests/racecheck-kernels.c. */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "kernel.h"

#include "emulator-kernels.h"

/* Two shared arrays, the first of n ints (a size known at run time only,
 * n <= 64): the second's place depends on n, so a launch with another n
 * must not reuse the place the last launch found (kernel.h's MS_SHARED_
 * remembers each declaration's array for a block).  out[t] = t - 1 for
 * t < n, else t. */
__global__ void em_two_arrays (int *out, int n)
{
  SHARED_ARRAY (int, a, n);
  SHARED_ARRAY (int, b, 64);
  unsigned t = threadIdx.x;
  if (t < (unsigned) n)
    ST (a[t], -1);
  ST (b[t], (int) t);
  __syncthreads ();
  ST (out[t], LD (b[t]) + (t < (unsigned) n ? LD (a[t]) : 0));
}

MS_ENTRY (em_two_arrays) { MS_LAUNCH (em_two_arrays, L, (int *) L->buf[0], (int) L->i[0]); }
