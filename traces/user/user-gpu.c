/* user-gpu.c - a user's CUDA file built by nvcc for `--gpu` (see user-gpu.h).
 *
 * The unit is the user's text as read (so the GPU runs exactly what the CPU
 * build ran), under `#line 1 "FILE"` so nvcc's messages and line tables name
 * the user's file, then the launch helpers (namespace memsim_gpu_, added
 * after the user's code so no name of theirs can clash with them) and one
 * extern "C" entry per kernel.  nvcc builds it as a shared object linked to
 * the shared CUDA runtime (-cudart shared): loaded into memsim, it uses the
 * runtime memsim itself links, so buffers, launches and CUPTI's profiling
 * are one context.
 */
#include "config.h"
#include "user-gpu.h"

#include <glib/gstdio.h>
#include <stddef.h>
#include <string.h>

#include "kernel.h"   /* MsLaunchArgs: its layout is checked in the unit */
#include "user-build.h"
#include "user-error.h"

/* nvcc's flags besides -gencode: CUDA C++17 like the CPU build, device code
 * optimised as nvcc does by default (what users' own builds run), line
 * tables for the SASS (they change no instruction), a shared object on the
 * shared runtime. */
static const char *const nvcc_flags[] = {
  "-x", "cu", "-std=c++17", "-O3", "-lineinfo", "-shared", "-Xcompiler", "-fPIC",
  "-cudart", "shared", "-w", NULL,
};

