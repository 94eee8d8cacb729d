/* stencil.c - descriptors of the 7-point stencil family (stencil.cu).
 *
 * Buffers: out, in (nx*ny*nz floats in [-1, 1)); args: nx, ny, nz.
 * Reference: the same formula in the same order of additions in plain C;
 * the check allows 1e-5 (absolute; |out| < 1.1) so that a compiler that
 * contracts C0*c + C1*t into an FMA still passes.
 */
#include "config.h"
#include "entries.h"
#include "problem.h"

#define C0 0.4f
#define C1 0.1f

static const MsParamSpec stencil_params[] = {
  { "width", "points in x (nx)", 64, 1, 1 << 12 },
  { "height", "points in y (ny)", 64, 1, 1 << 12 },
  { "depth", "points in z (nz)", 64, 1, 1 << 12 },
  { NULL },
};

static gboolean
stencil_setup_common (MsProblem *p, GError **error)
{
  gint64 nx = ms_problem_param (p, "width"), ny = ms_problem_param (p, "height"),
         nz = ms_problem_param (p, "depth");
  gint64 n = nx * ny * nz;
  if (n > (G_GINT64_CONSTANT (1) << 28))
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s: %" G_GINT64_FORMAT "x%" G_GINT64_FORMAT "x%" G_GINT64_FORMAT
                   " is more than 2^28 points; choose a smaller --size",
                   p->kernel->name, nx, ny, nz);
      return FALSE;
    }
  if (!ms_problem_buffer (p, "out", (gsize) n * sizeof (float), TRUE, error))
    return FALSE;
  float *in = ms_problem_buffer (p, "in", (gsize) n * sizeof (float), FALSE, error);
  if (in == NULL)
    return FALSE;
  ms_fill_floats (p, in, (gsize) n);
  p->args.i[0] = nx;
  p->args.i[1] = ny;
  p->args.i[2] = nz;
  const unsigned *b = p->args.block;
  p->args.grid[0] = ms_div_up ((guint64) nx, b[0]);
  p->args.grid[1] = ms_div_up ((guint64) ny, b[1]);
  /* stencil_shared and _nondivergent: block z = 1, one block per z plane;
   * the 2.5D kernels stream through z (their setup sets grid z = 1) */
  p->args.grid[2] = ms_div_up ((guint64) nz, b[2]);
  return TRUE;
}

/* naive, shared and nondivergent: a grid over the whole volume */
static gboolean
stencil_setup_3d (MsProblem *p, GError **error)
{
  return stencil_setup_common (p, error);
}

/* 2.5D: a 2D grid over x-y; each block walks all of z */
static gboolean
stencil_setup_25d (MsProblem *p, GError **error)
{
  if (!stencil_setup_common (p, error))
    return FALSE;
  p->args.grid[2] = 1;
  return TRUE;
}

static gboolean
stencil_check (MsProblem *p, GError **error)
{
  gint64 nx = p->args.i[0], ny = p->args.i[1], nz = p->args.i[2];
  const float *in = p->args.buf[1];
  gsize n = (gsize) (nx * ny * nz), plane = (gsize) (nx * ny);
  g_autofree float *want = g_new (float, n);
  for (gint64 z = 0; z < nz; z++)
    for (gint64 y = 0; y < ny; y++)
      for (gint64 x = 0; x < nx; x++)
        {
          gsize g = (gsize) (z * ny + y) * (gsize) nx + (gsize) x;
          float t = 0.0f;
          if (x > 0) t += in[g - 1];
          if (x + 1 < nx) t += in[g + 1];
          if (y > 0) t += in[g - (gsize) nx];
          if (y + 1 < ny) t += in[g + (gsize) nx];
          if (z > 0) t += in[g - plane];
          if (z + 1 < nz) t += in[g + plane];
          want[g] = C0 * in[g] + C1 * t;
        }
  return ms_check_floats (p, "out", p->args.buf[0], want, n, 1e-5, error);
}

#define STENCIL_KERNEL(kname, setup_fn, bx, by, bz, rule, desc)                      \
  const MsKernel ms_kernel_##kname = {                                               \
    .name = #kname, .family = "stencil", .origin = "seed 003 (stencil table)",      \
    .description = desc, .source = "stencil.cu", .params = stencil_params,           \
    .size_params = { "width", "height", "depth" }, .block = { bx, by, bz },          \
    .block_rule = rule, .setup = setup_fn, .check = stencil_check,                   \
    .bind_entry = ms_bind_entry_##kname,                                               \
  };

STENCIL_KERNEL (stencil_naive, stencil_setup_3d, 32, 4, 2, MS_BLOCK_ANY,
                "one thread per point, 3D blocks: 7 global loads per point")
STENCIL_KERNEL (stencil_shared, stencil_setup_3d, 32, 8, 1, MS_BLOCK_FIXED,
                "32x8 x-y tile + halo in shared memory, halo by edge threads (divergent)")
STENCIL_KERNEL (stencil_nondivergent, stencil_setup_3d, 32, 8, 1, MS_BLOCK_FIXED,
                "stencil_shared with the halo loaded by whole warps")
STENCIL_KERNEL (stencil_25d, stencil_setup_25d, 32, 8, 1, MS_BLOCK_FIXED,
                "2.5D blocking: x-y tiles stream along z, two planes in shared memory")
STENCIL_KERNEL (stencil_25d_single, stencil_setup_25d, 32, 8, 1, MS_BLOCK_FIXED,
                "2.5D with one plane in shared memory and running sums in registers")
