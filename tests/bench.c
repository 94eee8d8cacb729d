/* bench.c - `make bench`, in one run:
 *   1. the whole memsim process (`memsim trace transpose_naive`: start-up,
 *      input fill, emulation, models, output check, report) on one core and
 *      on all cores, against a native C loop doing the same memory work
 *      (the same fill, the transpose in the kernel's block order, the same
 *      check) on one core: wall time, ratio, peak memory per element, each
 *      the median and the least of 5 rounds of the three in turn; and issue
 *      11's goal, 8192x8192 on all cores;
 *   2. start-up: `memsim --version` and `memsim trace` of a one-warp kernel;
 *   3. the emulator alone: warp and lane accesses simulated per second for
 *      transpose_naive and transpose_padded, on one core and on all cores,
 *      and on one core for the reductions and GEMMs of issue 11's goal (the
 *      least time of 3 runs);
 *   4. the same streams replayed from trace files (memsim replay).
 * Usage: bench [SIZE] (default 4096x4096); memsim is $MEMSIM or ./memsim.
 * bench --families: every built-in kernel of the families issue 11's goal
 * names (transpose, reduce, gemm), emulator alone, one core.
 * docs/performance.md records the figures. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "emulator.h"
#include "parallel.h"
#include "problem.h"
#include "replay.h"
#include "trace-file.h"

/* One ms_problem_simulate of p on threads (0: all cores): its wall and
 * this thread's CPU seconds.  On one thread the emulator runs on this
 * thread: its CPU time is immune to other processes competing for the
 * cores, unlike the wall time. */
static gboolean
simulate_timed (MsProblem *p, guint threads, MsStats **stats, double *wall, double *cpu,
                GError **error)
{
  struct timespec c0, c1;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c0);
  gint64 t0 = g_get_monotonic_time ();
  if (!ms_problem_simulate (p, ms_arch_default (), threads, NULL, stats, error))
    return FALSE;
  *wall = (double) (g_get_monotonic_time () - t0) / 1e6;
  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &c1);
  *cpu = (double) (c1.tv_sec - c0.tv_sec) + (double) (c1.tv_nsec - c0.tv_nsec) / 1e9;
  return TRUE;
}

/* The lane accesses of a run's sites, and its warp-level accesses in
 * *warp_acc (may be NULL). */
static guint64
lane_accesses (const MsStats *stats, guint64 *warp_acc)
{
  guint64 lanes = 0, warps = 0;
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *st = &g_array_index (stats->sites, MsSiteStats, i);
      warps += st->c.executions;
      lanes += st->c.lanes;
    }
  if (warp_acc)
    *warp_acc = warps;
  return lanes;
}

/* The emulator and models alone, threads (0: all cores) simulating name
 * at size: the least wall and CPU time of BENCH_ROUNDS runs (one run
 * on this VM moves by 30% and more from one minute to the next). */
#define BENCH_ROUNDS 3
static gboolean
bench_one (const char *name, const char *size, guint threads, GError **error)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (name));
  if (!ms_problem_set_size (p, size, error) || !ms_problem_setup (p, error))
    return FALSE;
  g_autoptr (MsStats) stats = NULL;
  double s = G_MAXDOUBLE, cpu = G_MAXDOUBLE;
  for (guint r = 0; r < BENCH_ROUNDS; r++)
    {
      double rs, rcpu;
      g_clear_pointer (&stats, ms_stats_free);
      if (!simulate_timed (p, threads, &stats, &rs, &rcpu, error))
        return FALSE;
      s = MIN (s, rs);
      cpu = MIN (cpu, rcpu);
    }
  guint64 warp_acc, lane_acc = lane_accesses (stats, &warp_acc);
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
      guint64 warp_acc, lane_acc = lane_accesses (stats, &warp_acc);
      printf ("%-18s %-10s %7u %8.3f %8s %14.1f %14.1f   (replay)\n", name, size,
              t == 0 ? 1 : g_get_num_processors (), s, "-", warp_acc / s / 1e6,
              lane_acc / s / 1e6);
    }
  g_unlink (path);
  g_rmdir (dir);
  return TRUE;
}

/* Runs argv (NULL-terminated) with stdout to /dev/null: wall seconds, and
 * the child's peak resident memory in *peak_kb (may be NULL); -1 if it fails. */
static double
run_process (const char *const *argv, long *peak_kb)
{
  fflush (stdout);   /* or the child's freopen writes our buffer again */
  gint64 t0 = g_get_monotonic_time ();
  pid_t pid = fork ();
  if (pid == 0)
    {
      if (freopen ("/dev/null", "w", stdout) == NULL)
        _exit (127);
      execv (argv[0], (char *const *) argv);
      _exit (127);
    }
  int status = 0;
  struct rusage ru;
  if (pid < 0 || wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status)
      || WEXITSTATUS (status) != 0)
    return -1;
  if (peak_kb)
    *peak_kb = ru.ru_maxrss;
  return (double) (g_get_monotonic_time () - t0) / 1e6;
}

