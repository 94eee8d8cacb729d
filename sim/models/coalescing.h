/* coalescing.h - global memory coalescing model: sectors and lines per
 * warp-level access (sm_20+), or cc 1.2/1.3's 32-, 64- and 128-byte
 * segment transactions per half-warp (arch->segment_rule).
 *
 * See the comment at the top of coalescing.c for the modelling assumptions.
 * Both functions are pure (no global state, no allocation) and take the
 * architecture as a parameter, so they are safe to call from several
 * threads and honour any MsArch preset that passes ms_coalescing_arch_check().
 */
#pragma once

#include <glib.h>
#include <string.h>

#include "access.h"
#include "arch.h"
#include "model.h"

G_BEGIN_DECLS

/* The most distinct sectors one warp access can touch: 32 lanes, each
 * range [addr, addr+width) with width <= sector_bytes spans at most 2
 * sectors.  Size of the array ms_coalescing_sectors() fills. */
#define MS_COALESCING_MAX_SECTORS (2 * MS_WARP_SIZE)

typedef struct {
  guint64 requests;   /* warp-level instructions with >= 1 active lane: 1 per record */
  guint64 sectors;    /* distinct arch->sector_bytes sectors touched by the active
                       * lanes' byte ranges [addr, addr+width) */
  guint64 lines;      /* distinct arch->line_bytes lines touched */
  guint64 bytes;      /* bytes requested: width * number of active lanes */
  /* segment_rule=shrink only (0 otherwise): the transactions of 32, 64 and
   * 128 bytes; sectors is then the bytes they move / 32 */
  guint64 transactions[3];
} MsGlobalCost;

/* Fills (overwrites) *cost with the cost of one warp access.  A record with
 * no active lane (mask == 0) costs nothing (all fields 0).  Lanes at or
 * above arch->warp_size are ignored. */
void ms_coalescing_cost (const MsArch *arch, const MsWarpAccess *a,
                         MsGlobalCost *cost);

/* The distinct addresses of a warp access's active lanes (lanes at or above
 * arch->warp_size ignored), in lane order, into addr, and how many lanes
 * hit each into hits (both of room MS_WARP_SIZE); returns how many there
 * are.  A global atomic's lanes on one address are served one per pass
 * (the atomics' sector rule below, and atomics.c). */
guint ms_coalescing_address_hits (const MsArch *arch, const MsWarpAccess *a, guint64 *addr,
                                  guint *hits);

/* A warp of at most this many active lanes is walked over those lanes
 * alone (the coalescing cost, the cache model's lines), not filled out to
 * 32 (ms_coalescing_fill_forward): what both count is the same. */
#define MS_COALESCING_SPARSE_LANES 8

/* Copies the addresses of a partially active warp (mask != 0) so that
 * every inactive lane repeats the address of the closest active lane before
 * it (or, before the first active lane, of the first active lane).  A
 * repeated address adds no sector and keeps the lanes' order, so code for
 * full warps then counts exactly the active lanes.  (A select chain:
 * walking the mask bit by bit is a slower serial chain.) */
static inline void
ms_coalescing_fill_forward (const MsWarpAccess *a, guint32 mask, guint64 *out)
{
  guint64 v = a->addr[__builtin_ctz (mask)];
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    {
      v = (mask >> l) & 1 ? a->addr[l] : v;
      out[l] = v;
    }
}

/* The common patterns of a full warp, which models count in closed form
 * (ms_coalescing_uniform). */
typedef enum {
  MS_UNIFORM_NONE,     /* any other access: count it lane by lane */
  MS_UNIFORM_SPAN,     /* one address or a contiguous row: the bytes
                          [addr[0], addr[0] + *bytes) */
  MS_UNIFORM_COLUMN,   /* lanes *bytes apart, a line or more and whole
                          sectors, each within one sector: 32 sectors in
                          32 lines, ascending */
} MsUniform;

/* Which of the patterns above the access is, for sectors of 2^sshift and
 * lines of 2^lshift bytes: all 32 lanes active, `width` at most 16, and
 * addr[l] = addr[0] + l * stride for one stride (no wrap past 2^64); or
 * a partial warp whose active lanes the producer said share one address
 * (a broadcast under a divergent branch: cuRAND's skip-ahead), a span.
 * A span starts at the first active lane's address.  The stride test
 * takes two lanes a step in GCC's vector extension (SSE2): GCC -O2 does
 * not vectorise the plain loop. */
