/* user-build.c - a user's CUDA file compiled for the emulator (see
 * user-build.h; docs/model.md, "Your own kernels", says why this route).
 *
 * The generated translation unit is the user's file with its __shared__
 * declarations rewritten (user-source.c), under a #line directive naming the
 * user's file (so debug info and errors point at it), followed by one launch
 * entry per kernel.  g++ compiles it with memsim's CUDA shim forced in
 * (sim/emulator/cuda-shim.h, with kernel.h and site.h: embedded in memsim
 * and written beside the cache) and -fsanitize=thread, and links it with
 * -shared but without -fsanitize, so libtsan stays out and the __tsan_*
 * hooks resolve to memsim's own (sim/emulator/native.c) when the build is
 * loaded.  Builds are cached by a hash of the preprocessed unit (so an
 * included header's change counts), the flags, the compiler and
 * MS_USER_BUILD_VERSION; a build is written under a temporary name and
 * renamed, so concurrent memsim runs never see half a file.
 */
#include "config.h"
#include "user-build.h"

#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>

#include "user-source.h"

GBytes *ms_user_shim_lookup (const char *path);   /* user-resources.c (generated) */

void ms_user_shim_register_resource (void);   /* user-resources.c (generated) */

/* The compiler's flags: C++ with GNU extensions, optimised as a kernel would
 * be (-O1 keeps every access the source makes to device memory that a
 * kernel compiler must keep, see docs/model.md), debug info for the sites,
 * and the instrumentation of every load and store. */
static const char *const compile_flags[] = {
  "-x", "c++", "-std=gnu++17", "-O1", "-g", "-fPIC", "-fno-semantic-interposition",
  "-fno-omit-frame-pointer",
  "-fsanitize=thread", "--param", "tsan-instrument-func-entry-exit=0", "-w", NULL,
};

static const char *const shim_headers[] = { "cuda-shim.h", "cuda-host.h", "kernel.h", "site.h",
                                            "cooperative_groups.h", NULL };
/* CUDA headers a kernel file includes, empty here: the shim is forced in */
static const char *const stub_headers[] = { "cuda_runtime.h", "cuda.h",
                                            "device_launch_parameters.h", "cuda_runtime_api.h",
                                            "cuda_profiler_api.h", "device_functions.h",
                                            "vector_types.h", "cooperative_groups/reduce.h",
                                            NULL };

char *
ms_user_compiler (GError **error)
{
  const char *env = g_getenv ("MEMSIM_CXX");
  const char *name = env && *env ? env : "g++";
  char *path = g_find_program_in_path (name);
  if (path == NULL)
    g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                 "%s not found: memsim compiles your kernel with g++; install it (Debian: "
                 "apt-get install g++) or set MEMSIM_CXX", name);
  return path;
}

static GBytes *
shim_text (const char *name)
{
  g_autofree char *path = g_strconcat ("/org/memsim/user/", name, NULL);
  return ms_user_shim_lookup (path);
}

/* The folder of the shim headers for this memsim (named by their hash). */
static char *
shim_dir (const char *cache, char **shim_hash, GError **error)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  for (const char *const *h = shim_headers; *h; h++)
    {
      g_autoptr (GBytes) b = shim_text (*h);
      g_assert (b != NULL);
      g_checksum_update (sum, (const guchar *) *h, -1);
      g_checksum_update (sum, g_bytes_get_data (b, NULL), (gssize) g_bytes_get_size (b));
    }
  for (const char *const *h = stub_headers; *h; h++)
    g_checksum_update (sum, (const guchar *) *h, -1);
  *shim_hash = g_strdup (g_checksum_get_string (sum));
  g_autofree char *name = g_strndup (*shim_hash, 16);
  g_autofree char *base = g_strconcat ("include-", name, NULL);
  char *dir = g_build_filename (cache, base, NULL);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create %s: %s", dir,
                   g_strerror (errno));
      g_free (dir);
      return NULL;
    }
  for (int pass = 0; pass < 2; pass++)
    for (const char *const *h = pass ? stub_headers : shim_headers; *h; h++)
      {
        g_autofree char *path = g_build_filename (dir, *h, NULL);
        if (g_file_test (path, G_FILE_TEST_EXISTS))
          continue;
        g_autoptr (GBytes) b = pass ? NULL : shim_text (*h);
        /* a header in a folder (cooperative_groups/reduce.h) is part of the
         * shim header of the folder's name */
        g_autofree char *sub = strchr (*h, '/') ? g_path_get_dirname (path) : NULL;
        g_autofree char *folder = strchr (*h, '/') ? g_strndup (*h, strcspn (*h, "/")) : NULL;
        g_autofree char *stub = folder
          ? g_strdup_printf ("/* memsim: part of %s.h */\n#include \"../%s.h\"\n", folder, folder)
          : g_strdup ("/* memsim: sim/emulator/cuda-shim.h, forced in, is CUDA's runtime on the "
                      "CPU */\n");
        if (sub != NULL && g_mkdir_with_parents (sub, 0755) != 0)
          {
            g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create %s: %s",
                         sub, g_strerror (errno));
            g_free (dir);
            return NULL;
          }
        if (!g_file_set_contents (path, b ? g_bytes_get_data (b, NULL) : stub,
                                  b ? (gssize) g_bytes_get_size (b) : -1, error))
          {
            g_free (dir);
            return NULL;
          }
      }
  return dir;
}

