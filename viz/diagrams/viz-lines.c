/* viz-lines.c - a kernel's per-source-line summary as one table: for every
 * line with a memory access, what it is, how often it ran, its cost per
 * instruction as a bar (global: sectors per request; shared: wavefronts
 * per instruction), the ideal cost, the excess, and a heat cell with the
 * efficiency (ideal / actual).  The colours are the bank diagram's conflict
 * scale: efficiency 1/n is coloured like an n-way conflict.  The numbers
 * are `memsim trace`'s.  Layout: "dot", one node.
 */
#include "config.h"

#include <string.h>

#include "model.h"
#include "problem.h"
#include "viz-style.h"

#define BAR_W 220
#define BAR_MAX 32.0

/* The fewest sectors a request of the site's average size could touch:
 * ceil(bytes per request / sector).  Exact when every request of the site
 * moves as many bytes (the usual case); 0 when there was none. */
static double
ideal_sectors (const MsCounters *c, guint sb)
{
  if (c->v[MS_SLOT_REQUESTS] == 0)
    return 0;
  guint64 per = (c->bytes + c->v[MS_SLOT_REQUESTS] - 1) / c->v[MS_SLOT_REQUESTS];
  return (double) ((per + sb - 1) / sb);
}

void
ms_diagram_lines (const MsDiagramInfo *info, const MsStats *stats, GString *dot)
{
  guint sb = info->arch ? (guint) info->arch->sector_bytes : 32;
  MsDiagramInfo title_info = *info;
  title_info.line = 0;
  title_info.executions = 0;
  title_info.source = NULL;

  ms_viz_begin (dot, "dot");
  g_string_append (dot, "  graph [rankdir=TB, nodesep=0.2, ranksep=0.3];\n");

  MsCounters g = { 0 }, s = { 0 };
  ms_stats_total (stats, MS_SPACE_GLOBAL, -1, &g);
  ms_stats_total (stats, MS_SPACE_SHARED, -1, &s);
  /* excess sectors: over every site's ideal */
  double g_excess = 0;
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *x = &g_array_index (stats->sites, MsSiteStats, i);
      if (x->space == MS_SPACE_GLOBAL)
        g_excess += MAX (0.0, (double) x->c.v[MS_SLOT_SECTORS]
                                - ideal_sectors (&x->c, sb) * (double) x->c.v[MS_SLOT_REQUESTS]);
    }
  GString *sum = g_string_new (NULL);
  if (g.executions)
    g_string_append_printf (sum, "global: %.2f sectors per request, %.0f excess",
                            ms_ratio (g.v[MS_SLOT_SECTORS], g.v[MS_SLOT_REQUESTS]), g_excess);
  if (s.executions)
    g_string_append_printf (sum, "%sshared: %.2f wavefronts per instruction, %" G_GUINT64_FORMAT
                                 " excessive",
                            sum->len ? "  \xc2\xb7  " : "", ms_ratio (s.v[MS_SLOT_WAVEFRONTS], s.executions),
                            s.v[MS_SLOT_EXCESSIVE]);
  if (sum->len == 0)
    g_string_append (sum, "no memory access");
  gboolean bad = g_excess > 0 || s.v[MS_SLOT_EXCESSIVE] > 0;
  g_autofree char *what = g_strdup_printf (
    "per source line, all %" G_GUINT64_FORMAT " blocks (%" G_GUINT64_FORMAT " warps)",
    stats->blocks, stats->warps);
  ms_viz_title (dot, &title_info, what, sum->str, bad ? MS_VIZ_BAD : MS_VIZ_GOOD);
  g_string_free (sum, TRUE);

  g_string_append (dot, "  lines [shape=plaintext, label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" "
                        "CELLSPACING=\"0\" CELLPADDING=\"5\">");
  static const char *const heads[] = { "line", "source", "access", "executions",
                                       "cost per instruction", " ", "ideal", "excess",
                                       "efficiency" };
  g_string_append (dot, "<TR>");
  for (guint i = 0; i < G_N_ELEMENTS (heads); i++)
    g_string_append_printf (dot, "<TD BGCOLOR=\"" MS_VIZ_PALE "\" ALIGN=\"%s\"><B>%s</B></TD>",
                            i == 1 || i == 4 ? "LEFT" : "CENTER", heads[i]);
  g_string_append (dot, "</TR>");

  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *x = &g_array_index (stats->sites, MsSiteStats, i);
      gboolean shared = x->space == MS_SPACE_SHARED;
      double cost, ideal, excess_count;
      const char *unit;
      if (shared)
        {
          cost = ms_ratio (x->c.v[MS_SLOT_WAVEFRONTS], x->c.executions);
          ideal = ms_ratio (x->c.v[MS_SLOT_IDEAL], x->c.executions);
          excess_count = (double) x->c.v[MS_SLOT_EXCESSIVE];
          unit = "wavefronts";
        }
      else
        {
          cost = ms_ratio (x->c.v[MS_SLOT_SECTORS], x->c.v[MS_SLOT_REQUESTS]);
          ideal = ideal_sectors (&x->c, sb);
          excess_count = (double) x->c.v[MS_SLOT_SECTORS] - ideal * (double) x->c.v[MS_SLOT_REQUESTS];
          if (excess_count < 0)
            excess_count = 0;
          unit = "sectors";
        }
      double eff = cost > 0 ? MIN (1.0, ideal / cost) : 1.0;
      guint degree = eff >= 0.995 ? 1 : eff >= 0.5 ? 2 : eff >= 0.25 ? 4 : eff >= 0.125 ? 8 : 9;
      const MsVizDegreeStep *st = ms_viz_degree_step (degree);
      gboolean mark = info->line > 0 && x->site->line == info->line;

      g_autofree char *raw = info->run ? ms_run_info_source_line (info->run, x->site)
                                       : ms_kernel_source_line (x->site->file, x->site->line);
      g_autofree char *text = ms_viz_code (raw);
      g_autofree char *cut = NULL;
      if (text && g_utf8_strlen (text, -1) > 48)
        {
          g_autofree char *head = g_utf8_substring (text, 0, 45);
          cut = g_strconcat (head, "...", NULL);
        }
      g_autofree char *src = ms_viz_html (cut ? cut : text);
      const char *row_bg = mark ? "#FFF3C4" : (i % 2 ? "#FAFAFA" : "#FFFFFF");
      guint bar = (guint) (BAR_W * MIN (cost, BAR_MAX) / BAR_MAX + 0.5);
      bar = CLAMP (bar, 2, BAR_W);
      g_autofree char *rest =
        bar < BAR_W ? g_strdup_printf ("<TD WIDTH=\"%u\" HEIGHT=\"14\" FIXEDSIZE=\"TRUE\"></TD>",
                                       BAR_W - bar)
                    : g_strdup ("");

      g_string_append_printf (
        dot,
        "<TR><TD BGCOLOR=\"%s\" ALIGN=\"RIGHT\">%s%d%s</TD>"
        "<TD BGCOLOR=\"%s\" ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_MONO "\">%s</FONT></TD>"
        "<TD BGCOLOR=\"%s\">%s %s, %u B</TD>"
        "<TD BGCOLOR=\"%s\" ALIGN=\"RIGHT\">%" G_GUINT64_FORMAT "</TD>"
        "<TD BGCOLOR=\"%s\" ALIGN=\"LEFT\"><TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"0\" "
        "CELLPADDING=\"0\"><TR><TD BGCOLOR=\"%s\" WIDTH=\"%u\" HEIGHT=\"14\" FIXEDSIZE=\"TRUE\"></TD>"
        "%s</TR></TABLE></TD>"
        "<TD BGCOLOR=\"%s\" ALIGN=\"RIGHT\">%.2f %s</TD>"
        "<TD BGCOLOR=\"%s\" ALIGN=\"RIGHT\">%.2f</TD>"
        "<TD BGCOLOR=\"%s\" ALIGN=\"RIGHT\">%s%.0f</TD>"
        "<TD BGCOLOR=\"%s\" BORDER=\"1\" COLOR=\"#FFFFFF\" WIDTH=\"80\"><FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\"%s\"><B>%.0f%%</B></FONT></TD>"
        "</TR>",
        row_bg, mark ? "<B>" : "", x->site->line, mark ? "</B>" : "",
        row_bg, src,
        row_bg, ms_space_name (x->space), ms_viz_op_word (x->op), x->width,
        row_bg, x->c.executions,
        row_bg, st->fill, bar,
        rest,
        row_bg, cost, unit,
        row_bg, ideal,
        row_bg, excess_count > 0 ? "+" : "", excess_count,
        st->fill, st->text, 100.0 * eff);
    }
  g_string_append (dot, "</TABLE>>];\n");

  /* legend */
  guint n;
  const MsVizDegreeStep *steps = ms_viz_degree_steps (&n);
  static const char *const eff_labels[] = { "", "100%", "50% or more", "25% or more",
                                            "12.5% or more", "below 12.5%" };
  g_string_append (dot, "  legend [shape=plaintext, height=0, label=<<TABLE "
                        "BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"3\"><TR>"
                        "<TD><B>efficiency</B></TD>");
  for (guint i = 1; i < n && i < G_N_ELEMENTS (eff_labels); i++)
    g_string_append_printf (dot, "<TD BGCOLOR=\"%s\"><FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\"%s\">%s</FONT></TD>",
                            steps[i].fill, steps[i].text, eff_labels[i]);
  g_string_append (
    dot, "</TR></TABLE>>];\n"
         "  legend2 [shape=plaintext, height=0, label=<cost: global = sectors per request, "
         "shared = wavefronts per instruction (bar: 0 to 32)  \xc2\xb7  ideal: the fewest "
         "possible  \xc2\xb7  excess: extra sectors or wavefronts in all  \xc2\xb7  "
         "efficiency = ideal / cost>];\n");
  g_string_append (dot, "  lines -> legend -> legend2 [style=invis];\n");
  ms_viz_end (dot);
}
