/* ptx-warp.h - what the C that ptx-translate.c makes of a PTX kernel
 * includes: the warp-wide runtime (sim/emulator/warp.h) and the helpers
 * its lane loops use.  Registers are arrays of 32 raw values (uint8_t for
 * a predicate, uint16/32/64_t for the rest); a floating-point register
 * holds its bits, read and written through ms_f32/ms_b32 and their 64-bit
 * twins, which GCC turns into plain register moves.
 */
#pragma once

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "halves.h"
#include "texture.h"
#include "warp.h"
#include "ptx-compiled.h"

/* The bit casts, inlined in a quick build (-O0) too, where each would
 * otherwise be a call: Rodinia's lavaMD, every double operation one of
 * them, spent a tenth of its quick build's run in ms_f64 and ms_b64. */
#define MS_CAST static inline __attribute__ ((always_inline))
MS_CAST float ms_f32 (uint32_t b) { float f; __builtin_memcpy (&f, &b, 4); return f; }
MS_CAST double ms_f64 (uint64_t b) { double f; __builtin_memcpy (&f, &b, 8); return f; }
MS_CAST uint32_t ms_b32 (float f) { uint32_t b; __builtin_memcpy (&b, &f, 4); return b; }
MS_CAST uint64_t ms_b64 (double f) { uint64_t b; __builtin_memcpy (&b, &f, 8); return b; }
/* .ftz: a denormal f32 is a zero of its sign */
MS_CAST float
ms_ftz32 (float f)
{
  uint32_t b = ms_b32 (f);
  if ((b & 0x7f800000u) == 0)
    b &= 0x80000000u;
  float z;
  __builtin_memcpy (&z, &b, 4);
  return z;
}

/* min and max.f32/f64 as PTX's (and glibc's x86-64 fminf, fmaxf): a NaN
 * operand gives the other, two NaNs a NaN, a tie b (minss and maxss).
 * Inline: a lane loop that calls libm's does not vectorise (MonteCarlo's
 * path loop: fmaxf's calls 2% of the run). */
static inline float ms_fmin32 (float a, float b) { return a != a ? (b != b ? a + b : b) : b != b ? a : a < b ? a : b; }
static inline float ms_fmax32 (float a, float b) { return a != a ? (b != b ? a + b : b) : b != b ? a : a > b ? a : b; }
static inline double ms_fmin64 (double a, double b) { return a != a ? (b != b ? a + b : b) : b != b ? a : a < b ? a : b; }
static inline double ms_fmax64 (double a, double b) { return a != a ? (b != b ? a + b : b) : b != b ? a : a > b ? a : b; }

/* float to integer as PTX's cvt does it: NaN 0, out of range saturated */
#define MS_PTX_F2I(T, lo, hi, x)                                                  \
  ((x) != (x) ? (T) 0 : (x) <= (double) (lo) ? (T) (lo) : (x) >= (double) (hi) ? (T) (hi) \
                                                           : (T) (x))
