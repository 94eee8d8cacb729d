/* test-program.c - `memsim run`'s nvcc build and the CUDA runtime that
 * answers nvcc-built host code (traces/user/nvcc-build.h, nvcc-program.h,
 * cuda-runtime.c), without the PTX engine: a stand-in MsDeviceCode gives
 * the kernel and variables of tests/data/programs/nvcc/launch.cu as its
 * PTX declares them, and the launches are recorded, not run.  Skipped
 * without nvcc or without the CUDA headers memsim's runtime needs. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "arch.h"
#include "nvcc-build.h"
#include "nvcc-manifest.h"
#include "nvcc-program.h"
#include "user-error.h"

#define SCALE "_Z5scalePfPKfidc"   /* scale(float *, const float *, int, double, char) */

/* as its PTX lays the parameters out: u64, u64, u32, f64, u8 */
static const MsPtxParam scale_params[] = {
  { SCALE "_param_0", 0, 8, 8 }, { SCALE "_param_1", 8, 8, 8 }, { SCALE "_param_2", 16, 4, 4 },
  { SCALE "_param_3", 24, 8, 8 }, { SCALE "_param_4", 32, 1, 1 },
};
static MsKernel scale_kernel = { .name = "scale" };
static const MsPtxKernel scale_ptx = { SCALE, &scale_kernel, 5, scale_params, 33, 0 };

static const float coeffs_init[4] = { 1, 2, 3, 4 };
static const int counter_init = 7;
static const MsPtxGlobal globals[] = {
  { "coeffs", sizeof coeffs_init, 4, TRUE, (const guint8 *) coeffs_init },
  { "counter", sizeof counter_init, 4, FALSE, (const guint8 *) &counter_init },
};
static void *bound[2];

static const MsPtxKernel *
fake_kernel (gpointer data, const char *name)
{
  return strcmp (name, SCALE) == 0 ? &scale_ptx : NULL;
}

static const MsPtxGlobal *
fake_globals (gpointer data, guint *n)
{
  *n = G_N_ELEMENTS (globals);
  return globals;
}

static gboolean
fake_bind (gpointer data, const char *name, void *device)
{
  for (guint i = 0; i < G_N_ELEMENTS (globals); i++)
    if (strcmp (name, globals[i].name) == 0)
      {
        bound[i] = device;
        return TRUE;
      }
  return FALSE;
}

/* What a launch handed the launch function. */
typedef struct {
  const MsKernel *kernel;
  unsigned grid[3], block[3];
  guint dynamic_shared;
  guint8 params[33];
  char kinds[MS_MAX_ARGS + 1];
  char *names[MS_MAX_ARGS];
  void *buf[MS_MAX_BUFFERS];
  char *buffer_names[MS_MAX_BUFFERS];
  guint n_buffers;
} Seen;

static GArray *seen;

static gboolean
record (gpointer data, const MsProgramLaunch *L, MsProgramLaunchResult *result)
{
  Seen s = { .kernel = L->kernel, .dynamic_shared = L->dynamic_shared,
             .n_buffers = L->n_buffers };
  memcpy (s.grid, L->args.grid, sizeof s.grid);
  memcpy (s.block, L->args.block, sizeof s.block);
  g_assert_nonnull (L->args.params);
  memcpy (s.params, L->args.params, sizeof s.params);
  memcpy (s.kinds, L->kinds, sizeof s.kinds);
  for (guint i = 0; i < MS_MAX_ARGS; i++)
    s.names[i] = g_strdup (L->param_names[i]);
  for (guint b = 0; b < L->n_buffers; b++)
    {
      s.buf[b] = L->args.buf[b];
      s.buffer_names[b] = g_strdup (L->buffer_names[b]);
    }
  g_array_append_val (seen, s);
  result->seconds = 1e-6;   /* (not run: as if it changed memory) */
  return TRUE;
}

static char *
program (const char *name)
{
  return g_test_build_filename (G_TEST_DIST, "data", "programs", "nvcc", name, NULL);
}

static gboolean
skip_without_nvcc (void)
{
  g_autoptr (GError) error = NULL;
  if (!ms_cuda_runtime_has_nvcc_abi ())
    {
      g_test_skip ("memsim was built without the CUDA headers");
      return TRUE;
    }
  const char *nvcc = g_getenv ("MEMSIM_NVCC");
  g_autofree char *found = g_find_program_in_path (nvcc ? nvcc : "nvcc");
#ifdef MS_NVCC_PATH
  if (found == NULL && nvcc == NULL && g_file_test (MS_NVCC_PATH, G_FILE_TEST_IS_EXECUTABLE))
    found = g_strdup (MS_NVCC_PATH);
#endif
  if (found == NULL)
    {
      g_test_skip ("no nvcc");
      return TRUE;
    }
  return FALSE;
}

