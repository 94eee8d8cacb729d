/* warp-hand.c - EXPERIMENT: three kernels written by hand in the form a
 * warp-wide compiler would give them (sim/emulator/warp.h), to measure what
 * such an emulator would gain before building the compiler.  Each mirrors
 * its .cu source line by line; the sites carry the fiber build's file,
 * line and order (its __COUNTER__ values), so the reports compare byte
 * for byte. */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "kernel.h"
#include "warp.h"

#define SITE_(f, line, order) \
  ({ static MsSite ms_s_ = { "traces/kernels/" f, line, order, -1 }; &ms_s_; })
#define LANE_BIT(L, c) ((uint32_t) !!(c) << (L))
#define ADDR(L, p) (ms_warp.addr[L] = (volatile uint8_t *) (p))
#define VAL(L, T) ({ T ms_r_; memcpy (&ms_r_, (const void *) ms_warp.addr[L], sizeof ms_r_); ms_r_; })
#define SETVAL(L, T, v) do { T ms_t_ = (v); memcpy (ms_warp.val[L], &ms_t_, sizeof ms_t_); } while (0)

void ms_warp_entry_transpose_padded (const MsLaunchArgs *Lp);
void ms_warp_entry_gemm_tiled (const MsLaunchArgs *Lp);
void ms_warp_entry_reduce_sequential (const MsLaunchArgs *Lp);

void
ms_warp_entry_transpose_padded (const MsLaunchArgs *Lp)
{
  float *odata = (float *) Lp->buf[0];
  const float *idata = (const float *) Lp->buf[1];
  int width = (int) Lp->i[0], height = (int) Lp->i[1];
  MsLane *wl = ms_warp.lanes;
  uint32_t live = ms_warp.live, m = 0;
  SHARED_ARRAY2 (float, tile, 32, 33);
  unsigned x[32], y[32];
  float v[32];
  MS_WARP_LANES (live, L)
    {
      x[L] = blockIdx.x * 32 + wl[L].thread_idx.x;
      y[L] = blockIdx.y * 32 + wl[L].thread_idx.y;
      m |= LANE_BIT (L, x[L] < (unsigned) width && y[L] < (unsigned) height);
    }
  if (m)
    {
      MS_WARP_LANES (m, L) ADDR (L, &idata[y[L] * width + x[L]]);
      ms_warp_access (SITE_ ("transpose.cu", 56, 7), m, 4, MS_K_LD);
      MS_WARP_LANES (m, L) v[L] = VAL (L, float);
      MS_WARP_LANES (m, L)
        {
          ADDR (L, &tile[wl[L].thread_idx.y][wl[L].thread_idx.x]);
          SETVAL (L, float, v[L]);
        }
      ms_warp_access (SITE_ ("transpose.cu", 57, 8), m, 4, MS_K_ST);
    }
  ms_warp_barrier (SITE_ ("transpose.cu", 59, 9), live);
  m = 0;
  MS_WARP_LANES (live, L)
    {
      x[L] = blockIdx.y * 32 + wl[L].thread_idx.x;
      y[L] = blockIdx.x * 32 + wl[L].thread_idx.y;
      m |= LANE_BIT (L, x[L] < (unsigned) height && y[L] < (unsigned) width);
    }
  if (m)
    {
      MS_WARP_LANES (m, L) ADDR (L, &tile[wl[L].thread_idx.x][wl[L].thread_idx.y]);
      ms_warp_access (SITE_ ("transpose.cu", 63, 10), m, 4, MS_K_LD);
      MS_WARP_LANES (m, L) v[L] = VAL (L, float);
      MS_WARP_LANES (m, L)
        {
          ADDR (L, &odata[y[L] * height + x[L]]);
          SETVAL (L, float, v[L]);
        }
      ms_warp_access (SITE_ ("transpose.cu", 64, 11), m, 4, MS_K_ST);
    }
}