static inline float ms_sat_f32 (float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
static inline double ms_sat_f64 (double x) { return x != x ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }

/* Whether a / b (their float bits) takes ptxas's fast path: FCHK's test,
 * as measured on the H200 for every pair of exponents (sim/models/
 * slow-path.c): exponent fields a 25..254 and b 2..251, a - b in -124..126 */
static inline int
ms_ptx_fdiv_fast (uint32_t a, uint32_t b)
{
  uint32_t ea = a >> 23 & 0xff, eb = b >> 23 & 0xff;
  /* (unsigned compares joined by &: no branch, so the lane loop vectorises) */
  return (ea - 25 <= 229) & (eb - 2 <= 249) & (ea - eb + 124 <= 250);
}

/* Lane L of a div.rn.f32, rcp.rn.f32 or sqrt.rn.f32 into *sp: whether
 * its fast path's test sends it to the slow path, and its operands; that
 * it ran, in ran (sp->ran, a constant NULL where the instruction has no
 * guard: no branch in the lane loop) */
static inline void
ms_ptx_slow_path_lane (MsPtxSlowPath *sp, uint8_t *ran, unsigned L, int fast, uint32_t a,
                       uint32_t b)
{
  if (ran != NULL)
    ran[L] = 1;
  sp->slow[L] = !fast;
  sp->a[L] = a;
  sp->b[L] = b;
}

/* Whether a lane of *sp took the slow path (after the lanes). */
static inline int
ms_ptx_any_slow (const MsPtxSlowPath *sp)
{
  uint32_t any = 0;
  for (unsigned l = 0; l < 32; l++)   /* vectorised */
    any |= sp->slow[l];
  return any != 0;
}

static inline float
ms_ptx_fdiv_rn (MsPtxSlowPath *sp, uint8_t *ran, unsigned L, float a, float b)
{
  uint32_t ua = ms_b32 (a), ub = ms_b32 (b);
  ms_ptx_slow_path_lane (sp, ran, L, ms_ptx_fdiv_fast (ua, ub), ua, ub);
  return a / b;
}

/* rcp.rn.f32 and sqrt.rn.f32 likewise, their fast paths' tests as ptxas's
 * code makes them: a reciprocal's exponent field not 0, 253, 254 or 255; a
 * square root's operand positive, at least 2^-101 and finite */
static inline float
ms_ptx_frcp_rn (MsPtxSlowPath *sp, uint8_t *ran, unsigned L, float x)
{
  uint32_t u = ms_b32 (x);
  ms_ptx_slow_path_lane (sp, ran, L, ((u + 0x01800000u) & 0x7f800000u) > 0x01ffffffu, u, 0);
  return 1.0f / x;
}

static inline float
ms_ptx_fsqrt_rn (MsPtxSlowPath *sp, uint8_t *ran, unsigned L, float x)
{
  uint32_t u = ms_b32 (x);
  ms_ptx_slow_path_lane (sp, ran, L, u - 0x0d000000u <= 0x727fffffu, u, 0);
  return sqrtf (x);
}

static inline uint32_t ms_brev32 (uint32_t x) { x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1); x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2); x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4); return __builtin_bswap32 (x); }
static inline uint64_t ms_brev64 (uint64_t x) { return (uint64_t) ms_brev32 ((uint32_t) x) << 32 | ms_brev32 ((uint32_t) (x >> 32)); }
static inline uint32_t ms_clz32 (uint32_t x) { return x ? (uint32_t) __builtin_clz (x) : 32; }
static inline uint32_t ms_clz64 (uint64_t x) { return x ? (uint32_t) __builtin_clzll (x) : 64; }
/* bfind: the most significant non-sign bit, 0xffffffff for none */
static inline uint32_t ms_bfind_u64 (uint64_t x) { return x ? 63 - (uint32_t) __builtin_clzll (x) : 0xffffffffu; }
static inline uint32_t ms_bfind_s64 (int64_t x) { return ms_bfind_u64 (x < 0 ? ~(uint64_t) x : (uint64_t) x); }
/* prmt (default mode): bytes of {b, a} picked by c's four selectors */
static inline uint32_t
ms_prmt (uint32_t a, uint32_t b, uint32_t c)
{
  uint64_t t = (uint64_t) b << 32 | a;
  uint32_t r = 0;
  for (int k = 0; k < 4; k++)
    {
      uint32_t s = (c >> (4 * k)) & 15;
      uint32_t byte = (uint32_t) (t >> (8 * (s & 7))) & 0xff;
      if (s & 8)
        byte = (byte & 0x80) ? 0xff : 0;
      r |= byte << (8 * k);
    }
  return r;
}
static inline uint64_t
ms_bfe_u (uint64_t a, uint32_t pos, uint32_t len, unsigned bits)
{
  pos &= 0xff;
  len &= 0xff;
  if (len == 0 || pos >= bits)
    return 0;
  uint64_t v = a >> pos;
  return len >= 64 ? v : v & ((UINT64_C (1) << len) - 1);
}
static inline int64_t
ms_bfe_s (int64_t a, uint32_t pos, uint32_t len, unsigned bits)
{
  pos &= 0xff;
  len &= 0xff;
  if (len == 0)
    return 0;
  if (pos >= bits)
    return a < 0 ? -1 : 0;
  if (pos + len > bits)
    len = bits - pos;
  uint64_t v = (uint64_t) a >> pos;
  if (len < 64)
    {
      v &= (UINT64_C (1) << len) - 1;
      if (v >> (len - 1) & 1)
        v |= ~((UINT64_C (1) << len) - 1);
    }
  return (int64_t) v;
}
static inline uint64_t
ms_bfi (uint64_t a, uint64_t b, uint32_t pos, uint32_t len, unsigned bits)
{
  pos &= 0xff;
  len &= 0xff;
  if (len == 0 || pos >= bits)
    return b;
  if (pos + len > bits)
    len = bits - pos;
  uint64_t mask = (len >= 64 ? ~UINT64_C (0) : (UINT64_C (1) << len) - 1) << pos;
  return (b & ~mask) | ((a << pos) & mask);
}
/* bmsk: width b's mask from bit a, as the PTX ISA gives it (clamp: a or
 * b of 32 or more as such; wrap: taken mod 32) */
