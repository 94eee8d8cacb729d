/* nvbit.c - NVBit mem_trace output as an access stream, and back; the
 * helpers both importers share (nvbit.h).
 *
 * The format (NVBit's tools/mem_trace, as shipped in NVBit's release
 * tarballs; not in the NVlabs/NVBit git repository, which holds only the
 * README): mem_trace.cu prints, at each kernel launch (enter_kernel_launch /
 * nvbit_at_graph_node_launch),
 *
 *   MEMTRACE: CTX 0x%016lx - LAUNCH - Kernel pc 0x%016lx - Kernel name %s -
 *     grid launch id %ld - grid size %d,%d,%d - block size %d,%d,%d -
 *     nregs %d - shmem %d - cuda stream id %ld
 *
 * (one line; the name is nvbit_get_func_name's, demangled: it may hold
 * spaces) and its receiver thread (recv_thread_fun) prints one line per
 * warp-level memory instruction executed:
 *
 *   MEMTRACE: CTX 0x%016lx - grid_launch_id %ld - CTA %d,%d,%d - warp %d -
 *     OPCODE - 0x%016lx 0x%016lx ... (32 addresses, each followed by a space)
 *
 * inject_funcs.cu's instrument_mem() runs on the lanes whose predicate is
 * true; they __shfl_sync every lane's address from the active set, so a lane
 * that did not execute the instruction prints what the shuffle gives for a
 * lane outside the mask: 0 in practice (NVBit issue #130 shows such zeros).
 * Hence memsim's rule: address 0 = inactive lane.  The warp is
 * get_warpid(), the warp's hardware slot on its SM (not the warp index in
 * its block); there is no PC, no width and no mask.  mem_trace skips
 * constant-space and non-memory instructions.  NVBit 1.0-1.4 printed the
 * same lines without the "MEMTRACE: CTX 0x... - " prefix.  Other lines of
 * the log (the program's own output, NVBit's banner) are passed over.
 *
 * memsim reads the first launch: its LAUNCH line, then access lines until
 * the next LAUNCH line (where it stops, without an error) or the end.  The
 * grid launch ids are not compared: NVBit 1.5 printed the launch line after
 * incrementing the id, so they do not match across versions.
 */
#include "config.h"
#include "nvbit.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

/* ================================================================ reader */

/* Distinct opcodes (= sites) one file may have: real kernels have tens. */
#define MAX_OPCODES 1024
#define SITE_FILE "<nvbit>"

typedef struct {
  MsTraceSource base;
  MsImportLines *lines;
  MsRunInfo *info;
  guint64 grid[3];
  /* opcode -> const MsSite * (interned: not owned); one site per distinct
   * opcode string, order = its rank of first appearance */
  GHashTable *sites;
  GHashTable *site_text;   /* const MsSite * -> opcode (the key owned by sites) */
  GHashTable *skips;
  gboolean done;
  GError *failed;          /* the error that ended the stream */
} NvbitSource;

typedef enum { LINE_OTHER, LINE_LAUNCH, LINE_ACCESS } LineKind;

/* Classifies a log line; *rest is the text past the "MEMTRACE: CTX 0x... - "
 * prefix.  A line with the prefix is an access or launch line by its first
 * field; one without (NVBit 1.0-1.4, or the program's own output) only if it
 * starts like one: "LAUNCH - Kernel pc", "Kernel pc 0x", "grid_launch_id N -
 * CTA" or "CTA x,y,z - warp". */
static LineKind
line_kind (const char *line, const char **rest)
{
  const char *p = line, *q;
  guint64 v, dim[3];
  gboolean prefixed = ms_import_eat (&p, "MEMTRACE:");
  while (*p == ' ')
    p++;
  q = p;
  if (ms_import_eat (&q, "CTX ") && ms_import_eat_hex (&q, TRUE, &v) && ms_import_eat (&q, " - "))
    p = q;
  *rest = p;
  if (prefixed)
    {
      if (g_str_has_prefix (p, "LAUNCH"))
        return LINE_LAUNCH;
      if (g_str_has_prefix (p, "grid_launch_id ") || g_str_has_prefix (p, "CTA "))
        return LINE_ACCESS;
      return LINE_OTHER;
    }
  if (g_str_has_prefix (p, "LAUNCH - Kernel pc ") || g_str_has_prefix (p, "Kernel pc 0x"))
    return LINE_LAUNCH;
  q = p;
  if (ms_import_eat (&q, "grid_launch_id ") && ms_import_eat_dec (&q, G_MAXUINT64, &v)
      && ms_import_eat (&q, " - CTA "))
    return LINE_ACCESS;
  q = p;
  if (ms_import_eat (&q, "CTA ") && ms_import_eat_dim3 (&q, dim) && ms_import_eat (&q, " - warp "))
    return LINE_ACCESS;
  return LINE_OTHER;
}

