/* test-ptx.c - device code as nvcc compiled it (sim/ptx): the PTX reader on
 * good and bad text, and kernels of tests/data/ptx/kernels.cu, compiled by
 * nvcc at test time, run by the engine: their results and their counts,
 * derived by hand (each test says how).  Skips without nvcc.
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "model.h"
#include "problem.h"
#include "ptx-program.h"
#include "ptx.h"
#include "ptx-translate.h"

static MsPtxProgram *program;
static char *tmp;

static char *
nvcc_path (void)
{
#ifdef MS_NVCC_PATH
  if (g_file_test (MS_NVCC_PATH, G_FILE_TEST_IS_EXECUTABLE))
    return g_strdup (MS_NVCC_PATH);
#endif
  return g_find_program_in_path ("nvcc");
}

static MsPtxProgram *
load (void)
{
  if (program != NULL)
    return program;
  g_autofree char *nvcc = nvcc_path ();
  if (nvcc == NULL)
    return NULL;
  tmp = g_dir_make_tmp ("memsim-ptx-XXXXXX", NULL);
  g_autofree char *src = g_test_build_filename (G_TEST_DIST, "data", "ptx", "kernels.cu", NULL);
  g_autofree char *ptx = g_build_filename (tmp, "kernels.ptx", NULL);
  const char *argv[] = { nvcc, "-ptx", "-O3", "-lineinfo", "-arch=compute_90", src, "-o", ptx,
                         NULL };
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               NULL, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  const char *files[] = { ptx, NULL };
  program = ms_ptx_program_load (files, &error);
  g_assert_no_error (error);
  return program;
}

/* A launch of kernel `name` (a mangled C++ name) with buffers and the
 * parameter block; the stats of the models. */
typedef struct {
  MsProblem *p;
  MsStats *stats;
} Run;

static void
run (const char *name, unsigned grid, unsigned block, void **bufs, gsize *bytes, guint nbufs,
     const void *params, Run *r)
{
  const MsPtxKernel *k = ms_ptx_program_kernel (program, name);
  g_assert_nonnull (k);
  MsProblem *p = ms_problem_new (k->kernel);
  p->args.grid[0] = grid;
  p->args.grid[1] = p->args.grid[2] = 1;
  p->args.block[0] = block;
  p->args.block[1] = p->args.block[2] = 1;
  p->args.params = params;
  p->n_buffers = nbufs;
  for (guint b = 0; b < nbufs; b++)
    {
      p->args.buf[b] = bufs[b];
      p->buffer_bytes[b] = bytes[b];
      p->buffer_names[b] = "buffer";
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (MsArch) arch = ms_models_arch_lookup ("h100", &error);
  g_assert_no_error (error);
  gboolean ok = ms_problem_simulate (p, arch, 1, NULL, &r->stats, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  p->n_buffers = 0;   /* the test's memory */
  r->p = p;
}

static void
run_clear (Run *r)
{
  ms_problem_free (r->p);
  ms_stats_free (r->stats);
}

/* Instructions (key NULL) or a counter of the sites of a space and op. */
static guint64
count (const MsStats *s, MsSpace space, MsOp op, const char *key)
{
  const MsCounterDef *d = key ? ms_counter_find (space, key) : NULL;
  guint64 n = 0;
  for (guint i = 0; i < s->sites->len; i++)
    {
      const MsSiteStats *x = &g_array_index (s->sites, MsSiteStats, i);
      if (x->space == space && (x->op == op || (MS_OP_IS_ATOMIC (op) && MS_OP_IS_ATOMIC (x->op))))
        n += d ? x->c.v[d->slot] : x->c.executions;
    }
  return n;
}

#define SKIP_WITHOUT_NVCC()                                   \
  do {                                                        \
    if (load () == NULL)                                      \
      {                                                       \
        g_test_skip ("nvcc not found");                       \
        return;                                               \
      }                                                       \
  } while (0)

static void *
device (gsize bytes)
{
  return g_aligned_alloc0 (1, bytes, 256);
}

/* vadd, n = 1000, 4 blocks of 256: 32 warps each load a and b and store c
 * (the last warp has 8 lanes: 1000 - 992); sectors: 31 full warps read 4
 * sectors of each array, the last 1 (32 bytes at 3968, a multiple of 32). */
static void
test_vadd (void)
{
  SKIP_WITHOUT_NVCC ();
  int n = 1000;
  float *a = device (4096), *b = device (4096), *c = device (4096);
  for (int i = 0; i < 1024; i++)
    {
      a[i] = (float) i;
      b[i] = 0.5f * (float) i;
      c[i] = -1;
    }
  struct { float *a, *b, *c; int n; } params = { a, b, c, n };
  void *bufs[] = { a, b, c };
  gsize bytes[] = { 4096, 4096, 4096 };
  Run r;
  run ("_Z4vaddPKfS0_Pfi", 4, 256, bufs, bytes, 3, &params, &r);
  for (int i = 0; i < 1024; i++)
    g_assert_cmpfloat (c[i], ==, i < n ? 1.5f * (float) i : -1.0f);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, NULL), ==, 64);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, "sectors"), ==, 31 * 8 + 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, NULL), ==, 32);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, "sectors"), ==, 31 * 4 + 1);
  run_clear (&r);
  g_free (a);
  g_free (b);
  g_free (c);
}

