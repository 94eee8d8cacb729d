/* test-coalescing.c - the global memory coalescing model (sim/models/coalescing.c).
 *
 * Every expected number below is derived by hand from the rule (BRIEF
 * section 4): sectors = distinct 32-byte sectors touched by the active
 * lanes' byte ranges [addr, addr + width); lines = distinct 128-byte lines;
 * requests = 1 per record with an active lane; bytes = width * active
 * lanes.  The arithmetic is in the comments.  A randomized test compares the
 * fast implementation with a brute-force reference on thousands of
 * accesses.
 */

#include <string.h>

#include <glib.h>

#include "coalescing.h"

#define FULL 0xFFFFFFFFu

/* The H100 numbers, filled by hand so that this test does not depend on
 * sim/arch/arch.c. */
static void
arch_h100 (MsArch *arch)
{
  /* the built-in preset, with the numbers these tests rely on spelled out */
  *arch = *ms_arch_default ();
  arch->description = (char *) "test H100";
  arch->warp_size = 32;
  arch->sector_bytes = 32;
  arch->line_bytes = 128;
  arch->banks = 32;
  arch->bank_bytes = 4;
  arch->phase_bytes = 128;
  arch->coalesce_lanes = 32;   /* a whole warp (ms_coalescing_arch_check) */
}

/* compute capability 1.3: the same sizes, half-warps, segment_rule=shrink */
static void
arch_cc13 (MsArch *arch)
{
  arch_h100 (arch);
  arch->coalesce_lanes = 16;
  arch->segment_rule = MS_SEGMENTS_SHRINK;
}

/* lane l at base + l * stride_bytes */
static void
make_strided (MsWarpAccess *a, guint width, guint32 mask, guint64 base,
              gint64 stride_bytes)
{
  memset (a, 0, sizeof *a);
  a->space = MS_SPACE_GLOBAL;
  a->op = MS_OP_LD;
  a->width = (guint8) width;
  a->mask = mask;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    a->addr[l] = (guint64) ((gint64) base + (gint64) l * stride_bytes);
}

static MsGlobalCost
cost_of (const MsArch *arch, const MsWarpAccess *a)
{
  MsGlobalCost c;
  memset (&c, 0xAB, sizeof c);   /* the function must overwrite all */
  ms_coalescing_cost (arch, a, &c);
  return c;
}

static void
check (const MsWarpAccess *a, guint64 requests, guint64 sectors,
       guint64 lines, guint64 bytes)
{
  MsArch arch;
  arch_h100 (&arch);
  MsGlobalCost c = cost_of (&arch, a);
  g_assert_cmpuint (c.requests, ==, requests);
  g_assert_cmpuint (c.sectors, ==, sectors);
  g_assert_cmpuint (c.lines, ==, lines);
  g_assert_cmpuint (c.bytes, ==, bytes);

  /* The sector list agrees with the count. */
  guint64 list[MS_COALESCING_MAX_SECTORS];
  g_assert_cmpuint (ms_coalescing_sectors (&arch, a, list), ==, sectors);
}

/* 4-byte loads, word stride s, base 256-aligned (as cudaMalloc's).  Lane l
 * covers bytes [4*s*l, 4*s*l + 4). */

static void
test_stride_1 (void)
{
  MsWarpAccess a;
  /* bytes 0..127: sectors 0..3 = 4; line 0 = 1; 32 * 4 = 128 bytes */
  make_strided (&a, 4, FULL, 0x10000, 4);
  check (&a, 1, 4, 1, 128);
}

static void
test_stride_2 (void)
{
  MsWarpAccess a;
  /* lane l at 8l, last lane bytes 248..251: bytes span 0..251, every
   * 32-byte sector holds 4 lanes: sectors 0..7 = 8; lines 0..1 = 2 */
  make_strided (&a, 4, FULL, 0x10000, 8);
  check (&a, 1, 8, 2, 128);
}

static void
test_stride_3 (void)
{
  MsWarpAccess a;
  /* lane l at 12l, last lane bytes 372..375: span 0..375; gaps between
   * lanes are 8 bytes < 32 so no sector is skipped: sectors 0..11
   * (375 / 32 = 11) = 12; lines 0..2 (375 / 128 = 2) = 3 */
  make_strided (&a, 4, FULL, 0x10000, 12);
  check (&a, 1, 12, 3, 128);
}

static void
test_stride_4 (void)
{
  MsWarpAccess a;
  /* lane l at 16l, 2 lanes per sector: span 0..499, sectors 0..15 = 16;
   * lines 0..3 = 4 */
  make_strided (&a, 4, FULL, 0x10000, 16);
  check (&a, 1, 16, 4, 128);
}

static void
test_stride_8 (void)
{
  MsWarpAccess a;
  /* lane l at 32l: one lane per sector: 32 sectors; lane l in line
   * 32l / 128 = l / 4: lines 0..7 = 8 */
  make_strided (&a, 4, FULL, 0x10000, 32);
  check (&a, 1, 32, 8, 128);
}

static void
test_stride_32 (void)
{
  MsWarpAccess a;
  /* lane l at 128l: one lane per sector and per line: 32 and 32 */
  make_strided (&a, 4, FULL, 0x10000, 128);
  check (&a, 1, 32, 32, 128);
}

static void
test_stride_large (void)
{
  MsWarpAccess a;
  /* any stride >= 8 words still gives 32 sectors: stride 1000 words =
   * 4000 bytes, every lane in its own sector and line */
  make_strided (&a, 4, FULL, 0x10000, 4000);
  check (&a, 1, 32, 32, 128);
}

