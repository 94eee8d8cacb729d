/* report.c - text, JSON and CSV output of a run (see report.h). */
#include "config.h"
#include "report.h"

#include "output.h"

#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>

gboolean
ms_format_parse (const char *text, MsFormat *format, GError **error)
{
  if (text == NULL || strcmp (text, "text") == 0)
    *format = MS_FORMAT_TEXT;
  else if (strcmp (text, "json") == 0)
    *format = MS_FORMAT_JSON;
  else if (strcmp (text, "csv") == 0)
    *format = MS_FORMAT_CSV;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--format %s: choose text, json or csv", text);
      return FALSE;
    }
  return TRUE;
}

const char *
ms_metric_name (MsSpace space, MsOp op, const char *what)
{
  if (strcmp (what, "inst") == 0)
    return ms_metric_inst_name (space, op);
  const MsCounterDef *d = ms_counter_find (space, strcmp (what, "conflicts") == 0 ? "excessive"
                                                                                 : what);
  return d ? ms_counter_metric_name (d, op) : NULL;
}

/* The (metric, value) pairs of one counter set: the counters that apply
 * on arch (ms_counter_applies). */
typedef void (*MetricFn) (const char *name, guint64 value, gpointer user);

static void
for_each_metric (const MsArch *arch, MsSpace space, MsOp op, const MsCounters *c, MetricFn fn,
                 gpointer user)
{
  const char *n = ms_metric_inst_name (space, op);
  if (n)
    fn (n, c->executions - c->async_copies, user);
  for (const MsModel *const *m = ms_models (); *m; m++)
    if ((*m)->space == space)
      for (const MsCounterDef *d = (*m)->counters; d->key; d++)
        if (!d->per_launch && ms_counter_applies (*m, d, arch)
            && (n = ms_counter_metric_name (d, op)))
          fn (n, c->v[d->slot], user);
}

/* The launch-wide counters (L2, DRAM) that apply on arch; cp.async's
 * instructions (LDGSTS), where the kernel has any: its global reads'
 * records and its issues that read nothing. */
static void
for_each_launch_metric (const MsArch *arch, const MsStats *stats, MetricFn fn, gpointer user)
{
  MsCounters ld;
  ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  if (ld.async_copies + stats->async_fills > 0)
    fn ("smsp__sass_inst_executed_op_ldgsts.sum", ld.async_copies + stats->async_fills, user);
  for (const MsModel *const *m = ms_models (); *m; m++)
    for (const MsCounterDef *d = (*m)->counters; d->key; d++)
      if (d->per_launch && d->nsight && ms_counter_applies (*m, d, arch))
        fn (d->nsight, ms_stats_launch_total (stats, d), user);
}

static void
add_json_metric (const char *name, guint64 value, gpointer user)
{
  JsonBuilder *b = user;
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) value);
}

void
ms_report_divergence (const MsStats *stats, MsDivergence *out)
{
  MsCounters all = { 0 };
  for (guint i = 0; i < stats->sites->len; i++)
    ms_counters_add (&all, &g_array_index (stats->sites, MsSiteStats, i).c);
  out->executions = all.executions;
  out->partial = all.partial;
  out->partial_warp_share = ms_ratio (all.partial, all.executions);
  out->avg_active_lanes = ms_ratio (all.lanes, all.executions);
}

void
ms_report_append_json (JsonNode *root, GString *out)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
}

void
ms_report_json_add_member (GString *out, const char *name, JsonNode *node)
{
  /* the report is one JSON object: add the member and write it again */
  g_autoptr (JsonNode) owned = node;
  g_autoptr (JsonParser) parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, out->str, (gssize) out->len, NULL))
    return;
  JsonNode *root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    return;
  json_object_set_member (json_node_get_object (root), name, g_steal_pointer (&owned));
  g_string_truncate (out, 0);
  ms_report_append_json (root, out);
}

