/* nvcc-manifest.h - the manifest of a program's nvcc build, which finds
 * the build again without running nvcc's preprocessor (ccache's "direct
 * mode"; nvcc-build.c): the cache key the preprocessing gave, and each file
 * the preprocessor read with the SHA-256 of its text then.  Text only: the
 * caller reads and writes the file, and hashes the files it names.
 *
 *     memsim nvcc manifest 1
 *     key <64 hex digits>
 *     <64 hex digits> <absolute path>
 *     ...
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *key;           /* the build's cache key */
  GPtrArray *hashes;   /* char *: each file's SHA-256, in hex */
  GPtrArray *paths;    /* char *: ... and its path */
} MsNvccManifest;

/* The manifest of text (len bytes, any bytes); NULL when it is not one. */
MsNvccManifest *ms_nvcc_manifest_parse (const char *text, gsize len);
void ms_nvcc_manifest_free (MsNvccManifest *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsNvccManifest, ms_nvcc_manifest_free)

/* The text of a manifest of key whose files are paths with hashes (n of
 * each); NULL when a path cannot be written in one (a newline in it). */
char *ms_nvcc_manifest_text (const char *key, const char *const *hashes,
                             const char *const *paths, guint n);

G_END_DECLS
