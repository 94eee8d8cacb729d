// Kernels for tests/test-ptx.c: compiled by nvcc to PTX at test time and
// run by memsim's PTX engine.  Their counts are derived by hand there.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
__global__ void vadd(const float *a, const float *b, float *c, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    c[i] = a[i] + b[i];
}

// column walk: lane i reads row i of a width-wide matrix (32 sectors a request)
__global__ void column(const float *in, float *out, int width)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = in[i * width];
}

// a tree reduction in shared memory, one partial sum per block
__global__ void reduce_shared(const int *in, int *out)
{
  __shared__ int s[256];
  unsigned t = threadIdx.x;
  s[t] = in[blockIdx.x * 256 + t];
  __syncthreads();
  for (unsigned k = 128; k > 0; k >>= 1)
    {
      if (t < k)
        s[t] += s[t + k];
      __syncthreads();
    }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

// warp shuffles and an atomic whose result is unused
__global__ void shfl_sum(const int *in, int *out)
{
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(out, v);
}

// 32-way bank conflicts: a column of a 32x32 tile
__global__ void bank_column(float *out)
{
  __shared__ float tile[32][32];
  __shared__ float row[32];
  tile[threadIdx.x][0] = threadIdx.x;
  row[threadIdx.x] = 2 * threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x][0] + row[threadIdx.x];
}

// bit intrinsics: __ffs (brev + bfind.shiftamt), __clz, __popc, __brev
__global__ void bits(const unsigned *in, unsigned *out)
{
  unsigned x = in[threadIdx.x];
  out[4 * threadIdx.x] = __ffs(x);
  out[4 * threadIdx.x + 1] = __clz(x);
  out[4 * threadIdx.x + 2] = __popc(x);
  out[4 * threadIdx.x + 3] = __brev(x);
}

// bmsk (CUB's radix sort makes its digit masks with it), both modes
// min and max of floats and doubles (max.f32, min.f64 ...; the .NaN forms
// through inline PTX): lane k of 32 takes pair k of a and b
__global__ void min_max(const float *a, const float *b, const double *c, const double *d,
                        float *f, double *g)
{
    int k = threadIdx.x;
    float x = a[k], y = b[k], r, s;
    asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(x), "f"(y));
    asm("min.NaN.f32 %0, %1, %2;" : "=f"(s) : "f"(x), "f"(y));
    f[4 * k] = fmaxf(x, y);
    f[4 * k + 1] = fminf(x, y);
    f[4 * k + 2] = r;
    f[4 * k + 3] = s;
    g[2 * k] = fmax(c[k], d[k]);
    g[2 * k + 1] = fmin(c[k], d[k]);
}

__global__ void bitmask(const unsigned *a, const unsigned *b, unsigned *out)
{
  unsigned i = threadIdx.x, d, e;
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(d) : "r"(a[i]), "r"(b[i]));
  asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(e) : "r"(a[i]), "r"(b[i]));
  out[2 * i] = d;
  out[2 * i + 1] = e;
}

// unsigned division and remainder by divisors known only at run time
// (div/rem.u32 and .u64 by a register: powers of two and others), by a
// warpSize held in a register, and a shuffle whose lane offset, clamp and
// mask are constants, with the source lane's validity (shfl.sync's
// predicate)
__global__ void divide(const unsigned *a, const unsigned *b, unsigned *out,
                       unsigned long long *out64)
{
  unsigned t = threadIdx.x, x = a[t], y = b[t];
  out[4 * t] = x / y;
  out[4 * t + 1] = (x ^ 0x5a5a5a5au) % y;
  out[4 * t + 2] = t / warpSize + t % warpSize;
  unsigned v, p;
  asm("{ .reg .pred q; shfl.sync.down.b32 %0|q, %2, 5, 31, -1; selp.u32 %1, 1, 0, q; }"
      : "=r"(v), "=r"(p) : "r"(x));
  out[4 * t + 3] = v + (p << 31);
  unsigned long long X = (unsigned long long) x << 20 | t, Y = y;
  out64[2 * t] = X / Y;
  out64[2 * t + 1] = X % Y;
}

// vabsdiff4 with .add (cuda-samples stereoDisparity's inline asm): the
// four byte lanes' |a - b| summed into c
__global__ void absdiff4(const unsigned *a, const unsigned *b, unsigned *out)
{
  unsigned r;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;"
      : "=r"(r) : "r"(a[threadIdx.x]), "r"(b[threadIdx.x]), "r"(7u));
  out[threadIdx.x] = r;
}

// lanes that diverge in a loop meet again before its next iteration
__global__ void loop_join(const float *a, float *c, int n_outer)
{
  float s = 0;
  for (int v = 0; v < n_outer; v++)
    {
      s += a[v * blockDim.x + threadIdx.x];
      if (threadIdx.x == 0)
        c[v] = s;
    }
}

