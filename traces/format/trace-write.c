/* trace-write.c - writes memsim's trace format (docs/trace-format.md) from
 * the ordered access stream, compressing as it goes (constant memory). */
#include "config.h"
#include "trace-file.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "output.h"
#include "varint.h"

#define FLUSH_BYTES (1u << 16)

struct MsTraceWriter {
  char *path;
  MsOutput *out;
  FILE *file;
  ZSTD_CCtx *zc;
  guint8 *zbuf;
  gsize zbuf_size;
  GString *buf;               /* payload not yet compressed */
  const MsRunInfo *info;
  MsStreamSink sink;
  GHashTable *site_ids;       /* const MsSite * -> file site id + 1 */
  GArray *last_base;          /* guint64 per file site: the previous first address */
  guint64 last_block;
  guint64 records, lanes, payload_bytes, file_bytes;
  GError *error;              /* the first error; writing stops */
};

/* Compresses buf (and, with end, finishes the frame) into the file. */
static gboolean
flush (MsTraceWriter *w, gboolean end)
{
  if (w->error)
    return FALSE;
  ZSTD_inBuffer in = { w->buf->str, w->buf->len, 0 };
  w->payload_bytes += w->buf->len;
  for (;;)
    {
      ZSTD_outBuffer out = { w->zbuf, w->zbuf_size, 0 };
      size_t left = ZSTD_compressStream2 (w->zc, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError (left))
        {
          g_set_error (&w->error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "%s: compression failed: %s",
                       w->path, ZSTD_getErrorName (left));
          return FALSE;
        }
      if (out.pos > 0 && fwrite (w->zbuf, 1, out.pos, w->file) != out.pos)
        {
          g_set_error (&w->error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot write %s: %s",
                       w->path, g_strerror (errno));
          return FALSE;
        }
      w->file_bytes += out.pos;
      if (end ? left == 0 : in.pos == in.size)
        break;
    }
  g_string_truncate (w->buf, 0);
  return TRUE;
}

/* The file id of a site, writing its 'S' record the first time. */
static guint
site_id (MsTraceWriter *w, const MsSite *site)
{
  guint id = GPOINTER_TO_UINT (g_hash_table_lookup (w->site_ids, site));
  if (id != 0)
    return id - 1;
  id = g_hash_table_size (w->site_ids);
  g_hash_table_insert (w->site_ids, (gpointer) site, GUINT_TO_POINTER (id + 1));
  guint64 zero = 0;
  g_array_append_val (w->last_base, zero);
  g_autofree char *source = ms_run_info_source_line (w->info, site);
  const char *file = strrchr (site->file, '/');
  g_string_append_c (w->buf, MS_TRACE_TAG_SITE);
  ms_varint_put (w->buf, id);
  ms_varint_put (w->buf, (guint64) MAX (site->line, 0));
  ms_varint_put (w->buf, ms_zigzag (site->order));
  ms_varint_put_string (w->buf, file ? file + 1 : site->file);
  ms_varint_put_string (w->buf, source);
  return id;
}

static void
write_access (gpointer user, const MsWarpAccess *a)
{
  MsTraceWriter *w = user;
  if (w->error)
    return;
  guint32 mask = a->mask;
  if (mask == 0)
    return;   /* no lane, no instruction: nothing a model counts */
  guint id = site_id (w, a->site);
  int l0 = __builtin_ctz (mask);
  int log2w = ms_exact_log2 (a->width);
  /* strided: every active lane at first + (l - l0) * stride */
  gint64 stride = 0;
  gboolean strided = TRUE;
  guint32 rest = mask & (mask - 1);
  if (rest)
    {
      int l1 = __builtin_ctz (rest);
      stride = (gint64) (a->addr[l1] - a->addr[l0]) / (l1 - l0);
      for (guint32 m = rest; m && strided; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          strided = a->addr[l] == a->addr[l0] + (guint64) stride * (guint64) (l - l0);
        }
    }
  g_string_append_c (w->buf, MS_TRACE_TAG_ACCESS);
  g_string_append_c (w->buf, (char) MS_TRACE_HDR (a->space, a->op, log2w < 0 ? 0 : log2w, strided));
  ms_varint_put (w->buf, id);
  ms_varint_put (w->buf, ms_zigzag ((gint64) (a->block - w->last_block)));
  w->last_block = a->block;
  ms_varint_put (w->buf, a->warp);
  ms_varint_put (w->buf, mask ^ 0xffffffffu);
  guint64 *base = &g_array_index (w->last_base, guint64, id);
  ms_varint_put (w->buf, ms_zigzag ((gint64) (a->addr[l0] - *base)));
  *base = a->addr[l0];
  if (strided)
    ms_varint_put (w->buf, ms_zigzag (stride));
  else
    {
      guint64 prev = a->addr[l0];
      for (guint32 m = rest; m; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          ms_varint_put (w->buf, ms_zigzag ((gint64) (a->addr[l] - prev)));
          prev = a->addr[l];
        }
    }
  w->records++;
  w->lanes += ms_lanes_count (mask);
  if (w->buf->len >= FLUSH_BYTES)
    flush (w, FALSE);
}

