/* test-time.c - the kernel time model (sim/models/kernel-time.c) on
 * hand-made counters, each expected time worked out from the model's
 * stated formula and the h100 preset's figures:
 *   clock 1980 MHz, 132 SMs, dram_gbs 3352 x dram_efficiency 0.936,
 *   dram_write_cost 1.54, l2_gbs 28000, l2_partial_write_ps 17.6,
 *   lsu_per_clock 1.14, loads_in_flight_per_warp 2.16, latencies
 *   L1 40 / L2 288 / DRAM 671 cycles on an idle GPU, the L2's 588 with
 *   all of its 132 x 64 warp slots filled (a launch that fills a share of
 *   them gets that share of the way), the DRAM's 2141 with the DRAM busy
 *   throughout the kernel (busy a share of its duration: that share of
 *   the way), shared_phase_cycles 23, issue_efficiency 0.767 on 4
 *   schedulers per SM, dependence_scale 1.86 (a warp's chain per cycle
 *   of its dependence path), barrier_wait_cycles 137, with instruction
 *   counts the first wave's cold start in a kernel that addresses memory
 *   (one idle DRAM latency, 671 cycles, once), atomic_pass_ns
 *   0.74, texture_fetch_cycles 9.4, conflict_wavefront_cost 1.53,
 *   launch 2.75 us as CUDA events see it, of which 1.25 us (event_latency_us)
 *   Nsight's gpu__time_duration does not see, block_dispatch_ns 0.6 (the
 *   launch adds the first wave's blocks' starts, and every block's start
 *   bounds the kernel), store_drain_us 0.27 for a kernel that writes,
 *   mapped host memory at 51 GB/s read, 52 written, 84 both ways. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "kernel-time.h"
#include "model.h"

static MsSite site_ld = { "synthetic.cu", 1, 0, -1 };
static MsSite site_st = { "synthetic.cu", 2, 1, -1 };
static MsSite site_sh = { "synthetic.cu", 3, 2, -1 };

/* Stats with one global load site, one global store site and one shared
 * load site, and the cache model's launch totals. */
static MsStats *
make_stats (guint64 blocks, guint64 ld_req, guint64 ld_sec, guint64 st_req, guint64 st_sec,
            guint64 sh_inst, guint64 sh_wf, guint64 l2_rd, guint64 l2_wr, guint64 dram_rd,
            guint64 dram_wr)
{
  ms_site_register (&site_ld);
  ms_site_register (&site_st);
  ms_site_register (&site_sh);
  MsStats *s = ms_stats_new ();
  s->blocks = blocks;
  MsSiteStats ld = { .site = &site_ld, .space = MS_SPACE_GLOBAL, .op = MS_OP_LD, .width = 4 };
  ld.c.executions = ld_req;
  ld.c.v[MS_SLOT_REQUESTS] = ld_req;
  ld.c.v[MS_SLOT_SECTORS] = ld_sec;
  ld.c.v[MS_SLOT_LINES] = (ld_sec + 3) / 4;
  MsSiteStats st = { .site = &site_st, .space = MS_SPACE_GLOBAL, .op = MS_OP_ST, .width = 4 };
  st.c.executions = st_req;
  st.c.v[MS_SLOT_REQUESTS] = st_req;
  st.c.v[MS_SLOT_SECTORS] = st_sec;
  st.c.v[MS_SLOT_LINES] = st_sec <= 4 * st_req ? (st_sec + 3) / 4 : st_sec;
  MsSiteStats sh = { .site = &site_sh, .space = MS_SPACE_SHARED, .op = MS_OP_LD, .width = 4 };
  sh.c.executions = sh_inst;
  sh.c.v[MS_SLOT_WAVEFRONTS] = sh_wf;
  sh.c.v[MS_SLOT_IDEAL] = sh_inst;   /* a wavefront an instruction without conflicts */
  g_array_append_val (s->sites, ld);
  g_array_append_val (s->sites, st);
  g_array_append_val (s->sites, sh);
  s->launch.v[MS_SLOT_L2_READ] = l2_rd;
  s->launch.v[MS_SLOT_L2_WRITE] = l2_wr;
  s->launch.v[MS_SLOT_DRAM_READ] = dram_rd;
  s->launch.v[MS_SLOT_DRAM_WRITE] = dram_wr;
  return s;
}

