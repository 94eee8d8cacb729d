/* viz-graphviz.c - DOT text to SVG, PNG or PDF through libgvc, in-process:
 * the plug-in memsim-graphviz.so, loaded by ms_diagram_render (viz-render.c).
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

#include <gmodule.h>
#include <gvc.h>
#include <string.h>

#include "diagram.h"
#include "viz-plugin.h"

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

/* ms_diagram_render for SVG, PNG and PDF (viz-render.c: DOT) */
static gboolean
render (const char *dot, MsDiagramFormat format, GBytes **out, char **warnings, GError **error)
{
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

G_MODULE_EXPORT const char ms_plugin_version[] = PACKAGE_VERSION;
G_MODULE_EXPORT const MsGraphvizPlugin ms_graphviz_plugin = { render };
