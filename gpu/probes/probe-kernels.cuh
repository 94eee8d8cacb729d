// probe-kernels.cuh - kernels more than one probe measures.
#pragma once
#include <cstddef>

// One warp follows a chain of n dependent loads (each address comes from
// the load before it): n times the memory's latency.
template <typename T> __global__ void
chase (const T *p, int n, T *out)
{
  T at = 0;
  for (int k = 0; k < n; k++)
    at = p[at];
  if (threadIdx.x == 0)
    out[0] = at;
}

// Blocks of 256 threads each sum their 256 elements and store the sum: a
// stream of reads and one store a block (reduce_interleaved's traffic).
__global__ void
block_sums (const int *in, int *out, size_t n)
{
  __shared__ int s[256];
  size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0;
  __syncthreads ();
  for (int h = 128; h > 0; h >>= 1) {
    if (threadIdx.x < h)
      s[threadIdx.x] += s[threadIdx.x + h];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = s[0];
}
