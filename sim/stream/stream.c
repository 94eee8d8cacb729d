/* stream.c - sink sets and block reordering (see stream.h). */
#include "config.h"
#include "stream.h"

#include <stddef.h>
#include <string.h>

gboolean
ms_sinks_add (MsSinks *sinks, const MsStreamSink *sink)
{
  if (sinks->n >= MS_MAX_SINKS)
    return FALSE;
  sinks->sink[sinks->n++] = sink;
  return TRUE;
}

__thread gboolean ms_ordered_keep;

guint
ms_sinks_ordered_skips (const MsSinks *sinks)
{
  guint skips = (1u << MS_N_SPACES) - 1;
  for (guint i = 0; sinks && i < sinks->n; i++)
    if (sinks->sink[i]->ordered)
      skips &= sinks->sink[i]->ordered_skips;
  return skips;
}

gboolean
ms_sinks_parallel (const MsSinks *sinks)
{
  for (guint i = 0; sinks && i < sinks->n; i++)
    if (sinks->sink[i]->access || sinks->sink[i]->worker_new || sinks->sink[i]->worker_done)
      return TRUE;
  return FALSE;
}

gboolean
ms_sinks_ordered (const MsSinks *sinks)
{
  for (guint i = 0; sinks && i < sinks->n; i++)
    if (sinks->sink[i]->ordered)
      return TRUE;
  return FALSE;
}

void
ms_sink_worker_begin (MsSinkWorker *w, const MsSinks *sinks)
{
  w->sinks = sinks;
  w->n_access = 0;
  for (guint i = 0; i < sinks->n; i++)
    {
      const MsStreamSink *s = sinks->sink[i];
      w->state[i] = s->worker_new ? s->worker_new (s->user) : NULL;
      if (s->access)
        {
          w->access[w->n_access] = s->access;
          w->access_state[w->n_access++] = w->state[i];
        }
    }
}

void
ms_sink_worker_end (MsSinkWorker *w)
{
  for (guint i = 0; i < w->sinks->n; i++)
    {
      const MsStreamSink *s = w->sinks->sink[i];
      if (s->worker_done)
        s->worker_done (s->user, w->state[i]);
      w->state[i] = NULL;
    }
}

gboolean
ms_sink_worker_shortcut (MsSinkWorker *w, MsRepeatShortcut *sc)
{
  memset (sc, 0, sizeof *sc);
  const MsStreamSink *only = NULL;
  gpointer state = NULL;
  for (guint i = 0; i < w->sinks->n; i++)
    {
      const MsStreamSink *s = w->sinks->sink[i];
      if (!(s->access || s->worker_new || s->worker_done))
        continue;   /* no parallel part: no use for the record here */
      if (only != NULL)
        return FALSE;
      only = s;
      state = w->state[i];
    }
  if (only == NULL || only->shortcut == NULL || !only->shortcut (state, sc))
    {
      memset (sc, 0, sizeof *sc);
      return FALSE;
    }
  return TRUE;
}

#define SPIN_US 50   /* the longest busy wait for the window (lock: 256 tries) */

struct MsStreamOrder {
  const MsSinks *sinks;
  GMutex lock;
  GCond cond;
  guint64 next;          /* next block to deliver */
  guint window;
  GHashTable *done;      /* block -> GArray, finished but not delivered */
  gboolean delivering;   /* a worker is delivering (outside the lock) */
  guint64 limit;         /* blocks from this one on are not delivered */
  gboolean spin;         /* each worker has a core: wait busily first */
  guint waiters;         /* workers in g_cond_wait: GLib's broadcast is a
                            futex system call even when nobody waits, and
                            it came once a block (strace, reduce_shfl 2^22,
                            one thread: 16,391 calls) */
  /* The deliverer: a thread of its own that hands the records to the
   * ordered sinks, chunk after chunk, in the order the chunks were queued
   * (NULL: the workers deliver themselves).  The ordered models (the L2)
   * then run beside the emulator instead of after it on the same thread:
   * a grid of a few long blocks had one worker running, the other waiting
   * for its turn (perf, PolyBench's correlation: the cache model 35% of
   * a run that used one core of two). */
  GThread *deliverer;
  GAsyncQueue *full;     /* chunks to deliver (buffers: ms_stream_order_buffer_new) */
  GAsyncQueue *empty;    /* chunks to fill: DELIVERER_CHUNKS bound the memory */
  GAsyncQueue *drained;  /* the deliverer's answer to drain_marker */
  /* Only a long block's records go through it (short blocks' records on
   * two workers: the queue's copies cost more than they free, reduce_shfl
   * 2^24 1.1 -> 1.7 s): the head's count so far, and whether records
   * may be in the queue still (a delivery on the spot waits for them). */
  guint64 head_block, head_records;
  gboolean queued;
  GArray *filling;       /* the chunk a long head block's records are written
                            into, not yet queued (or NULL): its owner is who
                            delivers, one at a time in the stream order */
  gboolean may_deliver;  /* the host has a core for it */
  guint64 long_block;    /* LONG_BLOCK, or MEMSIM_DELIVER_AFTER's */
};