static void
test_offset_one_word (void)
{
  MsWarpAccess a;
  /* 32 floats starting 1 word past a 128-byte boundary: bytes 4..131 ->
   * sectors 4/32 = 0 .. 131/32 = 4 = 5 sectors; lines 0 and 1 = 2 */
  make_strided (&a, 4, FULL, 0x10000 + 4, 4);
  check (&a, 1, 5, 2, 128);
}

static void
test_offset_half_line (void)
{
  MsWarpAccess a;
  /* bytes 64..191 (base 0x10000 + 64): sectors 2..5 = 4, still 4 sectors
   * (aligned to sectors) but lines 0 and 1 = 2 */
  make_strided (&a, 4, FULL, 0x10000 + 64, 4);
  check (&a, 1, 4, 2, 128);
}

static void
test_broadcast (void)
{
  MsWarpAccess a;
  /* all lanes one address: 1 sector, 1 line; still 32 lanes * 4 bytes */
  make_strided (&a, 4, FULL, 0x10000 + 1000, 0);
  check (&a, 1, 1, 1, 128);
}

static void
test_float4 (void)
{
  MsWarpAccess a;
  /* 16-byte lanes at 16l: bytes 0..511: sectors 0..15 = 16, lines 0..3 =
   * 4, one request, 512 bytes */
  make_strided (&a, 16, FULL, 0x10000, 16);
  check (&a, 1, 16, 4, 512);
}

static void
test_float2 (void)
{
  MsWarpAccess a;
  /* 8-byte lanes at 8l: bytes 0..255: sectors 0..7 = 8, lines 2, 256 B */
  make_strided (&a, 8, FULL, 0x10000, 8);
  check (&a, 1, 8, 2, 256);
}

static void
test_bytes (void)
{
  MsWarpAccess a;
  /* 1-byte lanes at l: bytes 0..31 = 1 sector, 1 line, 32 bytes */
  make_strided (&a, 1, FULL, 0x10000, 1);
  check (&a, 1, 1, 1, 32);
}

static void
test_shorts (void)
{
  MsWarpAccess a;
  /* 2-byte lanes at 2l: bytes 0..63 = sectors 0, 1 = 2; 1 line; 64 bytes */
  make_strided (&a, 2, FULL, 0x10000, 2);
  check (&a, 1, 2, 1, 64);
}

static void
test_bytes_strided (void)
{
  MsWarpAccess a;
  /* 1-byte lanes at 32l: one lane per sector: 32 sectors, lines 8 */
  make_strided (&a, 1, FULL, 0x10000, 32);
  check (&a, 1, 32, 8, 32);
}

static void
test_partial_mask (void)
{
  MsWarpAccess a;
  /* lanes 0..15 at stride 1: bytes 0..63 = 2 sectors, 1 line, 64 bytes */
  make_strided (&a, 4, 0x0000FFFFu, 0x10000, 4);
  check (&a, 1, 2, 1, 64);

  /* lanes 16..31: bytes 64..127 = sectors 2, 3 = 2 sectors */
  make_strided (&a, 4, 0xFFFF0000u, 0x10000, 4);
  check (&a, 1, 2, 1, 64);

  /* even lanes: bytes 0..3, 8..11, .., 120..123: all 4 sectors still
   * touched; 16 lanes = 64 bytes */
  make_strided (&a, 4, 0x55555555u, 0x10000, 4);
  check (&a, 1, 4, 1, 64);

  /* lanes 0 and 31 at stride 32 words (128 B): 2 sectors, 2 lines */
  make_strided (&a, 4, 0x80000001u, 0x10000, 128);
  check (&a, 1, 2, 2, 8);

  /* inactive lanes' addresses are garbage and must not count */
  make_strided (&a, 4, 0x0000000Fu, 0x10000, 4);
  for (guint l = 4; l < 32; l++)
    a.addr[l] = G_GUINT64_CONSTANT (0xDEADBEEF0000) + l * 4096;
  /* lanes 0..3: bytes 0..15, one sector */
  check (&a, 1, 1, 1, 16);
}

/* A partial warp whose active lanes share one address, as the producer
 * says (ms_stride_hint, stride 0: a broadcast under a divergent branch):
 * the span of the first active lane's bytes, the inactive lanes' garbage
 * not counted; the same as without the word. */
static void
test_partial_broadcast (void)
{
  MsWarpAccess a;
  make_strided (&a, 16, 0x0F0F0F00u, 0x10000 + 24, 0);
  for (guint l = 0; l < 32; l++)
    if (!(0x0F0F0F00u >> l & 1))
      a.addr[l] = G_GUINT64_CONSTANT (0xDEADBEEF0000) + l * 4096;
  /* bytes 24..39: sectors 0 and 1 of one line; 12 lanes of 16 bytes */
  check (&a, 1, 2, 1, 192);
  ms_stride_hint = (MsStrideHint) { &a, 0 };
  check (&a, 1, 2, 1, 192);
  guint64 bytes = 0;
  g_assert_cmpint (ms_coalescing_uniform (&a, 0x0F0F0F00u, 5, 7, &bytes), ==, MS_UNIFORM_SPAN);
  g_assert_cmpuint (bytes, ==, 16);
  /* a word on another record, or of a stride, says nothing of this one */
  MsWarpAccess other = a;
  ms_stride_hint = (MsStrideHint) { &other, 0 };
  g_assert_cmpint (ms_coalescing_uniform (&a, 0x0F0F0F00u, 5, 7, &bytes), ==, MS_UNIFORM_NONE);
  ms_stride_hint = (MsStrideHint) { &a, 16 };
  g_assert_cmpint (ms_coalescing_uniform (&a, 0x0F0F0F00u, 5, 7, &bytes), ==, MS_UNIFORM_NONE);
  ms_stride_hint.record = NULL;
}

