/* banks.c - shared memory bank model.
 *
 * Modelling assumptions (what this file does and does not simulate):
 *
 * - Shared memory is arch->banks banks of arch->bank_bytes-byte words
 *   (H100: 32 x 4 B).  Word index = byte offset / bank_bytes; bank = word
 *   index mod banks.  Offsets are relative to the block's shared window,
 *   which starts on a bank-0 word.
 *
 * - A warp access is split into phases of consecutive lanes: lanes per
 *   phase = P / width, clamped to 1..warp_size, with P bytes per phase:
 *     P = arch->phase_bytes for stores, atomics and most loads (H100: 128:
 *       1-, 2- and 4-byte accesses are one phase of 32 lanes, 8-byte two
 *       phases of 16 lanes, 16-byte four phases of 8 lanes);
 *     P = arch->paired_load_phase_bytes for a LOAD in which every pair of
 *       lanes (2k, 2k+1) that are both active reads one address ("paired":
 *       all lanes on one element, lanes sharing elements in pairs or
 *       quads...): the pair is served as one lane, so a phase takes twice
 *       the lanes (H100: 256: 8-byte one phase of 32 lanes, 16-byte two
 *       phases of 16).
 *   Lane l is in phase l / lanes_per_phase.  The pair test is made per
 *   GROUP of paired_load_phase_bytes / width lanes (H100: 8-byte: the
 *   whole warp; 16-byte: lanes 0-15 and 16-31): where only some groups of
 *   a load are paired, each paired group (with an active lane) is one
 *   phase of the group's lanes and every other group is split into phases
 *   of phase_bytes / width lanes ("mixed"; e.g. 16-byte, lanes 0-15 in
 *   pairs, lanes 16-31 distinct: phases 0-15, 16-23, 24-31).  A group with
 *   no active lane counts as paired only when the whole warp is.  The
 *   split depends on the width, the op and these pair tests only, never on
 *   which banks are hit.
 *
 *   Measured on an H100 (docs/validation.md, "Shared-memory broadcasts and
 *   partial patterns": 141 instruction-level counts of the smem_gather
 *   probes, wavefronts and Nsight's excessive wavefronts, all matched by
 *   this rule), per warp-level load: 8-byte, all lanes on one element: 1
 *   wavefront (16-byte: 2); lanes sharing elements in pairs (l/2) or quads
 *   (l/4): 1 (16-byte: 2); lanes 0-15 on one element, 16-31 on another: 1,
 *   or 2 with 1 excessive when the two share banks (one phase with a 2-way
 *   conflict, not two phases); but lanes 16-31 repeating lanes 0-15's
 *   elements (l%16) or every 8 lanes repeating (l%8): 2 (16-byte: 4),
 *   exactly two 16-lane phases: duplicate words are NOT merged across
 *   phases, only a lane pair with one address is.  Gathers without such
 *   pairs (identity, permutations, strides, random) cost what 128-byte
 *   phases give.  Stores are never paired (8-byte: all lanes on one
 *   element, or in pairs: 2; 16-byte: 4): stores use phase_bytes.
 *
 *   Mixed loads, measured on an H100 (docs/validation.md, "Mixed pairs and
 *   shared atomics (run of 2026-11-22 09:25 UTC)": 14 mixed-* probes, all
 *   matched by the per-group rule): 16-byte, lanes 0-15 in pairs (l/2),
 *   lanes 16-31 one element each (l, or l-16 overlapping the pairs'
 *   elements), or the reverse (lanes 0-15 distinct, 16-31 in pairs): 3
 *   wavefronts, not the 4 of 128-byte phases throughout (the earlier
 *   guess) nor the 2 of one paired group; with a 2-way conflict among the
 *   distinct lanes (lane 17 on lane 16's banks): 4 with 1 excessive.
 *   8-byte, the same patterns: 2 and 3 (1 excessive), as 16-lane phases
 *   give: the one 32-lane group is not paired, and the paired half is NOT
 *   served as a 256-byte phase of its own.  A pair with one active lane
 *   (lanes 0..16 or 0..14 of the pairs pattern) does not break pairing
 *   (8-byte: 1; 16-byte: 2 and 1).
 *
 *   Shared atomics (ATOMS) use phase_bytes like stores, and same-word
 *   lanes are served together (broadcast) like loads and stores: measured
 *   on the same H100 run (atom-w4-* probes: atomicAdd (int *, 1), which
 *   nvcc makes one ATOMS.POPC.INC.32), per instruction: lane l on word l:
 *   1; all lanes on one word: 1; pairs: 1;
 *   stride 2: 2 (1 excessive); 8 distinct words in one bank (stride 8, or
 *   stride 32 wrapped onto 8 rows, 4 lanes a word): 8 (7).  Nsight counts
 *   them in smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_atom
 *   and l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom (both on
 *   sm_90).  Not measured: ATOMS.ADD with a lane-varying value (the
 *   same rule is assumed), other atomic ops.  8-byte atomicAdd (unsigned
 *   long long) is not one instruction on sm_90: nvcc emits an LDS.64 +
 *   ATOMS.CAST.SPIN.64 retry loop, so its counts depend on contention
 *   (broadcast: about 157 ATOMS per warp) and the model, which costs the
 *   one atomic access the source makes, cannot match them; per
 *   ATOMS.CAST.SPIN.64 the H100 counted 4 wavefronts (a 16-byte access)
 *   and 0 excessive for lane l on element l, pairs and stride 2 alike,
 *   fewer where retries run with fewer lanes (broadcast 3.43, one bank
 *   column 3.86).  Not
 *   measured: 1- to 4-byte loads paired or not (one phase of 32 lanes
 *   either way on the H100).  Reproduce: `make validate` on a GPU (the
 *   gather-*, mixed-* and atom-* probes of gpu/validation-probes.txt), or
 *   one case, e.g.
 *     memsim trace smem_gather -p width=8 -p pattern=3 --gpu
 *   (pattern 3 = pairs: 1 wavefront per load; -p op=1, the store: 2;
 *   -p width=16 -p pattern=13, mixed: 3; -p width=4 -p pattern=1 -p op=2,
 *   the atomic broadcast: 1).
 *
 * - A lane touches every word that overlaps its bytes [offset, offset +
 *   width): an aligned 8-byte lane 2 words, 16-byte 4 words, 1- to 4-byte
 *   lanes 1 word.  (Misaligned lanes touch one word more; hardware faults on
 *   them, the model stays defined.)
 *
 * - One phase costs max over banks of the number of DISTINCT words its
 *   active lanes request in that bank: each wavefront serves one word per
 *   bank, and any number of lanes reading the same word are served by one
 *   (broadcast; this includes 1- and 2-byte accesses to bytes of one word
 *   and, on multi-word lanes, lanes sharing an 8/16-byte element).
 *   Wavefronts of an access = sum over its phases.  A phase with no active
 *   lane costs 0 (and is not issued).
 *
 * - Ideal wavefronts = the number of phases with at least one active lane;
 *   excessive wavefronts ("bank conflicts" in Nsight Compute) = wavefronts
 *   - ideal.  4-byte word stride s gives gcd(s, 32) wavefronts on H100.  (A
 *   paired phase requests at most 128 bytes of distinct data, so one
 *   wavefront is its ideal too: Nsight's excessive count agrees.)
 *
 * - Traffic from other warps (arbitration) is not modelled.
 *
 * - Not modelled: the compiler (vectorised or split loads are what the
 *   emulator records, not what nvcc emits); compute capability 1.x's rule
 *   that 8- and 16-bit accesses conflict (a cc 1.x preset gets half-warp
 *   phases for 4-byte accesses through phase_bytes = 64, and 32-lane
 *   phases for 1- and 2-byte ones).
 *
 * Implementation.  Hot path (banks_fast, power-of-two geometry, naturally
 * aligned lanes, i.e. everything the GPU accepts): a lane touches one
 * "unit" of max(width, bank_bytes) bytes, and the phase cost is the most
 * distinct units in one group of banks; a phase whose units span fewer
 * indices than there are groups costs 1 without counting, a monotone one
 * is counted in one vectorised pass.  Other phases (gathers, odd
 * geometries, misaligned lanes) go to phase_wavefronts: per bank the count
 * of distinct words, the smallest and largest word seen and a chain of the
 * distinct words; a word outside [smallest, largest] is new without any
 * search, equal to either is a broadcast, and only a word strictly in
 * between walks the bank's chain.  No allocation, no global state.
 * ms_banks_detail() is a separate, plain implementation (for diagrams);
 * the tests check both against a brute-force reference.
 */

