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
  static const gint64 strides[] = { 0, 1, 2, 3, 4, 8, 16, 17, 32, 33, -1, -2, 1000 };

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
  g_test_add_func ("/coalescing/mask-zero", test_mask_zero);
  g_test_add_func ("/coalescing/misaligned", test_misaligned);
  g_test_add_func ("/coalescing/unordered", test_unordered);
  g_test_add_func ("/coalescing/sector-list", test_sector_list);
  g_test_add_func ("/coalescing/other-arch", test_other_arch);
  g_test_add_func ("/coalescing/arch-check", test_arch_check);
  g_test_add_func ("/coalescing/cost-add", test_cost_add);
  g_test_add_func ("/coalescing/random-vs-reference", test_random);

  return g_test_run ();
}
