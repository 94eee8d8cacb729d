/* atomics.h - contention of global atomics at the L2 (atomics.c opens with
 * its assumptions). */
#pragma once

#include "model.h"

G_BEGIN_DECLS

extern const MsModel ms_model_atomics;

G_END_DECLS
