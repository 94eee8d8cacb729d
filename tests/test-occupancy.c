/* test-occupancy.c - the occupancy calculator (sim/models/occupancy.c) on
 * cases derived by hand from the presets' figures, seed 002's examples and
 * the CUDA occupancy calculator's documented behaviour.  Every expected
 * number is derived in the comment beside it. */
#include "config.h"

#include <string.h>

#include "arch.h"
#include "kernel-usage.h"
#include "occupancy.h"

static MsArch *
preset (const char *name)
{
  g_autoptr (GError) error = NULL;
  MsArch *a = ms_arch_lookup (name, &error);
  g_assert_no_error (error);
  return a;
}

/* Runs the calculator; the block must launch. */
static MsOccupancy
occ (const MsArch *a, int threads, int regs, int static_shared, int dynamic_shared)
{
  MsOccInput in = { threads, regs, static_shared, dynamic_shared, 1, -1 };
  MsOccupancy o;
  g_autoptr (GError) error = NULL;
  gboolean ok = ms_occupancy_compute (a, &in, &o, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  return o;
}

/* The calculator refuses the block; the message contains `what`. */
static void
refused (const MsArch *a, const MsOccInput *in, const char *what)
{
  MsOccupancy o;
  g_autoptr (GError) error = NULL;
  g_assert_false (ms_occupancy_compute (a, in, &o, &error));
  g_assert_error (error, MS_OCCUPANCY_ERROR, MS_OCCUPANCY_ERROR_LAUNCH);
  g_assert_nonnull (strstr (error->message, what));
  g_assert_null (strchr (error->message, '\n'));
  g_assert_cmpint (o.active_blocks, ==, 0);
}

static void
test_h100_registers (void)
{
  g_autoptr (MsArch) h = preset ("h100");
  /* 256 threads, 40 registers: a warp takes 40 x 32 = 1280 registers (a
   * multiple of 256); each of the 4 sub-partitions has 65536 / 4 = 16384,
   * i.e. floor(16384 / 1280) = 12 warps, 48 per SM (not floor(65536 /
   * 1280) = 51); 48 / 8 warps = 6 blocks, 48 of 64 warps = 75%. */
  MsOccupancy o = occ (h, 256, 40, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 6);
  g_assert_cmpint (o.limit_warps, ==, 8);        /* 64 / 8 */
  g_assert_cmpint (o.limit_blocks, ==, 32);
  g_assert_cmpint (o.limit_shared, ==, 228);     /* the reserved 1 KiB: 233472 / 1024 */
  g_assert_cmpint (o.limit_barriers, ==, 64);    /* 2 x 32 barriers, 1 per block */
  g_assert_cmpint (o.active_blocks, ==, 6);
  g_assert_cmpint (o.active_warps, ==, 48);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 75.0, 1e-9);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_REGISTERS);
  g_assert_cmpint (o.registers_per_block, ==, 1280 * 8);
  g_assert_cmpint (o.shared_per_block, ==, 1024);

  /* 1024 threads, 64 registers: 2048 per warp, 16384 / 2048 = 8 warps per
   * sub-partition, 32 per SM = one block of 32 warps: 50%. */
  o = occ (h, 1024, 64, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 1);
  g_assert_cmpint (o.limit_warps, ==, 2);
  g_assert_cmpint (o.active_blocks, ==, 1);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 50.0, 1e-9);

  /* seed 002, 512 threads: 31 registers -> 31 x 32 = 992, rounded to 1024
   * per warp, 16 warps per sub-partition, 64 per SM: 4 blocks of 16 warps,
   * as many as the warps allow (64 / 16): both limit, 100%. */
  o = occ (h, 512, 31, 0, 0);
  g_assert_cmpint (o.active_blocks, ==, 4);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_REGISTERS | MS_OCC_LIMIT_WARPS);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 100.0, 1e-9);
  /* 33 registers -> 1056, rounded to 1280: 12 warps per sub-partition, 48
   * per SM, 3 blocks: seed 002's "only 3 blocks per SM", 0.75. */
  o = occ (h, 512, 33, 0, 0);
  g_assert_cmpint (o.active_blocks, ==, 3);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 75.0, 1e-9);

  /* the sub-partitions matter: 96 threads (3 warps), 40 registers: 48
   * warps per SM / 3 = 16 blocks (65536 / 1280 = 51 warps would give 17;
   * warps alone allow 21) */
  o = occ (h, 96, 40, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 16);
  g_assert_cmpint (o.active_blocks, ==, 16);

  /* 0 registers: no register limit */
  o = occ (h, 128, 0, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, MS_OCC_UNLIMITED);
  g_assert_cmpint (o.registers_per_block, ==, 0);

  /* 255 registers: 8160 rounded to 8192 per warp, 2 per sub-partition, 8
   * per SM: 64 threads (2 warps) -> 4 blocks */
  o = occ (h, 64, 255, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 4);
  /* 256 registers: above max_registers_per_thread (255) */
  MsOccInput in = { 64, 256, 0, 0, 1, -1 };
  refused (h, &in, "256 registers per thread");
  /* 1024 threads x 255 registers: 32 x 8192 = 262144 > 65536 per block */
  in = (MsOccInput) { 1024, 255, 0, 0, 1, -1 };
  refused (h, &in, "262144");
  /* the hardware's check: 320 threads (10 warps) x 192 registers = 10 x
   * 6144 = 61440 fit in 65536, but counted as 12 warps (a multiple of the
   * 4 sub-partitions) they take 73728: refused */
  in = (MsOccInput) { 320, 192, 0, 0, 1, -1 };
  refused (h, &in, "73728");
  /* 256 threads (8 warps) x 192: 49152, 8 is already a multiple of 4:
   * floor(16384 / 6144) = 2 warps per sub-partition, 8 per SM: 1 block */
  o = occ (h, 256, 192, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 1);
}

