/* kernel-time.c - the kernel time model: gpu__time_duration predicted from the
 * counts of the other models and the launch's occupancy, and the time CUDA
 * events see around the launch.
 *
 * The model follows the bound-and-bottleneck ("roofline with waves")
 * family, with the latency term of MWP-CWP (Hong and Kim, ISCA 2009) in a
 * simplified form, its warp chains counted from the kernel's own code as
 * GPUMech (Huang et al., MICRO 2014) counts a warp's intervals: a kernel
 * takes the launch's own time plus the longest of five times, each the
 * time one resource needs for the whole launch:
 *
 *   launch   fixed (an empty kernel) + the first wave's blocks x
 *            block_dispatch_ns (they start one after another, and the
 *            last of them ends the wave) + store_drain_us when the
 *            kernel writes global memory (it ends when its last stores
 *            are acknowledged); all measured
 *   dispatch blocks x block_dispatch_ns: the front end starts blocks at
 *            a fixed rate (0.6 ns each on the H200, whatever their size up
 *            to 256 threads), which bounds grids of many small blocks
 *   DRAM     (read bytes + dram_write_cost x written bytes)
 *            / (dram_gbs x dram_efficiency)
 *   L2       (L2 sectors x 32) / l2_gbs
 *            + partially written sectors x l2_partial_write_ps
 *            (a warp store that leaves a sector partly written: the naive
 *            transpose's column stores; counted as store sectors beyond 4
 *            per store request)
 *   atomics  the busiest line's atomic passes x atomic_pass_ns: the L2
 *            performs the atomics on one line one pass after another
 *            (atomics.c; a counter every warp adds to)
 *   host     mapped host memory (zero-copy) over the host link: the
 *            longest of its bytes read / host_read_gbs, written /
 *            host_write_gbs and both / host_duplex_gbs (measured)
 *   runtime  device code's printf, malloc and free (measured, the
 *            preset's [device_runtime]), added to the longest time: a
 *            warp waits for its calls, one after another.  Per kind: the
 *            warp that calls most (its chain) pays call_us a call and
 *            lane_us for each further lane of a call; every other
 *            warp's call adds other_call_us, and other_lane_us a lane
 *            (the runtime serves them largely in parallel); a call's
 *            lanes are the kind's average.  So one warp's printf costs
 *            28 us whatever its lanes, 32 warps' 320 us, not 32 x 28
 *   SM       the longest of LSU, issue and latency, plus the second
 *            longest / the blocks an SM holds together, where
 *              LSU = (global lines + shared wavefronts + the wavefronts
 *                    bank conflicts add x (conflict_wavefront_cost - 1))
 *                    / (SMs in use x clock x lsu_per_clock): the L1 tag
 *                    and data stages every global line and shared
 *                    wavefront passes, a conflict's replays slower; plus
 *                    warp texture fetches x texture_fetch_cycles / (SMs
 *                    in use x clock): the texture pipe (measured on the
 *                    H200: 9.0 cycles a fetch point-sampled, 9.7
 *                    bilinear, from a 4-byte texture the L2 holds);
 *              issue = warp instructions executed / (SMs in use x
 *                    schedulers x clock x issue_efficiency): each
 *                    scheduler issues at most one warp instruction a
 *                    clock (the CWP side of MWP-CWP);
 *              latency = waves x per-warp chain + the first wave's cold
 *                    start (one idle DRAM latency, dram_latency_cycles, in
 *                    a kernel that addresses memory: its first address
 *                    needs its parameters, which the constant cache and
 *                    the L2 do not hold at the launch; later waves find
 *                    them in the SM's constant cache).  The chain: load
 *                    rounds per warp x
 *                    the latency of a round + the warp's dependence path
 *                    (instructions.h: its instructions' dependences at
 *                    their measured latencies, one issued a cycle) x
 *                    dependence_scale + barriers per warp x
 *                    barrier_wait_cycles (each waits for the block's
 *                    other warps).  A round waits for its slowest load:
 *                    the load requests that read from DRAM and those
 *                    that read from the L2 (cache.c) are taken to fall
 *                    each in a round of its own, so a share of the
 *                    rounds waits for DRAM, the next for the L2, the
 *                    rest for the L1.  A round is the loads a warp issues
 *                    together before it waits for them (instructions.h:
 *                    the PTX's load-to-load dependences and stores of
 *                    loaded values, restarted at loop heads and
 *                    barriers), the kernel's own memory-level
 *                    parallelism.  The L2 and DRAM latencies are an idle
 *                    GPU's ([memory], measured) rising linearly to the
 *                    loaded ones ([time], fitted) as requests queue: the
 *                    L2's with the share of the GPU's warp slots the
 *                    launch fills, the DRAM's with the share of the
 *                    kernel's work the DRAM is busy (so the work's time
 *                    depends on itself: the one time that gives itself);
 *            blocks on an SM hide each other's latency behind the longest
 *            time only partly: the second is divided among the blocks an
 *            SM holds together (the occupancy's active blocks, or fewer
 *            where the grid does not fill the SMs: correlation's 8 blocks,
 *            one an SM, wait for their loads and then for their stores'
 *            32 lines a warp in the LSU, one after the other; measured,
 *            gpu/probes/store-rounds.cu), not hidden entirely.
 *            Without instruction counts (a replayed trace file) or
 *            issue_efficiency (a preset that was not fitted), there is no
 *            issue time, a warp's loads go loads_in_flight_per_warp to a
 *            round, whose latency the cache model's L1 and L2 miss ratios
 *            weigh, and its shared instructions (shared_phase_cycles
 *            each) stand for its instructions' waits.
 *
 * Two figures, as the tools that measure them mean them:
 *   gpu__time_duration (Nsight Compute: the kernel's start to its end)
 *            = overhead_us - event_latency_us + the longest time above
 *   event time (memsim__event_time: what CUDA events around the launch
 *            see, the launch latency included)
 *            = gpu__time_duration + event_latency_us
 * overhead_us was fitted to event times; event_latency_us is the part of
 * it that only events see (an empty kernel, events minus Nsight's
 * duration).
 *
 * Assumptions and what is left out:
 * - Instructions issue as one class: an SFU or double-precision
 *   instruction takes an issue slot as an integer add does (its latency
 *   is in the dependence path).  The path is the PTX's, not the SASS's.
 * - A round's slow loads are spread over the rounds: where several of a
 *   round's loads miss together, fewer rounds wait than the model says.
 * - Texture fetches wait like loads and occupy the texture pipe, but cost
 *   nothing at the L2 or DRAM (the cache model does not see them).
 * - A load of mapped host memory waits as long as one from DRAM in the
 *   warps' chain (the H200 measures 1.2-1.6 us, 4 times longer): zero-copy
 *   kernels are bound by the link's bandwidth, not by their latency.
 * - Rounds come from the PTX: a loop that ptxas unrolls further than nvcc
 *   did keeps more loads in flight than memsim counts, and is predicted
 *   too slow.
 * - Waves are whole: blocks / (active blocks per SM x SMs) rounded up.
 * - The DRAM, L2 and LSU constants were fitted on the H100 (58 launches,
 *   2026-11-24); issue_efficiency, dependence_scale,
 *   barrier_wait_cycles, the loaded L2 and DRAM latencies and
 *   conflict_wavefront_cost to the H200's
 *   built-ins' measured times, which the H100 shares (the same SM;
 *   docs/model.md, "Kernel time", says how); the idle latencies,
 *   atomic_pass_ns and the host link are measured on the H200; the other
 *   presets reuse the H100's, unmeasured.
 */
