/* user-source.c - reading a user's CUDA file as text: its kernels and
 * their parameters, and the __shared__ rewrite (see user-source.h).
 *
 * Not a C++ parser: a scan of the text with comments, string literals and
 * preprocessor lines blanked out (same length, same newlines), enough for
 * the forms kernels are written in:
 *   __global__ void [__launch_bounds__ (...)] name (T a, const T *b, ...)
 *   [extern] [static] [volatile] __shared__ [__align__ (N)] T name[...][...], ...;
 * Anything it cannot follow is left to the compiler, whose first error
 * memsim reports.
 */
#include "config.h"
#include "user-source.h"

#include <string.h>

G_DEFINE_QUARK (ms-user-error-quark, ms_user_error)

void
ms_user_function_free (MsUserFunction *f)
{
  if (f == NULL)
    return;
  g_free (f->name);
  g_ptr_array_unref (f->params);
  g_free (f);
}

static void
param_free (gpointer data)
{
  MsUserParam *p = data;
  g_free (p->name);
  g_free (p->type);
  g_free (p->pointee);
  g_free (p);
}

/* The text with comments, string and character literals and preprocessor
 * lines replaced by spaces (newlines kept), so offsets and lines agree. */
static char *
blank_text (const char *text)
{
  char *s = g_strdup (text);
  gsize n = strlen (s);
  gboolean line_start = TRUE;
  for (gsize i = 0; i < n;)
    {
      char c = s[i];
      if (line_start && (c == ' ' || c == '\t'))
        {
          i++;
          continue;
        }
      if (line_start && c == '#')
        {
          /* a directive, with its continuation lines */
          while (i < n && s[i] != '\n')
            {
              if (s[i] == '\\' && i + 1 < n && s[i + 1] == '\n')
                {
                  s[i] = ' ';
                  i += 2;
                  continue;
                }
              s[i++] = ' ';
            }
          continue;
        }
      line_start = FALSE;
      if (c == '\n')
        {
          line_start = TRUE;
          i++;
        }
      else if (c == '/' && i + 1 < n && s[i + 1] == '/')
        {
          while (i < n && s[i] != '\n')
            s[i++] = ' ';
        }
      else if (c == '/' && i + 1 < n && s[i + 1] == '*')
        {
          s[i++] = ' ';
          s[i++] = ' ';
          while (i < n && !(s[i] == '*' && i + 1 < n && s[i + 1] == '/'))
            {
              if (s[i] != '\n')
                s[i] = ' ';
              i++;
            }
          for (int k = 0; k < 2 && i < n; k++)
            s[i++] = ' ';
        }
      else if (c == '"' || c == '\'')
        {
          s[i++] = ' ';
          while (i < n && s[i] != c && s[i] != '\n')
            {
              if (s[i] == '\\' && i + 1 < n)
                {
                  s[i++] = ' ';
                  if (s[i] == '\n')
                    {
                      i++;   /* a continued line: its newline stays */
                      continue;
                    }
                }
              s[i++] = ' ';
            }
          if (i < n && s[i] == c)
            s[i++] = ' ';
        }
      else
        i++;
    }
  return s;
}

static gboolean
is_ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* Whether the identifier `word` starts at s[i] (whole word). */
static gboolean
word_at (const char *s, gsize i, const char *word)
{
  gsize len = strlen (word);
  return strncmp (s + i, word, len) == 0 && !is_ident_char (s[i + len])
         && (i == 0 || !is_ident_char (s[i - 1]));
}

/* Index just past the parenthesis matching the one at s[i] (or strlen). */
static gsize
skip_parens (const char *s, gsize i)
{
  int depth = 0;
  for (; s[i]; i++)
    {
      if (s[i] == '(')
        depth++;
      else if (s[i] == ')' && --depth == 0)
        return i + 1;
    }
  return i;
}

static int
line_of (const char *s, gsize i)
{
  int line = 1;
  for (gsize k = 0; k < i && s[k]; k++)
    line += s[k] == '\n';
  return line;
}

/* Collapses runs of white space to one space and trims. */
static char *
squeeze (const char *s, gsize len)
{
  GString *out = g_string_new (NULL);
  gboolean space = FALSE;
  for (gsize i = 0; i < len && s[i]; i++)
    {
      if (g_ascii_isspace (s[i]))
        space = out->len > 0;
      else
        {
          if (space)
            g_string_append_c (out, ' ');
          space = FALSE;
          g_string_append_c (out, s[i]);
        }
    }
  return g_string_free (out, FALSE);
}