static void
test_h100_warps_blocks (void)
{
  g_autoptr (MsArch) h = preset ("h100");
  /* seed 002: blocks of 32 threads (1 warp): 32 blocks per SM at most, 32
   * of 64 warps: 50%, limited by blocks */
  MsOccupancy o = occ (h, 32, 16, 0, 0);
  g_assert_cmpint (o.limit_warps, ==, 64);
  g_assert_cmpint (o.active_blocks, ==, 32);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_BLOCKS);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 50.0, 1e-9);
  /* seed 002: 768 threads = 24 warps: 2 x 24 = 48 <= 64 < 3 x 24: 2
   * blocks, 1536 / 2048 = 75%, limited by warps */
  o = occ (h, 768, 16, 0, 0);
  g_assert_cmpint (o.active_blocks, ==, 2);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_WARPS);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 75.0, 1e-9);
  /* 100 threads: 4 warps (the last partial), 64 / 4 = 16 blocks, 64 warps */
  o = occ (h, 100, 0, 0, 0);
  g_assert_cmpint (o.warps_per_block, ==, 4);
  g_assert_cmpint (o.active_blocks, ==, 16);
  /* seed 002: 64 x 64 = 4096 threads: more than 1024 per block */
  MsOccInput in = { 4096, 16, 0, 0, 1, -1 };
  refused (h, &in, "4096 threads");
}

static void
test_h100_shared (void)
{
  g_autoptr (MsArch) h = preset ("h100");
  /* 100 KiB static: 102400 + 1024 reserved = 103424 (a multiple of 128),
   * above 48 KiB, so the opt-in limit 232448 + 1024 applies; the pool is
   * the largest carveout, 228 KiB = 233472: 233472 / 103424 = 2 blocks */
  MsOccupancy o = occ (h, 128, 32, 102400, 0);
  g_assert_cmpint (o.shared_per_block, ==, 103424);
  g_assert_cmpint (o.shared_pool, ==, 233472);
  g_assert_cmpint (o.limit_shared, ==, 2);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_SHARED);
  /* 114 KiB: 116736 + 1024 = 117760 > 233472 / 2: 1 block; without the
   * reserved KiB it would be 2 */
  o = occ (h, 128, 32, 114 * 1024, 0);
  g_assert_cmpint (o.limit_shared, ==, 1);
  /* static and dynamic add up: 1000 + 3000 + 1024 = 5024, rounded to 128:
   * 5120; 233472 / 5120 = 45 */
  o = occ (h, 128, 32, 1000, 3000);
  g_assert_cmpint (o.shared_per_block, ==, 5120);
  g_assert_cmpint (o.limit_shared, ==, 45);
  /* 227 KiB = 232448 + 1024 = 233472: exactly the opt-in limit, 1 block */
  o = occ (h, 128, 32, 0, 232448);
  g_assert_cmpint (o.limit_shared, ==, 1);
  /* one byte more: refused, 128 bytes too many after rounding */
  MsOccInput in = { 128, 32, 0, 232449, 1, -1 };
  refused (h, &in, "128 too many");

  /* the carveout: 10 KiB static -> 10240 + 1024 = 11264 per block.
   * Preference 0%: the pool is raised to the smallest carveout that holds
   * one block, 16 KiB: 16384 / 11264 = 1 block.  Preference 50%: 116736
   * bytes, rounded up to the 132 KiB carveout: 135168 / 11264 = 12.
   * Default: 228 KiB, 233472 / 11264 = 20. */
  MsOccInput c = { 128, 32, 10240, 0, 1, 0 };
  g_assert_true (ms_occupancy_compute (h, &c, &o, NULL));
  g_assert_cmpint (o.shared_pool, ==, 16384);
  g_assert_cmpint (o.limit_shared, ==, 1);
  c.carveout_pct = 50;
  g_assert_true (ms_occupancy_compute (h, &c, &o, NULL));
  g_assert_cmpint (o.shared_pool, ==, 135168);
  g_assert_cmpint (o.limit_shared, ==, 12);
  c.carveout_pct = -1;
  g_assert_true (ms_occupancy_compute (h, &c, &o, NULL));
  g_assert_cmpint (o.limit_shared, ==, 20);
}

