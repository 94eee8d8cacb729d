/* cuda-runtime.c - CUDA's runtime API on the CPU for users' programs (see
 * cuda-runtime.h).  Compiled against the CUDA toolkit's own headers where
 * configure found them (MS_CUDA_RUNTIME_API_H): then it answers host code
 * nvcc compiled (`memsim run`), registrations and launches included; else
 * it is a few stubs, and `memsim run` says it needs CUDA's headers
 * (nvcc-program.h).  Every definition's symbol is memsim_<name>: memsim's
 * GPU back-end loads the real CUDA runtime into the same process, so the
 * program's build refers to memsim_cudaMalloc (the nvcc build's objects
 * renamed: nvcc-build.c), never cudaMalloc.
 *
 * Modelling assumptions, where the CPU has to stand in for the device:
 *   - one device, the preset's: its properties are the arch's (clock, SMs,
 *     shared memory, registers, L2; memoryBusWidth is a nominal 5120 bits,
 *     memoryClockRate the one that gives the preset's DRAM bandwidth);
 *     totalGlobalMem is what this machine can give (80% of its memory);
 *   - device memory is host memory with guard pages on both sides (an
 *     access just outside an allocation is out of bounds, not another
 *     allocation's data); pinned and managed memory are the same;
 *   - work on the default stream runs at once; work on a stream the program
 *     created (kernels, async copies and sets) waits for the program's
 *     next other call of the runtime, then everything runs in the order
 *     issued ("streams" below); events complete when recorded;
 *   - time, as events see it, is the GPU's predicted time: each launch
 *     advances the clock by the time model's prediction for it (untraced
 *     launches: the last traced launch of the kernel with the same grid and
 *     block, else one of another grid scaled by blocks); copies and sets
 *     the time the preset's [copy] gives them, one after another (a GPU
 *     overlaps those of different streams).  So a program's own GB/s
 *     figures are the prediction's;
 *   - errors are CUDA's: a bad launch configuration sets cudaGetLastError's
 *     error and the kernel does not run; a kernel that fails (out of
 *     bounds, race, deadlock) ends the program, with memsim's one-line
 *     error, where a GPU would report a sticky error at the next call.
 */
#include "config.h"

#ifdef MS_CUDA_RUNTIME_API_H

#include MS_CUDA_RUNTIME_API_H
/* the definitions below get memsim's symbols */
#define MS_RENAME(f) __typeof__ (f) f __asm__ ("memsim_" #f);
MS_RENAME (cudaMalloc) MS_RENAME (cudaMallocManaged) MS_RENAME (cudaMallocHost)
MS_RENAME (cudaHostAlloc) MS_RENAME (cudaFree) MS_RENAME (cudaFreeHost) MS_RENAME (cudaMemcpy)
MS_RENAME (cudaMemcpyAsync) MS_RENAME (cudaMemset) MS_RENAME (cudaMemsetAsync)
MS_RENAME (cudaMemGetInfo) MS_RENAME (cudaDeviceSynchronize)
MS_RENAME (cudaDeviceReset) MS_RENAME (cudaSetDevice) MS_RENAME (cudaGetDevice)
MS_RENAME (cudaGetDeviceCount) MS_RENAME (cudaSetDeviceFlags) MS_RENAME (cudaDeviceSetCacheConfig)
MS_RENAME (cudaDriverGetVersion) MS_RENAME (cudaRuntimeGetVersion)
MS_RENAME (cudaDeviceGetAttribute) MS_RENAME (cudaGetLastError)
MS_RENAME (cudaPeekAtLastError) MS_RENAME (cudaGetErrorString) MS_RENAME (cudaGetErrorName)
MS_RENAME (cudaEventCreate) MS_RENAME (cudaEventCreateWithFlags) MS_RENAME (cudaEventRecord)
MS_RENAME (cudaEventSynchronize) MS_RENAME (cudaEventQuery) MS_RENAME (cudaEventElapsedTime)
MS_RENAME (cudaEventDestroy) MS_RENAME (cudaStreamCreate) MS_RENAME (cudaStreamCreateWithFlags)
MS_RENAME (cudaStreamSynchronize) MS_RENAME (cudaStreamQuery) MS_RENAME (cudaStreamDestroy)
MS_RENAME (cudaGetDeviceProperties) MS_RENAME (cudaLaunchKernel)
MS_RENAME (cudaMemcpyToSymbol) MS_RENAME (cudaMemcpyFromSymbol)
MS_RENAME (cudaMemcpyToSymbolAsync) MS_RENAME (cudaMemcpyFromSymbolAsync)
MS_RENAME (cudaGetSymbolAddress) MS_RENAME (cudaGetSymbolSize) MS_RENAME (cudaFuncGetAttributes)
MS_RENAME (cudaFuncSetCacheConfig) MS_RENAME (cudaOccupancyMaxActiveBlocksPerMultiprocessor)
MS_RENAME (cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)
MS_RENAME (cudaMemcpy2D) MS_RENAME (cudaMemcpy2DAsync) MS_RENAME (cudaMallocPitch)
MS_RENAME (cudaMemset2D) MS_RENAME (cudaStreamWaitEvent) MS_RENAME (cudaHostGetDevicePointer)
MS_RENAME (cudaDeviceGetLimit) MS_RENAME (cudaDeviceSetLimit)
MS_RENAME (cudaHostRegister) MS_RENAME (cudaHostUnregister) MS_RENAME (cudaStreamAddCallback)
MS_RENAME (cudaLaunchHostFunc) MS_RENAME (cudaStreamCreateWithPriority)
MS_RENAME (cudaDeviceGetStreamPriorityRange) MS_RENAME (cudaStreamGetPriority)
MS_RENAME (cudaStreamGetFlags) MS_RENAME (cudaStreamSetAttribute) MS_RENAME (cudaStreamGetAttribute)
MS_RENAME (cudaCtxResetPersistingL2Cache) MS_RENAME (cudaMallocAsync) MS_RENAME (cudaFreeAsync)
MS_RENAME (cudaMallocFromPoolAsync) MS_RENAME (cudaDeviceGetDefaultMemPool)
MS_RENAME (cudaDeviceGetMemPool) MS_RENAME (cudaMemPoolSetAttribute)
MS_RENAME (cudaMemPoolGetAttribute) MS_RENAME (cudaMemPoolTrimTo) MS_RENAME (cudaMemPrefetchAsync)
MS_RENAME (cudaMemAdvise) MS_RENAME (cudaStreamAttachMemAsync) MS_RENAME (cudaPointerGetAttributes)
MS_RENAME (cudaLaunchCooperativeKernel) MS_RENAME (cudaEventRecordWithFlags)
MS_RENAME (cudaLaunchKernelExC)
MS_RENAME (cudaFuncGetName) MS_RENAME (cudaDeviceGetP2PAttribute) MS_RENAME (cudaDeviceCanAccessPeer)
MS_RENAME (cudaOccupancyAvailableDynamicSMemPerBlock) MS_RENAME (cudaGetDeviceFlags)
MS_RENAME (cudaDeviceGetCacheConfig)
/* gone from CUDA 13's headers; programs written for older ones call it */
cudaError_t cudaThreadSynchronize (void) __asm__ ("memsim_cudaThreadSynchronize");
/* cuda_profiler_api.h's */
cudaError_t cudaProfilerStart (void) __asm__ ("memsim_cudaProfilerStart");
cudaError_t cudaProfilerStop (void) __asm__ ("memsim_cudaProfilerStop");
/* an int attribute: CUDA's enum, the same ABI */
cudaError_t memsim_cudaFuncSetAttribute (const void *func, int attr, int value);
#define cudaFuncSetAttribute memsim_cudaFuncSetAttribute

#include "cuda-runtime.h"
#include "cuda-runtime-private.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "emulator.h"
#include "kernel-usage.h"
#include "launch-memo.h"
#include "occupancy.h"
#include "ptx.h"


#define GUARD_BYTES ((gsize) 1 << 20)   /* as users' kernels' buffers (user-kernel.c) */
#define ALIGN_BYTES 256                 /* cudaMalloc's alignment */
/* cooperative groups' grid workspace: { wsSize, barrier }, 32-bit each
 * (cooperative_groups/details/driver_abi.h) */
#define WORKSPACE_BYTES 8

typedef struct {
  guint8 *base;
  gsize bytes;
  gsize map_bytes;     /* the mapping, guards included */
  guint number;        /* the program's allocations before it */
  gboolean device;     /* cudaMalloc / cudaMallocManaged, not pinned host memory */
  gboolean registered; /* the program's own memory (cudaHostRegister): not memsim's mapping */
  gboolean managed;    /* cudaMallocManaged: device memory the host writes too */
  gboolean graph;      /* a graph's (allocation node): kept until the program ends, since the
                        * node gives the same address again each launch */
  const char *variable;   /* a module variable's device name (the program's), else NULL */
} Allocation;

struct CUevent_st {
  double ms;
  gboolean recorded;
};

struct CUstream_st {
  unsigned flags;
  int priority;
};

/* A traced launch's predicted time, for untraced ones like it. */
typedef struct {
  const MsKernel *kernel;
  unsigned grid[3], block[3];
  double seconds;
} KnownTime;

static struct {
  gboolean active;
  const MsArch *arch;
  MsProgramLaunchFn launch;
  gpointer launch_data;
  GArray *allocations;      /* of Allocation, by address */
  guint n_allocations;
  guint64 allocated;
  cudaError_t last_error;
  cudaError_t sticky;       /* a device-side assert: every later call's error */
  double clock_ms;
  guint launches;
  gboolean failed;
  GHashTable *kernel_launches;   /* MsKernel -> launches so far */
  GArray *known_times;           /* of KnownTime */
  GHashTable *handles;           /* the program's events and streams (owned) */
  GHashTable *variables;         /* device name -> its memory (the module's variables) */
  guint8 *workspace;             /* cooperative launches' grid workspace (guarded), or NULL */
  MsLaunchMemo *memo;            /* launches that need not run (MsProgramLaunch.repeat) */
} rt;

/* nvcc's host code: <<<...>>>'s configurations, pushed then popped by
 * the thread that launches */
static __thread struct {
  unsigned grid[3], block[3];
  size_t shared;
  cudaStream_t stream;
} configs[16];
static __thread guint n_configs;

/* The device code of nvcc-built programs, and what their host code
 * registered when their build was loaded (before any ms_cuda_runtime_begin,
 * and for the process). */
static MsDeviceCode device_code;
static gboolean have_device_code;

typedef struct {
  char *name;
  gsize size;
} Variable;

static struct {
  GMutex lock;
  GHashTable *functions;   /* host stub -> device name (owned) */
  GHashTable *variables;   /* host shadow variable -> Variable */
} reg;

void
ms_cuda_runtime_set_device_code (const MsDeviceCode *code)
{
  have_device_code = code != NULL;
  if (code != NULL)
    device_code = *code;
  else
    memset (&device_code, 0, sizeof device_code);
}

const char *
ms_cuda_runtime_kernel_name (const void *host_fun)
{
  g_mutex_lock (&reg.lock);
  const char *name = reg.functions ? g_hash_table_lookup (reg.functions, host_fun) : NULL;
  g_mutex_unlock (&reg.lock);
  return name;
}

gboolean
ms_cuda_runtime_has_nvcc_abi (void)
{
  return TRUE;
}

void
ms_cuda_runtime_begin (const MsArch *arch, MsProgramLaunchFn launch, gpointer launch_data)
{
  memset (&rt, 0, sizeof rt);
  rt.active = TRUE;
  rt.arch = arch;
  rt.launch = launch;
  rt.launch_data = launch_data;
  rt.allocations = g_array_new (FALSE, FALSE, sizeof (Allocation));
  rt.kernel_launches = g_hash_table_new (NULL, NULL);
  rt.known_times = g_array_new (FALSE, FALSE, sizeof (KnownTime));
  rt.handles = g_hash_table_new_full (NULL, NULL, g_free, NULL);
  /* the pages the memo keeps: 1 GiB, or an eighth of this machine's memory */
  gsize phys = (gsize) sysconf (_SC_PHYS_PAGES) * (gsize) sysconf (_SC_PAGESIZE);
  rt.memo = ms_launch_memo_new (MIN ((gsize) 1 << 30, phys / 8));
}