#include "config.h"
#include "kernel-time.h"

#include <math.h>

#include "model.h"

static double
launch_total (const MsStats *stats, const char *key)
{
  const MsCounterDef *d = ms_counter_find (MS_SPACE_GLOBAL, key);
  return d ? (double) ms_stats_launch_total (stats, d) : 0.0;
}

/* A latency between the idle GPU's (idle) and the loaded GPU's (full; 0:
 * not given), by how loaded (0 to 1). */
static double
loaded (int idle, int full, double load)
{
  return full > 0 ? idle + (full - idle) * MIN (1.0, load) : idle;
}

/* The blocks an SM holds together: the occupancy's, or fewer where the
 * grid does not fill every SM (a grid of 8 blocks: one an SM, no other
 * block to hide its latency behind). */
static double
blocks_per_sm (const MsArch *arch, int active_blocks_per_sm, double blocks)
{
  return MIN ((double) active_blocks_per_sm, ceil (blocks / (double) arch->sm_count));
}

/* What chain_work needs of the launch. */
typedef struct {
  const MsArch *arch;
  double clock, rounds_per_warp, waits, l1_miss, l2_miss, l2_lat, others;
  double blocks_per_sm;   /* the blocks an SM holds together */
  /* with load rounds counted: the shares of rounds that wait for the L2
   * and for DRAM (else the miss ratios weigh the latencies) */
  gboolean by_rounds;
  double l2_rounds, dram_rounds;
  double cold;   /* cycles the first wave waits once: its parameters' miss */
} Chain;

