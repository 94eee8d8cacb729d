/* stats.c - per-site counters (see stats.h). */
#include "config.h"
#include "stats.h"

MsStats *
ms_stats_new (void)
{
  MsStats *s = g_new0 (MsStats, 1);
  s->sites = g_array_new (FALSE, TRUE, sizeof (MsSiteStats));
  return s;
}

void
ms_stats_free (MsStats *stats)
{
  if (stats == NULL)
    return;
  g_array_unref (stats->sites);
  if (stats->inst_lines)
    g_array_unref (stats->inst_lines);
  g_free (stats);
}

void
ms_counters_add (MsCounters *into, const MsCounters *c)
{
  into->executions += c->executions;
  into->lanes += c->lanes;
  into->partial += c->partial;
  into->bytes += c->bytes;
  into->async_copies += c->async_copies;
  for (guint i = 0; i < MS_COUNTER_SLOTS; i++)
    into->v[i] += c->v[i];
}

static inline guint64
scale_one (guint64 v, guint64 num, guint64 den)
{
  return (guint64) (((unsigned __int128) v * num + den / 2) / den);
}

void
ms_counters_scale (MsCounters *c, guint64 num, guint64 den)
{
  c->executions = scale_one (c->executions, num, den);
  c->lanes = scale_one (c->lanes, num, den);
  c->partial = scale_one (c->partial, num, den);
  c->bytes = scale_one (c->bytes, num, den);
  c->async_copies = scale_one (c->async_copies, num, den);
  for (guint i = 0; i < MS_COUNTER_SLOTS; i++)
    c->v[i] = scale_one (c->v[i], num, den);
}

void
ms_stats_total (const MsStats *stats, MsSpace space, int op, MsCounters *out)
{
  *out = (MsCounters) { 0 };
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (stats->sites, MsSiteStats, i);
      if (s->space == space && (op < 0 || (int) s->op == op))
        ms_counters_add (out, &s->c);
    }
  for (guint o = 0; space == MS_SPACE_GLOBAL && o < MS_N_OPS; o++)
    if (op < 0 || (int) o == op)
      ms_counters_add (out, &stats->runtime_own[o]);
}