static void
assert_close (double got, double want)
{
  g_assert_cmpfloat (fabs (got - want), <=, 1e-9 * fabs (want) + 1e-15);
}

/* Where the latency bounds, the DRAM latency's loaded part is (2141 -
 * 671) x t_dram / w, w the kernel's work (its duration less the launch's
 * own time), so w solves w = c + k / w: its positive root, worked out here
 * in closed form (the model finds it by bisection). */
static double
self_consistent (double c, double k)
{
  return (c + sqrt (c * c + 4 * k)) / 2;
}

#define CLOCK 1.98e9
#define DRAM_LOADED (2141.0 - 671.0)

/* A streaming copy of 256 MiB each way: 65536 blocks of 256 threads (8
 * warps), 8 active blocks per SM.  Per warp one 128-byte load and store. */
static void
test_dram_bound (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 65536 * 8, bytes = 256ull << 20;
  g_autoptr (MsStats) s = make_stats (65536, warps, 4 * warps, warps, 4 * warps, 0, 0, 4 * warps,
                                      4 * warps, bytes, bytes);
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  /* DRAM: (2^28 + 1.54 x 2^28) / (3352e9 x 0.936) = 217.38 us */
  double dram = (268435456.0 + 1.54 * 268435456.0) / (3352e9 * 0.936);
  assert_close (t.t_dram, dram);
  /* gpu__time_duration: the launch's own time inside the kernel: fixed
   * (2.75 - 1.25 us), the first wave's 1056 blocks' starts (1056 x 0.6 ns)
   * and the stores' drain (0.27 us), then the work; the
   * event time adds the launch latency.  Starting all 65536 blocks takes
   * 39.3 us, less than the DRAM time. */
  double launch = (2.75 - 1.25) * 1e-6 + 1056 * 0.6e-9 + 0.27e-6;
  assert_close (t.t_launch, launch);
  /* latency: 65536 / (8 x 132) = 62.06 -> 63 waves; 1 load per warp <
   * 2.16 in flight -> 1 x latency; L1 misses all (l2_rd = ld sectors),
   * L2 misses all (dram_rd >= 32 x l2_rd) -> the DRAM latency, the DRAM
   * busy all the work's time: 2141 cycles, 63 x 2141 / 1.98e9 = 68.1 us;
   * LSU: 2 x 524288 lines / (132 x 1.98e9 x 1.14) = 3.52 us; no
   * instruction counts, so no issue time; SM = 60.4 + 3.52 / 8 */
  double lat = 63 * 2141 / CLOCK;
  double lsu = 2.0 * warps / (132 * 1.98e9 * 1.14);
  assert_close (t.t_latency, lat);
  assert_close (t.t_lsu, lsu);
  assert_close (t.t_sm, lat + lsu / 8);
  g_assert_cmpint (t.bound, ==, MS_BOUND_DRAM);
  assert_close (t.t_dispatch, 65536 * 0.6e-9);
  assert_close (t.seconds, launch + dram);
  assert_close (t.event_seconds, launch + 1.25e-6 + dram);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_cmpstr (text, ==, "DRAM-bound");
}

/* The naive transpose's column stores: every store request writes 32
 * sectors 4 bytes each, so 28 of them per request are partial. */
static void
test_partial_writes (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 req = 2097152;   /* 8192^2 / 32 */
  g_autoptr (MsStats) s = make_stats (65536, req, 4 * req, req, 32 * req, 0, 0, 4 * req,
                                      32 * req, 4 * req * 32, 4 * req * 32);
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 2, 32, &t));
  /* L2: 36 x 2097152 sectors x 32 B / 28000e9 + (32 - 4) x 2097152 x 17.6 ps
   *   = 86.27 us + 1033.5 us */
  double l2 = 36.0 * req * 32 / 28000e9 + 28.0 * req * 17.6e-12;
  assert_close (t.t_l2, l2);
  g_assert_cmpint (t.bound, ==, MS_BOUND_L2);
}

