/* user-sites.h - the sites of a compiled user kernel: code address ->
 * MsSite (file, line, reconvergence order), from the build's DWARF line
 * table (elfutils' libdw); and the layout of the file's structs, for
 * filling buffers of them.
 */
#pragma once

#include <glib.h>

#include "site.h"

G_BEGIN_DECLS

typedef struct MsUserSites MsUserSites;

/* Reads the line table of the shared object at path, loaded at base (its
 * first byte in memory).  source names the user's file: its sites order
 * before those of headers. */
MsUserSites *ms_user_sites_new (const char *path, const void *base, const char *source,
                                GError **error);

/* The site of code address pc (a return address into the build): created
 * on first use and kept for the process (the site table holds it).
 * Thread-safe; matches MsLaunch.site_at.  NULL only if out of memory for
 * sites. */
const MsSite *ms_user_sites_at (gpointer sites, const void *pc);

/* The function whose code starts at address pc (a kernel's address in the
 * loaded build): its name as the debug info has it ("scale", "tile<32>"),
 * its parameters' names appended to params (owned strings; may be NULL),
 * and where it is declared (*file: owned, may be NULL; *line).  NULL if no
 * function starts there. */
char *ms_user_sites_function (MsUserSites *sites, const void *pc, GPtrArray *params,
                              char **file, int *line);

/* How to fill one scalar of a struct: at byte offset `offset`, `size`
 * bytes of kind 'f' (floating point), 'i' (signed) or 'u' (unsigned). */
typedef struct {
  guint offset, size;
  char kind;
} MsUserField;

/* The size and scalar fields of the struct (or class, union, typedef of
 * one) named `name` in the build's debug info; FALSE if there is none.
 * fields: a GArray of MsUserField, in offset order. */
gboolean ms_user_sites_struct (MsUserSites *sites, const char *name, gsize *size,
                               GArray *fields);

G_END_DECLS