/* A buffered record: the producer's stride word and the record, whose
 * addresses are cut to the first active lane's where the word says the
 * lanes are one stride apart (STRIDED_BYTES of the entry are kept). */
typedef struct {
  guint32 bytes;      /* of this entry: STRIDED_BYTES (strided) or sizeof (Entry) */
  guint64 stride;
  MsWarpAccess a;     /* strided: a.addr[0] is the first active lane's */
} Entry;
#define STRIDED_BYTES (offsetof (Entry, a.addr) + sizeof (guint64))

/* A chunk's bytes, and how many chunks there are (8 MiB in all: some
 * 170 000 records of one stride, 28 000 of others) */
#define CHUNK_BYTES (256u << 10)
#define DELIVERER_CHUNKS 32
#define LONG_BLOCK 65536   /* a block's records before the deliverer takes them */
static char drain_marker, quit_marker;

static void deliver_buffer (MsStreamOrder *o, GArray *buf);

static gpointer
deliverer_main (gpointer data)
{
  MsStreamOrder *o = data;
  for (;;)
    {
      gpointer chunk = g_async_queue_pop (o->full);
      if (chunk == &quit_marker)
        return NULL;
      if (chunk == &drain_marker)
        g_async_queue_push (o->drained, chunk);
      else
        {
          deliver_buffer (o, chunk);
          g_async_queue_push (o->empty, chunk);
        }
    }
}

MsStreamOrder *
ms_stream_order_new (const MsSinks *sinks, guint64 first_block, guint window, gboolean spin)
{
  MsStreamOrder *o = g_new0 (MsStreamOrder, 1);
  o->sinks = sinks;
  o->spin = spin;
  o->next = first_block;
  o->window = MAX (window, 1);
  o->limit = G_MAXUINT64;
  g_mutex_init (&o->lock);
  g_cond_init (&o->cond);
  o->done = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free,
                                   (GDestroyNotify) g_array_unref);
  /* MEMSIM_DELIVER_AFTER=N: the deliverer takes a head block's records
   * after N of them (0: all; "never": none), for the tests that compare */
  const char *after = g_getenv ("MEMSIM_DELIVER_AFTER");
  o->may_deliver = g_get_num_processors () > 1 && g_strcmp0 (after, "never") != 0;
  o->long_block = after != NULL ? g_ascii_strtoull (after, NULL, 10) : LONG_BLOCK;
  return o;
}

/* The deliverer, made when the first long block needs it. */
static void
deliverer_start (MsStreamOrder *o)
{
  o->full = g_async_queue_new ();
  o->empty = g_async_queue_new ();
  o->drained = g_async_queue_new ();
  for (guint i = 0; i < DELIVERER_CHUNKS; i++)
    g_async_queue_push (o->empty, g_array_sized_new (FALSE, FALSE, 1, CHUNK_BYTES + sizeof (Entry)));
  o->deliverer = g_thread_new ("memsim-deliver", deliverer_main, o);
}

/* Queues the chunk being filled, if any: what comes after it goes behind. */
static void
queue_filling (MsStreamOrder *o)
{
  if (o->filling != NULL)
    g_async_queue_push (o->full, g_steal_pointer (&o->filling));
}

void
ms_stream_order_drain (MsStreamOrder *o)
{
  if (o == NULL || o->deliverer == NULL)
    return;
  queue_filling (o);
  g_async_queue_push (o->full, &drain_marker);
  g_async_queue_pop (o->drained);
  o->queued = FALSE;
}

void
ms_stream_order_free (MsStreamOrder *o)
{
  if (o == NULL)
    return;
  if (o->deliverer != NULL)
    {
      ms_stream_order_drain (o);
      g_async_queue_push (o->full, &quit_marker);
      g_thread_join (o->deliverer);
      for (GArray *chunk; (chunk = g_async_queue_try_pop (o->empty)) != NULL;)
        g_array_unref (chunk);
      g_async_queue_unref (o->full);
      g_async_queue_unref (o->empty);
      g_async_queue_unref (o->drained);
    }
  g_hash_table_destroy (o->done);
  g_mutex_clear (&o->lock);
  g_cond_clear (&o->cond);
  g_free (o);
}

