/* tests.c - descriptors of the semantic test kernels (tests.cu). */
#include "config.h"
#include "entries.h"
#include "problem.h"

static const MsParamSpec n_params[] = {
  { "n", "number of elements", 1000, 1, 1 << 24 },
  { NULL },
};

/* out (n_out ints), in (n ints of [lo, hi]); arg: n; 1D grid over n. */
static gboolean
setup_1d (MsProblem *p, gsize n_out, int lo, int hi, GError **e)
{
  gint64 n = ms_problem_param (p, "n");
  if (!ms_problem_buffer (p, "out", n_out * sizeof (int), TRUE, e))
    return FALSE;
  int *in = ms_problem_buffer (p, "in", (gsize) n * sizeof (int), FALSE, e);
  if (in == NULL)
    return FALSE;
  ms_fill_ints (p, in, (gsize) n, lo, hi);
  p->args.i[0] = n;
  p->args.grid[0] = ms_div_up ((guint64) n, p->args.block[0] * p->args.block[1] * p->args.block[2]);
  p->args.grid[1] = p->args.grid[2] = 1;
  return TRUE;
}

static gint64 param_n (MsProblem *p) { return ms_problem_param (p, "n"); }

static gboolean
setup_copy (MsProblem *p, GError **e)
{
  return setup_1d (p, (gsize) param_n (p), -100, 100, e);
}

static gboolean
check_copy (MsProblem *p, GError **e)
{
  return ms_check_ints (p, "out", p->args.buf[0], p->args.buf[1], (gsize) param_n (p), e);
}

static gboolean
setup_blocks (MsProblem *p, GError **e)
{
  guint per = p->args.block[0];
  return setup_1d (p, ms_div_up ((guint64) param_n (p), per), -100, 100, e);
}

/* out[b] = sum of block b's elements. */
static gboolean
check_block_sums (MsProblem *p, GError **e)
{
  gint64 n = param_n (p);
  guint per = p->args.block[0], nb = ms_div_up ((guint64) n, per);
  const int *in = p->args.buf[1];
  g_autofree int *want = g_new0 (int, nb);
  for (gint64 i = 0; i < n; i++)
    want[i / per] += in[i];
  return ms_check_ints (p, "out", p->args.buf[0], want, nb, e);
}

static gboolean
setup_shuffle (MsProblem *p, GError **e)
{
  /* whole warps: n rounded up so every lane has an input */
  gint64 n = (param_n (p) + 31) / 32 * 32;
  p->param[0] = n;
  return setup_1d (p, (gsize) n * 7, -50, 50, e);
}

static gboolean
check_shuffle (MsProblem *p, GError **e)
{
  gint64 n = param_n (p);
  const int *in = p->args.buf[1];
  g_autofree int *want = g_new0 (int, n * 7);
  for (gint64 w = 0; w < n; w += 32)
    {
      int sum = 0, scan = 0;
      unsigned ballot = 0;
      for (int l = 0; l < 32; l++)
        {
          sum += in[w + l];
          ballot |= (unsigned) (in[w + l] > 0) << l;
        }
      for (int l = 0; l < 32; l++)
        {
          int *o = &want[7 * (w + l)];
          scan += in[w + l];
          o[0] = sum;
          o[1] = scan;
          o[2] = in[w + (l + 3 < 32 ? l + 3 : l)];
          o[3] = in[w + (l < 16 ? 7 : 23)];
          o[4] = (int) ballot;
          o[5] = 1 + 1000 * in[w + 9];
          o[6] = in[w + (l + 31) % 32];
        }
    }
  return ms_check_ints (p, "out", p->args.buf[0], want, (gsize) n * 7, e);
}

/* Checks "out" against expect (in, n, i) for every i of n. */
static gboolean
check_each (MsProblem *p, GError **e, int (*expect) (const int *in, gint64 n, gint64 i))
{
  gint64 n = param_n (p);
  const int *in = p->args.buf[1];
  g_autofree int *want = g_new0 (int, n);
  for (gint64 i = 0; i < n; i++)
    want[i] = expect (in, n, i);
  return ms_check_ints (p, "out", p->args.buf[0], want, (gsize) n, e);
}

