/* access.c - descriptors of the access-pattern family (access.cu). */
#include "config.h"
#include "access-limits.h"
#include "entries.h"
#include "problem.h"

#include <string.h>

#define GIB (G_GINT64_CONSTANT (1) << 30)

/* Random bytes (for 1- and 2-byte elements); wider ones get floats. */
static void
fill_elements (MsProblem *p, void *buf, gsize n, guint width)
{
  if (width >= 4)
    {
      ms_fill_floats (p, buf, n * width / 4);
      return;
    }
  g_autoptr (GRand) r = g_rand_new_with_seed (p->seed);
  guint8 *b = buf;
  for (gsize i = 0; i < n * width; i++)
    b[i] = (guint8) g_rand_int_range (r, 0, 256);
}

static gboolean
check_width (MsProblem *p, GError **error)
{
  gint64 w = ms_problem_param (p, "width");
  if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s parameter width: %" G_GINT64_FORMAT " is not 1, 2, 4, 8 or 16 bytes",
                   p->kernel->name, w);
      return FALSE;
    }
  return TRUE;
}

/* Compares n elements of `width` bytes. */
static gboolean
check_elements (const char *buffer, const guint8 *got, const guint8 *want, gsize n,
                guint width, GError **error)
{
  for (gsize i = 0; i < n; i++)
    if (memcmp (got + i * width, want + i * width, width) != 0)
      {
        g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_CHECK,
                     "output check failed: %s[%zu] differs from the expected %u-byte element",
                     buffer, i, width);
        return FALSE;
      }
  return TRUE;
}

/* 1D grid of n threads */
static void
grid_1d (MsProblem *p, gint64 n)
{
  p->args.grid[0] = ms_div_up ((guint64) n, p->args.block[0]);
  p->args.grid[1] = p->args.grid[2] = 1;
}

/* ------------------------------------------------------------ matrix_add */

static const MsParamSpec matrix_add_params[] = {
  { "width", "columns (nx)", 1024, 1, 1 << 14 },
  { "height", "rows (ny)", 1024, 1, 1 << 14 },
  { NULL },
};

/* Buffers: C (output), A, B; args: nx, ny. */
static gboolean
matrix_add_setup (MsProblem *p, GError **error)
{
  gint64 nx = ms_problem_param (p, "width"), ny = ms_problem_param (p, "height");
  gsize n = (gsize) (nx * ny);
  if (!ms_problem_buffer (p, "C", n * sizeof (float), TRUE, error))
    return FALSE;
  float *a = ms_problem_buffer (p, "A", n * sizeof (float), FALSE, error);
  if (a == NULL)
    return FALSE;
  float *b = ms_problem_buffer (p, "B", n * sizeof (float), FALSE, error);
  if (b == NULL)
    return FALSE;
  ms_fill_floats (p, a, n);
  p->seed++;   /* B differs from A */
  ms_fill_floats (p, b, n);
  p->seed--;
  p->args.i[0] = nx;
  p->args.i[1] = ny;
  p->args.grid[0] = ms_div_up ((guint64) nx, p->args.block[0]);
  p->args.grid[1] = ms_div_up ((guint64) ny, p->args.block[1]);
  p->args.grid[2] = 1;
  return TRUE;
}

static gboolean
matrix_add_check (MsProblem *p, GError **error)
{
  gsize n = (gsize) (p->args.i[0] * p->args.i[1]);
  const float *a = p->args.buf[1], *b = p->args.buf[2];
  g_autofree float *want = g_new (float, n);
  for (gsize i = 0; i < n; i++)
    want[i] = a[i] + b[i];
  return ms_check_floats (p, "C", p->args.buf[0], want, n, 0.0, error);
}

/* ----------------------------------------------------------- gmem_stride */