/* column, width 64, one warp: each lane's load is 256 bytes from the
 * next (32 sectors); the store is a row (4 sectors). */
static void
test_column (void)
{
  SKIP_WITHOUT_NVCC ();
  float *in = device (32 * 64 * 4), *out = device (128);
  for (int i = 0; i < 32 * 64; i++)
    in[i] = (float) i;
  struct { float *in, *out; int width; } params = { in, out, 64 };
  void *bufs[] = { in, out };
  gsize bytes[] = { 32 * 64 * 4, 128 };
  Run r;
  run ("_Z6columnPKfPfi", 1, 32, bufs, bytes, 2, &params, &r);
  for (int i = 0; i < 32; i++)
    g_assert_cmpfloat (out[i], ==, (float) (i * 64));
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, "sectors"), ==, 32);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, "sectors"), ==, 4);
  run_clear (&r);
  g_free (in);
  g_free (out);
}

/* reduce_shared, 2 blocks of 256: per block 8 warps store s[t]; steps
 * k = 128, 64, 32 have 4, 2, 1 warps with lanes t < k, k = 16 .. 1 one
 * warp each: 12 warp-steps of 2 loads and a store; then thread 0 loads
 * s[0].  Per block 25 loads, 20 stores, all conflict-free (1 wavefront). */
static void
test_reduce_shared (void)
{
  SKIP_WITHOUT_NVCC ();
  int *in = device (512 * 4), *out = device (256);
  for (int i = 0; i < 512; i++)
    in[i] = i;
  struct { int *in, *out; } params = { in, out };
  void *bufs[] = { in, out };
  gsize bytes[] = { 512 * 4, 256 };
  Run r;
  run ("_Z13reduce_sharedPKiPi", 2, 256, bufs, bytes, 2, &params, &r);
  g_assert_cmpint (out[0], ==, 255 * 256 / 2);
  g_assert_cmpint (out[1], ==, (256 + 511) * 256 / 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, NULL), ==, 50);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ST, NULL), ==, 40);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, "wavefronts"), ==, 50);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, NULL), ==, 16);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, NULL), ==, 2);
  run_clear (&r);
  g_free (in);
  g_free (out);
}

/* shfl_sum, 2 warps: the shuffles sum each warp's 32 values into lane 0,
 * which adds them to *out: one atomic instruction a warp. */
static void
test_shfl_sum (void)
{
  SKIP_WITHOUT_NVCC ();
  int *in = device (256), *out = device (256);
  for (int i = 0; i < 64; i++)
    in[i] = i + 1;
  struct { int *in, *out; } params = { in, out };
  void *bufs[] = { in, out };
  gsize bytes[] = { 256, 256 };
  Run r;
  run ("_Z8shfl_sumPKiPi", 1, 64, bufs, bytes, 2, &params, &r);
  g_assert_cmpint (out[0], ==, 64 * 65 / 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ATOMIC, NULL), ==, 2);
  run_clear (&r);
  g_free (in);
  g_free (out);
}

/* bank_column, one warp: tile[t][0] is one word every 32 (one bank): its
 * store and its load 32 wavefronts each; row[t]'s store and load 1 each. */
static void
test_bank_column (void)
{
  SKIP_WITHOUT_NVCC ();
  float *out = device (128);
  struct { float *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 128 };
  Run r;
  run ("_Z11bank_columnPf", 1, 32, bufs, bytes, 1, &params, &r);
  for (int i = 0; i < 32; i++)
    g_assert_cmpfloat (out[i], ==, 3.0f * (float) i);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ST, "wavefronts"), ==, 33);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, "wavefronts"), ==, 33);
  run_clear (&r);
  g_free (out);
}

/* loop_join, one block of 2 warps, 8 iterations (nvcc unrolls the loop
 * by 4: its body runs twice): each warp loads a row once an iteration (16
 * loads of 4 sectors); lane 0 stores its running sum (8 stores).  Warp
 * 0's other 31 lanes skip the store and must wait for lane 0 where the
 * branch's paths meet (its immediate post-dominator): run ahead round the
 * loop, they would load the next row without it and one load be two. */
