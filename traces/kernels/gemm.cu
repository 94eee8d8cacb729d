/* gemm.cu - the single-precision matrix multiply family (seed 004's GEMM
 * table): C = A * B with A M x K, B K x N, C M x N, all row-major floats.
 * The tiled kernels are seed 004's code with memsim's accessors; all handle
 * sizes that are not multiples of their tiles (out-of-range tile cells are
 * loaded as 0).
 */
#include "kernel.h"

/* gemm_naive: one thread per element of C, K multiply-adds straight from
 * global memory.  In a warp (32 consecutive columns of one row) the A load
 * is one address for all lanes (1 sector) and the B load is coalesced
 * (4 sectors); each element of A and B is loaded N or M times. */
__global__ void gemm_naive (const float *A, const float *B, float *C, int M, int N, int K)
{
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
      acc += LD (A[row * K + k]) * LD (B[k * N + col]);
    ST (C[row * N + col], acc);
  }
}

#define TILE 32

/* gemm_tiled (seed 004, "Tiled 32x32"): 32x32 blocks; per step of 32 in K
 * the block stages a 32x32 tile of A and of B in shared memory (coalesced
 * loads), then every thread reads a row of As and a column of Bs.  Global
 * traffic drops 32x.  Both tiles carry the seed's +1 padding column; in
 * this loop As[ty][k] is a broadcast (one address per warp) and Bs[k][tx]
 * stride 1, so neither conflicts with or without the pad (compare
 * gemm_tiled_nopad). */
__global__ void gemm_tiled (const float *A, const float *B, float *C, int M, int N, int K)
{
  SHARED_ARRAY2 (float, As, TILE, TILE + 1);
  SHARED_ARRAY2 (float, Bs, TILE, TILE + 1);
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float c_val = 0.0f;
  int n_tiles = (K + TILE - 1) / TILE;
  for (int t = 0; t < n_tiles; t++) {
    int a_col = t * TILE + tx;
    if (row < M && a_col < K)
      ST (As[ty][tx], LD (A[row * K + a_col]));
    else
      ST (As[ty][tx], 0.0f);
    int b_row = t * TILE + ty;
    if (b_row < K && col < N)
      ST (Bs[ty][tx], LD (B[b_row * N + col]));
    else
      ST (Bs[ty][tx], 0.0f);
    __syncthreads ();
    for (int k = 0; k < TILE; k++)
      c_val += LD (As[ty][k]) * LD (Bs[k][tx]);
    __syncthreads ();
  }
  if (row < M && col < N)
    ST (C[row * N + col], c_val);
}

/* gemm_tiled_nopad: gemm_tiled with unpadded 32x32 tiles, the version seed
 * 004 says runs 3x slower on an A100.  The model finds the same wavefronts
 * for both (see gemm_tiled): the padding matters where a tile is read down
 * a column.  What can differ on the GPU is the instruction count: unpadded
 * rows are 16-byte aligned, so nvcc may fuse four As[ty][k] loads into one
 * 128-bit load. */
__global__ void gemm_tiled_nopad (const float *A, const float *B, float *C, int M, int N, int K)
{
  SHARED_ARRAY2 (float, As, TILE, TILE);
  SHARED_ARRAY2 (float, Bs, TILE, TILE);
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float c_val = 0.0f;
  int n_tiles = (K + TILE - 1) / TILE;
  for (int t = 0; t < n_tiles; t++) {
    int a_col = t * TILE + tx;
    if (row < M && a_col < K)
      ST (As[ty][tx], LD (A[row * K + a_col]));
    else
      ST (As[ty][tx], 0.0f);
    int b_row = t * TILE + ty;
    if (b_row < K && col < N)
      ST (Bs[ty][tx], LD (B[b_row * N + col]));
    else
      ST (Bs[ty][tx], 0.0f);
    __syncthreads ();
    for (int k = 0; k < TILE; k++)
      c_val += LD (As[ty][k]) * LD (Bs[k][tx]);
    __syncthreads ();
  }
  if (row < M && col < N)
    ST (C[row * N + col], c_val);
}

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

/* gemm_regtile (seed 004, "Optimized 64x64, TM=TN=4"): 16x16 threads, each
 * computing a 4x4 block of C from registers: per k, 4 values of A and 4 of
 * B feed 16 multiply-adds.  As is stored transposed (As[k][m]).  As the seed
 * wrote it, the A tile load walks down columns of A (lanes 32 rows apart:
 * 32 sectors per request), the B reads of Bs[k][tx*TN+n] are 2-way bank
 * conflicts (stride 4 words over 16 lanes) and the 4x4 stores of C touch
 * 16 sectors per 128 bytes. */