static const MsParamSpec gmem_stride_params[] = {
  { "n", "threads; thread i loads element i*stride + offset", 1 << 16, 1, 1 << 24 },
  { "stride", "elements between neighbouring threads' loads (0: all load one element)", 1, 0,
    1 << 12 },
  { "offset", "elements before thread 0's (shifts the warp against the 32-byte sectors)", 0, 0,
    1 << 20 },
  { "width", "bytes per element: 1, 2, 4, 8 or 16 (uint8_t, uint16_t, float, float2, float4)",
    4, 1, 16 },
  { NULL },
};

/* Buffers: out (n elements), in ((n-1)*stride + offset + 1 elements);
 * args: n, stride, offset, width. */
static gboolean
gmem_stride_setup (MsProblem *p, GError **error)
{
  if (!check_width (p, error))
    return FALSE;
  gint64 n = ms_problem_param (p, "n"), stride = ms_problem_param (p, "stride"),
         offset = ms_problem_param (p, "offset"), width = ms_problem_param (p, "width");
  gint64 in_elems = (n - 1) * stride + offset + 1;
  if (in_elems * width > GIB)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "gmem_stride: n*stride*width is over 1 GiB of input; lower n or stride");
      return FALSE;
    }
  if (!ms_problem_buffer (p, "out", (gsize) (n * width), TRUE, error))
    return FALSE;
  void *in = ms_problem_buffer (p, "in", (gsize) (in_elems * width), FALSE, error);
  if (in == NULL)
    return FALSE;
  fill_elements (p, in, (gsize) in_elems, (guint) width);
  p->args.i[0] = n;
  p->args.i[1] = stride;
  p->args.i[2] = offset;
  p->args.i[3] = width;
  grid_1d (p, n);
  return TRUE;
}

static gboolean
gmem_stride_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0], stride = p->args.i[1], offset = p->args.i[2];
  guint width = (guint) p->args.i[3];
  const guint8 *in = p->args.buf[1];
  g_autofree guint8 *want = g_new (guint8, n * width);
  for (gint64 i = 0; i < n; i++)
    memcpy (want + i * width, in + (i * stride + offset) * width, width);
  return check_elements ("out", p->args.buf[0], want, (gsize) n, width, error);
}

/* ----------------------------------------------------------- smem_stride */

static const char *const stride_op_names[] = { "ld", "st", NULL };
static const char *const gather_op_names[] = { "ld", "st", "atomic", NULL };

static const MsParamSpec smem_stride_params[] = {
  { "n", "threads (each does one strided shared access)", 1 << 14, 1, 1 << 24 },
  { "stride", "elements between neighbouring lanes (0: all lanes of a warp on one element; "
              "at most 64 for 16-byte elements)", 1, 0, SMEM_MAX_STRIDE },
  { "width", "bytes per element: 1, 2, 4, 8 or 16 (uint8_t, uint16_t, float, float2, float4)",
    4, 1, 16 },
  { "op", "the strided access: ld (0, load, after a coalesced fill) or st (1, store, then "
          "load back)", 0, 0, 1, stride_op_names },
  { NULL },
};

/* Buffers: out (n elements), in (elems elements: the fill); args: n,
 * stride, op, width, elems = 32*stride + warps per block (one past the
 * largest index lane*stride + warp). */
static gboolean
smem_stride_setup (MsProblem *p, GError **error)
{
  if (!check_width (p, error))
    return FALSE;
  gint64 n = ms_problem_param (p, "n"), stride = ms_problem_param (p, "stride"),
         width = ms_problem_param (p, "width");
  if (stride > SMEM_MAX_STRIDE_OF_WIDTH (width))
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "smem_stride: stride %" G_GINT64_FORMAT " is over %d, the largest for "
                   "%" G_GINT64_FORMAT "-byte elements (their shared array must fit in 48 KB); "
                   "use -p stride=%d or less, or a narrower width", stride,
                   SMEM_MAX_STRIDE_OF_WIDTH (width), width, SMEM_MAX_STRIDE_OF_WIDTH (width));
      return FALSE;
    }
  gint64 elems = 32 * stride + ms_div_up (p->args.block[0], 32);
  if (!ms_problem_buffer (p, "out", (gsize) (n * width), TRUE, error))
    return FALSE;
  void *in = ms_problem_buffer (p, "in", (gsize) (elems * width), FALSE, error);
  if (in == NULL)
    return FALSE;
  fill_elements (p, in, (gsize) elems, (guint) width);
  p->args.i[0] = n;
  p->args.i[1] = stride;
  p->args.i[2] = ms_problem_param (p, "op");
  p->args.i[3] = width;
  p->args.i[4] = elems;
  grid_1d (p, n);
  return TRUE;
}