// a reduction ptxas aggregates over the warp (its address is uniform and
// the result unused) and one it does not (atomicInc)
__global__ void counters(unsigned *c)
{
  atomicAdd(&c[0], 1u);
  atomicInc(&c[8], 1000u);
}

// __syncthreads_count/_and/_or (bar.red): each thread's bits of the block's
// answers; the second warp's lanes arrive in two groups (a branch before)
__global__ void barrier_reductions(unsigned *out)
{
  int t = threadIdx.x;
  int p = t % 3 == 0;
  if (t & 1)
    out[t] = 0;
  unsigned c = __syncthreads_count(p);
  int a = __syncthreads_and(t < 64);
  int o = __syncthreads_or(t == 63);
  int z = __syncthreads_and(p);
  unsigned c2 = __syncthreads_count(t >= 60);
  out[t] = c | a << 8 | o << 9 | z << 10 | c2 << 16;
}

// atomics as ptxas classes them: a reduction inlined from a function
// (its RED marked with the caller's line in ptxas's line table, the
// callee's in the PTX's), an atomic whose result is used and an exchange
// whose result is not (both ATOM: exch has no RED form)
__device__ void bucket_max(int *c, int v)
{
  atomicMax(c, v);
}

__global__ void reductions(int *c, int *old)
{
  int t = threadIdx.x;
  bucket_max(&c[t % 4], t);
  old[t] = atomicAdd(&c[4 + t % 2], 1);
  atomicExch(&c[8 + t % 2], t);
}

// two loads of a shared array by its symbol, s[0] and s[1], two inlined
// calls deep (as fp16ScalarProduct's last step): ptxas fuses the PTX's
// ld.shared [s] and [s+4] into one LDS.64, whose line marks name the
// loads' line, the line that called it and the kernel's call line
__device__ __forceinline__ unsigned pair_load(const unsigned *v)
{
  return v[0] + v[1];
}

__device__ __forceinline__ void pair_sum(const unsigned *v, unsigned *out)
{
  out[0] = pair_load(v);
}

__global__ void symbol_pair(const unsigned *in, unsigned *out)
{
  __shared__ unsigned s[64];
  s[threadIdx.x] = in[threadIdx.x];
  __syncthreads();
  if (threadIdx.x == 0)
    pair_sum(s, out);
}

/* chase: the rounds of global loads a warp waits for (the time model's
 * input): idx[t] and val[t] are independent (one round), val[idx[t]] needs
 * idx[t] (a second round); one barrier. */
__global__ void chase (const int *idx, const int *val, int *out)
{
  int t = threadIdx.x;
  int i = idx[t];
  int v = val[t];
  int w = val[i];
  __syncthreads ();
  out[t] = v + w;
}

/* store_floor: a global store of a loaded value keeps the later loads
 * below it (they may read what it wrote), so b[t] is a second round after
 * a[t]; store_floor_nc: a read-only load (__ldg: ld.global.nc) may go above
 * the store, so both loads are one round. */
__global__ void store_floor (const int *a, const int *b, int *out)
{
    int t = threadIdx.x;
    out[t] = a[t];
    out[t + 64] = b[t];
}

__global__ void store_floor_nc (const int *a, const int *b, int *out)
{
    int t = threadIdx.x;
    out[t] = a[t];
    out[t + 64] = __ldg (&b[t]);
}

/* shared_cas_loops: shared atomics sm_90 has no instruction for, which
 * ptxas makes LDS + ATOMS.CAST.SPIN loops (a double and a float add, a
 * 64-bit min: the min leaves the loop without the swap where the old
 * value already is the result), beside one it has (ATOMS.ADD). */
__global__ void shared_cas_loops (double *d, float *f, unsigned long long *u, unsigned *w)
{
  __shared__ double sd[64];
  __shared__ float sf[4];
  __shared__ unsigned long long su[32];
  __shared__ unsigned sw[32];
  unsigned t = threadIdx.x;
  sd[t] = t;
  if (t < 4)
    sf[t] = 0.0f;
  if (t < 32)
    {
      su[t] = 1000;
      sw[t] = 0;
    }
  __syncthreads ();
  atomicAdd (&sd[t], 0.5);
  atomicAdd (&sf[t % 4], 1.0f);
  atomicMin (&su[t % 32], t < 16 ? (unsigned long long) t : 5000ull);
  atomicAdd (&sw[t % 32], 1u);
  __syncthreads ();
  d[t] = sd[t];
  if (t < 4)
    f[t] = sf[t];
  if (t < 32)
    {
      u[t] = su[t];
      w[t] = sw[t];
    }
}

