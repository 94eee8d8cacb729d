/* instructions.c - smsp__inst_executed.sum from the engine's block counts
 * and ptxas's SASS (see instructions.h).
 *
 * Assumptions:
 *  - Nsight counts a warp instruction once per issue, whatever its active
 *    lanes and predicate: so does a block's count (one per group of lanes).
 *  - ptxas keeps each instruction on the source line its PTX came from,
 *    and a line's SASS instructions run as often, on average, as its PTX
 *    ones: a line's SASS count is its PTX count times S(line) / P(line),
 *    its static SASS and PTX instructions.  Exact when every instruction of
 *    a line runs equally often on both sides (straight code, a loop body);
 *    off where one line spans code run at different rates (a for header's
 *    start and its step) and ptxas moves a different share of it.
 *  - ptxas predicates short code a conditional branch skips instead of
 *    branching: its SASS is then issued by every group that reaches the
 *    branch.  A line's predicated SASS instructions count at the rate of
 *    the guarding branch's block (MsInstLine.guard), the others at their
 *    own block's.
 *  - Code memsim inlined from a .func (the PTX's call) whose own line has
 *    no SASS counts at the call's line, where ptxas put it.  Other PTX
 *    lines with no SASS (code nvcc inlined from a header, which ptxas
 *    marks with the caller's line) count with the nearest instructions
 *    before them (else after them) whose line has SASS.
 *  - ptxas unrolls some loops again (a run-time trip count: a loop of r
 *    copies of the PTX body, straight copies of fewer, a loop of one).  A
 *    SASS loop of straight code whose memory instructions are, line by
 *    line, r times a PTX basic block's is r copies of it, and so is a
 *    straight SASS block outside the loops where a loop of the block has
 *    a larger r.  Per entry to the block (the runs of the block before it,
 *    which is its preheader when the PTX falls into the loop), the copies
 *    take its runs as the ladder does: the largest loop as many iterations
 *    as fit, a straight copy once if it fits, a loop of one copy the rest.
 *    Each copy's SASS counts as often as it ran (match_loops); the line
 *    rule counts what is left (sass_rest).  Off where the trip count
 *    differs between entries (the copies share the average).
 *  - Where no copies match (a loop body that branches, fused memory
 *    instructions), a line's SASS has more copies than run.  Where the
 *    line has memory instructions, whose SASS executions the models know
 *    exactly, the line's count is
 *    scaled by how much fewer of its SASS memory instructions ran than
 *    their static share says: (SASS runs / PTX runs) / (SASS static /
 *    PTX static), when below 1.
 *  - ptxas unrolls some loops whole (a constant trip count): the line's
 *    SASS is then every iteration's, while its PTX runs once an
 *    iteration.  A line none of whose SASS instructions a backward branch
 *    encloses runs at most once a warp (a divergent warp's paths each once
 *    would be more; ptxas reconverges them before such code): its count is
 *    capped at warps x its instructions.  (A line partly in a loop, partly
 *    not, as a loop ptxas unrolled by 4 and its peeled remainder, keeps
 *    the rule: the share of its runs each part has is not known.)
 *  - SASS lines with no PTX line (the prologue before the first line mark,
 *    code ptxas attributes elsewhere) run once a warp.
 *  - A SASS basic block issues all its instructions equally often: the
 *    function's first block once a warp, a block with a global or shared
 *    memory instruction not under a predicate as often as that
 *    instruction ran (the models' count), where all its line's memory
 *    instructions are such ones of the block.  Those blocks' instructions
 *    count as their blocks ran; the rest of their lines what the line
 *    rule gives beyond that (known_blocks).  This catches what ptxas moved
 *    between blocks of different rates: an address hoisted out of a
 *    guarded branch, a line whose PTX runs at one rate and its SASS at
 *    another.
 */
#include "config.h"

#include "instructions.h"

#include <math.h>
#include <string.h>

static void
line_clear (gpointer p)
{
  g_free (((MsInstLine *) p)->where);
  g_free (((MsInstLine *) p)->at);
}

MsInstMap *
ms_inst_map_new (void)
{
  MsInstMap *map = g_new0 (MsInstMap, 1);
  map->lines = g_array_new (FALSE, FALSE, sizeof (MsInstLine));
  g_array_set_clear_func (map->lines, line_clear);
  map->waits = g_array_new (FALSE, TRUE, sizeof (MsInstWaits));
  map->async_copies = g_ptr_array_new_with_free_func (g_free);
  map->regions = g_array_new (FALSE, TRUE, sizeof (guint));
  map->reductions = g_array_new (FALSE, TRUE, sizeof (gboolean));
  return map;
}

void
ms_inst_map_free (MsInstMap *map)
{
  if (map == NULL)
    return;
  g_array_unref (map->lines);
  g_array_unref (map->waits);
  g_ptr_array_unref (map->async_copies);
  g_array_unref (map->regions);
  g_array_unref (map->reductions);
  g_free (map);
}

