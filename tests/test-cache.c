/* test-cache.c - the L1/L2/DRAM traffic model (sim/models/cache.c), driven
 * with synthetic warp accesses whose traffic follows from the model's
 * stated rules by hand: cold L2, 32-byte sectors, DRAM reads in 64-byte
 * chunks, write-back only on eviction, one L1 per SM. */
#include "config.h"

#include <string.h>

#include "cache.h"
#include "drive-models.h"
#include "model.h"

static MsSite site_a = { "synthetic.cu", 1, 0, -1 };

typedef struct {
  guint64 l2_read, l2_write, dram_read, dram_write;
  guint64 l2_loads, dram_loads;   /* load requests by the farthest level they read */
} Traffic;

/* Runs records through the cache model alone on arch (one_address: with
 * the producer's word that each record's active lanes share an address). */
static void
run_hinted (const MsArch *arch, const MsWarpAccess *recs, guint n, gboolean one_address,
            Traffic *t)
{
  static const MsModel *const only_cache[] = { &ms_model_cache, NULL };
  g_autoptr (MsStats) stats = drive_models_hinted (arch, only_cache, &site_a, recs, n, NULL,
                                                   NULL, 0, one_address);
  guint64 v[6];
  const char *keys[] = { "l2_read_sectors", "l2_write_sectors", "dram_read_bytes",
                         "dram_write_bytes", "l2_load_requests", "dram_load_requests" };
  for (int i = 0; i < 6; i++)
    {
      const MsCounterDef *d = ms_counter_find (MS_SPACE_GLOBAL, keys[i]);
      g_assert_nonnull (d);
      g_assert_true (d->per_launch);
      v[i] = ms_stats_launch_total (stats, d);
    }
  *t = (Traffic) { v[0], v[1], v[2], v[3], v[4], v[5] };
}

static void
run (const MsArch *arch, const MsWarpAccess *recs, guint n, Traffic *t)
{
  run_hinted (arch, recs, n, FALSE, t);
}

/* A full warp: lane l at base + l * stride, `width` bytes each. */
static MsWarpAccess
warp (MsOp op, guint64 base, guint64 stride, guint width, guint32 block)
{
  MsWarpAccess a = { .site = &site_a, .block = block, .space = MS_SPACE_GLOBAL, .op = op,
                     .width = (guint8) width, .mask = 0xffffffffu };
  for (int l = 0; l < MS_WARP_SIZE; l++)
    a.addr[l] = base + (guint64) l * stride;
  return a;
}

#define BUF ((guint64) 1 << MS_BUFFER_SHIFT)

/* h100 without the launch's fixed reads, so the data's bytes show alone. */
static MsArch
h100_data_only (void)
{
  MsArch a = *ms_arch_default ();
  a.launch_read_bytes = 0;
  return a;
}

/* h100_data_only with an L2 of `bytes` in one partition, `ways` ways,
 * and no L1 (every load reaches the L2). */
static MsArch
small_l2 (guint64 bytes, guint ways)
{
  MsArch a = h100_data_only ();
  a.l2_bytes = (int) bytes;
  a.l2_partitions = 1;
  a.l2_ways = (int) ways;
  a.l1_bytes = 0;
  return a;
}

static void
test_dense_read (void)
{
  MsArch arch = h100_data_only ();
  /* 1024 warps each reading 128 consecutive bytes (float per lane), all
   * distinct: 4 sectors per warp, every one a cold miss; DRAM reads the
   * 64-byte chunks, each holding 2 of the sectors: exactly the bytes */
  g_autofree MsWarpAccess *r = g_new (MsWarpAccess, 1024);
  for (guint i = 0; i < 1024; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * i, 4, 4, i);
  Traffic t;
  run (&arch, r, 1024, &t);
  g_assert_cmpuint (t.l2_read, ==, 4096);
  g_assert_cmpuint (t.dram_read, ==, 1024 * 128);
  g_assert_cmpuint (t.l2_write, ==, 0);
  g_assert_cmpuint (t.dram_write, ==, 0);
  /* the launch's fixed reads are added once */
  run (ms_arch_default (), r, 1024, &t);
  g_assert_cmpuint (t.dram_read, ==, 1024 * 128 + (guint64) ms_arch_default ()->launch_read_bytes);
}

/* The time model's load requests by how far they read: a cold row from
 * DRAM, the same row again from the block's L1 (not counted), from
 * another SM (block 1) through the L2; stores count in neither. */