char *
ms_user_nvcc (GError **error)
{
  const char *env = g_getenv ("MEMSIM_NVCC");
  if (env && *env)
    {
      char *path = g_find_program_in_path (env);
      if (path == NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                     "MEMSIM_NVCC=%s not found: set it to nvcc's path", env);
      return path;
    }
#ifdef MS_NVCC_PATH
  if (g_file_test (MS_NVCC_PATH, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (MS_NVCC_PATH);
#endif
  char *path = g_find_program_in_path ("nvcc");
  if (path == NULL)
    g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                 "nvcc not found: --gpu builds your file with nvcc; put the CUDA toolkit's bin "
                 "folder on PATH or set MEMSIM_NVCC");
  return path;
}

/* The helpers: MsLaunchArgs's layout (asserted against this memsim's), the
 * arguments in the order user-kernel.c gives them (pack_params), and the
 * launch. */
static const char helpers[] =
  "#include <cstddef>\n"
  "#include <tuple>\n"
  "#include <type_traits>\n"
  "#include <utility>\n"
  "namespace memsim_gpu_ {\n"
  "struct LaunchArgs {\n"
  "  unsigned grid[3];\n"
  "  unsigned block[3];\n"
  "  void *buf[%d];\n"
  "  long long i[%d];\n"
  "  double f[%d];\n"
  "  const void *params;\n"
  "};\n"
  "static_assert (sizeof (LaunchArgs) == %zu && offsetof (LaunchArgs, buf) == %zu\n"
  "               && offsetof (LaunchArgs, i) == %zu && offsetof (LaunchArgs, f) == %zu,\n"
  "               \"memsim: MsLaunchArgs differs from memsim's\");\n"
  "static unsigned dynamic_shared;\n"
  "template <typename P>\n"
  "static inline P\n"
  "arg (const LaunchArgs *L, int i, int pointer)\n"
  "{\n"
  "  if constexpr (std::is_pointer<P>::value)\n"
  "    return reinterpret_cast<P> (L->buf[pointer]);\n"
  "  else if constexpr (std::is_floating_point<P>::value)\n"
  "    return static_cast<P> (L->f[i]);\n"
  "  else if constexpr (std::is_integral<P>::value || std::is_enum<P>::value)\n"
  "    return static_cast<P> (L->i[i]);\n"
  "  else\n"
  "    return P {};   /* never launched: memsim refuses struct parameters */\n"
  "}\n"
  "template <typename... P>\n"
  "static constexpr int\n"
  "pointers_before (int i)\n"
  "{\n"
  "  constexpr bool pointer[] = { std::is_pointer<P>::value..., false };\n"
  "  int n = 0;\n"
  "  for (int k = 0; k < i; k++)\n"
  "    n += pointer[k];\n"
  "  return n;\n"
  "}\n"
  "template <typename... P, std::size_t... I>\n"
  "static inline void\n"
  "launch (void (*kernel) (P...), const LaunchArgs *L, std::index_sequence<I...>)\n"
  "{\n"
  "  std::tuple<P...> values (arg<P> (L, (int) I, pointers_before<P...> ((int) I))...);\n"
  "  void *args[] = { (void *) &std::get<I> (values)..., nullptr };\n"
  "  if (dynamic_shared > 48 * 1024)\n"
  "    (void) cudaFuncSetAttribute ((const void *) kernel,\n"
  "                                 cudaFuncAttributeMaxDynamicSharedMemorySize,\n"
  "                                 (int) dynamic_shared);\n"
  "  (void) cudaLaunchKernel ((const void *) kernel, dim3 (L->grid[0], L->grid[1], L->grid[2]),\n"
  "                           dim3 (L->block[0], L->block[1], L->block[2]), args,\n"
  "                           dynamic_shared, 0);\n"
  "}\n"
  "template <typename... P>\n"
  "static inline void\n"
  "launch (void (*kernel) (P...), const void *L)\n"
  "{\n"
  "  launch (kernel, static_cast<const LaunchArgs *> (L), std::index_sequence_for<P...> {});\n"
  "}\n"
  "} /* namespace memsim_gpu_ */\n"
  "extern \"C\" void ms_user_gpu_set_dynamic_shared (unsigned bytes)\n"
  "{\n"
  "  memsim_gpu_::dynamic_shared = bytes;\n"
  "}\n";

char *
ms_user_gpu_generate (const char *file, const char *text, const char *const *kernels)
{
  GString *g = g_string_new (NULL);
  g_autofree char *quoted = g_strescape (file, NULL);
  g_string_append_printf (g, "#line 1 \"%s\"\n%s\n", quoted, text);
  g_string_append (g, "#line 1 \"<memsim gpu entry>\"\n");
  g_string_append_printf (g, helpers, MS_MAX_BUFFERS, MS_MAX_ARGS, MS_MAX_ARGS,
                          sizeof (MsLaunchArgs), offsetof (MsLaunchArgs, buf),
                          offsetof (MsLaunchArgs, i), offsetof (MsLaunchArgs, f));
  for (const char *const *k = kernels; *k; k++)
    {
      g_autofree char *entry = ms_user_build_symbol ("ms_user_gpu_entry_", *k);
      g_string_append_printf (g, "extern \"C\" void %s (const void *L) "
                                 "{ memsim_gpu_::launch (%s, L); }\n",
                              entry, *k);
    }
  return g_string_free (g, FALSE);
}

char *
ms_user_gpu_first_error (const char *out, const char *fallback)
{
  g_auto (GStrv) lines = g_strsplit (out ? out : "", "\n", -1);
  for (char **l = lines; *l; l++)
    {
      /* nvcc's front end: "file(line): error: message" */
      char *e = strstr (*l, "): error: ");
      if (e == NULL)
        e = strstr (*l, "): catastrophic error: ");
      if (e != NULL)
        {
          char *open = e;
          while (open > *l && *open != '(')
            open--;
          if (*open == '(')
            {
              g_autofree char *where = g_strndup (*l, (gsize) (open - *l));
              g_autofree char *line = g_strndup (open + 1, (gsize) (e - open - 1));
              return g_strdup_printf ("%s:%s: %s", where, line, g_strstrip (e + 3));
            }
        }
      /* the host compiler (and ptxas, the linker): "file:line:col: error: message" */
      e = strstr (*l, ": error: ");
      if (e == NULL)
        e = strstr (*l, ": fatal error: ");
      if (e == NULL)
        e = strstr (*l, "error   : ");   /* ptxas */
      if (e == NULL)
        continue;
      if (*e != ':')
        return g_strdup (g_strstrip (*l));
      g_autofree char *where = g_strndup (*l, (gsize) (e - *l));
      char *c1 = strrchr (where, ':');
      if (c1 != NULL && strchr (where, ':') != c1)
        *c1 = '\0';
      return g_strdup_printf ("%s: %s", where, g_strstrip (e + 2));
    }
  return g_strdup (fallback);
}

char *
ms_user_gpu_build (const char *file, const char *text, const char *const *kernels,
                   const char *const *flags, const char *key, int cc_major, int cc_minor, gboolean *cached, GError **error)
{
  g_autofree char *nvcc = ms_user_nvcc (error);
  if (nvcc == NULL)
    return NULL;
  g_autofree char *unit = ms_user_gpu_generate (file, text, kernels);
  g_autofree char *gencode = g_strdup_printf ("arch=compute_%d%d,code=sm_%d%d", cc_major,
                                              cc_minor, cc_major, cc_minor);
  g_autofree char *cache = ms_user_build_cache_dir ();
  if (g_mkdir_with_parents (cache, 0755) != 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create %s: %s", cache,
                   g_strerror (errno));
      return NULL;
    }

  /* the key: the CPU build's (which covers the included headers), the
   * unit, the flags, the target and which nvcc */
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *salt = g_strdup_printf ("memsim-user-gpu-build %d %s %s",
                                           MS_USER_GPU_BUILD_VERSION, key ? key : "", gencode);
  ms_user_build_key (sum, salt, nvcc_flags, nvcc);
  g_checksum_update (sum, (const guchar *) unit, -1);
  g_autofree char *name = g_strdup_printf ("gpu-sm%d%d-%s.so", cc_major, cc_minor,
                                           g_checksum_get_string (sum));
  char *final = g_build_filename (cache, name, NULL);
  if (g_file_test (final, G_FILE_TEST_EXISTS))
    {
      if (cached)
        *cached = TRUE;
      return final;
    }

  g_autofree char *tmpl = g_build_filename (cache, "gpu-build-XXXXXX", NULL);
  if (g_mkdtemp (tmpl) == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                   "cannot create a folder in %s: %s", cache, g_strerror (errno));
      g_free (final);
      return NULL;
    }
  g_autofree char *src = g_build_filename (tmpl, "unit.cu", NULL);
  g_autofree char *so_tmp = g_build_filename (tmpl, "unit.so", NULL);
  g_autofree char *dir = g_path_get_dirname (file);
  g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
  g_autofree char *dir_flag = g_strconcat ("-I", abs_dir, NULL);
  g_autofree char *err = NULL;
  gboolean ok = g_file_set_contents (src, unit, -1, error);
  if (ok)
    {
      g_autoptr (GPtrArray) argv = g_ptr_array_new ();
      g_ptr_array_add (argv, nvcc);
      for (const char *const *f = nvcc_flags; *f; f++)
        g_ptr_array_add (argv, (char *) *f);
      /* the user's, an -I folder made absolute: nvcc runs in tmpl */
      g_autoptr (GPtrArray) user = g_ptr_array_new_with_free_func (g_free);
      for (const char *const *f = flags; f && *f; f++)
        {
          g_autofree char *abs = g_str_has_prefix (*f, "-I")
                                   ? g_canonicalize_filename (*f + 2, NULL) : NULL;
          g_ptr_array_add (user, abs ? g_strconcat ("-I", abs, NULL) : g_strdup (*f));
        }
      for (guint u = 0; u < user->len; u++)
        g_ptr_array_add (argv, user->pdata[u]);
      const char *more[] = { "-gencode", gencode, dir_flag, src, "-o", so_tmp, NULL };
      for (const char **f = more; *f; f++)
        g_ptr_array_add (argv, (char *) *f);
      g_ptr_array_add (argv, NULL);
      ok = ms_user_build_run ((const char *const *) argv->pdata, tmpl, &err, error);
      if (!ok && error && *error == NULL)
        {
          g_autofree char *msg = ms_user_gpu_first_error (err, "nvcc failed to build the file");
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "nvcc: %s", msg);
        }
    }
  if (ok && g_rename (so_tmp, final) != 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot write %s: %s", final,
                   g_strerror (errno));
      ok = FALSE;
    }
  g_unlink (src);
  g_unlink (so_tmp);
  g_rmdir (tmpl);
  if (!ok)
    {
      g_free (final);
      return NULL;
    }
  if (cached)
    *cached = FALSE;
  return final;
}
