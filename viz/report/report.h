/* report.h - the output layer: a run's numbers as a text table, JSON or CSV,
 * keyed by Nsight Compute metric names (the names come from the model
 * table, sim/models/model.h), and the safe writing of any output file.
 * `trace`, `replay`, `compare` (report-compare.c) and `--gpu`
 * (gpu/side-by-side.c) all write through here. */
#pragma once

#include <glib.h>

#include "arch.h"
#include "launch.h"
#include "model.h"
#include "stats.h"

G_BEGIN_DECLS

typedef enum { MS_FORMAT_TEXT, MS_FORMAT_JSON, MS_FORMAT_CSV } MsFormat;

gboolean ms_format_parse (const char *text, MsFormat *format, GError **error);

typedef struct {
  const MsRunInfo *info; /* kernel, launch, params, output check, source lines */
  const MsArch *arch;    /* the preset the models ran on */
  const MsStats *stats;
  double seconds;        /* wall time of the simulation or replay */
} MsTraceReport;

/* Nsight Compute's name for a counter of (space, op), or NULL if Nsight has
 * none.  what: "inst", or a model counter's key ("requests", "sectors",
 * "wavefronts"; "conflicts" is the banks' "excessive"). */
const char *ms_metric_name (MsSpace space, MsOp op, const char *what);

void ms_report_write (const MsTraceReport *r, MsFormat format, GString *out);

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
  /* measured on the GPU (compare --gpu); absent when gpu_measured is FALSE */
  gboolean gpu_measured;
  double gpu_seconds;      /* gpu__time_duration.sum, median of repeats */
  double gpu_bandwidth;    /* GB/s: the kernel's buffers / gpu_seconds */
} MsCompareRow;

/* The compare table (report-compare.c); ratios are to rows[0]. */
void ms_compare_report_write (const char *family, const MsArch *arch, const MsCompareRow *rows,
                              guint n, MsFormat format, GString *out);

/* Writes text to path, or stdout for NULL/"-"; never leaves a partial file. */
gboolean ms_write_output (const char *path, const GString *text, GError **error);

G_END_DECLS