static cudaError_t synchronise (void);
static gsize malloc_heap_bytes;

static void streams_run (void);

void
ms_cuda_runtime_end (void)
{
  if (!rt.active)
    return;
  streams_run ();
  synchronise ();
  malloc_heap_bytes = MS_PTX_HEAP_BYTES;
  for (guint i = 0; i < rt.allocations->len; i++)
    {
      Allocation *a = &g_array_index (rt.allocations, Allocation, i);
      if (!a->registered)
        munmap (a->base - GUARD_BYTES, a->map_bytes);
    }
  g_array_free (rt.allocations, TRUE);
  g_hash_table_destroy (rt.kernel_launches);
  g_array_free (rt.known_times, TRUE);
  g_hash_table_destroy (rt.handles);   /* what the program did not destroy, as CUDA at exit */
  if (rt.variables)
    g_hash_table_destroy (rt.variables);
  ms_launch_memo_free (rt.memo);
  ms_graph_end ();
  if (rt.workspace)
    munmap (rt.workspace - GUARD_BYTES, 2 * GUARD_BYTES + (gsize) sysconf (_SC_PAGESIZE));
  memset (&rt, 0, sizeof rt);
}

gboolean
ms_cuda_runtime_failed (void)
{
  return rt.failed;
}

guint
ms_cuda_runtime_launches (void)
{
  return rt.launches;
}

int
ms_cuda_runtime_version (void)
{
  return 1;
}

static cudaError_t
fail (cudaError_t e)
{
  rt.last_error = e;
  return e;
}

int
ms_cuda_runtime_fail (int error)
{
  return fail ((cudaError_t) error);
}

/* cudaLimitMallocHeapSize, as the program set it before its first launch */
static gsize malloc_heap_bytes = MS_PTX_HEAP_BYTES;

/* What device code printed, at a synchronisation (where the GPU's printf
 * buffer reaches the program's stdout); the error of a failed device
 * assert from then on. */
static cudaError_t
synchronise (void)
{
  char *text = ms_emulator_take_device_output ();
  if (text != NULL)
    {
      fputs (text, stdout);
      g_free (text);
    }
  return rt.sticky;
}

static GRecMutex lock;
static guint lock_depth;       /* calls of the runtime under way (the lock's) */
static GQueue queued = G_QUEUE_INIT;

MsCudaLocker *
ms_cuda_lock (gboolean queueing)
{
  g_rec_mutex_lock (&lock);
  if (++lock_depth == 1 && !queueing)
    streams_run ();
  return (MsCudaLocker *) &lock;
}

void
ms_cuda_unlock (MsCudaLocker *locker)
{
  lock_depth--;
  g_rec_mutex_unlock (&lock);
}

/* ------------------------------------------------------------ streams */

/* Work issued to a stream the program created waits, as a GPU may let it
 * wait, until the program next calls the runtime for anything but more
 * such work or a call that touches no memory (MS_CUDA_LOCKED_QUEUEING):
 * kernels, copies and sets queued in the order issued, all streams in
 * one queue, run then.  So a kernel that spins until the host sets a
 * flag after launching it finds the flag set (UnifiedMemoryPerf), and a
 * program that synchronises before it looks at results sees them as
 * before.  A copy from pageable host memory copies its source when issued,
 * as CUDA's staging does. */
typedef enum { QUEUED_KERNEL, QUEUED_COPY, QUEUED_SET } QueuedKind;

typedef struct {
  QueuedKind kind;
  const void *func;             /* a kernel: its stub, geometry, parameters */
  dim3 grid, block;
  size_t shared;
  guint8 *params;
  void **args;
  void *dst;                    /* a copy or a set */
  const void *src;
  guint8 *staged;               /* a copy's pageable source, copied */
  size_t bytes;
  enum cudaMemcpyKind copy;
  int value;
} Queued;

static const MsPtxKernel *ptx_kernel_of (const void *func, const char **name);
static cudaError_t launch_ptx (const void *func, dim3 grid, dim3 block, void **args,
                               size_t shared, gboolean cooperative);
static Allocation *allocation_of (const void *p, gsize bytes);

static void
queued_free (Queued *q)
{
  g_free (q->params);
  g_free (q->args);
  g_free (q->staged);
  g_free (q);
}

/* Whether work issued to stream waits: a stream the program created */
static gboolean
stream_queues (cudaStream_t stream)
{
  return stream != NULL && stream != cudaStreamLegacy && stream != cudaStreamPerThread
         && rt.handles != NULL && g_hash_table_contains (rt.handles, stream);
}

static cudaError_t
queue_kernel (const void *func, dim3 grid, dim3 block, void **args, size_t shared)
{
  const char *name;
  const MsPtxKernel *k = ptx_kernel_of (func, &name);
  if (k == NULL)
    return rt.last_error;
  if (k->n_params > 0 && args == NULL)
    return fail (cudaErrorInvalidValue);
  /* the parameters' values now, as CUDA takes them at the launch */
  guint8 *params;
  void **ptrs;
  if (!ms_cuda_kernel_params (k, args, &params, &ptrs))
    return fail (cudaErrorInvalidValue);
  Queued *q = g_new0 (Queued, 1);
  q->kind = QUEUED_KERNEL;
  q->func = func;
  q->grid = grid;
  q->block = block;
  q->shared = shared;
  q->params = params;
  q->args = ptrs;
  g_queue_push_tail (&queued, q);
  return cudaSuccess;
}

gboolean
ms_cuda_kernel_params (const MsPtxKernel *k, void **args, guint8 **bytes, void ***ptrs)
{
  *bytes = g_malloc0 (MAX (k->param_bytes, 1));
  *ptrs = g_new0 (void *, k->n_params + 1);
  for (guint i = 0; i < k->n_params; i++)
    {
      const MsPtxParam *p = &k->params[i];
      if (args[i] == NULL || p->offset > k->param_bytes || p->size > k->param_bytes - p->offset)
        {
          g_clear_pointer (bytes, g_free);
          g_clear_pointer (ptrs, g_free);
          return FALSE;
        }
      memcpy (*bytes + p->offset, args[i], p->size);
      (*ptrs)[i] = *bytes + p->offset;
    }
  return TRUE;
}

static cudaError_t
queue_copy (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  Queued *q = g_new0 (Queued, 1);
  q->kind = QUEUED_COPY;
  q->dst = dst;
  q->src = src;
  q->bytes = bytes;
  q->copy = kind;
  if (src != NULL && bytes > 0 && allocation_of (src, 0) == NULL
      && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyHostToHost
          || kind == cudaMemcpyDefault))
    q->staged = g_memdup2 (src, bytes);
  g_queue_push_tail (&queued, q);
  return cudaSuccess;
}

static cudaError_t
queue_set (void *dst, int value, size_t bytes)
{
  Queued *q = g_new0 (Queued, 1);
  q->kind = QUEUED_SET;
  q->dst = dst;
  q->value = value;
  q->bytes = bytes;
  g_queue_push_tail (&queued, q);
  return cudaSuccess;
}

static cudaError_t copy_timed (void *dst, const void *src, size_t bytes,
                               enum cudaMemcpyKind kind, gboolean async);

/* Runs the queued work, in the order issued (an error is the program's
 * next cudaGetLastError's, as a launch's is). */
static void
streams_run (void)
{
  Queued *q;
  while ((q = g_queue_pop_head (&queued)) != NULL)
    {
      cudaError_t e = cudaSuccess;
      switch (q->kind)
        {
        case QUEUED_KERNEL:
          e = launch_ptx (q->func, q->grid, q->block, q->args, q->shared, FALSE);
          break;
        case QUEUED_COPY:
          e = copy_timed (q->dst, q->staged ? q->staged : q->src, q->bytes, q->copy, TRUE);
          break;
        case QUEUED_SET:
          e = cudaMemset (q->dst, q->value, q->bytes);
          break;
        }
      if (e != cudaSuccess)
        rt.last_error = e;
      queued_free (q);
    }
}

/* ------------------------------------------------------------ memory */

/* The allocation holding [p, p + bytes) (bytes 0: p may be its end). */
static Allocation *
allocation_of (const void *p, gsize bytes)
{
  const guint8 *a = p;
  if (!rt.active || a == NULL)
    return NULL;
  for (guint i = 0; i < rt.allocations->len; i++)
    {
      Allocation *x = &g_array_index (rt.allocations, Allocation, i);
      if (a >= x->base && a <= x->base + x->bytes && (gsize) (x->base + x->bytes - a) >= bytes)
        return x;
    }
  return NULL;
}

gboolean
ms_cuda_runtime_device_range (const void *p, gsize bytes)
{
  Allocation *a = allocation_of (p, bytes);
  return a != NULL && a->device;
}

static guint64
memory_limit (void)
{
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  return pages > 0 && page > 0 ? (guint64) pages * (guint64) page / 10 * 8 : G_MAXUINT32;
}

static cudaError_t
allocate (void **ptr, size_t bytes, gboolean device)
{
  if (ptr == NULL)
    return fail (cudaErrorInvalidValue);
  *ptr = NULL;
  if (!rt.active)
    return fail (cudaErrorInitializationError);
  if (bytes == 0)
    return cudaSuccess;
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  gsize body = (bytes + page - 1) / page * page;
  if (bytes > memory_limit () || rt.allocated + body > memory_limit ())
    return fail (cudaErrorMemoryAllocation);
  gsize map = body + 2 * GUARD_BYTES;
  guint8 *m = mmap (NULL, map, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED)
    return fail (cudaErrorMemoryAllocation);
  if (mprotect (m + GUARD_BYTES, body, PROT_READ | PROT_WRITE) != 0)
    {
      munmap (m, map);
      return fail (cudaErrorMemoryAllocation);
    }
  Allocation a = { m + GUARD_BYTES, bytes, map, rt.n_allocations++, device };
  guint i = 0;
  while (i < rt.allocations->len && g_array_index (rt.allocations, Allocation, i).base < a.base)
    i++;
  g_array_insert_val (rt.allocations, i, a);
  rt.allocated += body;
  *ptr = a.base;
  ms_cuda_memory_written (a.base, bytes);
  return cudaSuccess;
}

static cudaError_t
release (void *ptr)
{
  if (ptr == NULL)
    return cudaSuccess;
  for (guint i = 0; rt.active && i < rt.allocations->len; i++)
    {
      Allocation *a = &g_array_index (rt.allocations, Allocation, i);
      if (a->base == ptr)
        {
          if (a->registered)
            return fail (cudaErrorInvalidValue);
          if (a->graph)
            return cudaSuccess;
          gsize page = (gsize) sysconf (_SC_PAGESIZE);
          rt.allocated -= (a->bytes + page - 1) / page * page;
          ms_cuda_memory_written (a->base, a->bytes);
          munmap (a->base - GUARD_BYTES, a->map_bytes);
          g_array_remove_index (rt.allocations, i);
          return cudaSuccess;
        }
    }
  return fail (cudaErrorInvalidDevicePointer);
}

cudaError_t
cudaMalloc (void **ptr, size_t bytes)
{
  MS_CUDA_LOCKED;
  return allocate (ptr, bytes, TRUE);
}

cudaError_t
cudaMallocManaged (void **ptr, size_t bytes, unsigned flags)
{
  MS_CUDA_LOCKED;
  cudaError_t e = allocate (ptr, bytes, TRUE);
  Allocation *a = e == cudaSuccess ? allocation_of (*ptr, 0) : NULL;
  if (a != NULL)
    a->managed = TRUE;
  return e;
}

