/* replay.c - see replay.h.  Batches of BATCH records travel from the reader
 * to the workers through one queue and come back through another, so at
 * most 2 x workers batches exist at a time: constant memory. */
#include "config.h"
#include "replay.h"

#define BATCH 4096

typedef struct {
  MsWarpAccess rec[BATCH];
  guint n;
} Batch;

typedef struct {
  const MsSinks *sinks;
  GAsyncQueue *full, *empty;
} Shared;

static gpointer
worker_main (gpointer data)
{
  Shared *sh = data;
  MsSinkWorker w;
  ms_sink_worker_begin (&w, sh->sinks);
  for (;;)
    {
      Batch *b = g_async_queue_pop (sh->full);
      if (b->n == 0)
        {
          g_async_queue_push (sh->empty, b);   /* the stop marker goes back too */
          break;
        }
      for (guint i = 0; i < b->n; i++)
        ms_sink_worker_access (&w, &b->rec[i]);
      g_async_queue_push (sh->empty, b);
    }
  /* returns the worker's state: ended in thread order by the caller */
  MsSinkWorker *out = g_new (MsSinkWorker, 1);
  *out = w;
  return out;
}

gboolean
ms_trace_replay (MsTraceSource *src, const MsSinks *sinks, guint threads, guint64 *records,
                 GError **error)
{
  guint n_workers = threads ? threads : g_get_num_processors ();
  n_workers = CLAMP (n_workers, 1, 256);
  Shared sh = { sinks, g_async_queue_new (), g_async_queue_new () };
  GThread **workers = g_new0 (GThread *, n_workers);
  for (guint i = 0; i < 2 * n_workers; i++)
    g_async_queue_push (sh.empty, g_new (Batch, 1));
  for (guint i = 0; i < n_workers; i++)
    workers[i] = g_thread_new ("memsim-replay", worker_main, &sh);

  gboolean ordered = ms_sinks_ordered (sinks);
  guint64 count = 0;
  GError *e = NULL;
  Batch *b = g_async_queue_pop (sh.empty);
  b->n = 0;
  while (src->next (src, &b->rec[b->n], &e))
    {
      if (ordered)
        ms_sinks_ordered_access (sinks, &b->rec[b->n]);
      count++;
      if (++b->n == BATCH)
        {
          g_async_queue_push (sh.full, b);
          b = g_async_queue_pop (sh.empty);
          b->n = 0;
        }
    }
  if (b->n > 0)
    {
      g_async_queue_push (sh.full, b);
      b = g_async_queue_pop (sh.empty);
    }
  g_free (b);
  /* one empty batch per worker stops it */
  for (guint i = 0; i < n_workers; i++)
    {
      Batch *stop = g_async_queue_pop (sh.empty);
      stop->n = 0;
      g_async_queue_push (sh.full, stop);
    }
  for (guint i = 0; i < n_workers; i++)
    {
      MsSinkWorker *w = g_thread_join (workers[i]);
      ms_sink_worker_end (w);
      g_free (w);
    }
  Batch *left;
  while ((left = g_async_queue_try_pop (sh.empty)))
    g_free (left);
  g_async_queue_unref (sh.full);
  g_async_queue_unref (sh.empty);
  g_free (workers);
  if (e != NULL)
    {
      g_propagate_error (error, e);
      return FALSE;
    }
  if (records)
    *records = count;
  return TRUE;
}

gboolean
ms_trace_replay_models (MsTraceSource *src, const MsArch *arch, guint threads, const MsSinks *extra,
                MsStats **stats, double *seconds, GError **error)
{
  const MsRunInfo *info = src->info (src);
  g_autoptr (MsModelRun) run =
    ms_model_run_new (arch, ms_run_info_threads_per_block (info), error);
  if (run == NULL)
    return FALSE;
  ms_model_run_set_host_memory (run, info->n_buffers, info->buffer_base, info->buffer_bytes,
                                info->buffer_host);
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, ms_model_run_sink (run));
  for (guint i = 0; extra && i < extra->n; i++)
    ms_sinks_add (&sinks, extra->sink[i]);
  gint64 t0 = g_get_monotonic_time ();
  if (!ms_trace_replay (src, &sinks, threads, NULL, error))
    return FALSE;
  if (seconds)
    *seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  *stats = ms_model_run_finish (run, ms_run_info_blocks (info));
  return TRUE;
}
