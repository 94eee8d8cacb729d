// H200 preset probe: device properties, DRAM bandwidth (copy and read),
// event time of tiny kernels (for comparison with ncu's gpu__time_duration).
// Modes: props | bw | tiny (events) | ncu (the kernels once each, for ncu)
#include <cuda_runtime.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString (e_)); exit (1); } } while (0)

__global__ void empty_kernel () {}

__global__ void vec_add (const float *a, const float *b, float *c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

__global__ void copy_kernel (const int4 *__restrict__ s, int4 *__restrict__ d, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) blockDim.x * gridDim.x)
    d[i] = s[i];
}

__global__ void read_kernel (const int4 *__restrict__ s, size_t n, int *sink)
{
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) blockDim.x * gridDim.x)
    { int4 v = s[i]; acc ^= v.x ^ v.y ^ v.z ^ v.w; }
  if (acc == 0x7fffffff) *sink = acc;
}

__global__ void spin_kernel (unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t)); while (t - t0 < ns);
}

static double median (std::vector<float> v)
{
  std::sort (v.begin (), v.end ());
  size_t n = v.size ();
  return n % 2 ? v[n / 2] : 0.5 * ((double) v[n / 2 - 1] + v[n / 2]);
}

// time f() with events; prequeue: a 20 us spin kernel before the start event
// (memsim's gpu/profiler.cu protocol), else a bare launch after a sync
template <class F>
static void time_it (const char *label, F f, int reps, bool prequeue, double bytes)
{
  cudaEvent_t a, b;
  CK (cudaEventCreate (&a)); CK (cudaEventCreate (&b));
  std::vector<float> t;
  for (int it = 0; it < reps + 5; it++)
    {
      if (prequeue) spin_kernel<<<1, 1>>> (20000ull);
      CK (cudaEventRecord (a, 0));
      f ();
      CK (cudaEventRecord (b, 0));
      CK (cudaEventSynchronize (b));
      float ms; CK (cudaEventElapsedTime (&ms, a, b));
      if (it >= 5) t.push_back (ms);
    }
  double m = median (t);
  std::vector<float> s = t; std::sort (s.begin (), s.end ());
  printf ("%s prequeue=%d reps=%d median_us=%.3f min_us=%.3f max_us=%.3f", label, prequeue,
          reps, m * 1e3, s.front () * 1e3, s.back () * 1e3);
  if (bytes > 0) printf (" bytes=%.0f GBps=%.1f", bytes, bytes / (m * 1e-3) / 1e9);
  printf ("\n");
  CK (cudaEventDestroy (a)); CK (cudaEventDestroy (b));
}

int main (int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "props";
  int dev = 0;
  CK (cudaSetDevice (dev));
  cudaDeviceProp p;
  CK (cudaGetDeviceProperties (&p, dev));
  if (!strcmp (mode, "props"))
    {
      int clk = 0, mclk = 0, bus = 0, l2 = 0, sms = 0;
      cudaDeviceGetAttribute (&clk, cudaDevAttrClockRate, dev);
      cudaDeviceGetAttribute (&mclk, cudaDevAttrMemoryClockRate, dev);
      cudaDeviceGetAttribute (&bus, cudaDevAttrGlobalMemoryBusWidth, dev);
      cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, dev);
      cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev);
      printf ("name=%s\n", p.name);
      printf ("compute_capability=%d.%d\n", p.major, p.minor);
      printf ("multiProcessorCount=%d (attr %d)\n", p.multiProcessorCount, sms);
      printf ("totalGlobalMem=%zu\n", p.totalGlobalMem);
      printf ("l2CacheSize=%d (attr %d)\n", p.l2CacheSize, l2);
      printf ("persistingL2CacheMaxSize=%d\n", p.persistingL2CacheMaxSize);
      printf ("memoryBusWidth=%d (attr %d)\n", p.memoryBusWidth, bus);
      printf ("attr_clockRate_kHz=%d\n", clk);
      printf ("attr_memoryClockRate_kHz=%d\n", mclk);
      printf ("sharedMemPerMultiprocessor=%zu\n", p.sharedMemPerMultiprocessor);
      printf ("sharedMemPerBlock=%zu\n", p.sharedMemPerBlock);
      printf ("sharedMemPerBlockOptin=%zu\n", p.sharedMemPerBlockOptin);
      printf ("reservedSharedMemPerBlock=%zu\n", p.reservedSharedMemPerBlock);
      printf ("regsPerMultiprocessor=%d\n", p.regsPerMultiprocessor);
      printf ("regsPerBlock=%d\n", p.regsPerBlock);
      printf ("maxThreadsPerMultiProcessor=%d\n", p.maxThreadsPerMultiProcessor);
      printf ("maxThreadsPerBlock=%d\n", p.maxThreadsPerBlock);
      printf ("maxBlocksPerMultiProcessor=%d\n", p.maxBlocksPerMultiProcessor);
      printf ("warpSize=%d\n", p.warpSize);
      // DDR: two transfers per clock
      printf ("peak_GBps_from_bus_x_clock=%.1f\n", 2.0 * mclk * 1e3 * (bus / 8) / 1e9);
      return 0;
    }
  // buffers: 2 x 2 GiB for the copy (far beyond the L2)
  size_t bytes = (size_t) 2 << 30, n = bytes / sizeof (int4);
  int4 *s, *d; int *sink;
  CK (cudaMalloc (&s, bytes)); CK (cudaMalloc (&d, bytes)); CK (cudaMalloc (&sink, 4));
  CK (cudaMemset (s, 1, bytes)); CK (cudaMemset (d, 0, bytes));
  int vn = 50000; float *va, *vb, *vc;
  CK (cudaMalloc (&va, vn * 4)); CK (cudaMalloc (&vb, vn * 4)); CK (cudaMalloc (&vc, vn * 4));
  CK (cudaMemset (va, 0, vn * 4)); CK (cudaMemset (vb, 0, vn * 4));
  int grid = p.multiProcessorCount * 8;
  auto copy = [&] { copy_kernel<<<grid, 256>>> (s, d, n); };
  auto read = [&] { read_kernel<<<grid, 256>>> (s, n, sink); };
  auto empty = [&] { empty_kernel<<<1, 32>>> (); };
  auto vadd = [&] { vec_add<<<(vn + 255) / 256, 256>>> (va, vb, vc, vn); };
  CK (cudaDeviceSynchronize ());
  if (!strcmp (mode, "bw"))
    {
      time_it ("copy_2GiB_rw", copy, 20, false, 2.0 * bytes);
      time_it ("read_2GiB", read, 20, false, (double) bytes);
    }
  else if (!strcmp (mode, "tiny"))
    {
      time_it ("empty_1x32", empty, 300, true, 0);
      time_it ("empty_1x32", empty, 300, false, 0);
      time_it ("vectorAdd_50000_196blocks", vadd, 300, true, 0);
      time_it ("vectorAdd_50000_196blocks", vadd, 300, false, 0);
    }
  else if (!strcmp (mode, "ncu"))
    {
      for (int i = 0; i < 20; i++) empty ();
      for (int i = 0; i < 20; i++) vadd ();
      for (int i = 0; i < 3; i++) copy ();
      for (int i = 0; i < 3; i++) read ();
    }
  CK (cudaDeviceSynchronize ());
  CK (cudaGetLastError ());
  return 0;
}
