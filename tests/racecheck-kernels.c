/* racecheck-kernels.c - small kernels for tests/test-racecheck.c, each
 * built to race (or not) in one known way.  Written in memsim's kernel
 * subset (sim/emulator/kernel.h) and compiled for the emulator only: they
 * test the race check's rules, not the GPU (the built-in test_race_*
 * kernels are the ones gpu/device-racecheck.sh runs under compute-sanitizer).
 * Every kernel takes one int buffer of 64 (one per thread of the 64-thread
 * block: warps 0 and 1) and one block. */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "kernel.h"

#include "racecheck-kernels.h"

/* Both warps write ints 0..31 of the same array: a write-write race. */
__global__ void rc_write_write (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x;
  ST (s[t % 32], (int) t);
  __syncthreads ();
  ST (out[t], LD (s[t % 32]));
}

/* Both warps write ints 0..31 of the same array, each int the same value
 * (its index) whoever writes it: writes of equal values, no race. */
__global__ void rc_write_same (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x;
  ST (s[t % 32], (int) (t % 32));
  __syncthreads ();
  ST (out[t], LD (s[t % 32]));
}

/* Each thread writes its int; after the barrier it reads the other warp's:
 * ordered by the barrier, no race. */
__global__ void rc_barrier_clean (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x;
  ST (s[t], (int) t);
  __syncthreads ();
  ST (out[t], LD (s[(t + 32) % 64]));
}

/* Each warp reads what the next lane of the same warp wrote, with no
 * __syncwarp: no race between warps; an intra-warp hazard on sm_70+. */
__global__ void rc_own_warp (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x, w = t / 32, lane = t % 32;
  ST (s[t], (int) t);
  ST (out[t], LD (s[w * 32 + (lane + 1) % 32]));
}

/* The same with a __syncwarp between: nothing to report. */
__global__ void rc_own_warp_synced (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x, w = t / 32, lane = t % 32;
  ST (s[t], (int) t);
  __syncwarp ();
  ST (out[t], LD (s[w * 32 + (lane + 1) % 32]));
}

/* Each lane reads its own write: nothing to report. */
__global__ void rc_own_lane (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x;
  ST (s[t], (int) t);
  ST (out[t], LD (s[t]) + 1);
}

/* Every thread adds to one counter: atomics do not race with each other. */
__global__ void rc_atomics (int *out)
{
  SHARED_ARRAY (int, s, 1);
  unsigned t = threadIdx.x;
  if (t == 0)
    ST (s[0], 0);
  __syncthreads ();
  atomicAdd (&s[0], 1);
  __syncthreads ();
  ST (out[t], LD (s[0]));
}

/* Warp 0 adds atomically while warp 1 reads the counter plainly, in one
 * epoch: a race (an atomic does not order a plain access). */
__global__ void rc_atomic_vs_read (int *out)
{
  SHARED_ARRAY (int, s, 1);
  unsigned t = threadIdx.x;
  if (t == 0)
    ST (s[0], 0);
  __syncthreads ();
  int v = 0;
  if (t < 32)
    atomicAdd (&s[0], 1);
  else
    v = LD (s[0]);
  ST (out[t], v);
}

/* Warp 0 reads one int all at once (a broadcast), then its lane 0
 * overwrites it with no __syncwarp: on sm_70+ an intra-warp hazard between
 * lane 0's write and lanes 1-31's reads (lane 0's own read is none). */
__global__ void rc_broadcast_then_write (int *out)
{
  SHARED_ARRAY (int, s, 1);
  unsigned t = threadIdx.x;
  if (t == 0)
    ST (s[0], 7);
  __syncthreads ();
  int v = 0;
  if (t < 32)
    v = LD (s[0]);
  if (t == 0)
    ST (s[0], 8);
  ST (out[t], v);
}

/* Lanes 0 and 1 of warp 0 write ints 0 and 1; then, with no barrier,
 * warp 1 reads them in runs of 16 lanes (lanes 0-15 int 0, 16-31 int 1,
 * the race check's skipped runs): each of the 32 reads races with warp 0's
 * write. */
__global__ void rc_runs_after_write (int *out)
{
  SHARED_ARRAY (int, s, 2);
  unsigned t = threadIdx.x;
  if (t < 2)
    ST (s[t], (int) t);
  int v = 0;
  if (t >= 32)
    v = LD (s[(t - 32) / 16]);
  ST (out[t], v);
}

/* Run with 8 blocks.  The blocks repeat one another up to warp 1's reads,
 * in the epoch of warp 0's second write: in block 5 the last lane of the
 * first read (thread 63) reads warp 0's int 31 instead of its own, and in
 * block 7 lane 8 of the second, an even lanes' read (thread 40), reads int
 * 8: one race in each, and none elsewhere.  Each block repeats the one
 * before it until that read (block 7 repeats block 6, block 5 having
 * raced), so each race is found only if the writes it repeated unchecked
 * are checked then (sim/emulator/racememo.h). */
__global__ void rc_late_race (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x, b = blockIdx.x;
  ST (s[t], (int) t);
  __syncthreads ();
  if (t < 32)
    ST (s[t], (int) t + 1);
  else
    {
      int v = LD (s[b == 5 && t == 63 ? 31 : t]);
      if (t % 2 == 0)
        v += LD (s[b == 7 && t == 40 ? 8 : t]);
      ST (out[t], v);
    }
}

