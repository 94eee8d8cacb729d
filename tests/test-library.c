/* test-library.c - the kernel library (traces/kernels/): every built-in
 * kernel's output equals its plain-C reference at the default size and at
 * awkward ones; the warp-synchronous and shuffle reductions are exact;
 * divergence shows in the counters and the reports; the access-pattern
 * kernels give the counts the hardware rules give (BRIEF section 4, each
 * expected value derived in a comment); `memsim compare` lists a family in
 * the seeds' order.
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "emulator.h"
#include "problem.h"
#include "report.h"

/* A kernel run: the problem (its buffers hold the output) and the counters. */
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

/* Runs kernel `name` with optional --size, --block and NULL-terminated
 * "name=value" parameters; asserts that it runs and that its output check
 * passes. */
static Run
run_kernel (const char *name, const char *size, const char *block, const char *const *params)
{
  const MsKernel *k = ms_kernel_find (name);
  g_assert_nonnull (k);
  Run r = { ms_problem_new (k), NULL };
  g_autoptr (GError) error = NULL;
  if (block && !ms_problem_set_block (r.problem, block, &error))
    g_error ("%s --block %s: %s", name, block, error->message);
  if (size && !ms_problem_set_size (r.problem, size, &error))
    g_error ("%s --size %s: %s", name, size, error->message);
  for (int i = 0; params && params[i]; i++)
    {
      g_auto (GStrv) kv = g_strsplit (params[i], "=", 2);
      if (!ms_problem_set_param (r.problem, kv[0], kv[1], &error))
        g_error ("%s -p %s: %s", name, params[i], error->message);
    }
  if (!ms_problem_setup (r.problem, &error))
    g_error ("%s setup: %s", name, error->message);
  /* the store probes (smem_stride, smem_gather -p op=1) have every warp of
   * the block store to the same elements: a write-write race by design
   * (docs/model.md, "Races"); their counts are what is tested here */
  r.problem->allow_races = (strcmp (name, "smem_stride") == 0 || strcmp (name, "smem_gather") == 0)
                           && ms_problem_param (r.problem, "op") == 1;
  if (!ms_problem_simulate (r.problem, ms_arch_default (), 0, NULL, &r.stats, &error))
    g_error ("%s --size %s: %s", name, size ? size : "(default)", error->message);
  if (!k->check (r.problem, &error))
    g_error ("%s --size %s: %s", name, size ? size : "(default)", error->message);
  return r;
}

/* ------------------------------------------------- outputs, every kernel */

/* Awkward sizes by number of size parameters: a single element, sizes that
 * are not multiples of 32 (or of any tile), and several blocks with a
 * partial last one.  NULL: the defaults. */
static const char *const sizes_1d[] = { NULL, "1", "33", "1000", NULL };
static const char *const sizes_2d[] = { NULL, "1", "33x17", "100x37", NULL };
static const char *const sizes_3d[] = { NULL, "1", "33x17x5", "70x9x37", NULL };

typedef struct {
  const MsKernel *kernel;
  const char *size;   /* NULL: default */
} OutputCase;

static void
test_output (gconstpointer data)
{
  const OutputCase *c = data;
  Run r = run_kernel (c->kernel->name, c->size, NULL, NULL);
  run_clear (&r);
}

static gboolean
library_kernel (const MsKernel *k)
{
  return strcmp (k->family, "test") != 0;
}

static void
add_output_tests (GPtrArray *cases)
{
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    {
      if (!library_kernel (*k))
        continue;
      int dims = 0;
      while (dims < 3 && (*k)->size_params[dims])
        dims++;
      const char *const *sizes = dims == 3 ? sizes_3d : dims == 2 ? sizes_2d : sizes_1d;
      /* defaults first (sizes[0] == NULL), then the awkward sizes */
      for (int i = 0; i == 0 || sizes[i]; i++)
        {
          OutputCase *c = g_new0 (OutputCase, 1);
          g_ptr_array_add (cases, c);   /* freed after the run */
          c->kernel = *k;
          c->size = sizes[i];
          g_autofree char *path = g_strdup_printf ("/library/output/%s/%s", (*k)->name,
                                                   sizes[i] ? sizes[i] : "default");
          g_test_add_data_func (path, c, test_output);
        }
    }
}

/* Every family the issue asks for is in the registry, with a descriptor
 * that says where it comes from and what it does. */
