/* test-gpu.c - the GPU back-end (gpu/).
 *
 * Everywhere: the one-line error without CUDA or without a GPU, and the
 * address-trace comparison on synthetic traces.  On a machine with a GPU:
 * transpose_naive's and transpose_padded's measured counters equal the
 * simulated ones, their GPU output passes the check, and the GPU's own
 * address trace is identical to the emulator's.  Without a GPU those tests
 * are skipped (CI builds all GPU code but has no GPU).
 */
#include "config.h"

#include <string.h>

#include "backend.h"
#include "emulator.h"
#include "problem.h"
#include "report.h"
#include "trace-check.h"

/* ------------------------------------------------------------ everywhere */

static void
test_availability_message (void)
{
  g_autoptr (GError) error = NULL;
  MsGpuInfo info;
  gboolean ok = ms_gpu_available (&info, &error);
#ifndef HAVE_CUDA
  g_assert_false (ok);
  g_assert_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_CUDA);
  g_assert_cmpstr (error->message, ==, "this build has no CUDA support; reconfigure with --with-cuda");
#else
  if (!ok)
    {
      g_assert_error (error, MS_GPU_ERROR, MS_GPU_ERROR_NO_DEVICE);
      g_assert_true (g_str_has_prefix (error->message, "no CUDA-capable GPU found"));
      g_assert_null (strchr (error->message, '\n'));
    }
  else
    {
      g_assert_cmpint (info.cc_major, >=, 3);
      g_assert_cmpstr (info.name, !=, "");
    }
#endif
}

static MsTraceRecord
rec (guint32 block, guint16 warp, int line, int order, MsSpace space, guint64 base, guint stride)
{
  MsTraceRecord r;
  memset (&r, 0, sizeof r);
  r.block = block;
  r.warp = warp;
  r.line = line;
  r.order = order;
  r.space = (guint8) space;
  r.op = MS_OP_LD;
  r.width = 4;
  r.mask = 0xffffffffu;
  for (int l = 0; l < 32; l++)
    r.addr[l] = base + (guint64) l * stride;
  return r;
}