/* Run with 8 blocks: as rc_late_race, but block 5's warp 1 reads int 64,
 * which no thread writes: the uninitialised-read error, in block 5. */
__global__ void rc_late_uninitialised (int *out)
{
  SHARED_ARRAY (int, s, 65);
  unsigned t = threadIdx.x;
  ST (s[t], (int) t);
  __syncthreads ();
  if (t < 32)
    ST (s[t], (int) t + 1);
  else
    ST (out[t], LD (s[blockIdx.x == 5 && t == 40 ? 64 : t]));
}

/* Run with 8 blocks: each warp writes its ints twice, a barrier between,
 * then reads the other warp's after a second barrier, which block 5 alone
 * leaves out (the whole block: no divergence).  Block 5's accesses are
 * the others' at other epochs: warp 1's 32 writes race with warp 0's
 * reads of them, and its 32 reads with warp 0's writes: 64 races. */
__global__ void rc_late_barrier (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x;
  ST (s[t], (int) t);
  __syncthreads ();
  ST (s[t], (int) t + 1);
  if (blockIdx.x != 5)
    __syncthreads ();
  ST (out[t], LD (s[t ^ 32]));
}

/* Run with 8 blocks: rc_own_warp_synced, but block 5 leaves out the
 * __syncwarp: its accesses are the others' at other __syncwarp counts, and
 * it alone has rc_own_warp's 64 intra-warp hazards. */
__global__ void rc_late_syncwarp (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x, w = t / 32, lane = t % 32;
  ST (s[t], (int) t);
  if (blockIdx.x != 5)
    __syncwarp ();
  ST (out[t], LD (s[w * 32 + (lane + 1) % 32]));
}

/* Run with 8 blocks: each lane writes its int, then after a __syncwarp
 * reads its own, except in block 5, where it reads the next lane's: the
 * __syncwarp separates them, no hazard in any block (the writes' stamps
 * carry the count before it). */
__global__ void rc_late_synced_read (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x, w = t / 32, lane = t % 32;
  ST (s[t], (int) t);
  __syncwarp ();
  ST (out[t], LD (s[blockIdx.x == 5 ? w * 32 + (lane + 1) % 32 : t]));
}

/* Run with 8 blocks: both warps store the same values to ints 0..31 (no
 * race, but suspect), except warp 1 of block 3, which stores 100: its 32
 * stores race.  Block 5's thread 63 reads int 0, not 31, so block 5
 * stops repeating block 4 after the stores, which are then checked with
 * the values they had. */
__global__ void rc_late_same (int *out)
{
  SHARED_ARRAY (int, s, 32);
  unsigned t = threadIdx.x, b = blockIdx.x;
  ST (s[t % 32], b == 3 && t >= 32 ? 100 : (int) (t % 32));
  __syncthreads ();
  ST (out[t], LD (s[b == 5 && t == 63 ? 0 : t % 32]));
}

/* Run with 8 blocks: each lane reads the next lane's and the one after's
 * int with no __syncwarp, two pairs of sites, 128 hazards a block, but
 * block 5's warp 1 leaves out the second read: block 5 repeats block 4's
 * first accesses only, and has 96. */
__global__ void rc_late_short (int *out)
{
  SHARED_ARRAY (int, s, 64);
  unsigned t = threadIdx.x, w = t / 32, lane = t % 32;
  ST (s[t], (int) t);
  int v = LD (s[w * 32 + (lane + 1) % 32]);
  if (!(blockIdx.x == 5 && w == 1))
    v += LD (s[w * 32 + (lane + 2) % 32]);
  ST (out[t], v);
}

MS_ENTRY (rc_write_write) { MS_LAUNCH (rc_write_write, L, (int *) L->buf[0]); }
MS_ENTRY (rc_write_same) { MS_LAUNCH (rc_write_same, L, (int *) L->buf[0]); }
MS_ENTRY (rc_barrier_clean) { MS_LAUNCH (rc_barrier_clean, L, (int *) L->buf[0]); }
MS_ENTRY (rc_own_warp) { MS_LAUNCH (rc_own_warp, L, (int *) L->buf[0]); }
MS_ENTRY (rc_own_warp_synced) { MS_LAUNCH (rc_own_warp_synced, L, (int *) L->buf[0]); }
MS_ENTRY (rc_own_lane) { MS_LAUNCH (rc_own_lane, L, (int *) L->buf[0]); }
MS_ENTRY (rc_atomics) { MS_LAUNCH (rc_atomics, L, (int *) L->buf[0]); }
MS_ENTRY (rc_atomic_vs_read) { MS_LAUNCH (rc_atomic_vs_read, L, (int *) L->buf[0]); }
MS_ENTRY (rc_broadcast_then_write) { MS_LAUNCH (rc_broadcast_then_write, L, (int *) L->buf[0]); }
MS_ENTRY (rc_runs_after_write) { MS_LAUNCH (rc_runs_after_write, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_race) { MS_LAUNCH (rc_late_race, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_uninitialised) { MS_LAUNCH (rc_late_uninitialised, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_barrier) { MS_LAUNCH (rc_late_barrier, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_syncwarp) { MS_LAUNCH (rc_late_syncwarp, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_synced_read) { MS_LAUNCH (rc_late_synced_read, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_same) { MS_LAUNCH (rc_late_same, L, (int *) L->buf[0]); }
MS_ENTRY (rc_late_short) { MS_LAUNCH (rc_late_short, L, (int *) L->buf[0]); }
