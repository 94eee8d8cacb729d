/* races.c - the log of shared-memory races and intra-warp hazards (see
 * races.h). */
#include "config.h"
#include "races.h"

#include <string.h>

MsRaceLog *
ms_race_log_new (void)
{
  MsRaceLog *log = g_new0 (MsRaceLog, 1);
  log->races = g_array_new (FALSE, FALSE, sizeof (MsRace));
  return log;
}

void
ms_race_log_free (MsRaceLog *log)
{
  if (log == NULL)
    return;
  g_array_unref (log->races);
  g_free (log);
}

void
ms_race_log_clear (MsRaceLog *log)
{
  g_array_set_size (log->races, 0);
  log->n_races = log->n_warp_hazards = 0;
}

static gboolean
same_pair (const MsRace *a, const MsRace *b)
{
  return a->first.site == b->first.site && a->second.site == b->second.site
         && a->first.op == b->first.op && a->second.op == b->second.op
         && a->intra_warp == b->intra_warp;
}

static gboolean
found_before (const MsRace *a, const MsRace *b)
{
  return a->found_block < b->found_block
         || (a->found_block == b->found_block && a->found_seq < b->found_seq);
}

MsRace *
ms_race_log_add (MsRaceLog *log, const MsRace *race)
{
  if (race->intra_warp)
    log->n_warp_hazards += race->count;
  else
    log->n_races += race->count;
  for (guint i = 0; i < log->races->len; i++)
    {
      MsRace *r = &g_array_index (log->races, MsRace, i);
      if (!same_pair (r, race))
        continue;
      guint64 count = r->count + race->count;
      if (found_before (race, r))
        *r = *race;
      r->count = count;
      return r;
    }
  g_array_append_val (log->races, *race);
  return &g_array_index (log->races, MsRace, log->races->len - 1);
}

void
ms_race_log_merge (MsRaceLog *into, const MsRaceLog *from)
{
  for (guint i = 0; i < from->races->len; i++)
    ms_race_log_add (into, &g_array_index (from->races, MsRace, i));
  into->warp_hazards_checked |= from->warp_hazards_checked;
}

static gint
compare_found (gconstpointer a, gconstpointer b)
{
  const MsRace *x = a, *y = b;
  return found_before (x, y) ? -1 : found_before (y, x) ? 1 : 0;
}

void
ms_race_log_sort (MsRaceLog *log)
{
  g_array_sort (log->races, compare_found);
}

guint
ms_race_log_pairs (const MsRaceLog *log, gboolean intra_warp)
{
  guint n = 0;
  for (guint i = 0; i < log->races->len; i++)
    n += !g_array_index (log->races, MsRace, i).intra_warp == !intra_warp;
  return n;
}

const char *
ms_race_op_text (guint8 op)
{
  return op == MS_OP_LD ? "a read" : op == MS_OP_ST ? "a write" : "an atomic";
}

static void
append_side (GString *s, const MsRaceSide *side, MsSourceLineFn source_line, gpointer data)
{
  const char *base = strrchr (side->site->file, '/');
  g_string_append_printf (s, "%s:%d", base ? base + 1 : side->site->file, side->site->line);
  g_autofree char *text = source_line ? source_line (data, side->site) : NULL;
  if (text != NULL && *text != '\0')
    g_string_append_printf (s, " `%s`", text);
  g_string_append_printf (s, " (%s by warp %u, thread (%u,%u,%u))", ms_race_op_text (side->op),
                          side->warp, side->thread[0], side->thread[1], side->thread[2]);
}

char *
ms_race_describe (const MsRace *race, MsSourceLineFn source_line, gpointer data)
{
  GString *s = g_string_new (NULL);
  append_side (s, &race->first, source_line, data);
  g_string_append (s, " and ");
  append_side (s, &race->second, source_line, data);
  g_string_append_printf (s, ", block (%u,%u,%u), shared byte %u", race->block[0],
                          race->block[1], race->block[2], race->offset);
  return g_string_free (s, FALSE);
}
