/* cache.c - L1, L2 and DRAM traffic of global accesses: a stateful model
 * over the ordered access stream (model.h).
 *
 * Modelling assumptions (what this file does and does not simulate):
 *
 * - The L2 starts empty at the launch (as `--gpu` measures it: the L2 is
 *   flushed before each measured run) and what is still in it at the end
 *   is not written back: dirty data left in the L2 costs no DRAM bytes,
 *   as the H100 shows (kernels that write less than the L2 holds show
 *   almost no dram__bytes_write).
 * - Blocks run one after another in the stream order (stream.h), block b
 *   on SM b mod sm_count.  A real GPU runs many blocks at once and
 *   interleaves their accesses; where the reuse distance of data is close
 *   to a cache's capacity this order can make a hit a miss or the reverse.
 *   Concurrency is not modelled.
 * - L1: one per SM, of l1_bytes minus the shared memory the SM reserves
 *   (assumed: the largest carveout, shared_per_sm, which is what CUDA's
 *   occupancy calculator assumes by default), 128-byte lines of 32-byte
 *   sectors, 4 ways, LRU; loads allocate the sectors they miss; stores
 *   write through to the L2 and do not allocate (a line they hit stays);
 *   atomics are done at the L2 and drop the sector from the L1.  Each L1
 *   miss of a load is one L2 read sector (lts__t_sectors_srcunit_tex_op_read)
 *   and each store sector one L2 write sector (..._op_write).  Atomics are
 *   counted in neither (Nsight's op_atom/op_red).
 * - L2: one cache, l2_ways ways, 128-byte lines of 32-byte sectors, LRU
 *   within a set, sets chosen by a hash of the line address (the
 *   hardware's hash is not published), of the capacity a kernel whose
 *   blocks spread over every SM sees.  The H100's and H200's L2 is two
 *   halves that each cache the lines their own SMs use, a line used from
 *   both halves being held twice, so that is less than the whole:
 *   l2_seen_bytes where it was measured (the H200: 42 of its 60 MiB, the
 *   write-backs of copy from 3072^2 to 8192^2 within 0.4%), else one half
 *   (the H100: 25 MiB, fitted when --gpu's measurements still carried the
 *   profiler's own dirty lines).
 * - DRAM: a load that misses the L2 reads the dram_granularity-aligned
 *   chunk around its sector (64 bytes on the H100: measured, a sparse
 *   pattern reads 64 bytes per 32-byte sector) and counts the chunk's
 *   sectors that were not already in the L2.  Stores allocate in the L2
 *   without reading DRAM (partial sectors included: the L2 keeps byte
 *   masks); a dirty sector costs 32 DRAM write bytes when its line is
 *   evicted.  Every launch also reads launch_read_bytes (the kernel's code
 *   and constants: about 9 KB measured on the H100), added once at the end.
 * - Mapped host memory (zero-copy: a launch's buffers the runtime says are
 *   host memory, ms_model_run_set_host_memory) is not DRAM's: its loads
 *   pass the L1 as any, and what the L1 misses and every store cross the
 *   host link from the L2, which keeps none of it (host_read_bytes,
 *   host_write_bytes: 32 bytes a sector).  An access is the host's when
 *   its first active lane's address is.
 * - Traffic is charged to the site whose access caused it (an eviction's
 *   write-back to the access that evicted the line).
 * - A sampled run (arch->sample_fraction f < 1: only a share f of the
 *   blocks ran, emulator.h) keeps two L2s: the full one, whose DRAM reads
 *   are reported (data the blocks share, such as a GEMM's B, stays in it as
 *   it would in the whole run), and one of f times the size, whose
 *   write-backs are reported (the sample writes f of the output: the
 *   shrunk L2 sees the capacity pressure the whole run would).  Data that
 *   blocks outside the sample would have shared is read once per sampled
 *   block group and scaled, so DRAM reads are over-estimated for kernels
 *   whose neighbouring blocks share inputs (stencils, GEMMs: measured in
 *   docs/model.md, "Block sampling").
 */
#include "config.h"
#include "cache.h"

#include <string.h>

#include "coalescing.h"

#define LINE_SHIFT 7           /* 128-byte lines */
#define SECTOR_SHIFT 5         /* 32-byte sectors */
#define SECTORS_PER_LINE 4
#define L1_WAYS 4

/* One way of a set: a line and its sector bits, 16 bytes so a set's ways
 * sit together in the host's cache.  No field is a char: a store to one
 * would let the compiler assume it changed any memory, and reload. */
typedef struct {
  guint64 tag;      /* line address + 1; 0 = empty way */
  guint32 used;     /* last use, for LRU */
  guint16 valid;    /* sector bits */
  guint16 dirty;
} Way;

#define MEMO_SIZE 256   /* recently used lines (cache_memo: the top 8 bits of a hash) */

/* A set-associative cache of sectored lines, LRU within a set.  memo
 * remembers where recently used lines sit, so that the next use of a line
 * (the neighbouring warps of a block touch the same lines) skips the scan
 * of its set; an entry is only a hint, checked against the way's tag. */
typedef struct {
  Way *way;         /* [set * ways + w] */
  gpointer way_mem; /* its allocation (way is 64-byte aligned in it) */
  guint sets, ways;
  guint64 sets_m;   /* for x % sets without a division (cache_set) */
  guint64 clock;    /* the last stamp (below 2^32; 64 bits so that a store
                       to a way's stamp cannot alias it) */
  gsize *memo;      /* MEMO_SIZE entries; NULL for an L1 (l1_get, l1_find) */
} Cache;

