/* test-user.c - users' own CUDA kernels (traces/user, `memsim trace
 * FILE.cu:KERNEL`): plain-CUDA copies of built-in kernels (tests/data/user,
 * and examples/transpose.cu)
 * give the built-in kernel's counters, every one, at the same launch, and
 * the same output (the built-in's output is checked against its plain-C
 * reference); hand-derived counts for a strided load, a float4 copy and a
 * struct member read; struct buffers filled member by member; kernels
 * found by name, their parameter types, and the errors.  The built-in
 * kernels were validated on an H100 (docs/validation.md), so equality ties
 * users' files, run from nvcc's PTX as the built-ins are, to the hardware.
 */
#include "config.h"

#include <glib/gstdio.h>
#include <gmodule.h>
#include <stdlib.h>
#include <string.h>

#include "emulator.h"
#include "model.h"
#include "problem.h"
#include "user-build.h"
#include "user-gpu.h"
#include "user-kernel.h"

/* tests/data/user/NAME, or examples/NAME for the examples */
static char *
data_file (const char *name)
{
  if (strcmp (name, "transpose.cu") == 0)
    return g_test_build_filename (G_TEST_DIST, "..", "examples", name, NULL);
  return g_test_build_filename (G_TEST_DIST, "data", "user", name, NULL);
}

typedef struct {
  MsProblem *problem;
  MsStats *stats;
} Run;

static void
run_clear (Run *r)
{
  g_clear_pointer (&r->problem, ms_problem_free);
  g_clear_pointer (&r->stats, ms_stats_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Run, run_clear)

/* FILE:KERNEL with its launch (args NULL-terminated); asserts it runs. */
static Run
run_user (const char *file, const char *kernel, const char *grid, const char *block,
          guint dynamic_shared, const char *const *args)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = data_file (file);
  g_autofree char *spec = g_strconcat (path, ":", kernel, NULL);
  const MsUserKernel *k = ms_user_kernel_load (spec, &error);
  g_assert_no_error (error);
  MsUserLaunch launch = { grid, block, dynamic_shared, args };
  Run r = { ms_user_problem_new (k, &launch, &error), NULL };
  g_assert_no_error (error);
  if (!ms_problem_simulate (r.problem, ms_arch_default (), 0, NULL, &r.stats, &error))
    g_error ("%s: %s", spec, error->message);
  return r;
}

/* A built-in kernel at --size/--block; its output check must pass. */
static Run
run_builtin (const char *name, const char *size, const char *block)
{
  g_autoptr (GError) error = NULL;
  Run r = { ms_problem_new (ms_kernel_find (name)), NULL };
  g_assert_true ((!size || ms_problem_set_size (r.problem, size, &error))
                 && (!block || ms_problem_set_block (r.problem, block, &error))
                 && ms_problem_setup (r.problem, &error)
                 && ms_problem_simulate (r.problem, ms_arch_default (), 0, NULL, &r.stats, &error)
                 && r.problem->kernel->check (r.problem, &error));
  g_assert_no_error (error);
  return r;
}

/* Every counter of every (space, op), and the launch's own, agree (both
 * run nvcc's PTX, reductions aggregated alike). */
static void
assert_same_counters (const Run *a, const Run *b)
{
  for (int sp = 0; sp < MS_N_SPACES; sp++)
    for (int op = 0; op < MS_N_OPS; op++)
      {
        MsCounters x, y;
        ms_stats_total (a->stats, (MsSpace) sp, op, &x);
        ms_stats_total (b->stats, (MsSpace) sp, op, &y);
        if (x.executions + y.executions > 0)
          g_test_message ("%s %s: %" G_GUINT64_FORMAT " vs %" G_GUINT64_FORMAT " executions",
                          ms_space_name ((MsSpace) sp), ms_op_name ((MsOp) op), x.executions,
                          y.executions);
        g_assert_cmpuint (x.executions, ==, y.executions);
        g_assert_cmpuint (x.lanes, ==, y.lanes);
        g_assert_cmpuint (x.partial, ==, y.partial);
        g_assert_cmpuint (x.bytes, ==, y.bytes);
        for (int s = 0; s < MS_COUNTER_SLOTS; s++)
          g_assert_cmpuint (x.v[s], ==, y.v[s]);
      }
  for (int s = 0; s < MS_COUNTER_SLOTS; s++)
    g_assert_cmpuint (a->stats->launch.v[s], ==, b->stats->launch.v[s]);
}

