/* instructions.h - warp-level instructions executed (Nsight Compute's
 * smsp__inst_executed.sum) of a launch of device code run from PTX.
 *
 * The engine counts how often each of its blocks of PTX ran, one count per
 * group of lanes that ran it (a divergent warp's paths each count, as each
 * is issued on the GPU).  The GPU executes ptxas's SASS, not the PTX: the
 * two share source lines (.loc, nvdisasm's line marks), so each line's
 * PTX count is turned into SASS instructions by the line's ratio of SASS
 * to PTX instructions (instructions.c says when that is exact).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* n PTX instructions of source line `where` ("file.cu:LINE", basename; ""
 * none) in the engine's block `block`; `at`: the line of the call they
 * were inlined at by memsim (a .func's body), "" none; `guard`: the block
 * of the conditional branch that skips them (a short forward branch over
 * straight code, which ptxas may predicate instead: then every warp that
 * reaches the branch issues them), else `block`. */
typedef struct {
  guint block, guard;
  guint n;
  guint memory;   /* of the n, global and shared memory instructions (records) */
  char *where;
  char *at;
} MsInstLine;

/* What a block of the kernel makes a warp wait for, each time it runs:
 * the rounds of global loads it starts (a load whose address or guard
 * needs the value of an earlier load of its straight-line region waits for
 * it: the region's loads go in as many rounds as the longest such chain,
 * ptxas being free to issue each round's loads together), its barriers
 * (bar.sync), its texture fetches (tex, tld4: the texture pipe's work) and
 * the cycles its instructions' dependences add to the warp's path (each
 * waits for the results it reads, at the latencies measured on the H200;
 * a warp issues at most one instruction a cycle).  Inputs of the time
 * model. */
typedef struct {
  guint64 rounds, barriers, textures, dependent_cycles;
} MsInstWaits;

/* A kernel's blocks and their lines, as the translator made them, and
 * their waits. */
typedef struct {
  guint n_blocks;
  GArray *lines;     /* MsInstLine */
  GArray *waits;     /* MsInstWaits per block */
  gboolean effects;  /* the kernel does more than read and write memory: it
                        calls the device runtime (printf, malloc, free,
                        cudaGraphSetConditional, a failed assert), reads
                        the clock or writes surfaces */
  gboolean reads_clock;   /* it reads %clock, %clock64 or %globaltimer: its
                             launches need the blocks' modelled cycles */
  GPtrArray *async_copies;   /* "FILE:LINE" of its cp.async copies (MsSite.async_copy) */
  GArray *regions;   /* guint per block: its PTX basic block (from a label or a
                        branch to the next), numbered in order */
  GArray *reductions;   /* gboolean per block: a warp reduction (redux.sync) alone,
                           run once for each group of lanes of one membermask */
} MsInstMap;

MsInstMap *ms_inst_map_new (void);
void ms_inst_map_free (MsInstMap *map);
/* Adds n instructions of line where (inlined at line at, or "") to block
 * (skipped by the branch of block guard), `memory` of them memory ones. */
void ms_inst_map_add (MsInstMap *map, guint block, guint guard, const char *where,
                      const char *at, guint n, guint memory);

/* Block is part of the PTX basic block `region`. */
void ms_inst_map_set_region (MsInstMap *map, guint block, guint region);

/* Block is a warp reduction alone (MsInstMap.reductions). */
void ms_inst_map_set_reduction (MsInstMap *map, guint block);

/* Adds w to block's waits. */
void ms_inst_map_add_waits (MsInstMap *map, guint block, const MsInstWaits *w);
/* The launch's waits (warp-level), counts[b] runs of each block b (warps'
 * paths, as ms_inst_executed counts them). */
void ms_inst_waits (const MsInstMap *map, const guint64 *counts, MsInstWaits *total);

/* What the SASS says of each source line (any table may be NULL): its
 * instructions (GUINT_TO_POINTER counts) and those under a predicate, by
 * line mark ("a.h:5\tk.cu:30": code inlined at line 30 from line 5 of a
 * header, innermost first; they count at the first location the PTX has
 * instructions of, else the last), and those inside a SASS loop; by "file.cu:LINE", its global and
 * shared memory instructions and how often those ran in the launch
 * (gdouble *: the models' per-site counts, which follow ptxas's
 * regrouping). */
/* A region of the SASS: an innermost loop of straight code (a backward
 * branch's range enclosing no other), or a basic block outside every loop
 * (once): its instructions and its global and shared memory instructions,
 * by line mark as MsInstSass.lines. */
typedef struct {
  GHashTable *lines;
  GHashTable *memory;
  gboolean once;
  gboolean entry;       /* (blocks) the function's first: once a warp */
  guint first, last;    /* its range of the function's instructions */
  GHashTable *reductions;   /* (blocks) its warp reductions (REDUX) by line mark */
} MsInstLoop;

typedef struct {
  GHashTable *lines;
  GHashTable *predicated;
  GHashTable *memory;
  GHashTable *memory_runs;
  /* by line mark, the instructions a backward branch encloses (NULL: not
   * known, every instruction may be a loop's) */
  GHashTable *looped;
  /* MsInstLoop *, the function's innermost loops (NULL: not known) */
  GPtrArray *loops;
  /* MsInstLoop *, the function's basic blocks whose runs are known: those
   * with a global or shared memory instruction not under a predicate
   * (memory: those), whose runs the models count, or with a warp reduction,
   * whose runs the engine counts, and the first (MsSass.blocks; NULL: not
   * known) */
  GPtrArray *blocks;
} MsInstSass;

typedef enum {
  MS_INST_NONE,        /* not counted (kernels not run from PTX) */
  MS_INST_PTX,         /* PTX instructions: no SASS to map them to */
  MS_INST_SASS_LINES,  /* mapped per source line to the SASS */
} MsInstBasis;

/* One source line's part of the count. */
typedef struct {
  char *where;       /* "file.cu:LINE", "" before the first line mark */
  guint ptx;         /* its PTX instructions */
  double ptx_runs;   /* ... and how often they ran, all together */
  guint sass;        /* its SASS instructions */
  double executed;   /* the estimate: ptx_runs * sass / ptx (or warps * sass) */
} MsInstLineCount;

/* The launch's warp instructions: counts[b] runs of each block b of map;
 * sass (NULL, or no lines: no SASS); warps: the warps that ran (a SASS
 * line with no PTX line runs once a warp).  *basis says how it was
 * counted; *per_line (may be NULL) gets the lines' parts (MsInstLineCount,
 * by line; NULL without SASS). */
guint64 ms_inst_executed (const MsInstMap *map, const guint64 *counts, const MsInstSass *sass,
                          guint64 warps, MsInstBasis *basis, GArray **per_line);

/* Each block's SASS instructions, by the lines' static ratios (a line's
 * SASS instructions / its PTX instructions, times the block's PTX
 * instructions of the line), without the launch's counts; its PTX
 * instructions where sass has no lines.  map->n_blocks values (g_free). */
double *ms_inst_block_sass (const MsInstMap *map, const MsInstSass *sass);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsInstMap, ms_inst_map_free)

G_END_DECLS
