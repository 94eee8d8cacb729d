/* occupancy.h - theoretical occupancy of a launch: how many blocks of a
 * kernel an SM holds at once, and which resource limits it.
 *
 * A pure calculator over the [occupancy] figures of an MsArch (no state, no
 * allocation); occupancy.c gives its modelling assumptions and the
 * algorithm it follows (CUDA's occupancy calculator, cuda_occupancy.h).
 */
#pragma once

#include <glib.h>

#include "arch.h"

G_BEGIN_DECLS

/* A limit no resource imposes (no registers, no shared memory, no
 * barriers): reports show it as "none" / null. */
#define MS_OCC_UNLIMITED G_MAXINT

/* The resources that can limit the blocks per SM (bits; CUDA's
 * cudaOccLimitingFactor values). */
typedef enum {
  MS_OCC_LIMIT_WARPS = 1 << 0,
  MS_OCC_LIMIT_REGISTERS = 1 << 1,
  MS_OCC_LIMIT_SHARED = 1 << 2,
  MS_OCC_LIMIT_BLOCKS = 1 << 3,
  MS_OCC_LIMIT_BARRIERS = 1 << 4,
} MsOccLimit;

typedef struct {
  int threads_per_block;
  int registers_per_thread;  /* as the compiler reports them (0..) */
  int static_shared;         /* bytes per block (__shared__ arrays) */
  int dynamic_shared;        /* bytes per block (the launch's third argument) */
  int barriers;              /* block barriers the kernel uses (ptxas' "used N
                                barriers"; 0 = none); limits only on sm_90+ */
  int carveout_pct;          /* shared-memory carveout preference, percent of
                                shared_per_sm (sm_70+), or -1: the default */
} MsOccInput;

typedef struct {
  /* blocks per SM each resource allows (MS_OCC_UNLIMITED: no limit) */
  int limit_registers, limit_shared, limit_warps, limit_blocks, limit_barriers;
  int active_blocks;         /* per SM: the smallest limit */
  int warps_per_block;       /* ceil(threads / warp size) */
  int active_warps;          /* per SM: active_blocks * warps_per_block */
  double occupancy_pct;      /* active_warps / max_warps_per_sm, percent */
  guint limiting;            /* MsOccLimit bits: every limit equal to active_blocks */
  int registers_per_block;   /* allocated (rounded to the allocation unit) */
  int shared_per_block;      /* allocated: static + reserved + dynamic, rounded */
  int shared_pool;           /* bytes of the SM's carveout the blocks share */
} MsOccupancy;

#define MS_OCCUPANCY_ERROR (ms_occupancy_error_quark ())
GQuark ms_occupancy_error_quark (void);
typedef enum {
  MS_OCCUPANCY_ERROR_NO_FIGURES,  /* the arch has no [occupancy] group */
  MS_OCCUPANCY_ERROR_INPUT,       /* a negative or out-of-range input */
  MS_OCCUPANCY_ERROR_LAUNCH,      /* the block cannot run on one SM */
} MsOccupancyError;

/* Fills *out for a block of in on arch.  FALSE with a one-line error when
 * the block cannot launch (too many threads, registers or shared bytes:
 * the message says which and by how much); *out then still holds the
 * limits (active_blocks 0). */
gboolean ms_occupancy_compute (const MsArch *arch, const MsOccInput *in, MsOccupancy *out,
                               GError **error);

/* "registers, shared memory" (the names of the limiting bits); static. */
const char *ms_occupancy_limit_name (MsOccLimit bit);

G_END_DECLS