static void
test_h100_barriers (void)
{
  g_autoptr (MsArch) h = preset ("h100");
  /* sm_90: 2 x 32 = 64 block barriers per SM; 4 per block: 16 blocks, below
   * the warps' (64 / 2 = 32) and the blocks' (32) limits: barriers alone */
  MsOccInput in = { 64, 0, 0, 0, 4, -1 };
  MsOccupancy o;
  g_assert_true (ms_occupancy_compute (h, &in, &o, NULL));
  g_assert_cmpint (o.limit_barriers, ==, 16);
  g_assert_cmpint (o.active_blocks, ==, 16);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_BARRIERS);
  /* no barrier: no limit */
  in.barriers = 0;
  g_assert_true (ms_occupancy_compute (h, &in, &o, NULL));
  g_assert_cmpint (o.limit_barriers, ==, MS_OCC_UNLIMITED);
  /* before sm_90 the calculator has no barrier limit */
  g_autoptr (MsArch) a = preset ("a100");
  in.barriers = 4;
  g_assert_true (ms_occupancy_compute (a, &in, &o, NULL));
  g_assert_cmpint (o.limit_barriers, ==, MS_OCC_UNLIMITED);
  g_assert_cmpint (o.active_blocks, ==, 32);
}

static void
test_older_presets (void)
{
  /* a100: 164 KiB pool, 1 KiB reserved: 40000 static + 1024 = 41024, to
   * 128: 41088; 167936 / 41088 = 4 */
  g_autoptr (MsArch) a = preset ("a100");
  MsOccupancy o = occ (a, 256, 32, 40000, 0);
  g_assert_cmpint (o.shared_per_block, ==, 41088);
  g_assert_cmpint (o.limit_shared, ==, 4);
  /* v100: 256-byte units, nothing reserved: 1000 -> 1024; 98304 / 1024 =
   * 96 */
  g_autoptr (MsArch) v = preset ("v100");
  o = occ (v, 256, 32, 1000, 0);
  g_assert_cmpint (o.shared_per_block, ==, 1024);
  g_assert_cmpint (o.limit_shared, ==, 96);
  /* v100, no shared memory at all: no shared limit */
  o = occ (v, 256, 32, 0, 0);
  g_assert_cmpint (o.limit_shared, ==, MS_OCC_UNLIMITED);
  /* kepler: 16 blocks per SM; 64 threads (2 warps), 20 registers: 640 ->
   * 768 per warp, floor(16384 / 768) = 21 per sub-partition, 84 warps: 42
   * blocks by registers, 32 by warps, 16 by blocks: 32 of 64 warps = 50% */
  g_autoptr (MsArch) k = preset ("kepler32");
  o = occ (k, 64, 20, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 42);
  g_assert_cmpint (o.active_blocks, ==, 16);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_BLOCKS);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 50.0, 1e-9);
  /* kepler: 48 KiB pool (pre-Volta: the carveout is not chosen), 256-byte
   * units: 12289 -> 12544; 49152 / 12544 = 3 */
  o = occ (k, 64, 20, 12289, 0);
  g_assert_cmpint (o.limit_shared, ==, 3);
  /* fermi: 48 warps, 2 sub-partitions, 64-register units: 256 threads x 20
   * registers: 640 per warp, 32768 / 2 = 16384 per sub-partition, 25
   * warps each, 50 per SM: 6 blocks of 8 warps; warps: 48 / 8 = 6 */
  g_autoptr (MsArch) f = preset ("fermi");
  o = occ (f, 256, 20, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 6);
  g_assert_cmpint (o.limit_warps, ==, 6);
  g_assert_cmpint (o.active_blocks, ==, 6);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 100.0, 1e-9);
  /* fermi allows 63 registers per thread */
  MsOccInput in = { 64, 64, 0, 0, 1, -1 };
  refused (f, &in, "at most 63");
}

