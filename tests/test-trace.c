/* test-trace.c - memsim's trace format (traces/format): every built-in
 * kernel round-trips (the live report and the replayed one are the same
 * bytes), traces do not depend on the thread count, the ordered stream is
 * the documented order, and every kind of bad file is a one-line error with
 * its place. */
#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <zstd.h>

#include "coalescing.h"
#include "problem.h"
#include "replay.h"
#include "report.h"
#include "trace-file.h"
#include "varint.h"

static char *tmpdir;

static char *
tmp_path (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static char *
json_of (const MsRunInfo *info, const MsStats *stats)
{
  MsTraceReport r = { .info = info, .arch = ms_arch_default (), .stats = stats };
  GString *out = g_string_new (NULL);
  ms_report_write (&r, MS_FORMAT_JSON, out);
  return g_string_free (out, FALSE);
}

/* Runs kernel live with --save-trace to path: the live JSON, or NULL when
 * the kernel fails on purpose (the emulator's error tests). */
static char *
live_with_trace (const char *kernel, const char *path, guint threads)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (kernel));
  g_assert_true (ms_problem_setup (p, NULL));
  const MsArch *arch = ms_arch_default ();
  g_autoptr (MsRunInfo) head = ms_problem_run_info (p, arch, NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (MsTraceWriter) w = ms_trace_writer_new (path, head, &error);
  g_assert_no_error (error);
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, ms_trace_writer_sink (w));
  g_autoptr (MsStats) stats = NULL;
  if (!ms_problem_simulate (p, arch, threads, &sinks, &stats, &error))
    return NULL;   /* the writer, never finished, leaves no file */
  g_autoptr (GError) check_error = NULL;
  gboolean ok = p->kernel->check (p, &check_error);
  g_autoptr (MsRunInfo) info = ms_problem_run_info (p, arch, ok ? "passed" : check_error->message);
  g_assert_true (ms_trace_writer_finish (w, info->check, &error));
  /* the instruction count comes from the engine's blocks, not from the
   * access stream: a trace file has none to replay */
  stats->inst_executed = 0;
  stats->inst_basis = MS_INST_NONE;
  g_clear_pointer (&stats->inst_lines, g_array_unref);
  return json_of (info, stats);
}

static char *
replay_json (const char *path, guint threads, GError **error)
{
  g_autoptr (MsTraceSource) src = ms_trace_source_open (path, error);
  if (src == NULL)
    return NULL;
  g_autoptr (MsStats) stats = NULL;
  if (!ms_trace_replay_models (src, ms_arch_default (), threads, NULL, &stats, NULL, error))
    return NULL;
  return json_of (src->info (src), stats);
}

static void
test_roundtrip_all (void)
{
  guint n = 0;
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    {
      g_autofree char *path = tmp_path ("rt.trace");
      g_unlink (path);
      g_autofree char *live = live_with_trace ((*k)->name, path, 2);
      if (live == NULL)
        {
          g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
          g_assert_cmpstr ((*k)->family, ==, "test");   /* only error tests fail */
          continue;
        }
      g_autoptr (GError) error = NULL;
      g_autofree char *replayed = replay_json (path, 2, &error);
      g_assert_no_error (error);
      if (strcmp (live, replayed) != 0)
        g_error ("%s: the replayed report differs from the live one", (*k)->name);
      n++;
    }
  g_assert_cmpuint (n, >=, 40);   /* the 36 library kernels and the passing tests */
}

/* The same bytes whatever the thread count (ordered stream), and the same
 * report whatever the replay's thread count; and the same whether the
 * ordered sinks get the records on the workers' threads or on the
 * deliverer's (stream.c: a long block's records; MEMSIM_DELIVER_AFTER=0
 * sends every block's there, 1 000 the later records of a block). */
