/* report.c - text, JSON and CSV output of a trace (see report.h). */
#include "config.h"
#include "report.h"

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
  /* [space][op][what] */
  static const char *const names[2][3][5] = {
    { { "smsp__sass_inst_executed_op_global_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", NULL, NULL },
      { "smsp__sass_inst_executed_op_global_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", NULL, NULL },
      { "smsp__sass_inst_executed_op_global_atom.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", NULL, NULL } },
    { { "smsp__sass_inst_executed_op_shared_ld.sum", NULL, NULL,
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum" },
      { "smsp__sass_inst_executed_op_shared_st.sum", NULL, NULL,
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum" },
      { "smsp__sass_inst_executed_op_shared_atom.sum", NULL, NULL,
        "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum" } },
  };
  static const char *const whats[5] = { "inst", "requests", "sectors", "wavefronts", "conflicts" };
  if (space > MS_SPACE_SHARED || op > MS_OP_ATOMIC)
    return NULL;
  for (int w = 0; w < 5; w++)
    if (strcmp (what, whats[w]) == 0)
      return names[space][op][w];
  return NULL;
}

/* The (metric, value) pairs of one counter set. */
typedef void (*MetricFn) (const char *name, guint64 value, gpointer user);

static void
for_each_metric (MsSpace space, MsOp op, const MsCounters *c, MetricFn fn, gpointer user)
{
  const char *n;
  if ((n = ms_metric_name (space, op, "inst")))
    fn (n, c->executions, user);
  if ((n = ms_metric_name (space, op, "requests")))
    fn (n, c->requests, user);
  if ((n = ms_metric_name (space, op, "sectors")))
    fn (n, c->sectors, user);
  if ((n = ms_metric_name (space, op, "wavefronts")))
    fn (n, c->wavefronts, user);
  if ((n = ms_metric_name (space, op, "conflicts")))
    fn (n, c->excessive, user);
}

static void
add_json_metric (const char *name, guint64 value, gpointer user)
{
  JsonBuilder *b = user;
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, (gint64) value);
}

static double
ratio (guint64 a, guint64 b)
{
  return b ? (double) a / (double) b : 0.0;
}

void
ms_report_divergence (const MsStats *stats, MsDivergence *out)
{
  MsCounters all = { 0 };
  for (guint i = 0; i < stats->sites->len; i++)
    ms_counters_add (&all, &g_array_index (stats->sites, MsSiteStats, i).c);
  out->executions = all.executions;
  out->partial = all.partial;
  out->partial_warp_share = ratio (all.partial, all.executions);
  out->avg_active_lanes = ratio (all.lanes, all.executions);
}

static void
write_json (const MsTraceReport *r, GString *out)
{
  const MsProblem *p = r->problem;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "kernel");
  json_builder_add_string_value (b, p->kernel->name);
  json_builder_set_member_name (b, "arch");
  json_builder_add_string_value (b, r->arch->name);
  json_builder_set_member_name (b, "params");
  json_builder_begin_object (b);
  for (int i = 0; p->kernel->params && p->kernel->params[i].name; i++)
    {
      json_builder_set_member_name (b, p->kernel->params[i].name);
      json_builder_add_int_value (b, p->param[i]);
    }
  json_builder_end_object (b);
  const char *dims[2] = { "grid", "block" };
  for (int d = 0; d < 2; d++)
    {
      const unsigned *v = d ? p->args.block : p->args.grid;
      json_builder_set_member_name (b, dims[d]);
      json_builder_begin_array (b);
      for (int k = 0; k < 3; k++)
        json_builder_add_int_value (b, v[k]);
      json_builder_end_array (b);
    }
  json_builder_set_member_name (b, "check");
  json_builder_add_string_value (b, r->check);

  json_builder_set_member_name (b, "metrics");
  json_builder_begin_object (b);
  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    for (int op = MS_OP_LD; op <= MS_OP_ATOMIC; op++)
      {
        MsCounters c;
        ms_stats_total (r->stats, (MsSpace) sp, op, &c);
        if (op == MS_OP_ATOMIC && c.executions == 0)
          continue;
        for_each_metric ((MsSpace) sp, (MsOp) op, &c, add_json_metric, b);
      }
  json_builder_end_object (b);

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
      g_autofree char *text = ms_kernel_source_line (s->site->file, s->site->line);
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
      json_builder_add_double_value (b, ratio (s->c.lanes, s->c.executions));
      json_builder_set_member_name (b, "partial_warp_executions");
      json_builder_add_int_value (b, (gint64) s->c.partial);
      if (s->space == MS_SPACE_SHARED)
        {
          json_builder_set_member_name (b, "ideal_wavefronts");
          json_builder_add_int_value (b, (gint64) s->c.ideal);
        }
      for_each_metric (s->space, s->op, &s->c, add_json_metric, b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);

  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
}