static void
assert_same_buffer (const Run *a, guint ia, const Run *b, guint ib)
{
  g_assert_cmpuint (a->problem->buffer_bytes[ia], ==, b->problem->buffer_bytes[ib]);
  g_assert_cmpmem (a->problem->args.buf[ia], a->problem->buffer_bytes[ia],
                   b->problem->args.buf[ib], b->problem->buffer_bytes[ib]);
}

/* ------------------------------------------- equal to the built-in kernels */

/* A 256x192 matrix (not square: the indexing must be right), 32x32 blocks. */
static void
test_transpose (gconstpointer data)
{
  const char *kernel = data;
  const char *args[] = { "odata=float[49152]=0", "idata=float[49152]", "width=256",
                         "height=192", NULL };
  g_auto (Run) user = run_user ("transpose.cu", kernel, "8x6", "32x32", 0, args);
  g_auto (Run) builtin = run_builtin (kernel, "256x192", NULL);
  assert_same_counters (&user, &builtin);
  assert_same_buffer (&user, 1, &builtin, 1);   /* the same input ... */
  assert_same_buffer (&user, 0, &builtin, 0);   /* ... and the checked output */
}

/* n = 65536 ints, 256 threads a block; the shared array is extern
 * (--dynamic-shared 1024) in the copies, static in the built-ins. */
static void
test_reduce (gconstpointer data)
{
  const char *kernel = data;
  gboolean two = strcmp (kernel, "reduce_unroll_last") == 0;   /* 2 elements a thread */
  const char *grid = two ? "128" : "256";
  g_autofree char *out = g_strdup_printf ("out=int[%s]=0", grid);
  const char *args[] = { out, "in=int[65536]", "n=65536", NULL };
  g_auto (Run) user = run_user ("reduce.cu", kernel, grid, "256", 1024, args);
  g_auto (Run) builtin = run_builtin (kernel, "65536", "256");
  assert_same_counters (&user, &builtin);
  assert_same_buffer (&user, 1, &builtin, 1);
  assert_same_buffer (&user, 0, &builtin, 0);
}

/* test_atomics: shared and global atomicAdd, atomicMax, atomicCAS on a
 * __shared__ scalar; inputs 0..15 as the built-in's (=0..15). */
static void
test_atomics (void)
{
  const char *args[] = { "out=int[18]=0", "in=int[1000]=0..15", "n=1000", NULL };
  g_auto (Run) user = run_user ("atomics.cu", "histogram", "8", "128", 0, args);
  g_auto (Run) builtin = run_builtin ("test_atomics", NULL, NULL);
  assert_same_counters (&user, &builtin);
  assert_same_buffer (&user, 1, &builtin, 1);
  assert_same_buffer (&user, 0, &builtin, 0);
}

/* ------------------------------------------------ hand-derived counts */

static void
total (const Run *r, MsSpace space, MsOp op, MsCounters *c)
{
  ms_stats_total (r->stats, space, op, c);
}


/* One warp loads 4-byte floats at a stride of s floats: 1 request and
 * 4 * s sectors for s <= 8 (32 lanes x 4 s bytes / 32-byte sectors), 32
 * from s = 8 on (one sector per lane); it stores them contiguously: 1
 * request, 4 sectors (BRIEF section 4). */
