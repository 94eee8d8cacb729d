/* cuda-runtime.h - CUDA's runtime API on the CPU, for users' whole programs
 * (`memsim run PROGRAM.cu`): device memory, copies, events, streams,
 * device properties, errors and launches, answered by memsim for the
 * program's build (its calls resolve to the definitions in cuda-runtime.c,
 * exported by the memsim executable).
 *
 * A launch is handed to the caller's MsProgramLaunchFn with the buffers
 * the kernel is given; what runs it (traced through the models, or not)
 * is the caller's business.  One program at a time per process.
 */
#pragma once

#include <glib.h>

#include "arch.h"
#include "kernel.h"
#include "problem.h"
#include "ptx-program.h"

G_BEGIN_DECLS

/* One launch as the program made it. */
typedef struct {
  const MsKernel *kernel;        /* the kernel's descriptor (external) */
  guint index;                   /* the program's launches before this one */
  guint kernel_index;            /* launches of this kernel before this one */
  MsLaunchArgs args;             /* grid, block, buf[] = the buffers; i[k] and
                                    f[k]: parameter k's value when a number */
  char kinds[MS_MAX_ARGS + 1];   /* per parameter (the first MS_MAX_ARGS): 'p'
                                    pointer, 'i' integer, 'f' floating point */
  const char *param_names[MS_MAX_ARGS];
  const char *buffer_names[MS_MAX_BUFFERS];
  gsize buffer_bytes[MS_MAX_BUFFERS];
  gboolean buffer_host[MS_MAX_BUFFERS];   /* mapped host memory (zero-copy) */
  guint n_buffers;
  gsize guard_bytes;             /* guard pages around every buffer */
  guint dynamic_shared;          /* bytes of extern __shared__ memory */
  /* cudaLaunchCooperativeKernel's: its zeroed grid workspace (one of the
   * buffers), else NULL */
  gboolean cooperative;
  void *grid_workspace;
  /* The launch need not run: it repeats the last launch of the same
   * kernel, geometry and parameters on memory in the state that one found
   * (launch-memo.h), so it would leave memory as that one did.  Never set
   * for a kernel that does more than read and write memory
   * (MsInstMap.effects). */
  gboolean repeat;
  /* Per buffer, a byte per 4 KiB page where the launch marks the pages it
   * writes (MsLaunch.dirty_pages) */
  guint8 **dirty_pages;
} MsProgramLaunch;

/* What running a launch gave the runtime. */
typedef struct {
  double seconds;      /* its predicted duration on the GPU, which the program's
                          events measure; negative when it ran without the models
                          (then a traced launch of the same kernel, grid and
                          block lends its time) */
  gboolean ran;        /* FALSE: a repeat not run (the runtime then puts memory
                          as it would have left it) */
  gboolean marked;     /* it marked the pages it wrote in MsProgramLaunch.dirty_pages */
  gboolean whole;      /* it ran every block (not a sample of them) */
} MsProgramLaunchResult;

/* Runs a launch (the kernel descriptor's warp_entry, its parameter block
 * in args.params), or not when it is a repeat (MsProgramLaunch.repeat);
 * *result comes as { -1, TRUE, FALSE, TRUE }.  FALSE: the kernel failed
 * (out of bounds, race, deadlock) and the function has said so; the
 * runtime ends the process with exit (1), as a GPU's failed launch ends
 * the program's use of the device. */
typedef gboolean (*MsProgramLaunchFn) (gpointer data, const MsProgramLaunch *launch,
                                       MsProgramLaunchResult *result);

/* The device code of a program nvcc built (`memsim run`): how the runtime
 * finds the kernel a launch names (its .entry, as nvcc's host code
 * registered it) and the module's variables.  The loader sets it to the
 * PTX engine's program (sim/ptx/ptx-program.h); tests give a stand-in. */
typedef struct {
  const MsPtxKernel *(*kernel) (gpointer data, const char *name);
  const MsPtxGlobal *(*globals) (gpointer data, guint *n);
  gboolean (*bind_global) (gpointer data, const char *name, void *device);
  gpointer data;
} MsDeviceCode;

