/* arch.h - the description of a GPU architecture used by the models.
 *
 * Every preset is a small GKeyFile file (sim/arch/NAME.arch, installed in
 * $(pkgdatadir)/arch); the H100's (h100.arch) is also compiled into the
 * library, so memsim works without its data files.  docs/model.md lists
 * every key.  Groups:
 *
 *   [arch] [global] [shared]   what the counting models need (required)
 *   [sm] [occupancy] [memory] [launch]
 *                              what the cost models need (occupancy, L1/L2
 *                              and DRAM traffic, time); optional as a
 *                              whole: a file with none of them has
 *                              has_costs FALSE, and a file with any of them
 *                              must give every key of the four.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define MS_ARCH_MAX_CARVEOUTS 16

/* How global accesses become transactions. */
typedef enum {
  MS_SEGMENTS_SECTORS,  /* sm_20+: each distinct sector_bytes sector of a warp access */
  MS_SEGMENTS_SHRINK,   /* cc 1.2/1.3: per group of coalesce_lanes lanes, one segment
                           per line_bytes segment touched, shrunk to 64 then 32 bytes
                           while only one half of it is used (seed 001) */
} MsSegmentRule;

/* The unit in which registers are allocated. */
typedef enum {
  MS_REG_ALLOC_WARP,    /* per warp (sm_20+) */
  MS_REG_ALLOC_BLOCK,   /* per block (cc 1.x) */
} MsRegAlloc;