static void
test_load_requests (void)
{
  MsArch arch = h100_data_only ();
  MsWarpAccess r[4] = { warp (MS_OP_LD, BUF, 4, 4, 0), warp (MS_OP_LD, BUF, 4, 4, 0),
                        warp (MS_OP_LD, BUF, 4, 4, 1), warp (MS_OP_ST, BUF + 4096, 4, 4, 0) };
  Traffic t;
  run (&arch, r, 4, &t);
  g_assert_cmpuint (t.dram_loads, ==, 1);
  g_assert_cmpuint (t.l2_loads, ==, 1);
  g_assert_cmpuint (t.l2_read, ==, 8);
}

static void
test_sparse_read (void)
{
  MsArch arch = h100_data_only ();
  /* stride 16 words = 64 bytes: each lane's 4 bytes in its own 64-byte
   * chunk, so every 32-byte sector costs a 64-byte DRAM read (the rule
   * measured on the H100); stride 32 words the same; stride 8 words = 32
   * bytes: two lanes per chunk, 32 bytes each */
  struct { guint64 stride, dram_per_warp; } cases[] = {
    { 64, 32 * 64 }, { 128, 32 * 64 }, { 32, 32 * 32 }, { 4, 128 },
  };
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      MsWarpAccess r = warp (MS_OP_LD, BUF, cases[c].stride, 4, 0);
      Traffic t;
      run (&arch, &r, 1, &t);
      g_assert_cmpuint (t.dram_read, ==, cases[c].dram_per_warp);
      /* L2 read sectors = distinct sectors, whatever DRAM fetched */
      g_assert_cmpuint (t.l2_read, ==, cases[c].stride >= 32 ? 32 : cases[c].stride * 32 / 32);
    }
}

static void
test_l1_reuse (void)
{
  MsArch arch = h100_data_only ();
  /* block 0 reads a line twice: the second is an L1 hit (no L2 sector);
   * block 1 runs on another SM (1 mod 132) and misses its own L1, but the
   * L2 has the line: no DRAM; block 132 shares SM 0's L1 with block 0 */
  MsWarpAccess r[4] = {
    warp (MS_OP_LD, BUF, 4, 4, 0), warp (MS_OP_LD, BUF, 4, 4, 0),
    warp (MS_OP_LD, BUF, 4, 4, 1), warp (MS_OP_LD, BUF, 4, 4, 132),
  };
  Traffic t;
  run (&arch, r, 4, &t);
  g_assert_cmpuint (t.l2_read, ==, 4 + 0 + 4 + 0);
  g_assert_cmpuint (t.dram_read, ==, 128);
}

static void
test_writes_stay_in_l2 (void)
{
  MsArch arch = h100_data_only ();
  /* 1 MiB of stores into a 50 MiB L2 (25 MiB per half): all dirty at the end, none written
   * back; no DRAM read (stores allocate without reading) */
  guint n = (1 << 20) / 128;
  g_autofree MsWarpAccess *r = g_new (MsWarpAccess, n);
  for (guint i = 0; i < n; i++)
    r[i] = warp (MS_OP_ST, BUF + 128 * (guint64) i, 4, 4, i);
  Traffic t;
  run (&arch, r, n, &t);
  g_assert_cmpuint (t.l2_write, ==, (guint64) n * 4);
  g_assert_cmpuint (t.dram_write, ==, 0);
  g_assert_cmpuint (t.dram_read, ==, 0);

  /* the same into a 64 KiB, 1-way L2 (512 lines): a line is evicted when
   * a later line maps to its set; with one way and a hash, at the end
   * each set still holds its last line, so the write-back is the stores
   * minus what the occupied sets still hold: exactly 128 bytes per line
   * evicted, and at most 512 lines remain */
  arch.l2_bytes = 64 * 1024;
  arch.l2_partitions = 1;
  arch.l2_ways = 1;
  run (&arch, r, n, &t);
  g_assert_cmpuint (t.dram_write % 128, ==, 0);
  g_assert_cmpuint (t.dram_write, >=, ((guint64) n - 512) * 128);
  g_assert_cmpuint (t.dram_write, <, (guint64) n * 128);
}

