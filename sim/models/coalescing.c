/* coalescing.c - global memory coalescing model.
 *
 * Modelling assumptions (what this file does and does not simulate):
 *
 * - One warp access record = one warp-level memory instruction.  It counts
 *   as one request (l1tex__t_requests_pipe_lsu_mem_global_op_*) when at
 *   least one lane is active, whatever its width (1, 2, 4, 8 or 16 bytes)
 *   and however many sectors it touches.  A record with no active lane
 *   costs nothing.
 *
 * - Sectors (l1tex__t_sectors_pipe_lsu_mem_global_op_*) = the number of
 *   distinct arch->sector_bytes-aligned sectors that the byte ranges
 *   [addr, addr + width) of the active lanes touch.  Lanes hitting the same
 *   sector share it (this includes the broadcast case: all lanes on one
 *   address = 1 sector).  The order of the lanes does not matter.  Inactive
 *   lanes' addresses never change the result (whatever they hold).
 *
 * - A misaligned lane (range straddling a sector boundary) counts every
 *   sector it touches.  Real hardware faults on misaligned accesses; the
 *   emulator never produces them, but the model stays well defined.
 *
 * - Lines = distinct arch->line_bytes-aligned lines touched (the unit of
 *   the L1 tag lookup; lines are a multiple of sectors).  Reported for
 *   diagrams and for cache models; Nsight's request/sector metrics do not
 *   depend on it.
 *
 * - Bytes = width * active lanes: the bytes the program asked for.  The
 *   efficiency of an access is bytes / (sectors * sector_bytes).
 *
 * - Loads and stores are costed alike.  No caching, no merging of
 *   accesses across instructions or warps, no DRAM model: those belong to
 *   the cache and time models, which consume these sectors.
 *
 * - Global atomics, used (ATOM) or not (RED), on the sector rule: lanes of
 *   one instruction that hit the same address are served one per pass.
 *   Pass r serves the r-th lane of every address hit at least r times and
 *   costs the distinct sectors of those addresses, so sectors = sum over r
 *   of |{sector of a : a hit by >= r lanes}|.  All 32 lanes on one address
 *   = 32 sectors, two addresses of one sector hit 16 times each = 16,
 *   distinct addresses = the distinct sectors as for a load.  Measured on
 *   the H100 (gpu/probes/atomic-lanes.cu: 13 patterns, RED and ATOM alike;
 *   then held out: examples/histogram.cu's 512 REDs, 6 725 sectors measured
 *   and simulated on the same input).  Requests stay 1.  One exception:
 *   when every active lane hits one address, one pass.  nvcc aggregates an
 *   atomic whose address it can prove uniform across the warp (a counter,
 *   atomicAdd (&n, 1)) into one lane's atomic (test_atomics, atomics.cu's
 *   ticket: 1 sector per warp, measured); an address that is only uniform
 *   at run time is not aggregated (the probe's one-address case: 32
 *   sectors measured) and is miscounted as 1 here: the trace cannot tell
 *   the two apart.  Device code run from its PTX (MsSite.compiled) says
 *   which atomics ptxas aggregated: their records have the one lane that
 *   performs them, and no exception applies.
 *
 * - Compute capability 1.2/1.3 (arch->segment_rule = MS_SEGMENTS_SHRINK,
 *   the cc13 preset; seed 001 and the CUDA Programming Guide 2.x-3.x,
 *   "Coalescing on devices of compute capability 1.2 and higher"): the
 *   lanes are taken in groups of arch->coalesce_lanes (16: half-warps),
 *   each group on its own, per warp-level instruction.  In a group, while
 *   an active lane is unserved: the segment holding the address of the
 *   lowest-numbered unserved active lane (32 bytes for 1-byte words, 64
 *   for 2-byte words, 128 for any wider word) serves every unserved active
 *   lane whose address lies in it; its transaction is reduced from 128 to
 *   64 bytes when only the lower or the upper half is used, and from 64
 *   (originally or after that) to 32 bytes likewise.  Seed 001: lanes 0-15
 *   reading 4-byte words from byte 116 = one 32-byte (96..127) and one
 *   64-byte (128..191) transaction.  The counters are the transactions of
 *   each size (the cc 1.x profiler's gld_32b/64b/128b, gst_...), requests
 *   (1 per instruction, as above) and sectors = bytes the transactions
 *   move / 32, so that efficiency (bytes / (sectors * 32)) keeps its
 *   meaning; lines = distinct 128-byte lines the transactions lie in.  Two
 *   groups on the same bytes are two transactions.  A lane belongs to the
 *   segment of its first byte; a misaligned lane's bytes past that
 *   segment are not fetched (the hardware requires aligned words).  Loads,
 *   stores and atomics alike; cc 1.0/1.1's stricter rule (one transaction
 *   per lane unless the half-warp is in order and aligned) is not
 *   modelled.  This path is a separate function (cost_shrink), chosen by
 *   one branch, so the sector rule's speed does not change.
 *
 * Implementation (no allocation, no global state; timings in the header
 * of cost_fast): a full warp whose lanes step by one stride (a row, a
 * broadcast, a column whose lanes are whole sectors apart) is counted in
 * closed form (ms_coalescing_uniform tells it, in 16 vector steps).  A
 * partially active warp first gets its inactive lanes filled with a
 * neighbour's address, which changes no count.  Then, for
 * power-of-two sizes, one vectorised pass takes the lanes' sector numbers
 * in 32 bits; when they are in monotone lane order (unit stride, strided,
 * broadcast, offset, reversed: nearly every real pattern) the distinct
 * sectors are those unlike the previous lane's; a gather within 256
 * sectors is counted in a 256-bit bitmap.  Anything else (gathers spread
 * wide, straddling lanes, sizes that are not powers of two) takes a
 * general ordered pass with divisions, then a small open-addressing set.
 */

