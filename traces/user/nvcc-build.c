/* nvcc-build.c - a user's whole program built by nvcc (see nvcc-build.h). */
#include "config.h"
#include "nvcc-build.h"

#include <glib/gstdio.h>
#include <string.h>

#include "nvcc-manifest.h"
#include "user-build.h"
#include "user-gpu.h"
#include "user-error.h"

/* The device code memsim executes: PTX of sm_90's ISA, no SASS. */
static const char *const device_flags[] = { "-O3", "-lineinfo", "-arch=compute_90",
                                            "-code=compute_90", NULL };

void
ms_nvcc_build_free (MsNvccBuild *b)
{
  if (b == NULL)
    return;
  g_free (b->so);
  g_strfreev (b->ptx);
  g_free (b);
}

typedef enum { KIND_CU, KIND_CXX, KIND_C, KIND_OTHER } Kind;

static Kind
kind_of (const char *file)
{
  const char *dot = strrchr (file, '.');
  if (dot == NULL)
    return KIND_OTHER;
  if (strcmp (dot, ".cu") == 0)
    return KIND_CU;
  if (strcmp (dot, ".cpp") == 0 || strcmp (dot, ".cc") == 0 || strcmp (dot, ".cxx") == 0
      || strcmp (dot, ".C") == 0)
    return KIND_CXX;
  if (strcmp (dot, ".c") == 0)
    return KIND_C;
  return KIND_OTHER;
}

static gboolean
relocatable (const char *const *flags)
{
  for (const char *const *f = flags; f && *f; f++)
    if (strcmp (*f, "-rdc=true") == 0 || strcmp (*f, "--relocatable-device-code=true") == 0
        || strcmp (*f, "-dc") == 0)
      return TRUE;
  return FALSE;
}

/* nvcc's first error as one line; else its first line that says
 * something ("nvcc fatal   : Unknown option '-x'"), squeezed. */
static char *
first_error (const char *out)
{
  g_auto (GStrv) lines = g_strsplit (out ? out : "", "\n", -1);
  const char *said = NULL;
  for (char **l = lines; *l && said == NULL; l++)
    if (strstr (*l, "fatal") != NULL || strstr (*l, "error") != NULL)
      said = *l;
  for (char **l = lines; *l && said == NULL; l++)
    if (*g_strstrip (*l) != '\0')
      said = *l;
  g_autofree char *fallback = g_strdup (said ? said : "nvcc failed");
  g_strstrip (fallback);
  /* "nvcc fatal   : x" -> "nvcc fatal: x" */
  char *sp = strstr (fallback, "   :");
  if (sp != NULL)
    memmove (sp, sp + 3, strlen (sp + 3) + 1);
  return ms_user_gpu_first_error (out, fallback);
}

static gboolean
run_nvcc (GPtrArray *argv, GError **error)
{
  g_ptr_array_add (argv, NULL);
  g_autofree char *out = NULL;
  gboolean ok = ms_user_build_run ((const char *const *) argv->pdata, NULL, &out, error);
  g_ptr_array_remove_index (argv, argv->len - 1);
  if (ok)
    return TRUE;
  if (error != NULL && *error != NULL)
    {
      g_prefix_error (error, "cannot run nvcc: ");
      return FALSE;
    }
  g_autofree char *first = first_error (out);
  g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "%s", first);
  return FALSE;
}

/* Whether flag is for the link alone: a library or where to find one. */
static gboolean
link_flag (const char *flag)
{
  return g_str_has_prefix (flag, "-l") || g_str_has_prefix (flag, "-L");
}

/* argv: nvcc, the user's flags (without -std for C files; without the
 * link's own when compiling), then more */
static GPtrArray *
nvcc_argv (const char *nvcc, const char *const *flags, Kind kind)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (argv, g_strdup (nvcc));
  for (const char *const *f = flags; f && *f; f++)
    if (!(kind == KIND_C && g_str_has_prefix (*f, "-std")) && !link_flag (*f))
      g_ptr_array_add (argv, g_strdup (*f));
  return argv;
}

/* The link's share of the user's flags: libraries, their folders, the
 * host compiler's flags (-fopenmp links its runtime). */
static void
add_link_flags (GPtrArray *argv, const char *const *flags)
{
  for (const char *const *f = flags; f && *f; f++)
    if (link_flag (*f) || g_str_has_prefix (*f, "-Xcompiler"))
      g_ptr_array_add (argv, g_strdup (*f));
}

