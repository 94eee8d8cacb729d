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

#include "model.h"

#define LINE_SHIFT 7   /* 128-byte lines */

typedef struct {
  GHashTable *passes;   /* line number (gint64 *) -> passes (gsize *) */
  gsize busiest;
} AtomicsState;

static void
atomics_state_init (gpointer state, const MsArch *arch)
{
  AtomicsState *s = state;
  (void) arch;
  s->passes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  s->busiest = 0;
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
  (void) arch;
  (void) v;   /* the counter is the launch's (atomics_finish), not a site's */
  if (!MS_OP_IS_ATOMIC (a->op) || a->space != MS_SPACE_GLOBAL || a->mask == 0)
    return;
  /* lanes by address: the most lanes on one address of each line */
  guint32 left = a->mask;
  while (left)
    {
      int first = g_bit_nth_lsf (left, -1);
      gint64 line = (gint64) (a->addr[first] >> LINE_SHIFT);
      gsize most = 0;
      guint32 in_line = 0;
      for (int l = first; l < MS_WARP_SIZE; l++)
        if ((left >> l & 1) && (gint64) (a->addr[l] >> LINE_SHIFT) == line)
          in_line |= 1u << l;
      left &= ~in_line;
      while (in_line)
        {
          int f = g_bit_nth_lsf (in_line, -1);
          guint32 same = 0;
          for (int l = f; l < MS_WARP_SIZE; l++)
            if ((in_line >> l & 1) && a->addr[l] == a->addr[f])
              same |= 1u << l;
          in_line &= ~same;
          most = MAX (most, (gsize) __builtin_popcount (same));
        }
      gsize *n = g_hash_table_lookup (s->passes, &line);
      if (!n)
        {
          n = g_new0 (gsize, 1);
          g_hash_table_insert (s->passes, g_memdup2 (&line, sizeof line), n);
        }
      *n += most;
      s->busiest = MAX (s->busiest, *n);
    }
}

static void
atomics_finish (gpointer state, const MsArch *arch, guint64 *launch_v)
{
  AtomicsState *s = state;
  (void) arch;
  launch_v[MS_SLOT_ATOMIC_LINE_PASSES] += s->busiest;
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