/* The median of the n times t (sorted in place), the least in *least
 * (may be NULL). */
static double
median_of (double *t, guint n, double *least)
{
  for (guint i = 1; i < n; i++)
    for (guint j = i; j > 0 && t[j - 1] > t[j]; j--)
      {
        double x = t[j];
        t[j] = t[j - 1];
        t[j - 1] = x;
      }
  if (least)
    *least = t[0];
  return t[n / 2];
}

/* The median of n runs of argv, and the least in *least (may be NULL): on
 * a shared machine the median says what a run takes now, the least what
 * the program takes when its neighbours leave it the cores. */
static double
median_run (const char *const *argv, guint n, long *peak_kb, double *least)
{
  double t[32];
  n = MIN (n, G_N_ELEMENTS (t));
  for (guint i = 0; i < n; i++)
    if ((t[i] = run_process (argv, peak_kb)) < 0)
      return -1;
  return median_of (t, n, least);
}

/* What `memsim trace transpose_naive` does to memory, in plain C on one
 * core: the input filled with the same generator, the transpose in the
 * kernel's order (32x32 blocks in linear order, threads in linear order),
 * the output compared with the input.  Wall seconds. */
static double
native_transpose (gsize w, gsize h)
{
  gint64 t0 = g_get_monotonic_time ();
  float *in = malloc (w * h * sizeof *in), *out = malloc (w * h * sizeof *out);
  if (in == NULL || out == NULL)
    return -1;
  guint64 key = ms_random_key (2026, 0);
  for (gsize i = 0; i < w * h; i++)
    in[i] = (float) ((gint64) (ms_random_bits (key, i) >> 40) - (1 << 23)) * 0x1p-23f;
  for (gsize by = 0; by < h; by += 32)
    for (gsize bx = 0; bx < w; bx += 32)
      for (gsize y = by; y < MIN (h, by + 32); y++)
        for (gsize x = bx; x < MIN (w, bx + 32); x++)
          out[x * h + y] = in[y * w + x];
  gsize bad = 0;
  for (gsize x = 0; x < w; x++)
    for (gsize y = 0; y < h; y++)
      bad += out[x * h + y] != in[y * w + x];
  free (in);
  free (out);
  double s = (double) (g_get_monotonic_time () - t0) / 1e6;
  return bad ? -1 : s;
}

#define ROUNDS 5   /* of the whole-process comparison */

static void
bench_process (const char *size)
{
  const char *memsim = g_getenv ("MEMSIM") ? g_getenv ("MEMSIM") : "./memsim";
  guint64 w = 0, h = 0;
  if (sscanf (size, "%" G_GUINT64_FORMAT "x%" G_GUINT64_FORMAT, &w, &h) != 2)
    w = h = g_ascii_strtoull (size, NULL, 10);
  printf ("Whole process: memsim trace transpose_naive --size %s (median of %d rounds, least "
          "in brackets; a round runs the native loop, memsim on one core and on all cores in "
          "turn, so that a neighbour's load falls on the three alike)\n", size, ROUNDS);
  const char *j1[] = { memsim, "trace", "transpose_naive", "--size", size, "-j", "1", NULL };
  const char *jn[] = { memsim, "trace", "transpose_naive", "--size", size, "-j", "0", NULL };
  double t[3][ROUNDS];
  long peak[3] = { 0, 0, 0 };
  for (int r = 0; r < ROUNDS; r++)
    {
      t[0][r] = native_transpose (w, h);
      t[1][r] = run_process (j1, &peak[1]);
      t[2][r] = run_process (jn, &peak[2]);
      for (int k = 0; k < 3; k++)
        if (t[k][r] < 0)
          {
            fprintf (stderr, "bench: a run failed\n");
            return;
          }
    }
  double med[3], least[3];
  for (int k = 0; k < 3; k++)
    med[k] = median_of (t[k], ROUNDS, &least[k]);
  printf ("  %-34s %8.3f s\n  %-34s (%6.3f s)\n", "native C loop, one core", med[0], "",
          least[0]);
  for (int k = 1; k < 3; k++)
    printf ("  %-34s %8.3f s  %5.2fx native  %5.2fx one core  peak %ld MB (%.1f B/element)\n"
            "  %-34s (%6.3f s  %5.2fx native  %5.2fx one core)\n",
            k == 1 ? "memsim, one core" : "memsim, all cores", med[k], med[k] / med[0],
            med[1] / med[k], peak[k] / 1024, peak[k] * 1024.0 / (double) (w * h), "",
            least[k], least[k] / least[0], least[1] / least[k]);
  /* issue 11's goal: under the 1.73 s Nsight Compute takes on the H100 host */
  const char *goal[] = { memsim, "trace", "transpose_naive", "--size", "8192x8192", NULL };
  double goal_least = 0, goal_median = median_run (goal, 3, NULL, &goal_least);
  printf ("  %-34s %8.3f s  (least of 3 %.3f s; Nsight Compute on the H100 host: 1.73 s)\n",
          "8192x8192, all cores", goal_median, goal_least);
  const char *version[] = { memsim, "--version", NULL };
  const char *tiny[] = { memsim, "trace", "gmem_stride", "-p", "n=32", "-j", "1", NULL };
  printf ("Start-up (median of 21): memsim --version %.1f ms, memsim trace gmem_stride "
          "-p n=32 %.1f ms\n\n", 1e3 * median_run (version, 21, NULL, NULL),
          1e3 * median_run (tiny, 21, NULL, NULL));
}

