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
 * Under compute capability 1.2/1.3's rule (arch->segment_rule = shrink,
 * the cc13 preset) the memory column shows the transactions instead: one
 * box per 32-, 64- or 128-byte segment a half-warp's transaction covers
 * (ms_coalescing_segments), in the order they are issued, its rows the
 * 32-byte pieces of it, labelled with its size and half-warp; a lane's
 * arrow goes to the transaction that serves it.  Seed 001's example is a
 * 32-byte and a 64-byte box.
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

/* A row of the memory table: one sector (one 32-byte piece of a
 * transaction under the shrink rule).  Rows of one group (a line, or a
 * transaction) share the label cell on the right. */
typedef struct {
  guint64 sector;     /* byte address / sector_bytes */
  guint64 group;
  gboolean fetched;
  guint32 lanes;      /* the lanes whose bytes count as used in it */
} Row;

static void
legend (GString *dot, double x, double top, gboolean collapsed, gboolean shrink,
        guint sector_bytes, guint line_bytes)
{
  g_autofree char *rows = shrink
    ? g_strdup ("<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">a row = 32 bytes; a box = one</TD></TR>"
                "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">half-warp's transaction: a segment</TD></TR>"
                "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">of 32, 64 or 128 bytes (cc 1.2/1.3)</TD></TR>")
    : g_strdup_printf ("<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">a row = one %u-byte sector, the unit</TD></TR>"
                       "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">memory is fetched in; sectors are</TD></TR>"
                       "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">grouped in %u-byte lines</TD></TR>",
                       sector_bytes, line_bytes);
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
    "%s"
    "%s"
    "<TR><TD COLSPAN=\"2\"> </TD></TR>"
    "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\">efficiency = bytes used / bytes fetched</TD></TR>"
    "</TABLE>>];\n",
    x + 125, top - 6 * 22, rows,
    collapsed ? "<TR><TD COLSPAN=\"2\" ALIGN=\"LEFT\"><I>only fetched sectors drawn</I></TD></TR>"
              : "");
}

/* Appends the rows of the sector rule: every sector of every touched line
 * (group = the line), or only the fetched ones when that is too many. */
static gboolean
sector_rows (const MsArch *arch, const MsWarpAccess *a, GArray *rows, guint *n_fetched)
{
  guint64 sb = (guint64) arch->sector_bytes, lb = (guint64) arch->line_bytes;
  guint64 sectors[MS_COALESCING_MAX_SECTORS];
  guint n_sectors = ms_coalescing_sectors (arch, a, sectors);
  guint n_lines = 0;
  for (guint i = 0; i < n_sectors; i++)
    if (i == 0 || sectors[i] * sb / lb != sectors[i - 1] * sb / lb)
      n_lines++;
  gboolean collapsed = (guint64) n_lines * (lb / sb) > MAX_FULL_ROWS;
  for (guint i = 0; i < n_sectors; i++)
    {
      guint64 line = sectors[i] * sb / lb;
      if (collapsed)
        g_array_append_val (rows, ((Row) { sectors[i], line, TRUE, a->mask }));
      else if (i == 0 || line != sectors[i - 1] * sb / lb)
        for (guint64 s = line * (lb / sb); s < (line + 1) * (lb / sb); s++)
          {
            gboolean fetched = FALSE;
            for (guint k = 0; k < n_sectors; k++)
              fetched |= sectors[k] == s;
            g_array_append_val (rows, ((Row) { s, line, fetched, a->mask }));
          }
    }
  *n_fetched = n_sectors;
  return collapsed;
}

/* Appends the rows of the shrink rule: each transaction's 32-byte pieces
 * (group = the transaction's index in segs). */
static void
segment_rows (const MsSegment *segs, guint n, guint64 sb, GArray *rows)
{
  for (guint i = 0; i < n; i++)
    for (guint64 s = segs[i].addr / sb; s < (segs[i].addr + segs[i].size) / sb; s++)
      g_array_append_val (rows, ((Row) { s, i, TRUE, segs[i].lanes }));
}

