/* occupancy.c - theoretical occupancy: blocks per SM and what limits them.
 *
 * The algorithm is the one of CUDA's occupancy calculator
 * (cuda_occupancy.h in the CUDA toolkit, cudaOccMaxActiveBlocksPerMultiprocessor;
 * its CUDA 7.0 edition for compute capability 1.x and 2.x), written here
 * from its description over the [occupancy] figures of the preset (arch.h,
 * docs/model.md).  tests/test-occupancy-cuda.cc compares the two over a
 * sweep wherever the toolkit is installed.
 *
 * Modelling assumptions (what is computed and what is not):
 *
 * - Five limits, each a number of blocks per SM; the SM holds the smallest,
 *   and every limit equal to it is a limiting factor (ties name several):
 *     warps:     (max_threads_per_sm / warp_size) / the block's warps, the
 *                block's warps rounded up to warp_alloc_granularity (2 on
 *                cc 1.x, 1 after);
 *     blocks:    max_blocks_per_sm;
 *     registers: per warp (sm_20+): a warp takes registers_per_thread x
 *                warp_size registers rounded up to register_alloc_unit;
 *                registers are split evenly among the SM's sub_partitions
 *                (warp schedulers) and a warp lives in one, so the SM
 *                holds sub_partitions x floor((registers_per_sm /
 *                sub_partitions) / registers per warp) warps, i.e.
 *                that / the block's warps blocks.  Per block (cc 1.x): the
 *                block takes registers_per_thread x warp_size x its
 *                (rounded) warps registers rounded up to register_alloc_unit,
 *                and the SM holds registers_per_sm / that blocks.  No
 *                registers: no limit;
 *     shared:    the block takes static + reserved_shared_per_block +
 *                dynamic bytes rounded up to shared_alloc_unit; the SM's
 *                pool is the carveout (below), and holds pool / that
 *                blocks.  No shared bytes at all: no limit;
 *     barriers:  sm_90 and later only: 2 x max_blocks_per_sm block
 *                barriers per SM, divided by the barriers a block uses
 *                (never binding with one barrier).  Where the barrier
 *                limit is below all the others the limiting factor is
 *                barriers alone (cuda_occupancy.h then also keeps the
 *                factors that equalled the minimum of the other four).
 * - The carveout: on sm_70+ (carveouts_kib lists more than one size) the
 *   preference is the largest carveout (shared_per_sm) unless a percentage
 *   is given, which is rounded up to the next size of carveouts_kib; when
 *   one block needs more than the preference, the pool is raised to the
 *   smallest carveout that fits it.  Before sm_70 the pool is
 *   shared_per_sm (the default cache configuration; cudaFuncSetCacheConfig
 *   is not modelled).
 * - A block that cannot run at all is an error, not 0 blocks: more threads
 *   than max_threads_per_block, more registers per thread than
 *   max_registers_per_thread (255 on sm_70+: cuda_occupancy.h accepts 256
 *   there, the hardware and ptxas do not), a block's registers above
 *   max_registers_per_block (also with its warps rounded up to a multiple
 *   of sub_partitions, as the hardware checks), shared bytes above the
 *   per-block limit (shared_per_block, or shared_per_block_optin when the
 *   block needs more: the launch is assumed to have opted in, as
 *   cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)
 *   would; plus reserved_shared_per_block, which the presets set on sm_80+
 *   only).
 * - Not modelled: partitioned global caching (sm_52/53/61/62: no preset),
 *   cluster launches, the virtual-resource limit of sm_100+, and Fermi's
 *   128-register granularity for 21, 22, 29, 30, 37, 38, 45 and 46
 *   registers per thread (the fermi preset rounds them to 64 like every
 *   other count: at those counts memsim may hold more warps than a Fermi
 *   GPU would).
 * - Theoretical occupancy = active warps / (max_threads_per_sm /
 *   warp_size), active warps = active blocks x ceil(threads / warp_size)
 *   (the warps the block has, not the rounded allocation): Nsight
 *   Compute's sm__maximum_warps_per_active_cycle_pct.
 */
#include "config.h"
#include "occupancy.h"

G_DEFINE_QUARK (ms-occupancy-error-quark, ms_occupancy_error)

static int
div_up (int a, int b)
{
  return (a + b - 1) / b;
}

static int
round_up (int a, int b)
{
  return div_up (a, b) * b;
}

