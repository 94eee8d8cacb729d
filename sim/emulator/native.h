/* native.h - the emulator's side of compiler-instrumented kernels (users'
 * own CUDA files, traces/user/): internal to sim/emulator, used by the hook
 * runtime native.c.
 */
#pragma once

#include <glib.h>

#include "site.h"

G_BEGIN_DECLS

/* Called before a load (store = FALSE) or store of size bytes at p by the
 * current kernel thread, from code address pc: a device access (a launch
 * buffer, its guard margin or the block's shared window) stops the lane
 * until its warp executes the instruction; after the return the caller's
 * own instruction performs the access.  Anything else returns at once. */
void ms_native_access (const void *p, unsigned size, gboolean store, const void *pc);

/* The site of code address pc of the current launch's kernel. */
const MsSite *ms_native_site (const void *pc);

/* 1; a program that loads users' kernels calls it, so that the hooks
 * (native.c) are linked into it from libmemsim.a. */
int ms_native_runtime_version (void);

G_END_DECLS