/* Splits s[0..len) at commas outside (), [], <>, {}. */
static GPtrArray *
split_top (const char *s, gsize len)
{
  GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
  int depth = 0;
  gsize start = 0;
  for (gsize i = 0; i <= len; i++)
    {
      char c = i < len ? s[i] : ',';
      if (c == '(' || c == '[' || c == '<' || c == '{')
        depth++;
      else if (c == ')' || c == ']' || c == '>' || c == '}')
        depth--;
      else if (c == ',' && depth <= 0)
        {
          g_ptr_array_add (parts, squeeze (s + start, i - start));
          start = i + 1;
        }
    }
  return parts;
}

/* The element type of a pointer parameter's type: qualifiers and the last
 * '*' (or "[]") removed: "const float *__restrict__" -> "float". */
static char *
pointee_of (const char *type)
{
  g_autoptr (GString) t = g_string_new (type);
  const char *star = strrchr (t->str, '*');
  const char *bracket = strchr (t->str, '[');
  gsize cut = star ? (gsize) (star - t->str) : bracket ? (gsize) (bracket - t->str) : t->len;
  g_string_truncate (t, cut);
  static const char *const drop[] = { "const", "volatile", "__restrict__", "__restrict",
                                      "restrict", "struct", NULL };
  g_auto (GStrv) words = g_strsplit_set (t->str, " \t\n", -1);
  GString *out = g_string_new (NULL);
  for (char **w = words; *w; w++)
    if (**w && !g_strv_contains (drop, *w))
      g_string_append_printf (out, "%s%s", out->len ? " " : "", *w);
  return g_string_free (out, FALSE);
}

static MsUserParam *
parse_param (const char *text)
{
  g_autofree char *p = g_strdup (text);
  char *eq = strchr (p, '=');   /* a default argument */
  if (eq)
    *eq = '\0';
  g_strstrip (p);
  MsUserParam *param = g_new0 (MsUserParam, 1);
  gsize len = strlen (p);
  /* array parameters: T name[] (a ']' without its '[' is no array) */
  const char *bracket = strchr (p, '[');
  gboolean array = len > 0 && p[len - 1] == ']' && bracket != NULL;
  gsize end = array ? (gsize) (bracket - p) : len;
  while (end > 0 && g_ascii_isspace (p[end - 1]))
    end--;
  gsize start = end;
  while (start > 0 && is_ident_char (p[start - 1]))
    start--;
  gboolean named = start < end && start > 0 && !g_ascii_isdigit (p[start]);
  if (named)
    {
      param->name = g_strndup (p + start, end - start);
      g_autofree char *type = g_strdup (p);
      memset (type + start, ' ', end - start);
      if (array)
        {
          char *b = strchr (type, '[');
          memcpy (b, "* ", 2);
          for (char *q = b + 2; *q; q++)
            *q = ' ';
        }
      param->type = squeeze (type, strlen (type));
    }
  else
    {
      param->name = g_strdup ("");
      param->type = squeeze (p, len);
    }
  if (strchr (param->type, '*') != NULL)
    param->pointee = pointee_of (param->type);
  return param;
}

GPtrArray *
ms_user_source_kernels (const char *text)
{
  g_autofree char *s = blank_text (text);
  GPtrArray *found = g_ptr_array_new_with_free_func ((GDestroyNotify) ms_user_function_free);
  for (gsize i = 0; s[i]; i++)
    {
      if (!word_at (s, i, "__global__"))
        continue;
      /* template? look back to the end of the previous declaration */
      gsize b = i;
      while (b > 0 && s[b - 1] != ';' && s[b - 1] != '}' && s[b - 1] != '{')
        b--;
      g_autofree char *head = g_strndup (s + b, i - b);
      gboolean is_template = strstr (head, "template") != NULL;
      /* the name: the last identifier before the parameter list */
      gsize j = i + strlen ("__global__");
      gsize name_start = 0, name_end = 0;
      while (s[j] && s[j] != '(' && s[j] != ';' && s[j] != '{')
        {
          if (is_ident_char (s[j]) && (j == 0 || !is_ident_char (s[j - 1])))
            {
              gsize e = j;
              while (is_ident_char (s[e]))
                e++;
              if (word_at (s, j, "__launch_bounds__") || word_at (s, j, "__attribute__")
                  || word_at (s, j, "__align__") || word_at (s, j, "alignas"))
                {
                  j = e;
                  while (g_ascii_isspace (s[j]))
                    j++;
                  if (s[j] == '(')
                    j = skip_parens (s, j);
                  continue;
                }
              name_start = j;
              name_end = e;
              j = e;
              continue;
            }
          j++;
        }
      if (s[j] != '(' || name_end == 0)
        continue;
      gsize close = skip_parens (s, j);
      gsize k = close;
      while (g_ascii_isspace (s[k]))
        k++;
      gboolean definition = s[k] == '{';
      MsUserFunction *f = g_new0 (MsUserFunction, 1);
      f->name = g_strndup (s + name_start, name_end - name_start);
      f->line = line_of (s, name_start);
      f->is_template = is_template;
      f->params = g_ptr_array_new_with_free_func (param_free);
      /* the text between the parentheses (to the end when ')' is missing) */
      gsize inner = s[close - 1] == ')' && close >= j + 2 ? close - j - 2 : close - j - 1;
      g_autoptr (GPtrArray) parts = split_top (s + j + 1, inner);
      for (guint p = 0; p < parts->len; p++)
        {
          const char *t = parts->pdata[p];
          if (*t == '\0' || (parts->len == 1 && strcmp (t, "void") == 0))
            continue;
          g_ptr_array_add (f->params, parse_param (t));
        }
      /* a definition replaces an earlier declaration of the same name */
      guint old;
      gboolean seen = FALSE;
      for (old = 0; old < found->len; old++)
        if (strcmp (((MsUserFunction *) found->pdata[old])->name, f->name) == 0)
          {
            seen = TRUE;
            break;
          }
      if (seen && definition)
        {
          ms_user_function_free (found->pdata[old]);
          found->pdata[old] = f;
        }
      else if (seen)
        ms_user_function_free (f);
      else
        g_ptr_array_add (found, f);
      i = close - 1;
    }
  return found;
}

