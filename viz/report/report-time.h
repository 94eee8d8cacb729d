/* report-time.h - the predicted kernel time (sim/models/kernel-time.h) in
 * the reports of `memsim trace`: a text block and a "time" JSON object
 * keyed by Nsight's gpu__time_duration.sum, with memsim__event_time beside it
 * (report-time.c). */
#pragma once

#include <glib.h>

#include "arch.h"
#include "kernel-time.h"
#include "report.h"

G_BEGIN_DECLS

/* Adds the prediction to a report already in out (text: a block at the
 * end; JSON: a top-level "time" object; CSV: nothing).  bytes: what the
 * launch's buffers hold (every buffer read or written once), for the
 * effective bandwidth as --gpu computes it. */
void ms_time_report_append (const MsTimePrediction *t, const MsArch *arch, guint64 bytes,
                            MsFormat format, GString *out);

G_END_DECLS
