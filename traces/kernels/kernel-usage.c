/* kernel-usage.c - see kernel-usage.h. */
#include "config.h"
#include "kernel-usage.h"

#include <string.h>

static const MsKernelUsage *
find (const char *function)
{
  for (const MsKernelUsage *u = ms_kernel_usage_table; u->function; u++)
    if (strcmp (u->function, function) == 0)
      return u;
  return NULL;
}

static gboolean
has_param (const MsKernel *k, const char *name)
{
  for (const MsParamSpec *s = k->params; s && s->name; s++)
    if (strcmp (s->name, name) == 0)
      return TRUE;
  return FALSE;
}

const MsKernelUsage *
ms_kernel_usage_find (const MsProblem *p)
{
  const char *name = p->kernel->name;
  if (p->kernel->external)
    return NULL;   /* a user's kernel: no nvcc build of it */
  const MsKernelUsage *u = find (name);
  if (u == NULL && has_param (p->kernel, "width"))
    {
      g_autofree char *f = g_strdup_printf ("%s_%" G_GINT64_FORMAT, name,
                                            ms_problem_param (p, "width"));
      u = find (f);
    }
  if (u == NULL)
    {
      g_autofree char *f = g_strdup_printf ("%s_%u", name, p->args.block[0]);
      u = find (f);
    }
  return u;
}

gboolean
ms_problem_probe_shared (const MsProblem *p, guint *bytes, GError **error)
{
  MsLaunch launch;
  ms_problem_launch (p, &launch);
  void *copies[MS_MAX_BUFFERS] = { 0 };
  for (guint b = 0; b < p->n_buffers; b++)
    {
      /* cudaMalloc's alignment, as ms_problem_buffer gives */
      copies[b] = g_aligned_alloc (1, MAX (p->buffer_bytes[b], 1), 256);
      memcpy (copies[b], p->args.buf[b], p->buffer_bytes[b]);
      launch.args.buf[b] = copies[b];
    }
  launch.threads = 1;
  launch.max_blocks = 1;
  launch.oob_margin = 0;   /* the copies have no guard pages */
  launch.shared_bytes = bytes;
  gboolean ok = ms_emulate (&launch, error);
  for (guint b = 0; b < p->n_buffers; b++)
    g_aligned_free (copies[b]);
  return ok;
}
