/* test-emulator.c - the emulator's semantics on small test kernels
 * (traces/kernels/tests.cu, tests/emulator-kernels.c): barriers, warp-synchronous code, shuffles and
 * votes, divergence and active masks, atomics, early exit, 3D geometry,
 * thread-count invariance, and the errors it must report. */
#include "config.h"

#include <string.h>

#include "emulator.h"
#include "emulator-kernels.h"
#include "problem.h"
#include "sass.h"
#include "warp.h"

/* Runs kernel `name` with "name=value" settings; returns its stats or NULL
 * with *error set.  *checked tells whether the output matched. */
static MsStats *
run (const char *name, const char *const *settings, const char *block, guint threads,
     gboolean *checked, GError **error)
{
  const MsKernel *k = ms_kernel_find (name);
  g_assert_nonnull (k);
  g_autoptr (MsProblem) p = ms_problem_new (k);
  if (block)
    g_assert_true (ms_problem_set_block (p, block, NULL));
  for (int i = 0; settings && settings[i]; i += 2)
    g_assert_true (ms_problem_set_param (p, settings[i], settings[i + 1], NULL));
  g_assert_true (ms_problem_setup (p, NULL));
  /* test_warp_flag's spin on a flag another warp sets is a race by design
   * (tests/test-racecheck.c): let it through to test the warp budget */
  p->allow_races = strcmp (name, "test_warp_flag") == 0;
  MsStats *stats = NULL;
  if (!ms_problem_simulate (p, ms_arch_default (), threads, NULL, &stats, error))
    return NULL;
  g_autoptr (GError) check_error = NULL;
  *checked = k->check (p, &check_error);
  if (!*checked)
    g_test_message ("%s: %s", name, check_error->message);
  return stats;
}

static void
assert_correct (const char *name, const char *const *settings, const char *block)
{
  g_autoptr (GError) error = NULL;
  gboolean checked = FALSE;
  g_autoptr (MsStats) stats = run (name, settings, block, 0, &checked, &error);
  g_assert_no_error (error);
  g_assert_true (checked);
}

static const MsSiteStats *
site_at_line (const MsStats *stats, int line, MsSpace space, MsOp op)
{
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (stats->sites, MsSiteStats, i);
      if (s->site->line == line && s->space == space && s->op == op)
        return s;
    }
  return NULL;
}

/* The line of the first occurrence of `needle` in tests.cu. */
static int
line_of (const char *needle)
{
  for (int line = 1; line < 400; line++)
    {
      g_autofree char *text = ms_kernel_source_line ("tests.cu", line);
      if (text && strstr (text, needle))
        return line;
    }
  g_assert_not_reached ();
  return -1;
}

static void
test_warp_synchronous (void)
{
  /* Without lockstep (all loads of a step before any store) the volatile
   * tree sum reads half-updated values and the block sums differ. */
  const char *sizes[] = { "64", "1000", "1", "4097" };
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    assert_correct ("test_warp_sync", (const char *[]) { "n", sizes[i], NULL }, NULL);
}

static void
test_shuffles_and_votes (void)
{
  const char *sizes[] = { "32", "1000", "4096" };
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    assert_correct ("test_shuffle", (const char *[]) { "n", sizes[i], NULL }, NULL);
}

static void
test_divergence_masks (void)
{
  g_autoptr (GError) error = NULL;
  gboolean checked = FALSE;
  g_autoptr (MsStats) stats =
    run ("test_divergence", (const char *[]) { "n", "64", NULL }, "64", 1, &checked, &error);
  g_assert_no_error (error);
  g_assert_true (checked);
  /* Loop `for k < i % 7` with 64 threads: lane i loads i % 7 times.  The
   * SASS is a loop of 4 loads, a block of 2 and a single load last (an
   * unroll plan, docs/model.md): each warp of 32 lanes (i % 7 = 0..6 in
   * both) runs the 4-block once (lanes with 4, 5, 6), the 2-block once
   * (2, 3, 6) and the single once (the odd counts): 7 loads a warp, not
   * the source's max(i % 7) = 6 (the H100 measured 7 a warp for n = 1000:
   * 224 loads, docs/validation.md).  The active lanes summed over the
   * loads equal sum(i % 7) over the lanes either way: i = 0..63: 9 full
   * cycles (0..62) * 21 + (63 % 7 = 0) = 189. */
  const MsSiteStats *ld = site_at_line (stats, line_of ("acc += LD (in[(i + k) % n]);"),
                                        MS_SPACE_GLOBAL, MS_OP_LD);
  g_assert_nonnull (ld);
  /* (source-level, a build without the nvcc build's SASS: 6 a warp) */
  guint64 loads = ms_kernel_sass_function ("test_divergence") ? 14 : 12;
  g_assert_cmpuint (ld->c.executions, ==, loads);
  g_assert_cmpuint (ld->c.lanes, ==, 189);
  g_assert_cmpuint (ld->c.partial, ==, loads);
  /* The if/else stores: odd lanes take one branch, even the other; each
   * warp executes each store once with 16 lanes. */
  const MsSiteStats *neg = site_at_line (stats, line_of ("ST (out[i], -acc);"), MS_SPACE_GLOBAL,
                                         MS_OP_ST);
  g_assert_nonnull (neg);
  g_assert_cmpuint (neg->c.executions, ==, 2);
  g_assert_cmpuint (neg->c.lanes, ==, 32);
  /* and the odd store with a stride of 2 words: 16 lanes over 128 bytes,
   * 4 sectors per request. */
  g_assert_cmpuint (neg->c.v[MS_SLOT_SECTORS], ==, 8);
}