/* 64 blocks of 8 warps, each warp 1024 loads of 128 bytes (a grid-stride
 * reduction): one wave on 132 SMs, the latency chain bounds.  An SM holds
 * one of the blocks (8 could fit), so nothing hides the block's LSU time:
 * it adds whole. */
static void
test_latency_bound (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 64 * 8, req = warps * 1024;
  g_autoptr (MsStats) s = make_stats (64, req, 4 * req, 0, 0, 0, 0, 4 * req, 0, 4 * req * 32, 0);
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  /* 1 wave x (1024 / 2.16 rounds) x the DRAM latency / 1.98e9, the DRAM
   * busy 21.39 us (64 MiB) of the work's time w: 671 + 1470 x 21.39 us / w
   * cycles.  With the LSU's 3.63 us (64 SMs in use, a block each), w =
   * 164.29 us + 7528 us^2 / w: 201.63 us, the DRAM waiting 827 cycles;
   * then the launch (1.5 us and 64 blocks' starts) */
  double rounds = 1024 / 2.16, dram = 4.0 * req * 32 / (3352e9 * 0.936);
  double lsu = (double) req / (64 * 1.98e9 * 1.14);
  double launch = 1.5e-6 + 64 * 0.6e-9;
  double work = self_consistent (lsu + rounds * 671 / CLOCK,
                                 rounds * DRAM_LOADED / CLOCK * dram);
  assert_close (t.t_lsu, lsu);
  assert_close (t.seconds, launch + work);
  assert_close (t.t_latency, rounds * (671 + DRAM_LOADED * dram / work) / CLOCK);
  g_assert_cmpint (t.bound, ==, MS_BOUND_LATENCY);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_cmpstr (text, ==, "latency-bound: 64 blocks in 1 wave of 1056 blocks on 132 SMs");
}

/* Bank conflicts cost time: the same kernel with 32-way conflicts on its
 * shared loads is not faster; with few other costs, the LSU bounds, and
 * each wavefront a conflict adds costs conflict_wavefront_cost, 1.53
 * ordinary ones (1 where the preset does not give it). */
static void
test_shared_conflicts (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 65536 * 8, req = warps;
  g_autoptr (MsStats) s1 = make_stats (65536, req, 4 * req, 0, 0, req, req, 4 * req, 0, 0, 0);
  g_autoptr (MsStats) s32 = make_stats (65536, req, 4 * req, 0, 0, req, 32 * req, 4 * req, 0,
                                        0, 0);
  MsTimePrediction t1, t32;
  g_assert_true (ms_time_predict (h, s1, 8, 8, &t1));
  g_assert_true (ms_time_predict (h, s32, 8, 8, &t32));
  /* LSU: (524288 lines + 524288 wavefronts + 31 x 524288 the conflicts
   * add x 1.53) / (132 x 1.98e9 x 1.14) */
  assert_close (t1.t_lsu, (req + 1.0 * req) / (132 * 1.98e9 * 1.14));
  assert_close (t32.t_lsu, (req + req + 31.0 * req * 1.53) / (132 * 1.98e9 * 1.14));
  g_assert_cmpfloat (t32.seconds, >, t1.seconds);
  g_assert_cmpint (t32.bound, ==, MS_BOUND_LSU);
  MsArch plain = *h;
  plain.conflict_wavefront_cost = 0;
  g_assert_true (ms_time_predict (&plain, s32, 8, 8, &t32));
  assert_close (t32.t_lsu, (req + 32.0 * req) / (132 * 1.98e9 * 1.14));
}

/* With the engine's instruction counts: the warps' own load rounds and
 * their instructions' waits set the latency chain, and the instructions'
 * issue can bound.  264 blocks of 32 warps, 2 a SM (every warp slot
 * filled: the loaded latencies), each warp 1024 loads (1024 rounds, none
 * issued together) and 40 instructions a load. */
