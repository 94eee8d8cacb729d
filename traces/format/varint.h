/* varint.h - the integer encodings of memsim's trace payload: unsigned
 * LEB128 (7 bits a byte, low first, at most 10 bytes) and zigzag for signed
 * values (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...). */
#pragma once

#include <glib.h>

static inline void
ms_varint_put (GString *out, guint64 v)
{
  while (v >= 0x80)
    {
      g_string_append_c (out, (char) (guint8) (v | 0x80));
      v >>= 7;
    }
  g_string_append_c (out, (char) (guint8) v);
}

static inline guint64
ms_zigzag (gint64 v)
{
  return ((guint64) v << 1) ^ (guint64) (v >> 63);
}

static inline gint64
ms_unzigzag (guint64 v)
{
  return (gint64) (v >> 1) ^ -(gint64) (v & 1);
}

static inline void
ms_varint_put_string (GString *out, const char *s)
{
  gsize n = s ? strlen (s) : 0;
  ms_varint_put (out, n);
  g_string_append_len (out, s ? s : "", (gssize) n);
}