static void
test_atomics (void)
{
  const char *sizes[] = { "1", "1000", "5000" };
  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    assert_correct ("test_atomics", (const char *[]) { "n", sizes[i], NULL }, NULL);
}

static void
test_early_exit (void)
{
  /* n = 1000 with 128-thread blocks: the last block has 104 live threads;
   * the others return before the barrier, which must still release. */
  assert_correct ("test_early_exit", (const char *[]) { "n", "1000", NULL }, NULL);
  assert_correct ("test_early_exit", (const char *[]) { "n", "130", NULL }, "96");
}

static void
test_geometry_3d (void)
{
  assert_correct ("test_3d", NULL, NULL);
  assert_correct ("test_3d", (const char *[]) { "width", "33", "height", "5", "depth", "9", NULL },
                  "4x4x4");
  assert_correct ("test_3d", (const char *[]) { "width", "7", "height", "1", "depth", "70", NULL },
                  "1x1x64");
}

static void
test_thread_count_invariance (void)
{
  /* Counters are integer sums over blocks: identical for 1, 2 and 7
   * worker threads. */
  MsStats *s[3];
  guint threads[3] = { 1, 2, 7 };
  for (int t = 0; t < 3; t++)
    {
      gboolean checked = FALSE;
      g_autoptr (GError) error = NULL;
      s[t] = run ("test_divergence", (const char *[]) { "n", "20000", NULL }, NULL, threads[t],
                  &checked, &error);
      g_assert_no_error (error);
      g_assert_true (checked);
    }
  for (int t = 1; t < 3; t++)
    {
      g_assert_cmpuint (s[t]->sites->len, ==, s[0]->sites->len);
      for (guint i = 0; i < s[0]->sites->len; i++)
        g_assert_cmpmem (&g_array_index (s[0]->sites, MsSiteStats, i).c, sizeof (MsCounters),
                         &g_array_index (s[t]->sites, MsSiteStats, i).c, sizeof (MsCounters));
    }
  for (int t = 0; t < 3; t++)
    ms_stats_free (s[t]);
}

/* The built-in kernels run from their PTX, warp-wide (sim/emulator/warp.h):
 * every one at its default size, and ragged tiles, partial warps, small
 * blocks, divergence, collectives, atomics and long warps, each with its
 * output checked; two worker threads. */