static MsStats *
make_instruction_stats (void)
{
  guint64 req = 264 * 32 * 1024;
  MsStats *s = make_stats (264, req, 4 * req, 0, 0, 0, 0, 4 * req, 0, 4 * req * 32, 0);
  s->inst_basis = MS_INST_SASS_LINES;
  s->inst_executed = 40 * req;
  s->dependent_cycles = 40 * req;   /* a cycle an instruction: no dependence waits */
  s->load_rounds = req;
  s->launch.v[MS_SLOT_DRAM_LOADS] = req;   /* each round waits for DRAM */
  return s;
}

static void
test_instructions (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 264 * 32, req = warps * 1024;
  g_autoptr (MsStats) s = make_instruction_stats ();
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 2, 32, &t));
  /* 346030080 instructions on 132 SMs' 4 schedulers at 0.767 a clock:
   * 431.5 us */
  double issue = 40.0 * req / (132 * 4 * 1.98e9 * 0.767);
  assert_close (t.t_issue, issue);
  /* 1 wave x (1024 rounds x the DRAM latency + a dependence path of 40960
   * cycles x 1.86) + the cold start's 671 cycles, / 1.98e9, the DRAM busy
   * 352.9 us (1 GiB) of the work's time w; the issue time the second
   * longest, over the 2 blocks an SM holds: w = 601.6 us + 268310 us^2 / w
   * (385.8 us of it the idle latencies and the path, 431.5 / 2 the issue):
   * 899.8 us, of which 684.0 us the latency (the DRAM's 1248 cycles); then
   * the launch (1.5 us and 264 blocks' starts) */
  double dram = 4.0 * req * 32 / (3352e9 * 0.936), launch = 1.5e-6 + 264 * 0.6e-9;
  double work = self_consistent ((1024 * 671 + 40960 * 1.86 + 671) / CLOCK + issue / 2,
                                 1024 * DRAM_LOADED / CLOCK * dram);
  double lat = (1024 * (671 + DRAM_LOADED * dram / work) + 40960 * 1.86 + 671) / CLOCK;
  assert_close (t.seconds, launch + work);
  assert_close (t.t_latency, lat);
  assert_close (t.t_sm, lat + issue / 2);
  g_assert_cmpint (t.bound, ==, MS_BOUND_LATENCY);
  /* ten times the instructions and the path: 4315 us of issue against
   * 789 us of latency, issue-bound (the latency then the second, halved) */
  s->inst_executed *= 10;
  s->dependent_cycles *= 10;
  g_assert_true (ms_time_predict (h, s, 2, 32, &t));
  assert_close (t.t_issue, 10 * issue);
  work = self_consistent (10 * issue + (1024 * 671 + 409600 * 1.86 + 671) / CLOCK / 2,
                          1024 * DRAM_LOADED / CLOCK * dram / 2);
  assert_close (t.seconds, launch + work);
  assert_close (t.t_latency,
                (1024 * (671 + DRAM_LOADED * dram / work) + 409600 * 1.86 + 671) / CLOCK);
  g_assert_cmpint (t.bound, ==, MS_BOUND_ISSUE);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_nonnull (strstr (text, "issue-bound"));
  /* a preset without issue_efficiency counts no instructions: 2.16 loads
   * a round, no instruction waits */
  MsArch plain = *h;
  plain.issue_efficiency = 0;
  g_assert_true (ms_time_predict (&plain, s, 2, 32, &t));
  assert_close (t.t_issue, 0);
  double rounds = 1024 / 2.16, lsu = (double) req / (132 * 1.98e9 * 1.14);
  work = self_consistent (rounds * 671 / CLOCK + lsu / 2, rounds * DRAM_LOADED / CLOCK * dram);
  assert_close (t.seconds, launch + work);
  assert_close (t.t_latency, rounds * (671 + DRAM_LOADED * dram / work) / CLOCK);
}