static void
test_descriptors (void)
{
  const char *families[] = { "transpose", "reduce", "stencil", "gemm", "access" };
  const guint counts[] = { 8, 8, 5, 5, 10 };
  for (gsize f = 0; f < G_N_ELEMENTS (families); f++)
    {
      guint n = 0;
      for (const MsKernel *const *k = ms_kernels (); *k; k++)
        if (strcmp ((*k)->family, families[f]) == 0)
          {
            n++;
            g_assert_nonnull ((*k)->origin);
            g_assert_nonnull ((*k)->description);
            g_assert_nonnull ((*k)->params);
            g_assert_nonnull ((*k)->size_params[0]);
            g_assert_nonnull ((*k)->bind_entry);
            for (const MsParamSpec *s = (*k)->params; s->name; s++)
              {
                g_assert_nonnull (s->help);
                g_assert_cmpint (s->min, <=, s->def);
                g_assert_cmpint (s->def, <=, s->max);
              }
          }
      g_assert_cmpuint (n, ==, counts[f]);
    }
}

/* ------------------------------------------------------------ reductions */

static const char *const reduce_family[] = {
  "reduce_interleaved", "reduce_nondivergent", "reduce_sequential", "reduce_firstadd",
  "reduce_unroll_last", "reduce_unroll_complete", "reduce_multiple", "reduce_shfl",
};

/* Independent of the reference's block assignment: whatever the variant,
 * the per-block sums add up to the sum of the input. */
static void
test_reduce_totals (void)
{
  const char *const params[] = { "n=100003", NULL };   /* prime: no block divides it */
  for (gsize v = 0; v < G_N_ELEMENTS (reduce_family); v++)
    {
      Run r = run_kernel (reduce_family[v], NULL, NULL, params);
      const MsProblem *p = r.problem;
      const int *out = p->args.buf[0], *in = p->args.buf[1];
      gint64 got = 0, want = 0;
      for (guint b = 0; b < p->args.grid[0]; b++)
        got += out[b];
      for (gint64 i = 0; i < 100003; i++)
        want += in[i];
      g_assert_cmpint (got, ==, want);
      run_clear (&r);
    }
}

/* The warp-synchronous last warp (volatile shared memory, no __syncwarp)
 * and the shuffle butterfly are exact at every block size they allow:
 * any lane that stored before its neighbour loaded, or any shuffle that
 * read the wrong lane, would change an integer sum. */
static void
test_reduce_warp_sync_exact (void)
{
  const char *blocks[] = { "64", "128", "256", "512", "1024" };
  const char *kernels[] = { "reduce_unroll_last", "reduce_unroll_complete", "reduce_multiple",
                            "reduce_shfl" };
  const char *const params[] = { "n=77777", NULL };
  for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
    for (gsize b = 0; b < G_N_ELEMENTS (blocks); b++)
      {
        Run r = run_kernel (kernels[k], NULL, blocks[b], params);   /* checks out[] exactly */
        run_clear (&r);
      }
}

/* The block rule of the tree reductions: power-of-two 1D blocks of 64..1024. */
static void
test_reduce_block_rule (void)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("reduce_sequential"));
  g_autoptr (GError) error = NULL;
  const char *bad[] = { "100", "32", "128x2", "2048" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_assert_false (ms_problem_set_block (p, bad[i], &error));
      g_assert_nonnull (error);
      g_clear_error (&error);
    }
  g_assert_true (ms_problem_set_block (p, "512", &error));
  g_assert_no_error (error);
  /* a 1D-only kernel refuses a 2D block with the rule's error code */
  g_autoptr (MsProblem) q = ms_problem_new (ms_kernel_find ("gmem_stride"));
  g_assert_false (ms_problem_set_block (q, "32x8", &error));
  g_assert_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_BLOCK_RULE);
}

/* reduce_nondivergent is seed 003's "bank conflicts" version: at step s the
 * active threads access sdata[2*s*tid]: word stride 2s, a gcd(2s, 32)-way
 * conflict; reduce_sequential's stride-1 accesses have none. */
static void
test_reduce_conflicts (void)
{
  Run r = run_kernel ("reduce_nondivergent", NULL, NULL, NULL);
  MsCounters c;
  ms_stats_total (r.stats, MS_SPACE_SHARED, MS_OP_LD, &c);
  g_assert_cmpuint (c.v[MS_SLOT_EXCESSIVE], >, 0);
  run_clear (&r);
  r = run_kernel ("reduce_sequential", NULL, NULL, NULL);
  ms_stats_total (r.stats, MS_SPACE_SHARED, -1, &c);
  g_assert_cmpuint (c.v[MS_SLOT_EXCESSIVE], ==, 0);
  run_clear (&r);
}

/* ------------------------------------------------------------ divergence */

/* The counters of the data[j] load of per_thread_sum / _capped: of every
 * instruction nvcc made of it (it unrolls the loop). */
static MsCounters
data_load (const Run *r)
{
  MsCounters c = { 0 };
  guint n = 0;
  for (guint i = 0; i < r->stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (r->stats->sites, MsSiteStats, i);
      g_autofree char *text = ms_kernel_source_line (s->site->file, s->site->line);
      if (text && strstr (text, "LD (data[j])"))
        {
          ms_counters_add (&c, &s->c);
          n++;
        }
    }
  g_assert_cmpuint (n, >, 0);
  return c;
}