static int
divergence_at (const int *in, gint64 n, gint64 i)
{
  int acc = 0;
  for (int k = 0; k < i % 7; k++)
    acc += in[(i + k) % n];
  return i % 2 ? -acc : acc;
}

static int
late_divergence_at (const int *in, gint64 n, gint64 i)
{
  return i % 2 ? in[i] + in[(i + 1) % n] : in[i] - (in[(i + 1) % n] + in[(i + 3) % n]);
}

static int
long_divergence_at (const int *in, gint64 n, gint64 i)
{
  int acc = 0;
  for (gint64 j = 0; j < 150; j++)
    acc += i % 2 ? in[(i + j) % n] : -in[(i + 2 * j) % n];
  return acc;
}

static gboolean
check_divergence (MsProblem *p, GError **e)
{
  return check_each (p, e, divergence_at);
}

static gboolean
check_late_divergence (MsProblem *p, GError **e)
{
  return check_each (p, e, late_divergence_at);
}

static gboolean
check_long_divergence (MsProblem *p, GError **e)
{
  return check_each (p, e, long_divergence_at);
}

static gboolean
setup_atomics (MsProblem *p, GError **e)
{
  return setup_1d (p, 18, 0, 15, e);
}

static gboolean
check_atomics (MsProblem *p, GError **e)
{
  gint64 n = param_n (p);
  const int *in = p->args.buf[1];
  int want[18] = { 0 };
  for (gint64 i = 0; i < n; i++)
    {
      want[in[i]]++;
      want[16] = MAX (want[16], in[i]);
    }
  want[17] = (int) p->args.grid[0];
  return ms_check_ints (p, "out", p->args.buf[0], want, 18, e);
}

static const MsParamSpec box_params[] = {
  { "width", "threads in x", 40, 1, 1024 },
  { "height", "threads in y", 20, 1, 1024 },
  { "depth", "threads in z", 6, 1, 1024 },
  { NULL },
};

static gboolean
setup_3d (MsProblem *p, GError **e)
{
  const char *names[3] = { "width", "height", "depth" };
  gsize total = 1;
  for (int d = 0; d < 3; d++)
    {
      p->args.grid[d] = ms_div_up ((guint64) ms_problem_param (p, names[d]), p->args.block[d]);
      total *= (gsize) p->args.grid[d] * p->args.block[d];
    }
  if (!ms_problem_buffer (p, "out", total * sizeof (int), TRUE, e))
    return FALSE;
  if (!ms_problem_buffer (p, "in", total * sizeof (int), FALSE, e))
    return FALSE;
  p->args.i[0] = (long long) total;
  return TRUE;
}

static gboolean
check_3d (MsProblem *p, GError **e)
{
  guint w = p->args.grid[0] * p->args.block[0], h = p->args.grid[1] * p->args.block[1];
  gsize total = (gsize) p->args.i[0];
  g_autofree int *want = g_new (int, total);
  for (gsize i = 0; i < total; i++)
    {
      guint x = (guint) (i % w), y = (guint) (i / w % h), z = (guint) (i / ((gsize) w * h));
      want[i] = (int) (x | y << 10 | z << 20);
    }
  return ms_check_ints (p, "out", p->args.buf[0], want, total, e);
}

#define TEST_KERNEL(kname, params_, size0, bx, by, bz, rule, setup_fn, check_fn, desc) \
  const MsKernel ms_kernel_##kname = {                                                 \
    .name = #kname, .family = "test", .origin = "memsim test suite",                  \
    .description = desc, .source = "tests.cu", .params = params_,                      \
    .size_params = size0, .block = { bx, by, bz }, .block_rule = rule,                 \
    .setup = setup_fn, .check = check_fn,                                              \
    .bind_entry = ms_bind_entry_##kname,                                                 \
  };
#define N_SIZE { "n" }
#define BOX_SIZE { "width", "height", "depth" }

TEST_KERNEL (test_oob, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy, check_copy,
             "reads one element past the end of its input (must fail)")
TEST_KERNEL (test_barrier_divergence, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy,
             check_copy, "half of each warp waits at a different __syncthreads (must fail)")