/* The value op 1 stores at element idx, as smem_stride_<width> makes it. */
static void
smem_stored_value (guint8 *to, guint idx, guint width)
{
  switch (width)
    {
    case 1: { guint8 v = (guint8) idx; memcpy (to, &v, 1); break; }
    case 2: { guint16 v = (guint16) idx; memcpy (to, &v, 2); break; }
    case 4: { float v = (float) idx; memcpy (to, &v, 4); break; }
    case 8: { float v[2] = { (float) idx, -(float) idx }; memcpy (to, v, 8); break; }
    default: { float v[4] = { (float) idx, -(float) idx, 0.5f, 1.0f }; memcpy (to, v, 16); break; }
    }
}

static gboolean
smem_stride_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0], stride = p->args.i[1], op = p->args.i[2];
  guint width = (guint) p->args.i[3], block = p->args.block[0];
  const guint8 *in = p->args.buf[1];
  g_autofree guint8 *want = g_new (guint8, n * width);
  for (gint64 g = 0; g < n; g++)
    {
      guint tid = (guint) (g % block);
      guint idx = (tid % 32) * (guint) stride + tid / 32;
      if (op == 0)
        memcpy (want + g * width, in + (gsize) idx * width, width);
      else
        smem_stored_value (want + g * width, idx, width);
    }
  return check_elements ("out", p->args.buf[0], want, (gsize) n, width, error);
}

/* ----------------------------------------------------------- smem_gather */

#define GATHER_ELEMS 256   /* the shared tile's elements, as in access.cu */

/* The named patterns: lane l accesses element pattern[l].  R = 128 / width
 * is the number of elements in one 128-byte row of the 32 banks (32, 16,
 * 8 for 4, 8, 16 bytes), so elements e and e + R share banks. */
enum {
  GATHER_IDENTITY, GATHER_BROADCAST, GATHER_HALF_REPEAT, GATHER_PAIRS, GATHER_QUARTER_REPEAT,
  GATHER_QUADS, GATHER_HALVES_CONFLICT, GATHER_PERMUTATION, GATHER_STRIDE2_INTERLEAVED,
  GATHER_STRIDE2_HALF0, GATHER_TWO_ELEMENTS, GATHER_TWO_ROWS, GATHER_RANDOM,
  GATHER_PAIRS_IDENTITY, GATHER_PAIRS_OVERLAP, GATHER_PAIRS_OVERLAP_CONFLICT,
  GATHER_PAIRS_IDENTITY_CONFLICT, GATHER_IDENTITY_PAIRS, GATHER_STRIDE2, GATHER_COLUMN,
  GATHER_STRIDE8, GATHER_N_PATTERNS
};

/* A fixed random permutation of 0..31 and 32 fixed random elements of
 * 0..63 (with repeats). */
static const int gather_permutation[32] = {
  28, 9, 19, 10, 29, 5, 7, 22, 0, 14, 8, 15, 23, 24, 21, 13,
  25, 27, 6, 16, 26, 18, 11, 3, 17, 2, 1, 31, 12, 4, 30, 20,
};
static const int gather_random[32] = {
  57, 59, 57, 24, 23, 60, 23, 12, 57, 38, 18, 11, 5, 50, 57, 20,
  1, 8, 7, 4, 24, 30, 3, 59, 41, 56, 25, 29, 37, 63, 0, 10,
};

