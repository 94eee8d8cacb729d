/* slow-path-route.h - a lane's route through the slow paths of float
 * division, reciprocal and square root (slow-path-route.c). */
#pragma once

#include <glib.h>

#include "slow-path-runs.h"

G_BEGIN_DECLS

/* The blocks (bit k: block k of the kind, slow-path-runs.h) a lane runs in
 * the slow path of kind for its operands' float bits (b: a division's
 * divisor; which lanes take it: sim/ptx/ptx-warp.h). */
guint32 ms_slow_path_route (MsSlowPathKind kind, guint32 a, guint32 b);

G_END_DECLS
