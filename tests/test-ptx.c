/* test-ptx.c - device code as nvcc compiled it (sim/ptx): the PTX reader on
 * good and bad text, and kernels of tests/data/ptx/kernels.cu, compiled by
 * nvcc at test time, run by the engine: their results and their counts,
 * derived by hand (each test says how).  Skips without nvcc.
 */
#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "emulator.h"
#include "model.h"
#include "problem.h"
#include "ptx-lane-temps.h"
#include "ptx-program.h"
#include "ptx.h"
#include "ptx-translate.h"
#include "ptx-warp.h"

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

static gboolean
run_in (MsPtxProgram *prog, const char *name, unsigned grid, unsigned block, void **bufs,
        gsize *bytes, guint nbufs, const void *params, Run *r, GError **error)
{
  const MsPtxKernel *k = ms_ptx_program_kernel (prog, name);
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
  g_autoptr (MsArch) arch = ms_models_arch_lookup ("h100", NULL);
  g_assert_nonnull (arch);
  r->stats = NULL;
  gboolean ok = ms_problem_simulate (p, arch, 1, NULL, &r->stats, error);
  p->n_buffers = 0;   /* the test's memory */
  r->p = p;
  return ok;
}

static void
run (const char *name, unsigned grid, unsigned block, void **bufs, gsize *bytes, guint nbufs,
     const void *params, Run *r)
{
  g_autoptr (GError) error = NULL;
  gboolean ok = run_in (program, name, grid, block, bufs, bytes, nbufs, params, r, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
}

/* run () of a kernel whose parameters are two buffers, a and b. */
static void
run_two (const char *name, unsigned grid, unsigned block, void *a, gsize a_bytes, void *b,
         gsize b_bytes, Run *r)
{
  struct { void *a, *b; } params = { a, b };
  void *bufs[] = { a, b };
  gsize bytes[] = { a_bytes, b_bytes };
  run (name, grid, block, bufs, bytes, 2, &params, r);
}

static void
run_clear (Run *r)
{
  ms_problem_free (r->p);
  if (r->stats != NULL)
    ms_stats_free (r->stats);
}

/* Instructions (key NULL) or a counter of the sites of a space and op;
 * ATOM and RED apart, or (apart FALSE) together. */
static guint64
count_ops (const MsStats *s, MsSpace space, MsOp op, gboolean apart, const char *key)
{
  const MsCounterDef *d = key ? ms_counter_find (space, key) : NULL;
  guint64 n = 0;
  for (guint i = 0; i < s->sites->len; i++)
    {
      const MsSiteStats *x = &g_array_index (s->sites, MsSiteStats, i);
      if (x->space == space
          && (x->op == op || (!apart && MS_OP_IS_ATOMIC (op) && MS_OP_IS_ATOMIC (x->op))))
        n += d ? x->c.v[d->slot] : x->c.executions;
    }
  return n;
}

static guint64
count (const MsStats *s, MsSpace space, MsOp op, const char *key)
{
  return count_ops (s, space, op, FALSE, key);
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

/* reductions, one warp: atomicMax (&c[t % 4], t) inside bucket_max, whose
 * result nothing reads (the PTX's atom.global.max's register is never
 * read: ptxas's REDG.E.MAX, which its line table marks with the caller's
 * line, not the atomic's); old[t] = atomicAdd (&c[4 + t % 2], 1),
 * whose result is stored, and atomicExch (&c[8 + t % 2], t), whose result
 * is not but which has no RED form (both ATOMG).  One RED: 8 lanes on each
 * of c[0..3], one 32-byte sector, served one lane per address a pass: 8
 * passes of 1 sector.  Two ATOM: 16 lanes on each of c[4], c[5], then of
 * c[8], c[9]: 16 passes of 1 sector each.  (The class was taken from the
 * SASS's line marks before: the max an ATOM too.) */
static void
test_reductions (void)
{
  SKIP_WITHOUT_NVCC ();
  int *c = device (64), *old = device (128);
  Run r;
  run_two ("_Z10reductionsPiS_", 1, 32, c, 64, old, 128, &r);
  for (int k = 0; k < 4; k++)
    g_assert_cmpint (c[k], ==, 28 + k);
  g_assert_cmpint (c[4], ==, 16);
  g_assert_cmpint (c[5], ==, 16);
  guint seen = 0;
  for (int t = 0; t < 32; t++)
    seen |= 1u << (old[t] + 16 * (t % 2));
  g_assert_cmpuint (seen, ==, 0xffffffffu);
  g_assert_cmpint (c[8] % 2, ==, 0);
  g_assert_cmpint (c[9] % 2, ==, 1);
  const MsStats *st = r.stats;
  g_assert_cmpuint (count_ops (st, MS_SPACE_GLOBAL, MS_OP_RED, TRUE, NULL), ==, 1);
  g_assert_cmpuint (count_ops (st, MS_SPACE_GLOBAL, MS_OP_RED, TRUE, "sectors"), ==, 8);
  g_assert_cmpuint (count_ops (st, MS_SPACE_GLOBAL, MS_OP_ATOMIC, TRUE, NULL), ==, 2);
  g_assert_cmpuint (count_ops (st, MS_SPACE_GLOBAL, MS_OP_ATOMIC, TRUE, "sectors"), ==, 32);
  run_clear (&r);
  g_free (c);
  g_free (old);
}

/* symbol_pair, 2 warps: s[t] = in[t] (one STS a warp), then thread 0's
 * pair_load: ld.shared [s+4] and [s] in the PTX (addresses from the
 * symbol), which ptxas fused into one LDS.64 of s[0..1] marked with the
 * chain pair_load's line, pair_sum's (the PTX's site: the call one level
 * up), symbol_pair's.  Where the SASS is at hand: 1 shared load
 * instruction, 1 wavefront (8 bytes of one lane), as the LDS.64; else 2
 * (source-level). */
static void
test_symbol_pair (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *in = device (256), *out = device (4);
  in[0] = 7;
  in[1] = 11;
  Run r;
  run_two ("_Z11symbol_pairPKjPj", 1, 64, in, 256, out, 4, &r);
  g_assert_cmpuint (out[0], ==, 18);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ST, NULL), ==, 2);
  gboolean sass = ms_ptx_program_kernel (program, "_Z11symbol_pairPKjPj")->kernel->sass != NULL;
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, NULL), ==, sass ? 1 : 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, "wavefronts"), ==, sass ? 1 : 2);
  if (!sass)
    g_test_message ("no SASS (nvdisasm): the fusion is not known");
  run_clear (&r);
  g_free (in);
  g_free (out);
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

/* min and max of floats and doubles as the PTX ISA has them: a NaN
 * operand gives the other operand, two NaNs a NaN; the .NaN forms a NaN
 * when either is one.  Pairs: ordered values, each with a NaN, NaN with
 * NaN, infinities. */
static void
test_min_max (void)
{
  SKIP_WITHOUT_NVCC ();
  float *a = device (128), *b = device (128), *f = device (512);
  double *c = device (256), *d = device (256), *g = device (512);
  const float v[8] = { 1.5f, -2.0f, NAN, 3.0f, NAN, INFINITY, -INFINITY, 0.25f };
  for (unsigned k = 0; k < 32; k++)
    {
      a[k] = v[k % 8];
      b[k] = v[(k / 8 + k) % 8];
      c[k] = a[k];
      d[k] = b[k];
    }
  struct { float *a, *b; double *c, *d; float *f; double *g; } params = { a, b, c, d, f, g };
  void *bufs[] = { a, b, c, d, f, g };
  gsize bytes[] = { 128, 128, 256, 256, 512, 512 };
  Run r;
  run ("_Z7min_maxPKfS0_PKdS2_PfPd", 1, 32, bufs, bytes, 6, &params, &r);
  for (unsigned k = 0; k < 32; k++)
    {
      float x = a[k], y = b[k];
      gboolean xn = x != x, yn = y != y;
      float hi = xn ? y : yn ? x : x > y ? x : y, lo = xn ? y : yn ? x : x < y ? x : y;
      if (xn && yn)
        {
          g_assert_true (f[4 * k] != f[4 * k] && f[4 * k + 1] != f[4 * k + 1]);
          g_assert_true (g[2 * k] != g[2 * k] && g[2 * k + 1] != g[2 * k + 1]);
        }
      else
        {
          g_assert_cmpfloat (f[4 * k], ==, hi);
          g_assert_cmpfloat (f[4 * k + 1], ==, lo);
          g_assert_cmpfloat (g[2 * k], ==, (double) hi);
          g_assert_cmpfloat (g[2 * k + 1], ==, (double) lo);
        }
      if (xn || yn)
        g_assert_true (f[4 * k + 2] != f[4 * k + 2] && f[4 * k + 3] != f[4 * k + 3]);
      else
        {
          g_assert_cmpfloat (f[4 * k + 2], ==, hi);
          g_assert_cmpfloat (f[4 * k + 3], ==, lo);
        }
    }
  run_clear (&r);
  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
  g_free (f);
  g_free (g);
}

