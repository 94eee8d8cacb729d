/* cuda-host.h - declarations of CUDA's host API, so that a user's whole
 * program file (kernels and main) compiles for `memsim trace FILE.cu:KERNEL`.
 *
 * memsim trace runs one kernel and never the host code: these functions are
 * only declared (the build is loaded with lazy binding, so nothing asks for
 * their definitions), and `<<<...>>>` launches are blanked out before
 * compiling (traces/user/user-source.c).  Included by cuda-shim.h; plain
 * C++, nothing of GLib.  A subset: what kernels' host code commonly calls.
 */
#ifndef MEMSIM_CUDA_HOST_H
#define MEMSIM_CUDA_HOST_H

#include <stddef.h>

typedef enum cudaError {
  cudaSuccess = 0,
  cudaErrorInvalidValue = 1,
  cudaErrorMemoryAllocation = 2,
  cudaErrorInvalidConfiguration = 9,
  cudaErrorNoDevice = 100,
  cudaErrorInvalidDevice = 101,
  cudaErrorUnknown = 999,
} cudaError_t;

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

extern "C" {
cudaError_t cudaMalloc (void **ptr, size_t bytes);
cudaError_t cudaMallocManaged (void **ptr, size_t bytes, unsigned flags);
cudaError_t cudaMallocHost (void **ptr, size_t bytes);
cudaError_t cudaHostAlloc (void **ptr, size_t bytes, unsigned flags);
cudaError_t cudaFree (void *ptr);
cudaError_t cudaFreeHost (void *ptr);
cudaError_t cudaMemcpy (void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync (void *dst, const void *src, size_t bytes,
                             enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset (void *ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync (void *ptr, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaDeviceSynchronize (void);
cudaError_t cudaDeviceReset (void);
cudaError_t cudaThreadSynchronize (void);
cudaError_t cudaGetLastError (void);
cudaError_t cudaPeekAtLastError (void);
const char *cudaGetErrorString (cudaError_t error);
const char *cudaGetErrorName (cudaError_t error);
cudaError_t cudaSetDevice (int device);
cudaError_t cudaGetDevice (int *device);
cudaError_t cudaGetDeviceCount (int *count);
cudaError_t cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device);
cudaError_t cudaEventCreate (cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *event, unsigned flags);
cudaError_t cudaEventRecord (cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize (cudaEvent_t event);
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy (cudaEvent_t event);
cudaError_t cudaStreamCreate (cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *stream, unsigned flags);
cudaError_t cudaStreamSynchronize (cudaStream_t stream);
cudaError_t cudaStreamDestroy (cudaStream_t stream);
cudaError_t cudaFuncSetAttribute (const void *func, int attr, int value);
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

#endif /* MEMSIM_CUDA_HOST_H */