static void
test_mask_zero (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, 0, 0x10000, 4);
  check (&a, 0, 0, 0, 0);
}

static void
test_misaligned (void)
{
  MsWarpAccess a;
  /* one lane, 4 bytes at 30: bytes 30..33 straddle sectors 0 and 1 */
  make_strided (&a, 4, 0x1, 0x10000 + 30, 0);
  check (&a, 1, 2, 1, 4);

  /* one lane, 8 bytes at 124: bytes 124..131 straddle sectors 3 and 4
   * and lines 0 and 1 */
  make_strided (&a, 8, 0x1, 0x10000 + 124, 0);
  check (&a, 1, 2, 2, 8);

  /* one lane, 16 bytes at 24: bytes 24..39: sectors 0, 1 */
  make_strided (&a, 16, 0x1, 0x10000 + 24, 0);
  check (&a, 1, 2, 1, 16);

  /* a warp of floats 2 bytes off: bytes 2..129: sectors 0..4 = 5, lines 2 */
  make_strided (&a, 4, FULL, 0x10000 + 2, 4);
  check (&a, 1, 5, 2, 128);

  /* a float2 warp 4 bytes off: bytes 4..259: sectors 0..8 = 9, lines 0..2 = 3 */
  make_strided (&a, 8, FULL, 0x10000 + 4, 8);
  check (&a, 1, 9, 3, 256);

  /* a float2 warp at 12-byte stride, base 0: lane l bytes 12l..12l+7; lane
   * 2 (24..31) ends a sector, lane 5 (60..67) straddles 1|2: the 8-byte
   * ranges leave no sector out, span 0..379: sectors 0..11 = 12, lines 3 */
  make_strided (&a, 8, FULL, 0x10000, 12);
  check (&a, 1, 12, 3, 256);
}

static void
test_unordered (void)
{
  MsWarpAccess a;
  /* reversed lanes, stride 1: the same bytes 0..127: 4 sectors, 1 line */
  make_strided (&a, 4, FULL, 0x10000 + 124, -4);
  check (&a, 1, 4, 1, 128);

  /* lane l reads word (l * 7) mod 32 (a permutation of 0..31): bytes
   * 0..127 again: 4 sectors, 1 line */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 0x10000 + 4 * ((l * 7) % 32);
  check (&a, 1, 4, 1, 128);

  /* even lanes at word 1024 + l, odd lanes at word l: sectors of words
   * 1..31 (0..3: each sector of 8 words holds 4 odd ones) and of words
   * 1024..1054 (128..131) = 8; lines: bytes 4..127 in line 0, bytes
   * 4096..4219 in line 32 = 2 */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 0x10000 + 4 * (l % 2 ? l : 1024 + l);
  check (&a, 1, 8, 2, 128);

  /* gather far apart: lane l at 1 MiB * ((l * 13) mod 32): 32 sectors,
   * 32 lines */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 0x10000 + (G_GUINT64_CONSTANT (1) << 20) * ((l * 13) % 32);
  check (&a, 1, 32, 32, 128);

  /* lanes far apart in address space but in order: two buffers 2^40 bytes
   * apart, lanes 0..15 in one, 16..31 in the other, stride 1:
   * 64 bytes in each = 2 + 2 sectors, 2 lines */
  for (guint l = 0; l < 32; l++)
    a.addr[l] = (l < 16 ? 0x10000 : (G_GUINT64_CONSTANT (1) << 40)) + 4 * (l % 16);
  check (&a, 1, 4, 2, 128);
}

static void
test_sector_list (void)
{
  MsArch arch;
  MsWarpAccess a;
  guint64 list[MS_COALESCING_MAX_SECTORS];
  arch_h100 (&arch);

  /* the 5-sector example: bytes 0x10004..0x10083 -> sectors 0x800..0x804 */
  make_strided (&a, 4, FULL, 0x10000 + 4, 4);
  g_assert_cmpuint (ms_coalescing_sectors (&arch, &a, list), ==, 5);
  for (guint i = 0; i < 5; i++)
    g_assert_cmpuint (list[i], ==, 0x800 + i);

  /* reversed lanes still give a sorted list */
  make_strided (&a, 4, FULL, 0x10000 + 124, -4);
  g_assert_cmpuint (ms_coalescing_sectors (&arch, &a, list), ==, 4);
  for (guint i = 0; i < 4; i++)
    g_assert_cmpuint (list[i], ==, 0x800 + i);

  make_strided (&a, 4, 0, 0x10000, 4);
  g_assert_cmpuint (ms_coalescing_sectors (&arch, &a, list), ==, 0);
}

