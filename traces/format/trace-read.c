/* trace-read.c - reads memsim's trace format (docs/trace-format.md) as an
 * MsTraceSource: decompresses as it goes and checks every field, so a
 * truncated, corrupted or foreign file is a one-line error with the payload
 * byte offset, never a crash, a hang or an unbounded allocation. */
#include "config.h"
#include "trace-file.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <zstd.h>

#include "varint.h"

/* Shared memory a block can have on any preset memsim knows (228 KiB on
 * sm_90): a shared offset beyond it is corrupt. */
#define MAX_SHARED_OFFSET (228u * 1024)
/* Warp slots of an SM (64 on sm_70 and later): the bound of a warp number
 * that is a hardware slot rather than an index in the block. */
#define MS_MAX_WARP_SLOTS 64

typedef struct {
  MsTraceSource base;
  char *name;                /* the file's base name, for messages */
  FILE *file;
  ZSTD_DCtx *zd;
  guint8 *in, *out;
  ZSTD_inBuffer zin;
  gsize in_size, out_size, out_pos, out_len;
  size_t frame_left;         /* ZSTD_decompressStream's last hint: 0 = frame complete */
  gboolean file_eof;
  guint64 offset;            /* payload bytes consumed */
  MsRunInfo *info;
  GPtrArray *sites;          /* const MsSite * by file id (interned, not owned) */
  GPtrArray *sources;        /* char * by file id */
  GHashTable *source_of;     /* const MsSite * -> source text (owned by sources) */
  GArray *last_base;         /* guint64 by file id */
  guint64 last_block, records, n_blocks, n_warps;
  gboolean ended;
} Reader;

static gboolean G_GNUC_PRINTF (3, 4)
corrupt (Reader *r, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_CORRUPT, "%s: payload byte %" G_GUINT64_FORMAT
               ": %s", r->name, r->offset, what);
  return FALSE;
}

/* Decompresses more payload into the (empty) output window.  FALSE at the
 * end of the payload (no error) or on an error. */
static gboolean
refill (Reader *r, gboolean *eof, GError **error)
{
  *eof = FALSE;
  r->out_pos = r->out_len = 0;
  for (;;)
    {
      if (r->zin.pos == r->zin.size && !r->file_eof)
        {
          gsize n = fread (r->in, 1, r->in_size, r->file);
          if (n < r->in_size)
            {
              if (ferror (r->file))
                {
                  g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "%s: read error: %s",
                               r->name, g_strerror (errno));
                  return FALSE;
                }
              r->file_eof = TRUE;
            }
          r->zin = (ZSTD_inBuffer) { r->in, n, 0 };
        }
      if (r->zin.pos == r->zin.size && r->file_eof)
        {
          if (r->frame_left != 0)
            return corrupt (r, error, "the compressed data ends in the middle of a frame "
                                      "(truncated file)");
          *eof = TRUE;
          return FALSE;
        }
      ZSTD_outBuffer zout = { r->out, r->out_size, 0 };
      size_t ret = ZSTD_decompressStream (r->zd, &zout, &r->zin);
      if (ZSTD_isError (ret))
        return corrupt (r, error, "corrupted compressed data (%s)", ZSTD_getErrorName (ret));
      r->frame_left = ret;
      if (zout.pos > 0)
        {
          r->out_len = zout.pos;
          return TRUE;
        }
    }
}

/* Reads n bytes (dst may be NULL to skip).  what names the field for the
 * truncation message. */
static gboolean
get_bytes (Reader *r, void *dst, gsize n, const char *what, GError **error)
{
  while (n > 0)
    {
      if (r->out_pos == r->out_len)
        {
          gboolean eof;
          if (!refill (r, &eof, error))
            return eof ? corrupt (r, error, "the file ends inside %s (truncated file)", what)
                       : FALSE;
        }
      gsize k = MIN (n, r->out_len - r->out_pos);
      if (dst)
        {
          memcpy (dst, r->out + r->out_pos, k);
          dst = (guint8 *) dst + k;
        }
      r->out_pos += k;
      r->offset += k;
      n -= k;
    }
  return TRUE;
}