static void
test_eviction_by_capacity (void)
{
  /* a fully associative 4 KiB L2 (32 lines, LRU) read in a loop over 33
   * lines: LRU keeps missing (the classic cyclic pattern), so every read
   * of the second pass misses again: 2 x 33 lines read from DRAM */
  MsArch arch = small_l2 (32 * 128, 32);     /* no L1: every load reaches the L2 */
  MsWarpAccess r[66];
  for (guint i = 0; i < 66; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * (guint64) (i % 33), 4, 4, 0);
  Traffic t;
  run (&arch, r, 66, &t);
  g_assert_cmpuint (t.dram_read, ==, 66 * 128);
  g_assert_cmpuint (t.l2_read, ==, 66 * 4);
  /* 32 lines fit: the second pass hits */
  for (guint i = 0; i < 64; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * (guint64) (i % 32), 4, 4, 0);
  run (&arch, r, 64, &t);
  g_assert_cmpuint (t.dram_read, ==, 32 * 128);
  /* two partitions of 32 lines each: a kernel's data sees one (cache.c),
   * so 33 lines thrash and 32 fit, as above with twice the bytes */
  arch.l2_bytes = 64 * 128;
  arch.l2_partitions = 2;
  for (guint i = 0; i < 66; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * (guint64) (i % 33), 4, 4, 0);
  run (&arch, r, 66, &t);
  g_assert_cmpuint (t.dram_read, ==, 66 * 128);
  for (guint i = 0; i < 64; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * (guint64) (i % 32), 4, 4, 0);
  run (&arch, r, 64, &t);
  g_assert_cmpuint (t.dram_read, ==, 32 * 128);
  /* l2_seen_bytes, where given, is the capacity: a 128-line L2 in one
   * partition (4 sets of 32 ways) holds the 33 lines, each read from DRAM
   * once; seen as 32 lines (one fully associative set) they thrash */
  arch.l2_bytes = 128 * 128;
  arch.l2_partitions = 1;
  for (guint i = 0; i < 66; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * (guint64) (i % 33), 4, 4, 0);
  run (&arch, r, 66, &t);
  g_assert_cmpuint (t.dram_read, ==, 33 * 128);
  arch.l2_seen_bytes = 32 * 128;
  run (&arch, r, 66, &t);
  g_assert_cmpuint (t.dram_read, ==, 66 * 128);
}

static void
test_column_stores (void)
{
  /* a fully associative L2 of 32 lines (LRU), no L1; a column: 32 lanes
   * 1 KiB apart, one sector each, 32 lines */
  MsArch arch = small_l2 (32 * 128, 32);
  MsWarpAccess r[3];
  /* the column stored twice (its next sector): all hits, nothing written back */
  r[0] = warp (MS_OP_ST, BUF, 1024, 4, 0);
  r[1] = warp (MS_OP_ST, BUF + 32, 1024, 4, 0);
  Traffic t;
  run (&arch, r, 2, &t);
  g_assert_cmpuint (t.l2_write, ==, 64);
  g_assert_cmpuint (t.dram_write, ==, 0);
  /* a row read between the two: it evicts the column's least recent line
   * (lane 0's: one dirty sector, 32 bytes), so the second store misses
   * lane 0's line, whose return evicts lane 1's line (now the least
   * recent), and so on down the column: lanes 1..31's lines are written
   * back (31 x 32 bytes); the last one back evicts the row (clean) */
  r[1] = warp (MS_OP_LD, 2 * BUF, 4, 4, 0);
  r[2] = warp (MS_OP_ST, BUF + 32, 1024, 4, 0);
  run (&arch, r, 3, &t);
  g_assert_cmpuint (t.dram_write, ==, 32 + 31 * 32);
  g_assert_cmpuint (t.dram_read, ==, 128);
  g_assert_cmpuint (t.l2_write, ==, 64);
}


/* Runs two sets of n records through the cache model: the same traffic,
 * and enough of it that the L2 evicted. */
static void
assert_equal_traffic (const Traffic *a, const Traffic *b)
{
  g_assert_cmpuint (a->l2_read, ==, b->l2_read);
  g_assert_cmpuint (a->l2_write, ==, b->l2_write);
  g_assert_cmpuint (a->dram_read, ==, b->dram_read);
  g_assert_cmpuint (a->dram_write, ==, b->dram_write);
  g_assert_cmpuint (a->dram_write, >, 0);   /* the L2 did evict */
}

static void
assert_same_traffic (const MsArch *arch, const MsWarpAccess *x, const MsWarpAccess *y, guint n)
{
  Traffic a, b;
  run (arch, x, n, &a);
  run (arch, y, n, &b);
  assert_equal_traffic (&a, &b);
}

