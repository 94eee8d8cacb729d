// Seed 003's reduction table on the GPU at 2^24 ints, as memsim times it
// and reduce_multiple as it was before (two elements a step)
// (CUDA events, L2 flushed and the launch queued behind a 20 us kernel
// before each, 5 warm-ups, median of 25): memsim's own reduce.cu kernels.
#include "reduce.cu"
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
// reduce_multiple as it was until 2026-12-02: two elements a step
__global__ void reduce_multiple_two (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
  unsigned int grid_size = blockDim.x * 2 * gridDim.x;
  int v = 0;
  while (i < (unsigned) n) {
    v += LD (in[i]);
    if (i + blockDim.x < (unsigned) n)
      v += LD (in[i + blockDim.x]);
    i += grid_size;
  }
  ST (sdata[tid], v);
  __syncthreads ();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + s]));
    __syncthreads ();
  }
  if (tid < 32)
    warp_reduce_volatile (sdata, tid);
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString (e_)); exit (1); } } while (0)

__global__ void flush_read (const int4 *b, size_t n, int *sink)
{
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) blockDim.x * gridDim.x)
    { int4 v = b[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (acc == 0x7fffffff) *sink = acc;
}
__global__ void spin (unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

int main (int argc, char **argv)
{
  bool once = argc > 1 && !strcmp (argv[1], "ncu");
  const int n = 1 << 24;
  int *in, *out, *sink; int4 *fl;
  cudaDeviceProp p; CK (cudaGetDeviceProperties (&p, 0));
  size_t fln = 2 * (size_t) p.l2CacheSize / sizeof (int4);
  CK (cudaMalloc (&in, n * 4)); CK (cudaMalloc (&out, 65536 * 4)); CK (cudaMalloc (&sink, 4));
  CK (cudaMalloc (&fl, fln * sizeof (int4))); CK (cudaMemset (fl, 0, fln * sizeof (int4)));
  std::vector<int> h (n); for (int i = 0; i < n; i++) h[i] = (int) (((long long) i * 7919) % 2001) - 1000;
  CK (cudaMemcpy (in, h.data (), n * 4, cudaMemcpyHostToDevice));
  cudaEvent_t a, b; CK (cudaEventCreate (&a)); CK (cudaEventCreate (&b));
  struct V { const char *name; int grid; };
  V vs[] = { { "reduce_interleaved", n / 256 }, { "reduce_nondivergent", n / 256 },
             { "reduce_sequential", n / 256 }, { "reduce_firstadd", n / 512 },
             { "reduce_unroll_last", n / 512 }, { "reduce_unroll_complete", n / 512 },
             { "reduce_multiple", 1056 }, { "reduce_multiple", 64 }, { "reduce_multiple_two", 1056 }, { "reduce_shfl", n / 256 } };
  for (auto &v : vs)
    {
      auto launch = [&] {
        if (!strcmp (v.name, "reduce_interleaved")) reduce_interleaved<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_nondivergent")) reduce_nondivergent<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_sequential")) reduce_sequential<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_firstadd")) reduce_firstadd<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_unroll_last")) reduce_unroll_last<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_unroll_complete")) reduce_unroll_complete_256<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_multiple")) reduce_multiple<<<v.grid, 256>>> (out, in, n);
        else if (!strcmp (v.name, "reduce_multiple_two")) reduce_multiple_two<<<v.grid, 256>>> (out, in, n);
        else reduce_shfl<<<v.grid, 256>>> (out, in, n);
      };
      if (once) { launch (); CK (cudaDeviceSynchronize ()); continue; }
      std::vector<float> t;
      for (int it = 0; it < 30; it++)
        {
          flush_read<<<p.multiProcessorCount * 8, 256>>> (fl, fln, sink);
          spin<<<1, 1>>> (20000ull);
          CK (cudaEventRecord (a, 0)); launch (); CK (cudaEventRecord (b, 0));
          CK (cudaEventSynchronize (b));
          float ms; CK (cudaEventElapsedTime (&ms, a, b));
          if (it >= 5) t.push_back (ms);
        }
      std::sort (t.begin (), t.end ());
      double med = 0.5 * (t[11] + t[12]);
      printf ("%-24s grid %6d  event_ms %.4f\n", v.name, v.grid, med);
    }
  CK (cudaGetLastError ());
  return 0;
}
