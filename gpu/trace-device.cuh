/* trace-device.cuh - the address-trace build of the kernels (nvcc with
 * -DMS_GPU_TRACE; included after sim/emulator/kernel.h by the %.gputrace.o rule of Makefile.am).  LD, ST and the atomics still
 * do what they do in the plain GPU build, and before each access every lane
 * that executes it records its address:
 *
 *   - the lanes that reach the access together (__activemask) are grouped
 *     by site and memory space (__match_any_sync), as the emulator splits a
 *     site's lanes by space (and because the hardware may run the record
 *     function for lanes coming from different sites at once);
 *   - the lowest lane of each group claims a record slot (one atomicAdd on a
 *     global counter) and __shfl_sync's it to the others; every lane writes
 *     its own addr[lane], the lowest lane the header.  Divergent code is
 *     recorded as the hardware ran it: each converged group is one record.
 *   - global accesses record the device address (the host maps it back to
 *     buffer + offset), shared ones __cvta_generic_to_shared's offset, so the
 *     comparison with the emulator also proves its shared-memory layout.
 *
 * MS_ENTRY (name) defines ms_gpu_trace_entry_<name> (L, state): it copies the
 * state into this translation unit's __device__ variable and launches.  The
 * build wraps each kernel source in namespace ms_gpu_trace (see Makefile.am)
 * so its kernels do not clash with the plain build's.
 */
#ifndef MEMSIM_GPU_TRACE_DEVICE_CUH
#define MEMSIM_GPU_TRACE_DEVICE_CUH

#include "trace.h"

static __device__ MsGpuTraceState ms_gpu_trace_state_;

static __device__ __noinline__ void
ms_gpu_trace_record_ (const volatile void *vp, int line, int order, int op, int width)
{
  const unsigned mask = __activemask ();
  const void *p = (const void *) vp;
  const unsigned tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned lane = tid & 31u;
  unsigned space;
  unsigned long long a;
  if (__isShared (p))
    {
      space = MS_GPU_TRACE_SPACE_SHARED;
      a = (unsigned long long) __cvta_generic_to_shared (p);
    }
  else if (__isGlobal (p))
    {
      space = MS_GPU_TRACE_SPACE_GLOBAL;
      a = (unsigned long long) p;
    }
  else
    {
      space = MS_GPU_TRACE_SPACE_OTHER;
      a = (unsigned long long) p;
    }
  /* Lanes of a warp that reach this function from different call sites can
   * run it together (it is one function: the hardware converges them at its
   * first instruction), so group the lanes by site and space first. */
  const unsigned group = __match_any_sync (mask, ((unsigned) order << 2) | space);
  const int leader = __ffs (group) - 1;
  unsigned long long slot = 0;
  if ((int) lane == leader)
    slot = atomicAdd (ms_gpu_trace_state_.count, 1ull);
  slot = __shfl_sync (group, slot, leader);
  if (slot < ms_gpu_trace_state_.capacity)
    {
      MsGpuTraceRecord *r = ms_gpu_trace_state_.records + slot;
      r->addr[lane] = a;
      if ((int) lane == leader)
        {
          r->block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
          r->warp = tid >> 5;
          r->mask = group;
          r->line = line;
          r->order = order;
          r->space = (unsigned char) space;
          r->op = (unsigned char) op;
          r->width = (unsigned char) width;
          r->valid = 1;
        }
    }
}

template <typename T>
static __device__ __forceinline__ T *
ms_gpu_trace_at_ (T *p, int line, int order, int op)
{
  ms_gpu_trace_record_ (p, line, order, op, (int) sizeof (T));
  return p;
}

/* The atomics, recorded then done (defined before the macros below, so the
 * calls inside are CUDA's own). */
#define MS_GPU_TRACE_ATOMIC2_(fn)                                              \
  template <typename T, typename V>                                            \
  static __device__ __forceinline__ T                                          \
  ms_gpu_trace_##fn##_ (T *p, V v, int line, int order)                        \
  {                                                                            \
    ms_gpu_trace_record_ (p, line, order, 2, (int) sizeof (T));                \
    return fn (p, (T) v);                                                      \
  }
MS_GPU_TRACE_ATOMIC2_ (atomicAdd)
MS_GPU_TRACE_ATOMIC2_ (atomicSub)
MS_GPU_TRACE_ATOMIC2_ (atomicMin)
MS_GPU_TRACE_ATOMIC2_ (atomicMax)
MS_GPU_TRACE_ATOMIC2_ (atomicExch)

template <typename T, typename C, typename V>
static __device__ __forceinline__ T
ms_gpu_trace_atomicCAS_ (T *p, C c, V v, int line, int order)
{
  ms_gpu_trace_record_ (p, line, order, 2, (int) sizeof (T));
  return atomicCAS (p, (T) c, (T) v);
}

/* C++17 sequences the right operand of = before the left one, so the loads
 * inside v are recorded before the store, as the emulator sees them. */
#undef LD
#undef ST
#define LD(x) (*ms_gpu_trace_at_ (&(x), __LINE__, __COUNTER__, 0))
#define ST(x, v) ((void) (*ms_gpu_trace_at_ (&(x), __LINE__, __COUNTER__, 1) = (v)))

#define atomicAdd(p, v) ms_gpu_trace_atomicAdd_ ((p), (v), __LINE__, __COUNTER__)
#define atomicSub(p, v) ms_gpu_trace_atomicSub_ ((p), (v), __LINE__, __COUNTER__)
#define atomicMin(p, v) ms_gpu_trace_atomicMin_ ((p), (v), __LINE__, __COUNTER__)
#define atomicMax(p, v) ms_gpu_trace_atomicMax_ ((p), (v), __LINE__, __COUNTER__)
#define atomicExch(p, v) ms_gpu_trace_atomicExch_ ((p), (v), __LINE__, __COUNTER__)
#define atomicCAS(p, c, v) ms_gpu_trace_atomicCAS_ ((p), (c), (v), __LINE__, __COUNTER__)

#undef MS_ENTRY
#define MS_ENTRY(name)                                                         \
  static void ms_gpu_trace_launch_##name (const MsLaunchArgs *L);              \
  extern "C" int ms_gpu_trace_entry_##name (const MsLaunchArgs *L,             \
                                            const MsGpuTraceState *state)      \
  {                                                                            \
    if (cudaMemcpyToSymbol (::ms_gpu_trace_state_, state, sizeof *state)       \
        != cudaSuccess)                                                        \
      return -1;                                                               \
    ms_gpu_trace_launch_##name (L);                                            \
    return 0;                                                                  \
  }                                                                            \
  static void ms_gpu_trace_launch_##name (const MsLaunchArgs *L)

#endif /* MEMSIM_GPU_TRACE_DEVICE_CUH */
