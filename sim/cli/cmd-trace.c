/* cmd-trace.c - `memsim trace KERNEL`: run a kernel in the emulator, check
 * its output, print the memory counters per kernel and per source line. */
#include "config.h"

#include "commands.h"
#include "emulator.h"
#include "kernel-options.h"
#include "problem.h"
#include "progress.h"
#include "report.h"
#include "report-time.h"
#include "backend.h"
#include "side-by-side.h"
#include "trace-file.h"
#include "user-kernel.h"

static MsGpuOptions gpu_opts;   /* --gpu, --strict, --check-trace (gpu/side-by-side.h) */
static char *save_trace;        /* --save-trace FILE */

/* The launch's occupancy and predicted time after the report (text and
 * JSON); left out where the arch has no cost figures or the emulator's
 * probe of block 0 fails (the run itself has then said why). */
static void
append_costs (const MsKernelOptions *opts, const MsProblem *p, const MsArch *arch,
              const MsStats *stats, MsFormat format, GString *out)
{
  MsOccupancyRow row;
  MsTimePrediction t;
  gboolean timed;
  if (ms_kernel_options_costs (opts, p, arch, stats, &row, &t, &timed))
    ms_occupancy_report_append (&row, arch, format, out);
  if (timed)
    ms_time_report_append (&t, arch, ms_problem_buffers_bytes (p), format, out);
  ms_occupancy_row_clear (&row);
}

/* --gpu for a user's file: is there a GPU (the back-end's one-line error if
 * not), then nvcc builds the same file for it (cached) and the build
 * becomes the kernel's GPU entry. */
static gboolean
user_gpu_build (MsProblem *p, GError **error)
{
  MsGpuInfo info;
  if (!ms_gpu_available (&info, error))
    return FALSE;
  return ms_user_kernel_build_gpu (p, info.cc_major, info.cc_minor, error);
}

