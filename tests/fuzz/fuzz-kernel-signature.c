/* fuzz-kernel-signature.c - a libFuzzer target for the reader of a kernel's
 * signature (`make fuzz`): each input is written to a file and read as the
 * DWARF of nvcc's host build (traces/user/kernel-signature.c): a kernel's
 * parameter types and a struct's layout.  Any outcome but a clean answer
 * (found or not) is a bug (ASan and UBSan are on). */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "kernel-signature.h"
#include "user-error.h"

G_DEFINE_QUARK (ms-user-error-quark, ms_user_error)

int LLVMFuzzerTestOneInput (const guint8 *data, size_t size);

int
LLVMFuzzerTestOneInput (const guint8 *data, size_t size)
{
  static char *path;
  if (path == NULL)
    path = g_strdup_printf ("%s/memsim-fuzz-signature-%d.o", g_get_tmp_dir (), (int) getpid ());
  if (!g_file_set_contents (path, (const char *) data, (gssize) size, NULL))
    return 0;
  MsKernelSignature *s = ms_kernel_signature_open (path, NULL);
  if (s != NULL)
    {
      /* the seed's kernel (void k (P *, int)) and struct */
      ms_kernel_param_types_free (ms_kernel_signature_params (s, "_Z1kP1Pi"));
      gsize bytes = 0;
      GArray *fields = g_array_new (FALSE, FALSE, sizeof (MsUserField));
      ms_kernel_signature_struct (s, "P", &bytes, fields);
      g_array_unref (fields);
      ms_kernel_signature_free (s);
    }
  g_unlink (path);
  return 0;
}
