/* memsim GPU back-end: counter collection (CUPTI Range Profiler) and timing.
 *
 * Plain C API, usable from gcc-compiled C.  The implementation (profiler.cu)
 * is compiled with nvcc; all CUDA/CUPTI types stay inside it.
 *
 * Link a gcc-linked program with profiler.o using:
 *   -L$(CUDA_LIBDIR) -lcupti -lcudart -lstdc++ -lm
 * (no -lcuda: the driver entry points needed are fetched at run time through
 * cudaGetDriverEntryPointByVersion, so the program starts on machines with no
 * NVIDIA driver and the calls below fail cleanly there).
 *
 * Every function returns 0 on success; on failure it returns -1 and writes a
 * one-line message (no trailing newline) into err[errlen] (err may be NULL).
 * On a machine without a usable GPU the message starts with
 * "no CUDA-capable GPU found".
 *
 * All work happens on CUDA device 0 (the current device of the calling thread
 * if the program has already chosen one), on the legacy default stream.
 * Not thread-safe: call from one thread at a time.
 */
#ifndef MEMSIM_GPU_PROFILER_H
#define MEMSIM_GPU_PROFILER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Name of the device, compute capability, and the CUDA driver and runtime
 * versions as integers (1000*major + 10*minor, e.g. 13000 for 13.0).  Any
 * output pointer may be NULL. */
int ms_gpu_device_info (char *name, size_t name_len,
                        int *cc_major, int *cc_minor,
                        int *driver_version, int *runtime_version,
                        char *err, size_t errlen);

/* The device's SM count and memory (cudaDeviceProp.multiProcessorCount,
 * totalGlobalMem): what `--gpu` matches a preset by.  Either pointer may
 * be NULL. */
int ms_gpu_device_size (int *sm_count, unsigned long long *memory_bytes,
                        char *err, size_t errlen);

/* Runs launch(user) under CUPTI range profiling (kernel replay, auto range:
 * one range per kernel launched inside), collecting the n_metrics metrics
 * named (Nsight Compute names such as
 * "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), summed over all kernels
 * launched inside; values_out[i] = value of metrics[i].
 *
 * launch must only launch kernels (on the default stream or any stream) and
 * must be re-runnable: CUPTI replays each kernel as many times as the metric
 * set needs (saving and restoring device memory between passes), and launch
 * itself may be called again if CUPTI asks for another pass.  At most
 * MS_GPU_MAX_KERNELS kernels may be launched by one call of launch.
 *
 * Summing is right for counters (.sum); ratios (.pct, .ratio, .avg, .max)
 * are summed too, which is meaningless with more than one kernel.
 * An unknown or unsupported metric name fails the whole call with a message
 * naming it. */
#define MS_GPU_MAX_KERNELS 256
int ms_gpu_profile (void (*launch) (void *user), void *user,
                    const char *const *metrics, int n_metrics,
                    double *values_out, char *err, size_t errlen);

/* Same, with flags.  ms_gpu_profile (...) == ms_gpu_profile_ex (..., 0, ...).
 *
 * MS_GPU_PROFILE_FLUSH_L2: cold-L2 numbers.  Kernel replay restores device
 *   memory between passes, which leaves the kernel's data in L2, so with
 *   flags 0 dram__* (and L2 hit/miss) counts describe a warm L2.  With this
 *   flag the call uses CUPTI user replay + one user range around the whole
 *   launch(user) instead: every pass starts the profiler, runs an L2 flush
 *   (a read of a buffer twice the L2 size) outside the range, then
 *   launch(user) inside it.  The flush follows the profiler's start, which
 *   itself leaves megabytes of dirty lines in the L2 (measured on the H200:
 *   gpu/probes/writeback-range.cu).  launch is then called once per pass (CUPTI does NOT restore memory
 *   between passes, so launch must give the same access pattern when called
 *   again), there is no limit on the number of kernels, and ranges are not
 *   split per kernel (gpu__time_duration covers the whole range). */
#define MS_GPU_PROFILE_FLUSH_L2 0x1u
/* MS_GPU_PROFILE_COLD_START: a range per kernel, as with flags 0, but user
 *   replay with an L2 flush before every pass (launch is called once per
 *   pass, as with MS_GPU_PROFILE_FLUSH_L2; the flush kernel's own range,
 *   the pass's first, is left out): gpu__time_duration as Nsight
 *   Compute means it (each kernel from its start to its end, the L2 cold:
 *   ncu's --cache-control all).  A user range cannot give it (it spans the
 *   host's launch and synchronisation too); kernel replay can, but replays
 *   the kernel itself, with no flush between its passes. */
#define MS_GPU_PROFILE_COLD_START 0x2u
int ms_gpu_profile_ex (void (*launch) (void *user), void *user,
                       const char *const *metrics, int n_metrics,
                       double *values_out, unsigned flags,
                       char *err, size_t errlen);

/* Times launch(user) with CUDA events on the legacy default stream:
 * `warmup` untimed launches, then `repeats` timed launches (each timed
 * alone, the GPU synchronised after each); *median_ms = median of the
 * repeats in milliseconds.  Before every launch (outside the timed interval)
 * a 20 us spin kernel runs so that the launch is already queued when the
 * start event executes: the time is GPU time, not host launch latency.  If
 * flush_l2 != 0, a kernel first reads a buffer twice the size of L2 (so L2
 * holds only clean, unrelated lines) before every launch, warm-up included.
 * Event timing adds about 1 us over gpu__time_duration for tiny kernels. */
int ms_gpu_time (void (*launch) (void *user), void *user,
                 int warmup, int repeats, int flush_l2,
                 double *median_ms, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MEMSIM_GPU_PROFILER_H */
