/* problem.h - built-in kernels: their descriptors and the problem instance
 * (parameters, buffers, launch geometry) a descriptor sets up.
 */
#pragma once

#include <glib.h>

#include "arch.h"
#include "emulator.h"
#include "instructions.h"
#include "kernel.h"
#include "launch.h"
#include "model.h"
#include "sass.h"

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
  MsEntryFn cpu_entry;       /* a kernel run a fiber per thread (the emulator's own
                                tests), or NULL */
  /* a built-in kernel: its entry built as C, which says what it launches
   * (builtin-ptx.h); NULL otherwise */
  MsEntryFn bind_entry;
  /* a kernel run from nvcc's device code (sim/ptx): its warp-wide entry,
   * which reads MsLaunchArgs.params; NULL otherwise */
  MsEntryFn warp_entry;
  /* ... and, for one whose optimised build may take over while it runs,
   * the build each block runs (MsLaunch.block_entry), or NULL */
  MsEntryFn (*block_entry) (gpointer data, guint64 block);
  void (*block_done) (gpointer data);
  gpointer block_entry_data;
  /* a kernel's own GPU build, or NULL: the built-in kernels' nvcc builds
   * are in the GPU plug-in (gpu/backend-cuda.c), found by name */
  MsEntryFn gpu_entry;
  /* A user's kernel (traces/user: `memsim trace FILE.cu:KERNEL`, `memsim
   * run`): no nvcc build table, check NULL (no reference), run from its PTX
   * (warp_entry), its source lines from the file. */
  gboolean external;
  const char *const *source_lines;   /* line i + 1 of the source; NULL-terminated */
  /* A user's kernel with its own nvcc build's SASS (traces/user/
   * user-sass.h): compiler-exact counts from it, as the built-ins' from
   * theirs; NULL: source-level. */
  const MsSass *sass;
  const char *sass_function;   /* its identifier in sass */
  int registers;               /* per thread, as ptxas allocates them for that
                                  build; 0: not known */
  /* Device code run from PTX: its blocks' instructions by source line,
   * for smsp__inst_executed.sum (instructions.h); NULL otherwise. */
  const MsInstMap *inst_map;
  /* Its blocks run one after another on one worker (MsLaunch.in_order):
   * device code that reads with strong loads what other blocks write
   * (a decoupled look-back's polls); set when the code is built. */
  gboolean in_order;
} MsKernel;

