/* viz-sectors.c - the coalescing diagram of one global-memory warp access.
 *
 * Seed 001's figure ("threads 0-15 access addresses 116-176"), for the
 * sector rule of Maxwell..Hopper: the active lanes in a column on the left,
 * each with the address it reads or writes (buffer + byte offset); on the
 * right the memory the access touches, one row per 32-byte sector, grouped
 * into 128-byte lines, each sector split into 4-byte cells: blue = bytes a
 * lane asked for, orange = fetched but unused, white = not fetched.  An
 * arrow goes from each lane to the sector its first byte is in.  The title
 * gives sectors, bytes used versus fetched and the efficiency, from the
 * coalescing model (ms_coalescing_cost / ms_coalescing_sectors).
 *
 * When the touched lines would need more than MAX_FULL_ROWS rows (strided
 * accesses: a line per lane), only the fetched sectors are drawn.
 *
 * Layout: "nop", nodes placed here.
 */
#include "config.h"

#include "coalescing.h"
#include "access.h"
#include "viz-style.h"

#define ROW 22
#define LANE_W 58
#define ADDR_W 118
#define GAP 190
#define SECT_W 86
#define CELL_W 18
#define STATUS_W 150
#define LINE_W 150
#define SEP_H 8
#define MAX_FULL_ROWS 48
#define USED "#0072B2"
#define WASTE "#F5B27E"

static char *
address_text (const MsDiagramInfo *info, guint64 addr)
{
  int b = MS_VADDR_BUFFER (addr);
  guint64 off = MS_VADDR_OFFSET (addr);
  if (b >= 0 && (guint) b < info->n_buffers && info->buffer_names && info->buffer_names[b])
    return g_strdup_printf ("%s+%" G_GUINT64_FORMAT, info->buffer_names[b], off);
  if (b >= 0)
    return g_strdup_printf ("buf%d+%" G_GUINT64_FORMAT, b, off);
  return g_strdup_printf ("%" G_GUINT64_FORMAT, addr);
}

static void
legend (GString *dot, double x, double top, gboolean collapsed, guint sector_bytes,
        guint line_bytes)
{
  g_string_append_printf (
    dot,
    "  legend [shape=plaintext, pos=\"%.1f,%.1f!\", label=<<TABLE BORDER=\"0\" "
    "CELLBORDER=\"0\" CELLSPACING=\"2\" CELLPADDING=\"2\">"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><B>each cell = 4 bytes</B></TD></TR>"
    "<TR><TD BORDER=\"1\" BGCOLOR=\"" USED "\" WIDTH=\"26\" HEIGHT=\"16\" FIXEDSIZE=\"TRUE\"></TD>"
    "<TD ALIGN=\"LEFT\">requested by a lane (used)</TD></TR>"
    "<TR><TD BORDER=\"1\" BGCOLOR=\"" WASTE "\" WIDTH=\"26\" HEIGHT=\"16\" FIXEDSIZE=\"TRUE\"></TD>"
    "<TD ALIGN=\"LEFT\">fetched, not used (wasted)</TD></TR>"
    "<TR><TD BORDER=\"1\" COLOR=\"" MS_VIZ_MUTED "\" BGCOLOR=\"#FFFFFF\" WIDTH=\"26\" HEIGHT=\"16\" "
    "FIXEDSIZE=\"TRUE\"></TD><TD ALIGN=\"LEFT\">not fetched</TD></TR>"
    "<TR><TD COLSPAN=\"2\"> </TD></TR>"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">a row = one %u-byte sector, the unit</TD></TR>"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">memory is fetched in; sectors are</TD></TR>"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">grouped in %u-byte lines</TD></TR>"
    "%s"
    "<TR><TD COLSPAN=\"2\"> </TD></TR>"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">efficiency = bytes used / bytes fetched</TD></TR>"
    "</TABLE>>];\n",
    x + 125, top - 6 * 22, sector_bytes, line_bytes,
    collapsed ? "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><I>only fetched sectors drawn</I></TD></TR>"
              : "");
}