/* Whether the payload has no byte left (*end); FALSE on an error. */
static gboolean
payload_end (Reader *r, gboolean *end, GError **error)
{
  *end = FALSE;
  if (r->out_pos < r->out_len)
    return TRUE;
  if (refill (r, end, error))
    return TRUE;
  return *end;
}

static gboolean
get_varint (Reader *r, guint64 *v, const char *what, GError **error)
{
  /* fast path: a whole varint is in the window (nearly always) */
  if (G_LIKELY (r->out_len - r->out_pos >= 10))
    {
      const guint8 *p = r->out + r->out_pos;
      guint64 x = 0;
      for (int i = 0; i < 10; i++)
        {
          if (i == 9 && p[i] > 1)
            break;
          x |= (guint64) (p[i] & 0x7f) << (7 * i);
          if (!(p[i] & 0x80))
            {
              r->out_pos += (gsize) i + 1;
              r->offset += (guint64) i + 1;
              *v = x;
              return TRUE;
            }
        }
      return corrupt (r, error, "%s: a number longer than 64 bits", what);
    }
  *v = 0;
  for (int shift = 0; shift < 70; shift += 7)
    {
      guint8 b;
      if (!get_bytes (r, &b, 1, what, error))
        return FALSE;
      if (shift == 63 && b > 1)
        break;
      *v |= (guint64) (b & 0x7f) << shift;
      if (!(b & 0x80))
        return TRUE;
    }
  return corrupt (r, error, "%s: a number longer than 64 bits", what);
}

static gboolean
get_string (Reader *r, char **s, guint max, const char *what, GError **error)
{
  guint64 n;
  if (!get_varint (r, &n, what, error))
    return FALSE;
  if (n > max)
    return corrupt (r, error, "%s of %" G_GUINT64_FORMAT " bytes (at most %u)", what, n, max);
  char *t = g_malloc (n + 1);
  if (!get_bytes (r, t, n, what, error))
    {
      g_free (t);
      return FALSE;
    }
  t[n] = 0;
  if (!g_utf8_validate (t, (gssize) n, NULL) || strlen (t) != n)
    {
      g_free (t);
      return corrupt (r, error, "%s is not UTF-8 text", what);
    }
  *s = t;
  return TRUE;
}

/* ---- the launch key file ---- */

static gboolean
parse_numbers (const char *text, guint n_want, guint64 *out, gboolean is_signed)
{
  g_auto (GStrv) parts = g_strsplit (text ? text : "", ";", -1);
  guint n = g_strv_length (parts);
  if (n > 0 && *parts[n - 1] == '\0')
    n--;
  if (n != n_want)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      GError *e = NULL;
      gboolean ok = is_signed
        ? g_ascii_string_to_signed (parts[i], 10, G_MININT64, G_MAXINT64, (gint64 *) &out[i], &e)
        : g_ascii_string_to_unsigned (parts[i], 10, 0, G_MAXUINT64, &out[i], &e);
      g_clear_error (&e);
      if (!ok)
        return FALSE;
    }
  return TRUE;
}

