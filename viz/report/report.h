/* report.h - the output layer: a run's numbers as a text table, JSON or CSV,
 * keyed by Nsight Compute metric names (the names come from the model
 * table, sim/models/model.h), and the safe writing of any output file.
 * `trace`, `replay`, `compare` (report-compare.c) and `--gpu`
 * (gpu/side-by-side.c) all write through here. */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>

#include "arch.h"
#include "launch.h"
#include "model.h"
#include "races.h"
#include "stats.h"

G_BEGIN_DECLS

typedef enum { MS_FORMAT_TEXT, MS_FORMAT_JSON, MS_FORMAT_CSV } MsFormat;

gboolean ms_format_parse (const char *text, MsFormat *format, GError **error);

typedef struct {
  const MsRunInfo *info; /* kernel, launch, params, output check, source lines */
  const MsArch *arch;    /* the preset the models ran on */
  const MsStats *stats;
  double seconds;        /* wall time of the simulation or replay */
  const MsRaceLog *races;/* the race check's findings (--allow-races), NULL where
                          * none ran (a replay) */
  const char *arch_note; /* --gpu: which preset and why, or a warning that --arch
                          * disagrees with the device (one line); NULL: none */
} MsTraceReport;

/* The races and intra-warp hazards of r->races (report-races.c), as the
 * report writes them: text after the per-line tables, and the JSON object
 * of the report's member "races"; neither when there are none, so a clean
 * run's report is its replay's. */
void ms_races_report_text (const MsTraceReport *r, GString *out);
void ms_races_report_json (const MsTraceReport *r, JsonBuilder *b);

/* Nsight Compute's name for a counter of (space, op), or NULL if Nsight has
 * none.  what: "inst", or a model counter's key ("requests", "sectors",
 * "wavefronts"; "conflicts" is the banks' "excessive"). */
const char *ms_metric_name (MsSpace space, MsOp op, const char *what);

void ms_report_write (const MsTraceReport *r, MsFormat format, GString *out);

/* root as pretty-printed JSON and a newline: every JSON output's end. */
void ms_report_append_json (JsonNode *root, GString *out);

/* Divergence over every memory instruction of a run (all spaces and ops):
 * executions, those executed with a partial warp (MsCounters.partial: fewer
 * active lanes than the warp has threads), their share of the executions
 * (0 when none ran) and the average active lanes per execution. */
typedef struct {
  guint64 executions, partial;
  double partial_warp_share, avg_active_lanes;
} MsDivergence;
void ms_report_divergence (const MsStats *stats, MsDivergence *out);

/* One row of `memsim compare`: a variant of a kernel family. */
typedef struct {
  const char *kernel;
  char *size;              /* the size parameters, "WxHxD" */
  unsigned block[3];
  gboolean block_default;  /* --block was given but the block rule forbids it */
  guint64 instructions, global_inst, requests, sectors, shared_inst, wavefronts, excessive;
  guint64 bytes, global_bytes, shared_bytes;
  MsDivergence divergence;
  double seconds;          /* wall time of the simulation */
  char *check;             /* "passed" or the failure */
  gboolean passed;
  guint64 blocks, blocks_run; /* blocks_run < blocks: a sample ran (--sample), counts scaled */
  guint64 races;           /* lane accesses in shared-memory races that --allow-races
                              let through (docs/model.md, "Races") */
  /* measured on the GPU (compare --gpu); absent when gpu_measured is FALSE */
  gboolean gpu_measured;
  double gpu_event_seconds;  /* memsim__event_time: CUDA events, median of repeats */
  double gpu_bandwidth;    /* GB/s: the kernel's buffers / gpu_event_seconds */
  /* predicted by the cache and time models (absent when predicted is FALSE:
   * a preset without cost figures, a replayed trace) */
  gboolean predicted;
  guint64 dram_bytes;      /* DRAM bytes read + written */
  double pred_event_seconds;     /* memsim__event_time, compared with gpu_event_seconds */
  double pred_duration_seconds;  /* gpu__time_duration.sum: no launch latency */
  double pred_bandwidth;   /* GB/s: the kernel's buffers / pred_event_seconds */
  char *bound;             /* "DRAM-bound", ... */
  const char *counts;      /* "sass" (compiler-exact), "source", NULL (a replayed trace's) */
  guint64 fused;           /* instructions saved by nvcc's fusion (MsStats.fused) */
  guint64 unrolled;        /* instructions added by nvcc's unrolled loops (MsStats.unrolled) */
} MsCompareRow;