static void
test_warp_wide (void)
{
  static const struct { const char *kernel; const char *settings[7]; const char *block; } cases[] = {
    { "transpose_padded", { "width", "1000", "height", "700" }, NULL },
    { "transpose_coalesced", { "width", "33", "height", "65" }, NULL },
    { "gemm_tiled", { "n", "33", "m", "65", "k", "31" }, NULL },
    { "gemm_double_buffer", { "n", "100", "m", "40", "k", "72" }, NULL },
    { "reduce_sequential", { "n", "5000" }, "64" },
    { "reduce_unroll_last", { "n", "3001" }, NULL },
    { "stencil_shared", { "width", "50", "height", "30", "depth", "7" }, NULL },
    /* divergence: the lanes' groups split and meet as the fiber scheduler's */
    { "test_divergence", { "n", "20000" }, NULL },
    { "test_late_divergence", { "n", "5000" }, NULL },
    { "test_long_divergence", { "n", "3000" }, NULL },
    /* collectives and atomics: the fiber scheduler's waiting rules */
    { "test_shuffle", { "n", "3000" }, NULL },
    { "test_warp_sync", { "n", "3000" }, NULL },
    { "test_atomics", { "n", "3000" }, NULL },
    { "test_early_exit", { "n", "3000" }, NULL },
    /* one block whose warps each run 4096 elements of a grid-stride loop:
     * past the warp's budget, other warps run and the warp goes on where
     * it was (with the addresses and values of its access in flight) */
    { "reduce_multiple", { "n", "2097152", "blocks", "1" }, NULL },
    { "gemm_naive", { "n", "32", "m", "32", "k", "2100" }, NULL },   /* 4200 loads a warp */
    /* and where a warp's lanes diverge: long data-dependent rows */
    { "per_thread_sum", { "n", "1024", "peak", "8192" }, NULL },
    { "per_thread_sum_capped", { "n", "1024", "peak", "8192", "cap", "1048576" }, NULL },
    { "test_shuffle", { "n", "3000" }, "1024" },
  };
  guint n_builds = 0;
  for (const MsKernel *const *k = ms_kernels (); *k != NULL; k++)
    {
      if (g_str_has_prefix ((*k)->name, "test_"))
        continue;
      guint64 before = ms_emulator_warp_wide_warps ();
      assert_correct ((*k)->name, NULL, NULL);
      g_assert_cmpuint (ms_emulator_warp_wide_warps (), >, before);
      n_builds++;
    }
  g_assert_cmpuint (n_builds, >=, 36);   /* (the registry's) */
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint64 before = ms_emulator_warp_wide_warps ();
      assert_correct (cases[c].kernel, cases[c].settings, cases[c].block);
      g_assert_cmpuint (ms_emulator_warp_wide_warps (), >, before);
    }
}

/* Block sampling (MsLaunch.sample_*): how many blocks run, worked out from
 * the rule: periods of `period` groups of `group` blocks, one group each,
 * the last period choosing among the groups it has. */
static guint64
sampled (guint64 n, guint period, guint group)
{
  MsLaunch l = { .args = { .grid = { (unsigned) n, 1, 1 }, .block = { 32, 1, 1 } },
                 .sample_period = period, .sample_group = group };
  return ms_launch_sampled_blocks (&l);
}

static void
test_sample_counts (void)
{
  g_assert_cmpuint (sampled (100000, 0, 264), ==, 100000);   /* off */
  g_assert_cmpuint (sampled (100000, 1, 264), ==, 100000);
  g_assert_cmpuint (sampled (200, 10, 264), ==, 200);        /* smaller than a group */
  g_assert_cmpuint (sampled (2640, 10, 264), ==, 264);       /* one whole period */
  g_assert_cmpuint (sampled (3 * 2640, 10, 264), ==, 3 * 264);
  /* 16384 = 6 periods of 2640 + 544 blocks (groups of 264, 264, 16): the
   * last period runs one of its three groups */
  guint64 n = sampled (16384, 10, 264);
  g_assert_true (n == 6 * 264 + 264 || n == 6 * 264 + 16);
  /* about one block in `period` whatever the grid */
  for (guint64 g = 1; g < 300000; g = g * 3 + 7)
    {
      guint64 s = sampled (g, 4, 100);
      g_assert_cmpuint (s, >=, MIN (g, (g - 1) / 400 * 100 + 1));
      g_assert_cmpuint (s, <=, (g + 399) / 400 * 100);
    }
}

/* An ordered sink that records the blocks it sees, in order. */
static void
collect_block (gpointer user, const MsWarpAccess *a)
{
  GArray *blocks = user;
  if (blocks->len == 0 || g_array_index (blocks, guint32, blocks->len - 1) != a->block)
    g_array_append_val (blocks, a->block);
}