static void
add (GPtrArray *argv, const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, g_strdup (a));
  va_end (ap);
}

static char *
nvcc_version (const char *nvcc)
{
  const char *argv[] = { nvcc, "--version", NULL };
  char *text = NULL;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &text,
                     NULL, NULL, NULL))
    return g_strdup (nvcc);
  return text;
}

/* The environment that steers nvcc's and the host compiler's
 * preprocessing beside the flags. */
static const char *const preprocessor_env[] = { "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH",
                                                "NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS",
                                                "NVCC_CCBIN", NULL };

static void
checksum_string (GChecksum *sum, const char *s)
{
  g_checksum_update (sum, (const guchar *) (s ? s : ""), -1);
  g_checksum_update (sum, (const guchar *) "", 1);
}

/* The files nvcc's preprocessor read, from the line marks of its output
 * (`# 12 "path" 2`): each absolute path once, into read. */
static void
add_marked_files (const char *out, GHashTable *read)
{
  for (const char *l = out; l != NULL && *l != '\0';)
    {
      const char *eol = strchr (l, '\n');
      gsize len = eol != NULL ? (gsize) (eol - l) : strlen (l);
      const char *q = len > 3 && l[0] == '#' && l[1] == ' ' && g_ascii_isdigit (l[2])
                        ? memchr (l, '"', len) : NULL;
      const char *end = q != NULL ? memchr (q + 1, '"', len - (gsize) (q + 1 - l)) : NULL;
      if (end != NULL && q[1] != '<')   /* not <built-in> or <command-line> */
        {
          g_autofree char *path = g_strndup (q + 1, (gsize) (end - q - 1));
          g_hash_table_add (read, g_canonicalize_filename (path, NULL));
        }
      l = eol != NULL ? eol + 1 : NULL;
    }
}

/* The cache key: each file's absolute path and text as nvcc preprocesses
 * it (what it includes, with the flags' macros), the flags, nvcc's
 * version; into read (if not NULL) the files the preprocessor read. */
static char *
build_key (const char *nvcc, const char *version, const char *const *files,
           const char *const *flags, GHashTable *read, GError **error)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *salt = g_strdup_printf ("memsim nvcc program %d", MS_NVCC_BUILD_VERSION);
  g_checksum_update (sum, (const guchar *) salt, -1);
  g_checksum_update (sum, (const guchar *) version, -1);
  for (const char *const *f = flags; f && *f; f++)
    {
      g_checksum_update (sum, (const guchar *) *f, -1);
      g_checksum_update (sum, (const guchar *) "", 1);
    }
  for (guint i = 0; files[i]; i++)
    {
      g_autoptr (GPtrArray) argv = nvcc_argv (nvcc, flags, kind_of (files[i]));
      /* with its line marks: a change that moves lines (a comment added)
       * moves the PTX's .loc lines and the lines memsim reports */
      add (argv, "-E", files[i], NULL);
      g_ptr_array_add (argv, NULL);
      g_autofree char *out = NULL, *err = NULL;
      int status = 0;
      g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
      if (!g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out,
                         &err, &status, error))
        {
          g_prefix_error (error, "cannot run nvcc: ");
          return NULL;
        }
      if (!g_spawn_check_wait_status (status, NULL))
        {
          g_autofree char *first = first_error (err);
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "%s", first);
          return NULL;
        }
      /* the file's absolute path: the PTX names it (.file), and memsim reads
       * the kernels' parameter names there, so a build made from another
       * copy of the same text, since deleted, must not be taken */
      g_autofree char *abs = g_canonicalize_filename (files[i], NULL);
      g_checksum_update (sum, (const guchar *) abs, -1);
      g_checksum_update (sum, (const guchar *) out, -1);
      if (read != NULL)
        add_marked_files (out, read);
    }
  return g_strdup (g_checksum_get_string (sum));
}

/* The SHA-256 of file path's text; NULL if it cannot be read.  *dated:
 * whether the text names __DATE__ or __TIME__ (its preprocessed text
 * changes by itself). */
static char *
file_hash (const char *path, gboolean *dated)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return NULL;
  if (dated != NULL)
    *dated = g_strstr_len (text, (gssize) len, "__DATE__") != NULL
             || g_strstr_len (text, (gssize) len, "__TIME__") != NULL;
  return g_compute_checksum_for_data (G_CHECKSUM_SHA256, (const guchar *) text, len);
}

