/* report-races.c - the race check's findings in a report (see report.h):
 * the shared-memory races between warps that --allow-races let through and
 * the intra-warp hazards (a warning on sm_70+), each as a count of lane
 * accesses and the first MS_RACES_LISTED pairs of sites, in the order the
 * emulator found them. */
#include "config.h"
#include "report.h"

static char *
source_line (gpointer data, const MsSite *site)
{
  return ms_run_info_source_line (data, site);
}

static void
append_text (const MsTraceReport *r, gboolean intra, GString *out)
{
  const MsRaceLog *log = r->races;
  guint64 n = intra ? log->n_warp_hazards : log->n_races;
  if (n == 0)
    return;
  guint pairs = ms_race_log_pairs (log, intra);
  if (intra)
    g_string_append (out, "\nIntra-warp hazards (warning: lanes of one warp touch the same "
                          "shared bytes with no __syncwarp between; sm_70+ does not run them "
                          "in lockstep)");
  else
    g_string_append (out, "\nShared-memory races between warps (no __syncthreads between; "
                          "allowed by --allow-races)");
  g_string_append_printf (out, ": %" G_GUINT64_FORMAT " lane accesses at %u pair%s of sites\n",
                          n, pairs, pairs == 1 ? "" : "s");
  guint shown = 0;
  for (guint i = 0; i < log->races->len && shown < MS_RACES_LISTED; i++)
    {
      const MsRace *race = &g_array_index (log->races, MsRace, i);
      if (!race->intra_warp != !intra)
        continue;
      g_autofree char *what = ms_race_describe (race, source_line, (gpointer) r->info);
      g_string_append_printf (out, "  %u. %s: %" G_GUINT64_FORMAT " time%s\n", ++shown, what,
                              race->count, race->count == 1 ? "" : "s");
    }
  if (pairs > shown)
    g_string_append_printf (out, "  ... and %u more pair%s of sites\n", pairs - shown,
                            pairs - shown == 1 ? "" : "s");
}

static void
add_side (JsonBuilder *b, const char *name, const MsRaceSide *side, const MsTraceReport *r)
{
  g_autofree char *text = ms_run_info_source_line (r->info, side->site);
  json_builder_set_member_name (b, name);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "line");
  json_builder_add_int_value (b, side->site->line);
  json_builder_set_member_name (b, "source");
  json_builder_add_string_value (b, text ? text : "");
  json_builder_set_member_name (b, "op");
  json_builder_add_string_value (b, ms_op_name ((MsOp) side->op));
  json_builder_set_member_name (b, "warp");
  json_builder_add_int_value (b, side->warp);
  json_builder_set_member_name (b, "thread");
  json_builder_begin_array (b);
  for (int d = 0; d < 3; d++)
    json_builder_add_int_value (b, side->thread[d]);
  json_builder_end_array (b);
  json_builder_end_object (b);
}

static void
add_list (JsonBuilder *b, const MsTraceReport *r, gboolean intra)
{
  const MsRaceLog *log = r->races;
  json_builder_set_member_name (b, "lane_accesses");
  json_builder_add_int_value (b, (gint64) (intra ? log->n_warp_hazards : log->n_races));
  json_builder_set_member_name (b, "site_pairs");
  json_builder_add_int_value (b, ms_race_log_pairs (log, intra));
  json_builder_set_member_name (b, "listed");
  json_builder_begin_array (b);
  guint shown = 0;
  for (guint i = 0; i < log->races->len && shown < MS_RACES_LISTED; i++)
    {
      const MsRace *race = &g_array_index (log->races, MsRace, i);
      if (!race->intra_warp != !intra)
        continue;
      shown++;
      json_builder_begin_object (b);
      add_side (b, "first", &race->first, r);
      add_side (b, "second", &race->second, r);
      json_builder_set_member_name (b, "block");
      json_builder_begin_array (b);
      for (int d = 0; d < 3; d++)
        json_builder_add_int_value (b, race->block[d]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "shared_offset");
      json_builder_add_int_value (b, race->offset);
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, (gint64) race->count);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
}

void
ms_races_report_text (const MsTraceReport *r, GString *out)
{
  if (r->races == NULL)
    return;
  append_text (r, FALSE, out);
  append_text (r, TRUE, out);
}

void
ms_races_report_json (const MsTraceReport *r, JsonBuilder *b)
{
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "between_warps");
  json_builder_begin_object (b);
  add_list (b, r, FALSE);
  json_builder_end_object (b);
  json_builder_set_member_name (b, "intra_warp");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "checked");
  json_builder_add_boolean_value (b, r->races->warp_hazards_checked);
  add_list (b, r, TRUE);
  json_builder_end_object (b);
  json_builder_end_object (b);
}