/* The compiler's first error as one line "file:line: error: message". */
static char *
first_error (const char *out, const char *fallback)
{
  g_auto (GStrv) lines = g_strsplit (out ? out : "", "\n", -1);
  for (char **l = lines; *l; l++)
    {
      char *e = strstr (*l, ": error: ");
      if (e == NULL)
        e = strstr (*l, ": fatal error: ");
      if (e == NULL)
        continue;
      /* "file:line:col: error: msg" -> "file:line: error: msg" */
      g_autofree char *where = g_strndup (*l, (gsize) (e - *l));
      char *c1 = strrchr (where, ':');
      if (c1 != NULL && strchr (where, ':') != c1)
        *c1 = '\0';
      return g_strdup_printf ("%s: %s", where, g_strstrip (e + 2));
    }
  return g_strdup (fallback);
}

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

/* A generated unit: a rewritten source, and the kernels' entries. */
static char *
generate (const char *file, const char *rewritten, const char *const *kernels)
{
  GString *g = g_string_new (NULL);
  g_autofree char *quoted = g_strescape (file, NULL);
  g_string_append_printf (g, "#line 1 \"%s\"\n%s\n", quoted, rewritten);
  if (kernels == NULL || *kernels == NULL)
    return g_string_free (g, FALSE);
  g_string_append (g, "#line 1 \"<memsim entry>\"\n");
  for (const char *const *k = kernels; *k; k++)
    {
      g_autofree char *entry = ms_user_build_symbol ("ms_user_entry_", *k);
      g_autofree char *kinds = ms_user_build_symbol ("ms_user_kinds_", *k);
      g_autofree char *addr = ms_user_build_symbol ("ms_user_addr_", *k);
      g_string_append_printf (g, "extern \"C\" void %s (const MsLaunchArgs *L) "
                                 "{ ms_user_launch_ (%s, L); }\n"
                                 "extern \"C\" const char *%s (void) "
                                 "{ return ms_user_kinds_<decltype (&%s)>::kinds; }\n"
                                 "extern \"C\" const void *%s (void) "
                                 "{ return (const void *) &%s; }\n",
                              entry, *k, kinds, *k, addr, *k);
    }
  return g_string_free (g, FALSE);
}

/* argv: the compiler, its flags, the include folders, the shim forced in,
 * then more (NULL-terminated). */
static GPtrArray *
compiler_argv (const char *cxx, const char *inc_flag, GPtrArray *dir_flags,
               const char *const *more)
{
  GPtrArray *argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) cxx);
  for (const char *const *f = compile_flags; *f; f++)
    g_ptr_array_add (argv, (char *) *f);
  g_ptr_array_add (argv, (char *) inc_flag);
  for (guint i = 0; i < dir_flags->len; i++)
    g_ptr_array_add (argv, dir_flags->pdata[i]);
  g_ptr_array_add (argv, "-include");
  g_ptr_array_add (argv, "cuda-shim.h");
  for (const char *const *f = more; *f; f++)
    g_ptr_array_add (argv, (char *) *f);
  g_ptr_array_add (argv, NULL);
  return argv;
}

/* Runs the compiler; on failure its first error (or what) as the error. */
static gboolean
compile (GPtrArray *argv, const char *cwd, const char *what, GError **error)
{
  g_autofree char *err = NULL;
  if (ms_user_build_run ((const char *const *) argv->pdata, cwd, &err, error))
    return TRUE;
  if (error && *error == NULL)
    {
      g_autofree char *msg = first_error (err, what);
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "%s", msg);
    }
  return FALSE;
}

/* How the build is linked: without the sanitizer's runtime (the hooks are
 * memsim's); one definition of a __device__ function that several files
 * include (cuda-shim.h); the build's own names bound inside it, never to
 * memsim's. */
static const char *const link_flags[] = { "-shared", "-Wl,--allow-multiple-definition",
                                          "-Wl,-Bsymbolic", NULL };

char *
ms_user_build (const char *file, const char *text, const char *const *kernels,
               gboolean *cached, GError **error)
{
  const char *files[] = { file, NULL };
  const char *texts[] = { text, NULL };
  MsUserBuildSpec spec = { .files = files, .texts = texts, .kernels = kernels };
  return ms_user_build_spec (&spec, cached, error);
}