static inline MsUniform
ms_coalescing_uniform (const MsWarpAccess *a, guint32 mask, guint sshift, guint lshift,
                       guint64 *bytes)
{
  if (a->width > 16)
    return MS_UNIFORM_NONE;
  if (mask != 0xFFFFFFFFu)
    {
      guint64 d;
      if (mask == 0 || !ms_access_strided (a, &d) || d != 0
          || a->addr[__builtin_ctz (mask)] > G_MAXUINT64 - a->width)
        return MS_UNIFORM_NONE;
      *bytes = a->width;
      return MS_UNIFORM_SPAN;
    }
  typedef guint64 V2 __attribute__ ((vector_size (16)));
  guint64 a0 = a->addr[0], d = a->addr[1] - a0, w = a->width;
  if (!ms_access_strided (a, &d))   /* the producer's word, or the test */
    {
      V2 e = { a0, a0 + d }, step = { 2 * d, 2 * d }, chk = { 0, 0 };
      for (guint l = 0; l < MS_WARP_SIZE; l += 2, e += step)
        {
          V2 x;
          memcpy (&x, a->addr + l, sizeof x);
          chk |= x ^ e;
        }
      if ((chk[0] | chk[1]) != 0)
        return MS_UNIFORM_NONE;
    }
  if (d == 0 || d == w)
    {
      *bytes = d == 0 ? w : w * MS_WARP_SIZE;
      return a0 <= G_MAXUINT64 - *bytes ? MS_UNIFORM_SPAN : MS_UNIFORM_NONE;
    }
  guint64 sb = G_GUINT64_CONSTANT (1) << sshift;
  if (d < (G_GUINT64_CONSTANT (1) << lshift) || (d & (sb - 1)) != 0
      || (a0 & (sb - 1)) + w > sb || d > (G_MAXUINT64 - a0) / (MS_WARP_SIZE - 1))
    return MS_UNIFORM_NONE;
  *bytes = d;
  return MS_UNIFORM_COLUMN;
}

/* The distinct sectors the access touches, for diagrams: stores sector
 * indices (byte address / arch->sector_bytes) sorted ascending into
 * sector_out, which must hold MS_COALESCING_MAX_SECTORS (64) entries, and
 * returns their number (== cost.sectors; 0 when mask == 0). */
guint ms_coalescing_sectors (const MsArch *arch, const MsWarpAccess *a,
                             guint64 *sector_out);

/* One transaction of the segment rule of compute capability 1.2/1.3. */
typedef struct {
  guint64 addr;     /* its first byte (a multiple of its size) */
  guint size;       /* 32, 64 or 128 bytes */
  guint group;      /* the group of arch->coalesce_lanes lanes (half-warp) it serves */
  guint32 lanes;    /* the lanes it serves (bit l = lane l) */
} MsSegment;

/* At most one transaction per active lane. */
#define MS_COALESCING_MAX_SEGMENTS MS_WARP_SIZE

/* Under segment_rule=shrink: the transactions of the access, in the order
 * the rule issues them (groups in order; within a group, by the lowest
 * unserved active lane), into seg_out (MS_COALESCING_MAX_SEGMENTS
 * entries); returns their number (0 when mask == 0).  The sizes give
 * cost.transactions.  Under the sector rule: 0. */
guint ms_coalescing_segments (const MsArch *arch, const MsWarpAccess *a, MsSegment *seg_out);

/* Adds cost b into the running total *sum. */
void ms_global_cost_add (MsGlobalCost *sum, const MsGlobalCost *b);

/* Whether the model can work with this architecture: warp_size in
 * 1..MS_WARP_SIZE, sector_bytes >= 16 (the widest access, so one lane spans
 * at most 2 sectors), line_bytes a positive multiple of sector_bytes; the
 * sector rule needs coalesce_lanes = the warp, segment_rule=shrink needs
 * 32-byte sectors, 128-byte lines and coalesce_lanes dividing the warp.  For
 * the loader of architecture description files; the cost functions assume
 * a checked arch. */
gboolean ms_coalescing_arch_check (const MsArch *arch, GError **error);

/* The model-table entry (models.c). */
extern const MsModel ms_model_coalescing;

G_END_DECLS