static void
test_strided (void)
{
  static const int strides[] = { 1, 2, 3, 4, 8, 32 };
  for (guint i = 0; i < G_N_ELEMENTS (strides); i++)
    {
      int s = strides[i];
      g_autofree char *in = g_strdup_printf ("in=float[%d]", 32 * s);
      g_autofree char *stride = g_strdup_printf ("stride=%d", s);
      const char *args[] = { "out=float[32]=0", in, stride, NULL };
      g_auto (Run) r = run_user ("strided.cu", "strided", "1", "32", 0, args);
      MsCounters ld, st;
      total (&r, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
      total (&r, MS_SPACE_GLOBAL, MS_OP_ST, &st);
      g_assert_cmpuint (ld.executions, ==, 1);
      g_assert_cmpuint (ld.v[MS_SLOT_REQUESTS], ==, 1);
      g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, (guint64) MIN (4 * s, 32));
      g_assert_cmpuint (st.executions, ==, 1);
      g_assert_cmpuint (st.v[MS_SLOT_SECTORS], ==, 4);
      const float *o = r.problem->args.buf[0], *x = r.problem->args.buf[1];
      for (int l = 0; l < 32; l++)
        g_assert_cmpfloat (o[l], ==, x[l * s]);
    }
}

/* float4: one 16-byte access per lane, 512 bytes = 16 sectors in one
 * request, each way; float3: three 4-byte ones.  A 16-byte struct's 4-byte member: lanes 16 bytes
 * apart, 512 bytes spanned = 16 sectors for 128 bytes used. */
static void
test_wide_and_struct (void)
{
  const char *args4[] = { "out=float4[32]=0", "in=float4[32]", NULL };
  g_auto (Run) r = run_user ("strided.cu", "copy4", "1", "32", 0, args4);
  MsCounters ld, st;
  total (&r, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  total (&r, MS_SPACE_GLOBAL, MS_OP_ST, &st);
  g_assert_cmpuint (ld.executions, ==, 1);
  g_assert_cmpuint (ld.bytes, ==, 512);
  g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, 16);
  g_assert_cmpuint (st.v[MS_SLOT_SECTORS], ==, 16);
  assert_same_buffer (&r, 0, &r, 1);
  g_assert_cmpmem (r.problem->args.buf[0], 512, r.problem->args.buf[1], 512);

  /* float3: three 4-byte accesses each way, lanes 12 bytes apart: 384
   * bytes spanned = 12 sectors an instruction */
  const char *args3[] = { "out=float3[32]=0", "in=float3[32]", NULL };
  g_auto (Run) r3 = run_user ("strided.cu", "copy3", "1", "32", 0, args3);
  total (&r3, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  total (&r3, MS_SPACE_GLOBAL, MS_OP_ST, &st);
  g_assert_cmpuint (ld.executions, ==, 3);
  g_assert_cmpuint (ld.bytes, ==, 3 * 32 * 4);
  g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, 3 * 12);
  g_assert_cmpuint (st.executions, ==, 3);
  g_assert_cmpuint (st.v[MS_SLOT_SECTORS], ==, 3 * 12);
  g_assert_cmpmem (r3.problem->args.buf[0], 384, r3.problem->args.buf[1], 384);

  const char *args[] = { "out=int[32]=0", "p=Particle[32]", NULL };
  g_auto (Run) s = run_user ("strided.cu", "ids", "1", "32", 0, args);
  total (&s, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  g_assert_cmpuint (ld.executions, ==, 1);
  g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, 16);
  g_assert_cmpuint (s.problem->buffer_bytes[1], ==, 32 * 16);
  /* filled member by member: x, y, z floats in [-1, 1), id ints in [-1000, 1000] */
  const guint8 *p = s.problem->args.buf[1];
  const int *out = s.problem->args.buf[0];
  gboolean some_nonzero = FALSE;
  for (int l = 0; l < 32; l++)
    {
      float f[3];
      int id;
      memcpy (f, p + 16 * l, sizeof f);
      memcpy (&id, p + 16 * l + 12, sizeof id);
      for (int c = 0; c < 3; c++)
        g_assert_true (f[c] >= -1.0f && f[c] < 1.0f);
      g_assert_cmpint (id, >=, -1000);
      g_assert_cmpint (id, <=, 1000);
      g_assert_cmpint (out[l], ==, id);
      some_nonzero |= id != 0;
    }
  g_assert_true (some_nonzero);
}

