/* viz-plugin.h - between viz-render.c (in memsim) and the Graphviz plug-in
 * memsim-graphviz.so (viz-graphviz.c), which exports ms_graphviz_plugin. */
#pragma once

#include "diagram.h"

G_BEGIN_DECLS

typedef struct {
  /* ms_diagram_render for SVG, PNG and PDF */
  gboolean (*render) (const char *dot, MsDiagramFormat format, GBytes **out, char **warnings,
                      GError **error);
} MsGraphvizPlugin;

G_END_DECLS
