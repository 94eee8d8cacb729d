/* stencil.cu - the 7-point 3D stencil family (seed 003's stencil table).
 *
 * in and out are nx*ny*nz floats, x fastest: point (x, y, z) is element
 * (z*ny + y)*nx + x.  Every kernel computes, for every point,
 *     out = C0*c + C1*(x-1 + x+1 + y-1 + y+1 + z-1 + z+1)
 * where a neighbour outside the volume counts as 0 (seed 003's naive kernel
 * skips it; adding 0 is the same).  All variants add the six neighbours in
 * that order, so their outputs agree bit for bit with each other and with the
 * plain-C reference (on the GPU, nvcc may contract C0*c + C1*t into an FMA).
 *
 * The tiled variants use 32x8 tiles (blocks of 32x8 threads) with a one-cell
 * halo in x and y: a (8+2) x (32+2) shared tile.  Threads of a partial tile
 * (x >= nx or y >= ny) still load (zeros) and meet every barrier; only
 * points inside the volume are written.
 */
#include "kernel.h"

#define C0 0.4f
#define C1 0.1f
#define TX 32
#define TY 8

/* stencil_naive (seed 003): one thread per point, 3D blocks; 7 global loads
 * per point, reuse only through the caches.  The x-1/x+1 loads are the
 * misaligned ones (5 sectors instead of 4 for a warp's 32 floats). */
__global__ void stencil_naive (float *out, const float *in, int nx, int ny, int nz)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  int z = blockIdx.z * blockDim.z + threadIdx.z;
  if (x < nx && y < ny && z < nz) {
    size_t plane = (size_t) nx * ny;
    size_t gid = z * plane + (size_t) y * nx + x;
    float c = LD (in[gid]);
    float t = 0.0f;
    if (x - 1 >= 0) t += LD (in[gid - 1]);
    if (x + 1 < nx) t += LD (in[gid + 1]);
    if (y - 1 >= 0) t += LD (in[gid - nx]);
    if (y + 1 < ny) t += LD (in[gid + nx]);
    if (z - 1 >= 0) t += LD (in[gid - plane]);
    if (z + 1 < nz) t += LD (in[gid + plane]);
    ST (out[gid], C0 * c + C1 * t);
  }
}

/* The in-plane part of the stencil from a shared tile s (halo included) and
 * the two z neighbours: t = ((((x-1 + x+1) + y-1) + y+1) + back) + front. */
__device__ float stencil_xy (float (*s)[TX + 2], int tx, int ty)
{
  float t = 0.0f;
  t += LD (s[ty + 1][tx]);
  t += LD (s[ty + 1][tx + 2]);
  t += LD (s[ty][tx + 1]);
  t += LD (s[ty + 2][tx + 1]);
  return t;
}

/* stencil_shared (seed 003, "shared memory", its 2D tile code applied to
 * each z plane): a block stages its 32x8 tile and the halo of the x-y plane
 * in shared memory; the halo is loaded seed-style, by the threads on the
 * tile's edge: `if (tx == 0)` and `if (tx == TX-1)` are one-lane
 * instructions in every warp (divergence), the top and bottom rows whole
 * warps.  The z neighbours still come from global memory. */