/* A template kernel by its instantiation: out is in transposed (32x32). */
static void
test_template (void)
{
  const char *args[] = { "out=float[1024]=0", "in=float[1024]", NULL };
  g_auto (Run) r = run_user ("template.cu", "tile_transpose<32>", "1", "32x32", 0, args);
  const float *out = r.problem->args.buf[0], *in = r.problem->args.buf[1];
  for (int y = 0; y < 32; y++)
    for (int x = 0; x < 32; x++)
      g_assert_cmpfloat (out[y * 32 + x], ==, in[x * 32 + y]);
}

/* ------------------------------------------------ names and types */

static const MsUserKernel *
load_error (const char *file, const char *kernel, GError **error)
{
  g_autofree char *path = data_file (file);
  g_autofree char *spec = kernel ? g_strconcat (path, ":", kernel, NULL) : g_strdup (path);
  return ms_user_kernel_load (spec, error);
}

/* --arg's message for a missing parameter: its type as the compiler has it */
static char *
missing_arg (const MsUserKernel *k)
{
  g_autoptr (GError) error = NULL;
  MsUserLaunch launch = { "1", "32", 0, NULL };
  g_assert_null (ms_user_problem_new (k, &launch, &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG);
  return g_strdup (error->message);
}

/* Kernels are found by their name as the source says it, mangled, or
 * without namespace and template arguments where that is unique; an
 * ambiguous name lists the candidates, an unknown one the file's kernels.
 * Parameter types come from the host build's DWARF (typedefs kept); nvcc's
 * flags reach the build. */
static void
test_names (void)
{
  g_autoptr (GError) error = NULL;
  const MsUserKernel *k = load_error ("names.cu", "lib::fill", &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ms_user_kernel_descriptor (k)->name, ==, "lib::fill");
  g_assert_nonnull (load_error ("names.cu", "fill", &error));   /* a unique base name */
  g_assert_no_error (error);
  g_autofree char *fill = missing_arg (k);
  g_assert_cmpstr (fill, ==, "lib::fill needs --arg out=TYPE[COUNT] (parameter 1: real * out)");
  const char *args[] = { "out=float[32]=0", "in=float[32]", "n=32", "s=0.5", "bogus=1", NULL };
  MsUserLaunch launch = { "1", "32", 0, args };
  g_assert_null (ms_user_problem_new (k, &launch, &error));
  g_assert_cmpstr (error->message, ==, "--arg bogus=1: lib::fill has no such parameter; its "
                                       "parameters: real * out, const real * in, "
                                       "unsigned long long n, double s");
  g_clear_error (&error);

  /* overloads: ambiguous by name, found mangled */
  g_assert_null (load_error ("names.cu", "over", &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL);
  g_assert_nonnull (strstr (error->message, "names 2 kernels"));
  g_assert_nonnull (strstr (error->message, "over (_Z4overPi)"));
  g_assert_nonnull (strstr (error->message, "over (_Z4overPf)"));
  g_clear_error (&error);
  g_assert_nonnull (load_error ("names.cu", "_Z4overPf", &error));
  g_assert_no_error (error);

  /* template instantiations: by name; the bare name is ambiguous */
  g_assert_nonnull (load_error ("names.cu", "rep<2>", &error));
  g_assert_no_error (error);
  g_assert_null (load_error ("names.cu", "rep", &error));
  g_assert_nonnull (strstr (error->message, "rep<1> (_Z3repILi1EEvPi)"));
  g_clear_error (&error);

  /* extern "C" */
  k = load_error ("names.cu", "plain", &error);
  g_assert_no_error (error);
  g_autofree char *plain = missing_arg (k);
  g_assert_cmpstr (plain, ==, "plain needs --arg s=TYPE[COUNT] (parameter 1: short * s)");

  /* refused: a struct by value, an unknown name, no name among several */
  g_assert_null (load_error ("names.cu", "byvalue", &error));
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "parameter q of byvalue is passed by value (Pair)"));
  g_clear_error (&error);
  g_assert_null (load_error ("names.cu", "nosuch", &error));
  g_assert_nonnull (strstr (error->message, "has no kernel 'nosuch'; its kernels: "));
  g_assert_nonnull (strstr (error->message, "lib::fill"));
  g_clear_error (&error);
  g_assert_null (load_error ("names.cu", NULL, &error));
  g_assert_nonnull (strstr (error->message, "has several kernels: name one"));
  g_clear_error (&error);

  /* nvcc's flags, as memsim run takes them */
  g_autofree char *defined = data_file ("defined.cu");
  g_autofree char *defined_spec = g_strconcat (defined, ":scaled", NULL);
  g_assert_null (ms_user_kernel_load (defined_spec, &error));
  g_assert_nonnull (strstr (error->message, "identifier \"SCALE\" is undefined"));
  g_clear_error (&error);
  const char *flags[] = { "-DSCALE=3", NULL };
  k = ms_user_kernel_load_with (defined_spec, flags, &error);
  g_assert_no_error (error);
  const char *out_arg[] = { "out=float[32]=0", NULL };
  MsUserLaunch one = { "1", "32", 0, out_arg };
  g_autoptr (MsProblem) p = ms_user_problem_new (k, &one, &error);
  g_assert_no_error (error);
  g_autoptr (MsStats) stats = NULL;
  g_assert_true (ms_problem_simulate (p, ms_arch_default (), 0, NULL, &stats, &error));
  g_assert_cmpfloat (((const float *) p->args.buf[0])[31], ==, 3.0f);

  /* nvcc's first error as file:line */
  g_assert_null (load_error ("bad.cu", "broken", &error));
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "bad.cu:6: error: identifier \"undeclared_name\" "
                                            "is undefined"));
}