char *
ms_user_build_spec (const MsUserBuildSpec *spec, gboolean *cached, GError **error)
{
  g_autofree char *cxx = ms_user_compiler (error);
  if (cxx == NULL)
    return NULL;
  guint n = g_strv_length ((char **) spec->files);
  g_autoptr (GPtrArray) units = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      char *rewritten = spec->program
                          ? ms_user_source_rewrite_program (spec->texts[i], spec->files[i], error)
                          : ms_user_source_rewrite (spec->texts[i], spec->files[i], error);
      if (rewritten == NULL)
        return NULL;
      g_ptr_array_add (units, generate (spec->files[i], rewritten,
                                        i == 0 && !spec->program ? spec->kernels : NULL));
      g_free (rewritten);
    }
  g_autofree char *cache = ms_user_build_cache_dir ();
  g_autofree char *shim_hash = NULL;
  g_autofree char *inc = shim_dir (cache, &shim_hash, error);
  if (inc == NULL)
    return NULL;
  g_autofree char *tmpl = g_build_filename (cache, "build-XXXXXX", NULL);
  if (g_mkdtemp (tmpl) == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create a folder in %s: %s",
                   cache, g_strerror (errno));
      return NULL;
    }
  g_autofree char *inc_flag = g_strconcat ("-I", inc, NULL);
  /* the sources' own folders, then -I: #include "..." and <...> as nvcc */
  g_autoptr (GPtrArray) dir_flags = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *dir = g_path_get_dirname (spec->files[i]);
      g_autofree char *abs_dir = g_canonicalize_filename (dir, NULL);
      g_ptr_array_add (dir_flags, g_strconcat ("-I", abs_dir, NULL));
    }
  for (const char *const *d = spec->include_dirs; d && *d; d++)
    {
      g_autofree char *abs_dir = g_canonicalize_filename (*d, NULL);
      g_ptr_array_add (dir_flags, g_strconcat ("-I", abs_dir, NULL));
    }
  g_autoptr (GPtrArray) temps = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) objs = g_ptr_array_new ();
  g_autofree char *so_tmp = g_build_filename (tmpl, "unit.so", NULL);
  g_ptr_array_add (temps, g_strdup (so_tmp));
  char *result = NULL;

  /* the key: everything the compiler will see, how, and which compiler */
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *salt = g_strdup_printf ("memsim-user-build %d %s %d", MS_USER_BUILD_VERSION,
                                           shim_hash, spec->program);
  ms_user_build_key (sum, salt, compile_flags, cxx);
  for (const char *const *f = link_flags; *f; f++)
    g_checksum_update (sum, (const guchar *) *f, -1);
  for (guint i = 0; i < n; i++)
    {
      char name[32];
      g_snprintf (name, sizeof name, "unit%u.cc", i);
      char *src = g_build_filename (tmpl, name, NULL);
      g_snprintf (name, sizeof name, "unit%u.ii", i);
      char *pre = g_build_filename (tmpl, name, NULL);
      g_snprintf (name, sizeof name, "unit%u.o", i);
      char *obj = g_build_filename (tmpl, name, NULL);
      g_ptr_array_add (temps, src);
      g_ptr_array_add (temps, pre);
      g_ptr_array_add (temps, obj);
      g_ptr_array_add (objs, obj);
      if (!g_file_set_contents (src, units->pdata[i], -1, error))
        goto out;
      const char *more[] = { "-E", "-P", src, "-o", pre, NULL };
      g_autoptr (GPtrArray) argv = compiler_argv (cxx, inc_flag, dir_flags, more);
      if (!compile (argv, tmpl, "g++ failed to preprocess the file", error))
        goto out;
      g_autofree char *pre_text = NULL;
      gsize pre_len = 0;
      if (!g_file_get_contents (pre, &pre_text, &pre_len, error))
        goto out;
      g_checksum_update (sum, (const guchar *) units->pdata[i], -1);
      g_checksum_update (sum, (const guchar *) pre_text, (gssize) pre_len);
    }
  {
    g_autofree char *name = g_strconcat (g_checksum_get_string (sum), ".so", NULL);
    g_autofree char *final = g_build_filename (cache, name, NULL);
    if (g_file_test (final, G_FILE_TEST_EXISTS))
      {
        if (cached)
          *cached = TRUE;
        result = g_steal_pointer (&final);
        goto out;
      }
    /* compile (instrumented), then link without the sanitizer runtime */
    for (guint i = 0; i < n; i++)
      {
        const char *more[] = { "-c", temps->pdata[1 + 3 * i], "-o", objs->pdata[i], NULL };
        g_autoptr (GPtrArray) argv = compiler_argv (cxx, inc_flag, dir_flags, more);
        if (!compile (argv, tmpl, "g++ failed to compile the file", error))
          goto out;
      }
    g_autoptr (GPtrArray) ld = g_ptr_array_new ();
    g_ptr_array_add (ld, cxx);
    for (const char *const *f = link_flags; *f; f++)
      g_ptr_array_add (ld, (char *) *f);
    g_ptr_array_add (ld, "-o");
    g_ptr_array_add (ld, so_tmp);
    for (guint i = 0; i < n; i++)
      g_ptr_array_add (ld, objs->pdata[i]);
    g_ptr_array_add (ld, NULL);
    if (!compile (ld, tmpl, "g++ failed to link the kernel", error))
      goto out;
    if (g_rename (so_tmp, final) != 0)
      {
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot write %s: %s", final,
                     g_strerror (errno));
        goto out;
      }
    if (cached)
      *cached = FALSE;
    result = g_steal_pointer (&final);
  }
out:
  for (guint i = 0; i < temps->len; i++)
    g_unlink (temps->pdata[i]);
  g_rmdir (tmpl);
  return result;
}
