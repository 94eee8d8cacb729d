/* fuzz-nvcc-manifest.c - a libFuzzer target for the reader of the
 * manifests of memsim run's nvcc builds (traces/user/nvcc-manifest.c, `make
 * fuzz`): each input is a manifest's text.  A manifest read must write out
 * as the same text; any other outcome but NULL is a bug (ASan and UBSan are
 * on). */
#include "config.h"

#include <string.h>

#include "nvcc-manifest.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  MsNvccManifest *m = ms_nvcc_manifest_parse ((const char *) data, size);
  if (m == NULL)
    return 0;
  g_assert (strlen (m->key) == 64 && m->hashes->len == m->paths->len);
  char *text = ms_nvcc_manifest_text (m->key, (const char *const *) m->hashes->pdata,
                                      (const char *const *) m->paths->pdata, m->paths->len);
  g_assert (text != NULL);
  /* the same lines (the input may lack the last newline) */
  g_assert (strncmp (text, (const char *) data, size) == 0);
  g_free (text);
  ms_nvcc_manifest_free (m);
  return 0;
}
