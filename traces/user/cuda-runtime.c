/* cuda-runtime.c - CUDA's runtime API on the CPU for users' programs (see
 * cuda-runtime.h; the declarations the program sees: sim/emulator/cuda-host.h).
 *
 * Modelling assumptions, where the CPU has to stand in for the device:
 *   - one device, the preset's: its properties are the arch's (clock, SMs,
 *     shared memory, registers, L2; memoryBusWidth is a nominal 5120 bits,
 *     memoryClockRate the one that gives the preset's DRAM bandwidth);
 *     totalGlobalMem is what this machine can give (80% of its memory);
 *   - device memory is host memory with guard pages on both sides (an
 *     access just outside an allocation is out of bounds, not another
 *     allocation's data); pinned and managed memory are the same;
 *   - everything is synchronous: streams run in order, async copies copy at
 *     once, events complete when recorded;
 *   - time, as events see it, is the GPU's predicted time: each launch
 *     advances the clock by the time model's prediction for it (untraced
 *     launches: the last traced launch of the kernel with the same grid and
 *     block); copies take no time.  So a program's own GB/s figures are the
 *     prediction's;
 *   - errors are CUDA's: a bad launch configuration sets cudaGetLastError's
 *     error and the kernel does not run; a kernel that fails (out of
 *     bounds, race, deadlock) ends the program, with memsim's one-line
 *     error, where a GPU would report a sticky error at the next call.
 */
#include "config.h"
#include "cuda-runtime.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cuda-host.h"

#define GUARD_BYTES ((gsize) 1 << 20)   /* as users' kernels' buffers (user-kernel.c) */
#define ALIGN_BYTES 256                 /* cudaMalloc's alignment */

typedef struct {
  guint8 *base;
  gsize bytes;
  gsize map_bytes;     /* the mapping, guards included */
  guint number;        /* the program's allocations before it */
  gboolean device;     /* cudaMalloc / cudaMallocManaged, not pinned host memory */
} Allocation;

struct CUevent_st {
  double ms;
  gboolean recorded;
};

struct CUstream_st {
  int unused;
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
  MsProgramKernelFn kernel_at;
  gpointer kernel_data;
  MsProgramLaunchFn launch;
  gpointer launch_data;
  GArray *allocations;      /* of Allocation, by address */
  guint n_allocations;
  guint64 allocated;
  cudaError_t last_error;
  double clock_ms;
  guint launches;
  gboolean failed;
  GHashTable *kernel_launches;   /* MsKernel -> launches so far */
  GArray *known_times;           /* of KnownTime */
  GHashTable *handles;           /* the program's events and streams (owned) */
  /* the launch in flight: what every CUDA thread of it runs */
  void (*thunk) (const void *);
  const void *closure;
} rt;

void
ms_cuda_runtime_begin (const MsArch *arch, MsProgramKernelFn kernel_at, gpointer kernel_data,
                       MsProgramLaunchFn launch, gpointer launch_data)
{
  memset (&rt, 0, sizeof rt);
  rt.active = TRUE;
  rt.arch = arch;
  rt.kernel_at = kernel_at;
  rt.kernel_data = kernel_data;
  rt.launch = launch;
  rt.launch_data = launch_data;
  rt.allocations = g_array_new (FALSE, FALSE, sizeof (Allocation));
  rt.kernel_launches = g_hash_table_new (NULL, NULL);
  rt.known_times = g_array_new (FALSE, FALSE, sizeof (KnownTime));
  rt.handles = g_hash_table_new_full (NULL, NULL, g_free, NULL);
}

void
ms_cuda_runtime_end (void)
{
  if (!rt.active)
    return;
  for (guint i = 0; i < rt.allocations->len; i++)
    {
      Allocation *a = &g_array_index (rt.allocations, Allocation, i);
      munmap (a->base - GUARD_BYTES, a->map_bytes);
    }
  g_array_free (rt.allocations, TRUE);
  g_hash_table_destroy (rt.kernel_launches);
  g_array_free (rt.known_times, TRUE);
  g_hash_table_destroy (rt.handles);   /* what the program did not destroy, as CUDA at exit */
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
          gsize page = (gsize) sysconf (_SC_PAGESIZE);
          rt.allocated -= (a->bytes + page - 1) / page * page;
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
  return allocate (ptr, bytes, TRUE);
}

