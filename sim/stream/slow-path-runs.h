/* slow-path-runs.h - what the engine counts of the slow paths ptxas gives
 * IEEE float division, reciprocal and square root (subroutines for the
 * operands their fast paths would get wrong): which of a subroutine's
 * basic blocks the warps ran.  The engine follows a lane's route
 * (sim/emulator/slow-path-route.c); the models know what each block costs
 * (sim/models/slow-path.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  MS_SLOW_FDIV,    /* div.rn.f32 */
  MS_SLOW_FRCP,    /* rcp.rn.f32 */
  MS_SLOW_FSQRT,   /* sqrt.rn.f32 */
  MS_SLOW_KINDS
} MsSlowPathKind;

/* Each subroutine's basic blocks, in its order (ptxas of CUDA 13.0, sm_90:
 * sim/models/slow-path.c gives their instructions). */
typedef enum {
  MS_FDIV_ENTRY,          /* the exponents' test */
  MS_FDIV_SPECIAL,        /* an exponent field 0 or 255: the NaN test */
  MS_FDIV_NAN_RESULT,     /* a NaN operand: a + b */
  MS_FDIV_ZEROS,          /* both zero? */
  MS_FDIV_INVALID,        /* 0 / 0, inf / inf: NaN */
  MS_FDIV_INFINITIES,     /* both infinite? */
  MS_FDIV_ZERO_TEST,
  MS_FDIV_ZERO_RESULT,    /* 0 / x, x / inf: a signed 0 */
  MS_FDIV_INF_TEST,
  MS_FDIV_INF_RESULT,     /* x / 0, inf / x: a signed infinity */
  MS_FDIV_DENORMALS,      /* a denormal operand scaled by 2^64 */
  MS_FDIV_DIVIDE,         /* the division with the exponents taken off */
  MS_FDIV_NORMAL,         /* the result's exponent in range */
  MS_FDIV_OVERFLOW_TEST,
  MS_FDIV_OVERFLOW,       /* a signed infinity */
  MS_FDIV_LOW_TEST,
  MS_FDIV_ZERO_TEST_2,
  MS_FDIV_DENORMAL,       /* a denormal result, rounded */
  MS_FDIV_JOIN,
  MS_FDIV_RETURN,
  MS_FDIV_BLOCKS
} MsFdivBlock;

typedef enum {
  MS_FRCP_ENTRY,          /* the exponent field 0? */
  MS_FRCP_ZERO,           /* 0 or a denormal: scaled by 2^64 */
  MS_FRCP_TEST,           /* infinity or NaN? */
  MS_FRCP_INF,            /* MUFU.RCP as it is */
  MS_FRCP_LARGE,          /* 2^126 and up: a denormal result, rounded */
  MS_FRCP_JOIN,
  MS_FRCP_RETURN,
  MS_FRCP_BLOCKS
} MsFrcpBlock;

typedef enum {
  MS_FSQRT_ZERO_TEST,     /* +-0: itself */
  MS_FSQRT_SIGN_TEST,     /* below 0: NaN */
  MS_FSQRT_NAN_TEST,      /* NaN: itself */
  MS_FSQRT_SCALED,        /* infinity, tiny and denormal: scaled by 2^64 */
  MS_FSQRT_RETURN,        /* no join: each group of lanes runs it */
  MS_FSQRT_BLOCKS
} MsFsqrtBlock;

#define MS_SLOW_PATH_BLOCKS MS_FDIV_BLOCKS   /* the most blocks of a kind */

/* Per kind, summed over the warp-level instructions that some lane ran
 * through the slow path: how many; the groups of lanes that went their
 * own way beyond the first (the fast lanes one group, each distinct route
 * another) and, of them, the routes beyond the first; the warps with no
 * lane on the fast path; and how many ran each block (a warp runs a block
 * once, for all its lanes that reach it). */
typedef struct {
  guint64 warps, groups, routes, no_fast, blocks[MS_SLOW_PATH_BLOCKS];
} MsSlowPathCount;

typedef struct {
  MsSlowPathCount kind[MS_SLOW_KINDS];
} MsSlowPathRuns;

G_END_DECLS