/* Element of lane l in pattern `pattern` for `width`-byte elements (all
 * below GATHER_ELEMS). */
static int
gather_element (guint pattern, guint width, guint l)
{
  int r = (int) (128 / width), li = (int) l;
  switch (pattern)
    {
    case GATHER_IDENTITY: return li;
    case GATHER_BROADCAST: return 0;
    case GATHER_HALF_REPEAT: return li % 16;
    case GATHER_PAIRS: return li / 2;
    case GATHER_QUARTER_REPEAT: return li % 8;
    case GATHER_QUADS: return li / 4;
    case GATHER_HALVES_CONFLICT:
      /* identity, but lanes 1, 9, 17, 25 (one per 8-lane quarter) take
       * element 2R + 0, 10, 20, 30: one more word on the banks of lanes 0,
       * 10, 20, 30 (different banks in each quarter and half) */
      return l % 8 == 1 ? 2 * r + 10 * (li / 8) : li;
    case GATHER_PERMUTATION: return gather_permutation[l];
    case GATHER_STRIDE2_INTERLEAVED: return l < 16 ? 2 * li : 2 * (li - 16) + 1;
    case GATHER_STRIDE2_HALF0: return l < 16 ? 2 * li : 32 + li;
    case GATHER_TWO_ELEMENTS: return l < 16 ? 0 : 1;
    case GATHER_TWO_ROWS: return l < 16 ? 0 : r;
    case GATHER_RANDOM: return gather_random[l];
    /* mixed: lanes 0-15 in pairs (l/2), lanes 16-31 one address each */
    case GATHER_PAIRS_IDENTITY: return l < 16 ? li / 2 : li;
    case GATHER_PAIRS_OVERLAP: return l < 16 ? li / 2 : li - 16;
    /* ... with lane 17 moved to a word on lane 16's banks: a 2-way
     * conflict among the distinct lanes */
    case GATHER_PAIRS_OVERLAP_CONFLICT: return l < 16 ? li / 2 : l == 17 ? 2 * r : li - 16;
    case GATHER_PAIRS_IDENTITY_CONFLICT: return l < 16 ? li / 2 : l == 17 ? 16 + 4 * r : li;
    case GATHER_IDENTITY_PAIRS: return l < 16 ? li : (li - 16) / 2;
    case GATHER_STRIDE2: return 2 * li;
    case GATHER_COLUMN: return (li * r) % GATHER_ELEMS;
    default: return (8 * li) % GATHER_ELEMS;   /* GATHER_STRIDE8 */
    }
}

/* -p pattern=NAME: the names of GATHER_* in order */
static const char *const gather_pattern_names[] = {
  "identity", "broadcast", "half-repeat", "pairs", "quarter-repeat", "quads", "halves-conflict",
  "permutation", "stride2-interleaved", "stride2-half0", "two-elements", "two-rows", "random",
  "pairs-identity", "pairs-overlap", "pairs-overlap-conflict", "pairs-identity-conflict",
  "identity-pairs", "stride2", "column", "stride8", NULL,
};
G_STATIC_ASSERT (G_N_ELEMENTS (gather_pattern_names) == GATHER_N_PATTERNS + 1);

