/* regroup.c - merging source-level records into the compiler's wider
 * instructions (see regroup.h for the rule and its assumptions). */
#include "config.h"
#include "regroup.h"

#include <string.h>

/* Warps of a block (1024 threads) and groups held at once per warp (sites
 * of one warp waiting for their next part, e.g. As and Bs of one line). */
#define MAX_WARPS 32
#define SLOTS 4
/* Records of absorbed sites held together before any fusing site's: as
 * many as the widest vector access has parts (LDS.128 of 4-byte ones). */
#define MAX_ABSORBED 4

typedef struct {
  gboolean used;
  guint count;          /* fusion: records held: first, first + width, ...
                           (down: first, first - width, ...) */
  gboolean down;        /* fusion: the records walk down (ptxas fuses
                           ld [r + 4]; ld [r] into one LDS.64 as well) */
  guint fuse;           /* fusion: records that make the wide instruction (0: not
                           known yet, a group of absorbed sites' records only) */
  MsWarpAccess first;
  const MsSite *site_out;     /* fusion: the wide instruction's site (a site that
                                 fuses; NULL while none of its records came) */
  const MsGrouping *unroll;   /* an unrolled loop's records (NULL: a fusion group) */
  GArray *held;         /* ... held in it (MsWarpAccess; kept for reuse), and a
                           cross group's (cross below) */
} Group;

/* Whether fusion group g is a cross group: records of several sites (or
 * an absorbed site's), held as they came, each with its site. */
static inline gboolean
cross (const Group *g)
{
  return g->held != NULL && g->held->len > 0;
}

typedef struct {
  MsRegroup *r;
  MsSinkWorker *worker;        /* where records go: a worker's inner sinks, */
  const MsSinks *ordered;      /* or (worker NULL) the inner sinks' ordered parts */
  gboolean any;
  guint n_used;         /* groups held (used) over all warps: 0, the usual,
                           skips the slot scans */
  guint32 block;
  guint64 merged, unrolled;
  Group g[MAX_WARPS][SLOTS];
} State;

/* Hands a record on (inline: one call through a pointer fewer for every
 * record on each side). */
static inline void
emit (State *s, const MsWarpAccess *a)
{
  if (s->worker != NULL)
    ms_sink_worker_access (s->worker, a);
  else
    ms_sinks_ordered_access (s->ordered, a);
}

typedef struct {
  State st;
  MsSinkWorker inner;
} Worker;

struct MsRegroup {
  const MsSinks *inner;
  MsGroupingFn grouping;
  gpointer data;
  GMutex lock;                /* asking grouping() */
  gint ready[MS_MAX_SITES];   /* table[id] is filled in */
  MsGrouping table[MS_MAX_SITES];
  MsStreamSink sink;
  State *ordered;
  guint64 merged, unrolled;   /* summed by the parallel workers' worker_done */
};

static const MsGrouping no_grouping = { .fuse = 1 };

/* site_grouping's first question about a site: the grouping function's
 * answer, kept in the table. */
static void
site_grouping_ask (MsRegroup *r, const MsWarpAccess *a, int id)
{
  g_mutex_lock (&r->lock);
  if (!g_atomic_int_get (&r->ready[id]))
    {
      MsGrouping g = { 0 };
      r->grouping (r->data, a, &g);
      if (g.fuse == 0)
        g.fuse = 1;
      if (g.n_blocks > G_N_ELEMENTS (g.blocks))
        g.n_blocks = 0;
      for (guint k = 0; k < g.n_blocks; k++)
        if (g.blocks[k] == 0)
          g.n_blocks = 0;
      r->table[id] = g;
      g_atomic_int_set (&r->ready[id], 1);
    }
  g_mutex_unlock (&r->lock);
}

/* The grouping of a's site (inline: every record asks). */
static inline const MsGrouping *
site_grouping (MsRegroup *r, const MsWarpAccess *a)
{
  int id = a->site->id;
  if (id < 0 || id >= MS_MAX_SITES || r->grouping == NULL)
    return &no_grouping;
  if (G_UNLIKELY (!g_atomic_int_get (&r->ready[id])))
    site_grouping_ask (r, a, id);
  return &r->table[id];
}

/* A group taken or given back, and the state's count of those held with
 * it (the one place that keeps n_used). */
static inline void
group_hold (State *s, Group *g, gboolean used)
{
  g->used = used;
  if (used)
    s->n_used++;
  else
    s->n_used--;
}

