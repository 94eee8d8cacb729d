/* nvcc-build.h - a user's whole program built by nvcc for `memsim run`:
 * host code as nvcc compiles it for the GPU, into a shared object whose
 * CUDA runtime calls memsim answers (cuda-runtime.c), and the device code
 * as PTX for compute_90 with line information, which the PTX engine
 * (sim/ptx) runs.  Cached by content, beside the other builds of users'
 * files ($XDG_CACHE_HOME/memsim/kernels).
 *
 * Per file, by its extension: .cu with nvcc (`-c -O3 -lineinfo
 * -arch=compute_90 -code=compute_90 -Xcompiler -fPIC --keep`: the object
 * and the PTX in one run), .cpp/.cc/.cxx as C++ and .c as C host files
 * (nvcc passes them to the host compiler).  The objects' references to
 * cuda* and __cuda* symbols are renamed memsim_* (the runtime's symbols:
 * cuda-runtime.c says why), then `nvcc -shared -cudart none` links them
 * (with -rdc=true, after `nvcc -dlink`).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Part of the cache key: bump when the commands or the renaming change. */
#define MS_NVCC_BUILD_VERSION 1

typedef struct {
  char *so;           /* the program's shared object */
  char **ptx;         /* the PTX of its .cu files, NULL-terminated */
  gboolean cached;    /* found in the cache */
} MsNvccBuild;

void ms_nvcc_build_free (MsNvccBuild *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsNvccBuild, ms_nvcc_build_free)

/* Builds (or finds in the cache: the key is the files' text as nvcc
 * preprocesses it, line marks and all, the flags, nvcc's version and MS_NVCC_BUILD_VERSION)
 * the program of files (NULL-terminated) with nvcc flags (NULL-terminated,
 * may be NULL: -I, -D, -std, --use_fast_math, -rdc=true, anything nvcc
 * takes).  NULL with a one-line MS_USER_ERROR: a file missing or of
 * another kind, nvcc missing, nvcc's first error as file:line: message. */
MsNvccBuild *ms_nvcc_build (const char *const *files, const char *const *flags,
                            GError **error);

G_END_DECLS
