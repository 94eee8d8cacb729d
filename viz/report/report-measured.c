/* report-measured.c - a run's simulated numbers beside the ones measured on
 * a GPU (`memsim trace KERNEL --gpu`): text, JSON and CSV (see report.h).
 * gpu/side-by-side.c measures and builds the rows; this file only writes. */
#include "config.h"
#include "report.h"

#include <json-glib/json-glib.h>

static char *
version_string (int v)
{
  return g_strdup_printf ("%d.%d", v / 1000, v % 1000 / 10);
}

static void
write_text (const MsMeasuredRun *g, const MsTraceReport *r, const GArray *rows, GString *out)
{
  ms_report_write (r, MS_FORMAT_TEXT, out);
  g_autofree char *drv = version_string (g->driver_version);
  g_autofree char *rt = version_string (g->runtime_version);
  g_string_append_printf (out, "\nGPU: %s (sm_%d%d, driver %s, CUDA runtime %s)\n", g->device,
                          g->cc_major, g->cc_minor, drv, rt);
  if (r->arch_note != NULL)
    g_string_append_printf (out, "  preset:        %s\n", r->arch_note);
  g_string_append_printf (out, "  output check:  %s\n", g->output_check);
  g_string_append_printf (out, "  time:          %.4f ms median of %d launches by CUDA events "
                               "(memsim__event_time), L2 flushed before each (warm L2: %.4f ms)\n",
                          g->time_ms, g->repeats, g->time_warm_ms);
  g_string_append_printf (out, "  bandwidth:     %.1f GB/s effective (%" G_GUINT64_FORMAT
                               " bytes: every buffer read or written once, / time)\n",
                          g->bandwidth_gbs, g->bytes);
  if (g->traced)
    g_string_append_printf (out, "  address trace: %s\n", g->trace_message);
  g_string_append_printf (out, "\n%-64s %14s %14s %12s\n", "Metric", "simulated", "measured",
                          "difference");
  for (guint i = 0; i < rows->len; i++)
    {
      const MsMeasuredRow *row = &g_array_index (rows, MsMeasuredRow, i);
      g_string_append_printf (out, "%-64s", row->metric);
      if (row->have_sim)
        g_string_append_printf (out, " %14" G_GUINT64_FORMAT, row->simulated);
      else
        g_string_append_printf (out, " %14s", "-");
      if (row->have_measured)
        g_string_append_printf (out, " %14.0f", row->measured);
      else
        g_string_append_printf (out, " %14s", "n/a");
      if (row->have_sim && row->have_measured && row->kind == MS_ROW_PREDICTED)
        g_string_append_printf (out, " %+11.1f%%", row->simulated
                                ? 100.0 * (row->measured - (double) row->simulated)
                                    / (double) row->simulated : 0.0);
      else if (row->have_sim && row->have_measured)
        g_string_append_printf (out, " %+12.0f", row->measured - (double) row->simulated);
      else
        g_string_append_printf (out, " %12s", "-");
      if (row->note)
        g_string_append_printf (out, "  %s%s", row->mismatch ? "<< " : "", row->note);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, "(global atomics: ATOM, reductions: RED instructions; the exact metrics "
                        "are every simulated one but the bank conflicts)\n");
  if (g->exact_mismatches == 0)
    g_string_append (out, "every exact metric agrees\n");
  else
    g_string_append_printf (out, "%u exact metric(s) differ\n", g->exact_mismatches);
}

static void
add_number (JsonBuilder *b, double v)
{
  if (ms_is_integral (v) && v < 9e15 && v > -9e15)
    json_builder_add_int_value (b, ms_round_to_int (v));
  else
    json_builder_add_double_value (b, v);
}

