/* ptx-translate.h - PTX (ptx.h) to warp-wide C (ptx-warp.h). */
#pragma once

#include <glib.h>

#include "kernel.h"
#include "instructions.h"
#include "ptx.h"

G_BEGIN_DECLS

/* Appends the C of module m's entries (ms_ptx_k_MOD_FUNC, FUNC its index
 * in m->funcs; its sites' MsSite.reduction set where an atomic's result is
 * unused) and of its variables' pointers (uint8_t *ms_ptx_g_MOD_VAR, set
 * by the loader). */
gboolean ms_ptx_translate (const MsPtxModule *m, guint mod, GString *out, GError **error);
/* The same for entry fn of m alone (and the variables' pointers): what
 * one kernel needs, compiled when it is first launched.  inst (may be
 * NULL) gets its blocks' instructions by source line: the blocks whose
 * runs the code counts (ms_ptx_block_counts, warp.h).  polls_blocks (may
 * be NULL) gets whether the entry loads global memory with a strong load
 * (ld.volatile, or .relaxed/.acquire at .gpu or .sys scope), with which it
 * may wait on what other blocks write (MsKernel.in_order). */
gboolean ms_ptx_translate_entry (const MsPtxModule *m, guint mod, guint fn, GString *out,
                                 MsInstMap *inst, gboolean *polls_blocks, GError **error);

/* Parameter k's offset in f's parameter block (its size and alignment). */
guint ms_ptx_param_layout (const MsPtxFunc *f, guint k, guint *size, guint *align);
/* Bytes of static shared memory an entry of m declares. */
guint ms_ptx_static_shared (const MsPtxModule *m, const MsPtxFunc *f);

G_END_DECLS
