/* cmd-replay.c - `memsim replay FILE`: the models over a recorded access
 * stream (a memsim trace, NVBit mem_trace output, an Accel-Sim trace),
 * reported exactly as `memsim trace` reports a live run. */
#include "config.h"

#include "commands.h"
#include "kernel-options.h"
#include "replay.h"
#include "report.h"
#include "source.h"

int
ms_cmd_replay (int argc, char **argv)
{
  g_autofree char *arch_name = NULL, *format_text = NULL, *output = NULL;
  int threads = 0;
  GOptionEntry entries[] = {
    { "arch", 'a', 0, G_OPTION_ARG_STRING, &arch_name,
      "Architecture to cost the accesses on (default: the one the trace was recorded on)",
      "ARCH" },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads,
      "CPU threads for the models (default: one per core)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format_text, "Output format: text, json or csv",
      "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE instead of stdout",
      "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "FILE - report a recorded access stream as `memsim trace` reports a live run");
  g_option_context_set_description (
    ctx, "FILE is a memsim trace (memsim trace KERNEL --save-trace FILE), NVBit mem_trace\n"
         "output or an Accel-Sim .traceg / kernelslist.g; the format is read from the\n"
         "file's first bytes.  The report is the live run's, per-line table included;\n"
         "--arch costs the same accesses on another preset.\n\n"
         "Examples:\n"
         "  memsim trace transpose_shared --save-trace t.trace\n"
         "  memsim replay t.trace --format json\n"
         "  memsim replay t.trace --arch kepler64\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  MsFormat format;
  if (ms_parse_command_line (ctx, &argc, &argv, &format_text, &format) != 0)
    return 2;
  if (argc != 2)
    {
      ms_error ("replay needs exactly one trace FILE (memsim trace KERNEL --save-trace FILE "
                "makes one)");
      return 2;
    }
  if (threads < 0 || threads > 1024)
    {
      ms_error ("--threads %d: give 0 (one per core) to 1024", threads);
      return 2;
    }
  int bad = ms_check_output ("-o", output);
  if (bad != 0)
    return bad;
  g_autoptr (MsTraceSource) src = ms_trace_source_open (argv[1], &error);
  if (src == NULL)
    {
      ms_error ("%s", error->message);
      return 1;
    }
  g_autoptr (MsArch) arch = ms_kernel_options_trace_arch (arch_name, src->info (src), &error);
  if (arch == NULL)
    {
      ms_error ("%s", error->message);
      return 2;
    }
  g_autoptr (MsStats) stats = NULL;
  double seconds = 0;
  if (!ms_trace_replay_models (src, arch, (guint) threads, NULL, &stats, &seconds, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  MsTraceReport report = { .info = src->info (src), .arch = arch, .stats = stats,
                           .seconds = seconds };
  g_autoptr (GString) out = g_string_new (NULL);
  ms_report_write (&report, format, out);
  if (!ms_write_output (output, out, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  return 0;
}