/* One rewritten declarator: "T (&name)dims = ms_shared_ref_<T dims> (align);" */
static gboolean
rewrite_declarator (GString *out, const char *type, const char *decl, gboolean is_extern,
                    const char *align, const char *file, int line, GError **error)
{
  g_autoptr (GString) t = g_string_new (type);
  const char *d = decl;
  while (*d == '*' || *d == '&' || g_ascii_isspace (*d))
    g_string_append_c (t, *d++);
  const char *bracket = strchr (d, '[');
  gsize name_len = bracket ? (gsize) (bracket - d) : strlen (d);
  g_autofree char *name = squeeze (d, name_len);
  const char *dims = bracket ? bracket : "";
  g_autofree char *ty = squeeze (t->str, t->len);
  if (*name == '\0' || !is_ident_char (*name) || *ty == '\0')
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_SOURCE,
                   "%s:%d: memsim cannot read this __shared__ declaration; write it as "
                   "`__shared__ TYPE NAME[N];`", file, line);
      return FALSE;
    }
  if (is_extern)
    {
      g_autofree char *dd = squeeze (dims, strlen (dims));
      if (strcmp (dd, "[]") != 0)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_SOURCE,
                       "%s:%d: an extern __shared__ array is declared `extern __shared__ %s "
                       "%s[];` (its size comes from --dynamic-shared)", file, line, ty, name);
          return FALSE;
        }
      g_string_append_printf (out, "%s *const %s = ms_shared_dynamic_<%s> (%s); ", ty, name, ty,
                              align);
    }
  else
    g_string_append_printf (out, "%s (&%s)%s = ms_shared_ref_<%s %s, __COUNTER__> (%s); ", ty,
                            name, dims, ty, dims, align);
  return TRUE;
}

/* Blanks every `<<<...>>>` of a launch in t (and in its blanked copy s):
 * `k<<<grid, block>>>(args)` compiles as a call, which never runs. */
static void
blank_launches (char *t, char *s)
{
  for (char *p = strstr (s, "<<<"); p != NULL; p = strstr (p, "<<<"))
    {
      char *end = strstr (p + 3, ">>>");
      if (end == NULL)
        return;
      for (char *q = p; q < end + 3; q++)
        if (*q != '\n')
          {
            *q = ' ';
            t[q - s] = ' ';
          }
      p = end + 3;
    }
}

/* `k<<<grid, block>>>(args)` -> `k << ms_launch_config_ (grid, block)(args)`
 * (cuda-shim.h's launch operator), newlines kept: the launch runs. */
static char *
rewrite_launches (const char *text)
{
  g_autofree char *s = blank_text (text);
  GString *out = g_string_new (NULL);
  gsize copied = 0;
  for (const char *p = strstr (s, "<<<"); p != NULL; p = strstr (p, "<<<"))
    {
      const char *end = strstr (p + 3, ">>>");
      if (end == NULL)
        break;
      gsize at = (gsize) (p - s), close = (gsize) (end - s);
      g_string_append_len (out, text + copied, (gssize) (at - copied));
      g_string_append (out, " << ms_launch_config_ (");
      g_string_append_len (out, text + at + 3, (gssize) (close - at - 3));
      g_string_append (out, ")");
      copied = close + 3;
      p = end + 3;
    }
  g_string_append (out, text + copied);
  return g_string_free (out, FALSE);
}

