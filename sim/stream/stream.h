/* stream.h - how warp access records flow from a producer to consumers.
 *
 * A producer (the emulator, a trace reader) drives one or more sinks.  A
 * sink has two optional parts:
 *
 *   parallel  worker_new / access / worker_done: every record goes to
 *             access() on the worker (OS thread) that produced it, with that
 *             worker's own state; the order of records across workers is
 *             not defined, so this part suits order-free consumers (the
 *             coalescing and bank models: sums of per-record costs).
 *             worker_done() hands a worker's state back, one worker at a
 *             time (merge it there), after the worker's last record.
 *   ordered   ordered(): every record, one call at a time, in THE STREAM
 *             ORDER, whatever the number of workers:
 *               - blocks in ascending linear block index
 *                 (x + gridDim.x * (y + gridDim.y * z));
 *               - within a block, the order in which the emulator executes
 *                 warp-level instructions: warps 0, 1, ... of the block each
 *                 run until they stop (barrier, a collective that cannot
 *                 complete yet, exit, or a budget of 4096 instructions),
 *                 round after round, and within a warp instruction by
 *                 instruction (one record per memory space the
 *                 instruction's lanes touched, global before shared).
 *             Trace files store records in this order, and a reader gives
 *             them back in it.  Stateful consumers (a cache, the trace
 *             writer, the diagram capture) use this part.
 *
 * Producers: the emulator (sim/emulator) runs blocks on several threads and
 * reorders blocks for the ordered part (MsStreamOrder below); a trace reader
 * (traces/) produces the stream order directly.
 */
#pragma once

#include <glib.h>

#include "access.h"

G_BEGIN_DECLS

/* A producer's way round the chain for a repeated shared record
 * (MsRepeatHint, access.h): the one consumer of a worker's records that
 * costs shared records, as a call (repeat: TRUE when it took the record
 * named by ms_repeat_hint as a repeat, having kept what it added; FALSE:
 * hand the record on as usual), and the filters' word that they would pass
 * it straight on unchanged, as counters that must all be 0 at the time
 * (held: a regrouping's groups held; NULL entries are none).  A filter
 * passes its inner sinks' shortcut on (adding its own counter) only where
 * a record it passes straight on changes nothing in it. */
#define MS_REPEAT_HELD 2
typedef struct {
  gboolean (*repeat) (gpointer state, const void *record);
  gpointer state;
  const guint *held[MS_REPEAT_HELD];
} MsRepeatShortcut;

typedef struct {
  gpointer (*worker_new) (gpointer user);
  void (*access) (gpointer worker, const MsWarpAccess *a);
  void (*worker_done) (gpointer user, gpointer worker);
  void (*ordered) (gpointer user, const MsWarpAccess *a);
  gpointer user;
  /* TRUE: the sink wants the producer's source-level records even where a
   * filter regroups them into the compiler's instructions for the other
   * sinks (regroup.h; the GPU address-trace comparison, whose GPU side is
   * recorded per source access). */
  gboolean source_level;
  /* The memory spaces (bits 1 << MsSpace) whose records the ordered part
   * has no use for (the models' run: the spaces no stateful model costs;
   * 0, the default: every record counts).  A producer may leave such a
   * record out of the ordered stream (ms_sinks_ordered_skips). */
  guint ordered_skips;
  /* Optional (NULL: none): fills *sc with the worker state's shortcut for
   * repeated shared records (MsRepeatShortcut above); FALSE: none. */
  gboolean (*shortcut) (gpointer worker, MsRepeatShortcut *sc);
} MsStreamSink;

#define MS_MAX_SINKS 4

/* A set of sinks a producer drives (the CLI composes it). */
typedef struct {
  const MsStreamSink *sink[MS_MAX_SINKS];
  guint n;
} MsSinks;

/* Adds a sink (at most MS_MAX_SINKS; FALSE when full). */
gboolean ms_sinks_add (MsSinks *sinks, const MsStreamSink *sink);
gboolean ms_sinks_ordered (const MsSinks *sinks);
/* Whether some sink has a parallel part (a filter in front of them needs
 * one too). */
gboolean ms_sinks_parallel (const MsSinks *sinks);

/* The spaces no sink's ordered part uses (a sink without one uses none).
 * A filter's ordered part sees the records its parallel part saw: one
 * whose ordered state a skipped record would change (a regrouping holding
 * records, regroup.c) says so on its parallel side, through
 * ms_ordered_keep, and the producer then hands that record on after all:
 *
 *   ms_ordered_keep = FALSE;
 *   ms_sink_worker_access (w, a);
 *   if (!(skips >> a->space & 1) || ms_ordered_keep)
 *     (the ordered stream gets a)
 *
 * Shared accesses are most of a reduction's records and the models' run
 * costs none of them in order: the cache model is for global memory. */
guint ms_sinks_ordered_skips (const MsSinks *sinks);
extern __thread gboolean ms_ordered_keep;

