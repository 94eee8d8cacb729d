/* kernel-options.h - the options every command that runs a kernel takes:
 * --size, --block, -p NAME=VALUE, --threads, --arch, --allow-races,
 * --format, -o. */
#pragma once

#include <glib.h>

#include "arch.h"
#include "kernel-time.h"
#include "launch.h"
#include "model.h"
#include "problem.h"
#include "report.h"
#include "report-occupancy.h"

typedef struct {
  char *size;
  char *block;
  char **params;
  /* a user's kernel (FILE.cu:KERNEL): --grid, --dynamic-shared, --arg, and
   * nvcc's flags as memsim run takes them */
  char *grid;
  int dynamic_shared;
  char **args;
  char **includes, **defines, **xnvcc;
  char *std;
  gboolean fast_math;
  int threads;
  char *arch;
  char *format;
  char *output;
  gboolean source_counts;   /* --source-counts */
  char *sample;     /* --sample PERCENT[%] (NULL: every block) */
  gboolean allow_races;   /* --allow-races: count shared-memory races, go on */
} MsKernelOptions;

/* Adds the options to ctx (storage in opts). */
void ms_kernel_options_add (GOptionContext *ctx, MsKernelOptions *opts, gboolean with_format);
/* Adds --grid, --dynamic-shared and --arg, the launch of a user's kernel,
 * and the flags of its nvcc build (-I, -D, --std, --use-fast-math,
 * --Xnvcc). */
void ms_kernel_options_add_user (GOptionContext *ctx, MsKernelOptions *opts);
void ms_kernel_options_clear (MsKernelOptions *opts);

/* nvcc's spellings for GOption: -Xnvcc and -Xcompiler as long options, a
 * value joined to -I, -D, -l or -L (-lcurand) as a separate argument,
 * -use_fast_math, -std=, -rdc=true as memsim's options, the flags nvcc
 * alone reads (-O3, -g, -lineinfo, -Xptxas ...) as --Xnvcc=FLAG, its
 * target flags (-arch, -gencode, -code) left out.  A one-letter flag of
 * own_short is the command's own (trace's -g is its --grid).  The new argv
 * and its strings are owned (g_free) apart: GOption takes parsed ones out
 * of argv. */
char **ms_nvcc_spellings (int *argc, char **argv, GPtrArray *owned, const char *own_short);

/* Appends to flags (g_free'd strings) the nvcc flags of the build options
 * that memsim run and memsim trace FILE.cu:KERNEL share: -IDIR, -DNAME,
 * -std=STD, --use_fast_math, -rdc=true, then the -Xnvcc flags as given. */
void ms_nvcc_flags_add (GPtrArray *flags, char **includes, char **defines, const char *std,
                        gboolean fast_math, gboolean rdc, char **xnvcc);

/* --sample PERCENT[%] onto p. */
gboolean ms_kernel_options_sample (const char *text, MsProblem *p, GError **error);

/* The --arch preset (default h100); free with ms_arch_free. */
MsArch *ms_kernel_options_arch (const MsKernelOptions *opts, GError **error);

/* With gpu FALSE, ms_kernel_options_arch.  With gpu TRUE (--gpu and its
 * kin): the GPU's properties are read first (no GPU: the back-end's error);
 * without --arch the preset is the measured device's (sim/arch/
 * arch-match.h) and *note says which and why; with --arch that preset, and
 * *note a warning where it disagrees with the device (else NULL).  One line
 * each, for the report; free it.  On failure *status is the exit status:
 * 2 for a bad --arch, 1 when the GPU cannot be read. */
MsArch *ms_kernel_options_gpu_arch (const MsKernelOptions *opts, gboolean gpu, char **note,
                                    int *status, GError **error);

/* The preset a recorded trace is costed on: option (--arch) if given, else
 * the one the trace was recorded for (info->arch); the error says which. */
MsArch *ms_kernel_options_trace_arch (const char *option, const MsRunInfo *info,
                                      GError **error);

/* -p regs=N: registers per thread for the occupancy of any kernel (not a
 * kernel parameter: the problem never sees it); *regs = -1 when not given. */
gboolean ms_kernel_options_registers (const MsKernelOptions *opts, int *regs, GError **error);

/* The occupancy of the problem's launch on arch: registers from -p regs,
 * else the nvcc build, else MS_DEFAULT_REGISTERS; static shared bytes from
 * the nvcc build, else the emulator (block 0 alone, see kernel-usage.h);
 * barriers from the nvcc build, else 1.  Clear row with
 * ms_occupancy_row_clear. */
gboolean ms_kernel_options_occupancy (const MsKernelOptions *opts, const MsProblem *p,
                                      const MsArch *arch, MsOccupancyRow *row, GError **error);

/* After a run (stats): the launch's occupancy into row, FALSE when the
 * arch has no cost figures or the probe of block 0 fails; and, when the
 * block can run, its predicted time into *t with *timed TRUE.  Clear row
 * with ms_occupancy_row_clear either way. */
gboolean ms_kernel_options_costs (const MsKernelOptions *opts, const MsProblem *p,
                                  const MsArch *arch, const MsStats *stats, MsOccupancyRow *row,
                                  MsTimePrediction *t, gboolean *timed);

/* Finds the kernel and builds the problem from the options (-p regs=N is
 * left out: see ms_kernel_options_registers; --allow-races sets
 * p->allow_races).  A kernel named FILE.cu:KERNEL is the user's own
 * (traces/user: compiled, loaded, its launch from --grid, --block,
 * --dynamic-shared and --arg); a built-in one takes --size and -p. */
MsProblem *ms_kernel_options_problem (const MsKernelOptions *opts, const char *kernel,
                                      GError **error);