#include "config.h"

#include "banks.h"

#include <string.h>

static inline guint
lanes_per_phase (const MsArch *arch, guint width, guint phase_bytes)
{
  guint ws = MIN ((guint) arch->warp_size, MS_WARP_SIZE);
  guint lpp;
  if (width == 0)
    lpp = ws;
  else if ((width & (width - 1)) == 0)
    lpp = phase_bytes >> __builtin_ctz (width);
  else
    lpp = phase_bytes / width;
  return CLAMP (lpp, 1u, ws);
}

/* Mask of lanes [first, first + n), n >= 1. */
static inline guint32
lane_range_mask (guint first, guint n)
{
  guint64 m = ((G_GUINT64_CONSTANT (1) << n) - 1) << first;
  return (guint32) m;
}

/* Bit 2k set where lanes 2k and 2k + 1 are both active in mask and read
 * different addresses. */
static inline guint32
unpaired_pairs (const MsWarpAccess *a, guint32 mask)
{
  guint32 diff = 0;
  for (guint k = 0; k < MS_WARP_SIZE / 2; k++)   /* vectorised */
    diff |= (guint32) (a->addr[2 * k] != a->addr[2 * k + 1]) << (2 * k);
  return diff & mask & (mask >> 1) & 0x55555555u;
}

/* How an access is split into phases (see "A warp access is split into
 * phases" above).  Not mixed: phases of lpp lanes (lpp is the paired
 * count when paired).  Mixed: the warp is in groups of plpp lanes; group
 * g is one phase of plpp lanes where bit g of paired_groups is set, else
 * phases of lpp lanes. */
typedef struct {
  guint lpp, plpp;
  guint32 paired_groups;
  gboolean paired;   /* some phase is a paired one */
  gboolean mixed;
} Split;

static inline void
split_of (const MsArch *arch, const MsWarpAccess *a, guint32 mask, Split *s)
{
  guint ws = MIN ((guint) arch->warp_size, MS_WARP_SIZE);
  guint pb = (guint) arch->phase_bytes;
  s->lpp = s->plpp = lanes_per_phase (arch, a->width, pb);
  s->paired_groups = 0;
  s->paired = s->mixed = FALSE;
  if (a->op != MS_OP_LD || arch->paired_load_phase_bytes <= 0
      || (guint) arch->paired_load_phase_bytes == pb)
    return;
  guint plpp = lanes_per_phase (arch, a->width, (guint) arch->paired_load_phase_bytes);
  if (plpp == s->lpp)
    return;
  guint32 diff = unpaired_pairs (a, mask);
  if (diff == 0)
    {
      s->lpp = s->plpp = plpp;   /* the whole warp is paired */
      s->paired = TRUE;
      return;
    }
  if (plpp < s->lpp)
    return;
  /* per group of plpp lanes: a group with active lanes and no unpaired
   * pair is paired (a group with no active lane is not: no phase of it is
   * issued, and it keeps the split of a warp that is not paired) */
  for (guint g = 0, first = 0; first < ws; g++, first += plpp)
    {
      guint32 gm = lane_range_mask (first, MIN (plpp, ws - first));
      if ((mask & gm) != 0 && (diff & gm) == 0)
        s->paired_groups |= 1u << g;
    }
  if (s->paired_groups != 0)
    {
      s->plpp = plpp;
      s->paired = s->mixed = TRUE;
    }
}