static void
test_thread_independent (void)
{
  const char *kernels[] = { "transpose_shared", "reduce_multiple", "gemm_tiled", "test_atomics" };
  const char *deliver[] = { "never", "0", "1000" };
  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      g_autofree char *p1 = tmp_path ("t1.trace"), *p2 = tmp_path ("t2.trace");
      g_setenv ("MEMSIM_DELIVER_AFTER", deliver[i % 3], TRUE);
      g_autofree char *j1 = live_with_trace (kernels[i], p1, 1);
      g_setenv ("MEMSIM_DELIVER_AFTER", deliver[(i + 1) % 3], TRUE);
      g_autofree char *j2 = live_with_trace (kernels[i], p2, 2);
      g_unsetenv ("MEMSIM_DELIVER_AFTER");
      g_assert_cmpstr (j1, ==, j2);
      g_autofree char *b1 = NULL, *b2 = NULL;
      gsize n1, n2;
      g_assert_true (g_file_get_contents (p1, &b1, &n1, NULL));
      g_assert_true (g_file_get_contents (p2, &b2, &n2, NULL));
      g_assert_cmpmem (b1, n1, b2, n2);
      g_autofree char *r1 = replay_json (p1, 1, NULL), *r3 = replay_json (p1, 3, NULL);
      g_assert_cmpstr (r1, ==, r3);
    }
}

/* The ordered stream is blocks in ascending order (stream.h), whatever the
 * number of worker threads. */
typedef struct {
  guint64 last_block, records;
  gboolean ordered;
} OrderCheck;

static void
order_check (gpointer user, const MsWarpAccess *a)
{
  OrderCheck *c = user;
  if (c->records++ > 0 && a->block < c->last_block)
    c->ordered = FALSE;
  c->last_block = a->block;
}

static void
test_stream_order (void)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("reduce_interleaved"));
  g_assert_true (ms_problem_setup (p, NULL));
  OrderCheck c = { .ordered = TRUE };
  MsStreamSink sink = { .ordered = order_check, .user = &c };
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, &sink);
  g_assert_true (ms_problem_simulate (p, ms_arch_default (), 4, &sinks, NULL, NULL));
  g_assert_true (c.ordered);
  g_autoptr (MsRunInfo) info = ms_problem_run_info (p, ms_arch_default (), NULL);
  g_assert_cmpuint (c.last_block, ==, ms_run_info_blocks (info) - 1);
}

/* The reordering's hand-over, one step at a time on one thread, as two
 * workers would interleave: a block that is not the head buffers its
 * records and its array is taken at submit; the head's records go to the
 * sinks at once, and at submit its array comes back emptied (for the
 * worker's next block) after the blocks that finished early are delivered
 * behind it; a block past a failure is dropped, its array emptied. */
static void
record_of (MsWarpAccess *a, guint32 block)
{
  memset (a, 0, sizeof *a);   /* the sink reads the block alone */
  a->block = block;
  a->mask = 1;
  a->width = 4;
}

