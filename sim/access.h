/* access.h - the warp access record: what the emulator hands the models.
 *
 * One record per warp-level memory instruction executed (per warp, per
 * dynamic execution).  It is the single interface between the emulator
 * (producer) and every model, report, trace writer and diagram (consumers).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define MS_WARP_SIZE 32

typedef enum {
  MS_SPACE_GLOBAL = 0,
  MS_SPACE_SHARED = 1,
  MS_SPACE_LOCAL = 2,
} MsSpace;

typedef enum {
  MS_OP_LD = 0,
  MS_OP_ST = 1,
  MS_OP_ATOMIC = 2,
} MsOp;

/* A static source location of one access (one macro expansion in a kernel).
 * `order` grows with the position in the source file; the emulator runs the
 * lanes waiting at the smallest order first (SIMT reconvergence). */
#ifndef MS_SITE_DEFINED
#define MS_SITE_DEFINED
typedef struct MsSite MsSite;
struct MsSite {
  const char *file;   /* kernel source file name, e.g. "transpose.cu" */
  int line;           /* 1-based source line */
  int order;          /* textual order within the file (__COUNTER__) */
  int id;             /* dense index assigned at first use, -1 before */
};
#endif

typedef struct {
  const MsSite *site;
  guint32 block;      /* linear block index in the grid */
  guint16 warp;       /* warp index within the block */
  guint8 space;       /* MsSpace */
  guint8 op;          /* MsOp */
  guint8 width;       /* bytes per lane: 1, 2, 4, 8 or 16 */
  guint32 mask;       /* active lanes: bit l set = lane l took part */
  /* Per lane: global = byte address (buffers are 256-byte aligned, as
   * cudaMalloc's are), shared = byte offset in the block's shared window.
   * Entries of inactive lanes are undefined. */
  guint64 addr[MS_WARP_SIZE];
} MsWarpAccess;

const char *ms_space_name (MsSpace space);
const char *ms_op_name (MsOp op);

G_END_DECLS