cudaError_t
cudaMallocHost (void **ptr, size_t bytes)
{
  MS_CUDA_LOCKED;
  return allocate (ptr, bytes, FALSE);
}

cudaError_t
cudaHostAlloc (void **ptr, size_t bytes, unsigned flags)
{
  MS_CUDA_LOCKED;
  return allocate (ptr, bytes, FALSE);
}

cudaError_t
cudaFree (void *ptr)
{
  MS_CUDA_LOCKED;
  return release (ptr);
}

cudaError_t
cudaFreeHost (void *ptr)
{
  MS_CUDA_LOCKED;
  return release (ptr);
}

/* ms_cuda_clock_copy: a copy's fixed time, then the bytes at the rate of
 * their path ([copy] of the preset): between the host and the device at
 * the link's rate from pinned memory (cudaMallocHost, cudaHostRegister),
 * at a lower one from pageable; within the device at the copy engines';
 * host to host nothing.  The GPU overlaps copies and kernels of different
 * streams; this clock adds them up. */
void
ms_cuda_clock_copy (const void *dst, const void *src, gsize bytes, guint arrays, gboolean async)
{
  const MsArch *a = rt.arch;
  Allocation *d = allocation_of (dst, 0), *s = allocation_of (src, 0);
  gboolean to_device = (arrays & MS_CUDA_DST_ARRAY) || (d != NULL && d->device);
  gboolean from_device = (arrays & MS_CUDA_SRC_ARRAY) || (s != NULL && s->device);
  double us, gbs;
  if (a == NULL || bytes == 0 || !(to_device || from_device))
    return;
  if (to_device && from_device)
    us = a->copy_device_latency_us, gbs = a->copy_d2d_gbs;
  else
    {
      gboolean pinned = to_device ? s != NULL : d != NULL;
      us = async ? a->copy_async_latency_us : a->copy_latency_us;
      gbs = pinned ? a->copy_pinned_gbs
                   : to_device ? a->copy_pageable_h2d_gbs : a->copy_pageable_d2h_gbs;
    }
  rt.clock_ms += (us + (gbs > 0 ? (double) bytes / (gbs * 1e3) : 0)) / 1e3;
}

void
ms_cuda_clock_set (gsize bytes)
{
  const MsArch *a = rt.arch;
  if (a == NULL || bytes == 0)
    return;
  double gbs = a->copy_memset_gbs;
  rt.clock_ms += (a->copy_device_latency_us + (gbs > 0 ? (double) bytes / (gbs * 1e3) : 0)) / 1e3;
}

cudaError_t
ms_cuda_copy_untimed (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  if (synchronise () != cudaSuccess)
    return rt.sticky;
  if (bytes == 0)
    return cudaSuccess;
  if (dst == NULL || src == NULL)
    return fail (cudaErrorInvalidValue);
  gboolean dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  gboolean src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind > cudaMemcpyDefault)
    return fail (cudaErrorInvalidMemcpyDirection);
  Allocation *d = allocation_of (dst, bytes), *s = allocation_of (src, bytes);
  if ((dst_device && (d == NULL || !d->device)) || (src_device && (s == NULL || !s->device)))
    return fail (cudaErrorInvalidValue);
  /* a device-side range that runs past its allocation */
  if ((allocation_of (dst, 0) && d == NULL) || (allocation_of (src, 0) && s == NULL))
    return fail (cudaErrorInvalidValue);
  memmove (dst, src, bytes);
  if (d != NULL)
    ms_cuda_memory_written (dst, bytes);
  return cudaSuccess;
}

/* ... and with it, on the clock */
static cudaError_t
copy_timed (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, gboolean async)
{
  cudaError_t e = ms_cuda_copy_untimed (dst, src, bytes, kind);
  if (e == cudaSuccess)
    ms_cuda_clock_copy (dst, src, bytes, 0, async);
  return e;
}

cudaError_t
cudaMemcpy (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  return copy_timed (dst, src, bytes, kind, FALSE);
}

cudaError_t
cudaMemcpyAsync (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                 cudaStream_t stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  if (ms_graph_capturing (stream))
    return ms_graph_capture_memcpy (stream, dst, src, bytes, kind);
  if (stream_queues (stream))
    return queue_copy (dst, src, bytes, kind);
  streams_run ();
  return copy_timed (dst, src, bytes, kind, TRUE);
}

/* cudaMemset's, without its time */
static cudaError_t
set_now (void *ptr, int value, size_t bytes)
{
  if (bytes == 0)
    return cudaSuccess;
  Allocation *a = allocation_of (ptr, bytes);
  if (a == NULL || !a->device)
    return fail (cudaErrorInvalidValue);
  memset (ptr, value, bytes);
  ms_cuda_memory_written (ptr, bytes);
  return cudaSuccess;
}

cudaError_t
cudaMemset (void *ptr, int value, size_t bytes)
{
  MS_CUDA_LOCKED;
  cudaError_t e = set_now (ptr, value, bytes);
  if (e == cudaSuccess)
    ms_cuda_clock_set (bytes);
  return e;
}

cudaError_t
cudaMemsetAsync (void *ptr, int value, size_t bytes, cudaStream_t stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  if (ms_graph_capturing (stream))
    return ms_graph_capture_memset (stream, ptr, value, bytes);
  if (stream_queues (stream))
    return queue_set (ptr, value, bytes);
  streams_run ();
  return cudaMemset (ptr, value, bytes);
}

cudaError_t
cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
  MS_CUDA_LOCKED;
  if (free_bytes)
    *free_bytes = memory_limit () - rt.allocated;
  if (total_bytes)
    *total_bytes = memory_limit ();
  return cudaSuccess;
}

/* ------------------------------------------------------------ device */

cudaError_t
cudaDeviceSynchronize (void)
{
  MS_CUDA_LOCKED;
  return synchronise ();
}

cudaError_t
cudaThreadSynchronize (void)
{
  MS_CUDA_LOCKED;
  return synchronise ();
}

cudaError_t
cudaDeviceReset (void)
{
  MS_CUDA_LOCKED;
  synchronise ();
  rt.sticky = cudaSuccess;
  return cudaSuccess;
}

cudaError_t
cudaSetDevice (int device)
{
  MS_CUDA_LOCKED;
  return device == 0 ? cudaSuccess : fail (cudaErrorInvalidDevice);
}