static void
stream_order_handover (gboolean spin)
{
  OrderCheck c = { .ordered = TRUE };
  MsStreamSink sink = { .ordered = order_check, .user = &c };
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, &sink);
  MsStreamOrder *o = ms_stream_order_new (&sinks, 0, 4, spin);
  GArray *b0 = ms_stream_order_buffer_new ();
  GArray *b1 = ms_stream_order_buffer_new ();
  MsWarpAccess a;
  g_assert_true (ms_stream_order_wait (o, 0));
  g_assert_true (ms_stream_order_wait (o, 3));   /* within the window */
  record_of (&a, 1);
  ms_stream_order_emit (o, 1, b1, &a);           /* not the head: kept */
  ms_stream_order_emit (o, 1, b1, &a);
  g_assert_cmpuint (b1->len, >, 0);
  g_assert_cmpuint (c.records, ==, 0);
  ms_stream_order_submit (o, 1, &b1);            /* finished early: taken */
  g_assert_null (b1);
  g_assert_cmpuint (c.records, ==, 0);
  record_of (&a, 0);
  ms_stream_order_emit (o, 0, b0, &a);           /* the head: delivered now */
  g_assert_cmpuint (c.records, ==, 1);
  g_assert_cmpuint (b0->len, ==, 0);
  ms_stream_order_submit (o, 0, &b0);            /* block 1's follow */
  g_assert_nonnull (b0);
  g_assert_cmpuint (b0->len, ==, 0);
  g_assert_cmpuint (c.records, ==, 3);
  g_assert_cmpuint (c.last_block, ==, 1);
  g_assert_true (c.ordered);
  /* block 2 is the head now; a failure at block 3 drops block 3 */
  ms_stream_order_stop_at (o, 3);
  g_assert_false (ms_stream_order_wait (o, 3));
  record_of (&a, 3);
  ms_stream_order_emit (o, 3, b0, &a);
  ms_stream_order_submit (o, 3, &b0);
  g_assert_nonnull (b0);
  g_assert_cmpuint (b0->len, ==, 0);
  g_assert_cmpuint (c.records, ==, 3);
  record_of (&a, 2);
  GArray *b2 = ms_stream_order_buffer_new ();
  ms_stream_order_emit (o, 2, b2, &a);
  ms_stream_order_submit (o, 2, &b2);
  g_assert_nonnull (b2);
  g_assert_cmpuint (c.records, ==, 4);
  g_assert_true (c.ordered);
  g_array_unref (b0);
  g_array_unref (b2);
  ms_stream_order_free (o);
}

/* with the lock taken at once, and with the busy waits of workers that
 * each have a core */
static void
test_stream_order_handover (void)
{
  stream_order_handover (FALSE);
  stream_order_handover (TRUE);
}

/* A buffered record comes back as it went in: a whole record's lanes, and
 * a strided one's (kept as its first active lane's address and the stride)
 * made again, with the stride word, also for a partial warp of one address
 * whose lane 0 is off. */
typedef struct {
  guint n;
  MsWarpAccess got[3];
  gboolean strided[3];
  guint64 stride[3];
} KeptCheck;

static void
kept_check (gpointer user, const MsWarpAccess *a)
{
  KeptCheck *c = user;
  g_assert_cmpuint (c->n, <, 3);
  c->got[c->n] = *a;
  c->strided[c->n] = ms_access_strided (a, &c->stride[c->n]);
  c->n++;
}

static void
test_stream_order_kept (void)
{
  KeptCheck c = { 0 };
  MsStreamSink sink = { .ordered = kept_check, .user = &c };
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, &sink);
  MsStreamOrder *o = ms_stream_order_new (&sinks, 0, 4, FALSE);
  GArray *b1 = ms_stream_order_buffer_new ();
  MsWarpAccess a[3];
  for (guint i = 0; i < 3; i++)
    {
      record_of (&a[i], 1);
      a[i].warp = (guint16) i;
      a[i].mask = 0xffffffffu;
      for (guint l = 0; l < MS_WARP_SIZE; l++)
        a[i].addr[l] = 4096 + (guint64) l * 128;
    }
  a[0].addr[7] = 3;                              /* not one stride: kept whole */
  a[2].mask = 0xf0u;                             /* one address, lanes 4-7 */
  for (guint l = 4; l < 8; l++)
    a[2].addr[l] = 777;
  g_assert_true (ms_stream_order_wait (o, 1));
  ms_stream_order_emit (o, 1, b1, &a[0]);
  ms_stride_hint = (MsStrideHint) { &a[1], 128 };
  ms_stream_order_emit (o, 1, b1, &a[1]);
  ms_stride_hint = (MsStrideHint) { &a[2], 0 };
  ms_stream_order_emit (o, 1, b1, &a[2]);
  ms_stride_hint.record = NULL;
  g_assert_cmpuint (b1->len, <, 3 * sizeof (MsWarpAccess));   /* two of them cut */
  ms_stream_order_submit (o, 1, &b1);
  GArray *b0 = ms_stream_order_buffer_new ();
  ms_stream_order_submit (o, 0, &b0);            /* block 0 done: block 1's follow */
  g_assert_cmpuint (c.n, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpuint (c.got[i].warp, ==, i);
      g_assert_cmpuint (c.got[i].mask, ==, a[i].mask);
      g_assert_cmpuint (c.got[i].block, ==, 1);
      for (guint l = 0; l < MS_WARP_SIZE; l++)
        if (a[i].mask >> l & 1)
          g_assert_cmpuint (c.got[i].addr[l], ==, a[i].addr[l]);
    }
  g_assert_false (c.strided[0]);
  g_assert_true (c.strided[1]);
  g_assert_cmpuint (c.stride[1], ==, 128);
  g_assert_true (c.strided[2]);
  g_assert_cmpuint (c.stride[2], ==, 0);
  g_array_unref (b0);
  if (b1)
    g_array_unref (b1);
  ms_stream_order_free (o);
}