static void
test_sample_blocks (void)
{
  /* transpose_naive 2048x2048: 64 x 64 = 4096 blocks; a 10% sample in groups
   * of 264 (2 x 132 SMs of the H100): one group from the whole period of
   * 2640 blocks, one from the rest (1456 blocks, 6 groups) */
  for (guint threads = 1; threads <= 3; threads++)
    {
      g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("transpose_naive"));
      g_assert_true (ms_problem_set_size (p, "2048x2048", NULL));
      g_assert_true (ms_problem_set_sample (p, 10.0, NULL));
      g_assert_true (ms_problem_setup (p, NULL));
      g_autoptr (GArray) blocks = g_array_new (FALSE, FALSE, sizeof (guint32));
      MsStreamSink sink = { .ordered = collect_block, .user = blocks };
      MsSinks extra = { { &sink }, 1 };
      g_autoptr (MsStats) stats = NULL;
      g_assert_true (ms_problem_simulate (p, ms_arch_default (), threads, &extra, &stats, NULL));
      g_assert_cmpuint (stats->blocks, ==, 4096);
      g_assert_cmpuint (stats->blocks_run, ==, blocks->len);
      g_assert_cmpuint (blocks->len, ==, 2 * 264);
      /* in stream order, two runs of 264 consecutive blocks, one per period */
      for (guint i = 1; i < blocks->len; i++)
        if (i % 264 != 0)
          g_assert_cmpuint (g_array_index (blocks, guint32, i), ==,
                            g_array_index (blocks, guint32, i - 1) + 1);
      guint32 first = g_array_index (blocks, guint32, 0), second = g_array_index (blocks, guint32, 264);
      g_assert_cmpuint (first % 264, ==, 0);
      g_assert_cmpuint (first, <, 2640);
      g_assert_cmpuint (second, >=, 2640);
      g_assert_cmpuint (second % 264, ==, 0);
      /* every block of transpose_naive does the same: the scaled counts are
       * the whole grid's (2048^2 / 32 warp loads of 4 sectors, stores of 32) */
      MsCounters ld, st;
      ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
      ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_ST, &st);
      g_assert_cmpuint (ld.executions, ==, 2048 * 2048 / 32);
      g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, 2048 * 2048 / 8);
      g_assert_cmpuint (st.v[MS_SLOT_SECTORS], ==, 2048 * 2048);
    }
}

static void
assert_fails (const char *name, const char *const *settings, guint threads, int code,
              const char *const *fragments)
{
  g_autoptr (GError) error = NULL;
  gboolean checked;
  g_autoptr (MsStats) stats = run (name, settings, NULL, threads, &checked, &error);
  g_assert_null (stats);
  g_assert_error (error, MS_EMULATOR_ERROR, code);
  g_test_message ("%s", error->message);
  g_assert_null (strchr (error->message, '\n'));
  for (int i = 0; fragments[i]; i++)
    g_assert_nonnull (strstr (error->message, fragments[i]));
}

static void
test_out_of_bounds (void)
{
  /* n = 1000: thread 999 (block 7, thread 103 of 128) reads in[1000], the
   * first byte past the 4000-byte buffer; the error names all of it, and is
   * the same whatever the thread count (the lowest failing block wins). */
  const char *frags[] = { "test_oob", "out-of-bounds load", "'in'", "4000", "tests.cu:",
                          "block (7,0,0)", "thread (103,0,0)", NULL };
  assert_fails ("test_oob", (const char *[]) { "n", "1000", NULL }, 1,
                MS_EMULATOR_ERROR_OUT_OF_BOUNDS, frags);
  assert_fails ("test_oob", (const char *[]) { "n", "1000", NULL }, 3,
                MS_EMULATOR_ERROR_OUT_OF_BOUNDS, frags);
}

static void
test_barrier_deadlock (void)
{
  const char *frags[] = { "deadlock", "__syncthreads", "block (0,0,0)", NULL };
  assert_fails ("test_barrier_divergence", NULL, 1, MS_EMULATOR_ERROR_DEADLOCK, frags);
  /* lanes at a shuffle that needs lanes waiting at the barrier */
  const char *shuffle[] = { "deadlock", "collective", "never arrive", NULL };
  assert_fails ("test_collective_deadlock", NULL, 1, MS_EMULATOR_ERROR_DEADLOCK, shuffle);
}

static void
test_shuffle_arguments (void)
{
  /* a width the GPU has not: the warp-wide path's group test and the fiber
   * path's own check in ms_shfl give the same error */
  const char *frags[] = { "tests.cu:", "__shfl width 3 is not a power of two in 1..32", NULL };
  assert_fails ("test_shfl_width", NULL, 1, MS_EMULATOR_ERROR_LAUNCH, frags);
}

static void
test_uninitialised_shared (void)
{
  /* threads 0..31 write s[0..31]; thread 32 (block 0) is the first reader
   * of s[32], byte 128 of the array, never written */
  const char *frags[] = { "test_uninitialised", "no thread of the block has written",
                          "byte 128 of shared array #1", "thread (32,0,0)", NULL };
  assert_fails ("test_uninitialised", (const char *[]) { "n", "64", NULL }, 1,
                MS_EMULATOR_ERROR_UNINITIALISED, frags);
}

static void
test_spin_waits (void)
{
  /* warp 0 spins on a flag warp 1 sets: the warp budget lets warp 1 run */
  assert_correct ("test_warp_flag", (const char *[]) { "n", "256", NULL }, NULL);
  /* an intra-warp lock: the lanes that spin wait at the loop's join for
   * the lane that holds it (reconvergence at the immediate post-dominator),
   * which releases it, as on sm_70+ */
  assert_correct ("test_lane_lock", (const char *[]) { "n", "64", NULL }, NULL);
}

