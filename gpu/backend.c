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

#include <math.h>
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
  *value = m->value;
  return TRUE;
}

/* Element e of a floating-point buffer as a double. */
static double
float_at (const guint8 *b, gsize e, guint size)
{
  if (size == 8)
    {
      double d;
      memcpy (&d, b + 8 * e, 8);
      return d;
    }
  float f;
  memcpy (&f, b + 4 * e, 4);
  return f;
}

/* A user's kernel has no reference: the GPU's outputs are compared with the
 * emulator's, integers (and anything not all floating point) exactly, in
 * 4-byte words, floating point element by element within
 * MS_GPU_USER_TOLERANCE x (|emulator's value| + the buffer's largest
 * magnitude): nvcc contracts a * b + c into one fused multiply-add where
 * g++ for x86-64 does not, and float atomics add in another order. */
static gboolean
check_against_emulator (const MsProblem *p, const MsGpuResult *r, char **message)
{
  guint64 elements = 0, differ = 0, wrong = 0;
  const char *first_buf = NULL, *wrong_buf = NULL;
  gsize first_index = 0, wrong_index = 0;
  double wrong_gpu = 0, wrong_cpu = 0;
  guint wrong_size = 0;
  for (guint b = 0; b < p->n_buffers; b++)
    {
      if (!p->buffer_output[b])
        continue;
      if (r->outputs[b] == NULL)
        {
          *message = g_strdup ("GPU output missing (the kernel was not run)");
          return FALSE;
        }
      const guint8 *cpu = p->args.buf[b], *gpu = r->outputs[b];
      guint size = p->buffer_float[b], unit = size ? size : 4;
      gsize bytes = p->buffer_bytes[b], n = (bytes + unit - 1) / unit;
      double largest = 0;
      for (gsize i = 0; size && i < n; i++)
        {
          double c = fabs (float_at (cpu, i, size));
          if (isfinite (c) && c > largest)
            largest = c;
        }
      for (gsize i = 0; i < n; i++)
        {
          if (memcmp (cpu + unit * i, gpu + unit * i, MIN (unit, bytes - unit * i)) == 0)
            continue;
          if (differ++ == 0)
            {
              first_buf = p->buffer_names[b];
              first_index = i;
            }
          double c = size ? float_at (cpu, i, size) : 0, g = size ? float_at (gpu, i, size) : 0;
          gboolean ok = size != 0
                        && ((isnan (c) && isnan (g))
                            || (isfinite (c) && isfinite (g)
                                && fabs (g - c) <= MS_GPU_USER_TOLERANCE * (fabs (c) + largest)));
          if (!ok && wrong++ == 0)
            {
              wrong_buf = p->buffer_names[b];
              wrong_index = i;
              wrong_gpu = g;
              wrong_cpu = c;
              wrong_size = size;
            }
        }
      elements += n;
    }
  if (wrong > 0 && wrong_size == 0)
    *message = g_strdup_printf ("GPU output differs from the emulator's: %" G_GUINT64_FORMAT
                                " element(s) or 4-byte word(s) of %" G_GUINT64_FORMAT
                                ", the first at %s word %zu (compared exactly)",
                                wrong, elements, wrong_buf, wrong_index);
  else if (wrong > 0)
    *message = g_strdup_printf ("GPU output differs from the emulator's: %s[%zu] = %.9g on "
                                "the GPU, %.9g in the emulator (%" G_GUINT64_FORMAT " of %"
                                G_GUINT64_FORMAT " elements beyond the tolerance)",
                                wrong_buf, wrong_index, wrong_gpu, wrong_cpu, wrong, elements);
  else if (differ == 0)
    *message = g_strdup ("passed (bit-identical to the emulator's output; your kernel has no "
                         "reference)");
  else
    *message = g_strdup_printf ("passed (within the tolerance for floating point: %"
                                G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " elements differ "
                                "from the emulator's output, the first at %s element %zu; "
                                "your kernel has no reference)",
                                differ, elements, first_buf, first_index);
  return wrong == 0;
}

gboolean
ms_gpu_check_outputs (const MsProblem *p, const MsGpuResult *r, char **message)
{
  if (p->kernel->check == NULL)
    {
      if (p->sample_period > 1)
        {
          *message = g_strdup ("not run (your kernel has no reference, and the emulator ran a "
                               "sample of the blocks)");
          return TRUE;
        }
      return check_against_emulator (p, r, message);
    }
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

/* Every metric memsim simulates (the atomics' ATOM and RED metrics apart:
 * memsim counts an atomic whose result is unused as RED, as nvcc emits it). */
GPtrArray *
ms_gpu_simulated_metrics (void)
{
  static const char *const whats[] = { "inst", "requests", "sectors", "wavefronts", "conflicts" };
  static GPtrArray *names;
  if (names != NULL)
    return names;
  names = g_ptr_array_new ();
  for (int sp = MS_SPACE_GLOBAL; sp <= MS_SPACE_SHARED; sp++)
    for (int op = MS_OP_LD; op < MS_N_OPS; op++)
      for (guint w = 0; w < G_N_ELEMENTS (whats); w++)
        {
          /* RED is global only: shared atomics are ATOMS whatever is used */
          const char *n = sp == MS_SPACE_SHARED && op == MS_OP_RED
                            ? NULL : ms_metric_name ((MsSpace) sp, (MsOp) op, whats[w]);
          if (n != NULL)
            g_ptr_array_add (names, (gpointer) n);
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
      /* memsim's metric names only */
      GPtrArray *names = ms_gpu_simulated_metrics ();
      *metrics = g_array_new (FALSE, TRUE, sizeof (MsGpuMetric));
      for (guint i = 0; i < names->len; i++)
        {
          const char *n = names->pdata[i];
          if (strcmp (n, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_atom.sum") == 0)
            continue;
          MsGpuMetric m = { n, 0.0, FALSE };
          m.available = ms_gpu_result_metric (r, n, &m.value);
          g_array_append_val (*metrics, m);
        }
    }
  return TRUE;
}
