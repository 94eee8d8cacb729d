/* atomics.c - contention of global atomics at the L2: the passes the
 * busiest 128-byte line serves in a launch (the time model's atomic term).
 *
 * Assumptions:
 * - The L2 performs the atomics on one line one pass after another; lines
 *   apart are served in parallel, so a launch's atomics take at least the
 *   busiest line's passes x atomic_pass_ns (kernel-time.c).  Measured on
 *   the H200 (gpu/probes/latency.cu, every thread of 264 blocks exchanging
 *   into the same words): 0.74 ns a pass on one address, 0.60 ns on 8
 *   addresses of one sector, 0.74 ns a warp's aggregated atomicAdd on one
 *   counter.
 * - One warp instruction makes, on each line it touches, as many passes as
 *   the most lanes on one address of that line: the lanes on one address
 *   are served one per pass, distinct addresses of a pass together (the
 *   sector rule of coalescing.c, per line).
 * - An atomic that ptxas aggregated (MsSite.compiled: the record holds the
 *   one lane that performs it) is one pass.
 * - Spreading atomics over many lines is not modelled beyond "the busiest
 *   line": the probe's 8 lines, each as busy as the one address, took 4x
 *   the one address's time, and 32 lines 1x; a histogram over many bins is
 *   bound by something else first.
 * - Shared-memory atomics are not counted (banks.c costs them).
 */
#include "config.h"
#include "atomics.h"

#include "coalescing.h"
#include "model.h"

#define LINE_SHIFT 7   /* 128-byte lines */

typedef struct {
  GHashTable *passes;   /* line number (gint64 *) -> passes (gsize *) */
} AtomicsState;

static void
atomics_state_init (gpointer state, const MsArch *arch)
{
  AtomicsState *s = state;
  (void) arch;
  s->passes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
}

static void
atomics_state_clear (gpointer state)
{
  AtomicsState *s = state;
  g_clear_pointer (&s->passes, g_hash_table_unref);
}

static void
atomics_ordered_cost (gpointer state, const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  AtomicsState *s = state;
  (void) v;   /* the counter is the launch's (atomics_finish), not a site's */
  if (!MS_OP_IS_ATOMIC (a->op) || a->space != MS_SPACE_GLOBAL)
    return;
  guint64 addr[MS_WARP_SIZE];
  guint hits[MS_WARP_SIZE];
  guint n = ms_coalescing_address_hits (arch, a, addr, hits);
  gboolean done[MS_WARP_SIZE] = { FALSE };
  /* each line's passes: the most lanes on one of its addresses */
  for (guint i = 0; i < n; i++)
    {
      if (done[i])
        continue;
      gint64 line = (gint64) (addr[i] >> LINE_SHIFT);
      guint most = 0;
      for (guint k = i; k < n; k++)
        if ((gint64) (addr[k] >> LINE_SHIFT) == line)
          {
            done[k] = TRUE;
            most = MAX (most, hits[k]);
          }
      gsize *passes = g_hash_table_lookup (s->passes, &line);
      if (!passes)
        {
          passes = g_new0 (gsize, 1);
          g_hash_table_insert (s->passes, g_memdup2 (&line, sizeof line), passes);
        }
      *passes += most;
    }
}

static void
atomics_finish (gpointer state, const MsArch *arch, guint64 *launch_v)
{
  AtomicsState *s = state;
  (void) arch;
  gsize busiest = 0;
  GHashTableIter it;
  gpointer passes;
  g_hash_table_iter_init (&it, s->passes);
  while (g_hash_table_iter_next (&it, NULL, &passes))
    busiest = MAX (busiest, *(gsize *) passes);
  launch_v[MS_SLOT_ATOMIC_LINE_PASSES] += busiest;
}

static const MsCounterDef atomics_counters[] = {
  /* no Nsight metric: the time model's input, reported with the time */
  { "atomic_busiest_line_passes", MS_SLOT_ATOMIC_LINE_PASSES, NULL, TRUE },
  { NULL },
};

const MsModel ms_model_atomics = {
  .name = "atomics",
  .summary = "global atomics: the passes the busiest 128-byte line serves at the L2",
  .space = MS_SPACE_GLOBAL,
  .counters = atomics_counters,
  .state_size = sizeof (AtomicsState),
  .state_init = atomics_state_init,
  .state_clear = atomics_state_clear,
  .ordered_cost = atomics_ordered_cost,
  .finish = atomics_finish,
};