void
ms_inst_map_add_waits (MsInstMap *map, guint block, const MsInstWaits *w)
{
  if (block >= map->waits->len)
    g_array_set_size (map->waits, block + 1);
  MsInstWaits *to = &g_array_index (map->waits, MsInstWaits, block);
  to->rounds += w->rounds;
  to->barriers += w->barriers;
  to->textures += w->textures;
  to->dependent_cycles += w->dependent_cycles;
}

void
ms_inst_map_set_region (MsInstMap *map, guint block, guint region)
{
  if (block >= map->regions->len)
    g_array_set_size (map->regions, block + 1);
  /* region + 1: 0 is "not set" */
  g_array_index (map->regions, guint, block) = region + 1;
}

void
ms_inst_map_set_reduction (MsInstMap *map, guint block)
{
  if (block >= map->reductions->len)
    g_array_set_size (map->reductions, block + 1);
  g_array_index (map->reductions, gboolean, block) = TRUE;
}

void
ms_inst_waits (const MsInstMap *map, const guint64 *counts, MsInstWaits *total)
{
  *total = (MsInstWaits) { 0 };
  for (guint b = 0; b < map->waits->len && b < map->n_blocks; b++)
    {
      const MsInstWaits *w = &g_array_index (map->waits, MsInstWaits, b);
      total->rounds += counts[b] * w->rounds;
      total->barriers += counts[b] * w->barriers;
      total->textures += counts[b] * w->textures;
      total->dependent_cycles += counts[b] * w->dependent_cycles;
    }
}

void
ms_inst_map_add (MsInstMap *map, guint block, guint guard, const char *where, const char *at,
                 guint n, guint memory)
{
  where = where ? where : "";
  at = at ? at : "";
  if (block >= map->n_blocks)
    map->n_blocks = block + 1;
  /* one entry per (block, line): the block's instructions come in order */
  if (map->lines->len > 0)
    {
      MsInstLine *last = &g_array_index (map->lines, MsInstLine, map->lines->len - 1);
      if (last->block == block && last->guard == guard && strcmp (last->where, where) == 0
          && strcmp (last->at, at) == 0)
        {
          last->n += n;
          last->memory += memory;
          return;
        }
    }
  MsInstLine l = { block, guard, n, memory, g_strdup (where), g_strdup (at) };
  g_array_append_val (map->lines, l);
}

/* SASS counts by mark chain ("a.h:5\tk.cu:30") to counts by the line of
 * the chain that the PTX has (the first, else the last). */
static GHashTable *
by_ptx_line (GHashTable *ptx, GHashTable *chains)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, chains);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      g_auto (GStrv) loc = g_strsplit (key, "\t", -1);
      guint n = g_strv_length (loc), k = 0;
      while (k + 1 < n && !g_hash_table_contains (ptx, loc[k]))
        k++;
      const char *line = n ? loc[k] : "";
      g_hash_table_replace (t, g_strdup (line),
                            GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (t, line))
                                              + GPOINTER_TO_UINT (value)));
    }
  return t;
}

typedef struct {
  double runs;    /* PTX instructions of the line run */
  double guard;   /* ... had every group that reached their guarding branch run them */
  guint n;        /* PTX instructions of the line */
  double memory_runs;   /* its memory instructions run */
  guint memory;         /* ... and how many */
  double scaled;  /* runs, each scaled as its block (unrolled_blocks) */
  double all_runs;   /* runs, the matched SASS loops' included */
  guint n_left;      /* n, but those of blocks whose runs the loops took all */
  guint memory_left; /* memory likewise */
} Line;

static double
lookup_uint (GHashTable *t, const char *key)
{
  return t ? GPOINTER_TO_UINT (g_hash_table_lookup (t, key)) : 0;
}

/* The scale of a line whose SASS memory instructions ran less than their
 * static share (assumptions above); 1 otherwise. */
static double
unrolled_scale (const Line *line, const MsInstSass *sass, const char *key)
{
  double s_mem = lookup_uint (sass->memory, key);
  const gdouble *s_runs = sass->memory_runs ? g_hash_table_lookup (sass->memory_runs, key) : NULL;
  if (line->memory_left == 0 || line->memory_runs <= 0 || s_mem <= 0 || s_runs == NULL)
    return 1;
  double f = (*s_runs / line->memory_runs) / (s_mem / line->memory_left);
  return f > 0 && f < 1 ? f : 1;
}

/* Each block's scale: that of its lines with memory instructions (the
 * least), else that of the block before or after it that ran as often (the
 * rest of a loop body ptxas unrolled again); 1 where nothing says. */
static double *
unrolled_blocks (const MsInstMap *map, const guint64 *counts, const char *const *keys,
                 GHashTable *ptx, const MsInstSass *sass)
{
  guint n = map->n_blocks;
  double *f = g_new (double, n + 1);
  for (guint b = 0; b <= n; b++)
    f[b] = -1;
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      const char *key = keys[k] ? keys[k] : l->where;
      if (l->memory == 0)
        continue;
      double s = unrolled_scale (g_hash_table_lookup (ptx, key), sass, key);
      if (f[l->block] < 0 || s < f[l->block])
        f[l->block] = s;
    }
  for (guint b = 1; b < n; b++)
    if (f[b] < 0 && f[b - 1] >= 0 && counts[b] == counts[b - 1])
      f[b] = f[b - 1];
  for (guint b = n; b-- > 1;)
    if (f[b - 1] < 0 && f[b] >= 0 && counts[b] == counts[b - 1])
      f[b - 1] = f[b];
  for (guint b = 0; b <= n; b++)
    if (f[b] < 0)
      f[b] = 1;
  return f;
}