/* Launches of nvcc-built host code find their kernels in code (copied;
 * NULL: none, such launches fail with cudaErrorInvalidDeviceFunction).
 * Set before ms_cuda_runtime_begin. */
void ms_cuda_runtime_set_device_code (const MsDeviceCode *code);

/* The registrations nvcc's host code made when its build was loaded
 * (__cudaRegisterFunction): the device name of the kernel whose host stub
 * is host_fun, or NULL. */
const char *ms_cuda_runtime_kernel_name (const void *host_fun);

/* Whether this memsim answers nvcc-built host code (it was built with the
 * CUDA toolkit's headers). */
gboolean ms_cuda_runtime_has_nvcc_abi (void);

/* The device as programs see it (the arch's figures, cudaDeviceProp's
 * names): what both layouts of cudaDeviceProp are filled from. */
typedef struct {
  char name[256];
  gsize total_global, shared_per_block, shared_per_sm, shared_per_block_optin, total_const;
  gsize mem_pitch, texture_alignment;
  int regs_per_block, regs_per_sm, warp_size, max_threads_per_block, max_threads_dim[3];
  int max_grid[3], clock_khz, major, minor, sm_count, memory_clock_khz, memory_bus_width;
  int l2_bytes, max_threads_per_sm, max_blocks_per_sm;
} MsCudaDevice;

void ms_cuda_runtime_device (MsCudaDevice *d);

/* Makes the runtime answer for a program on arch (device properties)
 * until ms_cuda_runtime_end. */
void ms_cuda_runtime_begin (const MsArch *arch, MsProgramLaunchFn launch,
                            gpointer launch_data);

/* Frees what the program left allocated; the runtime answers no more. */
void ms_cuda_runtime_end (void);

/* Whether the runtime ended the program for a failed launch (it has said
 * why on stderr): what an atexit() handler asks. */
gboolean ms_cuda_runtime_failed (void);

/* For the runtime's other files (cuda-arrays.c): sets cudaGetLastError's
 * error (a cudaError_t) and returns it; whether [p, p + bytes) is device
 * memory the program allocated. */
int ms_cuda_runtime_fail (int error);
gboolean ms_cuda_runtime_device_range (const void *p, gsize bytes);

/* What cuda-arrays.c holds for the program (its arrays, texture and
 * surface objects), freed: the end of a program. */
void ms_cuda_arrays_end (void);
/* The program's CUDA arrays' memory (textures' and surfaces'), in the
 * order of their places, into base and bytes (room for max); how many,
 * G_MAXUINT when more than max. */
guint ms_cuda_arrays_memory (guint8 **base, gsize *bytes, guint max);

/* The launches the program has made so far. */
guint ms_cuda_runtime_launches (void);

/* 1: referenced so that the API is linked into programs that run users'
 * programs (it is only called from their builds). */
int ms_cuda_runtime_version (void);

/* Every call of the runtime's API holds its lock: programs call it from
 * several threads, and a callback it runs may call it again. */
/* Every call of the runtime holds its lock; the outermost one first runs
 * the work queued on the program's streams (cuda-runtime.c, "streams"),
 * unless it is such work itself or a call that touches no memory
 * (MS_CUDA_LOCKED_QUEUEING). */
typedef struct MsCudaLocker MsCudaLocker;
MsCudaLocker *ms_cuda_lock (gboolean queueing);
void ms_cuda_unlock (MsCudaLocker *locker);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsCudaLocker, ms_cuda_unlock)
#define MS_CUDA_LOCKED \
  g_autoptr (MsCudaLocker) ms_cuda_locker_ G_GNUC_UNUSED = ms_cuda_lock (FALSE)
#define MS_CUDA_LOCKED_QUEUEING \
  g_autoptr (MsCudaLocker) ms_cuda_locker_ G_GNUC_UNUSED = ms_cuda_lock (TRUE)

G_END_DECLS
