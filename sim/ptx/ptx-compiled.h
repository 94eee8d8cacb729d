/* ptx-compiled.h - a PTX module's entries translated and compiled when
 * memsim was built (the built-in kernels: sim/ptx/ptx-to-c.c writes the
 * table, sim/ptx/ptx-program.c reads it), so that they need no compiler
 * at run time. */
#pragma once

#include "kernel.h"

typedef struct {
  const char *name;       /* the .entry's (mangled) name */
  MsEntryFn fn;           /* its warp-wide function */
  const void *aggs;       /* its reductions' MsPtxAgg table (ptx-warp.h) */
  const char *ptx;        /* the module's PTX without its other entries: what
                           * memsim reads of it at run time (a launch reads
                           * one entry, not the module's tens) */
} MsPtxCompiled;