static void
test_other_arch (void)
{
  MsArch arch;
  MsWarpAccess a;
  MsGlobalCost c;
  arch_h100 (&arch);
  /* a what-if arch with 64-byte sectors and 256-byte lines: floats at
   * stride 1 = bytes 0..127 = 2 sectors, 1 line; stride 2 words = bytes
   * 0..251 = 4 sectors, 1 line */
  arch.sector_bytes = 64;
  arch.line_bytes = 256;
  make_strided (&a, 4, FULL, 0x10000, 4);
  ms_coalescing_cost (&arch, &a, &c);
  g_assert_cmpuint (c.sectors, ==, 2);
  g_assert_cmpuint (c.lines, ==, 1);
  make_strided (&a, 4, FULL, 0x10000, 8);
  ms_coalescing_cost (&arch, &a, &c);
  g_assert_cmpuint (c.sectors, ==, 4);
  g_assert_cmpuint (c.lines, ==, 1);

  /* sizes that are not powers of two: 48-byte sectors, 96-byte lines:
   * floats at stride 1 from 0x10000 (= 65536 = 1365 * 48 + 16): bytes
   * 65536..65663 are in sectors 1365 .. 65663 / 48 = 1367 = 3 sectors and
   * lines 682 .. 683 (65536 / 96 = 682.67, 65663 / 96 = 683.99) = 2 */
  arch.sector_bytes = 48;
  arch.line_bytes = 96;
  make_strided (&a, 4, FULL, 0x10000, 4);
  ms_coalescing_cost (&arch, &a, &c);
  g_assert_cmpuint (c.sectors, ==, 3);
  g_assert_cmpuint (c.lines, ==, 2);

  /* a 16-lane warp: lanes 16..31 are ignored.  H100 sizes, stride 1:
   * bytes 0..63 = 2 sectors, 64 bytes */
  arch_h100 (&arch);
  arch.warp_size = 16;
  make_strided (&a, 4, FULL, 0x10000, 4);
  ms_coalescing_cost (&arch, &a, &c);
  g_assert_cmpuint (c.sectors, ==, 2);
  g_assert_cmpuint (c.bytes, ==, 64);
}

static void
test_arch_check (void)
{
  MsArch arch;
  g_autoptr (GError) error = NULL;
  arch_h100 (&arch);
  g_assert_true (ms_coalescing_arch_check (&arch, NULL));
  arch.sector_bytes = 8;
  g_assert_false (ms_coalescing_arch_check (&arch, &error));
  g_assert_nonnull (error);
  g_clear_error (&error);
  arch_h100 (&arch);
  arch.line_bytes = 100;
  g_assert_false (ms_coalescing_arch_check (&arch, &error));
  g_clear_error (&error);
  arch_h100 (&arch);
  arch.warp_size = 64;   /* checked once for every model, in the model table */
  arch.coalesce_lanes = 64;
  g_assert_true (ms_coalescing_arch_check (&arch, NULL));
  g_assert_false (ms_models_arch_check (&arch, &error));
  g_assert_nonnull (strstr (error->message, "warp_size 64"));
  g_clear_error (&error);

  /* the sector rule coalesces whole warps; the shrink rule takes groups
   * that tile the warp, with cc 1.2/1.3's 32- and 128-byte sizes */
  arch_h100 (&arch);
  arch.coalesce_lanes = 16;
  g_assert_false (ms_coalescing_arch_check (&arch, &error));
  g_assert_nonnull (strstr (error->message, "segment_rule=shrink"));
  g_clear_error (&error);
  arch_cc13 (&arch);
  g_assert_true (ms_coalescing_arch_check (&arch, NULL));
  arch.coalesce_lanes = 12;
  g_assert_false (ms_coalescing_arch_check (&arch, &error));
  g_assert_nonnull (strstr (error->message, "coalesce_lanes"));
  g_clear_error (&error);
  arch_cc13 (&arch);
  arch.line_bytes = 256;
  g_assert_false (ms_coalescing_arch_check (&arch, &error));
  g_assert_nonnull (strstr (error->message, "line_bytes=128"));
}

static void
test_cost_add (void)
{
  MsGlobalCost sum = { 0 }, b = { 1, 5, 2, 128 };
  ms_global_cost_add (&sum, &b);
  ms_global_cost_add (&sum, &b);
  g_assert_cmpuint (sum.requests, ==, 2);
  g_assert_cmpuint (sum.sectors, ==, 10);
  g_assert_cmpuint (sum.lines, ==, 4);
  g_assert_cmpuint (sum.bytes, ==, 256);
}

/* ---- randomized cross-check against a brute-force reference ---- */

/* Adds v to the set list[0..*n) unless present. */
static void
set_add (guint64 *list, guint *n, guint64 v)
{
  for (guint i = 0; i < *n; i++)
    if (list[i] == v)
      return;
  list[(*n)++] = v;
}

