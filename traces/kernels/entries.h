/* entries.h - the kernels' launch entries, one per built-in kernel: the
 * one that says what it launches (the .cu's entries built as C:
 * builtin-ptx.h) and, in CUDA builds, the GPU one (nvcc), which is in the
 * GPU plug-in (gpu/backend-cuda.c), not in memsim. */
#pragma once

#include "kernel.h"

#define MS_DECLARE_ENTRY(name) \
  void ms_bind_entry_##name (const MsLaunchArgs *L); \
  void ms_gpu_entry_##name (const MsLaunchArgs *L);

#include "entries-list.h"