/* The mask of bits [from, to) (to <= 32). */
static unsigned
bits_between (unsigned from, unsigned to)
{
  unsigned m = 0;
  for (unsigned k = from; k < to; k++)
    m |= 1u << k;
  return m;
}

/* bmsk: a mask of b bits from bit a, cut at bit 31; .clamp: none from a
 * bit of 32 or more, a width of 32 or more all the rest; .wrap: a and b
 * mod 32 (the PTX ISA's description, written out bit by bit). */
static void
test_bitmask (void)
{
  SKIP_WITHOUT_NVCC ();
  static const unsigned pairs[][2] = { { 0, 0 }, { 1, 2 }, { 0, 32 }, { 0, 31 }, { 5, 0 },
                                       { 31, 1 }, { 31, 2 }, { 30, 5 }, { 32, 1 }, { 33, 4 },
                                       { 4, 33 }, { 40, 40 }, { 16, 16 }, { 7, 9 }, { 0, 1 },
                                       { 63, 63 } };
  guint n = G_N_ELEMENTS (pairs);
  unsigned *a = device (128), *b = device (128), *out = device (256);
  for (guint k = 0; k < 32; k++)
    {
      a[k] = pairs[k % n][0];
      b[k] = pairs[k % n][1];
    }
  struct { unsigned *a, *b, *out; } params = { a, b, out };
  void *bufs[] = { a, b, out };
  gsize bytes[] = { 128, 128, 256 };
  Run r;
  run ("_Z7bitmaskPKjS0_Pj", 1, 32, bufs, bytes, 3, &params, &r);
  for (guint k = 0; k < 32; k++)
    {
      unsigned clamp = a[k] >= 32 || b[k] == 0 ? 0 : bits_between (a[k], MIN (a[k] + b[k], 32));
      unsigned wa = a[k] % 32, wb = b[k] % 32;
      unsigned wrap = wb == 0 ? 0 : bits_between (wa, MIN (wa + wb, 32));
      g_assert_cmphex (out[2 * k], ==, clamp);
      g_assert_cmphex (out[2 * k + 1], ==, wrap);
    }
  g_assert_cmphex (out[3], ==, 6);   /* the ISA's example: bmsk.wrap 1, 2 */
  run_clear (&r);
  g_free (a);
  g_free (b);
  g_free (out);
}

/* Division and remainder by run-time divisors (the translator shifts and
 * masks for powers of two, divides otherwise), by warpSize, and a shuffle
 * of constant arguments run in place with its predicate: against the
 * host's arithmetic, over 64 threads (two whole warps). */
static void
test_divide (void)
{
  SKIP_WITHOUT_NVCC ();
  static const unsigned divisors[] = { 1, 2, 3, 4, 5, 7, 8, 16, 1000, 1024, 65536, 0x80000000u,
                                       0xffffffffu, 6, 64, 12345 };
  unsigned *a = device (256), *b = device (256), *out = device (1024);
  unsigned long long *out64 = device (1024);
  for (unsigned t = 0; t < 64; t++)
    {
      a[t] = t * 2654435761u;
      b[t] = divisors[t % G_N_ELEMENTS (divisors)];
    }
  struct { unsigned *a, *b, *out; unsigned long long *out64; } params = { a, b, out, out64 };
  void *bufs[] = { a, b, out, out64 };
  gsize bytes[] = { 256, 256, 1024, 1024 };
  Run r;
  run ("_Z6dividePKjS0_PjPy", 1, 64, bufs, bytes, 4, &params, &r);
  for (unsigned t = 0; t < 64; t++)
    {
      unsigned x = a[t], y = b[t], lane = t % 32;
      g_assert_cmpuint (out[4 * t], ==, x / y);
      g_assert_cmpuint (out[4 * t + 1], ==, (x ^ 0x5a5a5a5au) % y);
      g_assert_cmpuint (out[4 * t + 2], ==, t / 32 + t % 32);
      gboolean valid = lane + 5 < 32;
      g_assert_cmphex (out[4 * t + 3], ==, (valid ? a[t + 5] : x) + ((unsigned) valid << 31));
      guint64 X = (guint64) x << 20 | t, Y = y;
      g_assert_cmpuint (out64[2 * t], ==, X / Y);
      g_assert_cmpuint (out64[2 * t + 1], ==, X % Y);
    }
  run_clear (&r);
  g_free (a);
  g_free (b);
  g_free (out);
  g_free (out64);
}

/* Load rounds and barriers (instructions.h, the time model's inputs):
 * chase's two independent loads are one round, the load whose address
 * comes from one of them a second; two warps, so 4 rounds and 2 barriers.
 * Its output proves the loads ran as written. */
static void
test_load_rounds (void)
{
  SKIP_WITHOUT_NVCC ();
  int *idx = device (256), *val = device (256), *out = device (256);
  for (int t = 0; t < 64; t++)
    {
      idx[t] = 63 - t;
      val[t] = 1000 + t;
    }
  struct { int *idx, *val, *out; } params = { idx, val, out };
  void *bufs[] = { idx, val, out };
  gsize bytes[] = { 256, 256, 256 };
  Run r;
  run ("_Z5chasePKiS0_Pi", 1, 64, bufs, bytes, 3, &params, &r);
  for (int t = 0; t < 64; t++)
    g_assert_cmpint (out[t], ==, 1000 + t + 1000 + 63 - t);
  g_assert_cmpuint (r.stats->load_rounds, ==, 4);
  g_assert_cmpuint (r.stats->barriers, ==, 2);
  run_clear (&r);
  g_free (idx);
  g_free (val);
  g_free (out);
}

/* The dependence path (ptx-translate.c, dependent_cycles), worked out by
 * hand for this PTX at the H200's latencies: the conversion's result is
 * ready at 12, the square root's at 12 + 56 = 68, the add's at 72; the sine
 * (12 + 23 = 35) runs beside them, and the multiply that needs both ends
 * at 76, longer than the 10 instructions' issue.  Two warps: 152. */
static const char chain_ptx[] =
  ".version 8.0\n.target sm_90\n.address_size 64\n"
  ".visible .entry chain(\n  .param .u64 chain_param_0\n)\n{\n"
  "  .reg .b32 %r<2>;\n  .reg .f32 %f<6>;\n  .reg .b64 %rd<3>;\n"
  "  ld.param.u64 %rd1, [chain_param_0];\n"
  "  mov.u32 %r1, %tid.x;\n"
  "  cvt.rn.f32.u32 %f1, %r1;\n"
  "  sqrt.rn.f32 %f2, %f1;\n"
  "  add.f32 %f3, %f2, %f1;\n"
  "  sin.approx.f32 %f4, %f1;\n"
  "  mul.f32 %f5, %f3, %f4;\n"
  "  cvta.to.global.u64 %rd2, %rd1;\n"
  "  st.global.f32 [%rd2], %f5;\n"
  "  ret;\n}\n";

