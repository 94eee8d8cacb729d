/* stats.h - what the models computed: counters per access site.
 *
 * Every (site, space) gets one MsCounters: the generic counts of the
 * records (executions, active lanes, partial warps, bytes requested) and
 * MS_COUNTER_SLOTS model counters.  Each model owns some slots (its
 * MsCounterDef list, model.h); the model table checks that no two models
 * share a slot.
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "instructions.h"
#include "runtime-calls.h"

G_BEGIN_DECLS

#define MS_COUNTER_SLOTS 20

typedef struct {
  guint64 executions;   /* warp-level instructions executed (records) */
  guint64 lanes;        /* active lanes summed over executions */
  guint64 partial;      /* executions with fewer lanes than the warp has */
  guint64 bytes;        /* bytes requested: width x active lanes */
  guint64 async_copies; /* executions that were cp.async's global reads
                         * (MsSite.async_copy): LDGSTS, not LDG */
  guint64 v[MS_COUNTER_SLOTS];   /* the models' counters, by slot */
} MsCounters;

typedef struct {
  const MsSite *site;
  MsSpace space;
  MsOp op;
  guint width;
  MsCounters c;
} MsSiteStats;

typedef struct {
  GArray *sites;        /* MsSiteStats, in report order (ms_site_compare, space) */
  guint64 blocks, threads, warps;
  guint64 blocks_run;   /* blocks simulated: blocks, or fewer when sampled (the
                           counters are then scaled by blocks / blocks_run) */
  MsCounters launch;    /* what models charged to the launch, not a site (model.h finish) */
  guint64 fused;        /* instructions the compiler regrouping saved: source accesses
                         * merged into another's wider instruction (regroup.h); 0 at
                         * source level */
  guint64 unrolled;     /* instructions the regrouping of loops nvcc unrolled added */
  /* warp instructions executed, all kinds (smsp__inst_executed.sum), and
   * how they were counted (instructions.h); MS_INST_NONE: not counted */
  guint64 inst_executed;
  MsInstBasis inst_basis;
  GArray *inst_lines;   /* MsInstLineCount by source line (scaled like the counts), or NULL */
  /* with inst_basis: the rounds of global loads and the barriers the warps
   * waited at, their texture fetches and the cycles their instructions'
   * dependences took (ms_inst_waits), scaled like the counts */
  guint64 load_rounds, barriers, texture_fetches, dependent_cycles;
  /* device code's printf, malloc and free (the engine's count, scaled like
   * the counts; chains unscaled: one warp's) */
  MsRuntimeCalls runtime;
  /* global requests and sectors of the device runtime's own code (printf's
   * buffer: device-runtime.h), by op: no site's, but in ms_stats_total's
   * global totals, as Nsight Compute counts them */
  MsCounters runtime_own[MS_N_OPS];
  /* cp.async issues that read nothing: LDGSTS instructions without a
   * record (MsLaunch.async_fills), scaled like the counts */
  guint64 async_fills;
  /* the warp instructions of the slow paths of float division, reciprocal
   * and square root (slow-path.h): in inst_executed, on no source line */
  guint64 slow_path_instructions;
} MsStats;

MsStats *ms_stats_new (void);
void ms_stats_free (MsStats *stats);
void ms_counters_add (MsCounters *into, const MsCounters *c);
/* Whether the counters come from a sample of the blocks, scaled. */
static inline gboolean
ms_stats_sampled (const MsStats *stats)
{
  return stats->blocks_run > 0 && stats->blocks_run < stats->blocks;
}

/* Multiplies every counter by num / den (rounded to the nearest): a sample's
 * counts scaled to the whole launch. */
void ms_counters_scale (MsCounters *c, guint64 num, guint64 den);
/* Totals over all sites with the given space and op (op < 0: any op). */
void ms_stats_total (const MsStats *stats, MsSpace space, int op, MsCounters *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsStats, ms_stats_free)

G_END_DECLS