void
ms_diagram_sectors (const MsDiagramInfo *info, const MsWarpAccess *a, GString *dot)
{
  const MsArch *arch = info->arch;
  guint warp = (guint) MIN (arch->warp_size, MS_WARP_SIZE);
  guint64 sb = (guint64) arch->sector_bytes, lb = (guint64) arch->line_bytes;
  guint cells = (guint) MAX (1, sb / 4);
  gboolean shrink = arch->segment_rule == MS_SEGMENTS_SHRINK;

  MsGlobalCost cost;
  ms_coalescing_cost (arch, a, &cost);
  MsSegment segs[MS_COALESCING_MAX_SEGMENTS];
  guint n_segs = ms_coalescing_segments (arch, a, segs);

  /* the rows, grouped by line (sector rule) or by transaction (shrink) */
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (Row));
  guint n_sectors = 0;
  gboolean collapsed = FALSE;
  if (shrink)
    segment_rows (segs, n_segs, sb, rows);
  else
    collapsed = sector_rows (arch, a, rows, &n_sectors);
  guint n_lines = (guint) cost.lines;

  guint n_active = 0;
  for (guint l = 0; l < warp; l++)
    n_active += (a->mask >> l) & 1;

  ms_viz_begin (dot, "nop");

  /* title */
  guint64 fetched = shrink ? cost.sectors * sb : (guint64) n_sectors * sb;
  guint64 ideal = (cost.bytes + sb - 1) / sb;
  guint64 units = shrink ? cost.sectors : n_sectors;
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
  else if (shrink)
    summary = g_strdup_printf (
      "%" G_GUINT64_FORMAT " B requested \xc2\xb7 transactions: %" G_GUINT64_FORMAT " x 32 B, %"
      G_GUINT64_FORMAT " x 64 B, %" G_GUINT64_FORMAT " x 128 B (%" G_GUINT64_FORMAT " B) "
      "\xc2\xb7 efficiency %s%%",
      cost.bytes, cost.transactions[0], cost.transactions[1], cost.transactions[2], fetched,
      percent);
  else
    summary = g_strdup_printf (
      "%" G_GUINT64_FORMAT " B requested \xc2\xb7 %u sector%s (%" G_GUINT64_FORMAT " B) fetched "
      "in %u line%s \xc2\xb7 efficiency %s%%%s",
      cost.bytes, n_sectors, n_sectors == 1 ? "" : "s", fetched, n_lines,
      n_lines == 1 ? "" : "s", percent, n_sectors > ideal ? "" : " (the minimum)");
  ms_viz_title (dot, info, what, summary, units > ideal ? MS_VIZ_BAD : MS_VIZ_GOOD);

  /* heights: the lanes, and the memory table with separators between groups */