static void
reference_cost (const MsArch *arch, const MsWarpAccess *a, MsGlobalCost *c,
                guint64 *sorted_sectors, guint *n_sorted)
{
  guint64 sectors[16 * 32], lines[16 * 32];
  guint ns = 0, nl = 0, active = 0;
  guint ws = (guint) arch->warp_size;

  for (guint l = 0; l < ws && l < 32; l++)
    {
      if (!(a->mask & (1u << l)))
        continue;
      active++;
      for (guint64 b = a->addr[l]; b < a->addr[l] + a->width; b++)
        {
          set_add (sectors, &ns, b / (guint64) arch->sector_bytes);
          set_add (lines, &nl, b / (guint64) arch->line_bytes);
        }
    }
  c->requests = active > 0;
  c->sectors = ns;
  c->lines = nl;
  c->bytes = (guint64) active * a->width;
  c->transactions[0] = c->transactions[1] = c->transactions[2] = 0;

  /* sorted copy, by selection */
  for (guint i = 0; i < ns; i++)
    for (guint j = i + 1; j < ns; j++)
      if (sectors[j] < sectors[i])
        {
          guint64 t = sectors[i];
          sectors[i] = sectors[j];
          sectors[j] = t;
        }
  memcpy (sorted_sectors, sectors, ns * sizeof (guint64));
  *n_sorted = ns;
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

/* A random access of one of several shapes. */
static void
random_access (GRand *r, MsWarpAccess *a)
{
  static const guint widths[] = { 1, 2, 4, 8, 16 };
  guint width = widths[g_rand_int_range (r, 0, 5)];
  gboolean aligned = g_rand_int_range (r, 0, 4) != 0;
  guint64 base = 256 * (guint64) g_rand_int_range (r, 0, 1 << 20);
  guint64 mis = aligned ? 0 : (guint64) g_rand_int_range (r, 0, 16);
  static const gint64 strides[] = { 0, 1, 2, 3, 4, 8, 16, 17, 32, 33, -1, -2, 256, 1000, 4096 };

  memset (a, 0, sizeof *a);
  a->width = (guint8) width;
  a->mask = random_mask (r);
  switch (g_rand_int_range (r, 0, 6))
    {
    case 0: case 1:  /* strided, in elements */
      {
        gint64 s = strides[g_rand_int_range (r, 0, G_N_ELEMENTS (strides))];
        for (guint l = 0; l < 32; l++)
          a->addr[l] = (guint64) ((gint64) (base + (1u << 20) + mis) + s * (gint64) width * (gint64) l);
      }
      break;
    case 2:  /* gather in a small window */
      {
        gint32 span = g_rand_int_range (r, 1, 3000);
        for (guint l = 0; l < 32; l++)
          a->addr[l] = base + mis + width * (guint64) g_rand_int_range (r, 0, span);
      }
      break;
    case 3:  /* gather anywhere */
      for (guint l = 0; l < 32; l++)
        a->addr[l] = (((guint64) g_rand_int (r) << 16) ^ g_rand_int (r)) * (aligned ? width : 1);
      break;
    case 4:  /* xor swizzle within rows */
      {
        guint k = (guint) g_rand_int_range (r, 0, 32);
        guint row = (guint) g_rand_int_range (r, 1, 40);
        for (guint l = 0; l < 32; l++)
          a->addr[l] = base + mis + width * (guint64) (row * l + (l ^ k));
      }
      break;
    default:  /* few distinct addresses, random order */
      {
        guint64 pool[4];
        for (guint i = 0; i < 4; i++)
          pool[i] = base + mis + width * (guint64) g_rand_int_range (r, 0, 64);
        for (guint l = 0; l < 32; l++)
          a->addr[l] = pool[g_rand_int_range (r, 0, 4)];
      }
      break;
    }
  /* inactive lanes get garbage */
  for (guint l = 0; l < 32; l++)
    if (!(a->mask & (1u << l)) && g_rand_boolean (r))
      a->addr[l] = ((guint64) g_rand_int (r) << 32) | g_rand_int (r);
}

static void
test_random (void)
{
  MsArch archs[4];
  GRand *r = g_rand_new_with_seed (20240601);

  arch_h100 (&archs[0]);
  arch_h100 (&archs[1]);
  archs[1].sector_bytes = 64;
  archs[1].line_bytes = 512;
  arch_h100 (&archs[2]);
  archs[2].sector_bytes = 48;
  archs[2].line_bytes = 144;
  arch_h100 (&archs[3]);
  archs[3].warp_size = 16;

  for (guint i = 0; i < 20000; i++)
    {
      MsWarpAccess a;
      MsGlobalCost got, want;
      guint64 list[MS_COALESCING_MAX_SECTORS], want_list[16 * 32];
      guint n_want;
      const MsArch *arch = &archs[i % G_N_ELEMENTS (archs)];

      random_access (r, &a);
      memset (&got, 0x5A, sizeof got);
      ms_coalescing_cost (arch, &a, &got);
      reference_cost (arch, &a, &want, want_list, &n_want);
      if (memcmp (&got, &want, sizeof got) != 0)
        g_error ("access %u (arch %s sector %d, width %u, mask %08x): "
                 "got %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT
                 " want %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                 i, arch->name, arch->sector_bytes, a.width, a.mask,
                 got.requests, got.sectors, got.lines, got.bytes,
                 want.requests, want.sectors, want.lines, want.bytes);

      guint n = ms_coalescing_sectors (arch, &a, list);
      g_assert_cmpuint (n, ==, n_want);
      for (guint k = 0; k < n; k++)
        g_assert_cmpuint (list[k], ==, want_list[k]);
    }
  g_rand_free (r);
}

/* ---- compute capability 1.2/1.3: segment_rule=shrink ----
 *
 * The rule (seed 001; CUDA Programming Guide 2.x-3.x, cc 1.2/1.3), per
 * half-warp (16 lanes) of one instruction: the segment holding the lowest
 * unserved active lane's address (32 bytes for 1-byte words, 64 for
 * 2-byte, 128 for 4-, 8-, 16-byte) serves every unserved active lane whose
 * address is in it; 128 -> 64 bytes when only one half is used, 64 -> 32
 * likewise; repeat until the half-warp is served.  Expected values below
 * are worked out from that text, not from memsim. */

/* the cost under cc13; checks the segment list agrees with the counts */
static MsGlobalCost
cc13_cost (const MsWarpAccess *a, guint64 tx32, guint64 tx64, guint64 tx128)
{
  MsArch arch;
  arch_cc13 (&arch);
  MsGlobalCost c = cost_of (&arch, a);
  g_assert_cmpuint (c.transactions[0], ==, tx32);
  g_assert_cmpuint (c.transactions[1], ==, tx64);
  g_assert_cmpuint (c.transactions[2], ==, tx128);
  /* sectors = bytes moved / 32 */
  g_assert_cmpuint (c.sectors, ==, tx32 + 2 * tx64 + 4 * tx128);
  g_assert_cmpuint (c.requests, ==, a->mask != 0 ? 1 : 0);
  MsSegment seg[MS_COALESCING_MAX_SEGMENTS];
  g_assert_cmpuint (ms_coalescing_segments (&arch, a, seg), ==, tx32 + tx64 + tx128);
  return c;
}

/* Seed 001: threads 0-15 read 4-byte words from byte 116 (116..179).
 * Lane 0 (116) is in the 128-byte segment 0..127 with lanes 1, 2 (120,
 * 124): only bytes 116..127 are used, the upper half -> 64 bytes 64..127,
 * of which only the upper half -> 32 bytes 96..127.  Lane 3 (128) is the
 * lowest left: segment 128..255 serves lanes 3..15 (128..179), the lower
 * half -> 64 bytes 128..191; both of its halves (128..159, 160..179) are
 * used, so it stays 64.  96 bytes moved = 3 sectors; lines 0 and 1. */
static void
test_cc13_seed001 (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, 0x0000FFFFu, 0x10000 + 116, 4);
  MsGlobalCost c = cc13_cost (&a, 1, 1, 0);
  g_assert_cmpuint (c.sectors, ==, 3);
  g_assert_cmpuint (c.lines, ==, 2);
  g_assert_cmpuint (c.bytes, ==, 64);

  MsArch arch;
  arch_cc13 (&arch);
  MsSegment seg[MS_COALESCING_MAX_SEGMENTS];
  g_assert_cmpuint (ms_coalescing_segments (&arch, &a, seg), ==, 2);
  g_assert_cmpuint (seg[0].addr, ==, 0x10000 + 96);
  g_assert_cmpuint (seg[0].size, ==, 32);
  g_assert_cmpuint (seg[0].group, ==, 0);
  g_assert_cmpuint (seg[0].lanes, ==, 0x7);      /* lanes 0, 1, 2 */
  g_assert_cmpuint (seg[1].addr, ==, 0x10000 + 128);
  g_assert_cmpuint (seg[1].size, ==, 64);
  g_assert_cmpuint (seg[1].lanes, ==, 0xFFF8);   /* lanes 3..15 */

  /* the same under the sector rule: 3 sectors too (96..127, 128..159,
   * 160..191), and no transaction counts */
  arch_h100 (&arch);
  MsGlobalCost h = cost_of (&arch, &a);
  g_assert_cmpuint (h.sectors, ==, 3);
  g_assert_cmpuint (h.transactions[0] + h.transactions[1] + h.transactions[2], ==, 0);
  g_assert_cmpuint (ms_coalescing_segments (&arch, &a, seg), ==, 0);
}

