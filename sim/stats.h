/* stats.h - counters per access site, the models' output aggregated. */
#pragma once

#include <glib.h>

#include "access.h"

G_BEGIN_DECLS

typedef struct {
  guint64 executions;   /* warp-level instructions executed */
  guint64 lanes;        /* active lanes summed over executions */
  guint64 partial;      /* executions with fewer lanes than the warp has */
  /* global memory (coalescing model) */
  guint64 requests, sectors, lines, bytes;
  /* shared memory (bank model) */
  guint64 wavefronts, ideal, excessive;
} MsCounters;

typedef struct {
  const MsSite *site;
  MsSpace space;
  MsOp op;
  guint width;
  MsCounters c;
} MsSiteStats;

typedef struct {
  GArray *sites;        /* MsSiteStats, sorted by source order */
  guint64 blocks, threads, warps;
} MsStats;

MsStats *ms_stats_new (void);
void ms_stats_free (MsStats *stats);
void ms_counters_add (MsCounters *into, const MsCounters *c);
/* Totals over all sites with the given space and op (op < 0: any op). */
void ms_stats_total (const MsStats *stats, MsSpace space, int op, MsCounters *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsStats, ms_stats_free)

G_END_DECLS
