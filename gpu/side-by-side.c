/* side-by-side.c - simulated vs measured (see side-by-side.h). */
#include "config.h"
#include "side-by-side.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "backend.h"
#include "trace-check.h"

struct MsGpuSession {
  MsGpuOptions opts;
  const MsProblem *p;
  MsGpuSnapshot *snapshot;
  MsTraceCollector *collector;
  MsGpuResult *result;
  char *output_check;
  gboolean output_ok;
  gboolean traced;
  MsTraceCheck trace;
  guint exact_mismatches;
  char *failure;
};

void
ms_gpu_options_add (GOptionContext *ctx, MsGpuOptions *opts)
{
  GOptionEntry entries[] = {
    { "gpu", 0, 0, G_OPTION_ARG_NONE, &opts->gpu,
      "Also run the kernel on the GPU: check its output, measure its counters (CUPTI) and "
      "time, and print them beside the simulated ones", NULL },
    { "strict", 0, 0, G_OPTION_ARG_NONE, &opts->strict,
      "With --gpu: exit with status 1 if an exact metric or the address trace differs", NULL },
    { "check-trace", 0, 0, G_OPTION_ARG_NONE, &opts->check_trace,
      "With --gpu: record the GPU's own address trace and compare it with the emulator's, "
      "access by access", NULL },
    { "save-gpu-trace", 0, 0, G_OPTION_ARG_FILENAME, &opts->save_gpu_trace,
      "With --gpu: also write the GPU's own address trace to FILE (memsim trace format; "
      "`memsim replay FILE --arch A` costs it on any preset; implies --check-trace)", "FILE" },
    { NULL },
  };
  g_option_context_add_main_entries (ctx, entries, NULL);
}

MsGpuSession *
ms_gpu_session_begin (const MsGpuOptions *opts, const MsProblem *p, MsSinks *sinks,
                      GError **error)
{
  if (!opts->gpu && !opts->strict && !opts->check_trace && !opts->save_gpu_trace)
    return NULL;
  if (!ms_gpu_available (NULL, error))
    return NULL;
  if (p->kernel->gpu_entry == NULL)
    {
      g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_KERNEL, "kernel %s has no GPU build",
                   p->kernel->name);
      return NULL;
    }
  MsGpuSession *s = g_new0 (MsGpuSession, 1);
  s->opts = *opts;
  s->opts.gpu = TRUE;   /* --strict and --check-trace imply --gpu */
  s->opts.check_trace |= opts->save_gpu_trace != NULL;
  s->p = p;
  s->snapshot = ms_gpu_snapshot_new (p);
  if (opts->check_trace)
    {
      s->collector = ms_trace_collector_new ();
      ms_sinks_add (sinks, &s->collector->sink);
    }
  return s;
}

void
ms_gpu_session_free (MsGpuSession *s)
{
  if (s == NULL)
    return;
  ms_gpu_snapshot_free (s->snapshot);
  ms_trace_collector_free (s->collector);
  ms_gpu_result_free (s->result);
  g_free (s->output_check);
  ms_trace_check_clear (&s->trace);
  g_free (s->failure);
  g_free (s);
}

gboolean
ms_gpu_session_run (MsGpuSession *s, GError **error)
{
  guint flags = MS_GPU_RUN_OUTPUT | MS_GPU_RUN_COUNTERS | MS_GPU_RUN_DRAM | MS_GPU_RUN_TIME;
  if (s->opts.check_trace)
    flags |= MS_GPU_RUN_TRACE;
  s->result = ms_gpu_run (s->p, s->snapshot, flags, error);
  if (s->result == NULL)
    return FALSE;
  s->output_ok = ms_gpu_check_outputs (s->p, s->result, &s->output_check);
  if (s->opts.check_trace)
    {
      /* MEMSIM_TRACE_DUMP=DIR: the first differing warp's records, as evidence */
      const char *dir = g_getenv ("MEMSIM_TRACE_DUMP");
      g_autofree char *dump = dir ? g_build_filename (dir, s->p->kernel->name, NULL) : NULL;
      ms_trace_compare (s->collector->records, s->collector->total, s->result->trace,
                        s->result->trace_total, s->p->kernel->source, dump, &s->trace);
      s->traced = TRUE;
    }
  if (s->opts.save_gpu_trace
      && !ms_gpu_trace_save (s->p, s->result, s->output_ok ? "passed" : s->output_check,
                             s->opts.save_gpu_trace, error))
    {
      g_prefix_error (error, "--save-gpu-trace: ");
      return FALSE;
    }
  return TRUE;
}