static gboolean
parse_launch (Reader *r, const char *text, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autoptr (GError) e = NULL;
  if (!g_key_file_load_from_data (kf, text, (gsize) -1, G_KEY_FILE_NONE, &e))
    return corrupt (r, error, "the launch record is not a key file: %s", e->message);
  MsRunInfo *info = r->info;
  char **strings[] = { &info->kernel, &info->family, &info->origin, &info->description,
                       &info->source, &info->arch, &info->producer };
  const char *keys[] = { "kernel", "family", "origin", "description", "source", "arch",
                         "producer" };
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    *strings[i] = g_key_file_get_string (kf, "launch", keys[i], NULL);
  if (info->kernel == NULL || *info->kernel == '\0')
    return corrupt (r, error, "the launch record names no kernel");
  static const guint64 max_grid[3] = { 2147483647u, 65535, 65535 };
  static const guint64 max_block[3] = { 1024, 1024, 64 };
  for (int k = 0; k < 2; k++)
    {
      const char *key = k ? "block" : "grid";
      gsize n = 0;
      g_autofree gint *v = g_key_file_get_integer_list (kf, "launch", key, &n, NULL);
      if (v == NULL || n != 3)
        return corrupt (r, error, "the launch's %s is not three numbers", key);
      for (int d = 0; d < 3; d++)
        if (v[d] < 1 || (guint64) v[d] > (k ? max_block : max_grid)[d])
          return corrupt (r, error, "the launch's %s has %c = %d, outside CUDA's limits", key,
                          "xyz"[d], v[d]);
      for (int d = 0; d < 3; d++)
        (k ? info->block : info->grid)[d] = (guint) v[d];
    }
  if (ms_run_info_threads_per_block (info) > 1024)
    return corrupt (r, error, "the launch's block has more than 1024 threads");
  gint sb = g_key_file_get_integer (kf, "launch", "shared_bytes", NULL);
  info->shared_bytes = sb > 0 ? (guint) sb : 0;
  g_autofree char *warps = g_key_file_get_string (kf, "launch", "warps", NULL);
  info->warp_is_slot = g_strcmp0 (warps, "slots") == 0;
  info->counts = g_key_file_get_string (kf, "launch", "counts", NULL);
  info->compiled = g_key_file_get_boolean (kf, "launch", "compiled", NULL);
  info->contended = g_key_file_get_string_list (kf, "launch", "contended", NULL, NULL);
  if (info->contended && info->contended[0] == NULL)
    g_clear_pointer (&info->contended, g_strfreev);
  info->dependent = g_key_file_get_string_list (kf, "launch", "compiler_dependent", NULL, NULL);
  if (info->dependent && info->dependent[0] == NULL)
    g_clear_pointer (&info->dependent, g_strfreev);
  info->async_copies = g_key_file_get_string_list (kf, "launch", "async_copies", NULL, NULL);
  if (info->async_copies && info->async_copies[0] == NULL)
    g_clear_pointer (&info->async_copies, g_strfreev);
  info->buffers_complete = g_key_file_get_boolean (kf, "buffers", "complete", NULL);

  gsize np = 0, nb = 0;
  g_auto (GStrv) pnames = g_key_file_get_string_list (kf, "params", "names", &np, NULL);
  g_autofree char *pvalues = g_key_file_get_value (kf, "params", "values", NULL);
  if (np > MS_RUN_MAX_PARAMS)
    return corrupt (r, error, "the launch has %zu parameters (at most %d)", np, MS_RUN_MAX_PARAMS);
  guint64 pv[MS_RUN_MAX_PARAMS];
  if (np > 0 && !parse_numbers (pvalues, (guint) np, pv, TRUE))
    return corrupt (r, error, "the launch's parameter values do not match its names");
  for (gsize i = 0; i < np; i++)
    ms_run_info_add_param (info, pnames[i], (gint64) pv[i]);

  g_auto (GStrv) bnames = g_key_file_get_string_list (kf, "buffers", "names", &nb, NULL);
  g_autofree char *bbases = g_key_file_get_value (kf, "buffers", "bases", NULL);
  g_autofree char *bbytes = g_key_file_get_value (kf, "buffers", "bytes", NULL);
  if (nb > MS_RUN_MAX_BUFFERS)
    return corrupt (r, error, "the launch has %zu buffers (at most %d)", nb, MS_RUN_MAX_BUFFERS);
  guint64 base[MS_RUN_MAX_BUFFERS], size[MS_RUN_MAX_BUFFERS];
  if (nb > 0 && (!parse_numbers (bbases, (guint) nb, base, FALSE)
                 || !parse_numbers (bbytes, (guint) nb, size, FALSE)))
    return corrupt (r, error, "the launch's buffer bases or sizes do not match its names");
  /* optional: which buffers are mapped host memory */
  g_autofree char *bhost = g_key_file_get_value (kf, "buffers", "host", NULL);
  guint64 host[MS_RUN_MAX_BUFFERS] = { 0 };
  if (bhost != NULL && !parse_numbers (bhost, (guint) nb, host, FALSE))
    return corrupt (r, error, "the launch's host-memory flags do not match its buffers");
  for (gsize i = 0; i < nb; i++)
    {
      if (base[i] + size[i] < base[i])
        return corrupt (r, error, "buffer %s wraps around the address space", bnames[i]);
      if (host[i] > 1)
        return corrupt (r, error, "buffer %s's host-memory flag is %" G_GUINT64_FORMAT
                        " (0 or 1)", bnames[i], host[i]);
      ms_run_info_add_buffer (info, bnames[i], base[i], size[i]);
      info->buffer_host[i] = host[i] == 1;
    }
  r->n_blocks = ms_run_info_blocks (info);
  r->n_warps = (ms_run_info_threads_per_block (info) + MS_WARP_SIZE - 1) / MS_WARP_SIZE;
  if (info->warp_is_slot)
    r->n_warps = MAX (r->n_warps, MS_MAX_WARP_SLOTS);
  return TRUE;
}