static void
test_launch_limits (void)
{
  struct { unsigned grid[3], block[3]; const char *fragment; } cases[] = {
    { { 1, 1, 1 }, { 64, 32, 1 }, "2048 threads exceeds" },
    { { 1, 1, 1 }, { 2048, 1, 1 }, "block x = 2048" },
    { { 1, 1, 1 }, { 1, 1, 65 }, "block z = 65" },
    { { 0, 1, 1 }, { 32, 1, 1 }, "grid has size 0" },
    { { 1, 1, 1 }, { 32, 0, 1 }, "block has size 0" },
    { { 1, 70000, 1 }, { 32, 1, 1 }, "grid y = 70000" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      MsLaunchArgs a = { 0 };
      memcpy (a.grid, cases[i].grid, sizeof a.grid);
      memcpy (a.block, cases[i].block, sizeof a.block);
      g_autoptr (GError) error = NULL;
      g_assert_false (ms_launch_check_geometry (&a, &error));
      g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH);
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
    }
  MsLaunchArgs ok = { .grid = { 2147483647u, 65535, 65535 }, .block = { 1024, 1, 1 } };
  g_assert_true (ms_launch_check_geometry (&ok, NULL));
}

/* Shared arrays whose places change from launch to launch (a run-time
 * size before them): each launch's blocks find their own places, though
 * each declaration remembers its array within a block (kernel.h). */
static void
test_shared_arrays_per_launch (void)
{
  const int sizes[] = { 1, 64, 1, 33 };
  for (gsize k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      int n = sizes[k], out[64] = { 0 };
      MsLaunch launch = { .kernel = "em_two_arrays", .entry = ms_cpu_entry_em_two_arrays,
                          .n_buffers = 1, .threads = 1 };
      launch.args = (MsLaunchArgs) { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 } };
      launch.args.buf[0] = out;
      launch.args.i[0] = n;
      launch.buffer_names[0] = "out";
      launch.buffer_bytes[0] = sizeof out;
      g_autoptr (GError) error = NULL;
      g_assert_true (ms_emulate (&launch, &error));
      g_assert_no_error (error);
      for (int t = 0; t < 64; t++)
        g_assert_cmpint (out[t], ==, t < n ? t - 1 : t);
    }
}

/* What the sinks saw of the producer's stride word (access.h). */
typedef struct {
  guint64 hinted, strided_full, records;
} HintSeen;

/* Every record said to be strided is: all 32 lanes active, one stride
 * apart; or, said with stride 0, a partial warp whose active lanes share
 * one address.  Counts the records, the strided whole warps and those
 * said so. */
static void
check_hint (HintSeen *seen, const MsWarpAccess *a)
{
  guint64 d = a->addr[1] - a->addr[0], hint = 0;
  gboolean truly = a->mask == 0xffffffffu;
  for (guint l = 0; l < MS_WARP_SIZE && truly; l++)
    truly = a->addr[l] == a->addr[0] + l * d;
  seen->records++;
  seen->strided_full += truly;
  if (ms_access_strided (a, &hint))
    {
      if (a->mask != 0xffffffffu)
        {
          g_assert_cmpuint (hint, ==, 0);
          guint64 x = a->addr[__builtin_ctz (a->mask)];
          for (guint l = 0; l < MS_WARP_SIZE; l++)
            g_assert_true (!(a->mask >> l & 1) || a->addr[l] == x);
        }
      else
        {
          g_assert_true (truly);
          g_assert_cmpuint (hint, ==, d);
        }
      seen->hinted++;
    }
}

static void
hint_parallel (gpointer worker, const MsWarpAccess *a)
{
  G_LOCK_DEFINE_STATIC (seen);
  G_LOCK (seen);
  check_hint (worker, a);
  G_UNLOCK (seen);
}

static gpointer
hint_worker (gpointer user)
{
  return user;
}

static void
hint_ordered (gpointer user, const MsWarpAccess *a)
{
  check_hint ((HintSeen *) user + 1, a);
}

/* The emulator's stride word is true of every record it is said of, in
 * the sinks' parallel part and in their ordered part, on one thread and on
 * three, and said of the strided whole warps of global accesses and shared
 * stores (transpose_naive: every record but its two sites' first, which
 * the general path runs); a block's records buffered for the ordered part
 * (a block that is not the head of the stream order) keep theirs. */
