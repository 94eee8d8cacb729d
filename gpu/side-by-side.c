/* side-by-side.c - simulated vs measured (see side-by-side.h). */
#include "config.h"
#include "side-by-side.h"

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
  if (p->kernel->external && p->kernel->gpu_entry == NULL)
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
  if (s->opts.check_trace)
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

typedef MsMeasuredRow Row;
#define ROW_EXACT MS_ROW_EXACT
#define ROW_APPROX MS_ROW_APPROX
#define ROW_MEASURED_ONLY MS_ROW_MEASURED_ONLY

static const char *const whats[] = { "inst", "requests", "sectors", "wavefronts", "conflicts" };

static guint64
counter_of (const MsCounters *c, guint w)
{
  switch (w)
    {
    case 0: return c->executions - c->async_copies;   /* LDG, not LDGSTS */
    case 1: return c->v[MS_SLOT_REQUESTS];
    case 2: return c->v[MS_SLOT_SECTORS];
    case 3: return c->v[MS_SLOT_WAVEFRONTS];
    default: return c->v[MS_SLOT_EXCESSIVE];
    }
}

static GArray *
build_rows (MsGpuSession *s, const MsArch *arch, const MsStats *stats)
{
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (Row));
  s->exact_mismatches = 0;
  /* spaces whose atomics nvcc made compare-and-swap loops: their counts
   * depend on contention (docs/model.md, "Compiler-exact counts") */
  g_autoptr (MsRunInfo) info = ms_problem_run_info (s->p, arch, NULL);
  gboolean contended[MS_N_SPACES] = { FALSE };
  /* (space, op) with accesses in a loop nvcc unrolled in a way memsim does
   * not model: source-level counts there */
  gboolean dependent[MS_N_SPACES][MS_N_OPS] = { { FALSE } };
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *st = &g_array_index (stats->sites, MsSiteStats, i);
      if (MS_OP_IS_ATOMIC (st->op) && ms_run_info_contended (info, st->site))
        contended[st->space] = TRUE;
      if (!MS_OP_IS_ATOMIC (st->op) && ms_run_info_dependent (info, st->site))
        dependent[st->space][st->op] = TRUE;
    }
  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    for (int op = MS_OP_LD; op < MS_N_OPS; op++)
      {
        MsCounters c;
        ms_stats_total (stats, (MsSpace) sp, op, &c);
        double inst_measured = 0;
        gboolean have_inst = ms_gpu_result_metric (
          s->result, ms_metric_name ((MsSpace) sp, (MsOp) op, "inst"), &inst_measured);
        if (MS_OP_IS_ATOMIC (op) && c.executions == 0 && (!have_inst || inst_measured == 0))
          continue;
        gboolean inst_differs = have_inst && (guint64) ms_round_to_int (inst_measured) != counter_of (&c, 0);
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
            else if ((guint64) ms_round_to_int (row.measured) != row.simulated
                     || !ms_is_integral (row.measured))
              {
                if (row.kind == ROW_APPROX)
                  row.note = "approximate metric: it also counts conflicts from other traffic "
                             "(arbitration); compare the wavefronts";
                else if (MS_OP_IS_ATOMIC (op) && contended[sp])
                  {
                    row.note = "contention-dependent: a compare-and-swap in the SASS, repeated "
                               "until it succeeds (docs/model.md)";
                    row.kind = ROW_APPROX;
                  }
                else if (dependent[sp][op])
                  {
                    row.note = "compiler-dependent: a loop nvcc unrolled in a way memsim does "
                               "not model (docs/model.md)";
                    row.kind = ROW_APPROX;
                  }
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
      /* what a cost model predicts (L2 sectors, DRAM bytes) */
      const MsCounterDef *d = ms_counter_find_launch_metric (arch, extra[i]);
      if (d != NULL)
        {
          row.kind = MS_ROW_PREDICTED;
          row.have_sim = TRUE;
          row.simulated = ms_stats_launch_total (stats, d);
          row.note = "predicted (cache model, docs/model.md); difference in percent";
        }
      if (row.have_measured)
        g_array_append_val (rows, row);
    }
  /* warp instructions executed, estimated from the PTX run line by line in
   * the SASS (docs/model.md, "Warp instructions executed") */
  Row inst = { .metric = "smsp__inst_executed.sum", .kind = MS_ROW_PREDICTED };
  inst.have_measured = ms_gpu_result_metric (s->result, inst.metric, &inst.measured);
  inst.have_sim = stats->inst_basis != MS_INST_NONE;
  inst.simulated = (double) stats->inst_executed;
  inst.note = "estimated (the PTX run, line by line in the SASS); difference in percent";
  if (inst.have_measured && inst.have_sim)
    g_array_append_val (rows, inst);
  /* CUDA events' time, ns, beside CUPTI's gpu__time_duration.sum: the
   * figure memsim__event_time predicts (the report's "time") */
  if (s->result->time_ms > 0)
    {
      Row ev = { .metric = "memsim__event_time", .kind = ROW_MEASURED_ONLY,
                 .have_measured = TRUE, .measured = s->result->time_ms * 1e6,
                 .note = "CUDA events (launch latency included), ns; gpu__time_duration.sum: "
                         "CUPTI's" };
      g_array_append_val (rows, ev);
    }
  return rows;
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

void
ms_gpu_report_write (MsGpuSession *s, const MsTraceReport *r, MsFormat format, GString *out)
{
  g_autoptr (GArray) rows = build_rows (s, r->arch, r->stats);
  update_failure (s);
  const MsGpuResult *g = s->result;
  g_autoptr (GArray) raw = g_array_new (FALSE, TRUE, sizeof (MsMeasuredRaw));
  for (guint i = 0; i < g->metrics->len; i++)
    {
      const MsGpuMetric *m = &g_array_index (g->metrics, MsGpuMetric, i);
      MsMeasuredRaw x = { m->name, m->value, m->available };
      g_array_append_val (raw, x);
    }
  MsMeasuredRun m = {
    .device = g->info.name, .cc_major = g->info.cc_major, .cc_minor = g->info.cc_minor,
    .driver_version = g->info.driver_version, .runtime_version = g->info.runtime_version,
    .source = s->p->kernel->source, .output_check = s->output_check, .output_ok = s->output_ok,
    .time_ms = g->time_ms, .time_warm_ms = g->time_warm_ms, .repeats = g->repeats,
    .bytes = g->bytes, .bandwidth_gbs = g->bandwidth_gbs,
    .exact_mismatches = s->exact_mismatches, .raw = raw, .traced = s->traced,
    .trace_identical = s->trace.identical, .grouping_identical = s->trace.grouping_identical,
    .lane_accesses = s->trace.lane_accesses, .emulator_accesses = s->trace.emulator_accesses,
    .gpu_accesses = s->trace.gpu_accesses, .shared_seen = s->trace.shared_seen,
    .shared_base = s->trace.shared_base, .trace_message = s->trace.message,
  };
  ms_report_write_measured (r, &m, rows, format, out);
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
