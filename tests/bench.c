/* bench.c - `make bench`: warp and lane accesses simulated per second for
 * transpose_naive and transpose_padded at 4096x4096, on one core and on all
 * cores, then the same streams replayed from trace files (memsim replay).
 * Usage: bench [SIZE] (default 4096x4096). */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include <glib/gstdio.h>

#include "emulator.h"
#include "problem.h"
#include "replay.h"
#include "trace-file.h"

static gboolean
bench_one (const char *name, const char *size, guint threads, GError **error)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (name));
  if (!ms_problem_set_size (p, size, error) || !ms_problem_setup (p, error))
    return FALSE;
  g_autoptr (MsStats) stats = NULL;
  struct timespec c0, c1;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c0);
  gint64 t0 = g_get_monotonic_time ();
  if (!ms_problem_simulate (p, ms_arch_default (), threads, NULL, &stats, error))
    return FALSE;
  double s = (double) (g_get_monotonic_time () - t0) / 1e6;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c1);
  /* On one thread the emulator runs on this thread: its CPU time is immune
   * to other processes competing for the cores, unlike the wall time. */
  double cpu = (double) (c1.tv_sec - c0.tv_sec) + (double) (c1.tv_nsec - c0.tv_nsec) / 1e9;
  guint64 warp_acc = 0, lane_acc = 0;
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *st = &g_array_index (stats->sites, MsSiteStats, i);
      warp_acc += st->c.executions;
      lane_acc += st->c.lanes;
    }
  if (!p->kernel->check (p, error))
    return FALSE;
  g_autofree char *cpu_text = threads == 1 ? g_strdup_printf ("%8.3f", cpu) : g_strdup ("       -");
  printf ("%-18s %-10s %7u %8.3f %s %14.1f %14.1f\n", name, size, threads ? threads
          : g_get_num_processors (), s, cpu_text, warp_acc / s / 1e6, lane_acc / s / 1e6);
  if (threads == 1)
    printf ("%-18s %-10s %7s %8s %8s %14.1f %14.1f   (per CPU second)\n", "", "", "", "", "",
            warp_acc / cpu / 1e6, lane_acc / cpu / 1e6);
  return TRUE;
}

/* Records name's stream to a trace, then replays it on one and on all
 * cores: lane accesses per second of the replay (decode + models). */
static gboolean
bench_replay (const char *name, const char *size, GError **error)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (name));
  if (!ms_problem_set_size (p, size, error) || !ms_problem_setup (p, error))
    return FALSE;
  g_autofree char *dir = g_dir_make_tmp ("memsim-bench-XXXXXX", error);
  if (dir == NULL)
    return FALSE;
  g_autofree char *path = g_build_filename (dir, "bench.trace", NULL);
  g_autoptr (MsRunInfo) info = ms_problem_run_info (p, ms_arch_default (), NULL);
  g_autoptr (MsTraceWriter) w = ms_trace_writer_new (path, info, error);
  if (w == NULL)
    return FALSE;
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, ms_trace_writer_sink (w));
  if (!ms_problem_simulate (p, ms_arch_default (), 0, &sinks, NULL, error)
      || !ms_trace_writer_finish (w, "passed", error))
    return FALSE;
  for (guint t = 0; t < 2; t++)
    {
      g_autoptr (MsTraceSource) src = ms_trace_source_open (path, error);
      if (src == NULL)
        return FALSE;
      g_autoptr (MsStats) stats = NULL;
      double s = 0;
      if (!ms_trace_replay_models (src, ms_arch_default (), t == 0 ? 1 : 0, NULL, &stats, &s,
                                   error))
        return FALSE;
      guint64 warp_acc = 0, lane_acc = 0;
      for (guint i = 0; i < stats->sites->len; i++)
        {
          warp_acc += g_array_index (stats->sites, MsSiteStats, i).c.executions;
          lane_acc += g_array_index (stats->sites, MsSiteStats, i).c.lanes;
        }
      printf ("%-18s %-10s %7u %8.3f %8s %14.1f %14.1f   (replay)\n", name, size,
              t == 0 ? 1 : g_get_num_processors (), s, "-", warp_acc / s / 1e6,
              lane_acc / s / 1e6);
    }
  g_unlink (path);
  g_rmdir (dir);
  return TRUE;
}

int
main (int argc, char **argv)
{
  const char *size = argc > 1 ? argv[1] : "4096x4096";
  const char *kernels[] = { "transpose_naive", "transpose_padded" };
  printf ("%-18s %-10s %7s %8s %8s %14s %14s\n", "kernel", "size", "threads", "wall s",
          "cpu s", "Mwarp-acc/s", "Mlane-acc/s");
  for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
    for (guint t = 0; t < 2; t++)
      {
        g_autoptr (GError) error = NULL;
        if (!bench_one (kernels[k], size, t == 0 ? 1 : 0, &error))
          {
            fprintf (stderr, "bench: %s\n", error->message);
            return 1;
          }
      }
  for (gsize k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      g_autoptr (GError) error = NULL;
      if (!bench_replay (kernels[k], size, &error))
        {
          fprintf (stderr, "bench: %s\n", error->message);
          return 1;
        }
    }
  return 0;
}
