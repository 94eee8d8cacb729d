/* gemm.c - descriptors of the GEMM family (gemm.cu).
 *
 * Buffers: C (output, M x N), A (M x K), B (K x N), floats in [-1, 1);
 * args: M, N, K.  Reference: the products summed in double.  Tolerance:
 * |C - reference| <= 4e-6 * K.  Each kernel adds K float products (|a*b| < 1)
 * one by one; the rounding error of such a sum is about u * K / 3 on average
 * (u = 2^-24 = 6e-8, the terms' partial sums growing like sqrt(K)), i.e.
 * 2e-8 * K, so the bound leaves a margin of ~200x for the float32 sum and
 * the FMA contraction nvcc does on the GPU.
 */
#include "config.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "entries.h"
#include "parallel.h"
#include "problem.h"

static const MsParamSpec gemm_params[] = {
  { "n", "columns of C and B (N)", 128, 1, 4096 },
  { "m", "rows of C and A (M)", 128, 1, 4096 },
  { "k", "columns of A, rows of B (K)", 128, 1, 4096 },
  { NULL },
};

/* tile_x, tile_y: the part of C one block computes (0: the block itself) */
static gboolean
gemm_setup_common (MsProblem *p, guint tile_x, guint tile_y, GError **error)
{
  gint64 m = ms_problem_param (p, "m"), n = ms_problem_param (p, "n"),
         k = ms_problem_param (p, "k");
  if (!ms_problem_buffer (p, "C", (gsize) (m * n) * sizeof (float), TRUE, error))
    return FALSE;
  float *a = ms_problem_buffer (p, "A", (gsize) (m * k) * sizeof (float), FALSE, error);
  if (a == NULL)
    return FALSE;
  float *b = ms_problem_buffer (p, "B", (gsize) (k * n) * sizeof (float), FALSE, error);
  if (b == NULL)
    return FALSE;
  ms_fill_floats (p, a, (gsize) (m * k));
  p->seed++;   /* B differs from A */
  ms_fill_floats (p, b, (gsize) (k * n));
  p->seed--;
  p->args.i[0] = m;
  p->args.i[1] = n;
  p->args.i[2] = k;
  p->args.grid[0] = ms_div_up ((guint64) n, tile_x ? tile_x : p->args.block[0]);
  p->args.grid[1] = ms_div_up ((guint64) m, tile_y ? tile_y : p->args.block[1]);
  p->args.grid[2] = 1;
  return TRUE;
}

static gboolean
gemm_setup_naive (MsProblem *p, GError **error)
{
  return gemm_setup_common (p, 0, 0, error);
}

/* 32x32 tiles of C (gemm_tiled, _nopad, _double_buffer) */
static gboolean
gemm_setup_tile32 (MsProblem *p, GError **error)
{
  return gemm_setup_common (p, 32, 32, error);
}

/* 64x64 tiles of C from 16x16 threads (gemm_regtile) */
static gboolean
gemm_setup_tile64 (MsProblem *p, GError **error)
{
  return gemm_setup_common (p, 64, 64, error);
}

/* The reference C = A B in double, a row of C per step, its sums in the
 * order i = 0, 1, ... as the kernels add them; rows in parallel (at 4096^3
 * it is 69 G multiply-adds). */
typedef struct {
  const float *a, *b;
  float *want;
  gint64 n, k;
} GemmReference;

static void
gemm_reference_rows (gsize r0, gsize r1, gpointer data)
{
  const GemmReference *g = data;
  g_autofree double *acc = g_new (double, g->n);
  for (gsize r = r0; r < r1; r++)
    {
      memset (acc, 0, sizeof (double) * (gsize) g->n);
      for (gint64 i = 0; i < g->k; i++)
        {
          double x = (double) g->a[(gint64) r * g->k + i];
          const float *brow = g->b + i * g->n;
          gint64 c = 0;
#ifdef __SSE2__
          /* the same products and sums, two doubles a register (gcc's -O2
           * leaves this loop scalar): callgrind, gemm_regtile 256^3, the
           * reference 135.3 -> 64.3 M instructions, the run -7.2% */
          __m128d vx = _mm_set1_pd (x);
          for (; c + 4 <= g->n; c += 4)
            {
              __m128 b4 = _mm_loadu_ps (brow + c);
              __m128d lo = _mm_cvtps_pd (b4), hi = _mm_cvtps_pd (_mm_movehl_ps (b4, b4));
              _mm_storeu_pd (acc + c, _mm_add_pd (_mm_loadu_pd (acc + c), _mm_mul_pd (vx, lo)));
              _mm_storeu_pd (acc + c + 2, _mm_add_pd (_mm_loadu_pd (acc + c + 2), _mm_mul_pd (vx, hi)));
            }
#endif
          for (; c < g->n; c++)
            acc[c] += x * (double) brow[c];
        }
      for (gint64 c = 0; c < g->n; c++)
        g->want[(gint64) r * g->n + c] = (float) acc[c];
    }
}

static gboolean
gemm_check (MsProblem *p, GError **error)
{
  gint64 m = p->args.i[0], n = p->args.i[1], k = p->args.i[2];
  g_autofree float *want = g_new (float, m * n);
  GemmReference g = { p->args.buf[1], p->args.buf[2], want, n, k };
  ms_parallel_for ((gsize) m, 4, p->threads, gemm_reference_rows, &g);
  return ms_check_floats (p, "C", p->args.buf[0], want, (gsize) (m * n), 4e-6 * (double) k,
                          error);
}

#define GEMM_KERNEL(kname, setup_fn, bx, by, rule, desc)                             \
  const MsKernel ms_kernel_##kname = {                                               \
    .name = #kname, .family = "gemm",                                                \
    .origin = "seed 004 (shared memory, bank conflicts and tiled GEMM)",             \
    .description = desc, .source = "gemm.cu", .params = gemm_params,                 \
    .size_params = { "n", "m", "k" }, .block = { bx, by, 1 }, .block_rule = rule,    \
    .setup = setup_fn, .check = gemm_check, .bind_entry = ms_bind_entry_##kname,       \
  };

GEMM_KERNEL (gemm_naive, gemm_setup_naive, 32, 8, MS_BLOCK_ANY,
             "one thread per element of C, A and B straight from global memory")
GEMM_KERNEL (gemm_tiled, gemm_setup_tile32, 32, 32, MS_BLOCK_FIXED,
             "32x32x32 shared tiles with +1 padding: 32x less global traffic")
GEMM_KERNEL (gemm_tiled_nopad, gemm_setup_tile32, 32, 32, MS_BLOCK_FIXED,
             "gemm_tiled without the padding column (seed 004's 3x claim, tested)")
GEMM_KERNEL (gemm_regtile, gemm_setup_tile64, 16, 16, MS_BLOCK_FIXED,
             "64x64x16 block tile, 4x4 outputs per thread in registers, transposed A tile")
GEMM_KERNEL (gemm_double_buffer, gemm_setup_tile32, 32, 32, MS_BLOCK_FIXED,
             "gemm_tiled with two tile buffers: load the next tile while using this one")
