/* slow-path.c - what the slow paths of IEEE float division, reciprocal
 * and square root add to Nsight Compute's warp instructions
 * (smsp__inst_executed.sum).
 *
 * Assumptions (ptxas of CUDA 13.0 for sm_90, measured on the H200:
 * gpu/probes/division-slow-path.cu, gpu/measurements/h200-2026-12-01-
 * division-slow-path/; every other preset takes them as they are):
 *  - nvcc makes a / b of floats div.rn.f32, 1.0f / x rcp.rn.f32 and
 *    sqrtf sqrt.rn.f32; ptxas makes each a fast path and a test whose
 *    predicate sends the lanes the fast path would get wrong to a
 *    subroutine appended to the kernel ($__internal_..._slowpath).
 *  - Division's test is FCHK, measured for every pair of 518 values (each
 *    exponent with the least and the largest significand, zeros,
 *    denormals, infinity, NaN; the sweep's 268 324 divisions fall into two
 *    clear modes, 40-55 and 176-487 cycles): the fast path serves exactly
 *    the pairs whose exponent fields are a 25..254 and b 2..251 with a - b
 *    in -124..126.  So 0 / x, x / 0, infinities, NaNs, denormals, |a|
 *    below 2^-102 and quotients near the ends of the range take the slow
 *    path.  The reciprocal's and square root's tests are integer compares
 *    in the SASS: a reciprocal of 0, a denormal, infinity, NaN or 2^126 and
 *    up, a square root of 0, a negative number, infinity, NaN or a value
 *    below 2^-101 take it.  The engine's lane loops make these tests
 *    (sim/ptx/ptx-warp.h).
 *  - Each subroutine is a tree of basic blocks, no loop, of the sizes
 *    below (read from its SASS; the engine follows its branches for each
 *    lane: sim/emulator/slow-path-route.c).  A warp runs a block once for
 *    all its lanes that reach it: the union of its lanes' blocks.
 *  - The call site (the arguments' moves, the return address, the CALL,
 *    the result's move or the branch past the fast path: 3 instructions)
 *    runs once for the warp; the SASS line counts leave it out
 *    (traces/kernels/sass.c).  The reciprocal's and square root's fast
 *    path (4 instructions) is the other side of the branch: a warp none of
 *    whose lanes takes it does not run it.
 *  - Each group of lanes that goes its own way (the fast lanes, each
 *    distinct route) beyond the first runs one join (BSYNC) more.  The
 *    square root's subroutine has no join of its own: each route beyond
 *    the first also runs its return (4) and the branch past the fast path.
 *  All 41 launches of the probe for the three (every route, fast and slow
 *  lanes mixed, two routes in one warp) are exact.  div.rn.ftz.f32 and
 *  the others under -ftz=true, and double division, reciprocal and square
 *  root have slow paths of their own, not counted here (a double 0 / 0
 *  costs 55 instructions more, a double square root of 0 14, a double
 *  reciprocal of 0 18); their fast paths are exact.
 */
#include "config.h"

#include "slow-path.h"

/* per kind: the blocks' instructions, in their enum's order; the call
 * site's; the fast path's (0: run before the test, by every warp); a
 * route's own return, run again by each route beyond the first */
static const struct {
  guint blocks[MS_SLOW_PATH_BLOCKS], call_site, fast_path, route_return;
} paths[MS_SLOW_KINDS] = {
  [MS_SLOW_FDIV] = { { 13, 4, 1, 2, 2, 4, 3, 2, 3, 3, 7, 22, 1, 2, 3, 2, 3, 22, 2, 3 }, 3, 0, 0 },
  [MS_SLOW_FRCP] = { { 5, 10, 3, 1, 30, 1, 3 }, 3, 4, 0 },
  [MS_SLOW_FSQRT] = { { 3, 3, 3, 10, 4 }, 3, 4, 4 + 1 },
};

/* a join: the BSYNC each group of lanes beyond the first runs */
#define GROUP_JOIN 1

double
ms_slow_path_instructions (const MsSlowPathRuns *runs)
{
  double n = 0;
  for (guint kind = 0; kind < MS_SLOW_KINDS; kind++)
    {
      const MsSlowPathCount *r = &runs->kind[kind];
      n += (double) r->warps * paths[kind].call_site + (double) r->groups * GROUP_JOIN
           + (double) r->routes * paths[kind].route_return
           - (double) r->no_fast * paths[kind].fast_path;
      for (guint k = 0; k < MS_SLOW_PATH_BLOCKS; k++)
        n += (double) r->blocks[k] * paths[kind].blocks[k];
    }
  return n;
}
