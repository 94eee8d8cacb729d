/* races.h - what a producer found about a launch's synchronisation: the
 * shared-memory races between warps and the intra-warp hazards, as pairs
 * of accesses (site, thread, warp) with the block and the byte offset.
 *
 * The emulator's race check (sim/emulator/racecheck.c) fills a log; the
 * reports (viz/report) list it.  It lives beside the access record because
 * both ends of the pipeline see it, like the launch description: a log is
 * plain data, it knows nothing of how races are found.  Trace files do not
 * carry it (a stream has no barriers), so a replay reports none.
 */
#pragma once

#include <glib.h>

#include "access.h"

G_BEGIN_DECLS

/* How many distinct pairs of sites a report lists (the count covers all). */
#define MS_RACES_LISTED 10

/* One side of a race: an access of one lane. */
typedef struct {
  const MsSite *site;
  guint8 op;              /* MsOp: a load, a store or an atomic */
  guint16 warp;           /* warp index in the block */
  guint thread[3];        /* threadIdx */
} MsRaceSide;

/* Two accesses of the same shared bytes, at least one a write, with no
 * barrier between: `first` came first in the emulator's order (which is
 * not the GPU's: either may come first there). */
typedef struct {
  MsRaceSide first, second;
  gboolean intra_warp;    /* two lanes of one warp (a warning, not a race) */
  guint block[3];         /* blockIdx of the example */
  guint offset;           /* byte offset in the block's shared memory */
  guint64 count;          /* lane accesses found at this pair of sites */
  /* where the example was found: linear block index, then the finding's
   * index in that block (a report's order, the same for any thread count) */
  guint64 found_block, found_seq;
} MsRace;

typedef struct {
  GArray *races;          /* MsRace, one per (sites, ops, intra_warp); see sort */
  guint64 n_races;        /* lane accesses found racing (between warps) */
  guint64 n_warp_hazards; /* lane accesses in intra-warp hazards */
  gboolean warp_hazards_checked;  /* the check looked for intra-warp hazards
                                   * (independent thread scheduling, sm_70+) */
} MsRaceLog;

MsRaceLog *ms_race_log_new (void);
void ms_race_log_free (MsRaceLog *log);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsRaceLog, ms_race_log_free)

/* Empties the log. */
void ms_race_log_clear (MsRaceLog *log);

/* Counts race (race->count lane accesses) in log: a pair of sites already
 * there adds its count and keeps the earlier example (found_block,
 * found_seq).  Returns the log's entry. */
MsRace *ms_race_log_add (MsRaceLog *log, const MsRace *race);
/* Adds every entry and count of from to into. */
void ms_race_log_merge (MsRaceLog *into, const MsRaceLog *from);
/* Puts the entries in the order they were found (block, then within it). */
void ms_race_log_sort (MsRaceLog *log);
/* Site pairs of races between warps, and of intra-warp hazards. */
guint ms_race_log_pairs (const MsRaceLog *log, gboolean intra_warp);

/* "a read" / "a write" / "an atomic" */
const char *ms_race_op_text (guint8 op);

/* The source text of a site (newly allocated), or NULL. */
typedef char *(*MsSourceLineFn) (gpointer data, const MsSite *site);

/* One line that says what raced: "tests.cu:37 `ST (tile[ty][tx], v)`
 * (a write by warp 1, thread (0,1,0)) and tests.cu:41 `...` (a read by
 * warp 0, thread (1,0,0)), block (0,0,0), shared byte 128".  source_line
 * may be NULL. */
char *ms_race_describe (const MsRace *race, MsSourceLineFn source_line, gpointer data);

G_END_DECLS
