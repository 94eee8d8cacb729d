/* plugin.c - finding and opening memsim's plug-ins (see plugin.h). */
#include "config.h"
#include "plugin.h"

#include <gmodule.h>
#include <string.h>

/* Where plug-ins are looked for, in order (see plugin.h). */
static GPtrArray *
plugin_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("MEMSIM_PLUGIN_DIR");
  if (env != NULL && *env)
    {
      g_ptr_array_add (dirs, g_strdup (env));
      return dirs;
    }
  /* an installed memsim (running from its bindir) loads the installed
   * plug-ins only; a build-tree one (memsim, the tests) the build tree's */
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = exe ? g_path_get_dirname (exe) : NULL;
  if (g_strcmp0 (exe_dir, MEMSIM_BINDIR) != 0)
    g_ptr_array_add (dirs, g_strdup (MEMSIM_BUILDDIR));
  g_ptr_array_add (dirs, g_strdup (MEMSIM_PKGLIBDIR));
  return dirs;
}

static GModule *
plugin_open (const char *name, const char *what, GError **error)
{
  g_autofree char *file = g_strdup_printf ("memsim-%s.so", name);
  g_autoptr (GPtrArray) dirs = plugin_dirs ();
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], file, NULL);
      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        continue;
      /* local: a plug-in's symbols (and its libraries') stay its own */
      GModule *m = g_module_open (path, G_MODULE_BIND_LOCAL);
      if (m == NULL)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                       "cannot load %s (%s): %s", what, path, g_module_error ());
          return NULL;
        }
      const char *version = NULL;   /* the plug-in's char ms_plugin_version[] */
      if (!g_module_symbol (m, "ms_plugin_version", (gpointer *) &version)
          || strcmp (version, PACKAGE_VERSION) != 0)
        {
          g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED,
                       "%s is from memsim %s, not %s: reinstall memsim (make install) or "
                       "set MEMSIM_PLUGIN_DIR to the folder of this build's %s",
                       path, version ? version : "(unknown)", PACKAGE_VERSION, file);
          g_module_close (m);
          return NULL;
        }
      return m;
    }
  g_ptr_array_add (dirs, NULL);
  g_autofree char *looked = g_strjoinv (", ", (char **) dirs->pdata);
  g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOENT,
               "%s is missing: no %s in %s; reinstall memsim (make install) or set "
               "MEMSIM_PLUGIN_DIR to the folder that holds %s",
               what, file, looked, file);
  return NULL;
}

gconstpointer
ms_plugin_symbol (const char *name, const char *what, const char *symbol, GError **error)
{
  static GMutex lock;
  static GHashTable *open;   /* name -> GModule, kept for the process */
  g_mutex_lock (&lock);
  if (open == NULL)
    open = g_hash_table_new (g_str_hash, g_str_equal);
  GModule *m = g_hash_table_lookup (open, name);
  if (m == NULL && (m = plugin_open (name, what, error)) != NULL)
    {
      g_module_make_resident (m);
      g_hash_table_insert (open, g_strdup (name), m);
    }
  g_mutex_unlock (&lock);
  gpointer p = NULL;
  if (m != NULL && !g_module_symbol (m, symbol, &p))
    g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s (%s) has no %s: %s", what,
                 g_module_name (m), symbol, g_module_error ());
  return p;
}
