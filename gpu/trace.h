/* trace.h - the GPU's own address trace: the record a kernel built with
 * -DMS_GPU_TRACE writes for every warp-level global/shared access (see
 * trace-device.cuh), and the state its entry receives.  Plain C, shared by
 * nvcc (device side) and gcc (gpu/backend.c, which reads the records back).
 */
#ifndef MEMSIM_GPU_TRACE_H
#define MEMSIM_GPU_TRACE_H

#include "kernel.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MS_GPU_TRACE_SPACE_GLOBAL 0
#define MS_GPU_TRACE_SPACE_SHARED 1
#define MS_GPU_TRACE_SPACE_OTHER 2   /* local or unknown: a bug in the kernel */

/* One warp-level access, written by the lowest active lane (header) and by
 * every active lane (its own addr[lane]). */
typedef struct {
  unsigned long long addr[32];  /* global: device address; shared: offset
                                   from __cvta_generic_to_shared */
  unsigned block;               /* linear block index: x + gx * (y + gy * z) */
  unsigned warp;                /* linear thread index / 32 */
  unsigned mask;                /* lanes that executed the access */
  int line;                     /* source line of the LD/ST/atomic */
  int order;                    /* __COUNTER__ of the expansion */
  unsigned char space;          /* MS_GPU_TRACE_SPACE_* */
  unsigned char op;             /* 0 load, 1 store, 2 atomic (MsOp) */
  unsigned char width;          /* bytes per lane */
  unsigned char valid;          /* 1 once the header is written */
} MsGpuTraceRecord;

/* Where a trace entry writes: records[0 .. capacity) in the order warps
 * claim slots through *count (which ends up holding the number of accesses,
 * also those that did not fit). */
typedef struct {
  MsGpuTraceRecord *records;
  unsigned long long capacity;
  unsigned long long *count;
} MsGpuTraceState;

/* ms_gpu_trace_entry_<name>: the trace build's launch entry.  Returns 0, or
 * -1 if the trace state could not be set (the launch did not happen). */
typedef int (*MsGpuTraceEntryFn) (const MsLaunchArgs *L, const MsGpuTraceState *state);

#ifdef __cplusplus
}
#endif

#endif /* MEMSIM_GPU_TRACE_H */