static const MsParamSpec smem_gather_params[] = {
  { "n", "threads (each does one shared access of the pattern)", 1 << 14, 1, 1 << 24 },
  { "pattern", "lane l accesses element P(l), R = 128/width elements per 128-byte bank row: "
               "0 identity (l), 1 broadcast (0), 2 half-repeat (l%16), 3 pairs (l/2), "
               "4 quarter-repeat (l%8), 5 quads (l/4), 6 halves-conflict (l, but lanes 1, 9, 17, "
               "25 take 2R, 2R+10, 2R+20, 2R+30), 7 permutation (a fixed random one of 0..31), "
               "8 stride2-interleaved (l<16: 2l, else 2(l-16)+1), 9 stride2-half0 (l<16: 2l, else "
               "32+l), 10 two-elements (l<16: 0, else 1), 11 two-rows (l<16: 0, else R), 12 random "
               "(a fixed table of 0..63 with repeats), 13 pairs-identity (l<16: l/2, else l), "
               "14 pairs-overlap (l<16: l/2, else l-16), 15 pairs-overlap-conflict (14, but lane "
               "17 takes 2R), 16 pairs-identity-conflict (13, but lane 17 takes 16+4R), "
               "17 identity-pairs (l<16: l, else (l-16)/2), 18 stride2 (2l), 19 column "
               "(lR mod 256), 20 stride8 (8l mod 256)", 0, 0, GATHER_N_PATTERNS - 1,
    gather_pattern_names },
  { "width", "bytes per element: 4, 8 or 16 (float, float2, float4)", 4, 4, 16 },
  { "op", "the pattern access: ld (0, load, after a coalesced fill), st (1, store, then "
          "load back) or atomic (2, after the fill, atomicAdd of 1 to the element's bits as an "
          "int or, width 8, unsigned long long; then load back; widths 4 and 8 only)", 0, 0, 2,
    gather_op_names },
  { "mask", "active lanes: lanes 0 .. mask-1 of each warp access, the others output zero", 32,
    1, 32 },
  { NULL },
};

/* Buffers: out (n elements), in (GATHER_ELEMS elements: the fill), pattern
 * (32 ints); args: n, op, mask, width. */
static gboolean
smem_gather_setup (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "n"), width = ms_problem_param (p, "width");
  if (width != 4 && width != 8 && width != 16)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "smem_gather parameter width: %" G_GINT64_FORMAT " is not 4, 8 or 16 bytes",
                   width);
      return FALSE;
    }
  if (ms_problem_param (p, "op") == 2 && width == 16)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "smem_gather op=2 (atomic): width must be 4 or 8 bytes, not 16");
      return FALSE;
    }
  if (!ms_problem_buffer (p, "out", (gsize) (n * width), TRUE, error))
    return FALSE;
  void *in = ms_problem_buffer (p, "in", (gsize) (GATHER_ELEMS * width), FALSE, error);
  if (in == NULL)
    return FALSE;
  fill_elements (p, in, GATHER_ELEMS, (guint) width);
  int *pattern = ms_problem_buffer (p, "pattern", 32 * sizeof (int), FALSE, error);
  if (pattern == NULL)
    return FALSE;
  for (guint l = 0; l < 32; l++)
    pattern[l] = gather_element ((guint) ms_problem_param (p, "pattern"), (guint) width, l);
  p->args.i[0] = n;
  p->args.i[1] = ms_problem_param (p, "op");
  p->args.i[2] = ms_problem_param (p, "mask");
  p->args.i[3] = width;
  grid_1d (p, n);
  return TRUE;
}

static gboolean
smem_gather_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0], op = p->args.i[1], mask = p->args.i[2];
  guint width = (guint) p->args.i[3], block = p->args.block[0];
  const guint8 *in = p->args.buf[1];
  const int *pattern = p->args.buf[2];
  g_autofree guint8 *want = g_new0 (guint8, n * width);
  /* op 2: the adds one block makes to each element (every block is whole) */
  guint64 adds[GATHER_ELEMS] = { 0 };
  for (guint t = 0; op == 2 && t < block; t++)
    if (t % 32 < (guint) mask)
      adds[pattern[t % 32]]++;
  for (gint64 g = 0; g < n; g++)
    {
      guint lane = (guint) (g % block) % 32;
      guint e = (guint) pattern[lane];
      if (lane >= (guint) mask)
        continue;   /* zero */
      if (op == 2 && width == 4)
        {
          guint32 v;
          memcpy (&v, in + (gsize) e * 4, 4);
          v += (guint32) adds[e];
          memcpy (want + g * 4, &v, 4);
        }
      else if (op == 2)
        {
          guint64 v;
          memcpy (&v, in + (gsize) e * 8, 8);
          v += adds[e];
          memcpy (want + g * 8, &v, 8);
        }
      else if (op == 0)
        memcpy (want + g * width, in + (gsize) e * width, width);
      else
        smem_stored_value (want + g * width, e, width);
    }
  return check_elements ("out", p->args.buf[0], want, (gsize) n, width, error);
}