/* ---- unrolled loops ---- */

/* One instruction of the schedule: the lanes of `lanes`, lane l at the
 * address of its (start[l] + t)-th held record, pos[l * len + ...] (the
 * other lanes' addresses are the first record's, as no sink reads them). */
static void
emit_lanes (State *s, const GArray *held, const guint *pos, guint len, guint32 lanes,
            const guint *start, guint t)
{
  if (lanes == 0)
    return;
  MsWarpAccess a = g_array_index (held, MsWarpAccess, 0);
  a.mask = lanes;
  for (guint32 m = lanes; m; m &= m - 1)
    {
      int l = __builtin_ctz (m);
      a.addr[l] = g_array_index (held, MsWarpAccess, pos[l * len + start[l] + t]).addr[l];
    }
  emit (s, &a);
  s->unrolled++;
}

/* The lanes l whose count[l] exceeds k. */
static inline guint32
lanes_above (const guint *count, guint k)
{
  guint32 lanes = 0;
  for (int l = 0; l < MS_WARP_SIZE; l++)
    lanes |= (guint32) (count[l] > k) << l;
  return lanes;
}

/* The loop's records of one warp, emitted as the unrolled code runs them
 * (regroup.h).  Each instruction's lanes are walked, not all 32: a
 * divergent loop's stragglers run many instructions of a few lanes
 * (callgrind, per_thread_sum at its default size: the whole run 1301.4 -> 993.1 M
 * instructions). */
static void
emit_unrolled (State *s, Group *g)
{
  const GArray *h = g->held;
  const MsGrouping *p = g->unroll;
  guint len = h->len;
  g_autofree guint *pos = g_new (guint, (gsize) MS_WARP_SIZE * len);
  guint n[MS_WARP_SIZE] = { 0 };
  for (guint i = 0; i < len; i++)
    {
      const MsWarpAccess *a = &g_array_index (h, MsWarpAccess, i);
      for (guint32 m = a->mask; m; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          pos[l * len + n[l]++] = i;
        }
    }
  guint last = p->blocks[p->n_blocks - 1];
  guint r[MS_WARP_SIZE], k0[MS_WARP_SIZE], off_rem[MS_WARP_SIZE], off_blk[MS_WARP_SIZE];
  guint32 has[G_N_ELEMENTS (p->blocks)] = { 0 };   /* lanes that run block j */
  guint max_r = 0, max_k0 = 0;
  for (int l = 0; l < MS_WARP_SIZE; l++)
    {
      r[l] = n[l] % last;
      guint m = n[l] - r[l];
      k0[l] = m / p->blocks[0];
      guint rest = m % p->blocks[0];
      for (guint j = 1; j < p->n_blocks; j++)
        if (rest >= p->blocks[j])
          {
            rest -= p->blocks[j];
            has[j] |= 1u << l;
          }
      off_rem[l] = p->remainder_first ? 0 : m;
      off_blk[l] = p->remainder_first ? r[l] : 0;
      max_r = MAX (max_r, r[l]);
      max_k0 = MAX (max_k0, k0[l]);
    }
  s->unrolled -= len;   /* emit_lanes counts what replaces them */
  for (int part = 0; part < 2; part++)
    {
      if ((part == 0) == p->remainder_first)
        {
          for (guint t = 0; t < max_r; t++)
            emit_lanes (s, h, pos, len, lanes_above (r, t), off_rem, t);
          continue;
        }
      for (guint k = 0; k < max_k0; k++)
        {
          guint32 lanes = lanes_above (k0, k);
          for (guint t = 0; t < p->blocks[0]; t++)
            emit_lanes (s, h, pos, len, lanes, off_blk, p->blocks[0] * k + t);
        }
      guint done[MS_WARP_SIZE];
      for (int l = 0; l < MS_WARP_SIZE; l++)
        done[l] = off_blk[l] + p->blocks[0] * k0[l];
      for (guint j = 1; j < p->n_blocks; j++)
        {
          if (has[j] == 0)
            continue;
          for (guint t = 0; t < p->blocks[j]; t++)
            emit_lanes (s, h, pos, len, has[j], done, t);
          for (guint32 m = has[j]; m; m &= m - 1)
            done[__builtin_ctz (m)] += p->blocks[j];
        }
    }
}

/* A fusion group's part after a: each lane one width on (back, walking
 * down). */