/* A small L2 that evicts, and the L1s, on 4 SMs */
static MsArch
small_l2_with_l1 (void)
{
  MsArch arch = small_l2 (16 * 1024, 4);
  arch.l1_bytes = h100_data_only ().l1_bytes;
  return arch;
}

/* The closed forms for rows, broadcasts and columns (cache.c's
 * uniform_lines and its column of ways) against the general path: a random
 * stream of such accesses, and the same stream with each warp's lanes in
 * reverse order (the same lines, which only the general path sorts),
 * through a small L2 that evicts, must give the same traffic. */
static void
test_uniform_vs_general (void)
{
  MsArch arch = small_l2_with_l1 ();
  GRand *rand = g_rand_new_with_seed (20261124);
  static const guint widths[] = { 1, 2, 4, 8, 16 };
  static const guint64 columns[] = { 128, 160, 256, 1024, 4096 };
  guint n = 4000;
  g_autofree MsWarpAccess *fwd = g_new (MsWarpAccess, n);
  g_autofree MsWarpAccess *rev = g_new (MsWarpAccess, n);
  for (guint i = 0; i < n; i++)
    {
      guint width = widths[g_rand_int_range (rand, 0, 5)];
      guint64 base = BUF + (guint64) g_rand_int_range (rand, 0, 1 << 14) * width;
      guint kind = (guint) g_rand_int_range (rand, 0, 4);
      guint64 stride = kind == 0 ? 0 : kind == 1 ? width : columns[g_rand_int_range (rand, 0, 5)];
      if (kind >= 2)   /* column accesses repeat their lines, as a tile's warps do */
        base = BUF + (guint64) g_rand_int_range (rand, 0, 8) * 32
               + (guint64) g_rand_int_range (rand, 0, 32 / width) * width;
      MsOp op = g_rand_boolean (rand) ? MS_OP_ST : MS_OP_LD;
      fwd[i] = warp (op, base, stride, width, (guint32) g_rand_int_range (rand, 0, 4));
      rev[i] = fwd[i];
      for (guint l = 0; l < MS_WARP_SIZE; l++)
        rev[i].addr[l] = fwd[i].addr[MS_WARP_SIZE - 1 - l];
    }
  g_rand_free (rand);
  assert_same_traffic (&arch, fwd, rev, n);
}

/* A warp of a few active lanes is walked lane by lane (cache.c,
 * access_lines): its traffic equals that of the full warp whose inactive
 * lanes repeat an active neighbour's address (which adds no sector), over
 * thousands of random records of 1 to 8 lanes in ascending addresses, two
 * lanes often in one line (the sector bits of a line accumulate). */
static void
test_few_lanes_vs_full (void)
{
  MsArch arch = small_l2_with_l1 ();
  GRand *rand = g_rand_new_with_seed (20261127);
  guint n = 4000;
  g_autofree MsWarpAccess *few = g_new (MsWarpAccess, n);
  g_autofree MsWarpAccess *full = g_new (MsWarpAccess, n);
  for (guint i = 0; i < n; i++)
    {
      guint width = 1u << g_rand_int_range (rand, 0, 4);
      guint k = (guint) g_rand_int_range (rand, 1, 9);
      guint32 mask = 0;
      while ((guint) __builtin_popcount (mask) < k)
        mask |= 1u << g_rand_int_range (rand, 0, 32);
      few[i] = warp (g_rand_boolean (rand) ? MS_OP_ST : MS_OP_LD, 0, 0, width,
                     (guint32) g_rand_int_range (rand, 0, 4));
      few[i].mask = mask;
      guint64 x = BUF + (guint64) g_rand_int_range (rand, 0, 1 << 12) * width;
      for (guint32 m = mask; m; m &= m - 1)
        {
          few[i].addr[__builtin_ctz (m)] = x;
          x += (guint64) g_rand_int_range (rand, 0, 24) * width;   /* ascending */
        }
      full[i] = few[i];
      full[i].mask = 0xffffffffu;
      guint64 v = few[i].addr[__builtin_ctz (mask)];
      for (guint l = 0; l < MS_WARP_SIZE; l++)
        {
          v = (mask >> l) & 1 ? few[i].addr[l] : v;
          full[i].addr[l] = v;
        }
    }
  g_rand_free (rand);
  assert_same_traffic (&arch, few, full, n);
}

/* Partial warps whose active lanes share one address (a broadcast under a
 * divergent branch), lane 0 often inactive and the inactive lanes'
 * addresses garbage: with the producer's word (the span from the first
 * active lane, cache.c's uniform_lines) the traffic is the general path's,
 * over thousands of random records through a small L2 that evicts. */
