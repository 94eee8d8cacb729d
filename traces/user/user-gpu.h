/* user-gpu.h - a user's CUDA file built by nvcc for the GPU, for `memsim
 * trace FILE.cu:KERNEL --gpu`: the same file, unchanged, followed by one
 * generated launch entry per kernel, compiled into a shared object that
 * memsim loads with GModule and the GPU back-end (gpu/backend.c) runs like
 * a built-in kernel's ms_gpu_entry_NAME.  Cached by content, like the CPU
 * build (user-build.h).
 *
 * The entry of KERNEL (a name or a template's instantiation, "tile<32>") is
 *   extern "C" void ms_user_gpu_entry_<KERNEL> (const MsLaunchArgs *L);
 * it launches KERNEL with L->grid and L->block (cudaLaunchKernel) and its
 * k-th pointer parameter from L->buf[k], a number i from L->f[i] or L->i[i]
 * (the rule by which user-kernel.c fills and packs them), and the
 * dynamic shared memory set with
 *   extern "C" void ms_user_gpu_set_dynamic_shared (unsigned bytes);
 * (above 48 KiB it asks for the opt-in first).  Launch errors are left to
 * the caller's cudaGetLastError.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Part of the cache key: bump when the generated unit or the flags change. */
#define MS_USER_GPU_BUILD_VERSION 1

/* The nvcc memsim runs: $MEMSIM_NVCC, else the one memsim was configured
 * with (the toolkit whose CUDA runtime memsim links, so the build shares
 * it), else nvcc from PATH; NULL with a one-line error saying what to
 * install. */
char *ms_user_nvcc (GError **error);

/* The generated CUDA unit: text (read from file) under `#line 1 "file"`,
 * then the launch helpers and one entry per kernel of `kernels`
 * (NULL-terminated). */
char *ms_user_gpu_generate (const char *file, const char *text, const char *const *kernels);

/* Builds (or finds in the cache) the shared object of the unit for compute
 * capability cc_major.cc_minor (sm_XY), with the user's nvcc flags
 * (NULL-terminated, may be NULL: -I, -D, ...; key must cover them).  key names the CPU build of the same
 * text (its cache hash, which covers the headers it includes); it is part
 * of the cache key with the unit, the flags, nvcc and the version.  Returns
 * the path, NULL with a one-line error (MS_USER_ERROR_COMPILER: nvcc
 * missing, or its first error as file:line: message).  *cached (may be
 * NULL) says whether it came from the cache. */
char *ms_user_gpu_build (const char *file, const char *text, const char *const *kernels,
                         const char *const *flags, const char *key, int cc_major, int cc_minor, gboolean *cached,
                         GError **error);

/* nvcc's (or its host compiler's) first error in out as one line
 * "file:line: error: message", else fallback (a copy). */
char *ms_user_gpu_first_error (const char *out, const char *fallback);

G_END_DECLS
