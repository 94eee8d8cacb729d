// test-occupancy-cuda.cc - memsim's occupancy calculator against CUDA's own
// (cuda_occupancy.h, host-only, compiled with g++ where configure found it):
// for the h100, a100, v100 and kepler32 presets, a cudaOccDeviceProp filled
// from the preset and a sweep over block sizes (32..1024 step 32),
// registers per thread (0..255), static and dynamic shared bytes, block
// barriers and carveout preferences; every case must give the same limits,
// the same active blocks, the same allocations and the same limiting
// factors.  Documented differences (docs/model.md): where the barrier limit
// alone is the smallest, cuda_occupancy.h also keeps the other factors that
// equalled the minimum of the other four; memsim names barriers only.
#include "config.h"

#include <cuda_occupancy.h>

#include "arch.h"
#include "occupancy.h"

static const char *presets[] = { "h100", "a100", "v100", "kepler32" };

static void
test_sweep (gconstpointer data)
{
  const char *name = static_cast<const char *> (data);
  GError *error = NULL;
  MsArch *a = ms_arch_lookup (name, &error);
  g_assert_no_error (error);

  cudaOccDeviceProp prop;
  prop.computeMajor = a->compute_capability / 10;
  prop.computeMinor = a->compute_capability % 10;
  prop.maxThreadsPerBlock = a->max_threads_per_block;
  prop.maxThreadsPerMultiprocessor = a->max_threads_per_sm;
  prop.regsPerBlock = a->max_registers_per_block;
  prop.regsPerMultiprocessor = a->registers_per_sm;
  prop.warpSize = a->warp_size;
  prop.sharedMemPerBlock = (size_t) a->shared_per_block;
  prop.sharedMemPerMultiprocessor = (size_t) a->shared_per_sm;
  prop.numSms = a->sm_count;
  prop.sharedMemPerBlockOptin = (size_t) a->shared_per_block_optin;
  prop.reservedSharedMemPerBlock = (size_t) a->reserved_shared_per_block;

  const int regs[] = { 0, 1, 7, 8, 16, 20, 24, 31, 32, 33, 40, 48, 56, 63, 64, 72, 80, 96,
                       100, 128, 160, 168, 192, 200, 232, 255 };
  const int kib = 1024;
  const int statics[] = { 0, 1, 1000, 4096, 4224, 12289, 16 * kib, 40000, 48 * kib - 1024,
                          48 * kib, 60 * kib, 100 * kib, 114 * kib, 160 * kib, 227 * kib };
  const int dynamics[] = { 0, 100, 2048, 30000, 50000, 100000 };
  const int barriers[] = { 0, 1, 3, 4 };
  const int carveouts[] = { -1, 0, 25, 50, 100 };
  guint64 n = 0, launched = 0, barrier_only = 0;
  for (int threads = 32; threads <= 1024; threads += 32)
    for (int r : regs)
      for (int s : statics)
        for (int d : dynamics)
          for (int b : barriers)
            for (int c : carveouts)
              {
                if ((gint64) s + d > a->shared_per_block_optin + 4096)
                  continue;   /* far beyond any limit: one case of each is enough */
                cudaOccFuncAttributes attr;
                attr.maxThreadsPerBlock = a->max_threads_per_block;
                attr.numRegs = r;
                attr.sharedSizeBytes = (size_t) s;
                attr.partitionedGCConfig = PARTITIONED_GC_OFF;
                attr.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
                attr.maxDynamicSharedSizeBytes = (size_t) d;
                attr.numBlockBarriers = b;
                cudaOccDeviceState state;
                state.carveoutConfig = c;
                cudaOccResult want;
                cudaOccError st = cudaOccMaxActiveBlocksPerMultiprocessor (&want, &prop, &attr,
                                                                           &state, threads,
                                                                           (size_t) d);
                g_assert_cmpint (st, ==, CUDA_OCC_SUCCESS);

                MsOccInput in = { threads, r, s, d, b, c };
                MsOccupancy got;
                gboolean ok = ms_occupancy_compute (a, &in, &got, NULL);
                n++;
                if ((want.activeBlocksPerMultiprocessor > 0) != (ok != FALSE))
                  g_error ("%s: %d threads, %d regs, %d + %d shared, %d barriers, carveout %d: "
                           "CUDA %d blocks, memsim %s", name, threads, r, s, d, b, c,
                           want.activeBlocksPerMultiprocessor, ok ? "launches" : "refuses");
                if (!ok)
                  continue;
                launched++;
                g_assert_cmpint (got.active_blocks, ==, want.activeBlocksPerMultiprocessor);
                g_assert_cmpint (got.limit_registers, ==, want.blockLimitRegs);
                g_assert_cmpint (got.limit_shared, ==, want.blockLimitSharedMem);
                g_assert_cmpint (got.limit_warps, ==, want.blockLimitWarps);
                g_assert_cmpint (got.limit_blocks, ==, want.blockLimitBlocks);
                g_assert_cmpint (got.limit_barriers, ==, want.blockLimitBarriers);
                g_assert_cmpint (got.registers_per_block, ==, want.allocatedRegistersPerBlock);
                g_assert_cmpint (got.shared_per_block, ==, (int) want.allocatedSharedMemPerBlock);
                guint cuda_bits = want.limitingFactors;
                int others = MIN (MIN (want.blockLimitRegs, want.blockLimitSharedMem),
                                  MIN (want.blockLimitWarps, want.blockLimitBlocks));
                if (want.blockLimitBarriers < others)
                  {
                    /* the documented difference: barriers alone */
                    cuda_bits = MS_OCC_LIMIT_BARRIERS;
                    barrier_only++;
                  }
                if (got.limiting != cuda_bits)
                  g_error ("%s: %d threads, %d regs, %d + %d shared, %d barriers, carveout %d: "
                           "limiting factors CUDA 0x%x, memsim 0x%x", name, threads, r, s, d, b,
                           c, cuda_bits, got.limiting);
                /* the occupancy in warps, as CUDA's users compute it */
                int warps = (threads + a->warp_size - 1) / a->warp_size;
                double pct = 100.0 * want.activeBlocksPerMultiprocessor * warps
                             / (prop.maxThreadsPerMultiprocessor / prop.warpSize);
                g_assert_cmpfloat_with_epsilon (got.occupancy_pct, pct, 1e-9);
              }
  g_test_message ("%s: %" G_GUINT64_FORMAT " cases, %" G_GUINT64_FORMAT " launch, %"
                  G_GUINT64_FORMAT " limited by barriers alone", name, n, launched, barrier_only);
  g_assert_cmpuint (launched, >, n / 4);
  ms_arch_free (a);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  for (const char *p : presets)
    {
      char *path = g_strdup_printf ("/occupancy-cuda/%s", p);
      g_test_add_data_func (path, p, test_sweep);
      g_free (path);
    }
  return g_test_run ();
}