static char *
reader_source_line (gpointer data, const MsSite *site)
{
  Reader *r = data;
  const char *text = g_hash_table_lookup (r->source_of, site);
  return text && *text ? g_strdup (text) : NULL;
}

/* ---- records ---- */

static gboolean
read_site (Reader *r, GError **error)
{
  guint64 id, line, order;
  g_autofree char *file = NULL, *source = NULL;
  if (!get_varint (r, &id, "a site record", error) || !get_varint (r, &line, "a site record", error)
      || !get_varint (r, &order, "a site record", error)
      || !get_string (r, &file, 4096, "a site's file name", error)
      || !get_string (r, &source, 65536, "a site's source text", error))
    return FALSE;
  if (id != r->sites->len)
    return corrupt (r, error, "site %" G_GUINT64_FORMAT " defined where site %u was expected",
                    id, r->sites->len);
  if (line > G_MAXINT)
    return corrupt (r, error, "site %" G_GUINT64_FORMAT " has line %" G_GUINT64_FORMAT, id, line);
  gint64 o = ms_unzigzag (order);
  if (o < G_MININT || o > G_MAXINT)
    return corrupt (r, error, "site %" G_GUINT64_FORMAT " has order %" G_GINT64_FORMAT, id, o);
  g_autofree char *at = g_strdup_printf ("%s:%" G_GUINT64_FORMAT, file, line);
  gboolean async_copy = r->info->async_copies != NULL
                        && g_strv_contains ((const char *const *) r->info->async_copies, at);
  const MsSite *site = ms_trace_site_intern (file, (int) line, (int) o, r->info->compiled,
                                             async_copy);
  if (site == NULL)
    return corrupt (r, error, "more than %d distinct sites in this process", MS_MAX_SITES);
  g_ptr_array_add (r->sites, (gpointer) site);
  g_hash_table_insert (r->source_of, (gpointer) site, source);
  g_ptr_array_add (r->sources, g_steal_pointer (&source));
  guint64 zero = 0;
  g_array_append_val (r->last_base, zero);
  return TRUE;
}

/* Whether [addr, addr + width) lies in one of the launch's buffers (any
 * address when the launch's list is not complete). */
static gboolean
in_buffers (const MsRunInfo *info, guint64 addr, guint width)
{
  if (!info->buffers_complete)
    return TRUE;
  for (guint i = 0; i < info->n_buffers; i++)
    if (addr >= info->buffer_base[i] && addr - info->buffer_base[i] <= info->buffer_bytes[i]
        && info->buffer_bytes[i] - (addr - info->buffer_base[i]) >= width)
      return TRUE;
  return FALSE;
}