static void
test_dependent_cycles (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memsim-chain-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "chain.ptx", NULL);
  g_assert_true (g_file_set_contents (path, chain_ptx, -1, NULL));
  const char *files[] = { path, NULL };
  g_autoptr (GError) error = NULL;
  MsPtxProgram *prog = ms_ptx_program_load (files, &error);
  g_assert_no_error (error);
  float *out = g_new0 (float, 1);
  struct { float *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 4 };
  Run r;
  g_assert_true (run_in (prog, "chain", 1, 64, bufs, bytes, 1, &params, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (r.stats->dependent_cycles, ==, 152);
  run_clear (&r);
  ms_ptx_program_free (prog);
  g_free (out);
  g_unlink (path);
  g_rmdir (dir);
}

/* A global store of a loaded value is a floor for the loads after it
 * (ptx-translate.c, load_rounds): store_floor's second load is a round of
 * its own, store_floor_nc's read-only one is not; two warps each. */
static void
test_load_rounds_store_floor (void)
{
  SKIP_WITHOUT_NVCC ();
  const char *kernels[] = { "_Z11store_floorPKiS0_Pi", "_Z14store_floor_ncPKiS0_Pi" };
  const guint64 expected[] = { 4, 2 };
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      int *a = device (256), *b = device (256), *out = device (512);
      for (int t = 0; t < 64; t++)
        {
          a[t] = t;
          b[t] = 100 + t;
        }
      struct { int *a, *b, *out; } params = { a, b, out };
      void *bufs[] = { a, b, out };
      gsize bytes[] = { 256, 256, 512 };
      Run r;
      run (kernels[k], 1, 64, bufs, bytes, 3, &params, &r);
      for (int t = 0; t < 64; t++)
        {
          g_assert_cmpint (out[t], ==, t);
          g_assert_cmpint (out[t + 64], ==, 100 + t);
        }
      g_assert_cmpuint (r.stats->load_rounds, ==, expected[k]);
      run_clear (&r);
      g_free (a);
      g_free (b);
      g_free (out);
    }
}

/* bar.red over a block of 64: t % 3 == 0 holds for 0, 3, ..., 63 (22
 * threads); t < 64 for all; t == 63 for one; t >= 60 for 4.  So every
 * thread gets 22 | and 1 << 8 | or 1 << 9 | and 0 << 10 | 4 << 16. */
static void
test_barrier_reductions (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *out = device (256);
  struct { unsigned *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 256 };
  Run r;
  run ("_Z18barrier_reductionsPj", 1, 64, bufs, bytes, 1, &params, &r);
  for (unsigned t = 0; t < 64; t++)
    g_assert_cmphex (out[t], ==, 22u | 1u << 8 | 1u << 9 | 4u << 16);
  run_clear (&r);
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

/* ------------------------------------------------------------ device.cu */

/* tests/data/ptx/device.cu's program, with its variables bound (printf's
 * format strings; the device heap, which its launches pass as a buffer). */
static MsPtxProgram *dev_program;
void *ms_ptx_malloc (uint8_t *heap, uint64_t size);   /* sim/emulator/warp.h */
static char *dev_src, *dev_ptx;
static guint8 *dev_heap;
static GHashTable *dev_globals;   /* name -> its memory */

static void *
dev_global (const char *name)
{
  return g_hash_table_lookup (dev_globals, name);
}

static MsPtxProgram *
load_device (void)
{
  if (dev_program != NULL)
    return dev_program;
  if (load () == NULL)
    return NULL;
  g_autofree char *nvcc = nvcc_path ();
  dev_src = g_test_build_filename (G_TEST_DIST, "data", "ptx", "device.cu", NULL);
  g_autofree char *ptx = g_build_filename (tmp, "device.ptx", NULL);
  const char *argv[] = { nvcc, "-ptx", "-O3", "-lineinfo", "-arch=compute_90", dev_src, "-o",
                         ptx, NULL };
  int status = 0;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                               NULL, NULL, NULL, &status, &error));
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (g_file_get_contents (ptx, &dev_ptx, NULL, NULL));
  const char *files[] = { ptx, NULL };
  dev_program = ms_ptx_program_load (files, &error);
  g_assert_no_error (error);
  guint n = 0;
  const MsPtxGlobal *g = ms_ptx_program_globals (dev_program, &n);
  dev_globals = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < n; k++)
    {
      guint8 *mem = device (MAX (g[k].size, 1));
      g_hash_table_insert (dev_globals, (gpointer) g[k].name, mem);
      if (g[k].init != NULL)
        memcpy (mem, g[k].init, g[k].size);
      if (strcmp (g[k].name, MS_PTX_HEAP_NAME) == 0)
        {
          dev_heap = mem;
          ms_emulator_device_heap (mem, g[k].size);
        }
      g_assert_true (ms_ptx_program_bind_global (dev_program, g[k].name, mem));
    }
  return dev_program;
}

#define SKIP_WITHOUT_NVCC_DEVICE()                            \
  do {                                                        \
    if (load_device () == NULL)                               \
      {                                                       \
        g_test_skip ("nvcc not found");                       \
        return;                                               \
      }                                                       \
  } while (0)

/* printf, 2 blocks of 3: each thread's line, block by block, lanes in
 * order; the arguments as C's printf formats them (CUDA's printf is C's:
 * %5.2f of 10.25 is "10.25", 1 << 40 is 1099511627776, 'A' + 1 is B),
 * read from nvcc's buffer at their aligned offsets (0, 8, 16, 24, 32, 40,
 * 44: the double and the pointer each after 4 bytes of padding). */
static void
test_printf (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  g_free (ms_emulator_take_device_output ());
  struct { int base; } params = { 10 };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z10print_argsi", 2, 3, NULL, NULL, 0, &params, &r,
                         &error));
  g_assert_no_error (error);
  g_autofree char *out = ms_emulator_take_device_output ();
  g_assert_cmpstr (out, ==,
                   "t0: 10.00/0 even 1099511627776 A|ff\n"
                   "t1: 10.25/0 odd 1099511627777 B|ff\n"
                   "t2: 10.50/0 even 1099511627778 C|ff\n"
                   "t0: 10.00/1 even 1099511627776 A|ff\n"
                   "t1: 10.25/1 odd 1099511627777 B|ff\n"
                   "t2: 10.50/1 even 1099511627778 C|ff\n");
  run_clear (&r);
}

/* assert: lanes 3 and 17 hold values <= 0; each prints CUDA's line
 * (file as nvcc was given it, the assert's line, the function as
 * __PRETTY_FUNCTION__ writes it) and the launch fails. */
static void
test_assert (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  g_free (ms_emulator_take_device_output ());
  ms_emulator_take_device_assert ();
  int *in = device (128);
  for (int i = 0; i < 32; i++)
    in[i] = i == 3 ? 0 : i == 17 ? -1 : i + 1;
  struct { int *in; } params = { in };
  void *bufs[] = { in };
  gsize bytes[] = { 128 };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_false (run_in (dev_program, "_Z14check_positivePKi", 1, 32, bufs, bytes, 1, &params,
                          &r, &error));
  g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_ASSERT);
  g_assert_true (ms_emulator_take_device_assert ());
  /* the assert's line in the source */
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (dev_src, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  int line = 0;
  for (int k = 0; lines[k]; k++)
    if (strstr (lines[k], "assert(in[threadIdx.x] > 0);"))
      line = k + 1;
  g_assert_cmpint (line, >, 0);
  g_autofree char *expected = g_strdup_printf (
    "%s:%d: void check_positive(const int *): block: [0,0,0], thread: [3,0,0] Assertion "
    "`in[threadIdx.x] > 0` failed.\n"
    "%s:%d: void check_positive(const int *): block: [0,0,0], thread: [17,0,0] Assertion "
    "`in[threadIdx.x] > 0` failed.\n", dev_src, line, dev_src, line);
  g_autofree char *out = ms_emulator_take_device_output ();
  g_assert_cmpstr (out, ==, expected);
  run_clear (&r);
  g_free (in);
}

static float
scale_add (float x, float y, int k)
{
  return k > 2 ? x * (float) k + y : x - y;
}

/* A __noinline__ function (the PTX calls it: checked), called twice with
 * .param arguments and a result, two returns: its results; a[t] is
 * loaded once per warp (2 instructions of 2 warps), out stored once. */
static void
test_call_noinline (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  g_assert_nonnull (strstr (dev_ptx, "_Z9scale_addffi,"));
  float *a = device (256), *out = device (256);
  for (int i = 0; i < 64; i++)
    a[i] = 0.5f * (float) i;
  struct { float *a, *out; } params = { a, out };
  void *bufs[] = { a, out };
  gsize bytes[] = { 256, 256 };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z13call_noinlinePKfPf", 1, 64, bufs, bytes, 2, &params,
                         &r, &error));
  g_assert_no_error (error);
  for (int t = 0; t < 64; t++)
    g_assert_cmpfloat (out[t], ==, scale_add (a[t], 1.0f, t % 4) + scale_add (2.0f, a[t], 3));
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, NULL), ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, NULL), ==, 2);
  run_clear (&r);
  g_free (a);
  g_free (out);
}