/* memo: whether the cache has one (the L2s: an L1's set is one host line,
 * scanned as fast as a memo entry, and the memos of 132 L1s would be cold) */
static void
cache_init (Cache *c, guint64 bytes, guint ways, gboolean memo)
{
  guint64 lines = MAX (bytes >> LINE_SHIFT, 1);
  c->ways = (guint) MIN ((guint64) ways, lines);   /* a cache smaller than a set: fewer ways */
  c->sets = (guint) MAX (lines / ways, 1);
  c->sets_m = G_MAXUINT64 / c->sets + 1;
  /* aligned: an L1's set of 4 ways is one host cache line.  Not
   * g_aligned_alloc0, which writes every byte: calloc maps a large array
   * as untouched zero pages (an H100's L2 half is 3.2 MB of ways, 800 page
   * faults at start-up for a kernel that uses a few sets). */
  c->way_mem = g_malloc0_n ((gsize) c->sets * ways + 64 / sizeof (Way), sizeof (Way));
  c->way = (Way *) (((guintptr) c->way_mem + 63) & ~(guintptr) 63);
  c->memo = memo ? g_new0 (gsize, MEMO_SIZE) : NULL;
  c->clock = 0;
}

static void
cache_clear (Cache *c)
{
  g_free (c->way_mem);
  g_free (c->memo);
  memset (c, 0, sizeof *c);
}

/* sectors in a line's 4 sector bits */
static inline guint
bits_count (guint bits)
{
  static const guint8 n[16] = { 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4 };
  return n[bits & 15];
}

/* The set of a line: a 32-bit hash modulo sets, the modulo taken by
 * Lemire's multiply-shift, exact for 32-bit operands (a division costs
 * tens of cycles on every miss of the memo). */