#include "config.h"

#include "coalescing.h"
#include "cpu-clones.h"

#include <string.h>

static inline guint64
div_shift (guint64 x, guint64 d, int shift)
{
  return shift >= 0 ? x >> shift : x / d;
}

/* A set of at most 64 guint64 keys (the most distinct sectors of one
 * access) in 64 slots: open addressing, linear probing, and a 64-bit
 * occupancy bitmap that lives in a register, so the set needs no clearing
 * and probes make no memory round trips.  With 64 keys at most and 64
 * slots, every insertion finds a free slot or its key. */
#define SET_BITS 6
#define SET_SLOTS (1u << SET_BITS)

/* TRUE when k was not yet in the set (it is now). */
static inline __attribute__ ((always_inline)) gboolean
small_set_add (guint64 *occ, guint64 *keys, guint64 k)
{
  guint h = (guint) ((k * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> (64 - SET_BITS));
  for (;;)
    {
      guint64 bit = G_GUINT64_CONSTANT (1) << h;
      if ((*occ & bit) == 0)
        {
          *occ |= bit;
          keys[h] = k;
          return TRUE;
        }
      if (keys[h] == k)
        return FALSE;
      h = (h + 1) & (SET_SLOTS - 1);
    }
}

/* Slow path for lanes whose sectors are not in order (gathers). */
static void
cost_unordered (const MsArch *arch, const MsWarpAccess *a, guint32 mask,
                MsGlobalCost *cost)
{
  guint64 wm1 = (guint64) a->width - 1;
  guint64 sb = (guint64) arch->sector_bytes;
  guint64 spl = (guint64) (arch->line_bytes / arch->sector_bytes);
  int sshift = ms_exact_log2 (sb), lshift = ms_exact_log2 (spl);
  guint64 skeys[SET_SLOTS], lkeys[SET_SLOTS];
  guint64 socc = 0, locc = 0;
  guint64 ns = 0, nl = 0;

  if (sshift >= 0 && lshift >= 0)
    {
      for (guint32 m = mask; m != 0; m &= m - 1)
        {
          guint l = (guint) __builtin_ctz (m);
          guint64 s0 = a->addr[l] >> sshift;
          guint64 s1 = (a->addr[l] + wm1) >> sshift;
          if (small_set_add (&socc, skeys, s0))
            {
              ns++;
              nl += small_set_add (&locc, lkeys, s0 >> lshift) ? 1 : 0;
            }
          if (s1 != s0 && small_set_add (&socc, skeys, s1))
            {
              ns++;
              nl += small_set_add (&locc, lkeys, s1 >> lshift) ? 1 : 0;
            }
        }
    }
  else
    {
      for (guint32 m = mask; m != 0; m &= m - 1)
        {
          guint l = (guint) __builtin_ctz (m);
          guint64 s0 = a->addr[l] / sb;
          guint64 s1 = (a->addr[l] + wm1) / sb;
          /* ns bound: only an arch failing ms_coalescing_arch_check() can
           * make more than 2 sectors a lane; the set must not overflow. */
          for (guint64 sec = s0; sec <= s1 && ns < SET_SLOTS; sec++)
            if (small_set_add (&socc, skeys, sec))
              {
                ns++;
                nl += small_set_add (&locc, lkeys, sec / spl) ? 1 : 0;
              }
        }
    }
  cost->sectors = ns;
  cost->lines = nl;
}

/* Population count of 64 bits without relying on the POPCNT instruction
 * (ms_lanes_count's, access.h, for 32). */
static inline guint
popcount64 (guint64 v)
{
  v = v - ((v >> 1) & G_GUINT64_CONSTANT (0x5555555555555555));
  v = (v & G_GUINT64_CONSTANT (0x3333333333333333))
      + ((v >> 2) & G_GUINT64_CONSTANT (0x3333333333333333));
  v = (v + (v >> 4)) & G_GUINT64_CONSTANT (0x0F0F0F0F0F0F0F0F);
  return (guint) ((v * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56);
}

/* The hot path, for power-of-two sectors and lines and a full (or filled)
 * warp, written so that GCC vectorises its loops at -O2 with plain SSE2.
 *
 * Step 1 (every access): each lane's sector number, kept in 32 bits
 * relative to lane 0's.  It applies when no lane straddles two sectors
 * and all lanes lie within 2^30 sectors of lane 0 (so 32-bit differences
 * are exact); else FAST_NO.
 *
 * Step 2 (ordered): when the sectors are in non-decreasing or
 * non-increasing lane order (a reversed copy), the distinct sectors are 1
 * plus the number of lanes whose sector differs from the previous lane's,
 * and likewise lines: FAST_DONE.
 *
 * Step 3 (gathers in a window): when the sectors fit in WINDOW = 256
 * sectors from a line boundary, a 256-bit bitmap held in four registers
 * collects them without branches; the distinct sectors are its population
 * count, the lines the count of the bitmap with each line's bits ORed into
 * one: FAST_DONE.  Else FAST_NO (the caller's general paths handle it).
 *
 * Measured (AMD EPYC Zen 3, gcc 12 -O2, full warp): ~31 ns for any
 * monotone pattern, ~50 ns with a partial mask, ~100 ns for a gather in
 * the window, ~170 ns for a wide gather (hash set). */
enum { FAST_NO, FAST_DONE };

#define WINDOW 256

/* The monotone pass over n sectors s[] relative to b (s[n] = s[n - 1]):
 * when the steps between neighbours never go both up and down, the
 * distinct sectors and lines (lines of 2^lsh sectors) into *ns_out and
 * *nl_out, TRUE.  Inline with n constant, the loop vectorises. */
static inline gboolean
monotone_counts (const guint32 *s, guint n, guint32 b, guint lsh, guint64 *ns_out,
                 guint64 *nl_out)
{
  guint32 up = 0, down = 0, ns = 1, nl = 1;
  for (guint l = 0; l < n; l++)
    {
      guint32 d = s[l + 1] - s[l];
      guint32 e = ((s[l + 1] + b) >> lsh) - ((s[l] + b) >> lsh);
      up |= d;          /* sign bit set: some step goes down */
      down |= -d;       /* sign bit set: some step goes up */
      ns += d != 0;
      nl += e != 0;
    }
  if (((up & down) >> 31) != 0)
    return FALSE;
  *ns_out = ns;
  *nl_out = nl;
  return TRUE;
}

/* cost_fast's monotone pass for a warp of a few active lanes (a divergent
 * loop's stragglers), over those lanes alone: what cost_fast counts on the
 * filled addresses (an inactive lane repeats an active neighbour, a step of
 * 0), without 32 lanes' work.  FAST_NO for anything else (the caller goes
 * on to cost_fast).  callgrind, per_thread_sum (2.6 lanes a record): the
 * coalescing cost 260.4 -> 60.6 M instructions (with its inlined helpers). */
static inline int
cost_sparse (const MsWarpAccess *a, guint32 mask, guint64 wm1, guint sshift, guint lsh,
             guint64 *ns_out, guint64 *nl_out)
{
  guint32 s[MS_COALESCING_SPARSE_LANES + 1];
  guint64 base = a->addr[__builtin_ctz (mask)] >> sshift;
  guint n = 0;
  for (guint32 m = mask; m; m &= m - 1, n++)
    {
      guint64 x = a->addr[__builtin_ctz (m)];
      guint64 s0 = x >> sshift, s1 = (x + wm1) >> sshift;
      if ((s0 ^ s1) | ((s0 - base + 0x40000000u) >> 31))
        return FAST_NO;
      s[n] = (guint32) (s0 - base);
    }
  s[n] = s[n - 1];
  return monotone_counts (s, n, (guint32) base, lsh, ns_out, nl_out) ? FAST_DONE : FAST_NO;
}

static inline int
cost_fast (const guint64 *addr, guint64 wm1, guint sshift, guint lsh,
           guint64 *ns_out, guint64 *nl_out)
{
  guint32 s[MS_WARP_SIZE + 1];
  guint64 base = addr[0] >> sshift;
  guint64 chk = 0;

  for (guint l = 0; l < MS_WARP_SIZE; l++)
    {
      guint64 s0 = addr[l] >> sshift, s1 = (addr[l] + wm1) >> sshift;
      chk |= (s0 ^ s1) | ((s0 - base + 0x40000000u) >> 31);
      s[l] = (guint32) (s0 - base);
    }
  if (chk != 0)
    return FAST_NO;
  s[MS_WARP_SIZE] = s[MS_WARP_SIZE - 1];  /* a 32-step loop vectorises */
  guint32 b = (guint32) base;
  if (monotone_counts (s, MS_WARP_SIZE, b, lsh, ns_out, nl_out))
    return FAST_DONE;

  /* A gather.  s[] as signed offsets from lane 0, all within +-2^30. */
  gint32 rmin = 0, rmax = 0;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    {
      gint32 r = (gint32) s[l];
      rmin = MIN (rmin, r);
      rmax = MAX (rmax, r);
    }
  if (lsh > 6)
    return FAST_NO;
  /* The window starts at the line holding the smallest sector. */
  gint32 origin = rmin - (gint32) (((guint32) rmin + b) & ((1u << lsh) - 1));
  if (rmax - origin >= WINDOW)
    return FAST_NO;

  guint64 b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    {
      guint32 r = (guint32) ((gint32) s[l] - origin);
      guint32 w = r >> 6;
      guint64 bit = G_GUINT64_CONSTANT (1) << (r & 63);
      b0 |= w == 0 ? bit : 0;
      b1 |= w == 1 ? bit : 0;
      b2 |= w == 2 ? bit : 0;
      b3 |= w == 3 ? bit : 0;
    }

  /* Lines: OR each group of 2^lsh bits into its lowest bit, keep those. */
  static const guint64 line_bits[7] = {
    G_GUINT64_CONSTANT (0xFFFFFFFFFFFFFFFF), G_GUINT64_CONSTANT (0x5555555555555555),
    G_GUINT64_CONSTANT (0x1111111111111111), G_GUINT64_CONSTANT (0x0101010101010101),
    G_GUINT64_CONSTANT (0x0001000100010001), G_GUINT64_CONSTANT (0x0000000100000001),
    G_GUINT64_CONSTANT (0x0000000000000001),
  };
  guint64 l0 = b0, l1 = b1, l2 = b2, l3 = b3;
  for (guint k = 0; k < lsh; k++)
    {
      guint sh = 1u << k;
      l0 |= l0 >> sh;
      l1 |= l1 >> sh;
      l2 |= l2 >> sh;
      l3 |= l3 >> sh;
    }
  guint64 pattern = line_bits[lsh];
  *ns_out = popcount64 (b0) + popcount64 (b1) + popcount64 (b2) + popcount64 (b3);
  *nl_out = popcount64 (l0 & pattern) + popcount64 (l1 & pattern)
            + popcount64 (l2 & pattern) + popcount64 (l3 & pattern);
  return FAST_DONE;
}

/* The general ordered path: any sector/line size, lanes may straddle
 * sectors.  For lanes in order, with s0/s1 a lane's first/last sector and
 * p1 the previous active lane's last sector: the sectors are in order when
 * s0 >= p1 for every lane, and then the lane adds s1 - s0 sectors plus one
 * when s0 > p1.  Lines likewise.  Returns FALSE when the lanes are not in
 * order. */
static gboolean
cost_ordered (const MsArch *arch, const MsWarpAccess *a, guint32 mask,
              guint64 *ns_out, guint64 *nl_out)
{
  guint64 wm1 = (guint64) a->width - 1;
  guint64 sb = (guint64) arch->sector_bytes, lb = (guint64) arch->line_bytes;
  guint64 ps = 0, pl = 0, ns = 0, nl = 0;
  gboolean first = TRUE;

  for (guint32 m = mask; m != 0; m &= m - 1)
    {
      guint l = (guint) __builtin_ctz (m);
      guint64 lo = a->addr[l], hi = lo + wm1;
      guint64 s0 = lo / sb, s1 = hi / sb, l0 = lo / lb, l1 = hi / lb;
      if (first)
        {
          ns = s1 - s0 + 1;
          nl = l1 - l0 + 1;
          first = FALSE;
        }
      else
        {
          if (s0 < ps)
            return FALSE;
          ns += (s1 - s0) + (s0 != ps);
          nl += (l1 - l0) + (l0 != pl);
        }
      ps = s1;
      pl = l1;
    }
  *ns_out = ns;
  *nl_out = nl;
  return TRUE;
}

/* ---- compute capability 1.2/1.3: segments per half-warp ---- */

/* The segment size for a word of `width` bytes: 32, 64 or 128. */
static inline guint
shrink_segment_bytes (guint width)
{
  return width == 1 ? 32u : width == 2 ? 64u : 128u;
}

/* The transactions of the lanes of `mask` (the active lanes below the warp
 * size), as the rule in the header issues them.  Returns their number. */
static guint
segments (const MsArch *arch, const MsWarpAccess *a, guint32 mask, MsSegment *out)
{
  guint width = a->width, size = shrink_segment_bytes (width);
  guint group_lanes = (guint) arch->coalesce_lanes;
  guint n = 0;

  for (guint g = 0; g * group_lanes < MS_WARP_SIZE; g++)
    {
      guint32 gmask = group_lanes >= 32 ? 0xFFFFFFFFu
                                        : ((1u << group_lanes) - 1) << (g * group_lanes);
      guint32 todo = mask & gmask;
      while (todo != 0)
        {
          guint64 seg = a->addr[__builtin_ctz (todo)] & ~(guint64) (size - 1);
          guint32 served = 0;
          guint used = 0;   /* bit q: bytes [seg + 32q, seg + 32q + 32) used */
          for (guint32 m = todo; m != 0; m &= m - 1)
            {
              guint l = (guint) __builtin_ctz (m);
              guint64 lo = a->addr[l];
              if ((lo & ~(guint64) (size - 1)) != seg)
                continue;
              guint64 hi = MIN (lo + width - 1, seg + size - 1);
              served |= 1u << l;
              for (guint q = (guint) ((lo - seg) >> 5); q <= (guint) ((hi - seg) >> 5); q++)
                used |= 1u << q;
            }
          /* reduce: 128 -> 64 when one half is used, 64 -> 32 likewise */
          guint tsize = size;
          guint64 taddr = seg;
          if (tsize == 128 && ((used & 0x3) == 0 || (used & 0xC) == 0))
            {
              tsize = 64;
              if ((used & 0x3) == 0)
                {
                  taddr += 64;
                  used >>= 2;
                }
            }
          if (tsize == 64 && ((used & 0x1) == 0 || (used & 0x2) == 0))
            {
              tsize = 32;
              if ((used & 0x1) == 0)
                taddr += 32;
            }
          out[n++] = (MsSegment) { taddr, tsize, g, served };
          todo &= ~served;
        }
    }
  return n;
}

static void
cost_shrink (const MsArch *arch, const MsWarpAccess *a, guint32 mask, MsGlobalCost *cost)
{
  MsSegment seg[MS_COALESCING_MAX_SEGMENTS];
  guint n = segments (arch, a, mask, seg);
  guint64 line[MS_COALESCING_MAX_SEGMENTS];
  guint n_lines = 0;

  memset (cost, 0, sizeof *cost);
  cost->requests = 1;
  cost->bytes = (guint64) a->width * ms_lanes_count (mask);
  for (guint i = 0; i < n; i++)
    {
      cost->transactions[seg[i].size == 32 ? 0 : seg[i].size == 64 ? 1 : 2]++;
      cost->sectors += seg[i].size / 32;
      guint64 l = seg[i].addr / 128;
      guint k = 0;
      while (k < n_lines && line[k] != l)
        k++;
      if (k == n_lines)
        line[n_lines++] = l;
    }
  cost->lines = n_lines;
}

guint
ms_coalescing_segments (const MsArch *arch, const MsWarpAccess *a, MsSegment *seg_out)
{
  guint32 mask = ms_warp_lanes (a->mask, arch->warp_size);
  if (arch->segment_rule != MS_SEGMENTS_SHRINK || mask == 0 || a->width == 0)
    return 0;
  return segments (arch, a, mask, seg_out);
}

MS_CPU_CLONES void
ms_coalescing_cost (const MsArch *arch, const MsWarpAccess *a,
                    MsGlobalCost *cost)
{
  guint32 mask = ms_warp_lanes (a->mask, arch->warp_size);
  guint64 width = a->width;
  int sshift = ms_exact_log2 ((guint64) arch->sector_bytes);
  int lshift = ms_exact_log2 ((guint64) arch->line_bytes);

  if (mask == 0 || width == 0)
    {
      memset (cost, 0, sizeof *cost);
      return;
    }
  if (G_UNLIKELY (arch->segment_rule == MS_SEGMENTS_SHRINK))
    {
      cost_shrink (arch, a, mask, cost);
      return;
    }
  cost->requests = 1;
  cost->bytes = width * ms_lanes_count (mask);
  cost->transactions[0] = cost->transactions[1] = cost->transactions[2] = 0;

  if (G_LIKELY (sshift >= 0 && lshift >= sshift))
    {
      guint64 bytes;
      switch (ms_coalescing_uniform (a, mask, (guint) sshift, (guint) lshift, &bytes))
        {
        case MS_UNIFORM_SPAN:
          {
            guint64 first = a->addr[__builtin_ctz (mask)], last = first + bytes - 1;
            cost->sectors = (last >> sshift) - (first >> sshift) + 1;
            cost->lines = (last >> lshift) - (first >> lshift) + 1;
            return;
          }
        case MS_UNIFORM_COLUMN:
          cost->sectors = cost->lines = MS_WARP_SIZE;
          return;
        case MS_UNIFORM_NONE:
          break;
        }
      if (ms_lanes_count (mask) <= MS_COALESCING_SPARSE_LANES
          && cost_sparse (a, mask, width - 1, (guint) sshift, (guint) (lshift - sshift),
                          &cost->sectors, &cost->lines) == FAST_DONE)
        return;
      guint64 filled[MS_WARP_SIZE];
      const guint64 *addr = a->addr;
      if (mask != 0xFFFFFFFFu)
        {
          ms_coalescing_fill_forward (a, mask, filled);
          addr = filled;
        }
      if (G_LIKELY (cost_fast (addr, width - 1, (guint) sshift,
                               (guint) (lshift - sshift),
                               &cost->sectors, &cost->lines) == FAST_DONE))
        return;
    }
  /* Only an arch failing ms_coalescing_arch_check() fails this; it would
   * divide by zero below. */
  if (G_UNLIKELY (arch->sector_bytes <= 0 || arch->line_bytes < arch->sector_bytes))
    {
      memset (cost, 0, sizeof *cost);
      g_return_if_reached ();
    }
  if (cost_ordered (arch, a, mask, &cost->sectors, &cost->lines))
    return;
  cost_unordered (arch, a, mask, cost);
}

guint
ms_coalescing_sectors (const MsArch *arch, const MsWarpAccess *a,
                       guint64 *sector_out)
{
  guint32 mask = ms_warp_lanes (a->mask, arch->warp_size);
  guint64 width = a->width;
  guint64 sb = (guint64) arch->sector_bytes;
  int sshift = ms_exact_log2 (sb);
  guint n = 0;

  if (mask == 0 || width == 0)
    return 0;
  g_return_val_if_fail (arch->sector_bytes > 0, 0);

  /* Collect every lane's sectors (at most 2 each)... */
  for (guint32 m = mask; m != 0; m &= m - 1)
    {
      guint l = (guint) __builtin_ctz (m);
      guint64 s0 = div_shift (a->addr[l], sb, sshift);
      guint64 s1 = div_shift (a->addr[l] + width - 1, sb, sshift);
      for (guint64 s = s0; s <= s1 && n < MS_COALESCING_MAX_SECTORS; s++)
        sector_out[n++] = s;
    }

  /* ...sort them (insertion sort: linear on the usual ordered input)... */
  for (guint i = 1; i < n; i++)
    {
      guint64 v = sector_out[i];
      guint j = i;
      while (j > 0 && sector_out[j - 1] > v)
        {
          sector_out[j] = sector_out[j - 1];
          j--;
        }
      sector_out[j] = v;
    }

  /* ...and drop duplicates. */
  guint k = n > 0 ? 1 : 0;
  for (guint i = 1; i < n; i++)
    if (sector_out[i] != sector_out[k - 1])
      sector_out[k++] = sector_out[i];
  return k;
}

void
ms_global_cost_add (MsGlobalCost *sum, const MsGlobalCost *b)
{
  sum->requests += b->requests;
  sum->sectors += b->sectors;
  sum->lines += b->lines;
  sum->bytes += b->bytes;
  for (guint i = 0; i < 3; i++)
    sum->transactions[i] += b->transactions[i];
}

gboolean
ms_coalescing_arch_check (const MsArch *arch, GError **error)
{
  const char *name = arch->name != NULL ? arch->name : "(unnamed)";

  if (arch->sector_bytes < 16)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: sector_bytes %d is below 16, the widest access",
                   name, arch->sector_bytes);
      return FALSE;
    }
  if (arch->line_bytes < arch->sector_bytes
      || arch->line_bytes % arch->sector_bytes != 0)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: line_bytes %d is not a multiple of sector_bytes %d",
                   name, arch->line_bytes, arch->sector_bytes);
      return FALSE;
    }
  if (arch->segment_rule == MS_SEGMENTS_SHRINK)
    {
      /* cc 1.2/1.3's segments are 32, 64 and 128 bytes (the counters'
       * names); groups tile the warp */
      if (arch->sector_bytes != 32 || arch->line_bytes != 128)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                       "architecture %s: segment_rule=shrink needs sector_bytes=32 and "
                       "line_bytes=128 (cc 1.2/1.3's segments), not %d and %d",
                       name, arch->sector_bytes, arch->line_bytes);
          return FALSE;
        }
      if (arch->coalesce_lanes < 1 || arch->coalesce_lanes > MS_WARP_SIZE
          || MS_WARP_SIZE % arch->coalesce_lanes != 0)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                       "architecture %s: segment_rule=shrink needs coalesce_lanes dividing %d "
                       "(16: half-warps), not %d", name, MS_WARP_SIZE, arch->coalesce_lanes);
          return FALSE;
        }
      return TRUE;
    }
  /* the sector rule coalesces the whole warp */
  if (arch->coalesce_lanes < arch->warp_size && arch->coalesce_lanes < MS_WARP_SIZE)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: segment_rule=sectors coalesces the whole warp; set "
                   "coalesce_lanes=%d or segment_rule=shrink", name, arch->warp_size);
      return FALSE;
    }
  return TRUE;
}

