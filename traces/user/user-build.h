/* user-build.h - what the builds of users' code share: nvcc's (nvcc-build.h,
 * user-gpu.h, user-sass.h) and the host compiler's of translated device code
 * (sim/ptx/ptx-program.c): running a compiler, cache keys and the cache
 * folder.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The symbol of a generated entry (prefix "ms_user_gpu_entry_") of a
 * kernel: its name, or a template's instantiation ("tile<1>"), with every
 * character an identifier cannot hold replaced by '_'. */
char *ms_user_build_symbol (const char *prefix, const char *kernel);

/* Runs argv in cwd (LC_ALL=C); FALSE with *err_out holding the program's
 * output when it fails, FALSE with error set when it cannot start. */
gboolean ms_user_build_run (const char *const *argv, const char *cwd, char **err_out,
                            GError **error);

/* Adds to a build's cache key: salt, the flags (NULL-terminated) and which
 * compiler (its path, size and date). */
void ms_user_build_key (GChecksum *sum, const char *salt, const char *const *flags,
                        const char *compiler);

/* The cache folder of users' builds, $XDG_CACHE_HOME/memsim/kernels. */
char *ms_user_build_cache_dir (void);

G_END_DECLS