static inline void
next_part (const Group *g, MsWarpAccess *a)
{
  for (guint32 m = a->mask; m; m &= m - 1)
    a->addr[__builtin_ctz (m)] += g->down ? -(guint64) a->width : a->width;
}

/* The group's records as they came, unmerged; an unrolled loop's as the
 * unrolled code runs them. */
static void
release (State *s, Group *g)
{
  if (g->unroll)
    {
      emit_unrolled (s, g);
      g_array_set_size (g->held, 0);
      g->unroll = NULL;
      group_hold (s, g, FALSE);
      return;
    }
  if (cross (g))
    {
      for (guint i = 0; i < g->held->len; i++)
        emit (s, &g_array_index (g->held, MsWarpAccess, i));
      g_array_set_size (g->held, 0);
      group_hold (s, g, FALSE);
      return;
    }
  MsWarpAccess a = g->first;
  for (guint i = 0; i < g->count; i++)
    {
      if (i > 0)
        next_part (g, &a);
      emit (s, &a);
    }
  group_hold (s, g, FALSE);
}

static void
state_free_arrays (State *s)
{
  for (guint w = 0; w < MAX_WARPS; w++)
    for (guint k = 0; k < SLOTS; k++)
      g_clear_pointer (&s->g[w][k].held, g_array_unref);
}

static void
flush_all (State *s)
{
  for (guint w = 0; w < MAX_WARPS && s->n_used > 0; w++)
    for (guint k = 0; k < SLOTS; k++)
      if (s->g[w][k].used)
        release (s, &s->g[w][k]);
  s->any = FALSE;
}

/* Whether a is the group's next part: every lane `step` bytes on (back,
 * for a group that walks down).  A
 * whole warp's lanes in one loop without a test a lane, which gcc
 * vectorises (gemm_tiled_nopad, callgrind: the lane walk was 32 of the
 * filter's 80 M instructions, the loop 13 M). */
