/* progress.h - the progress line of the commands that simulate a kernel
 * (trace, compare, diagram): "memsim: KERNEL: DONE/TOTAL blocks (P%)" on
 * stderr, once a simulation has run for more than a second, updated in place
 * at most 5 times a second and erased when it ends (succeeded or failed), so
 * what memsim prints is the same with or without it.  Shown when stderr is a
 * terminal; MEMSIM_PROGRESS=1 shows it whatever stderr is, MEMSIM_PROGRESS=0
 * never. */
#pragma once

#include <glib.h>

#include "problem.h"

/* ms_problem_simulate (problem.h) with the progress line. */
gboolean ms_simulate_with_progress (MsProblem *p, const MsArch *arch, guint threads,
                                    const MsSinks *extra, MsStats **stats, GError **error);
