/* slow-path.h - the warp instructions the slow paths of IEEE float
 * division, reciprocal and square root add (slow-path.c). */
#pragma once

#include <glib.h>

#include "slow-path-runs.h"

G_BEGIN_DECLS

/* The warp instructions the slow paths of *runs add: the call sites', the
 * blocks', and one more join a group. */
double ms_slow_path_instructions (const MsSlowPathRuns *runs);

G_END_DECLS