static inline uint32_t
ms_bmsk (uint32_t a, uint32_t b, int clamp)
{
  uint32_t a1 = a & 0x1f, b1 = b & 0x1f, sum = a1 + b1;
  uint32_t mask0 = ~UINT32_C (0) << a1, mask1 = 0;
  int overflow = sum >= 32;
  if (clamp && a >= 32)
    {
      overflow = 1;
      mask0 = 0;
    }
  if (clamp && b >= 32)
    overflow = 1;
  if (!overflow)
    mask1 = b1 == 0 ? ~UINT32_C (0) : ~UINT32_C (0) << sum;
  return mask0 & ~mask1;
}
/* vabsdiff4: each byte lane's |a - b| (signed where sa, sb say) */
static inline uint32_t
ms_vabsdiff4 (uint32_t a, uint32_t b, int sa, int sb)
{
  uint32_t r = 0;
  for (int k = 0; k < 32; k += 8)
    {
      int x = sa ? (int8_t) (a >> k) : (uint8_t) (a >> k);
      int y = sb ? (int8_t) (b >> k) : (uint8_t) (b >> k);
      r |= (uint32_t) (uint8_t) (x > y ? x - y : y - x) << k;
    }
  return r;
}
/* vabsdiff4.add: the sum of the four byte lanes' |a - b| plus c */
static inline uint32_t
ms_vabsdiff4_add (uint32_t a, uint32_t b, uint32_t c, int sa, int sb)
{
  uint32_t d = ms_vabsdiff4 (a, b, sa, sb);
  return c + (d & 0xff) + (d >> 8 & 0xff) + (d >> 16 & 0xff) + (d >> 24);
}
/* prmt's modes (f4e, b4e, rc8, ecl, ecr, rc16: mode 1 .. 6): the byte
 * of {b, a} each byte of the result takes, for c's two low bits, as the
 * PTX ISA's table gives them (result byte 0 first) */
static inline uint32_t
ms_prmt_mode (uint32_t a, uint32_t b, uint32_t c, int mode)
{
  static const uint8_t sel[6][4][4] = {
    { { 0, 1, 2, 3 }, { 1, 2, 3, 4 }, { 2, 3, 4, 5 }, { 3, 4, 5, 6 } },   /* f4e */
    { { 0, 7, 6, 5 }, { 1, 0, 7, 6 }, { 2, 1, 0, 7 }, { 3, 2, 1, 0 } },   /* b4e */
    { { 0, 0, 0, 0 }, { 1, 1, 1, 1 }, { 2, 2, 2, 2 }, { 3, 3, 3, 3 } },   /* rc8 */
    { { 0, 1, 2, 3 }, { 1, 1, 2, 3 }, { 2, 2, 2, 3 }, { 3, 3, 3, 3 } },   /* ecl */
    { { 0, 0, 0, 0 }, { 0, 1, 1, 1 }, { 0, 1, 2, 2 }, { 0, 1, 2, 3 } },   /* ecr */
    { { 0, 1, 0, 1 }, { 2, 3, 2, 3 }, { 0, 1, 0, 1 }, { 2, 3, 2, 3 } },   /* rc16 */
  };
  uint64_t t = (uint64_t) b << 32 | a;
  uint32_t r = 0;
  for (int k = 0; k < 4; k++)
    r |= ((uint32_t) (t >> (8 * sel[mode - 1][c & 3][k])) & 0xff) << (8 * k);
  return r;
}
/* szext: a's low n bits (n = b & 31 where wrap, else b up to 32) sign- or
 * zero-extended */