static void
write_json (const MsTraceReport *r, GString *out)
{
  const MsRunInfo *info = r->info;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kernel");
  json_builder_add_string_value (b, info->kernel);
  json_builder_set_member_name (b, "arch");
  json_builder_add_string_value (b, r->arch->name);
  json_builder_set_member_name (b, "params");
  json_builder_begin_object (b);
  for (guint i = 0; i < info->n_params; i++)
    {
      json_builder_set_member_name (b, info->param_name[i]);
      json_builder_add_int_value (b, info->param_value[i]);
    }
  json_builder_end_object (b);
  const char *dims[2] = { "grid", "block" };
  for (int d = 0; d < 2; d++)
    {
      const unsigned *v = d ? info->block : info->grid;
      json_builder_set_member_name (b, dims[d]);
      json_builder_begin_array (b);
      for (int k = 0; k < 3; k++)
        json_builder_add_int_value (b, v[k]);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "check");
  json_builder_add_string_value (b, info->check);
  if (info->counts)
    {
      json_builder_set_member_name (b, "counts");
      json_builder_add_string_value (b, info->counts);
    }
  if (ms_stats_sampled (r->stats))
    {
      json_builder_set_member_name (b, "sample");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "blocks_run");
      json_builder_add_int_value (b, (gint64) r->stats->blocks_run);
      json_builder_set_member_name (b, "blocks");
      json_builder_add_int_value (b, (gint64) r->stats->blocks);
      json_builder_set_member_name (b, "scale");
      json_builder_add_double_value (b, ms_ratio (r->stats->blocks, r->stats->blocks_run));
      json_builder_end_object (b);
    }

  json_builder_set_member_name (b, "metrics");
  json_builder_begin_object (b);
  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    for (int op = MS_OP_LD; op < MS_N_OPS; op++)
      {
        MsCounters c;
        ms_stats_total (r->stats, (MsSpace) sp, op, &c);
        if (MS_OP_IS_ATOMIC (op) && c.executions == 0)
          continue;
        for_each_metric (r->arch, (MsSpace) sp, (MsOp) op, &c, add_json_metric, b);
      }
  for_each_launch_metric (r->arch, r->stats, add_json_metric, b);
  if (r->stats->inst_basis != MS_INST_NONE)
    add_json_metric ("smsp__inst_executed.sum", r->stats->inst_executed, b);
  json_builder_end_object (b);
  if (r->stats->inst_basis != MS_INST_NONE)
    {
      /* how the instruction count was made (instructions.h) */
      json_builder_set_member_name (b, "instructions");
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "executed");
      json_builder_add_int_value (b, (gint64) r->stats->inst_executed);
      json_builder_set_member_name (b, "basis");
      json_builder_add_string_value (b, r->stats->inst_basis == MS_INST_SASS_LINES ? "sass-lines"
                                        : "ptx");
      /* of them, the slow paths of float division and its kin (no line's) */
      json_builder_set_member_name (b, "slow_paths");
      json_builder_add_int_value (b, (gint64) r->stats->slow_path_instructions);
      /* the time model's inputs (kernel-time.h) */
      json_builder_set_member_name (b, "load_rounds");
      json_builder_add_int_value (b, (gint64) r->stats->load_rounds);
      json_builder_set_member_name (b, "barriers");
      json_builder_add_int_value (b, (gint64) r->stats->barriers);
      json_builder_set_member_name (b, "texture_fetches");
      json_builder_add_int_value (b, (gint64) r->stats->texture_fetches);
      json_builder_set_member_name (b, "dependent_cycles");
      json_builder_add_int_value (b, (gint64) r->stats->dependent_cycles);
      /* device code's printf, malloc and free, where it called them */
      static const char *const runtime[] = { "printf", "malloc", "free" };
      for (guint k = 0; k < MS_RUNTIME_KINDS; k++)
        {
          if (r->stats->runtime.calls[k] == 0)
            continue;
          json_builder_set_member_name (b, runtime[k]);
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "calls");
          json_builder_add_int_value (b, (gint64) r->stats->runtime.calls[k]);
          json_builder_set_member_name (b, "lanes");
          json_builder_add_int_value (b, (gint64) r->stats->runtime.lanes[k]);
          json_builder_set_member_name (b, "chain");
          json_builder_add_int_value (b, (gint64) r->stats->runtime.chain[k]);
          json_builder_end_object (b);
        }
      if (r->stats->inst_lines)
        {
          json_builder_set_member_name (b, "lines");
          json_builder_begin_array (b);
          for (guint k = 0; k < r->stats->inst_lines->len; k++)
            {
              const MsInstLineCount *c = &g_array_index (r->stats->inst_lines, MsInstLineCount, k);
              json_builder_begin_object (b);
              json_builder_set_member_name (b, "where");
              json_builder_add_string_value (b, c->where);
              json_builder_set_member_name (b, "ptx");
              json_builder_add_int_value (b, c->ptx);
              json_builder_set_member_name (b, "ptx_executed");
              json_builder_add_int_value (b, (gint64) (c->ptx_runs + 0.5));
              json_builder_set_member_name (b, "sass");
              json_builder_add_int_value (b, c->sass);
              json_builder_set_member_name (b, "executed");
              json_builder_add_int_value (b, (gint64) (c->executed + 0.5));
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
    }

  MsDivergence dv;
  ms_report_divergence (r->stats, &dv);
  json_builder_set_member_name (b, "divergence");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "partial_warp_share");
  json_builder_add_double_value (b, dv.partial_warp_share);
  json_builder_set_member_name (b, "partial_warp_executions");
  json_builder_add_int_value (b, (gint64) dv.partial);
  json_builder_set_member_name (b, "executions");
  json_builder_add_int_value (b, (gint64) dv.executions);
  json_builder_set_member_name (b, "avg_active_lanes");
  json_builder_add_double_value (b, dv.avg_active_lanes);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "lines");
  json_builder_begin_array (b);
  for (guint i = 0; i < r->stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (r->stats->sites, MsSiteStats, i);
      g_autofree char *text = ms_run_info_source_line (r->info, s->site);
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "line");
      json_builder_add_int_value (b, s->site->line);
      json_builder_set_member_name (b, "source");
      json_builder_add_string_value (b, text ? text : "");
      json_builder_set_member_name (b, "space");
      json_builder_add_string_value (b, ms_space_name (s->space));
      json_builder_set_member_name (b, "op");
      json_builder_add_string_value (b, ms_op_name (s->op));
      json_builder_set_member_name (b, "width");
      json_builder_add_int_value (b, s->width);
      json_builder_set_member_name (b, "executions");
      json_builder_add_int_value (b, (gint64) s->c.executions);
      json_builder_set_member_name (b, "avg_active_lanes");
      json_builder_add_double_value (b, ms_ratio (s->c.lanes, s->c.executions));
      json_builder_set_member_name (b, "partial_warp_executions");
      json_builder_add_int_value (b, (gint64) s->c.partial);
      if (MS_OP_IS_ATOMIC (s->op) && ms_run_info_contended (r->info, s->site))
        {
          json_builder_set_member_name (b, "contention_dependent");
          json_builder_add_boolean_value (b, TRUE);
        }
      if (!MS_OP_IS_ATOMIC (s->op) && ms_run_info_dependent (r->info, s->site))
        {
          json_builder_set_member_name (b, "compiler_dependent");
          json_builder_add_boolean_value (b, TRUE);
        }
      if (s->space == MS_SPACE_SHARED)
        {
          json_builder_set_member_name (b, "ideal_wavefronts");
          json_builder_add_int_value (b, (gint64) s->c.v[MS_SLOT_IDEAL]);
        }
      for_each_metric (r->arch, s->space, s->op, &s->c, add_json_metric, b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  if (r->races != NULL && r->races->n_races + r->races->n_warp_hazards > 0)
    {
      json_builder_set_member_name (b, "races");
      ms_races_report_json (r, b);
    }
  json_builder_end_object (b);

  g_autoptr (JsonNode) root = json_builder_get_root (b);
  ms_report_append_json (root, out);
}

