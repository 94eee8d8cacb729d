/* problem.h - built-in kernels: their descriptors and the problem instance
 * (parameters, buffers, launch geometry) a descriptor sets up.
 */
#pragma once

#include <glib.h>

#include "arch.h"
#include "emulator.h"
#include "kernel.h"
#include "launch.h"
#include "model.h"

G_BEGIN_DECLS

#define MS_MAX_PARAMS 16
#define MS_PROBLEM_ERROR (ms_problem_error_quark ())
GQuark ms_problem_error_quark (void);
typedef enum {
  MS_PROBLEM_ERROR_PARAM,    /* unknown or out-of-range parameter */
  MS_PROBLEM_ERROR_CHECK,    /* kernel output differs from the reference */
  MS_PROBLEM_ERROR_BLOCK_RULE, /* --block is valid CUDA but the kernel's block rule forbids it */
  MS_PROBLEM_ERROR_TOO_BIG,  /* the buffers do not fit in the machine's available memory */
} MsProblemError;

typedef struct {
  const char *name;
  const char *help;
  gint64 def, min, max;
  /* a choice parameter: the names of the values min, min + 1, ..., max
   * (NULL-terminated); -p NAME=CHOICE takes a name or its number */
  const char *const *choices;
} MsParamSpec;

/* The name of a choice parameter's value, or NULL. */
const char *ms_param_choice_name (const MsParamSpec *spec, gint64 value);

typedef enum {
  MS_BLOCK_ANY,     /* any block CUDA allows */
  MS_BLOCK_FIXED,   /* the kernel's tile needs exactly the default block */
  MS_BLOCK_1D,      /* any 1D block (y = z = 1) */
  MS_BLOCK_POW2,    /* a 1D block of 64, 128, 256, 512 or 1024 threads (tree reductions) */
} MsBlockRule;

typedef struct MsProblem MsProblem;

typedef struct {
  const char *name;
  const char *family;        /* transpose, reduce, stencil, gemm, access, test */
  const char *origin;        /* the seed or paper it comes from */
  const char *description;   /* one line */
  const char *source;        /* file under traces/kernels/ */
  const MsParamSpec *params; /* terminated by { NULL } */
  const char *size_params[3];/* what --size WxHxD sets, e.g. { "width", "height" } */
  unsigned block[3];         /* default block */
  MsBlockRule block_rule;
  /* allocates and fills buffers, sets L->i/L->f and the grid */
  gboolean (*setup) (MsProblem *p, GError **error);
  /* compares the output buffers with a plain-C reference */
  gboolean (*check) (MsProblem *p, GError **error);
  MsEntryFn cpu_entry;
  MsEntryFn gpu_entry;       /* NULL when memsim is built without CUDA */
  /* A user's kernel (traces/user: `memsim trace FILE.cu:KERNEL`): no nvcc
   * build table, check NULL (no reference), its sites from the build's
   * debug info (site_at, MsLaunch) and its source lines from the file. */
  gboolean external;
  const char *const *source_lines;   /* line i + 1 of the source; NULL-terminated */
  const MsSite *(*site_at) (gpointer data, const void *pc);
  gpointer site_data;
} MsKernel;

struct MsProblem {
  const MsKernel *kernel;
  gint64 param[MS_MAX_PARAMS];
  guint32 seed;
  MsLaunchArgs args;
  const char *buffer_names[MS_MAX_BUFFERS];
  gsize buffer_bytes[MS_MAX_BUFFERS];
  gboolean buffer_output[MS_MAX_BUFFERS];
  guint n_buffers;
  guint64 total_bytes;       /* of all buffers so far */
  guint64 memory_budget;     /* what the buffers may take (0: not read yet) */
  MsProgressFn progress;     /* passed to the emulator's launch (may be NULL) */
  gpointer progress_data;
  guint dynamic_shared;      /* bytes of `extern __shared__` memory per block */
  gsize guard_bytes;         /* > 0: buffers get this many bytes of guard pages on
                                both sides (users' kernels: MsLaunch.oob_margin) */
  gsize buffer_map_bytes[MS_MAX_BUFFERS];  /* guarded buffers: their mapping */
  gint64 run_params[MS_MAX_PARAMS];        /* users' kernels: integer --args, for */
  const char *run_param_names[MS_MAX_PARAMS];  /* the report's parameters */
  guint n_run_params;
};

