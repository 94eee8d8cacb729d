/* ptx-source-names.h - the parameters' names of a kernel as its source file
 * declares them, for device code run from PTX (which keeps only
 * _Z..._param_N).
 *
 *   names = ms_ptx_source_param_names (text, line, "tileSums<64>", 3);
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* text: the source file; line: the entry's first .loc line (1-based);
 * shown: the kernel's name as the source says it ("f", "ns::f",
 * "tileSums<64>").  The declaration is the first "NAME(" or "NAME<...>("
 * of the base name at or up to 5 lines before line; its list is split at
 * top-level commas, each parameter's name the last identifier before any
 * default value or array bound.  A NULL-terminated array of n names (free
 * with g_strfreev), or NULL where that finds no list of n parameters. */
char **ms_ptx_source_param_names (const char *text, guint line, const char *shown, guint n);

G_END_DECLS