/* Whether the report shows cc 1.2/1.3's transaction sizes (the counters
 * that apply only under segment_rule=shrink). */
static gboolean
shows_transactions (const MsArch *arch)
{
  return arch->segment_rule == MS_SEGMENTS_SHRINK;
}

static void
write_csv (const MsTraceReport *r, GString *out)
{
  gboolean tx = shows_transactions (r->arch);
  g_string_append (out, "kernel,file,line,space,op,width,executions,avg_active_lanes,"
                        "partial_warp_executions,requests,sectors,sectors_per_request,"
                        "wavefronts,ideal_wavefronts,excessive_wavefronts,");
  if (tx)
    g_string_append (out, "transactions_32b,transactions_64b,transactions_128b,");
  g_string_append (out, "source\n");
  for (guint i = 0; i < r->stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (r->stats->sites, MsSiteStats, i);
      g_autofree char *text = ms_run_info_source_line (r->info, s->site);
      g_autoptr (GString) quoted = g_string_new (text ? text : "");
      g_string_replace (quoted, "\"", "\"\"", 0);
      const char *base = strrchr (s->site->file, '/');
      g_string_append_printf (out,
                              "%s,%s,%d,%s,%s,%u,%" G_GUINT64_FORMAT ",%.2f,%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.2f,%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",",
                              r->info->kernel, base ? base + 1 : s->site->file,
                              s->site->line, ms_space_name (s->space), ms_op_name (s->op),
                              s->width, s->c.executions, ms_ratio (s->c.lanes, s->c.executions),
                              s->c.partial, s->c.v[MS_SLOT_REQUESTS], s->c.v[MS_SLOT_SECTORS],
                              ms_ratio (s->c.v[MS_SLOT_SECTORS], s->c.v[MS_SLOT_REQUESTS]), s->c.v[MS_SLOT_WAVEFRONTS], s->c.v[MS_SLOT_IDEAL],
                              s->c.v[MS_SLOT_EXCESSIVE]);
      if (tx)
        g_string_append_printf (out, "%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                                ",", s->c.v[MS_SLOT_TX_32B], s->c.v[MS_SLOT_TX_64B],
                                s->c.v[MS_SLOT_TX_128B]);
      g_string_append_printf (out, "\"%s\"\n", quoted->str);
    }
}