/* seed 001's divergent iteration.  Derived from the input alone: lane l of
 * a warp loads data[j] len(row) times, so the active lanes summed over the
 * load's executions are the sum of the lengths, however nvcc unrolled the
 * loop; a warp whose rows differ in length runs partial warps. */
static void
test_per_thread_sum_partial (void)
{
  Run r = run_kernel ("per_thread_sum", NULL, NULL, NULL);
  const int *indices = r.problem->args.buf[1];
  gint64 n = ms_problem_param (r.problem, "n");
  guint64 lanes = 0, longest = 0;
  for (gint64 w = 0; w < n; w += 32)
    {
      int max = 0;
      for (gint64 i = w; i < MIN (w + 32, n); i++)
        {
          int len = indices[i + 1] - indices[i];
          max = MAX (max, len);
          lanes += (guint64) len;
        }
      longest += (guint64) max;
    }
  MsCounters c = data_load (&r);
  g_assert_cmpuint (c.lanes, ==, lanes);
  g_assert_cmpuint (c.partial, >, 0);
  /* at least one instruction a step of each warp's longest row, over the
   * unrolled loop's 4 steps an instruction */
  g_assert_cmpuint (c.executions, >=, longest / 4);
  MsDivergence d;
  ms_report_divergence (r.stats, &d);
  g_assert_cmpuint (d.partial, >, 0);
  g_assert_cmpfloat (d.partial_warp_share, >, 0.0);
  g_assert_cmpfloat (d.avg_active_lanes, <, 32.0);
  guint64 uncapped = c.executions;
  run_clear (&r);

  /* Capped at 16 with 4 rows per thread (the defaults): lanes done with a
   * row take their next one while the long rows go on, so the warps run
   * fewer data[j] instructions with more lanes each (about half). */
  r = run_kernel ("per_thread_sum_capped", NULL, NULL, NULL);
  c = data_load (&r);
  g_assert_cmpuint (c.executions, <, uncapped * 6 / 10);
  g_assert_cmpuint (c.lanes, ==, lanes);   /* the same elements, added once each */
  run_clear (&r);
}

/* Whole warps, no branch: no partial-warp instruction at all. */
static void
test_matrix_add_no_partial (void)
{
  Run r = run_kernel ("matrix_add", "64x64", NULL, NULL);
  MsDivergence d;
  ms_report_divergence (r.stats, &d);
  /* 64x64 threads in 32x32 blocks: 4 blocks x 32 warps, each warp 2 loads
   * and 1 store: 384 executions, none partial */
  g_assert_cmpuint (d.executions, ==, 4 * 32 * 3);
  g_assert_cmpuint (d.partial, ==, 0);
  g_assert_cmpfloat (d.avg_active_lanes, ==, 32.0);
  run_clear (&r);
}

/* The report's JSON carries the kernel's divergence (partial / executions). */
static void
test_report_divergence_json (void)
{
  Run r = run_kernel ("per_thread_sum", "1000", NULL, NULL);
  g_autoptr (MsRunInfo) info = ms_problem_run_info (r.problem, ms_arch_default (), "passed");
  MsTraceReport report = { .info = info, .arch = ms_arch_default (), .stats = r.stats,
                           .seconds = 0.0 };
  g_autoptr (GString) out = g_string_new (NULL);
  ms_report_write (&report, MS_FORMAT_JSON, out);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, out->str, -1, &error));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *div = json_object_get_object_member (root, "divergence");
  g_assert_nonnull (div);
  /* recompute from the per-site counters */
  guint64 executions = 0, partial = 0;
  for (guint i = 0; i < r.stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (r.stats->sites, MsSiteStats, i);
      executions += s->c.executions;
      partial += s->c.partial;
    }
  g_assert_cmpuint (partial, >, 0);
  g_assert_cmpint (json_object_get_int_member (div, "partial_warp_executions"), ==, partial);
  g_assert_cmpint (json_object_get_int_member (div, "executions"), ==, executions);
  g_assert_cmpfloat_with_epsilon (json_object_get_double_member (div, "partial_warp_share"),
                                  (double) partial / (double) executions, 1e-12);

  g_string_truncate (out, 0);
  ms_report_write (&report, MS_FORMAT_TEXT, out);
  g_assert_nonnull (strstr (out->str, "Divergence: "));
  run_clear (&r);
}

/* ---------------------------------------------------- access patterns */

/* Totals of one space and op. */
static MsCounters
totals (const Run *r, MsSpace space, MsOp op)
{
  MsCounters c;
  ms_stats_total (r->stats, space, op, &c);
  return c;
}

/* gmem_stride at n = 1024 threads (32 full warps, so 32 load requests):
 * lane l of a warp loads bytes [w*(i*stride + offset), +w). */
