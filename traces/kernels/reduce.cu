/* reduce.cu - the parallel reduction family (seed 003's table, after Mark
 * Harris's "Optimizing Parallel Reduction in CUDA", and seed 000's warp
 * shuffle reduction).  in holds n ints; every kernel writes one partial sum
 * per block, out[blockIdx.x] (a second pass or the host adds them up).
 * Integer sums are exact, so every variant's output must equal the plain-C
 * reference bit for bit.
 *
 * Shared memory: the seed declares `extern __shared__ int Local[]` sized at
 * launch; memsim kernels use static arrays, so the runtime-sized variants
 * declare the largest block (1024 ints).  Only blockDim.x of them are
 * touched, so the counts are those of the seed's kernels.
 * Blocks: 1D, a power of two from 64 to 1024 threads (block rule POW2).
 * Seed 003's kernels assume n is a multiple of the block; these check the
 * bounds and load 0 past the end, so awkward n work.
 */
#include "kernel.h"

#define REDUCE_MAX_BLOCK 1024

/* The last six steps of a tree reduction, run by the 32 threads of the
 * first warp without any barrier (seed 003, "unroll the last warp").  Correct
 * only because a warp's lanes load before any of them stores at each step;
 * `volatile` stops the compiler from keeping sdata in registers.  There is
 * deliberately no __syncwarp: that is the lesson (and the emulator runs a
 * warp's lanes in lockstep at each access, as the GPU does here). */
__device__ void warp_reduce_volatile (volatile int *s, unsigned int tid)
{
  ST (s[tid], LD (s[tid]) + LD (s[tid + 32]));
  ST (s[tid], LD (s[tid]) + LD (s[tid + 16]));
  ST (s[tid], LD (s[tid]) + LD (s[tid + 8]));
  ST (s[tid], LD (s[tid]) + LD (s[tid + 4]));
  ST (s[tid], LD (s[tid]) + LD (s[tid + 2]));
  ST (s[tid], LD (s[tid]) + LD (s[tid + 1]));
}

/* reduce_interleaved (seed 003, version 1): interleaved addressing; the
 * active threads are tid % (2*s) == 0, so every warp stays busy with ever
 * fewer active lanes (divergent branch: partial warps). */
__global__ void reduce_interleaved (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  ST (sdata[tid], i < (unsigned) n ? LD (in[i]) : 0);
  __syncthreads ();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    if (tid % (2 * s) == 0)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + s]));
    __syncthreads ();
  }
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* reduce_nondivergent (seed 003, version 2): thread tid works on element
 * index = 2*s*tid, so the active threads are contiguous (whole warps) -
 * but the shared-memory stride 2*s gives 2-, 4-, ...-way bank conflicts.
 * (The seed's slide adds Local[tid] under `index < blockDim.x`; Harris's
 * original, used here, adds Local[index], which is what gives the sum.) */
__global__ void reduce_nondivergent (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  ST (sdata[tid], i < (unsigned) n ? LD (in[i]) : 0);
  __syncthreads ();
  for (unsigned int s = 1; s < blockDim.x; s *= 2) {
    unsigned int index = 2 * s * tid;
    if (index < blockDim.x)
      ST (sdata[index], LD (sdata[index]) + LD (sdata[index + s]));
    __syncthreads ();
  }
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* reduce_sequential (seed 003, version 3): sequential addressing, s halves
 * from blockDim/2: contiguous threads, stride-1 shared accesses, no bank
 * conflicts; half of the threads idle from the first step on. */
__global__ void reduce_sequential (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * blockDim.x + tid;
  ST (sdata[tid], i < (unsigned) n ? LD (in[i]) : 0);
  __syncthreads ();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + s]));
    __syncthreads ();
  }
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* reduce_firstadd (seed 003, version 4): each block reduces 2*blockDim
 * elements and adds the two halves while loading: half the blocks, and no
 * thread idles in the first step. */