#define ROW_AT(i) g_array_index (rows, Row, (i))
  double lanes_h = MAX (1u, n_active) * ROW;
  double mem_h = rows->len * ROW + ROW; /* + header */
  for (guint i = 1; i < rows->len; i++)
    if (ROW_AT (i).group != ROW_AT (i - 1).group)
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
  if (shrink)
    g_string_append_printf (dot, "  hm [shape=plaintext, fontsize=13, pos=\"%.1f,%.1f!\", "
                                 "label=\"memory: each half-warp's transactions (segments), "
                                 "in %u-byte rows\"];\n",
                            mx, top + 22, (guint) sb);
  else
    g_string_append_printf (dot, "  hm [shape=plaintext, fontsize=13, pos=\"%.1f,%.1f!\", "
                                 "label=\"memory: %u-byte sectors in %u-byte lines\"];\n",
                            mx, top + 22, (guint) sb, (guint) lb);
  g_string_append_printf (dot, "  mem [shape=plaintext, pos=\"%.1f,%.1f!\", label=<<TABLE "
                               "BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"1\">",
                          mx, my);
  g_string_append_printf (dot, "<TR><TD BORDER=\"0\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\">"
                               "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"10\">%s</FONT></TD>",
                          SECT_W, ROW, shrink ? "bytes" : "sector");
  for (guint c = 0; c < cells; c += 2)
    g_string_append_printf (dot, "<TD BORDER=\"0\" COLSPAN=\"%u\" WIDTH=\"%d\" HEIGHT=\"%d\" "
                                 "FIXEDSIZE=\"TRUE\" ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_FONT
                                 "\" POINT-SIZE=\"8\" COLOR=\"" MS_VIZ_MUTED "\">+%u</FONT></TD>",
                            MIN (2u, cells - c), (int) MIN (2u, cells - c) * CELL_W, ROW, c * 4);
  g_string_append_printf (dot, "<TD BORDER=\"0\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\">"
                               "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"10\">bytes used</FONT></TD>"
                               "<TD BORDER=\"0\" WIDTH=\"%d\" HEIGHT=\"%d\" FIXEDSIZE=\"TRUE\">"
                               "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"10\">%s</FONT></TD></TR>",
                          STATUS_W, ROW, LINE_W, ROW, shrink ? "transaction" : "line");
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *row = &ROW_AT (i);
      guint64 s = row->sector;
      gboolean group_start = i == 0 || ROW_AT (i - 1).group != row->group;
      if (group_start && i > 0)
        g_string_append_printf (dot, "<TR><TD BORDER=\"0\" COLSPAN=\"%u\" HEIGHT=\"%d\">"
                                     "</TD></TR>",
                                cells + 3, SEP_H);
      /* bytes of this sector used by its lanes, per 4-byte cell */
      guint used_bytes = 0;
      guint32 used_cells = 0;
      gboolean fetched_s = row->fetched;
      for (guint64 byte = s * sb; byte < (s + 1) * sb; byte++)
        {
          gboolean used = FALSE;
          for (guint l = 0; l < warp && !used; l++)
            used = ((row->lanes >> l) & 1) && byte >= a->addr[l] && byte < a->addr[l] + a->width;
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
      if (group_start)
        {
          guint span = 0;
          for (guint j = i; j < rows->len && ROW_AT (j).group == row->group; j++)
            span++;
          if (shrink)
            {
              /* the transaction's box: its size, half-warp and address */
              const MsSegment *g = &segs[row->group];
              g_autofree char *gaddr = address_text (info, g->addr);
              g_string_append_printf (dot, "<TD ROWSPAN=\"%u\" WIDTH=\"%d\" FIXEDSIZE=\"FALSE\" "
                                           "BORDER=\"3\" BGCOLOR=\"" MS_VIZ_PALE "\"><B>%u-byte "
                                           "segment</B><BR/>half-warp %u<BR/>%s</TD>",
                                      span, LINE_W, g->size, g->group, gaddr);
            }
          else
            {
              g_autofree char *laddr = address_text (info, s * sb / lb * lb);
              g_string_append_printf (dot, "<TD ROWSPAN=\"%u\" WIDTH=\"%d\" FIXEDSIZE=\"FALSE\" "
                                           "BGCOLOR=\"" MS_VIZ_PALE "\">%s</TD>",
                                      span, LINE_W, laddr);
            }
        }
      g_string_append (dot, "</TR>");
    }
  g_string_append (dot, "</TABLE>>];\n");

  /* arrows: lane -> the row of its first byte (in the transaction serving it) */
  for (guint l = 0; l < warp; l++)
    if ((a->mask >> l) & 1)
      for (guint i = 0; i < rows->len; i++)
        if (ROW_AT (i).sector == a->addr[l] / sb && ((ROW_AT (i).lanes >> l) & 1))
          g_string_append_printf (dot, "  l%u:a:e -> mem:s%u:w [color=\"" MS_VIZ_GOOD "\"];\n",
                                  l, i);
#undef ROW_AT

  legend (dot, LANE_W + ADDR_W + GAP + mem_w + 40, top, collapsed, shrink, (guint) sb, (guint) lb);
  ms_viz_end (dot);
}