static void
test_trace_compare (void)
{
  g_autoptr (GArray) emu = g_array_new (FALSE, FALSE, sizeof (MsTraceRecord));
  g_autoptr (GArray) gpu = g_array_new (FALSE, FALSE, sizeof (MsTraceRecord));
  guint64 g1 = (guint64) 1 << MS_BUFFER_SHIFT;
  /* emulator: block 0 warps 0, 1; two sites on line 10 (orders 3, 4) and a
   * shared access on line 12, a loop: line 12 twice */
  for (guint16 w = 0; w < 2; w++)
    {
      MsTraceRecord a = rec (0, w, 10, 3, MS_SPACE_GLOBAL, g1 + 128 * w, 4);
      MsTraceRecord b = rec (0, w, 10, 4, MS_SPACE_GLOBAL, 2 * g1 + 128 * w, 4);
      MsTraceRecord c = rec (0, w, 12, 5, MS_SPACE_SHARED, 128 * w, 132);
      MsTraceRecord d = rec (0, w, 12, 5, MS_SPACE_SHARED, 4 + 128 * w, 132);
      g_array_append_val (emu, a);
      g_array_append_val (emu, b);
      g_array_append_val (emu, c);
      g_array_append_val (emu, d);
    }
  /* GPU: warps in the other order, other __COUNTER__ numbers (same textual
   * order), shared offsets 1 KB higher */
  for (int w = 1; w >= 0; w--)
    {
      MsTraceRecord a = rec (0, (guint16) w, 10, 7, MS_SPACE_GLOBAL, g1 + 128 * w, 4);
      MsTraceRecord b = rec (0, (guint16) w, 10, 9, MS_SPACE_GLOBAL, 2 * g1 + 128 * w, 4);
      MsTraceRecord c = rec (0, (guint16) w, 12, 11, MS_SPACE_SHARED, 1024 + 128 * w, 132);
      MsTraceRecord d = rec (0, (guint16) w, 12, 11, MS_SPACE_SHARED, 1028 + 128 * w, 132);
      g_array_append_val (gpu, b);   /* a warp's sites may come in another order */
      g_array_append_val (gpu, a);
      g_array_append_val (gpu, c);
      g_array_append_val (gpu, d);
    }
  MsTraceCheck check;
  ms_trace_compare (emu, emu->len, gpu, gpu->len, NULL, NULL, &check);
  g_test_message ("%s", check.message);
  g_assert_true (check.identical);
  g_assert_true (check.grouping_identical);
  g_assert_cmpuint (check.lane_accesses, ==, 8 * 32);
  g_assert_cmpuint (check.shared, ==, 4);
  g_assert_cmpint (check.shared_base, ==, 1024);
  g_assert_nonnull (strstr (check.message, "+1024"));
  ms_trace_check_clear (&check);

  /* one lane of the second execution of line 12 by warp 1 differs */
  MsTraceRecord *bad = &g_array_index (gpu, MsTraceRecord, 3);
  g_assert_cmpint (bad->warp, ==, 1);
  bad->addr[5] += 4;
  ms_trace_compare (emu, emu->len, gpu, gpu->len, NULL, NULL, &check);
  g_test_message ("%s", check.message);
  g_assert_false (check.identical);
  g_assert_nonnull (strstr (check.message, "warp 1, lane 5, line 12"));
  g_assert_nonnull (strstr (check.message, "2nd"));
  ms_trace_check_clear (&check);
  bad->addr[5] -= 4;

  /* the GPU ran the lanes of that access as two instructions, upper half
   * first: the addresses are the same, only the grouping differs */
  MsTraceRecord hi = *bad;
  hi.mask = 0xffff0000u;
  bad->mask = 0x0000ffffu;
  g_array_insert_val (gpu, 3, hi);
  ms_trace_compare (emu, emu->len, gpu, gpu->len, NULL, NULL, &check);
  g_test_message ("%s", check.message);
  g_assert_true (check.identical);
  g_assert_false (check.grouping_identical);
  g_assert_nonnull (strstr (check.message, "grouped differently"));
  ms_trace_check_clear (&check);
  g_array_remove_index (gpu, 3);

  /* lanes missing on the GPU, and an access only one side made */
  ms_trace_compare (emu, emu->len, gpu, gpu->len, NULL, NULL, &check);
  g_test_message ("%s", check.message);
  g_assert_false (check.identical);
  g_assert_nonnull (strstr (check.message, "lane 16"));
  g_assert_nonnull (strstr (check.message, "only on the emulator"));
  ms_trace_check_clear (&check);
  bad->mask = 0xffffffffu;
  g_array_remove_index (gpu, 0);
  ms_trace_compare (emu, emu->len, gpu, gpu->len, NULL, NULL, &check);
  g_assert_false (check.identical);
  g_assert_nonnull (strstr (check.message, "only on the emulator"));
  ms_trace_check_clear (&check);
}

/* Global atomics whose result is unused compile to RED, and memsim counts
 * them as reductions (MS_OP_RED): each metric is read as measured, ATOM and
 * RED apart, for instructions, requests and sectors alike. */
static void
test_atomic_metrics (void)
{
  MsGpuResult r = { 0 };
  r.metrics = g_array_new (FALSE, TRUE, sizeof (MsGpuMetric));
  const MsGpuMetric m[] = {
    { "smsp__sass_inst_executed_op_global_atom.sum", 8, TRUE },
    { "smsp__sass_inst_executed_op_global_red.sum", 40, TRUE },
    { "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum", 8, TRUE },
    { "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum", 40, TRUE },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum", 9, TRUE },
    { "l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum", 0, FALSE },
  };
  g_array_append_vals (r.metrics, m, G_N_ELEMENTS (m));
  double v = 0;
  g_assert_true (ms_gpu_result_metric (&r, ms_metric_name (MS_SPACE_GLOBAL, MS_OP_ATOMIC, "inst"), &v));
  g_assert_cmpfloat (v, ==, 8);
  g_assert_true (ms_gpu_result_metric (&r, ms_metric_name (MS_SPACE_GLOBAL, MS_OP_RED, "inst"), &v));
  g_assert_cmpfloat (v, ==, 40);
  g_assert_true (ms_gpu_result_metric (&r, ms_metric_name (MS_SPACE_GLOBAL, MS_OP_ATOMIC, "requests"), &v));
  g_assert_cmpfloat (v, ==, 8);
  g_assert_true (ms_gpu_result_metric (&r, ms_metric_name (MS_SPACE_GLOBAL, MS_OP_RED, "requests"), &v));
  g_assert_cmpfloat (v, ==, 40);
  g_assert_true (ms_gpu_result_metric (&r, ms_metric_name (MS_SPACE_GLOBAL, MS_OP_ATOMIC, "sectors"), &v));
  g_assert_cmpfloat (v, ==, 9);
  /* not available on the chip */
  g_assert_false (ms_gpu_result_metric (&r, ms_metric_name (MS_SPACE_GLOBAL, MS_OP_RED, "sectors"), &v));
  g_assert_false (ms_gpu_result_metric (&r, "dram__bytes_read.sum", &v));
  g_array_unref (r.metrics);
}