__global__ void stencil_shared (float *out, const float *in, int nx, int ny, int nz)
{
  SHARED_ARRAY2 (float, s, TY + 2, TX + 2);
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * TX + tx, y = blockIdx.y * TY + ty, z = blockIdx.z;
  int inside = x < nx && y < ny;
  size_t plane = (size_t) nx * ny;
  size_t gid = z * plane + (size_t) y * nx + x;
  ST (s[ty + 1][tx + 1], inside ? LD (in[gid]) : 0.0f);
  if (tx == 0)
    ST (s[ty + 1][0], (x - 1 >= 0 && y < ny) ? LD (in[gid - 1]) : 0.0f);
  if (tx == TX - 1)
    ST (s[ty + 1][TX + 1], (x + 1 < nx && y < ny) ? LD (in[gid + 1]) : 0.0f);
  if (ty == 0)
    ST (s[0][tx + 1], (y - 1 >= 0 && x < nx) ? LD (in[gid - nx]) : 0.0f);
  if (ty == TY - 1)
    ST (s[TY + 1][tx + 1], (y + 1 < ny && x < nx) ? LD (in[gid + nx]) : 0.0f);
  __syncthreads ();
  if (inside) {
    float c = LD (s[ty + 1][tx + 1]);
    float t = stencil_xy (s, tx, ty);
    if (z - 1 >= 0) t += LD (in[gid - plane]);
    if (z + 1 < nz) t += LD (in[gid + plane]);
    ST (out[gid], C0 * c + C1 * t);
  }
}

/* Loads plane z of the tile at (x0, y0) with its halo into s, the halo by
 * whole warps (seed 003, "non-divergent threads"): lanes 0..15 of warp 2
 * load the left and right columns (8 cells each), warp 0 (ty == 0) the row
 * above, warp 1 the row below - three instructions per tile instead of
 * one-lane instructions in every warp.  The column block, the only one that
 * splits a warp, comes first: the lanes that skip it then wait for the
 * others at the next load instead of running ahead (into a second call of
 * this function, say), in the emulator as on the GPU. */
__device__ void stencil_load_tile (float (*s)[TX + 2], const float *in, int nx, int ny,
                                   int z, int x0, int y0, int tx, int ty)
{
  size_t base = (size_t) z * nx * ny;
  int x = x0 + tx, y = y0 + ty;
  if (ty == 2 && tx < 2 * TY) {
    int right = tx >= TY, r = tx % TY;
    int hx = right ? x0 + TX : x0 - 1, hy = y0 + r;
    float v = (hx >= 0 && hx < nx && hy < ny) ? LD (in[base + (size_t) hy * nx + hx]) : 0.0f;
    ST (s[r + 1][right ? TX + 1 : 0], v);
  }
  if (ty == 0 || ty == 1) {
    int hy = ty == 0 ? y0 - 1 : y0 + TY;
    float v = (hy >= 0 && hy < ny && x < nx) ? LD (in[base + (size_t) hy * nx + x]) : 0.0f;
    ST (s[ty == 0 ? 0 : TY + 1][tx + 1], v);
  }
  ST (s[ty + 1][tx + 1], (x < nx && y < ny) ? LD (in[base + (size_t) y * nx + x]) : 0.0f);
}

/* stencil_nondivergent (seed 003): stencil_shared with the halo loaded by
 * whole warps (stencil_load_tile).  Fewer, fuller instructions; the column
 * halo is still uncoalesced (one sector per lane). */
__global__ void stencil_nondivergent (float *out, const float *in, int nx, int ny, int nz)
{
  SHARED_ARRAY2 (float, s, TY + 2, TX + 2);
  int tx = threadIdx.x, ty = threadIdx.y;
  int x = blockIdx.x * TX + tx, y = blockIdx.y * TY + ty, z = blockIdx.z;
  size_t plane = (size_t) nx * ny;
  size_t gid = z * plane + (size_t) y * nx + x;
  stencil_load_tile (s, in, nx, ny, z, blockIdx.x * TX, blockIdx.y * TY, tx, ty);
  __syncthreads ();
  if (x < nx && y < ny) {
    float c = LD (s[ty + 1][tx + 1]);
    float t = stencil_xy (s, tx, ty);
    if (z - 1 >= 0) t += LD (in[gid - plane]);
    if (z + 1 < nz) t += LD (in[gid + plane]);
    ST (out[gid], C0 * c + C1 * t);
  }
}

