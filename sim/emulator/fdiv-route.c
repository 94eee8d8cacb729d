/* fdiv-route.c - the route a lane takes through IEEE float division's
 * slow path: the branches of ptxas's subroutine
 * ($__internal_..._div_rn_noftz_f32_slowpath, CUDA 13.0, sm_90), read from
 * its SASS and followed here on the lane's operands.  Special operands
 * (NaN, zeros, infinities) end in a few instructions; the others have a
 * denormal operand scaled by 2^64, are divided again with their exponents
 * taken off, and the result's exponent picks normal, overflow, denormal or
 * zero.  gpu/probes/division-slow-path.cu checks every route against the
 * H200's counts (sim/models/slow-path.c). */
#include "config.h"

#include "fdiv-route.h"

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

guint32
ms_fdiv_route (guint32 a, guint32 b)
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
