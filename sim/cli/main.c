/* main.c - memsim's entry point: one table of commands, one file each. */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "output.h"

static const MsCommand commands[] = {
  { "list", "List the built-in kernels", ms_cmd_list },
  { "trace", "Simulate a kernel: memory transactions and bank conflicts per source line",
    ms_cmd_trace },
  { "run", "Run a whole CUDA program on the CPU and trace every launch", ms_cmd_run },
  { "compare", "Simulate every variant of a kernel family, one row each (seed tables)",
    ms_cmd_compare },
  { "replay", "Report a recorded access stream (memsim, NVBit or Accel-Sim trace) as trace does",
    ms_cmd_replay },
  { "convert", "Convert a trace between memsim's, NVBit's and Accel-Sim's formats",
    ms_cmd_convert },
  { "diagram", "Draw bank, sector, tile or per-line diagrams for slides (SVG, PNG, PDF)",
    ms_cmd_diagram },
  { "occupancy", "Theoretical occupancy of a kernel's launch, per block size", ms_cmd_occupancy },
};

void
ms_error (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "memsim: %s\n", msg);
}

int
ms_parse_command_line (GOptionContext *ctx, int *argc, char ***argv, char *const *format_text,
                       MsFormat *format)
{
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, argc, argv, &error)
      || !ms_format_parse (*format_text, format, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  return 0;
}

int
ms_check_output (const char *option, const char *path)
{
  g_autoptr (GError) error = NULL;
  if (ms_output_check (path, &error))
    return 0;
  ms_error ("%s: %s", option, error->message);
  return g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_INVAL) ? 2 : 1;
}

static void
usage (FILE *to)
{
  fprintf (to, "Usage: memsim COMMAND [OPTION...]\n\n"
               "Simulates the memory behaviour of CUDA kernels on the CPU: global-memory\n"
               "requests and 32-byte sectors, shared-memory wavefronts and bank conflicts.\n\n"
               "Commands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    fprintf (to, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf (to, "\n`memsim COMMAND --help` shows a command's options; `memsim --version` the "
               "version.\nExample: memsim trace transpose_naive --size 1024x1024\n");
}

static int run (int argc, char **argv);

/* Whatever the command, output that did not reach stdout (a full disk, a
 * closed pipe) is a failure: exit 1 with one line (unless the command
 * already failed and said why). */
int
main (int argc, char **argv)
{
  int status = run (argc, argv);
  if ((fflush (stdout) != 0 || ferror (stdout)) && status == 0)
    {
      ms_error ("cannot write to standard output: %s", g_strerror (errno));
      return 1;
    }
  return status;
}

static int
run (int argc, char **argv)
{
  setlocale (LC_ALL, "");
  if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0
      || strcmp (argv[1], "help") == 0)
    {
      usage (argc < 2 ? stderr : stdout);
      return argc < 2 ? 2 : 0;
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      printf ("memsim %s\n", PACKAGE_VERSION);
      return 0;
    }
  for (gsize i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (argv[1], commands[i].name) == 0)
      return commands[i].run (argc - 1, argv + 1);
  ms_error ("unknown command '%s'; `memsim --help` lists the commands", argv[1]);
  return 2;
}