static gint
by_where (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (((const MsInstLineCount *) a)->where, ((const MsInstLineCount *) b)->where);
}

static void
count_clear (gpointer p)
{
  g_free (((MsInstLineCount *) p)->where);
}

/* The SASS line each of the map's lines counts at: its own, else the
 * line it was inlined at, else the nearest one before or after it that
 * the SASS has (NULL: none; every line its own where sass_lines is NULL). */
static const char **
line_keys (const MsInstMap *map, GHashTable *sass_lines)
{
  const char **keys = g_new0 (const char *, map->lines->len + 1);
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      keys[k] = sass_lines == NULL || g_hash_table_contains (sass_lines, l->where) ? l->where
                : *l->at && g_hash_table_contains (sass_lines, l->at) ? l->at : NULL;
    }
  for (guint k = 0; sass_lines != NULL && k < map->lines->len; k++)
    for (guint d = 1; keys[k] == NULL && (d <= k || k + d < map->lines->len); d++)
      {
        const char *before = d <= k ? keys[k - d] : NULL, *after = k + d < map->lines->len
                                                                 ? keys[k + d] : NULL;
        keys[k] = before && g_hash_table_contains (sass_lines, before) ? before
                  : after && g_hash_table_contains (sass_lines, after) ? after : NULL;
      }
  return keys;
}

/* The SASS lines by the line of the PTX their marks name (NULL: no SASS). */
static GHashTable *
sass_by_ptx_line (const MsInstMap *map, const MsInstSass *sass)
{
  if (map == NULL || sass == NULL || sass->lines == NULL || g_hash_table_size (sass->lines) == 0)
    return NULL;
  g_autoptr (GHashTable) wheres = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < map->lines->len; k++)
    g_hash_table_add (wheres, g_array_index (map->lines, MsInstLine, k).where);
  return by_ptx_line (wheres, sass->lines);
}

double *
ms_inst_block_sass (const MsInstMap *map, const MsInstSass *sass)
{
  double *w = g_new0 (double, map->n_blocks + 1);
  g_autoptr (GHashTable) sass_lines = sass_by_ptx_line (map, sass);
  g_autofree const char **keys = line_keys (map, sass_lines);
  /* each line's PTX instructions, all blocks together */
  g_autoptr (GHashTable) ptx = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; sass_lines && k < map->lines->len; k++)
    if (keys[k])
      g_hash_table_insert (ptx, (gpointer) keys[k],
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (ptx, keys[k]))
                                             + g_array_index (map->lines, MsInstLine, k).n));
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      if (sass_lines == NULL)
        w[l->block] += l->n;
      else if (keys[k])
        w[l->block] += (double) l->n * lookup_uint (sass_lines, keys[k])
                       / GPOINTER_TO_UINT (g_hash_table_lookup (ptx, keys[k]));
    }
  return w;
}

/* --- SASS loops ---------------------------------------------------------
 * A group: a PTX basic block, which the engine splits at its accesses
 * (where the map does not say, consecutive blocks that ran equally
 * often). */
typedef struct {
  guint first;
  GHashTable *memory;    /* key -> its memory instructions (GUINT_TO_POINTER) */
  guint memory_n;
  double rem;            /* the runs of it no matched loop took */
  gboolean matched;
  guint max_r;           /* the largest r of the loops matched to it */
} Group;

/* A SASS region (a loop, or a straight block: src->once) and the group it
 * is a copy of. */
typedef struct {
  GHashTable *lines, *memory;   /* by the PTX's line (by_ptx_line) */
  const MsInstLoop *src;
  guint memory_n;
  int group;        /* -1: none */
  guint r;          /* the group's bodies a run of the region */
  double trips;     /* runs (a loop's iterations), all warps together */
} Loop;

static guint
table_sum (GHashTable *t)
{
  guint n = 0;
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, t);
  while (g_hash_table_iter_next (&it, NULL, &v))
    n += GPOINTER_TO_UINT (v);
  return n;
}

/* Whether loop's memory instructions are r times the group's, line by line. */
static gboolean
loop_copies (const Loop *loop, const Group *g, guint r)
{
  if (g_hash_table_size (loop->memory) != g_hash_table_size (g->memory))
    return FALSE;
  GHashTableIter it;
  gpointer key, v;
  g_hash_table_iter_init (&it, loop->memory);
  while (g_hash_table_iter_next (&it, &key, &v))
    if (GPOINTER_TO_UINT (g_hash_table_lookup (g->memory, key)) * r != GPOINTER_TO_UINT (v))
      return FALSE;
  return TRUE;
}

static gint
by_memory_desc (gconstpointer a, gconstpointer b)
{
  const Loop *x = a, *y = b;
  return x->memory_n < y->memory_n ? 1 : x->memory_n > y->memory_n ? -1 : 0;
}

