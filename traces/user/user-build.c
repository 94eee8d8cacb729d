/* user-build.c - what the builds of users' code share (see user-build.h):
 * running a compiler, cache keys, the cache folder, entry symbols, and
 * MS_USER_ERROR.
 */
#include "config.h"
#include "user-build.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "user-error.h"

G_DEFINE_QUARK (ms-user-error-quark, ms_user_error)

gboolean
ms_user_build_run (const char *const *argv, const char *cwd, char **err_out, GError **error)
{
  int status = 0;
  g_autofree char *out = NULL;
  /* the compiler's messages in plain ASCII quotes, whatever the locale */
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  if (!g_spawn_sync (cwd, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, err_out,
                     &status, error))
    return FALSE;
  if (!g_spawn_check_wait_status (status, NULL))
    {
      g_autofree char *joined = g_strconcat (out ? out : "", *err_out ? *err_out : "", NULL);
      g_free (*err_out);
      *err_out = g_steal_pointer (&joined);
      return FALSE;
    }
  return TRUE;
}

void
ms_user_build_key (GChecksum *sum, const char *salt, const char *const *flags,
                   const char *compiler)
{
  g_checksum_update (sum, (const guchar *) salt, -1);
  for (const char *const *f = flags; *f; f++)
    g_checksum_update (sum, (const guchar *) *f, -1);
  GStatBuf st;
  if (g_stat (compiler, &st) == 0)
    {
      g_autofree char *id = g_strdup_printf ("%s %lld %lld", compiler, (long long) st.st_size,
                                             (long long) st.st_mtime);
      g_checksum_update (sum, (const guchar *) id, -1);
    }
}

char *
ms_user_build_cache_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "memsim", "kernels", NULL);
}

char *
ms_user_build_symbol (const char *prefix, const char *kernel)
{
  char *s = g_strconcat (prefix, kernel, NULL);
  for (char *c = s + strlen (prefix); *c; c++)
    if (!g_ascii_isalnum (*c) && *c != '_')
      *c = '_';
  return s;
}