static void
test_stride_hint (void)
{
  const char *kernels[][2] = {
    { "transpose_naive", "256x128" }, { "transpose_padded", "256x128" },
    { "reduce_sequential", "65536" }, { "gemm_regtile", "128" },
    { "stencil_shared", "64x64x8" }, { "reduce_interleaved", "65536" },
  };
  for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
    for (guint threads = 1; threads <= 3; threads += 2)
      {
        g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (kernels[k][0]));
        if (kernels[k][1])
          g_assert_true (ms_problem_set_size (p, kernels[k][1], NULL));
        g_assert_true (ms_problem_setup (p, NULL));
        HintSeen seen[2] = { { 0 } };
        MsStreamSink sink = { .worker_new = hint_worker, .access = hint_parallel,
                              .ordered = hint_ordered, .user = seen };
        MsSinks extra = { { &sink }, 1 };
        g_autoptr (MsStats) stats = NULL;
        g_assert_true (ms_problem_simulate (p, ms_arch_default (), threads, &extra, &stats,
                                            NULL));
        g_test_message ("%s, %u threads: parallel %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT
                        " strided whole warps (%" G_GUINT64_FORMAT " records) said so, ordered %"
                        G_GUINT64_FORMAT, kernels[k][0], threads, seen[0].hinted,
                        seen[0].strided_full, seen[0].records, seen[1].hinted);
        g_assert_cmpuint (seen[0].records, ==, seen[1].records);
        if (strcmp (kernels[k][0], "transpose_naive") == 0)   /* but a site's first use,
                                                                 the general path's */
          g_assert_cmpuint (seen[0].hinted + 2, >=, seen[0].records);
        else
          g_assert_cmpuint (seen[0].hinted, >, 0);
        g_assert_cmpuint (seen[1].hinted, >, 0);   /* buffered records keep theirs */
      }
}

/* A hand-written warp-wide kernel of two warps: each stores a row of 32
 * shared words, lane l's value l + warp * i[0], in one epoch (warp 0's
 * store, a site's first use, takes the general path; warp 1's the fast
 * path's whole-row stores, four lanes a vector). */
static MsSite row_site = { "test-emulator.c", 2, 2, -1 };

static void
row_entry (const MsLaunchArgs *L)
{
  int *s = (int *) MS_SHARED_ (sizeof (int[32]), __alignof__ (int));
  unsigned warp = ms_warp.tid[0][0] / 32;
  for (unsigned l = 0; l < 32; l++)
    {
      int v = (int) (l + warp * (unsigned) L->i[0]);
      ms_warp.addr[l] = (volatile uint8_t *) &s[l];
      memcpy (ms_warp.val[l], &v, sizeof v);
    }
  ms_warp_access (&row_site, ms_warp.live, 4, MS_K_ST, 0);
}

/* Two warps storing the same values into one row in one epoch do not race
 * (a store of the value already there); other values do: the whole-row
 * store's same-value test, lane by lane. */
static void
test_row_store_same_value (void)
{
  for (long long differ = 0; differ < 2; differ++)
    {
      MsLaunch launch = { .kernel = "row", .entry = row_entry, .warp_entry = row_entry,
                          .threads = 1 };
      launch.args = (MsLaunchArgs) { .grid = { 1, 1, 1 }, .block = { 64, 1, 1 } };
      launch.args.i[0] = differ;
      g_autoptr (GError) error = NULL;
      gboolean ok = ms_emulate (&launch, &error);
      g_test_message ("values %s: %s", differ ? "differ" : "equal", ok ? "ran" : error->message);
      if (differ)
        g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_RACE);
      else
        g_assert_no_error (error);
    }
}

/* A hand-written warp-wide kernel: a whole warp loads in[0 .. 31] (the
 * first use of a site takes the general path), then in[i[0] + i[1] *
 * lane] (the whole-warp fast path's vectorised bounds test; lane 0's
 * address alone is tested before it). */
static MsSite window_site = { "test-emulator.c", 1, 1, -1 };

static void
window_entry (const MsLaunchArgs *L)
{
  for (int pass = 0; pass < 2; pass++)
    {
      guintptr in = (guintptr) L->buf[0];
      for (unsigned l = 0; l < 32; l++)
        ms_warp.addr[l] = (volatile uint8_t *) (in + (guintptr) ((pass ? L->i[0] + L->i[1] * l
                                                                         : l) * 4));
      ms_warp_access (&window_site, ms_warp.live, 4, MS_K_LD, 0);
    }
}

