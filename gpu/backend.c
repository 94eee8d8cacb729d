/* backend.c - runs built-in kernels on the GPU (see backend.h).
 *
 * Plain C on the CUDA runtime API; the CUDA C++ parts live in .cu files:
 * profiler.cu (CUPTI counters, CUDA-event timing), the kernels' nvcc builds
 * (traces/kernels/NAME.gpu.o: ms_gpu_entry_<name>) and their address-trace
 * builds (NAME.gputrace.o: ms_gpu_trace_entry_<name>, trace-device.cuh).
 * Without CUDA this file only keeps the API and says so.
 */
#include "config.h"
#include "backend.h"

#include <math.h>
#include <string.h>

#include "emulator.h"
#include "report.h"

#ifdef HAVE_CUDA
#include "device.h"
#include "entries.h"
#include "profiler.h"
#include "trace.h"
#endif

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

#ifndef HAVE_CUDA
/* ------------------------------------------------------------ no CUDA */

static gboolean
no_cuda (GError **error)
{
  g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_CUDA,
               "this build has no CUDA support; reconfigure with --with-cuda");
  return FALSE;
}

gboolean
ms_gpu_available (MsGpuInfo *info, GError **error)
{
  (void) info;
  return no_cuda (error);
}

MsGpuResult *
ms_gpu_run (const MsProblem *p, const MsGpuSnapshot *input, guint flags, GError **error)
{
  (void) p, (void) input, (void) flags;
  no_cuda (error);
  return NULL;
}

gboolean
ms_gpu_measure (const MsProblem *p, const MsGpuSnapshot *input, double *time_ms,
                double *bandwidth_gbs, GArray **metrics, GError **error)
{
  (void) p, (void) input, (void) time_ms, (void) bandwidth_gbs, (void) metrics;
  return no_cuda (error);
}

#else
/* ------------------------------------------------------------ CUDA */

#define DECLARE_TRACE_ENTRY(name) \
  int ms_gpu_trace_entry_##name (const MsLaunchArgs *L, const MsGpuTraceState *state);
MS_FOR_EACH_KERNEL (DECLARE_TRACE_ENTRY)

#define TRACE_ROW(name) { ms_gpu_entry_##name, ms_gpu_trace_entry_##name },
static const struct {
  MsEntryFn entry;
  MsGpuTraceEntryFn trace;
} trace_entries[] = { MS_FOR_EACH_KERNEL (TRACE_ROW) };

/* More accesses than this are not traced (each record is 280 bytes on the
 * GPU and 296 on the host; trace-check.c has the same limit). */
#define MS_GPU_TRACE_MAX (G_GUINT64_CONSTANT (1) << 20)

gboolean
ms_gpu_available (MsGpuInfo *info, GError **error)
{
  MsGpuInfo tmp;
  MsGpuInfo *i = info ? info : &tmp;
  char err[512] = "";
  memset (i, 0, sizeof *i);
  if (ms_gpu_device_info (i->name, sizeof i->name, &i->cc_major, &i->cc_minor,
                          &i->driver_version, &i->runtime_version, err, sizeof err) != 0)
    {
      static const char prefix[] = "no CUDA-capable GPU found (";
      gsize len = strlen (err);
      if (g_str_has_prefix (err, prefix) && len > strlen (prefix) && err[len - 1] == ')')
        g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_DEVICE,
                     "no CUDA-capable GPU found: %.*s", (int) (len - strlen (prefix) - 1),
                     err + strlen (prefix));
      else if (g_str_has_prefix (err, "no CUDA-capable GPU found"))
        g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_DEVICE, "%s", err);
      else
        g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_DEVICE,
                     "no CUDA-capable GPU found: %s", err);
      return FALSE;
    }
  return TRUE;
}

/* Runs a device.h call: rc is its result, err its message. */
#define DEV(call, error)                                                        \
  ({                                                                            \
    char err_[512] = "";                                                        \
    char *err = err_;                                                           \
    const size_t errlen = sizeof err_;                                          \
    gboolean ok_ = (call) == 0;                                                 \
    if (!ok_)                                                                   \
      g_set_error ((error), MS_GPU_ERROR, MS_GPU_ERROR_FAILED, "%s", err_);     \
    (void) err, (void) errlen;                                                  \
    ok_;                                                                        \
  })