/* The totals of (space, op) for a row of the text tables; FALSE when the
 * row is left out (atomics that never ran). */
static gboolean
op_totals (const MsTraceReport *r, MsSpace space, int op, MsCounters *c)
{
  ms_stats_total (r->stats, space, op, c);
  return !MS_OP_IS_ATOMIC (op) || c->executions != 0;
}

/* most executed first (MsInstLineCount *, in a GPtrArray) */
static gint
by_executed (gconstpointer a, gconstpointer b)
{
  const MsInstLineCount *x = *(MsInstLineCount *const *) a, *y = *(MsInstLineCount *const *) b;
  return (x->executed < y->executed) - (x->executed > y->executed);
}

static void
write_text (const MsTraceReport *r, GString *out)
{
  const MsRunInfo *info = r->info;
  if (info->family && *info->family)
    g_string_append_printf (out, "%s  (%s family, from %s)\n", info->kernel, info->family,
                            info->origin ? info->origin : "?");
  else
    g_string_append_printf (out, "%s  (from %s)\n", info->kernel,
                            info->producer ? info->producer : "?");
  if (info->description && *info->description)
    g_string_append_printf (out, "  %s\n", info->description);
  g_string_append (out, "  params:");
  for (guint i = 0; i < info->n_params; i++)
    g_string_append_printf (out, " %s=%" G_GINT64_FORMAT, info->param_name[i],
                            info->param_value[i]);
  g_string_append_printf (out, "   grid %ux%ux%u  block %ux%ux%u\n", info->grid[0],
                          info->grid[1], info->grid[2], info->block[0], info->block[1],
                          info->block[2]);
  g_string_append_printf (out,
                          "  arch: %s (%s)   %" G_GUINT64_FORMAT " blocks, %" G_GUINT64_FORMAT
                          " warps, %" G_GUINT64_FORMAT " threads   output check: %s\n",
                          r->arch->name, r->arch->description, r->stats->blocks, r->stats->warps,
                          r->stats->threads, info->check);
  if (g_strcmp0 (info->counts, "sass") == 0)
    g_string_append (out, "  counts: compiler-exact (the instructions of the nvcc build's SASS: "
                          "fused accesses, unrolled loops)\n");
  else if (g_strcmp0 (info->counts, "source") == 0)
    g_string_append (out, "  counts: source-level (one instruction per memory access the emulator "
                          "ran; ptxas may emit fewer, wider ones: docs/model.md)\n");
  g_string_append (out, "\n");
  if (ms_stats_sampled (r->stats))
    g_string_append_printf (out, "Sampled: %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                            " blocks ran (%.1f%%); every count below is scaled by %.3f "
                            "(--sample)\n\n", r->stats->blocks_run, r->stats->blocks,
                            100.0 * ms_ratio (r->stats->blocks_run, r->stats->blocks),
                            ms_ratio (r->stats->blocks, r->stats->blocks_run));

  static const char *const op_label[MS_N_OPS] = { "loads", "stores", "atomics", "reductions" };
  g_string_append (out, "Global memory       instructions      requests       sectors  sectors/req  "
                        "efficiency\n");
  for (int op = 0; op < MS_N_OPS; op++)
    {
      MsCounters c;
      if (!op_totals (r, MS_SPACE_GLOBAL, op, &c))
        continue;
      g_string_append_printf (out, "  %-16s %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT
                              " %13" G_GUINT64_FORMAT " %12.2f %10.1f%%\n",
                              op_label[op], c.executions - c.async_copies, c.v[MS_SLOT_REQUESTS], c.v[MS_SLOT_SECTORS],
                              ms_ratio (c.v[MS_SLOT_SECTORS], c.v[MS_SLOT_REQUESTS]),
                              100.0 * ms_ratio (c.bytes, c.v[MS_SLOT_SECTORS] * (guint64) r->arch->sector_bytes));
      if (op == MS_OP_LD && c.async_copies + r->stats->async_fills > 0)
        g_string_append_printf (out, "    of which cp.async: %" G_GUINT64_FORMAT " LDGSTS "
                                "instructions, not among the loads' instructions\n",
                                c.async_copies + r->stats->async_fills);
    }
  if (shows_transactions (r->arch))
    {
      /* cc 1.2/1.3: the segment transactions the requests became */
      g_string_append (out, "Global transactions    32-byte       64-byte      128-byte  bytes moved\n");
      for (int op = 0; op < MS_N_OPS; op++)
        {
          MsCounters c;
          if (!op_totals (r, MS_SPACE_GLOBAL, op, &c))
            continue;
          g_string_append_printf (out, "  %-16s %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT
                                  " %13" G_GUINT64_FORMAT " %12" G_GUINT64_FORMAT "\n",
                                  op_label[op], c.v[MS_SLOT_TX_32B], c.v[MS_SLOT_TX_64B],
                                  c.v[MS_SLOT_TX_128B],
                                  c.v[MS_SLOT_SECTORS] * (guint64) r->arch->sector_bytes);
        }
    }
  g_string_append (out, "Shared memory       instructions    wavefronts         ideal     excessive"
                        "  wavefronts/instr\n");
  for (int op = 0; op < MS_N_OPS; op++)
    {
      MsCounters c;
      if (!op_totals (r, MS_SPACE_SHARED, op, &c))
        continue;
      g_string_append_printf (out, "  %-16s %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT
                              " %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT " %16.2f\n",
                              op_label[op], c.executions, c.v[MS_SLOT_WAVEFRONTS], c.v[MS_SLOT_IDEAL], c.v[MS_SLOT_EXCESSIVE],
                              ms_ratio (c.v[MS_SLOT_WAVEFRONTS], c.executions));
    }
  if (ms_models_launch_counters (r->arch))
    {
      const MsCounterDef *d[4] = {
        ms_counter_find (MS_SPACE_GLOBAL, "l2_read_sectors"),
        ms_counter_find (MS_SPACE_GLOBAL, "l2_write_sectors"),
        ms_counter_find (MS_SPACE_GLOBAL, "dram_read_bytes"),
        ms_counter_find (MS_SPACE_GLOBAL, "dram_write_bytes"),
      };
      g_string_append (out, "L2 and DRAM         L2 sectors rd  L2 sectors wr    DRAM read   DRAM write"
                            "  (cold L2 at launch)\n");
      g_string_append (out, "  kernel           ");
      for (int i = 0; i < 4; i++)
        g_string_append_printf (out, i < 2 ? " %13" G_GUINT64_FORMAT : " %12" G_GUINT64_FORMAT,
                                ms_stats_launch_total (r->stats, d[i]));
      g_string_append (out, "\n");
    }
  MsDivergence dv;
  ms_report_divergence (r->stats, &dv);
  g_string_append_printf (out,
                          "Divergence: %.1f%% of memory instructions ran with a partial warp "
                          "(%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                          "), %.1f active lanes on average\n",
                          100.0 * dv.partial_warp_share, dv.partial, dv.executions,
                          dv.avg_active_lanes);
  if (r->stats->inst_basis != MS_INST_NONE)
    g_string_append_printf (out, "Instructions: %" G_GUINT64_FORMAT " warp instructions executed "
                            "(smsp__inst_executed.sum, %s)\n", r->stats->inst_executed,
                            r->stats->inst_basis == MS_INST_SASS_LINES
                              ? "estimated: the PTX run, line by line in ptxas's SASS"
                              : "PTX instructions: no SASS to map them to");
  if (r->stats->inst_basis != MS_INST_NONE && r->stats->slow_path_instructions > 0)
    g_string_append_printf (out, "  %" G_GUINT64_FORMAT " of them the slow paths of float "
                            "division, reciprocal and square root (ptxas's subroutines for "
                            "zeros, infinities, NaNs, denormals and results out of range: no "
                            "source line)\n",
                            r->stats->slow_path_instructions);
  if (r->stats->inst_lines && r->stats->inst_executed > 0)
    {
      /* where they go: the lines that issue the most */
      g_autoptr (GPtrArray) top = g_ptr_array_new ();
      for (guint k = 0; k < r->stats->inst_lines->len; k++)
        g_ptr_array_add (top, &g_array_index (r->stats->inst_lines, MsInstLineCount, k));
      g_ptr_array_sort (top, by_executed);
      g_string_append (out, "  most issued:");
      for (guint k = 0; k < MIN (top->len, 5u); k++)
        {
          const MsInstLineCount *c = g_ptr_array_index (top, k);
          if (c->executed < 0.5)
            break;
          g_string_append_printf (out, "%s %s %.1f%%", k ? "," : "", *c->where ? c->where : "(prologue)",
                                  100.0 * c->executed / (double) r->stats->inst_executed);
        }
      g_string_append (out, "\n");
    }

  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    {
      gboolean header = FALSE;
      for (guint i = 0; i < r->stats->sites->len; i++)
        {
          const MsSiteStats *s = &g_array_index (r->stats->sites, MsSiteStats, i);
          if ((int) s->space != sp)
            continue;
          if (!header)
            {
              const char *base = strrchr (s->site->file, '/');
              g_string_append_printf (
                out, "\n%s memory per source line (%s)\n", sp ? "Shared" : "Global",
                base ? base + 1 : s->site->file);
              g_string_append_printf (out, "%5s  %-44s %-4s %5s %10s %6s %11s %11s %9s\n", "line",
                                      "source", "op", "width", "executions", "lanes",
                                      sp ? "wavefronts" : "requests", sp ? "ideal" : "sectors",
                                      sp ? "excessive" : "sect/req");
              header = TRUE;
            }
          g_autofree char *text = ms_run_info_source_line (r->info, s->site);
          g_autofree char *shown = g_strdup (text ? text : "");
          if (g_utf8_strlen (shown, -1) > 44)
            {
              g_autofree char *cut = g_utf8_substring (shown, 0, 41);
              g_free (shown);
              shown = g_strconcat (cut, "...", NULL);
            }
          g_string_append_printf (out, "%5d  %-44s %-4s %5u %10" G_GUINT64_FORMAT " %6.1f",
                                  s->site->line, shown, ms_op_name (s->op), s->width,
                                  s->c.executions, ms_ratio (s->c.lanes, s->c.executions));
          if (sp == MS_SPACE_GLOBAL)
            g_string_append_printf (out, " %11" G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT " %9.2f\n",
                                    s->c.v[MS_SLOT_REQUESTS], s->c.v[MS_SLOT_SECTORS], ms_ratio (s->c.v[MS_SLOT_SECTORS], s->c.v[MS_SLOT_REQUESTS]));
          else
            g_string_append_printf (out, " %11" G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT
                                    " %9" G_GUINT64_FORMAT "\n",
                                    s->c.v[MS_SLOT_WAVEFRONTS], s->c.v[MS_SLOT_IDEAL], s->c.v[MS_SLOT_EXCESSIVE]);
          if (MS_OP_IS_ATOMIC (s->op) && ms_run_info_contended (r->info, s->site))
            {
              g_string_truncate (out, out->len - 1);
              g_string_append (out, "  contention-dependent (a compare-and-swap in the SASS)\n");
            }
          if (!MS_OP_IS_ATOMIC (s->op) && ms_run_info_dependent (r->info, s->site))
            {
              g_string_truncate (out, out->len - 1);
              g_string_append (out, "  compiler-dependent (an unrolled loop memsim does not "
                                    "model: source-level)\n");
            }
        }
    }
  const MsCounters *own = r->stats->runtime_own;
  if (own[MS_OP_LD].v[MS_SLOT_REQUESTS] + own[MS_OP_ST].v[MS_SLOT_REQUESTS] > 0)
    g_string_append_printf (out, "printf's own code (the device runtime's, in the totals above, "
                                 "no source line): %" G_GUINT64_FORMAT " load requests, %"
                                 G_GUINT64_FORMAT " store requests (%" G_GUINT64_FORMAT
                                 " sectors)\n",
                            own[MS_OP_LD].v[MS_SLOT_REQUESTS], own[MS_OP_ST].v[MS_SLOT_REQUESTS],
                            own[MS_OP_ST].v[MS_SLOT_SECTORS]);
  ms_races_report_text (r, out);
  g_string_append_printf (out, "\nsimulated in %.3f s\n", r->seconds);
}

void
ms_report_write (const MsTraceReport *r, MsFormat format, GString *out)
{
  switch (format)
    {
    case MS_FORMAT_JSON: write_json (r, out); break;
    case MS_FORMAT_CSV: write_csv (r, out); break;
    default: write_text (r, out); break;
    }
}

gboolean
ms_write_output (const char *path, const GString *text, GError **error)
{
  if (path != NULL && *path == '\0')
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "-o needs a file name (or - for standard output)");
      return FALSE;
    }
  gboolean to_file = path != NULL && strcmp (path, "-") != 0;
  MsOutput *o = ms_output_open (to_file ? path : "-", error);
  if (o == NULL)
    {
      g_prefix_error (error, "-o: ");
      return FALSE;
    }
  /* a short write sets the stream's error flag, which the commit reports */
  gsize written = fwrite (text->str, 1, text->len, ms_output_file (o));
  if (!ms_output_commit (o, error))
    {
      if (to_file)
        g_prefix_error (error, "-o: ");
      return FALSE;
    }
  return written == text->len;
}
