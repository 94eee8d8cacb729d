/* transpose.c - descriptors of the transpose family (transpose.cu). */
#include "config.h"
#include "entries.h"
#include "parallel.h"
#include "problem.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const MsParamSpec transpose_params[] = {
  { "width", "columns of the input matrix", 1024, 1, 1 << 15 },
  { "height", "rows of the input matrix", 1024, 1, 1 << 15 },
  { NULL },
};

/* Buffers: odata (output), idata (input); args: width, height.  Tiled
 * kernels cover a 32x32 tile per block whatever the block's shape. */
static gboolean
transpose_setup_common (MsProblem *p, gboolean tiled, GError **error)
{
  gint64 w = ms_problem_param (p, "width"), h = ms_problem_param (p, "height");
  gsize n = (gsize) w * (gsize) h;
  if (!ms_problem_buffer (p, "odata", n * sizeof (float), TRUE, error))
    return FALSE;
  float *in = ms_problem_buffer (p, "idata", n * sizeof (float), FALSE, error);
  if (in == NULL)
    return FALSE;
  ms_fill_floats (p, in, n);
  p->args.i[0] = w;
  p->args.i[1] = h;
  guint tx = tiled ? 32 : p->args.block[0], ty = tiled ? 32 : p->args.block[1];
  p->args.grid[0] = ms_div_up ((guint64) w, tx);
  p->args.grid[1] = ms_div_up ((guint64) h, ty);
  p->args.grid[2] = 1;
  return TRUE;
}

static gboolean
transpose_setup_naive (MsProblem *p, GError **error)
{
  return transpose_setup_common (p, FALSE, error);
}

static gboolean
transpose_setup_tiled (MsProblem *p, GError **error)
{
  return transpose_setup_common (p, TRUE, error);
}

/* The check compares odata with idata in place, tile by tile, in parallel
 * over odata's rows: no transposed reference copy (a third less memory). */
#define CHECK_TILE 64
typedef struct {
  const float *out, *in;
  gsize w, h;
  gsize first;   /* lowest mismatching index of odata (G_MAXSIZE: none) */
} TransposeCheck;

/* One tile: idata's rows y0.. (columns tx..) are copied transposed into
 * `t`, then compared with odata's rows tx.., so both matrices are read a
 * whole row piece at a time.  Read in place, one side would be a column:
 * with a power-of-two width its rows fall in one set of the host's L1 and
 * L2 and thrash them (8192^2: 3.5x slower than 4096^2 an element).  With
 * SSE2 the copy goes 4x4 floats at a time through registers and the
 * compare 4 floats at a time (cmpneqps is C's !=: a NaN differs from
 * everything, -0 equals 0); the edges of a tile go one float at a time.
 * callgrind, transpose_naive 2048^2: the check 65.4 -> 14.9 M instructions
 * (16 -> 3.6 a float; gcc's -O2 vectorises neither loop). */
static void
transpose_check_tile (TransposeCheck *c, gsize tx, gsize nx, gsize y0, gsize ny,
                      float t[CHECK_TILE][CHECK_TILE], gsize *first)
{
  gsize y = 0;
#ifdef __SSE2__
  for (; y + 4 <= ny; y += 4)
    {
      const float *r = &c->in[(y0 + y) * c->w + tx];
      gsize x = 0;
      for (; x + 4 <= nx; x += 4)
        {
          __m128 r0 = _mm_loadu_ps (r + x), r1 = _mm_loadu_ps (r + c->w + x);
          __m128 r2 = _mm_loadu_ps (r + 2 * c->w + x), r3 = _mm_loadu_ps (r + 3 * c->w + x);
          _MM_TRANSPOSE4_PS (r0, r1, r2, r3);
          _mm_storeu_ps (&t[x][y], r0);
          _mm_storeu_ps (&t[x + 1][y], r1);
          _mm_storeu_ps (&t[x + 2][y], r2);
          _mm_storeu_ps (&t[x + 3][y], r3);
        }
      for (; x < nx; x++)
        for (gsize k = 0; k < 4; k++)
          t[x][y + k] = r[k * c->w + x];
    }
#endif
  for (; y < ny; y++)
    for (gsize x = 0; x < nx; x++)
      t[x][y] = c->in[(y0 + y) * c->w + tx + x];
  for (gsize x = 0; x < nx; x++)
    {
      const float *o = &c->out[(tx + x) * c->h + y0];
      gboolean bad = FALSE;
      gsize k = 0;
#ifdef __SSE2__
      __m128 differ = _mm_setzero_ps ();
      for (; k + 4 <= ny; k += 4)
        differ = _mm_or_ps (differ, _mm_cmpneq_ps (_mm_loadu_ps (o + k), _mm_loadu_ps (&t[x][k])));
      bad = _mm_movemask_ps (differ) != 0;
#endif
      for (; k < ny; k++)
        bad |= o[k] != t[x][k];
      for (k = 0; bad && k < ny; k++)
        if (o[k] != t[x][k] && (tx + x) * c->h + y0 + k < *first)
          *first = (tx + x) * c->h + y0 + k;
    }
}