static void
write_json (const MsMeasuredRun *g, const MsTraceReport *r, const GArray *rows, GString *out)
{
  g_autoptr (GString) sim = g_string_new (NULL);
  ms_report_write (r, MS_FORMAT_JSON, sim);
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, sim->str, (gssize) sim->len, NULL))
    {
      g_string_append (out, sim->str);
      return;
    }
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));

  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const MsMeasuredRow *row = &g_array_index (rows, MsMeasuredRow, i);
      if (!row->have_measured)
        continue;
      json_builder_set_member_name (b, row->metric);
      add_number (b, row->measured);
    }
  json_builder_end_object (b);
  json_object_set_member (root, "measured", json_builder_get_root (b));

  /* every counter read, as read (RED twins of the atomics, unavailable ones: null) */
  json_builder_reset (b);
  json_builder_begin_object (b);
  for (guint i = 0; g->raw && i < g->raw->len; i++)
    {
      const MsMeasuredRaw *m = &g_array_index (g->raw, MsMeasuredRaw, i);
      json_builder_set_member_name (b, m->name);
      if (m->available)
        add_number (b, m->value);
      else
        json_builder_add_null_value (b);
    }
  json_builder_end_object (b);
  json_object_set_member (root, "measured_raw", json_builder_get_root (b));

  json_builder_reset (b);
  json_builder_begin_object (b);
  g_autofree char *cc = g_strdup_printf ("%d.%d", g->cc_major, g->cc_minor);
  g_autofree char *drv = version_string (g->driver_version);
  g_autofree char *rt = version_string (g->runtime_version);
  const char *keys[] = { "name", "cc", "driver", "runtime", "source", "output_check" };
  const char *vals[] = { g->device, cc, drv, rt, g->source, g->output_check };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      json_builder_set_member_name (b, keys[i]);
      json_builder_add_string_value (b, vals[i]);
    }
  if (r->arch_note != NULL)
    {
      json_builder_set_member_name (b, "preset");
      json_builder_add_string_value (b, r->arch_note);
    }
  json_builder_set_member_name (b, "output_ok");
  json_builder_add_boolean_value (b, g->output_ok);
  json_builder_set_member_name (b, "time_ms");
  json_builder_add_double_value (b, g->time_ms);
  json_builder_set_member_name (b, "time_warm_ms");
  json_builder_add_double_value (b, g->time_warm_ms);
  json_builder_set_member_name (b, "repeats");
  json_builder_add_int_value (b, g->repeats);
  json_builder_set_member_name (b, "bytes");
  json_builder_add_int_value (b, (gint64) g->bytes);
  json_builder_set_member_name (b, "bandwidth_gbs");
  json_builder_add_double_value (b, g->bandwidth_gbs);
  json_builder_set_member_name (b, "exact_mismatches");
  json_builder_add_int_value (b, g->exact_mismatches);
  if (g->traced)
    {
      json_builder_set_member_name (b, "trace_check");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "identical");
      json_builder_add_boolean_value (b, g->trace_identical);
      json_builder_set_member_name (b, "grouping_identical");
      json_builder_add_boolean_value (b, g->grouping_identical);
      json_builder_set_member_name (b, "lane_accesses");
      json_builder_add_int_value (b, (gint64) g->lane_accesses);
      json_builder_set_member_name (b, "emulator_accesses");
      json_builder_add_int_value (b, (gint64) g->emulator_accesses);
      json_builder_set_member_name (b, "gpu_accesses");
      json_builder_add_int_value (b, (gint64) g->gpu_accesses);
      if (g->shared_seen)
        {
          json_builder_set_member_name (b, "shared_base");
          json_builder_add_int_value (b, g->shared_base);
        }
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, g->trace_message);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_object_set_member (root, "gpu", json_builder_get_root (b));

  json_builder_reset (b);
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const MsMeasuredRow *row = &g_array_index (rows, MsMeasuredRow, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "metric");
      json_builder_add_string_value (b, row->metric);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, ms_row_kind_name (row->kind));
      json_builder_set_member_name (b, "simulated");
      if (row->have_sim)
        json_builder_add_int_value (b, (gint64) row->simulated);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "measured");
      if (row->have_measured)
        add_number (b, row->measured);
      else
        json_builder_add_null_value (b);
      json_builder_set_member_name (b, "mismatch");
      json_builder_add_boolean_value (b, row->mismatch);
      if (row->note)
        {
          json_builder_set_member_name (b, "note");
          json_builder_add_string_value (b, row->note);
        }
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_object_set_member (root, "comparison", json_builder_get_root (b));

  ms_report_append_json (json_parser_get_root (parser), out);
}

const char *
ms_row_kind_name (MsRowKind kind)
{
  switch (kind)
    {
    case MS_ROW_EXACT: return "exact";
    case MS_ROW_APPROX: return "approximate";
    case MS_ROW_PREDICTED: return "predicted";
    default: return "measured-only";
    }
}

static void
write_csv (const MsTraceReport *r, const GArray *rows, GString *out)
{
  g_string_append (out, "kernel,metric,kind,simulated,measured,difference,note\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const MsMeasuredRow *row = &g_array_index (rows, MsMeasuredRow, i);
      g_string_append_printf (out, "%s,%s,%s,", r->info->kernel, row->metric,
                              ms_row_kind_name (row->kind));
      if (row->have_sim)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT, row->simulated);
      g_string_append_c (out, ',');
      if (row->have_measured)
        g_string_append_printf (out, "%.0f", row->measured);
      g_string_append_c (out, ',');
      if (row->have_sim && row->have_measured)
        g_string_append_printf (out, "%.0f", row->measured - (double) row->simulated);
      g_string_append_printf (out, ",\"%s\"\n", row->note ? row->note : "");
    }
}

void
ms_report_write_measured (const MsTraceReport *r, const MsMeasuredRun *m, const GArray *rows,
                          MsFormat format, GString *out)
{
  switch (format)
    {
    case MS_FORMAT_JSON: write_json (m, r, rows, out); break;
    case MS_FORMAT_CSV: write_csv (r, rows, out); break;
    default: write_text (m, r, rows, out); break;
    }
}
