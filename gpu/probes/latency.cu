// latency.cu - the time model's physical constants, measured on the GPU at
// hand: a load's latency from L1, L2 and DRAM on an idle GPU (one thread
// chasing pointers), the cycles a warp waits between dependent arithmetic
// instructions, how fast the L2 serves atomics that hit one address, and
// the bandwidth of host memory mapped into the device (zero-copy).
// Each case is one launch long enough (>= 0.5 ms) that the launch's own
// time does not matter, timed by CUDA events, median of 5.
//   nvcc -O3 -arch=sm_90 -o latency gpu/probes/latency.cu && ./latency
#include "probe-timing.cuh"

// one thread follows next[] for `steps` loads; each load's address is the
// value the one before it returned
__global__ void chase (const unsigned *next, int steps, unsigned *at)
{
  unsigned i = *at;
  for (int s = 0; s < steps; s++) i = next[i];
  *at = i;
}

// `chains` independent dependent-FMA chains in each thread, `n` FMAs each
__global__ void fma_chain (float *out, int n, float a, float b)
{
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) x0 = fmaf (x0, a, b);
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}
__global__ void fma_ilp4 (float *out, int n, float a, float b)
{
  float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) {
      x0 = fmaf (x0, a, b); x1 = fmaf (x1, a, b); x2 = fmaf (x2, a, b); x3 = fmaf (x3, a, b);
    }
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}
__global__ void sfu_chain (float *out, int n)
{
  float x = threadIdx.x * 1e-3f;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) x = __sinf (x);
  }
  out[threadIdx.x] = x;
}
__global__ void dfma_chain (double *out, int n, double a, double b)
{
  double x = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < 16; u++) x = fma (x, a, b);
  }
  out[threadIdx.x] = x;
}

// every thread exchanges `per_thread` times into p[addr(lane)]; the result
// is stored, so ptxas cannot aggregate the warp's lanes
__global__ void exch (int *p, int *out, int per_thread, int groups, int stride, int per_warp)
{
  int lane = threadIdx.x % 32;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int a = (lane % groups) * stride + (per_warp ? warp * 32 : 0);
  int r = 0;
  for (int k = 0; k < per_thread; k++) r += atomicExch (&p[a], threadIdx.x + k);
  out[blockIdx.x * blockDim.x + threadIdx.x] = r;
}
// atomicAdd of a constant to one counter: ptxas aggregates it to one atomic
// a warp (the counter of warpAggregatedAtomicsCG)
__global__ void add_counter (int *p, int per_thread)
{
  for (int k = 0; k < per_thread; k++) atomicAdd (p, 1);
}

__global__ void read_sum (const int4 *in, size_t n, int *sink)
{
  int s = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    s ^= in[i].x ^ in[i].w;
  if (s == 0x7654321) *sink = s;
}
__global__ void write_all (int4 *o, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    o[i] = make_int4 (i, 0, 0, 0);
}