/* Whether the group's regions ran no more memory instructions of each
 * line than the models counted for the line (memory_runs, the SASS's
 * executions: NULL, not known) */
static gboolean
copies_ran (GArray *loops, int group, const Group *g, GHashTable *memory_runs)
{
  if (memory_runs == NULL)
    return TRUE;
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, g->memory);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      double ran = 0;
      for (guint i = 0; i < loops->len; i++)
        {
          const Loop *loop = &g_array_index (loops, Loop, i);
          if (loop->group == group)
            ran += loop->trips * GPOINTER_TO_UINT (g_hash_table_lookup (loop->memory, key));
        }
      const gdouble *runs = g_hash_table_lookup (memory_runs, key);
      if (runs != NULL && ran > *runs * 1.001 + 0.5)
        return FALSE;
    }
  return TRUE;
}

/* Larger r first; of equal r, loops before straight copies */
static gint
by_r_desc (gconstpointer a, gconstpointer b)
{
  const Loop *x = a, *y = b;
  if (x->r != y->r)
    return x->r < y->r ? 1 : -1;
  return (int) x->src->once - (int) y->src->once;
}

/* Subtracts n from t's count of key (a table of GUINT_TO_POINTER counts). */
static void
table_sub (GHashTable *t, const char *key, guint n)
{
  guint have = GPOINTER_TO_UINT (g_hash_table_lookup (t, key));
  if (g_hash_table_contains (t, key))
    g_hash_table_insert (t, g_strdup (key), GUINT_TO_POINTER (have > n ? have - n : 0));
}

/* Adds n to t's count of key (t owns its keys). */
static void
table_add (GHashTable *t, const char *key, guint n)
{
  g_hash_table_replace (t, g_strdup (key), GUINT_TO_POINTER (lookup_uint (t, key) + n));
}

/* Adds v to t's sum of key (gdouble *; t owns its keys and values). */
static void
sum_add (GHashTable *t, const char *key, double v)
{
  gdouble *e = g_hash_table_lookup (t, key);
  if (e == NULL)
    g_hash_table_insert (t, g_strdup (key), e = g_new0 (gdouble, 1));
  *e += v;
}

/* Whether block b of map is a warp reduction alone (MsInstMap.reductions). */
static gboolean
is_reduction (const MsInstMap *map, guint b)
{
  return b < map->reductions->len && b < map->n_blocks
         && g_array_index (map->reductions, gboolean, b);
}

static GHashTable *
table_copy (GHashTable *t, gboolean doubles)
{
  GHashTable *c = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, doubles ? g_free : NULL);
  if (t == NULL)
    return c;
  GHashTableIter it;
  gpointer key, v;
  g_hash_table_iter_init (&it, t);
  while (g_hash_table_iter_next (&it, &key, &v))
    g_hash_table_insert (c, g_strdup (key), doubles ? g_memdup2 (v, sizeof (gdouble)) : v);
  return c;
}

/* The SASS's innermost loops that are copies of a group of blocks: a loop
 * whose memory instructions are, line by line, r times a group's (ptxas
 * unrolled the PTX loop's body r times; r = 1: a loop as the PTX has it)
 * is that group's, the group with the most memory instructions where
 * several are (the body NVVM unrolled, rather than its remainder loop).  A
 * group's loops take its runs in the order of their sizes, as ptxas's
 * ladder of copies runs them: per entry to the group (the runs of the block
 * before it, else the warps), as many iterations of the largest as fit,
 * then of the next; what no loop takes (a remainder below the smallest
 * loop's r) is left to the line rule.  Fills loops[i].group, .r, .trips
 * and counts_left (each block's runs left to the line rule; -1: none, the
 * loops took them all), and
 * entries_by_line: for each line of a matched group, the group's entries
 * (the most of its groups': key -> gdouble *). */
