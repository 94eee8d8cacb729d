/* viz-render.c - DOT text to SVG, PNG or PDF through libgvc, in-process.
 *
 * Graphviz is not thread-safe (global state in cgraph and gvc, error
 * handlers, font caches): every call takes one process-wide lock, and the
 * GVC context is made once and kept (each gvContext() loads the plugin
 * configuration again; Graphviz also leaks a little per HTML table cell,
 * so a context per call would only add to it).
 *
 * SVG uses Graphviz's core SVG renderer, which keeps text as <text>
 * elements (searchable, selectable, small); PNG and PDF use the cairo
 * plugin (anti-aliased, fonts through pango).
 */
#include "config.h"

#include "diagram.h"

#include <gvc.h>
#include <string.h>

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

static GMutex render_lock;
static GVC_t *gvc;
static GString *gv_messages;   /* what Graphviz said during the current call */

static int
collect_message (char *message)
{
  if (gv_messages != NULL)
    g_string_append (gv_messages, message);
  return 0;
}

static char *
messages_line (void)
{
  g_autofree char *text = g_strdup (gv_messages->str);
  g_strstrip (text);
  for (char *c = text; *c; c++)
    if (*c == '\n')
      *c = ' ';
  return *text ? g_strdup (text) : g_strdup ("no message");
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
  const char *renderer = format == MS_DIAGRAM_SVG   ? "svg"
                         : format == MS_DIAGRAM_PNG ? "png:cairo"
                                                    : "pdf:cairo";
  gboolean ok = FALSE;
  g_mutex_lock (&render_lock);
  gv_messages = g_string_new (NULL);
  agusererrf old_handler = agseterrf (collect_message);
  agerrlevel_t old_level = agseterr (AGWARN);
  if (gvc == NULL)
    gvc = gvContext ();

  Agraph_t *g = agmemread (dot);
  if (g == NULL)
    {
      g_autofree char *msg = messages_line ();
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_RENDER,
                   "Graphviz could not read the diagram: %s", msg);
      goto out;
    }
  /* PNG at 144 dpi (twice the 72 points of an inch): sharp on a slide */
  if (format == MS_DIAGRAM_PNG)
    {
      const char *dpi = agget (g, (char *) "dpi");
      if (dpi == NULL || *dpi == '\0')
        agsafeset (g, (char *) "dpi", "144", "");
    }
  const char *layout = agget (g, (char *) "layout");
  if (layout == NULL || *layout == '\0')
    layout = "dot";
  if (gvLayout (gvc, g, layout) != 0)
    {
      g_autofree char *msg = messages_line ();
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_RENDER,
                   "Graphviz layout '%s' failed: %s", layout, msg);
      agclose (g);
      goto out;
    }
  if (strstr (gv_messages->str, "Error") != NULL)
    {
      /* e.g. a bad HTML-like label: Graphviz goes on with a stand-in */
      g_autofree char *msg = messages_line ();
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_RENDER,
                   "Graphviz rejected the diagram: %s", msg);
      gvFreeLayout (gvc, g);
      agclose (g);
      goto out;
    }
  char *data = NULL;
  unsigned int len = 0;
  if (gvRenderData (gvc, g, renderer, &data, &len) != 0 || data == NULL || len == 0)
    {
      g_autofree char *msg = messages_line ();
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_RENDER,
                   "Graphviz cannot render %s (%s); PNG and PDF need its cairo plugin "
                   "(Debian: package libgvplugin-pango / graphviz)",
                   renderer, msg);
      if (data)
        gvFreeRenderData (data);
    }
  else
    {
      *out = g_bytes_new (data, len);
      gvFreeRenderData (data);
      ok = TRUE;
    }
  gvFreeLayout (gvc, g);
  agclose (g);

out:
  if (ok && warnings && gv_messages->len > 0)
    *warnings = messages_line ();
  agseterr (old_level);
  agseterrf (old_handler);
  g_string_free (gv_messages, TRUE);
  gv_messages = NULL;
  g_mutex_unlock (&render_lock);
  return ok;
}
