/* trace-check.h - `memsim trace --check-trace`: the emulator's address trace
 * (collected from the ordered stream, sim/stream/stream.h) against the GPU's own (backend.h,
 * MS_GPU_RUN_TRACE), access by access.
 *
 * Two comparisons:
 *   addresses  per lane: the k-th execution of a site by lane l of warp w of
 *              block b must have the same space, op, width and address on
 *              both sides (global: buffer + offset; shared: the offset in
 *              the block's shared window, allowing one constant base
 *              difference, which is reported).  Warps are scheduled in
 *              another order on the GPU and diverged lanes may run a site at
 *              other times, so nothing depends on the order of warps or on
 *              how lanes were grouped.  This is the verdict ("identical").
 *   grouping   per warp-level access: the k-th execution of a site by a
 *              warp has the same active mask on both sides, i.e. the GPU ran
 *              the lanes together as the emulator did.  A difference is
 *              reported as a note: the trace build's instrumentation can
 *              itself change how the compiler reconverges lanes, and the
 *              counters come from the uninstrumented build.
 * A site is its source line and its rank among the access sites of that
 * line (the two builds number their macro expansions differently, but in
 * the same textual order).
 */
#pragma once

#include <glib.h>

#include "backend.h"
#include "emulator.h"
#include "stream.h"

G_BEGIN_DECLS

typedef struct {
  GArray *records;     /* MsTraceRecord, in the emulator's order */
  guint64 total;       /* accesses seen (more than records->len if capped) */
  guint64 cap;
  MsStreamSink sink;   /* its ordered part is ms_trace_collect */
} MsTraceCollector;

MsTraceCollector *ms_trace_collector_new (void);
void ms_trace_collector_free (MsTraceCollector *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsTraceCollector, ms_trace_collector_free)

/* The ordered sink's function: collector is an MsTraceCollector. */
void ms_trace_collect (gpointer collector, const MsWarpAccess *access);

typedef struct {
  gboolean identical;            /* per-lane addresses */
  gboolean grouping_identical;   /* warp-level masks */
  guint64 lane_accesses;         /* per-lane accesses compared */
  guint64 emulator_accesses, gpu_accesses;   /* warp-level */
  guint64 global, shared;        /* warp-level emulator accesses by space */
  gboolean shared_seen;
  gint64 shared_base;            /* GPU shared offset - emulator's */
  char *message;                 /* "identical: ..." or the first difference, and the grouping */
} MsTraceCheck;

void ms_trace_check_clear (MsTraceCheck *check);

/* Compares; source (may be NULL) is the kernel's file under traces/kernels
 * for quoting lines.  If dump (a path prefix) is not NULL and the traces
 * differ, the records of the first differing warp are written to
 * DUMP-emulator.txt and DUMP-gpu.txt. */
void ms_trace_compare (const GArray *emulator, guint64 emulator_total, const GArray *gpu,
                       guint64 gpu_total, const char *source, const char *dump,
                       MsTraceCheck *check);

/* --save-gpu-trace: the GPU's own trace (r, recorded with MS_GPU_RUN_TRACE)
 * as a memsim trace file, blocks in ascending order, so that a trace
 * measured on hardware replays on any preset.  check: the GPU output's
 * check.  Sites are (kernel source, line, the GPU build's site order). */
gboolean ms_gpu_trace_save (const MsProblem *p, const MsGpuResult *r, const char *check,
                            const char *path, GError **error);

G_END_DECLS