static inline uint32_t
ms_szext (uint32_t a, uint32_t b, int wrap, int sign)
{
  uint32_t n = wrap ? b & 31 : (b > 32 ? 32 : b);
  if (n == 0)
    return 0;
  if (n == 32)
    return a;
  uint32_t v = a & ((UINT32_C (1) << n) - 1);
  if (sign && (v >> (n - 1)) & 1)
    v |= ~UINT32_C (0) << n;
  return v;
}
/* An 8-bit float (e4m3: bias 7, no infinities, NaN 0x7f; e5m2: bias 15)
 * and back.  The conversion to it rounds to nearest even and, as
 * .satfinite asks, clamps to the largest finite value (448, 57344); a
 * NaN is 0x7f. */
static inline float
ms_fp8_f32 (uint8_t v, int e5m2)
{
  int mb = e5m2 ? 2 : 3, bias = e5m2 ? 15 : 7;
  int e = (v >> mb) & (e5m2 ? 31 : 15), m = v & ((1 << mb) - 1);
  float mag;
  if ((!e5m2 && (v & 0x7f) == 0x7f) || (e5m2 && e == 31 && m != 0))
    return NAN;
  if (e5m2 && e == 31)
    mag = INFINITY;
  else if (e == 0)
    mag = ldexpf ((float) m, 1 - bias - mb);
  else
    mag = ldexpf ((float) ((1 << mb) | m), e - bias - mb);
  return (v & 0x80) ? -mag : mag;
}
static inline uint8_t
ms_f32_fp8 (float f, int e5m2)
{
  if (isnan (f))
    return 0x7f;
  uint8_t sign = signbit (f) ? 0x80 : 0;
  float a = fabsf (f);
  uint8_t best = 0;
  float best_d = INFINITY;
  /* the nearest finite code (ties: the even one), or the largest */
  for (int v = 0; v < 0x80; v++)
    {
      float x = ms_fp8_f32 ((uint8_t) v, e5m2);
      if (isnan (x) || isinf (x))
        continue;
      float d = fabsf (x - a);
      if (d < best_d || (d == best_d && (v & 1) == 0))
        best = (uint8_t) v, best_d = d;
    }
  return sign | best;
}
/* add (op 0), sub (1), min (2), max (3) of two 16-bit integers a register
 * (signed where s; clamped to the type where sat, else wrapping) */
static inline uint32_t
ms_simd16x2 (uint32_t a, uint32_t b, int op, int s, int sat)
{
  uint32_t r = 0;
  for (int k = 0; k < 32; k += 16)
    {
      int32_t x = s ? (int16_t) (a >> k) : (uint16_t) (a >> k);
      int32_t y = s ? (int16_t) (b >> k) : (uint16_t) (b >> k);
      int32_t v = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? (x < y ? x : y) : (x > y ? x : y);
      if (sat)
        v = s ? (v < -32768 ? -32768 : v > 32767 ? 32767 : v) : (v < 0 ? 0 : v > 65535 ? 65535 : v);
      r |= (uint32_t) (uint16_t) v << k;
    }
  return r;
}
/* Directed rounding (.rz, .rm, .rp: mode 1, 2, 3) of a result computed
 * to nearest: x, and the sign of (exact - x), which the error-free
 * transformations below give exactly (TwoSum, fma's residue).  The host
 * stays in round-to-nearest. */
