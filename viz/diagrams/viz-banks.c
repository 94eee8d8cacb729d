/* viz-banks.c - the bank diagram of one shared-memory warp access.
 *
 * The classic figure of the CUDA programming guide and seed 002: the lanes
 * of the warp in a column on the left, each with the word(s) it requests
 * ("w N": byte offset / bank_bytes), the banks in a column on the right,
 * an arrow per word.  A bank is coloured by its conflict degree (distinct
 * words it must serve in the phase: n-way), which is also written on it;
 * arrows to conflicting banks are vermillion, arrows to conflict-free ones
 * blue; a word that several lanes of the phase read is a broadcast (dashed
 * arrows, the bank says "broadcast").  8- and 16-byte accesses are served
 * in phases of 16 and 8 lanes (32 and 16 for a paired load, see
 * sim/models/banks.c): each phase gets its own panel, side by side, with its own
 * wavefront count.  All numbers come from ms_banks_detail(), the model
 * itself.
 *
 * Layout: Graphviz's "nop" engine, every node placed here (points), so the
 * picture is the same whatever the fonts and no two labels overlap.
 */
#include "config.h"

#include "banks.h"
#include "viz-style.h"

#define ROW 22        /* pitch of one word row */
#define CELL_H 20     /* height of a word cell */
#define LANE_W 62     /* the lane cell */
#define WORD_W 68     /* a word cell */
#define GAP 200       /* between the lane column and the bank column */
#define BANK_W 142
#define PANEL_GAP 80
#define LEGEND_GAP 60

static gboolean
bank_broadcast (const MsBankDetail *d, guint p, guint b)
{
  const MsBankPhase *ph = &d->phase[p];
  for (guint i = 0; i < ph->bank_words[b]; i++)
    if (d->words[ph->bank_first[b] + i].lanes > 1)
      return TRUE;
  return FALSE;
}

static void
legend (GString *dot, double x, double top, guint bank_bytes, guint banks)
{
  GString *t = g_string_new (NULL);
  g_string_append (t, "<TABLE BORDER=\"0\" CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"2\">"
                      "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><B>bank colour = conflict degree</B>"
                      "</TD></TR>");
  guint n;
  const MsVizDegreeStep *steps = ms_viz_degree_steps (&n);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (t, "<TR><TD BORDER=\"1\" COLOR=\"" MS_VIZ_INK "\" BGCOLOR=\"%s\" "
                               "WIDTH=\"26\" HEIGHT=\"16\" FIXEDSIZE=\"TRUE\"></TD>"
                               "<TD ALIGN=\"LEFT\">%s</TD></TR>",
                            steps[i].fill, steps[i].label);
  g_string_append_printf (
    t,
    "<TR><TD COLSPAN=\"2\"> </TD></TR>"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><B>arrows</B></TD></TR>"
    "<TR><TD><FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\"" MS_VIZ_GOOD "\"><B>\xe2\x80\x94\xe2\x80\x94</B></FONT></TD>"
    "<TD ALIGN=\"LEFT\">to a conflict-free bank</TD></TR>"
    "<TR><TD><FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\"" MS_VIZ_BAD "\"><B>\xe2\x80\x94\xe2\x80\x94</B></FONT></TD>"
    "<TD ALIGN=\"LEFT\">to a conflicting bank</TD></TR>"
    "<TR><TD><B>- - -</B></TD><TD ALIGN=\"LEFT\">broadcast: one word, several lanes</TD></TR>"
    "<TR><TD COLSPAN=\"2\"> </TD></TR>"
    "<TR><TD><B>w N</B></TD><TD ALIGN=\"LEFT\">word N = byte offset / %u</TD></TR>"
    "<TR><TD> </TD><TD ALIGN=\"LEFT\">bank = N mod %u</TD></TR>"
    "<TR><TD> </TD><TD ALIGN=\"LEFT\">wavefronts = sum over phases of</TD></TR>"
    "<TR><TD> </TD><TD ALIGN=\"LEFT\">the worst bank's distinct words</TD></TR>"
    "</TABLE>",
    bank_bytes, banks);
  /* 17 rows of about 22 points; anchored by its top left corner */
  g_string_append_printf (dot, "  legend [shape=plaintext, pos=\"%.1f,%.1f!\", label=<%s>];\n",
                          x + 130, top - 17 * 22 / 2.0, t->str);
  g_string_free (t, TRUE);
}