/* The launch line: kernel name up to " - grid ", then " - "-separated
 * "key value" fields; grid size and block size are required. */
static gboolean
parse_launch (NvbitSource *s, const char *p, GError **error)
{
  const char *name = strstr (p, "Kernel name ");
  if (name == NULL)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "LAUNCH line without a kernel name");
  name += strlen ("Kernel name ");
  const char *end = strstr (name, " - grid ");
  if (end == NULL || end == name)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "LAUNCH line without \"Kernel name NAME - grid ...\"");
  g_autofree char *kernel = g_strndup (name, (gsize) (end - name));
  guint64 grid[3], block[3], v, nregs = 0, shmem = 0;
  gboolean have_grid = FALSE, have_block = FALSE, have_nregs = FALSE;
  for (const char *f = end + 3; f != NULL && *f;)
    {
      const char *next = strstr (f, " - ");
      g_autofree char *field = next ? g_strndup (f, (gsize) (next - f)) : g_strdup (f);
      f = next ? next + 3 : NULL;
      const char *q = field;
      gboolean ok = TRUE;
      if (ms_import_eat (&q, "grid size "))
        ok = (have_grid = ms_import_eat_dim3 (&q, grid)) && *q == '\0';
      else if (ms_import_eat (&q, "block size "))
        ok = (have_block = ms_import_eat_dim3 (&q, block)) && *q == '\0';
      else if (ms_import_eat (&q, "nregs "))
        ok = (have_nregs = ms_import_eat_dec (&q, 65535, &nregs)) && *q == '\0';
      else if (ms_import_eat (&q, "shmem "))
        ok = ms_import_eat_dec (&q, G_MAXUINT32, &shmem) && *q == '\0';
      else if (ms_import_eat (&q, "grid launch id "))
        ok = ms_import_eat_dec (&q, G_MAXUINT64, &v) && *q == '\0';
      /* other fields (cuda stream id, ...) are not needed */
      if (!ok)
        return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                                "LAUNCH line: malformed field \"%.40s\"", field);
    }
  if (!have_grid || !have_block)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "LAUNCH line without %s", have_grid ? "block size" : "grid size");
  g_autofree char *why = NULL;
  if (!ms_import_check_launch (grid, block, &why))
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT, "absurd launch: %s", why);
  memcpy (s->grid, grid, sizeof grid);
  s->info = ms_import_run_info (kernel, "NVBit mem_trace",
                                "imported from NVBit mem_trace output: no source lines or PCs "
                                "(one site per distinct opcode), masks inferred (a lane whose "
                                "address is 0 is inactive), warp = hardware warp slot, no buffers",
                                grid, block, (guint) shmem);
  s->info->warp_is_slot = TRUE;
  if (have_nregs)
    ms_run_info_add_param (s->info, "nregs", (gint64) nregs);
  return TRUE;
}

static char *
nvbit_source_line (gpointer data, const MsSite *site)
{
  NvbitSource *s = data;
  const char *text = g_hash_table_lookup (s->site_text, site);
  return text ? g_strdup (text) : NULL;
}

static gboolean
opcode_chars_ok (const char *op, gsize n)
{
  if (n == 0 || n > 127)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (op[i]) && op[i] != '.' && op[i] != '_')
      return FALSE;
  return TRUE;
}

/* An access line past its prefix.  TRUE with *got set when it gave a
 * record; TRUE without when it was passed over (counted in skips). */