static void
test_partial_broadcast (void)
{
  MsArch arch = small_l2_with_l1 ();
  GRand *rand = g_rand_new_with_seed (20261201);
  guint n = 4000;
  g_autofree MsWarpAccess *recs = g_new (MsWarpAccess, n);
  for (guint i = 0; i < n; i++)
    {
      guint width = 1u << g_rand_int_range (rand, 0, 5);
      guint64 x = BUF + (guint64) g_rand_int_range (rand, 0, 1 << 14) * width;
      recs[i] = warp (g_rand_boolean (rand) ? MS_OP_ST : MS_OP_LD, x, 0, width,
                      (guint32) g_rand_int_range (rand, 0, 4));
      recs[i].mask = g_rand_int (rand) | 1u << g_rand_int_range (rand, 1, 32);
      for (guint l = 0; l < MS_WARP_SIZE; l++)
        if (!(recs[i].mask >> l & 1))
          recs[i].addr[l] = BUF + (guint64) g_rand_int_range (rand, 0, 1 << 20) * 128;
    }
  g_rand_free (rand);
  Traffic plain, hinted;
  run_hinted (&arch, recs, n, FALSE, &plain);
  run_hinted (&arch, recs, n, TRUE, &hinted);
  assert_equal_traffic (&plain, &hinted);
}

static void
test_sampled_run (void)
{
  /* A sampled run (sample_fraction 1/4) keeps a second L2 of a quarter of
   * the size for write-backs (cache.c).  Full L2: 32 lines, fully
   * associative; the small one: 8 lines. */
  MsArch arch = small_l2 (32 * 128, 32);
  MsWarpAccess r[64];
  /* 16 lines written once (full warps, 128 bytes each): the full L2 holds
   * them all (no write-back), the small one evicts the 8 oldest, dirty:
   * 8 lines x 4 sectors x 32 bytes written back */
  for (guint i = 0; i < 16; i++)
    r[i] = warp (MS_OP_ST, BUF + 128 * (guint64) i, 4, 4, 0);
  Traffic t;
  run (&arch, r, 16, &t);
  g_assert_cmpuint (t.dram_write, ==, 0);
  arch.sample_fraction = 0.25;
  run (&arch, r, 16, &t);
  g_assert_cmpuint (t.dram_write, ==, 8 * 128);
  g_assert_cmpuint (t.l2_write, ==, 16 * 4);
  /* 16 lines read twice: the full L2 holds them, so DRAM reads them once
   * (the small L2's misses are not DRAM reads) */
  for (guint i = 0; i < 32; i++)
    r[i] = warp (MS_OP_LD, BUF + 128 * (guint64) (i % 16), 4, 4, 0);
  run (&arch, r, 32, &t);
  g_assert_cmpuint (t.dram_read, ==, 16 * 128);
  g_assert_cmpuint (t.dram_write, ==, 0);
}

static void
test_atomics_and_shared (void)
{
  MsArch arch = h100_data_only ();
  /* atomics: done at the L2, neither op_read nor op_write sectors; the
   * cold sector is read (64-byte chunk) and then dirty.  Shared accesses
   * are not the cache's. */
  MsWarpAccess r[2] = { warp (MS_OP_ATOMIC, BUF, 0, 4, 0), warp (MS_OP_LD, 0, 4, 4, 0) };
  r[1].space = MS_SPACE_SHARED;
  Traffic t;
  run (&arch, r, 2, &t);
  g_assert_cmpuint (t.l2_read, ==, 0);
  g_assert_cmpuint (t.l2_write, ==, 0);
  g_assert_cmpuint (t.dram_read, ==, 64);
  g_assert_cmpuint (t.dram_write, ==, 0);
}

static void
test_atomic_drops_l1_sector (void)
{
  MsArch arch = h100_data_only ();
  /* a line read into block 0's L1; an atomic on its first sector (done at
   * the L2) drops that sector from the L1, so reading the line again
   * misses it (one L2 read sector) and hits the other three */
  MsWarpAccess r[3] = { warp (MS_OP_LD, BUF, 4, 4, 0), warp (MS_OP_ATOMIC, BUF, 0, 4, 0),
                        warp (MS_OP_LD, BUF, 4, 4, 0) };
  Traffic t;
  run (&arch, r, 3, &t);
  g_assert_cmpuint (t.l2_read, ==, 4 + 1);
}

