/* tests.cu - small kernels that exercise the emulator's semantics: bounds
 * checks, barrier deadlocks, warp-synchronous code, shuffles and votes,
 * divergence, atomics, early exit and 3D geometry.  Family "test": hidden
 * from `memsim list` unless --all, used by the test suite. */
#include "kernel.h"

/* Reads one element past the end of `in` in the last warp. */
__global__ void test_oob (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = LD (in[i + 1]);          /* i + 1 == n is out of bounds */
  if (i < n)
    ST (out[i], v);
}

/* Half of each warp waits at one barrier, the other half at another. */
__global__ void test_barrier_divergence (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16)
    __syncthreads ();
  if (i < n)
    ST (out[i], LD (in[i]));
  __syncthreads ();
}

/* Half of each warp waits at a barrier, the other half at a whole-warp
 * shuffle that needs the first half (must fail: a deadlock). */
__global__ void test_collective_deadlock (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = 0;
  if (threadIdx.x % 32 < 16)
    __syncthreads ();
  else
    v = __shfl_xor_sync (0xffffffffu, i, 1);
  if (i < n)
    ST (out[i], v);
}

/* A shuffle of width 3, which the GPU has not (must fail: the argument
 * check, the same error warp-wide and on fibers). */
__global__ void test_shfl_width (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = __shfl_sync (0xffffffffu, i, 0, 3);
  if (i < n)
    ST (out[i], v);
}

/* The unrolled last warp of a reduction (seed 003): volatile shared memory,
 * no __syncwarp - correct only if each warp step loads before it stores. */
__global__ void test_warp_sync (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, sdata, 64);
  unsigned int tid = threadIdx.x;
  unsigned int i = blockIdx.x * 64 + tid;
  ST (sdata[tid], (i < (unsigned) n ? LD (in[i]) : 0));
  __syncthreads ();
  if (tid < 32) {
    volatile int *s = sdata;
    ST (s[tid], LD (s[tid]) + LD (s[tid + 32]));
    ST (s[tid], LD (s[tid]) + LD (s[tid + 16]));
    ST (s[tid], LD (s[tid]) + LD (s[tid + 8]));
    ST (s[tid], LD (s[tid]) + LD (s[tid + 4]));
    ST (s[tid], LD (s[tid]) + LD (s[tid + 2]));
    ST (s[tid], LD (s[tid]) + LD (s[tid + 1]));
  }
  if (tid == 0)
    ST (out[blockIdx.x], LD (sdata[0]));
}

/* Shuffles and votes: out has 7 ints per thread (out[7 * i + 5]: __all_sync
 * plus 1000 times lane 9's value).  The last one rotates a shared array by
 * one lane with no __syncwarp between load and store: right only if every
 * lane loads before any lane stores (lockstep). */
__global__ void test_shuffle (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, rot, 1024);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  if (i - lane >= n)      /* whole warps past the end leave together */
    return;
  int v = LD (in[i]);
  int sum = v;
  for (int m = 16; m >= 1; m /= 2)
    sum += __shfl_xor_sync (0xffffffffu, sum, m);
  int scan = v;
  for (int d = 1; d < 32; d *= 2) {
    int t = __shfl_up_sync (0xffffffffu, scan, d);
    if (lane >= d)
      scan += t;
  }
  int down = __shfl_down_sync (0xffffffffu, v, 3);
  int from7 = __shfl_sync (0xffffffffu, v, 7, 16);   /* lane 7 of each half */
  unsigned ballot = __ballot_sync (0xffffffffu, v > 0);
  int all = __all_sync (0xffffffffu, v > -1000);
  ST (rot[threadIdx.x], v);
  __syncwarp ();
  int left = LD (rot[threadIdx.x - lane + (lane + 31) % 32]);
  ST (rot[threadIdx.x], left);
  ST (out[7 * i + 0], sum);
  ST (out[7 * i + 1], scan);
  ST (out[7 * i + 2], down);
  ST (out[7 * i + 3], from7);
  ST (out[7 * i + 4], (int) ballot);
  int from9 = __shfl_sync (0xffffffffu, v, 9);       /* lane 9 of the warp */
  ST (out[7 * i + 5], all + 1000 * from9 + (n > 0 ? 0 : 1));
  ST (out[7 * i + 6], LD (rot[threadIdx.x]));
}

/* Data-dependent loops and if/else: out[i] = sum of in[i..i+len) where
 * len = i % 7, negated for odd i; lanes take different paths. */
