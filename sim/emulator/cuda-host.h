/* cuda-host.h - CUDA's host API for users' files on the CPU.
 *
 * `memsim trace FILE.cu:KERNEL` runs one kernel and never the host code:
 * these functions are only declared (the build is loaded with lazy
 * binding), and `<<<...>>>` launches are blanked out before compiling
 * (traces/user/user-source.c).  `memsim run PROGRAM.cu` runs the host code:
 * memsim defines the functions (traces/user/cuda-runtime.c) and launches
 * become calls into it (MS_USER_PROGRAM, cuda-shim.h).  Included by
 * cuda-shim.h; plain C++, nothing of GLib.  A subset: what programs
 * commonly call, with CUDA's names and numbers.  The C part (types and
 * functions) is also what cuda-runtime.c implements.
 */
#ifndef MEMSIM_CUDA_HOST_H
#define MEMSIM_CUDA_HOST_H

#include <stddef.h>
#include <string.h>

/* What CUDA's own headers define, so that code testing for them (the CUDA
 * samples' helper_cuda.h) sees a CUDA runtime. */
#define __CUDA_RUNTIME_H__
#define __DRIVER_TYPES_H__
#define __CUDA_RUNTIME_API_H__
#define CUDART_VERSION 13000
#define __CUDACC_VER_MAJOR__ 13

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInitializationError = 3,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorInvalidPitchValue = 12,
  cudaErrorInvalidSymbol = 13,
  cudaErrorInvalidDevicePointer = 17,
  cudaErrorInvalidMemcpyDirection = 21,
  cudaErrorInvalidDeviceFunction = 98,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorInvalidResourceHandle = 400,
  cudaErrorNotReady = 600,
  cudaErrorIllegalAddress = 700,
  cudaErrorLaunchOutOfResources = 701,
  cudaErrorAssert = 710,
  cudaErrorLaunchFailure = 719,
  cudaErrorNotSupported = 801,
  cudaErrorUnknown = 999,
} cudaError_t;

enum cudaDeviceAttr {
  cudaDevAttrMaxThreadsPerBlock = 1,
  cudaDevAttrMaxBlockDimX = 2,
  cudaDevAttrMaxBlockDimY = 3,
  cudaDevAttrMaxBlockDimZ = 4,
  cudaDevAttrMaxGridDimX = 5,
  cudaDevAttrMaxGridDimY = 6,
  cudaDevAttrMaxGridDimZ = 7,
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrTotalConstantMemory = 9,
  cudaDevAttrWarpSize = 10,
  cudaDevAttrMaxPitch = 11,
  cudaDevAttrMaxRegistersPerBlock = 12,
  cudaDevAttrClockRate = 13,
  cudaDevAttrTextureAlignment = 14,
  cudaDevAttrGpuOverlap = 15,
  cudaDevAttrMultiProcessorCount = 16,
  cudaDevAttrKernelExecTimeout = 17,
  cudaDevAttrIntegrated = 18,
  cudaDevAttrCanMapHostMemory = 19,
  cudaDevAttrComputeMode = 20,
  cudaDevAttrConcurrentKernels = 31,
  cudaDevAttrEccEnabled = 32,
  cudaDevAttrPciBusId = 33,
  cudaDevAttrPciDeviceId = 34,
  cudaDevAttrMemoryClockRate = 36,
  cudaDevAttrGlobalMemoryBusWidth = 37,
  cudaDevAttrL2CacheSize = 38,
  cudaDevAttrMaxThreadsPerMultiProcessor = 39,
  cudaDevAttrAsyncEngineCount = 40,
  cudaDevAttrUnifiedAddressing = 41,
  cudaDevAttrComputeCapabilityMajor = 75,
  cudaDevAttrComputeCapabilityMinor = 76,
  cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
  cudaDevAttrMaxRegistersPerMultiprocessor = 82,
  cudaDevAttrManagedMemory = 83,
  cudaDevAttrCooperativeLaunch = 95,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
  cudaDevAttrMaxBlocksPerMultiprocessor = 106,
};

enum cudaComputeMode {
  cudaComputeModeDefault = 0,
  cudaComputeModeExclusive = 1,
  cudaComputeModeProhibited = 2,
  cudaComputeModeExclusiveProcess = 3,
};

enum cudaFuncCache {
  cudaFuncCachePreferNone = 0,
  cudaFuncCachePreferShared = 1,
  cudaFuncCachePreferL1 = 2,
  cudaFuncCachePreferEqual = 3,
};