void
ms_warp_entry_gemm_tiled (const MsLaunchArgs *Lp)
{
  const float *A = (const float *) Lp->buf[1], *B = (const float *) Lp->buf[2];
  float *C = (float *) Lp->buf[0];
  int M = (int) Lp->i[0], N = (int) Lp->i[1], K = (int) Lp->i[2];
  MsLane *wl = ms_warp.lanes;
  uint32_t live = ms_warp.live, m;
  SHARED_ARRAY2 (float, As, 32, 33);
  SHARED_ARRAY2 (float, Bs, 32, 33);
  int tx[32], ty[32], row[32], col[32];
  float c_val[32], a[32], b[32];
  MS_WARP_LANES (live, L)
    {
      tx[L] = (int) wl[L].thread_idx.x;
      ty[L] = (int) wl[L].thread_idx.y;
      row[L] = (int) blockIdx.y * 32 + ty[L];
      col[L] = (int) blockIdx.x * 32 + tx[L];
      c_val[L] = 0.0f;
    }
  int n_tiles = (K + 32 - 1) / 32;
  for (int t = 0; t < n_tiles; t++)
    {
      m = 0;
      MS_WARP_LANES (live, L) m |= LANE_BIT (L, row[L] < M && t * 32 + tx[L] < K);
      if (m)
        {
          MS_WARP_LANES (m, L) ADDR (L, &A[row[L] * K + t * 32 + tx[L]]);
          ms_warp_access (SITE_ ("gemm.cu", 46, 3), m, 4, MS_K_LD);
          MS_WARP_LANES (m, L) a[L] = VAL (L, float);
          MS_WARP_LANES (m, L)
            {
              ADDR (L, &As[ty[L]][tx[L]]);
              SETVAL (L, float, a[L]);
            }
          ms_warp_access (SITE_ ("gemm.cu", 46, 4), m, 4, MS_K_ST);
        }
      if (live & ~m)
        {
          MS_WARP_LANES (live & ~m, L)
            {
              ADDR (L, &As[ty[L]][tx[L]]);
              SETVAL (L, float, 0.0f);
            }
          ms_warp_access (SITE_ ("gemm.cu", 48, 5), live & ~m, 4, MS_K_ST);
        }
      m = 0;
      MS_WARP_LANES (live, L) m |= LANE_BIT (L, t * 32 + ty[L] < K && col[L] < N);
      if (m)
        {
          MS_WARP_LANES (m, L) ADDR (L, &B[(t * 32 + ty[L]) * N + col[L]]);
          ms_warp_access (SITE_ ("gemm.cu", 51, 6), m, 4, MS_K_LD);
          MS_WARP_LANES (m, L) b[L] = VAL (L, float);
          MS_WARP_LANES (m, L)
            {
              ADDR (L, &Bs[ty[L]][tx[L]]);
              SETVAL (L, float, b[L]);
            }
          ms_warp_access (SITE_ ("gemm.cu", 51, 7), m, 4, MS_K_ST);
        }
      if (live & ~m)
        {
          MS_WARP_LANES (live & ~m, L)
            {
              ADDR (L, &Bs[ty[L]][tx[L]]);
              SETVAL (L, float, 0.0f);
            }
          ms_warp_access (SITE_ ("gemm.cu", 53, 8), live & ~m, 4, MS_K_ST);
        }
      ms_warp_barrier (SITE_ ("gemm.cu", 54, 9), live);
      for (int k = 0; k < 32; k++)
        {
          MS_WARP_LANES (live, L) ADDR (L, &As[ty[L]][k]);
          ms_warp_access (SITE_ ("gemm.cu", 56, 10), live, 4, MS_K_LD);
          MS_WARP_LANES (live, L) a[L] = VAL (L, float);
          MS_WARP_LANES (live, L) ADDR (L, &Bs[k][tx[L]]);
          ms_warp_access (SITE_ ("gemm.cu", 56, 11), live, 4, MS_K_LD);
          MS_WARP_LANES (live, L) c_val[L] += a[L] * VAL (L, float);
        }
      ms_warp_barrier (SITE_ ("gemm.cu", 57, 12), live);
    }
  m = 0;
  MS_WARP_LANES (live, L) m |= LANE_BIT (L, row[L] < M && col[L] < N);
  if (m)
    {
      MS_WARP_LANES (m, L)
        {
          ADDR (L, &C[row[L] * N + col[L]]);
          SETVAL (L, float, c_val[L]);
        }
      ms_warp_access (SITE_ ("gemm.cu", 60, 13), m, 4, MS_K_ST);
    }
}

