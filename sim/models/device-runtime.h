/* device-runtime.h - what the device runtime's own code adds to Nsight
 * Compute's counters (device-runtime.c). */
#pragma once

#include "runtime-calls.h"
#include "stats.h"

G_BEGIN_DECLS

/* From the launch's printf calls: own[op] gets the global requests and
 * sectors of printf's code (no instruction of the kernel's), *instructions
 * its warp instructions. */
void ms_device_runtime_counts (const MsRuntimeCalls *calls, MsCounters own[MS_N_OPS],
                               double *instructions);

G_END_DECLS
