/* side-by-side.h - `memsim trace KERNEL --gpu [--strict] [--check-trace]`:
 * the simulated numbers next to the GPU's measured ones.
 *
 *   MsGpuOptions o = { 0 };
 *   ms_gpu_options_add (ctx, &o);                    // --gpu, --strict, --check-trace
 *   ...parse, set up the problem and the emulator launch...
 *   s = ms_gpu_session_begin (&o, p, &sinks, &error);  // NULL + no error: no --gpu
 *   ...ms_problem_simulate (p, arch, threads, &sinks, ...), the CPU output check...
 *   ms_gpu_session_run (s, &error);                  // the GPU run, checks
 *   ms_gpu_report_write (s, &report, format, out);   // instead of ms_report_write
 *   status = ms_gpu_session_status (s);              // 1: GPU output wrong, or --strict failed
 *
 * Text: the simulation's report, then the GPU, its output check, time,
 * bandwidth and trace check, and a table metric | simulated | measured |
 * difference.  JSON: the simulation's object plus "measured" (the same
 * metric keys and the measured-only DRAM/L2/time ones), "gpu" (device,
 * versions, output check, time, bandwidth, trace check) and "comparison"
 * (one object per metric).  CSV: one row per metric.
 */
#pragma once

#include <glib.h>

#include "emulator.h"
#include "problem.h"
#include "report.h"

G_BEGIN_DECLS

typedef struct {
  gboolean gpu;
  gboolean strict;
  gboolean check_trace;
  char *save_gpu_trace;   /* --save-gpu-trace FILE (implies --check-trace) */
} MsGpuOptions;

void ms_gpu_options_add (GOptionContext *ctx, MsGpuOptions *opts);

typedef struct MsGpuSession MsGpuSession;

/* Before the emulation: NULL with no error when opts asks for no GPU run;
 * NULL with an error (one line) when there is no CUDA support or no GPU.
 * Snapshots p's input and, for --check-trace, adds the trace collector to
 * sinks. */
MsGpuSession *ms_gpu_session_begin (const MsGpuOptions *opts, const MsProblem *p,
                                    MsSinks *sinks, GError **error);
/* After the emulation and its output check. */
gboolean ms_gpu_session_run (MsGpuSession *s, GError **error);
void ms_gpu_report_write (MsGpuSession *s, const MsTraceReport *r, MsFormat format,
                          GString *out);
/* 0, or 1 if the GPU's output failed its check, or --strict and an exact
 * metric or the address trace differ.  Call after ms_gpu_report_write. */
int ms_gpu_session_status (const MsGpuSession *s);
/* A one-line summary of what made the status 1, or NULL. */
const char *ms_gpu_session_failure (const MsGpuSession *s);
void ms_gpu_session_free (MsGpuSession *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsGpuSession, ms_gpu_session_free)

G_END_DECLS