static gboolean
read_access (Reader *r, MsWarpAccess *a, GError **error)
{
  const char *what = "an access record";
  guint8 hdr;
  guint64 id, dblock, warp, nmask, dfirst, v;
  if (!get_bytes (r, &hdr, 1, what, error) || !get_varint (r, &id, what, error)
      || !get_varint (r, &dblock, what, error) || !get_varint (r, &warp, what, error)
      || !get_varint (r, &nmask, what, error) || !get_varint (r, &dfirst, what, error))
    return FALSE;
  guint space = hdr & 3, op = (hdr >> 2) & 3, log2w = (hdr >> 4) & 7;
  gboolean strided = (hdr & 0x80) != 0;
  if (space >= MS_N_SPACES || op >= MS_N_OPS || log2w > 4)
    return corrupt (r, error, "access record with an invalid header byte 0x%02x", hdr);
  if (id >= r->sites->len)
    return corrupt (r, error, "access at site %" G_GUINT64_FORMAT ", which is not defined (%u "
                    "sites so far)", id, r->sites->len);
  guint64 block = r->last_block + (guint64) ms_unzigzag (dblock);
  if (block >= r->n_blocks)
    return corrupt (r, error, "access in block %" G_GUINT64_FORMAT ", but the grid has %"
                    G_GUINT64_FORMAT " blocks", block, r->n_blocks);
  if (warp >= r->n_warps)
    return corrupt (r, error, "access by warp %" G_GUINT64_FORMAT ", but a block has %"
                    G_GUINT64_FORMAT " warps", warp, r->n_warps);
  if (nmask > 0xffffffffu || nmask == 0xffffffffu)
    return corrupt (r, error, "access with %s", nmask == 0xffffffffu ? "no active lane"
                                                                     : "a mask of more than 32 lanes");
  guint32 mask = (guint32) nmask ^ 0xffffffffu;
  guint64 *base = &g_array_index (r->last_base, guint64, id);
  int l0 = __builtin_ctz (mask);
  memset (a->addr, 0, sizeof a->addr);
  a->addr[l0] = *base + (guint64) ms_unzigzag (dfirst);
  *base = a->addr[l0];
  guint32 rest = mask & (mask - 1);
  if (strided)
    {
      if (!get_varint (r, &v, what, error))
        return FALSE;
      guint64 stride = (guint64) ms_unzigzag (v);
      for (guint32 m = rest; m; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          a->addr[l] = a->addr[l0] + stride * (guint64) (l - l0);
        }
    }
  else
    {
      guint64 prev = a->addr[l0];
      for (guint32 m = rest; m; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          if (!get_varint (r, &v, what, error))
            return FALSE;
          a->addr[l] = prev + (guint64) ms_unzigzag (v);
          prev = a->addr[l];
        }
    }
  guint width = 1u << log2w;
  for (guint32 m = mask; m; m &= m - 1)
    {
      int l = __builtin_ctz (m);
      gboolean ok = space == MS_SPACE_GLOBAL ? in_buffers (r->info, a->addr[l], width)
                    : space == MS_SPACE_SHARED ? a->addr[l] + width <= MAX_SHARED_OFFSET
                                                 && a->addr[l] < MAX_SHARED_OFFSET
                                               : TRUE;
      if (!ok)
        return corrupt (r, error, "lane %d accesses %s address 0x%" G_GINT64_MODIFIER "x, outside "
                        "every %s", l, ms_space_name ((MsSpace) space), a->addr[l],
                        space == MS_SPACE_GLOBAL ? "buffer of the launch" : "shared window");
    }
  a->site = g_ptr_array_index (r->sites, id);
  a->block = (guint32) block;
  a->warp = (guint16) warp;
  a->space = (guint8) space;
  a->op = (guint8) op;
  a->width = (guint8) width;
  a->mask = mask;
  r->last_block = block;
  r->records++;
  return TRUE;
}

static gboolean
read_end (Reader *r, GError **error)
{
  guint64 count;
  g_autofree char *check = NULL;
  if (!get_varint (r, &count, "the end record", error)
      || !get_string (r, &check, 65536, "the end record's check", error))
    return FALSE;
  if (count != r->records)
    return corrupt (r, error, "the end record counts %" G_GUINT64_FORMAT " accesses, the file "
                    "holds %" G_GUINT64_FORMAT, count, r->records);
  gboolean end;
  if (!payload_end (r, &end, error))
    return FALSE;
  if (!end)
    return corrupt (r, error, "data after the end record");
  g_free (r->info->check);
  r->info->check = g_steal_pointer (&check);
  r->ended = TRUE;
  return TRUE;
}

static gboolean
reader_next (MsTraceSource *src, MsWarpAccess *a, GError **error)
{
  Reader *r = (Reader *) src;
  while (!r->ended)
    {
      guint8 tag;
      gboolean end;
      if (!payload_end (r, &end, error))
        return FALSE;
      if (end)
        return corrupt (r, error, "the file ends after %" G_GUINT64_FORMAT " accesses without "
                        "its end record (truncated file)", r->records);
      if (!get_bytes (r, &tag, 1, "a record tag", error))
        return FALSE;
      switch (tag)
        {
        case MS_TRACE_TAG_SITE:
          if (!read_site (r, error))
            return FALSE;
          break;
        case MS_TRACE_TAG_ACCESS:
          return read_access (r, a, error);
        case MS_TRACE_TAG_END:
          read_end (r, error);   /* the end of the stream, or an error */
          return FALSE;
        default:
          r->offset--;
          return corrupt (r, error, "unknown record tag 0x%02x", tag);
        }
    }
  return FALSE;
}