static void
transpose_check_rows (gsize x0, gsize x1, gpointer data)
{
  TransposeCheck *c = data;
  gsize first = G_MAXSIZE;
  float t[CHECK_TILE][CHECK_TILE];
  for (gsize tx = x0; tx < x1; tx += CHECK_TILE)
    for (gsize y0 = 0; y0 < c->h; y0 += CHECK_TILE)
      transpose_check_tile (c, tx, MIN (CHECK_TILE, x1 - tx), y0, MIN (CHECK_TILE, c->h - y0),
                            t, &first);
  if (first != G_MAXSIZE)
    ms_lowest_index_offer (&c->first, first);
}

static gboolean
transpose_check (MsProblem *p, GError **error)
{
  TransposeCheck c = { p->args.buf[0], p->args.buf[1], (gsize) ms_problem_param (p, "width"),
                       (gsize) ms_problem_param (p, "height"), G_MAXSIZE };
  ms_parallel_for (c.w, CHECK_TILE, p->threads, transpose_check_rows, &c);
  if (c.first == G_MAXSIZE)
    return TRUE;
  gsize x = c.first / c.h, y = c.first % c.h;
  return ms_check_fail_float ("odata", c.first, c.out[c.first], c.in[y * c.w + x], error);
}

static gboolean
copy_check (MsProblem *p, GError **error)
{
  gint64 n = ms_problem_param (p, "width") * ms_problem_param (p, "height");
  return ms_check_floats (p, "odata", p->args.buf[0], p->args.buf[1], (gsize) n, 0.0, error);
}

#define TRANSPOSE_KERNEL(kname, setup_fn, check_fn, bx, by, rule, orig, desc) \
  const MsKernel ms_kernel_##kname = {                                         \
    .name = #kname, .family = "transpose", .origin = orig, .description = desc, \
    .source = "transpose.cu", .params = transpose_params,                      \
    .size_params = { "width", "height" }, .block = { bx, by, 1 },              \
    .block_rule = rule, .setup = setup_fn, .check = check_fn,                  \
    .bind_entry = ms_bind_entry_##kname,                                         \
  };

TRANSPOSE_KERNEL (transpose_naive, transpose_setup_naive, transpose_check, 32, 32, MS_BLOCK_ANY,
                  "seed 002 (Appavoo, Intro to CUDA 2)",
                  "one element per thread: coalesced reads, writes strided by the height")
TRANSPOSE_KERNEL (transpose_shared, transpose_setup_tiled, transpose_check, 32, 32,
                  MS_BLOCK_FIXED, "seeds 000, 002",
                  "32x32 shared tile, no padding: 32-way bank conflicts on the column read")
TRANSPOSE_KERNEL (transpose_padded, transpose_setup_tiled, transpose_check, 32, 32,
                  MS_BLOCK_FIXED, "seed 002",
                  "32x33 shared tile: the pad column makes the column read conflict-free")
TRANSPOSE_KERNEL (transpose_padded2, transpose_setup_tiled, transpose_check, 32, 32,
                  MS_BLOCK_FIXED, "seed 000 (Cheng et al., Kepler 64-bit banks)",
                  "32x34 shared tile (+2 pad, a Kepler idea): 2-way conflicts on 4-byte banks")
TRANSPOSE_KERNEL (transpose_swizzled, transpose_setup_tiled, transpose_check, 32, 32,
                  MS_BLOCK_FIXED, "XOR swizzle (CUTLASS-style, cited by seed 002)",
                  "32x32 tile, column index XOR row: conflict-free without padding")
TRANSPOSE_KERNEL (copy, transpose_setup_tiled, copy_check, 32, 8, MS_BLOCK_FIXED,
                  "NVIDIA transpose sample (Harris, 2013)",
                  "plain copy, 32x32 tile per 32x8 block: the bandwidth a transpose aims for")
TRANSPOSE_KERNEL (transpose_coalesced, transpose_setup_tiled, transpose_check, 32, 8,
                  MS_BLOCK_FIXED, "NVIDIA transpose sample (Harris, 2013)",
                  "32x32 tile, 32x8 threads, 4 elements each: coalesced, 32-way conflicts")
TRANSPOSE_KERNEL (transpose_nobankconflicts, transpose_setup_tiled, transpose_check, 32, 8,
                  MS_BLOCK_FIXED, "NVIDIA transpose sample (Harris, 2013)",
                  "transpose_coalesced with a 32x33 tile: coalesced and conflict-free")
