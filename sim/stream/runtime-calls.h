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
  /* summed over the warp-level printf calls (the first lane's format,
   * sim/models/device-runtime.c): the format's bytes, its conversions,
   * the conversions times the call's lanes, and the bytes of its %s
   * arguments with their NULs (the lane with the most) */
  guint64 printf_format_bytes, printf_conversions, printf_lane_conversions, printf_string_bytes;
} MsRuntimeCalls;

G_END_DECLS
