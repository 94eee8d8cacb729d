/* replay.h - drives sinks from a trace source: the same stream a live run
 * produced, without the emulator.
 *
 * The calling thread reads and decodes the records in the stream order and
 * hands them to the sinks' ordered parts; batches of records go to worker
 * threads for the sinks' parallel parts (the stateless models), so replay
 * uses every core like the emulator does.
 */
#pragma once

#include <glib.h>

#include "model.h"
#include "source.h"
#include "stream.h"

G_BEGIN_DECLS

/* Reads src to its end into sinks; threads: 0 = one per core.  On success
 * *records (may be NULL) is the number of records replayed. */
gboolean ms_trace_replay (MsTraceSource *src, const MsSinks *sinks, guint threads,
                          guint64 *records, GError **error);

/* Replays src through the model table of arch and the extra sinks (may be
 * NULL): *stats gets the counters per site (as ms_problem_simulate gives
 * them for a live run), *seconds (may be NULL) the wall time. */
gboolean ms_trace_replay_models (MsTraceSource *src, const MsArch *arch, guint threads,
                                 const MsSinks *extra, MsStats **stats, double *seconds,
                                 GError **error);

G_END_DECLS