/* The registry (traces/kernels/registry.c). */
const MsKernel *const *ms_kernels (void);          /* NULL-terminated */
const MsKernel *ms_kernel_find (const char *name);

MsProblem *ms_problem_new (const MsKernel *kernel);
void ms_problem_free (MsProblem *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsProblem, ms_problem_free)

/* "name=value"-style setting, checked against the range. */
gboolean ms_problem_set_param (MsProblem *p, const char *name, const char *value, GError **error);
/* --size WxH[xD] */
gboolean ms_problem_set_size (MsProblem *p, const char *size, GError **error);
/* --block XxY[xZ] */
gboolean ms_problem_set_block (MsProblem *p, const char *block, GError **error);
/* --grid X[xY[xZ]], for kernels whose setup leaves the grid alone (users') */
gboolean ms_problem_set_grid (MsProblem *p, const char *grid, GError **error);
gint64 ms_problem_param (const MsProblem *p, const char *name);

/* Runs the descriptor's setup: buffers and grid. */
gboolean ms_problem_setup (MsProblem *p, GError **error);
/* For setup functions: a zeroed, 256-byte aligned buffer (cudaMalloc's
 * alignment), passed to the kernel as L->buf[n] in call order.  NULL with
 * MS_PROBLEM_ERROR_TOO_BIG when the buffers so far exceed the memory the
 * machine has available (MemAvailable of /proc/meminfo when the first
 * buffer is asked for, else 80% of its physical memory) or cannot be
 * allocated: the setup function returns FALSE at once. */
void *ms_problem_buffer (MsProblem *p, const char *name, gsize bytes, gboolean output,
                         GError **error);
/* The bytes of all the problem's buffers (as allocated by the kernel:
 * every buffer read or written once is what --gpu's bandwidth counts). */
guint64 ms_problem_buffers_bytes (const MsProblem *p);
/* Deterministic input: fills with uniform floats in [-1, 1) / ints in [lo, hi]. */
void ms_fill_floats (MsProblem *p, float *x, gsize n);
void ms_fill_ints (MsProblem *p, int *x, gsize n, int lo, int hi);
guint ms_div_up (guint64 a, guint b);
/* Compares n floats; the message names the buffer and the first mismatch. */
gboolean ms_check_floats (const char *buffer, const float *got, const float *want, gsize n,
                          double tolerance, GError **error);
gboolean ms_check_ints (const char *buffer, const int *got, const int *want, gsize n,
                        GError **error);

/* Has the emulator report the simulation's progress (emulator.h) to
 * progress (NULL: no reports). */
void ms_problem_set_progress (MsProblem *p, MsProgressFn progress, gpointer data);

/* The emulator launch for this problem (no sinks, threads 0; its progress). */
void ms_problem_launch (const MsProblem *p, MsLaunch *launch);

/* Runs the problem in the emulator through the model table of arch, and
 * through the extra sinks (NULL: none): *stats (may be NULL) gets the
 * counters per site.  threads: 0 = one per core. */
gboolean ms_problem_simulate (const MsProblem *p, const MsArch *arch, guint threads,
                              const MsSinks *extra, MsStats **stats, GError **error);

/* The launch description of the problem for reports and trace files; check
 * is the output check's result (NULL: "not run"). */
MsRunInfo *ms_problem_run_info (const MsProblem *p, const MsArch *arch, const char *check);

/* The text of a kernel source line (embedded resource), or NULL. */
char *ms_kernel_source_line (const char *file, int line);

G_END_DECLS
