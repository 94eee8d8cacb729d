/* user-error.h - the errors of users' code (traces/user): one-line
 * messages that say what to do. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define MS_USER_ERROR (ms_user_error_quark ())
GQuark ms_user_error_quark (void);
typedef enum {
  MS_USER_ERROR_FILE,      /* the file cannot be read */
  MS_USER_ERROR_KERNEL,    /* no such kernel, or an unsupported one */
  MS_USER_ERROR_SOURCE,    /* a construct memsim cannot run */
  MS_USER_ERROR_COMPILER,  /* nvcc missing or failed */
  MS_USER_ERROR_ARG,       /* bad --arg, --grid, --dynamic-shared */
  MS_USER_ERROR_LOAD,      /* the build does not load or has no debug info */
} MsUserError;

G_END_DECLS
