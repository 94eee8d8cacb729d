/* reduction.c - global atomics of chosen sites as reductions (see
 * reduction.h). */
#include "config.h"
#include "reduction.h"

struct MsReduction {
  const MsSinks *inner;
  MsReductionFn is_reduction;
  gpointer data;
  GMutex lock;                 /* asking is_reduction() */
  gint answer[MS_MAX_SITES];   /* 0: not asked yet, 1: atomic, 2: reduction */
  MsStreamSink sink;
};

/* filter for a global atomic: a itself, or a copy with the reduction's
 * op in *copy */
static const MsWarpAccess *
filter_atomic (MsReduction *r, const MsWarpAccess *a, MsWarpAccess *copy)
{
  int id = a->site->id;
  if (id < 0 || id >= MS_MAX_SITES)
    return a;
  gint answer = g_atomic_int_get (&r->answer[id]);
  if (answer == 0)
    {
      g_mutex_lock (&r->lock);
      answer = r->is_reduction (r->data, a->site) ? 2 : 1;
      g_atomic_int_set (&r->answer[id], answer);
      g_mutex_unlock (&r->lock);
    }
  if (answer != 2)
    return a;
  *copy = *a;
  copy->op = MS_OP_RED;
  return copy;
}

/* a itself (anything but a global atomic: inline, every record asks), or
 * a copy with the reduction's op in *copy */
static inline const MsWarpAccess *
filter (MsReduction *r, const MsWarpAccess *a, MsWarpAccess *copy)
{
  if (G_LIKELY (a->op != MS_OP_ATOMIC || a->space != MS_SPACE_GLOBAL || a->site == NULL))
    return a;
  return filter_atomic (r, a, copy);
}

typedef struct {
  MsSinkWorker w;
  MsReduction *r;
} Worker;

static gpointer
worker_new (gpointer user)
{
  Worker *w = g_new0 (Worker, 1);
  w->r = user;
  ms_sink_worker_begin (&w->w, w->r->inner);
  return w;
}

static void
access (gpointer worker, const MsWarpAccess *a)
{
  Worker *w = worker;
  MsWarpAccess copy;
  ms_sink_worker_access (&w->w, filter (w->r, a, &copy));
}

static void
worker_done (gpointer user, gpointer worker)
{
  (void) user;
  Worker *w = worker;
  ms_sink_worker_end (&w->w);
  g_free (w);
}

/* shared records pass unchanged: the inner sinks' shortcut is this one's */
static gboolean
shortcut (gpointer worker, MsRepeatShortcut *sc)
{
  return ms_sink_worker_shortcut (&((Worker *) worker)->w, sc);
}

static void
ordered (gpointer user, const MsWarpAccess *a)
{
  MsReduction *r = user;
  MsWarpAccess copy;
  ms_sinks_ordered_access (r->inner, filter (r, a, &copy));
}

MsReduction *
ms_reduction_new (const MsSinks *inner, MsReductionFn is_reduction, gpointer data)
{
  MsReduction *r = g_new0 (MsReduction, 1);
  r->inner = inner;
  r->is_reduction = is_reduction;
  r->data = data;
  g_mutex_init (&r->lock);
  r->sink.user = r;
  if (ms_sinks_parallel (inner))
    {
      r->sink.worker_new = worker_new;
      r->sink.access = access;
      r->sink.worker_done = worker_done;
      r->sink.shortcut = shortcut;
    }
  if (ms_sinks_ordered (inner))
    r->sink.ordered = ordered;
  /* the filter changes an atomic's op, never a record's space, and keeps
   * no state */
  r->sink.ordered_skips = ms_sinks_ordered_skips (inner);
  return r;
}

void
ms_reduction_free (MsReduction *r)
{
  if (r == NULL)
    return;
  g_mutex_clear (&r->lock);
  g_free (r);
}

const MsStreamSink *
ms_reduction_sink (MsReduction *r)
{
  return &r->sink;
}
