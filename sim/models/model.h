/* model.h - the interface every memory model implements, and the model
 * table (models.c) that the pipeline runs.
 *
 * A model consumes warp access records of one memory space and adds its
 * costs to the counters of the record's site (stats.h); it names its
 * counters, and Nsight Compute's metric for each where there is one, so
 * reports list them without knowing the model.  Two kinds:
 *
 *   stateless  cost(): a pure function of one record (coalescing, banks).
 *              The pipeline calls it on every worker thread in parallel,
 *              each worker with its own counters, and sums the workers'
 *              counters at the end: the result does not depend on the
 *              order of records or the number of threads.
 *   stateful   ordered_cost() with state of state_size bytes: gets every
 *              record in the stream order (stream.h), one at a time, with
 *              one state for the whole run (a cache: hits depend on what
 *              came before).
 *
 * Adding a model: one file under sim/models/ with its MsModel (opening with
 * its modelling assumptions), its counters in free slots (MS_SLOT_* below
 * lists the slots taken), and one line in the table in models.c.
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "arch.h"
#include "stats.h"
#include "stream.h"

G_BEGIN_DECLS

/* Slots of MsCounters.v taken by the built-in models. */
enum {
  MS_SLOT_REQUESTS = 0,   /* coalescing.c */
  MS_SLOT_SECTORS = 1,
  MS_SLOT_LINES = 2,
  MS_SLOT_WAVEFRONTS = 3, /* banks.c */
  MS_SLOT_IDEAL = 4,
  MS_SLOT_EXCESSIVE = 5,
  MS_SLOT_L2_READ = 6,    /* cache.c */
  MS_SLOT_L2_WRITE = 7,
  MS_SLOT_DRAM_READ = 8,
  MS_SLOT_DRAM_WRITE = 9,
  MS_SLOT_TX_32B = 10,    /* coalescing.c, segment_rule=shrink (cc 1.2/1.3) */
  MS_SLOT_TX_64B = 11,
  MS_SLOT_TX_128B = 12,
  MS_SLOT_ATOMIC_LINE_PASSES = 13,   /* atomics.c */
  MS_SLOT_HOST_READ = 14,  /* cache.c: bytes over the host link (mapped host memory) */
  MS_SLOT_HOST_WRITE = 15,
  MS_SLOT_L2_LOADS = 16,   /* cache.c: load requests that read from the L2, not DRAM */
  MS_SLOT_DRAM_LOADS = 17, /* ... that read from DRAM (or mapped host memory) */
  MS_SLOT_FIRST_FREE = 18,
};

/* The most ranges of mapped host memory a launch passes the models. */
#define MS_MAX_HOST_RANGES 64

typedef struct {
  const char *key;      /* short name, e.g. "sectors" (CSV columns, lookups) */
  guint slot;           /* index in MsCounters.v */
  /* Nsight Compute metric, a pattern with one %s for the op ("ld", "st",
   * "atom"), e.g. "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum"; NULL
   * when Nsight has none. */
  const char *nsight;
  /* A launch-wide counter (L2, DRAM): reported once per launch, summed
   * over every site and op plus the launch's own part (MsStats.launch),
   * under the fixed name `nsight`, rather than per op; one without a name
   * is an input of the time model, not reported as a metric. */
  gboolean per_launch;
  /* The ops `nsight` names a metric for, as bits 1 << MsOp; 0: every op.
   * For the others the counter is counted but has no metric name. */
  guint ops;
  /* optional: whether the counter means anything on arch (the cc 1.x
   * transaction sizes only under segment_rule=shrink); reports leave it out
   * otherwise, as they leave out a model that does not apply */
  gboolean (*applies) (const MsArch *arch);
} MsCounterDef;