/* Fully coalesced 4-byte words, full warp from a 256-aligned base:
 * half-warp 0 reads bytes 0..63, the lower half of segment 0..127 -> 64
 * bytes, both of whose halves are used; half-warp 1 reads 64..127, the
 * upper half -> 64 bytes.  Two 64-byte transactions, 128 bytes moved. */
static void
test_cc13_coalesced (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, FULL, 0x10000, 4);
  MsGlobalCost c = cc13_cost (&a, 0, 2, 0);
  g_assert_cmpuint (c.lines, ==, 1);
  g_assert_cmpuint (c.bytes, ==, 128);
}

/* 8-byte words: half-warp 0 reads 0..127 (both halves of segment 0) -> 128
 * bytes; half-warp 1 128..255 -> 128.  16-byte words: half-warp 0 reads
 * 0..255: lane 0's segment 0..127 serves lanes 0-7 (both halves used: 128),
 * lane 8's segment 128..255 lanes 8-15 (128); half-warp 1 likewise. */
static void
test_cc13_wide (void)
{
  MsWarpAccess a;
  make_strided (&a, 8, FULL, 0x10000, 8);
  cc13_cost (&a, 0, 0, 2);
  make_strided (&a, 16, FULL, 0x10000, 16);
  cc13_cost (&a, 0, 0, 4);
}

/* 4-byte words at stride 2 (lane l at 8l): half-warp 0 reads words in
 * 0..123, both halves of segment 0..127 -> 128; half-warp 1 128..251 ->
 * 128.  Two 128-byte transactions: 256 bytes moved for 128 used. */
static void
test_cc13_stride2 (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, FULL, 0x10000, 8);
  MsGlobalCost c = cc13_cost (&a, 0, 0, 2);
  g_assert_cmpuint (c.sectors, ==, 8);
}

/* A permutation within each half-warp's 64 bytes: cc 1.2+ coalesces any
 * order within a segment (cc 1.0/1.1 did not), so the same two 64-byte
 * transactions as in order. */
static void
test_cc13_permuted (void)
{
  static const guint perm[16] = { 5, 0, 15, 3, 9, 12, 1, 7, 14, 2, 11, 4, 8, 13, 6, 10 };
  MsWarpAccess a;
  make_strided (&a, 4, FULL, 0x10000, 4);
  for (guint l = 0; l < 32; l++)
    a.addr[l] = 0x10000 + 64 * (l / 16) + 4 * perm[l % 16];
  cc13_cost (&a, 0, 2, 0);
  /* all 32 lanes on one word: per half-warp one 32-byte transaction */
  make_strided (&a, 4, FULL, 0x10000 + 200, 0);
  cc13_cost (&a, 2, 0, 0);
}

/* 1-byte words use 32-byte segments: a full warp from 0 reads 0..15 in
 * half-warp 0 (segment 0..31) and 16..31 in half-warp 1 (segment 0..31
 * again, a second transaction): two 32-byte.  From byte 24: half-warp 0
 * reads 24..39 = segment 0..31 (lanes 0-7) and segment 32..63 (lanes
 * 8-15); half-warp 1 reads 40..55 in segment 32..63: three 32-byte.
 * 2-byte words use 64-byte segments: half-warp 0 reads 0..31, only the
 * lower half -> 32; half-warp 1 32..63, the upper half -> 32. */
