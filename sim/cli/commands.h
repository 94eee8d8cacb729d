/* commands.h - memsim's subcommands, one file each (cmd-*.c). */
#pragma once

#include <glib.h>

#include "report.h"

typedef struct {
  const char *name;
  const char *summary;
  /* argv[0] is the command name; returns the exit status */
  int (*run) (int argc, char **argv);
} MsCommand;

int ms_cmd_list (int argc, char **argv);
int ms_cmd_trace (int argc, char **argv);
int ms_cmd_compare (int argc, char **argv);
int ms_cmd_diagram (int argc, char **argv);
int ms_cmd_replay (int argc, char **argv);
int ms_cmd_convert (int argc, char **argv);
int ms_cmd_occupancy (int argc, char **argv);
int ms_cmd_run (int argc, char **argv);

/* Before a run: whether the output path given to option can be written
 * (0), else the one-line error is printed and the exit status returned (2
 * for an empty name, 1 for an unwritable place). */
int ms_check_output (const char *option, const char *path);

/* Parses a command's line: its options, then --format, whose text the
 * parse stores in *format_text.  On a bad option or format prints the
 * one-line error and returns 2 (bad usage), else 0. */
int ms_parse_command_line (GOptionContext *ctx, int *argc, char ***argv,
                           char *const *format_text, MsFormat *format);

/* Prints "memsim: MESSAGE" on stderr, one line. */
void ms_error (const char *fmt, ...) G_GNUC_PRINTF (1, 2);