/* Barriers: each warp waits barrier_wait_cycles at each bar.sync for the
 * block's other warps, in its chain.  The instructions' launch above with
 * 64 barriers a warp: 64 x 137 cycles more a warp, the one wave's
 * latency 4.43 us longer at the same DRAM wait.  A preset without the
 * figure: no wait. */
static void
test_barriers (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 264 * 32, req = warps * 1024;
  g_autoptr (MsStats) s = make_instruction_stats ();
  MsTimePrediction t0, t;
  g_assert_true (ms_time_predict (h, s, 2, 32, &t0));
  s->barriers = 64 * warps;
  g_assert_true (ms_time_predict (h, s, 2, 32, &t));
  double dram = 4.0 * req * 32 / (3352e9 * 0.936), issue = t.t_issue;
  double work = self_consistent ((1024 * 671 + 40960 * 1.86 + 64 * 137.0 + 671) / CLOCK
                                 + issue / 2,
                                 1024 * DRAM_LOADED / CLOCK * dram);
  assert_close (t.t_latency,
                (1024 * (671 + DRAM_LOADED * dram / work) + 40960 * 1.86 + 64 * 137.0 + 671)
                / CLOCK);
  g_assert_cmpfloat (t.seconds, >, t0.seconds);
  MsArch plain = *h;
  plain.barrier_wait_cycles = 0;
  g_assert_true (ms_time_predict (&plain, s, 2, 32, &t));
  assert_close (t.seconds, t0.seconds);
}

/* A round waits for its slowest load.  64 blocks of 8 warps (one an SM),
 * each warp 1024 rounds of two loads: a broadcast the L1 holds (1
 * sector) and a row from the L2 (4 sectors), 20 instructions a load on
 * a dependence path of 30 cycles.  The L2's latency at 512 of the 8448
 * warp slots filled: 288 + 300 x 512 / 8448 = 306.2 cycles; every round
 * waits for it (1024 L2 load requests a warp), not for the sectors'
 * average (40 + 266 x 4 / 5 = 253 cycles).  The same requests from DRAM:
 * the DRAM's latency (not busy: 0 DRAM bytes, so the idle 671); a quarter
 * of them: a quarter of the rounds.  The chain also waits once for the
 * cold start (671 cycles). */
static void
test_round_latency (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 64 * 8, rounds = warps * 1024, req = 2 * rounds;
  g_autoptr (MsStats) s = make_stats (64, req, 5 * rounds, 0, 0, 0, 0, 4 * rounds, 0, 0, 0);
  s->inst_basis = MS_INST_SASS_LINES;
  s->inst_executed = 20 * req;
  s->dependent_cycles = 30 * req;
  s->load_rounds = rounds;
  s->launch.v[MS_SLOT_L2_LOADS] = rounds;
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  double l2 = 288 + (588 - 288) * 512.0 / 8448, waits = 61440 * 1.86 + 671;
  assert_close (t.t_latency, (1024 * l2 + waits) / CLOCK);
  g_assert_cmpuint (t.l2_loads, ==, rounds);
  s->launch.v[MS_SLOT_L2_LOADS] = 0;
  s->launch.v[MS_SLOT_DRAM_LOADS] = rounds;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  assert_close (t.t_latency, (1024 * 671.0 + waits) / CLOCK);
  s->launch.v[MS_SLOT_L2_LOADS] = 3 * rounds;
  s->launch.v[MS_SLOT_DRAM_LOADS] = rounds / 4;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  assert_close (t.t_latency, (1024 * (0.25 * 671 + 0.75 * l2) + waits) / CLOCK);
}

/* The first wave's cold start: a counted kernel that addresses memory
 * waits one idle DRAM latency (671 cycles) once, however many waves it
 * has; one that addresses nothing does not.  2112 blocks of 8 warps, 8 an
 * SM: 2 waves of a warp chain of one round from the L1 (40 cycles, the
 * loads' sectors all hit) and a path of 100 cycles x 1.86. */