/* flag_poll: thread 0 (warp 0) polls a shared flag with ld.acquire until
 * thread 32 (warp 1) sets it with st.release. */
__global__ void flag_poll (unsigned *out)
{
  __shared__ unsigned flag;
  unsigned t = threadIdx.x;
  unsigned a = (unsigned) __cvta_generic_to_shared (&flag);
  if (t == 0)
    flag = 0;
  __syncthreads ();
  unsigned v = 0;
  if (t == 0)
    do
      asm volatile ("ld.acquire.cta.shared.u32 %0, [%1];" : "=r"(v) : "r"(a) : "memory");
    while (v == 0);
  else if (t == 32)
    asm volatile ("st.release.cta.shared.u32 [%0], %1;" : : "r"(a), "r"(7u) : "memory");
  out[t] = v;
}

/* reload: loads NVVM repeats because an inline-asm "memory" clobber lies
 * between them, which ptxas does not repeat.  One warp.  ptxas 13.0's SASS
 * for sm_90 (nvdisasm): LDG g[t]; STS; BAR; LDG g[t+32]; LDS s[t^1]; SHFL;
 * STG out[t]; LDG g[t+32]; STS s[t]; MEMBAR; LDS s[t]; STG.  The PTX has 5
 * shared loads and 4 global loads; the SASS 2 and 3: s[t^1] is loaded once
 * (the shuffle and a global store do not end its reuse), g[t+32] once
 * before out[t]'s store and once after it, s[t] is the value just stored,
 * and the fence makes the last load of s[t] load again. */
#define RELOAD_CLOBBER asm volatile ("" ::: "memory")
__global__ void reload (const int *g, int *out)
{
  __shared__ int s[32];
  unsigned t = threadIdx.x;
  s[t] = g[t];
  __syncthreads ();
  int a = s[t ^ 1];
  int b = g[t + 32];
  RELOAD_CLOBBER;
  int c = s[t ^ 1] + __shfl_xor_sync (~0u, a, 1);
  int h = g[t + 32];
  RELOAD_CLOBBER;
  out[t] = a + b + c + h;
  RELOAD_CLOBBER;
  int d = s[t ^ 1] + g[t + 32];
  RELOAD_CLOBBER;
  s[t] = d;
  RELOAD_CLOBBER;
  int e = s[t];
  __threadfence_block ();
  int f = s[t];
  out[t + 32] = d + e + f;
}

/* half_ops: half-precision arithmetic (f16x2, bf16x2, CUDA's hsqrt, whose
 * inline asm declares ".reg.b16 r"), 16-bit SIMD integers, dp4a, 128-bit
 * integers (add.cc / addc, sub.cc / subc), half-precision and 16-bit
 * atomics.  One warp; every value exact in its type (test-ptx.c derives
 * them). */
__global__ void half_ops (float *out, unsigned *u, unsigned long long *w, __half2 *acc,
                          unsigned short *flag)
{
  unsigned t = threadIdx.x, t8 = t % 8;
  __half2 a = __floats2half2_rn (1.5f, 2.25f), b = __floats2half2_rn (0.5f, 4.0f);
  __half2 c = __hfma2 (a, b, a);
  c = __hsub2 (__hmul2 (c, b), a);
  c = __hmax2 (c, __floats2half2_rn (0.0f, 0.0f));
  __half s = hsqrt (__float2half (6.25f));
  __nv_bfloat162 x = __floats2bfloat162_rn (1.5f, (float) t8);
  x = __hfma2 (x, x, x);
  out[4 * t + 0] = __low2float (c);
  out[4 * t + 1] = __high2float (c);
  out[4 * t + 2] = __half2float (s);
  out[4 * t + 3] = __low2float (x) + __high2float (x);
  u[t] = __vmaxu2 (0x00050010u, t | t << 16);
  u[32 + t] = __vsub2 (0x00030002u + t, 0x00010005u);
  u[64 + t] = __dp4a (0x01020304u, 0x01010101u * t, 7u);
  u[96 + t] = (unsigned) __dp4a ((int) 0xff02fe04, (int) 0x01010101, (int) t);
  unsigned long long lo = ~0ull - t;
  unsigned __int128 y = (unsigned __int128) 5 << 64 | (t + 1);
  unsigned __int128 sum = lo + y, diff = y - lo;
  w[4 * t + 0] = (unsigned long long) sum;
  w[4 * t + 1] = (unsigned long long) (sum >> 64);
  w[4 * t + 2] = (unsigned long long) diff;
  w[4 * t + 3] = (unsigned long long) (diff >> 64);
  atomicAdd (acc, __floats2half2_rn (1.0f, 0.5f));
  u[128 + t] = atomicCAS (flag, (unsigned short) 0, (unsigned short) (t + 1));
}