/* The GPU build's unit: the user's text as read, under #line naming the
 * file, then one extern "C" entry per kernel, a template's instantiation
 * under an identifier's spelling of its name. */
static void
test_gpu_generate (void)
{
  const char *kernels[] = { "scale", "tile<32>", NULL };
  const char *text = "__global__ void scale (float *o) { o[0] = 1; }\n";
  g_autofree char *unit = ms_user_gpu_generate ("/src/my.cu", text, kernels);
  g_assert_true (g_str_has_prefix (unit, "#line 1 \"/src/my.cu\"\n__global__ void scale"));
  g_assert_nonnull (strstr (unit, "extern \"C\" void ms_user_gpu_entry_scale (const void *L) "
                                  "{ memsim_gpu_::launch (scale, L); }"));
  g_assert_nonnull (strstr (unit, "extern \"C\" void ms_user_gpu_entry_tile_32_ (const void *L) "
                                  "{ memsim_gpu_::launch (tile<32>, L); }"));
  g_assert_nonnull (strstr (unit, "ms_user_gpu_set_dynamic_shared"));
  /* the launch arguments' layout is asserted against this memsim's */
  g_autofree char *assert_size = g_strdup_printf ("sizeof (LaunchArgs) == %zu",
                                                  sizeof (MsLaunchArgs));
  g_assert_nonnull (strstr (unit, assert_size));
}

/* nvcc's messages (captured from nvcc 13.0) as one line: its front end's
 * "file(line): error", the host compiler's "file:line:col: error". */