/* The head block: every block before it has been delivered. */
static inline guint64
head (MsStreamOrder *o)
{
  return __atomic_load_n (&o->next, __ATOMIC_ACQUIRE);
}

/* A busy wait's pause: a hint to the core, where the host has one. */
static inline void
spin_pause (void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause ();
#endif
}

/* The lock.  Where each worker has a core, a few tries first: it is held
 * for a hash table step or a flag, and a contended GMutex sleeps in the
 * kernel (perf, reduce_shfl 2^23 on two threads: a fifth of the time in
 * the scheduler's switch and wake paths). */
static void
lock (MsStreamOrder *o)
{
  if (o->spin)
    for (guint i = 0; i < 256; i++)
      {
        if (g_mutex_trylock (&o->lock))
          return;
        spin_pause ();
      }
  g_mutex_lock (&o->lock);
}

/* Waits on the condition, the lock held, counted in waiters. */
static void
wait_locked (MsStreamOrder *o)
{
  o->waiters++;
  g_cond_wait (&o->cond, &o->lock);
  o->waiters--;
}

/* After next or limit moved, the lock held: wakes the waiters, if any. */
static void
wake_locked (MsStreamOrder *o)
{
  if (o->waiters > 0)
    g_cond_broadcast (&o->cond);
}

gboolean
ms_stream_order_wait (MsStreamOrder *o, guint64 block)
{
  /* the usual case, without the lock: the block is within the window
   * (next only grows, and a block at or past the limit is dropped at
   * submit, so a stale read costs at most a block run for nothing) */
  if (block < __atomic_load_n (&o->limit, __ATOMIC_RELAXED) && block < head (o) + o->window)
    return TRUE;
  /* Where each worker has a core, the head is some block's time away
   * (microseconds for a reduction's blocks): a busy wait of up to
   * SPIN_US, before the sleep whose wake-up costs more than that */
  if (o->spin)
    {
      gint64 until = g_get_monotonic_time () + SPIN_US;
      for (guint i = 1;; i++)
        {
          spin_pause ();
          if (block >= __atomic_load_n (&o->limit, __ATOMIC_RELAXED))
            return FALSE;
          if (block < head (o) + o->window)
            return TRUE;
          if (i % 64 == 0 && g_get_monotonic_time () > until)
            break;
        }
    }
  lock (o);
  while (block < o->limit && block >= o->next + o->window)
    wait_locked (o);
  gboolean ok = block < o->limit;
  g_mutex_unlock (&o->lock);
  return ok;
}

GArray *
ms_stream_order_buffer_new (void)
{
  return g_array_new (FALSE, FALSE, 1);
}

/* Hands the records of a block's buffer to the sinks, in order, each
 * with its producer's stride word (a strided one's lanes made again,
 * here, from its first address: 32 stores to a record in the L1, where
 * the full record's were 5 host cache lines from another core's buffer);
 * empties the buffer. */
static void
deliver_buffer (MsStreamOrder *o, GArray *buf)
{
  MsWarpAccess lanes;
  for (guint i = 0; i < buf->len;)
    {
      const Entry *e = (const Entry *) (buf->data + i);
      i += e->bytes;
      if (e->bytes != STRIDED_BYTES)
        {
          ms_sinks_ordered_access (o->sinks, &e->a);
          continue;
        }
      memcpy (&lanes, &e->a, offsetof (MsWarpAccess, addr));
      guint64 addr = e->a.addr[0];
      for (guint l = 0; l < MS_WARP_SIZE; l++, addr += e->stride)
        lanes.addr[l] = addr;
      ms_stride_hint = (MsStrideHint) { &lanes, e->stride };
      ms_sinks_ordered_access (o->sinks, &lanes);
      ms_stride_hint.record = NULL;
    }
  g_array_set_size (buf, 0);
}

/* Delivers a buffer's records (empties it): queued for the deliverer in
 * chunks behind those queued already, or at once where none are.  Calls
 * come one at a time, in the stream order (the head's, then whoever
 * delivers the blocks after it), so the queue's order is the stream order. */
static void
hand_off (MsStreamOrder *o, GArray *buf)
{
  if (!o->queued)
    {
      deliver_buffer (o, buf);
      return;
    }
  queue_filling (o);
  for (guint i = 0; i < buf->len;)
    {
      /* whole entries, up to a chunk's bytes */
      guint end = i;
      while (end < buf->len && end - i < CHUNK_BYTES)
        end += ((const Entry *) (buf->data + end))->bytes;
      GArray *chunk = g_async_queue_pop (o->empty);   /* waits while all are full */
      g_array_append_vals (chunk, buf->data + i, end - i);
      g_async_queue_push (o->full, chunk);
      i = end;
    }
  g_array_set_size (buf, 0);
}