static void
test_cc13 (void)
{
  g_autoptr (MsArch) c = preset ("cc13");
  /* cc 1.3: registers per BLOCK, warps rounded to 2, units of 512.
   * 256 threads (8 warps), 10 registers: 10 x 32 x 8 = 2560 (a multiple of
   * 512): 16384 / 2560 = 6 blocks; warps 32 / 8 = 4; 8 blocks: 4 */
  MsOccupancy o = occ (c, 256, 10, 0, 0);
  g_assert_cmpint (o.registers_per_block, ==, 2560);
  g_assert_cmpint (o.limit_registers, ==, 6);
  g_assert_cmpint (o.limit_warps, ==, 4);
  g_assert_cmpint (o.active_blocks, ==, 4);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 100.0, 1e-9);
  /* 96 threads = 3 warps, allocated as 4: registers 16 x 32 x 4 = 2048,
   * 16384 / 2048 = 8; warps 32 / 4 = 8; blocks 8: all three limit; active
   * warps count the block's 3: 24 of 32 = 75% */
  o = occ (c, 96, 16, 0, 0);
  g_assert_cmpint (o.limit_registers, ==, 8);
  g_assert_cmpint (o.limit_warps, ==, 8);
  g_assert_cmpint (o.active_blocks, ==, 8);
  g_assert_cmpuint (o.limiting, ==,
                    MS_OCC_LIMIT_REGISTERS | MS_OCC_LIMIT_WARPS | MS_OCC_LIMIT_BLOCKS);
  g_assert_cmpint (o.active_warps, ==, 24);
  g_assert_cmpfloat_with_epsilon (o.occupancy_pct, 75.0, 1e-9);
  /* 128 threads, 17 registers: 17 x 32 x 4 = 2176, rounded to 512: 2560:
   * 6 blocks (per warp allocation would give 8) */
  o = occ (c, 128, 17, 0, 0);
  g_assert_cmpint (o.registers_per_block, ==, 2560);
  g_assert_cmpint (o.active_blocks, ==, 6);
  g_assert_cmpuint (o.limiting, ==, MS_OCC_LIMIT_REGISTERS);
  /* shared in 512-byte units, 16 KiB: 5000 -> 5120, 16384 / 5120 = 3 */
  o = occ (c, 128, 8, 5000, 0);
  g_assert_cmpint (o.limit_shared, ==, 3);
  /* 512 threads is the most; 544 is refused */
  MsOccInput in = { 544, 8, 0, 0, 1, -1 };
  refused (c, &in, "at most 512");
  /* 512 threads x 40 registers = 20480 > 16384 per block */
  in = (MsOccInput) { 512, 40, 0, 0, 1, -1 };
  refused (c, &in, "20480");
}

static void
test_bad_input (void)
{
  g_autoptr (MsArch) h = preset ("h100");
  MsOccInput in = { 0, 32, 0, 0, 1, -1 };
  MsOccupancy o;
  g_autoptr (GError) error = NULL;
  g_assert_false (ms_occupancy_compute (h, &in, &o, &error));
  g_assert_error (error, MS_OCCUPANCY_ERROR, MS_OCCUPANCY_ERROR_INPUT);
}

/* Static shared bytes per block as the emulator sees block 0 declare them,
 * from the kernels' sources: transpose_shared's tile is 32 x 32 floats
 * (4096 bytes), transpose_padded's 32 x 33 (4224), copy has none.  Where
 * memsim was built with CUDA, the nvcc figures agree. */