TEST_KERNEL (test_collective_deadlock, n_params, N_SIZE, 64, 1, 1, MS_BLOCK_ANY, setup_copy,
             check_copy, "half of each warp waits at a barrier, half at a shuffle (must fail)")
TEST_KERNEL (test_shfl_width, n_params, N_SIZE, 64, 1, 1, MS_BLOCK_ANY, setup_copy, check_copy,
             "a __shfl_sync of width 3, not a power of two (must fail)")
TEST_KERNEL (test_warp_sync, n_params, N_SIZE, 64, 1, 1, MS_BLOCK_FIXED, setup_blocks,
             check_block_sums, "unrolled last warp on volatile shared memory, no __syncwarp")
TEST_KERNEL (test_shuffle, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_shuffle,
             check_shuffle, "__shfl_xor/up/down/idx, __ballot_sync and __all_sync")
TEST_KERNEL (test_divergence, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy,
             check_divergence, "data-dependent loop trip counts and if/else per lane")
TEST_KERNEL (test_late_divergence, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy,
             check_late_divergence, "lanes together for two accesses, then at different sites")
TEST_KERNEL (test_long_divergence, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy,
             check_long_divergence, "150 loads a lane, odd and even lanes at different sites")
TEST_KERNEL (test_atomics, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_atomics,
             check_atomics, "shared and global atomicAdd, atomicMax and atomicCAS")
TEST_KERNEL (test_early_exit, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_blocks,
             check_block_sums, "threads past n return before a barrier the others reach")
TEST_KERNEL (test_3d, box_params, BOX_SIZE, 8, 4, 2, MS_BLOCK_ANY, setup_3d, check_3d,
             "3D grid of 3D blocks; each thread writes its coordinates")
TEST_KERNEL (test_wild_pointer, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy, check_copy,
             "stores through an address made from a number (must fail)")
TEST_KERNEL (test_uninitialised, n_params, N_SIZE, 64, 1, 1, MS_BLOCK_FIXED, setup_copy,
             check_copy, "reads shared memory half of which was never written (must fail)")

/* out: one int per thread of whole 64-thread blocks */
static gboolean
setup_per_thread (MsProblem *p, GError **e)
{
  gint64 n = param_n (p);
  guint per = p->args.block[0];
  guint blocks = ms_div_up ((guint64) n, per);
  if (!ms_problem_buffer (p, "out", (gsize) blocks * per * sizeof (int), TRUE, e))
    return FALSE;
  if (!ms_problem_buffer (p, "in", sizeof (int), FALSE, e))
    return FALSE;
  p->args.i[0] = n;
  p->args.grid[0] = blocks;
  p->args.grid[1] = p->args.grid[2] = 1;
  return TRUE;
}

/* every output int equals v */
static gboolean
check_all (MsProblem *p, int v, GError **e)
{
  gsize total = (gsize) p->args.grid[0] * p->args.block[0];
  g_autofree int *want = g_new (int, total);
  for (gsize i = 0; i < total; i++)
    want[i] = v;
  return ms_check_ints (p, "out", p->args.buf[0], want, total, e);
}

static gboolean
check_all_sevens (MsProblem *p, GError **e)
{
  return check_all (p, 7, e);
}

static gboolean
check_all_ones (MsProblem *p, GError **e)
{
  return check_all (p, 1, e);
}

TEST_KERNEL (test_warp_flag, n_params, N_SIZE, 64, 1, 1, MS_BLOCK_FIXED, setup_per_thread,
             check_all_sevens, "warp 0 spins on a shared flag warp 1 sets (no barrier between)")
TEST_KERNEL (test_lane_lock, n_params, N_SIZE, 64, 1, 1, MS_BLOCK_FIXED, setup_per_thread,
             check_all_ones, "an intra-warp spin lock: every lane gets it in turn (sm_70+)")

/* test_race_transpose: idata height x width floats, odata its transpose. */
static const MsParamSpec race_transpose_params[] = {
  { "width", "matrix width (columns)", 64, 1, 8192 },
  { "height", "matrix height (rows)", 64, 1, 8192 },
  { NULL },
};