static inline double
ms_dir64 (double x, double err, int mode)
{
  if (err == 0 || isnan (x))
    return x;
  if (mode == 1)
    return (x > 0) == (err < 0) ? nextafter (x, 0.0) : x;
  if (mode == 2)
    return err < 0 ? nextafter (x, -INFINITY) : x;
  return err > 0 ? nextafter (x, INFINITY) : x;
}
static inline float
ms_dir32 (float x, double err, int mode)
{
  if (err == 0 || isnan (x))
    return x;
  if (mode == 1)
    return (x > 0) == (err < 0) ? nextafterf (x, 0.0f) : x;
  if (mode == 2)
    return err < 0 ? nextafterf (x, -INFINITY) : x;
  return err > 0 ? nextafterf (x, INFINITY) : x;
}
#define MS_TWO_SUM_ERR(a, b, s) (((a) - ((s) - ((s) - (a)))) + ((b) - ((s) - (a))))
static inline double ms_add64 (double a, double b, int m) { double s = a + b; return ms_dir64 (s, MS_TWO_SUM_ERR (a, b, s), m); }
static inline float ms_add32 (float a, float b, int m) { float s = a + b; return ms_dir32 (s, MS_TWO_SUM_ERR (a, b, s), m); }
static inline double ms_mul64 (double a, double b, int m) { double p = a * b; return ms_dir64 (p, fma (a, b, -p), m); }
static inline float ms_mul32 (float a, float b, int m) { float p = a * b; return ms_dir32 (p, (double) a * b - p, m); }
static inline double ms_div64 (double a, double b, int m) { double q = a / b; return ms_dir64 (q, fma (-q, b, a) * (b < 0 ? -1 : 1), m); }
static inline float ms_div32 (float a, float b, int m) { float q = a / b; return ms_dir32 (q, fma (-(double) q, b, a) * (b < 0 ? -1 : 1), m); }
static inline double ms_sqrt64 (double a, int m) { double r = sqrt (a); return ms_dir64 (r, fma (-r, r, a), m); }
static inline float ms_sqrt32 (float a, int m) { float r = sqrtf (a); return ms_dir32 (r, fma (-(double) r, r, a), m); }
/* a float fma through double: the double is taken as exact (it is but
 * where the product and the addend are 2^24 apart) */
static inline float ms_fma32 (float a, float b, float c, int m) { double d = fma ((double) a, b, c); float x = (float) d; return ms_dir32 (x, d - x, m); }
static inline float ms_f64_f32_dir (double d, int m) { float x = (float) d; return ms_dir32 (x, d - x, m); }
/* dp4a: c plus the products of a's and b's four byte lanes (signed where
 * sa, sb say); the sum wraps in 32 bits */
static inline uint32_t
ms_dp4a (uint32_t a, uint32_t b, uint32_t c, int sa, int sb)
{
  for (int k = 0; k < 32; k += 8)
    {
      int32_t x = sa ? (int8_t) (a >> k) : (uint8_t) (a >> k);
      int32_t y = sb ? (int8_t) (b >> k) : (uint8_t) (b >> k);
      c += (uint32_t) (x * y);
    }
  return c;
}
/* dp2a: c plus the products of a's two 16-bit lanes and two of b's byte
 * lanes (bytes 0 and 1, or 2 and 3 where hi) */
static inline uint32_t
ms_dp2a (uint32_t a, uint32_t b, uint32_t c, int sa, int sb, int hi)
{
  for (int k = 0; k < 2; k++)
    {
      int32_t x = sa ? (int16_t) (a >> 16 * k) : (uint16_t) (a >> 16 * k);
      int sh = 8 * (k + (hi ? 2 : 0));
      int32_t y = sb ? (int8_t) (b >> sh) : (uint8_t) (b >> sh);
      c += (uint32_t) (x * y);
    }
  return c;
}
static inline uint32_t
ms_lop3 (uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
  uint32_t r = 0;
  for (int k = 0; k < 8; k++)
    if (lut >> k & 1)
      r |= ((k & 4) ? a : ~a) & ((k & 2) ? b : ~b) & ((k & 1) ? c : ~c);
  return r;
}

/* A reduction site ptxas aggregates over a warp (the loader sets *flag
 * from the SASS: REDUX, then a RED by one lane). */
typedef struct {
  const MsSite *site;
  int *flag;
} MsPtxAgg;


/* Unsigned division and remainder as PTX defines them (by 0: all ones,
 * and the dividend), a power-of-two divisor as a shift or a mask: a
 * hardware division takes tens of cycles, and reductions divide by
 * powers of two that vary (tid % (2 * s)). */