/* The time of the kernel's work (its duration less the launch's own time)
 * the model gives when the work takes w seconds (the DRAM busy t_dram / w
 * of it, its latency rising as loaded() says); sets out->t_latency and
 * out->t_sm. */
static double
chain_work (const Chain *c, double w, MsTimePrediction *out)
{
  const MsArch *arch = c->arch;
  double busy = w > 0 ? MIN (1.0, out->t_dram / w) : 0.0;
  double dram_lat = loaded (arch->dram_latency_cycles, arch->dram_loaded_latency_cycles, busy);
  double latency = c->by_rounds
                     ? arch->l1_latency_cycles + (c->l2_lat - arch->l1_latency_cycles) * c->l2_rounds
                         + (dram_lat - arch->l1_latency_cycles) * c->dram_rounds
                     : arch->l1_latency_cycles + (c->l2_lat - arch->l1_latency_cycles) * c->l1_miss
                         + (dram_lat - c->l2_lat) * c->l1_miss * c->l2_miss;
  out->t_latency = (out->waves * (c->rounds_per_warp * latency + c->waits) + c->cold) / c->clock;
  double t3[3] = { out->t_lsu, out->t_issue, out->t_latency };
  double first = MAX (t3[0], MAX (t3[1], t3[2]));
  double second = t3[0] + t3[1] + t3[2] - first - MIN (t3[0], MIN (t3[1], t3[2]));
  out->t_sm = first + second / c->blocks_per_sm;
  return MAX (c->others, out->t_sm);
}

