/* run.c - runs the model table over a stream of warp accesses (model.h).
 *
 * Per worker: a dense array of MsCounters indexed by site id x space,
 * grown as sites appear; stateless models add into it in parallel.  The
 * stateful models get the ordered stream and add into the run's own
 * array.  finish() sums everything per (site, space) and sorts it for the
 * reports.
 */
#include "config.h"
#include "model.h"

#include <string.h>

typedef struct {
  MsCounters *c;      /* [site id * MS_N_SPACES + space] */
  guint8 *op;         /* MsOp + 1 per slot, 0 = never executed */
  guint8 *width;
  guint n;            /* slots allocated */
} SiteCounters;

struct MsModelRun {
  const MsArch *arch;
  guint64 threads_per_block;
  /* the shared space's stateless models are all of the built-in table,
   * whose costs depend on a record's fields and nothing else: a repeated
   * record (MsRepeatHint) costs what it cost (a plug-in's model may keep
   * state of its own) */
  gboolean shared_repeats;
  MsStreamSink sink;
  GMutex lock;
  SiteCounters total;          /* merged workers + stateful models */
  const MsModel *stateless[MS_N_SPACES][8];
  const MsModel *stateful[8];
  gpointer state[8];
  guint n_stateful;
  /* the same models' calls by space, each beside its state: a record's
   * models found with one load each, not a chain of three (perf) */
  void (*cost[MS_N_SPACES][8]) (const MsArch *arch, const MsWarpAccess *a, guint64 *v);
  void (*ordered_cost[MS_N_SPACES][8]) (gpointer state, const MsArch *arch,
                                         const MsWarpAccess *a, guint64 *v);
  gpointer ordered_state[MS_N_SPACES][8];
  guint n_ordered[MS_N_SPACES];
};

static void
site_counters_grow_to (SiteCounters *s, guint slot)
{
  guint n = MAX (s->n * 2, MAX (slot + 1, 64u * MS_N_SPACES));
  s->c = g_renew (MsCounters, s->c, n);
  s->op = g_renew (guint8, s->op, n);
  s->width = g_renew (guint8, s->width, n);
  memset (s->c + s->n, 0, (n - s->n) * sizeof *s->c);
  memset (s->op + s->n, 0, n - s->n);
  memset (s->width + s->n, 0, n - s->n);
  s->n = n;
}

/* slot's counters made (the common case, a site seen before, inline) */
static inline void
site_counters_grow (SiteCounters *s, guint slot)
{
  if (G_UNLIKELY (slot >= s->n))
    site_counters_grow_to (s, slot);
}

static void
site_counters_clear (SiteCounters *s)
{
  g_free (s->c);
  g_free (s->op);
  g_free (s->width);
  memset (s, 0, sizeof *s);
}

/* The generic counts of one record, into its site's counters. */
static inline MsCounters *
count_record (const MsModelRun *run, SiteCounters *s, const MsWarpAccess *a)
{
  guint slot = (guint) a->site->id * MS_N_SPACES + a->space;
  site_counters_grow (s, slot);
  MsCounters *c = &s->c[slot];
  guint32 mask = ms_warp_lanes (a->mask, run->arch->warp_size);
  guint n_active = ms_lanes_count (mask);
  /* the lanes that exist in this warp: a block's last warp may be short */
  guint64 first = (guint64) a->warp * MS_WARP_SIZE;
  guint64 exist = run->threads_per_block > first ? run->threads_per_block - first : 0;
  guint32 full = exist >= MS_WARP_SIZE ? 0xffffffffu : (1u << exist) - 1u;
  s->op[slot] = (guint8) (a->op + 1);
  s->width[slot] = a->width;
  c->executions++;
  c->async_copies += a->site->async_copy && a->space == MS_SPACE_GLOBAL && a->op == MS_OP_LD;
  c->lanes += n_active;
  c->partial += mask != ms_warp_lanes (full, run->arch->warp_size);
  c->bytes += (guint64) n_active * a->width;
  return c;
}

