// cold-start.cu - what a launch's first loads wait, as Nsight Compute
// measures a kernel (--cache-control all: the caches flushed before each
// launch).  One warp follows a chain of n dependent loads (each address
// comes from the load before it), n = 0 (the empty kernel) to 16:
//   near   the chain's lines 4 KiB apart (one 2 MiB page: one translation)
//   far    the chain's lines 4 MiB apart (a page, a translation each)
// The time each load adds beyond the empty kernel is its latency from
// DRAM; the first one's extra is what a launch pays before its first data.
//   nvcc -O3 -arch=sm_90 -o cold-start gpu/probes/cold-start.cu
//   ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum ./cold-start
#include "probe-kernels.cuh"
#include "probe-timing.cuh"

int
main ()
{
  const int most = 16;
  const unsigned long long near = 4096 / 8, far = (4ull << 20) / 8;
  unsigned long long *p, *out;
  size_t words = far * (most + 1);
  CHECK (cudaMalloc (&p, words * 8));
  CHECK (cudaMalloc (&out, 8));
  unsigned long long *h = (unsigned long long *) calloc (words, 8);
  for (unsigned long long stride : { near, far }) {
    for (int k = 0; k < most; k++)
      h[k * stride] = (k + 1) * stride;
    CHECK (cudaMemcpy (p, h, words * 8, cudaMemcpyHostToDevice));
    for (int n : { 0, 1, 2, 4, 8, 16 })
      for (int r = 0; r < 2; r++)
        chase<<<1, 32>>> (p, n, out);
    CHECK (cudaDeviceSynchronize ());
    for (int k = 0; k < most; k++)
      h[k * stride] = 0;
  }
  printf ("cold-start: done\n");
  return 0;
}