const char *
ms_occupancy_limit_name (MsOccLimit bit)
{
  switch (bit)
    {
    case MS_OCC_LIMIT_WARPS: return "warps";
    case MS_OCC_LIMIT_REGISTERS: return "registers";
    case MS_OCC_LIMIT_SHARED: return "shared memory";
    case MS_OCC_LIMIT_BLOCKS: return "blocks";
    case MS_OCC_LIMIT_BARRIERS: return "barriers";
    }
  return "?";
}

/* The carveout (bytes) the SM is set to for blocks of `alloc` bytes; 0 with
 * *error when the preference is out of range. */
static int
shared_pool (const MsArch *arch, const MsOccInput *in, int alloc, GError **error)
{
  if (arch->compute_capability < 70 || arch->n_carveouts < 2)
    return arch->shared_per_sm;
  int want = arch->shared_per_sm;
  if (in->carveout_pct >= 0)
    {
      gint64 bytes = (gint64) in->carveout_pct * arch->shared_per_sm / 100;
      want = -1;
      for (int i = 0; i < arch->n_carveouts && want < 0; i++)
        if ((gint64) arch->carveouts_kib[i] * 1024 >= bytes)
          want = arch->carveouts_kib[i] * 1024;
    }
  if (want >= alloc)
    return want;
  for (int i = 0; i < arch->n_carveouts; i++)
    if (arch->carveouts_kib[i] * 1024 >= alloc)
      return arch->carveouts_kib[i] * 1024;
  g_set_error (error, MS_OCCUPANCY_ERROR, MS_OCCUPANCY_ERROR_LAUNCH,
               "%d bytes of shared memory per block: no carveout of the %s holds them", alloc,
               arch->name);
  return 0;
}