/* The build, loaded with the stand-in device code, run: its launches reach
 * the launch function with the kernel, geometry and parameter block the
 * host code gave; its own checks (variables, properties, occupancy,
 * errors) pass. */
static void
test_launches (gconstpointer data)
{
  if (skip_without_nvcc ())
    return;
  g_autofree char *file = program ("launch.cu");
  const char *files[] = { file, NULL };
  /* data: relocatable device code (nvcc -dlink registers the kernels) */
  const char *flags[] = { "-DUNUSED_FLAG=1", data ? "-rdc=true" : NULL, NULL };
  g_autoptr (GError) error = NULL;
  g_autoptr (MsNvccBuild) build = ms_nvcc_build (files, flags, &error);
  g_assert_no_error (error);
  g_assert_nonnull (build->ptx[0]);
  g_assert_null (build->ptx[1]);
  g_autofree char *ptx = NULL;
  g_assert_true (g_file_get_contents (build->ptx[0], &ptx, NULL, NULL));
  g_assert_nonnull (strstr (ptx, ".entry " SCALE "("));
  g_assert_nonnull (strstr (ptx, ".loc"));   /* -lineinfo */

  /* again: from the cache, the same files */
  g_autoptr (MsNvccBuild) again = ms_nvcc_build (files, flags, &error);
  g_assert_no_error (error);
  g_assert_true (again->cached);
  g_assert_cmpstr (again->so, ==, build->so);

  MsDeviceCode code = { fake_kernel, fake_globals, fake_bind, NULL };
  MsNvccProgram *p = ms_nvcc_program_open (build->so, "launch", &code, &error);
  g_assert_no_error (error);
  g_autoptr (GError) arch_error = NULL;
  MsArch *arch = ms_arch_lookup ("h100", &arch_error);
  g_assert_no_error (arch_error);
  seen = g_array_new (FALSE, TRUE, sizeof (Seen));
  int status = ms_nvcc_program_run (p, arch, 0, NULL, record, NULL);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpuint (seen->len, ==, 2);   /* the refused launch never reached it */

  Seen *s = &g_array_index (seen, Seen, 0);
  g_assert_true (s->kernel == &scale_kernel);
  g_assert_cmpuint (s->grid[0], ==, 3);
  g_assert_cmpuint (s->grid[1], ==, 2);
  g_assert_cmpuint (s->grid[2], ==, 1);
  g_assert_cmpuint (s->block[0], ==, 64);
  g_assert_cmpuint (s->block[1], ==, 2);
  g_assert_cmpuint (s->dynamic_shared, ==, 96);
  g_assert_cmpstr (s->kinds, ==, "ppiii");
  g_assert_cmpstr (s->names[0], ==, "param_0");
  void *out, *in;
  int n;
  double factor;
  memcpy (&out, s->params, 8);
  memcpy (&in, s->params + 8, 8);
  memcpy (&n, s->params + 16, 4);
  memcpy (&factor, s->params + 24, 8);
  g_assert_cmpint (n, ==, 256);
  g_assert_cmpfloat (factor, ==, 2.5);
  g_assert_cmpint (s->params[32], ==, 'q');
  /* the buffers: the parameters' allocations, then the variables */
  g_assert_cmpuint (s->n_buffers, >=, 4);
  g_assert_true (s->buf[0] == out);
  g_assert_true (s->buf[1] == in);
  g_assert_cmpstr (s->buffer_names[0], ==, "param_0");
  for (guint b = 2; b < 4; b++)
    {
      guint v = strcmp (s->buffer_names[b], "coeffs") == 0 ? 0 : 1;
      g_assert_cmpstr (s->buffer_names[b], ==, globals[v].name);
      g_assert_true (s->buf[b] == bound[v]);
    }
  g_assert_cmpstr (s->buffer_names[2], !=, s->buffer_names[3]);

  /* cudaLaunchKernel's */
  s = &g_array_index (seen, Seen, 1);
  g_assert_cmpuint (s->grid[0], ==, 1);
  g_assert_cmpuint (s->block[0], ==, 32);
  g_assert_cmpuint (s->dynamic_shared, ==, 0);
  memcpy (&n, s->params + 16, 4);
  memcpy (&factor, s->params + 24, 8);
  g_assert_cmpint (n, ==, 32);
  g_assert_cmpfloat (factor, ==, -1.0);
  g_assert_cmpint (s->params[32], ==, 'z');
  memcpy (&in, s->params + 8, 8);
  g_assert_true (in == g_array_index (seen, Seen, 0).buf[0]);   /* the arguments swapped */

  for (guint i = 0; i < seen->len; i++)
    {
      Seen *x = &g_array_index (seen, Seen, i);
      for (guint k = 0; k < MS_MAX_ARGS; k++)
        g_free (x->names[k]);
      for (guint b = 0; b < x->n_buffers; b++)
        g_free (x->buffer_names[b]);
    }
  g_array_free (seen, TRUE);
  ms_arch_free (arch);
  ms_nvcc_program_free (p);
}