/* ------------------------------------------------------------ the rows */

typedef enum { ROW_EXACT, ROW_APPROX, ROW_MEASURED_ONLY } RowKind;

typedef struct {
  const char *metric;
  RowKind kind;
  gboolean have_sim, have_measured;
  guint64 simulated;
  double measured;
  const char *note;     /* NULL when they agree */
  gboolean mismatch;    /* an exact metric that differs */
} Row;

/* No libm: memsim links without it where CUDA is absent. */
static gint64
round_to_int (double v)
{
  return (gint64) (v < 0 ? v - 0.5 : v + 0.5);
}

static gboolean
is_integral (double v)
{
  double d = v - (double) round_to_int (v);
  return d < 1e-6 && d > -1e-6;
}

static const char *const whats[] = { "inst", "requests", "sectors", "wavefronts", "conflicts" };

static guint64
counter_of (const MsCounters *c, guint w)
{
  switch (w)
    {
    case 0: return c->executions;
    case 1: return c->v[MS_SLOT_REQUESTS];
    case 2: return c->v[MS_SLOT_SECTORS];
    case 3: return c->v[MS_SLOT_WAVEFRONTS];
    default: return c->v[MS_SLOT_EXCESSIVE];
    }
}

static GArray *
build_rows (MsGpuSession *s, const MsStats *stats)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (Row));
  s->exact_mismatches = 0;
  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    for (int op = MS_OP_LD; op <= MS_OP_ATOMIC; op++)
      {
        MsCounters c;
        ms_stats_total (stats, (MsSpace) sp, op, &c);
        double inst_measured = 0;
        gboolean have_inst = ms_gpu_result_metric (
          s->result, ms_metric_name ((MsSpace) sp, (MsOp) op, "inst"), &inst_measured);
        if (op == MS_OP_ATOMIC && c.executions == 0 && (!have_inst || inst_measured == 0))
          continue;
        gboolean inst_differs = have_inst && (guint64) round_to_int (inst_measured) != c.executions;
        for (guint w = 0; w < G_N_ELEMENTS (whats); w++)
          {
            const char *name = ms_metric_name ((MsSpace) sp, (MsOp) op, whats[w]);
            if (name == NULL)
              continue;
            Row row = { .metric = name, .have_sim = TRUE, .simulated = counter_of (&c, w) };
            row.kind = w == 4 ? ROW_APPROX : ROW_EXACT;
            row.have_measured = ms_gpu_result_metric (s->result, name, &row.measured);
            if (!row.have_measured)
              row.note = "not available on this GPU";
            else if ((guint64) round_to_int (row.measured) != row.simulated
                     || !is_integral (row.measured))
              {
                if (row.kind == ROW_APPROX)
                  row.note = "approximate metric: it also counts conflicts from other traffic "
                             "(arbitration); compare the wavefronts";
                else if (w == 0)
                  row.note = "instruction count differs: the compiler vectorised/split "
                             "accesses; see SASS";
                else if (inst_differs)
                  row.note = "follows from the instruction count (compiler), not the model";
                else
                  row.note = "MISMATCH: same instructions, different count (model error?)";
                row.mismatch = row.kind == ROW_EXACT;
              }
            if (row.mismatch)
              s->exact_mismatches++;
            g_array_append_val (rows, row);
          }
      }
  static const char *const extra[] = {
    "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
    "lts__t_sectors_srcunit_tex_op_write.sum", "gpu__time_duration.sum",
  };
  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    {
      Row row = { .metric = extra[i], .kind = ROW_MEASURED_ONLY };
      row.have_measured = ms_gpu_result_metric (s->result, extra[i], &row.measured);
      if (row.have_measured)
        g_array_append_val (rows, row);
    }
  return rows;
}