static GArray *
match_loops (const MsInstMap *map, const guint64 *counts, const char *const *keys,
             const MsInstSass *sass, GHashTable *wheres, guint64 warps, double *counts_left,
             GHashTable *entries_by_line)
{
  guint n = map->n_blocks;
  g_autofree guint *group_of = g_new0 (guint, n + 1);
  g_autoptr (GArray) groups = g_array_new (FALSE, TRUE, sizeof (Group));
  for (guint b = 0; b < n; b++)
    {
      gboolean regions = map->regions->len >= n && n > 0
                         && g_array_index (map->regions, guint, b) != 0;
      if (b == 0 || (regions ? g_array_index (map->regions, guint, b)
                               != g_array_index (map->regions, guint, b - 1)
                             : counts[b] != counts[b - 1]))
        {
          Group g = { b, g_hash_table_new (g_str_hash, g_str_equal), 0, 0, FALSE, 0 };
          g_array_append_val (groups, g);
        }
      group_of[b] = groups->len - 1;
    }
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      if (l->memory == 0 || l->block >= n)
        continue;
      Group *g = &g_array_index (groups, Group, group_of[l->block]);
      const char *key = keys[k] ? keys[k] : l->where;
      g_hash_table_insert (g->memory, (gpointer) key,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (g->memory, key))
                                             + l->memory));
      g->memory_n += l->memory;
    }
  GArray *loops = g_array_new (FALSE, TRUE, sizeof (Loop));
  for (guint i = 0; i < sass->loops->len; i++)
    {
      const MsInstLoop *src = sass->loops->pdata[i];
      Loop loop = { by_ptx_line (wheres, src->lines), by_ptx_line (wheres, src->memory), src, 0,
                    -1, 0, 0 };
      loop.memory_n = table_sum (loop.memory);
      g_array_append_val (loops, loop);
    }
  g_array_sort (loops, by_memory_desc);
  /* loops first; then the straight copies, of a group a loop copies with
   * a larger r (the ladder after an unrolled loop) */
  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < loops->len; i++)
      {
        Loop *loop = &g_array_index (loops, Loop, i);
        if (loop->src->once != (pass == 1))
          continue;
        for (guint j = 0; loop->memory_n > 0 && j < groups->len; j++)
          {
            const Group *g = &g_array_index (groups, Group, j);
            if (g->memory_n == 0 || loop->memory_n % g->memory_n != 0
                || (pass == 1 && g->max_r <= loop->memory_n / g->memory_n))
              continue;
            guint r = loop->memory_n / g->memory_n;
            if ((loop->group < 0 || g->memory_n > loop->memory_n / loop->r)
                && loop_copies (loop, g, r))
              {
                loop->group = (int) j;
                loop->r = r;
              }
          }
        if (pass == 0 && loop->group >= 0)
          {
            Group *g = &g_array_index (groups, Group, loop->group);
            g->max_r = MAX (g->max_r, loop->r);
          }
      }
  g_array_sort (loops, by_r_desc);
  /* each group's runs per entry, to its regions from the largest: a loop
   * as many iterations as fit (all that are left for a loop of r = 1), a
   * straight copy once if it fits */
  for (guint j = 0; j < groups->len; j++)
    {
      Group *g = &g_array_index (groups, Group, j);
      double entries = g->first > 0 && counts[g->first - 1] > 0 ? (double) counts[g->first - 1]
                       : (double) warps;
      double rem = entries > 0 ? (double) counts[g->first] / entries : 0;
      for (guint i = 0; i < loops->len; i++)
        {
          Loop *loop = &g_array_index (loops, Loop, i);
          if (loop->group != (int) j)
            continue;
          double t = loop->r == 1 ? rem : floor (rem / loop->r);
          if (loop->src->once)
            t = MIN (t, 1);
          rem -= t * loop->r;
          loop->trips = t * entries;
          g->matched = TRUE;
        }
      if (g->matched && !copies_ran (loops, (int) j, g, sass->memory_runs))
        {
          /* not copies of the block after all (ptxas fused its loads:
           * four 4-byte loads in one LDS.128 look like one copy) */
          for (guint i = 0; i < loops->len; i++)
            if (g_array_index (loops, Loop, i).group == (int) j)
              g_array_index (loops, Loop, i).group = -1;
          g->matched = FALSE;
        }
      g->rem = rem * entries;
      for (guint k = 0; g->matched && k < map->lines->len; k++)
        {
          const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
          if (l->block >= n || group_of[l->block] != j)
            continue;
          const char *key = keys[k] ? keys[k] : l->where;
          gdouble *e = g_hash_table_lookup (entries_by_line, key);
          if (e == NULL)
            g_hash_table_insert (entries_by_line, (gpointer) key, e = g_new0 (gdouble, 1));
          *e = MAX (*e, entries);
        }
    }
  for (guint b = 0; b < n; b++)
    {
      const Group *g = &g_array_index (groups, Group, group_of[b]);
      /* -1: every run taken (the block's instructions are the loops') */
      counts_left[b] = !g->matched ? (double) counts[b]
                       : g->rem <= 0 ? -1
                       : (double) counts[b] * g->rem / (double) counts[g->first];
    }
  for (guint j = 0; j < groups->len; j++)
    g_hash_table_unref (g_array_index (groups, Group, j).memory);
  return loops;
}

/* --- Blocks whose runs are known ----------------------------------------
 * A SASS basic block runs all its instructions equally often.  The
 * function's first block runs once a warp; a block with a memory
 * instruction not under a predicate runs as often as that instruction,
 * whose runs the models count (memory_runs), when its line's memory
 * instructions are all such ones of the block (then runs of the line /
 * its instructions there); a block with a warp reduction (REDUX, which
 * ptxas runs once for each group of one mask) as often as the engine ran
 * the PTX's reductions of its line, when they are all there.  Several
 * such lines must agree.  Those blocks that no matched loop holds, by the
 * PTX's line: their instructions (known_n, GUINT_TO_POINTER) and those
 * instructions' runs (known_runs, gdouble *). */

/* The counts of chains (by line mark chain), added to any by every
 * location of a chain, and to inner (may be NULL) by its innermost. */
static void
add_locations (GHashTable *any, GHashTable *inner, GHashTable *chains)
{
  GHashTableIter it;
  gpointer key, v;
  g_hash_table_iter_init (&it, chains);
  while (g_hash_table_iter_next (&it, &key, &v))
    {
      g_auto (GStrv) loc = g_strsplit (key, "\t", -1);
      for (guint k = 0; loc[k]; k++)
        {
          if (k == 0 && inner != NULL)
            table_add (inner, loc[k], GPOINTER_TO_UINT (v));
          table_add (any, loc[k], GPOINTER_TO_UINT (v));
        }
    }
}