/* What a shared record added, kept under its producer's serial at its
 * position in its block (MsRepeatHint, access.h): a block that repeats the
 * one before adds it again, without the bank model's work (callgrind,
 * reduce_interleaved: the run and the bank model were a fifth of the
 * instructions, nearly all of it on records of repeated blocks). */
typedef struct {
  guint64 serial;               /* 0: nothing kept */
  guint slot;
  guint lanes, partial;
  guint64 bytes;
  guint32 vmask;                /* the slots of v the models added to (a few:
                                   the bank model's three) */
  guint64 v[MS_COUNTER_SLOTS];
} Repeat;

/* positions kept (a block's shared records past it are worked out each
 * time: MAX_EVENTS of racememo.c) */
#define REPEAT_MAX 65536

typedef struct {
  MsModelRun *run;
  SiteCounters s;
  Repeat *rep;                  /* [pos], n_rep of them */
  guint n_rep;
} Worker;

static gpointer
worker_new (gpointer user)
{
  Worker *w = g_new0 (Worker, 1);
  w->run = user;
  return w;
}

/* A shared record its producer has named (ms_repeat_hint) and this worker
 * has not kept: worked out, and kept under its serial at its position
 * (out of line: the repeat's path in worker_access stays small). */
static G_NO_INLINE void
repeat_keep (Worker *w, const MsWarpAccess *a, const MsRepeatHint *hint)
{
  MsModelRun *run = w->run;
  guint pos = hint->pos;
  guint64 serial = hint->serial;
  guint slot = (guint) a->site->id * MS_N_SPACES + MS_SPACE_SHARED;
  site_counters_grow (&w->s, slot);
  MsCounters before = w->s.c[slot];
  MsCounters *c = count_record (run, &w->s, a);
  for (const MsModel *const *m = run->stateless[MS_SPACE_SHARED]; *m; m++)
    (*m)->cost (run->arch, a, c->v);
  if (pos >= REPEAT_MAX)
    return;
  if (pos >= w->n_rep)
    {
      guint n = MIN (REPEAT_MAX, MAX (MAX (2 * w->n_rep, 256u), pos + 1));
      w->rep = g_renew (Repeat, w->rep, n);
      memset (w->rep + w->n_rep, 0, (n - w->n_rep) * sizeof *w->rep);
      w->n_rep = n;
    }
  /* what count_record and the models added */
  Repeat *r = &w->rep[pos];
  r->serial = serial;
  r->slot = slot;
  r->lanes = (guint) (c->lanes - before.lanes);
  r->partial = (guint) (c->partial - before.partial);
  r->bytes = c->bytes - before.bytes;
  r->vmask = 0;
  for (guint i = 0; i < MS_COUNTER_SLOTS; i++)
    {
      r->v[i] = c->v[i] - before.v[i];
      r->vmask |= (guint32) (r->v[i] != 0) << i;
    }
}

/* A repeat of a record this worker kept: what it added, again.  FALSE
 * when not kept (the record is then handed on as usual). */
static inline gboolean
repeat_add (Worker *w, const MsRepeatHint *hint)
{
  const Repeat *r = hint->pos < w->n_rep ? &w->rep[hint->pos] : NULL;
  if (!hint->again || r == NULL || r->serial != hint->serial)
    return FALSE;
  MsCounters *c = &w->s.c[r->slot];
  c->executions++;
  c->lanes += r->lanes;
  c->partial += r->partial;
  c->bytes += r->bytes;
  for (guint32 m = r->vmask; m; m &= m - 1)
    c->v[__builtin_ctz (m)] += r->v[__builtin_ctz (m)];
  return TRUE;
}

/* The producer's shortcut (MsRepeatShortcut, stream.h) */
static gboolean
repeat_record (gpointer worker, const void *record)
{
  const MsRepeatHint *hint = &ms_repeat_hint;
  return hint->record == record && repeat_add (worker, hint);
}

static gboolean
shortcut (gpointer worker, MsRepeatShortcut *sc)
{
  Worker *w = worker;
  if (!w->run->shared_repeats)
    return FALSE;
  sc->repeat = repeat_record;
  sc->state = w;
  return TRUE;
}