enum cudaFuncAttribute {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
};

enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

typedef struct CUevent_st *cudaEvent_t;
typedef struct CUstream_st *cudaStream_t;

struct cudaDeviceProp {
  char name[256];
  size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerMultiprocessor, sharedMemPerBlockOptin;
  size_t totalConstMem, memPitch, textureAlignment;
  int regsPerBlock, regsPerMultiprocessor, warpSize, maxThreadsPerBlock, maxThreadsDim[3];
  int maxGridSize[3], clockRate, major, minor, multiProcessorCount, memoryClockRate;
  int memoryBusWidth, l2CacheSize, maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor;
  int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, integrated, canMapHostMemory;
  int computeMode, asyncEngineCount, unifiedAddressing, managedMemory, deviceOverlap;
};

#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaHostAllocDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceMapHost 0x08

/* The symbols are memsim's (memsim_cudaMalloc, ...), not CUDA's: memsim's
 * own GPU back-end calls the real CUDA runtime from the same process, and
 * the program's calls must reach the CPU runtime (traces/user/
 * cuda-runtime.c), never the GPU's, nor the other way round. */
#define MS_CUDA_SYMBOL(name) __asm__ ("memsim_" #name)
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t cudaMalloc (void **ptr, size_t bytes) MS_CUDA_SYMBOL (cudaMalloc);
cudaError_t cudaMallocManaged (void **ptr, size_t bytes, unsigned flags) MS_CUDA_SYMBOL (cudaMallocManaged);
cudaError_t cudaMallocHost (void **ptr, size_t bytes) MS_CUDA_SYMBOL (cudaMallocHost);
cudaError_t cudaHostAlloc (void **ptr, size_t bytes, unsigned flags) MS_CUDA_SYMBOL (cudaHostAlloc);
cudaError_t cudaFree (void *ptr) MS_CUDA_SYMBOL (cudaFree);
cudaError_t cudaFreeHost (void *ptr) MS_CUDA_SYMBOL (cudaFreeHost);
cudaError_t cudaMemcpy (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind) MS_CUDA_SYMBOL (cudaMemcpy);
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t bytes,
                             enum cudaMemcpyKind kind, cudaStream_t stream) MS_CUDA_SYMBOL (cudaMemcpyAsync);
