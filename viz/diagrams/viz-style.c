/* viz-style.c - see viz-style.h. */
#include "config.h"

#include "viz-style.h"

#include <string.h>

void
ms_viz_begin (GString *dot, const char *layout)
{
  g_string_append_printf (
    dot,
    "digraph memsim {\n"
    "  graph [layout=%s, splines=line, outputorder=edgesfirst, bgcolor=white, pad=0.3,\n"
    "         fontname=\"" MS_VIZ_FONT "\", fontsize=14, fontcolor=\"" MS_VIZ_INK "\",\n"
    "         labelloc=t, labeljust=l];\n"
    "  node [fontname=\"" MS_VIZ_FONT "\", fontsize=12, fontcolor=\"" MS_VIZ_INK "\",\n"
    "        color=\"" MS_VIZ_INK "\", penwidth=1, margin=0];\n"
    "  edge [fontname=\"" MS_VIZ_FONT "\", fontsize=11, color=\"" MS_VIZ_INK "\",\n"
    "        arrowsize=0.6, penwidth=1.2];\n",
    layout);
}

void
ms_viz_end (GString *dot)
{
  g_string_append (dot, "}\n");
}

char *
ms_viz_html (const char *text)
{
  return g_markup_escape_text (text ? text : "", -1);
}

char *
ms_viz_code (const char *line)
{
  g_autofree char *s = g_strdup (line ? line : "");
  /* a trailing comment (a comment opener inside a string literal is rare
   * enough in kernels to ignore) */
  char *c = strstr (s, "/*");
  char *d = strstr (s, "//");
  if (d && (!c || d < c))
    c = d;
  if (c)
    *c = '\0';
  GString *out = g_string_new (NULL);
  for (const char *p = s; *p; p++)
    if (!(g_ascii_isspace (*p) && (out->len == 0 || out->str[out->len - 1] == ' ')))
      g_string_append_c (out, g_ascii_isspace (*p) ? ' ' : *p);
  while (out->len && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  return g_string_free (out, FALSE);
}

const char *
ms_viz_op_word (MsOp op)
{
  switch (op)
    {
    case MS_OP_LD: return "load";
    case MS_OP_ST: return "store";
    case MS_OP_ATOMIC: return "atomic";
    case MS_OP_RED: return "reduction";
    default: return "access";
    }
}

char *
ms_viz_ordinal (guint n)
{
  const char *suffix = "th";
  if (n % 100 < 11 || n % 100 > 13)
    switch (n % 10)
      {
      case 1: suffix = "st"; break;
      case 2: suffix = "nd"; break;
      case 3: suffix = "rd"; break;
      default: break;
      }
  return g_strdup_printf ("%u%s", n, suffix);
}

void
ms_viz_title (GString *dot, const MsDiagramInfo *info, const char *what, const char *summary,
              const char *summary_colour)
{
  GString *t = g_string_new (NULL);
  g_string_append (t, "<<TABLE BORDER=\"0\" CELLSPACING=\"3\" CELLPADDING=\"0\">");

  /* kernel . file:line, one bold run (runs of different fonts on one line
   * are placed by Graphviz's measurements, which a renderer with other font
   * metrics may contradict) */
  g_autoptr (GString) head = g_string_new (info->kernel);
  if (info->file)
    {
      const char *base = strrchr (info->file, '/');
      g_string_append_printf (head, "  \xc2\xb7  %s", base ? base + 1 : info->file);
      if (info->line > 0)
        g_string_append_printf (head, ":%d", info->line);
    }
  g_autofree char *head_html = ms_viz_html (head->str);
  g_string_append_printf (t, "<TR><TD ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_FONT "\" "
                             "POINT-SIZE=\"24\"><B>%s</B></FONT></TD></TR>", head_html);

  /* the source line, without its comment */
  g_autofree char *code = ms_viz_code (info->source);
  if (*code)
    {
      g_autofree char *cut = NULL;
      if (g_utf8_strlen (code, -1) > 90)
        {
          g_autofree char *start = g_utf8_substring (code, 0, 87);
          cut = g_strconcat (start, "...", NULL);
        }
      g_autofree char *src = ms_viz_html (cut ? cut : code);
      g_string_append_printf (t, "<TR><TD ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_MONO
                                 "\" POINT-SIZE=\"17\">%s</FONT></TD></TR>", src);
    }

  /* what */
  if (what && *what)
    {
      g_autofree char *esc = ms_viz_html (what);
      g_string_append_printf (t, "<TR><TD ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_FONT "\" "
                                 "POINT-SIZE=\"16\">%s</FONT></TD></TR>", esc);
    }

  /* parameters, which warp, which arch */
  GString *line = g_string_new (NULL);
  if (info->params && *info->params)
    g_string_append (line, info->params);
  if (info->executions > 0)
    {
      if (line->len)
        g_string_append (line, "  \xc2\xb7  ");
      g_autofree char *nth = ms_viz_ordinal (info->instance + 1);
      g_string_append_printf (line, "block %u, warp %u, %s of %u execution%s", info->block,
                              info->warp, nth, info->executions,
                              info->executions == 1 ? "" : "s");
    }
  if (info->arch)
    {
      if (line->len)
        g_string_append (line, "  \xc2\xb7  ");
      g_string_append (line, info->arch->description ? info->arch->description
                                                     : info->arch->name);
    }
  if (line->len)
    {
      g_autofree char *esc = ms_viz_html (line->str);
      g_string_append_printf (t, "<TR><TD ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_FONT "\" "
                                 "POINT-SIZE=\"14\" COLOR=\"#555555\">%s</FONT></TD></TR>", esc);
    }
  g_string_free (line, TRUE);

  if (summary && *summary)
    g_string_append_printf (t, "<TR><TD ALIGN=\"LEFT\"><FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"19\" COLOR=\"%s\"><B>%s"
                               "</B></FONT></TD></TR>",
                            summary_colour ? summary_colour : MS_VIZ_INK, summary);
  g_string_append (t, "<TR><TD> </TD></TR></TABLE>>");
  g_string_append_printf (dot, "  graph [label=%s];\n", t->str);
  g_string_free (t, TRUE);
}

static const MsVizDegreeStep degree_steps[] = {
  { 0, 0, "#FFFFFF", MS_VIZ_MUTED, "idle: no lane" },
  { 1, 1, "#56B4E9", "#000000", "1 word: conflict-free" },
  { 2, 2, "#FED98E", "#000000", "2-way conflict" },
  { 3, 4, "#FE9929", "#000000", "3- to 4-way" },
  { 5, 8, "#D95F0E", "#FFFFFF", "5- to 8-way" },
  { 9, G_MAXUINT, "#993404", "#FFFFFF", "9-way or worse" },
};

const MsVizDegreeStep *
ms_viz_degree_steps (guint *n)
{
  *n = G_N_ELEMENTS (degree_steps);
  return degree_steps;
}

const MsVizDegreeStep *
ms_viz_degree_step (guint degree)
{
  for (guint i = 0; i < G_N_ELEMENTS (degree_steps); i++)
    if (degree >= degree_steps[i].min && degree <= degree_steps[i].max)
      return &degree_steps[i];
  return &degree_steps[G_N_ELEMENTS (degree_steps) - 1];
}

/* viridis at 0, 1/8, ..., 1 */
static const guint8 viridis[9][3] = {
  { 0x44, 0x01, 0x54 }, { 0x47, 0x2d, 0x7b }, { 0x3b, 0x52, 0x8b }, { 0x2c, 0x72, 0x8e },
  { 0x21, 0x91, 0x8c }, { 0x28, 0xae, 0x80 }, { 0x5e, 0xc9, 0x62 }, { 0xad, 0xdc, 0x30 },
  { 0xfd, 0xe7, 0x25 },
};

void
ms_viz_bank_colour (guint bank, guint n_banks, gboolean pale, char out[8], gboolean *dark)
{
  /* integer arithmetic only: identical output everywhere */
  guint span = n_banks > 1 ? n_banks - 1 : 1;
  guint pos = (bank % (n_banks ? n_banks : 1)) * 8 * 256 / span; /* 0 .. 8*256 */
  guint i = MIN (pos / 256, 7), f = pos - i * 256;
  guint rgb[3];
  for (int c = 0; c < 3; c++)
    {
      rgb[c] = (viridis[i][c] * (256 - f) + viridis[i + 1][c] * f) / 256;
      if (pale)
        rgb[c] = rgb[c] + (255 - rgb[c]) * 62 / 100;
    }
  g_snprintf (out, 8, "#%02X%02X%02X", rgb[0], rgb[1], rgb[2]);
  if (dark)
    *dark = (rgb[0] * 299 + rgb[1] * 587 + rgb[2] * 114) / 1000 < 140;
}