/* ------------------------------------------------- aos / soa / float3 */

static const MsParamSpec n_params[] = {
  { "n", "threads (one element each)", 1 << 16, 1, 1 << 24 },
  { NULL },
};

/* Buffers: out (n ints), records (n x {key, value, flag}); arg: n. */
static gboolean
aos_read_setup (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "n");
  if (!ms_problem_buffer (p, "out", (gsize) n * sizeof (int), TRUE, error))
    return FALSE;
  int *rec = ms_problem_buffer (p, "records", (gsize) n * 3 * sizeof (int), FALSE, error);
  if (rec == NULL)
    return FALSE;
  ms_fill_ints (p, rec, (gsize) n * 3, -1000000, 1000000);
  p->args.i[0] = n;
  grid_1d (p, n);
  return TRUE;
}

static gboolean
aos_read_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0];
  const int *rec = p->args.buf[1];
  g_autofree int *want = g_new (int, n);
  for (gint64 i = 0; i < n; i++)
    want[i] = rec[3 * i];   /* key is the first field */
  return ms_check_ints (p, "out", p->args.buf[0], want, (gsize) n, error);
}

/* Buffers: out, keys, values, flags (n ints each); arg: n. */
static gboolean
soa_read_setup (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "n");
  if (!ms_problem_buffer (p, "out", (gsize) n * sizeof (int), TRUE, error))
    return FALSE;
  const char *names[3] = { "keys", "values", "flags" };
  for (int f = 0; f < 3; f++)
    {
      int *a = ms_problem_buffer (p, names[f], (gsize) n * sizeof (int), FALSE, error);
      if (a == NULL)
        return FALSE;
      p->seed += (guint32) f;
      ms_fill_ints (p, a, (gsize) n, -1000000, 1000000);
      p->seed -= (guint32) f;
    }
  p->args.i[0] = n;
  grid_1d (p, n);
  return TRUE;
}

static gboolean
soa_read_check (MsProblem *p, GError **error)
{
  return ms_check_ints (p, "out", p->args.buf[0], p->args.buf[1], (gsize) p->args.i[0], error);
}

/* Buffers: out (n floats), input2 (n float3); arg: n. */
static gboolean
aos_float3_setup (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "n");
  if (!ms_problem_buffer (p, "out", (gsize) n * sizeof (float), TRUE, error))
    return FALSE;
  float *in = ms_problem_buffer (p, "input2", (gsize) n * 3 * sizeof (float), FALSE, error);
  if (in == NULL)
    return FALSE;
  ms_fill_floats (p, in, (gsize) n * 3);
  p->args.i[0] = n;
  grid_1d (p, n);
  return TRUE;
}

static gboolean
aos_float3_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0];
  const float *in = p->args.buf[1];
  g_autofree float *want = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    want[i] = in[3 * i];
  return ms_check_floats (p, "out", p->args.buf[0], want, (gsize) n, 0.0, error);
}

/* Buffers: out (n ints), in (one int per warp of the grid); arg: n. */
static gboolean
broadcast_setup (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "n");
  grid_1d (p, n);
  gsize threads = (gsize) p->args.grid[0] * p->args.block[0];
  gsize words = ms_div_up (threads, 32);
  if (!ms_problem_buffer (p, "out", (gsize) n * sizeof (int), TRUE, error))
    return FALSE;
  int *in = ms_problem_buffer (p, "in", words * sizeof (int), FALSE, error);
  if (in == NULL)
    return FALSE;
  ms_fill_ints (p, in, words, -1000000, 1000000);
  p->args.i[0] = n;
  return TRUE;
}