/* The launch as a key file (docs/trace-format.md, "Launch"). */
static char *
launch_text (const MsRunInfo *info)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  const char *strings[][2] = {
    { "kernel", info->kernel }, { "family", info->family }, { "origin", info->origin },
    { "description", info->description }, { "source", info->source }, { "arch", info->arch },
    { "producer", info->producer },
  };
  for (guint i = 0; i < G_N_ELEMENTS (strings); i++)
    g_key_file_set_string (kf, "launch", strings[i][0], strings[i][1] ? strings[i][1] : "");
  gint dims[2][3];
  for (int d = 0; d < 3; d++)
    {
      dims[0][d] = (gint) info->grid[d];
      dims[1][d] = (gint) info->block[d];
    }
  g_key_file_set_integer_list (kf, "launch", "grid", dims[0], 3);
  g_key_file_set_integer_list (kf, "launch", "block", dims[1], 3);
  g_key_file_set_integer (kf, "launch", "shared_bytes", (gint) info->shared_bytes);
  g_key_file_set_string (kf, "launch", "warps", info->warp_is_slot ? "slots" : "indices");
  /* how records map to instructions, and the contention-dependent lines */
  if (info->counts)
    g_key_file_set_string (kf, "launch", "counts", info->counts);
  if (info->compiled)
    g_key_file_set_boolean (kf, "launch", "compiled", TRUE);
  if (info->contended)
    g_key_file_set_string_list (kf, "launch", "contended", (const char *const *) info->contended,
                                g_strv_length (info->contended));
  if (info->dependent)
    g_key_file_set_string_list (kf, "launch", "compiler_dependent",
                                (const char *const *) info->dependent,
                                g_strv_length (info->dependent));
  if (info->async_copies)
    g_key_file_set_string_list (kf, "launch", "async_copies",
                                (const char *const *) info->async_copies,
                                g_strv_length (info->async_copies));
  /* parameters in their order: a list of names and one of values */
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  g_autoptr (GString) values = g_string_new (NULL);
  for (guint i = 0; i < info->n_params; i++)
    {
      g_strv_builder_add (names, info->param_name[i]);
      g_string_append_printf (values, "%s%" G_GINT64_FORMAT, i ? ";" : "", info->param_value[i]);
    }
  g_auto (GStrv) pn = g_strv_builder_end (names);
  g_key_file_set_string_list (kf, "params", "names", (const char *const *) pn, info->n_params);
  g_key_file_set_value (kf, "params", "values", values->str);
  g_autoptr (GStrvBuilder) bnames = g_strv_builder_new ();
  g_autoptr (GString) bases = g_string_new (NULL), bytes = g_string_new (NULL);
  for (guint i = 0; i < info->n_buffers; i++)
    {
      g_strv_builder_add (bnames, info->buffer_name[i]);
      g_string_append_printf (bases, "%s%" G_GUINT64_FORMAT, i ? ";" : "", info->buffer_base[i]);
      g_string_append_printf (bytes, "%s%" G_GUINT64_FORMAT, i ? ";" : "", info->buffer_bytes[i]);
    }
  g_auto (GStrv) bn = g_strv_builder_end (bnames);
  g_key_file_set_string_list (kf, "buffers", "names", (const char *const *) bn, info->n_buffers);
  g_key_file_set_value (kf, "buffers", "bases", bases->str);
  g_key_file_set_value (kf, "buffers", "bytes", bytes->str);
  /* mapped host memory, one 0 or 1 a buffer; only where some buffer is */
  g_autoptr (GString) host = g_string_new (NULL);
  gboolean any_host = FALSE;
  for (guint i = 0; i < info->n_buffers; i++)
    {
      g_string_append_printf (host, "%s%d", i ? ";" : "", info->buffer_host[i] ? 1 : 0);
      any_host |= info->buffer_host[i];
    }
  if (any_host)
    g_key_file_set_value (kf, "buffers", "host", host->str);
  g_key_file_set_boolean (kf, "buffers", "complete", info->buffers_complete);
  return g_key_file_to_data (kf, NULL, NULL);
}