void
ms_warp_entry_reduce_sequential (const MsLaunchArgs *Lp)
{
  int *out = (int *) Lp->buf[0];
  const int *in = (const int *) Lp->buf[1];
  int n = (int) Lp->i[0];
  MsLane *wl = ms_warp.lanes;
  uint32_t live = ms_warp.live, m = 0;
  SHARED_ARRAY (int, sdata, 1024);
  unsigned tid[32], i[32];
  int a[32], b[32];
  MS_WARP_LANES (live, L)
    {
      tid[L] = wl[L].thread_idx.x;
      i[L] = blockIdx.x * blockDim.x + tid[L];
      m |= LANE_BIT (L, i[L] < (unsigned) n);
    }
  if (m)
    {
      MS_WARP_LANES (m, L) ADDR (L, &in[i[L]]);
      ms_warp_access (SITE_ ("reduce.cu", 85, 36), m, 4, MS_K_LD);
      MS_WARP_LANES (m, L) a[L] = VAL (L, int);
    }
  MS_WARP_LANES (live, L)
    {
      int v = (m >> L & 1) ? a[L] : 0;
      ADDR (L, &sdata[tid[L]]);
      SETVAL (L, int, v);
    }
  ms_warp_access (SITE_ ("reduce.cu", 85, 37), live, 4, MS_K_ST);
  ms_warp_barrier (SITE_ ("reduce.cu", 86, 38), live);
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1)
    {
      m = 0;
      MS_WARP_LANES (live, L) m |= LANE_BIT (L, tid[L] < s);
      if (m)
        {
          MS_WARP_LANES (m, L) ADDR (L, &sdata[tid[L]]);
          ms_warp_access (SITE_ ("reduce.cu", 89, 39), m, 4, MS_K_LD);
          MS_WARP_LANES (m, L) a[L] = VAL (L, int);
          MS_WARP_LANES (m, L) ADDR (L, &sdata[tid[L] + s]);
          ms_warp_access (SITE_ ("reduce.cu", 89, 40), m, 4, MS_K_LD);
          MS_WARP_LANES (m, L) b[L] = VAL (L, int);
          MS_WARP_LANES (m, L)
            {
              ADDR (L, &sdata[tid[L]]);
              SETVAL (L, int, a[L] + b[L]);
            }
          ms_warp_access (SITE_ ("reduce.cu", 89, 41), m, 4, MS_K_ST);
        }
      ms_warp_barrier (SITE_ ("reduce.cu", 90, 42), live);
    }
  m = 0;
  MS_WARP_LANES (live, L) m |= LANE_BIT (L, tid[L] == 0);
  if (m)
    {
      MS_WARP_LANES (m, L) ADDR (L, &sdata[0]);
      ms_warp_access (SITE_ ("reduce.cu", 93, 43), m, 4, MS_K_LD);
      MS_WARP_LANES (m, L) a[L] = VAL (L, int);
      MS_WARP_LANES (m, L)
        {
          ADDR (L, &out[blockIdx.x]);
          SETVAL (L, int, a[L]);
        }
      ms_warp_access (SITE_ ("reduce.cu", 93, 44), m, 4, MS_K_ST);
    }
}