static void
test_presets_without_figures (void)
{
  /* a preset without cost figures: the model stays out of reports */
  MsArch arch = *ms_arch_default ();
  g_assert_true (ms_models_launch_counters (&arch));
  arch.has_costs = FALSE;
  g_assert_false (ms_models_launch_counters (&arch));
  arch = *ms_arch_default ();
  arch.l2_bytes = 0;
  g_assert_false (ms_models_launch_counters (&arch));
}

/* Mapped host memory (buffer 1, 1 MiB) beside device memory (buffer 0):
 * its loads pass the L1, and what the L1 misses crosses the host link
 * from the L2, which keeps nothing; stores cross it too; neither costs a
 * DRAM byte.  256 warps (blocks 0-255, one each) load 128 bytes each from
 * the host buffer: 1024 sectors, 32 768 bytes over the link; the same
 * warps store 128 bytes each to its second half: 1024 sectors, 32 768
 * bytes; block 0 loads its 128 bytes again: an L1 hit, nothing more; one
 * warp loads 128 bytes of device memory: its two 64-byte chunks from
 * DRAM. */
static void
test_host_memory (void)
{
  MsArch arch = h100_data_only ();
  guint n = 256 + 256 + 1 + 1;
  g_autofree MsWarpAccess *r = g_new (MsWarpAccess, n);
  guint k = 0;
  for (guint32 b = 0; b < 256; b++)
    r[k++] = warp (MS_OP_LD, 2 * BUF + b * 128, 4, 4, b);
  for (guint32 b = 0; b < 256; b++)
    r[k++] = warp (MS_OP_ST, 2 * BUF + (512 << 10) + b * 128, 4, 4, b);
  r[k++] = warp (MS_OP_LD, 2 * BUF, 4, 4, 0);
  r[k++] = warp (MS_OP_LD, BUF, 4, 4, 0);
  static const MsModel *const only_cache[] = { &ms_model_cache, NULL };
  guint64 base = 2 * BUF, bytes = 1 << 20;
  g_autoptr (MsStats) stats = drive_models_host (&arch, only_cache, &site_a, r, n, &base, &bytes, 1);
  const char *keys[] = { "l2_read_sectors", "l2_write_sectors", "dram_read_bytes",
                         "dram_write_bytes", "host_read_bytes", "host_write_bytes" };
  guint64 want[] = { 1024 + 4, 1024, 128, 0, 32768, 32768 };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const MsCounterDef *d = ms_counter_find (MS_SPACE_GLOBAL, keys[i]);
      g_assert_nonnull (d);
      g_assert_cmpuint (ms_stats_launch_total (stats, d), ==, want[i]);
    }
  /* without the range, the same records are device memory: no link bytes */
  g_autoptr (MsStats) plain = drive_models_host (&arch, only_cache, &site_a, r, n, NULL, NULL, 0);
  const MsCounterDef *host_read = ms_counter_find (MS_SPACE_GLOBAL, "host_read_bytes");
  g_assert_cmpuint (ms_stats_launch_total (plain, host_read), ==, 0);
  const MsCounterDef *dram_read = ms_counter_find (MS_SPACE_GLOBAL, "dram_read_bytes");
  g_assert_cmpuint (ms_stats_launch_total (plain, dram_read), ==, 32768 + 128);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cache/dense-read", test_dense_read);
  g_test_add_func ("/cache/sparse-read", test_sparse_read);
  g_test_add_func ("/cache/load-requests", test_load_requests);
  g_test_add_func ("/cache/l1-reuse", test_l1_reuse);
  g_test_add_func ("/cache/writes-stay-in-l2", test_writes_stay_in_l2);
  g_test_add_func ("/cache/eviction-by-capacity", test_eviction_by_capacity);
  g_test_add_func ("/cache/atomics-and-shared", test_atomics_and_shared);
  g_test_add_func ("/cache/atomic-drops-l1-sector", test_atomic_drops_l1_sector);
  g_test_add_func ("/cache/column-stores", test_column_stores);
  g_test_add_func ("/cache/uniform-vs-general", test_uniform_vs_general);
  g_test_add_func ("/cache/few-lanes-vs-full", test_few_lanes_vs_full);
  g_test_add_func ("/cache/partial-broadcast", test_partial_broadcast);
  g_test_add_func ("/cache/sampled-run", test_sampled_run);
  g_test_add_func ("/cache/presets-without-figures", test_presets_without_figures);
  g_test_add_func ("/cache/host-memory", test_host_memory);
  return g_test_run ();
}
