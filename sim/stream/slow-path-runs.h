/* slow-path-runs.h - what the engine counts of IEEE float division's slow
 * path (ptxas's subroutine for the operands its fast path would get
 * wrong): which of the subroutine's basic blocks the warps ran.  The
 * engine follows a lane's route (sim/emulator/fdiv-route.c); the models
 * know what each block costs (sim/models/slow-path.c). */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The subroutine's basic blocks, in its order (ptxas of CUDA 13.0, sm_90:
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

/* Summed over the warp-level div.rn.f32 instructions that some lane ran
 * through the slow path: how many, the groups of lanes that went their own
 * way beyond the first (the fast lanes one group, each distinct route
 * another), and how many ran each block (a warp runs a block once, for
 * all its lanes that reach it). */
typedef struct {
  guint64 warps, groups, blocks[MS_FDIV_BLOCKS];
} MsSlowPathRuns;

G_END_DECLS
