/* emulator.h - the CPU SIMT emulator: runs a kernel launch thread by thread,
 * warps in lockstep at memory operations, and produces the stream of
 * warp-level accesses (sim/stream): every record goes to the launch's sinks
 * (the models, a trace writer, a diagram capture).  The emulator knows
 * nothing of what consumes the stream.
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "kernel.h"
#include "races.h"
#include "runtime-calls.h"
#include "slow-path-runs.h"
#include "stream.h"

G_BEGIN_DECLS

#define MS_EMULATOR_ERROR (ms_emulator_error_quark ())
GQuark ms_emulator_error_quark (void);

typedef enum {
  MS_EMULATOR_ERROR_LAUNCH,        /* bad geometry or limits */
  MS_EMULATOR_ERROR_OUT_OF_BOUNDS, /* access outside every buffer */
  MS_EMULATOR_ERROR_DEADLOCK,      /* barrier or warp collective never completes */
  MS_EMULATOR_ERROR_RESOURCES,     /* too much shared memory, stack overflow */
  MS_EMULATOR_ERROR_UNINITIALISED, /* a read of shared memory nothing wrote */
  MS_EMULATOR_ERROR_RACE,          /* a shared-memory race between warps */
  MS_EMULATOR_ERROR_ASSERT,        /* device code's assert failed (cudaErrorAssert) */
} MsEmulatorError;

/* Progress of a launch: blocks_done of blocks_total have run.  Called on a
 * worker thread after a block, at most once per MS_PROGRESS_INTERVAL_US (the
 * first after one interval); the emulator itself never writes to stderr. */
typedef void (*MsProgressFn) (gpointer data, guint64 blocks_done, guint64 blocks_total);
#define MS_PROGRESS_INTERVAL_US 200000

/* MsLaunch.dirty_pages's pages: 4 KiB */
#define MS_DIRTY_PAGE_SHIFT 12

typedef struct {
  const char *kernel;                     /* name for messages */
  MsEntryFn entry;                        /* ms_cpu_entry_<name> */
  MsEntryFn warp_entry;                   /* the kernel's warp-wide build
                                             (warp.h), or NULL: fibers */
  /* if set: the build block `block` runs, asked as the block starts (a
   * kernel's optimised build takes over from its quick one while it runs:
   * sim/ptx/ptx-program.c); else warp_entry */
  MsEntryFn (*block_entry) (gpointer data, guint64 block);
  void (*block_done) (gpointer data);     /* ... and told as the block ends */
  gpointer block_entry_data;
  MsLaunchArgs args;                      /* grid, block, buffers, parameters */
  const char *buffer_names[MS_MAX_BUFFERS];
  gsize buffer_bytes[MS_MAX_BUFFERS];
  guint n_buffers;
  guint threads;                          /* worker threads; 0 = one per core */
  const MsSinks *sinks;                   /* where the records go (may be NULL) */
  MsProgressFn progress;                  /* may be NULL */
  gpointer progress_data;
  guint64 max_blocks;                     /* run only the first blocks (linear
                                             order); 0 = all */
  guint *shared_bytes;                    /* if set: gets the most static shared
                                             memory a block declared (bytes,
                                             SHARED_ARRAYs with their alignment;
                                             not the extern __shared__ array) */
  guint dynamic_shared;                   /* bytes of `extern __shared__` memory */
  gsize oob_margin;                       /* bytes on both sides of every buffer
                                             that hold nothing else (guard pages):
                                             an access there is out of bounds */
  /* Block sampling (ms_launch_sampled_blocks): blocks are taken in groups
   * of sample_group consecutive ones (linear order); of every sample_period
   * groups one runs, chosen by a hash of the period's index.  sample_period
   * 0 or 1: every block runs. */
  guint sample_period, sample_group;
  /* The race check (racecheck.c) always runs: a race between warps is an
   * error (MS_EMULATOR_ERROR_RACE) unless allow_races; races allowed and
   * intra-warp hazards (looked for when warp_hazards: independent thread
   * scheduling, sm_70+) go to races when set (emptied first). */
  gboolean allow_races;
  gboolean warp_hazards;
  /* A read of shared memory no thread of the block wrote is an error
   * (MS_EMULATOR_ERROR_UNINITIALISED) unless allow_unwritten: then a
   * warning on stderr, once a launch, and the block goes on (a whole
   * program whose GPU run reads garbage it does not use) */
  gboolean allow_unwritten;
  /* A load or store just outside a buffer (in its oob_margin of guard
   * pages) is an error (MS_EMULATOR_ERROR_OUT_OF_BOUNDS) unless
   * allow_out_of_bounds: then a warning on stderr, once a site; the load
   * reads zeros, the store is dropped, and both are counted at their
   * addresses (a whole program whose GPU run reads memory next to its
   * buffer and does not use what it read) */
  gboolean allow_out_of_bounds;
  /* Device code run from PTX: each of its n_block_counts blocks' runs
   * (ms_ptx_block_counts), summed over the launch; NULL: not wanted */
  guint64 *block_counts;
  guint n_block_counts;
  /* A cooperative launch (cudaLaunchCooperativeKernel): every block is
   * resident at once, so a block waiting at a grid-wide barrier lets the
   * others run (warp-wide kernels only; every block runs, unsampled);
   * grid_workspace: the zeroed memory its barrier counts in (%envreg1/2),
   * inside one of the buffers. */
  gboolean cooperative;
  void *grid_workspace;
  /* Blocks one after another on one worker, in block order: the kernel
   * polls with strong loads what other blocks write (CUB's decoupled
   * look-back: a tile waits on the tiles before it).  Each poll then finds
   * the blocks before it done, so its counts do not depend on how the
   * workers' threads happen to interleave. */
  gboolean in_order;
  /* Device code's clock: the cycles each of the n_block_counts blocks
   * adds to a warp's when it runs (NULL: its PTX instructions, a cycle
   * each), and the SM clock that turns them into %globaltimer's
   * nanoseconds (0: 1 GHz) */
  const double *block_cycles;
  double clock_ghz;
  /* If set: gets the device runtime's calls of the launch (device code's
   * printf, malloc and free) */
  MsRuntimeCalls *runtime_calls;
  /* If set: gets the warp-level cp.async issues no lane of which read
   * (zero fill only): LDGSTS instructions without a record */
  guint64 *async_fills;
  /* If set: gets the runs of the slow paths of float division, reciprocal
   * and square root (slow-path-runs.h) */
  MsSlowPathRuns *slow_paths;
  /* If set: per buffer (NULL: not asked), a byte per page of
   * 1 << MS_DIRTY_PAGE_SHIFT bytes, set to 1 where a global store or
   * atomic wrote */
  guint8 **dirty_pages;
  MsRaceLog *races;
  MsSourceLineFn source_line;             /* source text for the race error (may be NULL) */
  gpointer source_data;
} MsLaunch;