/* stencil_25d (seed 003, "2.5D blocking"): 2D blocks over x-y stream along
 * z.  Two planes live in shared memory, the current one and the next (the
 * "old" and "new" slices: the next plane's centre is the z+1 neighbour, and
 * it becomes the current plane by swapping the two halves); the z-1
 * neighbour is kept in a register.  Every input point is loaded from
 * global memory once (plus the x-y halo), instead of 3 times. */
__global__ void stencil_25d (float *out, const float *in, int nx, int ny, int nz)
{
  SHARED_ARRAY2 (float, s, 2 * (TY + 2), TX + 2);   /* two planes with halo */
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
  int x = x0 + tx, y = y0 + ty;
  int inside = x < nx && y < ny;
  size_t plane = (size_t) nx * ny;
  int cur = 0;
  float back = 0.0f;                       /* in(x, y, z-1) */
  stencil_load_tile (s, in, nx, ny, 0, x0, y0, tx, ty);
  if (nz > 1)
    stencil_load_tile (s + (TY + 2), in, nx, ny, 1, x0, y0, tx, ty);
  __syncthreads ();
  for (int z = 0; z < nz; z++) {
    float (*c)[TX + 2] = s + cur * (TY + 2);
    float (*next)[TX + 2] = s + (1 - cur) * (TY + 2);
    float v = LD (c[ty + 1][tx + 1]);
    float t = stencil_xy (c, tx, ty);
    t += back;
    if (z + 1 < nz) t += LD (next[ty + 1][tx + 1]);
    if (inside)
      ST (out[z * plane + (size_t) y * nx + x], C0 * v + C1 * t);
    back = v;
    __syncthreads ();                      /* everyone is done with plane z */
    if (z + 2 < nz)
      stencil_load_tile (c, in, nx, ny, z + 2, x0, y0, tx, ty);
    __syncthreads ();
    cur = 1 - cur;
  }
}

/* stencil_25d_single (seed 003, "2.5D with a single slice"): one plane in
 * shared memory; each thread keeps running sums in registers: when plane z
 * arrives, its centre completes point z-1 (its front neighbour) and starts
 * point z.  Half the shared memory of stencil_25d, no swapping. */
__global__ void stencil_25d_single (float *out, const float *in, int nx, int ny, int nz)
{
  SHARED_ARRAY2 (float, s, TY + 2, TX + 2);
  int tx = threadIdx.x, ty = threadIdx.y;
  int x0 = blockIdx.x * TX, y0 = blockIdx.y * TY;
  int x = x0 + tx, y = y0 + ty;
  int inside = x < nx && y < ny;
  size_t plane = (size_t) nx * ny;
  float c_prev = 0.0f;                     /* in(x, y, z-1) */
  float t_prev = 0.0f;                     /* point z-1's sum, all but z+1 */
  for (int z = 0; z < nz; z++) {
    stencil_load_tile (s, in, nx, ny, z, x0, y0, tx, ty);
    __syncthreads ();
    float v = LD (s[ty + 1][tx + 1]);
    float t = stencil_xy (s, tx, ty);
    t += c_prev;
    if (z > 0 && inside)
      ST (out[(z - 1) * plane + (size_t) y * nx + x], C0 * c_prev + C1 * (t_prev + v));
    c_prev = v;
    t_prev = t;
    __syncthreads ();                      /* before plane z+1 overwrites s */
  }
  if (inside)
    ST (out[(nz - 1) * plane + (size_t) y * nx + x], C0 * c_prev + C1 * t_prev);
}

#define STENCIL_ENTRY(k) \
  MS_ENTRY (k) { MS_LAUNCH (k, L, (float *) L->buf[0], (const float *) L->buf[1], \
                            (int) L->i[0], (int) L->i[1], (int) L->i[2]); }
STENCIL_ENTRY (stencil_naive)
STENCIL_ENTRY (stencil_shared)
STENCIL_ENTRY (stencil_nondivergent)
STENCIL_ENTRY (stencil_25d)
STENCIL_ENTRY (stencil_25d_single)
