/* accelsim.h - Accel-Sim tracer traces (kernelslist.g, kernel-N.traceg) as
 * an access stream, and back (traces/import/accelsim.c; the mapping is in
 * docs/importers.md).
 *
 * ms_accelsim_open() reads one kernel's .traceg (its "-key = value" header,
 * then #BEGIN_TB ... #END_TB blocks of per-warp instruction lines) as an
 * MsTraceSource, streaming: one line at a time, constant memory.  Given a
 * kernelslist.g it opens the first kernel listed, and the MemcpyHtoD lines
 * before it give the launch's buffers.  ms_accelsim_export() writes any
 * MsTraceSource as DIR/kernelslist.g and DIR/kernel-1.traceg.
 */
#pragma once

#include <glib.h>

#include "source.h"

G_BEGIN_DECLS

/* TRUE if the first bytes look like a .traceg ("-kernel name" header) or a
 * kernelslist.g (first line "MemcpyHtoD,", "cudaMalloc," or "kernel-"). */
gboolean ms_accelsim_sniff (const guint8 *head, gsize len);
/* path: a kernel-N.traceg, or a kernelslist.g (then the first kernel it
 * lists, relative to the list's folder; MemcpyHtoD lines give buffers). */
MsTraceSource *ms_accelsim_open (const char *path, GError **error);
/* Writes DIR/kernelslist.g (a MemcpyHtoD line per buffer of src's launch,
 * then kernel-1.traceg) and DIR/kernel-1.traceg, creating DIR.  Records are
 * grouped by block (ascending) and, within a block, by warp (ascending),
 * keeping their order within a warp; memory stays bounded by one block's
 * records (the rest waits in an unlinked temporary file).  On failure
 * neither file is left. */
gboolean ms_accelsim_export (MsTraceSource *src, const char *dir, GError **error);
/* Memory instructions of src (an ms_accelsim_open source) read so far that
 * gave no record (LDSM, LDGSTS, TMA, ..., unsupported widths, no active
 * lane); *summary as ms_nvbit_skipped() gives it. */
guint64 ms_accelsim_skipped (MsTraceSource *src, char **summary);

G_END_DECLS