__global__ void reduce_firstadd (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
  int v = i < (unsigned) n ? LD (in[i]) : 0;
  if (i + blockDim.x < (unsigned) n)
    v += LD (in[i + blockDim.x]);
  ST (sdata[tid], v);
  __syncthreads ();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (tid < s)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + s]));
    __syncthreads ();
  }
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* reduce_unroll_last (seed 003, version 5): reduce_firstadd whose loop stops
 * at s = 64; the last 6 steps run in the first warp, warp-synchronously on
 * volatile shared memory, with no barrier and no `if (tid < s)`. */
__global__ void reduce_unroll_last (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
  int v = i < (unsigned) n ? LD (in[i]) : 0;
  if (i + blockDim.x < (unsigned) n)
    v += LD (in[i + blockDim.x]);
  ST (sdata[tid], v);
  __syncthreads ();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + s]));
    __syncthreads ();
  }
  if (tid < 32)
    warp_reduce_volatile (sdata, tid);
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* reduce_unroll_complete (seed 003, version 6): the block size is a
 * compile-time constant (the seed's `template <unsigned int blockSize>`),
 * so every `if (blockSize >= ...)` folds away and the loop is fully
 * unrolled.  C has no templates: REDUCE_UNROLL_COMPLETE below stamps out
 * one kernel per block size (64..1024) around this always-inlined body,
 * and the entry picks the one matching blockDim.x, as a template
 * instantiation would. */
__device__ __forceinline__ void reduce_complete_body (int *sdata, int *out, const int *in,
                                                      int n, unsigned int blockSize)
{
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * (blockSize * 2) + tid;
  int v = i < (unsigned) n ? LD (in[i]) : 0;
  if (i + blockSize < (unsigned) n)
    v += LD (in[i + blockSize]);
  ST (sdata[tid], v);
  __syncthreads ();
  if (blockSize >= 1024) {
    if (tid < 512)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + 512]));
    __syncthreads ();
  }
  if (blockSize >= 512) {
    if (tid < 256)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + 256]));
    __syncthreads ();
  }
  if (blockSize >= 256) {
    if (tid < 128)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + 128]));
    __syncthreads ();
  }
  if (blockSize >= 128) {
    if (tid < 64)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + 64]));
    __syncthreads ();
  }
  if (tid < 32)
    warp_reduce_volatile (sdata, tid);   /* blockSize >= 64: all six steps */
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

#define REDUCE_UNROLL_COMPLETE(BS)                                                    \
  __global__ void reduce_unroll_complete_##BS (int *out, const int *in, int n)        \
  {                                                                                   \
    SHARED_ARRAY (int, sdata, BS);                                                    \
    reduce_complete_body (sdata, out, in, n, BS);                                     \
  }
REDUCE_UNROLL_COMPLETE (64)
REDUCE_UNROLL_COMPLETE (128)
REDUCE_UNROLL_COMPLETE (256)
REDUCE_UNROLL_COMPLETE (512)
REDUCE_UNROLL_COMPLETE (1024)

/* reduce_multiple (seed 003, version 7): fewer blocks than the data needs;
 * each thread first adds up many elements in a grid-stride loop, then the
 * block finishes as reduce_unroll_last.  Four elements a step, one block
 * apart (the seed's "each thread responsible for 4 elements", as in the
 * transposes): the four loads do not wait for each other, so each warp has
 * four in flight, which is what brings the loop near the DRAM's bandwidth
 * (with two a step, the H200 ran it 1.4x slower).  The seed accumulates
 * into Local[tid] inside the loop; the running sum is kept in a register
 * here, which is what nvcc makes of that loop anyway (no barrier inside
 * it), so the counts match the compiled kernel. */