static void
test_cc13_small_words (void)
{
  MsWarpAccess a;
  make_strided (&a, 1, FULL, 0x10000, 1);
  cc13_cost (&a, 2, 0, 0);
  make_strided (&a, 1, FULL, 0x10000 + 24, 1);
  cc13_cost (&a, 3, 0, 0);
  make_strided (&a, 2, FULL, 0x10000, 2);
  cc13_cost (&a, 2, 0, 0);
  /* 2-byte words at stride 2 (lane l at 4l): half-warp 0 reads 0..61,
   * both halves of segment 0..63 -> 64; half-warp 1 64..125 -> 64 */
  make_strided (&a, 2, FULL, 0x10000, 4);
  cc13_cost (&a, 0, 2, 0);
}

/* Lanes of one half-warp in two segments.  Lanes 0-7 read 4-byte words
 * 0..31, lanes 8-15 words 4096..4127: lane 0's segment 0..127 serves lanes
 * 0-7, only bytes 0..31 used -> 64 -> 32; lane 8's segment 4096.. serves
 * 8-15, likewise 32.  Interleaved (even lanes 0..31, odd lanes 128..159):
 * lane 0's segment takes the even lanes (32 bytes), lane 1's the odd ones
 * (32 bytes): still two transactions. */
static void
test_cc13_two_segments (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, 0x0000FFFFu, 0x10000, 4);
  for (guint l = 8; l < 16; l++)
    a.addr[l] = 0x10000 + 4096 + 4 * (l - 8);
  MsGlobalCost c = cc13_cost (&a, 2, 0, 0);
  g_assert_cmpuint (c.lines, ==, 2);
  for (guint l = 0; l < 16; l++)
    a.addr[l] = 0x10000 + (l % 2 ? 128 : 0) + 4 * (l / 2);
  cc13_cost (&a, 2, 0, 0);
}

/* Inactive lanes.  Coalesced 4-byte words with only lanes 0 and 31 active:
 * half-warp 0 lane 0 reads 0..3 -> 128 -> 64 (lower) -> 32 (lower);
 * half-warp 1 lane 31 reads 124..127 -> 64 (upper) -> 32 (upper): two
 * 32-byte.  Seed 001's pattern without lanes 0-2 (mask 0xFFF8): lane 3
 * (128) is the lowest active lane, segment 128..255 serves all, bytes
 * 128..179 -> 64: one 64-byte transaction.  Garbage in inactive lanes
 * changes nothing. */
static void
test_cc13_inactive (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, 0x80000001u, 0x10000, 4);
  for (guint l = 1; l < 31; l++)
    a.addr[l] = G_GUINT64_CONSTANT (0xDEADBEEF000) + 977 * l;
  cc13_cost (&a, 2, 0, 0);
  make_strided (&a, 4, 0x0000FFF8u, 0x10000 + 116, 4);
  a.addr[0] = 0x999999;
  cc13_cost (&a, 0, 1, 0);
}

/* A half-warp with no active lane issues nothing: coalesced 4-byte words
 * with lanes 16-31 active only: half-warp 0 nothing, half-warp 1 reads
 * 64..127 -> one 64-byte.  No active lane at all: no request either. */
static void
test_cc13_idle_half (void)
{
  MsWarpAccess a;
  make_strided (&a, 4, 0xFFFF0000u, 0x10000, 4);
  MsGlobalCost c = cc13_cost (&a, 0, 1, 0);
  g_assert_cmpuint (c.requests, ==, 1);
  make_strided (&a, 4, 0, 0x10000, 4);
  c = cc13_cost (&a, 0, 0, 0);
  g_assert_cmpuint (c.sectors, ==, 0);
  g_assert_cmpuint (c.bytes, ==, 0);
}

/* Randomized: the rule restated another way.  Since a segment serves every
 * unserved lane in it, a half-warp issues one transaction per distinct
 * segment its active lanes' addresses fall in, and the halving keeps the
 * smallest aligned block of 32, 64 or 128 bytes (at most the segment)
 * holding the bytes used in it. */
static void
cc13_reference (const MsWarpAccess *a, guint64 tx[3])
{
  guint64 size = a->width == 1 ? 32 : a->width == 2 ? 64 : 128;
  tx[0] = tx[1] = tx[2] = 0;
  for (guint g = 0; g < 2; g++)
    {
      guint64 segs[16], lo[16], hi[16];
      guint n = 0;
      for (guint l = 16 * g; l < 16 * g + 16; l++)
        {
          if (!(a->mask & (1u << l)))
            continue;
          guint64 seg = a->addr[l] / size;
          guint64 last = MIN (a->addr[l] + a->width - 1, seg * size + size - 1);
          guint k = 0;
          while (k < n && segs[k] != seg)
            k++;
          if (k == n)
            {
              segs[n] = seg;
              lo[n] = a->addr[l];
              hi[n++] = last;
            }
          lo[k] = MIN (lo[k], a->addr[l]);
          hi[k] = MAX (hi[k], last);
        }
      for (guint k = 0; k < n; k++)
        {
          guint64 t = size;
          while (t > 32 && lo[k] / (t / 2) == hi[k] / (t / 2))
            t /= 2;
          tx[t == 32 ? 0 : t == 64 ? 1 : 2]++;
        }
    }
}