/* ---- the model (model.h) ---- */

static gboolean
shrink_applies (const MsArch *arch)
{
  return arch->segment_rule == MS_SEGMENTS_SHRINK;
}

/* The cc 1.x profiler's gld_32b, gst_32b, ...: "g" + "ld"/"st"; it had no
 * such counters for atomics, so those are counted but not named. */
#define LD_ST ((1u << MS_OP_LD) | (1u << MS_OP_ST))

static const MsCounterDef coalescing_counters[] = {
  { "requests", MS_SLOT_REQUESTS, "l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum" },
  { "sectors", MS_SLOT_SECTORS, "l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum" },
  { "lines", MS_SLOT_LINES, NULL },
  { "transactions_32b", MS_SLOT_TX_32B, "g%s_32b", .ops = LD_ST, .applies = shrink_applies },
  { "transactions_64b", MS_SLOT_TX_64B, "g%s_64b", .ops = LD_ST, .applies = shrink_applies },
  { "transactions_128b", MS_SLOT_TX_128B, "g%s_128b", .ops = LD_ST, .applies = shrink_applies },
  { NULL },
};

guint
ms_coalescing_address_hits (const MsArch *arch, const MsWarpAccess *a, guint64 *addr, guint *hits)
{
  guint n = 0;
  for (guint32 m = ms_warp_lanes (a->mask, arch->warp_size); m != 0; m &= m - 1)
    {
      guint64 x = a->addr[__builtin_ctz (m)];
      guint i = 0;
      while (i < n && addr[i] != x)
        i++;
      if (i == n)
        {
          addr[n] = x;
          hits[n++] = 0;
        }
      hits[i]++;
    }
  return n;
}