int main ()
{
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  int clock_khz;
  CHECK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, 0));
  double ghz = clock_khz / 1e6;
  printf ("device %s, %d SMs, clock %.3f GHz (cycles below at this clock)\n", prop.name,
          prop.multiProcessorCount, ghz);
  unsigned *sink;
  CHECK (cudaMalloc (&sink, 64));

  // pointer chase: a random cycle over the 128-byte lines of a region (one
  // word a line), so that no two steps share a line and nothing prefetches.
  // Each launch goes on where the last stopped: in the DRAM region every
  // launch reads lines no launch read before (the L2 holds 60 MiB)
  const size_t regions[] = { 32u << 10, 4u << 20, 16u << 20, 1u << 30 };
  const char *names[] = { "L1 (32 KiB)", "L2 (4 MiB)", "L2 (16 MiB)", "DRAM (1 GiB)" };
  for (int r = 0; r < 4; r++) {
    size_t words = regions[r] / 4, lines = regions[r] / 128;
    std::vector<unsigned> order (lines), next (words, 0);
    for (size_t i = 0; i < lines; i++) order[i] = i;
    srand (7);
    for (size_t i = lines - 1; i > 0; i--) std::swap (order[i], order[rand () % (i + 1)]);
    for (size_t i = 0; i < lines; i++)
      next[order[i] * 32] = order[(i + 1) % lines] * 32;
    unsigned *d;
    CHECK (cudaMalloc (&d, regions[r]));
    CHECK (cudaMemcpy (d, next.data (), regions[r], cudaMemcpyHostToDevice));
    int steps = r == 0 ? 200000 : 100000;
    CHECK (cudaMemset (sink, 0, 4));
    if (r < 3)
      chase<<<1, 1>>> (d, (int) lines, sink);   // warm the L1 or L2: the whole cycle
    double ms = median_ms ([&] { chase<<<1, 1>>> (d, steps, sink); });
    printf ("chase %-14s %8.1f ns %7.0f cycles a load\n", names[r], ms * 1e6 / steps,
            ms * 1e6 / steps * ghz);
    CHECK (cudaFree (d));
  }

  // dependent arithmetic: one warp, then one warp on each scheduler of one SM
  float *fo;
  double *dout;
  CHECK (cudaMalloc (&fo, 4096 * 4));
  CHECK (cudaMalloc (&dout, 4096 * 8));
  const int n = 20000;
  for (int warps = 1; warps <= 16; warps *= 4) {
    double t;
    t = median_ms ([&] { fma_chain<<<1, 32 * warps>>> (fo, n, 1.0001f, 0.5f); });
    printf ("fma chain   %2d warps: %6.2f cycles per dependent FMA a warp\n", warps, t * 1e6 * ghz / (n * 16.0));
    t = median_ms ([&] { fma_ilp4<<<1, 32 * warps>>> (fo, n, 1.0001f, 0.5f); });
    printf ("fma 4 chains %2d warps: %6.2f cycles per FMA a warp\n", warps, t * 1e6 * ghz / (n * 64.0));
    t = median_ms ([&] { sfu_chain<<<1, 32 * warps>>> (fo, n); });
    printf ("sin chain   %2d warps: %6.2f cycles per dependent __sinf a warp\n", warps, t * 1e6 * ghz / (n * 16.0));
    t = median_ms ([&] { dfma_chain<<<1, 32 * warps>>> (dout, n, 1.0001, 0.5); });
    printf ("dfma chain  %2d warps: %6.2f cycles per dependent double FMA a warp\n", warps, t * 1e6 * ghz / (n * 16.0));
  }

  // atomics on few addresses from the whole GPU: ns per lane-operation on
  // the busiest address
  int *p, *out;
  const int blocks = prop.multiProcessorCount * 2, threads = 256, per = 64;
  CHECK (cudaMalloc (&p, 1 << 24));
  CHECK (cudaMalloc (&out, blocks * threads * 4));
  struct { const char *name; int groups, stride, per_warp; } ac[] = {
    { "1 address", 1, 1, 0 },
    { "8 addresses, one 32-byte sector", 8, 1, 0 },
    { "8 addresses, 8 lines", 8, 32, 0 },
    { "32 addresses, 32 lines", 32, 32, 0 },
    { "1 address a warp", 1, 1, 1 },
  };
  for (auto &c : ac) {
    double ms = median_ms ([&] { exch<<<blocks, threads>>> (p, out, per, c.groups, c.stride, c.per_warp); });
    double ops = (double) blocks * threads * per;
    double busiest = c.per_warp ? 32.0 * per : ops / c.groups;
    printf ("atomicExch %-34s %8.3f ms: %6.3f ns per op on the busiest address, %6.1f G ops/s\n",
            c.name, ms, ms * 1e6 / busiest, ops / ms / 1e6);
  }
  {
    double ms = median_ms ([&] { add_counter<<<blocks * 16, threads>>> (p, per); });
    double warp_ops = (double) blocks * 16 * threads / 32 * per;
    printf ("atomicAdd(counter, 1) aggregated %8.3f ms: %6.3f ns per warp's atomic\n", ms, ms * 1e6 / warp_ops);
  }

  // zero-copy: a kernel reading and writing mapped host memory
  size_t zbytes = 256u << 20;
  int4 *h, *dh;
  CHECK (cudaHostAlloc (&h, zbytes, cudaHostAllocMapped));
  CHECK (cudaHostGetDevicePointer (&dh, h, 0));
  double ms = median_ms ([&] { read_sum<<<blocks * 4, 256>>> (dh, zbytes / 16, (int *) sink); });
  printf ("zero-copy read  %zu MiB: %8.3f ms, %6.1f GB/s\n", zbytes >> 20, ms, zbytes / ms / 1e6);
  ms = median_ms ([&] { write_all<<<blocks * 4, 256>>> (dh, zbytes / 16); });
  printf ("zero-copy write %zu MiB: %8.3f ms, %6.1f GB/s\n", zbytes >> 20, ms, zbytes / ms / 1e6);
  return 0;
}