/* A hand-written warp-wide kernel as ptx-translate.c writes one, of
 *   v = tid + 1; if (lane & 1) v += 100;
 *   v += __shfl_xor_sync (~0u, v, A); out[tid] = v;   (A: i[0], 1 or 16)
 * the odd and even lanes' groups meet at the shuffle as two stops, which
 * run as one group; a whole converged warp shuffles in place (block 2), a
 * warp of fewer lanes stores its records (block 5) and stops. */
static MsSite meet_shfl_site = { "test-emulator.c", 3, 3, -1 };
static MsSite meet_store_site = { "test-emulator.c", 4, 4, -1 };

static void
meet_entry (const MsLaunchArgs *L)
{
  int v[32], t[32];
  int *out = (int *) L->buf[0];
  unsigned a = (unsigned) L->i[0];
  MsWarpSched S;
  int pc;
  uint32_t m;
  ms_warp_sched_begin (&S);
  while (ms_warp_sched_next (&S, &pc, &m))
    {
      switch (pc)
        {
        case 0: goto B0;
        case 1: goto B1;
        case 2: goto B2;
        case 3: goto B3;
        case 4: goto B4;
        case 5: goto B5;
        default: continue;   /* 7: the end */
        }
    B0:   /* the branch: the even lanes go on at the join, the odd add first */
      {
        uint32_t odd = 0;
        for (unsigned l = 0; l < 32; l++)
          if (m & (1u << l))
            {
              v[l] = (int) ms_warp.tid[0][l] + 1;
              odd |= (ms_warp.tid[0][l] & 1u) << l;
            }
        if (odd && (m & ~odd))
          ms_warp_sched_push (&S, 2, m & ~odd);
        if (!odd)
          goto B2;
        m = odd;
      }
    B1:
      for (unsigned l = 0; l < 32; l++)
        if (m & (1u << l))
          v[l] += 100;
    B2:   /* the join: the shuffle */
      for (unsigned l = 0; l < 32; l++)
        if (m & (1u << l))
          t[l] = v[l];
      if (m == 0xffffffffu && S.n_ready == 0 && S.n_stop == 0
          && ms_warp_shfl_counted (&meet_shfl_site, 4))
        {
          int u[32];
          for (unsigned l = 0; l < 32; l++)
            u[l] = t[MS_SHFL_SOURCE (MS_SHFL_XOR, l, a)];
          memcpy (t, u, sizeof t);
          goto B4;
        }
      goto B5;
    B3:   /* the results of a group's shuffle */
      for (unsigned l = 0; l < 32; l++)
        if (m & (1u << l))
          memcpy (&t[l], &ms_warp.res[l], sizeof t[l]);
    B4:
      for (unsigned l = 0; l < 32; l++)
        if (m & (1u << l))
          {
            v[l] += t[l];
            ms_warp.addr[l] = (volatile uint8_t *) &out[ms_warp.tid[0][l]];
            memcpy (ms_warp.val[l], &v[l], sizeof v[l]);
          }
      ms_warp_sched_access (&S, &meet_store_site, MS_K_ST, 4, m, 7);
      continue;   /* on to the end, or the store's stop first */
    B5:   /* fill: the group's records, then the shuffle's stop */
      for (unsigned l = 0; l < 32; l++)
        if (m & (1u << l))
          {
            ms_warp.val[l][0] = 0;
            memcpy (ms_warp.val[l], &t[l], sizeof t[l]);
            ms_warp.mask[l] = 0xffffffffu;
            ms_warp.arg[l] = (int) a;
            ms_warp.width[l] = 32;
          }
      ms_warp_sched_stop (&S, &meet_shfl_site, MS_K_SHFL, 4, MS_SHFL_XOR, m, 3);
      continue;
    }
}

/* Groups that meet at a shuffle of constant arguments: the results of the
 * whole warp's in-place shuffle and of a 16- or 8-lane warp's group
 * shuffle (blocks of 64, 48 and 40 threads) against the closed form; and
 * a 16-lane warp's XOR 16 reads lanes that are not there, an error (in
 * place, it would read what the array holds past the warp's lanes). */