typedef struct {
  const char *name;          /* "coalescing" */
  const char *summary;       /* one line */
  MsSpace space;             /* the records it costs */
  const MsCounterDef *counters;   /* terminated by { NULL } */
  /* Whether the model can work with this architecture (NULL: any). */
  gboolean (*arch_check) (const MsArch *arch, GError **error);
  /* stateless models: adds the record's cost into v (the site's slots) */
  void (*cost) (const MsArch *arch, const MsWarpAccess *a, guint64 *v);
  /* stateful models */
  gsize state_size;
  void (*state_init) (gpointer state, const MsArch *arch);
  void (*state_clear) (gpointer state);
  void (*ordered_cost) (gpointer state, const MsArch *arch, const MsWarpAccess *a, guint64 *v);
  /* optional, after the last record: adds what belongs to the launch and
   * no site (a launch's fixed DRAM reads) into launch_v */
  void (*finish) (gpointer state, const MsArch *arch, guint64 *launch_v);
  /* optional, before the first record: the address ranges [base, base +
   * bytes) of the launch's mapped host memory (n of them, at most
   * MS_MAX_HOST_RANGES) */
  void (*host_memory) (gpointer state, const guint64 *base, const guint64 *bytes, guint n);
  /* optional: whether the model's counters mean anything on arch (a preset
   * without the figures it needs); reports leave them out otherwise */
  gboolean (*applies) (const MsArch *arch);
} MsModel;

/* The model table, NULL-terminated. */
const MsModel *const *ms_models (void);
/* Whether every model can work with arch (warp size, each arch_check). */
gboolean ms_models_arch_check (const MsArch *arch, GError **error);
/* ms_arch_lookup () and ms_models_arch_check (): the presets a run can use. */
MsArch *ms_models_arch_lookup (const char *name_or_path, GError **error);
/* Nsight's name for the instructions of (space, op):
 * "smsp__sass_inst_executed_op_global_ld.sum"; NULL for local memory. */
const char *ms_metric_inst_name (MsSpace space, MsOp op);
/* Nsight's name of a counter for an op (a static string), or NULL. */
const char *ms_counter_metric_name (const MsCounterDef *def, MsOp op);
/* Whether counter def of model m is reported on arch: the model's and the
 * counter's `applies` (NULL: always). */
gboolean ms_counter_applies (const MsModel *m, const MsCounterDef *def, const MsArch *arch);
/* Whether any launch-wide counter (MsCounterDef.per_launch) applies on
 * arch, and the total of one: every site's and the launch's own part. */
gboolean ms_models_launch_counters (const MsArch *arch);
guint64 ms_stats_launch_total (const MsStats *stats, const MsCounterDef *def);
/* The launch-wide counter named `nsight` of a model that applies on arch,
 * or NULL. */
const MsCounterDef *ms_counter_find_launch_metric (const MsArch *arch, const char *nsight);
/* The counter of `space` called key ("sectors"), or NULL. */
const MsCounterDef *ms_counter_find (MsSpace space, const char *key);

/* ---- running the models over a stream ---- */

typedef struct MsModelRun MsModelRun;

/* threads_per_block: to tell partial warps from full ones. */
MsModelRun *ms_model_run_new (const MsArch *arch, guint64 threads_per_block, GError **error);
/* The same with another table of models (NULL-terminated), for tests and
 * tools that run a model outside the table. */
MsModelRun *ms_model_run_new_with (const MsArch *arch, guint64 threads_per_block,
                                   const MsModel *const *models, GError **error);
void ms_model_run_free (MsModelRun *run);
/* The sink to drive with the stream (stream.h). */
const MsStreamSink *ms_model_run_sink (MsModelRun *run);
/* The launch's mapped host memory, before its first record: of its n
 * buffers [base, base + bytes) of record addresses, those whose host[] is
 * TRUE (to the stateful models that read them: host_memory). */
void ms_model_run_set_host_memory (MsModelRun *run, guint n, const guint64 *base,
                                   const guint64 *bytes, const gboolean *host);
/* After the producer is done: the counters per site, sorted for reports;
 * blocks/threads/warps from the geometry given.  Call once. */
MsStats *ms_model_run_finish (MsModelRun *run, guint64 blocks);
/* The same for a sample (emulator.h): only blocks_run of the launch's
 * blocks ran, and every counter is scaled by blocks / blocks_run. */
MsStats *ms_model_run_finish_sampled (MsModelRun *run, guint64 blocks, guint64 blocks_run);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsModelRun, ms_model_run_free)

G_END_DECLS