static const MsRunInfo *
reader_info (MsTraceSource *src)
{
  return ((Reader *) src)->info;
}

static void
reader_free (MsTraceSource *src)
{
  Reader *r = (Reader *) src;
  if (r->file)
    fclose (r->file);
  ZSTD_freeDCtx (r->zd);
  g_free (r->in);
  g_free (r->out);
  ms_run_info_free (r->info);
  g_ptr_array_unref (r->sites);
  g_hash_table_destroy (r->source_of);
  g_ptr_array_unref (r->sources);
  g_array_unref (r->last_base);
  g_free (r->name);
  g_free (r);
}

gboolean
ms_trace_file_sniff (const guint8 *head, gsize len)
{
  return len >= MS_TRACE_MAGIC_LEN && memcmp (head, MS_TRACE_MAGIC, MS_TRACE_MAGIC_LEN) == 0;
}

MsTraceSource *
ms_trace_file_open (const char *path, GError **error)
{
  Reader *r = g_new0 (Reader, 1);
  r->base = (MsTraceSource) { .info = reader_info, .next = reader_next, .free = reader_free,
                              .format = "memsim" };
  r->name = g_path_get_basename (path);
  r->info = ms_run_info_new ();
  r->info->check = g_strdup ("unknown (the trace was not read to its end)");
  r->info->source_line = reader_source_line;
  r->info->source_data = r;
  r->sites = g_ptr_array_new ();
  r->sources = g_ptr_array_new_with_free_func (g_free);
  r->source_of = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->last_base = g_array_new (FALSE, TRUE, sizeof (guint64));
  g_autoptr (MsTraceSource) src = &r->base;

  r->file = g_fopen (path, "rb");
  if (r->file == NULL)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot read %s: %s", path,
                   g_strerror (errno));
      return NULL;
    }
  guint8 header[MS_TRACE_HEADER_LEN];
  gsize n = fread (header, 1, sizeof header, r->file);
  if (n < sizeof header || !ms_trace_file_sniff (header, n))
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_FORMAT,
                   "%s: not a memsim trace (%s)", r->name,
                   n < sizeof header ? "shorter than the 16-byte header" : "no MEMSIMTR magic");
      return NULL;
    }
  guint version = header[8] | (guint) header[9] << 8, flags = header[10] | (guint) header[11] << 8;
  if (version != MS_TRACE_VERSION)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_VERSION,
                   "%s: trace format version %u; this memsim reads version %d", r->name, version,
                   MS_TRACE_VERSION);
      return NULL;
    }
  if (flags != MS_TRACE_FLAG_ZSTD)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_CORRUPT,
                   "%s: header flags 0x%x: version 1 traces are zstd-compressed (flags 0x1)",
                   r->name, flags);
      return NULL;
    }
  r->zd = ZSTD_createDCtx ();
  /* the writer's frames need a 2 MiB window (level 3); refuse a corrupted
   * header that asks for more than 8 MiB instead of allocating it */
  ZSTD_DCtx_setParameter (r->zd, ZSTD_d_windowLogMax, 23);
  r->in_size = ZSTD_DStreamInSize ();
  r->out_size = ZSTD_DStreamOutSize ();
  r->in = g_malloc (r->in_size);
  r->out = g_malloc (r->out_size);
  guint8 tag;
  g_autofree char *launch = NULL;
  if (!get_bytes (r, &tag, 1, "the launch record", error))
    return NULL;
  if (tag != MS_TRACE_TAG_LAUNCH)
    {
      corrupt (r, error, "the payload starts with tag 0x%02x, not the launch record", tag);
      return NULL;
    }
  if (!get_string (r, &launch, MS_TRACE_MAX_LAUNCH, "the launch record", error)
      || !parse_launch (r, launch, error))
    return NULL;
  return g_steal_pointer (&src);
}