/* (written in place: a copy through the stack was a second memmove of
 * each record) */
static inline void
buffer_record (GArray *buf, const MsWarpAccess *a)
{
  guint64 stride;
  gboolean strided = ms_access_strided (a, &stride);
  guint bytes = strided ? STRIDED_BYTES : sizeof (Entry);
  guint at = buf->len;
  g_array_set_size (buf, at + bytes);
  Entry *e = (Entry *) (buf->data + at);
  e->bytes = bytes;
  if (!strided)
    {
      memcpy (&e->a, a, sizeof e->a);
      return;
    }
  e->stride = stride;
  memcpy (&e->a, a, offsetof (MsWarpAccess, addr));
  /* stride 0 may be a partial warp's: its lanes' one address */
  e->a.addr[0] = ms_access_first_addr (a);
}

void
ms_stream_order_emit (MsStreamOrder *o, guint64 block, GArray *buf, const MsWarpAccess *a)
{
  if (head (o) != block)
    {
      buffer_record (buf, a);
      if (buf->len < MS_STREAM_ORDER_BUFFER_BYTES)
        return;
      /* a long block: wait for its turn instead of buffering without end */
      lock (o);
      while (o->next != block && block < o->limit)
        wait_locked (o);
      gboolean stopped = block >= o->limit;
      g_mutex_unlock (&o->lock);
      if (stopped)
        {
          g_array_set_size (buf, 0);   /* an earlier block failed: nobody wants these */
          return;
        }
      hand_off (o, buf);
      return;
    }
  if (G_UNLIKELY (block != o->head_block))
    {
      o->head_block = block;
      o->head_records = 0;
    }
  if (o->may_deliver && G_UNLIKELY (++o->head_records > o->long_block))
    {
      /* a long head block: into the buffer, whole chunks to the deliverer */
      if (o->deliverer == NULL)
        deliverer_start (o);
      o->queued = TRUE;
      if (G_UNLIKELY (buf->len > 0))
        hand_off (o, buf);   /* what it buffered before it was the head */
      /* into a chunk, not the buffer and then a chunk: one copy less */
      if (o->filling == NULL)
        o->filling = g_async_queue_pop (o->empty);   /* waits while all are full */
      buffer_record (o->filling, a);
      if (o->filling->len >= CHUNK_BYTES)
        queue_filling (o);
      return;
    }
  /* the records of the long block before this one reach the sinks first */
  if (G_UNLIKELY (o->queued))
    ms_stream_order_drain (o);
  /* the head: what it buffered before it became the head goes first (a
   * test, not a call, in the usual case of nothing buffered) */
  if (G_UNLIKELY (buf->len > 0))
    deliver_buffer (o, buf);
  ms_sinks_ordered_access (o->sinks, a);
}

void
ms_stream_order_submit (MsStreamOrder *o, guint64 block, GArray **records)
{
  lock (o);
  if (block >= o->limit)
    {
      g_mutex_unlock (&o->lock);
      g_array_set_size (*records, 0);
      return;
    }
  /* The head, with nobody delivering: its records go now, from the
   * caller's array (kept, for its next block).  Otherwise the array waits
   * in done for whoever delivers. */
  GArray *kept = NULL;
  if (block == o->next && !o->delivering)
    kept = *records;
  else
    g_hash_table_insert (o->done, g_memdup2 (&block, sizeof block), g_steal_pointer (records));
  while (!o->delivering && o->next < o->limit)
    {
      GArray *ready = NULL;
      if (kept != NULL && o->next == block)
        ready = kept;
      else
        {
          gpointer key = NULL, ready_p = NULL;
          if (g_hash_table_size (o->done) == 0
              || !g_hash_table_steal_extended (o->done, &o->next, &key, &ready_p))
            break;
          g_free (key);
          ready = ready_p;
        }
      o->delivering = TRUE;
      g_mutex_unlock (&o->lock);
      hand_off (o, ready);
      if (ready != kept)
        g_array_unref (ready);
      lock (o);
      o->delivering = FALSE;
      __atomic_store_n (&o->next, o->next + 1, __ATOMIC_RELEASE);
      wake_locked (o);
    }
  g_mutex_unlock (&o->lock);
}

void
ms_stream_order_stop_at (MsStreamOrder *o, guint64 block)
{
  g_mutex_lock (&o->lock);
  __atomic_store_n (&o->limit, MIN (o->limit, block), __ATOMIC_RELAXED);
  wake_locked (o);
  g_mutex_unlock (&o->lock);
}