gboolean
ms_time_predict (const MsArch *arch, const MsStats *stats, int active_blocks_per_sm,
                 int warps_per_block, MsTimePrediction *out)
{
  *out = (MsTimePrediction) { 0 };
  if (!arch->has_costs || !ms_models_launch_counters (arch) || active_blocks_per_sm <= 0
      || warps_per_block <= 0 || stats->blocks == 0)
    return FALSE;
  MsCounters ld, st, sld, sst;
  ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_LD, &ld);
  ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_ST, &st);
  ms_stats_total (stats, MS_SPACE_SHARED, MS_OP_LD, &sld);
  ms_stats_total (stats, MS_SPACE_SHARED, MS_OP_ST, &sst);
  double clock = arch->clock_mhz * 1e6;
  double blocks = (double) stats->blocks;
  double sms = MIN ((double) arch->sm_count, blocks);

  /* DRAM */
  double dram_rd = launch_total (stats, "dram_read_bytes");
  double dram_wr = launch_total (stats, "dram_write_bytes");
  out->dram_bytes = (guint64) (dram_rd + dram_wr);
  out->t_dram = (dram_rd + arch->dram_write_cost * dram_wr)
                / (arch->dram_gbs * 1e9 * arch->dram_efficiency);

  /* L2 */
  double l2_rd = launch_total (stats, "l2_read_sectors");
  double l2_wr = launch_total (stats, "l2_write_sectors");
  double partial = MAX (0.0, (double) st.v[MS_SLOT_SECTORS] - 4.0 * (double) st.v[MS_SLOT_REQUESTS]);
  out->t_l2 = (l2_rd + l2_wr) * 32.0 / (arch->l2_gbs * 1e9)
              + partial * arch->l2_partial_write_ps * 1e-12;

  /* atomics: the busiest line, one pass after another */
  out->atomic_passes = (guint64) launch_total (stats, "atomic_busiest_line_passes");
  out->t_atomics = (double) out->atomic_passes * arch->atomic_pass_ns * 1e-9;

  /* mapped host memory: the host link, each way and both together */
  double host_rd = launch_total (stats, "host_read_bytes");
  double host_wr = launch_total (stats, "host_write_bytes");
  out->host_bytes = (guint64) (host_rd + host_wr);
  if (arch->host_read_gbs > 0 && arch->host_write_gbs > 0 && arch->host_duplex_gbs > 0)
    out->t_host = MAX (MAX (host_rd / arch->host_read_gbs, host_wr / arch->host_write_gbs),
                       (host_rd + host_wr) / arch->host_duplex_gbs) * 1e-9;

  /* SM: the LSU's work, the instructions' issue and the warps' latency chain */
  double lines = (double) (ld.v[MS_SLOT_LINES] + st.v[MS_SLOT_LINES]);
  double wavefronts = (double) (sld.v[MS_SLOT_WAVEFRONTS] + sst.v[MS_SLOT_WAVEFRONTS]);
  /* the wavefronts bank conflicts add (beyond the ideal) cost more */
  double conflicts = wavefronts - (double) (sld.v[MS_SLOT_IDEAL] + sst.v[MS_SLOT_IDEAL]);
  double conflict_cost = arch->conflict_wavefront_cost > 0 ? arch->conflict_wavefront_cost : 1.0;
  out->t_lsu = (lines + wavefronts + (conflict_cost - 1.0) * MAX (0.0, conflicts))
               / (sms * clock * arch->lsu_per_clock)
               + (double) stats->texture_fetches * arch->texture_fetch_cycles / (sms * clock);
  double slots = (double) active_blocks_per_sm * arch->sm_count;
  out->waves = ceil (blocks / slots);
  double warps = blocks * warps_per_block;
  double loads_per_warp = (double) ld.v[MS_SLOT_REQUESTS] / warps;
  double shared_per_warp = (double) (sld.executions + sst.executions) / warps;
  double ld_sectors = (double) ld.v[MS_SLOT_SECTORS];
  gboolean counted = stats->inst_basis != MS_INST_NONE && arch->issue_efficiency > 0;
  out->t_issue = counted ? (double) stats->inst_executed
                             / (sms * arch->sub_partitions * clock * arch->issue_efficiency)
                         : 0.0;

  /* the device runtime's calls: the chain of the warp that calls most,
   * then the other warps' calls */
  for (guint k = 0; k < MS_RUNTIME_KINDS; k++)
    {
      double calls = (double) stats->runtime.calls[k];
      if (calls <= 0)
        continue;
      double own = MIN ((double) stats->runtime.chain[k], calls);
      double lanes = (double) stats->runtime.lanes[k], per_call = lanes / calls;
      const __typeof__ (arch->device_runtime[0]) *c = &arch->device_runtime[k];
      out->t_runtime += (own * (c->call_us + (per_call - 1) * c->lane_us)
                         + (calls - own) * c->other_call_us
                         + (lanes - own * per_call - (calls - own)) * c->other_lane_us)
                        * 1e-6;
      out->runtime_calls += stats->runtime.calls[k];
    }

  /* the front end: every block's start, one after another */
  out->t_dispatch = blocks * arch->block_dispatch_ns * 1e-9;
  out->t_event_latency = arch->launch_event_latency_us * 1e-6;
  MsCounters atom, red;
  ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_ATOMIC, &atom);
  ms_stats_total (stats, MS_SPACE_GLOBAL, MS_OP_RED, &red);
  gboolean stores = st.executions + atom.executions + red.executions > 0;
  double fixed = arch->launch_overhead_us * 1e-6 - out->t_event_latency;
  out->t_launch = fixed + MIN (blocks, slots) * arch->block_dispatch_ns * 1e-9
                  + (stores ? arch->store_drain_us * 1e-6 : 0.0);
  double others = MAX (MAX (MAX (out->t_dram, out->t_l2), MAX (out->t_atomics, out->t_dispatch)),
                       out->t_host);

  /* the warps' latency chain.  A load's latency: L1, L2 or DRAM by the
   * cache model's miss ratios; the L2's rises from the idle GPU's to the
   * loaded one with the share of the GPU's warp slots the launch fills,
   * the DRAM's with the share of the kernel's time the DRAM is busy
   * (requests queue there).  That share depends on the kernel's time, and
   * the time on the latency: the work takes the one time w that gives
   * itself, w = longest (t_dram / w), found by bisection (the right side
   * only falls as w grows) */
  double l1_miss = ld_sectors > 0 ? MIN (1.0, l2_rd / ld_sectors) : 1.0;
  double l2_miss = l2_rd > 0 ? MIN (1.0, dram_rd / (32.0 * l2_rd)) : 1.0;
  double resident = MIN (blocks, slots) * warps_per_block
                    / ((double) arch->sm_count * arch->max_warps_per_sm);
  double l2_lat = loaded (arch->l2_latency_cycles, arch->l2_loaded_latency_cycles, resident);
  double rounds_per_warp = counted ? (double) stats->load_rounds / warps
                                   : MAX (1.0, loads_per_warp / arch->loads_in_flight_per_warp);
  /* with counts, the warp's dependence path and each barrier's wait for
   * the block's other warps; without, the shared instructions stand for
   * them */
  double waits = counted ? ((double) stats->dependent_cycles * arch->dependence_scale
                            + (double) stats->barriers * arch->barrier_wait_cycles) / warps
                         : shared_per_warp * arch->shared_phase_cycles;
  Chain c = { arch, clock, rounds_per_warp, waits, l1_miss, l2_miss, l2_lat, others,
              blocks_per_sm (arch, active_blocks_per_sm, blocks) };
  /* a kernel that addresses memory reads its parameters first, and the
   * first wave finds the constant cache and the L2 cold: one idle DRAM
   * latency, once (later waves find them in the SM's constant cache) */
  gboolean addresses = ld.executions + st.executions + atom.executions + red.executions
                       + sld.executions + sst.executions > 0;
  c.cold = counted && addresses ? arch->dram_latency_cycles : 0.0;
  /* A round waits for its slowest load.  The load requests that went to
   * DRAM and to the L2 are taken to fall each in a round of its own (as
   * many as there are rounds): a GEMM's round of a broadcast the L1 holds
   * and a row from the L2 waits for the L2, not for the sectors' average */
  double rounds = (double) stats->load_rounds;
  if (counted && rounds > 0)
    {
      double far = launch_total (stats, "dram_load_requests");
      double near = launch_total (stats, "l2_load_requests");
      out->dram_loads = (guint64) far;
      out->l2_loads = (guint64) near;
      c.by_rounds = TRUE;
      c.dram_rounds = MIN (rounds, far) / rounds;
      c.l2_rounds = MIN (rounds - MIN (rounds, far), near) / rounds;
    }
  double lo = others, hi = chain_work (&c, lo, out);
  for (int step = 0; step < 64 && hi - lo > 1e-12 * hi; step++)
    {
      double w = (lo + hi) / 2;
      if (chain_work (&c, w, out) > w)
        lo = w;
      else
        hi = w;
    }
  chain_work (&c, hi, out);

  double longest = MAX (others, out->t_sm);
  out->seconds = out->t_launch + longest + out->t_runtime;
  out->event_seconds = out->seconds + out->t_event_latency;
  if (out->t_runtime > longest && out->t_runtime > out->t_launch + out->t_event_latency)
    out->bound = MS_BOUND_RUNTIME;
  else if (out->t_launch + out->t_event_latency > longest)
    out->bound = MS_BOUND_LAUNCH;
  else if (longest == out->t_dispatch)
    out->bound = MS_BOUND_DISPATCH;
  else if (longest == out->t_host)
    out->bound = MS_BOUND_HOST;
  else if (longest == out->t_dram)
    out->bound = MS_BOUND_DRAM;
  else if (longest == out->t_l2)
    out->bound = MS_BOUND_L2;
  else if (longest == out->t_atomics)
    out->bound = MS_BOUND_ATOMICS;
  else if (out->t_lsu >= out->t_latency && out->t_lsu >= out->t_issue)
    out->bound = MS_BOUND_LSU;
  else if (out->t_issue >= out->t_latency)
    out->bound = MS_BOUND_ISSUE;
  else
    out->bound = MS_BOUND_LATENCY;
  out->blocks = stats->blocks;
  out->slots = (guint64) slots;
  return TRUE;
}