__global__ void test_divergence (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int acc = 0;
  for (int k = 0; k < i % 7; k++)
    acc += LD (in[(i + k) % n]);
  if (i % 2)
    ST (out[i], -acc);
  else
    ST (out[i], acc);
}

/* Histogram of in[] (values 0..15) with shared and global atomics, plus
 * atomicMax and atomicCAS: out[0..15] counts, out[16] max, out[17] the
 * number of threads whose CAS won (one per block). */
__global__ void test_atomics (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, hist, 16);
  SHARED_ARRAY (int, flag, 1);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 16)
    ST (hist[threadIdx.x], 0);
  if (threadIdx.x == 0)
    ST (flag[0], 0);
  __syncthreads ();
  if (i < n) {
    int v = LD (in[i]);
    atomicAdd (&hist[v], 1);
    atomicMax (&out[16], v);
  }
  if (atomicCAS (&flag[0], 0, 1) == 0)
    atomicAdd (&out[17], 1);
  __syncthreads ();
  if (threadIdx.x < 16)
    atomicAdd (&out[threadIdx.x], LD (hist[threadIdx.x]));
}

/* seed 000's reduceShfl shape: threads past n return before a barrier the
 * others reach; out[block] = sum of the block's elements. */
__global__ void test_early_exit (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, smem, 32);
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < 32)
    ST (smem[threadIdx.x], 0);
  __syncthreads ();
  if (idx >= n)
    return;
  int v = LD (in[idx]);
  atomicAdd (&smem[threadIdx.x / 32], v);
  __syncthreads ();
  if (threadIdx.x == 0) {
    int s = 0;
    for (unsigned w = 0; w < (blockDim.x + 31) / 32; w++)
      s += LD (smem[w]);
    ST (out[blockIdx.x], s);
  }
}

/* 3D grid and block: every thread writes its coordinates, packed. */
__global__ void test_3d (int *out, const int *in, int n)
{
  unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
  unsigned z = blockIdx.z * blockDim.z + threadIdx.z;
  unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
  unsigned idx = (z * h + y) * w + x;
  if (idx < (unsigned) n)
    ST (out[idx], (int) (x | y << 10 | z << 20) + LD (in[idx]) * 0);
}

/* Writes through a pointer made from a number, into no buffer of the
 * launch: a crash on both back-ends (must fail with one line, not a core
 * dump).  (From the parameter, so that nvcc cannot drop the store.) */
__global__ MS_NO_UBSAN void test_wild_pointer (int *out, const int *in, int n)
{
  int *wild = (int *) ((size_t) n << 12) + blockIdx.x;
  if (threadIdx.x == 0)
    *wild = n;
  ST (out[0], 0);
}

/* Half of a shared array is written, all of it read: threads 32..63 read
 * garbage on the GPU (must fail: uninitialised shared memory). */
__global__ void test_uninitialised (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, s, 64);
  if (threadIdx.x < 32)
    ST (s[threadIdx.x], LD (in[threadIdx.x]));
  __syncthreads ();
  ST (out[threadIdx.x], LD (s[threadIdx.x % 64]));
}

/* Warp 0 spins on a volatile shared flag that warp 1 sets, with no barrier
 * between: works on the GPU, and in the emulator because a warp yields to
 * the others after a budget of instructions, shuffles included (5000 of
 * them between two looks at the flag, more than the budget: the warp-wide
 * build counts a whole warp's shuffles inline).  Every output is 7. */
__global__ void test_warp_flag (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, flag, 1);
  volatile int *f = flag;
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    ST (f[0], 0);
  __syncthreads ();
  if (threadIdx.x < 32) {
    int v;
    while ((v = LD (f[0])) == 0)
      for (int k = 0; k < 5000; k++)
        v = __shfl_xor_sync (0xffffffffu, v, 1);
    ST (out[i], v);
  } else {
    if (threadIdx.x == 32)
      ST (f[0], 7);
    ST (out[i], 7);
  }
}

/* A lock taken by one lane while the others of its warp spin on it: fine on
 * sm_70+ (independent thread scheduling), where the lane that holds it
 * goes on to release it while the others spin; every output is 1. */
__global__ void test_lane_lock (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, lock, 1);
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0)
    ST (lock[0], 0);
  __syncthreads ();
  int done = 0;
  while (!done) {
    if (atomicCAS (&lock[0], 0, 1) == 0) {
      ST (out[i], 1);
      atomicExch (&lock[0], 0);
      done = 1;
    }
  }
}

/* A tiled transpose (transpose_shared) that forgets its __syncthreads:
 * warp y writes row y of the tile and at once reads column y, which the
 * other warps write (must fail: a race; --allow-races goes on).  The
 * emulator runs warp 0 first, so it reads rows not yet written: zeros. */