static void
check_gmem (const char *width, const char *stride, const char *offset, guint64 sectors_per_req)
{
  g_autofree char *pw = g_strconcat ("width=", width, NULL);
  g_autofree char *ps = g_strconcat ("stride=", stride, NULL);
  g_autofree char *po = g_strconcat ("offset=", offset, NULL);
  const char *const params[] = { pw, ps, po, NULL };
  Run r = run_kernel ("gmem_stride", "1024", NULL, params);
  MsCounters c = totals (&r, MS_SPACE_GLOBAL, MS_OP_LD);
  g_assert_cmpuint (c.executions, ==, 32);   /* 1024 / 32 warps, one load each */
  g_assert_cmpuint (c.v[MS_SLOT_REQUESTS], ==, 32);
  if (c.v[MS_SLOT_SECTORS] != 32 * sectors_per_req)
    g_error ("gmem_stride width=%s stride=%s offset=%s: %" G_GUINT64_FORMAT
             " sectors per request, expected %" G_GUINT64_FORMAT,
             width, stride, offset, c.v[MS_SLOT_SECTORS] / 32, sectors_per_req);
  run_clear (&r);
}

static void
test_gmem_stride (void)
{
  /* 4-byte words: a warp covers 32*4*stride bytes.  stride 1: 128 B =
   * 4 sectors.  stride 2: words 0, 2, ..., 62 span 256 B and every 32-B
   * sector (8 words) holds 4 of them: 8 sectors.  stride 32: lanes 128 B
   * apart, one sector each: 32. */
  check_gmem ("4", "1", "0", 4);
  check_gmem ("4", "2", "0", 8);
  check_gmem ("4", "32", "0", 32);
  /* stride 3, 4: spans of 384 and 512 B, every sector touched: 12, 16 */
  check_gmem ("4", "3", "0", 12);
  check_gmem ("4", "4", "0", 16);
  /* offset 1 word: bytes 4..131 of a 256-aligned buffer: sectors 0..4 = 5 */
  check_gmem ("4", "1", "1", 5);
  /* stride 0: every lane the same word: 1 sector */
  check_gmem ("4", "0", "0", 1);
  /* 16-byte elements, stride 1: 32 * 16 = 512 B = 16 sectors, 1 request */
  check_gmem ("16", "1", "0", 16);
  /* 8-byte: 256 B = 8 sectors; 2-byte: 64 B = 2 sectors; 1-byte: 32 B = 1 */
  check_gmem ("8", "1", "0", 8);
  check_gmem ("2", "1", "0", 2);
  check_gmem ("1", "1", "0", 1);
}

/* smem_stride at n = 1024 threads (4 blocks of 8 warps: 32 warp-level
 * strided accesses); lane l of warp w accesses element l*stride + w. */
static void
check_smem (const char *width, const char *stride, const char *op, guint64 wavefronts_per_inst)
{
  g_autofree char *pw = g_strconcat ("width=", width, NULL);
  g_autofree char *ps = g_strconcat ("stride=", stride, NULL);
  g_autofree char *po = g_strconcat ("op=", op, NULL);
  const char *const params[] = { pw, ps, po, NULL };
  Run r = run_kernel ("smem_stride", "1024", NULL, params);
  /* op 0: the only shared loads are the strided ones (the fill stores);
   * op 1: the only shared stores are the strided ones (the load back uses
   * the same pattern, so it must cost the same) */
  MsOp which = strcmp (op, "0") == 0 ? MS_OP_LD : MS_OP_ST;
  MsCounters c = totals (&r, MS_SPACE_SHARED, which);
  g_assert_cmpuint (c.executions, ==, 32);
  if (c.v[MS_SLOT_WAVEFRONTS] != 32 * wavefronts_per_inst)
    g_error ("smem_stride width=%s stride=%s op=%s: %g wavefronts per instruction, expected "
             "%" G_GUINT64_FORMAT, width, stride, op, (double) c.v[MS_SLOT_WAVEFRONTS] / 32.0,
             wavefronts_per_inst);
  if (which == MS_OP_ST)
    {
      MsCounters l = totals (&r, MS_SPACE_SHARED, MS_OP_LD);
      g_assert_cmpuint (l.v[MS_SLOT_WAVEFRONTS], ==, c.v[MS_SLOT_WAVEFRONTS]);
    }
  run_clear (&r);
}