/* cp.async, 2 warps of one float4 each thread: out[t] is the sum of
 * in[63 - t].  Counts: a warp's LDGSTS is one global load record, an
 * async copy (MsCounters.async_copies: not a global load instruction for
 * Nsight), one request of 16 sectors (512 contiguous bytes), and no
 * shared store; the reversed float4 read is one LDS.128 a warp, 4
 * wavefronts (quarter-warps conflict-free); 2 global stores. */
static void
test_async_copy (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  g_assert_nonnull (strstr (dev_ptx, "cp.async.cg.shared.global"));
  float *in = device (64 * 16), *out = device (256);
  for (int i = 0; i < 64; i++)
    for (int c = 0; c < 4; c++)
      in[4 * i + c] = (float) ((c + 1) * i);
  struct { float *in, *out; } params = { in, out };
  void *bufs[] = { in, out };
  gsize bytes[] = { 64 * 16, 256 };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z10async_copyPK6float4Pf", 1, 64, bufs, bytes, 2,
                         &params, &r, &error));
  g_assert_no_error (error);
  for (int t = 0; t < 64; t++)
    g_assert_cmpfloat (out[t], ==, 10.0f * (float) (63 - t));
  MsCounters ld;
  ms_stats_total (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  g_assert_cmpuint (ld.executions, ==, 2);
  g_assert_cmpuint (ld.async_copies, ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, "requests"), ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, "sectors"), ==, 32);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ST, NULL), ==, 0);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, NULL), ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, "wavefronts"), ==, 8);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, NULL), ==, 2);
  run_clear (&r);
  g_free (in);
  g_free (out);
}

/* An mbarrier: warp 0 runs first and waits on try_wait for the phase
 * that warp 1's 32 arrivals complete, after warp 1 wrote data: it must
 * let warp 1 run, then read warp 1's values (no race: the phase orders
 * them). */
static void
test_mbarrier (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  int *out = device (128);
  struct { int *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 128 };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z13mbar_exchangePi", 1, 64, bufs, bytes, 1, &params, &r,
                         &error));
  g_assert_no_error (error);
  for (int t = 0; t < 32; t++)
    g_assert_cmpint (out[t], ==, (t + 32) * 10);
  run_clear (&r);
  g_free (out);
}

/* Device malloc and free: each thread's block holds t .. t + 3, the
 * shared block gets mine[0] + mine[3] = 2t + 3 from thread t, out[t]
 * thread 63 - t's; the heap is a buffer of the launch (its accesses are
 * checked); everything freed, the whole heap is one free range again. */
static void
test_malloc (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  g_assert_nonnull (dev_heap);
  int *out = device (256);
  struct { int *out; } params = { out };
  void *bufs[] = { out, dev_heap };
  gsize bytes[] = { 256, MS_PTX_HEAP_BYTES };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z8heap_usePi", 1, 64, bufs, bytes, 2, &params, &r,
                         &error));
  g_assert_no_error (error);
  for (int t = 0; t < 64; t++)
    g_assert_cmpint (out[t], ==, 2 * (63 - t) + 3);
  /* all freed and merged: the whole heap is one free range */
  g_assert_true (ms_ptx_malloc (dev_heap, MS_PTX_HEAP_BYTES) == dev_heap);
  ms_emulator_device_heap (dev_heap, MS_PTX_HEAP_BYTES);
  run_clear (&r);
  g_free (out);
}

/* Virtual functions: make_shapes news a Square (even threads) or a
 * Triangle (odd) into the device heap; shape_areas calls area() through
 * each object's vtable (an indirect call: the engine compares the
 * pointer with each candidate) and deletes it (the virtual destructor,
 * another indirect call, then free).  The heap and the vtables (module
 * variables holding function addresses) are buffers of the launches. */
static void
test_virtual (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  void *bufs[8];
  gsize bytes[8];
  guint n = 0;
  void **shapes = device (64 * 8);
  float *side = device (256), *out = device (256);
  bufs[n] = shapes, bytes[n++] = 64 * 8;
  bufs[n] = side, bytes[n++] = 256;
  bufs[n] = out, bytes[n++] = 256;
  bufs[n] = dev_heap, bytes[n++] = MS_PTX_HEAP_BYTES;
  guint ng = 0;
  const MsPtxGlobal *g = ms_ptx_program_globals (dev_program, &ng);
  for (guint k = 0; k < ng; k++)
    if (g_str_has_prefix (g[k].name, "_ZTV"))
      {
        g_assert_cmpuint (n, <, 8);
        bufs[n] = dev_global (g[k].name);
        bytes[n++] = g[k].size;
      }
  for (int t = 0; t < 64; t++)
    side[t] = (float) t;
  struct { void **shapes; } p1 = { shapes };
  struct { void **shapes; float *side, *out; } p2 = { shapes, side, out };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z11make_shapesPP5Shape", 1, 64, bufs, bytes, n, &p1, &r,
                         &error));
  g_assert_no_error (error);
  run_clear (&r);
  for (int t = 0; t < 64; t++)
    g_assert_true ((guint8 *) shapes[t] >= dev_heap
                   && (guint8 *) shapes[t] < dev_heap + MS_PTX_HEAP_BYTES);
  g_assert_true (run_in (dev_program, "_Z11shape_areasPP5ShapePKfPf", 1, 64, bufs, bytes, n, &p2,
                         &r, &error));
  g_assert_no_error (error);
  for (int t = 0; t < 64; t++)
    g_assert_cmpfloat (out[t], ==, (t & 1 ? 0.5f : 1.0f) * (float) t * (float) t);
  run_clear (&r);
  /* everything deleted: the whole heap is free again */
  g_assert_true (ms_ptx_malloc (dev_heap, MS_PTX_HEAP_BYTES) == dev_heap);
  ms_emulator_device_heap (dev_heap, MS_PTX_HEAP_BYTES);
  g_free (shapes);
  g_free (side);
  g_free (out);
}

/* match.sync: in[t] = t % 3 gives three classes of lanes, 0, 3, ... 30
 * (0x49249249), 1, 4, ... 31 (0x92492492) and 2, 5, ... 29 (0x24924924);
 * in[t] / 100 is 0 for all: match.all gives the whole warp and pred 1. */