/* The key without nvcc (ccache's "direct mode"): the program's files'
 * paths and text, the flags, the working folder, nvcc's version and the
 * preprocessor's environment; NULL when a file cannot be read.  Its manifest in the cache
 * holds the key build_key gave for them and the hash of each file the
 * preprocessor read then; while each file still has that text, the key is
 * the manifest's, and a program run again starts without nvcc -E (0.3 s a
 * file: most of a small program's run). */
static char *
direct_key (const char *version, const char *const *files, const char *const *flags)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_autofree char *salt = g_strdup_printf ("memsim nvcc direct %d", MS_NVCC_BUILD_VERSION);
  checksum_string (sum, salt);
  checksum_string (sum, version);
  for (const char *const *f = flags; f && *f; f++)
    checksum_string (sum, *f);
  checksum_string (sum, "--");
  g_autofree char *cwd = g_get_current_dir ();   /* where relative -I paths lead */
  checksum_string (sum, cwd);
  for (const char *const *v = preprocessor_env; *v; v++)
    checksum_string (sum, g_getenv (*v));
  for (guint i = 0; files[i]; i++)
    {
      g_autofree char *abs = g_canonicalize_filename (files[i], NULL);
      g_autofree char *hash = file_hash (abs, NULL);
      if (hash == NULL)
        return NULL;
      checksum_string (sum, abs);
      checksum_string (sum, hash);
    }
  return g_strdup (g_checksum_get_string (sum));
}

/* The key manifest path holds, if every file it names still has the text
 * it had; else NULL. */
static char *
manifest_key (const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL))
    return NULL;
  g_autoptr (MsNvccManifest) m = ms_nvcc_manifest_parse (text, len);
  if (m == NULL)
    return NULL;
  for (guint i = 0; i < m->paths->len; i++)
    {
      g_autofree char *hash = file_hash (m->paths->pdata[i], NULL);
      if (hash == NULL || strcmp (hash, m->hashes->pdata[i]) != 0)
        return NULL;
    }
  return g_strdup (m->key);
}

/* Writes the manifest of key: the hash of each file of read.  None when a
 * file cannot be read or names __DATE__ or __TIME__. */
static void
manifest_write (const char *path, const char *key, GHashTable *read)
{
  g_autoptr (GPtrArray) hashes = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) paths = g_ptr_array_new ();
  GHashTableIter it;
  gpointer file;
  g_hash_table_iter_init (&it, read);
  while (g_hash_table_iter_next (&it, &file, NULL))
    {
      gboolean dated = FALSE;
      char *hash = file_hash (file, &dated);
      if (hash == NULL || dated)
        {
          g_free (hash);
          return;
        }
      g_ptr_array_add (hashes, hash);
      g_ptr_array_add (paths, file);
    }
  g_autofree char *text = ms_nvcc_manifest_text (key, (const char *const *) hashes->pdata,
                                                 (const char *const *) paths->pdata, paths->len);
  if (text != NULL)
    g_file_set_contents (path, text, -1, NULL);
}

/* The cache key of the program (build_key), from the manifest of its
 * direct key when that still holds, else from nvcc's preprocessing (and a
 * manifest is written for the next run). */
static char *
program_key (const char *nvcc, const char *cache, const char *const *files,
             const char *const *flags, GError **error)
{
  g_autofree char *version = nvcc_version (nvcc);
  g_autofree char *direct = direct_key (version, files, flags);
  g_autofree char *leaf = direct ? g_strdup_printf ("nvcc-direct-%s", direct) : NULL;
  g_autofree char *manifest = leaf ? g_build_filename (cache, leaf, NULL) : NULL;
  char *key = manifest ? manifest_key (manifest) : NULL;
  if (key != NULL)
    return key;
  g_autoptr (GHashTable) read = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  key = build_key (nvcc, version, files, flags, read, error);
  if (key != NULL && manifest != NULL && g_mkdir_with_parents (cache, 0700) == 0)
    manifest_write (manifest, key, read);
  return key;
}

/* The name of file i's PTX in the build: "<i>-<base>.ptx". */
static char *
ptx_name (guint i, const char *file)
{
  g_autofree char *base = g_path_get_basename (file);
  char *dot = strrchr (base, '.');
  if (dot != NULL)
    *dot = '\0';
  return g_strdup_printf ("%u-%s.ptx", i, base);
}

