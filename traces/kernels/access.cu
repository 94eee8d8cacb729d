/* access.cu - access patterns (seeds 001 and 002): coalescing by stride,
 * offset and width, shared-memory bank conflicts by stride and width,
 * arrays of structures vs structures of arrays, broadcasts, and divergent
 * data-dependent loops.  Small kernels whose counts can be worked out by
 * hand; the test suite does exactly that.
 */
#include "kernel.h"
#include "access-limits.h"

/* matrix_add (seed 002, matrixSumGPU): C = A + B over an nx x ny matrix,
 * 2D grid of 2D blocks; every access coalesced: 4 sectors per request. */
__global__ void matrix_add (float *A, float *B, float *C, int nx, int ny)
{
  int ix = threadIdx.x + blockIdx.x * blockDim.x;
  int iy = threadIdx.y + blockIdx.y * blockDim.y;
  int idx = iy * nx + ix;
  if (ix < nx && iy < ny)
    ST (C[idx], LD (A[idx]) + LD (B[idx]));
}

/* gmem_stride: thread i copies element i*stride + offset of `in` to out[i]:
 * the coalescing rule in one line.  For 4-byte elements, stride 1, 2, 4,
 * >= 8 gives 4, 8, 16, 32 sectors per request; an offset that is not a
 * multiple of 8 elements adds one sector; 16-byte elements at stride 1 are
 * 16 sectors in 1 request.  One kernel per element width (1, 2, 4, 8, 16
 * bytes), stamped out below from access-width.cuh; the entry picks the one
 * for the `width` parameter. */

/* smem_stride: lane l of warp w accesses shared element l*stride + w - the
 * bank rule in one line.  op 0 (load): the block first fills the array
 * from `in` with coalesced, conflict-free stores, then every thread loads
 * its element.  op 1 (store): every thread stores its element's index
 * (converted to the element type, so lanes that share an element store the
 * same value), then loads it back with the same pattern.  The strided
 * access is the one marked below.  For 4-byte elements the wavefronts are
 * gcd(stride, 32) (stride 0: a broadcast, 1); 8-byte elements go in two
 * halves of 16 lanes, 16-byte ones in four quarters of 8.  One kernel per
 * width, as for gmem_stride.  The array holds SMEM_MAX_ELEMS_OF_WIDTH
 * elements (access-limits.h): strides up to 128, 64 for 16-byte elements. */

/* smem_gather: lane l of every warp accesses shared element pattern[l]
 * (pattern: 32 element indices in global memory, filled by the descriptor
 * from a table of named patterns, so nvcc cannot see them): the probe for
 * gathers, partial broadcasts and partial warps of 4/8/16-byte elements.
 * Only lanes l < mask take part (the others output zero).  op 0 (load):
 * a coalesced, conflict-free fill of the whole tile, __syncthreads, then
 * the gather.  op 1 (store): the scatter stores the element's index
 * (converted to the element type, so lanes sharing an element store the
 * same value), __syncthreads, then a load back with the same pattern.  op 2
 * (atomic, widths 4 and 8 only): the fill, then atomicAdd of 1 to the
 * element's bits as an int (4 bytes) or unsigned long long (8 bytes),
 * __syncthreads, then the load back (sm_90: 4 bytes is one
 * ATOMS.POPC.INC.32, 8 bytes an LDS.64 + ATOMS.CAST.SPIN.64 retry loop).  The
 * element index is a run-time value, so each access is one LDS/STS,
 * LDS.64/STS.64 or LDS.128/STS.128 (see docs/validation.md's SASS).  One
 * kernel per width, as for smem_stride. */
#define GATHER_ELEMS 256

/* The width-generic kernels, once per element type (C has no templates):
 * gmem_stride_W and smem_stride_W for every width, smem_gather_W for 4, 8
 * and 16 bytes; ACCESS_OF_INDEX is the value a store writes for index k. */
#define ACCESS_W 1
#define T uint8_t
#define ACCESS_OF_INDEX(k) ((uint8_t) (k))
#include "access-width.cuh"
#define ACCESS_W 2
#define T uint16_t
#define ACCESS_OF_INDEX(k) ((uint16_t) (k))
#include "access-width.cuh"
#define ACCESS_W 4
#define T float
#define ACCESS_OF_INDEX(k) ((float) (k))
#define ACCESS_ZERO 0.0f
#define ACCESS_ATOMIC_INC(p) atomicAdd ((int *) (p), 1)   /* ATOMS.POPC.INC.32 */
#include "access-width.cuh"
#define ACCESS_W 8
#define T float2
#define ACCESS_OF_INDEX(k) make_float2 ((float) (k), -(float) (k))
#define ACCESS_ZERO make_float2 (0.0f, 0.0f)
#define ACCESS_ATOMIC_INC(p) atomicAdd ((unsigned long long *) (p), 1ull)   /* LDS.64 + ATOMS.CAST.SPIN.64 loop */
#include "access-width.cuh"
#define ACCESS_W 16
#define T float4
#define ACCESS_OF_INDEX(k) make_float4 ((float) (k), -(float) (k), 0.5f, 1.0f)
#define ACCESS_ZERO make_float4 (0.0f, 0.0f, 0.0f, 0.0f)
#include "access-width.cuh"