static void
worker_access (gpointer worker, const MsWarpAccess *a)
{
  Worker *w = worker;
  MsModelRun *run = w->run;
  const MsRepeatHint *hint = &ms_repeat_hint;
  if (hint->record == a && a->space == MS_SPACE_SHARED && run->shared_repeats)
    {
      /* a repeat adds what its first delivery added, when this worker
       * kept it */
      if (!repeat_add (w, hint))
        repeat_keep (w, a, hint);
      return;
    }
  MsCounters *c = count_record (run, &w->s, a);
  if (G_LIKELY (a->space < MS_N_SPACES))
    for (guint i = 0; run->cost[a->space][i]; i++)
      run->cost[a->space][i] (run->arch, a, c->v);
}

/* Adds src's counters into dst (slots beyond dst's grow it). */
static void
site_counters_merge (SiteCounters *dst, const SiteCounters *src)
{
  if (src->n == 0)
    return;
  site_counters_grow (dst, src->n - 1);
  for (guint i = 0; i < src->n; i++)
    if (src->op[i])
      {
        ms_counters_add (&dst->c[i], &src->c[i]);
        dst->op[i] = src->op[i];
        dst->width[i] = src->width[i];
      }
}

static void
worker_done (gpointer user, gpointer worker)
{
  MsModelRun *run = user;
  Worker *w = worker;
  g_mutex_lock (&run->lock);
  site_counters_merge (&run->total, &w->s);
  g_mutex_unlock (&run->lock);
  site_counters_clear (&w->s);
  g_free (w->rep);
  g_free (w);
}

/* The stateful models, in stream order; their counters go straight into
 * the run's totals (the ordered part runs one record at a time). */
static void
ordered_access (gpointer user, const MsWarpAccess *a)
{
  MsModelRun *run = user;
  guint slot = (guint) a->site->id * MS_N_SPACES + a->space;
  site_counters_grow (&run->total, slot);
  if (G_UNLIKELY (a->space >= MS_N_SPACES))
    return;
  for (guint i = 0; i < run->n_ordered[a->space]; i++)
    run->ordered_cost[a->space][i] (run->ordered_state[a->space][i], run->arch, a,
                                    run->total.c[slot].v);
}

MsModelRun *
ms_model_run_new (const MsArch *arch, guint64 threads_per_block, GError **error)
{
  return ms_model_run_new_with (arch, threads_per_block, ms_models (), error);
}

MsModelRun *
ms_model_run_new_with (const MsArch *arch, guint64 threads_per_block,
                       const MsModel *const *models, GError **error)
{
  if (!ms_models_arch_check (arch, error))
    return NULL;
  for (const MsModel *const *m = models; *m; m++)
    if ((*m)->arch_check && !(*m)->arch_check (arch, error))
      return NULL;
  MsModelRun *run = g_new0 (MsModelRun, 1);
  run->arch = arch;
  run->threads_per_block = threads_per_block;
  g_mutex_init (&run->lock);
  guint n[MS_N_SPACES] = { 0 };
  for (const MsModel *const *m = models; *m; m++)
    {
      const MsModel *model = *m;
      if (model->cost && n[model->space] + 1 < G_N_ELEMENTS (run->stateless[0]))
        {
          run->cost[model->space][n[model->space]] = model->cost;
          run->stateless[model->space][n[model->space]++] = model;
        }
      if (model->ordered_cost && run->n_stateful < G_N_ELEMENTS (run->stateful))
        {
          gpointer state = g_malloc0 (MAX (model->state_size, 1));
          if (model->state_init)
            model->state_init (state, arch);
          run->state[run->n_stateful] = state;
          run->stateful[run->n_stateful++] = model;
          guint k = run->n_ordered[model->space]++;
          run->ordered_cost[model->space][k] = model->ordered_cost;
          run->ordered_state[model->space][k] = state;
        }
    }
  /* repeats only where every shared-space model is a built-in one */
  run->shared_repeats = TRUE;
  for (const MsModel *const *m = run->stateless[MS_SPACE_SHARED]; *m; m++)
    {
      gboolean builtin = FALSE;
      for (const MsModel *const *b = ms_models (); *b; b++)
        builtin |= *b == *m;
      run->shared_repeats &= builtin;
    }
  run->sink = (MsStreamSink) {
    .worker_new = worker_new, .access = worker_access, .worker_done = worker_done,
    .shortcut = shortcut,
    .ordered = run->n_stateful ? ordered_access : NULL, .user = run,
  };
  run->sink.ordered_skips = (1u << MS_N_SPACES) - 1;
  for (guint i = 0; i < run->n_stateful; i++)
    run->sink.ordered_skips &= ~(1u << run->stateful[i]->space);
  return run;
}