/* ---- a stateful model gets the stream order ---- */

/* Two counters of a test model that needs the global order: the 128-byte
 * global lines seen for the first time (a cache that never forgets: its
 * total is the kernel's distinct lines), and a hash of the sequence of
 * (block, warp, site, first address) it was given. */
#define SLOT_NEW_LINES MS_SLOT_FIRST_FREE
#define SLOT_ORDER_HASH (MS_SLOT_FIRST_FREE + 1)

typedef struct {
  GHashTable *lines;
  guint64 hash;
} SeenState;

static void
seen_init (gpointer state, const MsArch *arch)
{
  SeenState *s = state;
  s->lines = g_hash_table_new (g_int64_hash, g_int64_equal);
}

static void
seen_clear (gpointer state)
{
  SeenState *s = state;
  GHashTableIter it;
  gpointer key;
  g_hash_table_iter_init (&it, s->lines);
  while (g_hash_table_iter_next (&it, &key, NULL))
    g_free (key);
  g_hash_table_destroy (s->lines);
}

static void
seen_cost (gpointer state, const MsArch *arch, const MsWarpAccess *a, guint64 *v)
{
  SeenState *s = state;
  for (guint32 m = a->mask; m; m &= m - 1)
    {
      guint64 line = a->addr[__builtin_ctz (m)] / 128;
      if (!g_hash_table_contains (s->lines, &line))
        {
          g_hash_table_add (s->lines, g_memdup2 (&line, sizeof line));
          v[SLOT_NEW_LINES]++;
        }
    }
  guint64 x = ((guint64) a->block << 40) ^ ((guint64) a->warp << 24) ^ (guint64) a->site->line
              ^ (a->addr[__builtin_ctz (a->mask)] << 8);
  s->hash = (s->hash ^ x) * G_GUINT64_CONSTANT (0x100000001b3);
  v[SLOT_ORDER_HASH] = s->hash;   /* the last record's site keeps the final hash */
}

static const MsCounterDef seen_counters[] = {
  { "new_lines", SLOT_NEW_LINES, NULL },
  { "order_hash", SLOT_ORDER_HASH, NULL },
  { NULL },
};

static const MsModel seen_model = {
  .name = "seen", .summary = "test: lines seen, order hash", .space = MS_SPACE_GLOBAL,
  .counters = seen_counters, .state_size = sizeof (SeenState), .state_init = seen_init,
  .state_clear = seen_clear, .ordered_cost = seen_cost,
};

/* Totals of the seen model: new lines, and the hash (max over sites: the
 * final one sits on the site of the last record). */
static void
seen_totals (const MsStats *stats, guint64 *lines, guint64 *hash)
{
  *lines = *hash = 0;
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (stats->sites, MsSiteStats, i);
      *lines += s->c.v[SLOT_NEW_LINES];
      *hash ^= s->c.v[SLOT_ORDER_HASH];
    }
}

static const MsModel *const seen_table[] = { &ms_model_coalescing, &seen_model, NULL };

