/* ptx-source-names.c - the parameters' names of a kernel as its source
 * file declares them (see ptx-source-names.h).  Reads C++ text loosely, as
 * a person skims it: no preprocessing, no grammar; anything it does not
 * recognise gives no names, never a crash. */
#include "config.h"
#include "ptx-source-names.h"

#include <string.h>

char **
ms_ptx_source_param_names (const char *text, guint line, const char *shown, guint n)
{
  if (text == NULL || line == 0 || n == 0)
    return NULL;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  guint n_lines = g_strv_length (lines);
  if (line > n_lines)
    return NULL;
  guint from = line > 6 ? line - 6 : 0;
  g_autoptr (GString) decl = g_string_new (NULL);
  for (guint l = from; l < n_lines && l < line + 20; l++)
    g_string_append_printf (decl, "%s\n", lines[l]);
  /* the base name: "tileSums" of "tileSums<64>", "f" of "ns::f" */
  g_autofree char *base = g_strndup (shown, strcspn (shown, "<"));
  const char *colon = g_strrstr (base, "::");
  const char *id = colon ? colon + 2 : base;
  gsize idlen = strlen (id);
  if (idlen == 0)   /* a name that is all template arguments: nothing to look for */
    return NULL;
  const char *p = decl->str;
  for (; (p = strstr (p, id)) != NULL; p += idlen)
    {
      if (p > decl->str && (g_ascii_isalnum (p[-1]) || p[-1] == '_'))
        continue;
      const char *q = p + idlen;
      while (g_ascii_isspace (*q))
        q++;
      if (*q == '<')
        {
          int depth = 0;
          for (; *q; q++)
            if (*q == '<')
              depth++;
            else if (*q == '>' && --depth == 0)
              break;
          if (*q)
            q++;
          while (g_ascii_isspace (*q))
            q++;
        }
      if (*q == '(')
        {
          p = q + 1;
          break;
        }
    }
  if (p == NULL)
    return NULL;
  /* the parameter list, split at commas outside (), <>, [] */
  GPtrArray *names = g_ptr_array_new ();
  int depth = 0;
  const char *start = p, *end = NULL;
  for (const char *c = p; *c; c++)
    {
      gboolean close = depth == 0 && *c == ')';
      if (*c == '(' || *c == '<' || *c == '[')
        depth++;
      else if ((*c == ')' || *c == '>' || *c == ']') && depth > 0)
        depth--;
      if (close || (depth == 0 && *c == ','))
        {
          /* the last identifier before '=' or '[' */
          const char *e = c;
          for (const char *x = start; x < c; x++)
            if (*x == '=' || *x == '[')
              {
                e = x;
                break;
              }
          while (e > start && !(g_ascii_isalnum (e[-1]) || e[-1] == '_'))
            e--;
          const char *b = e;
          while (b > start && (g_ascii_isalnum (b[-1]) || b[-1] == '_'))
            b--;
          if (e > b && !g_ascii_isdigit (*b))
            g_ptr_array_add (names, g_strndup (b, (gsize) (e - b)));
          start = c + 1;
          if (close)
            {
              end = c;
              break;
            }
        }
    }
  if (end == NULL || names->len != n)
    {
      g_ptr_array_set_free_func (names, g_free);
      g_ptr_array_unref (names);
      return NULL;
    }
  g_ptr_array_add (names, NULL);
  return (char **) g_ptr_array_free (names, FALSE);
}

