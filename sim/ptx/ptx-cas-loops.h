/* ptx-cas-loops.h - shared atomics ptxas makes compare-and-swap loops, as
 * those loops (ptx-cas-loops.c). */
#pragma once

#include "ptx.h"

G_BEGIN_DECLS

/* Rewrites each function of m: every shared atomic that sm_90 has no
 * instruction for (add.f32, add.f64, add.u64, min/max.u64/s64,
 * and/or/xor.b64) becomes the load, operation and compare-and-swap loop
 * ptxas makes of it, at the atomic's source line.  ms_ptx_read calls it. */
void ms_ptx_lower_cas_loops (MsPtxModule *m);

G_END_DECLS