static int
trace_run (MsKernelOptions *opts, GOptionContext *ctx, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  MsFormat format;
  if (ms_parse_command_line (ctx, &argc, &argv, &opts->format, &format) != 0)
    return 2;
  if (argc != 2)
    {
      ms_error ("trace needs exactly one KERNEL (`memsim list` shows them) or FILE.cu:KERNEL");
      return 2;
    }
  gboolean user = ms_user_kernel_spec (argv[1]);
  if (user && (gpu_opts.check_trace || gpu_opts.save_gpu_trace))
    {
      ms_error ("--check-trace and --save-gpu-trace do not run your own .cu files yet: use "
                "--gpu for the measured counters beside the simulated ones");
      return 2;
    }
  int bad = ms_check_output ("-o", opts->output);
  if (bad == 0 && save_trace != NULL)
    bad = ms_check_output ("--save-trace", save_trace);
  if (bad == 0 && gpu_opts.save_gpu_trace != NULL)
    bad = ms_check_output ("--save-gpu-trace", gpu_opts.save_gpu_trace);
  if (bad != 0)
    return bad;
  if (opts->sample != NULL && save_trace != NULL)
    {
      ms_error ("--save-trace records every block: leave out --sample");
      return 2;
    }
  int regs;
  g_autoptr (MsProblem) p = ms_kernel_options_problem (opts, argv[1], &error);
  if (p == NULL || !ms_kernel_options_registers (opts, &regs, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  /* the preset before the setup: a launch may be sized for it (--gpu: the
   * measured device's, unless --arch) */
  gboolean on_gpu = gpu_opts.gpu || gpu_opts.strict || gpu_opts.check_trace
                    || gpu_opts.save_gpu_trace != NULL;
  g_autofree char *arch_note = NULL;
  int status;
  g_autoptr (MsArch) arch = ms_kernel_options_gpu_arch (opts, on_gpu, &arch_note, &status,
                                                        &error);
  if (arch == NULL)
    {
      ms_error ("%s", error->message);
      return status;
    }
  p->arch = arch;
  if (!ms_problem_setup (p, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  MsSinks sinks = { 0 };
  /* the trace heads with the launch; its check is written at the end */
  g_autoptr (MsRunInfo) launch_info = ms_problem_run_info (p, arch, NULL);
  g_autoptr (MsTraceWriter) writer = NULL;
  if (save_trace != NULL)
    {
      writer = ms_trace_writer_new (save_trace, launch_info, &error);
      if (writer == NULL)
        {
          ms_error ("--save-trace: %s", error->message);
          return 1;
        }
      ms_sinks_add (&sinks, ms_trace_writer_sink (writer));
    }
  if (user && (gpu_opts.gpu || gpu_opts.strict) && !user_gpu_build (p, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  g_autoptr (MsGpuSession) gpu = ms_gpu_session_begin (&gpu_opts, p, &sinks, &error);
  if (gpu == NULL && error != NULL)
    {
      ms_error ("%s", error->message);
      return 1;
    }
  g_autoptr (MsStats) stats = NULL;
  g_autoptr (MsRaceLog) races = ms_race_log_new ();
  ms_problem_set_race_log (p, races);
  gint64 t0 = g_get_monotonic_time ();
  if (!ms_simulate_with_progress (p, arch, (guint) opts->threads, &sinks, &stats, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  double seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_autoptr (GError) check_error = NULL;
  /* a sample leaves most of the output unwritten, and a user's kernel has no
   * reference: nothing to check */
  gboolean sampled = ms_stats_sampled (stats);
  gboolean checked = sampled || p->kernel->check == NULL || p->kernel->check (p, &check_error);
  if (!checked)
    g_clear_pointer (&gpu, ms_gpu_session_free);   /* no GPU run for a wrong kernel */
  if (gpu != NULL && !ms_gpu_session_run (gpu, &error))
    {
      ms_error ("%s: %s", p->kernel->name, error->message);
      return 1;
    }

  g_autoptr (MsRunInfo) info =
    ms_problem_run_info (p, arch, sampled ? "not run (a sample of the blocks ran)"
                                  : p->kernel->check == NULL ? "not run (your kernel: no reference)"
                                  : checked ? "passed" : check_error->message);
  if (writer != NULL && !ms_trace_writer_finish (writer, info->check, &error))
    {
      ms_error ("--save-trace: %s", error->message);
      return 1;
    }
  MsTraceReport report = { .info = info, .arch = arch, .stats = stats, .seconds = seconds,
                           .races = races, .arch_note = arch_note };
  g_autoptr (GString) out = g_string_new (NULL);
  if (gpu != NULL)
    ms_gpu_report_write (gpu, &report, format, out);
  else
    ms_report_write (&report, format, out);
  append_costs (opts, p, arch, stats, format, out);
  if (!ms_write_output (opts->output, out, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  if (!checked)
    {
      ms_error ("%s: %s", p->kernel->name, check_error->message);
      return 1;
    }
  if (ms_gpu_session_status (gpu) != 0)
    {
      ms_error ("%s", ms_gpu_session_failure (gpu));
      return 1;
    }
  return 0;
}

int
ms_cmd_trace (int argc, char **argv)
{
  MsKernelOptions opts = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "KERNEL|FILE.cu:KERNEL - simulate a kernel's global and shared memory accesses");
  g_option_context_set_description (
    ctx, "Counts what an H100 would do for every warp-level memory instruction: global\n"
         "requests and 32-byte sectors, shared-memory wavefronts and bank conflicts,\n"
         "per kernel and per source line.  `memsim list` shows the kernels.\n\n"
         "Examples:\n"
         "  memsim trace transpose_naive\n"
         "  memsim trace transpose_padded --size 1000x700 --format json -o padded.json\n"
         "  memsim trace transpose_shared --save-trace t.trace   # then: memsim replay t.trace\n"
         "  memsim trace transpose_shared --gpu --check-trace   # measured beside simulated\n"
         "  memsim trace my.cu:scale --grid 64 --block 256 --arg out=float[16384] \\\n"
         "      --arg in=float[16384] --arg n=16384        # your own CUDA kernel\n");
  ms_kernel_options_add (ctx, &opts, TRUE);
  ms_kernel_options_add_user (ctx, &opts);
  GOptionEntry entries[] = {
    { "save-trace", 0, 0, G_OPTION_ARG_FILENAME, &save_trace,
      "Also write the access stream to FILE (memsim's trace format; `memsim replay FILE` "
      "reports it)", "FILE" },
    { NULL },
  };
  g_option_context_add_main_entries (ctx, entries, NULL);
  ms_gpu_options_add (ctx, &gpu_opts);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  argv = ms_nvcc_spellings (&argc, argv, owned, "g");   /* -DNAME as nvcc takes it */
  int status = trace_run (&opts, ctx, argc, argv);
  ms_kernel_options_clear (&opts);
  g_clear_pointer (&save_trace, g_free);
  g_clear_pointer (&gpu_opts.save_gpu_trace, g_free);
  return status;
}