__global__ void gemm_regtile (const float *A, const float *B, float *C, int M, int N, int K)
{
  SHARED_ARRAY2 (float, As, BK, BM + 1);   /* transposed: As[k][m] */
  SHARED_ARRAY2 (float, Bs, BK, BN + 1);
  int tx = threadIdx.x, ty = threadIdx.y;
  float c_reg[TM][TN] = { { 0.0f } };
  int block_row = blockIdx.y * BM;
  int block_col = blockIdx.x * BN;
  for (int bk = 0; bk < K; bk += BK) {
    int linear_tid = ty * (BN / TN) + tx;
    for (int i = 0; i < (BK * BM) / 256; i++) {
      int idx = linear_tid + i * 256;
      int k_idx = idx / BM;
      int m_idx = idx % BM;
      int global_m = block_row + m_idx;
      int global_k = bk + k_idx;
      ST (As[k_idx][m_idx], (global_m < M && global_k < K) ? LD (A[global_m * K + global_k]) : 0.0f);
    }
    for (int i = 0; i < (BK * BN) / 256; i++) {
      int idx = linear_tid + i * 256;
      int k_idx = idx / BN;
      int n_idx = idx % BN;
      int global_k = bk + k_idx;
      int global_n = block_col + n_idx;
      ST (Bs[k_idx][n_idx], (global_k < K && global_n < N) ? LD (B[global_k * N + global_n]) : 0.0f);
    }
    __syncthreads ();
    for (int k = 0; k < BK; k++) {
      float a_reg[TM], b_reg[TN];
      for (int m = 0; m < TM; m++)
        a_reg[m] = LD (As[k][ty * TM + m]);
      for (int n = 0; n < TN; n++)
        b_reg[n] = LD (Bs[k][tx * TN + n]);
      for (int m = 0; m < TM; m++)
        for (int n = 0; n < TN; n++)
          c_reg[m][n] += a_reg[m] * b_reg[n];
    }
    __syncthreads ();
  }
  for (int m = 0; m < TM; m++)
    for (int n = 0; n < TN; n++) {
      int global_m = block_row + ty * TM + m;
      int global_n = block_col + tx * TN + n;
      if (global_m < M && global_n < N)
        ST (C[global_m * N + global_n], c_reg[m][n]);
    }
}

/* gemm_double_buffer (seed 004, "double buffering"): gemm_tiled with two
 * pairs of padded tiles; the next tile is loaded into one while the current
 * one is used, one barrier per step instead of two.  The seed's
 * As[2][TILE][TILE+1] is declared as As[2*TILE][TILE+1] (same layout):
 * buffer b's row r is As[b*TILE + r]. */
__global__ void gemm_double_buffer (const float *A, const float *B, float *C, int M, int N, int K)
{
  SHARED_ARRAY2 (float, As, 2 * TILE, TILE + 1);
  SHARED_ARRAY2 (float, Bs, 2 * TILE, TILE + 1);
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  int n_tiles = (K + TILE - 1) / TILE;
  int buf = 0;
  int ak = tx, bk = ty;
  ST (As[ty][tx], (row < M && ak < K) ? LD (A[row * K + ak]) : 0.0f);
  ST (Bs[ty][tx], (bk < K && col < N) ? LD (B[bk * N + col]) : 0.0f);
  __syncthreads ();
  for (int t = 0; t < n_tiles; t++) {
    int next_buf = 1 - buf;
    if (t + 1 < n_tiles) {
      int next_ak = (t + 1) * TILE + tx;
      int next_bk = (t + 1) * TILE + ty;
      ST (As[next_buf * TILE + ty][tx],
          (row < M && next_ak < K) ? LD (A[row * K + next_ak]) : 0.0f);
      ST (Bs[next_buf * TILE + ty][tx],
          (next_bk < K && col < N) ? LD (B[next_bk * N + col]) : 0.0f);
    }
    for (int k = 0; k < TILE; k++)
      acc += LD (As[buf * TILE + ty][k]) * LD (Bs[buf * TILE + k][tx]);
    buf = next_buf;
    __syncthreads ();
  }
  if (row < M && col < N)
    ST (C[row * N + col], acc);
}

#define GEMM_ENTRY(k) \
  MS_ENTRY (k) { MS_LAUNCH (k, L, (const float *) L->buf[1], (const float *) L->buf[2], \
                            (float *) L->buf[0], (int) L->i[0], (int) L->i[1], (int) L->i[2]); }
GEMM_ENTRY (gemm_naive)
GEMM_ENTRY (gemm_tiled)
GEMM_ENTRY (gemm_tiled_nopad)
GEMM_ENTRY (gemm_regtile)
GEMM_ENTRY (gemm_double_buffer)