__global__ void reduce_multiple (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, REDUCE_MAX_BLOCK);
  unsigned int tid = threadIdx.x;
  unsigned int b = blockDim.x;
  unsigned int i = blockIdx.x * (b * 4) + tid;
  unsigned int grid_size = b * 4 * gridDim.x;
  int v = 0;
  while (i + 3 * b < (unsigned) n) {
    v += LD (in[i]) + LD (in[i + b]) + LD (in[i + 2 * b]) + LD (in[i + 3 * b]);
    i += grid_size;
  }
  /* the last step's first three elements, those below n */
  for (unsigned int k = 0; k < 3; k++)
    if (i + k * b < (unsigned) n)
      v += LD (in[i + k * b]);
  ST (sdata[tid], v);
  __syncthreads ();
  for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
    if (tid < s)
      ST (sdata[tid], LD (sdata[tid]) + LD (sdata[tid + s]));
    __syncthreads ();
  }
  if (tid < 32)
    warp_reduce_volatile (sdata, tid);
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* seed 000's warpReduce: a butterfly of __shfl_xor, no shared memory. */
__device__ int warp_reduce_shfl (int sum)
{
  sum += __shfl_xor_sync (0xffffffffu, sum, 16);
  sum += __shfl_xor_sync (0xffffffffu, sum, 8);
  sum += __shfl_xor_sync (0xffffffffu, sum, 4);
  sum += __shfl_xor_sync (0xffffffffu, sum, 2);
  sum += __shfl_xor_sync (0xffffffffu, sum, 1);
  return sum;
}

/* reduce_shfl (seed 000's reduceShfl): every warp reduces its 32 values with
 * shuffles, lane 0 of each warp writes one shared word, then the first warp
 * reduces those.  Two departures from the seed, both needed on real GPUs:
 * the seed returns early for idx >= n and then shuffles with a full mask,
 * which is undefined behaviour (the exited lanes cannot take part; memsim
 * reports it as an error), so threads past n contribute 0 instead; and the
 * seed's "block-wide sync" comment has no __syncthreads under it. */
__global__ void reduce_shfl (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, smem, 32);   /* one word per warp */
  unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
  int my_sum = idx < (unsigned) n ? LD (in[idx]) : 0;
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  my_sum = warp_reduce_shfl (my_sum);
  if (lane == 0)
    ST (smem[warp], my_sum);
  __syncthreads ();
  my_sum = (threadIdx.x < blockDim.x / warpSize) ? LD (smem[lane]) : 0;
  if (warp == 0)
    my_sum = warp_reduce_shfl (my_sum);
  if (threadIdx.x == 0)
    ST (out[blockIdx.x], my_sum);
}

#define REDUCE_ENTRY(k) \
  MS_ENTRY (k) { MS_LAUNCH (k, L, (int *) L->buf[0], (const int *) L->buf[1], (int) L->i[0]); }
REDUCE_ENTRY (reduce_interleaved)
REDUCE_ENTRY (reduce_nondivergent)
REDUCE_ENTRY (reduce_sequential)
REDUCE_ENTRY (reduce_firstadd)
REDUCE_ENTRY (reduce_unroll_last)
REDUCE_ENTRY (reduce_multiple)
REDUCE_ENTRY (reduce_shfl)

/* The "template" dispatch: one instantiation per power-of-two block size
 * (the descriptor's block rule admits no other). */
MS_ENTRY (reduce_unroll_complete)
{
  int *out = (int *) L->buf[0];
  const int *in = (const int *) L->buf[1];
  int n = (int) L->i[0];
  switch (L->block[0]) {
  case 64: MS_LAUNCH (reduce_unroll_complete_64, L, out, in, n); break;
  case 128: MS_LAUNCH (reduce_unroll_complete_128, L, out, in, n); break;
  case 256: MS_LAUNCH (reduce_unroll_complete_256, L, out, in, n); break;
  case 512: MS_LAUNCH (reduce_unroll_complete_512, L, out, in, n); break;
  case 1024: MS_LAUNCH (reduce_unroll_complete_1024, L, out, in, n); break;
  default: break;
  }
}