static char *rewrite (const char *original, const char *file, gboolean program, GError **error);

char *
ms_user_source_rewrite (const char *original, const char *file, GError **error)
{
  return rewrite (original, file, FALSE, error);
}

char *
ms_user_source_rewrite_program (const char *original, const char *file, GError **error)
{
  g_autofree char *shared = rewrite (original, file, TRUE, error);
  return shared ? rewrite_launches (shared) : NULL;
}

static char *
rewrite (const char *original, const char *file, gboolean program, GError **error)
{
  g_autofree char *s = blank_text (original);
  g_autofree char *text = g_strdup (original);
  if (!program)
    blank_launches (text, s);
  GString *out = g_string_new (NULL);
  gsize copied = 0;
  int depth = 0;
  for (gsize i = 0; s[i]; i++)
    {
      if (s[i] == '{')
        depth++;
      else if (s[i] == '}')
        depth--;
      if (!word_at (s, i, "__shared__"))
        continue;
      int line = line_of (s, i);
      if (depth <= 0)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_SOURCE,
                       "%s:%d: a __shared__ variable at file scope; memsim runs __shared__ "
                       "variables declared inside the kernel (move it there)", file, line);
          g_string_free (out, TRUE);
          return NULL;
        }
      gsize start = i, end = i;
      while (start > 0 && s[start - 1] != ';' && s[start - 1] != '{' && s[start - 1] != '}')
        start--;
      while (start < i && g_ascii_isspace (s[start]))
        start++;   /* the declaration stays on its line */
      while (s[end] && s[end] != ';')
        end++;
      if (s[end] != ';')
        break;
      /* the declaration's words: storage and alignment out, the rest kept */
      g_autofree char *stmt = g_strndup (s + start, end - start);
      gboolean is_extern = FALSE;
      g_autofree char *align = g_strdup ("0");
      GString *rest = g_string_new (NULL);
      for (gsize k = 0; stmt[k];)
        {
          if (word_at (stmt, k, "__shared__") || word_at (stmt, k, "static"))
            k += word_at (stmt, k, "static") ? 6 : 10;
          else if (word_at (stmt, k, "extern"))
            {
              is_extern = TRUE;
              k += 6;
            }
          else if (word_at (stmt, k, "__align__") || word_at (stmt, k, "alignas")
                   || word_at (stmt, k, "__attribute__"))
            {
              gsize p = k;
              while (stmt[p] && stmt[p] != '(')
                p++;
              gsize e = skip_parens (stmt, p);
              /* the innermost parenthesised number: __attribute__ ((aligned (16))) */
              const char *digits = stmt + p;
              while (digits < stmt + e && !g_ascii_isdigit (*digits))
                digits++;
              if (digits < stmt + e)
                {
                  g_free (align);
                  align = g_strdup_printf ("%u", (unsigned) g_ascii_strtoull (digits, NULL, 10));
                }
              k = e;
            }
          else
            g_string_append_c (rest, stmt[k++]);
        }
      g_autoptr (GPtrArray) decls = split_top (rest->str, rest->len);
      g_string_free (rest, TRUE);
      /* the type is what precedes the first declarator's name */
      const char *first = decls->len ? decls->pdata[0] : "";
      const char *bracket = strchr (first, '[');
      gsize name_end = bracket ? (gsize) (bracket - first) : strlen (first);
      while (name_end > 0 && g_ascii_isspace (first[name_end - 1]))
        name_end--;
      gsize name_start = name_end;
      while (name_start > 0 && is_ident_char (first[name_start - 1]))
        name_start--;
      g_autofree char *type = g_strndup (first, name_start);
      GString *gen = g_string_new (NULL);
      gboolean ok = TRUE;
      for (guint d = 0; d < decls->len && ok; d++)
        ok = rewrite_declarator (gen, type, d == 0 ? first + name_start : decls->pdata[d],
                                 is_extern, align, file, line, error);
      if (!ok)
        {
          g_string_free (gen, TRUE);
          g_string_free (out, TRUE);
          return NULL;
        }
      /* the generated code on one line, then the declaration's newlines:
       * every line after it keeps its number */
      for (gsize k = 0; k < gen->len; k++)
        if (gen->str[k] == '\n' || gen->str[k] == '\r')
          gen->str[k] = ' ';
      for (gsize k = start; k <= end; k++)
        if (text[k] == '\n')
          g_string_append_c (gen, '\n');
      g_string_append_len (out, text + copied, (gssize) (start - copied));
      g_string_append (out, gen->str);
      g_string_free (gen, TRUE);
      copied = end + 1;
      i = end;
    }
  g_string_append (out, text + copied);
  return g_string_free (out, FALSE);
}