static gboolean
broadcast_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0];
  const int *in = p->args.buf[1];
  g_autofree int *want = g_new (int, n);
  for (gint64 i = 0; i < n; i++)
    want[i] = in[i / 32];
  return ms_check_ints (p, "out", p->args.buf[0], want, (gsize) n, error);
}

/* -------------------------------------------------------- per_thread_sum */

static const MsParamSpec per_thread_sum_params[] = {
  { "n", "rows (one thread each)", 65536, 1, 1 << 22 },
  { "peak", "length of the long rows: 1 row in 32 (at random) has this many elements, the "
            "others 0 to 8", 256, 0, 1 << 16 },
  { NULL },
};

static const MsParamSpec per_thread_sum_capped_params[] = {
  { "n", "rows", 65536, 1, 1 << 22 },
  { "peak", "length of the long rows: 1 row in 32 (at random) has this many elements, the "
            "others 0 to 8", 256, 0, 1 << 16 },
  { "cap", "most elements of its row a thread adds before the warp regroups (MAX_ITER)", 16, 1,
    1 << 20 },
  { "rows_per_thread", "rows per thread: the grid has n / rows_per_thread threads", 4, 1,
    1 << 16 },
  { NULL },
};

/* Buffers: sums (n floats, output), indices (n + 1 ints), data; args: n,
 * cap.  Row lengths are skewed: 1 row in 32 is `peak` long, the others
 * 0..8 elements. */
static gboolean
per_thread_sum_setup_common (MsProblem *p, gint64 threads, GError **error)
{
  gint64 n = ms_problem_param (p, "n"), peak = ms_problem_param (p, "peak");
  g_autofree int *lengths = g_new (int, n);
  g_autoptr (GRand) r = g_rand_new_with_seed (p->seed);
  gint64 total = 0;
  for (gint64 i = 0; i < n; i++)
    {
      lengths[i] = g_rand_int_range (r, 0, 32) == 0 ? (int) peak : g_rand_int_range (r, 0, 9);
      total += lengths[i];
    }
  if (total > (1 << 28))
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s: n * peak is too large (%" G_GINT64_FORMAT " elements); lower them",
                   p->kernel->name, total);
      return FALSE;
    }
  if (!ms_problem_buffer (p, "sums", (gsize) n * sizeof (float), TRUE, error))
    return FALSE;
  int *indices = ms_problem_buffer (p, "indices", (gsize) (n + 1) * sizeof (int), FALSE, error);
  if (indices == NULL)
    return FALSE;
  float *data = ms_problem_buffer (p, "data", (gsize) total * sizeof (float), FALSE, error);
  if (data == NULL)
    return FALSE;
  indices[0] = 0;
  for (gint64 i = 0; i < n; i++)
    indices[i + 1] = indices[i] + lengths[i];
  ms_fill_floats (p, data, (gsize) total);
  p->args.i[0] = n;
  grid_1d (p, threads);
  return TRUE;
}

static gboolean
per_thread_sum_setup (MsProblem *p, GError **error)
{
  return per_thread_sum_setup_common (p, ms_problem_param (p, "n"), error);
}

static gboolean
per_thread_sum_capped_setup (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "n"), per = ms_problem_param (p, "rows_per_thread");
  if (!per_thread_sum_setup_common (p, (n + per - 1) / per, error))
    return FALSE;
  p->args.i[1] = ms_problem_param (p, "cap");
  return TRUE;
}