static void
test_match (void)
{
  SKIP_WITHOUT_NVCC_DEVICE ();
  int *in = device (128);
  unsigned *out = device (96 * 4);
  for (int t = 0; t < 32; t++)
    in[t] = t % 3;
  struct { int *in; unsigned *out; } params = { in, out };
  void *bufs[] = { in, out };
  gsize bytes[] = { 128, 96 * 4 };
  Run r;
  g_autoptr (GError) error = NULL;
  g_assert_true (run_in (dev_program, "_Z11match_lanesPKiPj", 1, 32, bufs, bytes, 2, &params, &r,
                         &error));
  g_assert_no_error (error);
  static const unsigned classes[3] = { 0x49249249u, 0x92492492u, 0x24924924u };
  for (int t = 0; t < 32; t++)
    {
      g_assert_cmphex (out[t], ==, classes[t % 3]);
      g_assert_cmphex (out[32 + t], ==, 0xffffffffu);
      g_assert_cmpuint (out[64 + t], ==, 1);
    }
  run_clear (&r);
  g_free (in);
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

  /* a call the engine does not run (a function of another file, a
   * recursive one) fails the kernel there, each with its own message;
   * the .params of its arguments are the lane's memory (they were address
   * 0, a crash before the failure) */
  const char *calls = ".extern .func ext (.param .b64 ext_param_0);\n"
                      ".func self (.param .b32 self_param_0)\n{\n.reg .b32 %r<2>;\n"
                      "ld.param.u32 %r1, [self_param_0];\n"
                      "{\n.param .b32 param0;\nst.param.b32 [param0+0], %r1;\n"
                      "call.uni self, (param0);\n}\nret;\n}\n"
                      ".visible .entry k()\n{\n.reg .b64 %rd<2>;\n.reg .pred %p<2>;\n"
                      "setp.eq.u64 %p1, %rd1, 0;\n@%p1 bra L1;\n"
                      "{\n.param .b64 param0;\nst.param.b64 [param0+0], %rd1;\n"
                      "call.uni ext, (param0);\n}\nL1:\n"
                      "{\n.param .b32 param0;\nst.param.b32 [param0+0], 1;\n"
                      "call.uni self, (param0);\n}\nret;\n}\n";
  g_autoptr (GError) ce = NULL;
  g_autoptr (MsPtxModule) cm = ms_ptx_read ("calls.ptx", calls, strlen (calls), &ce);
  g_assert_no_error (ce);
  g_autoptr (GString) cc = g_string_new (NULL);
  g_assert_true (ms_ptx_translate (cm, 0, cc, NULL));
  g_assert_nonnull (strstr (cc->str, "'call.uni' (a call of a function this file does not define"));
  g_assert_nonnull (strstr (cc->str, "'call.uni' (a recursive call"));
  g_assert_nonnull (strstr (cc->str, "ms_loc + L * "));

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

  /* code nvcc inlined: an access counts at its call's line and names its
   * own (MsSite.inner, how the SASS's line marks tell it from the others
   * inlined at that call): two loads of one call on two lines, on one
   * register, are one site with both lines; without inlined_at, no own
   * line */
  const char *inl = ".file 1 \"/s/k.cu\"\n.file 2 \"/s/h.cuh\"\n"
                    ".visible .entry k(.param .u64 k_p)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                    "ld.param.u64 %rd1, [k_p];\n"
                    ".loc 2 7 5, function_name $L__s, inlined_at 1 30 9\n"
                    "ld.global.u32 %r1, [%rd1];\n"
                    ".loc 2 8 5, function_name $L__s, inlined_at 1 30 9\n"
                    "ld.global.u32 %r2, [%rd1+4];\n"
                    ".loc 1 31 3\nld.global.u32 %r3, [%rd1+8];\nret;\n}\n";
  g_autoptr (GError) ie = NULL;
  g_autoptr (MsPtxModule) im = ms_ptx_read ("inl.ptx", inl, strlen (inl), &ie);
  g_assert_no_error (ie);
  MsPtxFunc *fi = g_ptr_array_index (im->funcs, 0);
  const MsPtxInsn *l1 = &g_array_index (fi->insns, MsPtxInsn, 1);
  const MsPtxInsn *l3 = &g_array_index (fi->insns, MsPtxInsn, 3);
  g_assert_cmpint (l1->line, ==, 30);
  g_assert_cmpint (l1->inner_file, ==, 2);
  g_assert_cmpint (l1->inner_line, ==, 7);
  g_assert_cmpint (l3->line, ==, 31);
  g_assert_cmpint (l3->inner_line, ==, 0);
  g_autoptr (GString) ic = g_string_new (NULL);
  g_assert_true (ms_ptx_translate (im, 0, ic, NULL));
  g_assert_nonnull (strstr (ic->str, ".inner = \"h.cuh:7\\011h.cuh:8\""));
  g_assert_null (strstr (ic->str, ".inner = \"k.cu"));
}

/* Shared atomics as ptxas compiles them for sm_90 (nvdisasm of this
 * kernel's cubin): atomicAdd of a double or a float and atomicMin of an
 * unsigned long long are a loop of LDS, the operation and
 * ATOMS.CAST.SPIN, again while the swap fails; the min's loop branches
 * past the swap when the old value is already the minimum; atomicAdd of
 * an unsigned is one ATOMS.ADD.  Two warps of 32:
 *   - sd[t] += 0.5: distinct words, every swap succeeds: 1 load and 1
 *     swap a warp;
 *   - sf[t % 4] += 1: 8 lanes a word, one of them succeeds a round (the
 *     others saw the old value): 8 loads and 8 swaps a warp;
 *   - min (su[t % 32], t < 16 ? t : 5000) on 1000: warp 0 swaps its lanes
 *     0..15 (1 load, 1 swap), warp 1 changes nothing (1 load, no swap);
 *   - sw[t % 32] += 1: 1 atomic a warp.
 * Then the loads back: sd by both warps, sf, su and sw by warp 0.  Shared
 * loads 2 + 16 + 2 + 5 = 25 (5 without the loops), atomics 2 + 16 + 1 + 2
 * = 21 (8). */
static void
test_shared_cas_loops (void)
{
  SKIP_WITHOUT_NVCC ();
  double *d = device (64 * sizeof (double));
  float *f = device (4 * sizeof (float));
  guint64 *u = device (32 * sizeof (guint64));
  unsigned *w = device (32 * sizeof (unsigned));
  struct { void *d, *f, *u, *w; } params = { d, f, u, w };
  void *bufs[] = { d, f, u, w };
  gsize bytes[] = { 64 * sizeof (double), 4 * sizeof (float), 32 * sizeof (guint64),
                    32 * sizeof (unsigned) };
  Run r;
  run ("_Z16shared_cas_loopsPdPfPyPj", 1, 64, bufs, bytes, 4, &params, &r);
  for (int t = 0; t < 64; t++)
    g_assert_cmpfloat (d[t], ==, t + 0.5);
  for (int k = 0; k < 4; k++)
    g_assert_cmpfloat (f[k], ==, 16.0f);
  for (int k = 0; k < 32; k++)
    {
      g_assert_cmpuint (u[k], ==, k < 16 ? (guint64) k : 1000);
      g_assert_cmpuint (w[k], ==, 2);
    }
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, NULL), ==, 25);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ATOMIC, NULL), ==, 21);
  run_clear (&r);
  g_free (d);
  g_free (f);
  g_free (u);
  g_free (w);
}

/* flag_poll: warp 0 waits for a flag that warp 1 sets.  Warps run in
 * turn, so warp 0's first poll finds the flag unset; it goes round to the
 * same load with nothing done in between, steps aside there, warp 1 sets
 * the flag, and the second poll finds it: 2 shared loads (a warp that
 * spun for its whole budget would make thousands), 2 shared stores (the
 * flag's 0, warp 1's 7). */
static void
test_flag_poll (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *out = device (64 * sizeof (unsigned));
  struct { unsigned *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 64 * sizeof (unsigned) };
  Run r;
  run ("_Z9flag_pollPj", 1, 64, bufs, bytes, 1, &params, &r);
  g_assert_cmpuint (out[0], ==, 7);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, NULL), ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ST, NULL), ==, 2);
  run_clear (&r);
  g_free (out);
}

/* reload (kernels.cu, its comment has ptxas's SASS): the loads ptxas
 * does not issue again are not counted; the results are those of every
 * loads (g[i] = i). */
static void
test_reload (void)
{
  SKIP_WITHOUT_NVCC ();
  int *g = device (64 * sizeof (int)), *out = device (64 * sizeof (int));
  for (int i = 0; i < 64; i++)
    g[i] = i;
  Run r;
  run_two ("_Z6reloadPKiPi", 1, 32, g, 64 * sizeof (int), out, 64 * sizeof (int), &r);
  for (int t = 0; t < 32; t++)
    {
      /* s[t] = t; a = c's load = t ^ 1; the shuffle gives lane t ^ 1's a,
       * which is t; b = h = t + 32 */
      int a = t ^ 1, b = t + 32, c = a + t;
      g_assert_cmpint (out[t], ==, a + b + c + b);
      int d = a + b;
      g_assert_cmpint (out[t + 32], ==, 3 * d);
    }
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_LD, NULL), ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_LD, NULL), ==, 3);
  g_assert_cmpuint (count (r.stats, MS_SPACE_SHARED, MS_OP_ST, NULL), ==, 2);
  g_assert_cmpuint (count (r.stats, MS_SPACE_GLOBAL, MS_OP_ST, NULL), ==, 2);
  run_clear (&r);
  g_free (g);
  g_free (out);
}

/* half_ops (kernels.cu): results as CUDA defines them.  f16x2: a = (1.5,
 * 2.25), b = (0.5, 4): fma a * b + a = (2.25, 11.25); times b minus a =
 * (-0.375, 42.75); max with 0 = (0, 42.75).  hsqrt (6.25) = 2.5.  bf16x2
 * x = (1.5, t % 8): x * x + x = (3.75, t8^2 + t8).  __vmaxu2: halves
 * max (0x10, t) and max (5, t); __vsub2 (0x00030002 + t, 0x00010005): low
 * 2 + t - 5 (mod 2^16), high 2; __dp4a (1,2,3,4 . t,t,t,t) + 7 = 10 t + 7;
 * signed bytes (-1, 2, -2, 4) . 1 + t = 3 + t.  128 bits: (2^64 - 1 - t) +
 * (5 . 2^64 + t + 1) = 6 . 2^64 (the low words' carry); (5 . 2^64 + t +
 * 1) - (2^64 - 1 - t) = 4 . 2^64 + 2 t + 2 (the low words' borrow).  32
 * lanes add (1, 0.5) to acc:
 * (32, 16).  The 16-bit atomicCAS: one lane finds 0 and writes its t + 1. */
