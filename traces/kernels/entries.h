/* entries.h - the kernels' launch entries, one per built-in kernel: the
 * CPU one (gcc build of the .cu) and, in CUDA builds, the GPU one (nvcc),
 * which is in the GPU plug-in (gpu/backend-cuda.c), not in memsim. */
#pragma once

#include "kernel.h"

#define MS_DECLARE_ENTRY(name) \
  void ms_cpu_entry_##name (const MsLaunchArgs *L); \
  void ms_gpu_entry_##name (const MsLaunchArgs *L);

#include "entries-list.h"
