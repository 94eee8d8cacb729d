/* slow-path.c - what IEEE float division's slow path adds to Nsight
 * Compute's warp instructions (smsp__inst_executed.sum).
 *
 * Assumptions (ptxas of CUDA 13.0 for sm_90, measured on the H200:
 * gpu/probes/division-slow-path.cu, gpu/measurements/h200-2026-12-01-
 * division-slow-path/; every other preset takes them as they are):
 *  - nvcc makes a / b of floats div.rn.f32; ptxas makes that a fast path
 *    (a reciprocal refined by FMAs) and FCHK, whose predicate sends the
 *    lanes the fast path would get wrong to a subroutine appended to the
 *    kernel ($__internal_..._div_rn_noftz_f32_slowpath).  FCHK's test,
 *    measured for every pair of 518 values (each exponent with the least
 *    and the largest significand, zeros, denormals, infinity, NaN; the
 *    sweep's 268 324 divisions fall into two clear modes, 40-55 and
 *    176-487 cycles): the fast path serves exactly the pairs whose
 *    exponent fields are a 25..254 and b 2..251 with a - b in -124..126.
 *    So 0 / x, x / 0, infinities, NaNs, denormals, |a| below 2^-102 and
 *    quotients near the ends of the range take the slow path.  The
 *    engine's lane loops make that test (ms_ptx_fdiv_fast, sim/ptx/
 *    ptx-warp.h).
 *  - The subroutine is a tree of 20 basic blocks, no loop, of the sizes
 *    below (read from its SASS; the engine follows its branches for each
 *    lane: sim/emulator/fdiv-route.c).  A warp runs a block once for all
 *    its lanes that reach it: the union of its lanes' blocks.
 *  - The call site (the arguments' moves, the return address, the CALL,
 *    the result's move back: 3 instructions) runs once for the warp; the
 *    SASS line counts leave it out (traces/kernels/sass.c).
 *  - Each group of lanes that goes its own way (the fast lanes, each
 *    distinct route) beyond the first runs one join (BSYNC) more.
 *  All 23 division launches of the probe (every route, fast and slow lanes
 *  mixed, two routes in one warp) are exact.  div.rn.ftz.f32 (-ftz=true), double
 *  division, reciprocals and square roots have slow paths of their own,
 *  not counted here (rare operands: a square root of 0 costs 6
 *  instructions more, a double 0 / 0 55).
 */
#include "config.h"

#include "slow-path.h"

/* the blocks' instructions, in MsFdivBlock's order */
static const guint block_instructions[MS_FDIV_BLOCKS] = {
  13, 4, 1, 2, 2, 4, 3, 2, 3, 3, 7, 22, 1, 2, 3, 2, 3, 22, 2, 3,
};

/* the call site's instructions, and a join's */
#define CALL_SITE 3
#define GROUP_JOIN 1

double
ms_slow_path_instructions (const MsSlowPathRuns *runs)
{
  double n = (double) runs->warps * CALL_SITE + (double) runs->groups * GROUP_JOIN;
  for (guint k = 0; k < MS_FDIV_BLOCKS; k++)
    n += (double) runs->blocks[k] * block_instructions[k];
  return n;
}