double
ms_time_block_cycles (const MsArch *arch, int active_blocks_per_sm, int warps_per_block,
                      guint64 blocks, double instructions, double dependent_cycles)
{
  double chain = dependent_cycles * arch->dependence_scale;
  if (arch->issue_efficiency > 0 && arch->sm_count > 0 && arch->sub_partitions > 0)
    {
      /* the chain and the scheduler's share as ms_time_predict combines
       * them: the longer, plus the shorter over the blocks an SM holds
       * together */
      double per_sm = blocks_per_sm (arch, active_blocks_per_sm, (double) blocks);
      double per_scheduler = per_sm * warps_per_block / arch->sub_partitions;
      double issue = instructions * per_scheduler / arch->issue_efficiency;
      return MAX (chain, issue) + MIN (chain, issue) / MAX (per_sm, 1.0);
    }
  return chain > 0 ? chain : instructions;
}

double
ms_time_gbs (const MsTimePrediction *t, guint64 bytes)
{
  /* per event time: --gpu's measured bandwidth is per CUDA-event time too */
  return t->event_seconds > 0 ? (double) bytes / t->event_seconds / 1e9 : 0.0;
}

char *
ms_time_bound_text (const MsTimePrediction *t, const MsArch *arch)
{
  switch (t->bound)
    {
    case MS_BOUND_LAUNCH:
      return g_strdup ("launch-bound: the kernel's work takes less than the launch's fixed time");
    case MS_BOUND_DRAM:
      return g_strdup ("DRAM-bound");
    case MS_BOUND_DISPATCH:
      return g_strdup_printf ("dispatch-bound: the GPU starts the %" G_GUINT64_FORMAT " blocks one "
                              "after another, %.2f ns each", t->blocks, arch->block_dispatch_ns);
    case MS_BOUND_L2:
      return g_strdup ("L2-bound (partially written sectors)");
    case MS_BOUND_HOST:
      return g_strdup_printf ("host-memory-bound: %.1f MB of mapped host memory over the host "
                              "link", t->host_bytes / 1e6);
    case MS_BOUND_RUNTIME:
      return g_strdup_printf ("device-runtime-bound: %" G_GUINT64_FORMAT " warp-level calls of "
                              "printf, malloc or free, which the calling warps wait for",
                              t->runtime_calls);
    case MS_BOUND_ATOMICS:
      return g_strdup_printf ("atomics-bound: %" G_GUINT64_FORMAT " passes of atomics on the "
                              "busiest 128-byte line, one after another", t->atomic_passes);
    case MS_BOUND_LSU:
      return g_strdup ("L1/shared-memory-bound (global lines and shared wavefronts)");
    case MS_BOUND_ISSUE:
      return g_strdup ("issue-bound: the schedulers issue the warps' instructions");
    default:
      return g_strdup_printf ("latency-bound: %" G_GUINT64_FORMAT " blocks in %.0f wave%s of %"
                              G_GUINT64_FORMAT " blocks on %d SMs",
                              t->blocks, t->waves, t->waves == 1 ? "" : "s", t->slots,
                              arch->sm_count);
    }
}
