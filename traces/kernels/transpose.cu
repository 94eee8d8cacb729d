/* transpose.cu - the matrix transpose family (seeds 000 and 002, and
 * NVIDIA's transpose sample they cite: "An Efficient Matrix Transpose in
 * CUDA C/C++").  idata is `height` rows of `width` floats; odata receives
 * its transpose, `width` rows of `height` floats (copy: a plain copy).
 * Every kernel is correct for sizes that are not multiples of 32.
 */
#include "kernel.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

/* transpose_naive (seed 002): one element per thread.  Reads are coalesced
 * (consecutive x), writes stride by `height` floats: 32 sectors a warp. */
__global__ void transpose_naive (float *odata, const float *idata, int width, int height)
{
  unsigned int xIndex = threadIdx.x + blockIdx.x * blockDim.x;
  unsigned int yIndex = threadIdx.y + blockIdx.y * blockDim.y;

  if (xIndex < (unsigned) width && yIndex < (unsigned) height) {
    unsigned int index_in = xIndex + width * yIndex;
    unsigned int index_out = yIndex + height * xIndex;
    float v = LD (idata[index_in]);
    ST (odata[index_out], v);
  }
}

/* transpose_shared: stage a 32x32 tile through shared memory so both global
 * accesses are coalesced; the column read of the tile hits one bank 32
 * times (32-way bank conflict). */
__global__ void transpose_shared (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, TILE_DIM, TILE_DIM);
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x < (unsigned) width && y < (unsigned) height) {
    float v = LD (idata[y * width + x]);
    ST (tile[threadIdx.y][threadIdx.x], v);
  }
  __syncthreads ();
  x = blockIdx.y * TILE_DIM + threadIdx.x;   /* output row = input column */
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  if (x < (unsigned) height && y < (unsigned) width) {
    float v = LD (tile[threadIdx.x][threadIdx.y]);
    ST (odata[y * height + x], v);
  }
}

/* transpose_padded: the same with one pad column (32x33): a column of the
 * tile now spans all 32 banks, so the read is conflict-free. */
__global__ void transpose_padded (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, TILE_DIM, TILE_DIM + 1);
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x < (unsigned) width && y < (unsigned) height) {
    float v = LD (idata[y * width + x]);
    ST (tile[threadIdx.y][threadIdx.x], v);
  }
  __syncthreads ();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  if (x < (unsigned) height && y < (unsigned) width) {
    float v = LD (tile[threadIdx.x][threadIdx.y]);
    ST (odata[y * height + x], v);
  }
}

/* transpose_padded2 (seed 000): two pad columns, a Kepler 64-bit bank mode
 * idea.  With 4-byte banks a column has stride 34 words: gcd(34,32) = 2,
 * a 2-way conflict - worse than +1 on Hopper. */
__global__ void transpose_padded2 (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, TILE_DIM, TILE_DIM + 2);
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x < (unsigned) width && y < (unsigned) height) {
    float v = LD (idata[y * width + x]);
    ST (tile[threadIdx.y][threadIdx.x], v);
  }
  __syncthreads ();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  if (x < (unsigned) height && y < (unsigned) width) {
    float v = LD (tile[threadIdx.x][threadIdx.y]);
    ST (odata[y * height + x], v);
  }
}

/* transpose_swizzled: no padding; element (r, c) lives in column c ^ r, so a
 * column read touches 32 different banks and no memory is wasted. */
__global__ void transpose_swizzled (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, TILE_DIM, TILE_DIM);
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  if (x < (unsigned) width && y < (unsigned) height) {
    float v = LD (idata[y * width + x]);
    ST (tile[threadIdx.y][threadIdx.x ^ threadIdx.y], v);
  }
  __syncthreads ();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  if (x < (unsigned) height && y < (unsigned) width) {
    float v = LD (tile[threadIdx.x][threadIdx.y ^ threadIdx.x]);
    ST (odata[y * height + x], v);
  }
}

/* copy (NVIDIA sample): the bandwidth ceiling a transpose aims for; a 32x32
 * tile per block of 32x8 threads, 4 rows per thread. */
__global__ void copy (float *odata, const float *idata, int width, int height)
{
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < (unsigned) width && y + j < (unsigned) height) {
      float v = LD (idata[(y + j) * width + x]);
      ST (odata[(y + j) * width + x], v);
    }
}

/* transpose_coalesced (NVIDIA sample): tile in shared memory, 32x8 threads,
 * 4 elements per thread; the column read of the tile is 32-way conflicted. */
__global__ void transpose_coalesced (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, TILE_DIM, TILE_DIM);
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < (unsigned) width && y + j < (unsigned) height) {
      float v = LD (idata[(y + j) * width + x]);
      ST (tile[threadIdx.y + j][threadIdx.x], v);
    }
  __syncthreads ();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < (unsigned) height && y + j < (unsigned) width) {
      float v = LD (tile[threadIdx.x][threadIdx.y + j]);
      ST (odata[(y + j) * height + x], v);
    }
}

/* transpose_nobankconflicts (NVIDIA sample): transpose_coalesced with the
 * 32x33 padded tile. */
__global__ void transpose_nobankconflicts (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, TILE_DIM, TILE_DIM + 1);
  unsigned int x = blockIdx.x * TILE_DIM + threadIdx.x;
  unsigned int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < (unsigned) width && y + j < (unsigned) height) {
      float v = LD (idata[(y + j) * width + x]);
      ST (tile[threadIdx.y + j][threadIdx.x], v);
    }
  __syncthreads ();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < (unsigned) height && y + j < (unsigned) width) {
      float v = LD (tile[threadIdx.x][threadIdx.y + j]);
      ST (odata[(y + j) * height + x], v);
    }
}

#define TRANSPOSE_ENTRY(k) \
  MS_ENTRY (k) { MS_LAUNCH (k, L, (float *) L->buf[0], (const float *) L->buf[1], \
                            (int) L->i[0], (int) L->i[1]); }
TRANSPOSE_ENTRY (transpose_naive)
TRANSPOSE_ENTRY (transpose_shared)
TRANSPOSE_ENTRY (transpose_padded)
TRANSPOSE_ENTRY (transpose_padded2)
TRANSPOSE_ENTRY (transpose_swizzled)
TRANSPOSE_ENTRY (copy)
TRANSPOSE_ENTRY (transpose_coalesced)
TRANSPOSE_ENTRY (transpose_nobankconflicts)