static void
test_probe_shared (void)
{
  struct { const char *kernel; guint bytes; } cases[] = {
    { "transpose_shared", 4096 }, { "transpose_padded", 4224 }, { "copy", 0 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (cases[i].kernel));
      g_assert_true (ms_problem_set_size (p, "64x64", &error));
      g_assert_true (ms_problem_setup (p, &error));
      guint bytes = 12345;
      g_assert_true (ms_problem_probe_shared (p, &bytes, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (bytes, ==, cases[i].bytes);
      const MsKernelUsage *u = ms_kernel_usage_find (p);
      if (u != NULL)
        {
          g_assert_cmpstr (u->function, ==, cases[i].kernel);
          g_assert_cmpint (u->shared_bytes, ==, (int) cases[i].bytes);
        }
    }
}

/* reduce_multiple launches by default as many blocks as fill the device:
 * active blocks per SM x SMs, worked out here by hand from the sm_90
 * figures (h100 and h200 share them: 64 warps, 32 blocks, 65536 registers
 * in 4 sub-partitions, allocated per warp in 256s, 16 at least per
 * thread; 228 KiB of shared memory at most, 1 KiB reserved per block, in
 * 128-byte units) and the kernel's registers and shared array (the nvcc
 * build's where memsim has it, else 32 registers and 1024 ints). */
static guint
sm90_blocks_per_sm (int threads, int regs, int shared)
{
  int warps = (threads + 31) / 32;
  int by_warps = 64 / warps;
  int per_warp = (MAX (regs, 16) * 32 + 255) / 256 * 256;
  int by_regs = (65536 / 4 / per_warp) * 4 / warps;
  int by_shared = 233472 / ((shared + 1024 + 127) / 128 * 128);
  return (guint) MIN (MIN (by_warps, by_regs), MIN (by_shared, 32));
}

static void
test_reduce_multiple_fills_device (void)
{
  const char *archs[] = { "h100", "h200" };
  const char *blocks[] = { "256", "1024", "64" };
  for (gsize a = 0; a < G_N_ELEMENTS (archs); a++)
    for (gsize b = 0; b < G_N_ELEMENTS (blocks); b++)
      {
        g_autoptr (MsArch) arch = preset (archs[a]);
        g_autoptr (GError) error = NULL;
        g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("reduce_multiple"));
        g_assert_true (ms_problem_set_block (p, blocks[b], &error));
        g_assert_true (ms_problem_set_param (p, "n", "16777216", &error));
        p->arch = arch;
        g_assert_true (ms_problem_setup (p, &error));
        const MsKernelUsage *u = ms_kernel_usage_find (p);
        int regs = u ? u->registers : 32, shared = u ? u->shared_bytes : 4096;
        guint want = sm90_blocks_per_sm ((int) p->args.block[0], regs, shared) * 132;
        g_test_message ("%s, block %s: %u blocks (%d registers, %d shared bytes)", archs[a],
                        blocks[b], p->args.grid[0], regs, shared);
        g_assert_cmpuint (p->args.grid[0], ==, want);
        /* the report shows the number launched */
        g_assert_cmpint (ms_problem_param (p, "blocks"), ==, (gint64) want);
      }
  /* 256 threads, at most 32 registers: 8 blocks by warps and by registers */
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("reduce_multiple"));
  g_autoptr (GError) error = NULL;
  g_assert_true (ms_problem_set_param (p, "n", "16777216", &error));
  g_assert_true (ms_problem_setup (p, &error));   /* no arch: h100 */
  const MsKernelUsage *u = ms_kernel_usage_find (p);
  if (u == NULL || u->registers <= 32)
    g_assert_cmpuint (p->args.grid[0], ==, 8 * 132);
  /* the A100: 108 SMs */
  g_autoptr (MsArch) a100 = preset ("a100");
  g_autoptr (MsProblem) q = ms_problem_new (ms_kernel_find ("reduce_multiple"));
  g_assert_true (ms_problem_set_param (q, "n", "16777216", &error));
  q->arch = a100;
  g_assert_true (ms_problem_setup (q, &error));
  g_assert_cmpuint (q->args.grid[0] % 108, ==, 0);
  /* -p blocks=N still overrides */
  g_autoptr (MsProblem) r = ms_problem_new (ms_kernel_find ("reduce_multiple"));
  g_assert_true (ms_problem_set_param (r, "blocks", "64", &error));
  g_assert_true (ms_problem_set_param (r, "n", "16777216", &error));
  g_assert_true (ms_problem_setup (r, &error));
  g_assert_cmpuint (r->args.grid[0], ==, 64);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/occupancy/h100-registers", test_h100_registers);
  g_test_add_func ("/occupancy/h100-warps-blocks", test_h100_warps_blocks);
  g_test_add_func ("/occupancy/h100-shared", test_h100_shared);
  g_test_add_func ("/occupancy/h100-barriers", test_h100_barriers);
  g_test_add_func ("/occupancy/older-presets", test_older_presets);
  g_test_add_func ("/occupancy/cc13", test_cc13);
  g_test_add_func ("/occupancy/bad-input", test_bad_input);
  g_test_add_func ("/occupancy/probe-shared", test_probe_shared);
  g_test_add_func ("/occupancy/reduce-multiple-fills-device", test_reduce_multiple_fills_device);
  return g_test_run ();
}