static void
test_cold_start (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 2112 * 8;
  g_autoptr (MsStats) s = make_stats (2112, warps, warps, 0, 0, 0, 0, 0, 0, 0, 0);
  s->inst_basis = MS_INST_SASS_LINES;
  s->inst_executed = 10 * warps;
  s->dependent_cycles = 100 * warps;
  s->load_rounds = warps;
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  assert_close (t.t_latency, (2 * (40 + 100 * 1.86) + 671) / CLOCK);
  g_autoptr (MsStats) none = make_stats (2112, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  none->inst_basis = MS_INST_SASS_LINES;
  none->inst_executed = 10 * warps;
  none->dependent_cycles = 100 * warps;
  g_assert_true (ms_time_predict (h, none, 8, 8, &t));
  assert_close (t.t_latency, 2 * 100 * 1.86 / CLOCK);
}

/* Atomics on one line: the busiest line's passes (atomics.c) one after
 * another at atomic_pass_ns, 0.74 ns.  A counter every warp of 65536
 * blocks of 8 warps adds to once: 524288 passes, 388 us, far longer than
 * the few instructions and the one store sector a warp. */
static void
test_atomics_bound (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 65536 * 8;
  g_autoptr (MsStats) s = make_stats (65536, 0, 0, warps, warps, 0, 0, 0, warps, 0, 0);
  s->launch.v[MS_SLOT_ATOMIC_LINE_PASSES] = warps;
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  g_assert_cmpuint (t.atomic_passes, ==, warps);
  assert_close (t.t_atomics, warps * 0.74e-9);
  g_assert_cmpint (t.bound, ==, MS_BOUND_ATOMICS);
  assert_close (t.seconds, t.t_launch + warps * 0.74e-9);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_nonnull (strstr (text, "atomics-bound: 524288 passes"));
  /* a preset without atomic_pass_ns has no atomic term */
  MsArch plain = *h;
  plain.atomic_pass_ns = 0;
  g_assert_true (ms_time_predict (&plain, s, 8, 8, &t));
  assert_close (t.t_atomics, 0);
  g_assert_cmpint (t.bound, !=, MS_BOUND_ATOMICS);
}

/* The cuda-samples' simpleZeroCopy: vectorAdd of 1M floats on mapped host
 * memory, 4096 blocks of 8 warps, each warp two 128-byte loads and one
 * store, none of it in DRAM: 8 MiB read and 4 MiB written over the host
 * link.  Reads alone take 8388608 / 51 GB/s = 164.5 us, writes 4194304 /
 * 52 GB/s = 80.7 us, both together 12582912 / 84 GB/s = 149.8 us: the
 * reads bound it.  Without the link's figures there is no such term. */
static void
test_host_bound (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 warps = 4096 * 8;
  g_autoptr (MsStats) s = make_stats (4096, 2 * warps, 8 * warps, warps, 4 * warps, 0, 0,
                                      8 * warps, 4 * warps, 0, 0);
  s->launch.v[MS_SLOT_HOST_READ] = 8388608;
  s->launch.v[MS_SLOT_HOST_WRITE] = 4194304;
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  assert_close (t.t_host, 8388608 / 51e9);
  g_assert_cmpuint (t.host_bytes, ==, 12582912);
  g_assert_cmpint (t.bound, ==, MS_BOUND_HOST);
  assert_close (t.seconds, t.t_launch + 8388608 / 51e9);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_cmpstr (text, ==, "host-memory-bound: 12.6 MB of mapped host memory over the host link");
  /* writes alone, 16 MiB: 16777216 / 52 GB/s = 322.6 us against 16777216
   * / 84 GB/s both ways */
  s->launch.v[MS_SLOT_HOST_READ] = 0;
  s->launch.v[MS_SLOT_HOST_WRITE] = 16777216;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  assert_close (t.t_host, 16777216 / 52e9);
  MsArch plain = *h;
  plain.host_read_gbs = plain.host_write_gbs = plain.host_duplex_gbs = 0;
  g_assert_true (ms_time_predict (&plain, s, 8, 8, &t));
  assert_close (t.t_host, 0);
  g_assert_cmpint (t.bound, !=, MS_BOUND_HOST);
}

/* Device code's printf, malloc and free against what the H200 measured
 * of them (gpu/measurements/h200-2026-11-29-device-runtime, the empty
 * kernel's 1.4-1.7 us taken off): one warp's printf of one line 27.8-
 * 28.7 us; 32 warps of 4 blocks, a line a thread, 308-331 us; one warp's
 * malloc of 32 lanes 67.4-67.6 us; its free 22.5-22.6 us.  A launch of
 * such calls alone is bound by them; without the preset's figures they
 * cost nothing. */
static void
test_device_runtime (void)
{
  const MsArch *h = ms_arch_default ();
  g_autoptr (MsStats) s = make_stats (1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  static const struct {
    MsRuntimeKind kind;
    guint64 calls, lanes, chain;
    double lo_us, hi_us;
  } cases[] = {
    { MS_RUNTIME_PRINTF, 1, 1, 1, 27.8, 28.7 },
    { MS_RUNTIME_PRINTF, 32, 1024, 1, 308, 331 },
    { MS_RUNTIME_MALLOC, 1, 32, 1, 67.4, 67.6 },
    { MS_RUNTIME_FREE, 1, 32, 1, 22.5, 22.7 },
  };
  MsTimePrediction t;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      memset (&s->runtime, 0, sizeof s->runtime);
      s->runtime.calls[cases[i].kind] = cases[i].calls;
      s->runtime.lanes[cases[i].kind] = cases[i].lanes;
      s->runtime.chain[cases[i].kind] = cases[i].chain;
      g_assert_true (ms_time_predict (h, s, 8, 1, &t));
      g_assert_cmpfloat (t.t_runtime * 1e6, >=, cases[i].lo_us);
      g_assert_cmpfloat (t.t_runtime * 1e6, <=, cases[i].hi_us);
      g_assert_cmpint (t.bound, ==, MS_BOUND_RUNTIME);
      assert_close (t.seconds - t.t_runtime, t.t_launch + MAX (t.t_sm, t.t_dispatch));
    }
  /* one warp printing three times in a row waits three times as long */
  memset (&s->runtime, 0, sizeof s->runtime);
  s->runtime.calls[MS_RUNTIME_PRINTF] = s->runtime.lanes[MS_RUNTIME_PRINTF] = 3;
  s->runtime.chain[MS_RUNTIME_PRINTF] = 3;
  g_assert_true (ms_time_predict (h, s, 8, 1, &t));
  assert_close (t.t_runtime, 3 * h->device_runtime[MS_RUNTIME_PRINTF].call_us * 1e-6);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_true (g_str_has_prefix (text, "device-runtime-bound: 3 warp-level calls"));
  MsArch plain = *h;
  memset (plain.device_runtime, 0, sizeof plain.device_runtime);
  g_assert_true (ms_time_predict (&plain, s, 8, 1, &t));
  assert_close (t.t_runtime, 0);
  g_assert_cmpint (t.bound, !=, MS_BOUND_RUNTIME);
}

/* 31250 blocks of one warp, one 128-byte load and store a warp (the
 * cuda-samples' simpleOccupancy): the front end starts 4224 blocks at a
 * time, one every 0.6 ns, 18.75 us for them all, longer than any
 * resource needs; without block_dispatch_ns there is no such bound. */
static void
test_dispatch_bound (void)
{
  const MsArch *h = ms_arch_default ();
  guint64 blocks = 31250;
  g_autoptr (MsStats) s = make_stats (blocks, blocks, 4 * blocks, blocks, 4 * blocks, 0, 0,
                                      4 * blocks, 4 * blocks, 128 * blocks, 128 * blocks);
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 32, 1, &t));
  assert_close (t.t_dispatch, blocks * 0.6e-9);
  g_assert_cmpint (t.bound, ==, MS_BOUND_DISPATCH);
  assert_close (t.seconds, 1.5e-6 + 4224 * 0.6e-9 + 0.27e-6 + blocks * 0.6e-9);
  g_autofree char *text = ms_time_bound_text (&t, h);
  g_assert_cmpstr (text, ==, "dispatch-bound: the GPU starts the 31250 blocks one after another, "
                             "0.60 ns each");
  MsArch plain = *h;
  plain.block_dispatch_ns = 0;
  g_assert_true (ms_time_predict (&plain, s, 32, 1, &t));
  assert_close (t.t_dispatch, 0);
  g_assert_cmpint (t.bound, !=, MS_BOUND_DISPATCH);
}

