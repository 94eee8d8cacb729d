// intrinsics-bits.cu - prmt's six modes, szext, cvt.pack.sat and the 8-bit
// float pairs (cuda_fp8.h's e4m3 and e5m2, both ways) on 512 inputs: the
// program prints a hash of each result and some values; the GPU's output
// and `memsim run`'s must be the same text.
//
//   nvcc -O3 -arch=sm_90 -o bits gpu/probes/intrinsics-bits.cu && ./bits > gpu.txt
//   memsim run gpu/probes/intrinsics-bits.cu > memsim.txt && diff gpu.txt memsim.txt
#include <cstdio>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
__global__ void fp8k(const float *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i];
  __nv_fp8x2_e4m3 c(make_float2(x, -x * 3.f));
  __nv_fp8x2_e5m2 d(make_float2(x * 7.f, x / 5.f));
  __half2_raw h = __nv_cvt_fp8x2_to_halfraw2(c.__x, __NV_E4M3); __half2_raw g = __nv_cvt_fp8x2_to_halfraw2(d.__x, __NV_E5M2);
  out[4 * i] = c.__x; out[4 * i + 1] = d.__x; out[4 * i + 2] = h.x | h.y << 16; out[4 * i + 3] = g.x | g.y << 16;
}
__global__ void bits(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = in[i], b = in[(i + 1) % n], r[8];
  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r[0]) : "r"(a), "r"(b), "r"(i));
  asm("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(r[1]) : "r"(a), "r"(b), "r"(i));
  asm("prmt.b32.rc8 %0, %1, %2, %3;" : "=r"(r[2]) : "r"(a), "r"(b), "r"(i));
  asm("prmt.b32.ecl %0, %1, %2, %3;" : "=r"(r[3]) : "r"(a), "r"(b), "r"(i));
  asm("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(r[4]) : "r"(a), "r"(b), "r"(i));
  asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r[5]) : "r"(a), "r"(b), "r"(i));
  asm("szext.wrap.s32 %0, %1, %2;" : "=r"(r[6]) : "r"(a), "r"(i));
  asm("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(r[7]) : "r"((int)a >> (i % 20)), "r"((int)b >> (i % 17)));
  for (int k = 0; k < 8; k++) out[8 * i + k] = r[k];
}
int main() {
  const int n = 512;
  float *f; unsigned *u, *o1, *o2;
  cudaMallocManaged(&f, n * 4); cudaMallocManaged(&u, n * 4); cudaMallocManaged(&o1, 4 * n * 4); cudaMallocManaged(&o2, 8 * n * 4);
  for (int i = 0; i < n; i++) { f[i] = (i - 256) * 1.37f + (i % 7) * 0.013f; if (i % 97 == 0) f[i] = 1e6f; u[i] = i * 2654435761u ^ (i << 7); }
  fp8k<<<2, 256>>>(f, o1, n); bits<<<2, 256>>>(u, o2, n); cudaDeviceSynchronize();
  unsigned long long h = 1469598103934665603ull;
  for (int i = 0; i < 4 * n; i++) { h = (h ^ o1[i]) * 1099511628211ull; }
  printf("fp8 %016llx\n", h);
  for (int k = 0; k < 8; k++) { unsigned long long g = 1469598103934665603ull; for (int i = 0; i < n; i++) g = (g ^ o2[8 * i + k]) * 1099511628211ull; printf("bits[%d] %016llx first %08x %08x\n", k, g, o2[k], o2[8 + k]); }
  for (int i = 0; i < 8; i++) printf("fp8[%d] %04x %04x %08x %08x (%g)\n", i * 61, o1[4*i*61], o1[4*i*61+1], o1[4*i*61+2], o1[4*i*61+3], f[i*61]);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  return 0;
}