/* Adds what the block's instructions of one kind (chains: by line mark
 * chain -> count) say of its runs to *runs (-1: nothing yet): for the
 * innermost location of each (every location: !innermost), when every
 * instruction of the kind that names the location (statics: the
 * function's, by location) is the block's, its runs (ran: by location,
 * gdouble *) / its count there.  *agree turns FALSE where two say
 * different runs. */
static void
anchor_runs (GHashTable *chains, GHashTable *statics, GHashTable *ran, gboolean innermost,
             double *runs, gboolean *agree)
{
  if (chains == NULL || statics == NULL || ran == NULL)
    return;
  g_autoptr (GHashTable) inner = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) any = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  add_locations (any, inner, chains);
  GHashTableIter it;
  gpointer key, v;
  g_hash_table_iter_init (&it, innermost ? inner : any);
  while (g_hash_table_iter_next (&it, &key, &v))
    {
      guint c = GPOINTER_TO_UINT (v);
      const gdouble *r = g_hash_table_lookup (ran, key);
      if (r == NULL || lookup_uint (any, key) != c || lookup_uint (statics, key) != c)
        continue;
      if (*runs < 0)
        *runs = *r / c;
      else if (fabs (*r / c - *runs) > 0.001 * *runs + 0.5)
        *agree = FALSE;
    }
}

static void
known_blocks (const MsInstMap *map, const guint64 *counts, const MsInstSass *sass,
              GArray *loops, GHashTable *wheres, guint64 warps, GHashTable *known_n,
              GHashTable *known_runs, GHashTable *known_reduction)
{
  if (sass->blocks == NULL)
    return;
  /* the warp reductions: the SASS's by location, the engine's runs by the
   * PTX's lines (that of the instruction and the call it was inlined at) */
  g_autoptr (GHashTable) reductions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             NULL);
  for (guint i = 0; i < sass->blocks->len; i++)
    {
      const MsInstLoop *b = sass->blocks->pdata[i];
      if (b->reductions != NULL)
        add_locations (reductions, NULL, b->reductions);
    }
  g_autoptr (GHashTable) reduced = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      if (!is_reduction (map, l->block))
        continue;
      const char *where[] = { l->where, l->at };
      for (guint w = 0; w < G_N_ELEMENTS (where); w++)
        if (*where[w] != '\0' && !(w == 1 && strcmp (l->at, l->where) == 0))
          sum_add (reduced, where[w], (double) counts[l->block] * l->n);
    }
  for (guint i = 0; i < sass->blocks->len; i++)
    {
      const MsInstLoop *b = sass->blocks->pdata[i];
      gboolean overlaps = FALSE;
      for (guint j = 0; j < loops->len && !overlaps; j++)
        {
          const Loop *loop = &g_array_index (loops, Loop, j);
          overlaps = loop->group >= 0 && b->first <= loop->src->last
                     && loop->src->first <= b->last;
        }
      if (overlaps)
        continue;
      double runs = b->entry ? (double) warps : -1, by_reduction = -1;
      gboolean agree = TRUE;
      if (!b->entry)
        {
          anchor_runs (b->memory, sass->memory, sass->memory_runs, TRUE, &runs, &agree);
          anchor_runs (b->reductions, reductions, reduced, FALSE, &by_reduction, &agree);
          if (runs >= 0 && by_reduction >= 0 && fabs (runs - by_reduction) > 0.001 * runs + 0.5)
            agree = FALSE;
          runs = runs >= 0 ? runs : by_reduction;
        }
      if (runs < 0 || !agree)
        continue;
      g_autoptr (GHashTable) lines = by_ptx_line (wheres, b->lines);
      GHashTableIter it;
      gpointer key, v;
      g_hash_table_iter_init (&it, lines);
      while (g_hash_table_iter_next (&it, &key, &v))
        {
          sum_add (known_runs, key, runs * GPOINTER_TO_UINT (v));
          table_add (known_n, key, GPOINTER_TO_UINT (v));
          if (by_reduction >= 0)
            g_hash_table_add (known_reduction, g_strdup (key));
        }
    }
}

static void
loops_free (GArray *loops)
{
  for (guint i = 0; loops && i < loops->len; i++)
    {
      Loop *loop = &g_array_index (loops, Loop, i);
      g_hash_table_unref (loop->lines);
      g_hash_table_unref (loop->memory);
    }
  if (loops)
    g_array_unref (loops);
}

/* What the SASS tables have left once the matched loops are taken away:
 * their instructions (lines, predicated ones at most what is left,
 * looped), their memory instructions and those instructions' runs. */