cudaError_t
cudaMallocManaged (void **ptr, size_t bytes, unsigned flags)
{
  return allocate (ptr, bytes, TRUE);
}

cudaError_t
cudaMallocHost (void **ptr, size_t bytes)
{
  return allocate (ptr, bytes, FALSE);
}

cudaError_t
cudaHostAlloc (void **ptr, size_t bytes, unsigned flags)
{
  return allocate (ptr, bytes, FALSE);
}

cudaError_t
cudaFree (void *ptr)
{
  return release (ptr);
}

cudaError_t
cudaFreeHost (void *ptr)
{
  return release (ptr);
}

cudaError_t
cudaMemcpy (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
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
  return cudaSuccess;
}

cudaError_t
cudaMemcpyAsync (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                 cudaStream_t stream)
{
  return cudaMemcpy (dst, src, bytes, kind);
}

cudaError_t
cudaMemset (void *ptr, int value, size_t bytes)
{
  if (bytes == 0)
    return cudaSuccess;
  Allocation *a = allocation_of (ptr, bytes);
  if (a == NULL || !a->device)
    return fail (cudaErrorInvalidValue);
  memset (ptr, value, bytes);
  return cudaSuccess;
}

cudaError_t
cudaMemsetAsync (void *ptr, int value, size_t bytes, cudaStream_t stream)
{
  return cudaMemset (ptr, value, bytes);
}

cudaError_t
cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
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
  return cudaSuccess;
}

cudaError_t
cudaThreadSynchronize (void)
{
  return cudaSuccess;
}

cudaError_t
cudaDeviceReset (void)
{
  return cudaSuccess;
}

cudaError_t
cudaSetDevice (int device)
{
  return device == 0 ? cudaSuccess : fail (cudaErrorInvalidDevice);
}

cudaError_t
cudaGetDevice (int *device)
{
  if (device == NULL)
    return fail (cudaErrorInvalidValue);
  *device = 0;
  return cudaSuccess;
}

cudaError_t
cudaGetDeviceCount (int *count)
{
  if (count == NULL)
    return fail (cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t
cudaSetDeviceFlags (unsigned flags)
{
  return cudaSuccess;
}

cudaError_t
cudaDeviceSetCacheConfig (enum cudaFuncCache config)
{
  return cudaSuccess;
}

cudaError_t
cudaFuncSetAttribute (const void *func, int attr, int value)
{
  return cudaSuccess;
}

cudaError_t
cudaDriverGetVersion (int *version)
{
  if (version)
    *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t
cudaRuntimeGetVersion (int *version)
{
  return cudaDriverGetVersion (version);
}

cudaError_t
cudaProfilerStart (void)
{
  return cudaSuccess;
}

cudaError_t
cudaProfilerStop (void)
{
  return cudaSuccess;
}

/* The preset's figures, or an H100's where the preset has no cost figures
 * (the cc 1.x presets). */
static int
arch_or (int value, int h100)
{
  return rt.arch != NULL && rt.arch->has_costs && value > 0 ? value : h100;
}

cudaError_t
cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device)
{
  if (prop == NULL)
    return fail (cudaErrorInvalidValue);
  if (device != 0)
    return fail (cudaErrorInvalidDevice);
  const MsArch *a = rt.arch ? rt.arch : ms_arch_default ();
  memset (prop, 0, sizeof *prop);
  g_snprintf (prop->name, sizeof prop->name, "%s, simulated by memsim", a->description);
  prop->totalGlobalMem = memory_limit ();
  prop->sharedMemPerBlock = (size_t) arch_or (a->shared_per_block, 48 * 1024);
  prop->sharedMemPerMultiprocessor = (size_t) arch_or (a->shared_per_sm, 228 * 1024);
  prop->sharedMemPerBlockOptin = (size_t) arch_or (a->shared_per_block_optin, 227 * 1024);
  prop->totalConstMem = 64 * 1024;
  prop->memPitch = G_MAXINT32;
  prop->textureAlignment = 512;
  prop->regsPerBlock = arch_or (a->max_registers_per_block, 65536);
  prop->regsPerMultiprocessor = arch_or (a->registers_per_sm, 65536);
  prop->warpSize = a->warp_size;
  prop->maxThreadsPerBlock = arch_or (a->max_threads_per_block, 1024);
  prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = prop->maxThreadsPerBlock;
  prop->maxThreadsDim[2] = 64;
  prop->maxGridSize[0] = G_MAXINT32;
  prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
  prop->clockRate = arch_or (a->clock_mhz, 1755) * 1000;
  prop->major = a->compute_capability / 10;
  prop->minor = a->compute_capability % 10;
  prop->multiProcessorCount = arch_or (a->sm_count, 132);
  prop->memoryBusWidth = 5120;
  /* 2 transfers a clock over memoryBusWidth bits = the preset's bandwidth */
  double gbs = a->has_costs && a->dram_gbs > 0 ? a->dram_gbs : 3350.0;
  prop->memoryClockRate = (int) (gbs * 1e9 / (2.0 * prop->memoryBusWidth / 8) / 1e3);
  prop->l2CacheSize = arch_or (a->l2_bytes, 50 * 1024 * 1024);
  prop->maxThreadsPerMultiProcessor = arch_or (a->max_threads_per_sm, 2048);
  prop->maxBlocksPerMultiProcessor = arch_or (a->max_blocks_per_sm, 32);
  prop->concurrentKernels = 1;
  prop->asyncEngineCount = 1;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->canMapHostMemory = 1;
  prop->deviceOverlap = 1;
  prop->computeMode = cudaComputeModeDefault;
  return cudaSuccess;
}

cudaError_t
cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int device)
{
  struct cudaDeviceProp p;
  if (value == NULL)
    return fail (cudaErrorInvalidValue);
  cudaError_t e = cudaGetDeviceProperties (&p, device);
  if (e != cudaSuccess)
    return e;
  switch (attr)
    {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = (int) p.sharedMemPerBlock; break;
    case cudaDevAttrTotalConstantMemory: *value = (int) p.totalConstMem; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxPitch: *value = (int) p.memPitch; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrTextureAlignment: *value = (int) p.textureAlignment; break;
    case cudaDevAttrGpuOverlap: *value = p.deviceOverlap; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = p.computeMode; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: *value = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: *value = p.pciDeviceID; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      *value = (int) p.sharedMemPerMultiprocessor; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrCooperativeLaunch: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int) p.sharedMemPerBlockOptin; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    default: return fail (cudaErrorInvalidValue);
    }
  return cudaSuccess;
}

