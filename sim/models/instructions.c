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
 *  - ptxas unrolls or versions some loops again (a loop with a run-time
 *    trip count: an unrolled body and a remainder): a line's SASS then
 *    has more copies than run.  Where the line has memory instructions,
 *    whose SASS executions the models know exactly, the line's count is
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
 */
#include "config.h"

#include "instructions.h"

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
  if (line->memory == 0 || line->memory_runs <= 0 || s_mem <= 0 || s_runs == NULL)
    return 1;
  double f = (*s_runs / line->memory_runs) / (s_mem / line->memory);
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

guint64
ms_inst_executed (const MsInstMap *map, const guint64 *counts, const MsInstSass *sass,
                  guint64 warps, MsInstBasis *basis, GArray **per_line)
{
  g_autoptr (GHashTable) by_line = sass_by_ptx_line (map, sass), predicated = NULL, looped = NULL;
  if (by_line)
    {
      /* the lines the PTX has */
      g_autoptr (GHashTable) wheres = g_hash_table_new (g_str_hash, g_str_equal);
      for (guint k = 0; k < map->lines->len; k++)
        g_hash_table_add (wheres, g_array_index (map->lines, MsInstLine, k).where);
      predicated = sass->predicated ? by_ptx_line (wheres, sass->predicated) : NULL;
      looped = sass->looped ? by_ptx_line (wheres, sass->looped) : NULL;
    }
  GHashTable *sass_lines = by_line;
  *basis = MS_INST_NONE;
  if (per_line)
    *per_line = NULL;
  if (map == NULL || counts == NULL)
    return 0;
  g_autoptr (GHashTable) ptx = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  double total = 0;
  g_autofree const char **keys = line_keys (map, sass_lines);
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      const char *key = keys[k] ? keys[k] : l->where;
      Line *line = g_hash_table_lookup (ptx, key);
      if (line == NULL)
        g_hash_table_insert (ptx, (gpointer) key, line = g_new0 (Line, 1));
      line->runs += (double) counts[l->block] * l->n;
      line->guard += (double) counts[l->guard] * l->n;
      line->n += l->n;
      line->memory_runs += (double) counts[l->block] * l->memory;
      line->memory += l->memory;
      total += (double) counts[l->block] * l->n;
    }
  if (sass_lines == NULL)
    {
      *basis = MS_INST_PTX;
      return (guint64) (total + 0.5);
    }
  g_autofree double *block_scale = unrolled_blocks (map, counts, keys, ptx, sass);
  for (guint k = 0; k < map->lines->len; k++)
    {
      const MsInstLine *l = &g_array_index (map->lines, MsInstLine, k);
      Line *line = g_hash_table_lookup (ptx, keys[k] ? keys[k] : l->where);
      line->scaled += (double) counts[l->block] * l->n * block_scale[l->block];
    }
  double executed = 0;
  GArray *lines = g_array_new (FALSE, TRUE, sizeof (MsInstLineCount));
  g_array_set_clear_func (lines, count_clear);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, sass_lines);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      double s = GPOINTER_TO_UINT (value);
      double p = lookup_uint (predicated, key);
      const Line *line = g_hash_table_lookup (ptx, key);
      /* a line without memory instructions takes its blocks' scale, but
       * keeps at least one SASS instruction a PTX one run */
      double f = line == NULL ? 1 : line->memory ? unrolled_scale (line, sass, key)
                 : line->runs > 0 ? MAX (line->scaled / line->runs, MIN (1, line->n / s)) : 1;
      double e = line != NULL && line->n > 0
                   ? (line->runs * (s - p) + line->guard * p) / line->n * f
                   : (double) warps * s;
      /* a line no SASS loop encloses runs at most once a warp */
      if (sass->looped && lookup_uint (looped, key) == 0)
        e = MIN (e, (double) warps * s);
      executed += e;
      MsInstLineCount c = { g_strdup (key), line ? line->n : 0, line ? line->runs : 0,
                            GPOINTER_TO_UINT (value), e };
      g_array_append_val (lines, c);
    }
  /* PTX lines ptxas left no instruction on */
  g_hash_table_iter_init (&it, ptx);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (!g_hash_table_contains (sass_lines, key))
      {
        const Line *line = value;
        MsInstLineCount c = { g_strdup (key), line->n, line->runs, 0, 0 };
        g_array_append_val (lines, c);
      }
  g_array_sort (lines, by_where);
  if (per_line)
    *per_line = lines;
  else
    g_array_unref (lines);
  *basis = MS_INST_SASS_LINES;
  return (guint64) (executed + 0.5);
}