void
ms_diagram_banks (const MsDiagramInfo *info, const MsWarpAccess *a, GString *dot)
{
  const MsArch *arch = info->arch;
  g_autofree MsBankDetail *d = g_new0 (MsBankDetail, 1);
  ms_banks_detail (arch, a, d);
  guint nb = d->banks;
  guint warp = (guint) MIN (arch->warp_size, MS_WARP_SIZE);
  guint n_active = 0;
  for (guint l = 0; l < warp; l++)
    n_active += (a->mask >> l) & 1;

  /* the panels: one per phase (all lanes in one panel when none active) */
  guint panels = d->cost.phases ? d->cost.phases : 1;
  guint lpp = d->cost.phases ? d->lanes_per_phase : warp;

  /* rows a panel needs: the banks, or its lanes' words if more */
  guint rows = nb;
  for (guint p = 0; p < panels; p++)
    {
      guint need = 0;
      for (guint l = p * lpp; l < MIN (warp, (p + 1) * lpp); l++)
        need += MAX (1, d->lane[l].n_words);
      rows = MAX (rows, need);
    }
  double height = rows * ROW;
  double top = height;
  double panel_w = LANE_W + WORD_W + GAP + BANK_W;

  ms_viz_begin (dot, "nop");

  /* the title */
  guint worst = 0;
  gboolean any_broadcast = FALSE;
  for (guint p = 0; p < d->cost.phases; p++)
    for (guint b = 0; b < nb; b++)
      {
        worst = MAX (worst, d->phase[p].bank_words[b]);
        any_broadcast |= bank_broadcast (d, p, b);
      }
  g_autofree char *phases_text =
    d->cost.phases > 1 ? g_strdup_printf (", %u phases of %u lanes", d->cost.phases, lpp)
                       : g_strdup ("");
  g_autofree char *what = g_strdup_printf ("%s %s, %u B per lane, %u of %u lanes active%s",
                                           ms_space_name (a->space), ms_viz_op_word (a->op),
                                           a->width, n_active, warp, phases_text);
  g_autofree char *summary = NULL;
  if (d->cost.phases == 0)
    summary = g_strdup ("no active lane: the access costs nothing");
  else if (d->cost.excessive == 0)
    summary = g_strdup_printf ("%u wavefront%s = the ideal: conflict-free%s", d->cost.wavefronts,
                               d->cost.wavefronts == 1 ? "" : "s",
                               any_broadcast ? " (with broadcast)" : "");
  else
    summary = g_strdup_printf ("%u wavefronts for an ideal of %u: %u excessive "
                               "\xc2\xb7 %u-way bank conflict",
                               d->cost.wavefronts, d->cost.ideal, d->cost.excessive, worst);
  ms_viz_title (dot, info, what, summary, d->cost.excessive ? MS_VIZ_BAD : MS_VIZ_GOOD);

  for (guint p = 0; p < panels; p++)
    {
      double x0 = p * (panel_w + PANEL_GAP);
      guint first = p * lpp, end = MIN (warp, (p + 1) * lpp);
      const MsBankPhase *ph = p < d->cost.phases ? &d->phase[p] : NULL;

      /* headers */
      if (panels > 1 && ph)
        g_string_append_printf (
          dot, "  h%u [shape=plaintext, fontsize=16, pos=\"%.1f,%.1f!\", "
               "label=<<B>phase %u</B>: lanes %u-%u \xc2\xb7 %u wavefront%s>];\n",
          p, x0 + panel_w / 2, top + 52, p, first, end - 1, ph->wavefronts,
          ph->wavefronts == 1 ? "" : "s");
      g_string_append_printf (dot, "  hl%u [shape=plaintext, fontsize=13, pos=\"%.1f,%.1f!\", "
                                   "label=\"lane  \xc2\xb7  word requested\"];\n",
                              p, x0 + (LANE_W + WORD_W) / 2.0, top + 22);
      g_string_append_printf (dot, "  hb%u [shape=plaintext, fontsize=13, pos=\"%.1f,%.1f!\", "
                                   "label=\"bank  \xc2\xb7  conflict\"];\n",
                              p, x0 + panel_w - BANK_W / 2.0, top + 22);

      /* lanes: spread over the panel's height */
      guint need = 0;
      for (guint l = first; l < end; l++)
        need += MAX (1, d->lane[l].n_words);
      double slot = height / need;
      double y = top;
      for (guint l = first; l < end; l++)
        {
          const MsBankLane *ln = &d->lane[l];
          guint k_n = MAX (1, ln->n_words);
          double h = k_n * slot;
          gboolean active = ln->phase >= 0;
          g_string_append_printf (
            dot, "  l%u [shape=plaintext, pos=\"%.1f,%.1f!\", label=<<TABLE BORDER=\"0\" "
                 "CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"1\">",
            l, x0 + (LANE_W + WORD_W) / 2.0, y - h / 2);
          for (guint k = 0; k < k_n; k++)
            {
              g_string_append (dot, "<TR>");
              if (k == 0)
                g_string_append_printf (
                  dot, "<TD ROWSPAN=\"%u\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\" "
                       "BGCOLOR=\"" MS_VIZ_PALE "\"%s>%slane %u%s</TD>",
                  k_n, LANE_W, (int) (k_n * CELL_H), active ? "" : " COLOR=\"" MS_VIZ_MUTED "\"",
                  active ? "<B>" : "<FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\"" MS_VIZ_MUTED "\">", l,
                  active ? "</B>" : "</FONT>");
              if (active)
                g_string_append_printf (dot, "<TD PORT=\"k%u\" WIDTH=\"%d\" HEIGHT=\"%d\" "
                                             "FIXEDSIZE=\"TRUE\">w %" G_GUINT64_FORMAT "</TD>",
                                        k, WORD_W, CELL_H, ln->word[k]);
              else
                g_string_append_printf (dot, "<TD WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\" "
                                             "COLOR=\"" MS_VIZ_MUTED "\"><FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\""
                                             MS_VIZ_MUTED "\">inactive</FONT></TD>",
                                        WORD_W, CELL_H);
              g_string_append (dot, "</TR>");
            }
          g_string_append (dot, "</TABLE>>];\n");
          y -= h;
        }

      /* banks */
      double bslot = height / nb;
      for (guint b = 0; b < nb; b++)
        {
          guint deg = ph ? ph->bank_words[b] : 0;
          const MsVizDegreeStep *st = ms_viz_degree_step (deg);
          g_autofree char *label = NULL;
          if (deg > 1)
            label = g_strdup_printf ("<B>bank %u  \xc2\xb7  %u-way</B>", b, deg);
          else if (deg == 1 && bank_broadcast (d, p, b))
            label = g_strdup_printf ("bank %u  \xc2\xb7  broadcast", b);
          else
            label = g_strdup_printf ("bank %u", b);
          g_string_append_printf (
            dot, "  p%ub%u [shape=box, style=filled, fixedsize=true, width=%.3f, height=%.3f, "
                 "fillcolor=\"%s\", fontcolor=\"%s\", color=\"%s\", pos=\"%.1f,%.1f!\", "
                 "label=<%s>];\n",
            p, b, BANK_W / 72.0, CELL_H / 72.0, st->fill, st->text,
            deg ? MS_VIZ_INK : MS_VIZ_MUTED, x0 + panel_w - BANK_W / 2.0,
            top - (b + 0.5) * bslot, label);
        }

      /* arrows: one per word of each active lane */
      for (guint l = first; l < end; l++)
        {
          const MsBankLane *ln = &d->lane[l];
          if (ln->phase < 0)
            continue;
          for (guint k = 0; k < ln->n_words; k++)
            {
              guint b = ln->bank[k];
              gboolean conflict = ph && ph->bank_words[b] > 1;
              g_string_append_printf (dot, "  l%u:k%u:e -> p%ub%u:w [color=\"%s\"%s];\n", l, k, p,
                                      b, conflict ? MS_VIZ_BAD : MS_VIZ_GOOD,
                                      ln->broadcast[k] ? ", style=dashed" : "");
            }
        }
    }

  legend (dot, panels * (panel_w + PANEL_GAP) - PANEL_GAP + LEGEND_GAP, top, d->bank_bytes, nb);
  ms_viz_end (dot);
}