static void
seen_live (const MsProblem *p, guint threads, guint64 *lines, guint64 *hash)
{
  const unsigned *g = p->args.grid, *b = p->args.block;
  g_autoptr (MsModelRun) run =
    ms_model_run_new_with (ms_arch_default (), (guint64) b[0] * b[1] * b[2], seen_table, NULL);
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, ms_model_run_sink (run));
  MsLaunch launch;
  ms_problem_launch (p, &launch);
  launch.threads = threads;
  launch.sinks = &sinks;
  g_assert_true (ms_emulate (&launch, NULL));
  g_autoptr (MsStats) stats = ms_model_run_finish (run, (guint64) g[0] * g[1] * g[2]);
  seen_totals (stats, lines, hash);
}

static void
test_stateful_model (void)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("transpose_naive"));
  g_assert_true (ms_problem_setup (p, NULL));   /* 1024 x 1024 floats in, the same out */
  guint64 l1, h1, l4, h4;
  seen_live (p, 1, &l1, &h1);
  seen_live (p, 4, &l4, &h4);
  /* every 128-byte line of the 4 MiB input and the 4 MiB output, once */
  g_assert_cmpuint (l1, ==, 2 * 1024 * 1024 * 4 / 128);
  g_assert_cmpuint (l4, ==, l1);
  g_assert_cmpuint (h4, ==, h1);   /* the same order on 1 and 4 threads */

  /* and the same order from a trace file, replayed on 3 threads */
  g_autofree char *path = tmp_path ("seen.trace");
  g_free (live_with_trace ("transpose_naive", path, 2));
  g_autoptr (MsTraceSource) src = ms_trace_source_open (path, NULL);
  g_autoptr (MsModelRun) run = ms_model_run_new_with (ms_arch_default (), 1024, seen_table, NULL);
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, ms_model_run_sink (run));
  g_assert_true (ms_trace_replay (src, &sinks, 3, NULL, NULL));
  g_autoptr (MsStats) stats = ms_model_run_finish (run, 1024);
  guint64 lr, hr;
  seen_totals (stats, &lr, &hr);
  g_assert_cmpuint (lr, ==, l1);
  g_assert_cmpuint (hr, ==, h1);
}

/* ---- bad files ---- */

static void
write_bytes (const char *path, const void *data, gsize n)
{
  g_assert_true (g_file_set_contents (path, data, (gssize) n, NULL));
}

/* Opens and reads path to its end: the error (NULL if it read fine). */
static GError *
read_all (const char *path)
{
  GError *error = NULL;
  g_autoptr (MsTraceSource) src = ms_trace_source_open (path, &error);
  if (src == NULL)
    return error;
  MsWarpAccess a;
  while (src->next (src, &a, &error))
    ;
  return error;
}

static void
assert_bad (const char *path, const char *fragment)
{
  g_autoptr (GError) e = read_all (path);
  g_assert_nonnull (e);
  g_test_message ("%s", e->message);
  g_assert_null (strchr (e->message, '\n'));
  g_autofree char *base = g_path_get_basename (path);
  g_assert_true (g_str_has_prefix (e->message, base) || strstr (e->message, path));
  if (fragment && !strstr (e->message, fragment))
    g_error ("'%s' does not say '%s'", e->message, fragment);
}

