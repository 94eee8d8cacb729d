/* builtin-ptx.h - the built-in kernels run from nvcc's PTX of their
 * sources, through the same engine as users' device code (sim/ptx).
 *
 * A built-in's entry (MS_ENTRY in its .cu) is built as C with the kernels
 * left out (kernel.h, MS_BIND_BUILD): called once with the problem's
 * MsLaunchArgs, its MS_LAUNCH says which __global__ function it launches
 * and with which arguments.  The modules of the kernels' sources are
 * compiled into memsim (Makefile.am, ptx-to-c.c), each entry with its own
 * PTX text: that function's warp-wide build, its parameters' layout and
 * its instructions by line come from there, read once a process, and its
 * parameter block is packed from the arguments.
 */
#pragma once

#include <glib.h>

#include "problem.h"

G_BEGIN_DECLS

typedef struct {
  MsEntryFn warp_entry;        /* the launched function's warp-wide build */
  const MsInstMap *inst_map;   /* its instructions by line (instructions.h) */
  guint8 *params;              /* its parameter block (MsLaunchArgs.params); g_free */
  const char *function;        /* its name as the source gives it */
  guint static_shared;         /* bytes of __shared__ it declares */
} MsBuiltinLaunch;

/* What kernel k's entry launches with args (after the problem's setup);
 * FALSE with a one-line MS_PROBLEM_ERROR when it launches nothing or
 * memsim's build lacks the function. */
gboolean ms_builtin_ptx_bind (const MsKernel *k, const MsLaunchArgs *args, MsBuiltinLaunch *out,
                              GError **error);

G_END_DECLS
