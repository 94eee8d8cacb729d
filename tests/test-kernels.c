/* test-kernels.c - the transpose family: outputs equal the plain-C
 * reference at awkward sizes, and the counters are the ones the hardware
 * rules give (each expected value derived in a comment). */
#include "config.h"

#include <math.h>
#include <string.h>

#include "emulator.h"
#include "problem.h"

static MsStats *
run_kernel (const char *name, const char *size, const char *block)
{
  const MsKernel *k = ms_kernel_find (name);
  g_assert_nonnull (k);
  g_autoptr (MsProblem) p = ms_problem_new (k);
  g_autoptr (GError) error = NULL;
  if (block)
    g_assert_true (ms_problem_set_block (p, block, &error));
  g_assert_true (ms_problem_set_size (p, size, &error));
  g_assert_true (ms_problem_setup (p, &error));
  MsStats *stats = NULL;
  g_assert_true (ms_problem_simulate (p, ms_arch_default (), 0, NULL, &stats, &error));
  g_assert_no_error (error);
  if (!k->check (p, &error))
    g_error ("%s --size %s: %s", name, size, error->message);
  return stats;
}

/* The transpose check must fail on a wrong element and name the lowest
 * wrong index of odata (odata[x * h + y] = idata[y * w + x]) whatever
 * order its tiles run in: of two wrong elements in one column of tiles,
 * the lower index lies in the later tile (y tiles of 64 run in order). */
static void
test_check_finds_first_wrong (void)
{
  const MsKernel *k = ms_kernel_find ("transpose_naive");
  g_autoptr (MsProblem) p = ms_problem_new (k);
  g_autoptr (GError) error = NULL;
  g_assert_true (ms_problem_set_size (p, "150x130", &error));   /* w 150, h 130 */
  g_assert_true (ms_problem_setup (p, &error));
  g_assert_true (ms_problem_simulate (p, ms_arch_default (), 0, NULL, NULL, &error));
  g_assert_true (k->check (p, &error));
  float *out = p->args.buf[0];
  const float *in = p->args.buf[1];
  out[3 * 130 + 120] = -7.5f;   /* x 3, y 120: index 510, the second y tile */
  out[60 * 130 + 5] += 1;       /* x 60, y 5: index 7805, the first y tile */
  g_assert_false (k->check (p, &error));
  g_autofree char *want = g_strdup_printf ("odata[510] = -7.5, expected %.9g",
                                           (double) in[120 * 150 + 3]);
  g_assert_nonnull (strstr (error->message, want));
  g_clear_error (&error);
  out[510] = in[120 * 150 + 3];
  g_assert_false (k->check (p, &error));
  g_assert_nonnull (strstr (error->message, "odata[7805] ="));
  g_clear_error (&error);
  out[7805] = in[5 * 150 + 60];
  g_assert_true (k->check (p, &error));
  /* the check's edges, compared one float at a time (the tiles are 64 by
   * 64, four by four inside): x 149, y 129 is in the last column and row
   * piece of both matrices; a NaN differs from what was expected */
  out[149 * 130 + 129] = NAN;
  g_assert_false (k->check (p, &error));
  g_assert_nonnull (strstr (error->message, "odata[19499] = nan"));
  g_clear_error (&error);
  out[19499] = in[129 * 150 + 149];
  out[148 * 130 + 2] = 0.25f + in[2 * 150 + 148];   /* a column's edge, a row's inside */
  g_assert_false (k->check (p, &error));
  g_assert_nonnull (strstr (error->message, "odata[19242] ="));
}

static const char *const family[] = {
  "transpose_naive", "transpose_shared", "transpose_padded", "transpose_padded2",
  "transpose_swizzled", "copy", "transpose_coalesced", "transpose_nobankconflicts",
};

static void
test_outputs_awkward_sizes (void)
{
  const char *sizes[] = { "1x1", "33x31", "31x33", "1000x700", "64x64", "2x1000" };
  for (gsize k = 0; k < G_N_ELEMENTS (family); k++)
    for (gsize s = 0; s < G_N_ELEMENTS (sizes); s++)
      ms_stats_free (run_kernel (family[k], sizes[s], NULL));
  /* the naive kernel accepts any block shape */
  ms_stats_free (run_kernel ("transpose_naive", "100x37", "16x8"));
  ms_stats_free (run_kernel ("transpose_naive", "100x37", "7x3"));
}

static void
totals (const MsStats *s, MsSpace space, MsOp op, MsCounters *c)
{
  ms_stats_total (s, space, op, c);
}

static void
test_naive_counts (void)
{
  /* 1024x1024, block 32x32: 1024*1024/32 = 32768 warps, one load and one
   * store each.  Load: 32 consecutive floats = 128 aligned bytes = 4
   * sectors -> 131072.  Store: lane x writes odata[y + 1024*x], 4096 bytes
   * apart: 32 sectors per request -> 1048576. */
  g_autoptr (MsStats) s = run_kernel ("transpose_naive", "1024x1024", "32x32");
  MsCounters ld, st;
  totals (s, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  totals (s, MS_SPACE_GLOBAL, MS_OP_ST, &st);
  g_assert_cmpuint (ld.executions, ==, 32768);
  g_assert_cmpuint (ld.v[MS_SLOT_REQUESTS], ==, 32768);
  g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, 131072);
  g_assert_cmpuint (st.v[MS_SLOT_REQUESTS], ==, 32768);
  g_assert_cmpuint (st.v[MS_SLOT_SECTORS], ==, 1048576);
  g_assert_cmpuint (ld.bytes, ==, 1024 * 1024 * 4);
}