static inline guint
cache_set (const Cache *c, guint64 line)
{
  guint32 h = (guint32) ((line * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32);
  guint64 low = c->sets_m * h;
  return (guint) (((unsigned __int128) low * c->sets) >> 64);
}

/* The next LRU time stamp.  After 2^32 uses the stamps restart (all ways
 * equally old once: a negligible error against a 32-bit stamp per way). */
static inline guint32
cache_tick (Cache *c)
{
  if (G_UNLIKELY (c->clock == G_MAXUINT32))
    {
      for (gsize i = 0; i < (gsize) c->sets * c->ways; i++)
        c->way[i].used = 0;
      c->clock = 0;
    }
  return ++c->clock;
}

static inline gsize *
cache_memo (Cache *c, guint64 line)
{
  return &c->memo[(line * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 56];
}

/* The L1 way holding line, or -1 (an L1 has no memo). */
static inline gssize
l1_find (Cache *c, guint64 line)
{
  gsize base = (gsize) cache_set (c, line) * c->ways;
  for (guint w = 0; w < c->ways; w++)
    if (c->way[base + w].tag == line + 1)
      {
        c->way[base + w].used = cache_tick (c);
        return (gssize) (base + w);
      }
  return -1;
}

/* The way holding line, put there if absent: one pass over the set finds
 * the line or the way to replace (an empty one, else the least recently
 * used).  .evicted gets the dirty sector bits of a replaced line (0 on a
 * hit or an empty way).  Returned by value, not through pointers: the
 * callers' loops keep it in registers. */
typedef struct {
  gsize way;
  guint evicted;
} Got;

/* The first way of line's set. */
static inline gsize
cache_base (const Cache *c, guint64 line)
{
  return (gsize) cache_set (c, line) * c->ways;
}

/* The scan of line's set of `ways` ways, whose first way is base (memo
 * NULL: no memo to update): the way holding line, put there if absent.
 * Inline where `ways` is a constant (set_get_unrolled); cache_get_set
 * otherwise. */
static inline __attribute__ ((always_inline)) Got
set_get (Cache *c, guint64 line, gsize *memo, gsize base, guint ways)
{
  gsize victim = base;
  for (guint w = 0; w < ways; w++)
    {
      gsize i = base + w;
      if (c->way[i].tag == line + 1)
        {
          c->way[i].used = cache_tick (c);
          if (memo)
            *memo = i;
          return (Got) { i, 0 };
        }
      if (c->way[i].tag == 0)
        {
          /* A set's ways fill in order (the first empty one is taken) and
           * are never emptied again: the ways after an empty one are empty
           * too, so the line is not there.  A cold L2 set is scanned up to
           * its first empty way, not through all 16 (callgrind, whole
           * runs: transpose_naive 1024^2 205.9 -> 196.9 M instructions,
           * transpose_padded 512^2 -2.5%). */
          victim = i;
          break;
        }
      if (c->way[i].used < c->way[victim].used)
        victim = i;
    }
  Way *v = &c->way[victim];
  guint evicted = v->tag ? v->dirty : 0;
  *v = (Way) { .tag = line + 1, .used = cache_tick (c) };
  if (memo)
    *memo = victim;
  return (Got) { victim, evicted };
}

static Got
cache_get_set (Cache *c, guint64 line, gsize *memo, gsize base)
{
  return set_get (c, line, memo, base, c->ways);
}

/* The scan unrolled for a cache of `ways` ways (a constant: an L1's 4, a
 * 16-way L2), the generic one for any other */
static inline __attribute__ ((always_inline)) Got
set_get_unrolled (Cache *c, guint64 line, gsize *memo, gsize base, guint ways)
{
  if (G_LIKELY (c->ways == ways))
    return set_get (c, line, memo, base, ways);
  return cache_get_set (c, line, memo, base);
}

/* cache_get with the line's set known (base: cache_base); past the memo,
 * the scan unrolled for `unrolled` ways (0: the generic scan, out of line,
 * where the inline copies are not worth their code) */
static inline __attribute__ ((always_inline)) Got
cache_get_at (Cache *c, guint64 line, gsize base, guint unrolled)
{
  gsize *memo = cache_memo (c, line);
  gsize m = *memo;
  if (c->way[m].tag == line + 1)
    {
      c->way[m].used = cache_tick (c);
      return (Got) { m, 0 };
    }
  if (unrolled)
    return set_get_unrolled (c, line, memo, base, unrolled);
  return cache_get_set (c, line, memo, base);
}

static inline __attribute__ ((always_inline)) Got
cache_get (Cache *c, guint64 line)
{
  return cache_get_at (c, line, cache_base (c, line), 0);
}

/* cache_get for an L1: its set of 4 ways is one host cache line, which
 * the scan reads as fast as the memo's entry and way (the memos of 132
 * L1s are 264 KiB that the blocks' round robin over the SMs keeps cold) */
static inline __attribute__ ((always_inline)) Got
l1_get (Cache *l1, guint64 line)
{
  return set_get_unrolled (l1, line, NULL, cache_base (l1, line), L1_WAYS);
}

/* The last store to a column (uniform_lines with a step: the 32 lines of
 * a transposed tile, which the next warps of the block store again) and
 * the L2 ways it left them in: the next store to the same lines checks
 * those ways, instead of a memo lookup a line.  step 0: none. */
typedef struct {
  guint64 first, step;
  gsize way[MS_WARP_SIZE];
} Column;

/* A site's last column load through an L1 (uniform_lines' column stepping
 * by whole lines: a warp walking down 32 rows, as syrk's B[j*M+k]) and the
 * L1 ways it left its lines in: its next load of the same lines checks
 * those ways instead of scanning 32 sets (load_column_again). */
typedef struct {
  const Cache *l1;   /* the L1 (NULL: none) */
  guint64 first, step;
  gsize way[MS_WARP_SIZE];
} LoadColumn;

#define LOAD_COLUMNS 16

/* The first line of a site's last global load and its step from the one
 * before (prefetch_next); the line its next load is likely to start at
 * (if guessed) and its sets' first ways in the L2 and in an L1 (all L1s
 * have the same sets), worked out for the prefetch and used again if the
 * guess holds.  By site: a loop's loads of two arrays each step alike,
 * one after the other (correlation's data[i*M+j1] and data[i*M+j2]). */
typedef struct {
  guint64 first, step;
  gboolean guessed;
  guint64 next;
  gsize l2_base, l1_base;
} LoadStream;

typedef struct {
  Cache l2;
  Column column;
  LoadStream loads[LOAD_COLUMNS];          /* by the load's site (its id's low bits) */
  LoadColumn load_columns[LOAD_COLUMNS];   /* likewise */
  Cache l2_small;       /* a sampled run's write-back L2 (sets == 0: none) */
  Cache **l1;           /* one per SM (NULL when the preset has no L1), each
                           made on the SM's first access */
  guint64 l1_bytes;
  guint n_sm;
  guint32 l1_block;     /* the block of the last access, and its SM's L1 */
  Cache *l1_last;
  guint chunk_sectors;  /* sectors DRAM reads per L2 miss */
  guint8 chunks[16];    /* dram_chunks of each set of missing sectors */
  gboolean on;          /* the preset has the figures (has_costs, an L2) */
  guint n_host;         /* mapped host memory: [host_base, host_end) */
  guint64 host_base[MS_MAX_HOST_RANGES], host_end[MS_MAX_HOST_RANGES];
} CacheState;

static guint8 dram_chunks (const CacheState *s, guint8 missing);

static gboolean
cache_applies (const MsArch *arch)
{
  return arch->has_costs && arch->l2_bytes > 0 && arch->line_bytes == 1 << LINE_SHIFT
         && arch->sector_bytes == 1 << SECTOR_SHIFT;
}

static void
cache_state_init (gpointer state, const MsArch *arch)
{
  CacheState *s = state;
  s->on = cache_applies (arch);
  if (!s->on)
    return;
  guint64 l2 = arch->l2_seen_bytes > 0 ? (guint64) arch->l2_seen_bytes
               : (guint64) arch->l2_bytes / (guint64) arch->l2_partitions;
  cache_init (&s->l2, l2, (guint) arch->l2_ways, TRUE);
  if (arch->sample_fraction > 0 && arch->sample_fraction < 1)
    cache_init (&s->l2_small, (guint64) ((double) l2 * arch->sample_fraction),
                (guint) arch->l2_ways, TRUE);
  s->chunk_sectors = (guint) arch->dram_granularity >> SECTOR_SHIFT;
  for (guint8 m = 0; m < 16; m++)
    s->chunks[m] = dram_chunks (s, m);
  gint64 l1 = (gint64) arch->l1_bytes - arch->shared_per_sm;
  if (arch->l1_bytes > 0 && l1 >= (L1_WAYS << LINE_SHIFT))
    {
      /* made when an SM is first used: all 132 of an H100 cost a small
       * kernel's start-up 0.4 ms of page faults, and a small grid uses few */
      s->n_sm = (guint) arch->sm_count;
      s->l1_bytes = (guint64) l1;
      s->l1 = g_new0 (Cache *, s->n_sm);
    }
}

static void
cache_state_clear (gpointer state)
{
  CacheState *s = state;
  if (!s->on)
    return;
  cache_clear (&s->l2);
  if (s->l2_small.sets)
    cache_clear (&s->l2_small);
  for (guint i = 0; s->l1 && i < s->n_sm; i++)
    if (s->l1[i] != NULL)
      {
        cache_clear (s->l1[i]);
        g_free (s->l1[i]);
      }
  g_free (s->l1);
}

/* The L2's way for line, inserted if absent (a write-back charged to v,
 * unless a sampled run's small L2 counts the write-backs). */
static inline __attribute__ ((always_inline)) gsize
l2_line (CacheState *s, guint64 line, guint64 *v)
{
  Got g = cache_get (&s->l2, line);
  if (s->l2_small.sets == 0)
    v[MS_SLOT_DRAM_WRITE] += (guint64) bits_count (g.evicted) << SECTOR_SHIFT;
  return g.way;
}

/* A sampled run's small L2: every line the L2 sees, its sectors `bits`
 * dirtied when `write`; its write-backs are the ones counted. */
static inline __attribute__ ((always_inline)) void
l2_small_line (CacheState *s, guint64 line, guint8 bits, gboolean write, guint64 *v)
{
  if (s->l2_small.sets == 0)
    return;
  Got g = cache_get (&s->l2_small, line);
  v[MS_SLOT_DRAM_WRITE] += (guint64) bits_count (g.evicted) << SECTOR_SHIFT;
  if (write)
    s->l2_small.way[g.way].dirty |= bits;
}

/* The sectors DRAM reads for the missing ones: their whole chunks
 * (s->chunks holds them all, made at the start). */
static guint8
dram_chunks (const CacheState *s, guint8 missing)
{
  guint8 chunks = 0, unit = (guint8) ((1u << s->chunk_sectors) - 1);
  for (guint first = 0; first < SECTORS_PER_LINE; first += s->chunk_sectors)
    if (missing & (unit << first))
      chunks |= (guint8) (unit << first);
  return chunks;
}

/* The sectors `want` of an L2 line read: those missing are read from DRAM
 * with the rest of their dram_granularity chunk. */
static inline __attribute__ ((always_inline)) void
l2_read (CacheState *s, guint64 line, guint8 want, guint64 *v)
{
  l2_small_line (s, line, want, FALSE, v);
  gsize w = l2_line (s, line, v);
  guint8 missing = want & (guint8) ~s->l2.way[w].valid;
  if (missing == 0)
    return;
  guint8 chunks = s->chunks[missing & 15];
  guint8 fetched = chunks & (guint8) ~s->l2.way[w].valid;
  v[MS_SLOT_DRAM_READ] += (guint64) bits_count (fetched) << SECTOR_SHIFT;
  s->l2.way[w].valid |= chunks;
}

static inline __attribute__ ((always_inline)) void
l2_write (CacheState *s, guint64 line, guint8 bits, guint64 *v)
{
  l2_small_line (s, line, bits, TRUE, v);
  gsize w = l2_line (s, line, v);
  s->l2.way[w].valid |= bits;
  s->l2.way[w].dirty |= bits;
}

/* One line's sectors `bits` of an access of op. */
static inline __attribute__ ((always_inline)) void
cache_line (CacheState *s, Cache *l1, MsOp op, guint64 line, guint8 bits, guint64 *v)
{
  if (op == MS_OP_LD)
    {
      if (l1)
        {
          gsize w = l1_get (l1, line).way;
          guint8 miss = bits & (guint8) ~l1->way[w].valid;
          l1->way[w].valid |= bits;
          bits = miss;
          if (bits == 0)
            return;
        }
      v[MS_SLOT_L2_READ] += bits_count (bits);
      l2_read (s, line, bits, v);
    }
  else if (op == MS_OP_ST)
    {
      v[MS_SLOT_L2_WRITE] += bits_count (bits);
      l2_write (s, line, bits, v);
    }
  else
    {
      if (l1)
        {
          gssize w = l1_find (l1, line);
          if (w >= 0)
            l1->way[w].valid &= (guint8) ~bits;
        }
      l2_read (s, line, bits, v);
      l2_write (s, line, bits, v);
    }
}

/* Adds a sector, not below the last one, to the n lines so far. */
static inline guint
add_sector (guint64 *lines, guint8 *bits, guint n, guint64 sector)
{
  if (n == 0 || lines[n - 1] != sector >> 2)
    {
      lines[n] = sector >> 2;
      bits[n++] = 0;
    }
  bits[n - 1] |= (guint8) (1u << (sector & 3));
  return n;
}

/* The lines of the bytes [first, first + len), len > 0, and their sectors'
 * bits; returns their number. */
static guint
span_lines (guint64 first, guint64 len, guint64 *lines, guint8 *bits)
{
  guint64 s0 = first >> SECTOR_SHIFT, s1 = (first + len - 1) >> SECTOR_SHIFT;
  guint n = 0;
  for (guint64 line = s0 >> 2; line <= s1 >> 2; line++)
    {
      guint lo = line == s0 >> 2 ? (guint) (s0 & 3) : 0;
      guint hi = line == s1 >> 2 ? (guint) (s1 & 3) : 3;
      lines[n] = line;
      bits[n++] = (guint8) (((2u << hi) - 1) & ~((1u << lo) - 1));
    }
  return n;
}

/* access_lines for a warp in one of ms_coalescing_uniform's patterns,
 * in closed form: a span's lines, or a column's line a lane (*step the
 * lines between lanes when the column steps by whole lines, so that every
 * lane has the same sector bits).  Returns 0 for any other access. */
static guint
uniform_lines (const MsWarpAccess *a, guint32 mask, guint64 *lines, guint8 *bits,
               guint64 *step)
{
  guint64 bytes;
  switch (ms_coalescing_uniform (a, mask, SECTOR_SHIFT, LINE_SHIFT, &bytes))
    {
    case MS_UNIFORM_SPAN:
      return span_lines (a->addr[__builtin_ctz (mask)], bytes, lines, bits);
    case MS_UNIFORM_COLUMN:
      {
        guint64 x = a->addr[0];
        for (guint l = 0; l < MS_WARP_SIZE; l++, x += bytes)
          {
            lines[l] = x >> LINE_SHIFT;
            bits[l] = (guint8) (1u << ((x >> SECTOR_SHIFT) & 3));
          }
        *step = bytes % (1u << LINE_SHIFT) == 0 ? bytes >> LINE_SHIFT : 0;
        return MS_WARP_SIZE;
      }
    case MS_UNIFORM_NONE:
      break;
    }
  return 0;
}

/* The lines an access touches, in ascending order, with the bits of the
 * sectors it touches in each; returns their number (*step as
 * uniform_lines, else 0).  A full warp stepping by one stride is counted
 * in closed form (uniform_lines).  Lanes each within one sector whose
 * sectors never go down in lane order (nearly every other pattern) give
 * them in one pass over the 32 lanes (a partial warp's inactive lanes
 * repeat an active neighbour's address: ms_coalescing_fill_forward), or
 * over its active lanes alone when they are few; any other access is
 * sorted by ms_coalescing_sectors. */
static guint
access_lines (const MsArch *arch, const MsWarpAccess *a, guint64 *lines, guint8 *bits,
              guint64 *step)
{
  guint32 mask = ms_warp_lanes (a->mask, arch->warp_size);
  *step = 0;
  if (mask == 0 || a->width == 0)
    return 0;
  guint n = uniform_lines (a, mask, lines, bits, step);
  if (n > 0)
    return n;
  /* sectors relative to the line of the first active lane's, in 32 bits
   * (r): lanes within one sector, in order, within 2^30 sectors */
  guint64 wm1 = (guint64) a->width - 1;
  guint32 r[MS_WARP_SIZE];
  guint nr = 0;
  guint64 base, chk = 0;
  guint32 down = 0;   /* sign bit: a step down */
  if (ms_lanes_count (mask) <= MS_COALESCING_SPARSE_LANES)
    {
      /* A few lanes (a divergent loop's stragglers): the active lanes
       * alone, which is what the 32 lanes below give (an inactive lane
       * repeats an active neighbour: no sector, no step down).  callgrind,
       * per_thread_sum (2.6 lanes a record): the cache model 395.5 -> 98.0
       * M instructions. */
      base = (a->addr[__builtin_ctz (mask)] >> SECTOR_SHIFT) & ~(guint64) (SECTORS_PER_LINE - 1);
      for (guint32 m = mask; m; m &= m - 1, nr++)
        {
          guint64 x = a->addr[__builtin_ctz (m)];
          guint64 s0 = x >> SECTOR_SHIFT, s1 = (x + wm1) >> SECTOR_SHIFT;
          chk |= (s0 ^ s1) | ((s0 - base) >> 30);
          r[nr] = (guint32) (s0 - base);
          down |= nr > 0 ? r[nr] - r[nr - 1] : 0;
        }
    }
  else
    {
      guint64 filled[MS_WARP_SIZE];
      const guint64 *addr = a->addr;
      if (mask != 0xFFFFFFFFu)
        {
          ms_coalescing_fill_forward (a, mask, filled);
          addr = filled;
        }
      base = (addr[0] >> SECTOR_SHIFT) & ~(guint64) (SECTORS_PER_LINE - 1);
      for (guint l = 0; l < MS_WARP_SIZE; l++)   /* vectorised */
        {
          guint64 s0 = addr[l] >> SECTOR_SHIFT, s1 = (addr[l] + wm1) >> SECTOR_SHIFT;
          chk |= (s0 ^ s1) | ((s0 - base) >> 30);
          r[l] = (guint32) (s0 - base);
        }
      for (guint l = 1; l < MS_WARP_SIZE; l++)
        down |= r[l] - r[l - 1];
      nr = MS_WARP_SIZE;
    }
  if (G_UNLIKELY (chk != 0 || (down >> 31) != 0))
    goto sorted;
  n = 0;
  guint32 line = r[0] >> 2;
  guint8 b = 0;
  for (guint l = 0; l < nr; l++)
    {
      if (r[l] >> 2 != line)
        {
          lines[n] = (base >> 2) + line;
          bits[n++] = b;
          line = r[l] >> 2;
          b = 0;
        }
      b |= (guint8) (1u << (r[l] & 3));
    }
  lines[n] = (base >> 2) + line;
  bits[n++] = b;
  return n;

sorted:;
  guint64 sectors[MS_COALESCING_MAX_SECTORS];
  guint k = ms_coalescing_sectors (arch, a, sectors);
  n = 0;
  for (guint i = 0; i < k; i++)
    n = add_sector (lines, bits, n, sectors[i]);
  return n;
}

/* A store to the column the last store wrote (uniform_lines' column
 * stepping by whole lines: a transposed tile's next row, a sector of the
 * same 32 lines), while its L2 ways still hold those lines: the ways'
 * updates of cache_get's hit, in lane order (the clock in a register, as
 * it cannot wrap), from the column's first line and step alone (no list
 * of lines and sector bits: callgrind, 36 -> 12 instructions a lane of
 * transpose_naive's stores).  Returns the lanes so
 * stored (all 32, or those before the first way that lost its line, for
 * the caller to finish), *written their L2 sectors. */
static guint
column_again (CacheState *s, const MsArch *arch, const MsWarpAccess *a, guint64 *written)
{
  Column *col = &s->column;
  guint64 bytes;
  if (col->step == 0 || a->width == 0 || s->l2.clock > G_MAXUINT32 - MS_WARP_SIZE
      || ms_coalescing_uniform (a, ms_warp_lanes (a->mask, arch->warp_size), SECTOR_SHIFT,
                                LINE_SHIFT, &bytes) != MS_UNIFORM_COLUMN
      || bytes != col->step << LINE_SHIFT || a->addr[0] >> LINE_SHIFT != col->first)
    return 0;
  guint8 b = (guint8) (1u << ((a->addr[0] >> SECTOR_SHIFT) & 3));
  guint64 line = col->first, clock = s->l2.clock;
  guint i = 0;
  for (; i < MS_WARP_SIZE; i++, line += col->step)
    {
      Way *w = &s->l2.way[col->way[i]];
      if (G_UNLIKELY (w->tag != line + 1))
        break;
      w->used = (guint32) ++clock;
      w->valid |= b;
      w->dirty |= b;
    }
  s->l2.clock = clock;
  *written = i;   /* one sector a lane */
  return i;
}

/* A load of the column its site loaded last through this L1 (lc), while
 * the ways still hold those lines with the sectors it wants: each lane an
 * L1 hit, the ways' updates of l1_get's hit in lane order (no set scan).
 * Returns the lanes so loaded (all 32, or those before the first that
 * would miss, for the caller to go on from). */
static guint
load_column_again (Cache *l1, LoadColumn *lc, const MsArch *arch, const MsWarpAccess *a)
{
  guint64 bytes;
  if (lc->l1 != l1 || lc->step == 0 || a->width == 0 || l1->clock > G_MAXUINT32 - MS_WARP_SIZE
      || a->addr[0] >> LINE_SHIFT != lc->first
      || ms_coalescing_uniform (a, ms_warp_lanes (a->mask, arch->warp_size), SECTOR_SHIFT,
                                LINE_SHIFT, &bytes) != MS_UNIFORM_COLUMN
      || bytes != lc->step << LINE_SHIFT)
    return 0;
  guint16 b = (guint16) (1u << ((a->addr[0] >> SECTOR_SHIFT) & 3));
  guint64 line = lc->first, clock = l1->clock;
  guint i = 0;
  for (; i < MS_WARP_SIZE; i++, line += lc->step)
    {
      Way *w = &l1->way[lc->way[i]];
      if (G_UNLIKELY (w->tag != line + 1 || (w->valid & b) == 0))
        break;
      w->used = (guint32) ++clock;
    }
  l1->clock = clock;
  return i;
}

/* Asks the host for the L2 set (and the SM's L1 set) of the line the next
 * load of a site is likely to start at: this load's first line plus the
 * step from the site's last one, when its two last loads stepped alike (a
 * warp after warp walk over an array: a reduction's input, a tile's rows).  The sets are
 * hashed over 3 MB of ways (an H100's L2 half, and 132 L1s as much): the
 * set a load misses in is rarely in the host's cache, and its scan waited
 * on the host's memory (perf, reduce_shfl: cache_get_set 14% of the
 * emulator's time at 3% of its instructions).  Only a hint: a wrong guess
 * costs a few instructions.  The L2 sets of the next load's other lines
 * (up to 4: an unaligned row's second) are asked for too. */
static inline void
prefetch_next (CacheState *s, LoadStream *ls, Cache *l1, const guint64 *lines, guint n)
{
  guint64 first = lines[0];
  guint64 step = first - ls->first;
  gboolean steady = step == ls->step && step != 0;
  ls->step = step;
  ls->first = first;
  ls->guessed = steady;
  if (!steady)
    return;
  guint64 next = first + step;
  ls->next = next;
  ls->l2_base = cache_base (&s->l2, next);
  const Way *set = &s->l2.way[ls->l2_base];
  for (guint w = 0; w < s->l2.ways; w += 64 / sizeof (Way))
    __builtin_prefetch (&set[w], 1, 3);
  if (l1)
    {
      ls->l1_base = cache_base (l1, next);
      __builtin_prefetch (&l1->way[ls->l1_base], 1, 3);
    }
  for (guint i = 1; i < MIN (n, 4); i++)
    {
      const Way *other = &s->l2.way[cache_base (&s->l2, lines[i] + step)];
      for (guint w = 0; w < s->l2.ways; w += 64 / sizeof (Way))
        __builtin_prefetch (&other[w], 1, 3);
    }
}

static void
cache_host_memory (gpointer state, const guint64 *base, const guint64 *bytes, guint n)
{
  CacheState *s = state;
  s->n_host = n;
  for (guint i = 0; i < n; i++)
    {
      s->host_base[i] = base[i];
      s->host_end[i] = base[i] + bytes[i];
    }
}

/* Whether the access's first active lane is in mapped host memory. */
static gboolean
in_host (const CacheState *s, const MsWarpAccess *a)
{
  guint64 addr = ms_access_first_addr (a);
  for (guint i = 0; i < s->n_host; i++)
    if (addr >= s->host_base[i] && addr < s->host_end[i])
      return TRUE;
  return FALSE;
}

/* An access of mapped host memory: loads through the L1 as any; the L2
 * passes what the L1 misses and every store to the host link, keeping
 * none of it (no DRAM bytes). */
static void
host_access (CacheState *s, Cache *l1, const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  guint64 lines[MS_COALESCING_MAX_SECTORS];
  guint8 bits[MS_COALESCING_MAX_SECTORS];
  guint64 step;
  guint n = access_lines (arch, a, lines, bits, &step);
  for (guint i = 0; i < n; i++)
    {
      guint want = bits[i];
      if (a->op == MS_OP_LD && l1)
        {
          Way *w1 = &l1->way[l1_get (l1, lines[i]).way];
          guint8 miss = want & (guint8) ~w1->valid;
          w1->valid |= want;
          want = miss;
        }
      guint64 sectors = bits_count (want);
      if (a->op != MS_OP_ST)
        {
          v[MS_SLOT_L2_READ] += a->op == MS_OP_LD ? sectors : 0;
          v[MS_SLOT_HOST_READ] += sectors << SECTOR_SHIFT;
        }
      if (a->op != MS_OP_LD)
        {
          v[MS_SLOT_L2_WRITE] += a->op == MS_OP_ST ? sectors : 0;
          v[MS_SLOT_HOST_WRITE] += sectors << SECTOR_SHIFT;
        }
    }
}

static void
cache_access (CacheState *s, const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  Cache *l1 = NULL;
  if (s->l1 != NULL)
    {
      /* an SM's L1 is made on its first access (start-up: not 132 before
       * the first block) */
      if (a->block != s->l1_block || s->l1_last == NULL)
        {
          /* a block's accesses come together: the division once a block */
          Cache **sm = &s->l1[a->block % s->n_sm];
          if (G_UNLIKELY (*sm == NULL))
            {
              *sm = g_new0 (Cache, 1);
              cache_init (*sm, s->l1_bytes, L1_WAYS, FALSE);
            }
          s->l1_block = a->block;
          s->l1_last = *sm;
        }
      l1 = s->l1_last;
    }
  if (G_UNLIKELY (s->n_host) && in_host (s, a))
    {
      host_access (s, l1, arch, a, v);
      return;
    }
  guint64 lines[MS_COALESCING_MAX_SECTORS];
  guint8 bits[MS_COALESCING_MAX_SECTORS];
  guint64 step, written = 0;
  gboolean store = a->op == MS_OP_ST && s->l2_small.sets == 0;
  guint done = store ? column_again (s, arch, a, &written) : 0;   /* lanes stored */
  if (done == MS_WARP_SIZE)
    {
      v[MS_SLOT_L2_WRITE] += written;
      return;
    }
  LoadColumn *lc = &s->load_columns[(guint) a->site->id % LOAD_COLUMNS];
  guint loaded = 0;   /* lanes loaded as L1 hits by load_column_again */
  if (a->op == MS_OP_LD && s->l2_small.sets == 0 && l1 != NULL)
    {
      loaded = load_column_again (l1, lc, arch, a);
      if (loaded == MS_WARP_SIZE)
        return;
    }
  guint n = access_lines (arch, a, lines, bits, &step);   /* one call: inlined */
  if (store)
    {
      /* cache_line's store for a whole access, the counts in registers:
       * the generic per-line path keeps them in memory (measured: replay
       * of transpose_naive 4096^2 680 -> 524 ms) */
      guint64 evicted = 0;
      Column *col = &s->column;
      /* the lanes column_again did not store (all, unless this is the last
       * column stored again and a way lost its line) */
      for (guint i = done; i < n; i++)
        {
          Got g = cache_get (&s->l2, lines[i]);
          Way *w = &s->l2.way[g.way];
          col->way[i] = g.way;
          written += bits_count (bits[i]);
          evicted += bits_count (g.evicted);
          w->valid |= bits[i];
          w->dirty |= bits[i];
        }
      col->first = step != 0 ? lines[0] : 0;
      col->step = step;
      v[MS_SLOT_L2_WRITE] += written;
      v[MS_SLOT_DRAM_WRITE] += evicted << SECTOR_SHIFT;
      return;
    }
  if (a->op == MS_OP_LD && s->l2_small.sets == 0)
    {
      /* cache_line's load likewise; the first line's sets as
       * prefetch_next guessed them, if it guessed this line */
      guint64 read = 0, fetched = 0, evicted = 0;
      LoadStream *ls = &s->loads[(guint) a->site->id % LOAD_COLUMNS];
      gboolean guessed = ls->guessed && n > 0 && lines[0] == ls->next;
      /* a column through the L1: its ways, for its site's next load */
      gboolean column = l1 != NULL && step != 0 && n == MS_WARP_SIZE;
      if (column)
        {
          /* (the ways of the lanes load_column_again loaded stay) */
          lc->l1 = l1;
          lc->first = lines[0];
          lc->step = step;
        }
      else
        lc->l1 = NULL;
      for (guint i = loaded; i < n; i++)
        {
          guint want = bits[i];
          gboolean at = i == 0 && guessed;
          if (l1)
            {
              gsize b1 = at ? ls->l1_base : cache_base (l1, lines[i]);
              gsize w1i = set_get_unrolled (l1, lines[i], NULL, b1, L1_WAYS).way;
              Way *w1 = &l1->way[w1i];
              if (column)
                lc->way[i] = w1i;
              guint8 miss = want & (guint8) ~w1->valid;
              w1->valid |= want;
              want = miss;
              if (want == 0)
                continue;
            }
          read += bits_count (want);
          Got g = cache_get_at (&s->l2, lines[i],
                                at ? ls->l2_base : cache_base (&s->l2, lines[i]), 16);
          Way *w = &s->l2.way[g.way];
          evicted += bits_count (g.evicted);
          guint8 missing = want & (guint8) ~w->valid;
          if (missing == 0)
            continue;
          guint8 chunks = s->chunks[missing & 15];
          fetched += bits_count (chunks & (guint8) ~w->valid);
          w->valid |= chunks;
        }
      v[MS_SLOT_L2_READ] += read;
      v[MS_SLOT_DRAM_READ] += fetched << SECTOR_SHIFT;
      v[MS_SLOT_DRAM_WRITE] += evicted << SECTOR_SHIFT;
      if (n > 0)
        prefetch_next (s, ls, l1, lines, n);
      return;
    }
  for (guint i = 0; i < n; i++)
    cache_line (s, l1, (MsOp) a->op, lines[i], bits[i], v);
}

/* An access, and for a load request how far it went: the L2 (it read a
 * sector there, none from DRAM) or DRAM (or mapped host memory).  The
 * time model's load rounds wait as long as their slowest load. */
static void
cache_ordered_cost (gpointer state, const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  CacheState *s = state;
  if (!s->on || a->space != MS_SPACE_GLOBAL)
    return;
  if (a->op != MS_OP_LD)
    {
      cache_access (s, arch, a, v);
      return;
    }
  guint64 l2 = v[MS_SLOT_L2_READ], far = v[MS_SLOT_DRAM_READ] + v[MS_SLOT_HOST_READ];
  cache_access (s, arch, a, v);
  if (v[MS_SLOT_DRAM_READ] + v[MS_SLOT_HOST_READ] != far)
    v[MS_SLOT_DRAM_LOADS]++;
  else if (v[MS_SLOT_L2_READ] != l2)
    v[MS_SLOT_L2_LOADS]++;
}

static void
cache_finish (gpointer state, const MsArch *arch, guint64 *launch_v)
{
  CacheState *s = state;
  if (s->on)
    launch_v[MS_SLOT_DRAM_READ] += (guint64) arch->launch_read_bytes;
}

static const MsCounterDef cache_counters[] = {
  { "l2_read_sectors", MS_SLOT_L2_READ, "lts__t_sectors_srcunit_tex_op_read.sum", TRUE },
  { "l2_write_sectors", MS_SLOT_L2_WRITE, "lts__t_sectors_srcunit_tex_op_write.sum", TRUE },
  { "dram_read_bytes", MS_SLOT_DRAM_READ, "dram__bytes_read.sum", TRUE },
  { "dram_write_bytes", MS_SLOT_DRAM_WRITE, "dram__bytes_write.sum", TRUE },
  /* no Nsight name of their own: Nsight counts them as L2 sectors of the
   * system-memory aperture (lts__t_sectors_aperture_sysmem_op_*), about
   * 1.5 a 32-byte sector on the H200's PCIe */
  { "host_read_bytes", MS_SLOT_HOST_READ, NULL, TRUE },
  { "host_write_bytes", MS_SLOT_HOST_WRITE, NULL, TRUE },
  /* the time model's: load requests by the farthest level they read */
  { "l2_load_requests", MS_SLOT_L2_LOADS, NULL, TRUE },
  { "dram_load_requests", MS_SLOT_DRAM_LOADS, NULL, TRUE },
  { NULL },
};

const MsModel ms_model_cache = {
  .name = "cache",
  .summary = "global memory: L1 misses to the L2, L2 sectors read and written, DRAM bytes "
             "(cold L2 at launch)",
  .space = MS_SPACE_GLOBAL,
  .counters = cache_counters,
  .state_size = sizeof (CacheState),
  .state_init = cache_state_init,
  .state_clear = cache_state_clear,
  .ordered_cost = cache_ordered_cost,
  .finish = cache_finish,
  .host_memory = cache_host_memory,
  .applies = cache_applies,
};