static gboolean
setup_race_transpose (MsProblem *p, GError **e)
{
  gint64 w = ms_problem_param (p, "width"), h = ms_problem_param (p, "height");
  if (!ms_problem_buffer (p, "odata", (gsize) (w * h) * sizeof (float), TRUE, e))
    return FALSE;
  float *in = ms_problem_buffer (p, "idata", (gsize) (w * h) * sizeof (float), FALSE, e);
  if (in == NULL)
    return FALSE;
  ms_fill_floats (p, in, (gsize) (w * h));
  p->args.i[0] = w;
  p->args.i[1] = h;
  p->args.grid[0] = ms_div_up ((guint64) w, 32);
  p->args.grid[1] = ms_div_up ((guint64) h, 32);
  p->args.grid[2] = 1;
  return TRUE;
}

/* What the race leaves: every output element is its transposed input, or
 * 0 where the emulator's warp order had the reader run before the writer
 * (shared memory starts zeroed).  (On the GPU: whatever the timing gave.) */
static gboolean
check_race_transpose (MsProblem *p, GError **e)
{
  gint64 w = ms_problem_param (p, "width"), h = ms_problem_param (p, "height");
  const float *out = p->args.buf[0], *in = p->args.buf[1];
  for (gint64 y = 0; y < w; y++)
    for (gint64 x = 0; x < h; x++)
      if (out[y * h + x] != in[x * w + y] && out[y * h + x] != 0.0f)
        {
          g_set_error (e, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_CHECK,
                       "output check failed: odata[%" G_GINT64_FORMAT "] = %.9g, expected %.9g "
                       "or 0", y * h + x, (double) out[y * h + x], (double) in[x * w + y]);
          return FALSE;
        }
  return TRUE;
}

const MsKernel ms_kernel_test_race_transpose = {
  .name = "test_race_transpose", .family = "test", .origin = "memsim test suite",
  .description = "tiled transpose without its __syncthreads: a race (must fail; "
                 "--allow-races goes on)",
  .source = "tests.cu", .params = race_transpose_params, .size_params = { "width", "height" },
  .block = { 32, 32, 1 }, .block_rule = MS_BLOCK_FIXED,
  .setup = setup_race_transpose, .check = check_race_transpose,
  .bind_entry = ms_bind_entry_test_race_transpose,
};

/* out[i] = in[i + 32 in its block, cyclically] (phase 1), plus for threads
 * t < 32 of a block a warp index of the block (phase 2's race), 0..3. */
static gboolean
check_race_phases (MsProblem *p, GError **e)
{
  gint64 n = param_n (p);
  guint per = p->args.block[0];
  const int *out = p->args.buf[0], *in = p->args.buf[1];
  for (gint64 i = 0; i < n; i++)
    {
      gint64 base = i - i % per, j = base + (i - base + 32) % per;
      int want = j < n ? in[j] : 0;
      gint64 extra = (gint64) out[i] - want;
      if (i % per < 32 ? extra < 0 || extra >= per / 32 : extra != 0)
        {
          g_set_error (e, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_CHECK,
                       "output check failed: out[%" G_GINT64_FORMAT "] = %d, expected %d%s", i,
                       out[i], want, i % per < 32 ? " plus a warp index" : "");
          return FALSE;
        }
    }
  return TRUE;
}

TEST_KERNEL (test_race_phases, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_FIXED, setup_copy,
             check_race_phases, "a clean barrier phase, then warps write the same shared ints "
             "(must fail: a race; --allow-races goes on)")

/* out[i] = 2 * (in[next lane's i] + 1) in whole warps, 0 past them. */
static gboolean
check_warp_global (MsProblem *p, GError **e)
{
  gint64 n = param_n (p);
  const int *in = p->args.buf[1];
  g_autofree int *want = g_new0 (int, n);
  for (gint64 i = 0; i + 32 <= n; i += 32)
    for (int lane = 0; lane < 32; lane++)
      want[i + lane] = 2 * (in[i + (lane + 1) % 32] + 1);
  return ms_check_ints (p, "out", p->args.buf[0], want, (gsize) n, e);
}

TEST_KERNEL (test_warp_global, n_params, N_SIZE, 128, 1, 1, MS_BLOCK_ANY, setup_copy,
             check_warp_global, "each lane stores, then loads the next lane's store with no "
             "__syncwarp (lockstep on global memory)")