static gboolean
continues (const Group *g, const MsWarpAccess *a)
{
  const MsWarpAccess *f = &g->first;
  if (a->op != f->op || a->width != f->width || a->mask != f->mask)
    return FALSE;
  guint64 step = (guint64) g->count * f->width, differ = 0;
  if (g->down)
    step = -step;   /* wraps: f->addr + step is f->addr minus the count's bytes */
  if (a->mask == 0xffffffffu)
    for (guint l = 0; l < MS_WARP_SIZE; l++)
      differ |= a->addr[l] ^ (f->addr[l] + step);
  else
    for (guint32 m = a->mask; m; m &= m - 1)
      {
        int l = __builtin_ctz (m);
        differ |= a->addr[l] ^ (f->addr[l] + step);
      }
  return differ == 0;
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

/* Makes g a cross group (its records kept as they came, each with its
 * site): the records so far are its first's, stepped. */
static void
join_cross (Group *g)
{
  if (cross (g))
    return;
  if (g->held == NULL)
    g->held = g_array_new (FALSE, FALSE, sizeof (MsWarpAccess));
  g_array_set_size (g->held, 0);
  MsWarpAccess a = g->first;
  for (guint i = 0; i < g->count; i++)
    {
      if (i > 0)
        next_part (g, &a);
      g_array_append_val (g->held, a);
    }
}

static Group *
take_slot (State *s, Group *slots)
{
  for (guint k = 0; k < SLOTS; k++)
    if (!slots[k].used)
      return &slots[k];
  release (s, &slots[0]);
  return &slots[0];
}

/* a, the next part of g, joins it (absorbed: a's site is; fuse: its
 * site's otherwise); the wide record goes on once g has all its parts. */
static void
join (State *s, Group *g, const MsWarpAccess *a, gboolean absorbed, guint fuse)
{
  if (g->first.site != a->site)
    join_cross (g);
  gboolean is_cross = cross (g);
  if (is_cross)
    g_array_append_val (g->held, *a);
  if (!absorbed && g->site_out == NULL)
    {
      g->site_out = a->site;
      g->fuse = fuse;
    }
  if (++g->count == g->fuse)
    {
      /* the wide instruction's addresses: its lowest part's */
      MsWarpAccess m = g->down ? *a : g->first;
      if (is_cross && !aligned (&m, g->fuse * m.width))
        {
          release (s, g);
          return;
        }
      m.width = (guint8) (m.width * g->fuse);
      m.site = g->site_out;
      if (is_cross)
        g_array_set_size (g->held, 0);
      group_hold (s, g, FALSE);
      s->merged += g->fuse - 1;
      emit (s, &m);
    }
  else if (g->fuse == 0 && g->count == MAX_ABSORBED)
    release (s, g);
}

/* Whether two sites are copies of one source access: the same line (and
 * own lines), in another straight-line region of the PTX: an unrolled
 * loop's iterations, which ptxas fuses as one site's (lavaMD: qB_shared[j]
 * and qB_shared[j + 1] on either side of exp()'s branch, one LDS.128). */
static gboolean
copies (const MsSite *x, const MsSite *y)
{
  return x->line > 0 && x->line == y->line && g_strcmp0 (x->file, y->file) == 0
         && g_strcmp0 (x->inner, y->inner) == 0;
}

static void
process_held (State *s, const MsWarpAccess *a)
{
  if (s->any && a->block != s->block)
    flush_all (s);
  s->any = TRUE;
  s->block = a->block;
  if (a->warp >= MAX_WARPS)
    {
      emit (s, a);
      return;
    }
  Group *slots = s->g[a->warp];
  /* a record of another site ends the warp's unrolled loops */
  for (guint k = 0; k < SLOTS && s->n_used > 0; k++)
    if (slots[k].used && slots[k].unroll
        && (slots[k].first.site != a->site || slots[k].first.space != a->space))
      release (s, &slots[k]);
  const MsGrouping *grouping = MS_OP_IS_ATOMIC (a->op) ? &no_grouping : site_grouping (s->r, a);
  if (grouping->n_blocks > 0)
    {
      for (guint k = 0; k < SLOTS && s->n_used > 0; k++)
        if (slots[k].used && slots[k].unroll && slots[k].first.site == a->site)
          {
            g_array_append_val (slots[k].held, *a);
            return;
          }
      Group *g = take_slot (s, slots);
      group_hold (s, g, TRUE);
      g->unroll = grouping;
      g->first = *a;
      if (g->held == NULL)
        g->held = g_array_new (FALSE, FALSE, sizeof (MsWarpAccess));
      g_array_append_val (g->held, *a);
      return;
    }
  guint fuse = grouping->fuse;
  gboolean absorbed = grouping->absorbed && fuse <= 1;
  if (fuse <= 1 && !absorbed)
    {
      emit (s, a);
      return;
    }
  /* a group of absorbed sites' records only that a continues: joined
   * when no group with a fusing site's record takes a (mergeSort: the
   * loads of startSrcA and startSrcB, next to each other, whose lines the
   * SASS has no load on (ptxas moved them), must not take lenSrcA from
   * lenSrcB's LDS.64) */
  Group *later = NULL;
  for (guint k = 0; k < SLOTS && s->n_used > 0; k++)
    {
      Group *g = &slots[k];
      if (!g->used || g->unroll || g->first.space != a->space)
        continue;
      gboolean same = g->first.site == a->site;
      /* another site's record joins a group that still has room: an
       * absorbed one any such group, a fusing one a group of absorbed
       * sites' records only */
      gboolean joins = absorbed ? g->fuse == 0 || g->count < g->fuse
                                : (g->site_out == NULL || copies (g->site_out, a->site))
                                  && g->count < fuse;
      if (!same && !joins)
        continue;
      if (continues (g, a))
        {
          if (!same && absorbed && g->site_out == NULL)
            {
              later = later ? later : g;
              continue;
            }
          join (s, g, a, absorbed, fuse);
          return;
        }
      if (!same)
        continue;
      release (s, g);
      break;
    }
  if (later != NULL)
    {
      join (s, later, a, absorbed, fuse);
      return;
    }
  /* a group starts at the wide access's lowest part (walking up) or at
   * its highest (walking down), whose addresses are (fuse - 1) parts
   * past that alignment (an absorbed site's record: the narrowest such
   * access, two parts) */
  guint parts = absorbed ? 2 : fuse;
  gboolean down = FALSE;
  if (!aligned (a, parts * a->width))
    {
      MsWarpAccess low = *a;
      for (guint32 m = low.mask; m; m &= m - 1)
        low.addr[__builtin_ctz (m)] -= (guint64) (parts - 1) * a->width;
      if (!aligned (&low, parts * a->width))
        {
          emit (s, a);
          return;
        }
      down = TRUE;
    }
  Group *free_slot = take_slot (s, slots);
  group_hold (s, free_slot, TRUE);
  free_slot->count = 1;
  free_slot->fuse = absorbed ? 0 : fuse;
  free_slot->site_out = absorbed ? NULL : a->site;
  free_slot->down = down;
  free_slot->first = *a;
  if (absorbed)
    join_cross (free_slot);
}

/* A record: straight on when no group is held and its site merges
 * nothing (the usual case, inline: a call and the whole function's
 * register saves a record cost 10% of the filter), else process_held. */
static inline void
process (State *s, const MsWarpAccess *a)
{
  if (s->n_used == 0 && a->warp < MAX_WARPS && !MS_OP_IS_ATOMIC (a->op))
    {
      const MsGrouping *grouping = site_grouping (s->r, a);
      if (grouping->n_blocks == 0 && grouping->fuse <= 1 && !grouping->absorbed)
        {
          s->any = TRUE;
          s->block = a->block;
          emit (s, a);
          return;
        }
    }
  ms_ordered_keep = TRUE;   /* the ordered side must see it (ms_sinks_ordered_skips) */
  process_held (s, a);
}

/* ---- the sink's two parts ---- */

static gpointer
worker_new (gpointer user)
{
  MsRegroup *r = user;
  Worker *w = g_new0 (Worker, 1);
  w->st.r = r;
  w->st.worker = &w->inner;
  ms_sink_worker_begin (&w->inner, r->inner);
  return w;
}

static void
worker_access (gpointer worker, const MsWarpAccess *a)
{
  process (&((Worker *) worker)->st, a);
}

/* The inner sinks' shortcut, while this worker holds no group: a record
 * then either passes straight on unchanged (its site merges nothing) or
 * is one the inner consumer never kept as a repeat (it got a copy), and
 * process_held's block test only ever flushes held groups. */
static gboolean
shortcut (gpointer worker, MsRepeatShortcut *sc)
{
  Worker *w = worker;
  if (!ms_sink_worker_shortcut (&w->inner, sc))
    return FALSE;
  for (guint i = 0; i < MS_REPEAT_HELD; i++)
    if (sc->held[i] == NULL)
      {
        sc->held[i] = &w->st.n_used;
        return TRUE;
      }
  return FALSE;
}

static void
worker_done (gpointer user, gpointer worker)
{
  MsRegroup *r = user;
  Worker *w = worker;
  flush_all (&w->st);
  r->merged += w->st.merged;   /* worker_done is called serially */
  r->unrolled += w->st.unrolled;
  state_free_arrays (&w->st);
  ms_sink_worker_end (&w->inner);
  g_free (w);
}

static void
ordered_access (gpointer user, const MsWarpAccess *a)
{
  process (((MsRegroup *) user)->ordered, a);
}

MsRegroup *
ms_regroup_new (const MsSinks *inner, MsGroupingFn grouping, gpointer data)
{
  MsRegroup *r = g_new0 (MsRegroup, 1);
  g_mutex_init (&r->lock);
  r->inner = inner;
  r->grouping = grouping;
  r->data = data;
  r->sink.user = r;
  if (ms_sinks_parallel (inner))
    {
      r->sink.worker_new = worker_new;
      r->sink.access = worker_access;
      r->sink.worker_done = worker_done;
      r->sink.shortcut = shortcut;
    }
  if (ms_sinks_ordered (inner))
    {
      r->ordered = g_new0 (State, 1);
      r->ordered->r = r;
      r->ordered->ordered = inner;
      r->sink.ordered = ordered_access;
    }
  /* The ordered side may miss a record its inner sinks skip only when
   * passing it straight on would have been all it did: the parallel side,
   * whose state for the record's block is the ordered side's (the same
   * records in the same order, and both start a block empty), sets
   * ms_ordered_keep on any other (process).  Without a parallel side
   * nothing can say so. */
  r->sink.ordered_skips = r->sink.access ? ms_sinks_ordered_skips (inner) : 0;
  return r;
}

void
ms_regroup_free (MsRegroup *r)
{
  if (r == NULL)
    return;
  if (r->ordered)
    state_free_arrays (r->ordered);
  g_free (r->ordered);
  g_mutex_clear (&r->lock);
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

guint64
ms_regroup_unrolled (const MsRegroup *r)
{
  return r->unrolled;
}
