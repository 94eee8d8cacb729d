/* fuzz-user-source.c - a libFuzzer target for what memsim reads of a user's
 * CUDA file before compiling it (`make fuzz`, traces/user/user-source.c):
 * each input is a .cu text, scanned for its __global__ functions and
 * rewritten (its __shared__ declarations, its <<<...>>> launches), as
 * `memsim trace FILE.cu:KERNEL` and `memsim run` do; the rewrites must keep
 * every line where it was. */
#include "config.h"

#include <string.h>

#include "user-source.h"

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

static guint
lines (const char *s)
{
  guint n = 0;
  for (; *s; s++)
    n += *s == '\n';
  return n;
}

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  char *text = g_strndup ((const char *) data, size);   /* a file ends at its first NUL */
  GPtrArray *kernels = ms_user_source_kernels (text);
  g_ptr_array_unref (kernels);
  GError *error = NULL;
  char *out = ms_user_source_rewrite (text, "fuzz.cu", &error);
  if (out != NULL && lines (out) != lines (text))
    __builtin_trap ();   /* the compiler's line numbers would no longer be the user's */
  g_free (out);
  g_clear_error (&error);
  /* a whole program's rewrite (memsim run): launches kept and rewritten */
  out = ms_user_source_rewrite_program (text, "fuzz.cu", &error);
  if (out != NULL && lines (out) != lines (text))
    __builtin_trap ();
  g_free (out);
  g_clear_error (&error);
  g_free (text);
  return 0;
}
