/* reduction.h - a filter between a producer and its sinks that marks the
 * global atomics of chosen sites as reductions (MS_OP_RED).
 *
 * nvcc compiles a global atomic whose result is unused into a RED
 * instruction, which Nsight Compute counts under the `_op_red` metrics, not
 * `_op_atom`.  The emulator cannot see whether a result is used; the caller
 * decides per site (traces/kernels/problem.c: for device code run from
 * its PTX, the translator's MsSite.reduction; else from the SASS of the
 * nvcc build, else from the source text) and this filter rewrites the op of
 * that site's global atomic records from MS_OP_ATOMIC to MS_OP_RED before
 * they reach the inner sinks.  Every other record passes unchanged.  Both
 * parts of a sink are filtered, the parallel part per worker.
 */
#pragma once

#include <glib.h>

#include "stream.h"

G_BEGIN_DECLS

/* Whether the global atomics of site are reductions; asked once per site,
 * from any worker (serialised by the filter). */
typedef gboolean (*MsReductionFn) (gpointer data, const MsSite *site);

typedef struct MsReduction MsReduction;

/* A filter in front of inner (kept by reference; it must outlive the
 * filter). */
MsReduction *ms_reduction_new (const MsSinks *inner, MsReductionFn is_reduction, gpointer data);
void ms_reduction_free (MsReduction *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsReduction, ms_reduction_free)
/* The filter as a sink (parallel part only if inner has one, ordered part
 * only if inner has one). */
const MsStreamSink *ms_reduction_sink (MsReduction *r);

G_END_DECLS
