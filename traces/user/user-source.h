/* user-source.h - what memsim reads from a user's CUDA file before compiling
 * it: the __global__ functions with their parameter lists, and the
 * rewrite of __shared__ declarations onto the emulator's shared window.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define MS_USER_ERROR (ms_user_error_quark ())
GQuark ms_user_error_quark (void);
typedef enum {
  MS_USER_ERROR_FILE,      /* the file cannot be read */
  MS_USER_ERROR_KERNEL,    /* no such __global__ function, or an unsupported one */
  MS_USER_ERROR_SOURCE,    /* a construct memsim cannot run */
  MS_USER_ERROR_COMPILER,  /* g++ missing or failed */
  MS_USER_ERROR_ARG,       /* bad --arg, --grid, --dynamic-shared */
  MS_USER_ERROR_LOAD,      /* the build does not load or has no debug info */
} MsUserError;

typedef struct {
  char *name;
  char *type;          /* the declared type without the name: "const float *" */
  char *pointee;       /* pointers: the element type without qualifiers ("float"), else NULL */
} MsUserParam;

typedef struct {
  char *name;
  int line;            /* 1-based line of the name */
  gboolean is_template;
  GPtrArray *params;   /* of MsUserParam */
} MsUserFunction;

void ms_user_function_free (MsUserFunction *f);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsUserFunction, ms_user_function_free)

/* The __global__ functions of a CUDA source text, in order (a GPtrArray of
 * MsUserFunction). */
GPtrArray *ms_user_source_kernels (const char *text);

/* text with every __shared__ declaration inside a function rewritten into
 * a reference to an array of the emulator's shared window (ms_shared_ref_,
 * ms_shared_dynamic_: sim/emulator/cuda-shim.h) and every `<<<...>>>` of a
 * launch blanked out (host code compiles but never runs), every line where
 * it was.  NULL and an error (file:line) for a __shared__ variable at file
 * scope.  file names the source in messages. */
char *ms_user_source_rewrite (const char *text, const char *file, GError **error);

/* The same for a whole program (`memsim run`), whose launches run: every
 * `k<<<grid, block[, shared[, stream]]>>>(args)` becomes
 * `k << ms_launch_config_ (grid, block[, shared[, stream]])(args)`, the
 * launch operator of sim/emulator/cuda-shim.h, on the same lines. */
char *ms_user_source_rewrite_program (const char *text, const char *file, GError **error);

G_END_DECLS
