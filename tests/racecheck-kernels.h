/* racecheck-kernels.h - the entries of tests/racecheck-kernels.c. */
#pragma once

#include "kernel.h"

#define RC_FOR_EACH_KERNEL(X) \
  X (rc_write_write) X (rc_write_same) X (rc_barrier_clean) X (rc_own_warp) X (rc_own_warp_synced) \
  X (rc_own_lane) X (rc_atomics) X (rc_atomic_vs_read) X (rc_broadcast_then_write) \
  X (rc_runs_after_write) X (rc_late_race) X (rc_late_uninitialised) \
  X (rc_late_barrier) X (rc_late_syncwarp) X (rc_late_synced_read) \
  X (rc_late_same) X (rc_late_short)

#define RC_DECLARE_ENTRY(name) void ms_cpu_entry_##name (const MsLaunchArgs *L);
RC_FOR_EACH_KERNEL (RC_DECLARE_ENTRY)