/* The phases of a split: phase p is lanes first[p] .. first[p] + len[p]
 * - 1.  Returns the number of phases (at most MS_WARP_SIZE). */
static guint
split_phases (const Split *s, guint ws, guint *first, guint *len)
{
  guint n = 0;
  if (!s->mixed)
    {
      for (guint f = 0; f < ws; f += s->lpp, n++)
        {
          first[n] = f;
          len[n] = MIN (s->lpp, ws - f);
        }
      return n;
    }
  for (guint g = 0, gf = 0; gf < ws; g++, gf += s->plpp)
    {
      guint gend = MIN (gf + s->plpp, ws);
      if (s->paired_groups & (1u << g))
        {
          first[n] = gf;
          len[n++] = gend - gf;
          continue;
        }
      for (guint f = gf; f < gend; f += s->lpp, n++)
        {
          first[n] = f;
          len[n] = MIN (s->lpp, gend - f);
        }
    }
  return n;
}

/* Precomputed arch numbers for the hot loop. */
typedef struct {
  guint64 bank_bytes;
  guint64 banks;
  int word_shift;    /* log2 bank_bytes or -1 */
  int bank_shift;    /* log2 banks or -1 */
} Geometry;

static inline guint64
word_of (const Geometry *g, guint64 offset)
{
  return g->word_shift >= 0 ? offset >> g->word_shift : offset / g->bank_bytes;
}

static inline guint
bank_of (const Geometry *g, guint64 word)
{
  return (guint) (g->bank_shift >= 0 ? (word & (g->banks - 1)) : word % g->banks);
}

/* Wavefronts of one phase: max over banks of distinct words.  pm != 0. */
static guint
phase_wavefronts (const Geometry *g, const MsWarpAccess *a, guint32 pm,
                  guint64 width)
{
  guint64 touched = 0;
  guint16 count[MS_BANKS_MAX_BANKS];
  guint64 wmin[MS_BANKS_MAX_BANKS], wmax[MS_BANKS_MAX_BANKS];
  guint16 head[MS_BANKS_MAX_BANKS];
  guint64 wl[MS_BANKS_MAX_WORDS];
  guint16 next[MS_BANKS_MAX_WORDS];
  guint n = 0, best = 1;

  for (guint32 m = pm; m != 0; m &= m - 1)
    {
      guint l = (guint) __builtin_ctz (m);
      guint64 lo = a->addr[l];
      guint64 w0 = word_of (g, lo);
      guint64 w1 = word_of (g, lo + width - 1);

      for (guint64 w = w0; w <= w1; w++)
        {
          guint b = bank_of (g, w);
          guint64 bit = G_GUINT64_CONSTANT (1) << b;

          if (!(touched & bit))
            {
              touched |= bit;
              count[b] = 1;
              wmin[b] = wmax[b] = w;
              head[b] = (guint16) n;
              wl[n] = w;
              next[n] = G_MAXUINT16;
              n++;
              continue;
            }
          if (w == wmax[b] || w == wmin[b])
            continue;                       /* broadcast */
          if (w > wmax[b])
            wmax[b] = w;
          else if (w < wmin[b])
            wmin[b] = w;
          else
            {
              guint16 i = head[b];
              while (i != G_MAXUINT16 && wl[i] != w)
                i = next[i];
              if (i != G_MAXUINT16)
                continue;                   /* broadcast */
            }
          wl[n] = w;
          next[n] = head[b];
          head[b] = (guint16) n;
          n++;
          if (++count[b] > best)
            best = count[b];
        }
    }
  return best;
}

typedef guint8 V16u8 __attribute__ ((vector_size (16)));

/* For units u[0..n-1] in monotone order (relative to base b32): the
 * most distinct units in one group (u + b32) & gmask, for at most 32
 * groups.  The per-group counters are 32 bytes in two vector registers:
 * each new unit adds 1 to its group's byte through a compare, so no
 * read-modify-write chain through memory when units keep hitting the same
 * group (conflicts).  GCC's generic vectors, plain SSE2 on x86-64. */
static inline guint
count_sorted_32 (const guint32 *u, guint n, guint32 b32, guint32 gmask)
{
  const V16u8 iota_lo = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 };
  const V16u8 iota_hi = iota_lo + 16;
  V16u8 c_lo = { 0 }, c_hi = { 0 };
  guint32 prev = u[0] + 1;

  for (guint l = 0; l < n; l++)
    {
      guint8 gr = (guint8) ((u[l] + b32) & gmask);
      gr = u[l] != prev ? gr : 0xFF;   /* a repeated unit counts nowhere */
      prev = u[l];
      V16u8 gv = (V16u8) { 0 } + gr;
      c_lo -= (V16u8) (iota_lo == gv);
      c_hi -= (V16u8) (iota_hi == gv);
    }
  guint8 c[32], best = 0;
  memcpy (c, &c_lo, 16);
  memcpy (c + 16, &c_hi, 16);
  for (guint i = 0; i < 32; i++)
    best = best > c[i] ? best : c[i];
  return best;
}

/* The same for up to 64 groups, with counters in memory. */
static guint
count_sorted_64 (const guint32 *u, guint n, guint32 b32, guint32 gmask)
{
  guint8 cnt[64];
  guint best = 1;

  memset (cnt, 0, sizeof cnt);
  cnt[(u[0] + b32) & gmask] = 1;
  for (guint l = 1; l < n; l++)
    if (u[l] != u[l - 1])
      {
        guint c = ++cnt[(u[l] + b32) & gmask];
        best = MAX (best, c);
      }
  return best;
}

