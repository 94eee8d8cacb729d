/* test-atomics.c - the contention model of global atomics (sim/models/
 * atomics.c): the passes the busiest 128-byte line serves, worked out by
 * hand from its stated rules: per instruction and line, as many passes as
 * the most lanes on one address of the line; summed over the launch per
 * line; the busiest line counts. */
#include "config.h"

#include "atomics.h"
#include "drive-models.h"
#include "model.h"

static MsSite site_a = { "synthetic.cu", 1, 0, -1 };

#define BUF ((guint64) 1 << MS_BUFFER_SHIFT)

/* The busiest line's passes after the records, the atomics model alone. */
static guint64
busiest (const MsWarpAccess *recs, guint n)
{
  static const MsModel *const only_atomics[] = { &ms_model_atomics, NULL };
  g_autoptr (MsStats) stats = drive_models (ms_arch_default (), only_atomics, &site_a, recs, n);
  const MsCounterDef *d = ms_counter_find (MS_SPACE_GLOBAL, "atomic_busiest_line_passes");
  g_assert_nonnull (d);
  g_assert_true (d->per_launch);
  g_assert_null (d->nsight);   /* no Nsight metric: not reported as one */
  return ms_stats_launch_total (stats, d);
}

/* lane l at base + (l % groups) * stride bytes, 4 bytes each */
static MsWarpAccess
warp (MsOp op, guint64 base, guint groups, guint64 stride, guint32 mask)
{
  MsWarpAccess a = { .site = &site_a, .space = MS_SPACE_GLOBAL, .op = op, .width = 4,
                     .mask = mask };
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    a.addr[l] = base + (l % groups) * stride;
  return a;
}

static void
test_one_address (void)
{
  /* 32 lanes on one address: 32 passes; twice: 64 */
  MsWarpAccess r[2] = { warp (MS_OP_ATOMIC, BUF, 1, 0, 0xffffffffu),
                        warp (MS_OP_RED, BUF, 1, 0, 0xffffffffu) };
  g_assert_cmpuint (busiest (r, 1), ==, 32);
  g_assert_cmpuint (busiest (r, 2), ==, 64);
  /* an aggregated atomic (ptxas: one lane performs it) is one pass */
  MsWarpAccess one = warp (MS_OP_RED, BUF, 1, 0, 0x1u);
  g_assert_cmpuint (busiest (&one, 1), ==, 1);
}

static void
test_addresses_of_one_line (void)
{
  /* 8 addresses 4 bytes apart, 4 lanes each: 4 passes on the one line */
  MsWarpAccess r = warp (MS_OP_ATOMIC, BUF, 8, 4, 0xffffffffu);
  g_assert_cmpuint (busiest (&r, 1), ==, 4);
  /* 32 distinct addresses of one line: one pass */
  MsWarpAccess d = warp (MS_OP_ATOMIC, BUF, 32, 4, 0xffffffffu);
  g_assert_cmpuint (busiest (&d, 1), ==, 1);
  /* only the active lanes count: lanes 0..3 on 8 addresses, one each */
  MsWarpAccess m = warp (MS_OP_ATOMIC, BUF, 8, 4, 0xfu);
  g_assert_cmpuint (busiest (&m, 1), ==, 1);
}

static void
test_lines_apart (void)
{
  /* 8 addresses a line apart, 4 lanes each: 4 passes on each of 8 lines,
   * the busiest has 4; then 10 more on the first line: 14 */
  MsWarpAccess r[2] = { warp (MS_OP_ATOMIC, BUF, 8, 128, 0xffffffffu),
                        warp (MS_OP_ATOMIC, BUF, 1, 0, 0x3ffu) };
  g_assert_cmpuint (busiest (r, 1), ==, 4);
  g_assert_cmpuint (busiest (r, 2), ==, 14);
}

static void
test_not_atomics (void)
{
  /* loads, stores and shared atomics make no passes */
  MsWarpAccess r[3] = { warp (MS_OP_LD, BUF, 1, 0, 0xffffffffu),
                        warp (MS_OP_ST, BUF, 1, 0, 0xffffffffu),
                        warp (MS_OP_ATOMIC, 0, 1, 0, 0xffffffffu) };
  r[2].space = MS_SPACE_SHARED;
  g_assert_cmpuint (busiest (r, 3), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/atomics/one-address", test_one_address);
  g_test_add_func ("/atomics/addresses-of-one-line", test_addresses_of_one_line);
  g_test_add_func ("/atomics/lines-apart", test_lines_apart);
  g_test_add_func ("/atomics/not-atomics", test_not_atomics);
  return g_test_run ();
}