static void
test_truncated_and_corrupted (void)
{
  g_autofree char *good = tmp_path ("good.trace");
  g_free (live_with_trace ("transpose_shared", good, 1));
  g_autofree char *data = NULL;
  gsize n;
  g_assert_true (g_file_get_contents (good, &data, &n, NULL));
  g_autofree char *bad = tmp_path ("bad.trace");
  /* every cut is an error, never a crash or a silent short read */
  for (gsize cut = 0; cut < n; cut += (cut < 64 ? 1 : 37))
    {
      write_bytes (bad, data, cut);
      assert_bad (bad, NULL);
    }
  /* flipped bits (every byte of the header and the first frame's start,
   * then every 11th): an error or (in a string) a good read, never a crash */
  for (gsize i = 0; i < n; i += i < 96 ? 1 : 11)
    for (int bit = 0; bit < 8; bit += 3)
      {
        data[i] ^= (char) (1 << bit);
        write_bytes (bad, data, n);
        GError *e = read_all (bad);
        if (e)
          g_assert_null (strchr (e->message, '\n'));
        g_clear_error (&e);
        data[i] ^= (char) (1 << bit);
      }
  write_bytes (bad, "", 0);
  assert_bad (bad, "empty");
  write_bytes (bad, "hello, world\n", 13);
  assert_bad (bad, "not a trace");
  write_bytes (bad, MS_TRACE_MAGIC, MS_TRACE_MAGIC_LEN);
  assert_bad (bad, "16-byte header");
  memcpy (data + 8, "\x02\x00", 2);   /* version 2 */
  write_bytes (bad, data, n);
  assert_bad (bad, "version 2");
}

/* A file whose records the writer wrote faithfully but that no launch can
 * have made: the reader's checks of counts and addresses. */
static void
write_synthetic (const char *path, const MsWarpAccess *a, const char *check)
{
  g_autoptr (MsRunInfo) info = ms_run_info_new ();
  info->kernel = g_strdup ("synthetic");
  info->grid[0] = 2;
  info->block[0] = 64;
  ms_run_info_add_buffer (info, "buf", G_GUINT64_CONSTANT (1) << 40, 1024);
  info->buffers_complete = TRUE;
  g_autoptr (MsTraceWriter) w = ms_trace_writer_new (path, info, NULL);
  ms_trace_writer_sink (w)->ordered (ms_trace_writer_sink (w)->user, a);
  g_assert_true (ms_trace_writer_finish (w, check, NULL));
}

static void
test_absurd_records (void)
{
  static MsSite site = { "synthetic.cu", 3, 0, -1 };
  g_assert_cmpint (ms_site_register (&site), >=, 0);
  MsWarpAccess a = { .site = &site, .block = 1, .warp = 1, .space = MS_SPACE_GLOBAL,
                     .op = MS_OP_LD, .width = 4, .mask = 0xffffffffu };
  for (int l = 0; l < 32; l++)
    a.addr[l] = (G_GUINT64_CONSTANT (1) << 40) + 4 * (guint64) l;
  g_autofree char *path = tmp_path ("syn.trace");
  write_synthetic (path, &a, "passed");
  g_autoptr (GError) ok = read_all (path);
  g_assert_no_error (ok);

  MsWarpAccess b = a;
  b.block = 7;
  write_synthetic (path, &b, "passed");
  assert_bad (path, "block 7, but the grid has 2 blocks");
  b = a;
  b.warp = 2;
  write_synthetic (path, &b, "passed");
  assert_bad (path, "warp 2, but a block has 2 warps");
  b = a;
  b.addr[5] += 4096;
  write_synthetic (path, &b, "passed");
  assert_bad (path, "lane 5 accesses global address");
  b = a;
  b.space = MS_SPACE_SHARED;
  b.addr[0] = 1u << 20;
  write_synthetic (path, &b, "passed");
  assert_bad (path, "outside every shared window");
  /* an end record that does not count the accesses */
  write_synthetic (path, &a, "passed");
  g_autofree char *data = NULL;
  gsize n;
  g_assert_true (g_file_get_contents (path, &data, &n, NULL));
  gsize rn = 0;
  g_autofree char *raw = g_malloc (1 << 16);
  rn = ZSTD_decompress (raw, 1 << 16, data + MS_TRACE_HEADER_LEN, n - MS_TRACE_HEADER_LEN);
  g_assert_false (ZSTD_isError (rn));
  /* the payload ends with 'E', count 1, "passed": make the count 2 */
  g_assert_cmpint (raw[rn - 9], ==, MS_TRACE_TAG_END);
  raw[rn - 8] = 2;
  g_autofree char *re = g_malloc (MS_TRACE_HEADER_LEN + ZSTD_compressBound (rn));
  memcpy (re, data, MS_TRACE_HEADER_LEN);
  gsize cn = ZSTD_compress (re + MS_TRACE_HEADER_LEN, ZSTD_compressBound (rn), raw, rn, 1);
  write_bytes (path, re, MS_TRACE_HEADER_LEN + cn);
  assert_bad (path, "the end record counts 2 accesses, the file holds 1");
}