/* For units u[0..n-1] in any order, all within 64 * groups of the least,
 * mn: the most distinct units in one group.  Units of one group differ by
 * a multiple of groups, so (u - mn) / groups (the unit's row) tells them
 * apart: a group's units are bits of one 64-bit row mask, and its count is
 * the mask's population (a register-tiled GEMM's tile reads, 16 lanes a
 * word, or a column of lanes stepping by 4 words then wrapping). */
static guint
count_rows (const guint32 *u, guint n, guint32 mn, guint32 b32, guint32 gmask, int gshift)
{
  guint64 rows[64], touched = 0;
  for (guint l = 0; l < n; l++)
    {
      guint gr = (u[l] + b32) & gmask;
      guint64 bit = G_GUINT64_CONSTANT (1) << gr, row = G_GUINT64_CONSTANT (1) << ((u[l] - mn) >> gshift);
      rows[gr] = (touched & bit) ? rows[gr] | row : row;
      touched |= bit;
    }
  guint best = 0;
  for (; touched; touched &= touched - 1)
    {
      /* the population of the group's rows (SWAR: no popcnt in plain x86-64) */
      guint64 x = rows[__builtin_ctzll (touched)];
      x -= (x >> 1) & G_GUINT64_CONSTANT (0x5555555555555555);
      x = (x & G_GUINT64_CONSTANT (0x3333333333333333))
          + ((x >> 2) & G_GUINT64_CONSTANT (0x3333333333333333));
      x = (x + (x >> 4)) & G_GUINT64_CONSTANT (0x0f0f0f0f0f0f0f0f);
      best = MAX (best, (guint) ((x * G_GUINT64_CONSTANT (0x0101010101010101)) >> 56));
    }
  return best;
}

/* Over units u[0..n-1] (32-bit offsets within +-2^30 of each other): the
 * OR of the steps u[l] - u[l-1] (sign bit set: some step goes down) and of
 * their negations (sign bit set: some step goes up). */
static inline __attribute__ ((always_inline)) void
phase_scan (const guint32 *u, guint n, guint32 *down, guint32 *up)
{
  guint32 dn = 0, upw = 0;
  for (guint l = 1; l < n; l++)
    {
      guint32 d = u[l] - u[l - 1];
      dn |= d;
      upw |= -d;
    }
  *down = dn;
  *up = upw;
}

typedef guint32 V4u32 __attribute__ ((vector_size (16)));

/* phase_scan of a whole warp's 32 units, four steps at a time (GCC's
 * generic vectors: the scalar loop above is not vectorised at -O2, and was
 * 40% of ms_banks_cost).  u[32] must equal u[31] (a step of 0). */
static inline __attribute__ ((always_inline)) void
phase_scan_32 (const guint32 *u, guint32 *down, guint32 *up)
{
  V4u32 dn = { 0 }, upw = { 0 };
  for (guint l = 1; l < 33; l += 4)
    {
      V4u32 a, b;
      memcpy (&a, u + l, sizeof a);
      memcpy (&b, u + l - 1, sizeof b);
      V4u32 d = a - b;
      dn |= d;
      upw |= -d;
    }
  *down = dn[0] | dn[1] | dn[2] | dn[3];
  *up = upw[0] | upw[1] | upw[2] | upw[3];
}

/* The hot path: power-of-two banks, bank_bytes and width, every active
 * lane naturally aligned (addr % width == 0: what the GPU requires).
 *
 * Then a lane touches exactly one "unit" of U = max(width, bank_bytes)
 * bytes, u = offset / U, and two lanes touch either the same words (same
 * unit: broadcast) or disjoint ones.  A unit covers U / bank_bytes
 * consecutive banks starting at a multiple of that, so the banks fall into
 * G = banks * bank_bytes / U groups, unit u in group u mod G, and the
 * distinct words of a bank = the distinct units of its group.  Per phase:
 *   - units spanning fewer than G consecutive indices are all in different
 *     groups: 1 wavefront (unit stride, float2/float4, bytes, broadcast);
 *   - units in non-decreasing (or non-increasing) lane order: distinct
 *     units are those unlike the previous lane's, counted per group
 *     (strides, transposes);
 *   - otherwise the phase goes to phase_wavefronts().
 * A partial warp's phases list their active lanes' units only, in lane
 * order (an inactive lane would add nothing: no unit, no step).  Returns
 * FALSE when the conditions do not hold (nothing written). */