static void
sass_rest (const MsInstSass *sass, GArray *loops, MsInstSass *rest)
{
  *rest = *sass;
  rest->lines = table_copy (sass->lines, FALSE);
  rest->predicated = sass->predicated ? table_copy (sass->predicated, FALSE) : NULL;
  rest->looped = sass->looped ? table_copy (sass->looped, FALSE) : NULL;
  rest->memory = sass->memory ? table_copy (sass->memory, FALSE) : NULL;
  rest->memory_runs = sass->memory_runs ? table_copy (sass->memory_runs, TRUE) : NULL;
  for (guint i = 0; i < loops->len; i++)
    {
      const Loop *loop = &g_array_index (loops, Loop, i);
      if (loop->group < 0)
        continue;
      GHashTableIter it;
      gpointer key, v;
      g_hash_table_iter_init (&it, loop->src->lines);
      while (g_hash_table_iter_next (&it, &key, &v))
        {
          table_sub (rest->lines, key, GPOINTER_TO_UINT (v));
          if (rest->looped)
            table_sub (rest->looped, key, GPOINTER_TO_UINT (v));
          if (rest->predicated)
            table_sub (rest->predicated, key,
                       GPOINTER_TO_UINT (g_hash_table_lookup (rest->predicated, key))
                       - MIN (GPOINTER_TO_UINT (g_hash_table_lookup (rest->predicated, key)),
                              GPOINTER_TO_UINT (g_hash_table_lookup (rest->lines, key))));
        }
      /* memory tables are by "FILE:LINE", each location of a chain */
      g_hash_table_iter_init (&it, loop->src->memory);
      while (g_hash_table_iter_next (&it, &key, &v))
        {
          g_auto (GStrv) loc = g_strsplit (key, "\t", -1);
          for (guint k = 0; loc[k]; k++)
            {
              if (rest->memory)
                table_sub (rest->memory, loc[k], GPOINTER_TO_UINT (v));
              gdouble *runs = rest->memory_runs ? g_hash_table_lookup (rest->memory_runs, loc[k]) : NULL;
              if (runs)
                *runs = MAX (0, *runs - loop->trips * GPOINTER_TO_UINT (v));
            }
        }
    }
}

static void
sass_rest_clear (MsInstSass *rest)
{
  g_clear_pointer (&rest->lines, g_hash_table_unref);
  g_clear_pointer (&rest->predicated, g_hash_table_unref);
  g_clear_pointer (&rest->looped, g_hash_table_unref);
  g_clear_pointer (&rest->memory, g_hash_table_unref);
  g_clear_pointer (&rest->memory_runs, g_hash_table_unref);
}