static void
test_half_ops (void)
{
  SKIP_WITHOUT_NVCC ();
  float *out = device (128 * sizeof (float));
  unsigned *u = device (160 * sizeof (unsigned));
  unsigned long long *w = device (128 * sizeof (unsigned long long));
  guint32 *acc = device (16);
  guint16 *flag = device (16);
  struct { void *out, *u, *w, *acc, *flag; } params = { out, u, w, acc, flag };
  void *bufs[] = { out, u, w, acc, flag };
  gsize bytes[] = { 128 * sizeof (float), 160 * sizeof (unsigned),
                    128 * sizeof (unsigned long long), 16, 16 };
  Run r;
  run ("_Z8half_opsPfPjPyP7__half2Pt", 1, 32, bufs, bytes, 5, &params, &r);
  guint zeros = 0;
  for (guint t = 0; t < 32; t++)
    {
      guint t8 = t % 8;
      g_assert_cmpfloat (out[4 * t + 0], ==, 0.0f);
      g_assert_cmpfloat (out[4 * t + 1], ==, 42.75f);
      g_assert_cmpfloat (out[4 * t + 2], ==, 2.5f);
      g_assert_cmpfloat (out[4 * t + 3], ==, 3.75f + (float) (t8 * t8 + t8));
      g_assert_cmphex (u[t], ==, (MAX (5u, t) << 16) | MAX (0x10u, t));
      g_assert_cmphex (u[32 + t], ==, (2u << 16) | ((2u + t - 5u) & 0xffffu));
      g_assert_cmpuint (u[64 + t], ==, 10 * t + 7);
      g_assert_cmpuint (u[96 + t], ==, 3 + t);
      g_assert_cmphex (w[4 * t + 0], ==, 0);
      g_assert_cmphex (w[4 * t + 1], ==, 6);
      g_assert_cmphex (w[4 * t + 2], ==, 2 * t + 2);
      g_assert_cmphex (w[4 * t + 3], ==, 4);
      zeros += u[128 + t] == 0;
    }
  /* (1 . 32, 0.5 . 32) in f16: 32 = 0x5000, 16 = 0x4c00 */
  g_assert_cmphex (acc[0], ==, 0x4c005000u);
  g_assert_cmpuint (zeros, ==, 1);
  g_assert_cmpuint (flag[0], >=, 1);
  g_assert_cmpuint (flag[0], <=, 32);
  run_clear (&r);
  g_free (out);
  g_free (u);
  g_free (w);
  g_free (acc);
  g_free (flag);
}

/* A kernel whose registers do not fit its warp's stack (1 MiB): 9 000
 * f64 registers are 2.3 MB for a warp's 32 lanes (libdevice's lgamma and
 * tgamma inlined declare 3 300).  Each thread stores tid + 1. */
