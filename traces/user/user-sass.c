/* user-sass.c - the SASS of users' files for compiler-exact counts (see
 * user-sass.h; docs/model.md, "Compiler-exact counts").
 *
 * Assumptions: the sm_90 SASS stands for every preset (as for the built-in
 * kernels); nvcc sees the file as it is, with the CUDA toolkit's own
 * headers, so what it fuses, unrolls or turns into RED is what a user's
 * build for the H100 would execute; a kernel is matched by its mangled
 * name, which g++ (the CPU build) and nvcc write alike.
 */
#include "config.h"
#include "user-sass.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "user-build.h"
#include "user-gpu.h"
#include "user-error.h"

static char *
nvdisasm (void)
{
  const char *env = g_getenv ("MEMSIM_NVDISASM");
  if (env && *env)
    return g_find_program_in_path (env);
#ifdef MS_NVDISASM_PATH
  if (g_file_test (MS_NVDISASM_PATH, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (MS_NVDISASM_PATH);
#endif
  return g_find_program_in_path ("nvdisasm");
}

/* Runs argv; its standard output into *out, its standard error into *err
 * (either may be NULL). */
static gboolean
spawn (const char *const *argv, const char *cwd, char **out, char **err)
{
  int status = 0;
  g_autofree char *err_text = NULL;
  if (!g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, &err_text,
                     &status, NULL))
    return FALSE;
  if (err)
    *err = g_steal_pointer (&err_text);
  return g_spawn_check_wait_status (status, NULL);
}

/* ptxas's -v report ("Compiling entry function 'SYM' for 'sm_90'" ...
 * "Used N registers") as lines MS_SASS_REGISTERS_TAG SYM N, which lead the
 * cached text: the registers each kernel's threads are allocated, for
 * occupancy (ms_sass_registers reads them). */
static void
append_registers (GString *all, const char *report)
{
  g_auto (GStrv) lines = g_strsplit (report ? report : "", "\n", -1);
  g_autofree char *entry = NULL;
  for (char **l = lines; *l; l++)
    {
      const char *e = strstr (*l, "Compiling entry function '");
      const char *u = strstr (*l, "Used ");
      int regs;
      if (e != NULL)
        {
          e += strlen ("Compiling entry function '");
          g_free (entry);
          entry = g_strndup (e, strcspn (e, "'"));
        }
      else if (u != NULL && entry != NULL && sscanf (u, "Used %d registers", &regs) == 1)
        {
          g_string_append_printf (all, MS_SASS_REGISTERS_TAG "%s %d\n", entry, regs);
          g_clear_pointer (&entry, g_free);
        }
    }
}

char *
ms_user_sass_text (const char *const *files, const char *const *include_dirs, char **why)
{
  g_autoptr (GError) e = NULL;
  g_autofree char *nvcc = ms_user_nvcc (&e);
  g_autofree char *dis = nvdisasm ();
  if (nvcc == NULL || dis == NULL)
    {
      *why = g_strdup (nvcc == NULL ? "no nvcc" : "no nvdisasm");
      return NULL;
    }
  /* the key: the files' texts, the folders, the tools */
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autoptr (GPtrArray) flags = g_ptr_array_new_with_free_func (g_free);
  /* absolute: nvcc runs in a folder of the cache */
  for (const char *const *f = files; *f; f++)
    {
      g_autofree char *dir = g_path_get_dirname (*f);
      g_autofree char *abs = g_canonicalize_filename (dir, NULL);
      g_ptr_array_add (flags, g_strconcat ("-I", abs, NULL));
    }
  for (const char *const *d = include_dirs; d && *d; d++)
    {
      g_autofree char *abs = g_canonicalize_filename (*d, NULL);
      g_ptr_array_add (flags, g_strconcat ("-I", abs, NULL));
    }
  for (guint i = 0; i < flags->len; i++)
    g_checksum_update (sum, (const guchar *) flags->pdata[i], -1);
  ms_user_build_key (sum, "memsim-user-sass 2 -cubin -arch=sm_90 -lineinfo", (const char *[]) {
                                                                                NULL }, nvcc);
  g_checksum_update (sum, (const guchar *) dis, -1);
  guint cu = 0;
  for (const char *const *f = files; *f; f++)
    {
      if (!g_str_has_suffix (*f, ".cu") && !g_str_has_suffix (*f, ".ptx"))
        continue;
      g_autofree char *text = NULL;
      if (!g_file_get_contents (*f, &text, NULL, NULL))
        {
          *why = g_strdup_printf ("cannot read %s", *f);
          return NULL;
        }
      g_checksum_update (sum, (const guchar *) *f, -1);
      g_checksum_update (sum, (const guchar *) text, -1);
      cu++;
    }
  if (cu == 0)
    {
      *why = g_strdup ("no .cu or .ptx file");
      return NULL;
    }
  /* an included header's change is not in the key: the same limit as
   * the text of the files; the CPU build's key covers them */
  g_autofree char *cache = ms_user_build_cache_dir ();
  g_autofree char *name = g_strconcat ("sass-", g_checksum_get_string (sum), ".txt", NULL);
  g_autofree char *final = g_build_filename (cache, name, NULL);
  char *text = NULL;
  if (g_file_get_contents (final, &text, NULL, NULL))
    return text;

  g_mkdir_with_parents (cache, 0755);
  g_autofree char *tmpl = g_build_filename (cache, "sass-XXXXXX", NULL);
  if (g_mkdtemp (tmpl) == NULL)
    {
      *why = g_strdup ("cannot create a folder for nvcc");
      return NULL;
    }
  GString *all = g_string_new (NULL);
  g_autoptr (GString) registers = g_string_new (NULL);
  gboolean ok = TRUE;
  guint k = 0;
  g_autofree char *nvcc_dir = g_path_get_dirname (nvcc);
  g_autofree char *ptxas = g_build_filename (nvcc_dir, "ptxas", NULL);
  for (const char *const *f = files; *f && ok; f++)
    {
      gboolean ptx = g_str_has_suffix (*f, ".ptx");
      if (!g_str_has_suffix (*f, ".cu") && !ptx)
        continue;
      g_autofree char *cubin_name = g_strdup_printf ("unit%u.cubin", k++);
      g_autofree char *cubin = g_build_filename (tmpl, cubin_name, NULL);
      g_autofree char *abs = g_canonicalize_filename (*f, NULL);
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      /* PTX: ptxas, as nvcc runs it on the PTX it made */
      g_ptr_array_add (argv, ptx ? ptxas : nvcc);
      const char *fixed[] = { "-cubin", "-arch=sm_90", "-lineinfo", "-std=c++17", "-w",
                              "-Xptxas=-v", NULL };
      const char *fixed_ptx[] = { "-arch=sm_90", "-lineinfo", "-v", NULL };
      for (const char *const *x = ptx ? fixed_ptx : fixed; *x; x++)
        g_ptr_array_add (argv, (char *) *x);
      for (guint i = 0; i < flags->len && !ptx; i++)
        g_ptr_array_add (argv, flags->pdata[i]);
      g_ptr_array_add (argv, abs);
      g_ptr_array_add (argv, "-o");
      g_ptr_array_add (argv, cubin);
      g_ptr_array_add (argv, NULL);
      g_autofree char *out = NULL;
      g_autofree char *report = NULL;
      const char *dis_argv[] = { dis, "-c", "-gi", cubin, NULL };
      ok = spawn ((const char *const *) argv->pdata, tmpl, NULL, &report)
           && spawn (dis_argv, tmpl, &out, NULL);
      if (ok)
        {
          append_registers (registers, report);
          g_string_append (all, out);
        }
      else
        *why = g_strdup_printf ("nvcc could not build %s for the GPU", *f);
      g_unlink (cubin);
    }
  g_rmdir (tmpl);
  if (!ok)
    {
      g_string_free (all, TRUE);
      return NULL;
    }
  g_string_prepend (all, registers->str);
  /* written whole or not at all (another memsim may read it meanwhile) */
  g_file_set_contents (final, all->str, (gssize) all->len, NULL);
  return g_string_free (all, FALSE);
}

MsSass *
ms_user_sass_kernel (const char *text, const char *symbol, char **function)
{
  /* keep the sections `.text.SYMBOL:` (one per kernel in nvdisasm's text) */
  g_autofree char *header = g_strconcat (".text.", symbol, ":", NULL);
  GString *mine = g_string_new (NULL);
  gboolean in = FALSE;
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (g_str_has_prefix (*l, ".text."))
        in = strcmp (*l, header) == 0;
      if (in)
        {
          g_string_append (mine, *l);
          g_string_append_c (mine, '\n');
        }
    }
  MsSass *sass = ms_sass_parse (mine->str);
  g_string_free (mine, TRUE);
  if (g_hash_table_size (sass->line_counts) == 0)
    {
      ms_sass_free (sass);
      return NULL;
    }
  if (function)
    {
      /* the identifier: any instruction's (each key starts with it) */
      GHashTableIter it;
      gpointer key;
      g_hash_table_iter_init (&it, sass->line_counts);
      g_hash_table_iter_next (&it, &key, NULL);
      *function = g_strndup (key, strcspn (key, "\n"));
    }
  return sass;
}