cudaError_t cudaMemset (void *ptr, int value, size_t bytes) MS_CUDA_SYMBOL (cudaMemset);
cudaError_t cudaMemsetAsync (void *ptr, int value, size_t bytes, cudaStream_t stream) MS_CUDA_SYMBOL (cudaMemsetAsync);
cudaError_t cudaDeviceSynchronize (void) MS_CUDA_SYMBOL (cudaDeviceSynchronize);
cudaError_t cudaDeviceReset (void) MS_CUDA_SYMBOL (cudaDeviceReset);
cudaError_t cudaThreadSynchronize (void) MS_CUDA_SYMBOL (cudaThreadSynchronize);
cudaError_t cudaGetLastError (void) MS_CUDA_SYMBOL (cudaGetLastError);
cudaError_t cudaPeekAtLastError (void) MS_CUDA_SYMBOL (cudaPeekAtLastError);
const char *cudaGetErrorString (cudaError_t error) MS_CUDA_SYMBOL (cudaGetErrorString);
const char *cudaGetErrorName (cudaError_t error) MS_CUDA_SYMBOL (cudaGetErrorName);
cudaError_t cudaSetDevice (int device) MS_CUDA_SYMBOL (cudaSetDevice);
cudaError_t cudaGetDevice (int *device) MS_CUDA_SYMBOL (cudaGetDevice);
cudaError_t cudaGetDeviceCount (int *count) MS_CUDA_SYMBOL (cudaGetDeviceCount);
/* its own symbol: the layout is the subset's, not CUDA's (cuda-runtime-subset.c) */
cudaError_t cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device) MS_CUDA_SYMBOL (cudaGetDeviceProperties_subset);
cudaError_t cudaEventCreate (cudaEvent_t *event) MS_CUDA_SYMBOL (cudaEventCreate);
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *event, unsigned flags) MS_CUDA_SYMBOL (cudaEventCreateWithFlags);
cudaError_t cudaEventRecord (cudaEvent_t event, cudaStream_t stream) MS_CUDA_SYMBOL (cudaEventRecord);
cudaError_t cudaEventSynchronize (cudaEvent_t event) MS_CUDA_SYMBOL (cudaEventSynchronize);
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end) MS_CUDA_SYMBOL (cudaEventElapsedTime);
cudaError_t cudaEventDestroy (cudaEvent_t event) MS_CUDA_SYMBOL (cudaEventDestroy);
cudaError_t cudaStreamCreate (cudaStream_t *stream) MS_CUDA_SYMBOL (cudaStreamCreate);
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *stream, unsigned flags) MS_CUDA_SYMBOL (cudaStreamCreateWithFlags);
cudaError_t cudaStreamSynchronize (cudaStream_t stream) MS_CUDA_SYMBOL (cudaStreamSynchronize);
cudaError_t cudaStreamDestroy (cudaStream_t stream) MS_CUDA_SYMBOL (cudaStreamDestroy);
cudaError_t cudaFuncSetAttribute (const void *func, int attr, int value) MS_CUDA_SYMBOL (cudaFuncSetAttribute);
cudaError_t cudaDeviceGetAttribute (int *value, enum cudaDeviceAttr attr, int device) MS_CUDA_SYMBOL (cudaDeviceGetAttribute);
cudaError_t cudaDeviceSetCacheConfig (enum cudaFuncCache config) MS_CUDA_SYMBOL (cudaDeviceSetCacheConfig);
cudaError_t cudaSetDeviceFlags (unsigned flags) MS_CUDA_SYMBOL (cudaSetDeviceFlags);
cudaError_t cudaMemGetInfo (size_t *free_bytes, size_t *total_bytes) MS_CUDA_SYMBOL (cudaMemGetInfo);
cudaError_t cudaDriverGetVersion (int *version) MS_CUDA_SYMBOL (cudaDriverGetVersion);
cudaError_t cudaRuntimeGetVersion (int *version) MS_CUDA_SYMBOL (cudaRuntimeGetVersion);
cudaError_t cudaEventQuery (cudaEvent_t event) MS_CUDA_SYMBOL (cudaEventQuery);
cudaError_t cudaStreamQuery (cudaStream_t stream) MS_CUDA_SYMBOL (cudaStreamQuery);
cudaError_t cudaProfilerStart (void) MS_CUDA_SYMBOL (cudaProfilerStart);
cudaError_t cudaProfilerStop (void) MS_CUDA_SYMBOL (cudaProfilerStop);
#ifdef __cplusplus
}

/* Constant and device symbols are ordinary variables on the CPU. */
template <typename T>
static inline cudaError_t
cudaMemcpyToSymbol (T &symbol, const void *src, size_t bytes, size_t offset = 0,
                    enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
  if (offset + bytes > sizeof symbol)
    return cudaErrorInvalidValue;
  memcpy ((char *) &symbol + offset, src, bytes);
  return cudaSuccess;
}
template <typename T>
static inline cudaError_t
cudaMemcpyFromSymbol (void *dst, const T &symbol, size_t bytes, size_t offset = 0,
                      enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
  if (offset + bytes > sizeof symbol)
    return cudaErrorInvalidValue;
  memcpy (dst, (const char *) &symbol + offset, bytes);
  return cudaSuccess;
}
template <typename F>
static inline cudaError_t
cudaFuncSetCacheConfig (F *func, enum cudaFuncCache config)
{
  return cudaSuccess;
}
template <typename F>
static inline cudaError_t
cudaFuncSetAttribute (F *func, enum cudaFuncAttribute attr, int value)
{
  return cudaFuncSetAttribute ((const void *) func, (int) attr, value);
}

/* C++ conveniences of cuda_runtime.h */
template <typename T>
static inline cudaError_t
cudaMalloc (T **ptr, size_t bytes)
{
  return cudaMalloc ((void **) ptr, bytes);
}
template <typename T>
static inline cudaError_t
cudaMallocManaged (T **ptr, size_t bytes, unsigned flags = cudaMemAttachGlobal)
{
  return cudaMallocManaged ((void **) ptr, bytes, flags);
}
template <typename T>
static inline cudaError_t
cudaMallocHost (T **ptr, size_t bytes)
{
  return cudaMallocHost ((void **) ptr, bytes);
}
static inline cudaError_t
cudaEventRecord (cudaEvent_t event)
{
  return cudaEventRecord (event, (cudaStream_t) 0);
}

#endif /* __cplusplus */

#endif /* MEMSIM_CUDA_HOST_H */
