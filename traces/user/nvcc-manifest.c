/* nvcc-manifest.c - the manifest of a program's nvcc build (see
 * nvcc-manifest.h). */
#include "config.h"
#include "nvcc-manifest.h"

#include <string.h>

#define HEADER "memsim nvcc manifest 1\n"

/* Whether s begins with 64 lowercase hex digits. */
static gboolean
is_sha256 (const char *s)
{
  for (guint i = 0; i < 64; i++)
    if (!g_ascii_isxdigit (s[i]) || g_ascii_isupper (s[i]))
      return FALSE;
  return TRUE;
}

void
ms_nvcc_manifest_free (MsNvccManifest *m)
{
  if (m == NULL)
    return;
  g_free (m->key);
  g_ptr_array_unref (m->hashes);
  g_ptr_array_unref (m->paths);
  g_free (m);
}

MsNvccManifest *
ms_nvcc_manifest_parse (const char *text, gsize len)
{
  if (len < strlen (HEADER) || memcmp (text, HEADER, strlen (HEADER)) != 0
      || memchr (text, '\0', len) != NULL)
    return NULL;
  g_autofree char *body = g_strndup (text + strlen (HEADER), len - strlen (HEADER));
  g_auto (GStrv) lines = g_strsplit (body, "\n", -1);
  if (lines[0] == NULL || !g_str_has_prefix (lines[0], "key ") || strlen (lines[0]) != 4 + 64
      || !is_sha256 (lines[0] + 4))
    return NULL;
  g_autoptr (MsNvccManifest) m = g_new0 (MsNvccManifest, 1);
  m->key = g_strdup (lines[0] + 4);
  m->hashes = g_ptr_array_new_with_free_func (g_free);
  m->paths = g_ptr_array_new_with_free_func (g_free);
  for (char **l = lines + 1; *l; l++)
    {
      if (**l == '\0' && l[1] == NULL)
        break;   /* the text's last newline */
      /* "<sha256> <absolute path>" */
      if (strlen (*l) < 66 || !is_sha256 (*l) || (*l)[64] != ' ' || (*l)[65] != '/')
        return NULL;
      g_ptr_array_add (m->hashes, g_strndup (*l, 64));
      g_ptr_array_add (m->paths, g_strdup (*l + 65));
    }
  return g_steal_pointer (&m);
}

char *
ms_nvcc_manifest_text (const char *key, const char *const *hashes, const char *const *paths,
                       guint n)
{
  GString *text = g_string_new (HEADER);
  g_string_append_printf (text, "key %s\n", key);
  for (guint i = 0; i < n; i++)
    {
      if (strchr (paths[i], '\n') != NULL || paths[i][0] != '/')
        {
          g_string_free (text, TRUE);
          return NULL;
        }
      g_string_append_printf (text, "%s %s\n", hashes[i], paths[i]);
    }
  return g_string_free (text, FALSE);
}