MsTraceWriter *
ms_trace_writer_new (const char *path, const MsRunInfo *info, GError **error)
{
  MsOutput *out = ms_output_open (path, error);
  if (out == NULL)
    return NULL;
  MsTraceWriter *w = g_new0 (MsTraceWriter, 1);
  w->path = g_strdup (path);
  w->out = out;
  w->file = ms_output_file (out);
  w->zc = ZSTD_createCCtx ();
  ZSTD_CCtx_setParameter (w->zc, ZSTD_c_compressionLevel, 3);
  ZSTD_CCtx_setParameter (w->zc, ZSTD_c_windowLog, 21);   /* readers allow up to 23 */
  w->zbuf_size = ZSTD_CStreamOutSize ();
  w->zbuf = g_malloc (w->zbuf_size);
  w->buf = g_string_sized_new (FLUSH_BYTES + 4096);
  w->info = info;
  w->site_ids = g_hash_table_new (g_direct_hash, g_direct_equal);
  w->last_base = g_array_new (FALSE, TRUE, sizeof (guint64));
  w->sink = (MsStreamSink) { .ordered = write_access, .user = w };

  guint8 header[MS_TRACE_HEADER_LEN] = { 0 };
  memcpy (header, MS_TRACE_MAGIC, MS_TRACE_MAGIC_LEN);
  header[8] = MS_TRACE_VERSION & 0xff;
  header[9] = MS_TRACE_VERSION >> 8;
  header[10] = MS_TRACE_FLAG_ZSTD;
  if (fwrite (header, 1, sizeof header, w->file) != sizeof header)
    g_set_error (&w->error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot write %s: %s", path,
                 g_strerror (errno));
  w->file_bytes = sizeof header;
  g_autofree char *launch = launch_text (info);
  g_string_append_c (w->buf, MS_TRACE_TAG_LAUNCH);
  ms_varint_put_string (w->buf, launch);
  if (w->error)
    {
      g_propagate_error (error, g_steal_pointer (&w->error));
      ms_trace_writer_free (w);
      return NULL;
    }
  return w;
}

const MsStreamSink *
ms_trace_writer_sink (MsTraceWriter *w)
{
  return &w->sink;
}

gboolean
ms_trace_writer_finish (MsTraceWriter *w, const char *check, GError **error)
{
  if (!w->error)
    {
      g_string_append_c (w->buf, MS_TRACE_TAG_END);
      ms_varint_put (w->buf, w->records);
      ms_varint_put_string (w->buf, check ? check : "not run");
      flush (w, TRUE);
    }
  if (w->error)
    {
      g_propagate_error (error, g_steal_pointer (&w->error));
      return FALSE;
    }
  w->file = NULL;
  return ms_output_commit (g_steal_pointer (&w->out), error);
}

void
ms_trace_writer_counts (const MsTraceWriter *w, guint64 *records, guint64 *lane_accesses,
                        guint64 *payload_bytes, guint64 *file_bytes)
{
  *records = w->records;
  *lane_accesses = w->lanes;
  *payload_bytes = w->payload_bytes + w->buf->len;
  *file_bytes = w->file_bytes;
}

void
ms_trace_writer_free (MsTraceWriter *w)
{
  if (w == NULL)
    return;
  ms_output_abort (w->out);   /* no finish: no file */
  ZSTD_freeCCtx (w->zc);
  g_free (w->zbuf);
  g_string_free (w->buf, TRUE);
  g_hash_table_destroy (w->site_ids);
  g_array_unref (w->last_base);
  g_clear_error (&w->error);
  g_free (w->path);
  g_free (w);
}

gboolean
ms_trace_file_convert (MsTraceSource *src, const char *path, GError **error)
{
  g_autoptr (MsTraceWriter) w = ms_trace_writer_new (path, src->info (src), error);
  if (w == NULL)
    return FALSE;
  MsWarpAccess a;
  GError *e = NULL;
  while (src->next (src, &a, &e))
    write_access (w, &a);
  if (e != NULL)
    {
      g_propagate_error (error, e);
      return FALSE;
    }
  return ms_trace_writer_finish (w, src->info (src)->check, error);
}
