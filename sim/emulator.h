/* emulator.h - the CPU SIMT emulator: runs a kernel launch thread by thread,
 * warps in lockstep at memory operations, and feeds every warp-level access
 * to the memory models (and, optionally, to a caller's sink).
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "arch.h"
#include "kernel.h"
#include "stats.h"

G_BEGIN_DECLS

#define MS_EMULATOR_ERROR (ms_emulator_error_quark ())
GQuark ms_emulator_error_quark (void);

typedef enum {
  MS_EMULATOR_ERROR_LAUNCH,        /* bad geometry or limits */
  MS_EMULATOR_ERROR_OUT_OF_BOUNDS, /* access outside every buffer */
  MS_EMULATOR_ERROR_DEADLOCK,      /* barrier or warp collective never completes */
  MS_EMULATOR_ERROR_RESOURCES,     /* too much shared memory, stack overflow */
  MS_EMULATOR_ERROR_UNINITIALISED, /* a read of shared memory nothing wrote */
} MsEmulatorError;

/* Called for every warp access, in a deterministic order (the emulator runs
 * on one thread when a sink is given). */
typedef void (*MsAccessSink) (const MsWarpAccess *access, void *user_data);

typedef struct {
  const char *kernel;                     /* name for messages */
  MsEntryFn entry;                        /* ms_cpu_entry_<name> */
  MsLaunchArgs args;                      /* grid, block, buffers, parameters */
  const char *buffer_names[MS_MAX_BUFFERS];
  gsize buffer_bytes[MS_MAX_BUFFERS];
  guint n_buffers;
  const MsArch *arch;
  guint threads;                          /* worker threads; 0 = one per core */
  MsAccessSink sink;                      /* optional */
  void *sink_data;
} MsLaunch;

/* Global addresses in MsWarpAccess records are virtual: buffer i (0-based)
 * starts at (i + 1) << MS_BUFFER_SHIFT, so records do not depend on where
 * the host allocator put the buffers, and alignment (256 B) is preserved. */
#define MS_BUFFER_SHIFT 40
#define MS_VADDR_BUFFER(a) ((int) ((a) >> MS_BUFFER_SHIFT) - 1)
#define MS_VADDR_OFFSET(a) ((a) & ((G_GUINT64_CONSTANT (1) << MS_BUFFER_SHIFT) - 1))

/* Runs the launch; on success the buffers hold the kernel's results and
 * *stats (if not NULL) the per-site counters. */
gboolean ms_emulate (const MsLaunch *launch, MsStats **stats, GError **error);

/* Checks grid and block against CUDA's limits. */
gboolean ms_launch_check_geometry (const MsLaunchArgs *args, GError **error);

G_END_DECLS