static void
test_loop_join (void)
{
  SKIP_WITHOUT_NVCC ();
  float *a = device (8 * 64 * 4), *c = device (64);
  for (int i = 0; i < 8 * 64; i++)
    a[i] = (float) i;
  struct { float *a, *c; int n; } params = { a, c, 8 };
  void *bufs[] = { a, c };
  gsize bytes[] = { 8 * 64 * 4, 64 };
  Run r;
  run ("_Z9loop_joinPKfPfi", 1, 64, bufs, bytes, 2, &params, &r);
  for (int v = 0; v < 8; v++)
    g_assert_cmpfloat (c[v], ==, (float) (64 * v * (v + 1) / 2));
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, NULL), ==, 16);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, "sectors"), ==, 64);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, NULL), ==, 8);
  run_clear (&r);
  g_free (a);
  g_free (c);
}

/* counters, 2 warps: c[0] += 1 and c[8] = inc (c[8], 1000) by 64 threads.
 * Where ptxas's SASS is at hand, the add is aggregated (one lane's RED a
 * warp: 1 sector) and the inc is not (32 lanes on one address: 32
 * passes, 32 sectors a warp, as the H200 measured simpleAtomicIntrinsics):
 * 2 + 64 sectors. */
static void
test_counters (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *c = device (64);
  struct { unsigned *c; } params = { c };
  void *bufs[] = { c };
  gsize bytes[] = { 64 };
  Run r;
  run ("_Z8countersPj", 1, 64, bufs, bytes, 1, &params, &r);
  g_assert_cmpuint (c[0], ==, 64);
  g_assert_cmpuint (c[8], ==, 64);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_RED, NULL), ==, 4);
  if (ms_ptx_program_kernel (program, "_Z8countersPj")->kernel->sass != NULL)
    g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_RED, "sectors"), ==, 2 + 64);
  else
    g_test_message ("no SASS (nvdisasm): the aggregation is not known");
  run_clear (&r);
  g_free (c);
}

/* bits: __ffs, __clz, __popc, __brev against their definitions, on 0,
 * 1, the top bit, all bits and others (CUDA's __ffs(0) is 0). */
static void
test_bits (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *in = device (128), *out = device (512);
  for (unsigned k = 0; k < 32; k++)
    in[k] = k == 0 ? 0 : k == 1 ? 0x80000000u : k == 2 ? ~0u : (k * 2654435761u) >> (k % 7);
  struct { unsigned *in, *out; } params = { in, out };
  void *bufs[] = { in, out };
  gsize bytes[] = { 128, 512 };
  Run r;
  run ("_Z4bitsPKjPj", 1, 32, bufs, bytes, 2, &params, &r);
  for (unsigned k = 0; k < 32; k++)
    {
      unsigned x = in[k], rev = 0;
      for (int b = 0; b < 32; b++)
        rev |= (x >> b & 1u) << (31 - b);
      g_assert_cmpuint (out[4 * k], ==, x ? (unsigned) __builtin_ctz (x) + 1 : 0);
      g_assert_cmpuint (out[4 * k + 1], ==, x ? (unsigned) __builtin_clz (x) : 32);
      g_assert_cmpuint (out[4 * k + 2], ==, (unsigned) __builtin_popcount (x));
      g_assert_cmpuint (out[4 * k + 3], ==, rev);
    }
  run_clear (&r);
  g_free (in);
  g_free (out);
}

/* vabsdiff4.u32.u32.u32.add d, a, b, 7: lane 0 has bytes (low first) a
 * 0x10 0x00 0xff 0x01, b 0x20 0x0f 0x00 0x02: 16 + 15 + 255 + 1 + 7 = 294;
 * lane k > 0 has every byte of a k and of b 16: 4 |k - 16| + 7. */
static void
test_absdiff4 (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *a = device (128), *b = device (128), *out = device (128);
  a[0] = 0x01ff0010u;
  b[0] = 0x02000f20u;
  for (unsigned k = 1; k < 32; k++)
    {
      a[k] = k * 0x01010101u;
      b[k] = 0x10101010u;
    }
  struct { unsigned *a, *b, *out; } params = { a, b, out };
  void *bufs[] = { a, b, out };
  gsize bytes[] = { 128, 128, 128 };
  Run r;
  run ("_Z8absdiff4PKjS0_Pj", 1, 32, bufs, bytes, 3, &params, &r);
  g_assert_cmpuint (out[0], ==, 294);
  for (unsigned k = 1; k < 32; k++)
    g_assert_cmpuint (out[k], ==, 4 * (k > 16 ? k - 16 : 16 - k) + 7);
  run_clear (&r);
  g_free (a);
  g_free (b);
  g_free (out);
}