static char *
version_string (int v)
{
  return g_strdup_printf ("%d.%d", v / 1000, v % 1000 / 10);
}

static void
update_failure (MsGpuSession *s)
{
  g_clear_pointer (&s->failure, g_free);
  if (!s->output_ok)
    s->failure = g_strdup_printf ("%s: %s", s->p->kernel->name, s->output_check);
  else if (s->opts.strict && s->exact_mismatches > 0)
    s->failure = g_strdup_printf ("%s: --strict: %u exact metric(s) differ between the "
                                  "simulation and the GPU",
                                  s->p->kernel->name, s->exact_mismatches);
  else if (s->opts.strict && s->traced && !s->trace.identical)
    s->failure = g_strdup_printf ("%s: --strict: the address traces differ", s->p->kernel->name);
}

/* ------------------------------------------------------------ writers */

static void
write_text (MsGpuSession *s, const MsTraceReport *r, GArray *rows, GString *out)
{
  const MsGpuResult *g = s->result;
  ms_report_write (r, MS_FORMAT_TEXT, out);
  g_autofree char *drv = version_string (g->info.driver_version);
  g_autofree char *rt = version_string (g->info.runtime_version);
  g_string_append_printf (out, "\nGPU: %s (sm_%d%d, driver %s, CUDA runtime %s)\n", g->info.name,
                          g->info.cc_major, g->info.cc_minor, drv, rt);
  g_string_append_printf (out, "  output check:  %s\n", s->output_check);
  g_string_append_printf (out, "  time:          %.4f ms median of %d launches, L2 flushed "
                               "before each (warm L2: %.4f ms)\n",
                          g->time_ms, g->repeats, g->time_warm_ms);
  g_string_append_printf (out, "  bandwidth:     %.1f GB/s effective (%" G_GUINT64_FORMAT
                               " bytes: every buffer read or written once, / time)\n",
                          g->bandwidth_gbs, g->bytes);
  if (s->traced)
    g_string_append_printf (out, "  address trace: %s\n", s->trace.message);
  g_string_append_printf (out, "\n%-64s %14s %14s %12s\n", "Metric", "simulated", "measured",
                          "difference");
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = &g_array_index (rows, Row, i);
      g_string_append_printf (out, "%-64s", row->metric);
      if (row->have_sim)
        g_string_append_printf (out, " %14" G_GUINT64_FORMAT, row->simulated);
      else
        g_string_append_printf (out, " %14s", "-");
      if (row->have_measured)
        g_string_append_printf (out, " %14.0f", row->measured);
      else
        g_string_append_printf (out, " %14s", "n/a");
      if (row->have_sim && row->have_measured)
        g_string_append_printf (out, " %+12.0f", row->measured - (double) row->simulated);
      else
        g_string_append_printf (out, " %12s", "-");
      if (row->note)
        g_string_append_printf (out, "  %s%s", row->mismatch ? "<< " : "", row->note);
      g_string_append_c (out, '\n');
    }
  g_string_append (out, "(global atomics: measured = ATOM + RED instructions; the exact metrics "
                        "are every simulated one but the bank conflicts)\n");
  if (s->exact_mismatches == 0)
    g_string_append (out, "every exact metric agrees\n");
  else
    g_string_append_printf (out, "%u exact metric(s) differ\n", s->exact_mismatches);
}