/* byte_ops: prmt's modes, szext, cvt.pack and the 8-bit float pairs, one
 * thread (test-ptx.c derives the values; the H200 agrees with them on
 * 512 inputs: gpu/probes/intrinsics-bits.cu) */
__global__ void byte_ops (unsigned *out)
{
  unsigned a = 0x33221100u, b = 0x77665544u, c1 = 1, c0 = 0;
  asm ("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(out[0]) : "r"(a), "r"(b), "r"(c1));
  asm ("prmt.b32.b4e %0, %1, %2, %3;" : "=r"(out[1]) : "r"(a), "r"(b), "r"(c0));
  asm ("prmt.b32.ecr %0, %1, %2, %3;" : "=r"(out[2]) : "r"(a), "r"(b), "r"(c1));
  asm ("szext.wrap.s32 %0, %1, %2;" : "=r"(out[3]) : "r"(0xf0u), "r"(8u));
  asm ("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(out[4]) : "r"(40000), "r"(-5));
  __nv_fp8x2_e4m3 p (make_float2 (-2.0f, 1.0f));
  __nv_fp8x2_e5m2 q (make_float2 (1e6f, 1.0f));
  out[5] = p.__x;
  out[6] = q.__x;
  out[7] = __nv_cvt_fp8x2_to_halfraw2 (p.__x, __NV_E4M3).x;
}

/* rounding: CUDA's directed-rounding intrinsics (add.rz/rm/rp, mul, div,
 * sqrt, fma, cvt.f32.f64), one thread; test-ptx.c gives each IEEE result */
__global__ void rounding (float *f, double *d)
{
  float tiny = 0x1p-30f;
  f[0] = __fadd_rz (1.0f, tiny);
  f[1] = __fadd_ru (1.0f, tiny);
  f[2] = __fadd_rd (-1.0f, -tiny);
  f[3] = __fdiv_rz (1.0f, 3.0f);
  f[4] = __fdiv_ru (1.0f, 3.0f);
  f[5] = __fsqrt_rd (2.0f);
  f[6] = __fsqrt_ru (2.0f);
  f[7] = __fmaf_ru (1.0f, 1.0f, tiny);
  f[8] = __fmul_rd (1.0f + 0x1p-23f, 1.0f - 0x1p-24f);
  f[9] = __double2float_ru (1.0 + 0x1p-30);
  d[0] = __dadd_rd (1.0, 0x1p-60);
  d[1] = __dadd_ru (1.0, 0x1p-60);
  d[2] = __dmul_rz (1.0 + 0x1p-52, 1.0 - 0x1p-53);
  d[3] = __ddiv_ru (1.0, 3.0);
}

// a division in a branch whose result only a comparison reads
// (graphMemoryNodes' validateGPU): its slow path counted per warp
__global__ void divide_flag(const float *a, float *b)
{
  int i = threadIdx.x;
  if (i < 96)
    {
      float q = a[i] / b[i];
      if (q > 1.0f)
        b[i] = q;
    }
}

// a division under a guard (PTX's @p): lanes 0 to 15 divide, the others not
__global__ void divide_guarded(const float *a, float *b)
{
  int i = threadIdx.x;
  float q = 7.0f;
  asm("{\n\t.reg .pred p;\n\tsetp.lt.s32 p, %1, 16;\n\t@p div.rn.f32 %0, %2, %3;\n\t}"
      : "+f"(q) : "r"(i), "f"(a[i]), "f"(b[i]));
  b[i] = q;
}

/* max_by_key: each lane's maximum over the lanes of its warp with the same
 * key (cooperative groups' labeled_partition, then cg::reduce: match.any,
 * then redux.sync with a membermask that differs between lanes) */
__global__ void max_by_key (const int *key, const int *val, int *out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned group = __match_any_sync (0xffffffffu, key[i]);
  out[i] = __reduce_max_sync (group, val[i]);
}

/* look_back: block b waits until block b - 1 has published its flag, then
 * works out its value (a while) and publishes its own flag (the chain of
 * a decoupled look-back: the flag's loads are strong, ld.volatile) */
__global__ void look_back (volatile int *flag, unsigned *out)
{
  unsigned b = blockIdx.x;
  if (threadIdx.x == 0)
    {
      if (b > 0)
        while (flag[b - 1] == 0)
          ;
      unsigned v = b;
      for (int i = 0; i < 40000; i++)
        v = (v ^ (v << 13)) * (v | 1u) + (v >> 7);
      out[b] = v;
      __threadfence ();
      flag[b] = 1;
    }
}
