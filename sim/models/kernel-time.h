/* kernel-time.h - the kernel time model (kernel-time.c opens with its
 * assumptions and the model it follows). */
#pragma once

#include <glib.h>

#include "arch.h"
#include "stats.h"

G_BEGIN_DECLS

/* What bounds a kernel's predicted time. */
typedef enum {
  MS_BOUND_LAUNCH,    /* the launch's fixed time is longer than the work */
  MS_BOUND_DRAM,
  MS_BOUND_L2,
  MS_BOUND_LSU,       /* L1 tag/data stages: global lines, shared wavefronts */
  MS_BOUND_LATENCY,   /* too few warps in flight to hide the loads' latency */
  MS_BOUND_ISSUE,     /* the schedulers issue the warps' instructions as fast as they can */
  MS_BOUND_ATOMICS,   /* the L2 serves the atomics on the busiest line one pass at a time */
  MS_BOUND_DISPATCH,  /* the front end starts the blocks one after another */
  MS_BOUND_HOST,      /* mapped host memory over the host link */
  MS_BOUND_RUNTIME,   /* device code's printf, malloc and free */
} MsBound;

typedef struct {
  double seconds;        /* predicted gpu__time_duration: the kernel's start to its end */
  double event_seconds;  /* predicted memsim__event_time: seconds + t_event_latency, what
                            CUDA events around the launch see */
  MsBound bound;
  /* the resources' times, seconds; t_launch: the launch's own time inside the
   * kernel's duration (fixed, the first wave's start, the stores' drain);
   * t_event_latency: the part only CUDA events see; t_dispatch: every
   * block's start */
  double t_launch, t_event_latency, t_dram, t_l2, t_atomics, t_lsu, t_latency, t_issue, t_sm,
    t_dispatch, t_host;
  /* device code's printf, malloc and free, one call after another: added
   * to the rest, which the calling warps wait for */
  double t_runtime;
  guint64 runtime_calls;  /* ... the warp-level calls */
  guint64 atomic_passes;  /* the busiest line's atomic passes (atomics.c) */
  guint64 l2_loads, dram_loads;   /* load requests that read from the L2 (not DRAM), from
                                     DRAM (cache.c): the rounds that wait for them */
  double waves;
  guint64 blocks, slots;  /* blocks of the grid; blocks the GPU holds at once */
  guint64 dram_bytes;     /* read + written (the cache model's) */
  guint64 host_bytes;     /* mapped host memory read + written */
} MsTimePrediction;

/* Predicts the launch's time from its counters (every model of the table
 * has run) and occupancy; FALSE when the preset has no cost figures or the
 * block cannot run. */
gboolean ms_time_predict (const MsArch *arch, const MsStats *stats, int active_blocks_per_sm,
                          int warps_per_block, MsTimePrediction *out);
/* The cycles one run of a block of device code adds to a warp's time, as
 * the time model's chain and issue terms see them: its dependence path
 * (dependent_cycles) x dependence_scale against its instructions x the
 * warps sharing the warp's scheduler / issue_efficiency, the longer plus
 * the shorter over the blocks an SM holds together.  Device code's clock
 * advances so (MsLaunch.block_cycles), so a kernel that spins until the
 * clock reaches a value runs the instructions the model then times at
 * that value. */
double ms_time_block_cycles (const MsArch *arch, int active_blocks_per_sm, int warps_per_block,
                             guint64 blocks, double instructions, double dependent_cycles);
/* Effective bandwidth, GB/s: bytes (the launch's buffers) / predicted event time
 * (as --gpu measures it, with CUDA events). */
double ms_time_gbs (const MsTimePrediction *t, guint64 bytes);
/* "DRAM-bound", "latency-bound: 64 blocks in 1 wave of 1056 blocks on 132
 * SMs", ... (free it). */
char *ms_time_bound_text (const MsTimePrediction *t, const MsArch *arch);

G_END_DECLS
