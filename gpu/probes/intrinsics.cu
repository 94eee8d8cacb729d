// intrinsics.cu - CUDA's device math, integer, half-precision, atomic and
// warp intrinsics in one program, each kernel's results dumped as hex: the
// GPU's output and `memsim run`'s must be the same bytes (the engine's
// semantics of the PTX each intrinsic compiles to).
//
//   nvcc -O3 -arch=sm_90 -o intrinsics gpu/probes/intrinsics.cu && ./intrinsics gpu.txt
//   memsim run gpu/probes/intrinsics.cu -- memsim.txt
//   python3 gpu/probes/intrinsics-compare.py gpu.txt memsim.txt
//
// Results that depend on the order of atomics (atomicExch's and atomicCAS's
// winners) are left out of the dump.
#include <cstdio>
#include <cstring>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

__global__ void fmath(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = in[i] * 0.5f + 0.25f, y = in[(i + 1) % n] + 1.5f;
  float r = 0;
  r += sinf(x) + cosf(x) + tanf(x) + expf(x) + exp2f(x) + exp10f(x) + logf(y) + log2f(y) + log10f(y);
  r += log1pf(x) + expm1f(x) + powf(y, x) + sqrtf(y) + rsqrtf(y) + cbrtf(x) + erff(x) + erfcf(x);
  r += erfinvf(x * 0.5f) + erfcinvf(y * 0.5f) + lgammaf(y) + tgammaf(y) + j0f(x) + j1f(x) + y0f(y) + y1f(y);
  r += sinhf(x) + coshf(x) + tanhf(x) + asinf(x * 0.3f) + acosf(x * 0.3f) + atanf(x) + atan2f(x, y);
  r += asinhf(x) + acoshf(y + 1) + atanhf(x * 0.3f) + hypotf(x, y) + fmodf(y, x + 1) + remainderf(y, x + 1);
  int q; r += remquof(y, x + 1, &q) + q; int e; r += frexpf(y, &e) + e + ldexpf(x, 3);
  float ip; r += modff(y, &ip) + ip + nextafterf(x, y) + rintf(y) + roundf(y) + truncf(y) + floorf(y) + ceilf(y);
  r += fdimf(x, y) + fmaf(x, y, 1.f) + norm3df(x, y, 1.f) + rhypotf(x, y) + normcdff(x) + normcdfinvf(0.3f + x * 0.1f);
  float s, c; sincosf(x, &s, &c); r += s + c; sincospif(x, &s, &c); r += s + c + sinpif(x) + cospif(x);
  r += __sinf(x) + __cosf(x) + __expf(x) + __logf(y) + __powf(y, x) + __fdividef(x, y) + __saturatef(x) + __tanf(x);
  r += fminf(x, y) + fmaxf(x, y) + copysignf(x, -y) + fabsf(-x) + scalbnf(x, 2) + logbf(y) + ilogbf(y);
  r += (float)isnan(x) + (float)isinf(y) + (float)signbit(x);
  r += __fadd_rn(x, y) + __fmul_rz(x, y) + __fsqrt_rn(y) + __frcp_rn(y) + __fdiv_rn(x, y) + __fmaf_rz(x, y, x);
  r += x / y;
  out[i] = r;
}

__global__ void dmath(const double *in, double *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  double x = in[i] * 0.5 + 0.25, y = in[(i + 1) % n] + 1.5, r = 0;
  r += sin(x) + cos(x) + tan(x) + exp(x) + exp2(x) + exp10(x) + log(y) + log2(y) + log10(y) + log1p(x) + expm1(x);
  r += pow(y, x) + sqrt(y) + rsqrt(y) + cbrt(x) + erf(x) + erfc(x) + erfinv(x * 0.5) + lgamma(y) + tgamma(y);
  r += sinh(x) + cosh(x) + tanh(x) + asin(x * 0.3) + acos(x * 0.3) + atan(x) + atan2(x, y) + hypot(x, y);
  r += fmod(y, x + 1) + remainder(y, x + 1) + rint(y) + round(y) + trunc(y) + floor(y) + ceil(y) + fma(x, y, 1.0);
  r += j0(x) + y0(y) + normcdf(x) + normcdfinv(0.3 + x * 0.1) + x / y + __dadd_rn(x, y) + __drcp_rn(y) + __dsqrt_rn(y);
  r += (double)__double2int_rn(y) + (double)__double2ll_rz(y) + __longlong_as_double(__double_as_longlong(x));
  out[i] = r;
}