guint64
ms_inst_executed (const MsInstMap *map, const guint64 *counts, const MsInstSass *sass,
                  guint64 warps, MsInstBasis *basis, GArray **per_line)
{
  *basis = MS_INST_NONE;
  if (per_line)
    *per_line = NULL;
  if (map == NULL || counts == NULL)
    return 0;
  g_autoptr (GHashTable) by_line = sass_by_ptx_line (map, sass), predicated = NULL, looped = NULL;
  g_autoptr (GHashTable) rest_lines = NULL;
  /* the lines the PTX has */
  g_autoptr (GHashTable) wheres = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < map->lines->len; k++)
    g_hash_table_add (wheres, g_array_index (map->lines, MsInstLine, k).where);
  GHashTable *sass_lines = by_line;
  g_autofree const char **keys = line_keys (map, sass_lines);
  /* the blocks' runs the line rule counts: all, but those of the SASS
   * loops that copy a group of blocks (match_loops) */
  g_autofree double *left = g_new (double, map->n_blocks + 1);
  for (guint b = 0; b < map->n_blocks; b++)
    left[b] = (double) counts[b];
  GArray *loops = NULL;
  MsInstSass rest = { 0 };
  g_autoptr (GHashTable) entries = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  if (by_line)
    {
      if (sass->loops)
        loops = match_loops (map, counts, keys, sass, wheres, warps, left, entries);
      else
        loops = g_array_new (FALSE, TRUE, sizeof (Loop));
      sass_rest (sass, loops, &rest);
      rest_lines = by_ptx_line (wheres, rest.lines);
      predicated = rest.predicated ? by_ptx_line (wheres, rest.predicated) : NULL;
      looped = rest.looped ? by_ptx_line (wheres, rest.looped) : NULL;
    }
  g_autoptr (GHashTable) ptx = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  double total = 0;
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      const char *key = keys[k] ? keys[k] : l->where;
      Line *line = g_hash_table_lookup (ptx, key);
      if (line == NULL)
        g_hash_table_insert (ptx, (gpointer) key, line = g_new0 (Line, 1));
      line->runs += MAX (left[l->block], 0) * l->n;
      line->all_runs += (double) counts[l->block] * l->n;
      line->guard += MAX (left[l->guard], 0) * l->n;
      line->n += l->n;
      line->n_left += left[l->block] >= 0 ? l->n : 0;
      line->memory_left += left[l->block] >= 0 ? l->memory : 0;
      line->memory_runs += MAX (left[l->block], 0) * l->memory;
      line->memory += l->memory;
      total += (double) counts[l->block] * l->n;
    }
  if (sass_lines == NULL)
    {
      *basis = MS_INST_PTX;
      return (guint64) (total + 0.5);
    }
  /* the matched loops' instructions, by line: each of their runs */
  g_autoptr (GHashTable) in_loops = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  double executed = 0;
  for (guint i = 0; i < loops->len; i++)
    {
      const Loop *loop = &g_array_index (loops, Loop, i);
      if (loop->group < 0)
        continue;
      GHashTableIter it;
      gpointer key, v;
      g_hash_table_iter_init (&it, loop->lines);
      while (g_hash_table_iter_next (&it, &key, &v))
        {
          double *e = g_hash_table_lookup (in_loops, key);
          if (e == NULL)
            g_hash_table_insert (in_loops, key, e = g_new0 (double, 1));
          *e += loop->trips * GPOINTER_TO_UINT (v);
          executed += loop->trips * GPOINTER_TO_UINT (v);
        }
    }
  g_autoptr (GHashTable) known_n = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) known_runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                             g_free);
  g_autoptr (GHashTable) known_reduction = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                                  NULL);
  known_blocks (map, counts, sass, loops, wheres, warps, known_n, known_runs, known_reduction);
  /* the PTX's warp reductions, by line: their runs and instructions */
  g_autoptr (GHashTable) reduction_runs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                                 g_free);
  g_autoptr (GHashTable) reduction_n = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                              NULL);
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      if (!is_reduction (map, l->block))
        continue;
      const char *key = keys[k] ? keys[k] : l->where;
      sum_add (reduction_runs, key, (double) counts[l->block] * l->n);
      table_add (reduction_n, key, l->n);
    }
  g_autofree double *block_scale = unrolled_blocks (map, counts, keys, ptx, &rest);
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      Line *line = g_hash_table_lookup (ptx, keys[k] ? keys[k] : l->where);
      line->scaled += MAX (left[l->block], 0) * l->n * block_scale[l->block];
    }
  GArray *lines = g_array_new (FALSE, TRUE, sizeof (MsInstLineCount));
  g_array_set_clear_func (lines, count_clear);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, sass_lines);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      /* the line's SASS outside the matched loops */
      double s = lookup_uint (rest_lines, key);
      double p = MIN (lookup_uint (predicated, key), s);
      const Line *line = g_hash_table_lookup (ptx, key);
      /* a line without memory instructions takes its blocks' scale, but
       * keeps at least one SASS instruction a PTX one run */
      double f = line == NULL ? 1 : line->memory ? unrolled_scale (line, &rest, key)
                 : line->runs > 0 ? MAX (line->scaled / line->runs, MIN (1, line->n_left / s)) : 1;
      double e = line != NULL && line->n_left > 0
                   ? (line->runs * (s - p) + line->guard * p) / line->n_left * f
                   : (double) warps * s;
      /* a line whose PTX is all in matched loops: its SASS outside them is
       * code ptxas hoisted out of the loop (run once an entry), but for
       * copies of its memory instructions (the ladder's, which took none
       * of the runs) */
      const gdouble *entered = g_hash_table_lookup (entries, key);
      if (line != NULL && line->n > 0 && line->n_left == 0 && entered != NULL)
        e = *entered * MAX (0, s - lookup_uint (rest.memory, key));
      /* a line no SASS loop encloses runs at most once a warp */
      gboolean once = rest.looped && lookup_uint (looped, key) == 0;
      if (once)
        e = MIN (e, (double) warps * s);
      /* the line's SASS in blocks whose runs are known counts those; the
       * rest of it what the line rule leaves, or, beside a warp reduction
       * (which runs once a group), the line rule on the rest of the PTX */
      guint kn = lookup_uint (known_n, key), rn = lookup_uint (reduction_n, key);
      if (kn > 0)
        {
          double kr = *(const gdouble *) g_hash_table_lookup (known_runs, key);
          double left_ = MAX (0, e - kr);
          if (g_hash_table_contains (known_reduction, key) && line != NULL && line->n_left > rn)
            {
              const gdouble *rr = g_hash_table_lookup (reduction_runs, key);
              left_ = MAX (0, line->runs - (rr ? *rr : 0)) * (s - kn) / (line->n_left - rn);
              if (once)
                left_ = MIN (left_, (double) warps * (s - kn));
            }
          e = kr + (s > kn ? left_ : 0);
        }
      const double *in_loop = g_hash_table_lookup (in_loops, key);
      e += in_loop ? *in_loop : 0;
      executed += e - (in_loop ? *in_loop : 0);
      MsInstLineCount c = { g_strdup (key), line ? line->n : 0, line ? line->all_runs : 0,
                            GPOINTER_TO_UINT (value), e };
      g_array_append_val (lines, c);
    }
  /* PTX lines ptxas left no instruction on */
  g_hash_table_iter_init (&it, ptx);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (!g_hash_table_contains (sass_lines, key))
      {
        const Line *line = value;
        MsInstLineCount c = { g_strdup (key), line->n, line->all_runs, 0, 0 };
        g_array_append_val (lines, c);
      }
  g_array_sort (lines, by_where);
  if (per_line)
    *per_line = lines;
  else
    g_array_unref (lines);
  sass_rest_clear (&rest);
  loops_free (loops);
  *basis = MS_INST_SASS_LINES;
  return (guint64) (executed + 0.5);
}