static inline uint32_t ms_ptx_udiv32 (uint32_t a, uint32_t b)
{
  return b == 0 ? ~(uint32_t) 0 : (b & (b - 1)) == 0 ? a >> __builtin_ctz (b) : a / b;
}
static inline uint32_t ms_ptx_urem32 (uint32_t a, uint32_t b)
{
  return b == 0 ? a : (b & (b - 1)) == 0 ? a & (b - 1) : a % b;
}
static inline uint64_t ms_ptx_udiv64 (uint64_t a, uint64_t b)
{
  return b == 0 ? ~(uint64_t) 0 : (b & (b - 1)) == 0 ? a >> __builtin_ctzll (b) : a / b;
}
static inline uint64_t ms_ptx_urem64 (uint64_t a, uint64_t b)
{
  return b == 0 ? a : (b & (b - 1)) == 0 ? a & (b - 1) : a % b;
}

/* A shuffle of 4-byte values by a whole converged warp (all 32 lanes in
 * m, no other group ready or stopped) with one argument (0..31), width 32
 * and the full mask, as reduce loops make: done here, into the lanes'
 * results, and counted as its stop would count it (1; the kernel goes on
 * at the stop's completion); 0: the stop does it.  Spares the stop and the
 * jump through the kernel's switch of blocks (warp.h: ms_warp_shfl_counted). */
static inline int
ms_ptx_shfl_whole (MsWarpSched *S, const MsSite *site, uint32_t m, int sub)
{
  if (m != 0xffffffffu || S->n_ready != 0 || S->n_stop != 0)
    return 0;
  int a = ms_warp.arg[0];
  unsigned same = a >= 0 && a < 32;
  for (unsigned L = 0; L < 32; L++)
    same &= (ms_warp.arg[L] == a) & (ms_warp.width[L] == 32) & (ms_warp.mask[L] == 0xffffffffu);
  if (!same || !ms_warp_shfl_counted (site, 4))
    return 0;
  for (unsigned L = 0; L < 32; L++)
    ms_warp.res[L] = ms_warp.val[MS_SHFL_SOURCE (sub, L, (unsigned) a)][0];
  return 1;
}

/* An aggregated reduction: when the lanes of m all hit one address, the
 * lowest of them gets their combined value (op MS_ATOMIC_*, num
 * MS_NUM_*, size bytes) and performs it alone (1); else 0. */
static inline int
ms_ptx_aggregate (uint32_t m, int op, int num, unsigned size)
{
  unsigned first = (unsigned) __builtin_ctz (m);
  for (uint32_t r = m & (m - 1); r; r &= r - 1)
    if (ms_warp.addr[__builtin_ctz (r)] != ms_warp.addr[first])
      return 0;
  if (num == MS_NUM_FLOAT || num == MS_NUM_DOUBLE)
    {
      double acc = 0;
      for (uint32_t r = m; r; r &= r - 1)
        {
          unsigned L = (unsigned) __builtin_ctz (r);
          if (size == 4)
            {
              float f;
              memcpy (&f, ms_warp.val[L], 4);
              acc = L == first ? f : op == MS_ATOMIC_ADD ? (double) (float) (acc + f)
                    : op == MS_ATOMIC_MIN ? fmin (acc, f) : fmax (acc, f);
            }
          else
            {
              double d;
              memcpy (&d, ms_warp.val[L], 8);
              acc = L == first ? d : op == MS_ATOMIC_ADD ? acc + d
                    : op == MS_ATOMIC_MIN ? fmin (acc, d) : fmax (acc, d);
            }
        }
      if (size == 4)
        {
          float f = (float) acc;
          memcpy (ms_warp.val[first], &f, 4);
        }
      else
        memcpy (ms_warp.val[first], &acc, 8);
      return 1;
    }
  uint64_t acc = 0;
  int64_t sacc = 0;
  for (uint32_t r = m; r; r &= r - 1)
    {
      unsigned L = (unsigned) __builtin_ctz (r);
      uint64_t v = 0;
      memcpy (&v, ms_warp.val[L], size);
      int64_t sv = size == 4 ? (int64_t) (int32_t) v : (int64_t) v;
      if (L == first)
        {
          acc = v;
          sacc = sv;
          continue;
        }
      switch (op)
        {
        case MS_ATOMIC_ADD: acc += v; break;
        case MS_ATOMIC_AND: acc &= v; break;
        case MS_ATOMIC_OR: acc |= v; break;
        case MS_ATOMIC_XOR: acc ^= v; break;
        case MS_ATOMIC_MIN:
          if (num == MS_NUM_INT ? sv < sacc : v < acc)
            acc = v, sacc = sv;
          break;
        default:
          if (num == MS_NUM_INT ? sv > sacc : v > acc)
            acc = v, sacc = sv;
          break;
        }
    }
  memcpy (ms_warp.val[first], &acc, size);
  return 1;
}