void
ms_model_run_free (MsModelRun *run)
{
  if (run == NULL)
    return;
  for (guint i = 0; i < run->n_stateful; i++)
    {
      if (run->stateful[i]->state_clear)
        run->stateful[i]->state_clear (run->state[i]);
      g_free (run->state[i]);
    }
  site_counters_clear (&run->total);
  g_mutex_clear (&run->lock);
  g_free (run);
}

const MsStreamSink *
ms_model_run_sink (MsModelRun *run)
{
  return &run->sink;
}

void
ms_model_run_set_host_memory (MsModelRun *run, guint n, const guint64 *base,
                              const guint64 *bytes, const gboolean *host)
{
  guint64 host_base[MS_MAX_HOST_RANGES], host_bytes[MS_MAX_HOST_RANGES];
  guint n_host = 0;
  for (guint b = 0; b < n && n_host < MS_MAX_HOST_RANGES; b++)
    if (host[b])
      {
        host_base[n_host] = base[b];
        host_bytes[n_host++] = bytes[b];
      }
  for (guint i = 0; i < run->n_stateful; i++)
    if (run->stateful[i]->host_memory)
      run->stateful[i]->host_memory (run->state[i], host_base, host_bytes, n_host);
}

static gint
compare_site_stats (gconstpointer a, gconstpointer b)
{
  const MsSiteStats *x = a, *y = b;
  int c = ms_site_compare (x->site, y->site);
  return c ? c : (int) x->space - (int) y->space;
}

MsStats *
ms_model_run_finish (MsModelRun *run, guint64 blocks)
{
  return ms_model_run_finish_sampled (run, blocks, blocks);
}

MsStats *
ms_model_run_finish_sampled (MsModelRun *run, guint64 blocks, guint64 blocks_run)
{
  MsStats *stats = ms_stats_new ();
  const SiteCounters *t = &run->total;
  for (guint i = 0; i < t->n; i++)
    if (t->op[i])
      {
        MsSiteStats s = {
          .site = ms_site_lookup ((int) (i / MS_N_SPACES)), .space = (MsSpace) (i % MS_N_SPACES),
          .op = (MsOp) (t->op[i] - 1), .width = t->width[i], .c = t->c[i],
        };
        g_array_append_val (stats->sites, s);
      }
  g_array_sort (stats->sites, compare_site_stats);
  /* a sample's counts stand for the whole grid; what finish() adds is per
   * launch, whatever the sample */
  if (blocks_run > 0 && blocks_run < blocks)
    {
      for (guint i = 0; i < stats->sites->len; i++)
        ms_counters_scale (&g_array_index (stats->sites, MsSiteStats, i).c, blocks, blocks_run);
      ms_counters_scale (&stats->launch, blocks, blocks_run);
    }
  for (guint i = 0; i < run->n_stateful; i++)
    if (run->stateful[i]->finish)
      run->stateful[i]->finish (run->state[i], run->arch, stats->launch.v);
  guint64 tpb = run->threads_per_block;
  stats->blocks = blocks;
  stats->blocks_run = blocks_run > 0 && blocks_run < blocks ? blocks_run : blocks;
  stats->threads = blocks * tpb;
  stats->warps = blocks * ((tpb + MS_WARP_SIZE - 1) / MS_WARP_SIZE);
  return stats;
}
