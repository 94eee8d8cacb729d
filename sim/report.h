/* report.h - a kernel run's numbers as a text table, JSON or CSV, keyed by
 * Nsight Compute metric names. */
#pragma once

#include <glib.h>

#include "arch.h"
#include "problem.h"
#include "stats.h"

G_BEGIN_DECLS

typedef enum { MS_FORMAT_TEXT, MS_FORMAT_JSON, MS_FORMAT_CSV } MsFormat;

gboolean ms_format_parse (const char *text, MsFormat *format, GError **error);

typedef struct {
  const MsProblem *problem;
  const MsArch *arch;
  const MsStats *stats;
  const char *check;     /* "passed", or the failure message */
  double seconds;        /* wall time of the simulation */
} MsTraceReport;

/* Nsight Compute's name for a counter of (space, op), or NULL if Nsight has
 * none.  what: "inst", "requests", "sectors", "wavefronts", "conflicts". */
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

/* Writes text to path, or stdout for NULL/"-"; never leaves a partial file. */
gboolean ms_write_output (const char *path, const GString *text, GError **error);

G_END_DECLS
