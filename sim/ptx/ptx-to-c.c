/* ptx-to-c.c - a build tool: one PTX module translated to warp-wide C
 * (ptx-translate.c) with a table of its entries (ptx-compiled.h), for
 * memsim's own kernels to be compiled into memsim rather than by the host
 * compiler at run time, as users' device code is (ptx-program.c).
 *
 *   ptx-to-c MODULE TABLE IN.ptx OUT.c
 *
 * MODULE numbers the module's symbols (ms_ptx_k_MODULE_N): each module
 * compiled into memsim needs its own.  TABLE names the entries' table
 * (const MsPtxCompiled TABLE[]).  The C is the same text ptx-program.c
 * compiles at run time, so the two run a kernel alike. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ptx-translate.h"
#include "ptx.h"

/* Whether line l opens an entry (".visible .entry NAME("); its name in
 * *name. */
static gboolean
entry_start (const char *l, char **name)
{
  while (*l == ' ' || *l == '\t')
    l++;
  for (const char *w; (w = g_str_has_prefix (l, ".visible ") ? ".visible "
                          : g_str_has_prefix (l, ".weak ") ? ".weak " : NULL) != NULL;)
    l += strlen (w);
  if (!g_str_has_prefix (l, ".entry "))
    return FALSE;
  l += strlen (".entry ");
  while (*l == ' ' || *l == '\t')
    l++;
  *name = g_strndup (l, strcspn (l, " \t(;"));
  return TRUE;
}

/* The PTX text of entry `entry` alone: every line outside the module's
 * entries (its declarations, its .func bodies, .file, debug sections),
 * and the lines of this entry. */
static char *
entry_text (char **lines, const char *entry)
{
  GString *out = g_string_new (NULL);
  for (guint k = 0; lines[k]; k++)
    {
      g_autofree char *name = NULL;
      if (!entry_start (lines[k], &name))
        {
          g_string_append_printf (out, "%s\n", lines[k]);
          continue;
        }
      /* the entry's lines: to its closing brace at the start of a line */
      gboolean mine = strcmp (name, entry) == 0;
      for (; lines[k]; k++)
        {
          if (mine)
            g_string_append_printf (out, "%s\n", lines[k]);
          if (strcmp (lines[k], "}") == 0 || strcmp (lines[k], "}\r") == 0)
            break;
        }
      if (lines[k] == NULL)
        break;
    }
  return g_string_free (out, FALSE);
}

/* text as a C string literal, a line of it a line of C */
static void
c_literal (GString *c, const char *text)
{
  g_string_append (c, "    \"");
  for (const char *p = text; *p; p++)
    {
      if (*p == '\\' || *p == '"')
        g_string_append_printf (c, "\\%c", *p);
      else if (*p == '\n')
        g_string_append (c, p[1] ? "\\n\"\n    \"" : "\\n");
      else if ((guchar) *p < 0x20 || (guchar) *p >= 0x7f)
        g_string_append_printf (c, "\\%03o", (guchar) *p);
      else
        g_string_append_c (c, *p);
    }
  g_string_append (c, "\"");
}

int
main (int argc, char **argv)
{
  if (argc != 5)
    {
      g_printerr ("usage: ptx-to-c MODULE TABLE IN.ptx OUT.c\n");
      return 2;
    }
  guint mod = (guint) strtoul (argv[1], NULL, 10);
  const char *table = argv[2], *in = argv[3], *out = argv[4];
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr (GError) error = NULL;
  if (!g_file_get_contents (in, &text, &len, &error))
    {
      g_printerr ("ptx-to-c: %s\n", error->message);
      return 1;
    }
  MsPtxModule *m = ms_ptx_read (in, text, len, &error);
  if (m == NULL)
    {
      g_printerr ("ptx-to-c: %s\n", error->message);
      return 1;
    }
  g_autoptr (GString) c = g_string_new (NULL);
  g_string_append_printf (c, "/* %s: %s translated by sim/ptx/ptx-to-c.c (generated) */\n"
                             "#define MS_KERNEL_SOURCE 1\n#include \"ptx-warp.h\"\n"
                             "#if defined(__GNUC__) && !defined(__clang__)\n"
                             "#pragma GCC optimize (\"no-tree-loop-distribute-patterns\")\n"
                             "#endif\n"
                             "/* memsim's own: not for users' device code to bind to */\n"
                             "#pragma GCC visibility push(hidden)\n\n", out, in);
  ms_ptx_translate (m, mod, c, NULL);
  g_string_append_printf (c, "\nconst MsPtxCompiled %s[] = {\n", table);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (guint fi = 0; fi < m->funcs->len; fi++)
    {
      const MsPtxFunc *f = g_ptr_array_index (m->funcs, fi);
      if (!f->entry || !f->defined)
        continue;
      g_string_append_printf (c, "  { \"%s\", ms_ptx_k_%u_%u, ms_ptx_aggs_%u_%u,\n", f->name,
                              mod, fi, mod, fi);
      g_autofree char *own = entry_text (lines, f->name);
      c_literal (c, own);
      g_string_append (c, " },\n");
    }
  g_string_append (c, "  { NULL, NULL, NULL, NULL },\n};\n#pragma GCC visibility pop\n");
  ms_ptx_module_free (m);
  g_autofree char *tmp = g_strconcat (out, ".tmp", NULL);
  if (!g_file_set_contents (tmp, c->str, (gssize) c->len, &error) || rename (tmp, out) != 0)
    {
      g_printerr ("ptx-to-c: cannot write %s: %s\n", out, error ? error->message : "rename failed");
      return 1;
    }
  return 0;
}