/* An integer atomicAdd whose result is used, on one address with one value
 * in every lane of m: ptxas aggregates it (VOTE, POPC, one lane's ATOM of
 * the value times the lanes, SHFL of the old value).  1: the first lane
 * now adds the warp's total (ms_ptx_aggregate_results then gives each lane
 * its result); 0: the lanes differ, each performs its own. */
static inline int
ms_ptx_aggregate_fetch (uint32_t m, int num, unsigned size)
{
  unsigned first = (unsigned) __builtin_ctz (m);
  if (num == MS_NUM_FLOAT || num == MS_NUM_DOUBLE || (size != 4 && size != 8))
    return 0;
  for (uint32_t r = m & (m - 1); r; r &= r - 1)
    {
      unsigned L = (unsigned) __builtin_ctz (r);
      if (ms_warp.addr[L] != ms_warp.addr[first] || memcmp (ms_warp.val[L], ms_warp.val[first], size))
        return 0;
    }
  uint64_t v = 0;
  memcpy (&v, ms_warp.val[first], size);
  uint64_t total = v * (uint64_t) __builtin_popcount (m);
  memcpy (ms_warp.val[first], &total, size);
  memcpy (ms_warp.val[first] + 1, &v, 8);   /* the lanes' own value, for the results */
  return 1;
}

/* After the first lane's atomic: lane of rank k in m gets old + k * value,
 * the order ptxas's aggregation hands out. */
static inline void
ms_ptx_aggregate_results (uint32_t m, unsigned size)
{
  unsigned first = (unsigned) __builtin_ctz (m), k = 0;
  uint64_t old = 0, v = ms_warp.val[first][1];
  memcpy (&old, ms_warp.lanes[first].res, size);
  for (uint32_t r = m; r; r &= r - 1, k++)
    {
      uint64_t got = old + (uint64_t) k * v;
      memcpy (ms_warp.lanes[__builtin_ctz (r)].res, &got, size);
    }
}

/* Joins (ptx-translate.c, reconverge): the lanes waiting at join k (A)
 * go on at pc[k] once the rest of its split's lanes (J) have ended (EX). */
static inline void
ms_ptx_joins_ended (MsWarpSched *S, uint32_t *J, uint32_t *A, uint32_t EX, const int *pc,
                    unsigned n)
{
  for (unsigned k = 0; k < n; k++)
    if (J[k] != 0 && A[k] != 0 && (A[k] | (J[k] & EX)) == (J[k] | A[k]))
      {
        ms_warp_sched_ready (S, pc[k], A[k]);
        J[k] = A[k] = 0;
      }
}

/* At the end of the warp's work: lanes still waiting at a join go on
 * (1), as nothing else will bring their split's other lanes there. */
static inline int
ms_ptx_joins_release (MsWarpSched *S, uint32_t *J, uint32_t *A, const int *pc, unsigned n)
{
  int any = 0;
  for (unsigned k = 0; k < n; k++)
    {
      if (A[k] != 0)
        {
          ms_warp_sched_push (S, pc[k], A[k]);
          any = 1;
        }
      J[k] = A[k] = 0;
    }
  return any;
}

/* The emulator's side (sim/emulator/warp.h): ms_ptx_fail, ms_ptx_local,
 * ms_ptx_warp_index, ms_ptx_warp_clock, ms_ptx_block_cycles,
 * ms_ptx_globaltimer; the device runtime's ms_ptx_printf,
 * ms_ptx_assertfail, ms_ptx_malloc, ms_ptx_free, ms_ptx_set_conditional;
 * ms_ptx_cp_async, ms_ptx_mbarrier, ms_ptx_spin, ms_ptx_grid_workspace,
 * ms_ptx_poll. */