/* Rows summed in index order, as each thread does: exact. */
static gboolean
per_thread_sum_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0];
  const int *indices = p->args.buf[1];
  const float *data = p->args.buf[2];
  g_autofree float *want = g_new (float, n);
  for (gint64 i = 0; i < n; i++)
    {
      float sum = 0.0f;
      for (int j = indices[i]; j < indices[i + 1]; j++)
        sum += data[j];
      want[i] = sum;
    }
  return ms_check_floats (p, "sums", p->args.buf[0], want, (gsize) n, 0.0, error);
}

/* ------------------------------------------------------------ the table */

#define ACCESS_KERNEL(kname, params_, size0, bx, by, rule, setup_fn, check_fn, orig, desc) \
  const MsKernel ms_kernel_##kname = {                                                     \
    .name = #kname, .family = "access", .origin = orig, .description = desc,              \
    .source = "access.cu", .params = params_, .size_params = size0,                        \
    .block = { bx, by, 1 }, .block_rule = rule, .setup = setup_fn, .check = check_fn,      \
    .bind_entry = ms_bind_entry_##kname,                                                     \
  };
#define N_SIZE { "n" }
#define WH_SIZE { "width", "height" }
#define SEED_001 "seed 001 (Lecture 5: Performance Considerations)"

ACCESS_KERNEL (matrix_add, matrix_add_params, WH_SIZE, 32, 32, MS_BLOCK_ANY, matrix_add_setup,
               matrix_add_check, "seed 002 (Appavoo, Intro to CUDA 2: matrixSumGPU)",
               "C = A + B, one element per thread: every access coalesced")
ACCESS_KERNEL (gmem_stride, gmem_stride_params, N_SIZE, 256, 1, MS_BLOCK_1D, gmem_stride_setup,
               gmem_stride_check, SEED_001 " and BRIEF section 4",
               "thread i copies in[i*stride + offset]: sectors per request by stride/width")
ACCESS_KERNEL (smem_stride, smem_stride_params, N_SIZE, 256, 1, MS_BLOCK_1D, smem_stride_setup,
               smem_stride_check, "seeds 001 and 004 (bank conflicts by stride)",
               "lane l of warp w accesses shared element l*stride + w: wavefronts by stride")
ACCESS_KERNEL (smem_gather, smem_gather_params, N_SIZE, 256, 1, MS_BLOCK_1D, smem_gather_setup,
               smem_gather_check, "BRIEF section 4 (open questions: broadcasts, partial warps)",
               "lane l accesses shared element P(l) of a named pattern: gathers and broadcasts")
ACCESS_KERNEL (aos_read, n_params, N_SIZE, 256, 1, MS_BLOCK_1D, aos_read_setup, aos_read_check,
               SEED_001, "key of a 12-byte {key, value, flag} record: 12 sectors per request")
ACCESS_KERNEL (soa_read, n_params, N_SIZE, 256, 1, MS_BLOCK_1D, soa_read_setup, soa_read_check,
               SEED_001, "the same keys from a structure of arrays: 4 sectors per request")
ACCESS_KERNEL (aos_float3_read, n_params, N_SIZE, 256, 1, MS_BLOCK_1D, aos_float3_setup,
               aos_float3_check, SEED_001, "the x of a float3 array (stride 3 words)")
ACCESS_KERNEL (broadcast_read, n_params, N_SIZE, 256, 1, MS_BLOCK_1D, broadcast_setup,
               broadcast_check, SEED_001,
               "a warp reads one global word, then one shared word: broadcasts")
ACCESS_KERNEL (per_thread_sum, per_thread_sum_params, N_SIZE, 256, 1, MS_BLOCK_1D,
               per_thread_sum_setup, per_thread_sum_check, SEED_001,
               "sum of a data-dependent row per thread: long rows hold whole warps")
ACCESS_KERNEL (per_thread_sum_capped, per_thread_sum_capped_params, N_SIZE, 256, 1, MS_BLOCK_1D,
               per_thread_sum_capped_setup, per_thread_sum_check, SEED_001,
               "per_thread_sum in rounds of at most cap elements, several rows per thread")