__global__ void test_race_transpose (float *odata, const float *idata, int width, int height)
{
  SHARED_ARRAY2 (float, tile, 32, 32);
  unsigned int x = blockIdx.x * 32 + threadIdx.x;
  unsigned int y = blockIdx.y * 32 + threadIdx.y;
  if (x < (unsigned) width && y < (unsigned) height)
    ST (tile[threadIdx.y][threadIdx.x], LD (idata[y * width + x]));
  /* missing: __syncthreads (); */
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < (unsigned) height && y < (unsigned) width)
    ST (odata[y * height + x], LD (tile[threadIdx.x][threadIdx.y]));
}

/* Two phases over one int of shared memory per thread.  Phase 1 is right:
 * each thread writes its own int, and after the barrier reads the one of
 * the thread 32 places on (another warp's).  Phase 2, after a second
 * barrier, races: the warps of the block all write ints 0..31 (their warp
 * index) with no barrier between (must fail; with --allow-races, thread
 * t < 32 adds what it reads back after a third barrier: some warp's index). */
__global__ void test_race_phases (int *out, const int *in, int n)
{
  SHARED_ARRAY (int, s, 128);
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  ST (s[t], i < (unsigned) n ? LD (in[i]) : 0);
  __syncthreads ();
  int v = LD (s[(t + 32) % blockDim.x]);
  __syncthreads ();
  ST (s[t % 32], (int) (t / 32));
  __syncthreads ();
  if (t < 32)
    v += LD (s[t]);
  if (i < (unsigned) n)
    ST (out[i], v);
}

/* Warp-synchronous global memory: every lane stores, then loads the next
 * lane's element, with no __syncwarp between; in lockstep that is the value
 * just stored.  A warp run straight through (sim/emulator/direct.h) loads
 * bytes it stores here, so it must run on fibers instead. */
__global__ void test_warp_global (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  if (i - lane + 32 > n)      /* whole warps only */
    return;
  ST (out[i], LD (in[i]) + 1);
  int v = LD (out[i - lane + (lane + 1) % 32]);
  ST (out[i], 2 * v);
}

/* Lanes with as many accesses each, at the same sites for the first two,
 * then at different ones: odd lanes store, then load; even lanes load, then
 * store.  A warp run straight through executes its first steps in
 * lockstep and the rest in the fibers' order (sim/emulator/emulator.c,
 * run_direct), which must give the fibers' counts. */
__global__ void test_late_divergence (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int a = LD (in[i]);
  int b = LD (in[(i + 1) % n]);
  if (i % 2) {
    ST (out[i], a + b);
    b = LD (in[(i + 2) % n]);
    (void) b;
  } else {
    b += LD (in[(i + 3) % n]);
    ST (out[i], a - b);
  }
}

/* 150 loads a lane, odd lanes at one site and even lanes at another at
 * every step: a warp of 4832 accesses in 301 steps, which a straight run
 * counts (past the lockstep bound of run_direct) before it runs them. */
__global__ void test_long_divergence (int *out, const int *in, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int acc = 0;
  for (int j = 0; j < 150; j++) {
    if (i % 2)
      acc += LD (in[(i + j) % n]);
    else
      acc -= LD (in[(i + 2 * j) % n]);
  }
  ST (out[i], acc);
}

#define TEST_ENTRY(k) \
  MS_ENTRY (k) { MS_LAUNCH (k, L, (int *) L->buf[0], (const int *) L->buf[1], (int) L->i[0]); }
TEST_ENTRY (test_oob)
TEST_ENTRY (test_barrier_divergence)
TEST_ENTRY (test_collective_deadlock)
TEST_ENTRY (test_shfl_width)
TEST_ENTRY (test_warp_sync)
TEST_ENTRY (test_shuffle)
TEST_ENTRY (test_divergence)
TEST_ENTRY (test_atomics)
TEST_ENTRY (test_early_exit)
TEST_ENTRY (test_3d)
TEST_ENTRY (test_wild_pointer)
TEST_ENTRY (test_uninitialised)
TEST_ENTRY (test_warp_flag)
TEST_ENTRY (test_lane_lock)
TEST_ENTRY (test_race_phases)
TEST_ENTRY (test_warp_global)
TEST_ENTRY (test_late_divergence)
TEST_ENTRY (test_long_divergence)
MS_ENTRY (test_race_transpose)
{
  MS_LAUNCH (test_race_transpose, L, (float *) L->buf[0], (const float *) L->buf[1], (int) L->i[0],
             (int) L->i[1]);
}
