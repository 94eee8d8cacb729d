/* fuzz-source-names.c - a libFuzzer target for the reader of users' sources
 * that names a kernel's parameters (sim/ptx/ptx-source-names.c, `make
 * fuzz`): each input is a source file; its first byte picks the entry's
 * line, its second the number of parameters, its third the kernel's name
 * (plain, in a namespace, a template's instance).  Any outcome but names or
 * NULL is a bug (ASan and UBSan are on). */
#include "config.h"

#include "ptx-source-names.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static const char *const shown[] = { "divide", "ns::scale", "tileSums<64>", "k", "<lambda>" };
  if (size < 3)
    return 0;
  char *text = g_strndup ((const char *) data + 3, size - 3);
  char **names = ms_ptx_source_param_names (text, data[0], shown[data[2] % G_N_ELEMENTS (shown)],
                                            data[1] % 16);
  for (guint i = 0; names && names[i]; i++)
    g_assert (names[i][0] != '\0');
  g_strfreev (names);
  g_free (text);
  return 0;
}
