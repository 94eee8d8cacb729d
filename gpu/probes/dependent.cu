// dependent.cu - how long a warp waits for the result of one instruction
// before the next that needs it, by kind: a shared-memory load, a shuffle,
// an integer multiply-add, a float division and square root (IEEE, as
// nvcc compiles `/` and sqrtf), a conversion, and a barrier all warps reach
// together.  One block; each chain is n steps long, timed by CUDA events
// (median of 5), in SM cycles at the clock the device reports.
//   nvcc -O3 -arch=sm_90 -o dependent gpu/probes/dependent.cu && ./dependent
#include "probe-timing.cuh"

#define STEPS 16
__global__ void shared_chase (unsigned *out, int n)
{
  __shared__ unsigned s[1024];
  for (int i = threadIdx.x; i < 1024; i += blockDim.x)
    s[i] = (i + 33) & 1023;
  __syncthreads ();
  unsigned at = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) at = s[at];
  }
  out[threadIdx.x] = at;
}
__global__ void shfl_chain (unsigned *out, int n)
{
  unsigned x = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) x = __shfl_xor_sync (0xffffffffu, x, 1) + 1;
  }
  out[threadIdx.x] = x;
}
__global__ void imad_chain (unsigned *out, int n, unsigned a, unsigned b)
{
  unsigned x = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) x = x * a + b;
  }
  out[threadIdx.x] = x;
}
__global__ void fdiv_chain (float *out, int n, float a)
{
  float x = threadIdx.x + 1.5f;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) x = a / x + 1.0f;
  }
  out[threadIdx.x] = x;
}
__global__ void sqrt_chain (float *out, int n)
{
  float x = threadIdx.x + 1.5f;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) x = sqrtf (x) + 1.0f;
  }
  out[threadIdx.x] = x;
}
__global__ void cvt_chain (float *out, int n)
{
  float x = threadIdx.x + 1.5f;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) x = (float) ((int) x + 3);
  }
  out[threadIdx.x] = x;
}
__global__ void barrier_loop (unsigned *out, int n)
{
  unsigned x = threadIdx.x;
  for (int i = 0; i < n; i++) {
#pragma unroll
    for (int u = 0; u < STEPS; u++) {
      x += 1;
      __syncthreads ();
    }
  }
  out[threadIdx.x] = x;
}

int
main ()
{
  cudaDeviceProp prop;
  CHECK (cudaGetDeviceProperties (&prop, 0));
  int khz;
  CHECK (cudaDeviceGetAttribute (&khz, cudaDevAttrClockRate, 0));
  double ghz = khz / 1e6;
  printf ("device %s, clock %.3f GHz (cycles below at this clock)\n", prop.name, ghz);
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  unsigned *u;
  float *f;
  CHECK (cudaMalloc (&u, 1024 * 4));
  CHECK (cudaMalloc (&f, 1024 * 4));
  const int n = 20000;
  const double steps = n * (double) STEPS;
  for (int warps : { 1, 4, 8 }) {
    int t = 32 * warps;
    double ms;
    ms = median_ms ([&] { shared_chase<<<1, t>>> (u, n); });
    printf ("%d warps: shared load  %6.2f cycles a dependent step\n", warps, ms * 1e6 * ghz / steps);
    ms = median_ms ([&] { shfl_chain<<<1, t>>> (u, n); });
    printf ("%d warps: shuffle      %6.2f cycles a dependent step (shfl + add)\n", warps, ms * 1e6 * ghz / steps);
    ms = median_ms ([&] { imad_chain<<<1, t>>> (u, n, 3u, 7u); });
    printf ("%d warps: integer mad  %6.2f cycles a dependent step\n", warps, ms * 1e6 * ghz / steps);
    ms = median_ms ([&] { fdiv_chain<<<1, t>>> (f, n, 3.0f); });
    printf ("%d warps: float a / x  %6.2f cycles a dependent step (div + add)\n", warps, ms * 1e6 * ghz / steps);
    ms = median_ms ([&] { sqrt_chain<<<1, t>>> (f, n); });
    printf ("%d warps: sqrtf        %6.2f cycles a dependent step (sqrt + add)\n", warps, ms * 1e6 * ghz / steps);
    ms = median_ms ([&] { cvt_chain<<<1, t>>> (f, n); });
    printf ("%d warps: f2i, i2f     %6.2f cycles a dependent step (2 cvt + add)\n", warps, ms * 1e6 * ghz / steps);
    ms = median_ms ([&] { barrier_loop<<<1, t>>> (u, n); });
    printf ("%d warps: __syncthreads %5.2f cycles a barrier (with an add)\n", warps, ms * 1e6 * ghz / steps);
  }
  return 0;
}