/* The objects' references to CUDA's runtime become memsim's symbols. */
static gboolean
rename_cuda_symbols (const char *object, const char *map_file, GError **error)
{
  const char *nm_argv[] = { "nm", "-u", "-P", object, NULL };
  g_autofree char *out = NULL, *err = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) nm_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &err,
                     &status, error)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_clear_error (error);
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                   "cannot list the symbols of %s with nm (binutils): %s", object,
                   err && *err ? g_strstrip (err) : "nm not found");
      return FALSE;
    }
  g_autoptr (GString) map = g_string_new (NULL);
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      g_autofree char *name = g_strndup (*l, strcspn (*l, " \t"));
      /* (nvcc -dlink's object defines the linked binaries' registrations) */
      if ((g_str_has_prefix (name, "cuda") || g_str_has_prefix (name, "__cuda"))
          && !g_str_has_prefix (name, "__cudaRegisterLinkedBinary_"))
        g_string_append_printf (map, "%s memsim_%s\n", name, name);
    }
  if (map->len == 0)
    return TRUE;
  if (!g_file_set_contents (map_file, map->str, (gssize) map->len, error))
    return FALSE;
  g_autofree char *redefine = g_strdup_printf ("--redefine-syms=%s", map_file);
  const char *objcopy_argv[] = { "objcopy", redefine, object, NULL };
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&out, g_free);
  if (!g_spawn_sync (NULL, (char **) objcopy_argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
                     &err, &status, error)
      || !g_spawn_check_wait_status (status, NULL))
    {
      g_clear_error (error);
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                   "cannot rename the CUDA symbols of %s with objcopy (binutils): %s", object,
                   err && *err ? g_strstrip (err) : "objcopy not found");
      return FALSE;
    }
  return TRUE;
}

static void
remove_tree (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
        remove_tree (path);
      else
        g_unlink (path);
    }
  g_rmdir (dir);
}

/* Compiles and links into dir. */
static gboolean
build_into (const char *dir, const char *nvcc, const char *const *files,
            const char *const *flags, GError **error)
{
  gboolean rdc = relocatable (flags);
  g_autoptr (GPtrArray) objects = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GPtrArray) device_objects = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; files[i]; i++)
    {
      Kind kind = kind_of (files[i]);
      g_autofree char *keep = g_strdup_printf ("%s/k%u", dir, i);
      g_autofree char *object = g_strdup_printf ("%s/%u.o", dir, i);
      if (g_mkdir_with_parents (keep, 0700) != 0)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create %s", keep);
          return FALSE;
        }
      g_autoptr (GPtrArray) argv = nvcc_argv (nvcc, flags, kind);
      add (argv, "-c", "-Xcompiler", "-fPIC", NULL);
      if (kind == KIND_CU)
        {
          for (const char *const *f = device_flags; *f; f++)
            add (argv, *f, NULL);
          add (argv, "--keep", "--keep-dir", keep, NULL);
        }
      else
        add (argv, "-O3", NULL);
      add (argv, files[i], "-o", object, NULL);
      if (!run_nvcc (argv, error))
        return FALSE;
      if (kind == KIND_CU)
        {
          g_autofree char *base = g_path_get_basename (files[i]);
          *strrchr (base, '.') = '\0';
          g_autofree char *kept = g_strdup_printf ("%s/%s.ptx", keep, base);
          g_autofree char *name = ptx_name (i, files[i]);
          g_autofree char *ptx = g_build_filename (dir, name, NULL);
          if (g_rename (kept, ptx) != 0)
            {
              g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                           "nvcc wrote no PTX for %s", files[i]);
              return FALSE;
            }
          g_ptr_array_add (device_objects, g_strdup (object));
        }
      remove_tree (keep);   /* the other intermediates: megabytes each */
      g_ptr_array_add (objects, g_steal_pointer (&object));
    }
  if (rdc && device_objects->len > 0)
    {
      g_autofree char *dlink = g_strdup_printf ("%s/dlink.o", dir);
      g_autoptr (GPtrArray) argv = nvcc_argv (nvcc, NULL, KIND_CU);
      /* without CUDA's device runtime (dynamic parallelism): its host side
       * would call CUDA's runtime, not memsim's */
      add (argv, "-dlink", "-arch=compute_90", "-code=compute_90", "-cudadevrt", "none",
           "-Xcompiler", "-fPIC", NULL);
      for (guint i = 0; i < device_objects->len; i++)
        add (argv, device_objects->pdata[i], NULL);
      add (argv, "-o", dlink, NULL);
      if (!run_nvcc (argv, error))
        return FALSE;
      g_ptr_array_add (objects, g_steal_pointer (&dlink));
    }
  g_autofree char *map = g_build_filename (dir, "symbols.map", NULL);
  for (guint i = 0; i < objects->len; i++)
    if (!rename_cuda_symbols (objects->pdata[i], map, error))
      return FALSE;
  g_unlink (map);
  g_autofree char *so = g_build_filename (dir, "program.so", NULL);
  g_autoptr (GPtrArray) argv = nvcc_argv (nvcc, NULL, KIND_CXX);
  add (argv, "-shared", "-cudart", "none", "-o", so, NULL);
  for (guint i = 0; i < objects->len; i++)
    add (argv, objects->pdata[i], NULL);
  add_link_flags (argv, flags);
  if (!run_nvcc (argv, error))
    return FALSE;
  for (guint i = 0; i < objects->len; i++)
    g_unlink (objects->pdata[i]);
  return TRUE;
}

