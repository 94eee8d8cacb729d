/* backend.h - the GPU back-end: runs a built-in kernel's nvcc build on the
 * GPU with the same parameters and input as the emulator, and measures it.
 *
 *   ms_gpu_available ()   is there a GPU, and what is it
 *   ms_gpu_run ()         upload the problem's input, run once (outputs come
 *                         back into separate host buffers), read the hardware
 *                         counters memsim simulates (CUPTI, kernel replay),
 *                         DRAM traffic with a cold L2, time with CUDA events,
 *                         and optionally the GPU's own address trace
 *   ms_gpu_check_outputs () GPU output vs the emulator's and the reference
 *   ms_gpu_measure ()     one call for `memsim compare`: time, bandwidth and
 *                         counters of one problem
 *
 * Effective bandwidth (docs/gpu.md): bytes = the sum of the sizes of all the
 * kernel's buffers (each input read once, each output written once: the
 * least DRAM traffic of a kernel that touches all its data once, the
 * definition of NVIDIA's transpose sample), divided by the median kernel
 * time with the L2 flushed before each launch.
 *
 * Without CUDA support, or without a GPU, every call fails with one line:
 * "this build has no CUDA support; reconfigure with --with-cuda" or
 * "no CUDA-capable GPU found: ...".
 */
#pragma once

#include <glib.h>

#include "problem.h"

G_BEGIN_DECLS

#define MS_GPU_ERROR (ms_gpu_error_quark ())
GQuark ms_gpu_error_quark (void);
typedef enum {
  MS_GPU_ERROR_NO_CUDA,     /* built without CUDA */
  MS_GPU_ERROR_NO_DEVICE,   /* no usable GPU */
  MS_GPU_ERROR_NO_KERNEL,   /* the kernel has no GPU entry */
  MS_GPU_ERROR_FAILED,      /* a CUDA or CUPTI call failed */
} MsGpuError;

typedef struct {
  char name[256];
  int cc_major, cc_minor;
  int driver_version, runtime_version;   /* 1000 * major + 10 * minor */
  int sm_count;
  guint64 memory_bytes;                  /* totalGlobalMem */
} MsGpuInfo;

/* What ms_gpu_run measures. */
typedef enum {
  MS_GPU_RUN_OUTPUT = 1 << 0,     /* run once, copy the outputs back */
  MS_GPU_RUN_COUNTERS = 1 << 1,   /* memsim's metrics (kernel replay) */
  MS_GPU_RUN_DRAM = 1 << 2,       /* dram__bytes_*, lts__ sectors, time: cold L2 */
  MS_GPU_RUN_TIME = 1 << 3,       /* CUDA events: warm-up, median */
  MS_GPU_RUN_TRACE = 1 << 4,      /* the GPU's own address trace */
  MS_GPU_RUN_ALL = 0x1f,
} MsGpuRunFlags;

#define MS_GPU_TIME_WARMUP 5
#define MS_GPU_TIME_REPEATS 25

/* A measured counter.  available is FALSE where the chip does not have it. */
typedef struct {
  const char *name;   /* Nsight Compute metric name (static string) */
  double value;
  gboolean available;
} MsGpuMetric;

/* One warp-level access, as either side recorded it; global addresses in
 * the emulator's virtual form (MS_VADDR_BUFFER/OFFSET), shared ones as the
 * byte offset in the block's shared window. */
typedef struct {
  guint64 addr[32];
  guint32 block, mask;
  int line, order;
  guint16 warp;
  guint8 space, op, width;
  guint8 unmapped;    /* GPU: a global address outside every buffer */
} MsTraceRecord;

typedef struct {
  MsGpuInfo info;
  /* MS_GPU_RUN_OUTPUT: the GPU's output buffers (NULL for inputs) */
  void *outputs[MS_MAX_BUFFERS];
  /* MS_GPU_RUN_COUNTERS / _DRAM: in the order measured */
  GArray *metrics;                 /* MsGpuMetric */
  /* MS_GPU_RUN_TIME */
  double time_ms;                  /* median, L2 flushed before each launch: CUDA
                                      events, what memsim__event_time predicts */
  double time_warm_ms;             /* median, no flush */
  int repeats;
  guint64 bytes;                   /* the kernel's buffers, see above */
  double bandwidth_gbs;            /* bytes / time_ms, 1e9 bytes/s */
  /* MS_GPU_RUN_TRACE */
  GArray *trace;                   /* MsTraceRecord, in slot order */
  guint64 trace_total;             /* accesses the GPU made (>= trace->len) */
} MsGpuResult;

void ms_gpu_result_free (MsGpuResult *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsGpuResult, ms_gpu_result_free)

/* TRUE if a GPU can be used; info (may be NULL) describes it. */
gboolean ms_gpu_available (MsGpuInfo *info, GError **error);

/* The pristine input of a problem: a copy of every buffer as setup left it.
 * Take it before ms_emulate (which overwrites the outputs in place). */
typedef struct {
  void *buf[MS_MAX_BUFFERS];
  guint n;
} MsGpuSnapshot;
MsGpuSnapshot *ms_gpu_snapshot_new (const MsProblem *p);
void ms_gpu_snapshot_free (MsGpuSnapshot *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsGpuSnapshot, ms_gpu_snapshot_free)

/* Runs p's kernel on the GPU.  input: the buffers to upload (NULL: p's own
 * buffers, right for a problem that has not been emulated yet).  The
 * problem itself is not changed. */
MsGpuResult *ms_gpu_run (const MsProblem *p, const MsGpuSnapshot *input, guint flags,
                         GError **error);

/* The measured value of a metric; FALSE if not measured or not available.
 * ATOM and RED instructions are apart (`_op_atom`, `_op_red`), as memsim
 * counts them (docs/model.md, "Reductions"). */
gboolean ms_gpu_result_metric (const MsGpuResult *r, const char *name, double *value);

/* After the emulator ran p (p's output buffers hold its results): checks the
 * GPU's outputs with the descriptor's own check (same reference, same
 * tolerance: exact for integers, the kernel's stated tolerance for floats),
 * and says whether they are bit-identical to the emulator's.  Returns TRUE
 * if the check passed; *message is "passed (...)" or the failure. */
gboolean ms_gpu_check_outputs (const MsProblem *p, const MsGpuResult *r, char **message);
/* A user's kernel (no check, no reference): the GPU's outputs against the
 * emulator's, exactly, except buffers of floating point (p->buffer_float):
 * |GPU - emulator| <= MS_GPU_USER_TOLERANCE x (|emulator| + the buffer's
 * largest |emulator| value). */
#define MS_GPU_USER_TOLERANCE 1e-4

/* For `memsim compare FAMILY --gpu`, one problem: input is a snapshot taken
 * before ms_emulate, or NULL to upload p's buffers as they are (right before
 * ms_emulate, which overwrites the outputs; after it only for kernels that
 * do not read their outputs).  Fills time (ms, median, L2 flushed before each
 * launch), bandwidth (GB/s, as defined above) and, if metrics is not NULL, a
 * GArray of MsGpuMetric with memsim's metric names (free with
 * g_array_unref). */
gboolean ms_gpu_measure (const MsProblem *p, const MsGpuSnapshot *input, double *time_ms,
                         double *bandwidth_gbs, GArray **metrics, GError **error);

G_END_DECLS
