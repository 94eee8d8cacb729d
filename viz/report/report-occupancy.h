/* report-occupancy.h - the occupancy of a launch (sim/models/occupancy.h)
 * as text, JSON and CSV, keyed by Nsight Compute's launch__ and sm__
 * metric names: `memsim occupancy` and the occupancy block of `memsim
 * trace` (report-occupancy.c). */
#pragma once

#include <glib.h>

#include "arch.h"
#include "occupancy.h"
#include "report.h"

G_BEGIN_DECLS

/* One launch configuration and its occupancy. */
typedef struct {
  MsOccInput in;
  char *registers_source;        /* where registers_per_thread came from (owned; NULL in
                                    sweep rows) */
  char *shared_source;           /* where static_shared came from (owned) */
  guint64 blocks;                /* blocks of the grid; 0: unknown (no waves) */
  gboolean ok;                   /* FALSE: the block cannot launch, see error */
  char *error;                   /* the calculator's message (owned) */
  MsOccupancy occ;
} MsOccupancyRow;

/* Fills row->occ, ok and error from row->in on arch. */
void ms_occupancy_row_compute (MsOccupancyRow *row, const MsArch *arch);
void ms_occupancy_row_clear (MsOccupancyRow *row);

/* `memsim occupancy`: the launch's table (launch, block, grid as launched)
 * and, when n_sweep > 0, one row per block size of sweep. */
void ms_occupancy_report_write (const char *kernel, const MsArch *arch, const unsigned block[3],
                                const unsigned grid[3], const MsOccupancyRow *launch,
                                const MsOccupancyRow *sweep, guint n_sweep, MsFormat format,
                                GString *out);

/* `memsim trace`: adds the launch's occupancy to a report already in out:
 * a short block at the end of the text, a top-level "occupancy" object in
 * the JSON; the CSV (one row per source line) is left as it is. */
void ms_occupancy_report_append (const MsOccupancyRow *row, const MsArch *arch, MsFormat format,
                                 GString *out);

G_END_DECLS
