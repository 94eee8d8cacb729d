/* user-sass.h - compiler-exact counts for users' own files: the SASS nvcc
 * emits for their device code (the H100's sm_90, with line information),
 * so that the emulator's source-level records are grouped as the hardware
 * executes them (sim/stream/regroup.c), as for the built-in kernels.
 */
#pragma once

#include <glib.h>

#include "sass.h"

G_BEGIN_DECLS

/* The SASS text of the device code of files (those ending in .cu or .ptx;
 * the others are host code): `nvcc -cubin -arch=sm_90 -lineinfo` with the
 * files' folders and include_dirs searched (PTX: ptxas beside nvcc, with
 * -arch=sm_90 -lineinfo), then `nvdisasm -c -gi`, led by ptxas's
 * registers of each kernel (ms_sass_registers); cached
 * by content beside the CPU builds.  NULL, with why (a phrase for the
 * report, e.g. "no nvdisasm"), when nvcc or nvdisasm is missing or nvcc
 * fails: counts are then source-level.  MEMSIM_NVDISASM names nvdisasm. */
char *ms_user_sass_text (const char *const *files, const char *const *include_dirs,
                         char **why);

/* The instructions of one kernel of that text, the function whose symbol
 * (the mangled name, as the CPU build's: both follow the Itanium C++ ABI)
 * is `symbol`; NULL when the text has no instruction of it.
 * *function (may be NULL) gets the identifier the instructions carry. */
MsSass *ms_user_sass_kernel (const char *text, const char *symbol, char **function);

G_END_DECLS
