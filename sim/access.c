/* access.c - names of the fields of a warp access record. */
#include "config.h"
#include "access.h"

const char *
ms_space_name (MsSpace space)
{
  static const char *const names[] = { "global", "shared", "local" };
  return (guint) space < G_N_ELEMENTS (names) ? names[space] : "?";
}

const char *
ms_op_name (MsOp op)
{
  static const char *const names[] = { "ld", "st", "atom" };
  return (guint) op < G_N_ELEMENTS (names) ? names[op] : "?";
}