static void
test_gpu_first_error (void)
{
  const char *front = "/tmp/k.cu(3): error: identifier \"x\" is undefined\n"
                      "    o[0] = x;\n           ^\n\n1 error detected in the compilation of "
                      "\"/tmp/k.cu\".\n";
  g_autofree char *a = ms_user_gpu_first_error (front, "fallback");
  g_assert_cmpstr (a, ==, "/tmp/k.cu:3: error: identifier \"x\" is undefined");
  const char *host = "In file included from x.cu:1:\n/tmp/h.h:7:12: error: 'y' was not "
                     "declared in this scope\n";
  g_autofree char *b = ms_user_gpu_first_error (host, "fallback");
  g_assert_cmpstr (b, ==, "/tmp/h.h:7: error: 'y' was not declared in this scope");
  g_autofree char *c = ms_user_gpu_first_error ("something else\n", "fallback");
  g_assert_cmpstr (c, ==, "fallback");
}

/* nvcc builds the same files (examples, a template's instantiation) into
 * shared objects with the entries, cached by content; a file nvcc rejects
 * gives its first error as file:line; no nvcc gives a one-line error. */
static void
test_gpu_build (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *nvcc = ms_user_nvcc (NULL);
  if (nvcc == NULL)
    {
      g_test_skip ("no nvcc on this machine");
      return;
    }
  struct { const char *file, *kernels[4]; } cases[] = {
    { "transpose.cu", { "transpose_naive", "transpose_shared", "transpose_padded", NULL } },
    { "template.cu", { "tile_transpose<32>", NULL } },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = data_file (cases[i].file);
      g_autofree char *text = NULL;
      g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
      gboolean cached = TRUE;
      g_autofree char *so = ms_user_gpu_build (path, text, cases[i].kernels, NULL, "key", 9, 0, &cached,
                                               &error);
      g_assert_no_error (error);
      g_assert_false (cached);
      g_autofree char *base = g_path_get_basename (so);
      g_assert_true (g_str_has_prefix (base, "gpu-sm90-"));
      /* the entries are there (loading needs no GPU) */
      GModule *m = g_module_open (so, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
      g_assert_nonnull (m);
      for (guint k = 0; cases[i].kernels[k]; k++)
        {
          g_autofree char *sym = ms_user_build_symbol ("ms_user_gpu_entry_", cases[i].kernels[k]);
          gpointer entry = NULL;
          g_assert_true (g_module_symbol (m, sym, &entry));
          g_assert_nonnull (entry);
        }
      gpointer set = NULL;
      g_assert_true (g_module_symbol (m, "ms_user_gpu_set_dynamic_shared", &set));
      g_module_close (m);
      g_autofree char *again = ms_user_gpu_build (path, text, cases[i].kernels, NULL, "key", 9, 0,
                                                  &cached, &error);
      g_assert_no_error (error);
      g_assert_true (cached);
      g_assert_cmpstr (again, ==, so);
      /* another CPU build (another header) or target: another build */
      g_autofree char *other = ms_user_gpu_build (path, text, cases[i].kernels, NULL, "key2", 9, 0,
                                                  &cached, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (other, !=, so);
    }
  /* a loaded kernel's problem gets the build as its GPU entry */
  g_autofree char *reduce = g_test_build_filename (G_TEST_DIST, "..", "examples", "reduce.cu",
                                                   NULL);
  g_autofree char *spec = g_strconcat (reduce, ":block_sum_shared", NULL);
  const MsUserKernel *k = ms_user_kernel_load (spec, &error);
  g_assert_no_error (error);
  const char *args[] = { "out=int[4]=0", "in=int[1024]", "n=1024", NULL };
  MsUserLaunch launch = { "4", "256", 1024, args };
  g_autoptr (MsProblem) p = ms_user_problem_new (k, &launch, &error);
  g_assert_no_error (error);
  g_assert_null (p->kernel->gpu_entry);
  g_assert_true (ms_user_kernel_build_gpu (p, 9, 0, &error));
  g_assert_no_error (error);
  g_assert_nonnull (p->kernel->gpu_entry);
  g_autofree char *file = g_build_filename (g_get_user_cache_dir (), "bad.cu", NULL);
  const char *kernels[] = { "k", NULL };
  g_autofree char *bad = ms_user_gpu_build (
    file, "__global__ void k (float *o)\n{\n  o[0] = x;\n}\n", kernels, NULL, "key", 9, 0, NULL,
    &error);
  g_assert_null (bad);
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER);
  g_autofree char *want = g_strdup_printf ("nvcc: %s:3: error: identifier \"x\" is undefined",
                                           file);
  g_assert_cmpstr (error->message, ==, want);
  g_clear_error (&error);
  /* the user's nvcc flags reach the GPU build too */
  g_autofree char *defined = data_file ("defined.cu");
  g_autofree char *defined_text = NULL;
  g_assert_true (g_file_get_contents (defined, &defined_text, NULL, NULL));
  const char *scaled[] = { "scaled", NULL }, *flags[] = { "-DSCALE=3", NULL };
  g_autofree char *with_flags = ms_user_gpu_build (defined, defined_text, scaled, flags, "key3",
                                                   9, 0, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (with_flags);
  g_setenv ("MEMSIM_NVCC", "memsim-no-such-nvcc", TRUE);
  g_assert_null (ms_user_gpu_build (file, "", kernels, NULL, "key", 9, 0, NULL, &error));
  g_unsetenv ("MEMSIM_NVCC");
  g_assert_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER);
  g_assert_cmpstr (error->message, ==, "MEMSIM_NVCC=memsim-no-such-nvcc not found: set it to "
                                       "nvcc's path");
}

/* What the generated entry hands to cudaLaunchKernel, without a GPU: the
 * user's text ends with a stand-in for cudaLaunchKernel (a macro, so the
 * helpers that follow call it), which records its arguments.  Pointer k
 * comes from L->buf[k], number i from L->i[i] or L->f[i], converted to the
 * parameter's type; grid, block and the dynamic shared memory as set. */
typedef struct {
  unsigned grid[3], block[3];
  size_t shared;
  void *a;
  int n;
  const void *b;
  float s;
  unsigned char c;
  int calls;
} MockLaunch;

static void
test_gpu_arguments (void)
{
  g_autofree char *nvcc = ms_user_nvcc (NULL);
  if (nvcc == NULL)
    {
      g_test_skip ("no nvcc on this machine");
      return;
    }
  const char *text =
    "__global__ void k (float *a, int n, const double *__restrict__ b, float s, "
    "unsigned char c) {}\n"
    "struct MockLaunch { unsigned grid[3], block[3]; size_t shared; void *a; int n;\n"
    "  const void *b; float s; unsigned char c; int calls; };\n"
    "extern \"C\" MockLaunch memsim_mock;\n"
    "MockLaunch memsim_mock;\n"
    "static cudaError_t mock_launch (const void *, dim3 g, dim3 b, void **args, size_t shm,\n"
    "                                cudaStream_t) {\n"
    "  memsim_mock = { { g.x, g.y, g.z }, { b.x, b.y, b.z }, shm, *(float **) args[0],\n"
    "                  *(int *) args[1], *(const double **) args[2], *(float *) args[3],\n"
    "                  *(unsigned char *) args[4], memsim_mock.calls + 1 };\n"
    "  return cudaSuccess;\n"
    "}\n"
    "#define cudaLaunchKernel mock_launch\n";
  const char *kernels[] = { "k", NULL };
  g_autofree char *file = g_build_filename (g_get_user_cache_dir (), "mock.cu", NULL);
  g_autoptr (GError) error = NULL;
  g_autofree char *so = ms_user_gpu_build (file, text, kernels, NULL, "mock", 9, 0, NULL, &error);
  g_assert_no_error (error);
  GModule *m = g_module_open (so, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  g_assert_nonnull (m);
  void (*entry) (const MsLaunchArgs *) = NULL;
  void (*set) (unsigned) = NULL;
  MockLaunch *mock = NULL;
  g_assert_true (g_module_symbol (m, "ms_user_gpu_entry_k", (gpointer *) &entry));
  g_assert_true (g_module_symbol (m, "ms_user_gpu_set_dynamic_shared", (gpointer *) &set));
  g_assert_true (g_module_symbol (m, "memsim_mock", (gpointer *) &mock));
  MsLaunchArgs L = { .grid = { 3, 2, 1 }, .block = { 32, 4, 1 } };
  L.buf[0] = (void *) 0x1000;   /* pointers in order: a, b */
  L.buf[1] = (void *) 0x2000;
  L.i[1] = 7;                   /* numbers by parameter index: n, s, c */
  L.f[3] = 2.5;
  L.i[4] = 200;
  set (4096);
  entry (&L);
  g_assert_cmpint (mock->calls, ==, 1);
  g_assert_cmpuint (mock->grid[0], ==, 3);
  g_assert_cmpuint (mock->grid[1], ==, 2);
  g_assert_cmpuint (mock->grid[2], ==, 1);
  g_assert_cmpuint (mock->block[0], ==, 32);
  g_assert_cmpuint (mock->block[1], ==, 4);
  g_assert_cmpuint (mock->shared, ==, 4096);
  g_assert_true (mock->a == (void *) 0x1000);
  g_assert_cmpint (mock->n, ==, 7);
  g_assert_true (mock->b == (void *) 0x2000);
  g_assert_cmpfloat (mock->s, ==, 2.5f);
  g_assert_cmpuint (mock->c, ==, 200);
  g_module_close (m);
}

static void
skip_without_nvcc (void)
{
  g_test_skip ("no nvcc on this machine: memsim builds users' kernels with it");
}

int
main (int argc, char **argv)
{
  /* builds go to a cache of this test run, not the user's */
  g_autofree char *cache = g_dir_make_tmp ("memsim-test-user-XXXXXX", NULL);
  g_setenv ("XDG_CACHE_HOME", cache, TRUE);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/user/gpu/generated-unit", test_gpu_generate);
  g_test_add_func ("/user/gpu/first-error", test_gpu_first_error);
  g_test_add_func ("/user/gpu/nvcc-build", test_gpu_build);
  g_test_add_func ("/user/gpu/launch-arguments", test_gpu_arguments);
  g_autofree char *cxx = ms_user_nvcc (NULL);   /* the build of users' kernels */
  if (cxx == NULL)
    g_test_add_func ("/user/compiled", skip_without_nvcc);
  static const char *const transposes[] = { "transpose_naive", "transpose_shared",
                                            "transpose_padded" };
  static const char *const reduces[] = { "reduce_sequential", "reduce_unroll_last",
                                         "reduce_shfl" };
  for (guint i = 0; cxx && i < G_N_ELEMENTS (transposes); i++)
    {
      g_autofree char *path = g_strconcat ("/user/same-as-builtin/", transposes[i], NULL);
      g_test_add_data_func (path, transposes[i], test_transpose);
    }
  for (guint i = 0; cxx && i < G_N_ELEMENTS (reduces); i++)
    {
      g_autofree char *path = g_strconcat ("/user/same-as-builtin/", reduces[i], NULL);
      g_test_add_data_func (path, reduces[i], test_reduce);
    }
  if (cxx)
    {
      g_test_add_func ("/user/same-as-builtin/test_atomics", test_atomics);
      g_test_add_func ("/user/names-and-types", test_names);
      g_test_add_func ("/user/template-instantiation", test_template);
      g_test_add_func ("/user/hand-derived/strided", test_strided);
      g_test_add_func ("/user/hand-derived/float4-and-struct", test_wide_and_struct);
    }
  int status = g_test_run ();
  g_autofree char *rm = g_strdup_printf ("rm -rf '%s'", cache);
  if (system (rm) != 0)
    g_printerr ("cannot remove %s\n", cache);
  return status;
}