/* Per-worker side of a set of sinks, for producers.  The sinks that have
 * a parallel part are also listed apart, their call and state side by
 * side (set by ms_sink_worker_begin): one load a sink a record, not
 * three dependent ones. */
typedef struct {
  const MsSinks *sinks;
  gpointer state[MS_MAX_SINKS];
  guint n_access;
  void (*access[MS_MAX_SINKS]) (gpointer state, const MsWarpAccess *a);
  gpointer access_state[MS_MAX_SINKS];
} MsSinkWorker;

void ms_sink_worker_begin (MsSinkWorker *w, const MsSinks *sinks);
/* Hands the record to every sink's parallel part. */
static inline void
ms_sink_worker_access (MsSinkWorker *w, const MsWarpAccess *a)
{
  for (guint i = 0; i < w->n_access; i++)
    w->access[i] (w->access_state[i], a);
}
/* worker_done for every sink (call serially). */
void ms_sink_worker_end (MsSinkWorker *w);

/* The shortcut of a worker's sinks (MsRepeatShortcut): there is one when
 * exactly one sink has a parallel part and it gives one. */
gboolean ms_sink_worker_shortcut (MsSinkWorker *w, MsRepeatShortcut *sc);

/* Whether sc may be taken now: none of its filters holds anything. */
static inline gboolean
ms_repeat_shortcut_open (const MsRepeatShortcut *sc)
{
  for (guint i = 0; i < MS_REPEAT_HELD; i++)
    if (sc->held[i] != NULL && *sc->held[i] != 0)
      return FALSE;
  return sc->repeat != NULL;
}
/* Hands the record to every sink's ordered part (call in stream order).
 * (Inline, as the parallel part: each filter of a chain hands every
 * record on through it.) */
static inline void
ms_sinks_ordered_access (const MsSinks *sinks, const MsWarpAccess *a)
{
  for (guint i = 0; i < sinks->n; i++)
    if (sinks->sink[i]->ordered)
      sinks->sink[i]->ordered (sinks->sink[i]->user, a);
}

/* ---- block reordering, for producers that run blocks in parallel ----
 *
 * The worker running the lowest undelivered block (the head) hands its
 * records to the ordered sinks (through a deliverer thread of the order's
 * own, in chunks, where the host has more than one core); the others keep theirs in a buffer
 * per block (ms_stream_order_emit) and submit it when the block is done;
 * whoever completes the head delivers the buffered blocks that follow, in
 * ascending block order.  Memory stays bounded whatever the grid: a worker
 * about to start block b first waits until b is within `window` blocks of
 * the head, and a buffer that reaches MS_STREAM_ORDER_BUFFER_BYTES makes
 * its worker wait, mid-block, until its block is the head.  The head never
 * waits, so this cannot deadlock as long as blocks are claimed in order. */
typedef struct MsStreamOrder MsStreamOrder;

/* spin: each worker has a core of its own (no more workers than cores),
 * so a short busy wait for the head or the lock costs no other work. */
MsStreamOrder *ms_stream_order_new (const MsSinks *sinks, guint64 first_block, guint window,
                                    gboolean spin);
void ms_stream_order_free (MsStreamOrder *o);
/* Returns when every record handed over so far has reached the sinks (the
 * deliverer's queue is empty): before their results are read. */
void ms_stream_order_drain (MsStreamOrder *o);
/* Waits until block may start; FALSE if it will not be delivered (see
 * ms_stream_order_stop_at). */
gboolean ms_stream_order_wait (MsStreamOrder *o, guint64 block);
/* The bytes a block's buffer may hold before its worker waits (below). */
#define MS_STREAM_ORDER_BUFFER_BYTES (16u << 20)
/* A block's buffer of records for ms_stream_order_emit and _submit: a
 * GArray of bytes, each record and the producer's stride word on it
 * (ms_stride_hint, access.h), given again when the record is delivered
 * from the buffer.  A record whose lanes are one stride apart is kept as
 * its first active lane's address and the stride (48 bytes, not 300), so
 * the records the deliverer reads from another core's buffer are few
 * cache lines. */
GArray *ms_stream_order_buffer_new (void);
/* One record of block (the caller runs it; buf, made by
 * ms_stream_order_buffer_new, is its buffer): to the sinks now if block
 * is the head, else into buf. */
void ms_stream_order_emit (MsStreamOrder *o, guint64 block, GArray *buf, const MsWarpAccess *a);
/* Hands over the block's remaining records, *records (its buffer).  If
 * they can go to the sinks at once (the block is the head and nobody else
 * is delivering), the array is left to the caller, emptied, for its next
 * block; otherwise it is taken (*records NULL). */
void ms_stream_order_submit (MsStreamOrder *o, guint64 block, GArray **records);
/* After block failed: blocks from it on are neither waited for nor
 * delivered; the blocks before it still are (so the first error of the
 * grid can be found whatever the thread count). */
void ms_stream_order_stop_at (MsStreamOrder *o, guint64 block);

G_END_DECLS
