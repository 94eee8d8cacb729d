/* regroup.h - a filter between a producer and its sinks that regroups
 * source-level records into the instructions the compiler emitted.
 *
 * The emulator makes one record per source access (one LD/ST macro
 * executed by a warp).  nvcc sometimes fuses neighbouring accesses of a
 * thread into one wider instruction: four 4-byte loads of As[ty][k ..
 * k + 3] into one LDS.128.  Given, per site, how many consecutive source
 * accesses the compiler fused (the fuse factor F, from the nvcc build's
 * SASS: traces/kernels/sass.h), the filter merges F consecutive records of
 * the same warp and site into one record F times as wide when they form
 * one such instruction:
 *   - the same op, width w, active mask and block;
 *   - each active lane's address in record i is its address in record 0
 *     plus i * w (the lane reads F * w contiguous bytes);
 *   - record 0's addresses are aligned to F * w (a vector access must be);
 *     or the records walk down (record i at record 0's address minus
 *     i * w, ptxas fuses ld [r + 4]; ld [r] as well) from a record 0 that
 *     is (F - 1) * w past that alignment, and the merged record has the
 *     last record's (the lowest) addresses.
 * Records of other sites and warps may come in between (the emulator runs
 * As[ty][k] and Bs[k][tx] alternately); a record that breaks a group
 * releases the group's records unchanged, and so does the end of a block
 * or of the stream.  The merged record has record 0's site, addresses and
 * mask and width F * w; it takes the place of the group's last record in
 * the stream (the ordered part sees it there, and the held records are not
 * seen before it).
 *
 * ptxas also fuses accesses of different sites, e.g. two 4-byte __shared__
 * variables next to each other, stored on lines 358 and 359, into one
 * STS.64 that the SASS marks with one of the lines (359); the other line
 * (358) has no such instruction: the site is *absorbed* (MsGrouping).  A
 * record of an absorbed site joins the warp's held group of another site
 * when it is that group's next part, and a group that an absorbed site's
 * record started (held two parts' alignment, as above) takes the next
 * part from a site that fuses (fuse F), which gives the group its F and
 * the merged record its site.  Such a group keeps its records as they
 * came, each with its site, in case it is released unmerged.
 *
 *
 * Second, a loop with a data-dependent trip count that nvcc unrolled
 * (MsGrouping.n_blocks > 0, e.g. blocks 16, 8, 4 with a remainder loop
 * before them): a warp runs the remainder loop while any lane has
 * iterations of it left (lane l: n_l mod 4), then the 16-block while any
 * lane has 16 left, then the 8-block and the 4-block once if any lane needs
 * it; each is one instruction per unrolled iteration, with the lanes that
 * run it.  The filter holds the records of such a site per warp until the
 * warp's next record of another site (the loop's end: the loop body must
 * be this one access), takes each lane's iteration count and addresses
 * from them and emits the instructions of that schedule: lane l's k-th
 * iteration keeps its address, only the grouping of lanes into
 * instructions changes.
 *
 * Both parts of a sink are filtered: the parallel part per worker (a
 * worker runs whole blocks), the ordered part in stream order.  Call
 * ms_regroup_finish once the producer is done, to release what the
 * ordered part still holds.
 */
#pragma once

#include <glib.h>

#include "stream.h"

G_BEGIN_DECLS

/* What the compiler did with a site's accesses. */
typedef struct {
  guint fuse;              /* consecutive accesses fused into one instruction (1: none) */
  guint n_blocks;          /* an unrolled runtime loop: 0 none, else its block sizes, */
  guint blocks[4];         /* descending, each half the one before (16, 8, 4) */
  gboolean remainder_first;   /* the n mod blocks[last] single iterations come first */
  gboolean absorbed;       /* a load or store whose line has no instruction of its
                              kind: it may be part of another site's wide one */
} MsGrouping;

/* The grouping of a's site (zeroed *out means none); asked once per site. */
typedef void (*MsGroupingFn) (gpointer data, const MsWarpAccess *a, MsGrouping *out);

typedef struct MsRegroup MsRegroup;

/* A filter in front of inner (kept by reference; it must outlive the
 * filter). */
MsRegroup *ms_regroup_new (const MsSinks *inner, MsGroupingFn grouping, gpointer data);
void ms_regroup_free (MsRegroup *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsRegroup, ms_regroup_free)
/* The filter as a sink (parallel part only if inner has one, ordered part
 * only if inner has one). */
const MsStreamSink *ms_regroup_sink (MsRegroup *r);
/* Releases what the ordered part still holds (after the producer). */
void ms_regroup_finish (MsRegroup *r);
/* Over the parallel part: records merged away by fusion, and instructions
 * added by unrolled loops (delivered - source records there); for reports
 * and tests. */
guint64 ms_regroup_merged (const MsRegroup *r);
guint64 ms_regroup_unrolled (const MsRegroup *r);

G_END_DECLS