/* Errors: nvcc's first one as file:line: message, a bad flag in one line,
 * a function the runtime lacks named. */
static void
test_errors (void)
{
  if (skip_without_nvcc ())
    return;
  g_autoptr (GError) error = NULL;
  g_autofree char *bad = program ("bad.cu");
  const char *bad_files[] = { bad, NULL };
  g_assert_null (ms_nvcc_build (bad_files, NULL, &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER);
  g_assert_nonnull (strstr (error->message, "bad.cu:5: error: identifier \"undeclared\""));
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);

  g_autofree char *ok = program ("launch.cu");
  const char *files[] = { ok, NULL };
  const char *flags[] = { "--no-such-flag", NULL };
  g_assert_null (ms_nvcc_build (files, flags, &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER);
  g_assert_nonnull (strstr (error->message, "--no-such-flag"));
  g_assert_null (strchr (error->message, '\n'));
  g_clear_error (&error);

  const char *text[] = { "program.txt", NULL };
  g_assert_null (ms_nvcc_build (text, NULL, &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE);
  g_clear_error (&error);

  g_autofree char *missing = program ("missing.cu");
  const char *missing_files[] = { missing, NULL };
  g_autoptr (MsNvccBuild) build = ms_nvcc_build (missing_files, NULL, &error);
  g_assert_no_error (error);
  MsDeviceCode code = { fake_kernel, fake_globals, fake_bind, NULL };
  g_assert_null (ms_nvcc_program_open (build->so, "missing", &code, &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD);
  g_assert_true (g_str_has_prefix (error->message, "memsim's CUDA runtime has no cudaIpcGetMemHandle;"));
}

/* The manifest of a build (nvcc-manifest.h): its text read back as
 * written; a text that is not one whole is refused, whatever is wrong
 * with it. */
static void
test_manifest (void)
{
  const char *key = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
  const char *hashes[] = { "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
                           "1111111111111111111111111111111111111111111111111111111111111111" };
  const char *paths[] = { "/home/u/prog.cu", "/usr/include/a b.h" };
  g_autofree char *text = ms_nvcc_manifest_text (key, hashes, paths, 2);
  g_assert_cmpstr (text, ==,
                   "memsim nvcc manifest 1\nkey 0123456789abcdef0123456789abcdef0123456789abcdef"
                   "0123456789abcdef\nfedcba9876543210fedcba9876543210fedcba9876543210fedcba"
                   "9876543210 /home/u/prog.cu\n11111111111111111111111111111111111111111111111"
                   "11111111111111111 /usr/include/a b.h\n");
  g_autoptr (MsNvccManifest) m = ms_nvcc_manifest_parse (text, strlen (text));
  g_assert_nonnull (m);
  g_assert_cmpstr (m->key, ==, key);
  g_assert_cmpuint (m->paths->len, ==, 2);
  g_assert_cmpstr (m->paths->pdata[1], ==, paths[1]);
  g_assert_cmpstr (m->hashes->pdata[0], ==, hashes[0]);
  const char *relative[] = { "prog.cu" }, *newline[] = { "/a\nb" };
  g_assert_null (ms_nvcc_manifest_text (key, hashes, relative, 1));
  g_assert_null (ms_nvcc_manifest_text (key, hashes, newline, 1));
  /* each of these texts is the good one with one thing wrong */
  g_autofree char *upper = g_ascii_strup (text, -1);
  g_autofree char *no_header = g_strdup (text + 1);
  g_autofree char *short_key = g_strdup (text);
  memmove (strstr (short_key, "key ") + 4, strstr (short_key, "key ") + 5,
           strlen (strstr (short_key, "key ") + 5) + 1);
  g_autofree char *rel = g_strdup (text);
  strstr (rel, " /home")[1] = 'x';   /* a relative path */
  g_autofree char *blank = g_strconcat (text, "\n", NULL);
  const char *bad[] = { upper, no_header, short_key, rel, blank, "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_null (ms_nvcc_manifest_parse (bad[i], strlen (bad[i])));
  g_autofree char *nul = g_strdup (text);
  nul[strlen (nul) - 3] = '\0';
  g_assert_null (ms_nvcc_manifest_parse (nul, strlen (text)));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* the builds go to a cache of the test's own */
  g_autofree char *cache = g_dir_make_tmp ("memsim-program-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_test_add_data_func ("/program/launches", NULL, test_launches);
  g_test_add_data_func ("/program/launches-rdc", "rdc", test_launches);
  g_test_add_func ("/program/errors", test_errors);
  g_test_add_func ("/program/manifest", test_manifest);
  int status = g_test_run ();
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", cache);
  if (system (rm) != 0)
    status = status ? status : 1;
  return status;
}
