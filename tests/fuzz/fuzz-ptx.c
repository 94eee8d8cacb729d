/* fuzz-ptx.c - a libFuzzer target for the PTX reader and translator
 * (`make fuzz`): each input is read as PTX and, when it reads, translated
 * to C.  Any outcome but a clean error or a clean translation is a bug
 * (ASan and UBSan are on). */
#include "config.h"

#include <string.h>

#include "ptx-translate.h"
#include "ptx.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  GError *error = NULL;
  MsPtxModule *m = ms_ptx_read ("fuzz.ptx", (const char *) data, size, &error);
  if (m == NULL)
    {
      g_assert (error != NULL && strchr (error->message, '\n') == NULL);
      g_error_free (error);
      return 0;
    }
  GString *c = g_string_new (NULL);
  ms_ptx_translate (m, 0, c, NULL);
  g_string_free (c, TRUE);
  ms_ptx_module_free (m);
  return 0;
}