static void
test_smem_stride (void)
{
  /* 4-byte words l*stride + w: bank (l*stride + w) mod 32.  stride 32:
   * bank w for all 32 lanes, 32 distinct words: 32 wavefronts.  stride 33:
   * bank (l + w) mod 32, all distinct: 1.  stride 1: 1; stride 2: words
   * 2l + w, lanes l and l+16 share a bank: 2; stride 0: one word (broadcast): 1. */
  check_smem ("4", "32", "0", 32);
  check_smem ("4", "33", "0", 1);
  check_smem ("4", "1", "0", 1);
  check_smem ("4", "2", "0", 2);
  check_smem ("4", "0", "0", 1);
  /* stores follow the same rule */
  check_smem ("4", "32", "1", 32);
  check_smem ("4", "33", "1", 1);
  /* 8-byte elements go in two halves of 16 lanes.  stride 1: each half is
   * 128 contiguous bytes, 1 wavefront: 2.  stride 2: a half spans 256 B,
   * element 2l holds words 4l, 4l+1: lanes l and l+8 share banks: 2 per
   * half, 4. */
  check_smem ("8", "1", "0", 2);
  check_smem ("8", "2", "0", 4);
  /* 16-byte elements in four quarters of 8 lanes.  stride 1: 128 B per
   * quarter: 4.  stride 2: words 8l..8l+3, lanes l and l+4 share banks:
   * 2 per quarter, 8. */
  check_smem ("16", "1", "0", 4);
  check_smem ("16", "2", "0", 8);
  /* 1- and 2-byte elements at stride 1: 32 or 64 contiguous bytes, 1 */
  check_smem ("1", "1", "0", 1);
  check_smem ("2", "1", "0", 1);
  /* Strides past 64 (up to 128; 64 for 16-byte elements).  1-byte,
   * stride 128: lane l's byte 128l + w lies in word 32l + w/4, bank
   * (32l + w/4) mod 32 = w/4 for all 32 lanes, 32 different words: 32
   * wavefronts (the H100 case "1-byte elements, stride 128"), stores too.
   * 1-byte, stride 96: word 24l + w/4, and 24l mod 32 takes 4 values
   * (0, 24, 16, 8): 4 banks of 8 lanes, 8.  2-byte, stride 128: word
   * 64l + w/2, one bank: 32.  4-byte, stride 128: word 128l + w, bank w:
   * 32; stride 100: bank (100l + w) mod 32 = (4l + w) mod 32, 8 banks of 4
   * lanes: 4.  8-byte, stride 128: in each half the 16 lanes' words
   * 256l + 2w and +1 are on the same two banks: 16 per half, 32.  16-byte
   * at its largest stride, 64: words 256l + 4w..+3, each quarter's 8 lanes
   * on the same 4 banks: 8 per quarter, 32. */
  check_smem ("1", "128", "0", 32);
  check_smem ("1", "128", "1", 32);
  check_smem ("1", "96", "0", 8);
  check_smem ("2", "128", "0", 32);
  check_smem ("4", "128", "0", 32);
  check_smem ("4", "100", "0", 4);
  check_smem ("8", "128", "0", 32);
  check_smem ("16", "64", "0", 32);
}

/* smem_gather at n = 1024 threads (32 warp-level pattern accesses): the
 * kernel, the emulator and the bank model together give the H100's
 * numbers (docs/validation.md, "Shared-memory broadcasts and partial
 * patterns", the rows named in the comments; the model's rule is tested
 * access by access in tests/test-banks.c). */
static void
check_gather (const char *pattern, const char *width, const char *op, const char *mask,
              guint64 wavefronts_per_inst, guint64 excessive_per_inst)
{
  g_autofree char *pp = g_strconcat ("pattern=", pattern, NULL);
  g_autofree char *pw = g_strconcat ("width=", width, NULL);
  g_autofree char *po = g_strconcat ("op=", op, NULL);
  g_autofree char *pm = g_strconcat ("mask=", mask, NULL);
  const char *const params[] = { pp, pw, po, pm, NULL };
  Run r = run_kernel ("smem_gather", "1024", NULL, params);
  /* op 0: the pattern loads are the only shared loads; op 1: the pattern
   * stores are the only shared stores */
  MsCounters c = totals (&r, MS_SPACE_SHARED, strcmp (op, "0") == 0 ? MS_OP_LD : MS_OP_ST);
  g_assert_cmpuint (c.executions, ==, 32);
  if (c.v[MS_SLOT_WAVEFRONTS] != 32 * wavefronts_per_inst || c.v[MS_SLOT_EXCESSIVE] != 32 * excessive_per_inst)
    g_error ("smem_gather pattern=%s width=%s op=%s mask=%s: %g (%g) wavefronts (excessive) "
             "per instruction, expected %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT ")",
             pattern, width, op, mask, c.v[MS_SLOT_WAVEFRONTS] / 32.0, c.v[MS_SLOT_EXCESSIVE] / 32.0,
             wavefronts_per_inst, excessive_per_inst);
  run_clear (&r);
}