/* The reader: bad text is a one-line error with the file and line. */
static void
test_read_errors (void)
{
  const char *bad[] = {
    ".version 9.0\n.target sm_90\n.visible .entry k(\n",
    ".visible .entry k()\n{\n\t.reg .b32 %r<2>;\n\tadd.s32 %r0, %r9, 1;\n}\n",
    ".visible .entry k()\n{\n\tld.global.u32 %r1, [;\n}\n",
    ".global .align 4 .b8 x[4] = {1, 2, 3, 4, 5};\n",
    "garbage",
  };
  for (gsize k = 0; k < G_N_ELEMENTS (bad); k++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MsPtxModule) m = ms_ptx_read ("bad.ptx", bad[k], strlen (bad[k]), &error);
      if (m == NULL)
        {
          g_assert_error (error, MS_PTX_ERROR, MS_PTX_ERROR_SYNTAX);
          g_assert_true (g_str_has_prefix (error->message, "bad.ptx:"));
          g_assert_null (strchr (error->message, '\n'));
        }
    }
  /* an empty initialiser is zeros (fuzz-ptx: a copy from no data) */
  const char *empty = ".global .align 4 .b8 z[8] = {};\n";
  g_autoptr (GError) ee = NULL;
  g_autoptr (MsPtxModule) em = ms_ptx_read ("e.ptx", empty, strlen (empty), &ee);
  g_assert_no_error (ee);
  const MsPtxVar *z = &g_array_index (em->vars, MsPtxVar, 0);
  g_assert_cmpuint (z->size, ==, 8);
  for (guint k = 0; k < 8; k++)
    g_assert_cmpuint (z->init[k], ==, 0);

  /* an instruction without its operands is an unsupported instruction of
   * the kernel, not a crash (fuzz-ptx's findings) */
  const char *short_ops[] = { "mov.u32 %r1;", "ld.global.u32 %r1;", "setp.eq.u32 %p1, 1;",
                              "bra;", "testp.f32 %p1, %r1;" };
  for (gsize k = 0; k < G_N_ELEMENTS (short_ops); k++)
    {
      g_autofree char *text = g_strdup_printf (".visible .entry k()\n{\n.reg .b32 %%r<2>;\n"
                                               ".reg .pred %%p<2>;\n%s\nret;\n}\n",
                                               short_ops[k]);
      g_autoptr (GError) e = NULL;
      g_autoptr (MsPtxModule) sm = ms_ptx_read ("short.ptx", text, strlen (text), &e);
      g_assert_no_error (e);
      g_autoptr (GString) c = g_string_new (NULL);
      g_assert_true (ms_ptx_translate (sm, 0, c, NULL));
      g_assert_nonnull (strstr (c->str, "memsim cannot run the PTX instruction"));
    }

  /* registers of a nested scope are registers of their own */
  const char *scoped = ".visible .entry k()\n{\n.reg .pred %p<2>;\n{\n.reg .pred %p1;\n"
                       "setp.eq.u32 %p1, 1, 1;\n}\nsetp.eq.u32 %p1, 1, 1;\nret;\n}\n";
  g_autoptr (GError) error = NULL;
  g_autoptr (MsPtxModule) m = ms_ptx_read ("s.ptx", scoped, strlen (scoped), &error);
  g_assert_no_error (error);
  MsPtxFunc *f = g_ptr_array_index (m->funcs, 0);
  g_assert_cmpuint (f->regs->len, ==, 3);
  MsPtxInsn *a = &g_array_index (f->insns, MsPtxInsn, 0), *b = &g_array_index (f->insns, MsPtxInsn, 1);
  g_assert_cmpint (a->opd[0].reg, !=, b->opd[0].reg);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ptx/read-errors", test_read_errors);
  g_test_add_func ("/ptx/vadd", test_vadd);
  g_test_add_func ("/ptx/column", test_column);
  g_test_add_func ("/ptx/reduce-shared", test_reduce_shared);
  g_test_add_func ("/ptx/shfl-sum", test_shfl_sum);
  g_test_add_func ("/ptx/bank-column", test_bank_column);
  g_test_add_func ("/ptx/bits", test_bits);
  g_test_add_func ("/ptx/loop-join", test_loop_join);
  g_test_add_func ("/ptx/counters", test_counters);
  g_test_add_func ("/ptx/absdiff4", test_absdiff4);
  int status = g_test_run ();
  if (tmp != NULL)
    {
      g_autofree char *ptx = g_build_filename (tmp, "kernels.ptx", NULL);
      g_unlink (ptx);
      g_rmdir (tmp);
    }
  return status;
}