/* A launch on mapped host memory: the flag travels in the file, and the
 * replay's cache model sends the buffer's traffic over the host link (one
 * warp loading 128 bytes: 128 bytes read over it, no DRAM byte but the
 * launch's own). */
static void
test_host_buffer (void)
{
  static MsSite site = { "synthetic.cu", 4, 0, -1 };
  g_assert_cmpint (ms_site_register (&site), >=, 0);
  MsWarpAccess a = { .site = &site, .block = 0, .warp = 0, .space = MS_SPACE_GLOBAL,
                     .op = MS_OP_LD, .width = 4, .mask = 0xffffffffu };
  for (int l = 0; l < 32; l++)
    a.addr[l] = (G_GUINT64_CONSTANT (2) << 40) + 4 * (guint64) l;
  g_autoptr (MsRunInfo) info = ms_run_info_new ();
  info->kernel = g_strdup ("synthetic");
  info->grid[0] = 1;
  info->block[0] = 32;
  ms_run_info_add_buffer (info, "device", G_GUINT64_CONSTANT (1) << 40, 1024);
  ms_run_info_add_buffer (info, "mapped", G_GUINT64_CONSTANT (2) << 40, 1024);
  info->buffer_host[1] = TRUE;
  info->buffers_complete = TRUE;
  g_autofree char *path = tmp_path ("host.trace");
  g_autoptr (MsTraceWriter) w = ms_trace_writer_new (path, info, NULL);
  ms_trace_writer_sink (w)->ordered (ms_trace_writer_sink (w)->user, &a);
  g_assert_true (ms_trace_writer_finish (w, "passed", NULL));
  g_autoptr (GError) error = NULL;
  g_autoptr (MsTraceSource) src = ms_trace_source_open (path, &error);
  g_assert_no_error (error);
  const MsRunInfo *back = src->info (src);
  g_assert_false (back->buffer_host[0]);
  g_assert_true (back->buffer_host[1]);
  g_autoptr (MsStats) stats = NULL;
  g_assert_true (ms_trace_replay_models (src, ms_arch_default (), 1, NULL, &stats, NULL, &error));
  g_assert_no_error (error);
  const MsCounterDef *host = ms_counter_find (MS_SPACE_GLOBAL, "host_read_bytes");
  const MsCounterDef *dram = ms_counter_find (MS_SPACE_GLOBAL, "dram_read_bytes");
  g_assert_cmpuint (ms_stats_launch_total (stats, host), ==, 128);
  g_assert_cmpuint (ms_stats_launch_total (stats, dram), ==,
                    (guint64) ms_arch_default ()->launch_read_bytes);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  tmpdir = g_dir_make_tmp ("memsim-trace-XXXXXX", NULL);
  g_test_add_func ("/trace/host-buffer", test_host_buffer);
  g_test_add_func ("/trace/roundtrip-all-kernels", test_roundtrip_all);
  g_test_add_func ("/trace/thread-independent", test_thread_independent);
  g_test_add_func ("/trace/stream-order", test_stream_order);
  g_test_add_func ("/trace/stream-order-handover", test_stream_order_handover);
  g_test_add_func ("/trace/stream-order-kept", test_stream_order_kept);
  g_test_add_func ("/trace/stateful-model", test_stateful_model);
  g_test_add_func ("/trace/truncated-corrupted", test_truncated_and_corrupted);
  g_test_add_func ("/trace/absurd-records", test_absurd_records);
  int status = g_test_run ();
  g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmpdir);
  (void) !system (cmd);
  return status;
}