/* The problem on the device. */
typedef struct {
  const MsProblem *p;
  const MsGpuSnapshot *input;   /* or NULL: p's buffers */
  MsLaunchArgs args;            /* p->args with device buffers */
  void *dbuf[MS_MAX_BUFFERS];
  gsize alloc[MS_MAX_BUFFERS];
  MsEntryFn entry;
  MsGpuTraceEntryFn trace;
  MsGpuTraceState trace_state;
  int trace_rc;
} Device;

static void
device_free (Device *d)
{
  for (guint b = 0; b < MS_MAX_BUFFERS; b++)
    ms_gpu_dev_free (d->dbuf[b]);
}

static gboolean
device_upload (Device *d, GError **error)
{
  for (guint b = 0; b < d->p->n_buffers; b++)
    {
      const void *src = d->input ? d->input->buf[b] : d->p->args.buf[b];
      if (!DEV (ms_gpu_dev_upload (d->dbuf[b], src, d->p->buffer_bytes[b], err, errlen), error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
device_init (Device *d, const MsProblem *p, const MsGpuSnapshot *input, GError **error)
{
  memset (d, 0, sizeof *d);
  d->p = p;
  d->input = input;
  d->args = p->args;
  d->entry = p->kernel->gpu_entry;
  if (d->entry == NULL)
    {
      g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_KERNEL,
                   "kernel %s has no GPU build", p->kernel->name);
      return FALSE;
    }
  for (guint b = 0; b < p->n_buffers; b++)
    {
      /* cudaMalloc aligns to 256 bytes at least, as the emulator assumes */
      d->alloc[b] = (MAX (p->buffer_bytes[b], 1) + 255) / 256 * 256;
      if (!DEV (ms_gpu_dev_alloc (&d->dbuf[b], d->alloc[b], err, errlen), error))
        return FALSE;
      if (((guintptr) d->dbuf[b] & 255) != 0)
        {
          g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED,
                       "cudaMalloc returned a buffer not aligned to 256 bytes");
          return FALSE;
        }
      if (!DEV (ms_gpu_dev_memset (d->dbuf[b], 0, d->alloc[b], err, errlen), error))
        return FALSE;
      d->args.buf[b] = d->dbuf[b];
    }
  return device_upload (d, error);
}

static void
launch_plain (void *user)
{
  Device *d = user;
  d->entry (&d->args);
}

static void
launch_trace (void *user)
{
  Device *d = user;
  d->trace_rc = d->trace (&d->args, &d->trace_state);
}

static gboolean
device_sync (const char *what, GError **error)
{
  return DEV (ms_gpu_dev_sync (what, err, errlen), error);
}

/* The metric named in a profiler message "metric 'NAME' is not available". */
static char *
unavailable_metric (const char *err)
{
  const char *a = strstr (err, "metric '");
  if (a == NULL || strstr (err, "not available") == NULL)
    return NULL;
  a += strlen ("metric '");
  const char *e = strchr (a, '\'');
  return e ? g_strndup (a, (gsize) (e - a)) : NULL;
}

/* Profiles names[0..n) into r->metrics; metrics the chip lacks are kept,
 * marked unavailable. */
static gboolean
profile (Device *d, const char *const *names, int n, unsigned flags, MsGpuResult *r,
         GError **error)
{
  g_autoptr (GPtrArray) todo = g_ptr_array_new ();
  for (int i = 0; i < n; i++)
    g_ptr_array_add (todo, (gpointer) names[i]);
  for (int attempt = 0; attempt <= n && todo->len > 0; attempt++)
    {
      g_autofree double *values = g_new0 (double, todo->len);
      char err[1024] = "";
      if (!device_upload (d, error))
        return FALSE;
      int rc = ms_gpu_profile_ex (launch_plain, d, (const char *const *) todo->pdata,
                                  (int) todo->len, values, flags, err, sizeof err);
      if (rc == 0)
        {
          if (!device_sync ("kernel launch (profiled)", error))
            return FALSE;
          for (guint i = 0; i < todo->len; i++)
            {
              MsGpuMetric m = { todo->pdata[i], values[i], TRUE };
              g_array_append_val (r->metrics, m);
            }
          return TRUE;
        }
      g_autofree char *bad = unavailable_metric (err);
      guint k;
      for (k = 0; bad && k < todo->len; k++)
        if (strcmp (todo->pdata[k], bad) == 0)
          break;
      if (bad == NULL || k == todo->len)
        {
          g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED, "CUPTI: %s", err);
          return FALSE;
        }
      MsGpuMetric m = { todo->pdata[k], 0.0, FALSE };
      g_array_append_val (r->metrics, m);
      g_ptr_array_remove_index (todo, k);
    }
  return TRUE;
}

/* Every metric memsim simulates (the atomics' ATOM and RED metrics apart:
 * memsim counts an atomic whose result is unused as RED, as nvcc emits it). */
static GPtrArray *
simulated_metric_names (void)
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

static const char *const dram_metrics[] = {
  "dram__bytes_read.sum",
  "dram__bytes_write.sum",
  "lts__t_sectors_srcunit_tex_op_read.sum",
  "lts__t_sectors_srcunit_tex_op_write.sum",
  "gpu__time_duration.sum",
};

static gboolean
run_trace (Device *d, MsGpuResult *r, GError **error)
{
  gboolean ok = FALSE;
  unsigned long long *count = NULL;
  MsGpuTraceRecord *records = NULL, *host = NULL;
  unsigned long long n = 0, n2 = 0;

  for (guint i = 0; i < G_N_ELEMENTS (trace_entries); i++)
    if (trace_entries[i].entry == d->entry)
      d->trace = trace_entries[i].trace;
  if (d->trace == NULL)
    {
      g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_KERNEL,
                   "kernel %s has no address-trace build", d->p->kernel->name);
      return FALSE;
    }
  if (!DEV (ms_gpu_dev_alloc ((void **) &count, sizeof *count, err, errlen), error))
    goto out;
  /* pass 1 counts, pass 2 records.  How lanes are grouped into warp-level
   * accesses can change from run to run (independent thread scheduling), so
   * pass 2 gets room for more records than pass 1 counted. */
  unsigned long long room = 0;
  for (int pass = 0; pass < 2; pass++)
    {
      if (!DEV (ms_gpu_dev_memset (count, 0, sizeof *count, err, errlen), error)
          || !device_upload (d, error))
        goto out;
      d->trace_state = (MsGpuTraceState) { records, pass ? room : 0, count };
      launch_trace (d);
      if (d->trace_rc != 0)
        {
          g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED,
                       "cannot set the address-trace state of kernel %s", d->p->kernel->name);
          goto out;
        }
      if (!device_sync ("kernel launch (address trace)", error)
          || !DEV (ms_gpu_dev_download (pass ? &n2 : &n, count, sizeof n, err, errlen), error))
        goto out;
      if (pass == 0)
        {
          if (n > MS_GPU_TRACE_MAX)
            {
              g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED,
                           "the kernel made %llu warp-level accesses, more than --check-trace "
                           "compares (%" G_GUINT64_FORMAT "); use a smaller --size",
                           n, MS_GPU_TRACE_MAX);
              goto out;
            }
          room = MIN (2 * n + 1024, MS_GPU_TRACE_MAX);
          if (!DEV (ms_gpu_dev_alloc ((void **) &records, room * sizeof *records, err, errlen),
                    error)
              || !DEV (ms_gpu_dev_memset (records, 0, room * sizeof *records, err, errlen),
                       error))
            goto out;
        }
    }
  r->trace_total = n2;
  guint64 keep = MIN (room, n2);
  host = g_new (MsGpuTraceRecord, MAX (keep, 1));
  if (keep > 0
      && !DEV (ms_gpu_dev_download (host, records, keep * sizeof *host, err, errlen), error))
    goto out;
  r->trace = g_array_sized_new (FALSE, TRUE, sizeof (MsTraceRecord), (guint) keep);
  for (guint64 i = 0; i < keep; i++)
    {
      const MsGpuTraceRecord *g = &host[i];
      MsTraceRecord t;
      memset (&t, 0, sizeof t);
      if (!g->valid)
        continue;
      t.block = g->block;
      t.warp = (guint16) g->warp;
      t.mask = g->mask;
      t.line = g->line;
      t.order = g->order;
      t.space = g->space;
      t.op = g->op;
      t.width = g->width;
      for (guint32 m = g->mask; m; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          guint64 a = g->addr[l];
          if (g->space == MS_GPU_TRACE_SPACE_GLOBAL)
            {
              guint b;
              for (b = 0; b < d->p->n_buffers; b++)
                if (a >= (guintptr) d->dbuf[b] && a - (guintptr) d->dbuf[b] < d->alloc[b])
                  break;
              if (b < d->p->n_buffers)
                a = ((guint64) (b + 1) << MS_BUFFER_SHIFT) | (a - (guintptr) d->dbuf[b]);
              else
                t.unmapped = 1;
            }
          t.addr[l] = a;
        }
      g_array_append_val (r->trace, t);
    }
  ok = TRUE;
