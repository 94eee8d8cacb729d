/* report-time.c - the predicted kernel time in trace reports (report-time.h). */
#include "config.h"
#include "report-time.h"

#include <json-glib/json-glib.h>

void
ms_time_report_append (const MsTimePrediction *t, const MsArch *arch, guint64 bytes,
                       MsFormat format, GString *out)
{
  g_autofree char *bound = ms_time_bound_text (t, arch);
  double gbs = ms_time_gbs (t, bytes);
  const char *names[11] = { "launch", "dispatch", "dram", "l2", "atomics", "lsu", "issue",
                            "latency" };
  double terms[11] = { t->t_launch, t->t_dispatch, t->t_dram, t->t_l2, t->t_atomics, t->t_lsu,
                       t->t_issue, t->t_latency };
  guint n_terms = 8;
  /* the host link's term only for a launch that uses mapped host memory,
   * the device runtime's for one that calls it */
  if (t->host_bytes > 0)
    {
      names[n_terms] = "host";
      terms[n_terms++] = t->t_host;
    }
  if (t->runtime_calls > 0)
    {
      names[n_terms] = "runtime";
      terms[n_terms++] = t->t_runtime;
    }
  if (format == MS_FORMAT_TEXT)
    {
      g_string_append_printf (out, "\nPredicted time (%s model, docs/model.md)\n", arch->name);
      g_string_append_printf (out, "  gpu__time_duration.sum      %.4f ms   %s\n", t->seconds * 1e3,
                              bound);
      g_string_append_printf (out, "  memsim__event_time          %.4f ms   (+ %.4f ms launch latency: "
                              "what CUDA events around the launch see)\n",
                              t->event_seconds * 1e3, t->t_event_latency * 1e3);
      g_string_append_printf (out, "  effective bandwidth         %.1f GB/s (%" G_GUINT64_FORMAT
                              " bytes of buffers / event time)\n", gbs, bytes);
      g_string_append (out, "  resources (ms)             ");
      for (guint i = 0; i < n_terms; i++)
        g_string_append_printf (out, " %s %.4f", names[i], terms[i] * 1e3);
      g_string_append_printf (out, "   waves %.0f\n", t->waves);
      return;
    }
  if (format != MS_FORMAT_JSON)
    return;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "gpu__time_duration.sum");
  json_builder_add_double_value (b, t->seconds * 1e9);
  json_builder_set_member_name (b, "memsim__event_time");
  json_builder_add_double_value (b, t->event_seconds * 1e9);
  json_builder_set_member_name (b, "bound");
  json_builder_add_string_value (b, bound);
  json_builder_set_member_name (b, "effective_gbs");
  json_builder_add_double_value (b, gbs);
  json_builder_set_member_name (b, "waves");
  json_builder_add_double_value (b, t->waves);
  json_builder_set_member_name (b, "atomic_busiest_line_passes");
  json_builder_add_int_value (b, (gint64) t->atomic_passes);
  json_builder_set_member_name (b, "l2_load_requests");
  json_builder_add_int_value (b, (gint64) t->l2_loads);
  json_builder_set_member_name (b, "dram_load_requests");
  json_builder_add_int_value (b, (gint64) t->dram_loads);
  json_builder_set_member_name (b, "resources_ns");
  json_builder_begin_object (b);
  for (guint i = 0; i < n_terms; i++)
    {
      json_builder_set_member_name (b, names[i]);
      json_builder_add_double_value (b, terms[i] * 1e9);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
  ms_report_json_add_member (out, "time", json_builder_get_root (b));
}
