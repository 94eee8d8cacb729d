// clock-spin.cu - what one iteration of a lone warp's spin on the clock
// costs: clock() (ptxas reads SR_CLOCKLO with S2UR), clock64() (CS2R) and
// %globaltimer, each <<<1, 1>>> spinning until TARGET cycles (ns for the
// timer) have passed.  The probe kernels count their iterations beside the
// spin (one independent add); spin() runs the same loops without the count
// for Nsight Compute's smsp__inst_executed.sum, and back-to-back clock()
// reads give the read's own latency.
//   nvcc -O3 -arch=sm_90 -o clock-spin gpu/probes/clock-spin.cu && ./clock-spin
//   ncu --clock-control none --metrics smsp__inst_executed.sum ./clock-spin spin
#include "probe-timing.cuh"
#include <cstring>

#define TARGET 2000000LL

__device__ __forceinline__ long long
globaltimer ()
{
  long long t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

template <bool COUNT> __global__ void
spin_clock (long long *o, long long n)
{
  unsigned int s = (unsigned int) clock ();
  long long off = 0, iters = 0;
  while (off < n)
    {
      unsigned int e = (unsigned int) clock ();
      off = (long long) (e - s);
      if (COUNT)
        iters++;
    }
  o[0] = off;
  o[1] = iters;
}

template <bool COUNT> __global__ void
spin_clock64 (long long *o, long long n)
{
  long long s = clock64 (), off = 0, iters = 0;
  while (off < n)
    {
      off = clock64 () - s;
      if (COUNT)
        iters++;
    }
  o[0] = off;
  o[1] = iters;
}

template <bool COUNT> __global__ void
spin_globaltimer (long long *o, long long n)
{
  long long c0 = clock64 (), s = globaltimer (), off = 0, iters = 0;
  while (off < n)
    {
      off = globaltimer () - s;
      if (COUNT)
        iters++;
    }
  o[0] = clock64 () - c0;   // the cycles the spin took
  o[1] = iters;
}

// 64 dependent clock() reads: each one's value feeds the next's use
__global__ void
clock_reads (long long *o)
{
  unsigned int s = (unsigned int) clock (), x = 0;
#pragma unroll
  for (int k = 0; k < 64; k++)
    x += (unsigned int) clock () & (x | 1);
  o[0] = (long long) ((unsigned int) clock () - s);
  o[1] = x;
}

int
main (int argc, char **argv)
{
  long long *o, h[2];
  CHECK (cudaMalloc (&o, 2 * sizeof (long long)));
  if (argc > 1 && !strcmp (argv[1], "spin"))
    {
      spin_clock<false><<<1, 1>>> (o, TARGET);
      spin_clock64<false><<<1, 1>>> (o, TARGET);
      spin_globaltimer<false><<<1, 1>>> (o, TARGET);
      CHECK (cudaDeviceSynchronize ());
      printf ("spin: done\n");
      return 0;
    }
  printf ("case\tcycles (ns for the timer)\titerations\tcycles an iteration\n");
  for (int r = 0; r < 3; r++)
    {
      spin_clock<true><<<1, 1>>> (o, TARGET);
      CHECK (cudaMemcpy (h, o, sizeof h, cudaMemcpyDeviceToHost));
      printf ("clock()\t%lld\t%lld\t%.1f\n", h[0], h[1], (double) h[0] / h[1]);
      spin_clock64<true><<<1, 1>>> (o, TARGET);
      CHECK (cudaMemcpy (h, o, sizeof h, cudaMemcpyDeviceToHost));
      printf ("clock64()\t%lld\t%lld\t%.1f\n", h[0], h[1], (double) h[0] / h[1]);
      spin_globaltimer<true><<<1, 1>>> (o, TARGET);
      CHECK (cudaMemcpy (h, o, sizeof h, cudaMemcpyDeviceToHost));
      printf ("%%globaltimer (%lld ns)\t%lld\t%lld\t%.1f\n", TARGET, h[0], h[1], (double) h[0] / h[1]);
      clock_reads<<<1, 1>>> (o);
      CHECK (cudaMemcpy (h, o, sizeof h, cudaMemcpyDeviceToHost));
      printf ("64 dependent clock() reads\t%lld\t64\t%.1f\n", h[0], h[0] / 64.0);
    }
  return 0;
}