static gboolean
parse_access (NvbitSource *s, const char *p, MsWarpAccess *a, gboolean *got, GError **error)
{
  guint64 v, cta[3], warp;
  *got = FALSE;
  if (ms_import_eat (&p, "grid_launch_id ")
      && !(ms_import_eat_dec (&p, G_MAXUINT64, &v) && ms_import_eat (&p, " - ")))
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT, "malformed grid_launch_id");
  if (!ms_import_eat (&p, "CTA ") || !ms_import_eat_dim3 (&p, cta)
      || !ms_import_eat (&p, " - warp ") || !ms_import_eat_dec (&p, G_MAXUINT32, &warp)
      || !ms_import_eat (&p, " - "))
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "expected \"CTA X,Y,Z - warp W - OPCODE - ADDRESSES\"");
  if (warp > 65535)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "warp %" G_GUINT64_FORMAT " is absurd (more than 65535)", warp);
  for (int d = 0; d < 3; d++)
    if (cta[d] >= s->grid[d])
      return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                              "CTA %" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              " is outside the grid (%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
                              G_GUINT64_FORMAT ")", cta[0], cta[1], cta[2], s->grid[0],
                              s->grid[1], s->grid[2]);
  gsize oplen = strcspn (p, " ");
  if (!opcode_chars_ok (p, oplen))
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "malformed opcode \"%.*s\"", (int) MIN (oplen, 40), p);
  char opcode[128];
  memcpy (opcode, p, oplen);
  opcode[oplen] = '\0';
  p += oplen;
  /* " - " then the addresses; a trailing "-" alone when there are none */
  if (!ms_import_eat (&p, " -") || (*p != ' ' && *p != '\0'))
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "expected \" - \" after the opcode");
  int n = 0;
  guint64 addr[MS_WARP_SIZE];
  for (;;)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      if (n == MS_WARP_SIZE)
        return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                                "more than %d addresses", MS_WARP_SIZE);
      const char *t = p;
      if (!ms_import_eat_hex (&p, TRUE, &addr[n]) || (*p != ' ' && *p != '\t' && *p != '\0'))
        return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                                "lane %d: \"%.*s\" is not a hex address (0x...)", n,
                                (int) MIN (strcspn (t, " \t"), 24), t);
      n++;
    }
  if (n < MS_WARP_SIZE)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "truncated line: %d of %d addresses", n, MS_WARP_SIZE);

  MsSpace space;
  MsOp op;
  guint width;
  if (!ms_import_classify_opcode (opcode, &space, &op, &width))
    {
      ms_import_skip (&s->skips, opcode);
      return TRUE;
    }
  guint32 mask = 0;
  for (int l = 0; l < MS_WARP_SIZE; l++)
    if (addr[l] != 0)
      mask |= 1u << l;
  if (mask == 0)
    {
      ms_import_skip (&s->skips, "with no active lane");
      return TRUE;
    }
  const MsSite *site = g_hash_table_lookup (s->sites, opcode);
  if (site == NULL)
    {
      guint order = g_hash_table_size (s->sites);
      if (order >= MAX_OPCODES)
        return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                                "more than %d distinct opcodes", MAX_OPCODES);
      site = ms_trace_site_intern (SITE_FILE, 0, (int) order, FALSE, FALSE);
      if (site == NULL)
        return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                                "too many sites (memsim's site table holds %d)", MS_MAX_SITES);
      char *key = g_strdup (opcode);
      g_hash_table_insert (s->sites, key, (gpointer) site);
      g_hash_table_insert (s->site_text, (gpointer) site, key);
    }
  memset (a, 0, sizeof *a);
  a->site = site;
  a->block = (guint32) (cta[0] + s->grid[0] * (cta[1] + s->grid[1] * cta[2]));
  a->warp = (guint16) warp;
  a->space = (guint8) space;
  a->op = (guint8) op;
  a->width = (guint8) width;
  a->mask = mask;
  for (int l = 0; l < MS_WARP_SIZE; l++)
    a->addr[l] = addr[l];
  *got = TRUE;
  return TRUE;
}

static const MsRunInfo *
nvbit_info (MsTraceSource *src)
{
  return ((NvbitSource *) src)->info;
}