typedef struct {
  char *name;              /* "h100" */
  char *description;       /* "NVIDIA H100 SXM (Hopper, sm_90)" */
  int compute_capability;  /* 90 */
  int warp_size;           /* 32 */
  /* [global] */
  int sector_bytes;        /* 32 */
  int line_bytes;          /* 128 */
  int coalesce_lanes;      /* lanes whose accesses are coalesced together:
                              warp_size, 16 (a half-warp) on cc 1.x */
  MsSegmentRule segment_rule;
  /* [shared] */
  int banks;               /* 32 */
  int bank_bytes;          /* 4 */
  /* bytes one shared-memory wavefront can serve (banks * bank_bytes); an
   * access of W bytes per lane is processed in phases of
   * max(1, warp_size * W / phase_bytes) groups of lanes */
  int phase_bytes;         /* 128 */
  /* the phase size of a LOAD in which every pair of lanes (2k, 2k+1) that
   * are both active reads one address (broadcasts, lanes sharing elements
   * in pairs): the pair is served as one lane, so such loads go in phases
   * of paired_load_phase_bytes (H100: 256, measured, see sim/models/banks.c);
   * other loads, stores and atomics use phase_bytes.  0 = phase_bytes. */
  int paired_load_phase_bytes;   /* 256 */

  /* ---- the cost models' figures (valid when has_costs) ---- */
  gboolean has_costs;
  /* [sm] */
  int sm_count;                  /* 132 */
  int clock_mhz;                 /* SM clock under load */
  int sub_partitions;            /* warp schedulers per SM */
  /* [occupancy] (CUDA's occupancy calculator, cuda_occupancy.h) */
  int max_threads_per_block;
  int max_threads_per_sm;
  int max_warps_per_sm;
  int max_blocks_per_sm;
  int registers_per_sm;
  int max_registers_per_block;
  int max_registers_per_thread;
  int register_alloc_unit;       /* registers, per warp or per block */
  MsRegAlloc register_alloc;
  int warp_alloc_granularity;    /* warps (cc 1.x: blocks' warps rounded to 2) */
  int shared_per_sm;             /* bytes the SM can give blocks at most */
  int shared_per_block;          /* bytes without opt-in (48 KiB) */
  int shared_per_block_optin;    /* bytes with cudaFuncAttributeMaxDynamicSharedMemorySize */
  int shared_alloc_unit;         /* bytes */
  int reserved_shared_per_block; /* bytes the system takes per block (sm_80+: 1 KiB) */
  int n_carveouts;               /* shared-memory capacities the SM can be set to, KiB, */
  int carveouts_kib[MS_ARCH_MAX_CARVEOUTS];   /* ascending; n = 1: fixed */
  /* [memory] */
  int l1_bytes;                  /* the L1 + shared array per SM (L1 = this - shared carveout) */
  int l2_bytes;
  int l2_partitions;             /* halves that each cache what their SMs use (H100: 2) */
  int l2_seen_bytes;             /* the L2 a kernel spread over every SM sees, measured
                                    (0: not given: l2_bytes / l2_partitions) */
  int l2_ways;
  int dram_granularity;          /* bytes DRAM reads a missing sector in (64 on the H100) */
  double dram_gbs;               /* DRAM bandwidth, GB/s (10^9 B/s) */
  double l2_gbs;                 /* L2 bandwidth, GB/s */
  int dram_latency_cycles;
  int l2_latency_cycles;
  int launch_read_bytes;         /* DRAM bytes a launch reads besides the kernel's data */
  double memory_gb;              /* the device's memory as sold (80, 141); 0: not given */
  /* [launch] */
  double launch_overhead_us;     /* a launch's fixed time as CUDA events see it (launch to
                                    end of an empty kernel) */
  double launch_event_latency_us;/* the part of it that CUDA events see and Nsight's
                                    gpu__time_duration does not (0: not given) */
  double block_dispatch_ns;      /* the front end's time to start one block, one after
                                    another (0: not given: no dispatch term) */
  double store_drain_us;         /* a kernel that writes global memory ends when its
                                    last stores are acknowledged (0: not given) */
  /* mapped host memory over the host link (PCIe), GB/s: reads alone,
   * writes alone, both directions together (0: not given: free) */
  double host_read_gbs, host_write_gbs, host_duplex_gbs;
  /* [time] the time model's constants (sim/models/kernel-time.c) */
  double dram_efficiency;        /* sustained / peak DRAM bandwidth */
  double dram_write_cost;        /* time of a written DRAM byte, in read bytes */
  double l2_partial_write_ps;    /* extra time of a partially written L2 sector */
  double lsu_per_clock;          /* global lines + shared wavefronts per SM and clock */
  double loads_in_flight_per_warp;
  int l1_latency_cycles;
  int shared_phase_cycles;       /* per shared-memory instruction of a warp's chain */
  double issue_efficiency;       /* warp instructions issued per scheduler and clock, on
                                    average (0: not given: the model counts no
                                    instructions) */
  double atomic_pass_ns;         /* the L2's time for one pass of atomics on one line
                                    (atomics.c; 0: not given: no atomic term) */
  double dependence_scale;       /* a warp's chain per cycle of its instructions'
                                    dependence path (instructions.h, dependent_cycles)
                                    (0: not given: none) */
  double barrier_wait_cycles;    /* a warp's wait at a barrier (bar.sync) for the block's
                                    other warps, with instruction counts (0: not given: none) */
  double texture_fetch_cycles;   /* an SM's texture pipe per warp texture fetch
                                    (0: not given: fetches cost the pipe nothing) */
  double conflict_wavefront_cost; /* the LSU's time for a shared wavefront a bank conflict
                                     adds, in ordinary wavefronts (0: not given: 1) */
  int l2_loaded_latency_cycles;  /* L2 and DRAM latency with the GPU full of warps ([memory]'s */
  int dram_loaded_latency_cycles;/* are an idle GPU's; 0: not given: always the idle one) */
  /* [device_runtime] device code's printf, malloc and free (MsRuntimeKind
   * order), us: a call of the warp that makes the most of them, each of
   * its further lanes, a call of another warp, each of that call's lanes
   * (0: not given: free) */
  struct {
    double call_us, lane_us, other_call_us, other_lane_us;
  } device_runtime[3];
  /* [copy] what cudaMemcpy and cudaMemset add to a program's clock
   * (memsim run; 0: not given: nothing): a copy's fixed time (a
   * synchronous copy between host and device, an asynchronous one, one
   * within the device or a set), us, and the rates, GB/s */
  double copy_latency_us, copy_async_latency_us, copy_device_latency_us;
  double copy_pinned_gbs, copy_pageable_h2d_gbs, copy_pageable_d2h_gbs, copy_d2d_gbs,
    copy_memset_gbs;

  /* ---- set for a run, not a preset key ---- */
  double sample_fraction;        /* the share of the blocks a sampled run simulates
                                    (0: every block; see cache.c) */
} MsArch;

/* The built-in H100 (h100.arch compiled in). */
const MsArch *ms_arch_default (void);

/* "h100" (built in), a preset name (NAME.arch in the search path) or a path
 * to a .arch file; free with ms_arch_free (a no-op for the built-in one). */
MsArch *ms_arch_lookup (const char *name_or_path, GError **error);
MsArch *ms_arch_load_file (const char *path, GError **error);
/* The same from the text of a preset; `origin` names it in errors. */
MsArch *ms_arch_load_data (const char *data, gsize len, const char *origin, GError **error);
void ms_arch_free (MsArch *arch);
/* Comma-separated names of the presets found. */
char *ms_arch_list (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsArch, ms_arch_free)

/* Independent thread scheduling (Volta, sm_70, and later): the lanes of a
 * warp need not run in lockstep between __syncwarps, so the race check
 * warns of intra-warp hazards (docs/model.md, "Races").  Derived from
 * compute_capability; no key of its own. */
static inline gboolean
ms_arch_independent_threads (const MsArch *arch)
{
  return arch->compute_capability >= 70;
}

G_END_DECLS
