/* fuzz-sass.c - a libFuzzer target for the SASS reader (`make fuzz`): each
 * input is read as nvdisasm's text (traces/kernels/sass.c), then every
 * function's line counts of each kind are taken, and the registers of the
 * kernel of the text's first registers line (ms_sass_registers).  Any outcome but a clean
 * parse is a bug (ASan and UBSan are on): the reader never fails. */
#include "config.h"

#include <string.h>

#include "sass.h"

/* the built-ins' table, which the reader's other entry points read: none */
const char ms_kernel_sass_text[] = "";

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  char *text = g_strndup ((const char *) data, size);
  MsSass *sass = ms_sass_parse (text);
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, sass->line_counts);
  while (g_hash_table_iter_next (&it, &key, NULL))
    {
      char *function = g_strndup (key, strcspn (key, "\n"));
      for (int what = MS_SASS_ALL; what <= MS_SASS_MEMORY; what++)
        g_hash_table_unref (ms_sass_line_counts (sass, function, (MsSassCount) what));
      g_free (function);
    }
  const char *tag = strstr (text, MS_SASS_REGISTERS_TAG);
  if (tag != NULL)
    {
      const char *sym = tag + strlen (MS_SASS_REGISTERS_TAG);
      char *symbol = g_strndup (sym, strcspn (sym, " \n"));
      (void) ms_sass_registers (text, symbol);
      g_free (symbol);
    }
  ms_sass_free (sass);
  g_free (text);
  return 0;
}
