/* installcheck.c - `make installcheck` builds this against the installed
 * libmemsim (pkg-config memsim) and runs it: it replays a trace file and
 * prints the per-line CSV report, as `memsim replay FILE --format csv`. */
#include <stdio.h>

#include <replay.h>
#include <report.h>

int
main (int argc, char **argv)
{
  GError *error = NULL;
  MsTraceSource *src = argc == 2 ? ms_trace_source_open (argv[1], &error) : NULL;
  MsStats *stats = NULL;
  if (src == NULL
      || !ms_trace_replay_models (src, ms_arch_default (), 0, NULL, &stats, NULL, &error))
    {
      fprintf (stderr, "installcheck: %s\n", error ? error->message : "usage: installcheck TRACE");
      return 1;
    }
  MsTraceReport r = { .info = src->info (src), .arch = ms_arch_default (), .stats = stats };
  GString *out = g_string_new (NULL);
  ms_report_write (&r, MS_FORMAT_CSV, out);
  fputs (out->str, stdout);
  g_string_free (out, TRUE);
  ms_stats_free (stats);
  ms_trace_source_free (src);
  return 0;
}