static void
test_smem_gather (void)
{
  check_gather ("3", "8", "0", "32", 1, 0);    /* pairs, 8 B load: 1 (0) */
  check_gather ("3", "8", "1", "32", 2, 0);    /* pairs, 8 B store: 2 (0) */
  check_gather ("1", "16", "0", "32", 2, 0);   /* broadcast, 16 B load: 2 (0) */
  check_gather ("1", "16", "1", "32", 4, 0);   /* broadcast, 16 B store: 4 (0) */
  check_gather ("2", "8", "0", "32", 2, 0);    /* half-repeat, 8 B load: 2 (0) */
  check_gather ("11", "8", "0", "32", 2, 1);   /* two-rows, 8 B load: 2 (1) */
  check_gather ("7", "16", "0", "32", 11, 7);  /* permutation, 16 B load: 11 (7) */
  check_gather ("1", "16", "0", "17", 2, 0);   /* broadcast-m17, 16 B load: 2 (0) */
  check_gather ("1", "16", "1", "17", 3, 0);   /* broadcast-m17, 16 B store: 3 (0) */
}

/* broadcast_read: one global word per warp -> 1 sector per request; one
 * shared word per warp -> 1 wavefront per instruction (load and store). */
static void
test_broadcast (void)
{
  Run r = run_kernel ("broadcast_read", "1024", NULL, NULL);
  MsCounters g = totals (&r, MS_SPACE_GLOBAL, MS_OP_LD);
  g_assert_cmpuint (g.v[MS_SLOT_REQUESTS], ==, 32);   /* 32 warps */
  g_assert_cmpuint (g.v[MS_SLOT_SECTORS], ==, 32);
  MsCounters s;
  ms_stats_total (r.stats, MS_SPACE_SHARED, -1, &s);
  g_assert_cmpuint (s.executions, ==, 64);  /* a store (lane 0) and a load per warp */
  g_assert_cmpuint (s.v[MS_SLOT_WAVEFRONTS], ==, 64);
  g_assert_cmpuint (s.v[MS_SLOT_EXCESSIVE], ==, 0);
  run_clear (&r);
}

/* seed 001: AoS reads of a 12-byte record's key span 32*12 = 384 B = 12
 * sectors; the SoA keys 128 B = 4; float3 .x like the record: 12. */
static void
test_aos_soa (void)
{
  const char *kernels[] = { "aos_read", "soa_read", "aos_float3_read" };
  const guint64 sectors[] = { 12, 4, 12 };
  for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      Run r = run_kernel (kernels[k], "1024", NULL, NULL);
      MsCounters c = totals (&r, MS_SPACE_GLOBAL, MS_OP_LD);
      g_assert_cmpuint (c.v[MS_SLOT_REQUESTS], ==, 32);
      g_assert_cmpuint (c.v[MS_SLOT_SECTORS], ==, 32 * sectors[k]);
      run_clear (&r);
    }
}

/* gemm_tiled vs gemm_tiled_nopad: in seed 004's loop As[ty][k] is one word
 * per warp and Bs[k][tx] stride 1: neither conflicts, padded or not.
 * gemm_regtile's Bs[k][tx*4+n] reads: 16 distinct words at stride 4
 * (each half-warp's lanes repeat them), banks 4*tx mod 32: tx and tx+8
 * collide: 2 wavefronts. */
static void
test_gemm_banks (void)
{
  Run r = run_kernel ("gemm_tiled", "64", NULL, NULL);
  MsCounters c = totals (&r, MS_SPACE_SHARED, MS_OP_LD);
  g_assert_cmpuint (c.v[MS_SLOT_EXCESSIVE], ==, 0);
  run_clear (&r);
  r = run_kernel ("gemm_tiled_nopad", "64", NULL, NULL);
  c = totals (&r, MS_SPACE_SHARED, MS_OP_LD);
  g_assert_cmpuint (c.v[MS_SLOT_EXCESSIVE], ==, 0);
  run_clear (&r);
  r = run_kernel ("gemm_regtile", "64", NULL, NULL);
  gboolean found = FALSE;
  for (guint i = 0; i < r.stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (r.stats->sites, MsSiteStats, i);
      g_autofree char *text = ms_kernel_source_line (s->site->file, s->site->line);
      if (s->space == MS_SPACE_SHARED && text && strstr (text, "b_reg[n] = LD"))
        {
          g_assert_cmpuint (s->c.v[MS_SLOT_WAVEFRONTS], ==, 2 * s->c.executions);
          found = TRUE;
        }
    }
  g_assert_true (found);
  run_clear (&r);
}

/* ------------------------------------------------------ memsim compare */

/* Runs $MEMSIM with args; returns its stdout, *err its stderr (or NULL). */
static char *
run_memsim_err (const char *args, int *status, char **err)
{
  const char *memsim = g_getenv ("MEMSIM");
  g_autofree char *cmd = g_strdup_printf ("%s %s", memsim, args);
  char *out = NULL;
  g_autofree char *err_text = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (g_spawn_command_line_sync (cmd, &out, &err_text, status, &error));
  g_assert_no_error (error);
  if (err)
    *err = g_steal_pointer (&err_text);
  else if (err_text && *err_text)
    g_test_message ("%s", err_text);
  return out;
}

static char *
run_memsim (const char *args, int *status)
{
  return run_memsim_err (args, status, NULL);
}

