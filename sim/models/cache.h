/* cache.h - the L1/L2/DRAM traffic model (cache.c opens with its assumptions). */
#pragma once

#include "model.h"

G_BEGIN_DECLS

extern const MsModel ms_model_cache;

G_END_DECLS
