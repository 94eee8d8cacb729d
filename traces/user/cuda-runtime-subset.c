/* cuda-runtime-subset.c - what the g++ build of a program (memsim's CUDA
 * subset, sim/emulator/cuda-host.h) calls with a layout of its own:
 * cudaDeviceProp.  cuda-runtime.c answers the rest for both builds. */
#include "config.h"
#include "cuda-runtime.h"

#include "cuda-host.h"

int
ms_cuda_runtime_subset_version (void)
{
  return 1;
}

cudaError_t
cudaGetDeviceProperties (struct cudaDeviceProp *prop, int device)
{
  if (prop == NULL)
    return cudaErrorInvalidValue;
  if (device != 0)
    return cudaErrorInvalidDevice;
  MsCudaDevice d;
  ms_cuda_runtime_device (&d);
  memset (prop, 0, sizeof *prop);
  memcpy (prop->name, d.name, sizeof prop->name);
  prop->totalGlobalMem = d.total_global;
  prop->sharedMemPerBlock = d.shared_per_block;
  prop->sharedMemPerMultiprocessor = d.shared_per_sm;
  prop->sharedMemPerBlockOptin = d.shared_per_block_optin;
  prop->totalConstMem = d.total_const;
  prop->memPitch = d.mem_pitch;
  prop->textureAlignment = d.texture_alignment;
  prop->regsPerBlock = d.regs_per_block;
  prop->regsPerMultiprocessor = d.regs_per_sm;
  prop->warpSize = d.warp_size;
  prop->maxThreadsPerBlock = d.max_threads_per_block;
  memcpy (prop->maxThreadsDim, d.max_threads_dim, sizeof prop->maxThreadsDim);
  memcpy (prop->maxGridSize, d.max_grid, sizeof prop->maxGridSize);
  prop->clockRate = d.clock_khz;
  prop->major = d.major;
  prop->minor = d.minor;
  prop->multiProcessorCount = d.sm_count;
  prop->memoryBusWidth = d.memory_bus_width;
  prop->memoryClockRate = d.memory_clock_khz;
  prop->l2CacheSize = d.l2_bytes;
  prop->maxThreadsPerMultiProcessor = d.max_threads_per_sm;
  prop->maxBlocksPerMultiProcessor = d.max_blocks_per_sm;
  prop->concurrentKernels = 1;
  prop->asyncEngineCount = 1;
  prop->unifiedAddressing = 1;
  prop->managedMemory = 1;
  prop->canMapHostMemory = 1;
  prop->deviceOverlap = 1;
  return cudaSuccess;
}