static gboolean
nvbit_next (MsTraceSource *src, MsWarpAccess *a, GError **error)
{
  NvbitSource *s = (NvbitSource *) src;
  if (s->failed)
    {
      g_propagate_error (error, g_error_copy (s->failed));
      return FALSE;
    }
  GError *err = NULL;
  while (!s->done)
    {
      char *line;
      int r = ms_import_lines_next (s->lines, &line, &err);
      if (r <= 0)
        {
          s->done = TRUE;
          break;
        }
      const char *rest;
      LineKind kind = line_kind (line, &rest);
      if (kind == LINE_LAUNCH)
        s->done = TRUE;   /* the next kernel: memsim reads the first only */
      else if (kind == LINE_ACCESS)
        {
          gboolean got;
          if (!parse_access (s, rest, a, &got, &err))
            break;
          if (got)
            return TRUE;
        }
    }
  if (err)
    {
      s->done = TRUE;
      s->failed = g_error_copy (err);
      g_propagate_error (error, err);
    }
  return FALSE;
}

static void
nvbit_free (MsTraceSource *src)
{
  NvbitSource *s = (NvbitSource *) src;
  ms_import_lines_free (s->lines);
  ms_run_info_free (s->info);
  g_hash_table_unref (s->site_text);
  g_hash_table_unref (s->sites);
  if (s->skips)
    g_hash_table_unref (s->skips);
  g_clear_error (&s->failed);
  g_free (s);
}

guint64
ms_nvbit_skipped (MsTraceSource *src, char **summary)
{
  g_return_val_if_fail (src != NULL && src->free == nvbit_free, 0);
  return ms_import_skip_summary (((NvbitSource *) src)->skips, summary);
}

gboolean
ms_nvbit_sniff (const guint8 *head, gsize len)
{
  /* a NUL-terminated copy, cut at the last whole line when there is one */
  g_autofree char *text = g_strndup ((const char *) head, len);
  char **lines = g_strsplit (text, "\n", -1);
  gboolean yes = FALSE;
  for (char **l = lines; *l && !yes; l++)
    {
      const char *rest;
      yes = g_str_has_prefix (*l, "MEMTRACE:")
            || strstr (*l, "NVBit (NVidia Binary Instrumentation Tool") != NULL
            || line_kind (*l, &rest) != LINE_OTHER;
    }
  g_strfreev (lines);
  return yes;
}

MsTraceSource *
ms_nvbit_open (const char *path, GError **error)
{
  MsImportLines *lines = ms_import_lines_open (path, error);
  if (lines == NULL)
    return NULL;
  NvbitSource *s = g_new0 (NvbitSource, 1);
  s->base = (MsTraceSource) { nvbit_info, nvbit_next, nvbit_free, "nvbit" };
  s->lines = lines;
  s->sites = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  s->site_text = g_hash_table_new (g_direct_hash, g_direct_equal);
  /* up to the launch line; an access line before it is an error */
  for (;;)
    {
      char *line;
      int r = ms_import_lines_next (lines, &line, error);
      if (r < 0)
        break;
      if (r == 0)
        {
          ms_import_error (error, lines, MS_TRACE_ERROR_FORMAT, "%s",
                           ms_import_lines_number (lines) == 0
                             ? "empty file, not mem_trace output"
                             : "no mem_trace LAUNCH line (\"MEMTRACE: CTX ... - LAUNCH - ...\")");
          break;
        }
      const char *rest;
      LineKind kind = line_kind (line, &rest);
      if (kind == LINE_ACCESS)
        {
          ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                           "a memory access before the first LAUNCH line");
          break;
        }
      if (kind == LINE_LAUNCH)
        {
          if (!parse_launch (s, rest, error))
            break;
          s->info->source_line = nvbit_source_line;
          s->info->source_data = s;
          return &s->base;
        }
    }
  nvbit_free (&s->base);
  return NULL;
}

/* ================================================================ writer */

static gboolean
write_failed (GError **error, const char *path, GError *err)
{
  g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "%s", err ? err->message : path);
  g_clear_error (&err);
  return FALSE;
}

/* A kernel name that stays one launch line and parses back: control bytes
 * become '?', and an empty name "unnamed". */