/* ------------------------------------------------------------ errors */

cudaError_t
cudaGetLastError (void)
{
  cudaError_t e = rt.last_error;
  rt.last_error = cudaSuccess;
  return e;
}

cudaError_t
cudaPeekAtLastError (void)
{
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
  if (event == NULL)
    return fail (cudaErrorInvalidValue);
  *event = handle_new (sizeof (struct CUevent_st));
  return cudaSuccess;
}

cudaError_t
cudaEventCreateWithFlags (cudaEvent_t *event, unsigned flags)
{
  return cudaEventCreate (event);
}

cudaError_t
cudaEventRecord (cudaEvent_t event, cudaStream_t stream)
{
  if (event == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  event->ms = rt.clock_ms;
  event->recorded = TRUE;
  return cudaSuccess;
}

cudaError_t
cudaEventSynchronize (cudaEvent_t event)
{
  return event ? cudaSuccess : fail (cudaErrorInvalidResourceHandle);
}

cudaError_t
cudaEventQuery (cudaEvent_t event)
{
  return event ? cudaSuccess : fail (cudaErrorInvalidResourceHandle);
}

cudaError_t
cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end)
{
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
  return handle_destroy (event);
}

cudaError_t
cudaStreamCreate (cudaStream_t *stream)
{
  if (stream == NULL)
    return fail (cudaErrorInvalidValue);
  *stream = handle_new (sizeof (struct CUstream_st));
  return cudaSuccess;
}

cudaError_t
cudaStreamCreateWithFlags (cudaStream_t *stream, unsigned flags)
{
  return cudaStreamCreate (stream);
}

cudaError_t
cudaStreamSynchronize (cudaStream_t stream)
{
  return cudaSuccess;
}

cudaError_t
cudaStreamQuery (cudaStream_t stream)
{
  return cudaSuccess;
}

cudaError_t
cudaStreamDestroy (cudaStream_t stream)
{
  return handle_destroy (stream);
}

/* ------------------------------------------------------------ launches */

void
ms_cuda_runtime_entry (const MsLaunchArgs *L)
{
  rt.thunk (rt.closure);
}

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

