/* user-build.h - compiling a user's CUDA file into a shared object the
 * emulator can run: g++ with memsim's CUDA shim and the compiler's
 * load/store instrumentation, cached by content.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bumped whenever the generated code or the flags change meaning (it is
 * part of the cache key, with the shim headers' text). */
#define MS_USER_BUILD_VERSION 5

/* The symbol of the build's launch entry (prefix "ms_user_entry_") or
 * parameter kinds ("ms_user_kinds_") of a kernel: its name, or a template's
 * instantiation ("tile<1>"), with every character an identifier cannot
 * hold replaced by '_'. */
char *ms_user_build_symbol (const char *prefix, const char *kernel);

/* Builds (or finds in the cache) the shared object of the CUDA source
 * `text` read from `file`, with a launch entry and a kinds function
 * (ms_user_build_symbol) per kernel of `kernels` (NULL-terminated: names
 * and template instantiations).  Returns the .so's path, NULL with a
 * one-line error (MS_USER_ERROR_COMPILER: g++ missing, or its first error
 * as file:line: message; MS_USER_ERROR_SOURCE from the rewrite).
 * *cached says whether the build came from the cache (may be NULL).
 * The cache: $XDG_CACHE_HOME/memsim/kernels (g_get_user_cache_dir). */
char *ms_user_build (const char *file, const char *text, const char *const *kernels,
                     gboolean *cached, GError **error);

/* A build of several files: a user's program (`memsim run`, program
 * TRUE: launches rewritten to run, no entries) or one file's kernels
 * (kernels: the entries to generate, as ms_user_build). */
typedef struct {
  const char *const *files;          /* paths, NULL-terminated */
  const char *const *texts;          /* their contents */
  const char *const *include_dirs;   /* -I folders (NULL-terminated; may be NULL) */
  const char *const *kernels;        /* entries (the first file's kernels), or NULL */
  gboolean program;
} MsUserBuildSpec;

char *ms_user_build_spec (const MsUserBuildSpec *spec, gboolean *cached, GError **error);

/* The compiler memsim runs: $MEMSIM_CXX, else g++ from PATH; NULL with an
 * error saying what to install. */
char *ms_user_compiler (GError **error);

/* Runs argv in cwd (LC_ALL=C); FALSE with *err_out holding the program's
 * output when it fails, FALSE with error set when it cannot start.  (The
 * CPU and GPU builds' compiler runs.) */
gboolean ms_user_build_run (const char *const *argv, const char *cwd, char **err_out,
                            GError **error);

/* Adds to a build's cache key: salt, the flags (NULL-terminated) and which
 * compiler (its path, size and date). */
void ms_user_build_key (GChecksum *sum, const char *salt, const char *const *flags,
                        const char *compiler);

/* The cache folder of users' builds, $XDG_CACHE_HOME/memsim/kernels. */
char *ms_user_build_cache_dir (void);

G_END_DECLS
