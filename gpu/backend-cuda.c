/* backend-cuda.c - the GPU half of the back-end (backend.h): runs a
 * built-in kernel's nvcc build on the GPU, reads its counters through CUPTI,
 * times it, records its address trace.  Built as the plug-in memsim-gpu.so
 * with device.cu and profiler.cu (the CUDA runtime and CUPTI calls behind
 * plain C) and the kernels' nvcc builds (traces/kernels/NAME.gpu.o:
 * ms_gpu_entry_<name>; NAME.gputrace.o: ms_gpu_trace_entry_<name>,
 * trace-device.cuh); backend.c loads it on the first GPU call.
 */
#include "config.h"

#include <gmodule.h>
#include <string.h>

#include "backend.h"
#include "backend-plugin.h"
#include "device.h"
#include "emulator.h"
#include "entries.h"
#include "profiler.h"
#include "report.h"
#include "trace.h"

#define DECLARE_TRACE_ENTRY(name) \
  int ms_gpu_trace_entry_##name (const MsLaunchArgs *L, const MsGpuTraceState *state);
MS_FOR_EACH_KERNEL (DECLARE_TRACE_ENTRY)

/* The built-in kernels' nvcc builds, by name (their descriptors in memsim
 * cannot point into this plug-in). */
#define ENTRY_ROW(name) { #name, ms_gpu_entry_##name, ms_gpu_trace_entry_##name },
static const struct {
  const char *name;
  MsEntryFn entry;
  MsGpuTraceEntryFn trace;
} entries[] = { MS_FOR_EACH_KERNEL (ENTRY_ROW) };

/* More accesses than this are not traced (each record is 280 bytes on the
 * GPU and 296 on the host; trace-check.c has the same limit). */
#define MS_GPU_TRACE_MAX (G_GUINT64_CONSTANT (1) << 20)

static gboolean
gpu_available (MsGpuInfo *info, GError **error)
{
  MsGpuInfo tmp;
  MsGpuInfo *i = info ? info : &tmp;
  char err[512] = "";
  memset (i, 0, sizeof *i);
  if (ms_gpu_device_info (i->name, sizeof i->name, &i->cc_major, &i->cc_minor,
                          &i->driver_version, &i->runtime_version, err, sizeof err) != 0
      || ms_gpu_device_size (&i->sm_count, (unsigned long long *) &i->memory_bytes, err,
                             sizeof err) != 0)
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
  d->entry = p->kernel->gpu_entry;   /* a kernel that brings its own */
  for (guint i = 0; i < G_N_ELEMENTS (entries) && d->entry == NULL && !p->kernel->external; i++)
    if (strcmp (entries[i].name, p->kernel->name) == 0)
      {
        d->entry = entries[i].entry;
        d->trace = entries[i].trace;
      }
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

static const char *const dram_metrics[] = {
  "dram__bytes_read.sum",
  "dram__bytes_write.sum",
  "lts__t_sectors_srcunit_tex_op_read.sum",
  "lts__t_sectors_srcunit_tex_op_write.sum",
  "smsp__inst_executed.sum",
};

/* Nsight Compute's meaning: each kernel's start to its end, L2 cold; the
 * user range of the DRAM pass would add the host's launch and wait */
static const char *const duration_metrics[] = { "gpu__time_duration.sum" };

static gboolean
run_trace (Device *d, MsGpuResult *r, GError **error)
{
  gboolean ok = FALSE;
  unsigned long long *count = NULL;
  MsGpuTraceRecord *records = NULL, *host = NULL;
  unsigned long long n = 0, n2 = 0;

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

static MsGpuResult *
gpu_run (const MsProblem *p, const MsGpuSnapshot *input, guint flags, GError **error)
{
  g_autoptr (MsGpuResult) r = g_new0 (MsGpuResult, 1);
  if (!gpu_available (&r->info, error))
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
      GPtrArray *names = ms_gpu_simulated_metrics ();
      ok = profile (&d, (const char *const *) names->pdata, (int) names->len, 0, r, error);
    }
  if (ok && (flags & MS_GPU_RUN_DRAM))
    ok = profile (&d, dram_metrics, G_N_ELEMENTS (dram_metrics), MS_GPU_PROFILE_FLUSH_L2, r,
                  error)
         && profile (&d, duration_metrics, G_N_ELEMENTS (duration_metrics),
                     MS_GPU_PROFILE_COLD_START, r, error);
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

/* ------------------------------------------------------------ the interface */

G_MODULE_EXPORT const char ms_plugin_version[] = PACKAGE_VERSION;
G_MODULE_EXPORT const MsGpuPlugin ms_gpu_plugin = { gpu_available, gpu_run };
