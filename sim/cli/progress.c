/* progress.c - see progress.h. */
#include "config.h"
#include "progress.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *kernel;
  gboolean sampling;   /* --sample given: no point suggesting it */
  gint64 start;
  int width;   /* of the line on stderr; 0 while none is shown */
} Progress;

static gboolean
progress_wanted (void)
{
  const char *env = g_getenv ("MEMSIM_PROGRESS");
  if (env != NULL && *env != '\0')
    return strcmp (env, "0") != 0;
  return isatty (2);
}

/* The emulator's callback (a worker thread, at most 5 times a second). */
static void
progress_show (gpointer data, guint64 done, guint64 total)
{
  Progress *pr = data;
  if (g_get_monotonic_time () - pr->start <= G_USEC_PER_SEC)
    return;
  /* a run that will take more than half a minute: say what is left, and
   * that a sample would be quicker */
  gint64 elapsed = g_get_monotonic_time () - pr->start;
  double left = done ? (double) elapsed / 1e6 * (double) (total - done) / (double) done : 0;
  g_autofree char *hint = left > 30 && !pr->sampling
                          ? g_strdup_printf (", about %.0f s left; --sample 10 takes a tenth", left)
                          : g_strdup ("");
  g_autofree char *line =
    g_strdup_printf ("memsim: %s: %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " blocks (%d%%%s)",
                     pr->kernel, done, total, (int) (100 * done / MAX (total, 1)), hint);
  pr->width = MAX (pr->width, (int) strlen (line));
  fprintf (stderr, "\r%-*s", pr->width, line);   /* spaces over a longer earlier line */
  fflush (stderr);
}

gboolean
ms_simulate_with_progress (MsProblem *p, const MsArch *arch, guint threads,
                           const MsSinks *extra, MsStats **stats, GError **error)
{
  Progress pr = { p->kernel->name, p->sample_period > 1, g_get_monotonic_time (), 0 };
  if (progress_wanted ())
    ms_problem_set_progress (p, progress_show, &pr);
  gboolean ok = ms_problem_simulate (p, arch, threads, extra, stats, error);
  ms_problem_set_progress (p, NULL, NULL);
  /* the workers are done: the line, if any, goes */
  if (pr.width > 0)
    {
      fprintf (stderr, "\r%*s\r", pr.width, "");
      fflush (stderr);
    }
  return ok;
}