static gboolean
banks_fast (const Geometry *g, const MsWarpAccess *a, guint32 mask,
            guint width, guint lpp, guint phases, guint ws,
            guint *wavefronts_out, guint *ideal_out)
{
  guint ub = MAX (width, (guint) g->bank_bytes);
  int ushift = __builtin_ctz (ub);
  guint64 groups = (g->banks * g->bank_bytes) >> ushift;
  guint64 base, chk = 0;
  guint32 u[MS_WARP_SIZE + 1];   /* u[32]: phase_scan_32 */
  guint len[MS_WARP_SIZE];       /* phase p's units: u[p * lpp ..] */

  if (g->word_shift < 0 || g->bank_shift < 0 || (width & (width - 1)) != 0
      || groups == 0 || groups > 64)
    return FALSE;

  if (mask == 0xFFFFFFFFu)
    {
      base = a->addr[0] >> ushift;
      for (guint l = 0; l < MS_WARP_SIZE; l++)   /* vectorised */
        {
          guint64 v = a->addr[l];
          chk |= (v & (width - 1)) | (((v >> ushift) - base + 0x40000000u) >> 31);
          u[l] = (guint32) ((v >> ushift) - base);
        }
      for (guint p = 0; p < phases; p++)
        len[p] = MIN (lpp, ws - p * lpp);
    }
  else
    {
      /* only the active lanes' units, in lane order: an inactive lane's
       * copy of its neighbour's unit would count nowhere (a repeat) */
      base = a->addr[__builtin_ctz (mask)] >> ushift;
      for (guint p = 0; p < phases; p++)
        {
          guint first = p * lpp, k = first;
          for (guint32 pm = mask & lane_range_mask (first, MIN (lpp, ws - first)); pm;
               pm &= pm - 1)
            {
              guint64 v = a->addr[__builtin_ctz (pm)];
              chk |= (v & (width - 1)) | (((v >> ushift) - base + 0x40000000u) >> 31);
              u[k++] = (guint32) ((v >> ushift) - base);
            }
          len[p] = k - first;
        }
    }
  if (chk != 0)
    return FALSE;

  guint32 gmask = (guint32) groups - 1, b32 = (guint32) base;
  guint wavefronts = 0, ideal = 0;
  for (guint p = 0; p < phases; p++)
    {
      guint first = p * lpp, n = len[p], end = first + n;
      if (n == 0)
        continue;
      guint32 pm = mask & lane_range_mask (first, MIN (lpp, ws - first));
      ideal++;

      guint32 down, up, span, mn;
      switch (n)                 /* a whole warp: the vector scan */
        {
        case 32: u[32] = u[31]; phase_scan_32 (u, &down, &up); break;
        case 16: phase_scan (u + first, 16, &down, &up); break;
        case 8: phase_scan (u + first, 8, &down, &up); break;
        default: phase_scan (u + first, n, &down, &up); break;
        }
      if ((down >> 31) == 0)
        span = u[end - 1] - (mn = u[first]);
      else if ((up >> 31) == 0)
        span = u[first] - (mn = u[end - 1]);
      else
        {
          gint32 lo = (gint32) u[first], hi = lo;
          for (guint l = first + 1; l < end; l++)
            {
              lo = MIN (lo, (gint32) u[l]);
              hi = MAX (hi, (gint32) u[l]);
            }
          span = (guint32) (hi - lo);
          mn = (guint32) lo;
        }
      if (span < (guint32) groups)
        {
          wavefronts += 1;
          continue;
        }
      if (((down & up) >> 31) == 0)   /* monotone: either direction */
        {
          wavefronts += groups <= 32
                        ? count_sorted_32 (u + first, end - first, b32, gmask)
                        : count_sorted_64 (u + first, end - first, b32, gmask);
          continue;
        }
      if (span < 64 * (guint32) groups)
        {
          wavefronts += count_rows (u + first, n, mn, b32, gmask, __builtin_ctzll (groups));
          continue;
        }
      wavefronts += phase_wavefronts (g, a, pm, width);
    }
  *wavefronts_out = wavefronts;
  *ideal_out = ideal;
  return TRUE;
}

void
ms_banks_cost (const MsArch *arch, const MsWarpAccess *a, MsSharedCost *cost)
{
  guint32 mask = ms_warp_lanes (a->mask, arch->warp_size);
  guint width = a->width;
  guint ws = MIN ((guint) arch->warp_size, MS_WARP_SIZE);
  Geometry g;

  if (mask == 0 || width == 0)
    {
      memset (cost, 0, sizeof *cost);
      return;
    }
  /* Only an arch failing ms_banks_arch_check() fails this; it would
   * overflow phase_wavefronts()'s arrays. */
  if (G_UNLIKELY (width > (MS_BANKS_MAX_LANE_WORDS - 1) * (guint) arch->bank_bytes
                  || (guint) arch->banks - 1 >= MS_BANKS_MAX_BANKS))
    {
      memset (cost, 0, sizeof *cost);
      g_return_if_reached ();
    }

  g.bank_bytes = (guint64) arch->bank_bytes;
  g.banks = (guint64) arch->banks;
  g.word_shift = ms_exact_log2 (g.bank_bytes);
  g.bank_shift = ms_exact_log2 (g.banks);

  Split sp;
  split_of (arch, a, mask, &sp);
  guint lpp = sp.lpp;
  guint phases = lpp == ws ? 1 : (ws + lpp - 1) / lpp;
  guint wavefronts = 0, ideal = 0;

  if (G_UNLIKELY (sp.mixed))
    {
      /* some groups paired, others not: rare, no fast path */
      guint first[MS_WARP_SIZE], len[MS_WARP_SIZE];
      phases = split_phases (&sp, ws, first, len);
      for (guint p = 0; p < phases; p++)
        {
          guint32 pm = mask & lane_range_mask (first[p], len[p]);
          if (pm == 0)
            continue;
          ideal++;
          wavefronts += phase_wavefronts (&g, a, pm, width);
        }
    }
  else if (!banks_fast (&g, a, mask, width, lpp, phases, ws, &wavefronts, &ideal))
    {
      for (guint p = 0; p < phases; p++)
        {
          guint first = p * lpp;
          guint32 pm = mask & lane_range_mask (first, MIN (lpp, ws - first));
          if (pm == 0)
            continue;
          ideal++;
          wavefronts += phase_wavefronts (&g, a, pm, width);
        }
    }
  cost->wavefronts = wavefronts;
  cost->ideal = ideal;
  cost->excessive = wavefronts - ideal;
  cost->phases = phases;
}

void
ms_shared_cost_add (MsSharedCost *sum, const MsSharedCost *b)
{
  sum->wavefronts += b->wavefronts;
  sum->ideal += b->ideal;
  sum->excessive += b->excessive;
  sum->phases += b->phases;
}

/* ---- detail: simple loops, for diagrams ---- */

static gboolean
word_before (const MsBankWord *x, const MsBankWord *y)
{
  return x->bank < y->bank || (x->bank == y->bank && x->word < y->word);
}

static guint
find_word (const MsBankDetail *d, guint first, guint end, guint64 w)
{
  for (guint i = first; i < end; i++)
    if (d->words[i].word == w)
      return i;
  return end;
}

