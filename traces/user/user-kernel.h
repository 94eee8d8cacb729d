/* user-kernel.h - a kernel from the user's own CUDA file, ready to run in
 * the emulator from nvcc's PTX: `memsim trace FILE.cu:KERNEL --grid ... --block ... --arg
 * NAME=VALUE ...` (docs/model.md, "Your own kernels").
 *
 *   k = ms_user_kernel_load ("my.cu:scale", &error);   // nvcc (cached), PTX, load
 *   p = ms_user_problem_new (k, &launch, &error);       // buffers from --arg
 *   ms_problem_simulate (p, arch, 0, NULL, &stats, &error);
 *
 * The problem is an ordinary MsProblem (traces/kernels/problem.h) whose
 * kernel is external: reports, trace files and the safety checks work as
 * for the built-in kernels.  A loaded kernel stays loaded for the process
 * (the site table holds its sites).
 */
#pragma once

#include <glib.h>

#include "problem.h"
#include "user-error.h"

G_BEGIN_DECLS

typedef struct MsUserKernel MsUserKernel;

/* Whether a command-line KERNEL names a user's file ("FILE.cu:KERNEL", or
 * anything with a ':' or ending in .cu) rather than a built-in kernel. */
gboolean ms_user_kernel_spec (const char *name);

/* Builds FILE with nvcc (nvcc-build.h, cached), finds KERNEL among the
 * entries of its PTX (as the source names it, "tile<32>", "ns::f"; mangled;
 * or without namespace and template arguments where that is unique) and
 * loads its device code on the PTX engine.  One-line errors (MsUserError):
 * nvcc missing or its first error, an unknown or ambiguous name (with the
 * file's kernels), a struct passed by value. */
const MsUserKernel *ms_user_kernel_load (const char *spec, GError **error);
/* The same with nvcc flags for the build (NULL-terminated, may be NULL:
 * -I, -D, -std, --use_fast_math, anything nvcc takes). */
const MsUserKernel *ms_user_kernel_load_with (const char *spec, const char *const *flags,
                                              GError **error);

/* The kernel's descriptor (name, source, entry; external). */
const MsKernel *ms_user_kernel_descriptor (const MsUserKernel *k);

typedef struct {
  const char *grid;              /* X[xY[xZ]] (required) */
  const char *block;             /* X[xY[xZ]] (required) */
  guint dynamic_shared;          /* bytes of extern __shared__ memory */
  const char *const *args;       /* NAME=VALUE, NULL-terminated (may be NULL) */
} MsUserLaunch;

/* The problem of a launch: one buffer per pointer parameter (VALUE
 * TYPE[COUNT]: COUNT elements of TYPE, seeded random data; TYPE[COUNT]=0:
 * zeros), a number per scalar parameter. */
MsProblem *ms_user_problem_new (const MsUserKernel *k, const MsUserLaunch *launch,
                                GError **error);

/* For `--gpu`: builds the file of p's kernel with nvcc for compute
 * capability cc_major.cc_minor (user-gpu.h; cached), loads the build and
 * makes it the kernel's gpu_entry, launched with p's dynamic shared
 * memory.  TRUE at once for a built-in kernel.  One-line errors: nvcc
 * missing, its first error, a build that does not load. */
gboolean ms_user_kernel_build_gpu (MsProblem *p, int cc_major, int cc_minor, GError **error);

G_END_DECLS