/* A warning about a launch that does not run, on stderr: the program
 * learns of it through cudaGetLastError, as on a GPU. */
static void
refuse (const char *kernel, const char *why, cudaError_t e)
{
  g_printerr ("memsim: launch %u (%s): %s; not run (cudaGetLastError: %s)\n", rt.launches + 1,
              kernel, why, cudaGetErrorName (e));
  rt.last_error = e;
}

void ms_program_launch_ (const void *kernel, const char *kinds, const unsigned grid[3],
                         const unsigned block[3], size_t shared, cudaStream_t stream,
                         void (*thunk) (const void *), const void *closure,
                         const void *const *pointers, const long long *ints,
                         const double *floats);

void
ms_program_launch_ (const void *kernel, const char *kinds, const unsigned grid[3],
                    const unsigned block[3], size_t shared, cudaStream_t stream,
                    void (*thunk) (const void *), const void *closure,
                    const void *const *pointers, const long long *ints, const double *floats)
{
  if (!rt.active)
    return;
  const char *names[MS_MAX_ARGS + 1] = { 0 };
  g_autoptr (GError) error = NULL;
  const MsKernel *k = rt.kernel_at (rt.kernel_data, kernel, kinds, names, &error);
  if (k == NULL)
    {
      refuse ("?", error->message, cudaErrorInvalidDeviceFunction);
      return;
    }
  MsProgramLaunch L = { .kernel = k, .index = rt.launches, .guard_bytes = GUARD_BYTES,
                        .dynamic_shared = (guint) shared };
  for (int i = 0; kinds[i] && i < MS_MAX_ARGS; i++)
    {
      L.kinds[i] = kinds[i];
      L.param_names[i] = names[i];
      L.args.i[i] = ints[i];
      L.args.f[i] = floats[i];
    }
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
   * after the parameters, then the other allocations, while there is room */
  char buffer_names[MS_MAX_BUFFERS][96];
  const Allocation *chosen[MS_MAX_BUFFERS];
  for (int i = 0; kinds[i]; i++)
    {
      if (kinds[i] != 'p' || pointers[i] == NULL)
        continue;
      const Allocation *a = allocation_of (pointers[i], 0);
      if (a == NULL)
        {
          g_printerr ("memsim: launch %u (%s): parameter %s is %p, which is no device memory "
                      "(a GPU would fault): pass memory from cudaMalloc\n", rt.launches + 1,
                      k->name, names[i] ? names[i] : "?", pointers[i]);
          rt.failed = TRUE;
          exit (1);
        }
      gboolean seen = FALSE;
      for (guint b = 0; b < L.n_buffers; b++)
        seen |= chosen[b] == a;
      if (seen || L.n_buffers == MS_MAX_BUFFERS)
        continue;
      g_snprintf (buffer_names[L.n_buffers], sizeof buffer_names[0], "%s",
                  names[i] ? names[i] : "?");
      chosen[L.n_buffers++] = a;
    }
  for (guint i = 0; i < rt.allocations->len && L.n_buffers < MS_MAX_BUFFERS; i++)
    {
      const Allocation *a = &g_array_index (rt.allocations, Allocation, i);
      gboolean seen = FALSE;
      for (guint b = 0; b < L.n_buffers; b++)
        seen |= chosen[b] == a;
      if (seen)
        continue;
      g_snprintf (buffer_names[L.n_buffers], sizeof buffer_names[0], "allocation %u",
                  a->number + 1);
      chosen[L.n_buffers++] = a;
    }
  for (guint b = 0; b < L.n_buffers; b++)
    {
      L.args.buf[b] = chosen[b]->base;
      L.buffer_bytes[b] = chosen[b]->bytes;
      L.buffer_names[b] = buffer_names[b];
    }
  L.kernel_index = GPOINTER_TO_UINT (g_hash_table_lookup (rt.kernel_launches, k));
  g_hash_table_insert (rt.kernel_launches, (gpointer) k, GUINT_TO_POINTER (L.kernel_index + 1));

  rt.thunk = thunk;
  rt.closure = closure;
  double seconds = -1;
  gboolean ok = rt.launch (rt.launch_data, &L, &seconds);
  rt.thunk = NULL;
  rt.closure = NULL;
  rt.launches++;
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
    seconds = t ? t->seconds : 0;
  rt.clock_ms += seconds * 1e3;
}
