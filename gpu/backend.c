/* backend.c - runs built-in kernels on the GPU (see backend.h).
 *
 * What needs no GPU is here, in memsim; what runs on the GPU is the
 * plug-in memsim-gpu.so (backend-cuda.c with the CUDA runtime, CUPTI and
 * the kernels' nvcc builds), loaded on the first call that needs it, so
 * that the commands that never touch a GPU do not load CUDA's libraries.
 * Without CUDA there is no plug-in, and the calls say so.
 */
#include "config.h"
#include "backend.h"

#include <string.h>

#include "emulator.h"
#include "report.h"

#include "backend-plugin.h"
#include "plugin.h"

G_DEFINE_QUARK (ms-gpu-error-quark, ms_gpu_error)

/* ------------------------------------------------------------ shared parts */

void
ms_gpu_result_free (MsGpuResult *r)
{
  if (r == NULL)
    return;
  for (guint b = 0; b < MS_MAX_BUFFERS; b++)
    g_aligned_free (r->outputs[b]);
  if (r->metrics)
    g_array_unref (r->metrics);
  if (r->trace)
    g_array_unref (r->trace);
  g_free (r);
}

MsGpuSnapshot *
ms_gpu_snapshot_new (const MsProblem *p)
{
  MsGpuSnapshot *s = g_new0 (MsGpuSnapshot, 1);
  s->n = p->n_buffers;
  for (guint b = 0; b < p->n_buffers; b++)
    {
      s->buf[b] = g_aligned_alloc0 (1, MAX (p->buffer_bytes[b], 1), 256);
      memcpy (s->buf[b], p->args.buf[b], p->buffer_bytes[b]);
    }
  return s;
}

void
ms_gpu_snapshot_free (MsGpuSnapshot *s)
{
  if (s == NULL)
    return;
  for (guint b = 0; b < s->n; b++)
    g_aligned_free (s->buf[b]);
  g_free (s);
}

/* The RED counterpart of a global ATOM metric, or NULL:
 * smsp__sass_inst_executed_op_global_atom.sum -> ..._op_global_red.sum,
 * l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum -> ..._global_op_red.sum. */
static char *
red_name (const char *atom_name)
{
  static const char *const forms[][2] = {
    { "_op_global_atom.", "_op_global_red." },
    { "_global_op_atom.", "_global_op_red." },
  };
  for (guint f = 0; f < G_N_ELEMENTS (forms); f++)
    {
      const char *at = strstr (atom_name, forms[f][0]);
      if (at != NULL)
        return g_strdup_printf ("%.*s%s%s", (int) (at - atom_name), atom_name, forms[f][1],
                                at + strlen (forms[f][0]));
    }
  return NULL;
}

static const MsGpuMetric *
find_metric (const MsGpuResult *r, const char *name)
{
  if (r == NULL || r->metrics == NULL)
    return NULL;
  for (guint i = 0; i < r->metrics->len; i++)
    {
      const MsGpuMetric *m = &g_array_index (r->metrics, MsGpuMetric, i);
      if (strcmp (m->name, name) == 0)
        return m;
    }
  return NULL;
}

gboolean
ms_gpu_result_metric (const MsGpuResult *r, const char *name, double *value)
{
  const MsGpuMetric *m = find_metric (r, name);
  if (m == NULL || !m->available)
    return FALSE;
  double v = m->value;
  g_autofree char *red = red_name (name);
  const MsGpuMetric *mr = red ? find_metric (r, red) : NULL;
  if (mr != NULL && mr->available)
    v += mr->value;
  *value = v;
  return TRUE;
}

