/* cmd-convert.c - `memsim convert TRACE --to FORMAT -o OUT`: one trace
 * format into another (memsim's own, NVBit mem_trace text, an Accel-Sim
 * trace folder), streaming; what each format keeps is in docs/importers.md. */
#include "config.h"

#include <string.h>

#include "accelsim.h"
#include "commands.h"
#include "nvbit.h"
#include "source.h"
#include "trace-file.h"

int
ms_cmd_convert (int argc, char **argv)
{
  g_autofree char *to = NULL, *output = NULL;
  GOptionEntry entries[] = {
    { "to", 't', 0, G_OPTION_ARG_STRING, &to, "memsim, nvbit or accelsim", "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "The converted trace: a file (memsim, nvbit) or a folder (accelsim: kernelslist.g and "
      "kernel-1.traceg)", "OUT" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "TRACE --to FORMAT -o OUT - convert a trace to another tool's format");
  g_option_context_set_description (
    ctx, "TRACE is any trace `memsim replay` reads.  memsim keeps everything; NVBit's\n"
         "mem_trace text has no sites (one per opcode when read back), no masks (an\n"
         "inactive lane prints 0) and no buffers; Accel-Sim's keeps the records and sites\n"
         "(pseudo PCs) with blocks and warps in ascending order (docs/importers.md).\n\n"
         "Examples:\n"
         "  memsim convert t.trace --to accelsim -o t-accelsim\n"
         "  memsim convert mem_trace.txt --to memsim -o t.trace\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  if (argc != 2)
    {
      ms_error ("convert needs exactly one TRACE");
      return 2;
    }
  if (to == NULL || (strcmp (to, "memsim") != 0 && strcmp (to, "nvbit") != 0
                     && strcmp (to, "accelsim") != 0))
    {
      ms_error ("--to: choose memsim, nvbit or accelsim");
      return 2;
    }
  if (output == NULL || *output == '\0')
    {
      ms_error ("convert needs -o OUT");
      return 2;
    }
  int bad = strcmp (to, "accelsim") == 0 ? 0 : ms_check_output ("-o", output);
  if (bad != 0)
    return bad;
  g_autoptr (MsTraceSource) src = ms_trace_source_open (argv[1], &error);
  if (src == NULL)
    {
      ms_error ("%s", error->message);
      return 1;
    }
  gboolean ok = strcmp (to, "memsim") == 0  ? ms_trace_file_convert (src, output, &error)
                : strcmp (to, "nvbit") == 0 ? ms_nvbit_export (src, output, &error)
                                            : ms_accelsim_export (src, output, &error);
  if (!ok)
    {
      ms_error ("%s", error->message);
      return 1;
    }
  return 0;
}