/* The compare table (report-compare.c); ratios are to rows[0].  arch_note
 * (NULL: none): --gpu's line on the preset (which and why, or that --arch
 * disagrees with the device), under the title and as JSON "arch_note". */
void ms_compare_report_write (const char *family, const MsArch *arch, const char *arch_note,
                              const MsCompareRow *rows, guint n, MsFormat format, GString *out);

/* ---- simulated beside measured (trace --gpu; report-measured.c) ---- */

/* exact: must agree; approximate: Nsight's counter also counts other things;
 * predicted: a cost model's estimate (L2, DRAM), compared in percent;
 * measured-only: no model gives it. */
typedef enum { MS_ROW_EXACT, MS_ROW_APPROX, MS_ROW_MEASURED_ONLY, MS_ROW_PREDICTED } MsRowKind;

/* Adds member `name` (node, taken) to the JSON object that out holds (a
 * report just written) and writes it again. */
void ms_report_json_add_member (GString *out, const char *name, JsonNode *node);

/* "exact", "approximate", "measured-only", "predicted" */
const char *ms_row_kind_name (MsRowKind kind);

/* One metric, simulated and measured. */
typedef struct {
  const char *metric;
  MsRowKind kind;
  gboolean have_sim, have_measured;
  guint64 simulated;
  double measured;
  const char *note;     /* NULL when they agree */
  gboolean mismatch;    /* an exact metric that differs */
} MsMeasuredRow;

/* Rounding without libm (memsim links without it where CUDA is absent). */
static inline gint64
ms_round_to_int (double v)
{
  return (gint64) (v < 0 ? v - 0.5 : v + 0.5);
}

static inline gboolean
ms_is_integral (double v)
{
  double d = v - (double) ms_round_to_int (v);
  return d < 1e-6 && d > -1e-6;
}

/* A counter as the GPU read it (available FALSE where the chip lacks it). */
typedef struct {
  const char *name;
  double value;
  gboolean available;
} MsMeasuredRaw;

/* What the GPU run gave besides the rows. */
typedef struct {
  const char *device;
  int cc_major, cc_minor, driver_version, runtime_version;  /* 1000 * major + 10 * minor */
  const char *source, *output_check;
  gboolean output_ok;
  double time_ms, time_warm_ms;
  int repeats;
  guint64 bytes;
  double bandwidth_gbs;
  guint exact_mismatches;
  const GArray *raw;    /* MsMeasuredRaw, every counter read */
  gboolean traced;      /* --check-trace: the address traces compared */
  gboolean trace_identical, grouping_identical, shared_seen;
  guint64 lane_accesses, emulator_accesses, gpu_accesses;
  gint64 shared_base;
  const char *trace_message;
} MsMeasuredRun;

/* The simulation's report with the measured numbers: text (a table
 * metric | simulated | measured | difference after it), JSON (the
 * simulation's object plus "measured", "measured_raw", "gpu" and
 * "comparison"), CSV (one row per metric). */
void ms_report_write_measured (const MsTraceReport *r, const MsMeasuredRun *m,
                               const GArray *rows, MsFormat format, GString *out);

/* Writes text to path, or stdout for NULL/"-"; never leaves a partial file. */
gboolean ms_write_output (const char *path, const GString *text, GError **error);

G_END_DECLS