__global__ void imath(const unsigned *in, unsigned long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned a = in[i], b = in[(i + 7) % n] | 1;
  long long la = (long long)a * 977 - 12345, lb = (long long)b * 31 + 1;
  unsigned long long r = 0;
  r += __popc(a) + __popcll(la) + __clz(a) + __clzll(la) + __ffs(a) + __ffsll(la) + __brev(a) + __brevll(la);
  r += __byte_perm(a, b, 0x5140) + __funnelshift_l(a, b, 5) + __funnelshift_r(a, b, 7) + __funnelshift_lc(a, b, 40);
  r += __dp4a(a, b, 3u) + __dp2a_lo(a, b, 1u) + __dp2a_hi(a, b, 2u) + __vadd4(a, b) + __vabsdiffu4(a, b) + __vsub2(a, b);
  r += __vcmpgtu4(a, b) + __vmaxu2(a, b) + __vavgu4(a, b) + __sad(a, b, 1) + __usad(a, b, 2) + __umulhi(a, b);
  r += __mulhi((int)a, (int)b) + __umul64hi(la, lb) + __mul64hi(la, lb) + __mul24(a, b) + __umul24(a, b);
  r += __hadd((int)a, (int)b) + __rhadd((int)a, (int)b) + __uhadd(a, b) + __urhadd(a, b);
  r += la / lb + la % lb + (unsigned long long)a / b + a % b + (unsigned long long)((unsigned __int128)la * lb >> 64);
  r += min(a, b) + max(la, lb) + umin(a, b) + llabs(-la) + abs((int)a);
  r += __float_as_uint(__uint_as_float(a)) + __float2uint_rn((float)a) + __float2half_rn((float)(a & 255)).operator __half_raw().x;
  out[i] = r;
}

__global__ void hmath(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  __half a = __float2half(in[i]), b = __float2half(in[(i + 3) % n] + 1.f);
  __half2 a2 = __halves2half2(a, b), b2 = __floats2half2_rn(0.5f, 2.f);
  __half2 c2 = __hfma2(a2, b2, a2); c2 = __hmul2(c2, b2); c2 = __hadd2(c2, __habs2(a2)); c2 = __hmax2(c2, b2);
  __half c = __hadd(a, b) * __hsub(a, b) + __hdiv(a, b) + hsqrt(b) + hexp(a) + hlog(b) + hsin(a) + hcos(a) + hrcp(b);
  __nv_bfloat16 ba = __float2bfloat16(in[i]), bb = __float2bfloat16(2.f);
  __nv_bfloat162 bx = __floats2bfloat162_rn(1.f, in[i]);
  bx = __hfma2(bx, bx, bx);
  float r = __half2float(c) + __low2float(c2) + __high2float(c2) + __bfloat162float(__hmul(ba, bb) + ba) + __low2float(bx) + __high2float(bx);
  r += (float)__hlt(a, b) + (float)__hbgt2(a2, b2) + (float)__hisnan(a);
  out[i] = r;
}

__device__ unsigned counter;
__global__ void atomics(float *f, double *d, unsigned *u, unsigned long long *ull, int *s, __half2 *h2, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(&f[i % 4], 1.0f); atomicAdd(&d[i % 4], 1.0); atomicAdd(&h2[i % 4], __floats2half2_rn(1.f, 1.f));
  atomicMax(&ull[i % 4], (unsigned long long)i); atomicMin(&s[i % 4], -i); atomicAnd(&u[0], ~0u); atomicOr(&u[1], 1u << (i % 32));
  atomicXor(&u[2], (unsigned)i); atomicInc(&u[3], 100u); atomicDec(&u[4], 100u); atomicExch(&f[4], (float)i);
  atomicCAS(&u[5], 0u, (unsigned)i); atomicAdd_block(&u[6], 1u); atomicAdd_system(&u[7], 1u);
  atomicCAS((unsigned short *)&u[8], (unsigned short)0, (unsigned short)1);
  atomicMax(&s[4], i); atomicSub(&s[5], 1); atomicAdd(&counter, 1u);
  __threadfence(); __threadfence_block(); __threadfence_system();
}

