/* warp.h - what a warp-wide kernel sees of the emulator (EXPERIMENT).
 *
 * A warp-wide kernel is a kernel compiled to run one whole warp per call:
 * every per-thread variable is an array of 32 lane values, straight-line
 * code is a loop over the lanes of an active mask, and each warp-level
 * memory instruction is one call here with the 32 lanes' addresses at
 * once.  No fiber per CUDA thread, no stop per lane: one fiber per warp,
 * which stops only at __syncthreads.
 *
 * The lanes' addresses and values travel in the warp's lane records
 * (lane.h: addr, val), which is what the fiber path's exec_memory reads,
 * so both paths execute an access with the same code.
 */
#pragma once

#include <stdint.h>

#include "lane.h"

typedef struct {
  volatile uint8_t *addr[32];  /* each lane's address of the current access */
  uint64_t val[32][2];         /* each lane's value to store */
  MsLane *lanes;     /* the current warp's 32 (or fewer) lane records */
  uint32_t live;     /* its lanes that exist (a block's partial last warp) */
} MsWarp;

extern MS_TLS MsWarp ms_warp;

/* One warp-level load or store of `size` bytes at `site` by the lanes of
 * mask: addr[i] set (and val[i] for a store).  After a load each lane
 * reads its value at addr[i] itself (nothing runs in between, so it is
 * the value the instruction loaded).  Does not return on an error. */
void ms_warp_access (const MsSite *site, uint32_t mask, unsigned size, MsLaneOp kind);

/* __syncthreads for the lanes of mask (all live lanes of the warp). */
void ms_warp_barrier (const MsSite *site, uint32_t mask);

/* for each lane L of mask, in lane order */
#define MS_WARP_LANES(mask, L) \
  for (uint32_t ms_m_ = (mask), L; ms_m_ && (L = (unsigned) __builtin_ctz (ms_m_), 1); \
       ms_m_ &= ms_m_ - 1)