static void
test_warp_wide_meet (void)
{
  static const struct { guint block, a; } cases[] = { { 64, 1 }, { 48, 1 }, { 40, 1 },
                                                      { 64, 16 }, { 48, 16 } };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      guint n = cases[c].block, a = cases[c].a;
      int out[64];
      memset (out, 0, sizeof out);
      MsLaunch launch = { .kernel = "meet", .entry = meet_entry, .warp_entry = meet_entry,
                          .n_buffers = 1, .threads = 1 };
      launch.args = (MsLaunchArgs) { .grid = { 1, 1, 1 }, .block = { n, 1, 1 } };
      launch.args.buf[0] = out;
      launch.args.i[0] = a;
      launch.buffer_names[0] = "out";
      launch.buffer_bytes[0] = sizeof out;
      g_autoptr (GError) error = NULL;
      gboolean ok = ms_emulate (&launch, &error);
      g_test_message ("block %u, XOR %u: %s", n, a, ok ? "ran" : error->message);
      if (n % 32 == 16 && a == 16)
        {
          g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_DEADLOCK);
          g_assert_nonnull (strstr (error->message, "not taking part"));
          continue;
        }
      g_assert_no_error (error);
      for (guint i = 0; i < n; i++)
        {
          guint j = i ^ a;
          int v = (int) i + 1 + (i & 1 ? 100 : 0), w = (int) j + 1 + (j & 1 ? 100 : 0);
          g_assert_cmpint (out[i], ==, v + w);
        }
    }
  g_assert_cmpuint (ms_emulator_warp_wide_warps (), >, 0);
}

/* The whole-warp fast path's bounds test: a warp that reads below its
 * buffer, past its end, or across either edge by one lane, in ascending
 * or descending lane order, fails; one that fits, up to either end, runs. */
static void
test_warp_wide_bounds (void)
{
  static int arena[256];   /* the buffer, 64 ints, in the middle of it */
  const struct { long long first, step; gboolean ok; } cases[] = {
    { 0, 1, TRUE }, { 32, 1, TRUE }, { 17, 1, TRUE }, { -1, 1, FALSE }, { -32, 1, FALSE },
    { -64, 1, FALSE }, { 33, 1, FALSE }, { 64, 1, FALSE }, { 96, 1, FALSE },
    { 31, -1, TRUE }, { 63, -1, TRUE }, { 30, -1, FALSE }, { 0, -1, FALSE },
    { 64, -1, FALSE },
  };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      MsLaunch launch = { .kernel = "window", .entry = window_entry, .warp_entry = window_entry,
                          .n_buffers = 1, .threads = 1 };
      launch.args = (MsLaunchArgs) { .grid = { 1, 1, 1 }, .block = { 32, 1, 1 } };
      launch.args.buf[0] = arena + 96;
      launch.args.i[0] = cases[c].first;
      launch.args.i[1] = cases[c].step;
      launch.buffer_names[0] = "in";
      launch.buffer_bytes[0] = 64 * sizeof (int);
      g_autoptr (GError) error = NULL;
      gboolean ok = ms_emulate (&launch, &error);
      g_test_message ("in[%lld + %lld * lane]: %s", cases[c].first, cases[c].step,
                      ok ? "ran" : error->message);
      g_assert_cmpint (ok, ==, cases[c].ok);
      if (!ok)
        g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_OUT_OF_BOUNDS);
    }
  g_assert_cmpuint (ms_emulator_warp_wide_warps (), >, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/emulator/warp-synchronous", test_warp_synchronous);
  g_test_add_func ("/emulator/shuffles-and-votes", test_shuffles_and_votes);
  g_test_add_func ("/emulator/divergence-masks", test_divergence_masks);
  g_test_add_func ("/emulator/atomics", test_atomics);
  g_test_add_func ("/emulator/early-exit", test_early_exit);
  g_test_add_func ("/emulator/geometry-3d", test_geometry_3d);
  g_test_add_func ("/emulator/thread-count-invariance", test_thread_count_invariance);
  g_test_add_func ("/emulator/error/out-of-bounds", test_out_of_bounds);
  g_test_add_func ("/emulator/error/barrier-deadlock", test_barrier_deadlock);
  g_test_add_func ("/emulator/error/launch-limits", test_launch_limits);
  g_test_add_func ("/emulator/error/shuffle-arguments", test_shuffle_arguments);
  g_test_add_func ("/emulator/error/uninitialised-shared", test_uninitialised_shared);
  g_test_add_func ("/emulator/spin-waits", test_spin_waits);
  g_test_add_func ("/emulator/warp-wide", test_warp_wide);
  g_test_add_func ("/emulator/warp-wide-bounds", test_warp_wide_bounds);
  g_test_add_func ("/emulator/warp-wide-meet", test_warp_wide_meet);
  g_test_add_func ("/emulator/stride-hint", test_stride_hint);
  g_test_add_func ("/emulator/row-store-same-value", test_row_store_same_value);
  g_test_add_func ("/emulator/shared-arrays-per-launch", test_shared_arrays_per_launch);
  g_test_add_func ("/emulator/sample/counts", test_sample_counts);
  g_test_add_func ("/emulator/sample/blocks", test_sample_blocks);
  return g_test_run ();
}