out:
  g_free (host);
  ms_gpu_dev_free (count);
  ms_gpu_dev_free (records);
  return ok;
}

MsGpuResult *
ms_gpu_run (const MsProblem *p, const MsGpuSnapshot *input, guint flags, GError **error)
{
  g_autoptr (MsGpuResult) r = g_new0 (MsGpuResult, 1);
  if (!ms_gpu_available (&r->info, error))
    return NULL;
  Device d;
  gboolean ok = device_init (&d, p, input, error);
  r->metrics = g_array_new (FALSE, TRUE, sizeof (MsGpuMetric));

  if (ok && (flags & MS_GPU_RUN_OUTPUT))
    {
      launch_plain (&d);
      ok = device_sync ("kernel launch", error);
      for (guint b = 0; ok && b < p->n_buffers; b++)
        if (p->buffer_output[b])
          {
            r->outputs[b] = g_aligned_alloc0 (1, MAX (p->buffer_bytes[b], 1), 256);
            ok = DEV (ms_gpu_dev_download (r->outputs[b], d.dbuf[b], p->buffer_bytes[b], err,
                                           errlen),
                      error);
          }
    }
  if (ok && (flags & MS_GPU_RUN_COUNTERS))
    {
      GPtrArray *names = simulated_metric_names ();
      ok = profile (&d, (const char *const *) names->pdata, (int) names->len, 0, r, error);
    }
  if (ok && (flags & MS_GPU_RUN_DRAM))
    ok = profile (&d, dram_metrics, G_N_ELEMENTS (dram_metrics), MS_GPU_PROFILE_FLUSH_L2, r,
                  error);
  if (ok && (flags & MS_GPU_RUN_TIME))
    {
      char err[1024] = "";
      r->repeats = MS_GPU_TIME_REPEATS;
      ok = device_upload (&d, error);
      if (ok && (ms_gpu_time (launch_plain, &d, MS_GPU_TIME_WARMUP, MS_GPU_TIME_REPEATS, 1,
                              &r->time_ms, err, sizeof err) != 0
                 || ms_gpu_time (launch_plain, &d, MS_GPU_TIME_WARMUP, MS_GPU_TIME_REPEATS, 0,
                                 &r->time_warm_ms, err, sizeof err) != 0))
        {
          g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED, "timing: %s", err);
          ok = FALSE;
        }
      ok = ok && device_sync ("kernel launch (timed)", error);
      for (guint b = 0; b < p->n_buffers; b++)
        r->bytes += p->buffer_bytes[b];
      if (ok && r->time_ms > 0)
        r->bandwidth_gbs = (double) r->bytes / (r->time_ms * 1e-3) / 1e9;
    }
  if (ok && (flags & MS_GPU_RUN_TRACE))
    ok = run_trace (&d, r, error);
  device_free (&d);
  if (!ok)
    return NULL;
  return g_steal_pointer (&r);
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
      GPtrArray *names = simulated_metric_names ();
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

#endif /* HAVE_CUDA */
