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
usage_knows (gpointer data, const char *function)
{
  return find (function) != NULL;
}

const MsKernelUsage *
ms_kernel_usage_find (const MsProblem *p)
{
  if (p->kernel->external)
    return NULL;   /* a user's kernel: not in the built-ins' nvcc build */
  g_autofree char *f = ms_problem_function (p, usage_knows, NULL);
  return f ? find (f) : NULL;
}

void
ms_problem_occupancy_input (const MsProblem *p, MsOccInput *in)
{
  const MsKernelUsage *u = ms_kernel_usage_find (p);
  *in = (MsOccInput) {
    .threads_per_block = (int) (p->args.block[0] * p->args.block[1] * p->args.block[2]),
    .dynamic_shared = (int) p->dynamic_shared,
    .carveout_pct = -1,
  };
  if (u != NULL)
    in->registers_per_thread = ms_allocated_registers (u->registers);
  else if (p->kernel->registers > 0)
    in->registers_per_thread = ms_allocated_registers (p->kernel->registers);
  else
    in->registers_per_thread = MS_DEFAULT_REGISTERS;
  in->static_shared = u ? u->shared_bytes : (int) p->static_shared;
  in->barriers = u ? u->barriers : 1;
}

gboolean
ms_problem_probe_shared (const MsProblem *p, guint *bytes, GError **error)
{
  /* run from PTX (a built-in, a user's kernel), which says */
  if (p->warp_entry != NULL || p->kernel->warp_entry != NULL)
    {
      *bytes = p->static_shared;
      return TRUE;
    }
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
  launch.races = NULL;   /* a race is still an error unless p->allow_races; the
                            caller's log keeps the full run's findings */
  gboolean ok = ms_emulate (&launch, error);
  for (guint b = 0; b < p->n_buffers; b++)
    g_aligned_free (copies[b]);
  return ok;
}