/* A global atomic's sectors: one pass per lane hitting an address (see the
 * assumptions above).  At most 32 addresses and 32 passes. */
static guint64
atomic_sectors (const MsArch *arch, const MsWarpAccess *a)
{
  guint64 addr[MS_WARP_SIZE];
  guint hits[MS_WARP_SIZE], most = 0;
  guint n = ms_coalescing_address_hits (arch, a, addr, hits);
  guint64 sb = (guint64) arch->sector_bytes;
  for (guint i = 0; i < n; i++)
    most = MAX (most, hits[i]);
  if (n == 1 && !(a->site != NULL && a->site->compiled))
    most = 1;   /* one address for the whole warp: aggregated by nvcc (see above) */
  guint64 total = 0;
  for (guint r = 1; r <= most; r++)
    {
      guint64 sectors[2 * MS_WARP_SIZE];
      guint k = 0;
      for (guint i = 0; i < n; i++)
        if (hits[i] >= r)
          for (guint64 sct = addr[i] / sb; sct <= (addr[i] + a->width - 1) / sb; sct++)
            {
              guint j = 0;
              while (j < k && sectors[j] != sct)
                j++;
              if (j == k && k < G_N_ELEMENTS (sectors))
                sectors[k++] = sct;
            }
      total += k;
    }
  return total;
}

static void
coalescing_model_cost (const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  MsGlobalCost g;
  ms_coalescing_cost (arch, a, &g);
  if ((a->op == MS_OP_ATOMIC || a->op == MS_OP_RED) && g.requests > 0
      && arch->segment_rule == MS_SEGMENTS_SECTORS && arch->sector_bytes > 0)
    g.sectors = atomic_sectors (arch, a);
  v[MS_SLOT_REQUESTS] += g.requests;
  v[MS_SLOT_SECTORS] += g.sectors;
  v[MS_SLOT_LINES] += g.lines;
  v[MS_SLOT_TX_32B] += g.transactions[0];
  v[MS_SLOT_TX_64B] += g.transactions[1];
  v[MS_SLOT_TX_128B] += g.transactions[2];
}

const MsModel ms_model_coalescing = {
  .name = "coalescing",
  .summary = "global memory: requests, 32-byte sectors and 128-byte lines per warp access "
             "(cc 1.2/1.3: 32/64/128-byte transactions per half-warp)",
  .space = MS_SPACE_GLOBAL,
  .counters = coalescing_counters,
  .arch_check = ms_coalescing_arch_check,
  .cost = coalescing_model_cost,
};