static void
test_compare_reduce_order (void)
{
  if (g_getenv ("MEMSIM") == NULL)
    {
      g_test_skip ("MEMSIM is not set (run under make check)");
      return;
    }
  int status;
  g_autofree char *out = run_memsim ("compare reduce --format csv -p n=5000", &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), >=, 1 + G_N_ELEMENTS (reduce_family));
  g_assert_true (g_str_has_prefix (lines[0], "kernel,"));
  for (gsize v = 0; v < G_N_ELEMENTS (reduce_family); v++)
    {
      g_autofree char *want = g_strconcat (reduce_family[v], ",5000,", NULL);
      g_assert_true (g_str_has_prefix (lines[v + 1], want));
      /* the check, then the predicted columns (dram_bytes ... bound) */
      g_assert_nonnull (strstr (lines[v + 1], ",\"passed\","));
      g_assert_true (g_str_has_suffix (lines[v + 1], "-bound\"")
                     || strstr (lines[v + 1], "-bound:") != NULL);
    }
  g_assert_cmpstr (lines[1 + G_N_ELEMENTS (reduce_family)], ==, "");

  /* the text table too, rows in the same order */
  g_free (out);
  out = run_memsim ("compare reduce -p n=5000", &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  const char *at = out;
  for (gsize v = 0; v < G_N_ELEMENTS (reduce_family); v++)
    {
      g_autofree char *row = g_strconcat ("\n", reduce_family[v], " ", NULL);
      const char *found = strstr (at, row);
      g_assert_nonnull (found);
      at = found + 1;
    }
}

/* --block goes to the variants whose rule allows it; the tiled stencils
 * keep their 32x8 block.  JSON says which. */
static void
test_compare_block_json (void)
{
  if (g_getenv ("MEMSIM") == NULL)
    {
      g_test_skip ("MEMSIM is not set (run under make check)");
      return;
    }
  int status;
  g_autofree char *out = run_memsim ("compare stencil --size 40x20x6 --block 16x4x2 "
                                     "--format json", &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, out, -1, &error));
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  g_assert_cmpstr (json_object_get_string_member (root, "family"), ==, "stencil");
  JsonArray *rows = json_object_get_array_member (root, "variants");
  g_assert_cmpuint (json_array_get_length (rows), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      JsonObject *row = json_array_get_object_element (rows, i);
      JsonArray *block = json_object_get_array_member (row, "block");
      gboolean naive = i == 0;   /* stencil_naive: any block */
      g_assert_cmpint (json_array_get_int_element (block, 0), ==, naive ? 16 : 32);
      g_assert_cmpint (json_array_get_int_element (block, 1), ==, naive ? 4 : 8);
      g_assert_cmpint (json_object_get_boolean_member (row, "block_is_default"), ==, !naive);
      g_assert_cmpstr (json_object_get_string_member (row, "size"), ==, "40x20x6");
      g_assert_cmpstr (json_object_get_string_member (row, "check"), ==, "passed");
      /* ratios are to the first variant */
      JsonObject *ratios = json_object_get_object_member (row, "ratio_to_first");
      if (i == 0)
        g_assert_cmpfloat (json_object_get_double_member (ratios, "instructions"), ==, 1.0);
      /* bytes moved = sectors x 32 + wavefronts x 128 */
      g_assert_cmpint (json_object_get_int_member (row, "bytes_moved"), ==,
                       json_object_get_int_member (row, "global_sectors") * 32
                         + json_object_get_int_member (row, "shared_wavefronts") * 128);
    }
}

static void
test_compare_errors (void)
{
  if (g_getenv ("MEMSIM") == NULL)
    {
      g_test_skip ("MEMSIM is not set (run under make check)");
      return;
    }
  const char *bad[] = { "compare nosuchfamily", "compare", "compare reduce -p nosuch=1",
                        "compare reduce -p n=0", "compare reduce --format xml" };
  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      int status;
      g_autofree char *err = NULL;
      g_autofree char *out = run_memsim_err (bad[i], &status, &err);
      g_assert_false (g_spawn_check_wait_status (status, NULL));
      g_assert_cmpstr (out, ==, "");   /* nothing on stdout */
      /* one line on stderr that says what was wrong */
      g_assert_true (g_str_has_prefix (err, "memsim: "));
      g_assert_nonnull (strchr (err, '\n'));
      g_assert_cmpstr (strchr (err, '\n') + 1, ==, "");
    }
}

/* A buffer bigger than any machine's memory (2^50 bytes: 1 PiB, which
 * g_format_size writes in SI units as 1.1 PB): NULL and a one-line error
 * naming the kernel and the size, nothing allocated, no exit. */
