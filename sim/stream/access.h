/* access.h - the warp access record: the spine of memsim's pipeline.
 *
 * One record per warp-level memory instruction executed (per warp, per
 * dynamic execution).  Producers (the emulator, the trace readers and
 * importers under traces/) hand records to consumers (the models, the trace
 * writers, the diagram capture) through an MsStreamSink (stream.h); nothing
 * else passes between them.
 */
#pragma once

#include <glib.h>

#include "site.h"

G_BEGIN_DECLS

#define MS_WARP_SIZE 32

typedef enum {
  MS_SPACE_GLOBAL = 0,
  MS_SPACE_SHARED = 1,
  MS_SPACE_LOCAL = 2,
} MsSpace;
#define MS_N_SPACES 3

typedef enum {
  MS_OP_LD = 0,
  MS_OP_ST = 1,
  MS_OP_ATOMIC = 2,   /* an atomic whose result is used: ATOM (Nsight's op_atom) */
  MS_OP_RED = 3,      /* a global atomic whose result is unused: RED (op_red),
                       * see docs/model.md, "Reductions" */
} MsOp;
#define MS_N_OPS 4
/* Either kind of atomic. */
#define MS_OP_IS_ATOMIC(op) ((op) == MS_OP_ATOMIC || (op) == MS_OP_RED)

typedef struct {
  const MsSite *site; /* registered: site->id >= 0 (ms_site_register) */
  guint32 block;      /* linear block index in the grid: x + gx * (y + gy * z) */
  guint16 warp;       /* warp index within the block (linear thread index / 32) */
  guint8 space;       /* MsSpace */
  guint8 op;          /* MsOp */
  guint8 width;       /* bytes per lane: 1, 2, 4, 8 or 16 */
  guint32 mask;       /* active lanes: bit l set = lane l took part */
  /* Per lane: global = byte address (emulator: buffer i at virtual base
   * (i + 1) << 40, see MS_VADDR_*; imported traces: the device address),
   * shared = byte offset in the block's shared window.  Entries of
   * inactive lanes are undefined. */
  guint64 addr[MS_WARP_SIZE];
} MsWarpAccess;

/* Global addresses of emulated launches are virtual: buffer i (0-based)
 * starts at (i + 1) << MS_BUFFER_SHIFT, so records do not depend on where
 * the host allocator put the buffers, and alignment (256 B) is preserved. */
#define MS_BUFFER_SHIFT 40
#define MS_VADDR_BUFFER(a) ((int) ((a) >> MS_BUFFER_SHIFT) - 1)
#define MS_VADDR_OFFSET(a) ((a) & ((G_GUINT64_CONSTANT (1) << MS_BUFFER_SHIFT) - 1))

const char *ms_space_name (MsSpace space);
const char *ms_op_name (MsOp op);
/* "global"/"shared"/"local", "ld"/"st"/"atom"/"red" back to the enum; FALSE if
 * the name is none of them. */
gboolean ms_space_parse (const char *name, MsSpace *space);
gboolean ms_op_parse (const char *name, MsOp *op);

/* ---- the site table: one dense id per site, for the whole process ---- */

#define MS_MAX_SITES 4096

/* Gives site a dense id (site->id) on first use and returns it; -1 when
 * the table is full (the caller reports it as an error). Thread-safe. */
int ms_site_register (const MsSite *site);
/* Sites a and b are one instruction in two builds of a kernel: whichever
 * runs first gives both its id (MsSite.twin).  Thread-safe. */
void ms_site_twin (MsSite *a, MsSite *b);
/* The site of an id, or NULL. */
const MsSite *ms_site_lookup (int id);
/* Sites registered so far (ids 0 .. n - 1). */
int ms_site_count (void);

/* Orders sites as reports list them: line, then textual order. */
int ms_site_compare (const MsSite *a, const MsSite *b);

/* Division that is 0 for an empty denominator (ratios in reports). */
static inline double
ms_ratio (guint64 a, guint64 b)
{
  return b ? (double) a / (double) b : 0.0;
}

/* Active lanes of a mask on an architecture with warp_size lanes. */
static inline guint32
ms_warp_lanes (guint32 mask, int warp_size)
{
  return warp_size >= MS_WARP_SIZE ? mask : mask & ((1u << warp_size) - 1u);
}

/* A producer's word on the record it is delivering: every one of its 32
 * lanes is active and addr[l] = addr[0] + l * stride (a row, a column, a
 * broadcast), or, stride 0, its active lanes (a partial warp) all have
 * one address; which the models would otherwise find lane by lane, each
 * for itself.  The emulator sets it (record = its record) just before
 * handing the record to the sinks and clears it once they return, so it
 * speaks of that object only while they look at it: a copy or a record
 * another producer made is not `record`, and the models look at its
 * lanes.  A block's records buffered for the ordered part keep the word
 * beside them and have it given again on delivery
 * (ms_stream_order_buffer_new, stream.h).  Per thread. */
typedef struct {
  const void *record;
  guint64 stride;
} MsStrideHint;
extern __thread MsStrideHint ms_stride_hint;

/* The address of a's first active lane (lane 0's if none is active). */
static inline guint64
ms_access_first_addr (const MsWarpAccess *a)
{
  return a->addr[a->mask ? __builtin_ctz (a->mask) : 0];
}

/* Whether the producer said a's lanes are one stride apart (*stride). */
static inline gboolean
ms_access_strided (const void *a, guint64 *stride)
{
  if (ms_stride_hint.record != a)
    return FALSE;
  *stride = ms_stride_hint.stride;
  return TRUE;
}

/* A producer's word that the shared-memory record it is delivering equals
 * one it delivered before on this thread, in every field but the block:
 * the emulator's race memo (sim/emulator/racememo.h) compares a block's
 * shared accesses with the last block's, and each one it finds equal is a
 * repeat.  `serial` names a record (unique in the process, never 0), given
 * with again FALSE on its first delivery and with again TRUE on each
 * repeat; `pos` is its position in its block (below the memo's room for
 * a block's accesses), where a consumer may keep what it made of the
 * record.  A consumer whose result
 * for a record depends only on those fields (the models' run, run.c) adds
 * again what it kept under the serial instead of working it out.  Set and
 * cleared around the delivery, as ms_stride_hint: a filter's copy is
 * another object, of which nothing is said.  Per thread. */
typedef struct {
  const void *record;
  guint64 serial;
  guint pos;
  gboolean again;
} MsRepeatHint;
extern __thread MsRepeatHint ms_repeat_hint;

/* The lanes set in a mask, without relying on the POPCNT instruction (the
 * default x86-64 target lacks it, and GCC would call libgcc's
 * __popcountdi2 for __builtin_popcount: a call a record). */
static inline guint
ms_lanes_count (guint32 v)
{
  v = v - ((v >> 1) & 0x55555555u);
  v = (v & 0x33333333u) + ((v >> 2) & 0x33333333u);
  return (((v + (v >> 4)) & 0x0F0F0F0Fu) * 0x01010101u) >> 24;
}

/* log2 of v when v is a power of two, else -1. */
static inline int
ms_exact_log2 (guint64 v)
{
  return (v != 0 && (v & (v - 1)) == 0) ? __builtin_ctzll (v) : -1;
}

G_END_DECLS