/* Shared wavefronts per shared load instruction for a 1024x1024 run: the
 * tile's column read (lane l reads row l) has a word stride of the row
 * pitch P, hence gcd(P, 32) wavefronts: P = 32 -> 32, 33 -> 1, 34 -> 2;
 * the XOR swizzle puts lane l in bank (l*32 + (c ^ l)) % 32 = c ^ l: all
 * distinct -> 1.  Row writes are conflict-free (1) in every variant. */
static void
assert_tile_conflicts (const char *name, guint64 read_wavefronts_per_inst)
{
  g_autoptr (MsStats) s = run_kernel (name, "1024x1024", NULL);
  MsCounters ld, st, gld, gst;
  totals (s, MS_SPACE_SHARED, MS_OP_LD, &ld);
  totals (s, MS_SPACE_SHARED, MS_OP_ST, &st);
  g_assert_cmpuint (ld.executions, ==, 32768);
  g_assert_cmpuint (ld.v[MS_SLOT_WAVEFRONTS], ==, 32768 * read_wavefronts_per_inst);
  g_assert_cmpuint (ld.v[MS_SLOT_IDEAL], ==, 32768);
  g_assert_cmpuint (ld.v[MS_SLOT_EXCESSIVE], ==, 32768 * (read_wavefronts_per_inst - 1));
  g_assert_cmpuint (st.executions, ==, 32768);
  g_assert_cmpuint (st.v[MS_SLOT_WAVEFRONTS], ==, 32768);
  /* both global accesses are row-wise: 4 sectors per request */
  totals (s, MS_SPACE_GLOBAL, MS_OP_LD, &gld);
  totals (s, MS_SPACE_GLOBAL, MS_OP_ST, &gst);
  g_assert_cmpuint (gld.v[MS_SLOT_SECTORS], ==, 4 * gld.v[MS_SLOT_REQUESTS]);
  g_assert_cmpuint (gst.v[MS_SLOT_SECTORS], ==, 4 * gst.v[MS_SLOT_REQUESTS]);
  g_assert_cmpuint (gld.v[MS_SLOT_REQUESTS], ==, 32768);
}

static void test_shared_32way (void) { assert_tile_conflicts ("transpose_shared", 32); }
static void test_padded_conflict_free (void) { assert_tile_conflicts ("transpose_padded", 1); }
static void test_padded2_2way (void) { assert_tile_conflicts ("transpose_padded2", 2); }
static void test_swizzled_conflict_free (void) { assert_tile_conflicts ("transpose_swizzled", 1); }
static void test_coalesced_32way (void) { assert_tile_conflicts ("transpose_coalesced", 32); }
static void test_nobank_conflict_free (void) { assert_tile_conflicts ("transpose_nobankconflicts", 1); }

static void
test_partial_tiles (void)
{
  /* 33x1 matrix, naive, block 32x32: 2 blocks in x; block 0 row 0 has 32
   * live lanes, block 1 row 0 has 1 live lane (x = 32).  Rows y >= 1 do no
   * access.  So 2 load instructions, one partial, 33 lanes. */
  g_autoptr (MsStats) s = run_kernel ("transpose_naive", "33x1", "32x32");
  MsCounters ld;
  totals (s, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  g_assert_cmpuint (ld.executions, ==, 2);
  g_assert_cmpuint (ld.lanes, ==, 33);
  g_assert_cmpuint (ld.partial, ==, 1);
  /* 32 floats from byte 0 -> 4 sectors; 1 float at byte 128 -> 1 sector */
  g_assert_cmpuint (ld.v[MS_SLOT_SECTORS], ==, 5);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kernels/transpose/outputs-awkward-sizes", test_outputs_awkward_sizes);
  g_test_add_func ("/kernels/transpose/naive-counts", test_naive_counts);
  g_test_add_func ("/kernels/transpose/check-finds-first-wrong", test_check_finds_first_wrong);
  g_test_add_func ("/kernels/transpose/shared-32-way", test_shared_32way);
  g_test_add_func ("/kernels/transpose/padded-conflict-free", test_padded_conflict_free);
  g_test_add_func ("/kernels/transpose/padded2-2-way", test_padded2_2way);
  g_test_add_func ("/kernels/transpose/swizzled-conflict-free", test_swizzled_conflict_free);
  g_test_add_func ("/kernels/transpose/coalesced-32-way", test_coalesced_32way);
  g_test_add_func ("/kernels/transpose/nobankconflicts-conflict-free", test_nobank_conflict_free);
  g_test_add_func ("/kernels/transpose/partial-tiles", test_partial_tiles);
  return g_test_run ();
}