/* Texture fetches occupy the SM's texture pipe, 9.4 cycles a warp fetch:
 * 2.5 M fetches of 4096 blocks (the cuda-samples' convolutionTexture has
 * 17 a thread) on 132 SMs take 2.5e6 x 9.4 / (132 x 1.98e9) = 89.9 us
 * in the LSU term, which then bounds; a kernel without fetches has none. */
static void
test_textures (void)
{
  const MsArch *h = ms_arch_default ();
  g_autoptr (MsStats) s = make_stats (4096, 0, 0, 4096 * 8, 4 * 4096 * 8, 0, 0, 0, 4 * 4096 * 8,
                                      0, 0);
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  double lsu = 4096 * 8 / (132 * 1.98e9 * 1.14);
  assert_close (t.t_lsu, lsu);
  s->texture_fetches = 2500000;
  g_assert_true (ms_time_predict (h, s, 8, 8, &t));
  assert_close (t.t_lsu, lsu + 2.5e6 * 9.4 / (132 * 1.98e9));
  g_assert_cmpint (t.bound, ==, MS_BOUND_LSU);
}

static void
test_launch_bound_and_no_figures (void)
{
  const MsArch *h = ms_arch_default ();
  g_autoptr (MsStats) s = make_stats (1, 1, 4, 1, 4, 0, 0, 4, 4, 128, 0);
  MsTimePrediction t;
  g_assert_true (ms_time_predict (h, s, 32, 1, &t));
  g_assert_cmpint (t.bound, ==, MS_BOUND_LAUNCH);
  /* One meaning per name: a tiny kernel's gpu__time_duration holds no
   * launch latency, so it is shorter than the launch's whole fixed time;
   * the event time is exactly the duration plus the latency, 1.25 us */
  g_assert_cmpfloat (t.seconds, <, h->launch_overhead_us * 1e-6);
  assert_close (t.event_seconds - t.seconds, 1.25e-6);
  g_assert_cmpfloat (t.event_seconds, >=, 2.75e-6 + 0.27e-6);
  /* a preset without event_latency_us: both figures are the same */
  MsArch plain = *h;
  plain.launch_event_latency_us = 0;
  MsTimePrediction tp;
  g_assert_true (ms_time_predict (&plain, s, 32, 1, &tp));
  assert_close (tp.seconds, tp.event_seconds);
  assert_close (tp.event_seconds, t.event_seconds);
  /* no prediction without the figures, or for a block that cannot run */
  MsArch bare = *h;
  bare.has_costs = FALSE;
  g_assert_false (ms_time_predict (&bare, s, 32, 1, &t));
  g_assert_false (ms_time_predict (h, s, 0, 1, &t));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/time/dram-bound", test_dram_bound);
  g_test_add_func ("/time/host-bound", test_host_bound);
  g_test_add_func ("/time/device-runtime", test_device_runtime);
  g_test_add_func ("/time/partial-writes", test_partial_writes);
  g_test_add_func ("/time/latency-bound", test_latency_bound);
  g_test_add_func ("/time/instructions", test_instructions);
  g_test_add_func ("/time/barriers", test_barriers);
  g_test_add_func ("/time/round-latency", test_round_latency);
  g_test_add_func ("/time/cold-start", test_cold_start);
  g_test_add_func ("/time/shared-conflicts", test_shared_conflicts);
  g_test_add_func ("/time/atomics-bound", test_atomics_bound);
  g_test_add_func ("/time/dispatch-bound", test_dispatch_bound);
  g_test_add_func ("/time/textures", test_textures);
  g_test_add_func ("/time/launch-bound-and-no-figures", test_launch_bound_and_no_figures);
  return g_test_run ();
}