/* A user's kernel has no reference: its GPU outputs are compared with the
 * emulator's, floating point buffers within MS_GPU_USER_TOLERANCE x
 * (|value| + the buffer's largest magnitude), anything else exactly; input
 * buffers are not compared. */
static void
test_user_output_check (void)
{
  MsKernel kernel = { .name = "mine", .external = TRUE };   /* check NULL */
  MsProblem p = { .kernel = &kernel, .n_buffers = 3 };
  float cpu_f[4] = { 1.0f, -2.0f, 0.0f, 4.0f }, gpu_f[4];
  int cpu_i[3] = { 1, 2, 3 }, gpu_i[3];
  float in[2] = { 9, 9 };
  p.args.buf[0] = cpu_f;
  p.args.buf[1] = cpu_i;
  p.args.buf[2] = in;
  const char *names[] = { "f", "i", "in" };
  for (guint b = 0; b < 3; b++)
    p.buffer_names[b] = names[b];
  p.buffer_bytes[0] = sizeof cpu_f;
  p.buffer_bytes[1] = sizeof cpu_i;
  p.buffer_bytes[2] = sizeof in;
  p.buffer_output[0] = p.buffer_output[1] = TRUE;
  p.buffer_float[0] = 4;
  MsGpuResult r = { 0 };
  r.outputs[0] = gpu_f;
  r.outputs[1] = gpu_i;
  memcpy (gpu_f, cpu_f, sizeof gpu_f);
  memcpy (gpu_i, cpu_i, sizeof gpu_i);
  g_autofree char *same = NULL;
  g_assert_true (ms_gpu_check_outputs (&p, &r, &same));
  g_assert_true (g_str_has_prefix (same, "passed (bit-identical to the emulator's output"));
  /* 0.0 may be off by 1e-4 x (0 + 4) = 4e-4 (the buffer's largest is 4) */
  gpu_f[2] = 3e-4f;
  g_autofree char *close = NULL;
  g_assert_true (ms_gpu_check_outputs (&p, &r, &close));
  g_assert_nonnull (strstr (close, "1 of 7 elements differ from the emulator's output, the "
                                   "first at f element 2"));
  gpu_f[2] = 5e-4f;
  g_autofree char *far = NULL;
  g_assert_false (ms_gpu_check_outputs (&p, &r, &far));
  g_assert_true (g_str_has_prefix (far, "GPU output differs from the emulator's: f[2] = "));
  g_assert_nonnull (strstr (far, "0 in the emulator (1 of 7 elements beyond the tolerance)"));
  gpu_f[2] = 0.0f;
  gpu_i[1] = 3;   /* integers: exactly */
  g_autofree char *ints = NULL;
  g_assert_false (ms_gpu_check_outputs (&p, &r, &ints));
  g_assert_nonnull (strstr (ints, "the first at i word 1 (compared exactly)"));
  gpu_i[1] = 2;
  in[0] = 0;      /* an input: not compared (the GPU's copy is not downloaded) */
  g_autofree char *inputs = NULL;
  g_assert_true (ms_gpu_check_outputs (&p, &r, &inputs));
}

/* ------------------------------------------------------------ with a GPU */

static gboolean
need_gpu (void)
{
  g_autoptr (GError) error = NULL;
  if (ms_gpu_available (NULL, &error))
    return TRUE;
  g_test_skip (error->message);
  return FALSE;
}