/* Every kernel of the transpose, reduction and GEMM families, not only
 * the rows above: emulator and models alone, one core, least of
 * BENCH_ROUNDS (bench_one), at a size of about a tenth of a second or
 * more each. */
/* The header of bench_one's rows. */
static void
print_rows_header (void)
{
  printf ("%-18s %-10s %7s %8s %8s %14s %14s\n", "kernel", "size", "threads", "wall s",
          "cpu s", "Mwarp-acc/s", "Mlane-acc/s");
}

static int
bench_families (void)
{
  static const char *const families[][2] = {
    { "transpose", "4096x4096" }, { "reduce", "4194304" }, { "gemm", "256" },
  };
  printf ("Every kernel of the goal's families: emulator and models alone (least of %d "
          "runs), one core\n", BENCH_ROUNDS);
  print_rows_header ();
  for (gsize f = 0; f < G_N_ELEMENTS (families); f++)
    for (const MsKernel *const *k = ms_kernels (); *k; k++)
      if (g_strcmp0 ((*k)->family, families[f][0]) == 0)
        {
          g_autoptr (GError) error = NULL;
          if (!bench_one ((*k)->name, families[f][1], 1, &error))
            {
              g_printerr ("bench: %s: %s\n", (*k)->name, error->message);
              return 1;
            }
        }
  return 0;
}

/* One kernel, emulator and models alone on one core, `rounds` runs: the
 * least and the median CPU time, to a tenth of a millisecond (an A/B of
 * two builds alternates their bench binaries: docs/performance.md). */
static int
bench_kernel (const char *name, const char *size, guint rounds)
{
  g_autoptr (GError) error = NULL;
  const MsKernel *k = ms_kernel_find (name);
  if (k == NULL)
    {
      fprintf (stderr, "bench: no kernel %s\n", name);
      return 1;
    }
  g_autoptr (MsProblem) p = ms_problem_new (k);
  g_autoptr (GArray) cpu = g_array_new (FALSE, FALSE, sizeof (double));
  guint64 lanes = 0;
  if (!ms_problem_set_size (p, size, &error) || !ms_problem_setup (p, &error))
    goto fail;
  for (guint r = 0; r < MAX (rounds, 1); r++)
    {
      g_autoptr (MsStats) stats = NULL;
      double wall, c;
      if (!simulate_timed (p, 1, &stats, &wall, &c, &error))
        goto fail;
      g_array_append_val (cpu, c);
      lanes = lane_accesses (stats, NULL);
    }
  if (!p->kernel->check (p, &error))
    goto fail;
  double least, median = median_of ((double *) cpu->data, cpu->len, &least);
  printf ("%s %s: least %.4f s (%.1f M lane accesses per CPU second), median %.4f s, "
          "%u runs, one core\n", name, size, least, lanes / least / 1e6, median, cpu->len);
  return 0;
fail:
  fprintf (stderr, "bench: %s: %s\n", name, error->message);
  return 1;
}

int
main (int argc, char **argv)
{
  if (argc > 3 && strcmp (argv[1], "--kernel") == 0)
    return bench_kernel (argv[2], argv[3], argc > 4 ? (guint) atoi (argv[4]) : 5);
  if (argc > 1 && strcmp (argv[1], "--families") == 0)
    return bench_families ();
  const char *size = argc > 1 ? argv[1] : "4096x4096";
  const char *kernels[] = { "transpose_naive", "transpose_padded" };
  bench_process (size);
  printf ("Emulator and models alone (least of %d runs)\n", BENCH_ROUNDS);
  print_rows_header ();
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
  /* the other families of issue 11's goal, on one core (their sizes fixed:
   * about a second each) */
  static const char *const others[][2] = {
    { "reduce_sequential", "4194304" }, { "reduce_interleaved", "4194304" },
    { "reduce_shfl", "4194304" }, { "gemm_naive", "256" }, { "gemm_tiled", "256" },
    { "gemm_regtile", "512" },
  };
  for (gsize k = 0; k < G_N_ELEMENTS (others); k++)
    {
      g_autoptr (GError) error = NULL;
      if (!bench_one (others[k][0], others[k][1], 1, &error))
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