static char *
printable_name (const char *kernel)
{
  char *name = g_strdup (kernel && *kernel ? kernel : "unnamed");
  for (char *c = name; *c; c++)
    if ((guchar) *c < 0x20 || *c == 0x7f)
      *c = '?';
  return name;
}

/* The linear block index back to CTA coordinates; FALSE when outside. */
static gboolean
block_coords (const MsRunInfo *info, guint32 block, guint64 cta[3])
{
  guint64 gx = info->grid[0], gy = info->grid[1];
  if ((guint64) block >= ms_run_info_blocks (info))
    return FALSE;
  cta[0] = block % gx;
  cta[1] = (block / gx) % gy;
  cta[2] = block / (gx * gy);
  return TRUE;
}

static gint64
param_value (const MsRunInfo *info, const char *name, gint64 otherwise)
{
  for (guint i = 0; i < info->n_params; i++)
    if (strcmp (info->param_name[i], name) == 0)
      return info->param_value[i];
  return otherwise;
}

gboolean
ms_nvbit_export (MsTraceSource *src, const char *path, GError **error)
{
  const MsRunInfo *info = src->info (src);
  guint64 grid[3], block[3];
  for (int d = 0; d < 3; d++)
    {
      grid[d] = info->grid[d];
      block[d] = info->block[d];
    }
  g_autofree char *why = NULL;
  if (!ms_import_check_launch (grid, block, &why))
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_FORMAT, "cannot export %s: %s",
                   info->kernel, why);
      return FALSE;
    }
  GError *err = NULL;
  MsOutput *out = ms_output_open (path, &err);
  if (out == NULL)
    return write_failed (error, path, err);
  FILE *f = ms_output_file (out);
  g_autofree char *name = printable_name (info->kernel);
  const char *ctx = "MEMTRACE: CTX 0x0000000000000000";
  fprintf (f, "%s - LAUNCH - Kernel pc 0x0000000000000000 - Kernel name %s - grid launch id 0 - "
           "grid size %u,%u,%u - block size %u,%u,%u - nregs %" G_GINT64_FORMAT " - shmem %u - "
           "cuda stream id 0\n", ctx, name, info->grid[0], info->grid[1], info->grid[2],
           info->block[0], info->block[1], info->block[2], param_value (info, "nregs", 0),
           info->shared_bytes);
  GString *line = g_string_sized_new (800);
  MsWarpAccess a;
  guint64 n = 0;
  while (src->next (src, &a, &err))
    {
      guint64 cta[3];
      char opcode[32];
      n++;
      if (!block_coords (info, a.block, cta))
        {
          g_set_error (&err, MS_TRACE_ERROR, MS_TRACE_ERROR_CORRUPT, "cannot export record %"
                       G_GUINT64_FORMAT ": block %u is outside the grid", n, a.block);
          break;
        }
      if (!ms_import_opcode_name (a.space, a.op, a.width, opcode))
        {
          g_set_error (&err, MS_TRACE_ERROR, MS_TRACE_ERROR_CORRUPT, "cannot export record %"
                       G_GUINT64_FORMAT ": no SASS opcode for a %s %s of %u bytes", n,
                       ms_space_name (a.space), ms_op_name (a.op), a.width);
          break;
        }
      g_string_printf (line, "%s - grid_launch_id 0 - CTA %" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                       ",%" G_GUINT64_FORMAT " - warp %u - %s - ", ctx, cta[0], cta[1], cta[2],
                       a.warp, opcode);
      /* inactive lanes print 0, as mem_trace's shuffle gives them */
      for (int l = 0; l < MS_WARP_SIZE; l++)
        g_string_append_printf (line, "0x%016" G_GINT64_MODIFIER "x ",
                                (a.mask >> l) & 1 ? a.addr[l] : 0);
      g_string_append_c (line, '\n');
      fwrite (line->str, 1, line->len, f);
    }
  g_string_free (line, TRUE);
  if (err != NULL)
    {
      ms_output_abort (out);
      g_propagate_error (error, err);
      return FALSE;
    }
  if (!ms_output_commit (out, &err))
    return write_failed (error, path, err);
  return TRUE;
}
