/* slow-path-route.c - the route a lane takes through the slow path of an
 * IEEE float division, reciprocal or square root: the branches of
 * ptxas's subroutines ($__internal_..._div_rn_noftz_f32_slowpath,
 * _rcp_rn_f32_slowpath, _sqrt_rn_f32_slowpath; CUDA 13.0, sm_90), read
 * from their SASS and followed here on the lane's operands.
 * gpu/probes/division-slow-path.cu checks every route against the H200's
 * counts (sim/models/slow-path.c). */
#include "config.h"

#include "slow-path-route.h"

#include <math.h>
#include <string.h>

static float
f32 (guint32 u)
{
  float f;
  memcpy (&f, &u, 4);
  return f;
}

static guint32
b32 (float f)
{
  guint32 u;
  memcpy (&u, &f, 4);
  return u;
}

#define BIT(k) (1u << (k))

/* Division: special operands (NaN, zeros, infinities) end in a few
 * instructions; the others have a denormal operand scaled by 2^64, are
 * divided again with their exponents taken off, and the result's exponent
 * picks normal, overflow, denormal or zero. */
static guint32
fdiv_route (guint32 a, guint32 b)
{
  int ea = (int) (a >> 23 & 0xff), eb = (int) (b >> 23 & 0xff);
  float x = f32 (a), y = f32 (b);
  guint32 run = BIT (MS_FDIV_ENTRY);
  int scale = 0;
  if ((guint) (ea - 1) > 0xfd || (guint) (eb - 1) > 0xfd)
    {
      run |= BIT (MS_FDIV_SPECIAL);
      if (isnan (x) || isnan (y))
        return run | BIT (MS_FDIV_NAN_RESULT) | BIT (MS_FDIV_RETURN);
      run |= BIT (MS_FDIV_ZEROS);
      if (((a | b) & 0x7fffffffu) == 0)
        return run | BIT (MS_FDIV_INVALID) | BIT (MS_FDIV_RETURN);
      run |= BIT (MS_FDIV_INFINITIES);
      if (isinf (x) && isinf (y))
        return run | BIT (MS_FDIV_INVALID) | BIT (MS_FDIV_RETURN);
      run |= BIT (MS_FDIV_ZERO_TEST);
      if (isinf (y) || (a & 0x7fffffffu) == 0)
        return run | BIT (MS_FDIV_ZERO_RESULT) | BIT (MS_FDIV_RETURN);
      run |= BIT (MS_FDIV_INF_TEST);
      if (isinf (x) || (b & 0x7fffffffu) == 0)
        return run | BIT (MS_FDIV_INF_RESULT) | BIT (MS_FDIV_RETURN);
      run |= BIT (MS_FDIV_DENORMALS);
      if (ea == 0)
        {
          x *= 0x1p64f;
          scale -= 64;
        }
      if (eb == 0)
        {
          y *= 0x1p64f;
          scale += 64;
        }
    }
  run |= BIT (MS_FDIV_DIVIDE);
  /* the operands with their (original) exponent fields taken off, the
   * quotient's field, and the result's, as the subroutine computes them */
  float xs = f32 (b32 (x) - ((guint32) (ea - 127) << 23));
  float ys = f32 (b32 (y) - ((guint32) (eb - 127) << 23));
  int e = (int) (b32 (xs / ys) >> 23 & 0xff) + ea - eb + scale;
  run |= BIT (MS_FDIV_JOIN) | BIT (MS_FDIV_RETURN);
  if ((guint) (e - 1) < 0xfe)
    return run | BIT (MS_FDIV_NORMAL);
  run |= BIT (MS_FDIV_OVERFLOW_TEST);
  if (e > 0xfe)
    return run | BIT (MS_FDIV_OVERFLOW);
  run |= BIT (MS_FDIV_LOW_TEST) | BIT (MS_FDIV_ZERO_TEST_2);
  return e < -24 ? run : run | BIT (MS_FDIV_DENORMAL);
}

/* Reciprocal of a zero or denormal (scaled), an infinity or NaN, or a
 * value of 2^126 and up (its reciprocal denormal). */
static guint32
frcp_route (guint32 x)
{
  guint32 e = x << 1 >> 24;
  guint32 run = BIT (MS_FRCP_ENTRY) | BIT (MS_FRCP_JOIN) | BIT (MS_FRCP_RETURN);
  if (e == 0)
    return run | BIT (MS_FRCP_ZERO);
  run |= BIT (MS_FRCP_TEST);
  return run | (e - 253 > 1 ? BIT (MS_FRCP_INF) : BIT (MS_FRCP_LARGE));
}

/* Square root of +-0, of a negative number (not a denormal: FTZ makes
 * that -0), of a NaN, or of infinity, a tiny value or a denormal (scaled). */
static guint32
fsqrt_route (guint32 x)
{
  guint32 e = x >> 23 & 0xff;
  gboolean nan = e == 0xff && (x & 0x7fffff) != 0;
  guint32 run = BIT (MS_FSQRT_ZERO_TEST) | BIT (MS_FSQRT_RETURN);
  if ((x & 0x7fffffffu) == 0)
    return run;
  run |= BIT (MS_FSQRT_SIGN_TEST);
  if ((x >> 31) != 0 && e != 0 && !nan)
    return run;
  run |= BIT (MS_FSQRT_NAN_TEST);
  return nan ? run : run | BIT (MS_FSQRT_SCALED);
}

guint32
ms_slow_path_route (MsSlowPathKind kind, guint32 a, guint32 b)
{
  switch (kind)
    {
    case MS_SLOW_FDIV: return fdiv_route (a, b);
    case MS_SLOW_FRCP: return frcp_route (a);
    case MS_SLOW_FSQRT: return fsqrt_route (a);
    default: return 0;
    }
}