static void
test_big_frame (void)
{
  SKIP_WITHOUT_NVCC ();
  const char *text =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry big_frame(.param .u64 big_frame_param_0)\n{\n"
    "  .reg .f64 %fd<9000>;\n  .reg .b64 %rd<4>;\n  .reg .b32 %r<2>;\n"
    "  ld.param.u64 %rd1, [big_frame_param_0];\n  cvta.to.global.u64 %rd2, %rd1;\n"
    "  mov.u32 %r1, %tid.x;\n  cvt.rn.f64.u32 %fd8999, %r1;\n"
    "  add.f64 %fd8998, %fd8999, 0d3FF0000000000000;\n"
    "  mul.wide.u32 %rd3, %r1, 8;\n  add.s64 %rd3, %rd2, %rd3;\n"
    "  st.global.f64 [%rd3], %fd8998;\n  ret;\n}\n";
  /* the translation keeps the registers in the warp's buffer (the C
   * compiler drops the unused ones of a stack frame, so the run alone
   * would pass either way) */
  g_autoptr (GError) te = NULL;
  g_autoptr (MsPtxModule) m = ms_ptx_read ("big-frame.ptx", text, strlen (text), &te);
  g_assert_no_error (te);
  g_autoptr (GString) c = g_string_new (NULL);
  g_assert_true (ms_ptx_translate (m, 0, c, &te));
  g_assert_nonnull (strstr (c->str, "ms_ptx_frame ("));
  g_autofree char *path = g_build_filename (tmp, "big-frame.ptx", NULL);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  const char *files[] = { path, NULL };
  g_autoptr (GError) error = NULL;
  MsPtxProgram *prog = ms_ptx_program_load (files, &error);
  g_assert_no_error (error);
  double *out = device (64 * sizeof (double));
  struct { double *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 64 * sizeof (double) };
  Run r;
  gboolean ok = run_in (prog, "big_frame", 1, 64, bufs, bytes, 1, &params, &r, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  for (guint t = 0; t < 64; t++)
    g_assert_cmpfloat (out[t], ==, t + 1.0);
  run_clear (&r);
  g_free (out);
  ms_ptx_program_free (prog);
}

/* byte_ops (kernels.cu): {b, a}'s bytes 0..7 are 00 11 .. 77.  prmt f4e
 * with c = 1: bytes 1, 2, 3, 4 = 0x44332211; b4e, c = 0: bytes 0, 7, 6, 5
 * = 0x55667700; ecr, c = 1: bytes 0, 1, 1, 1 = 0x11111100.  szext of 0xf0
 * from 8 bits, signed: 0xfffffff0.  cvt.pack.sat.s16: 40000 clamps to
 * 0x7fff (upper half), -5 is 0xfffb.  e4m3: 1.0 = 0x38 (bias 7), -2.0 =
 * 0xc0 (sign, exponent 8); the pair (-2, 1) puts its first value in the
 * lower byte (cuda_fp8.h's make_float2 order) = 0x38c0; e5m2: 1.0 =
 * 0x3c, 1e6 clamped to 57344 = 0x7b: 0x3c7b.  e4m3 0xc0 back to f16:
 * -2.0 = 0xc000. */
static void
test_byte_ops (void)
{
  SKIP_WITHOUT_NVCC ();
  unsigned *out = device (8 * sizeof (unsigned));
  struct { unsigned *out; } params = { out };
  void *bufs[] = { out };
  gsize bytes[] = { 8 * sizeof (unsigned) };
  Run r;
  run ("_Z8byte_opsPj", 1, 1, bufs, bytes, 1, &params, &r);
  g_assert_cmphex (out[0], ==, 0x44332211u);
  g_assert_cmphex (out[1], ==, 0x55667700u);
  g_assert_cmphex (out[2], ==, 0x11111100u);
  g_assert_cmphex (out[3], ==, 0xfffffff0u);
  g_assert_cmphex (out[4], ==, 0x7ffffffbu);
  g_assert_cmphex (out[5], ==, 0x38c0u);
  g_assert_cmphex (out[6], ==, 0x3c7bu);
  g_assert_cmphex (out[7], ==, 0xc000u);
  run_clear (&r);
  g_free (out);
}

/* max_by_key (kernels.cu): redux.sync reduces over the lanes of each
 * lane's membermask, not the warp's.  Each group of lanes runs the
 * reduction on its own (ptxas's WARPSYNC.EXCLUSIVE ... BSYNC, 5 SASS
 * instructions a group: the H200 counts 29 + 5 (k - 1) for a warp of k
 * keys, gpu/measurements/h200-2026-12-01-redux-groups/): two warps of
 * three keys run 2 x 2 x 5 = 20 more than of one key (the PTX alone:
 * the redux 2 x 2 more times). */
static void
test_redux_groups (void)
{
  SKIP_WITHOUT_NVCC ();
  int *key = device (64 * sizeof (int)), *val = device (64 * sizeof (int));
  int *out = device (64 * sizeof (int));
  guint64 executed[2];
  MsInstBasis basis = MS_INST_NONE;
  for (guint keys = 1; keys <= 3; keys += 2)
    {
      for (int i = 0; i < 64; i++)
        {
          key[i] = i % (int) keys;
          val[i] = (i * 37) % 101 - 50;
        }
      struct { int *key, *val, *out; } params = { key, val, out };
      void *bufs[] = { key, val, out };
      gsize bytes[] = { 64 * sizeof (int), 64 * sizeof (int), 64 * sizeof (int) };
      Run r;
      run ("_Z10max_by_keyPKiS0_Pi", 1, 64, bufs, bytes, 3, &params, &r);
      for (int i = 0; i < 64; i++)
        {
          int want = G_MININT;
          for (int j = i / 32 * 32; j < i / 32 * 32 + 32; j++)
            if (key[j] == key[i])
              want = MAX (want, val[j]);
          g_assert_cmpint (out[i], ==, want);
        }
      executed[keys / 2] = r.stats->inst_executed;
      basis = r.stats->inst_basis;
      run_clear (&r);
    }
  g_assert_cmpuint (executed[1] - executed[0], ==, basis == MS_INST_SASS_LINES ? 20 : 4);
  g_free (key);
  g_free (val);
  g_free (out);
}

/* rounding (kernels.cu): 1 + 2^-30 is 1 to zero or down, 1 + 2^-23 (the
 * next float) up; -1 - 2^-30 down is -(1 + 2^-23).  1/3 = 0x3eaaaaaa.aa..:
 * toward zero 0x3eaaaaaa, up 0x3eaaaaab.  sqrt 2 = 1.41421356..: the
 * floats around it 0x3fb504f3 (1.41421353..) and 0x3fb504f4.  fma 1 * 1 +
 * 2^-30 up: 1 + 2^-23.  (1 + 2^-23)(1 - 2^-24) = 1 + 2^-24 - 2^-47, down
 * (and to nearest): 1.  1 + 2^-30 as a float, up: 1 + 2^-23.  Doubles: 1 +
 * 2^-60 down 1, up 1 + 2^-52; (1 + 2^-52)(1 - 2^-53) = 1 + 2^-53 - 2^-105,
 * toward zero 1; 1/3 up: 0x3fd5555555555556 (to nearest ...55). */
static void
test_rounding (void)
{
  SKIP_WITHOUT_NVCC ();
  float *f = device (16 * sizeof (float));
  double *d = device (8 * sizeof (double));
  Run r;
  run_two ("_Z8roundingPfPd", 1, 1, f, 16 * sizeof (float), d, 8 * sizeof (double), &r);
  float up = 1.0f + 0x1p-23f;
  guint32 bits[2];
  g_assert_cmpfloat (f[0], ==, 1.0f);
  g_assert_cmpfloat (f[1], ==, up);
  g_assert_cmpfloat (f[2], ==, -up);
  memcpy (&bits[0], &f[3], 4);
  memcpy (&bits[1], &f[4], 4);
  g_assert_cmphex (bits[0], ==, 0x3eaaaaaau);
  g_assert_cmphex (bits[1], ==, 0x3eaaaaabu);
  memcpy (&bits[0], &f[5], 4);
  memcpy (&bits[1], &f[6], 4);
  g_assert_cmphex (bits[0], ==, 0x3fb504f3u);
  g_assert_cmphex (bits[1], ==, 0x3fb504f4u);
  g_assert_cmpfloat (f[7], ==, up);
  g_assert_cmpfloat (f[8], ==, 1.0f);
  g_assert_cmpfloat (f[9], ==, up);
  g_assert_cmpfloat (d[0], ==, 1.0);
  g_assert_cmpfloat (d[1], ==, 1.0 + 0x1p-52);
  g_assert_cmpfloat (d[2], ==, 1.0);
  guint64 b64;
  memcpy (&b64, &d[3], 8);
  g_assert_cmphex (b64, ==, G_GUINT64_CONSTANT (0x3fd5555555555556));
  run_clear (&r);
  g_free (f);
  g_free (d);
}

/* FCHK's test, which sends a float division to ptxas's slow path
 * (ms_ptx_fdiv_fast), against the H200's own for every pair of 518 values
 * (gpu/measurements/h200-2026-12-01-division-slow-path/sweep.txt: each
 * division timed, a slow one a set bit): 268 324 pairs. */
static void
test_fdiv_fast (void)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "..", "gpu", "measurements",
                                                 "h200-2026-12-01-division-slow-path",
                                                 "sweep.txt", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  g_autoptr (GArray) values = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint rows = 0, slow = 0, fast = 0;
  for (char **l = lines; *l; l++)
    {
      if (g_str_has_prefix (*l, "# values (float bits):"))
        {
          g_auto (GStrv) v = g_strsplit (*l + strlen ("# values (float bits):"), " ", -1);
          for (char **x = v; *x; x++)
            if (**x)
              {
                guint32 u = (guint32) g_ascii_strtoull (*x, NULL, 16);
                g_array_append_val (values, u);
              }
          continue;
        }
      if (**l == '#' || **l == '\0')
        continue;
      g_auto (GStrv) f = g_strsplit (*l, " ", 2);
      g_assert_cmpuint (g_strv_length (f), ==, 2);
      guint32 a = (guint32) g_ascii_strtoull (f[0], NULL, 16);
      g_assert_cmpuint (strlen (f[1]), ==, (values->len + 3) / 4);
      for (guint j = 0; j < values->len; j++)
        {
          guint digit = (guint) g_ascii_xdigit_value (f[1][j / 4]);
          gboolean was_slow = (digit >> (j % 4)) & 1;
          guint32 b = g_array_index (values, guint32, j);
          if (ms_ptx_fdiv_fast (a, b) == was_slow)
            g_error ("%08x / %08x: the H200 took the %s path", a, b, was_slow ? "slow" : "fast");
          slow += was_slow;
          fast += !was_slow;
        }
      rows++;
    }
  g_assert_cmpuint (values->len, ==, 518);
  g_assert_cmpuint (rows, ==, 518);
  g_assert_cmpuint (slow, >, 10000);
  g_assert_cmpuint (fast, >, 100000);
}

/* Float division's slow path in a branch (tests/data/ptx/kernels.cu's
 * divide_flag, 4 warps, 3 of which divide): warp 0 divides 0 by 3 on every
 * lane, 34 instructions more than the fast path on the H200 (57 - 23,
 * gpu/measurements/h200-2026-12-01-division-slow-path/counts.txt); warp 1
 * is fast; on warp 2, lane 5 divides 1 by 0 (61 - 23 = 38) and the other
 * lanes are fast, a join more for them (58 - 57 where one lane divides 0
 * by 3): 39.  Warp 3 divides nothing. */
static void
test_division_slow_path (void)
{
  if (load () == NULL)
    {
      g_test_skip ("no nvcc");
      return;
    }
  float a[128], b[128];
  for (guint i = 0; i < 128; i++)
    {
      a[i] = i < 32 ? 0.0f : 1.0f;
      b[i] = i == 64 + 5 ? 0.0f : 3.0f;
    }
  Run r;
  run_two ("_Z11divide_flagPKfPf", 1, 128, a, sizeof a, b, sizeof b, &r);
  g_assert_cmpuint (r.stats->slow_path_instructions, ==, 34 + 39);
  g_assert_true (isinf (b[64 + 5]));   /* 1 / 0 > 1: stored */
  g_assert_cmpfloat (b[64], ==, 3.0f);
  run_clear (&r);
  /* under a guard (divide_guarded: lanes 0 to 15 divide 0 by 3, the
   * others do not divide): one route, no fast lane, so no join: 34 */
  for (guint i = 0; i < 32; i++)
    {
      a[i] = 0.0f;
      b[i] = 3.0f;
    }
  run_two ("_Z14divide_guardedPKfPf", 1, 32, a, 32 * sizeof (float), b, 32 * sizeof (float), &r);
  g_assert_cmpuint (r.stats->slow_path_instructions, ==, 34);
  g_assert_cmpfloat (b[0], ==, 0.0f);
  g_assert_cmpfloat (b[16], ==, 7.0f);
  run_clear (&r);
}

/* Lane temporaries (ptx-lane-temps.c): a register written first and then
 * used within one lane loop becomes the lane's scalar; one used across
 * loops, read before it is written, written under a guard or reading
 * itself, referenced as a whole array, outside a loop, or in a loop the
 * pass does not read (a string literal) keeps its array. */
static void
test_lane_temps (void)
{
  GString *code = g_string_new (
    "      MS_WARP_LANES (m, L, {\n"
    "R0[L] = (uint32_t) 1;\n"
    "R1[L] = R0[L] + R2[L];\n"
    "if (R3[L]) {\n"
    "R4[L] = 5;\n"
    "}\n"
    "R5[L] = R5[L] + 1;\n"
    "ms_warp.addr[L] = (volatile uint8_t *) (uintptr_t) R1[L];\n"
    "      });\n"
    "      MS_WARP_LANES (m, L, {\n"
    "R6[L] = R1[L] + R14[L];\n"
    "R7[L] = 1;\n"
    "      });\n"
    "          ms_warp_copy_row (R7, ms_warp.addr[0], 32 * sizeof R7[0]);\n"
    "      MS_WARP_BRANCH (m, L, t_, R8[L], {\n"
    "R8[L] = (uint8_t) 1;\n"
    "R9[L] = 2;\n"
    "      });\n"
    "      MS_WARP_BRANCH (m, L, t_, !R10[L], {\n"
    "R11[L] = 2;\n"
    "      });\n"
    "R12[L] = 0;\n"
    "      MS_WARP_LANES (m, L, {\n"
    "R13[L] = 1;\n"
    "ms_ptx_fail (\"a { in a message\");\n"
    "      });\n"
    "      MS_WARP_LANES (m, L, {\n"
    "R14[L] = 1;\n"
    "      });\n"
    "      MS_WARP_LANES (m, L, {\n"
    "R15[L] = 1; R16[L] = R15[L];\n"
    "      });\n");
  gboolean temp[17];
  guint n = ms_ptx_lane_temps (code, 17, temp);
  const gboolean want[17] = { TRUE, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE, FALSE, TRUE,
                              TRUE, FALSE, TRUE, FALSE, FALSE, FALSE, FALSE, FALSE };
  for (guint r = 0; r < 17; r++)
    {
      if (temp[r] != want[r])
        g_test_message ("R%u: %d, want %d", r, temp[r], want[r]);
      g_assert_cmpint (temp[r], ==, want[r]);
    }
  g_assert_cmpuint (n, ==, 5);
  g_assert_nonnull (strstr (code->str, "\nT0 = (uint32_t) 1;\nR1[L] = T0 + R2[L];\n"));
  g_assert_nonnull (strstr (code->str, "\nT6 = R1[L] + R14[L];\n"));
  g_assert_nonnull (strstr (code->str, "MS_WARP_BRANCH (m, L, t_, T8, {\nT8 = (uint8_t) 1;\nT9 = 2;\n"));
  g_assert_nonnull (strstr (code->str, "!R10[L]"));
  g_assert_nonnull (strstr (code->str, "\nT11 = 2;\n"));
  g_assert_null (strstr (code->str, "T1 "));
  g_string_free (code, TRUE);
}

/* in_order: a kernel that polls other blocks' writes with strong loads
 * runs its blocks one after another even on two workers, so each block's
 * poll finds the block before it done (its value worked out): one load a block but the first,
 * on every run (on two workers running at once a block could spin on its
 * predecessor's flag, a count that depends on the threads' timing). */
static void
test_in_order (void)
{
  SKIP_WITHOUT_NVCC ();
  const guint blocks = 64;
  const MsPtxKernel *k = ms_ptx_program_kernel (program, "_Z9look_backPViPj");
  g_assert_nonnull (k);
  g_autoptr (MsArch) arch = ms_models_arch_lookup ("h100", NULL);
  for (guint round = 0; round < 4; round++)
    {
      int *flag = device (blocks * sizeof (int)), *out = device (blocks * sizeof (int));
      memset (flag, 0, blocks * sizeof (int));
      struct { int *flag, *out; } params = { flag, out };
      MsProblem *p = ms_problem_new (k->kernel);
      p->args.grid[0] = blocks;
      p->args.grid[1] = p->args.grid[2] = 1;
      p->args.block[0] = 32;
      p->args.block[1] = p->args.block[2] = 1;
      p->args.params = &params;
      p->n_buffers = 2;
      p->args.buf[0] = flag;
      p->args.buf[1] = out;
      p->buffer_bytes[0] = p->buffer_bytes[1] = blocks * sizeof (int);
      p->buffer_names[0] = p->buffer_names[1] = "buffer";
      g_autoptr (GError) error = NULL;
      MsStats *stats = NULL;
      g_assert_true (ms_problem_simulate (p, arch, 2, NULL, &stats, &error));
      g_assert_no_error (error);
      g_assert_true (k->kernel->in_order);
      for (guint b = 0; b < blocks; b++)
        {
          guint32 v = b;
          for (int i = 0; i < 40000; i++)
            v = (v ^ (v << 13)) * (v | 1u) + (v >> 7);
          g_assert_cmpuint ((guint32) out[b], ==, v);
        }
      g_assert_cmpuint (count (stats, MS_SPACE_GLOBAL, MS_OP_LD, NULL), ==, blocks - 1);
      p->n_buffers = 0;
      ms_problem_free (p);
      ms_stats_free (stats);
      g_free (flag);
      g_free (out);
    }
  /* a kernel without strong loads keeps every worker */
  const MsPtxKernel *plain = ms_ptx_program_kernel (program, "_Z10max_by_keyPKiS0_Pi");
  g_assert_nonnull (plain);
  g_assert_nonnull (plain->kernel->warp_entry);
  g_assert_false (plain->kernel->in_order);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/ptx/fdiv-fast", test_fdiv_fast);
  g_test_add_func ("/ptx/division-slow-path", test_division_slow_path);
  g_test_add_func ("/ptx/read-errors", test_read_errors);
  g_test_add_func ("/ptx/vadd", test_vadd);
  g_test_add_func ("/ptx/column", test_column);
  g_test_add_func ("/ptx/reduce-shared", test_reduce_shared);
  g_test_add_func ("/ptx/shfl-sum", test_shfl_sum);
  g_test_add_func ("/ptx/bank-column", test_bank_column);
  g_test_add_func ("/ptx/bits", test_bits);
  g_test_add_func ("/ptx/min-max", test_min_max);
  g_test_add_func ("/ptx/bitmask", test_bitmask);
  g_test_add_func ("/ptx/divide", test_divide);
  g_test_add_func ("/ptx/load-rounds", test_load_rounds);
  g_test_add_func ("/ptx/load-rounds-store-floor", test_load_rounds_store_floor);
  g_test_add_func ("/ptx/dependent-cycles", test_dependent_cycles);
  g_test_add_func ("/ptx/loop-join", test_loop_join);
  g_test_add_func ("/ptx/counters", test_counters);
  g_test_add_func ("/ptx/reductions", test_reductions);
  g_test_add_func ("/ptx/symbol-pair", test_symbol_pair);
  g_test_add_func ("/ptx/absdiff4", test_absdiff4);
  g_test_add_func ("/ptx/barrier-reductions", test_barrier_reductions);
  g_test_add_func ("/ptx/printf", test_printf);
  g_test_add_func ("/ptx/assert", test_assert);
  g_test_add_func ("/ptx/call-noinline", test_call_noinline);
  g_test_add_func ("/ptx/async-copy", test_async_copy);
  g_test_add_func ("/ptx/mbarrier", test_mbarrier);
  g_test_add_func ("/ptx/malloc", test_malloc);
  g_test_add_func ("/ptx/virtual", test_virtual);
  g_test_add_func ("/ptx/match", test_match);
  g_test_add_func ("/ptx/shared-cas-loops", test_shared_cas_loops);
  g_test_add_func ("/ptx/flag-poll", test_flag_poll);
  g_test_add_func ("/ptx/reload", test_reload);
  g_test_add_func ("/ptx/half-ops", test_half_ops);
  g_test_add_func ("/ptx/big-frame", test_big_frame);
  g_test_add_func ("/ptx/byte-ops", test_byte_ops);
  g_test_add_func ("/ptx/rounding", test_rounding);
  g_test_add_func ("/ptx/redux-groups", test_redux_groups);
  g_test_add_func ("/ptx/lane-temps", test_lane_temps);
  g_test_add_func ("/ptx/in-order", test_in_order);
  int status = g_test_run ();
  if (tmp != NULL)
    {
      /* every file a test wrote there */
      const char *names[] = { "kernels.ptx", "device.ptx", "big-frame.ptx" };
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        {
          g_autofree char *path = g_build_filename (tmp, names[i], NULL);
          g_unlink (path);
        }
      g_rmdir (tmp);
    }
  return status;
}