/* seed 001's record, an array of structures: 12 bytes per record. */
typedef struct {
  int key;
  int value;
  int flag;
} record;

/* seed 001's structure of arrays. */
typedef struct {
  int *keys;
  int *values;
  int *flags;
} SoA;

/* aos_read (seed 001, "AoS wastes bandwidth"): read the key of record i.
 * Lanes 12 bytes apart: a warp's 32 keys span 384 bytes, 12 sectors per
 * request, 33% efficiency. */
__global__ void aos_read (int *out, const record *AoS_data, int n)
{
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n)
    ST (out[i], LD (AoS_data[i].key));
}

/* soa_read (seed 001, "SoA efficient use of bandwidth"): the same keys from
 * their own array: 4 sectors per request, 100%. */
__global__ void soa_read (int *out, SoA SoA_data, int n)
{
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n)
    ST (out[i], LD (SoA_data.keys[i]));
}

/* aos_float3_read (seed 001, `float c = input2[i].x;`): the x of a float3
 * array, a stride of 3 words: 12 sectors per request like aos_read. */
__global__ void aos_float3_read (float *out, const float3 *input2, int n)
{
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < n)
    ST (out[i], LD (input2[i].x));
}

/* The lanes that exist in the calling thread's warp of a 1D block (all 32
 * but in a partial last warp): the mask for __syncwarp and votes.  Computed
 * rather than taken from __activemask(), which only says which lanes happen
 * to be converged at that moment. */
__device__ unsigned int warp_lanes_1d (void)
{
  unsigned int in_warp = blockDim.x - (threadIdx.x & ~31u);
  return in_warp >= 32 ? 0xffffffffu : (1u << in_warp) - 1;
}

/* broadcast_read (seed 001, "all threads read the same value"): every lane
 * of a warp reads the same global word (1 sector per request), lane 0 puts
 * it in shared memory and the whole warp reads it back from one shared
 * word (a broadcast: 1 wavefront, no conflict). */
__global__ void broadcast_read (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sh, 32);   /* one word per warp */
  unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int v = LD (in[i / 32]);      /* global broadcast */
  if (lane == 0)
    ST (sh[warp], v);
  __syncwarp (warp_lanes_1d ());   /* lane 0's store before the others' loads */
  int w = LD (sh[warp]);        /* shared broadcast */
  if (i < (unsigned) n)
    ST (out[i], w);
}

/* per_thread_sum (seed 001, "divergent iteration"): thread i adds up row i
 * of a CSR-like array, data[indices[i] .. indices[i+1]).  Rows have
 * data-dependent lengths, so a warp loops as long as its longest row while
 * lanes drop out: partial-warp instructions (see the divergence figures of
 * `memsim trace`).  The seed's loop condition reads indices[i+1] on every
 * iteration; nvcc hoists that load, and so does this source. */
__global__ void per_thread_sum (float *sums, const int *indices, const float *data, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float sum = 0.0f;
    int end = LD (indices[i + 1]);
    for (int j = LD (indices[i]); j < end; j++)
      sum += LD (data[j]);
    ST (sums[i], sum);
  }
}

/* per_thread_sum_capped (seed 001, "averaging peaks": the loop bound
 * min(indices[i+1], indices[i] + MAX_ITER) inside `while (!done)`): fewer
 * threads, each owning rows i, i + T, i + 2T, ... (T = all threads), and
 * adding at most `cap` elements of its current row per round.  A round
 * starts with the lanes whose row is finished storing it and taking their
 * next row; then every lane adds up to cap elements.  A long row no longer
 * holds the warp's other lanes idle until it ends: they work on their next
 * rows meanwhile.  `done` is warp-wide: the rounds go on while any lane of
 * the warp has a row (__any_sync), and that vote is also where the lanes
 * regroup after the inner loop, on the GPU and in memsim's emulator alike.
 * warp_mask: the warp's threads, so a partial last warp of a block is fine. */
__global__ void per_thread_sum_capped (float *sums, const int *indices, const float *data,
                                       int n, int cap)
{
  const unsigned int warp_mask = warp_lanes_1d ();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int threads = gridDim.x * blockDim.x;
  int j = 0, end = 0;
  float sum = 0.0f;
  if (i < n) {
    j = LD (indices[i]);
    end = LD (indices[i + 1]);
  }
  while (__any_sync (warp_mask, i < n)) {
    if (i < n && j == end) {            /* row i done: store it, take the next */
      ST (sums[i], sum);
      sum = 0.0f;
      i += threads;
      if (i < n) {
        j = LD (indices[i]);
        end = LD (indices[i + 1]);
      }
    }
    int stop = i >= n ? j : end < j + cap ? end : j + cap;
    for (; j < stop; j++)
      sum += LD (data[j]);
  }
}