static gboolean
complete (const char *dir, const char *const *files, char ***ptx_out)
{
  g_autofree char *so = g_build_filename (dir, "program.so", NULL);
  if (!g_file_test (so, G_FILE_TEST_IS_REGULAR))
    return FALSE;
  g_autoptr (GPtrArray) ptx = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; files[i]; i++)
    if (kind_of (files[i]) == KIND_CU)
      {
        g_autofree char *name = ptx_name (i, files[i]);
        char *path = g_build_filename (dir, name, NULL);
        g_ptr_array_add (ptx, path);
        if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
          return FALSE;
      }
  g_ptr_array_add (ptx, NULL);
  *ptx_out = (char **) g_ptr_array_free (g_steal_pointer (&ptx), FALSE);
  return TRUE;
}

MsNvccBuild *
ms_nvcc_build (const char *const *files, const char *const *flags, GError **error)
{
  if (files == NULL || files[0] == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE, "no files to build");
      return NULL;
    }
  for (guint i = 0; files[i]; i++)
    {
      if (!g_file_test (files[i], G_FILE_TEST_IS_REGULAR))
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE,
                       "%s: no such file; give the path of your CUDA program", files[i]);
          return NULL;
        }
      if (kind_of (files[i]) == KIND_OTHER)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE,
                       "%s: memsim run builds .cu, .cpp, .cc, .cxx and .c files", files[i]);
          return NULL;
        }
    }
  g_autoptr (GError) missing = NULL;
  g_autofree char *nvcc = ms_user_nvcc (&missing);
  if (nvcc == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                   "nvcc not found: memsim builds your CUDA files with it; install the CUDA "
                   "toolkit (or pip install nvidia-cuda-nvcc) and put nvcc on PATH, or set "
                   "MEMSIM_NVCC");
      return NULL;
    }
  g_autofree char *cache = ms_user_build_cache_dir ();
  g_autofree char *key = program_key (nvcc, cache, files, flags, error);
  if (key == NULL)
    return NULL;
  g_autofree char *leaf = g_strdup_printf ("nvcc-%s", key);
  g_autofree char *dir = g_build_filename (cache, leaf, NULL);
  MsNvccBuild *b = g_new0 (MsNvccBuild, 1);
  if (complete (dir, files, &b->ptx))
    {
      b->so = g_build_filename (dir, "program.so", NULL);
      b->cached = TRUE;
      return b;
    }
  g_autofree char *tmp = g_strdup_printf ("%s.tmp-XXXXXX", dir);
  if (g_mkdir_with_parents (cache, 0700) != 0 || g_mkdtemp (tmp) == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create a folder in %s",
                   cache);
      ms_nvcc_build_free (b);
      return NULL;
    }
  if (!build_into (tmp, nvcc, files, flags, error))
    {
      remove_tree (tmp);
      ms_nvcc_build_free (b);
      return NULL;
    }
  /* another memsim may have built it meanwhile: then its build stays */
  if (g_rename (tmp, dir) != 0)
    remove_tree (tmp);
  if (!complete (dir, files, &b->ptx))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                   "the build of %s is not in %s", files[0], dir);
      ms_nvcc_build_free (b);
      return NULL;
    }
  b->so = g_build_filename (dir, "program.so", NULL);
  return b;
}