static void
add_number (JsonBuilder *b, double v)
{
  if (is_integral (v) && v < 9e15 && v > -9e15)
    json_builder_add_int_value (b, round_to_int (v));
  else
    json_builder_add_double_value (b, v);
}

static void
write_json (MsGpuSession *s, const MsTraceReport *r, GArray *rows, GString *out)
{
  const MsGpuResult *g = s->result;
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
      const Row *row = &g_array_index (rows, Row, i);
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
  for (guint i = 0; i < g->metrics->len; i++)
    {
      const MsGpuMetric *m = &g_array_index (g->metrics, MsGpuMetric, i);
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
  g_autofree char *cc = g_strdup_printf ("%d.%d", g->info.cc_major, g->info.cc_minor);
  g_autofree char *drv = version_string (g->info.driver_version);
  g_autofree char *rt = version_string (g->info.runtime_version);
  const char *keys[] = { "name", "cc", "driver", "runtime", "source", "output_check" };
  const char *vals[] = { g->info.name, cc, drv, rt, s->p->kernel->source, s->output_check };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      json_builder_set_member_name (b, keys[i]);
      json_builder_add_string_value (b, vals[i]);
    }
  json_builder_set_member_name (b, "output_ok");
  json_builder_add_boolean_value (b, s->output_ok);
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
  json_builder_add_int_value (b, s->exact_mismatches);
  if (s->traced)
    {
      json_builder_set_member_name (b, "trace_check");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "identical");
      json_builder_add_boolean_value (b, s->trace.identical);
      json_builder_set_member_name (b, "grouping_identical");
      json_builder_add_boolean_value (b, s->trace.grouping_identical);
      json_builder_set_member_name (b, "lane_accesses");
      json_builder_add_int_value (b, (gint64) s->trace.lane_accesses);
      json_builder_set_member_name (b, "emulator_accesses");
      json_builder_add_int_value (b, (gint64) s->trace.emulator_accesses);
      json_builder_set_member_name (b, "gpu_accesses");
      json_builder_add_int_value (b, (gint64) s->trace.gpu_accesses);
      if (s->trace.shared_seen)
        {
          json_builder_set_member_name (b, "shared_base");
          json_builder_add_int_value (b, s->trace.shared_base);
        }
      json_builder_set_member_name (b, "message");
      json_builder_add_string_value (b, s->trace.message);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_object_set_member (root, "gpu", json_builder_get_root (b));

  json_builder_reset (b);
  json_builder_begin_array (b);
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = &g_array_index (rows, Row, i);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "metric");
      json_builder_add_string_value (b, row->metric);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, row->kind == ROW_EXACT    ? "exact"
                                        : row->kind == ROW_APPROX ? "approximate"
                                                                  : "measured-only");
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

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, json_parser_get_root (parser));
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
}

static void
write_csv (MsGpuSession *s, const MsTraceReport *r, GArray *rows, GString *out)
{
  (void) s;
  g_string_append (out, "kernel,metric,kind,simulated,measured,difference,note\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = &g_array_index (rows, Row, i);
      g_string_append_printf (out, "%s,%s,%s,", r->info->kernel, row->metric,
                              row->kind == ROW_EXACT    ? "exact"
                              : row->kind == ROW_APPROX ? "approximate"
                                                        : "measured-only");
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
ms_gpu_report_write (MsGpuSession *s, const MsTraceReport *r, MsFormat format, GString *out)
{
  g_autoptr (GArray) rows = build_rows (s, r->stats);
  update_failure (s);
  switch (format)
    {
    case MS_FORMAT_JSON: write_json (s, r, rows, out); break;
    case MS_FORMAT_CSV: write_csv (s, r, rows, out); break;
    default: write_text (s, r, rows, out); break;
    }
}

int
ms_gpu_session_status (const MsGpuSession *s)
{
  return s && s->failure ? 1 : 0;
}

const char *
ms_gpu_session_failure (const MsGpuSession *s)
{
  return s ? s->failure : NULL;
}
