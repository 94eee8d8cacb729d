/* regroup.c - merging source-level records into the compiler's wider
 * instructions (see regroup.h for the rule and its assumptions). */
#include "config.h"
#include "regroup.h"

#include <string.h>

/* Warps of a block (1024 threads) and groups held at once per warp (sites
 * of one warp waiting for their next part, e.g. As and Bs of one line). */
#define MAX_WARPS 32
#define SLOTS 4

typedef struct {
  gboolean used;
  guint count;          /* records held: first, first + width, ... */
  guint fuse;
  MsWarpAccess first;
} Group;

typedef void (*EmitFn) (gpointer ctx, const MsWarpAccess *a);

typedef struct {
  MsRegroup *r;
  EmitFn emit;
  gpointer ctx;
  gboolean any;
  guint32 block;
  guint64 merged;
  Group g[MAX_WARPS][SLOTS];
} State;

typedef struct {
  State st;
  MsSinkWorker inner;
} Worker;

struct MsRegroup {
  const MsSinks *inner;
  MsFuseFn fuse;
  gpointer data;
  gint cache[MS_MAX_SITES];   /* fuse factor + 1 per site id; 0: not asked yet */
  MsStreamSink sink;
  State *ordered;
  guint64 merged;             /* atomically added by the parallel workers */
};

static guint
site_fuse (MsRegroup *r, const MsWarpAccess *a)
{
  int id = a->site->id;
  if (id < 0 || id >= MS_MAX_SITES)
    return 1;
  gint v = g_atomic_int_get (&r->cache[id]);
  if (v == 0)
    {
      guint f = r->fuse ? r->fuse (r->data, a) : 1;
      v = (gint) (f == 0 ? 1 : f) + 1;
      g_atomic_int_set (&r->cache[id], v);
    }
  return (guint) v - 1;
}

/* The group's records as they came, unmerged. */
static void
release (State *s, Group *g)
{
  MsWarpAccess a = g->first;
  for (guint i = 0; i < g->count; i++)
    {
      if (i > 0)
        for (guint32 m = a.mask; m; m &= m - 1)
          a.addr[__builtin_ctz (m)] += a.width;
      s->emit (s->ctx, &a);
    }
  g->used = FALSE;
}

static void
flush_all (State *s)
{
  for (guint w = 0; w < MAX_WARPS; w++)
    for (guint k = 0; k < SLOTS; k++)
      if (s->g[w][k].used)
        release (s, &s->g[w][k]);
  s->any = FALSE;
}

static gboolean
continues (const Group *g, const MsWarpAccess *a)
{
  const MsWarpAccess *f = &g->first;
  if (a->op != f->op || a->width != f->width || a->mask != f->mask)
    return FALSE;
  guint64 step = (guint64) g->count * f->width;
  for (guint32 m = a->mask; m; m &= m - 1)
    {
      int l = __builtin_ctz (m);
      if (a->addr[l] != f->addr[l] + step)
        return FALSE;
    }
  return TRUE;
}

static gboolean
aligned (const MsWarpAccess *a, guint bytes)
{
  if (a->mask == 0)
    return FALSE;
  for (guint32 m = a->mask; m; m &= m - 1)
    if (a->addr[__builtin_ctz (m)] % bytes != 0)
      return FALSE;
  return TRUE;
}

static void
process (State *s, const MsWarpAccess *a)
{
  if (s->any && a->block != s->block)
    flush_all (s);
  s->any = TRUE;
  s->block = a->block;
  guint fuse = a->op == MS_OP_ATOMIC || a->warp >= MAX_WARPS ? 1 : site_fuse (s->r, a);
  if (fuse <= 1)
    {
      s->emit (s->ctx, a);
      return;
    }
  Group *slots = s->g[a->warp];
  for (guint k = 0; k < SLOTS; k++)
    {
      Group *g = &slots[k];
      if (!g->used || g->first.site != a->site || g->first.space != a->space)
        continue;
      if (continues (g, a))
        {
          if (++g->count == g->fuse)
            {
              MsWarpAccess m = g->first;
              m.width = (guint8) (m.width * g->fuse);
              g->used = FALSE;
              s->merged += g->fuse - 1;
              s->emit (s->ctx, &m);
            }
          return;
        }
      release (s, g);
      break;
    }
  if (!aligned (a, fuse * a->width))
    {
      s->emit (s->ctx, a);
      return;
    }
  Group *free_slot = NULL;
  for (guint k = 0; k < SLOTS && free_slot == NULL; k++)
    if (!slots[k].used)
      free_slot = &slots[k];
  if (free_slot == NULL)
    {
      free_slot = &slots[0];
      release (s, free_slot);
    }
  free_slot->used = TRUE;
  free_slot->count = 1;
  free_slot->fuse = fuse;
  free_slot->first = *a;
}

/* ---- the sink's two parts ---- */

static void
emit_parallel (gpointer ctx, const MsWarpAccess *a)
{
  ms_sink_worker_access (ctx, a);
}

static void
emit_ordered (gpointer ctx, const MsWarpAccess *a)
{
  ms_sinks_ordered_access (ctx, a);
}

static gpointer
worker_new (gpointer user)
{
  MsRegroup *r = user;
  Worker *w = g_new0 (Worker, 1);
  w->st.r = r;
  w->st.emit = emit_parallel;
  w->st.ctx = &w->inner;
  ms_sink_worker_begin (&w->inner, r->inner);
  return w;
}

static void
worker_access (gpointer worker, const MsWarpAccess *a)
{
  process (&((Worker *) worker)->st, a);
}

static void
worker_done (gpointer user, gpointer worker)
{
  MsRegroup *r = user;
  Worker *w = worker;
  flush_all (&w->st);
  r->merged += w->st.merged;   /* worker_done is called serially */
  ms_sink_worker_end (&w->inner);
  g_free (w);
}

static void
ordered_access (gpointer user, const MsWarpAccess *a)
{
  process (((MsRegroup *) user)->ordered, a);
}

static gboolean
inner_parallel (const MsSinks *sinks)
{
  for (guint i = 0; i < sinks->n; i++)
    if (sinks->sink[i]->access || sinks->sink[i]->worker_new || sinks->sink[i]->worker_done)
      return TRUE;
  return FALSE;
}

MsRegroup *
ms_regroup_new (const MsSinks *inner, MsFuseFn fuse, gpointer data)
{
  MsRegroup *r = g_new0 (MsRegroup, 1);
  r->inner = inner;
  r->fuse = fuse;
  r->data = data;
  r->sink.user = r;
  if (inner_parallel (inner))
    {
      r->sink.worker_new = worker_new;
      r->sink.access = worker_access;
      r->sink.worker_done = worker_done;
    }
  if (ms_sinks_ordered (inner))
    {
      r->ordered = g_new0 (State, 1);
      r->ordered->r = r;
      r->ordered->emit = emit_ordered;
      r->ordered->ctx = (gpointer) inner;
      r->sink.ordered = ordered_access;
    }
  return r;
}

void
ms_regroup_free (MsRegroup *r)
{
  if (r == NULL)
    return;
  g_free (r->ordered);
  g_free (r);
}

const MsStreamSink *
ms_regroup_sink (MsRegroup *r)
{
  return &r->sink;
}

void
ms_regroup_finish (MsRegroup *r)
{
  if (r->ordered)
    flush_all (r->ordered);
}

guint64
ms_regroup_merged (const MsRegroup *r)
{
  return r->merged;
}