void
ms_diagram_sectors (const MsDiagramInfo *info, const MsWarpAccess *a, GString *dot)
{
  const MsArch *arch = info->arch;
  guint warp = (guint) MIN (arch->warp_size, MS_WARP_SIZE);
  guint64 sb = (guint64) arch->sector_bytes, lb = (guint64) arch->line_bytes;
  guint cells = (guint) MAX (1, sb / 4);

  MsGlobalCost cost;
  ms_coalescing_cost (arch, a, &cost);
  guint64 sectors[MS_COALESCING_MAX_SECTORS];
  guint n_sectors = ms_coalescing_sectors (arch, a, sectors);

  /* the rows: every sector of every touched line, or only the touched ones */
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (guint64)); /* sector index */
  guint n_lines = 0;
  for (guint i = 0; i < n_sectors; i++)
    if (i == 0 || sectors[i] * sb / lb != sectors[i - 1] * sb / lb)
      n_lines++;
  gboolean collapsed = (guint64) n_lines * (lb / sb) > MAX_FULL_ROWS;
  for (guint i = 0; i < n_sectors; i++)
    {
      guint64 line = sectors[i] * sb / lb;
      if (collapsed)
        g_array_append_val (rows, sectors[i]);
      else if (i == 0 || line != sectors[i - 1] * sb / lb)
        for (guint64 s = line * (lb / sb); s < (line + 1) * (lb / sb); s++)
          g_array_append_val (rows, s);
    }

  guint n_active = 0;
  for (guint l = 0; l < warp; l++)
    n_active += (a->mask >> l) & 1;

  ms_viz_begin (dot, "nop");

  /* title */
  guint64 fetched = (guint64) n_sectors * sb;
  guint64 ideal = (cost.bytes + sb - 1) / sb;
  int b0 = -1;
  for (guint l = 0; l < warp && b0 < 0; l++)
    if ((a->mask >> l) & 1)
      b0 = MS_VADDR_BUFFER (a->addr[l]);
  const char *buffer = b0 >= 0 && (guint) b0 < info->n_buffers && info->buffer_names
                         ? info->buffer_names[b0] : NULL;
  g_autofree char *what = g_strdup_printf (
    "%s %s%s%s, %u B per lane, %u of %u lanes active", ms_space_name (a->space),
    ms_viz_op_word (a->op), buffer ? " of buffer " : "", buffer ? buffer : "", a->width, n_active,
    warp);
  /* 12.5%, 66.7%, 100% */
  double pct = fetched ? 100.0 * (double) cost.bytes / (double) fetched : 0.0;
  char percent[32];
  g_snprintf (percent, sizeof percent, pct == (double) (guint) pct ? "%.0f" : "%.1f", pct);
  g_autofree char *summary = NULL;
  if (n_active == 0)
    summary = g_strdup ("no active lane: the access costs nothing");
  else
    summary = g_strdup_printf (
      "%" G_GUINT64_FORMAT " B requested \xc2\xb7 %u sector%s (%" G_GUINT64_FORMAT " B) fetched "
      "in %u line%s \xc2\xb7 efficiency %s%%%s",
      cost.bytes, n_sectors, n_sectors == 1 ? "" : "s", fetched, n_lines,
      n_lines == 1 ? "" : "s", percent, n_sectors > ideal ? "" : " (the minimum)");
  ms_viz_title (dot, info, what, summary, n_sectors > ideal ? MS_VIZ_BAD : MS_VIZ_GOOD);

  /* heights: the lanes, and the memory table with separators between lines */
  double lanes_h = MAX (1u, n_active) * ROW;
  double mem_h = rows->len * ROW + ROW; /* + header */
  for (guint i = 1; i < rows->len; i++)
    if (g_array_index (rows, guint64, i) * sb / lb != g_array_index (rows, guint64, i - 1) * sb / lb)
      mem_h += SEP_H;
  double height = MAX (lanes_h, mem_h);
  double top = height;

  /* lanes */
  double lx = (LANE_W + ADDR_W) / 2.0;
  double ly = top - (height - lanes_h) / 2;
  g_string_append_printf (dot, "  hl [shape=plaintext, fontsize=13, pos=\"%.1f,%.1f!\", "
                               "label=\"lane  \xc2\xb7  address (buffer + byte)\"];\n",
                          lx, top + 22);
  for (guint l = 0; l < warp; l++)
    {
      if (!((a->mask >> l) & 1))
        continue;
      g_autofree char *addr = address_text (info, a->addr[l]);
      g_string_append_printf (
        dot, "  l%u [shape=plaintext, pos=\"%.1f,%.1f!\", label=<<TABLE BORDER=\"0\" "
             "CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"1\"><TR>"
             "<TD WIDTH=\"%d\" HEIGHT=\"20\" FIXEDSIZE=\"TRUE\" BGCOLOR=\"" MS_VIZ_PALE "\">"
             "<B>lane %u</B></TD><TD PORT=\"a\" WIDTH=\"%d\" HEIGHT=\"20\" FIXEDSIZE=\"TRUE\">%s</TD>"
             "</TR></TABLE>>];\n",
        l, lx, ly - ROW / 2.0, LANE_W, l, ADDR_W, addr);
      ly -= ROW;
    }

  /* memory */
  double mem_w = SECT_W + cells * CELL_W + STATUS_W + LINE_W;
  double mx = LANE_W + ADDR_W + GAP + mem_w / 2;
  double my = top - (height - mem_h) / 2 - mem_h / 2;
  g_string_append_printf (dot, "  hm [shape=plaintext, fontsize=13, pos=\"%.1f,%.1f!\", "
                               "label=\"memory: %u-byte sectors in %u-byte lines\"];\n",
                          mx, top + 22, (guint) sb, (guint) lb);
  g_string_append_printf (dot, "  mem [shape=plaintext, pos=\"%.1f,%.1f!\", label=<<TABLE "
                               "BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"1\">",
                          mx, my);
  g_string_append_printf (dot, "<TR><TD BORDER=\"0\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\">"
                               "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"10\">sector</FONT></TD>",
                          SECT_W, ROW);
  for (guint c = 0; c < cells; c += 2)
    g_string_append_printf (dot, "<TD BORDER=\"0\" COLSPAN=\"%u\" WIDTH=\"%d\" HEIGHT=\"%d\" "
                                 "FIXEDSIZE=\"TRUE\" ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_FONT
                                 "\" POINT-SIZE=\"8\" COLOR=\"" MS_VIZ_MUTED "\">+%u</FONT></TD>",
                            MIN (2u, cells - c), (int) MIN (2u, cells - c) * CELL_W, ROW, c * 4);
  g_string_append_printf (dot, "<TD BORDER=\"0\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\">"
                               "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"10\">bytes used</FONT></TD>"
                               "<TD BORDER=\"0\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\">"
                               "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"10\">line</FONT></TD></TR>",
                          STATUS_W, ROW, LINE_W, ROW);
  for (guint i = 0; i < rows->len; i++)
    {
      guint64 s = g_array_index (rows, guint64, i);
      guint64 line = s * sb / lb;
      gboolean line_start = i == 0 || g_array_index (rows, guint64, i - 1) * sb / lb != line;
      if (line_start && i > 0)
        g_string_append_printf (dot, "<TR><TD BORDER=\"0\" COLSPAN=\"%u\" HEIGHT=\"%d\">"
                                     "</TD></TR>",
                                cells + 3, SEP_H);
      /* bytes of this sector used, per 4-byte cell */
      guint used_bytes = 0;
      guint32 used_cells = 0;
      gboolean fetched_s = FALSE;
      for (guint k = 0; k < n_sectors; k++)
        fetched_s |= sectors[k] == s;
      for (guint64 byte = s * sb; byte < (s + 1) * sb; byte++)
        {
          gboolean used = FALSE;
          for (guint l = 0; l < warp && !used; l++)
            used = ((a->mask >> l) & 1) && byte >= a->addr[l] && byte < a->addr[l] + a->width;
          if (used)
            {
              used_bytes++;
              used_cells |= 1u << ((byte - s * sb) / 4);
            }
        }
      g_string_append_printf (dot, "<TR><TD PORT=\"s%u\" WIDTH=\"%d\" HEIGHT=\"%d\" "
                                   "FIXEDSIZE=\"TRUE\" BGCOLOR=\"" MS_VIZ_PALE "\"%s>%s+%"
                                   G_GUINT64_FORMAT "%s</TD>",
                              i, SECT_W, ROW, fetched_s ? "" : " COLOR=\"" MS_VIZ_MUTED "\"",
                              fetched_s ? "" : "<FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\"" MS_VIZ_MUTED "\">",
                              MS_VADDR_OFFSET (s * sb), fetched_s ? "" : "</FONT>");
      for (guint c = 0; c < cells; c++)
        g_string_append_printf (dot, "<TD WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\" "
                                     "BGCOLOR=\"%s\"%s></TD>",
                                CELL_W, ROW,
                                (used_cells >> c) & 1 ? USED : fetched_s ? WASTE : "#FFFFFF",
                                fetched_s ? "" : " COLOR=\"" MS_VIZ_MUTED "\"");
      if (fetched_s)
        g_string_append_printf (dot, "<TD WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\" "
                                     "ALIGN=\"LEFT\"> %u of %u B</TD>",
                                STATUS_W, ROW, used_bytes, (guint) sb);
      else
        g_string_append_printf (dot, "<TD WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\" "
                                     "ALIGN=\"LEFT\" COLOR=\"" MS_VIZ_MUTED "\"><FONT FACE=\"" MS_VIZ_FONT "\" COLOR=\""
                                     MS_VIZ_MUTED "\"> not fetched</FONT></TD>",
                                STATUS_W, ROW);
      if (line_start)
        {
          guint span = 0;
          for (guint j = i; j < rows->len && g_array_index (rows, guint64, j) * sb / lb == line; j++)
            span++;
          g_autofree char *laddr = address_text (info, line * lb);
          g_string_append_printf (dot, "<TD ROWSPAN=\"%u\" WIDTH=\"%d\" FIXEDSIZE=\"FALSE\" "
                                       "BGCOLOR=\"" MS_VIZ_PALE "\">%s</TD>",
                                  span, LINE_W, laddr);
        }
      g_string_append (dot, "</TR>");
    }
  g_string_append (dot, "</TABLE>>];\n");

  /* arrows: lane -> the sector of its first byte */
  for (guint l = 0; l < warp; l++)
    if ((a->mask >> l) & 1)
      for (guint i = 0; i < rows->len; i++)
        if (g_array_index (rows, guint64, i) == a->addr[l] / sb)
          g_string_append_printf (dot, "  l%u:a:e -> mem:s%u:w [color=\"" MS_VIZ_GOOD "\"];\n",
                                  l, i);

  legend (dot, LANE_W + ADDR_W + GAP + mem_w + 40, top, collapsed, (guint) sb, (guint) lb);
  ms_viz_end (dot);
}