MS_ENTRY (matrix_add)
{
  MS_LAUNCH (matrix_add, L, (float *) L->buf[1], (float *) L->buf[2], (float *) L->buf[0],
             (int) L->i[0], (int) L->i[1]);
}

/* i[0] = n, i[1] = stride, i[2] = offset, i[3] = width in bytes */
MS_ENTRY (gmem_stride)
{
  int n = (int) L->i[0], stride = (int) L->i[1], offset = (int) L->i[2];
  switch (L->i[3]) {
  case 1: MS_LAUNCH (gmem_stride_1, L, (uint8_t *) L->buf[0], (const uint8_t *) L->buf[1], n, stride, offset); break;
  case 2: MS_LAUNCH (gmem_stride_2, L, (uint16_t *) L->buf[0], (const uint16_t *) L->buf[1], n, stride, offset); break;
  case 4: MS_LAUNCH (gmem_stride_4, L, (float *) L->buf[0], (const float *) L->buf[1], n, stride, offset); break;
  case 8: MS_LAUNCH (gmem_stride_8, L, (float2 *) L->buf[0], (const float2 *) L->buf[1], n, stride, offset); break;
  case 16: MS_LAUNCH (gmem_stride_16, L, (float4 *) L->buf[0], (const float4 *) L->buf[1], n, stride, offset); break;
  default: break;
  }
}

/* i[0] = n, i[1] = stride, i[2] = op, i[3] = width in bytes, i[4] = elements */
MS_ENTRY (smem_stride)
{
  int n = (int) L->i[0], stride = (int) L->i[1], op = (int) L->i[2], elems = (int) L->i[4];
  switch (L->i[3]) {
  case 1: MS_LAUNCH (smem_stride_1, L, (uint8_t *) L->buf[0], (const uint8_t *) L->buf[1], n, stride, op, elems); break;
  case 2: MS_LAUNCH (smem_stride_2, L, (uint16_t *) L->buf[0], (const uint16_t *) L->buf[1], n, stride, op, elems); break;
  case 4: MS_LAUNCH (smem_stride_4, L, (float *) L->buf[0], (const float *) L->buf[1], n, stride, op, elems); break;
  case 8: MS_LAUNCH (smem_stride_8, L, (float2 *) L->buf[0], (const float2 *) L->buf[1], n, stride, op, elems); break;
  case 16: MS_LAUNCH (smem_stride_16, L, (float4 *) L->buf[0], (const float4 *) L->buf[1], n, stride, op, elems); break;
  default: break;
  }
}

/* i[0] = n, i[1] = op, i[2] = mask, i[3] = width in bytes; buf[2] = the
 * 32 element indices */
MS_ENTRY (smem_gather)
{
  int n = (int) L->i[0], op = (int) L->i[1], mask = (int) L->i[2];
  const int *pattern = (const int *) L->buf[2];
  switch (L->i[3]) {
  case 4: MS_LAUNCH (smem_gather_4, L, (float *) L->buf[0], (const float *) L->buf[1], pattern, n, op, mask); break;
  case 8: MS_LAUNCH (smem_gather_8, L, (float2 *) L->buf[0], (const float2 *) L->buf[1], pattern, n, op, mask); break;
  case 16: MS_LAUNCH (smem_gather_16, L, (float4 *) L->buf[0], (const float4 *) L->buf[1], pattern, n, op, mask); break;
  default: break;
  }
}

MS_ENTRY (aos_read)
{
  MS_LAUNCH (aos_read, L, (int *) L->buf[0], (const record *) L->buf[1], (int) L->i[0]);
}

MS_ENTRY (soa_read)
{
  SoA soa = { (int *) L->buf[1], (int *) L->buf[2], (int *) L->buf[3] };
  MS_LAUNCH (soa_read, L, (int *) L->buf[0], soa, (int) L->i[0]);
}

MS_ENTRY (aos_float3_read)
{
  MS_LAUNCH (aos_float3_read, L, (float *) L->buf[0], (const float3 *) L->buf[1], (int) L->i[0]);
}

MS_ENTRY (broadcast_read)
{
  MS_LAUNCH (broadcast_read, L, (int *) L->buf[0], (const int *) L->buf[1], (int) L->i[0]);
}

MS_ENTRY (per_thread_sum)
{
  MS_LAUNCH (per_thread_sum, L, (float *) L->buf[0], (const int *) L->buf[1],
             (const float *) L->buf[2], (int) L->i[0]);
}

MS_ENTRY (per_thread_sum_capped)
{
  MS_LAUNCH (per_thread_sum_capped, L, (float *) L->buf[0], (const int *) L->buf[1],
             (const float *) L->buf[2], (int) L->i[0], (int) L->i[1]);
}