void
ms_banks_detail (const MsArch *arch, const MsWarpAccess *a,
                 MsBankDetail *d)
{
  guint32 mask = ms_warp_lanes (a->mask, arch->warp_size);
  guint width = a->width;
  guint ws = MIN ((guint) arch->warp_size, MS_WARP_SIZE);
  Geometry g;

  memset (d, 0, sizeof *d);
  g.bank_bytes = (guint64) arch->bank_bytes;
  g.banks = (guint64) arch->banks;
  g.word_shift = ms_exact_log2 (g.bank_bytes);
  g.bank_shift = ms_exact_log2 (g.banks);
  d->banks = (guint) arch->banks;
  d->bank_bytes = (guint) arch->bank_bytes;
  d->width = width;
  d->lanes_per_phase = lanes_per_phase (arch, width, (guint) arch->phase_bytes);
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    d->lane[l].phase = -1;
  if (mask == 0 || width == 0)
    return;
  /* Only an arch failing ms_banks_arch_check() fails this. */
  g_return_if_fail ((guint) arch->banks - 1 < MS_BANKS_MAX_BANKS
                    && arch->bank_bytes >= 1 && arch->phase_bytes >= 1);
  Split sp;
  split_of (arch, a, mask, &sp);
  d->lanes_per_phase = sp.lpp;
  d->paired = sp.paired;

  guint first[MS_WARP_SIZE], len[MS_WARP_SIZE];
  guint phases = split_phases (&sp, ws, first, len);
  d->cost.phases = phases;

  for (guint p = 0; p < phases; p++)
    {
      MsBankPhase *ph = &d->phase[p];
      ph->first_lane = first[p];
      ph->n_lanes = len[p];
      ph->active = mask & lane_range_mask (ph->first_lane, ph->n_lanes);
      ph->first_word = d->n_words;

      /* The lanes' words, and the phase's distinct words. */
      for (guint l = ph->first_lane; l < ph->first_lane + ph->n_lanes; l++)
        {
          MsBankLane *ln = &d->lane[l];
          if (!(ph->active & (1u << l)))
            continue;
          guint64 w0 = word_of (&g, a->addr[l]);
          guint64 w1 = word_of (&g, a->addr[l] + width - 1);
          ln->phase = (gint8) p;
          for (guint64 w = w0; w <= w1 && ln->n_words < MS_BANKS_MAX_LANE_WORDS; w++)
            {
              guint k = ln->n_words++;
              ln->word[k] = w;
              ln->bank[k] = (guint8) bank_of (&g, w);
              guint i = find_word (d, ph->first_word, d->n_words, w);
              if (i == d->n_words)
                {
                  MsBankWord *e = &d->words[d->n_words++];
                  e->word = w;
                  e->phase = (guint8) p;
                  e->bank = ln->bank[k];
                  e->lanes = 0;
                }
              d->words[i].lanes++;
            }
        }
      ph->n_words = d->n_words - ph->first_word;

      /* Sort them by bank, then word; rank them within their bank. */
      MsBankWord *pw = &d->words[ph->first_word];
      for (guint i = 1; i < ph->n_words; i++)
        {
          MsBankWord v = pw[i];
          guint j = i;
          while (j > 0 && word_before (&v, &pw[j - 1]))
            {
              pw[j] = pw[j - 1];
              j--;
            }
          pw[j] = v;
        }
      for (guint i = 0; i < ph->n_words; i++)
        {
          guint b = pw[i].bank;
          if (ph->bank_words[b] == 0)
            ph->bank_first[b] = (guint16) (ph->first_word + i);
          pw[i].rank = ph->bank_words[b]++;
          ph->wavefronts = MAX (ph->wavefronts, ph->bank_words[b]);
        }

      /* Back to the lanes: where each word ended up. */
      for (guint l = ph->first_lane; l < ph->first_lane + ph->n_lanes; l++)
        {
          MsBankLane *ln = &d->lane[l];
          for (guint k = 0; k < ln->n_words; k++)
            {
              guint i = find_word (d, ph->first_word, d->n_words, ln->word[k]);
              ln->entry[k] = (guint16) i;
              ln->wave[k] = d->words[i].rank;
              ln->broadcast[k] = d->words[i].lanes > 1;
              ln->degree = MAX (ln->degree, ph->bank_words[ln->bank[k]]);
            }
        }

      if (ph->active != 0)
        {
          d->cost.ideal++;
          d->cost.wavefronts += ph->wavefronts;
        }
    }
  d->cost.excessive = d->cost.wavefronts - d->cost.ideal;
}

gboolean
ms_banks_arch_check (const MsArch *arch, GError **error)
{
  const char *name = arch->name != NULL ? arch->name : "(unnamed)";

  if (arch->banks < 1 || arch->banks > MS_BANKS_MAX_BANKS)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: banks %d is not in 1..%d",
                   name, arch->banks, MS_BANKS_MAX_BANKS);
      return FALSE;
    }
  /* A misaligned 16-byte lane spans (16 - 1) / bank_bytes + 2 words. */
  if (arch->bank_bytes < 1
      || (16 - 1) / arch->bank_bytes + 2 > MS_BANKS_MAX_LANE_WORDS)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: bank_bytes %d is not supported (use 4 or 8)",
                   name, arch->bank_bytes);
      return FALSE;
    }
  if (arch->phase_bytes < 1)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: phase_bytes %d must be positive",
                   name, arch->phase_bytes);
      return FALSE;
    }
  if (arch->paired_load_phase_bytes < 0)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: paired_load_phase_bytes %d must be positive (or 0: the "
                   "same as phase_bytes)", name, arch->paired_load_phase_bytes);
      return FALSE;
    }
  return TRUE;
}

/* ---- the model (model.h) ---- */

