/* test-banks.c - the shared memory bank model (sim/models/banks.c).
 *
 * Every expected number below is derived by hand from the rule (BRIEF
 * section 4, and the H100 measurements of docs/validation.md), for H100
 * unless said otherwise: word = offset / 4, bank = word mod 32; a W-byte
 * access is split into phases of 128 / W lanes (one phase of 32 lanes for
 * W <= 4), except a "paired" load, one in which every pair of lanes (2k,
 * 2k+1) that are both active reads one address: phases of 256 / W lanes
 * (8-byte: one phase of 32, 16-byte: two of 16); a phase costs max over
 * banks of the DISTINCT words requested in that bank; ideal = phases with
 * an active lane; excessive = wavefronts - ideal.  The arithmetic is in the
 * comments.  test_measured_h100 replays every smem_gather probe the H100
 * measured.  A randomized test compares the fast implementation and the
 * detail function with a brute-force reference on thousands of accesses.
 */

#include <string.h>

#include <glib.h>

#include "arch.h"
#include "banks.h"
#include "model.h"
#include "stats.h"
#include "stream.h"

#define FULL 0xFFFFFFFFu

/* The H100 numbers, filled by hand so that this test does not depend on
 * sim/arch/arch.c. */
static void
arch_h100 (MsArch *arch)
{
  memset (arch, 0, sizeof *arch);
  arch->name = (char *) "h100";
  arch->description = (char *) "test H100";
  arch->compute_capability = 90;
  arch->warp_size = 32;
  arch->sector_bytes = 32;
  arch->line_bytes = 128;
  arch->banks = 32;
  arch->bank_bytes = 4;
  arch->phase_bytes = 128;
  arch->paired_load_phase_bytes = 256;
}

/* A compute capability 1.x style arch: 16 banks of 4 bytes, 64 bytes a
 * phase, so 4-byte accesses go by half-warps. */
static void
arch_cc1x (MsArch *arch)
{
  arch_h100 (arch);
  arch->name = (char *) "cc1x";
  arch->compute_capability = 13;
  arch->banks = 16;
  arch->phase_bytes = 64;
  arch->paired_load_phase_bytes = 0;   /* loads like every access */
}

/* Kepler's 64-bit bank mode: 32 banks of 8 bytes, 256 bytes a phase. */
static void
arch_kepler64 (MsArch *arch)
{
  arch_h100 (arch);
  arch->name = (char *) "kepler64";
  arch->compute_capability = 35;
  arch->bank_bytes = 8;
  arch->phase_bytes = 256;
  arch->paired_load_phase_bytes = 0;   /* loads like every access */
}

/* lane l at base + l * stride_bytes */
static void
make_strided (MsWarpAccess *a, guint width, guint32 mask, guint64 base,
              gint64 stride_bytes)
{
  memset (a, 0, sizeof *a);
  a->space = MS_SPACE_SHARED;
  a->op = MS_OP_LD;
  a->width = (guint8) width;
  a->mask = mask;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    a->addr[l] = (guint64) ((gint64) base + (gint64) l * stride_bytes);
}

static void
check_arch (const MsArch *arch, const MsWarpAccess *a, guint wavefronts,
            guint ideal, guint phases)
{
  MsSharedCost c;
  memset (&c, 0xAB, sizeof c);   /* the function must overwrite all */
  ms_banks_cost (arch, a, &c);
  g_assert_cmpuint (c.wavefronts, ==, wavefronts);
  g_assert_cmpuint (c.ideal, ==, ideal);
  g_assert_cmpuint (c.excessive, ==, wavefronts - ideal);
  g_assert_cmpuint (c.phases, ==, phases);

  /* The detail agrees. */
  MsBankDetail *d = g_new (MsBankDetail, 1);
  ms_banks_detail (arch, a, d);
  g_assert_cmpmem (&d->cost, sizeof d->cost, &c, sizeof c);
  g_free (d);
}

static void
check (const MsWarpAccess *a, guint wavefronts, guint ideal, guint phases)
{
  MsArch arch;
  arch_h100 (&arch);
  check_arch (&arch, a, wavefronts, ideal, phases);
}

/* 4-byte word stride s: lane l reads word s*l, bank (s*l) mod 32.  The
 * banks hit are the multiples of g = gcd(s, 32), each by g lanes with
 * distinct words (s*l differ), so wavefronts = gcd(s, 32). */