gboolean
ms_occupancy_compute (const MsArch *arch, const MsOccInput *in, MsOccupancy *out,
                      GError **error)
{
  *out = (MsOccupancy) { .limit_registers = MS_OCC_UNLIMITED, .limit_shared = MS_OCC_UNLIMITED,
                         .limit_barriers = MS_OCC_UNLIMITED };
  if (!arch->has_costs)
    {
      g_set_error (error, MS_OCCUPANCY_ERROR, MS_OCCUPANCY_ERROR_NO_FIGURES,
                   "the arch %s has no [occupancy] figures; add them (docs/model.md) or use a "
                   "preset such as h100", arch->name);
      return FALSE;
    }
  if (in->threads_per_block < 1 || in->registers_per_thread < 0 || in->static_shared < 0
      || in->dynamic_shared < 0 || in->barriers < 0 || in->carveout_pct < -1
      || in->carveout_pct > 100)
    {
      g_set_error (error, MS_OCCUPANCY_ERROR, MS_OCCUPANCY_ERROR_INPUT,
                   "occupancy of %d threads, %d registers, %d + %d shared bytes, %d barriers: "
                   "give at least 1 thread and no negative figure",
                   in->threads_per_block, in->registers_per_thread, in->static_shared,
                   in->dynamic_shared, in->barriers);
      return FALSE;
    }
  int ws = arch->warp_size;
  int warps = div_up (in->threads_per_block, ws);
  int warps_alloc = round_up (warps, arch->warp_alloc_granularity);
  int regs = in->registers_per_thread;
  out->warps_per_block = warps;
  out->limit_blocks = arch->max_blocks_per_sm;
  /* the first reason the block cannot run, if any */
  g_autofree char *refused = NULL;

  /* warps */
  if (in->threads_per_block > arch->max_threads_per_block)
    {
      out->limit_warps = 0;
      refused = g_strdup_printf ("a block of %d threads: the %s allows at most %d per block "
                                 "(%d too many)", in->threads_per_block, arch->name,
                                 arch->max_threads_per_block,
                                 in->threads_per_block - arch->max_threads_per_block);
    }
  else
    out->limit_warps = arch->max_threads_per_sm / ws / warps_alloc;

  /* registers */
  if (refused == NULL && regs > arch->max_registers_per_thread)
    refused = g_strdup_printf ("%d registers per thread: the %s allows at most %d (%d too many)",
                               regs, arch->name, arch->max_registers_per_thread,
                               regs - arch->max_registers_per_thread);
  if (arch->register_alloc == MS_REG_ALLOC_WARP)
    {
      int per_warp = round_up (regs * ws, arch->register_alloc_unit);
      out->registers_per_block = per_warp * warps_alloc;
      /* the hardware's check spreads the block over every sub-partition */
      int assumed = per_warp * round_up (warps_alloc, arch->sub_partitions);
      int need = MAX (out->registers_per_block, assumed);
      if (regs > arch->max_registers_per_thread || need > arch->max_registers_per_block)
        out->limit_registers = 0;
      else if (per_warp > 0)
        out->limit_registers = arch->registers_per_sm / arch->sub_partitions / per_warp
                               * arch->sub_partitions / warps_alloc;
      if (refused == NULL && need > arch->max_registers_per_block)
        refused = g_strdup_printf ("a block of %d threads with %d registers each takes %d "
                                   "registers (%d per warp, %d warps%s): the %s allows at "
                                   "most %d per block (%d too many); use fewer registers or "
                                   "a smaller block",
                                   in->threads_per_block, regs, need, per_warp,
                                   need / MAX (per_warp, 1),
                                   assumed > out->registers_per_block
                                     ? " counted in multiples of the sub-partitions" : "",
                                   arch->name, arch->max_registers_per_block,
                                   need - arch->max_registers_per_block);
    }
  else
    {
      out->registers_per_block = round_up (regs * ws * warps_alloc, arch->register_alloc_unit);
      if (regs > arch->max_registers_per_thread
          || out->registers_per_block > arch->max_registers_per_block)
        out->limit_registers = 0;
      else if (out->registers_per_block > 0)
        out->limit_registers = arch->registers_per_sm / out->registers_per_block;
      if (refused == NULL && out->registers_per_block > arch->max_registers_per_block)
        refused = g_strdup_printf ("a block of %d threads with %d registers each takes %d "
                                   "registers: the %s allows at most %d per block (%d too "
                                   "many); use fewer registers or a smaller block",
                                   in->threads_per_block, regs, out->registers_per_block,
                                   arch->name, arch->max_registers_per_block,
                                   out->registers_per_block - arch->max_registers_per_block);
    }

  /* shared memory */
  gint64 used = (gint64) in->static_shared + arch->reserved_shared_per_block + in->dynamic_shared;
  gint64 alloc = (used + arch->shared_alloc_unit - 1) / arch->shared_alloc_unit
                 * arch->shared_alloc_unit;
  int per_block_limit = (used > arch->shared_per_block ? arch->shared_per_block_optin
                                                       : arch->shared_per_block)
                        + arch->reserved_shared_per_block;
  out->shared_per_block = (int) MIN (alloc, G_MAXINT);
  if (alloc > per_block_limit)
    {
      out->limit_shared = 0;
      if (refused == NULL)
        refused = g_strdup_printf (
          "%" G_GINT64_FORMAT " bytes of shared memory per block (%d static + %d dynamic%s, "
          "rounded to %d): the %s allows at most %d (%" G_GINT64_FORMAT " too many)",
          alloc, in->static_shared, in->dynamic_shared,
          arch->reserved_shared_per_block ? " + the reserved" : "", arch->shared_alloc_unit,
          arch->name, per_block_limit, alloc - per_block_limit);
    }
  else
    {
      GError *e = NULL;
      out->shared_pool = shared_pool (arch, in, (int) alloc, &e);
      if (e != NULL)
        {
          out->limit_shared = 0;
          if (refused == NULL)
            refused = g_strdup (e->message);
          g_error_free (e);
        }
      else if (alloc > 0)
        out->limit_shared = out->shared_pool / (int) alloc;
    }

  int lim = MIN (MIN (out->limit_registers, out->limit_shared),
                 MIN (out->limit_warps, out->limit_blocks));
  guint bits = (lim == out->limit_warps ? MS_OCC_LIMIT_WARPS : 0)
               | (lim == out->limit_registers ? MS_OCC_LIMIT_REGISTERS : 0)
               | (lim == out->limit_shared ? MS_OCC_LIMIT_SHARED : 0)
               | (lim == out->limit_blocks ? MS_OCC_LIMIT_BLOCKS : 0);
  if (arch->compute_capability >= 90 && in->barriers > 0)
    {
      out->limit_barriers = 2 * arch->max_blocks_per_sm / in->barriers;
      if (out->limit_barriers < lim)
        {
          bits = 0;
          lim = out->limit_barriers;
        }
      if (lim == out->limit_barriers)
        bits |= MS_OCC_LIMIT_BARRIERS;
    }
  out->active_blocks = lim;
  out->limiting = bits;
  out->active_warps = lim * warps;
  out->occupancy_pct = 100.0 * out->active_warps / (arch->max_threads_per_sm / ws);
  if (refused == NULL && lim == 0)
    refused = g_strdup_printf ("a block of %d threads cannot run on an SM of the %s",
                               in->threads_per_block, arch->name);
  if (refused != NULL)
    {
      g_set_error_literal (error, MS_OCCUPANCY_ERROR, MS_OCCUPANCY_ERROR_LAUNCH, refused);
      return FALSE;
    }
  return TRUE;
}
