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
  g_free (stats);
}

void
ms_counters_add (MsCounters *into, const MsCounters *c)
{
  into->executions += c->executions;
  into->lanes += c->lanes;
  into->partial += c->partial;
  into->bytes += c->bytes;
  for (guint i = 0; i < MS_COUNTER_SLOTS; i++)
    into->v[i] += c->v[i];
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
}
