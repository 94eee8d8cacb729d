/* trace-file.h - memsim's trace file (docs/trace-format.md): the writer, an
 * ordered sink of the access stream, and the reader, an MsTraceSource.
 *
 * A file is a 16-byte header (magic "MEMSIMTR", version, flags) and a
 * zstd-compressed payload of tagged records: the launch ('L'), sites ('S')
 * before their first use, warp accesses ('A') in the stream order, and an
 * end record ('E') with the count and the output check.  Both sides stream:
 * memory stays constant whatever the trace size.
 */
#pragma once

#include <glib.h>

#include "launch.h"
#include "source.h"
#include "stream.h"

G_BEGIN_DECLS

#define MS_TRACE_MAGIC "MEMSIMTR"
#define MS_TRACE_MAGIC_LEN 8
#define MS_TRACE_HEADER_LEN 16
#define MS_TRACE_VERSION 1
#define MS_TRACE_FLAG_ZSTD 1u

/* Payload record tags. */
enum {
  MS_TRACE_TAG_LAUNCH = 'L',
  MS_TRACE_TAG_SITE = 'S',
  MS_TRACE_TAG_ACCESS = 'A',
  MS_TRACE_TAG_END = 'E',
};

/* Access record header byte: space (bits 0-1), op (2-3), log2 width (4-6),
 * address mode (7: 1 = base + stride, 0 = base + per-lane deltas). */
#define MS_TRACE_HDR(space, op, log2w, strided) \
  ((guint8) ((space) | ((op) << 2) | ((log2w) << 4) | ((strided) ? 0x80 : 0)))

/* Limits a reader enforces (a file beyond them is corrupt, not a reason to
 * allocate without bound). */
#define MS_TRACE_MAX_STRING (1u << 20)
#define MS_TRACE_MAX_LAUNCH (1u << 20)

typedef struct MsTraceWriter MsTraceWriter;

/* Starts a trace at path: nothing appears there until ms_trace_writer_finish
 * succeeds (the data goes to a temporary file beside it, renamed at the
 * end).  info is written first (its check is replaced by the one given to
 * finish). */
MsTraceWriter *ms_trace_writer_new (const char *path, const MsRunInfo *info, GError **error);
/* The ordered sink that writes every record it gets. */
const MsStreamSink *ms_trace_writer_sink (MsTraceWriter *w);
/* Writes the end record (check: the output check, or NULL), flushes and
 * renames into place.  FALSE (and no file) on any error, including one the
 * sink met earlier. */
gboolean ms_trace_writer_finish (MsTraceWriter *w, const char *check, GError **error);
/* Discards the trace (no file); also done by free after no finish. */
void ms_trace_writer_free (MsTraceWriter *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsTraceWriter, ms_trace_writer_free)
/* Records and payload bytes written so far (for the bytes-per-access figure). */
void ms_trace_writer_counts (const MsTraceWriter *w, guint64 *records, guint64 *lane_accesses,
                             guint64 *payload_bytes, guint64 *file_bytes);

/* The reader of memsim's own format. */
gboolean ms_trace_file_sniff (const guint8 *head, gsize len);
MsTraceSource *ms_trace_file_open (const char *path, GError **error);

/* Writes all of src's stream to a memsim trace at path (conversion). */
gboolean ms_trace_file_convert (MsTraceSource *src, const char *path, GError **error);

G_END_DECLS
