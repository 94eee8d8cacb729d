/* nvbit.h - NVBit's mem_trace output as an access stream, and back
 * (traces/import/nvbit.c; the mapping is in docs/importers.md).
 *
 * ms_nvbit_open() reads the first kernel launch of a mem_trace log (its
 * LAUNCH line, then one line per warp-level memory instruction) as an
 * MsTraceSource, streaming: one line at a time, constant memory.
 * ms_nvbit_export() writes any MsTraceSource as such a log.
 *
 * The second half of this header is what the two importers share (the
 * Accel-Sim reader, accelsim.c, uses it too): a bounded line reader, the
 * "FILE:LINE: what" errors, number parsing, the launch-geometry check and
 * the SASS opcode -> space/op/width table.
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "launch.h"
#include "import.h"
#include "source.h"

G_BEGIN_DECLS

/* TRUE if the first bytes of a file look like mem_trace output: a line that
 * starts with "MEMTRACE:", NVBit's banner, or (NVBit 1.0-1.4, no prefix) a
 * "LAUNCH - Kernel pc" or "CTA x,y,z - warp" line. */
gboolean ms_nvbit_sniff (const guint8 *head, gsize len);
MsTraceSource *ms_nvbit_open (const char *path, GError **error);
/* Writes src's stream as mem_trace text ("MEMTRACE: CTX ..." style) to path
 * (through a temporary file beside it, renamed on success: on failure no
 * file is left).  "-" is standard output. */
gboolean ms_nvbit_export (MsTraceSource *src, const char *path, GError **error);
/* Instructions of src (an ms_nvbit_open source) read so far that gave no
 * record: memory instructions memsim does not model (LDSM, LDGSTS, ...) and
 * lines with no active lane.  *summary (may be NULL): newly allocated text,
 * e.g. "3 LDSM.16.M88.4, 1 with no active lane", "" when none. */
guint64 ms_nvbit_skipped (MsTraceSource *src, char **summary);

G_END_DECLS