/* Emulates kernel at size w x h (trace collected), runs it on the GPU. */
static void
run_both (const char *kernel, const char *size, MsProblem **p_out, MsStats **stats,
          MsTraceCollector **trace, MsGpuResult **gpu)
{
  g_autoptr (GError) error = NULL;
  const MsKernel *k = ms_kernel_find (kernel);
  g_assert_nonnull (k);
  MsProblem *p = ms_problem_new (k);
  g_assert_true (ms_problem_set_size (p, size, &error));
  g_assert_true (ms_problem_setup (p, &error));
  g_autoptr (MsGpuSnapshot) input = ms_gpu_snapshot_new (p);
  *trace = ms_trace_collector_new ();
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, &(*trace)->sink);
  g_assert_true (ms_problem_simulate (p, ms_arch_default (), 0, &sinks, stats, &error));
  g_assert_no_error (error);
  g_assert_true (k->check (p, &error));
  *gpu = ms_gpu_run (p, input, MS_GPU_RUN_OUTPUT | MS_GPU_RUN_COUNTERS | MS_GPU_RUN_TRACE,
                     &error);
  g_assert_no_error (error);
  g_assert_nonnull (*gpu);
  *p_out = p;
}

static void
assert_metric (const MsGpuResult *gpu, const MsStats *stats, MsSpace space, MsOp op,
               const char *what)
{
  MsCounters c;
  ms_stats_total (stats, space, op, &c);
  guint64 sim = strcmp (what, "inst") == 0         ? c.executions
                : strcmp (what, "requests") == 0   ? c.v[MS_SLOT_REQUESTS]
                : strcmp (what, "sectors") == 0    ? c.v[MS_SLOT_SECTORS]
                : strcmp (what, "wavefronts") == 0 ? c.v[MS_SLOT_WAVEFRONTS]
                                                   : c.v[MS_SLOT_EXCESSIVE];
  const char *name = ms_metric_name (space, op, what);
  double measured = -1;
  g_assert_true (ms_gpu_result_metric (gpu, name, &measured));
  g_test_message ("%s: simulated %" G_GUINT64_FORMAT ", measured %.0f", name, sim, measured);
  g_assert_cmpuint (sim, ==, (guint64) (measured + 0.5));
}

static void
check_kernel (const char *kernel, gboolean shared)
{
  if (!need_gpu ())
    return;
  MsProblem *p = NULL;
  g_autoptr (MsStats) stats = NULL;
  g_autoptr (MsTraceCollector) trace = NULL;
  g_autoptr (MsGpuResult) gpu = NULL;
  run_both (kernel, "256x192", &p, &stats, &trace, &gpu);

  g_autofree char *message = NULL;
  gboolean ok = ms_gpu_check_outputs (p, gpu, &message);
  g_test_message ("output: %s", message);
  g_assert_true (ok);
  g_assert_nonnull (strstr (message, "bit-identical"));

  for (int op = MS_OP_LD; op <= MS_OP_ST; op++)
    {
      assert_metric (gpu, stats, MS_SPACE_GLOBAL, op, "inst");
      assert_metric (gpu, stats, MS_SPACE_GLOBAL, op, "requests");
      assert_metric (gpu, stats, MS_SPACE_GLOBAL, op, "sectors");
      if (shared)
        {
          assert_metric (gpu, stats, MS_SPACE_SHARED, op, "inst");
          assert_metric (gpu, stats, MS_SPACE_SHARED, op, "wavefronts");
        }
    }

  MsTraceCheck check;
  ms_trace_compare (trace->records, trace->total, gpu->trace, gpu->trace_total, "transpose.cu",
                    NULL, &check);
  g_test_message ("trace: %s", check.message);
  g_assert_true (check.identical);
  ms_trace_check_clear (&check);
  ms_problem_free (p);
}

static void
test_transpose_naive (void)
{
  check_kernel ("transpose_naive", FALSE);
}

static void
test_transpose_padded (void)
{
  check_kernel ("transpose_padded", TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gpu/availability-message", test_availability_message);
  g_test_add_func ("/gpu/trace-compare", test_trace_compare);
  g_test_add_func ("/gpu/atomic-metrics", test_atomic_metrics);
  g_test_add_func ("/gpu/user-output-check", test_user_output_check);
  g_test_add_func ("/gpu/transpose-naive", test_transpose_naive);
  g_test_add_func ("/gpu/transpose-padded", test_transpose_padded);
  return g_test_run ();
}