static void
test_word_strides (void)
{
  static const struct { guint s, gcd; } cases[] = {
    { 1, 1 }, { 2, 2 }, { 3, 1 }, { 4, 4 }, { 5, 1 }, { 6, 2 }, { 8, 8 },
    { 16, 16 }, { 31, 1 }, { 32, 32 }, { 33, 1 }, { 34, 2 }, { 48, 16 },
    { 64, 32 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      MsWarpAccess a;
      make_strided (&a, 4, FULL, 0, 4 * (gint64) cases[i].s);
      check (&a, cases[i].gcd, 1, 1);
      /* the same from a base that is not bank 0 (word 7) */
      make_strided (&a, 4, FULL, 28, 4 * (gint64) cases[i].s);
      check (&a, cases[i].gcd, 1, 1);
    }
}

static void
test_broadcast (void)
{
  MsWarpAccess a;
  /* all lanes one word: 1 wavefront */
  make_strided (&a, 4, FULL, 4 * 77, 0);
  check (&a, 1, 1, 1);

  /* lanes 0..15 word 0, lanes 16..31 word 1: two words in two banks: 1 */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = l < 16 ? 0 : 4;
  check (&a, 1, 1, 1);
}

static void
test_two_words_one_bank (void)
{
  MsWarpAccess a;
  /* lane 1 reads word 32 (bank 0), every other lane word 0 (bank 0): bank
   * 0 has 2 distinct words: 2 wavefronts, 1 excessive */
  make_strided (&a, 4, FULL, 0, 0);
  a.addr[1] = 4 * 32;
  check (&a, 2, 1, 1);

  /* lanes at words l, except lane 5 at word 37 (bank 5, like lane 5's
   * own word 5, which nobody reads now): bank 5 has only word 37: 1 */
  make_strided (&a, 4, FULL, 0, 4);
  a.addr[5] = 4 * 37;
  check (&a, 1, 1, 1);

  /* lane 6 at word 37 too: a broadcast of word 37, bank 5 still has one
   * word (and bank 6 none): 1 */
  a.addr[6] = 4 * 37;
  check (&a, 1, 1, 1);

  /* lane 6 at word 69 instead: bank 5 gets words 37 and 69: 2 */
  a.addr[6] = 4 * 69;
  check (&a, 2, 1, 1);
}

static void
test_bytes (void)
{
  MsWarpAccess a;
  /* 1-byte lanes at l: lanes 4k..4k+3 share word k; words 0..7 in banks
   * 0..7, one word each: 1 wavefront */
  make_strided (&a, 1, FULL, 0, 1);
  check (&a, 1, 1, 1);

  /* 1-byte lanes at 4l: word l: 1 */
  make_strided (&a, 1, FULL, 0, 4);
  check (&a, 1, 1, 1);

  /* 1-byte lanes at 128l: word 32l, all bank 0, 32 distinct words: 32 */
  make_strided (&a, 1, FULL, 0, 128);
  check (&a, 32, 1, 1);

  /* 1-byte lanes at 3 + 2l: bytes 3, 5, .., 65 in words 0..16, 17 words
   * in banks 0..16: 1 */
  make_strided (&a, 1, FULL, 3, 2);
  check (&a, 1, 1, 1);

  /* 2-byte lanes at 2l: word l/2: 1 */
  make_strided (&a, 2, FULL, 0, 2);
  check (&a, 1, 1, 1);

  /* 2-byte lanes at 4*2*l (word 2l): banks 2l mod 32, 2 words each: 2 */
  make_strided (&a, 2, FULL, 0, 8);
  check (&a, 2, 1, 1);
}

static void
test_float2 (void)
{
  MsWarpAccess a;
  /* 8-byte lanes at 8l: 2 phases of 16 lanes.  Phase 0: lanes 0..15 read
   * words 2l, 2l+1 = words 0..31, one per bank: 1.  Phase 1: words
   * 32..63: 1.  Total 2, ideal 2, excessive 0. */
  make_strided (&a, 8, FULL, 0, 8);
  check (&a, 2, 2, 2);
}

static void
test_float2_stride2 (void)
{
  MsWarpAccess a;
  /* 8-byte lanes at 16l (stride 2 elements).  Phase 0: lane l (0..15)
   * reads words 4l, 4l+1: banks 4l mod 32 and 4l+1 mod 32; lanes l and
   * l+8 share both banks with different words (4l vs 4l+32): 2 per bank:
   * 2.  Phase 1 (lanes 16..31, words 64..125): same, 2.  Total 4, ideal
   * 2, excessive 2. */
  make_strided (&a, 8, FULL, 0, 16);
  check (&a, 4, 2, 2);
}

static void
test_float4 (void)
{
  MsWarpAccess a;
  /* 16-byte lanes at 16l: 4 phases of 8 lanes.  Phase p: lanes 8p..8p+7
   * read words 4l..4l+3 = 32 consecutive words: 1 each.  Total 4, ideal 4. */
  make_strided (&a, 16, FULL, 0, 16);
  check (&a, 4, 4, 4);
}

static void
test_float4_stride2 (void)
{
  MsWarpAccess a;
  /* 16-byte lanes at 32l.  Phase 0: lane l (0..7) reads words 8l..8l+3:
   * banks 8l..8l+3 mod 32: lanes 0 and 4 both hit banks 0..3 (words 0..3
   * and 32..35), likewise 1/5, 2/6, 3/7: 2 per bank: 2.  Each of the 4
   * phases: 2.  Total 8, ideal 4, excessive 4. */
  make_strided (&a, 16, FULL, 0, 32);
  check (&a, 8, 4, 4);
}

static void
test_worst_case (void)
{
  MsWarpAccess a;
  /* 4-byte at word stride 32: all bank 0, 32 distinct words: 32 */
  make_strided (&a, 4, FULL, 0, 128);
  check (&a, 32, 1, 1);

  /* 16-byte lanes at stride 32 words (128 B): phase p, lane l reads words
   * 32l..32l+3 -> banks 0..3, 8 lanes with distinct words: 8 per phase;
   * 4 phases: 32, ideal 4, excessive 28. */
  make_strided (&a, 16, FULL, 0, 128);
  check (&a, 32, 4, 4);

  /* 8-byte lanes at 128 B: phase of 16 lanes, words 32l, 32l+1 -> banks 0
   * and 1 with 16 distinct words each: 16 per phase, 2 phases: 32, ideal 2 */
  make_strided (&a, 8, FULL, 0, 128);
  check (&a, 32, 2, 2);
}

static void
test_partial_masks (void)
{
  MsWarpAccess a;
  /* float4, only lanes 0..7: only phase 0 active: 1 wavefront, ideal 1,
   * still 4 phases in the split */
  make_strided (&a, 16, 0x000000FFu, 0, 16);
  check (&a, 1, 1, 4);

  /* float4 stores, lanes 0 and 8: phases 0 and 1, one lane each: 2,
   * ideal 2 */
  make_strided (&a, 16, 0x00000101u, 0, 16);
  a.op = MS_OP_ST;
  check (&a, 2, 2, 4);
  /* the same load: no pair (2k, 2k+1) has two active lanes, so it is
   * paired: two phases of 16 lanes, lanes 0 and 8 both in phase 0 with
   * words 0..3 and 32..35 (banks 0..3, 2 words each): 2, ideal 1 */
  a.op = MS_OP_LD;
  check (&a, 2, 1, 2);

  /* float2, lanes 16..31: phase 1 only: 1 */
  make_strided (&a, 8, 0xFFFF0000u, 0, 8);
  check (&a, 1, 1, 2);

  /* 4-byte stride 32 words, lanes 0..3 only: 4 words in bank 0: 4 */
  make_strided (&a, 4, 0x0000000Fu, 0, 128);
  check (&a, 4, 1, 1);

  /* 4-byte stride 32 words, even lanes: 16 words in bank 0: 16 */
  make_strided (&a, 4, 0x55555555u, 0, 128);
  check (&a, 16, 1, 1);

  /* float4 stride 2 (see above), lanes 0..3 only: banks 0..3, 8..11,
   * 16..19, 24..27 once each: 1 */
  make_strided (&a, 16, 0x0000000Fu, 0, 32);
  check (&a, 1, 1, 4);

  /* float4 stride 2, lanes 0 and 4: both on banks 0..3: 2 (a paired load:
   * phases of 16 lanes; as a store, phases of 8: the same cost) */
  make_strided (&a, 16, 0x00000011u, 0, 32);
  check (&a, 2, 1, 2);
  a.op = MS_OP_ST;
  check (&a, 2, 1, 4);

  /* one lane: 1 */
  make_strided (&a, 4, 0x00010000u, 0, 128);
  check (&a, 1, 1, 1);

  /* inactive lanes' offsets are garbage and must not count: lanes 0..3 at
   * words 0..3, the others would all conflict in bank 0 */
  make_strided (&a, 4, 0x0000000Fu, 0, 4);
  for (guint l = 4; l < 32; l++)
    a.addr[l] = 4096 * l + 1;
  check (&a, 1, 1, 1);
}

/* The load/store difference measured on the H100 (docs/validation.md,
 * "Shared-memory broadcasts and partial patterns"), derived by hand. */
static void
test_paired_loads (void)
{
  MsWarpAccess a;
  /* float2, every lane on element 0 (words 0, 1).  Load: every pair reads
   * one address: one phase of 32 lanes, 2 words in 2 banks: 1, ideal 1
   * (measured: broadcast, 8 B: 1 (0)).  Store: two phases of 16 lanes, 1
   * each: 2, ideal 2 (measured, Stores: 2 (0)). */
  make_strided (&a, 8, FULL, 0, 0);
  check (&a, 1, 1, 1);
  a.op = MS_OP_ST;
  check (&a, 2, 2, 2);
  /* atomics are costed like stores (measured for 4-byte ATOMS: see
   * measured_h100; an 8-byte atomicAdd is a CAS loop on sm_90) */
  a.op = MS_OP_ATOMIC;
  check (&a, 2, 2, 2);

  /* float4 broadcast: load in 2 phases of 16 lanes, 1 each: 2 (measured
   * 2 (0)); store in 4 quarters: 4 (measured 4 (0)) */
  make_strided (&a, 16, FULL, 0, 0);
  check (&a, 2, 2, 2);
  a.op = MS_OP_ST;
  check (&a, 4, 4, 4);

  /* float2, lane l on element l/2 (pairs): a paired load, one phase,
   * elements 0..15 = words 0..31, one per bank: 1 (measured 1 (0)).  The
   * store: halves with elements 0..7 and 8..15: 1 + 1 = 2 (measured 2). */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 8 * (l / 2);
  a.width = 8;
  a.op = MS_OP_LD;
  check (&a, 1, 1, 1);
  a.op = MS_OP_ST;
  check (&a, 2, 2, 2);

  /* float2, lanes 16..31 repeat lanes 0..15 (element l % 16): pairs read
   * elements 2k and 2k+1, not one address, so the load is not paired: two
   * halves, each words 0..31: 1 + 1 = 2 (measured half-repeat, 8 B: 2):
   * duplicate words are not merged across phases. */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 8 * (l % 16);
  a.op = MS_OP_LD;
  check (&a, 2, 2, 2);

  /* float2, lanes 0..15 on element 0, 16..31 on element 16 (words 32, 33:
   * the same banks 0 and 1): a paired load, ONE phase in which banks 0 and
   * 1 serve 2 words each: 2 wavefronts, ideal 1, 1 excessive (measured
   * two-rows, 8 B: 2 (1)).  Element 1 instead (banks 2, 3): 1 (measured
   * two-elements: 1 (0)). */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = l < 16 ? 0 : 8 * 16;
  check (&a, 2, 1, 1);
  for (guint l = 0; l < 32; l++)
    a.addr[l] = l < 16 ? 0 : 8;
  check (&a, 1, 1, 1);

  /* float4 broadcast, lanes 0..16 active: lane 16's partner is inactive,
   * so every pair with two active lanes reads one address: paired, phases
   * 0..15 and 16..31, 1 each: 2 (measured broadcast-m17, 16 B: 2 (0); the
   * 128-byte rule gives 3) */
  make_strided (&a, 16, 0x0001FFFFu, 0, 0);
  check (&a, 2, 2, 2);

  /* mixed (not measured): lanes 0..15 in pairs, 16..31 on their own
   * elements: not every pair reads one address, so 128-byte phases */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 8 * (l < 16 ? l / 2 : l);
  a.width = 8;
  a.mask = FULL;
  check (&a, 2, 2, 2);
  /* 4-byte loads are one phase of 32 lanes paired or not */
  make_strided (&a, 4, FULL, 0, 0);
  check (&a, 1, 1, 1);
}

/* ---- every smem_gather probe measured on the H100 ---- */

/* The element lane l accesses in smem_gather's pattern (traces/kernels/
 * access.c, gather_element; R = 128 / width elements per bank row). */
static guint
gather_element (const char *pattern, guint width, guint l)
{
  static const guint permutation[32] = {
    28, 9, 19, 10, 29, 5, 7, 22, 0, 14, 8, 15, 23, 24, 21, 13,
    25, 27, 6, 16, 26, 18, 11, 3, 17, 2, 1, 31, 12, 4, 30, 20,
  };
  static const guint random[32] = {
    57, 59, 57, 24, 23, 60, 23, 12, 57, 38, 18, 11, 5, 50, 57, 20,
    1, 8, 7, 4, 24, 30, 3, 59, 41, 56, 25, 29, 37, 63, 0, 10,
  };
  guint r = 128 / width;
  /* mixed pairs and the atomics' patterns (exact names first: the
   * prefixes below would take them) */
  if (strcmp (pattern, "pairs-identity") == 0)
    return l < 16 ? l / 2 : l;
  if (strcmp (pattern, "pairs-overlap") == 0)
    return l < 16 ? l / 2 : l - 16;
  if (strcmp (pattern, "pairs-overlap-conflict") == 0)
    return l < 16 ? l / 2 : l == 17 ? 2 * r : l - 16;
  if (strcmp (pattern, "pairs-identity-conflict") == 0)
    return l < 16 ? l / 2 : l == 17 ? 16 + 4 * r : l;
  if (strcmp (pattern, "identity-pairs") == 0)
    return l < 16 ? l : (l - 16) / 2;
  if (strcmp (pattern, "stride2") == 0)
    return 2 * l;
  if (strcmp (pattern, "column") == 0)
    return (l * r) % 256;
  if (strcmp (pattern, "stride8") == 0)
    return (8 * l) % 256;
  if (g_str_has_prefix (pattern, "identity"))
    return l;
  if (g_str_has_prefix (pattern, "broadcast"))
    return 0;
  if (strcmp (pattern, "half-repeat") == 0)
    return l % 16;
  if (g_str_has_prefix (pattern, "pairs"))
    return l / 2;
  if (strcmp (pattern, "quarter-repeat") == 0)
    return l % 8;
  if (strcmp (pattern, "quads") == 0)
    return l / 4;
  if (strcmp (pattern, "halves-conflict") == 0)
    return l % 8 == 1 ? 2 * r + 10 * (l / 8) : l;
  if (strcmp (pattern, "permutation") == 0)
    return permutation[l];
  if (strcmp (pattern, "stride2-interleaved") == 0)
    return l < 16 ? 2 * l : 2 * (l - 16) + 1;
  if (strcmp (pattern, "stride2-half0") == 0)
    return l < 16 ? 2 * l : 32 + l;
  if (strcmp (pattern, "two-elements") == 0)
    return l < 16 ? 0 : 1;
  if (strcmp (pattern, "two-rows") == 0)
    return l < 16 ? 0 : r;
  g_assert_cmpstr (pattern, ==, "random");
  return random[l];
}

/* docs/validation.md, section "Shared-memory broadcasts and partial
 * patterns" (H100 run of 2026-11-22 08:32 UTC): in its Loads and Stores
 * tables, the row named `pattern` (-mM: lanes 0..M-1 active), the column of
 * `width`: the measured wavefronts (excessive) per warp-level instruction.
 * Every number below is copied from there. */
static const struct {
  const char *pattern;
  guint width, mask;
  MsOp op;
  guint wavefronts, excessive;
} measured_h100[] = {
  /* Loads */
  { "identity", 4, 32, MS_OP_LD, 1, 0 }, { "identity", 8, 32, MS_OP_LD, 2, 0 },
  { "identity", 16, 32, MS_OP_LD, 4, 0 },
  { "broadcast", 4, 32, MS_OP_LD, 1, 0 }, { "broadcast", 8, 32, MS_OP_LD, 1, 0 },
  { "broadcast", 16, 32, MS_OP_LD, 2, 0 },
  { "half-repeat", 4, 32, MS_OP_LD, 1, 0 }, { "half-repeat", 8, 32, MS_OP_LD, 2, 0 },
  { "half-repeat", 16, 32, MS_OP_LD, 4, 0 },
  { "pairs", 4, 32, MS_OP_LD, 1, 0 }, { "pairs", 8, 32, MS_OP_LD, 1, 0 },
  { "pairs", 16, 32, MS_OP_LD, 2, 0 },
  { "quarter-repeat", 4, 32, MS_OP_LD, 1, 0 }, { "quarter-repeat", 8, 32, MS_OP_LD, 2, 0 },
  { "quarter-repeat", 16, 32, MS_OP_LD, 4, 0 },
  { "quads", 4, 32, MS_OP_LD, 1, 0 }, { "quads", 8, 32, MS_OP_LD, 1, 0 },
  { "quads", 16, 32, MS_OP_LD, 2, 0 },
  { "halves-conflict", 4, 32, MS_OP_LD, 2, 1 }, { "halves-conflict", 8, 32, MS_OP_LD, 4, 2 },
  { "halves-conflict", 16, 32, MS_OP_LD, 8, 4 },
  { "permutation", 4, 32, MS_OP_LD, 1, 0 }, { "permutation", 8, 32, MS_OP_LD, 4, 2 },
  { "permutation", 16, 32, MS_OP_LD, 11, 7 },
  { "stride2-interleaved", 4, 32, MS_OP_LD, 1, 0 },
  { "stride2-interleaved", 8, 32, MS_OP_LD, 4, 2 },
  { "stride2-interleaved", 16, 32, MS_OP_LD, 8, 4 },
  { "stride2-half0", 4, 32, MS_OP_LD, 2, 1 }, { "stride2-half0", 8, 32, MS_OP_LD, 3, 1 },
  { "stride2-half0", 16, 32, MS_OP_LD, 6, 2 },
  { "two-elements", 4, 32, MS_OP_LD, 1, 0 }, { "two-elements", 8, 32, MS_OP_LD, 1, 0 },
  { "two-elements", 16, 32, MS_OP_LD, 2, 0 },
  { "two-rows", 4, 32, MS_OP_LD, 2, 1 }, { "two-rows", 8, 32, MS_OP_LD, 2, 1 },
  { "two-rows", 16, 32, MS_OP_LD, 2, 0 },
  { "random", 4, 32, MS_OP_LD, 2, 1 }, { "random", 8, 32, MS_OP_LD, 5, 3 },
  { "random", 16, 32, MS_OP_LD, 8, 4 },
  { "broadcast-m17", 8, 17, MS_OP_LD, 1, 0 }, { "broadcast-m17", 16, 17, MS_OP_LD, 2, 0 },
  { "broadcast-m16", 8, 16, MS_OP_LD, 1, 0 }, { "broadcast-m16", 16, 16, MS_OP_LD, 1, 0 },
  { "pairs-m16", 8, 16, MS_OP_LD, 1, 0 }, { "pairs-m16", 16, 16, MS_OP_LD, 1, 0 },
  { "identity-m24", 8, 24, MS_OP_LD, 2, 0 }, { "identity-m24", 16, 24, MS_OP_LD, 3, 0 },
  /* Stores */
  { "identity", 4, 32, MS_OP_ST, 1, 0 }, { "identity", 8, 32, MS_OP_ST, 2, 0 },
  { "identity", 16, 32, MS_OP_ST, 4, 0 },
  { "broadcast", 4, 32, MS_OP_ST, 1, 0 }, { "broadcast", 8, 32, MS_OP_ST, 2, 0 },
  { "broadcast", 16, 32, MS_OP_ST, 4, 0 },
  { "half-repeat", 4, 32, MS_OP_ST, 1, 0 }, { "half-repeat", 8, 32, MS_OP_ST, 2, 0 },
  { "half-repeat", 16, 32, MS_OP_ST, 4, 0 },
  { "pairs", 4, 32, MS_OP_ST, 1, 0 }, { "pairs", 8, 32, MS_OP_ST, 2, 0 },
  { "pairs", 16, 32, MS_OP_ST, 4, 0 },
  { "quarter-repeat", 4, 32, MS_OP_ST, 1, 0 }, { "quarter-repeat", 8, 32, MS_OP_ST, 2, 0 },
  { "quarter-repeat", 16, 32, MS_OP_ST, 4, 0 },
  { "quads", 4, 32, MS_OP_ST, 1, 0 }, { "quads", 8, 32, MS_OP_ST, 2, 0 },
  { "quads", 16, 32, MS_OP_ST, 4, 0 },
  { "halves-conflict", 4, 32, MS_OP_ST, 2, 1 }, { "halves-conflict", 8, 32, MS_OP_ST, 4, 2 },
  { "halves-conflict", 16, 32, MS_OP_ST, 8, 4 },
  { "permutation", 4, 32, MS_OP_ST, 1, 0 }, { "permutation", 8, 32, MS_OP_ST, 4, 2 },
  { "permutation", 16, 32, MS_OP_ST, 11, 7 },
  { "stride2-interleaved", 4, 32, MS_OP_ST, 1, 0 },
  { "stride2-interleaved", 8, 32, MS_OP_ST, 4, 2 },
  { "stride2-interleaved", 16, 32, MS_OP_ST, 8, 4 },
  { "stride2-half0", 4, 32, MS_OP_ST, 2, 1 }, { "stride2-half0", 8, 32, MS_OP_ST, 3, 1 },
  { "stride2-half0", 16, 32, MS_OP_ST, 6, 2 },
  { "two-elements", 4, 32, MS_OP_ST, 1, 0 }, { "two-elements", 8, 32, MS_OP_ST, 2, 0 },
  { "two-elements", 16, 32, MS_OP_ST, 4, 0 },
  { "two-rows", 4, 32, MS_OP_ST, 2, 1 }, { "two-rows", 8, 32, MS_OP_ST, 2, 0 },
  { "two-rows", 16, 32, MS_OP_ST, 4, 0 },
  { "random", 4, 32, MS_OP_ST, 2, 1 }, { "random", 8, 32, MS_OP_ST, 5, 3 },
  { "random", 16, 32, MS_OP_ST, 8, 4 },
  { "broadcast-m17", 8, 17, MS_OP_ST, 2, 0 }, { "broadcast-m17", 16, 17, MS_OP_ST, 3, 0 },
  { "broadcast-m16", 8, 16, MS_OP_ST, 1, 0 }, { "broadcast-m16", 16, 16, MS_OP_ST, 2, 0 },
  { "pairs-m16", 8, 16, MS_OP_ST, 1, 0 }, { "pairs-m16", 16, 16, MS_OP_ST, 2, 0 },
  { "identity-m24", 8, 24, MS_OP_ST, 2, 0 }, { "identity-m24", 16, 24, MS_OP_ST, 3, 0 },
  /* docs/validation.md, subsection "Mixed pairs and shared atomics (run of
   * 2026-11-22 09:25 UTC)": loads in which some lane pairs share an
   * address and others do not (the mixed-* probes), and 4-byte shared
   * atomics (atom-w4-*: atomicAdd (int *, 1), one ATOMS.POPC.INC.32).  16-byte
   * mixed loads are what settled the per-group pair test: 3 (4 with
   * 128-byte phases throughout). */
  { "pairs-identity", 8, 32, MS_OP_LD, 2, 0 }, { "pairs-identity", 16, 32, MS_OP_LD, 3, 0 },
  { "pairs-overlap", 8, 32, MS_OP_LD, 2, 0 }, { "pairs-overlap", 16, 32, MS_OP_LD, 3, 0 },
  { "pairs-overlap-conflict", 8, 32, MS_OP_LD, 3, 1 },
  { "pairs-overlap-conflict", 16, 32, MS_OP_LD, 4, 1 },
  { "pairs-identity-conflict", 8, 32, MS_OP_LD, 3, 1 },
  { "pairs-identity-conflict", 16, 32, MS_OP_LD, 4, 1 },
  { "identity-pairs", 8, 32, MS_OP_LD, 2, 0 }, { "identity-pairs", 16, 32, MS_OP_LD, 3, 0 },
  { "pairs-m17", 8, 17, MS_OP_LD, 1, 0 }, { "pairs-m17", 16, 17, MS_OP_LD, 2, 0 },
  { "pairs-m15", 8, 15, MS_OP_LD, 1, 0 }, { "pairs-m15", 16, 15, MS_OP_LD, 1, 0 },
  { "identity", 4, 32, MS_OP_ATOMIC, 1, 0 }, { "broadcast", 4, 32, MS_OP_ATOMIC, 1, 0 },
  { "pairs", 4, 32, MS_OP_ATOMIC, 1, 0 }, { "stride2", 4, 32, MS_OP_ATOMIC, 2, 1 },
  { "column", 4, 32, MS_OP_ATOMIC, 8, 7 }, { "stride8", 4, 32, MS_OP_ATOMIC, 8, 7 },
};

static void
test_measured_h100 (void)
{
  MsArch arch;
  arch_h100 (&arch);
  /* every gather-* probe, every mixed-* one and the 4-byte atom-* ones */
  g_assert_cmpuint (G_N_ELEMENTS (measured_h100), ==, 114);
  for (guint i = 0; i < G_N_ELEMENTS (measured_h100); i++)
    {
      MsWarpAccess a;
      MsSharedCost c;
      make_strided (&a, measured_h100[i].width, 0, 0, 0);
      a.op = (guint8) measured_h100[i].op;
      a.mask = measured_h100[i].mask == 32 ? FULL : (1u << measured_h100[i].mask) - 1;
      for (guint l = 0; l < 32; l++)
        a.addr[l] = (guint64) measured_h100[i].width
                    * gather_element (measured_h100[i].pattern, measured_h100[i].width, l);
      ms_banks_cost (&arch, &a, &c);
      if (c.wavefronts != measured_h100[i].wavefronts || c.excessive != measured_h100[i].excessive)
        g_error ("%s %s %u B: %u (%u) wavefronts (excessive), the H100 measured %u (%u)",
                 measured_h100[i].pattern, ms_op_name (measured_h100[i].op),
                 measured_h100[i].width, c.wavefronts, c.excessive,
                 measured_h100[i].wavefronts, measured_h100[i].excessive);
      /* the detail agrees */
      MsBankDetail *d = g_new (MsBankDetail, 1);
      ms_banks_detail (&arch, &a, d);
      g_assert_cmpmem (&d->cost, sizeof d->cost, &c, sizeof c);
      g_free (d);
    }
}

static void
test_mask_zero (void)
{
  MsWarpAccess a;
  make_strided (&a, 16, 0, 0, 128);
  check (&a, 0, 0, 0);
}

static void
test_transpose (void)
{
  MsWarpAccess a;
  /* float tile[32][32], column read tile[l][c]: offset (32l + c) * 4, bank
   * (32l + c) mod 32 = c for every lane, 32 distinct words: 32 */
  make_strided (&a, 4, FULL, 4 * 5, 32 * 4);
  check (&a, 32, 1, 1);

  /* float tile[32][33] (padded): offset (33l + c) * 4, bank (l + c) mod
   * 32: all different: 1 */
  make_strided (&a, 4, FULL, 4 * 5, 33 * 4);
  check (&a, 1, 1, 1);

  /* float tile[32][34] (the Kepler 64-bit-mode padding): bank (2l + c)
   * mod 32: lanes l and l+16 collide: 2 on H100 (worse than +1) */
  make_strided (&a, 4, FULL, 4 * 5, 34 * 4);
  check (&a, 2, 1, 1);

  /* row read tile[r][l] of the 32x33 tile: words 33r + l, 32 consecutive
   * words: 1 */
  make_strided (&a, 4, FULL, 4 * 33 * 7, 4);
  check (&a, 1, 1, 1);
}

static void
test_xor_swizzle (void)
{
  MsWarpAccess a;
  /* float tile[32][32] swizzled: column c read as tile[l][c ^ l]: word
   * 32l + (c ^ l), bank c ^ l: a permutation of 0..31: 1 */
  for (guint c = 0; c < 32; c += 7)
    {
      make_strided (&a, 4, FULL, 0, 0);
      for (guint l = 0; l < 32; l++)
        a.addr[l] = 4 * (32 * l + (c ^ l));
      check (&a, 1, 1, 1);
    }
  /* row r read as tile[r][l ^ r]: word 32r + (l ^ r): banks l ^ r: 1,
   * lanes out of order */
  for (guint r = 1; r < 32; r += 5)
    {
      for (guint l = 0; l < 32; l++)
        a.addr[l] = 4 * (32 * r + (l ^ r));
      check (&a, 1, 1, 1);
    }
}

static void
test_unordered (void)
{
  MsWarpAccess a;
  /* lanes read words 32 * ((l * 7) mod 32): all bank 0, 32 distinct
   * words, out of order: 32 */
  make_strided (&a, 4, FULL, 0, 0);
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 4 * 32 * ((l * 7) % 32);
  check (&a, 32, 1, 1);

  /* lanes read words 32 * (l mod 4) in the order 0, 32, 64, 96, 0, 32..:
   * bank 0, 4 distinct words, each repeated: 4 */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 4 * 32 * (l % 4);
  check (&a, 4, 1, 1);

  /* reversed stride 2: lane l reads word 2 * (31 - l): gcd(2, 32) = 2 */
  make_strided (&a, 4, FULL, 4 * 62, -8);
  check (&a, 2, 1, 1);
}

static void
test_misaligned (void)
{
  MsWarpAccess a;
  /* not legal on a GPU, but defined: 8-byte lanes at 8l + 4 touch words
   * 2l+1, 2l+2.  Phase 0 (lanes 0..15): words 1..32; banks 1..31 once,
   * bank 0 gets word 32 only: 1.  Phase 1: words 33..64: 1.  Total 2. */
  make_strided (&a, 8, FULL, 4, 8);
  check (&a, 2, 2, 2);

  /* 4-byte lanes at 4l + 2 touch words l, l+1: words 0..32 in one
   * phase; bank 0 gets words 0 and 32: 2 */
  make_strided (&a, 4, FULL, 2, 4);
  check (&a, 2, 1, 1);
}

static void
test_cc1x (void)
{
  MsArch arch;
  MsWarpAccess a;
  arch_cc1x (&arch);

  /* 4-byte, stride 1: two half-warp phases of 16 lanes, words 0..15 and
   * 16..31 each in banks 0..15 once: 1 + 1 = 2, ideal 2, no conflict */
  make_strided (&a, 4, FULL, 0, 4);
  check_arch (&arch, &a, 2, 2, 2);

  /* stride 2: half-warp words 2l, banks 2l mod 16: lanes l and l+8 share
   * a bank: 2 per phase: 4, ideal 2, excessive 2 */
  make_strided (&a, 4, FULL, 0, 8);
  check_arch (&arch, &a, 4, 2, 2);

  /* stride 16: every lane of a half-warp in bank 0: 16 per phase: 32
   * (on H100 the same access costs gcd(16, 32) = 16) */
  make_strided (&a, 4, FULL, 0, 64);
  check_arch (&arch, &a, 32, 2, 2);

  /* stride 17 (odd): 1 per phase: 2 */
  make_strided (&a, 4, FULL, 0, 68);
  check_arch (&arch, &a, 2, 2, 2);

  /* the 16x16 transpose column read tile[l][c], half-warp lanes l: word
   * 16l + c, all bank c: 16 per phase: 32; padded [16][17]: 1 per phase */
  make_strided (&a, 4, FULL, 0, 16 * 4);
  check_arch (&arch, &a, 32, 2, 2);
  make_strided (&a, 4, FULL, 0, 17 * 4);
  check_arch (&arch, &a, 2, 2, 2);

  /* lanes 0..15 only: one phase: 1 */
  make_strided (&a, 4, 0x0000FFFFu, 0, 4);
  check_arch (&arch, &a, 1, 1, 2);
}

static void
test_kepler64 (void)
{
  MsArch arch;
  MsWarpAccess a;
  arch_kepler64 (&arch);

  /* 8-byte words.  4-byte stride 1: lane l in word l/2 (two lanes per
   * word, broadcast), words 0..15 in banks 0..15: 1 */
  make_strided (&a, 4, FULL, 0, 4);
  check_arch (&arch, &a, 1, 1, 1);

  /* 4-byte stride 32 floats (128 B): word 16l, banks 16l mod 32 = 0 or
   * 16, 16 distinct words each: 16 (H100: 32) */
  make_strided (&a, 4, FULL, 0, 128);
  check_arch (&arch, &a, 16, 1, 1);

  /* double (8-byte) stride 1: 256 / 8 = 32 lanes a phase, word l: 1 */
  make_strided (&a, 8, FULL, 0, 8);
  check_arch (&arch, &a, 1, 1, 1);

  /* float tile[32][34] column read: offset 136l, word 17l, bank 17l mod
   * 32: 17 odd, all different: 1 */
  make_strided (&a, 4, FULL, 0, 34 * 4);
  check_arch (&arch, &a, 1, 1, 1);

  /* 16-byte stride 1: 256 / 16 = 16 lanes a phase, lane l words 2l, 2l+1
   * -> 32 words, banks 0..31 once: 1 a phase, 2 phases */
  make_strided (&a, 16, FULL, 0, 16);
  check_arch (&arch, &a, 2, 2, 2);
}

static void
test_odd_geometry (void)
{
  MsArch arch;
  MsWarpAccess a;
  arch_h100 (&arch);
  /* 24 banks (not a power of two), phase 96 bytes: 4-byte stride 1: one
   * phase of 24 lanes (0..23) with words 0..23: 1, and lanes 24..31 with
   * words 24..31 in banks 0..7: 1; total 2 */
  arch.banks = 24;
  arch.phase_bytes = 96;
  make_strided (&a, 4, FULL, 0, 4);
  check_arch (&arch, &a, 2, 2, 2);

  /* stride 24 words: every lane bank 0: 24 + 8 = 32 */
  make_strided (&a, 4, FULL, 0, 96);
  check_arch (&arch, &a, 32, 2, 2);
}

static void
test_detail (void)
{
  MsArch arch;
  MsWarpAccess a;
  MsBankDetail *d = g_new (MsBankDetail, 1);
  arch_h100 (&arch);

  /* lane l at word 2l (stride 2): 2-way conflict in every even bank */
  make_strided (&a, 4, FULL, 0, 8);
  ms_banks_detail (&arch, &a, d);
  g_assert_cmpuint (d->cost.wavefronts, ==, 2);
  g_assert_cmpuint (d->lanes_per_phase, ==, 32);
  g_assert_cmpuint (d->banks, ==, 32);
  g_assert_cmpuint (d->phase[0].n_words, ==, 32);
  g_assert_cmpuint (d->phase[0].wavefronts, ==, 2);
  for (guint b = 0; b < 32; b++)
    g_assert_cmpuint (d->phase[0].bank_words[b], ==, b % 2 == 0 ? 2 : 0);
  for (guint l = 0; l < 32; l++)
    {
      g_assert_cmpint (d->lane[l].phase, ==, 0);
      g_assert_cmpuint (d->lane[l].n_words, ==, 1);
      g_assert_cmpuint (d->lane[l].word[0], ==, 2 * l);
      g_assert_cmpuint (d->lane[l].bank[0], ==, (2 * l) % 32);
      g_assert_cmpuint (d->lane[l].degree, ==, 2);
      g_assert_false (d->lane[l].broadcast[0]);
      /* word 2l is the first (wave 0) of its bank for l < 16 */
      g_assert_cmpuint (d->lane[l].wave[0], ==, l < 16 ? 0 : 1);
      g_assert_cmpuint (d->words[d->lane[l].entry[0]].word, ==, 2 * l);
    }
  /* the words of bank 4: 4 and 36 */
  guint f = d->phase[0].bank_first[4];
  g_assert_cmpuint (d->words[f].word, ==, 4);
  g_assert_cmpuint (d->words[f + 1].word, ==, 36);
  g_assert_cmpuint (d->words[f + 1].rank, ==, 1);

  /* 1-byte at l: lanes 4k..4k+3 broadcast word k */
  make_strided (&a, 1, 0x0000001Fu, 0, 1);
  ms_banks_detail (&arch, &a, d);
  g_assert_cmpuint (d->cost.wavefronts, ==, 1);
  g_assert_cmpuint (d->phase[0].n_words, ==, 2);   /* words 0 and 1 */
  for (guint l = 0; l < 32; l++)
    {
      if (l >= 5)
        {
          g_assert_cmpint (d->lane[l].phase, ==, -1);
          g_assert_cmpuint (d->lane[l].n_words, ==, 0);
          continue;
        }
      /* lane 4 is alone in word 1 */
      g_assert_cmpint (d->lane[l].broadcast[0], ==, l < 4);
      g_assert_cmpuint (d->lane[l].degree, ==, 1);
    }
  g_assert_cmpuint (d->words[d->lane[0].entry[0]].lanes, ==, 4);

  /* float4 stride 2 words: lane 1 of phase 0 reads words 8..11 */
  make_strided (&a, 16, FULL, 0, 32);
  ms_banks_detail (&arch, &a, d);
  g_assert_cmpuint (d->cost.phases, ==, 4);
  g_assert_cmpuint (d->phase[1].first_lane, ==, 8);
  g_assert_cmpuint (d->phase[1].n_lanes, ==, 8);
  g_assert_cmpuint (d->phase[1].wavefronts, ==, 2);
  g_assert_cmpuint (d->lane[1].n_words, ==, 4);
  for (guint k = 0; k < 4; k++)
    {
      g_assert_cmpuint (d->lane[1].word[k], ==, 8 + k);
      g_assert_cmpuint (d->lane[1].bank[k], ==, 8 + k);
    }
  g_assert_cmpint (d->lane[9].phase, ==, 1);
  g_free (d);
}

static void
test_arch_check (void)
{
  MsArch arch;
  g_autoptr (GError) error = NULL;
  arch_h100 (&arch);
  g_assert_true (ms_banks_arch_check (&arch, NULL));
  arch_cc1x (&arch);
  g_assert_true (ms_banks_arch_check (&arch, NULL));
  arch_kepler64 (&arch);
  g_assert_true (ms_banks_arch_check (&arch, NULL));
  arch.banks = 65;
  g_assert_false (ms_banks_arch_check (&arch, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  arch_h100 (&arch);
  arch.bank_bytes = 2;
  g_assert_false (ms_banks_arch_check (&arch, &error));
  g_clear_error (&error);
  arch_h100 (&arch);
  arch.phase_bytes = 0;
  g_assert_false (ms_banks_arch_check (&arch, &error));
  g_clear_error (&error);
  arch_h100 (&arch);
  arch.paired_load_phase_bytes = 0;   /* 0: the same as phase_bytes */
  g_assert_true (ms_banks_arch_check (&arch, NULL));
  arch.paired_load_phase_bytes = -1;
  g_assert_false (ms_banks_arch_check (&arch, &error));
}

static void
test_cost_add (void)
{
  MsSharedCost sum = { 0 }, b = { 5, 2, 3, 2 };
  ms_shared_cost_add (&sum, &b);
  ms_shared_cost_add (&sum, &b);
  g_assert_cmpuint (sum.wavefronts, ==, 10);
  g_assert_cmpuint (sum.ideal, ==, 4);
  g_assert_cmpuint (sum.excessive, ==, 6);
  g_assert_cmpuint (sum.phases, ==, 4);
}

/* ---- randomized cross-check against a brute-force reference ---- */

/* Lanes per phase for `bytes`-byte phases. */
static guint
reference_lpp (const MsArch *arch, const MsWarpAccess *a, guint bytes)
{
  guint ws = MIN ((guint) arch->warp_size, 32u);
  guint lpp = a->width ? bytes / a->width : ws;
  return CLAMP (lpp, 1u, ws);
}

/* Whether every pair of lanes (2k, 2k+1) in [first, end) that are both
 * active reads one address, and (*active) whether any lane there is. */
static gboolean
reference_pairs_ok (const MsWarpAccess *a, guint32 mask, guint first, guint end,
                    gboolean *active)
{
  gboolean ok = TRUE;
  *active = FALSE;
  for (guint l = first; l < end; l++)
    *active |= (mask >> l) & 1;
  for (guint k = first / 2; 2 * k + 1 < end; k++)
    if ((mask >> (2 * k) & 1) && (mask >> (2 * k + 1) & 1)
        && a->addr[2 * k] != a->addr[2 * k + 1])
      ok = FALSE;
  return ok;
}

/* The phases by the rule: phases of phase_bytes / width lanes; for a load,
 * with B = paired_load_phase_bytes / width lanes (when set and more), the
 * warp in groups of B lanes, a group whose active lane pairs (2k, 2k+1)
 * each read one address (and that has an active lane, unless the whole
 * warp is paired) one phase of B lanes.  Uniform phases where no group or
 * every group is paired.  first[p], len[p]; *paired: some group paired.
 * Returns the number of phases. */
static guint
reference_phases (const MsArch *arch, const MsWarpAccess *a, guint *first, guint *len,
                  gboolean *paired)
{
  guint ws = MIN ((guint) arch->warp_size, 32u);
  guint32 mask = a->mask & (ws >= 32 ? FULL : (1u << ws) - 1);
  guint lpp = reference_lpp (arch, a, (guint) arch->phase_bytes);
  guint big = lpp;
  gboolean any = FALSE, all = TRUE, group[32] = { FALSE };
  guint n = 0;

  if (a->op == MS_OP_LD && arch->paired_load_phase_bytes > 0)
    big = reference_lpp (arch, a, (guint) arch->paired_load_phase_bytes);
  gboolean warp_active;
  gboolean warp_ok = reference_pairs_ok (a, mask, 0, ws, &warp_active);
  if (big > lpp)
    for (guint g = 0; g * big < ws; g++)
      {
        gboolean act;
        gboolean ok = reference_pairs_ok (a, mask, g * big, MIN (g * big + big, ws), &act);
        group[g] = warp_ok || (ok && act);
        any |= group[g];
        all &= group[g];
      }
  else if (big < lpp && warp_ok)
    any = all = TRUE, lpp = big;   /* smaller paired phases: the whole warp or none */
  *paired = any;
  if (!any || all)
    {
      guint u = any ? big : lpp;
      for (guint f = 0; f < ws; f += u, n++)
        first[n] = f, len[n] = MIN (u, ws - f);
      return n;
    }
  for (guint g = 0; g * big < ws; g++)
    {
      guint gf = g * big, gend = MIN (gf + big, ws);
      if (group[g])
        {
          first[n] = gf, len[n++] = gend - gf;
          continue;
        }
      for (guint f = gf; f < gend; f += lpp, n++)
        first[n] = f, len[n] = MIN (lpp, gend - f);
    }
  return n;
}

/* The phase of lane l among the phases. */
static guint
reference_phase_of (const guint *first, const guint *len, guint n, guint l)
{
  for (guint p = 0; p < n; p++)
    if (l >= first[p] && l < first[p] + len[p])
      return p;
  g_assert_not_reached ();
}

/* Phases, wavefronts and ideal by the rule, with plain loops: for every
 * phase, the list of distinct words of its active lanes (every byte of
 * every lane), then per bank the number of them. */
static void
reference_cost (const MsArch *arch, const MsWarpAccess *a, MsSharedCost *c)
{
  guint ws = MIN ((guint) arch->warp_size, 32u);
  guint32 mask = a->mask & (ws >= 32 ? FULL : (1u << ws) - 1);
  guint first[32], len[32];
  gboolean paired;

  memset (c, 0, sizeof *c);
  if (mask == 0)
    return;
  c->phases = reference_phases (arch, a, first, len, &paired);
  for (guint p = 0; p < c->phases; p++)
    {
      guint64 words[32 * 16];
      guint n = 0;
      for (guint l = first[p]; l < first[p] + len[p]; l++)
        {
          if (!(mask & (1u << l)))
            continue;
          for (guint64 byte = a->addr[l]; byte < a->addr[l] + a->width; byte++)
            {
              guint64 w = byte / (guint64) arch->bank_bytes;
              gboolean seen = FALSE;
              for (guint i = 0; i < n; i++)
                seen |= words[i] == w;
              if (!seen)
                words[n++] = w;
            }
        }
      if (n == 0)
        continue;
      c->ideal++;
      guint best = 0;
      for (guint b = 0; b < (guint) arch->banks; b++)
        {
          guint k = 0;
          for (guint i = 0; i < n; i++)
            k += words[i] % (guint64) arch->banks == b;
          best = MAX (best, k);
        }
      c->wavefronts += best;
    }
  c->excessive = c->wavefronts - c->ideal;
}

/* Checks the detail's per-lane and per-word facts with plain loops. */
static void
check_detail (const MsArch *arch, const MsWarpAccess *a, const MsBankDetail *d)
{
  guint ws = MIN ((guint) arch->warp_size, 32u);
  guint32 mask = a->mask & (ws >= 32 ? FULL : (1u << ws) - 1);

  guint first[32], len[32], nph = 0;
  gboolean paired = FALSE;
  if (mask != 0 && a->width != 0)
    {
      nph = reference_phases (arch, a, first, len, &paired);
      g_assert_cmpint (d->paired, ==, paired);
      g_assert_cmpuint (d->cost.phases, ==, nph);
      for (guint p = 0; p < nph; p++)
        {
          g_assert_cmpuint (d->phase[p].first_lane, ==, first[p]);
          g_assert_cmpuint (d->phase[p].n_lanes, ==, len[p]);
        }
    }
  for (guint l = 0; l < 32; l++)
    {
      const MsBankLane *ln = &d->lane[l];
      if (!(mask & (1u << l)) || a->width == 0)
        {
          g_assert_cmpint (ln->phase, ==, -1);
          continue;
        }
      guint lp = reference_phase_of (first, len, nph, l);
      g_assert_cmpint (ln->phase, ==, (gint) lp);
      guint64 w0 = a->addr[l] / (guint64) arch->bank_bytes;
      guint64 w1 = (a->addr[l] + a->width - 1) / (guint64) arch->bank_bytes;
      g_assert_cmpuint (ln->n_words, ==, w1 - w0 + 1);
      guint degree = 0;
      for (guint k = 0; k < ln->n_words; k++)
        {
          guint64 w = w0 + k;
          g_assert_cmpuint (ln->word[k], ==, w);
          g_assert_cmpuint (ln->bank[k], ==, w % (guint64) arch->banks);
          /* broadcast: another active lane of the phase touches w */
          gboolean other = FALSE;
          for (guint m = 0; m < 32; m++)
            if (m != l && (mask & (1u << m)) && reference_phase_of (first, len, nph, m) == lp
                && a->addr[m] / (guint64) arch->bank_bytes <= w
                && (a->addr[m] + a->width - 1) / (guint64) arch->bank_bytes >= w)
              other = TRUE;
          g_assert_cmpint (ln->broadcast[k], ==, other);
          const MsBankWord *e = &d->words[ln->entry[k]];
          g_assert_cmpuint (e->word, ==, w);
          g_assert_cmpuint (e->phase, ==, (guint) ln->phase);
          g_assert_cmpuint (ln->wave[k], ==, e->rank);
          const MsBankPhase *ph = &d->phase[ln->phase];
          g_assert_cmpuint (e->rank, <, ph->bank_words[ln->bank[k]]);
          degree = MAX (degree, ph->bank_words[ln->bank[k]]);
        }
      g_assert_cmpuint (ln->degree, ==, degree);
    }
  /* per phase: bank_words add up to n_words, max is the wavefronts */
  for (guint p = 0; p < d->cost.phases; p++)
    {
      const MsBankPhase *ph = &d->phase[p];
      guint sum = 0, best = 0;
      for (guint b = 0; b < d->banks; b++)
        {
          sum += ph->bank_words[b];
          best = MAX (best, ph->bank_words[b]);
          for (guint k = 0; k < ph->bank_words[b]; k++)
            {
              const MsBankWord *e = &d->words[ph->bank_first[b] + k];
              g_assert_cmpuint (e->bank, ==, b);
              g_assert_cmpuint (e->rank, ==, k);
              if (k > 0)
                g_assert_cmpuint (e[-1].word, <, e->word);
            }
        }
      g_assert_cmpuint (sum, ==, ph->n_words);
      g_assert_cmpuint (best, ==, ph->wavefronts);
    }
}

static guint32
random_mask (GRand *r)
{
  switch (g_rand_int_range (r, 0, 8))
    {
    case 0: case 1: case 2: case 3:
      return FULL;
    case 4:
      return g_rand_int (r);
    case 5:
      return 1u << g_rand_int_range (r, 0, 32);
    case 6:
      {
        guint lo = (guint) g_rand_int_range (r, 0, 32);
        guint hi = (guint) g_rand_int_range (r, (gint32) lo, 32);
        return (guint32) ((((guint64) 1 << (hi + 1)) - 1) & ~(((guint64) 1 << lo) - 1));
      }
    default:
      return g_rand_int_range (r, 0, 10) == 0 ? 0 : g_rand_int (r) & g_rand_int (r);
    }
}

static void
random_access (GRand *r, MsWarpAccess *a)
{
  static const guint widths[] = { 1, 2, 4, 8, 16 };
  static const gint64 strides[] = { 0, 1, 2, 3, 4, 8, 16, 17, 31, 32, 33, 64, -1, -2, -32 };
  guint width = widths[g_rand_int_range (r, 0, 5)];
  gboolean aligned = g_rand_int_range (r, 0, 5) != 0;
  guint64 base = width * (guint64) g_rand_int_range (r, 0, 4096);
  guint64 mis = aligned ? 0 : (guint64) g_rand_int_range (r, 0, 16);

  memset (a, 0, sizeof *a);
  a->space = MS_SPACE_SHARED;
  a->width = (guint8) width;
  a->mask = random_mask (r);
  a->op = (guint8) (g_rand_int_range (r, 0, 4) < 2 ? MS_OP_LD
                    : g_rand_boolean (r) ? MS_OP_ST : MS_OP_ATOMIC);
  switch (g_rand_int_range (r, 0, 7))
    {
    case 0: case 1:  /* strided, in elements (words for 1/2-byte too) */
      {
        gint64 s = strides[g_rand_int_range (r, 0, G_N_ELEMENTS (strides))];
        gint64 unit = width < 4 && g_rand_boolean (r) ? 4 : width;
        for (guint l = 0; l < 32; l++)
          a->addr[l] = (guint64) ((gint64) (base + 65536 + mis) + s * unit * (gint64) l);
      }
      break;
    case 2:  /* gather in a small window */
      {
        gint32 span = g_rand_int_range (r, 1, 300);
        for (guint l = 0; l < 32; l++)
          a->addr[l] = base + mis + width * (guint64) g_rand_int_range (r, 0, span);
      }
      break;
    case 3:  /* gather in 48 KiB */
      for (guint l = 0; l < 32; l++)
        a->addr[l] = mis + width * (guint64) g_rand_int_range (r, 0, (gint32) (49152 / width));
      break;
    case 4:  /* tile[l][c ^ l] or tile[r][l ^ r] with a random row pitch */
      {
        guint k = (guint) g_rand_int_range (r, 0, 32);
        guint pitch = (guint) g_rand_int_range (r, 1, 40);
        gboolean column = g_rand_boolean (r);
        for (guint l = 0; l < 32; l++)
          a->addr[l] = base + mis + width * (guint64) (column ? pitch * l + (k ^ l)
                                                       : pitch * k + (l ^ k));
      }
      break;
    case 5:  /* few distinct offsets, random order */
      {
        guint64 pool[4];
        for (guint i = 0; i < 4; i++)
          pool[i] = base + mis + width * 32 * (guint64) g_rand_int_range (r, 0, 8);
        for (guint l = 0; l < 32; l++)
          a->addr[l] = pool[g_rand_int_range (r, 0, 4)];
      }
      break;
    default:  /* anything, anywhere */
      for (guint l = 0; l < 32; l++)
        a->addr[l] = ((guint64) g_rand_int (r) << 8 ^ g_rand_int (r)) & ~(guint64) (aligned ? width - 1 : 0);
      break;
    }
  /* lane pairs on one address (paired loads): all pairs, some, or all in
   * one group of 8 or 16 lanes (mixed warps) */
  switch (g_rand_int_range (r, 0, 5))
    {
    case 4:
      {
        guint n = g_rand_boolean (r) ? 8 : 16;
        guint f = n * (guint) g_rand_int_range (r, 0, (gint32) (32 / n));
        for (guint k = f / 2; k < (f + n) / 2; k++)
          a->addr[2 * k + 1] = a->addr[2 * k];
      }
      break;
    case 0:
      for (guint k = 0; k < 16; k++)
        a->addr[2 * k + 1] = a->addr[2 * k];
      break;
    case 1:
      for (guint k = 0; k < 16; k++)
        if (g_rand_int_range (r, 0, 4) != 0)
          a->addr[2 * k + 1] = a->addr[2 * k];
      break;
    default:
      break;
    }
  for (guint l = 0; l < 32; l++)
    if (!(a->mask & (1u << l)) && g_rand_boolean (r))
      a->addr[l] = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
}

static void
test_random (void)
{
  MsArch archs[7];
  MsBankDetail *d = g_new (MsBankDetail, 1);
  GRand *r = g_rand_new_with_seed (4242);

  arch_h100 (&archs[0]);
  arch_cc1x (&archs[1]);
  arch_kepler64 (&archs[2]);
  arch_h100 (&archs[3]);
  archs[3].name = (char *) "odd";
  archs[3].banks = 24;          /* not a power of two */
  archs[3].phase_bytes = 96;
  arch_h100 (&archs[4]);
  archs[4].name = (char *) "ws16";
  archs[4].warp_size = 16;
  arch_h100 (&archs[5]);
  archs[5].name = (char *) "phase64";
  archs[5].phase_bytes = 64;    /* 32 banks, half-warp phases */
  archs[5].paired_load_phase_bytes = 96;   /* not a multiple of the widths */
  arch_h100 (&archs[6]);
  archs[6].name = (char *) "banks64";
  archs[6].banks = 64;          /* the most the model takes */
  archs[6].phase_bytes = 256;

  for (guint i = 0; i < 30000; i++)
    {
      MsWarpAccess a;
      MsSharedCost got, want;
      const MsArch *arch = &archs[i % G_N_ELEMENTS (archs)];

      random_access (r, &a);
      memset (&got, 0x5A, sizeof got);
      ms_banks_cost (arch, &a, &got);
      reference_cost (arch, &a, &want);
      if (memcmp (&got, &want, sizeof got) != 0)
        g_error ("access %u (arch %s, width %u, mask %08x, lane 0 at %" G_GUINT64_FORMAT "): "
                 "got %u/%u/%u/%u want %u/%u/%u/%u",
                 i, arch->name, a.width, a.mask, a.addr[0],
                 got.wavefronts, got.ideal, got.excessive, got.phases,
                 want.wavefronts, want.ideal, want.excessive, want.phases);
      if (i % 4 == 0)
        {
          ms_banks_detail (arch, &a, d);
          g_assert_cmpmem (&d->cost, sizeof d->cost, &want, sizeof want);
          check_detail (arch, &a, d);
        }
    }
  g_rand_free (r);
  g_free (d);
}

/* The H100, Kepler's 64-bit banks, a cc 1.x and an odd geometry (24
 * banks, 96-byte phases). */
static void
four_archs (MsArch *archs)
{
  arch_h100 (&archs[0]);
  arch_kepler64 (&archs[1]);
  arch_cc1x (&archs[2]);
  arch_h100 (&archs[3]);
  archs[3].name = (char *) "odd";
  archs[3].banks = 24;
  archs[3].phase_bytes = 96;
}

/* The model's cost through its memo (banks.c: a site's last accesses,
 * found again at any whole-word shift) against ms_banks_cost (which
 * test_random checks against the brute-force reference), access by access: random accesses of a few sites (two of them sharing
 * the memo's entries), each followed by its copy shifted by whole words
 * (a hit), by a part of a word, with one lane moved, with another op,
 * width or set of lanes, at the top of the address space (each a
 * different cost, or the same, as ms_banks_cost says).  A memo that hit on any of these wrongly fails here. */
static void
test_memo (void)
{
  MsArch archs[5];
  GRand *r = g_rand_new_with_seed (777);
  MsSite sites[4] = { { "memo.cu", 1, 0, 3 }, { "memo.cu", 2, 1, 3 + 64 },
                      { "memo.cu", 3, 2, 5 }, { "memo.cu", 4, 3, 900 } };
  four_archs (archs);
  arch_h100 (&archs[4]);   /* the H100 again: the memo starts over */
  guint hits_possible = 0;
  for (guint i = 0; i < 40000; i++)
    {
      const MsArch *arch = &archs[i / 8000];
      MsWarpAccess a;
      random_access (r, &a);
      a.site = &sites[g_rand_int_range (r, 0, 4)];
      for (guint variant = 0; variant < 7; variant++)
        {
          MsWarpAccess b = a;
          guint64 bb = (guint64) arch->bank_bytes;
          guint32 act = b.mask;
          switch (variant)
            {
            case 1:   /* whole words: the same cost */
            case 2:
              {
                guint64 shift = bb * (guint64) g_rand_int_range (r, 1, 5000), low = G_MAXUINT64;
                for (guint32 m = b.mask; m; m &= m - 1)
                  low = MIN (low, b.addr[__builtin_ctz (m)]);
                for (guint l = 0; l < 32; l++)   /* down only where no lane wraps */
                  b.addr[l] += variant == 1 || low < shift ? shift : -shift;
                hits_possible++;
              }
              break;
            case 3:   /* part of a word */
              for (guint l = 0; l < 32; l++)
                b.addr[l] += (guint64) g_rand_int_range (r, 1, (gint32) bb);
              break;
            case 4:   /* one active lane moved */
              if (act != 0)
                {
                  guint k = (guint) g_rand_int_range (r, 0, __builtin_popcount (act));
                  while (k--)
                    act &= act - 1;
                  b.addr[__builtin_ctz (act)] += bb * (guint64) g_rand_int_range (r, 1, 40);
                }
              break;
            case 5:   /* another op, width or lanes */
              switch (g_rand_int_range (r, 0, 3))
                {
                case 0: b.op = b.op == MS_OP_LD ? MS_OP_ST : MS_OP_LD; break;
                case 1: b.width = (guint8) (b.width == 4 ? 8 : 4);
                  for (guint l = 0; l < 32; l++)
                    b.addr[l] &= ~(guint64) (b.width - 1);
                  break;
                default: b.mask ^= 1u << g_rand_int_range (r, 0, 32); break;
                }
              break;
            case 6:   /* whole words up to the top of the address space,
                         where a lane's bytes wrap (a malformed trace) */
              if (act != 0)
                {
                  guint64 top = 0;
                  for (guint32 m = act; m; m &= m - 1)
                    top = MAX (top, b.addr[__builtin_ctz (m)]);
                  guint64 shift = (G_MAXUINT64 - top - 4) / bb * bb;
                  for (guint l = 0; l < 32; l++)
                    b.addr[l] += shift;
                }
              break;
            default:
              break;
            }
          /* a first (the memo's entry), then its variant */
          for (guint k = variant == 0 ? 1 : 0; k < 2; k++)
            {
              const MsWarpAccess *x = k == 0 ? &a : &b;
              guint64 v[MS_COUNTER_SLOTS] = { 0 };
              MsSharedCost want;
              ms_model_banks.cost (arch, x, v);
              ms_banks_cost (arch, x, &want);   /* test_random checks it */
              if (v[MS_SLOT_WAVEFRONTS] != want.wavefronts || v[MS_SLOT_IDEAL] != want.ideal
                  || v[MS_SLOT_EXCESSIVE] != want.excessive)
                g_error ("access %u variant %u (arch %s, site %d, width %u, mask %08x): model "
                         "%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " ms_banks_cost %u/%u",
                         i, k * variant, arch->name, x->site->id, x->width, x->mask,
                         v[MS_SLOT_WAVEFRONTS], v[MS_SLOT_IDEAL], want.wavefronts, want.ideal);
            }
        }
    }
  g_assert_cmpuint (hits_possible, ==, 80000);
  g_rand_free (r);
}

/* The model's cost of x, given as a producer gives it: with the word that
 * its lanes are one stride apart when `say` (access.h); checked against
 * ms_banks_cost. */
static void
assert_memo_cost (const MsArch *arch, const MsWarpAccess *x, gboolean say, guint i)
{
  guint64 v[MS_COUNTER_SLOTS] = { 0 };
  MsSharedCost want;
  if (say)
    ms_stride_hint = (MsStrideHint) { x, x->addr[1] - x->addr[0] };
  ms_model_banks.cost (arch, x, v);
  ms_stride_hint.record = NULL;
  ms_banks_cost (arch, x, &want);
  if (v[MS_SLOT_WAVEFRONTS] != want.wavefronts || v[MS_SLOT_IDEAL] != want.ideal
      || v[MS_SLOT_EXCESSIVE] != want.excessive)
    g_error ("access %u (width %u, stride %" G_GINT64_FORMAT ", said %d): model %"
             G_GUINT64_FORMAT " wavefronts, ms_banks_cost %u", i, x->width,
             (gint64) (x->addr[1] - x->addr[0]), say, v[MS_SLOT_WAVEFRONTS], want.wavefronts);
}

/* The memo with the producer's stride word: a strided whole warp after an
 * entry whose lanes 0 and 1 are as far apart but another lane is not (no
 * hit), after a strided entry (a hit, shifted by whole words), and the
 * unstrided access again (no hit from the strided entry). */
static void
test_memo_stride_hint (void)
{
  static const gint64 strides[] = { 0, 1, 2, 3, 4, 8, 16, 17, 31, 32, 33, 64, -1, -2, -32 };
  static const guint widths[] = { 4, 8, 16 };
  MsArch arch;
  arch_h100 (&arch);
  GRand *r = g_rand_new_with_seed (4242);
  MsSite site = { "memo-hint.cu", 1, 0, 11 };
  for (guint i = 0; i < 4000; i++)
    {
      MsWarpAccess s, t;
      memset (&s, 0, sizeof s);
      s.site = &site;
      s.space = MS_SPACE_SHARED;
      s.width = (guint8) widths[g_rand_int_range (r, 0, 3)];
      s.op = g_rand_boolean (r) ? MS_OP_LD : MS_OP_ST;
      s.mask = 0xffffffffu;
      gint64 d = strides[g_rand_int_range (r, 0, G_N_ELEMENTS (strides))] * s.width;
      guint64 a0 = 65536 + s.width * (guint64) g_rand_int_range (r, 0, 4096);
      for (guint l = 0; l < 32; l++)
        s.addr[l] = (guint64) ((gint64) a0 + d * (gint64) l);
      t = s;
      t.addr[g_rand_int_range (r, 2, 32)] += arch.bank_bytes * (guint64) g_rand_int_range (r, 1, 40);
      assert_memo_cost (&arch, &t, FALSE, i);   /* the entry: not strided */
      assert_memo_cost (&arch, &s, TRUE, i);    /* no hit */
      for (guint l = 0; l < 32; l++)            /* whole words on: a hit */
        s.addr[l] += arch.bank_bytes * 7;
      assert_memo_cost (&arch, &s, TRUE, i);
      for (guint l = 0; l < 32; l++)
        t.addr[l] += arch.bank_bytes * 7;
      assert_memo_cost (&arch, &t, FALSE, i);   /* no hit from the strided entry */
    }
  g_rand_free (r);
}

/* The model's shortcut for a whole warp whose lanes each touch one word of
 * their own bank (banks.c, distinct_banks: a permutation of the banks, an
 * XOR-swizzled tile's rows and columns) against ms_banks_cost, on random
 * permutations at random rows and bytes within the word, and on what the
 * shortcut must not take or must not answer from its kept cost: two lanes
 * on one bank, a lane off its width's alignment, a word wider than a bank,
 * partial warps of distinct banks (a reduction's later steps), the first
 * half-warp alone on a geometry whose phases split the warp (five
 * geometries, each in a run, so that kept costs persist).
 * On the H100 a permutation of 1-, 2- or 4-byte lanes is also checked
 * against the rule itself: one wavefront, no conflict. */
static void
test_distinct_banks (void)
{
  MsArch archs[5];
  four_archs (archs);
  arch_h100 (&archs[4]);   /* 32 banks in half-warp phases: a partial warp may span two */
  archs[4].name = (char *) "halves";
  archs[4].phase_bytes = 64;
  archs[4].paired_load_phase_bytes = 0;
  static const guint widths[] = { 1, 2, 4, 8, 16 };
  MsSite site = { "distinct.cu", 1, 0, 21 };
  GRand *r = g_rand_new_with_seed (2611);
  guint permutations = 0;
  for (guint i = 0; i < 20000; i++)
    {
      const MsArch *arch = &archs[i / 4000];   /* in runs: the kept costs persist */
      guint bb = (guint) arch->bank_bytes;
      guint width = widths[g_rand_int_range (r, 0, 5)];
      guint perm[32];
      for (guint l = 0; l < 32; l++)
        perm[l] = l;
      for (guint l = 31; l > 0; l--)
        {
          guint k = (guint) g_rand_int_range (r, 0, (gint32) l + 1), x = perm[l];
          perm[l] = perm[k];
          perm[k] = x;
        }
      MsWarpAccess a;
      make_strided (&a, width, FULL, 0, 0);
      a.site = &site;
      a.op = g_rand_boolean (r) ? MS_OP_LD : MS_OP_ST;
      for (guint l = 0; l < 32; l++)
        {
          guint64 word = perm[l] + 32 * (guint64) g_rand_int_range (r, 0, 64);
          guint64 byte = width < bb ? width * (guint64) g_rand_int_range (r, 0, (gint32) (bb / width)) : 0;
          a.addr[l] = 4096 + word * bb + byte;
        }
      guint variant = (guint) g_rand_int_range (r, 0, 8);
      guint l = (guint) g_rand_int_range (r, 1, 32);
      switch (variant)
        {
        case 1: a.addr[l] = a.addr[0] + 32 * bb * (guint64) g_rand_int_range (r, 0, 3); break;
        case 2: a.addr[l] += 1; break;
        case 3: a.mask &= ~(1u << l); break;
        case 4:   /* a few lanes, each on its own bank (a reduction's later steps) */
        case 5:   /* ... and two of them on one bank */
          a.mask = g_rand_int (r) & g_rand_int (r) & g_rand_int (r);
          a.mask |= 1u | 1u << l;
          if (variant == 5)
            a.addr[l] = a.addr[0] + 32 * bb * (guint64) g_rand_int_range (r, 1, 3);
          break;
        case 6:   /* the first half-warp's lanes alone (one phase of two, on "halves") */
          a.mask = 0xffffu;
          break;
        default: break;
        }
      assert_memo_cost (arch, &a, FALSE, i);
      if (arch == &archs[0] && variant == 0 && width <= 4)
        {
          guint64 v[MS_COUNTER_SLOTS] = { 0 };
          ms_model_banks.cost (arch, &a, v);
          g_assert_cmpuint (v[MS_SLOT_WAVEFRONTS], ==, 1);
          g_assert_cmpuint (v[MS_SLOT_EXCESSIVE], ==, 0);
          permutations++;
        }
    }
  g_assert_cmpuint (permutations, >, 200);
  g_rand_free (r);
}

/* ---- repeated records (run.c, MsRepeatHint in access.h) ---- */

/* A model of our own in the shared space: counts its calls in a free slot
 * (a plug-in's model may keep state, so the run must call it every time). */
static void
calls_cost (const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  (void) arch;
  (void) a;
  v[MS_SLOT_FIRST_FREE]++;
}

static const MsModel calls_model = {
  .name = "calls", .summary = "calls", .space = MS_SPACE_SHARED, .cost = calls_cost,
};

/* A shared store of `mask`'s lanes, lane l at l * stride bytes. */
static MsWarpAccess
shared_store (const MsSite *site, guint32 mask, guint64 stride)
{
  MsWarpAccess a = { .site = site, .space = MS_SPACE_SHARED, .op = MS_OP_ST, .width = 4,
                     .mask = mask };
  for (guint l = 0; l < 32; l++)
    a.addr[l] = l * stride;
  return a;
}

/* Delivers a to the run's parallel part with the producer's word h
 * (h.record NULL: none; else it speaks of a itself). */
static void
deliver (const MsStreamSink *sink, gpointer w, const MsWarpAccess *a, guint64 serial, guint pos,
         gboolean again)
{
  if (serial != 0)
    ms_repeat_hint = (MsRepeatHint) { a, serial, pos, again };
  sink->access (w, a);
  ms_repeat_hint.record = NULL;
}

/* The models' run adds a repeat's counts as its first delivery's, without
 * the models; anything else is worked out.  The producer vouches that a
 * repeat equals the record it names, so here a repeat is given a record
 * that differs from it: what it adds tells which was counted.  By hand
 * (test_word_strides' rule): 32 lanes at stride 8 bytes, 2 wavefronts (1
 * excessive); at stride 4, 1 (0); 16 lanes at stride 8, 1 (0), a partial
 * warp. */
static void
test_repeat_hint (void)
{
  static MsSite site = { "repeat.cu", 1, 0, -1 };
  g_assert_cmpint (ms_site_register (&site), >=, 0);
  MsArch arch = *ms_arch_default ();   /* the run checks every model's figures */
  static const MsModel *const banks_only[] = { &ms_model_banks, NULL };
  static const MsModel *const with_calls[] = { &ms_model_banks, &calls_model, NULL };
  for (int plugin = 0; plugin < 2; plugin++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MsModelRun) r = ms_model_run_new_with (&arch, 64, plugin ? with_calls
                                                        : banks_only, &error);
      g_assert_no_error (error);
      const MsStreamSink *sink = ms_model_run_sink (r);
      gpointer w = sink->worker_new (sink->user);
      MsWarpAccess two = shared_store (&site, FULL, 8), one = shared_store (&site, FULL, 4);
      MsWarpAccess half = shared_store (&site, 0x0000ffffu, 8);
      deliver (sink, w, &two, 7, 0, FALSE);   /* named: 2 (1) */
      deliver (sink, w, &one, 7, 0, TRUE);    /* a repeat of 7: 2 (1) */
      deliver (sink, w, &half, 5, 1, FALSE);  /* named: 1 (0), partial */
      deliver (sink, w, &one, 5, 1, TRUE);    /* a repeat of 5: 1 (0), partial */
      deliver (sink, w, &one, 8, 0, TRUE);    /* 8 not kept at 0: 1 (0), kept */
      deliver (sink, w, &two, 8, 0, TRUE);    /* a repeat of 8: 1 (0) */
      deliver (sink, w, &two, 7, 0, TRUE);    /* 7 no longer kept: 2 (1), kept */
      deliver (sink, w, &one, 7, 0, TRUE);    /* a repeat of 7: 2 (1) */
      deliver (sink, w, &two, 9, 70000, FALSE);  /* past what is kept: 2 (1) */
      deliver (sink, w, &one, 9, 70000, TRUE);   /* so not kept: 1 (0) */
      deliver (sink, w, &one, 0, 0, FALSE);   /* no word: 1 (0) */
      ms_repeat_hint = (MsRepeatHint) { &two, 7, 0, TRUE };
      sink->access (w, &one);                 /* a word on another record: 1 (0) */
      ms_repeat_hint.record = NULL;
      /* the producer's shortcut round the chain (stream.h): a kept repeat
       * is taken, 2 (1); an unkept one, or a word on another record, is
       * not (the producer then hands the record on); none where a model
       * is outside the table */
      MsRepeatShortcut sc = { 0 };
      g_assert_cmpint (sink->shortcut (w, &sc), ==, !plugin);
      if (!plugin)
        {
          ms_repeat_hint = (MsRepeatHint) { &one, 99, 0, TRUE };
          g_assert_false (sc.repeat (sc.state, &one));
          ms_repeat_hint = (MsRepeatHint) { &two, 7, 0, TRUE };
          g_assert_false (sc.repeat (sc.state, &one));
          ms_repeat_hint = (MsRepeatHint) { &one, 7, 0, TRUE };
          g_assert_true (sc.repeat (sc.state, &one));
          ms_repeat_hint.record = NULL;
        }
      sink->worker_done (sink->user, w);
      g_autoptr (MsStats) stats = ms_model_run_finish (r, 1);
      MsCounters c;
      ms_stats_total (stats, MS_SPACE_SHARED, -1, &c);
      g_assert_cmpuint (c.executions, ==, plugin ? 12 : 13);
      if (!plugin)
        {
          /* 2+2+1+1+1+1+2+2+2+1+1+1, and the shortcut's 2; 1+1+0+0+0+0+1+1+1+0+0+0, and 1 */
          g_assert_cmpuint (c.v[MS_SLOT_WAVEFRONTS], ==, 19);
          g_assert_cmpuint (c.v[MS_SLOT_EXCESSIVE], ==, 6);
          g_assert_cmpuint (c.partial, ==, 2);
          g_assert_cmpuint (c.lanes, ==, 11 * 32 + 2 * 16);
          g_assert_cmpuint (c.bytes, ==, 4 * (11 * 32 + 2 * 16));
        }
      else
        {
          /* a model outside the table: every record worked out, each
           * by what it is, and the model called for each */
          g_assert_cmpuint (c.v[MS_SLOT_FIRST_FREE], ==, 12);
          g_assert_cmpuint (c.v[MS_SLOT_WAVEFRONTS], ==, 2 + 1 + 1 + 1 + 1 + 2 + 2 + 1 + 2 + 1 + 1 + 1);
          g_assert_cmpuint (c.partial, ==, 1);
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/banks/word-strides", test_word_strides);
  g_test_add_func ("/banks/broadcast", test_broadcast);
  g_test_add_func ("/banks/two-words-one-bank", test_two_words_one_bank);
  g_test_add_func ("/banks/bytes", test_bytes);
  g_test_add_func ("/banks/float2", test_float2);
  g_test_add_func ("/banks/float2-stride2", test_float2_stride2);
  g_test_add_func ("/banks/float4", test_float4);
  g_test_add_func ("/banks/float4-stride2", test_float4_stride2);
  g_test_add_func ("/banks/worst-case", test_worst_case);
  g_test_add_func ("/banks/partial-masks", test_partial_masks);
  g_test_add_func ("/banks/paired-loads", test_paired_loads);
  g_test_add_func ("/banks/measured-h100", test_measured_h100);
  g_test_add_func ("/banks/mask-zero", test_mask_zero);
  g_test_add_func ("/banks/transpose", test_transpose);
  g_test_add_func ("/banks/xor-swizzle", test_xor_swizzle);
  g_test_add_func ("/banks/unordered", test_unordered);
  g_test_add_func ("/banks/memo", test_memo);
  g_test_add_func ("/banks/memo-stride-hint", test_memo_stride_hint);
  g_test_add_func ("/banks/distinct-banks", test_distinct_banks);
  g_test_add_func ("/banks/misaligned", test_misaligned);
  g_test_add_func ("/banks/cc1x", test_cc1x);
  g_test_add_func ("/banks/kepler64", test_kepler64);
  g_test_add_func ("/banks/odd-geometry", test_odd_geometry);
  g_test_add_func ("/banks/detail", test_detail);
  g_test_add_func ("/banks/arch-check", test_arch_check);
  g_test_add_func ("/banks/cost-add", test_cost_add);
  g_test_add_func ("/banks/random-vs-reference", test_random);
  g_test_add_func ("/banks/repeated-records", test_repeat_hint);

  return g_test_run ();
}