static void
test_cc13_random (void)
{
  MsArch arch;
  GRand *r = g_rand_new_with_seed (20240713);
  arch_cc13 (&arch);
  for (guint i = 0; i < 20000; i++)
    {
      MsWarpAccess a;
      guint64 want[3];
      random_access (r, &a);
      MsGlobalCost got = cost_of (&arch, &a);
      cc13_reference (&a, want);
      for (guint k = 0; k < 3; k++)
        if (got.transactions[k] != want[k])
          g_error ("access %u (width %u, mask %08x): %u-byte transactions: got %" G_GUINT64_FORMAT
                   ", want %" G_GUINT64_FORMAT, i, a.width, a.mask, 32u << k,
                   got.transactions[k], want[k]);
      g_assert_cmpuint (got.sectors, ==, want[0] + 2 * want[1] + 4 * want[2]);
    }
  g_rand_free (r);
}

/* Global atomics (ATOM, RED): lanes on one address are served one per
 * pass (coalescing.c).  The expected sectors are what Nsight Compute
 * measured on the H100 for gpu/probes/atomic-lanes.cu: 32 lanes, lane l on
 * element (l % groups) * stride of an int array, RED and ATOM alike. */
static void
test_atomic_lanes (void)
{
  static const struct { guint groups, stride; guint64 sectors; } cases[] = {
    { 2, 1, 16 }, { 4, 1, 8 }, { 8, 1, 4 }, { 32, 1, 4 }, { 2, 8, 32 }, { 4, 8, 32 },
    { 8, 8, 32 }, { 16, 8, 32 }, { 32, 8, 32 }, { 2, 32, 32 }, { 4, 32, 32 }, { 16, 32, 32 },
  };
  MsArch arch;
  arch_h100 (&arch);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    for (int op = MS_OP_ATOMIC; op <= MS_OP_RED; op++)
      {
        MsWarpAccess a;
        make_strided (&a, 4, FULL, 1024, 0);
        a.op = (guint8) op;
        for (guint l = 0; l < 32; l++)
          a.addr[l] = 1024 + 4 * (l % cases[c].groups) * cases[c].stride;
        guint64 v[MS_SLOT_FIRST_FREE] = { 0 };
        ms_model_coalescing.cost (&arch, &a, v);
        g_assert_cmpuint (v[MS_SLOT_REQUESTS], ==, 1);
        g_assert_cmpuint (v[MS_SLOT_SECTORS], ==, cases[c].sectors);
      }
  /* one address for the whole warp: nvcc's aggregated atomic, one sector
   * (test_atomics' counters on the H100); half the lanes inactive changes
   * nothing */
  MsWarpAccess a;
  make_strided (&a, 4, 0x0000FFFFu, 4096, 0);
  a.op = MS_OP_RED;
  guint64 v[MS_SLOT_FIRST_FREE] = { 0 };
  ms_model_coalescing.cost (&arch, &a, v);
  g_assert_cmpuint (v[MS_SLOT_SECTORS], ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/coalescing/stride-1", test_stride_1);
  g_test_add_func ("/coalescing/stride-2", test_stride_2);
  g_test_add_func ("/coalescing/stride-3", test_stride_3);
  g_test_add_func ("/coalescing/stride-4", test_stride_4);
  g_test_add_func ("/coalescing/stride-8", test_stride_8);
  g_test_add_func ("/coalescing/stride-32", test_stride_32);
  g_test_add_func ("/coalescing/stride-large", test_stride_large);
  g_test_add_func ("/coalescing/offset-one-word", test_offset_one_word);
  g_test_add_func ("/coalescing/offset-half-line", test_offset_half_line);
  g_test_add_func ("/coalescing/broadcast", test_broadcast);
  g_test_add_func ("/coalescing/float4", test_float4);
  g_test_add_func ("/coalescing/float2", test_float2);
  g_test_add_func ("/coalescing/bytes", test_bytes);
  g_test_add_func ("/coalescing/shorts", test_shorts);
  g_test_add_func ("/coalescing/bytes-strided", test_bytes_strided);
  g_test_add_func ("/coalescing/partial-mask", test_partial_mask);
  g_test_add_func ("/coalescing/partial-broadcast", test_partial_broadcast);
  g_test_add_func ("/coalescing/mask-zero", test_mask_zero);
  g_test_add_func ("/coalescing/misaligned", test_misaligned);
  g_test_add_func ("/coalescing/unordered", test_unordered);
  g_test_add_func ("/coalescing/sector-list", test_sector_list);
  g_test_add_func ("/coalescing/other-arch", test_other_arch);
  g_test_add_func ("/coalescing/arch-check", test_arch_check);
  g_test_add_func ("/coalescing/cost-add", test_cost_add);
  g_test_add_func ("/coalescing/random-vs-reference", test_random);
  g_test_add_func ("/coalescing/cc13/seed001", test_cc13_seed001);
  g_test_add_func ("/coalescing/cc13/coalesced", test_cc13_coalesced);
  g_test_add_func ("/coalescing/cc13/wide-words", test_cc13_wide);
  g_test_add_func ("/coalescing/cc13/stride-2", test_cc13_stride2);
  g_test_add_func ("/coalescing/cc13/permuted", test_cc13_permuted);
  g_test_add_func ("/coalescing/cc13/small-words", test_cc13_small_words);
  g_test_add_func ("/coalescing/cc13/two-segments", test_cc13_two_segments);
  g_test_add_func ("/coalescing/cc13/inactive-lanes", test_cc13_inactive);
  g_test_add_func ("/coalescing/cc13/idle-half-warp", test_cc13_idle_half);
  g_test_add_func ("/coalescing/cc13/random-vs-reference", test_cc13_random);
  g_test_add_func ("/coalescing/atomic-lanes", test_atomic_lanes);

  return g_test_run ();
}