static void
test_buffer_too_big (void)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("transpose_naive"));
  g_autoptr (GError) error = NULL;
  g_assert_null (ms_problem_buffer (p, "huge", (gsize) 1 << 50, FALSE, &error));
  g_assert_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_TOO_BIG);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message,
                                   "transpose_naive: the problem needs at least 1.1 PB of buffers"));
  g_assert_true (g_str_has_suffix (error->message, "; use a smaller --size"));
  g_assert_null (strchr (error->message, '\n'));
  g_assert_cmpuint (p->n_buffers, ==, 0);
}

/* The files compiled into the library (build-aux/embed-files.py: the kernel
 * sources the reports quote, the default preset) are the
 * source tree's, byte for byte: quotes, backslashes, question marks and
 * all (a wrong escape in the generator shows here), and nothing else is
 * found by a path the manifests do not list. */
GBytes *ms_kernel_sources_lookup (const char *path);
GBytes *ms_arch_files_lookup (const char *path);

static void
test_embedded_files (void)
{
  static const struct {
    GBytes *(*lookup) (const char *path);
    const char *path, *file;
  } files[] = {
    { ms_kernel_sources_lookup, "/org/memsim/kernels/transpose.cu", "traces/kernels/transpose.cu" },
    { ms_kernel_sources_lookup, "/org/memsim/kernels/tests.cu", "traces/kernels/tests.cu" },
    { ms_kernel_sources_lookup, "/org/memsim/kernels/reduce.cu", "traces/kernels/reduce.cu" },
    { ms_kernel_sources_lookup, "/org/memsim/kernels/stencil.cu", "traces/kernels/stencil.cu" },
    { ms_kernel_sources_lookup, "/org/memsim/kernels/gemm.cu", "traces/kernels/gemm.cu" },
    { ms_kernel_sources_lookup, "/org/memsim/kernels/access.cu", "traces/kernels/access.cu" },
    { ms_kernel_sources_lookup, "/org/memsim/kernels/access-width.cuh",
      "traces/kernels/access-width.cuh" },
    { ms_arch_files_lookup, "/org/memsim/arch/h100.arch", "sim/arch/h100.arch" },
  };
  gboolean quote = FALSE, backslash = FALSE, question = FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (MEMSIM_SRCDIR, files[i].file, NULL);
      g_autofree char *want = NULL;
      gsize want_len = 0;
      g_assert_true (g_file_get_contents (path, &want, &want_len, NULL));
      g_autoptr (GBytes) got = files[i].lookup (files[i].path);
      g_assert_nonnull (got);
      gsize got_len = 0;
      const char *data = g_bytes_get_data (got, &got_len);
      g_assert_cmpmem (data, got_len, want, want_len);
      g_assert_cmpint (data[got_len], ==, '\0');   /* NUL-terminated, as GResource's were */
      quote |= strchr (want, '"') != NULL;
      backslash |= strchr (want, '\\') != NULL;
      question |= strchr (want, '?') != NULL;
    }
  g_assert_true (quote && backslash && question);   /* the escapes were exercised */
  g_assert_null (ms_kernel_sources_lookup ("/org/memsim/kernels/nosuch.cu"));
  g_assert_null (ms_kernel_sources_lookup ("/org/memsim/arch/h100.arch"));   /* another table's */
  g_assert_null (ms_arch_files_lookup ("h100.arch"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/library/descriptors", test_descriptors);
  g_test_add_func ("/library/embedded-files", test_embedded_files);
  g_test_add_func ("/library/buffer-too-big", test_buffer_too_big);
  g_autoptr (GPtrArray) cases = g_ptr_array_new_with_free_func (g_free);
  add_output_tests (cases);
  g_test_add_func ("/library/reduce/totals", test_reduce_totals);
  g_test_add_func ("/library/reduce/warp-sync-and-shfl-exact", test_reduce_warp_sync_exact);
  g_test_add_func ("/library/reduce/block-rule", test_reduce_block_rule);
  g_test_add_func ("/library/reduce/bank-conflicts", test_reduce_conflicts);
  g_test_add_func ("/library/divergence/per-thread-sum", test_per_thread_sum_partial);
  g_test_add_func ("/library/divergence/matrix-add-none", test_matrix_add_no_partial);
  g_test_add_func ("/library/divergence/report-json", test_report_divergence_json);
  g_test_add_func ("/library/access/gmem-stride", test_gmem_stride);
  g_test_add_func ("/library/access/smem-stride", test_smem_stride);
  g_test_add_func ("/library/access/smem-gather", test_smem_gather);
  g_test_add_func ("/library/access/broadcast", test_broadcast);
  g_test_add_func ("/library/access/aos-soa", test_aos_soa);
  g_test_add_func ("/library/gemm/banks", test_gemm_banks);
  g_test_add_func ("/library/compare/reduce-order", test_compare_reduce_order);
  g_test_add_func ("/library/compare/block-json", test_compare_block_json);
  g_test_add_func ("/library/compare/errors", test_compare_errors);
  return g_test_run ();
}