/* The blocks a launch runs: the grid (or max_blocks of it), or the sample. */
guint64 ms_launch_sampled_blocks (const MsLaunch *launch);

/* Runs the launch; on success the buffers hold the kernel's results and
 * every sink has seen every record (its ordered part in the stream order,
 * stream.h, whatever launch->threads is).  Global addresses in the records
 * are virtual (MS_VADDR_*, access.h). */
gboolean ms_emulate (const MsLaunch *launch, GError **error);

/* Work of the process beside its launches (a kernel's optimised build,
 * compiled in the background: sim/ptx/ptx-program.c) begins or ends:
 * while any runs, a launch that takes a worker a core (MsLaunch.threads
 * 0) leaves it one. */
void ms_emulator_work_beside (gboolean begins);

/* Warps this process ran straight through, without fibers (direct.h). */
guint64 ms_emulator_direct_warps (void);

/* Warps this process ran warp-wide (MsLaunch.warp_entry, warp.h). */
guint64 ms_emulator_warp_wide_warps (void);

/* What device code printed (printf, failed asserts' messages) in the
 * launches since the last call: launch by launch, block by block, a
 * warp's lanes in order; NULL if nothing.  The caller frees it. */
char *ms_emulator_take_device_output (void);
/* Whether a launch ended on a failed device assert since the last call. */
gboolean ms_emulator_take_device_assert (void);
/* What sets a CUDA graph's conditional handle to a value for device
 * code's cudaGraphSetConditional (FALSE: no such handle); NULL: none. */
typedef gboolean (*MsConditionalFn) (guint64 handle, guint32 value);
void ms_emulator_graph_conditionals (MsConditionalFn set);
/* Device code's heap (malloc, free) at base has `bytes`, all free. */
void ms_emulator_device_heap (void *base, gsize bytes);

/* Checks grid and block against CUDA's limits. */
gboolean ms_launch_check_geometry (const MsLaunchArgs *args, GError **error);

G_END_DECLS