struct MsProblem {
  const MsKernel *kernel;
  gint64 param[MS_MAX_PARAMS];
  guint32 seed;
  MsLaunchArgs args;
  const char *buffer_names[MS_MAX_BUFFERS];
  gsize buffer_bytes[MS_MAX_BUFFERS];
  gboolean buffer_output[MS_MAX_BUFFERS];
  gboolean buffer_host[MS_MAX_BUFFERS];  /* mapped host memory (memsim run: cudaHostAlloc) */
  gsize buffer_mapped[MS_MAX_BUFFERS];  /* bytes mapped (munmap), 0: malloc'd */
  guint n_buffers;
  guint n_fills;             /* inputs filled so far: each gets its own stream */
  guint threads;             /* for setup and checks; 0 = one per core */
  guint sample_period;       /* block sampling: one group of blocks in so many (0, 1: off) */
  guint64 total_bytes;       /* of all buffers so far */
  guint64 memory_budget;     /* what the buffers may take (0: not read yet) */
  MsProgressFn progress;     /* passed to the emulator's launch (may be NULL) */
  gpointer progress_data;
  /* TRUE: one record per source access even where this memsim has the
   * nvcc build's SASS (--source-counts); FALSE (default): compiler-exact
   * where it has it (ms_problem_counts). */
  gboolean source_counts;
  gboolean allow_races;      /* races are counted, not an error (--allow-races) */
  gboolean allow_unwritten;  /* reads of unwritten shared memory are a warning
                              * (memsim run --allow-races: MsLaunch's) */
  gboolean allow_out_of_bounds;  /* loads and stores in a buffer's guard pages are
                                  * a warning (memsim run --allow-out-of-bounds:
                                  * MsLaunch's) */
  MsRaceLog *races;          /* if set: gets the races and intra-warp hazards of a
                                run (not owned; ms_problem_set_race_log) */
  guint dynamic_shared;      /* bytes of `extern __shared__` memory per block */
  gboolean cooperative;      /* a cooperative launch (MsLaunch.cooperative) ... */
  void *grid_workspace;      /* ... and its grid workspace, one of the buffers */
  gsize guard_bytes;         /* > 0: buffers get this many bytes of guard pages on
                                both sides (users' kernels: MsLaunch.oob_margin) */
  gsize buffer_map_bytes[MS_MAX_BUFFERS];  /* guarded buffers: their mapping */
  /* users' kernels: 4 (8) when a buffer holds only 4-byte (8-byte)
   * floating point numbers (float, float4, a struct of floats...), else 0;
   * --gpu compares such buffers with a tolerance, the others exactly */
  guint8 buffer_float[MS_MAX_BUFFERS];
  gint64 run_params[MS_MAX_PARAMS];        /* users' kernels: integer --args, for */
  const char *run_param_names[MS_MAX_PARAMS];  /* the report's parameters */
  guint n_run_params;
  const MsArch *arch;        /* the preset the launch is sized for (reduce_multiple's
                                default blocks fill its SMs); NULL: the default, h100;
                                not owned: set it before ms_problem_setup */
  /* what the launch runs, once set up: a built-in's function from its PTX
   * (builtin-ptx.h), with its parameter block in args.params, else the
   * kernel's own warp_entry and inst_map (or its fiber build) */
  MsEntryFn warp_entry;
  const MsInstMap *inst_map;
  guint8 *params;
  guint static_shared;       /* ... and the __shared__ bytes its PTX declares */
  guint *shared_bytes;       /* if set: ms_problem_simulate puts there the most static
                                shared memory a block declared (MsLaunch.shared_bytes),
                                which occupancy then takes instead of a probe run
                                (users' programs: a second run of block 0 would
                                write their buffers again) */
  guint8 **dirty_pages;      /* if set: MsLaunch.dirty_pages */
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
/* Block sampling: simulate about percent (0 < percent <= 100) of the
 * blocks, in groups of consecutive blocks (two per SM of the preset: a
 * group keeps the reuse between neighbouring blocks), and scale the
 * counters to the whole grid (ms_model_run_finish_sampled: the stats'
 * blocks_run says how many ran).  The output is then incomplete: the check
 * must not run. */
gboolean ms_problem_set_sample (MsProblem *p, double percent, GError **error);
/* Threads for the setup's fills and the check (0, the default: one per
 * core); the results do not depend on it. */
void ms_problem_set_threads (MsProblem *p, guint threads);
/* Deterministic input: fills with uniform floats in [-1, 1) (multiples of
 * 2^-23) / ints in [lo, hi], from a counter-based generator (parallel.h):
 * the same for any number of threads; each fill of a problem its own
 * stream. */
void ms_fill_floats (MsProblem *p, float *x, gsize n);
void ms_fill_ints (MsProblem *p, int *x, gsize n, int lo, int hi);
guint ms_div_up (guint64 a, guint b);
/* Compares n floats (on p's threads); the message names the buffer and the
 * first mismatch (the lowest index, whatever the number of threads). */
gboolean ms_check_floats (const MsProblem *p, const char *buffer, const float *got,
                          const float *want, gsize n, double tolerance, GError **error);
gboolean ms_check_ints (const MsProblem *p, const char *buffer, const int *got, const int *want,
                        gsize n, GError **error);
/* The error of a check that found buffer[i] = got where want was expected;
 * FALSE (for checks that compare without a reference copy). */
gboolean ms_check_fail_float (const char *buffer, gsize i, float got, float want,
                              GError **error);

/* Has the emulator report the simulation's progress (emulator.h) to
 * progress (NULL: no reports). */
void ms_problem_set_progress (MsProblem *p, MsProgressFn progress, gpointer data);

/* Has ms_problem_simulate put the races it allows (p->allow_races) and the
 * intra-warp hazards it finds into log (NULL: nowhere); log stays the
 * caller's. */
void ms_problem_set_race_log (MsProblem *p, MsRaceLog *log);

/* The emulator launch for this problem (no sinks, threads 0; its progress,
 * its race options and log, the kernel's source lines for messages). */
void ms_problem_launch (const MsProblem *p, MsLaunch *launch);
/* The cycles each block of the launch's device code adds to a warp's
 * clock on the preset (MsLaunch.block_cycles; g_free), or NULL: not run
 * from PTX.  Traced and untraced launches alike take them. */
double *ms_problem_clock_cycles (const MsProblem *p, const MsArch *arch);

/* The __global__ function the problem's launch runs, among those known()
 * knows: the function named like the kernel, else (an entry that launches
 * one instantiation per element width or block size) NAME_<width
 * parameter>, else NAME_<block x>; NULL if none (free the result). */
char *ms_problem_function (const MsProblem *p, gboolean (*known) (gpointer data, const char *name),
                           gpointer data);

/* How the problem's records map to instructions: MS_COUNTS_SASS when the
 * nvcc build's SASS (sass.h) has the kernel's function and
 * p->source_counts is not set, else MS_COUNTS_SOURCE. */
#define MS_COUNTS_SASS "sass"
#define MS_COUNTS_SOURCE "source"
const char *ms_problem_counts (const MsProblem *p);

/* Runs the problem in the emulator through the model table of arch, and
 * through the extra sinks (NULL: none): *stats (may be NULL) gets the
 * counters per site.  threads: 0 = one per core.  With MS_COUNTS_SASS the
 * records go through the compiler regrouping (regroup.h) before the models
 * and the extra sinks, except extra sinks marked source_level (stream.h),
 * which get the emulator's source-level records.  Intra-warp hazards are
 * looked for where arch has independent thread scheduling
 * (ms_arch_independent_threads). */
gboolean ms_problem_simulate (const MsProblem *p, const MsArch *arch, guint threads,
                              const MsSinks *extra, MsStats **stats, GError **error);

/* The launch description of the problem for reports and trace files; check
 * is the output check's result (NULL: "not run"). */
MsRunInfo *ms_problem_run_info (const MsProblem *p, const MsArch *arch, const char *check);

/* The text of a kernel source line (embedded resource), or NULL. */
char *ms_kernel_source_line (const char *file, int line);

G_END_DECLS