static const MsCounterDef banks_counters[] = {
  { "wavefronts", MS_SLOT_WAVEFRONTS,
    "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" },
  { "ideal", MS_SLOT_IDEAL, NULL },
  { "excessive", MS_SLOT_EXCESSIVE, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_%s.sum" },
  { NULL },
};

/* The model's memo: a site's last accesses and their costs.  A site
 * repeats its pattern of lanes from warp to warp, block to block and loop
 * step to loop step, only shifted (a reduction's sdata[tid + s], a tile's
 * row k); the cost is the same for any shift by whole bank words, which
 * relabels the banks in a cycle and keeps every word distinct or equal as
 * it was (the rule, above: the distinct words of each bank, phases by lane
 * number, pairs by equal addresses).  So an access whose site, op, width,
 * lanes, lanes' offsets from its first lane and first lane's byte within
 * its word equal an entry's costs what the entry cost: tens of
 * instructions against the hundreds of ms_banks_cost (callgrind: 20% of
 * gemm_regtile's instructions).  Eight entries a site, by its lanes (a
 * reduction's site runs with 32, 16, 8 ... lanes in turn).  Per thread
 * (the workers run this model in parallel); a new geometry clears it. */
#define MEMO_ENTRIES 512
/* Only lanes below 2^48 are memoised: a lane near 2^64 (a malformed
 * trace) whose words wrap around is not the shifted copy of one that does
 * not wrap; shared offsets are below a megabyte. */
#define MEMO_ADDRESS_BITS 48

typedef struct {
  const MsSite *site;             /* NULL: empty */
  guint32 mask;
  guint8 width, op;
  guint16 sub;                    /* the first lane's byte within its word */
  gboolean strided;               /* a whole warp, rel[l] = l * rel[1] */
  gboolean distinct;              /* its lanes' banks are a permutation
                                     (distinct_banks) */
  MsSharedCost cost;
  guint64 rel[MS_WARP_SIZE];      /* active lane's address - the first's */
} BankMemo;

typedef struct {
  int geometry[5];                /* banks, bank_bytes, phase_bytes,
                                     paired_load_phase_bytes, warp_size */
  BankMemo e[MEMO_ENTRIES];
  /* distinct_banks_cost: the cost of a whole warp whose lanes each touch
   * one word of their own bank, by log2 of the width and op (known: set) */
  MsSharedCost distinct[5][4];
  gboolean distinct_known[5][4];
} BankMemoTable;

/* the thread's table: owned by the GPrivate (freed when the thread ends),
 * read through the thread-local pointer (a GPrivate read is a call) */
static GPrivate bank_memo = G_PRIVATE_INIT (g_free);
static __thread BankMemoTable *bank_memo_table;

/* The table for arch's geometry (cleared when it changes). */
static BankMemoTable *
memo_table (const MsArch *arch)
{
  BankMemoTable *t = bank_memo_table;
  /* field by field: an array of the five built on the stack and compared
   * stalled the host on its loads (perf: a tenth of the model's samples) */
  if (G_LIKELY (t != NULL) && t->geometry[0] == arch->banks
      && t->geometry[1] == arch->bank_bytes && t->geometry[2] == arch->phase_bytes
      && t->geometry[3] == arch->paired_load_phase_bytes && t->geometry[4] == arch->warp_size)
    return t;
  if (t == NULL)
    {
      t = g_new0 (BankMemoTable, 1);
      g_private_set (&bank_memo, t);
      bank_memo_table = t;
    }
  else
    memset (t, 0, sizeof *t);
  int geometry[5] = { arch->banks, arch->bank_bytes, arch->phase_bytes,
                      arch->paired_load_phase_bytes, arch->warp_size };
  memcpy (t->geometry, geometry, sizeof geometry);
  return t;
}

/* Keeps a's cost in e (a memo miss: out of line, so that the hit path
 * stays small enough to inline). */
static G_NO_INLINE void
memo_store (BankMemo *e, const MsWarpAccess *a, guint32 mask, guint64 a0, guint16 sub,
            const MsSharedCost *cost, gboolean distinct)
{
  guint64 high = 0;
  if (mask == 0xffffffffu)
    {
      /* a whole warp in straight loops, which gcc vectorises (the lane
       * walk was a third of the memo's cost where patterns do not repeat:
       * transpose_swizzled's 32 rows, callgrind) */
      guint64 rel[MS_WARP_SIZE], off = 0;
      for (guint l = 0; l < MS_WARP_SIZE; l++)
        {
          high |= a->addr[l];
          rel[l] = a->addr[l] - a0;
          off |= rel[l] ^ l * (a->addr[1] - a0);
        }
      if (high >> MEMO_ADDRESS_BITS != 0)
        return;
      memcpy (e->rel, rel, sizeof rel);
      e->strided = off == 0;
    }
  else
    {
      for (guint32 m = mask; m; m &= m - 1)
        high |= a->addr[__builtin_ctz (m)];
      if (high >> MEMO_ADDRESS_BITS != 0)
        return;
      for (guint32 m = mask; m; m &= m - 1)
        {
          guint l = (guint) __builtin_ctz (m);
          e->rel[l] = a->addr[l] - a0;
        }
      e->strided = FALSE;
    }
  e->site = a->site;
  e->mask = mask;
  e->width = a->width;
  e->op = a->op;
  e->sub = sub;
  e->distinct = distinct;
  e->cost = *cost;
}

/* Whether a whole warp's 32 lanes each touch one word (aligned, no wider
 * than a bank word) and no two lanes the same bank: a permutation of the
 * banks, as an XOR-swizzled tile's rows and columns are
 * (transpose_swizzled's tile[y][x ^ y]).  Every phase then has one word
 * per bank, so the access costs what 32 consecutive words cost, whatever
 * its order: one wavefront a phase, no excessive.  Such patterns rarely
 * repeat (32 row and 32 column orders), so the memo missed on every one of
 * transpose_swizzled's shared accesses and paid ms_banks_cost and a store:
 * about 1,300 instructions against this loop's 200 (callgrind). */
static gboolean
distinct_banks (const MsArch *arch, const MsWarpAccess *a)
{
  guint width = a->width;
  if (a->mask != 0xffffffffu || arch->banks != MS_WARP_SIZE || arch->warp_size != MS_WARP_SIZE
      || width == 0 || (width & (width - 1)) != 0 || width > (guint) arch->bank_bytes)
    return FALSE;
  int shift = __builtin_ctz ((guint) arch->bank_bytes);
  guint32 banks = 0;
  guint64 low = 0;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    {
      banks |= 1u << ((a->addr[l] >> shift) & (MS_WARP_SIZE - 1));
      low |= a->addr[l];
    }
  return banks == 0xffffffffu && (low & (width - 1)) == 0;
}

/* The cost distinct_banks() stands for: ms_banks_cost of 32 lanes one
 * bank word apart, with a's width and op (paired loads included: no two
 * lanes share an address in either), kept per thread's table. */
static void
distinct_banks_cost (BankMemoTable *t, const MsArch *arch, const MsWarpAccess *a,
                     MsSharedCost *cost)
{
  guint w = (guint) __builtin_ctz (a->width), op = a->op;
  gboolean keep = w < G_N_ELEMENTS (t->distinct) && op < G_N_ELEMENTS (t->distinct[0]);
  if (G_LIKELY (keep && t->distinct_known[w][op]))
    {
      *cost = t->distinct[w][op];
      return;
    }
  MsWarpAccess row = *a;
  row.mask = 0xffffffffu;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    row.addr[l] = (guint64) l * (guint64) arch->bank_bytes;
  ms_banks_cost (arch, &row, cost);
  if (keep)
    {
      t->distinct[w][op] = *cost;
      t->distinct_known[w][op] = TRUE;
    }
}

/* ms_banks_cost through the memo: the same cost, found again when a's
 * site repeats an earlier access's pattern at a whole-word shift. */
static void
banks_cost_memo (const MsArch *arch, const MsWarpAccess *a, MsSharedCost *cost)
{
  guint32 mask = a->mask;
  guint bb = (guint) arch->bank_bytes;
  if (mask == 0 || a->site == NULL || a->site->id < 0 || (bb & (bb - 1)) != 0)
    {
      ms_banks_cost (arch, a, cost);
      return;
    }
  BankMemoTable *t = memo_table (arch);
  /* the lanes' slot of 8: the highest lane's bits, the spacing of the
   * lowest two lanes and the lowest lane, distinct for the masks of a
   * halving reduction, contiguous (32, 16, 8 ... lanes from lane 0) or
   * interleaved (every 2nd, 4th ... lane: callgrind, reduce_interleaved
   * 2^18: the memo missed on 10% of its accesses, its five masks in one
   * slot) */
  guint32 rest = mask & (mask - 1);
  guint gap = rest != 0 ? (guint) (__builtin_ctz (rest) - __builtin_ctz (mask)) : 1;
  guint64 a0 = a->addr[__builtin_ctz (mask)], d = 0;
  /* A whole warp: slots 5, 6 and 7 by the lanes' spacing, so that a
   * reduction whose stride doubles over the same whole warps
   * (reduce_nondivergent's index = 2 * s * tid: 8, 16 and 32 bytes) does
   * not evict its own patterns (callgrind, 2^18: 9,233 misses, 20% of its
   * accesses, in one slot). */
  guint lanes = mask == 0xffffffffu
                ? 5 + (guint) __builtin_ctzll ((a->addr[1] - a0) | 1024) % 3
                : (guint) __builtin_ctz (32u - (guint) __builtin_clz (mask))
                  + (guint) __builtin_ctz (gap) + (guint) __builtin_ctz (mask);
  BankMemo *e = &t->e[((guint) a->site->id * 8 + lanes % 8) % MEMO_ENTRIES];
  guint16 sub = (guint16) (a0 & (bb - 1));
  /* the producer's word that the lanes are one stride apart (access.h) */
  gboolean strided = mask == 0xffffffffu && ms_access_strided (a, &d);
  if (e->site == a->site && e->mask == mask && e->width == a->width && e->op == a->op
      && e->sub == sub)
    {
      guint64 differ = 0, high = 0;
      if (strided && e->strided)
        {
          /* lanes 0, 1 and 31 below 2^48: every lane is, unwrapped */
          differ = d ^ e->rel[1];
          high = a0 | (a0 + d) | (a0 + (MS_WARP_SIZE - 1) * d);
        }
      else if (mask == 0xffffffffu)
        for (guint l = 0; l < MS_WARP_SIZE; l++)   /* vectorised */
          {
            differ |= (a->addr[l] - a0) ^ e->rel[l];
            high |= a->addr[l];
          }
      else
        for (guint32 m = mask; m; m &= m - 1)
          {
            guint l = (guint) __builtin_ctz (m);
            differ |= (a->addr[l] - a0) ^ e->rel[l];
            high |= a->addr[l];
          }
      if (differ == 0 && high >> MEMO_ADDRESS_BITS == 0)
        {
          *cost = e->cost;
          return;
        }
    }
  if (!strided && distinct_banks (arch, a))
    {
      /* (a strided whole warp, said so by its producer, is memoised as
       * before: a row repeats, found again for tens of instructions)
       * kept when the entry holds no permutation of this site yet (a
       * replayed row, with no stride word, repeats too); a site's later
       * permutations (a swizzled tile's 32 orders) are not kept, each
       * costs the test again, not the store */
      distinct_banks_cost (t, arch, a, cost);
      if (e->site != a->site || !e->distinct)
        memo_store (e, a, mask, a0, sub, cost, TRUE);
      return;
    }
  ms_banks_cost (arch, a, cost);
  memo_store (e, a, mask, a0, sub, cost, FALSE);
}

static void
banks_model_cost (const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  MsSharedCost s;
  banks_cost_memo (arch, a, &s);
  v[MS_SLOT_WAVEFRONTS] += s.wavefronts;
  v[MS_SLOT_IDEAL] += s.ideal;
  v[MS_SLOT_EXCESSIVE] += s.excessive;
}

const MsModel ms_model_banks = {
  .name = "banks",
  .summary = "shared memory: wavefronts and bank conflicts per warp access",
  .space = MS_SPACE_SHARED,
  .counters = banks_counters,
  .arch_check = ms_banks_arch_check,
  .cost = banks_model_cost,
};
