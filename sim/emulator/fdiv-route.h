/* fdiv-route.h - a lane's route through float division's slow path
 * (fdiv-route.c). */
#pragma once

#include <glib.h>

#include "slow-path-runs.h"

G_BEGIN_DECLS

/* The blocks (bit k: MsFdivBlock k) a lane runs in the slow path for
 * a / b, their float bits (which lanes take it: ms_ptx_fdiv_fast,
 * sim/ptx/ptx-warp.h). */
guint32 ms_fdiv_route (guint32 a, guint32 b);

G_END_DECLS
