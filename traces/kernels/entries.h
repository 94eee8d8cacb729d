/* entries.h - the kernels' launch entries, one per built-in kernel: the
 * CPU one (gcc build of the .cu) and, in CUDA builds, the GPU one (nvcc). */
#pragma once

#include "kernel.h"

#ifdef HAVE_CUDA
#define MS_GPU_ENTRY(name) ms_gpu_entry_##name
#else
#define MS_GPU_ENTRY(name) NULL
#endif

#define MS_DECLARE_ENTRY(name) \
  void ms_cpu_entry_##name (const MsLaunchArgs *L); \
  void ms_gpu_entry_##name (const MsLaunchArgs *L);

#include "entries-list.h"
