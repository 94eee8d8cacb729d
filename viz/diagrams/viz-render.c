/* viz-render.c - the diagram kinds and formats by name, and rendering: DOT
 * as it is, SVG, PNG and PDF through the plug-in memsim-graphviz.so
 * (viz-graphviz.c), loaded on the first render, so that the commands that
 * draw nothing do not load Graphviz's libraries.
 */
#include "config.h"

#include "diagram.h"

#include <string.h>

#include "plugin.h"
#include "viz-plugin.h"

G_DEFINE_QUARK (ms-diagram-error-quark, ms_diagram_error)

gboolean
ms_diagram_kind_parse (const char *text, MsDiagramKind *kind, GError **error)
{
  static const char *const names[] = { "banks", "sectors", "tile", "lines" };
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (g_strcmp0 (text, names[i]) == 0)
      {
        *kind = (MsDiagramKind) i;
        return TRUE;
      }
  g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_FORMAT,
               "--kind %s: choose banks, sectors, tile or lines", text ? text : "(none)");
  return FALSE;
}

const char *
ms_diagram_kind_name (MsDiagramKind kind)
{
  static const char *const names[] = { "banks", "sectors", "tile", "lines" };
  return (guint) kind < G_N_ELEMENTS (names) ? names[kind] : "?";
}

gboolean
ms_diagram_format_from_path (const char *file, MsDiagramFormat *format, GError **error)
{
  static const struct { const char *ext; MsDiagramFormat format; } exts[] = {
    { ".svg", MS_DIAGRAM_SVG }, { ".png", MS_DIAGRAM_PNG },
    { ".pdf", MS_DIAGRAM_PDF }, { ".dot", MS_DIAGRAM_DOT }, { ".gv", MS_DIAGRAM_DOT },
  };
  const char *slash = file ? strrchr (file, '/') : NULL;
  const char *base = slash ? slash + 1 : file;
  const char *dot = base ? strrchr (base, '.') : NULL;
  if (dot != NULL)
    for (guint i = 0; i < G_N_ELEMENTS (exts); i++)
      if (g_ascii_strcasecmp (dot, exts[i].ext) == 0)
        {
          *format = exts[i].format;
          return TRUE;
        }
  g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_FORMAT,
               "-o %s: the file name must end in .svg, .png, .pdf or .dot (it picks the format)",
               file ? file : "(none)");
  return FALSE;
}

static const MsGraphvizPlugin *
plugin (GError **error)
{
  return ms_plugin_symbol ("graphviz", "Graphviz rendering (SVG, PNG, PDF)", "ms_graphviz_plugin",
                           error);
}

gboolean
ms_diagram_render_ready (MsDiagramFormat format, GError **error)
{
  return format == MS_DIAGRAM_DOT || plugin (error) != NULL;
}

gboolean
ms_diagram_render (const char *dot, MsDiagramFormat format, GBytes **out, char **warnings,
                   GError **error)
{
  if (warnings)
    *warnings = NULL;
  if (format == MS_DIAGRAM_DOT)
    {
      *out = g_bytes_new (dot, strlen (dot));
      return TRUE;
    }
  const MsGraphvizPlugin *gv = plugin (error);
  return gv != NULL && gv->render (dot, format, out, warnings, error);
}
