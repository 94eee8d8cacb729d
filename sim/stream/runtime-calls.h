/* runtime-calls.h - the device runtime's calls a launch made: what the
 * engine counts of device code's printf, malloc and free for the time
 * model (kernel-time.c), which charges them as measured on the H200. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  MS_RUNTIME_PRINTF,
  MS_RUNTIME_MALLOC,
  MS_RUNTIME_FREE,
  MS_RUNTIME_KINDS
} MsRuntimeKind;

/* Per kind: warp-level calls (one a group of lanes that called together),
 * the lanes that called, and the most calls one warp of a block made (the
 * longest chain of calls one after another). */
typedef struct {
  guint64 calls[MS_RUNTIME_KINDS], lanes[MS_RUNTIME_KINDS], chain[MS_RUNTIME_KINDS];
} MsRuntimeCalls;

G_END_DECLS