static void
write_csv (const MsTraceReport *r, GString *out)
{
  g_string_append (out, "kernel,file,line,space,op,width,executions,avg_active_lanes,"
                        "partial_warp_executions,requests,sectors,sectors_per_request,"
                        "wavefronts,ideal_wavefronts,excessive_wavefronts,source\n");
  for (guint i = 0; i < r->stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (r->stats->sites, MsSiteStats, i);
      g_autofree char *text = ms_kernel_source_line (s->site->file, s->site->line);
      g_autoptr (GString) quoted = g_string_new (text ? text : "");
      g_string_replace (quoted, "\"", "\"\"", 0);
      const char *base = strrchr (s->site->file, '/');
      g_string_append_printf (out,
                              "%s,%s,%d,%s,%s,%u,%" G_GUINT64_FORMAT ",%.2f,%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.2f,%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",\"%s\"\n",
                              r->problem->kernel->name, base ? base + 1 : s->site->file,
                              s->site->line, ms_space_name (s->space), ms_op_name (s->op),
                              s->width, s->c.executions, ratio (s->c.lanes, s->c.executions),
                              s->c.partial, s->c.requests, s->c.sectors,
                              ratio (s->c.sectors, s->c.requests), s->c.wavefronts, s->c.ideal,
                              s->c.excessive, quoted->str);
    }
}

static void
write_text (const MsTraceReport *r, GString *out)
{
  const MsProblem *p = r->problem;
  const MsKernel *k = p->kernel;
  g_string_append_printf (out, "%s  (%s family, from %s)\n  %s\n", k->name, k->family,
                          k->origin, k->description);
  g_string_append (out, "  params:");
  for (int i = 0; k->params && k->params[i].name; i++)
    g_string_append_printf (out, " %s=%" G_GINT64_FORMAT, k->params[i].name, p->param[i]);
  g_string_append_printf (out, "   grid %ux%ux%u  block %ux%ux%u\n", p->args.grid[0],
                          p->args.grid[1], p->args.grid[2], p->args.block[0], p->args.block[1],
                          p->args.block[2]);
  g_string_append_printf (out,
                          "  arch: %s (%s)   %" G_GUINT64_FORMAT " blocks, %" G_GUINT64_FORMAT
                          " warps, %" G_GUINT64_FORMAT " threads   output check: %s\n\n",
                          r->arch->name, r->arch->description, r->stats->blocks, r->stats->warps,
                          r->stats->threads, r->check);

  static const char *const op_label[] = { "loads", "stores", "atomics" };
  g_string_append (out, "Global memory       instructions      requests       sectors  sectors/req  "
                        "efficiency\n");
  for (int op = 0; op < 3; op++)
    {
      MsCounters c;
      ms_stats_total (r->stats, MS_SPACE_GLOBAL, op, &c);
      if (op == MS_OP_ATOMIC && c.executions == 0)
        continue;
      g_string_append_printf (out, "  %-16s %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT
                              " %13" G_GUINT64_FORMAT " %12.2f %10.1f%%\n",
                              op_label[op], c.executions, c.requests, c.sectors,
                              ratio (c.sectors, c.requests),
                              100.0 * ratio (c.bytes, c.sectors * (guint64) r->arch->sector_bytes));
    }
  g_string_append (out, "Shared memory       instructions    wavefronts         ideal     excessive"
                        "  wavefronts/instr\n");
  for (int op = 0; op < 3; op++)
    {
      MsCounters c;
      ms_stats_total (r->stats, MS_SPACE_SHARED, op, &c);
      if (op == MS_OP_ATOMIC && c.executions == 0)
        continue;
      g_string_append_printf (out, "  %-16s %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT
                              " %13" G_GUINT64_FORMAT " %13" G_GUINT64_FORMAT " %16.2f\n",
                              op_label[op], c.executions, c.wavefronts, c.ideal, c.excessive,
                              ratio (c.wavefronts, c.executions));
    }
  MsDivergence dv;
  ms_report_divergence (r->stats, &dv);
  g_string_append_printf (out,
                          "Divergence: %.1f%% of memory instructions ran with a partial warp "
                          "(%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                          "), %.1f active lanes on average\n",
                          100.0 * dv.partial_warp_share, dv.partial, dv.executions,
                          dv.avg_active_lanes);

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
          g_autofree char *text = ms_kernel_source_line (s->site->file, s->site->line);
          g_autofree char *shown = g_strdup (text ? text : "");
          if (g_utf8_strlen (shown, -1) > 44)
            {
              g_autofree char *cut = g_utf8_substring (shown, 0, 41);
              g_free (shown);
              shown = g_strconcat (cut, "...", NULL);
            }
          g_string_append_printf (out, "%5d  %-44s %-4s %5u %10" G_GUINT64_FORMAT " %6.1f",
                                  s->site->line, shown, ms_op_name (s->op), s->width,
                                  s->c.executions, ratio (s->c.lanes, s->c.executions));
          if (sp == MS_SPACE_GLOBAL)
            g_string_append_printf (out, " %11" G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT " %9.2f\n",
                                    s->c.requests, s->c.sectors, ratio (s->c.sectors, s->c.requests));
          else
            g_string_append_printf (out, " %11" G_GUINT64_FORMAT " %11" G_GUINT64_FORMAT
                                    " %9" G_GUINT64_FORMAT "\n",
                                    s->c.wavefronts, s->c.ideal, s->c.excessive);
        }
    }
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
  if (path == NULL || strcmp (path, "-") == 0)
    {
      fwrite (text->str, 1, text->len, stdout);
      fflush (stdout);
      return TRUE;
    }
  /* g_file_set_contents writes a temporary file and renames it. */
  if (!g_file_set_contents (path, text->str, (gssize) text->len, error))
    {
      g_prefix_error (error, "cannot write -o %s: ", path);
      return FALSE;
    }
  return TRUE;
}