__global__ void warp_ops(const int *in, int *out, int n) {
  extern __shared__ int dyn[];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  dyn[threadIdx.x] = v;
  block.sync();
  int r = cg::reduce(tile, v, cg::plus<int>()) + cg::reduce(t8, v, cg::greater<int>());
  r += cg::inclusive_scan(tile, v) + cg::exclusive_scan(t8, v);
  r += __reduce_add_sync(~0u, v) + __reduce_max_sync(~0u, v) + __reduce_or_sync(~0u, (unsigned)v);
  r += __popc(__match_any_sync(~0u, v & 3)) + __syncthreads_count(v & 1) + __syncthreads_and(v >= 0) + __syncthreads_or(v > 100);
  r += __shfl_sync(~0u, v, 3) + __shfl_up_sync(~0u, v, 2) + __shfl_down_sync(~0u, v, 1, 16) + __shfl_xor_sync(~0u, v, 5);
  r += tile.shfl(v, 0) + tile.any(v > 5) + tile.all(v >= 0) + __popc(tile.ballot(v & 1)) + t8.thread_rank() + tile.meta_group_rank();
  auto active = cg::coalesced_threads(); r += active.size();
  if (v & 1) { auto odd = cg::coalesced_threads(); r += odd.thread_rank() + cg::reduce(odd, v, cg::plus<int>()); }
  r += dyn[(threadIdx.x + 1) % blockDim.x] + (int)(clock64() & 0) + (int)(__ldg(&in[i % n]) + __ldcs(&in[i % n]) + __ldcg(&in[i % n]) + __ldca(&in[i % n]) + __ldlu(&in[i % n]) + __ldcv(&in[i % n]));
  __nanosleep(10);
  int loc[16]; for (int k = 0; k < 16; k++) loc[k] = v * k; r += loc[v & 15];
  if (i < n) { __stcs(&out[i], r); __stwb(&out[i], r); __stcg(&out[i], r); __stwt(&out[i], r); }
}

static void dump(const char *name, const void *p, size_t bytes, FILE *f) {
  const unsigned char *b = (const unsigned char *) p;
  fprintf(f, "%s", name);
  for (size_t k = 0; k < bytes; k++) { if (k % 64 == 0) fprintf(f, "\n"); fprintf(f, "%02x", b[k]); }
  fprintf(f, "\n");
}
int main(int argc, char **argv) {
  const int n = 1000;
  FILE *out = fopen(argc > 1 ? argv[1] : "math-out.txt", "w");
  float *f, *fo; double *d, *dO; unsigned *u; unsigned long long *ull; int *s, *io; __half2 *h2;
  cudaMallocManaged(&f, n * sizeof(float)); cudaMallocManaged(&fo, n * sizeof(float));
  cudaMallocManaged(&d, n * sizeof(double)); cudaMallocManaged(&dO, n * sizeof(double));
  cudaMallocManaged(&u, n * sizeof(unsigned)); cudaMallocManaged(&ull, n * sizeof(unsigned long long));
  cudaMallocManaged(&s, n * sizeof(int)); cudaMallocManaged(&io, n * sizeof(int)); cudaMallocManaged(&h2, 16 * sizeof(__half2));
  for (int i = 0; i < n; i++) { f[i] = (i % 17) * 0.1f; d[i] = (i % 13) * 0.1; u[i] = i * 2654435761u; s[i] = i - 500; io[i] = 0; fo[i] = 0; dO[i] = 0; ull[i] = 0; }
  memset(h2, 0, 16 * sizeof(__half2));
  fmath<<<4, 256>>>(f, fo, n); cudaDeviceSynchronize(); dump("fmath", fo, n * 4, out);
  dmath<<<4, 256>>>(d, dO, n); cudaDeviceSynchronize(); dump("dmath", dO, n * 8, out);
  imath<<<4, 256>>>(u, ull, n); cudaDeviceSynchronize(); dump("imath", ull, n * 8, out);
  hmath<<<4, 256>>>(f, fo, n); cudaDeviceSynchronize(); dump("hmath", fo, n * 4, out);
  for (int i = 0; i < n; i++) { f[i] = (i % 17) * 0.1f; d[i] = (i % 13) * 0.1; u[i] = i * 2654435761u; s[i] = i - 500; ull[i] = 0; }
  atomics<<<4, 256>>>(f, d, u, ull, s, h2, n); cudaDeviceSynchronize();
  dump("atomics-f", f, 4 * 4, out); dump("atomics-d", d, 4 * 8, out); dump("atomics-u", u, 5 * 4, out); dump("atomics-u67", u + 6, 2 * 4, out);
  dump("atomics-ull", ull, 4 * 8, out); dump("atomics-s", s, 6 * 4, out); dump("atomics-h2", h2, 4 * 4, out);
  for (int i = 0; i < n; i++) s[i] = i - 500;
  warp_ops<<<4, 256, 256 * sizeof(int)>>>(s, io, n); cudaDeviceSynchronize(); dump("warp_ops", io, n * 4, out);
  printf("%s\n", cudaGetErrorString(cudaGetLastError()));
  fclose(out);
  return 0;
}