gboolean
ms_gpu_check_outputs (const MsProblem *p, const MsGpuResult *r, char **message)
{
  MsProblem gpu = *p;   /* the same problem, with the GPU's output buffers */
  guint64 words = 0, differ = 0;
  const char *first_buf = NULL;
  gsize first_index = 0;
  for (guint b = 0; b < p->n_buffers; b++)
    {
      if (!p->buffer_output[b])
        continue;
      if (r->outputs[b] == NULL)
        {
          *message = g_strdup ("GPU output missing (the kernel was not run)");
          return FALSE;
        }
      gpu.args.buf[b] = r->outputs[b];
      const guint8 *a = p->args.buf[b], *g = r->outputs[b];
      gsize n = p->buffer_bytes[b] / 4;
      for (gsize i = 0; i < n; i++)
        if (memcmp (a + 4 * i, g + 4 * i, 4) != 0)
          {
            if (differ++ == 0)
              {
                first_buf = p->buffer_names[b];
                first_index = i;
              }
          }
      words += n;
      if (memcmp (a + 4 * n, g + 4 * n, p->buffer_bytes[b] % 4) != 0 && differ++ == 0)
        {
          first_buf = p->buffer_names[b];
          first_index = n;
        }
    }
  g_autoptr (GError) error = NULL;
  if (!p->kernel->check (&gpu, &error))
    {
      *message = g_strdup_printf ("GPU %s", error->message);
      return FALSE;
    }
  if (p->sample_period > 1)   /* --sample: the emulator's output is partial */
    *message = g_strdup ("passed (the kernel's check; the emulator ran a sample of the "
                         "blocks, so its output is not compared)");
  else if (differ == 0)
    *message = g_strdup ("passed (bit-identical to the emulator's output)");
  else
    *message = g_strdup_printf ("passed (within the kernel's tolerance; %" G_GUINT64_FORMAT
                                " of %" G_GUINT64_FORMAT " 4-byte words differ from the "
                                "emulator's output, the first at %s word %zu)",
                                differ, words, first_buf, first_index);
  return TRUE;
}

/* Every metric memsim simulates, plus the RED twins of global atomics. */
GPtrArray *
ms_gpu_simulated_metrics (void)
{
  static const char *const whats[] = { "inst", "requests", "sectors", "wavefronts", "conflicts" };
  static GPtrArray *names;
  if (names != NULL)
    return names;
  names = g_ptr_array_new ();
  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    for (int op = MS_OP_LD; op <= MS_OP_ATOMIC; op++)
      for (guint w = 0; w < G_N_ELEMENTS (whats); w++)
        {
          const char *n = ms_metric_name ((MsSpace) sp, (MsOp) op, whats[w]);
          if (n == NULL)
            continue;
          g_ptr_array_add (names, (gpointer) n);
          char *red = red_name (n);
          if (red)
            g_ptr_array_add (names, (gpointer) g_intern_string (red));
          g_free (red);
        }
  /* read as evidence only (measured_raw): the hardware-side count of
   * shared atomics' wavefronts, beside the SASS-side one above */
  g_ptr_array_add (names, (gpointer) "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum");
  return names;
}

/* ------------------------------------------------------------ the plug-in */

static const MsGpuPlugin *
plugin (GError **error)
{
#ifdef HAVE_CUDA
  return ms_plugin_symbol ("gpu", "the GPU back-end", "ms_gpu_plugin", error);
#else
  g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_CUDA,
               "this build has no CUDA support; reconfigure with --with-cuda");
  return NULL;
#endif
}

gboolean
ms_gpu_available (MsGpuInfo *info, GError **error)
{
  const MsGpuPlugin *gpu = plugin (error);
  return gpu != NULL && gpu->available (info, error);
}

MsGpuResult *
ms_gpu_run (const MsProblem *p, const MsGpuSnapshot *input, guint flags, GError **error)
{
  const MsGpuPlugin *gpu = plugin (error);
  return gpu != NULL ? gpu->run (p, input, flags, error) : NULL;
}

gboolean
ms_gpu_measure (const MsProblem *p, const MsGpuSnapshot *input, double *time_ms,
                double *bandwidth_gbs, GArray **metrics, GError **error)
{
  guint flags = MS_GPU_RUN_TIME | (metrics ? MS_GPU_RUN_COUNTERS : 0);
  g_autoptr (MsGpuResult) r = ms_gpu_run (p, input, flags, error);
  if (r == NULL)
    return FALSE;
  if (time_ms)
    *time_ms = r->time_ms;
  if (bandwidth_gbs)
    *bandwidth_gbs = r->bandwidth_gbs;
  if (metrics)
    {
      /* memsim's metric names only, atomics summed over ATOM and RED */
      GPtrArray *names = ms_gpu_simulated_metrics ();
      *metrics = g_array_new (FALSE, TRUE, sizeof (MsGpuMetric));
      for (guint i = 0; i < names->len; i++)
        {
          const char *n = names->pdata[i];
          if (strstr (n, "_op_global_red") != NULL
              || strcmp (n, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum") == 0)
            continue;
          MsGpuMetric m = { n, 0.0, FALSE };
          m.available = ms_gpu_result_metric (r, n, &m.value);
          g_array_append_val (*metrics, m);
        }
    }
  return TRUE;
}