cudaError_t
cudaGetDevice (int *device)
{
  MS_CUDA_LOCKED;
  if (device == NULL)
    return fail (cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t
cudaGetDeviceCount (int *count)
{
  MS_CUDA_LOCKED;
  if (count == NULL)
    return fail (cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t
cudaSetDeviceFlags (unsigned flags)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

cudaError_t
cudaDeviceSetCacheConfig (enum cudaFuncCache config)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

cudaError_t
cudaFuncSetAttribute (const void *func, int attr, int value)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

cudaError_t
cudaDriverGetVersion (int *version)
{
  MS_CUDA_LOCKED;
  if (version)
    *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t
cudaRuntimeGetVersion (int *version)
{
  MS_CUDA_LOCKED;
  return cudaDriverGetVersion (version);
}

cudaError_t
cudaProfilerStart (void)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

cudaError_t
cudaProfilerStop (void)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

/* The preset's figures, or an H100's where the preset has no cost figures
 * (the cc 1.x presets). */
static int
arch_or (int value, int h100)
{
  return rt.arch != NULL && rt.arch->has_costs && value > 0 ? value : h100;
}

void
ms_cuda_runtime_device (MsCudaDevice *d)
{
  const MsArch *a = rt.arch ? rt.arch : ms_arch_default ();
  memset (d, 0, sizeof *d);
  g_snprintf (d->name, sizeof d->name, "%s, simulated by memsim", a->description);
  d->total_global = memory_limit ();
  d->shared_per_block = (gsize) arch_or (a->shared_per_block, 48 * 1024);
  d->shared_per_sm = (gsize) arch_or (a->shared_per_sm, 228 * 1024);
  d->shared_per_block_optin = (gsize) arch_or (a->shared_per_block_optin, 227 * 1024);
  d->total_const = 64 * 1024;
  d->mem_pitch = G_MAXINT32;
  d->texture_alignment = 512;
  d->regs_per_block = arch_or (a->max_registers_per_block, 65536);
  d->regs_per_sm = arch_or (a->registers_per_sm, 65536);
  d->warp_size = a->warp_size;
  d->max_threads_per_block = arch_or (a->max_threads_per_block, 1024);
  d->max_threads_dim[0] = d->max_threads_dim[1] = d->max_threads_per_block;
  d->max_threads_dim[2] = 64;
  d->max_grid[0] = G_MAXINT32;
  d->max_grid[1] = d->max_grid[2] = 65535;
  d->clock_khz = arch_or (a->clock_mhz, 1755) * 1000;
  d->major = a->compute_capability / 10;
  d->minor = a->compute_capability % 10;
  d->sm_count = arch_or (a->sm_count, 132);
  d->memory_bus_width = 5120;
  /* 2 transfers a clock over memory_bus_width bits = the preset's bandwidth */
  double gbs = a->has_costs && a->dram_gbs > 0 ? a->dram_gbs : 3350.0;
  d->memory_clock_khz = (int) (gbs * 1e9 / (2.0 * d->memory_bus_width / 8) / 1e3);
  d->l2_bytes = arch_or (a->l2_bytes, 50 * 1024 * 1024);
  d->max_threads_per_sm = arch_or (a->max_threads_per_sm, 2048);
  d->max_blocks_per_sm = arch_or (a->max_blocks_per_sm, 32);
}

cudaError_t
cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int device)
{
  MS_CUDA_LOCKED;
  MsCudaDevice p;
  if (value == NULL)
    return fail (cudaErrorInvalidValue);
  if (device != 0)
    return fail (cudaErrorInvalidDevice);
  ms_cuda_runtime_device (&p);
  switch (attr)
    {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.max_threads_per_block; break;
    case cudaDevAttrMaxBlockDimX: *value = p.max_threads_dim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.max_threads_dim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.max_threads_dim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.max_grid[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.max_grid[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.max_grid[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int) p.shared_per_block; break;
    case cudaDevAttrTotalConstantMemory: *value = (int) p.total_const; break;
    case cudaDevAttrWarpSize: *value = p.warp_size; break;
    case cudaDevAttrMaxPitch: *value = (int) p.mem_pitch; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regs_per_block; break;
    case cudaDevAttrClockRate: *value = p.clock_khz; break;
    case cudaDevAttrTextureAlignment: *value = (int) p.texture_alignment; break;
    case cudaDevAttrGpuOverlap: *value = 1; break;
    case cudaDevAttrMultiProcessorCount: *value = p.sm_count; break;
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrIntegrated: *value = 0; break;
    case cudaDevAttrCanMapHostMemory: *value = 1; break;
    case cudaDevAttrComputeMode: *value = 0; break;
    case cudaDevAttrConcurrentKernels: *value = 1; break;
    case cudaDevAttrEccEnabled: *value = 0; break;
    case cudaDevAttrPciBusId: *value = 0; break;
    case cudaDevAttrPciDeviceId: *value = 0; break;
    case cudaDevAttrMemoryClockRate: *value = p.memory_clock_khz; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memory_bus_width; break;
    case cudaDevAttrL2CacheSize: *value = p.l2_bytes; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.max_threads_per_sm; break;
    case cudaDevAttrAsyncEngineCount: *value = 1; break;
    case cudaDevAttrUnifiedAddressing: *value = 1; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = (int) p.shared_per_sm; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regs_per_sm; break;
    case cudaDevAttrManagedMemory: *value = 1; break;
    case cudaDevAttrCooperativeLaunch: *value = 1; break;
    case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
    case cudaDevAttrMemoryPoolSupportedHandleTypes: *value = 0; break;
    case cudaDevAttrConcurrentManagedAccess: *value = 1; break;
    case cudaDevAttrPageableMemoryAccess: *value = 0; break;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *value = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = 1; break;
    case cudaDevAttrHostNativeAtomicSupported: *value = 1; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *value = 1; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: *value = 1; break;
    case cudaDevAttrLocalL1CacheSupported: *value = 1; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = 2; break;
    case cudaDevAttrMultiGpuBoardGroupID: *value = 0; break;
    case cudaDevAttrIsMultiGpuBoard: *value = 0; break;
    case cudaDevAttrTccDriver: *value = 0; break;
    case cudaDevAttrPciDomainId: *value = 0; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.l2_bytes / 4 * 3; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = 134213632; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = 1024; break;
    case cudaDevAttrSparseCudaArraySupported: *value = 0; break;
    case cudaDevAttrHostRegisterSupported: *value = 1; break;
    case cudaDevAttrHostRegisterReadOnlySupported: *value = 1; break;
    case cudaDevAttrTimelineSemaphoreInteropSupported: *value = 0; break;
    case cudaDevAttrGPUDirectRDMASupported: *value = 0; break;
    case cudaDevAttrClusterLaunch: *value = 0; break;
    case cudaDevAttrDeferredMappingCudaArraySupported: *value = 0; break;
    case cudaDevAttrIpcEventSupport: *value = 0; break;
    case cudaDevAttrMemSyncDomainCount: *value = 4; break;
    case cudaDevAttrNumaConfig: *value = 0; break;
    case cudaDevAttrHostNumaId: *value = -1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int) p.shared_per_block_optin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.max_blocks_per_sm; break;
    default: return fail (cudaErrorInvalidValue);
    }
  return cudaSuccess;
}

/* ------------------------------------------------------------ errors */

cudaError_t
cudaGetLastError (void)
{
  MS_CUDA_LOCKED_QUEUEING;
  if (rt.sticky != cudaSuccess)
    return rt.sticky;
  cudaError_t e = rt.last_error;
  rt.last_error = cudaSuccess;
  return e;
}

cudaError_t
cudaPeekAtLastError (void)
{
  MS_CUDA_LOCKED_QUEUEING;
  if (rt.sticky != cudaSuccess)
    return rt.sticky;
  return rt.last_error;
}

static const struct {
  cudaError_t code;
  const char *name, *text;
} error_texts[] = {
  { cudaSuccess, "cudaSuccess", "no error" },
  { cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument" },
  { cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory" },
  { cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error" },
  { cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
    "invalid configuration argument" },
  { cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch argument" },
  { cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol" },
  { cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer" },
  { cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection",
    "invalid copy direction for memcpy" },
  { cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function" },
  { cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected" },
  { cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal" },
  { cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle",
    "invalid resource handle" },
  { cudaErrorNotReady, "cudaErrorNotReady", "device not ready" },
  { cudaErrorIllegalAddress, "cudaErrorIllegalAddress",
    "an illegal memory access was encountered" },
  { cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
    "too many resources requested for launch" },
  { cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure" },
  { cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered" },
  { cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported" },
  { cudaErrorUnknown, "cudaErrorUnknown", "unknown error" },
};

const char *
cudaGetErrorString (cudaError_t error)
{
  for (guint i = 0; i < G_N_ELEMENTS (error_texts); i++)
    if (error_texts[i].code == error)
      return error_texts[i].text;
  return "unrecognized error code";
}

const char *
cudaGetErrorName (cudaError_t error)
{
  for (guint i = 0; i < G_N_ELEMENTS (error_texts); i++)
    if (error_texts[i].code == error)
      return error_texts[i].name;
  return "cudaErrorUnknown";
}

/* ------------------------------------------------------------ events, streams */

/* An event or stream: the runtime owns it until the program destroys it,
 * or the program ends (ms_cuda_runtime_end), as CUDA does. */
static gpointer
handle_new (gsize size)
{
  gpointer h = g_malloc0 (size);
  g_hash_table_add (rt.handles, h);
  return h;
}

static cudaError_t
handle_destroy (gpointer h)
{
  return g_hash_table_remove (rt.handles, h) ? cudaSuccess : fail (cudaErrorInvalidResourceHandle);
}

cudaError_t
cudaEventCreate (cudaEvent_t *event)
{
  MS_CUDA_LOCKED;
  if (event == NULL)
    return fail (cudaErrorInvalidValue);
  *event = handle_new (sizeof (struct CUevent_st));
  return cudaSuccess;
}

cudaError_t
cudaEventCreateWithFlags (cudaEvent_t *event, unsigned flags)
{
  MS_CUDA_LOCKED;
  return cudaEventCreate (event);
}

cudaError_t
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  if (event == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  if (ms_graph_capturing (stream))
    {
      ms_graph_capture_record (event, stream);
      return cudaSuccess;
    }
  event->ms = rt.clock_ms;
  event->recorded = TRUE;
  return cudaSuccess;
}

cudaError_t
cudaEventSynchronize (cudaEvent_t event)
{
  MS_CUDA_LOCKED;
  if (synchronise () != cudaSuccess)
    return rt.sticky;
  return event ? cudaSuccess : fail (cudaErrorInvalidResourceHandle);
}

cudaError_t
cudaEventQuery (cudaEvent_t event)
{
  MS_CUDA_LOCKED;
  return event ? cudaSuccess : fail (cudaErrorInvalidResourceHandle);
}

cudaError_t
cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end)
{
  MS_CUDA_LOCKED;
  if (ms == NULL)
    return fail (cudaErrorInvalidValue);
  if (start == NULL || end == NULL || !start->recorded || !end->recorded)
    return fail (cudaErrorInvalidResourceHandle);
  *ms = (float) (end->ms - start->ms);
  return cudaSuccess;
}

cudaError_t
cudaEventDestroy (cudaEvent_t event)
{
  MS_CUDA_LOCKED;
  return handle_destroy (event);
}

cudaError_t
cudaStreamCreate (cudaStream_t *stream)
{
  MS_CUDA_LOCKED;
  if (stream == NULL)
    return fail (cudaErrorInvalidValue);
  *stream = handle_new (sizeof (struct CUstream_st));
  return cudaSuccess;
}

cudaError_t
cudaStreamCreateWithFlags (cudaStream_t *stream, unsigned flags)
{
  return cudaStreamCreateWithPriority (stream, flags, 0);
}

cudaError_t
cudaStreamSynchronize (cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return synchronise ();
}

cudaError_t
cudaStreamQuery (cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

cudaError_t
cudaStreamDestroy (cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return handle_destroy (stream);
}

/* ------------------------------------------------------------ launches */

static KnownTime *
known_time (const MsKernel *k, const unsigned grid[3], const unsigned block[3])
{
  for (guint i = 0; i < rt.known_times->len; i++)
    {
      KnownTime *t = &g_array_index (rt.known_times, KnownTime, i);
      if (t->kernel == k && memcmp (t->grid, grid, sizeof t->grid) == 0
          && memcmp (t->block, block, sizeof t->block) == 0)
        return t;
    }
  return NULL;
}

/* The time of an untraced launch no traced one shares the grid with: that
 * of the traced launch of the kernel and block whose grid has the nearest
 * number of blocks, its part beyond the launch's fixed time scaled by
 * blocks (a grid of a quarter of the blocks, a quarter of the work); 0
 * if there is none. */
static double
scaled_time (const MsKernel *k, const unsigned grid[3], const unsigned block[3])
{
  double blocks = (double) grid[0] * grid[1] * grid[2], best = -1, best_blocks = 0;
  for (guint i = 0; i < rt.known_times->len; i++)
    {
      KnownTime *t = &g_array_index (rt.known_times, KnownTime, i);
      double b = (double) t->grid[0] * t->grid[1] * t->grid[2];
      if (t->kernel == k && memcmp (t->block, block, sizeof t->block) == 0
          && (best < 0 || fabs (log (b / blocks)) < fabs (log (best_blocks / blocks))))
        best = t->seconds, best_blocks = b;
    }
  if (best < 0)
    return 0;
  double fixed = rt.arch ? MIN (rt.arch->launch_overhead_us * 1e-6, best) : 0;
  return fixed + (best - fixed) * blocks / best_blocks;
}

/* A warning about a launch that does not run, on stderr: the program
 * learns of it through cudaGetLastError, as on a GPU. */
static void
refuse (const char *kernel, const char *why, cudaError_t e)
{
  g_printerr ("memsim: launch %u (%s): %s; not run (cudaGetLastError: %s)\n", rt.launches + 1,
              kernel, why, cudaGetErrorName (e));
  rt.last_error = e;
}

/* One launch's parameters: per parameter (the first MS_MAX_ARGS) its kind,
 * name and value; params: the PTX kernel's parameter block. */
typedef struct {
  const char *kinds;
  const char *const *names;
  const void *const *pointers;
  const long long *ints;
  const double *floats;
  const void *params;
  guint param_bytes;
  /* pointer arguments after the first MS_MAX_ARGS parameters */
  const void *const *more;
  const char *const *more_names;
  guint n_more;
  gboolean cooperative;   /* cudaLaunchCooperativeKernel's */
} LaunchParams;

/* The grid workspace a cooperative launch's barrier counts in, zeroed for
 * the launch (the program's memory knows nothing of it: no allocation of
 * its own, guard pages on both sides as theirs); NULL if it cannot be
 * mapped. */
static guint8 *
grid_workspace (void)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  if (rt.workspace == NULL)
    {
      guint8 *m = mmap (NULL, page + 2 * GUARD_BYTES, PROT_NONE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (m == MAP_FAILED)
        return NULL;
      if (mprotect (m + GUARD_BYTES, page, PROT_READ | PROT_WRITE) != 0)
        {
          munmap (m, page + 2 * GUARD_BYTES);
          return NULL;
        }
      rt.workspace = m + GUARD_BYTES;
    }
  memset (rt.workspace, 0, WORKSPACE_BYTES);
  ms_cuda_memory_written (rt.workspace, WORKSPACE_BYTES);
  return rt.workspace;
}

static gboolean
chosen_already (const Allocation *const *chosen, guint n, const Allocation *a)
{
  for (guint b = 0; b < n; b++)
    if (chosen[b] == a)
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------ repeats */

void
ms_cuda_memory_written (const void *p, gsize bytes)
{
  if (rt.memo != NULL)
    ms_launch_memo_written (rt.memo, p, bytes);
}

/* Whether launch L's buffer b is memory the host writes as it likes:
 * pinned, mapped or registered host memory, or managed memory. */
static gboolean
host_writable (const MsProgramLaunch *L, guint b)
{
  if (L->buffer_host[b])
    return TRUE;
  const Allocation *a = allocation_of (L->args.buf[b], 0);
  return a != NULL && a->managed;
}

/* What a launch launches: the kernel, its geometry, shared bytes and
 * parameter block. */
static GBytes *
launch_key (const MsKernel *k, const LaunchParams *P, const unsigned grid[3],
            const unsigned block[3], size_t shared)
{
  GByteArray *key = g_byte_array_new ();
  g_byte_array_append (key, (const guint8 *) &k, sizeof k);
  g_byte_array_append (key, (const guint8 *) grid, 3 * sizeof grid[0]);
  g_byte_array_append (key, (const guint8 *) block, 3 * sizeof block[0]);
  g_byte_array_append (key, (const guint8 *) &shared, sizeof shared);
  g_byte_array_append (key, P->params, P->param_bytes);
  return g_byte_array_free_to_bytes (key);
}

static void
launch (const MsKernel *k, const LaunchParams *P, const unsigned grid[3],
        const unsigned block[3], size_t shared)
{
  g_autoptr (GError) error = NULL;
  if (synchronise () != cudaSuccess)
    {
      rt.last_error = rt.sticky;   /* the context is gone: nothing runs */
      return;
    }
  MsProgramLaunch L = { .kernel = k, .index = rt.launches, .guard_bytes = GUARD_BYTES,
                        .dynamic_shared = (guint) shared };
  for (int i = 0; P->kinds[i] && i < MS_MAX_ARGS; i++)
    {
      L.kinds[i] = P->kinds[i];
      L.param_names[i] = P->names[i];
      L.args.i[i] = P->ints[i];
      L.args.f[i] = P->floats[i];
    }
  L.args.params = P->params;
  memcpy (L.args.grid, grid, sizeof L.args.grid);
  memcpy (L.args.block, block, sizeof L.args.block);
  if (!ms_launch_check_geometry (&L.args, &error))
    {
      refuse (k->name, error->message, cudaErrorInvalidConfiguration);
      return;
    }
  gsize shared_max = (gsize) arch_or (rt.arch ? rt.arch->shared_per_block_optin : 0, 227 * 1024);
  if (shared > shared_max)
    {
      g_autofree char *why = g_strdup_printf ("%zu bytes of dynamic shared memory, more than the "
                                              "%zu a block can have", shared, shared_max);
      refuse (k->name, why, cudaErrorInvalidValue);
      return;
    }
  /* the buffers: the allocations the pointer arguments point into, named
   * after the parameters, then the module's variables, then the other
   * allocations, while there is room */
  char buffer_names[MS_MAX_BUFFERS][96];
  const Allocation *chosen[MS_MAX_BUFFERS];
  for (int i = 0; P->kinds[i] && i < MS_MAX_ARGS; i++)
    {
      if (P->kinds[i] != 'p' || P->pointers[i] == NULL)
        continue;
      const Allocation *a = allocation_of (P->pointers[i], 0);
      if (a == NULL)
        {
          g_printerr ("memsim: launch %u (%s): parameter %s is %p, which is no device memory "
                      "(a GPU would fault): pass memory from cudaMalloc\n", rt.launches + 1,
                      k->name, P->names[i] ? P->names[i] : "?", P->pointers[i]);
          rt.failed = TRUE;
          exit (1);
        }
      if (chosen_already (chosen, L.n_buffers, a) || L.n_buffers == MS_MAX_BUFFERS)
        continue;
      g_snprintf (buffer_names[L.n_buffers], sizeof buffer_names[0], "%s",
                  P->names[i] ? P->names[i] : "?");
      chosen[L.n_buffers++] = a;
    }
  for (guint m = 0; m < P->n_more && L.n_buffers < MS_MAX_BUFFERS; m++)
    {
      const Allocation *a = allocation_of (P->more[m], 0);
      if (a == NULL || chosen_already (chosen, L.n_buffers, a))
        continue;
      g_snprintf (buffer_names[L.n_buffers], sizeof buffer_names[0], "%s",
                  P->more_names[m] ? P->more_names[m] : "?");
      chosen[L.n_buffers++] = a;
    }
  /* the workspace, right after the arguments' memory, where there is room */
  guint workspace_at = MS_MAX_BUFFERS;
  if (P->cooperative)
    {
      L.cooperative = TRUE;
      L.grid_workspace = grid_workspace ();
      if (L.grid_workspace == NULL || L.n_buffers == MS_MAX_BUFFERS)
        {
          refuse (k->name, "no room for the cooperative launch's grid workspace",
                  cudaErrorMemoryAllocation);
          return;
        }
      workspace_at = L.n_buffers;
      chosen[L.n_buffers++] = NULL;
    }
  for (int pass = 0; pass < 2; pass++)
    for (guint i = 0; i < rt.allocations->len && L.n_buffers < MS_MAX_BUFFERS; i++)
      {
        const Allocation *a = &g_array_index (rt.allocations, Allocation, i);
        if ((pass == 0) != (a->variable != NULL) || chosen_already (chosen, L.n_buffers, a))
          continue;
        if (a->variable != NULL)
          g_snprintf (buffer_names[L.n_buffers], sizeof buffer_names[0], "%s", a->variable);
        else
          g_snprintf (buffer_names[L.n_buffers], sizeof buffer_names[0], "allocation %u",
                      a->number + 1);
        chosen[L.n_buffers++] = a;
      }
  for (guint b = 0; b < L.n_buffers; b++)
    {
      if (b == workspace_at)
        {
          L.args.buf[b] = L.grid_workspace;
          L.buffer_bytes[b] = WORKSPACE_BYTES;
          L.buffer_names[b] = "grid workspace";
          continue;
        }
      L.args.buf[b] = chosen[b]->base;
      L.buffer_bytes[b] = chosen[b]->bytes;
      L.buffer_names[b] = buffer_names[b];
      L.buffer_host[b] = !chosen[b]->device;
    }
  L.kernel_index = GPOINTER_TO_UINT (g_hash_table_lookup (rt.kernel_launches, k));
  g_hash_table_insert (rt.kernel_launches, (gpointer) k, GUINT_TO_POINTER (L.kernel_index + 1));

  /* a launch that would give memory a state already known need not run
   * (launch-memo.h); not one with effects beyond memory.  Its memory: its
   * buffers, then the CUDA arrays its textures may read */
  g_autoptr (GBytes) key = launch_key (k, P, grid, block, shared);
  guint8 *base[2 * MS_MAX_BUFFERS];
  gsize bytes[2 * MS_MAX_BUFFERS];
  gboolean host[2 * MS_MAX_BUFFERS] = { FALSE };
  for (guint b = 0; b < L.n_buffers; b++)
    {
      base[b] = L.args.buf[b];
      bytes[b] = L.buffer_bytes[b];
      host[b] = host_writable (&L, b);
    }
  guint arrays = ms_cuda_arrays_memory (base + L.n_buffers, bytes + L.n_buffers, MS_MAX_BUFFERS);
  MsMemoryView mem = { L.n_buffers + (arrays == G_MAXUINT ? 0 : arrays), base, bytes, host };
  gboolean eligible = !(k->inst_map && k->inst_map->effects) && arrays != G_MAXUINT;
  L.repeat = ms_launch_memo_begin (rt.memo, key, &mem, eligible, &L.dirty_pages);
  MsProgramLaunchResult result = { -1, TRUE, FALSE, TRUE };
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = rt.launch (rt.launch_data, &L, &result);
  /* (device malloc and free write their heap themselves: no marks) */
  if (result.ran)
    ms_launch_memo_ran (rt.memo, &mem, result.marked && eligible, result.whole,
                        (double) (g_get_monotonic_time () - t0) / 1e6);
  else
    ms_launch_memo_skipped (rt.memo, &mem);
  double seconds = result.seconds;
  rt.launches++;
  if (ms_emulator_take_device_assert ())
    rt.sticky = cudaErrorAssert;   /* at the next synchronisation, as the GPU's */
  if (!ok)
    {
      rt.failed = TRUE;
      exit (1);
    }
  /* the clock: the prediction, else that of a traced launch like this one */
  KnownTime *t = known_time (k, grid, block);
  if (seconds >= 0)
    {
      if (t == NULL)
        {
          KnownTime n = { k, { grid[0], grid[1], grid[2] }, { block[0], block[1], block[2] },
                          seconds };
          g_array_append_val (rt.known_times, n);
        }
      else
        t->seconds = seconds;
    }
  else
    seconds = t ? t->seconds : scaled_time (k, grid, block);
  rt.clock_ms += seconds * 1e3;
}

/* ------------------------------------------------------------ nvcc's host code */

/* nvcc's registration and launch entry points (crt/host_runtime.h,
 * crt/device_functions.h: C++ headers, so declared here). */
#define MS_NVCC_ENTRY(decl, name) decl __asm__ ("memsim_" #name)
MS_NVCC_ENTRY (void **__cudaRegisterFatBinary (void *fat), __cudaRegisterFatBinary);
MS_NVCC_ENTRY (void __cudaRegisterFatBinaryEnd (void **handle), __cudaRegisterFatBinaryEnd);
MS_NVCC_ENTRY (void __cudaUnregisterFatBinary (void **handle), __cudaUnregisterFatBinary);
MS_NVCC_ENTRY (void __cudaRegisterFunction (void **handle, const char *host_fun,
                                            char *device_fun, const char *device_name,
                                            int thread_limit, uint3 *tid, uint3 *bid,
                                            dim3 *block, dim3 *grid, int *warp_size),
               __cudaRegisterFunction);
MS_NVCC_ENTRY (void __cudaRegisterVar (void **handle, char *host_var, char *device_address,
                                       const char *device_name, int ext, size_t size,
                                       int constant, int global),
               __cudaRegisterVar);
MS_NVCC_ENTRY (unsigned __cudaPushCallConfiguration (dim3 grid, dim3 block, size_t shared,
                                                     struct CUstream_st *stream),
               __cudaPushCallConfiguration);
MS_NVCC_ENTRY (cudaError_t __cudaPopCallConfiguration (dim3 *grid, dim3 *block, size_t *shared,
                                                       void *stream),
               __cudaPopCallConfiguration);
MS_NVCC_ENTRY (cudaError_t __cudaGetKernel (cudaKernel_t *kernel, const void *host_fun),
               __cudaGetKernel);
MS_NVCC_ENTRY (cudaError_t __cudaLaunchKernel (cudaKernel_t kernel, dim3 grid, dim3 block,
                                               void **args, size_t shared, cudaStream_t stream),
               __cudaLaunchKernel);
MS_NVCC_ENTRY (cudaError_t __cudaLaunchKernel_ptsz (cudaKernel_t kernel, dim3 grid, dim3 block,
                                                    void **args, size_t shared,
                                                    cudaStream_t stream),
               __cudaLaunchKernel_ptsz);

/* One handle for every module: the device code is the program's, found
 * by name (MsDeviceCode), whichever fat binary registered it. */
static void *fat_handle[1];

void **
__cudaRegisterFatBinary (void *fat)
{
  return fat_handle;
}

void
__cudaRegisterFatBinaryEnd (void **handle)
{
}

void
__cudaUnregisterFatBinary (void **handle)
{
}

static void
registry_init (void)
{
  if (reg.functions == NULL)
    {
      reg.functions = g_hash_table_new_full (NULL, NULL, NULL, g_free);
      reg.variables = g_hash_table_new (NULL, NULL);
    }
}

void
__cudaRegisterFunction (void **handle, const char *host_fun, char *device_fun,
                        const char *device_name, int thread_limit, uint3 *tid, uint3 *bid,
                        dim3 *block, dim3 *grid, int *warp_size)
{
  if (host_fun == NULL || device_name == NULL)
    return;
  g_mutex_lock (&reg.lock);
  registry_init ();
  g_hash_table_insert (reg.functions, (gpointer) host_fun, g_strdup (device_name));
  g_mutex_unlock (&reg.lock);
}

void
__cudaRegisterVar (void **handle, char *host_var, char *device_address, const char *device_name,
                   int ext, size_t size, int constant, int global)
{
  if (host_var == NULL || device_name == NULL)
    return;
  g_mutex_lock (&reg.lock);
  registry_init ();
  Variable *v = g_new0 (Variable, 1);   /* for the process, as the build */
  v->name = g_strdup (device_name);
  v->size = size;
  g_hash_table_insert (reg.variables, host_var, v);
  g_mutex_unlock (&reg.lock);
}

unsigned
__cudaPushCallConfiguration (dim3 grid, dim3 block, size_t shared, struct CUstream_st *stream)
{
  if (n_configs == G_N_ELEMENTS (configs))
    return 1;
  guint i = n_configs++;
  configs[i].grid[0] = grid.x, configs[i].grid[1] = grid.y, configs[i].grid[2] = grid.z;
  configs[i].block[0] = block.x, configs[i].block[1] = block.y, configs[i].block[2] = block.z;
  configs[i].shared = shared;
  configs[i].stream = stream;
  return 0;
}

cudaError_t
__cudaPopCallConfiguration (dim3 *grid, dim3 *block, size_t *shared, void *stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  if (n_configs == 0)
    return fail (cudaErrorInvalidConfiguration);
  guint i = --n_configs;
  *grid = (dim3) { configs[i].grid[0], configs[i].grid[1], configs[i].grid[2] };
  *block = (dim3) { configs[i].block[0], configs[i].block[1], configs[i].block[2] };
  *shared = configs[i].shared;
  if (stream != NULL)
    *(cudaStream_t *) stream = configs[i].stream;
  return cudaSuccess;
}

/* A kernel handle is its host stub's address. */
cudaError_t
__cudaGetKernel (cudaKernel_t *kernel, const void *host_fun)
{
  MS_CUDA_LOCKED_QUEUEING;
  if (kernel == NULL)
    return fail (cudaErrorInvalidValue);
  *kernel = (cudaKernel_t) host_fun;
  return cudaSuccess;
}

/* The module's variables get memory of the runtime's own (so that a launch
 * sees them as buffers) on first use in a program: their initial bytes,
 * bound to the device code. */
static gboolean
bind_variables (void)
{
  if (rt.variables != NULL || !rt.active)
    return rt.variables != NULL;
  rt.variables = g_hash_table_new (g_str_hash, g_str_equal);
  guint n = 0;
  const MsPtxGlobal *g = have_device_code && device_code.globals
                           ? device_code.globals (device_code.data, &n) : NULL;
  for (guint i = 0; g != NULL && i < n; i++)
    {
      void *p = NULL;
      gboolean heap = strcmp (g[i].name, MS_PTX_HEAP_NAME) == 0;
      gsize bytes = heap ? MAX (g[i].size, malloc_heap_bytes) : MAX (g[i].size, 1);
      if (allocate (&p, bytes, TRUE) != cudaSuccess)
        {
          g_printerr ("memsim: no memory for the program's variable %s (%zu bytes)\n",
                      g[i].name, g[i].size);
          rt.failed = TRUE;
          exit (1);
        }
      if (g[i].init != NULL)
        memcpy (p, g[i].init, g[i].size);
      ms_cuda_memory_written (p, g[i].size);
      if (heap)
        ms_emulator_device_heap (p, bytes);
      allocation_of (p, 0)->variable = g[i].name;
      g_hash_table_insert (rt.variables, (gpointer) g[i].name, p);
      if (device_code.bind_global)
        device_code.bind_global (device_code.data, g[i].name, p);
    }
  return TRUE;
}

/* The memory of the variable whose host shadow is symbol, and its size. */
static Allocation *
variable_of (const void *symbol)
{
  if (!rt.active || !bind_variables ())
    return NULL;
  g_mutex_lock (&reg.lock);
  Variable *v = reg.variables ? g_hash_table_lookup (reg.variables, symbol) : NULL;
  g_mutex_unlock (&reg.lock);
  void *p = v ? g_hash_table_lookup (rt.variables, v->name) : NULL;
  return p ? allocation_of (p, 0) : NULL;
}

cudaError_t
cudaGetSymbolAddress (void **ptr, const void *symbol)
{
  MS_CUDA_LOCKED;
  Allocation *a = variable_of (symbol);
  if (ptr == NULL || a == NULL)
    return fail (cudaErrorInvalidSymbol);
  *ptr = a->base;
  return cudaSuccess;
}

cudaError_t
cudaGetSymbolSize (size_t *size, const void *symbol)
{
  MS_CUDA_LOCKED;
  Allocation *a = variable_of (symbol);
  if (size == NULL || a == NULL)
    return fail (cudaErrorInvalidSymbol);
  *size = a->bytes;
  return cudaSuccess;
}

cudaError_t
cudaMemcpyToSymbol (const void *symbol, const void *src, size_t count, size_t offset,
                    enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  Allocation *a = variable_of (symbol);
  if (a == NULL)
    return fail (cudaErrorInvalidSymbol);
  if (offset > a->bytes || count > a->bytes - offset || (count > 0 && src == NULL))
    return fail (cudaErrorInvalidValue);
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice
      && kind != cudaMemcpyDefault)
    return fail (cudaErrorInvalidMemcpyDirection);
  memmove (a->base + offset, src, count);
  ms_cuda_memory_written (a->base + offset, count);
  ms_cuda_clock_copy (a->base + offset, src, count, 0, FALSE);
  return cudaSuccess;
}

cudaError_t
cudaMemcpyFromSymbol (void *dst, const void *symbol, size_t count, size_t offset,
                      enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  Allocation *a = variable_of (symbol);
  if (a == NULL)
    return fail (cudaErrorInvalidSymbol);
  if (offset > a->bytes || count > a->bytes - offset || (count > 0 && dst == NULL))
    return fail (cudaErrorInvalidValue);
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice
      && kind != cudaMemcpyDefault)
    return fail (cudaErrorInvalidMemcpyDirection);
  memmove (dst, a->base + offset, count);
  ms_cuda_clock_copy (dst, a->base + offset, count, 0, FALSE);
  return cudaSuccess;
}

cudaError_t
cudaMemcpyToSymbolAsync (const void *symbol, const void *src, size_t count, size_t offset,
                         enum cudaMemcpyKind kind, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpyToSymbol (symbol, src, count, offset, kind);
}

cudaError_t
cudaMemcpyFromSymbolAsync (void *dst, const void *symbol, size_t count, size_t offset,
                           enum cudaMemcpyKind kind, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpyFromSymbol (dst, symbol, count, offset, kind);
}

/* The PTX kernel of host stub func, or NULL with the launch refused. */
static const MsPtxKernel *
ptx_kernel_of (const void *func, const char **name)
{
  *name = ms_cuda_runtime_kernel_name (func);
  if (*name == NULL)
    {
      refuse ("?", "the function launched is no kernel of the program",
              cudaErrorInvalidDeviceFunction);
      return NULL;
    }
  const MsPtxKernel *k = have_device_code && device_code.kernel
                           ? device_code.kernel (device_code.data, *name) : NULL;
  if (k == NULL)
    refuse (*name, "the program's device code has no such entry", cudaErrorInvalidDeviceFunction);
  return k;
}

/* A scalar parameter's value, for the reports (floats as their bits). */
static long long
integer_of (const guint8 *p, guint size)
{
  switch (size)
    {
    case 1: return (gint8) p[0];
    case 2: { gint16 v; memcpy (&v, p, 2); return v; }
    case 4: { gint32 v; memcpy (&v, p, 4); return v; }
    case 8: { gint64 v; memcpy (&v, p, 8); return v; }
    default: return 0;
    }
}

static cudaError_t
launch_ptx (const void *func, dim3 grid, dim3 block, void **args, size_t shared,
            gboolean cooperative)
{
  if (!rt.active)
    return fail (cudaErrorInitializationError);
  const char *name;
  const MsPtxKernel *k = ptx_kernel_of (func, &name);
  if (k == NULL)
    return cudaErrorInvalidDeviceFunction;
  if (k->n_params > 0 && args == NULL)
    {
      refuse (name, "no arguments given", cudaErrorInvalidValue);
      return cudaErrorInvalidValue;
    }
  bind_variables ();
  /* the parameter block, as the PTX lays it out */
  g_autofree guint8 *block_bytes = g_malloc0 (MAX (k->param_bytes, 1));
  char kinds[MS_MAX_ARGS + 1] = { 0 };
  const char *names[MS_MAX_ARGS + 1] = { 0 };
  const void *pointers[MS_MAX_ARGS] = { 0 };
  long long ints[MS_MAX_ARGS] = { 0 };
  double floats[MS_MAX_ARGS] = { 0 };
  const void *more[MS_MAX_BUFFERS];
  const char *more_names[MS_MAX_BUFFERS];
  guint n_more = 0;
  gsize prefix = strlen (name);
  for (guint i = 0; i < k->n_params; i++)
    {
      const MsPtxParam *q = &k->params[i];
      if (q->offset > k->param_bytes || q->size > k->param_bytes - q->offset || args[i] == NULL)
        {
          refuse (name, "a parameter outside the kernel's parameter block", cudaErrorInvalidValue);
          return cudaErrorInvalidValue;
        }
      memcpy (block_bytes + q->offset, args[i], q->size);
      /* "_Z4vaddPfi_param_0" is parameter "param_0" of the report */
      const char *short_name = q->name && strncmp (q->name, name, prefix) == 0
                                 && q->name[prefix] == '_' ? q->name + prefix + 1 : q->name;
      if (i >= MS_MAX_ARGS)
        {
          /* its memory is a buffer of the launch too, while there is room */
          void *ptr = NULL;
          if (q->size == 8 && n_more < MS_MAX_BUFFERS)
            memcpy (&ptr, args[i], 8);
          if (ptr != NULL && allocation_of (ptr, 0) != NULL)
            {
              more_names[n_more] = short_name;
              more[n_more++] = ptr;
            }
          continue;
        }
      names[i] = short_name;
      const guint8 *v = block_bytes + q->offset;
      void *ptr = NULL;
      if (q->size == 8)
        memcpy (&ptr, v, 8);
      if (q->size == 8 && ptr != NULL && allocation_of (ptr, 0) != NULL)
        {
          kinds[i] = 'p';
          pointers[i] = ptr;
        }
      else
        {
          kinds[i] = 'i';
          ints[i] = integer_of (v, q->size);
        }
    }
  unsigned g[3] = { grid.x, grid.y, grid.z }, b[3] = { block.x, block.y, block.z };
  LaunchParams P = { kinds, names, pointers, ints, floats, block_bytes, k->param_bytes, more,
                     more_names, n_more, cooperative };
  cudaError_t before = rt.last_error;
  rt.last_error = cudaSuccess;
  launch (k->kernel, &P, g, b, shared);
  cudaError_t e = rt.last_error;
  if (e == cudaSuccess)
    rt.last_error = before;
  return e;
}

/* A launch on stream: a node of the graph it captures, queued work of a
 * stream the program created, or now. */
static cudaError_t
launch_on (const void *func, dim3 grid, dim3 block, void **args, size_t shared,
           cudaStream_t stream)
{
  if (ms_graph_capturing (stream))
    return ms_graph_capture_kernel (stream, func, grid, block, args, shared);
  if (stream_queues (stream))
    return queue_kernel (func, grid, block, args, shared);
  streams_run ();
  return launch_ptx (func, grid, block, args, shared, FALSE);
}

cudaError_t
__cudaLaunchKernel (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                    cudaStream_t stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  return launch_on ((const void *) kernel, grid, block, args, shared, stream);
}

cudaError_t
__cudaLaunchKernel_ptsz (cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t shared,
                         cudaStream_t stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  return launch_on ((const void *) kernel, grid, block, args, shared, stream);
}

cudaError_t
cudaLaunchKernel (const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                  cudaStream_t stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  return launch_on (func, grid, block, args, shared, stream);
}

cudaError_t
ms_cuda_graph_malloc (void **ptr, size_t bytes)
{
  MS_CUDA_LOCKED;
  cudaError_t e = allocate (ptr, bytes, TRUE);
  if (e == cudaSuccess && *ptr != NULL)
    allocation_of (*ptr, 0)->graph = TRUE;
  return e;
}

cudaError_t
ms_cuda_fail (cudaError_t e)
{
  return fail (e);
}

const MsPtxKernel *
ms_cuda_kernel (const void *func)
{
  const char *name;
  return ptx_kernel_of (func, &name);
}

cudaError_t
ms_cuda_launch (const void *func, dim3 grid, dim3 block, void **args, size_t shared)
{
  MS_CUDA_LOCKED;
  return launch_ptx (func, grid, block, args, shared, FALSE);
}

cudaError_t
cudaFuncGetAttributes (struct cudaFuncAttributes *attr, const void *func)
{
  MS_CUDA_LOCKED;
  const char *name = ms_cuda_runtime_kernel_name (func);
  const MsPtxKernel *k = name && have_device_code && device_code.kernel
                           ? device_code.kernel (device_code.data, name) : NULL;
  if (attr == NULL)
    return fail (cudaErrorInvalidValue);
  if (k == NULL)
    return fail (cudaErrorInvalidDeviceFunction);
  MsCudaDevice d;
  ms_cuda_runtime_device (&d);
  memset (attr, 0, sizeof *attr);
  attr->sharedSizeBytes = k->static_shared;
  attr->maxThreadsPerBlock = d.max_threads_per_block;
  /* ptxas allocates registers: its build's, where memsim made one */
  attr->numRegs = k->kernel->registers > 0 ? k->kernel->registers : MS_DEFAULT_REGISTERS;
  attr->ptxVersion = attr->binaryVersion = d.major * 10 + d.minor;
  attr->maxDynamicSharedSizeBytes = (int) (d.shared_per_block_optin - MIN (k->static_shared,
                                                                            d.shared_per_block_optin));
  return cudaSuccess;
}

cudaError_t
cudaFuncSetCacheConfig (const void *func, enum cudaFuncCache config)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (int *blocks, const void *func,
                                                         int block_size, size_t dynamic_shared,
                                                         unsigned flags)
{
  MS_CUDA_LOCKED;
  struct cudaFuncAttributes attr;
  if (blocks == NULL || block_size <= 0)
    return fail (cudaErrorInvalidValue);
  cudaError_t e = cudaFuncGetAttributes (&attr, func);
  if (e != cudaSuccess)
    return e;
  const MsArch *a = rt.arch ? rt.arch : ms_arch_default ();
  /* numRegs is ptxas's count, as CUDA reports it; the SM allocates at
   * least 16 */
  MsOccInput in = { .threads_per_block = block_size,
                    .registers_per_thread = ms_allocated_registers (attr.numRegs),
                    .static_shared = (int) attr.sharedSizeBytes,
                    .dynamic_shared = (int) MIN (dynamic_shared, (size_t) G_MAXINT),
                    .carveout_pct = -1 };
  MsOccupancy out;
  *blocks = ms_occupancy_compute (a, &in, &out, NULL) ? out.active_blocks : 0;
  return cudaSuccess;
}

cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessor (int *blocks, const void *func, int block_size,
                                               size_t dynamic_shared)
{
  MS_CUDA_LOCKED;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (blocks, func, block_size,
                                                                 dynamic_shared, 0);
}

cudaError_t
cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device)
{
  MS_CUDA_LOCKED;
  if (prop == NULL)
    return fail (cudaErrorInvalidValue);
  if (device != 0)
    return fail (cudaErrorInvalidDevice);
  MsCudaDevice d;
  ms_cuda_runtime_device (&d);
  memset (prop, 0, sizeof *prop);
  memcpy (prop->name, d.name, sizeof prop->name);
  prop->totalGlobalMem = d.total_global;
  prop->sharedMemPerBlock = d.shared_per_block;
  prop->sharedMemPerMultiprocessor = d.shared_per_sm;
  prop->sharedMemPerBlockOptin = d.shared_per_block_optin;
  prop->reservedSharedMemPerBlock = 1024;
  prop->totalConstMem = d.total_const;
  prop->memPitch = d.mem_pitch;
  prop->textureAlignment = d.texture_alignment;
  prop->texturePitchAlignment = 32;
  prop->regsPerBlock = d.regs_per_block;
  prop->regsPerMultiprocessor = d.regs_per_sm;
  prop->warpSize = d.warp_size;
  prop->maxThreadsPerBlock = d.max_threads_per_block;
  memcpy (prop->maxThreadsDim, d.max_threads_dim, sizeof prop->maxThreadsDim);
  memcpy (prop->maxGridSize, d.max_grid, sizeof prop->maxGridSize);
#if CUDART_VERSION < 13000
  prop->clockRate = d.clock_khz;
  prop->memoryClockRate = d.memory_clock_khz;
  prop->deviceOverlap = 1;
  prop->computeMode = cudaComputeModeDefault;
#endif
  prop->major = d.major;
  prop->minor = d.minor;
  prop->multiProcessorCount = d.sm_count;
  prop->memoryBusWidth = d.memory_bus_width;
  prop->l2CacheSize = d.l2_bytes;
  prop->persistingL2CacheMaxSize = d.l2_bytes / 4 * 3;
  prop->maxThreadsPerMultiProcessor = d.max_threads_per_sm;
  prop->maxBlocksPerMultiProcessor = d.max_blocks_per_sm;
  prop->concurrentKernels = 1;
  prop->asyncEngineCount = 1;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->canMapHostMemory = 1;
  prop->concurrentManagedAccess = 1;
  prop->pageableMemoryAccess = 0;
  prop->cooperativeLaunch = 1;
  prop->streamPrioritiesSupported = 1;
  prop->hostRegisterSupported = 1;
  prop->memoryPoolsSupported = 1;
  prop->globalL1CacheSupported = 1;
  prop->localL1CacheSupported = 1;
  return cudaSuccess;
}

#if CUDART_VERSION < 13000
/* CUDA 12's headers call it by this name */
cudaError_t cudaGetDeviceProperties_v2 (struct cudaDeviceProp *prop, int device)
  __asm__ ("memsim_cudaGetDeviceProperties_v2");
cudaError_t
cudaGetDeviceProperties_v2 (struct cudaDeviceProp *prop, int device)
{
  MS_CUDA_LOCKED;
  return cudaGetDeviceProperties (prop, device);
}
#endif

/* Rows of width bytes, each in its allocation's bounds (checked at its
 * first and last byte by cudaMemcpy). */
static cudaError_t
copy_2d (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
         enum cudaMemcpyKind kind, gboolean async)
{
  if (width > dpitch || width > spitch)
    return fail (cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; r++)
    {
      cudaError_t e = ms_cuda_copy_untimed ((char *) dst + r * dpitch, (const char *) src + r * spitch,
                                width, kind);
      if (e != cudaSuccess)
        return e;
    }
  ms_cuda_clock_copy (dst, src, width * height, 0, async);   /* one copy on the clock */
  return cudaSuccess;
}

cudaError_t
cudaMemcpy2D (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
              size_t height, enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  return copy_2d (dst, dpitch, src, spitch, width, height, kind, FALSE);
}

cudaError_t
cudaMemcpy2DAsync (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                   size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return copy_2d (dst, dpitch, src, spitch, width, height, kind, TRUE);
}

/* Rows padded to a multiple of 512 bytes (the H100's texturePitchAlignment
 * is 32, but cudaMallocPitch pads to 512 there). */
cudaError_t
cudaMallocPitch (void **ptr, size_t *pitch, size_t width, size_t height)
{
  MS_CUDA_LOCKED;
  if (pitch == NULL)
    return fail (cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  if (height > 0 && *pitch > G_MAXSIZE / height)
    return fail (cudaErrorMemoryAllocation);
  return allocate (ptr, *pitch * height, TRUE);
}

cudaError_t
cudaMemset2D (void *ptr, size_t pitch, int value, size_t width, size_t height)
{
  MS_CUDA_LOCKED;
  if (width > pitch)
    return fail (cudaErrorInvalidPitchValue);
  for (size_t r = 0; r < height; r++)
    {
      cudaError_t e = set_now ((char *) ptr + r * pitch, value, width);
      if (e != cudaSuccess)
        return e;
    }
  ms_cuda_clock_set (width * height);
  return cudaSuccess;
}

cudaError_t
cudaStreamWaitEvent (cudaStream_t stream, cudaEvent_t event, unsigned flags)
{
  MS_CUDA_LOCKED;
  ms_graph_capture_wait (stream, event);
  return cudaSuccess;
}

/* Pinned memory is device memory here: one address for both. */
cudaError_t
cudaHostGetDevicePointer (void **device, void *host, unsigned flags)
{
  MS_CUDA_LOCKED;
  if (device == NULL || allocation_of (host, 0) == NULL)
    return fail (cudaErrorInvalidValue);
  *device = host;
  return cudaSuccess;
}

cudaError_t
cudaDeviceGetLimit (size_t *value, enum cudaLimit limit)
{
  MS_CUDA_LOCKED;
  if (value == NULL)
    return fail (cudaErrorInvalidValue);
  switch (limit)
    {
    case cudaLimitStackSize: *value = 1024; break;
    case cudaLimitPrintfFifoSize: *value = 1 << 20; break;
    case cudaLimitMallocHeapSize: *value = malloc_heap_bytes; break;
    default: *value = 0; break;
    }
  return cudaSuccess;
}

cudaError_t
cudaDeviceSetLimit (enum cudaLimit limit, size_t value)
{
  MS_CUDA_LOCKED;
  /* the heap's size counts until the first launch makes it */
  if (limit == cudaLimitMallocHeapSize && rt.variables == NULL && value > 0)
    malloc_heap_bytes = value;
  return cudaSuccess;
}
/* ------------------------------------------------------------ host memory, pools, hints */

/* The program's own memory, registered: kernels may use it at its address
 * (pinned and mapped, as UVA makes it on a GPU). */
cudaError_t
cudaHostRegister (void *ptr, size_t size, unsigned flags)
{
  MS_CUDA_LOCKED;
  if (ptr == NULL || size == 0)
    return fail (cudaErrorInvalidValue);
  if (!rt.active)
    return fail (cudaErrorInitializationError);
  if (allocation_of (ptr, 0) != NULL || allocation_of ((guint8 *) ptr + size - 1, 0) != NULL)
    return fail (cudaErrorHostMemoryAlreadyRegistered);
  Allocation a = { ptr, size, 0, rt.n_allocations++, FALSE, TRUE };
  guint i = 0;
  while (i < rt.allocations->len && g_array_index (rt.allocations, Allocation, i).base < a.base)
    i++;
  g_array_insert_val (rt.allocations, i, a);
  ms_cuda_memory_written (ptr, size);
  return cudaSuccess;
}

cudaError_t
cudaHostUnregister (void *ptr)
{
  MS_CUDA_LOCKED;
  for (guint i = 0; rt.active && i < rt.allocations->len; i++)
    {
      Allocation *a = &g_array_index (rt.allocations, Allocation, i);
      if (a->base == ptr && a->registered)
        {
          ms_cuda_memory_written (a->base, a->bytes);
          g_array_remove_index (rt.allocations, i);
          return cudaSuccess;
        }
    }
  return fail (cudaErrorHostMemoryNotRegistered);
}

cudaError_t
cudaPointerGetAttributes (struct cudaPointerAttributes *attributes, const void *ptr)
{
  MS_CUDA_LOCKED;
  if (attributes == NULL)
    return fail (cudaErrorInvalidValue);
  memset (attributes, 0, sizeof *attributes);
  Allocation *a = allocation_of (ptr, 0);
  attributes->type = a == NULL ? cudaMemoryTypeUnregistered
                     : a->device ? cudaMemoryTypeDevice : cudaMemoryTypeHost;
  attributes->device = 0;
  attributes->devicePointer = a ? (void *) ptr : NULL;
  attributes->hostPointer = a == NULL || !a->device ? (void *) ptr : NULL;
  return cudaSuccess;
}

/* Stream-ordered allocation is allocation: everything is synchronous. */
cudaError_t
cudaMallocAsync (void **ptr, size_t size, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  if (ms_graph_capturing (stream))
    return ms_graph_capture_alloc (stream, ptr, size);
  return allocate (ptr, size, TRUE);
}

cudaError_t
cudaMallocFromPoolAsync (void **ptr, size_t size, cudaMemPool_t pool, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return allocate (ptr, size, TRUE);
}

cudaError_t
cudaFreeAsync (void *ptr, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  if (ms_graph_capturing (stream))
    return ms_graph_capture_free (stream, ptr);
  return release (ptr);
}

/* One pool, the device's default; its attributes are kept, not used. */
static struct {
  guint64 release_threshold;
  int reuse[3];
} pool;

cudaError_t
cudaDeviceGetDefaultMemPool (cudaMemPool_t *p, int device)
{
  MS_CUDA_LOCKED;
  if (p == NULL)
    return fail (cudaErrorInvalidValue);
  if (device != 0)
    return fail (cudaErrorInvalidDevice);
  *p = (cudaMemPool_t) &pool;
  return cudaSuccess;
}

cudaError_t
cudaDeviceGetMemPool (cudaMemPool_t *p, int device)
{
  MS_CUDA_LOCKED;
  return cudaDeviceGetDefaultMemPool (p, device);
}

cudaError_t
cudaMemPoolSetAttribute (cudaMemPool_t p, enum cudaMemPoolAttr attr, void *value)
{
  MS_CUDA_LOCKED;
  if (p != (cudaMemPool_t) &pool || value == NULL)
    return fail (cudaErrorInvalidValue);
  if (attr == cudaMemPoolAttrReleaseThreshold)
    pool.release_threshold = *(guint64 *) value;
  return cudaSuccess;
}

cudaError_t
cudaMemPoolGetAttribute (cudaMemPool_t p, enum cudaMemPoolAttr attr, void *value)
{
  MS_CUDA_LOCKED;
  if (p != (cudaMemPool_t) &pool || value == NULL)
    return fail (cudaErrorInvalidValue);
  switch (attr)
    {
    case cudaMemPoolAttrReleaseThreshold: *(guint64 *) value = pool.release_threshold; break;
    case cudaMemPoolAttrReservedMemCurrent: case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemCurrent: case cudaMemPoolAttrUsedMemHigh:
      *(guint64 *) value = rt.allocated;
      break;
    default: *(int *) value = 1; break;
    }
  return cudaSuccess;
}

cudaError_t
cudaMemPoolTrimTo (cudaMemPool_t p, size_t keep)
{
  MS_CUDA_LOCKED;
  return p == (cudaMemPool_t) &pool ? cudaSuccess : fail (cudaErrorInvalidValue);
}

/* Hints about where managed memory lives: one memory here. */
cudaError_t
cudaMemPrefetchAsync (const void *ptr, size_t count, struct cudaMemLocation location,
                      unsigned flags, cudaStream_t stream)
{
  MS_CUDA_LOCKED_QUEUEING;
  return allocation_of (ptr, count) ? cudaSuccess : fail (cudaErrorInvalidValue);
}

cudaError_t
cudaMemAdvise (const void *ptr, size_t count, enum cudaMemoryAdvise advice,
               struct cudaMemLocation location)
{
  MS_CUDA_LOCKED_QUEUEING;
  return allocation_of (ptr, count) ? cudaSuccess : fail (cudaErrorInvalidValue);
}

cudaError_t
cudaStreamAttachMemAsync (cudaStream_t stream, void *ptr, size_t length, unsigned flags)
{
  MS_CUDA_LOCKED_QUEUEING;
  return allocation_of (ptr, length) ? cudaSuccess : fail (cudaErrorInvalidValue);
}

cudaError_t
cudaCtxResetPersistingL2Cache (void)
{
  MS_CUDA_LOCKED;
  return cudaSuccess;
}

/* ------------------------------------------------------------ streams' extras */

/* Work on a stream is done when it is issued: a callback runs at once. */
cudaError_t
cudaStreamAddCallback (cudaStream_t stream, cudaStreamCallback_t callback, void *data,
                       unsigned flags)
{
  MS_CUDA_LOCKED;
  if (callback == NULL || flags != 0)
    return fail (cudaErrorInvalidValue);
  callback (stream, cudaSuccess, data);
  return cudaSuccess;
}

cudaError_t
cudaLaunchHostFunc (cudaStream_t stream, cudaHostFn_t fn, void *data)
{
  MS_CUDA_LOCKED;
  if (fn == NULL)
    return fail (cudaErrorInvalidValue);
  if (ms_graph_capturing (stream))
    return ms_graph_capture_host (stream, fn, data);
  fn (data);
  return cudaSuccess;
}

/* Priorities as a GPU of compute capability 7 and later has them: 0
 * (least) to -5 (greatest); kept, not modelled. */
#define LEAST_PRIORITY 0
#define GREATEST_PRIORITY (-5)

cudaError_t
cudaDeviceGetStreamPriorityRange (int *least, int *greatest)
{
  MS_CUDA_LOCKED;
  if (least)
    *least = LEAST_PRIORITY;
  if (greatest)
    *greatest = GREATEST_PRIORITY;
  return cudaSuccess;
}

cudaError_t
cudaStreamCreateWithPriority (cudaStream_t *stream, unsigned flags, int priority)
{
  MS_CUDA_LOCKED;
  if (flags & ~(unsigned) cudaStreamNonBlocking)
    return fail (cudaErrorInvalidValue);
  cudaError_t e = cudaStreamCreate (stream);
  if (e == cudaSuccess)
    {
      (*stream)->flags = flags;
      (*stream)->priority = CLAMP (priority, GREATEST_PRIORITY, LEAST_PRIORITY);
    }
  return e;
}

cudaError_t
cudaStreamGetPriority (cudaStream_t stream, int *priority)
{
  MS_CUDA_LOCKED;
  if (priority == NULL)
    return fail (cudaErrorInvalidValue);
  *priority = stream ? stream->priority : 0;
  return cudaSuccess;
}

cudaError_t
cudaStreamGetFlags (cudaStream_t stream, unsigned *flags)
{
  MS_CUDA_LOCKED;
  if (flags == NULL)
    return fail (cudaErrorInvalidValue);
  *flags = stream ? stream->flags : 0;
  return cudaSuccess;
}

/* Access policy windows (persisting L2 lines) are accepted, not modelled. */
cudaError_t
cudaStreamSetAttribute (cudaStream_t stream, cudaStreamAttrID attr,
                        const cudaStreamAttrValue *value)
{
  MS_CUDA_LOCKED;
  return value ? cudaSuccess : fail (cudaErrorInvalidValue);
}

cudaError_t
cudaStreamGetAttribute (cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value)
{
  MS_CUDA_LOCKED;
  if (value == NULL)
    return fail (cudaErrorInvalidValue);
  memset (value, 0, sizeof *value);
  return cudaSuccess;
}

cudaError_t
cudaEventRecordWithFlags (cudaEvent_t event, cudaStream_t stream, unsigned flags)
{
  MS_CUDA_LOCKED;
  return cudaEventRecord (event, stream);
}

/* A launch with attributes (thrust's and CUB's way): a cooperative one is
 * checked as cudaLaunchCooperativeKernel does; clusters of more than one
 * block are refused (not modelled); the others (priorities, access
 * policies) change nothing here. */
cudaError_t
cudaLaunchKernelExC (const cudaLaunchConfig_t *config, const void *func, void **args)
{
  MS_CUDA_LOCKED;
  if (config == NULL || (config->numAttrs > 0 && config->attrs == NULL))
    return fail (cudaErrorInvalidValue);
  for (unsigned i = 0; i < config->numAttrs; i++)
    {
      const cudaLaunchAttribute *a = &config->attrs[i];
      if (a->id == cudaLaunchAttributeCooperative && a->val.cooperative)
        return cudaLaunchCooperativeKernel (func, config->gridDim, config->blockDim, args,
                                            config->dynamicSmemBytes, config->stream);
      if (a->id == cudaLaunchAttributeClusterDimension
          && a->val.clusterDim.x * a->val.clusterDim.y * a->val.clusterDim.z > 1)
        return fail (cudaErrorNotSupported);
    }
  if (ms_graph_capturing (config->stream))
    return ms_graph_capture_kernel (config->stream, func, config->gridDim, config->blockDim, args,
                                    config->dynamicSmemBytes);
  return launch_ptx (func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                     FALSE);
}

/* ------------------------------------------------------------ device queries' extras */

cudaError_t
cudaGetDeviceFlags (unsigned *flags)
{
  MS_CUDA_LOCKED;
  if (flags == NULL)
    return fail (cudaErrorInvalidValue);
  *flags = cudaDeviceMapHost;
  return cudaSuccess;
}

cudaError_t
cudaDeviceGetCacheConfig (enum cudaFuncCache *config)
{
  MS_CUDA_LOCKED;
  if (config == NULL)
    return fail (cudaErrorInvalidValue);
  *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}

/* One device: no peers. */
cudaError_t
cudaDeviceCanAccessPeer (int *can, int device, int peer)
{
  MS_CUDA_LOCKED;
  if (can == NULL)
    return fail (cudaErrorInvalidValue);
  if (device != 0 || peer != 0)
    return fail (cudaErrorInvalidDevice);
  *can = 0;
  return cudaSuccess;
}

cudaError_t
cudaDeviceGetP2PAttribute (int *value, enum cudaDeviceP2PAttr attr, int src, int dst)
{
  MS_CUDA_LOCKED;
  if (value == NULL)
    return fail (cudaErrorInvalidValue);
  return fail (cudaErrorInvalidDevice);
}

cudaError_t
cudaFuncGetName (const char **name, const void *func)
{
  MS_CUDA_LOCKED;
  if (name == NULL)
    return fail (cudaErrorInvalidValue);
  const MsPtxKernel *k = ptx_kernel_of (func, name);
  return k ? cudaSuccess : fail (cudaErrorInvalidDeviceFunction);
}

/* The dynamic shared memory a block can have when numBlocks of them share
 * an SM (the occupancy model's shared memory, the kernel's static part
 * taken off). */
cudaError_t
cudaOccupancyAvailableDynamicSMemPerBlock (size_t *bytes, const void *func, int blocks,
                                           int block_size)
{
  MS_CUDA_LOCKED;
  struct cudaFuncAttributes fa;
  if (bytes == NULL || blocks <= 0 || block_size <= 0)
    return fail (cudaErrorInvalidValue);
  cudaError_t e = cudaFuncGetAttributes (&fa, func);
  if (e != cudaSuccess)
    return e;
  gsize per_sm = (gsize) arch_or (rt.arch ? rt.arch->shared_per_sm : 0, 233472);
  gsize optin = (gsize) arch_or (rt.arch ? rt.arch->shared_per_block_optin : 0, 232448);
  gsize reserved = (gsize) (rt.arch ? rt.arch->reserved_shared_per_block : 1024);
  gsize each = per_sm / (gsize) blocks;
  each = each > reserved ? each - reserved : 0;
  each = MIN (each, optin);
  *bytes = each > fa.sharedSizeBytes ? each - fa.sharedSizeBytes : 0;
  return cudaSuccess;
}

/* A cooperative launch: the blocks must fit on the device at once, as
 * CUDA checks. */
cudaError_t
cudaLaunchCooperativeKernel (const void *func, dim3 grid, dim3 block, void **args,
                             size_t shared, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  int per_sm = 0;
  cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (
    &per_sm, func, (int) (block.x * block.y * block.z), shared, 0);
  if (e != cudaSuccess)
    return e;
  int sms = arch_or (rt.arch ? rt.arch->sm_count : 0, 132);
  if ((guint64) grid.x * grid.y * grid.z > (guint64) per_sm * (guint64) sms)
    return fail (cudaErrorCooperativeLaunchTooLarge);
  if (ms_graph_capturing (stream))
    return ms_graph_capture_kernel (stream, func, grid, block, args, shared);
  return launch_ptx (func, grid, block, args, shared, TRUE);
}

#else   /* without CUDA's headers: no runtime; memsim run says so */

#include "cuda-runtime.h"

gboolean
ms_cuda_runtime_has_nvcc_abi (void)
{
  return FALSE;
}

int
ms_cuda_runtime_version (void)
{
  return 1;
}

void
ms_cuda_runtime_set_device_code (const MsDeviceCode *code)
{
  (void) code;
}

void
ms_cuda_runtime_begin (const MsArch *arch, MsProgramLaunchFn launch, gpointer launch_data)
{
  (void) arch, (void) launch, (void) launch_data;
}

void
ms_cuda_runtime_end (void)
{
}

gboolean
ms_cuda_runtime_failed (void)
{
  return FALSE;
}

guint
ms_cuda_runtime_launches (void)
{
  return 0;
}

#endif /* MS_CUDA_RUNTIME_API_H */
