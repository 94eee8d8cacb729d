/* arch.c - architecture descriptions: the H100 built in, other presets as
 * small GKeyFile files (sim/arch/NAME.arch, installed in $(pkgdatadir)/arch).
 *
 * A preset gives only the numbers the models use; rules that are not a
 * matter of numbers (cc 1.x's segment-shrinking coalescing, Fermi's 128-byte
 * L1-cached transactions) are not modelled, and no preset pretends they are.
 */
#include "config.h"
#include "arch.h"

#include <string.h>


static const MsArch h100 = {
  .name = (char *) "h100",
  .description = (char *) "NVIDIA H100 (Hopper, sm_90)",
  .compute_capability = 90,
  .warp_size = 32,
  .sector_bytes = 32,
  .line_bytes = 128,
  .banks = 32,
  .bank_bytes = 4,
  .phase_bytes = 128,
  .paired_load_phase_bytes = 256,
};

const MsArch *
ms_arch_default (void)
{
  return &h100;
}

void
ms_arch_free (MsArch *arch)
{
  if (arch == NULL || arch == &h100)
    return;
  g_free (arch->name);
  g_free (arch->description);
  g_free (arch);
}

static gboolean
get_int (GKeyFile *kf, const char *group, const char *key, int min, int max, int *out,
         const char *path, GError **error)
{
  g_autoptr (GError) e = NULL;
  int v = g_key_file_get_integer (kf, group, key, &e);
  if (e != NULL || v < min || v > max)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "%s: [%s] %s must be an integer in %d..%d", path, group, key, min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

MsArch *
ms_arch_load_file (const char *path, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, error))
    {
      g_prefix_error (error, "cannot read architecture file %s: ", path);
      return NULL;
    }
  g_autoptr (GError) e = NULL;
  g_autofree char *name = g_key_file_get_string (kf, "arch", "name", &e);
  if (name == NULL)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                   "%s: [arch] name is missing", path);
      return NULL;
    }
  MsArch a = { 0 };
  if (!get_int (kf, "arch", "compute_capability", 10, 200, &a.compute_capability, path, error)
      || !get_int (kf, "arch", "warp_size", 32, 32, &a.warp_size, path, error)
      || !get_int (kf, "global", "sector_bytes", 16, 256, &a.sector_bytes, path, error)
      || !get_int (kf, "global", "line_bytes", 16, 1024, &a.line_bytes, path, error)
      || !get_int (kf, "shared", "banks", 1, 64, &a.banks, path, error)
      || !get_int (kf, "shared", "bank_bytes", 1, 16, &a.bank_bytes, path, error)
      || !get_int (kf, "shared", "phase_bytes", 1, 4096, &a.phase_bytes, path, error))
    return NULL;
  /* optional: loads whose lane pairs each read one address (default: the
   * same phases as every other access) */
  a.paired_load_phase_bytes = a.phase_bytes;
  if (g_key_file_has_key (kf, "shared", "paired_load_phase_bytes", NULL)
      && !get_int (kf, "shared", "paired_load_phase_bytes", 1, 4096, &a.paired_load_phase_bytes,
                   path, error))
    return NULL;
  MsArch *arch = g_new (MsArch, 1);
  *arch = a;
  arch->name = g_steal_pointer (&name);
  arch->description = g_key_file_get_string (kf, "arch", "description", NULL);
  if (arch->description == NULL)
    arch->description = g_strdup (arch->name);
  return arch;
}

/* Where presets are looked for: $MEMSIM_ARCH_PATH (colon-separated), the
 * source tree's sim/arch (uninstalled builds only), the installed data dir. */
static GPtrArray *
search_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("MEMSIM_ARCH_PATH");
  if (env != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (env, ":", -1);
      for (int i = 0; parts[i]; i++)
        if (*parts[i])
          g_ptr_array_add (dirs, g_strdup (parts[i]));
    }
  /* an installed memsim (running from its bindir) reads the installed
   * presets only; a build-tree one the source tree's first */
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = exe ? g_path_get_dirname (exe) : NULL;
  if (g_strcmp0 (exe_dir, MEMSIM_BINDIR) != 0)
    g_ptr_array_add (dirs, g_strdup (MEMSIM_SRCDIR "/sim/arch"));
  g_ptr_array_add (dirs, g_strdup (MEMSIM_PKGDATADIR "/arch"));
  return dirs;
}

MsArch *
ms_arch_lookup (const char *name_or_path, GError **error)
{
  if (name_or_path == NULL || strcmp (name_or_path, "h100") == 0)
    return (MsArch *) &h100;
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ".arch"))
    return ms_arch_load_file (name_or_path, error);
  g_autoptr (GPtrArray) dirs = search_dirs ();
  g_autofree char *file = g_strconcat (name_or_path, ".arch", NULL);
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return ms_arch_load_file (path, error);
    }
  g_autofree char *known = ms_arch_list ();
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_NOT_FOUND,
               "unknown architecture '%s'; known: %s (or give a .arch file)", name_or_path, known);
  return NULL;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char *
ms_arch_list (void)
{
  g_autoptr (GPtrArray) dirs = search_dirs ();
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (names, g_strdup ("h100"));
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs->pdata[i], 0, NULL);
      const char *f;
      while (dir && (f = g_dir_read_name (dir)))
        if (g_str_has_suffix (f, ".arch"))
          {
            g_autofree char *n = g_strndup (f, strlen (f) - 5);
            gboolean dup = FALSE;
            for (guint k = 0; k < names->len && !dup; k++)
              dup = strcmp (names->pdata[k], n) == 0;
            if (!dup)
              g_ptr_array_add (names, g_steal_pointer (&n));
          }
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (", ", (char **) names->pdata);
}
