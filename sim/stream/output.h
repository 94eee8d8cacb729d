/* output.h - writing an output file without ever leaving half of it or
 * replacing what the path names.
 *
 * A regular file or a new path is written to a temporary file beside it and
 * renamed into place when complete (readers never see a partial file, and a
 * failure leaves the old file as it was).  Anything else the path names (a
 * symlink's target, a FIFO, a character device such as /dev/null) is opened
 * and written in place, never replaced.  Every write and the close are
 * checked.
 */
#pragma once

#include <glib.h>
#include <stdio.h>

G_BEGIN_DECLS

typedef struct MsOutput MsOutput;

/* "-" is standard output. */
MsOutput *ms_output_open (const char *path, GError **error);
/* Whether path can be written as ms_output_open would (checked before a
 * long run, so a typo does not cost the run); writes nothing.  NULL or "-"
 * is standard output: TRUE. */
gboolean ms_output_check (const char *path, GError **error);
FILE *ms_output_file (MsOutput *o);
/* Flushes, closes and (for a temporary file) renames; FALSE on any error,
 * and then no file was created or replaced.  Frees o. */
gboolean ms_output_commit (MsOutput *o, GError **error);
/* Drops what was written (removes the temporary file).  Frees o. */
void ms_output_abort (MsOutput *o);

G_END_DECLS
