/* user-build.h - compiling a user's CUDA file into a shared object the
 * emulator can run: g++ with memsim's CUDA shim and the compiler's
 * load/store instrumentation, cached by content.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bumped whenever the generated code or the flags change meaning (it is
 * part of the cache key, with the shim headers' text). */
#define MS_USER_BUILD_VERSION 2

/* Builds (or finds in the cache) the shared object of the CUDA source
 * `text` read from `file`, with one entry `ms_user_entry_NAME` per name of
 * `kernels` (NULL-terminated).  Returns the .so's path, NULL with a
 * one-line error (MS_USER_ERROR_COMPILER: g++ missing, or its first error
 * as file:line: message; MS_USER_ERROR_SOURCE from the rewrite).
 * *cached says whether the build came from the cache (may be NULL).
 * The cache: $XDG_CACHE_HOME/memsim/kernels (g_get_user_cache_dir). */
char *ms_user_build (const char *file, const char *text, const char *const *kernels,
                     gboolean *cached, GError **error);

/* The compiler memsim runs: $MEMSIM_CXX, else g++ from PATH; NULL with an
 * error saying what to install. */
char *ms_user_compiler (GError **error);

G_END_DECLS
