/* import.h - what the trace importers (nvbit.c, accelsim.c) share: a
 * bounded line reader, "FILE:LINE: ..." errors, number parsing, launch
 * checks, and the SASS opcode -> (space, op, width) table. */
#pragma once

#include <glib.h>

#include "access.h"
#include "launch.h"
#include "source.h"

G_BEGIN_DECLS

/* The longest line a reader accepts, without its newline. */
#define MS_IMPORT_MAX_LINE (64 * 1024)

/* A text file read one line at a time through a fixed buffer: a line over
 * MS_IMPORT_MAX_LINE bytes or holding a NUL byte is an error, so no input
 * makes the reader allocate without bound. */
typedef struct MsImportLines MsImportLines;

MsImportLines *ms_import_lines_open (const char *path, GError **error);
/* The next line (no newline, no trailing '\r'; writable, valid until the
 * next call): 1; at the end of the file 0; on an error -1. */
int ms_import_lines_next (MsImportLines *r, char **line, GError **error);
/* The number of the line last returned (1-based; 0 before the first). */
guint64 ms_import_lines_number (const MsImportLines *r);
/* The file's base name, for messages. */
const char *ms_import_lines_name (const MsImportLines *r);
void ms_import_lines_free (MsImportLines *r);

/* Sets a one-line MS_TRACE_ERROR "NAME:LINE: what" at r's current line
 * (line 1 for an empty file).  Returns FALSE. */
gboolean ms_import_error (GError **error, const MsImportLines *r, MsTraceError code,
                          const char *fmt, ...) G_GNUC_PRINTF (4, 5);

/* Cursor parsers: on success advance *p past what they read and return
 * TRUE; on failure leave *p alone.  Decimal: at least one digit, at most
 * max.  Hex: an optional "0x" (required with need_0x), 1 to 16 digits, not
 * followed by another hex digit.  Signed: an optional '-' or '+', then a
 * decimal that fits in gint64.  Dim3: "X,Y,Z" decimals. */
gboolean ms_import_eat (const char **p, const char *literal);
gboolean ms_import_eat_dec (const char **p, guint64 max, guint64 *v);
gboolean ms_import_eat_hex (const char **p, gboolean need_0x, guint64 *v);
gboolean ms_import_eat_signed (const char **p, gint64 *v);
gboolean ms_import_eat_dim3 (const char **p, guint64 v[3]);

/* Checks a launch geometry: no zero dimension, grid within CUDA's limits
 * (2^31-1 x 65535 x 65535) and at most 2^32 blocks in all (memsim numbers
 * blocks with 32 bits), a block of at most 1024 threads (1024 x 1024 x 64).
 * FALSE and *why (newly allocated) when absurd. */
gboolean ms_import_check_launch (const guint64 grid[3], const guint64 block[3], char **why);
/* A run description with the fields every import sets (producer, origin,
 * family "", source "", arch "h100", check "not run (imported trace)"),
 * kernel name made valid UTF-8, grid, block and shared bytes. */
MsRunInfo *ms_import_run_info (const char *kernel, const char *producer, const char *description,
                               const guint64 grid[3], const guint64 block[3], guint shared_bytes);

/* SASS opcode (with its modifiers, "LDG.E.128") -> memsim's record fields:
 *   LDG STG ATOMG RED REDG ATOM LD ST  -> global (LD/ST/ATOM are generic:
 *                                         memsim assumes global)
 *   LDS STS ATOMS                      -> shared
 *   LDL STL                            -> local
 * ATOM* and RED* are atomics.  width from the first size modifier: U8 S8 8
 * -> 1, U16 S16 16 -> 2, U32 S32 F32 32 -> 4, U64 S64 F64 64 -> 8, U128 128
 * -> 16, none -> 4.  FALSE for any other opcode (LDC, LDSM, LDGSTS, TMA,
 * surface and texture instructions, non-memory instructions). */
gboolean ms_import_classify_opcode (const char *opcode, MsSpace *space, MsOp *op, guint *width);
/* The opcode the exporters write for a record: LDG.E, STG.E, ATOMG.E.ADD,
 * LDS, STS, ATOMS.ADD, LDL, STL plus a size suffix (.U8, .U16, none, .64,
 * .128), so that ms_import_classify_opcode() gives the fields back.  Into
 * buf (at least 32 bytes); FALSE for a local atomic (no such instruction)
 * or an invalid field. */
gboolean ms_import_opcode_name (MsSpace space, MsOp op, guint width, char *buf);
/* TRUE for a valid record width (1, 2, 4, 8 or 16 bytes). */
gboolean ms_import_width_valid (guint64 width);

/* Counts of instructions passed over, by what they were ("LDSM.16.M88.4",
 * "with no active lane"); *table is created on first use (free it with
 * g_hash_table_unref).  At most 64 distinct names, then "other". */
void ms_import_skip (GHashTable **table, const char *what);
/* The total, and *summary (may be NULL) "3 LDSM.16.M88.4, 1 with no active
 * lane" (most frequent first; "" when none), newly allocated. */
guint64 ms_import_skip_summary (GHashTable *table, char **summary);

G_END_DECLS
