/* viz-style.h - what every diagram shares: fonts, the colour-blind-safe
 * palettes, the title block, HTML-label escaping.  Internal to viz/. */
#pragma once

#include <glib.h>

#include "diagram.h"

G_BEGIN_DECLS

#define MS_VIZ_FONT "Helvetica"      /* Liberation Sans / Arial metrics */
#define MS_VIZ_MONO "Courier"        /* source code */
#define MS_VIZ_INK "#222222"         /* text and outlines */
#define MS_VIZ_MUTED "#8C8C8C"       /* idle things */
#define MS_VIZ_GOOD "#0072B2"        /* Okabe-Ito blue: no conflict, bytes used */
#define MS_VIZ_BAD "#D55E00"         /* Okabe-Ito vermillion: conflict, waste */
#define MS_VIZ_PALE "#F2F2F2"        /* header cells */

/* Opens a DOT digraph with the common attributes; layout is a Graphviz
 * engine ("nop": positions given in points, "dot"). */
void ms_viz_begin (GString *dot, const char *layout);
/* The title block (graph label): kernel and source line, the access, the
 * warp, the arch, and `summary` (already HTML, e.g. "32 wavefronts ...")
 * in the colour `summary_colour`.  `what` says what is drawn (e.g.
 * "shared load, 4 B per lane"); either may be NULL. */
void ms_viz_title (GString *dot, const MsDiagramInfo *info, const char *what,
                   const char *summary, const char *summary_colour);
void ms_viz_end (GString *dot);

/* Escaped for an HTML-like label (& < > " '); never NULL. */
char *ms_viz_html (const char *text);

/* Bank conflict degree (distinct words a bank serves in one phase; 0 =
 * idle): fill colour, text colour and the legend's words.  A sequential
 * blue -> yellow -> dark orange scale (ColorBrewer YlOrBr after Okabe-Ito
 * sky blue), readable with the common colour-vision deficiencies. */
typedef struct {
  guint min, max;
  const char *fill, *text, *label;
} MsVizDegreeStep;
const MsVizDegreeStep *ms_viz_degree_steps (guint *n);
const MsVizDegreeStep *ms_viz_degree_step (guint degree);

/* Colour of bank b of n: viridis, in "#RRGGBB"; `pale` mixes it with white
 * (for cells no lane touches).  *dark says whether white text reads best. */
void ms_viz_bank_colour (guint bank, guint n_banks, gboolean pale, char out[8],
                         gboolean *dark);

/* A source line for display: its trailing comment dropped, runs of
 * blanks made one space; never NULL. */
char *ms_viz_code (const char *line);

/* "ld" -> "load" ... */
const char *ms_viz_op_word (MsOp op);
/* "1st", "2nd", ... for n >= 1 */
char *ms_viz_ordinal (guint n);

G_END_DECLS
