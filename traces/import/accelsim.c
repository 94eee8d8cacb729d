/* accelsim.c - Accel-Sim tracer traces as an access stream, and back.
 *
 * The format (accel-sim/accel-sim-framework, trace version 5): the tracer
 * (util/tracer_nvbit/tracer_tool/tracer_tool.cu) writes, per context, a
 * kernelslist of "MemcpyHtoD,0x%016llx,%llu" lines (cuMemcpyHtoD_v2: device
 * address, bytes) and "kernel-N.trace" names, and per kernel a .trace whose
 * header is
 *
 *   -kernel name = NAME         (mangled)
 *   -kernel id = N
 *   -grid dim = (X,Y,Z)
 *   -block dim = (X,Y,Z)
 *   -shmem = N                  (static + dynamic bytes)
 *   -nregs = N
 *   -binary version = N
 *   -cuda stream id = N
 *   -shmem base_addr = 0x%016lx
 *   -local mem base_addr = 0x%016lx
 *   -nvbit version = S
 *   -accelsim tracer version = N
 *   -enable lineinfo = 0|1
 *   #traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num
 *     [reg_srcs] mem_width [adrrescompress?] [mem_addresses] immediate
 *
 * post-traces-processing.cpp (traces-processing/) groups the lines by
 * thread block into kernel-N.traceg and rewrites the list as kernelslist.g:
 *
 *   #BEGIN_TB
 *   thread block = X,Y,Z
 *   (cluster id = / cluster cta = / cluster rank = ..., newer versions)
 *   warp = W                    (warp index in the block: every warp of the
 *   insts = N                    block is listed, N may be 0)
 *   N instruction lines
 *   ...
 *   #END_TB
 *
 * An instruction line (recv_thread_fun in tracer_tool.cu, read back by
 * inst_trace_t::parse_from_string in gpu-simulator/trace-parser/
 * trace_parser.cc): [line_num, decimal, when -enable lineinfo = 1] PC
 * ("%04x", hex without 0x) mask ("%08x": active & predicate lanes) dest_num
 * [R%d ...] OPCODE src_num [R%d ...] mem_width (decimal bytes, from the
 * opcode's size modifier; 0 = not a memory instruction, nothing follows but
 * the immediate) and, for a memory instruction, an address mode:
 *   0 (list_all)    one "0x%016lx" address per active lane, lane order;
 *   1 (base_stride) "0x%llx" base then a decimal int stride: lane l of the
 *                   one contiguous run of active lanes is base + (l - first)
 *                   * stride (the tracer uses it only for a contiguous mask
 *                   of at least two lanes);
 *   2 (base_delta)  "0x%llx" base (the first active lane) then one signed
 *                   decimal delta per further active lane, each from the
 *                   previous active lane's address;
 * then the immediate (decimal; older tracers print none).  Trace versions
 * before 3 put "tb_x tb_y tb_z warp" at the start of every line: memsim
 * reads versions 3 and later.  TMA opcodes (UTMALDG, ...) use other address
 * modes; memsim skips them without reading their addresses.
 */
#include "config.h"
#include "accelsim.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nvbit.h"
#include "output.h"

#define SITE_FILE "<accelsim>"
#define MAX_TOKENS 160
#define MAX_REGS 32

typedef struct {
  MsTraceSource base;
  MsImportLines *lines;
  MsRunInfo *info;
  guint64 grid[3];
  gboolean lineinfo;
  /* where the reader is */
  gboolean in_tb, have_block, in_warp, have_insts;
  guint64 cta[3], warp, insts, seen;
  guint32 block;
  GHashTable *site_text;   /* const MsSite * -> "OPCODE pc 0x..." (owned) */
  GHashTable *skips;
  gboolean done;
  GError *failed;
} AccelSource;

typedef struct {
  char *kernel;
  guint64 grid[3], block[3], shmem, nregs, version, lineinfo;
  gboolean have_grid, have_block, have_nregs, have_version;
  guint64 grid_line, block_line;   /* where they were given */
} Header;

static void
header_clear (Header *h)
{
  g_free (h->kernel);
}

/* Text with its leading and trailing blanks removed (in place). */
static char *
trim (char *s)
{
  while (*s == ' ' || *s == '\t')
    s++;
  gsize n = strlen (s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
    s[--n] = '\0';
  return s;
}

static gboolean
whole_dec (const char *t, guint64 max, guint64 *v)
{
  return ms_import_eat_dec (&t, max, v) && *t == '\0';
}

static gboolean
whole_hex (const char *t, gboolean need_0x, guint64 *v)
{
  return ms_import_eat_hex (&t, need_0x, v) && *t == '\0';
}

static gboolean
whole_signed (const char *t, gint64 *v)
{
  return ms_import_eat_signed (&t, v) && *t == '\0';
}

static gboolean
paren_dim3 (const char *t, guint64 v[3])
{
  return ms_import_eat (&t, "(") && ms_import_eat_dim3 (&t, v) && ms_import_eat (&t, ")")
         && *t == '\0';
}

/* One "-key = value" header line (line points past the '-'). */
static gboolean
parse_header_line (MsImportLines *lines, char *line, Header *h, GError **error)
{
  char *eq = strchr (line, '=');
  if (eq == NULL)
    return ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                            "malformed header line (no \"= value\")");
  *eq = '\0';
  const char *key = trim (line);
  char *value = trim (eq + 1);
  gboolean ok = TRUE;
  if (strcmp (key, "kernel name") == 0)
    {
      g_free (h->kernel);
      h->kernel = g_strdup (value);
    }
  else if (strcmp (key, "grid dim") == 0)
    {
      ok = h->have_grid = paren_dim3 (value, h->grid);
      h->grid_line = ms_import_lines_number (lines);
    }
  else if (strcmp (key, "block dim") == 0)
    {
      ok = h->have_block = paren_dim3 (value, h->block);
      h->block_line = ms_import_lines_number (lines);
    }
  else if (strcmp (key, "shmem") == 0)
    ok = whole_dec (value, G_MAXUINT32, &h->shmem);
  else if (strcmp (key, "nregs") == 0)
    ok = h->have_nregs = whole_dec (value, 65535, &h->nregs);
  else if (strcmp (key, "accelsim tracer version") == 0)
    ok = h->have_version = whole_dec (value, G_MAXUINT32, &h->version);
  else if (strcmp (key, "enable lineinfo") == 0)
    ok = whole_dec (value, G_MAXUINT32, &h->lineinfo);
  /* kernel id, binary version, cuda stream id, shmem / local mem base_addr,
   * nvbit version: not needed */
  if (!ok)
    return ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                            "malformed header value: -%s = %.40s", key, value);
  return TRUE;
}

static gboolean
fail_stream (AccelSource *s, GError *err, GError **error)
{
  s->done = TRUE;
  s->failed = g_error_copy (err);
  g_propagate_error (error, err);
  return FALSE;
}

/* The end of the current warp's lines: their count must be insts. */
static gboolean
end_warp (AccelSource *s, GError **error)
{
  if (!s->in_warp)
    return TRUE;
  s->in_warp = FALSE;
  if (!s->have_insts)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "warp %" G_GUINT64_FORMAT " has no \"insts = N\" line", s->warp);
  if (s->seen != s->insts)
    return ms_import_error (error, s->lines, MS_TRACE_ERROR_CORRUPT,
                            "warp %" G_GUINT64_FORMAT " of thread block %" G_GUINT64_FORMAT ",%"
                            G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ": insts = %" G_GUINT64_FORMAT
                            " but %" G_GUINT64_FORMAT " instruction lines", s->warp, s->cta[0],
                            s->cta[1], s->cta[2], s->insts, s->seen);
  return TRUE;
}

static char *
accel_source_line (gpointer data, const MsSite *site)
{
  AccelSource *s = data;
  const char *text = g_hash_table_lookup (s->site_text, site);
  return text ? g_strdup (text) : NULL;
}

static gboolean
opcode_chars_ok (const char *op)
{
  gsize n = strlen (op);
  if (n == 0 || n > 127)
    return FALSE;
  for (gsize i = 0; i < n; i++)
    if (!g_ascii_isalnum (op[i]) && op[i] != '.' && op[i] != '_')
      return FALSE;
  return TRUE;
}

/* An instruction line (tokens split in place).  TRUE with *got when it
 * gave a record; TRUE without for a non-memory or skipped instruction. */
static gboolean
parse_inst (AccelSource *s, char *line, MsWarpAccess *a, gboolean *got, GError **error)
{
  MsImportLines *L = s->lines;
  char *tok[MAX_TOKENS];
  int nt = 0, i = 0;
  *got = FALSE;
  for (char *p = line; *p;)
    {
      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == '\0')
        break;
      if (nt == MAX_TOKENS)
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "more than %d fields in an instruction line", MAX_TOKENS);
      tok[nt++] = p;
      while (*p && *p != ' ' && *p != '\t')
        p++;
      if (*p)
        *p++ = '\0';
    }
#define NEED(what)                                                                            \
  do                                                                                          \
    if (i >= nt)                                                                              \
      return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,                               \
                              "truncated instruction line: no %s", what);                     \
  while (0)
  guint64 line_num = 0, pc, mask, ndst, nsrc, width, mode;
  if (s->lineinfo)
    {
      NEED ("line number");
      if (!whole_dec (tok[i++], G_MAXINT32, &line_num))
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed line number \"%.20s\"",
                                tok[i - 1]);
    }
  NEED ("PC");
  if (!whole_hex (tok[i++], FALSE, &pc) || pc > G_MAXINT32)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed PC \"%.20s\"",
                            tok[i - 1]);
  NEED ("active mask");
  if (!whole_hex (tok[i++], FALSE, &mask))
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed mask \"%.20s\"",
                            tok[i - 1]);
  if (mask > 0xffffffffu)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "mask %.20s has bits beyond lane 31", tok[i - 1]);
  NEED ("destination count");
  if (!whole_dec (tok[i++], MAX_REGS, &ndst))
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "malformed destination count \"%.20s\"", tok[i - 1]);
  i += (int) ndst;
  NEED ("opcode");
  const char *opcode = tok[i++];
  if (!opcode_chars_ok (opcode))
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed opcode \"%.40s\"",
                            opcode);
  NEED ("source count");
  if (!whole_dec (tok[i++], MAX_REGS, &nsrc))
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed source count \"%.20s\"",
                            tok[i - 1]);
  i += (int) nsrc;
  NEED ("mem width");
  if (!whole_dec (tok[i++], G_MAXUINT32, &width))
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed mem width \"%.20s\"",
                            tok[i - 1]);
  if (width == 0)
    return TRUE;   /* not a memory instruction */
  MsSpace space;
  MsOp op;
  guint op_width;
  if (!ms_import_classify_opcode (opcode, &space, &op, &op_width))
    {
      ms_import_skip (&s->skips, opcode);
      return TRUE;
    }
  if (!ms_import_width_valid (width))
    {
      g_autofree char *what = g_strdup_printf ("%s (mem width %" G_GUINT64_FORMAT ")", opcode,
                                               width);
      ms_import_skip (&s->skips, what);
      return TRUE;
    }
  NEED ("address mode");
  if (!whole_dec (tok[i], 1000, &mode) || mode > 2)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "unknown address mode \"%.20s\" (0 list, 1 base+stride, 2 base+deltas)",
                            tok[i]);
  i++;
  guint32 m32 = (guint32) mask;
  int n = __builtin_popcount (m32);
  guint64 addr[MS_WARP_SIZE] = { 0 };
  if (mode == 0)
    {
      int k = 0;
      for (guint32 m = m32; m; m &= m - 1, k++)
        {
          /* a plain number where an address should be is the immediate of
           * a line short of addresses */
          guint64 v;
          if (i >= nt || (i == nt - 1 && whole_dec (tok[i], G_MAXUINT64, &v)))
            return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                    "truncated line: %d addresses for %d active lanes", k, n);
          if (!whole_hex (tok[i], TRUE, &addr[__builtin_ctz (m)]))
            return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                    "\"%.24s\" is not a hex address (0x...)", tok[i]);
          i++;
        }
    }
  else
    {
      guint64 base;
      NEED ("base address");
      if (!whole_hex (tok[i++], TRUE, &base))
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "\"%.24s\" is not a hex base address (0x...)", tok[i - 1]);
      if (mode == 1)
        {
          gint64 stride;
          NEED ("stride");
          if (!whole_signed (tok[i++], &stride))
            return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "malformed stride \"%.24s\"",
                                    tok[i - 1]);
          if (m32 != 0)
            {
              int l0 = __builtin_ctz (m32);
              guint32 run = m32 >> l0;
              if ((run & (run + 1)) != 0)
                return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                        "address mode 1 (base+stride) with active lanes %08x that "
                                        "are not contiguous", m32);
              for (guint32 m = m32; m; m &= m - 1)
                {
                  int l = __builtin_ctz (m);
                  addr[l] = base + (guint64) stride * (guint64) (l - l0);
                }
            }
        }
      else
        {
          guint64 prev = base;
          int k = 0;
          for (guint32 m = m32; m; m &= m - 1, k++)
            {
              int l = __builtin_ctz (m);
              if (k > 0)
                {
                  gint64 delta;
                  if (i >= nt)
                    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                            "truncated line: %d deltas for %d active lanes",
                                            k - 1, n);
                  if (!whole_signed (tok[i++], &delta))
                    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                            "malformed address delta \"%.24s\"", tok[i - 1]);
                  prev += (guint64) delta;
                }
              addr[l] = prev;
            }
        }
    }
  /* what may follow: the immediate */
  if (nt - i > 1)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "unexpected \"%.24s\" after the addresses", tok[i]);
#undef NEED
  if (m32 == 0)
    {
      ms_import_skip (&s->skips, "with no active lane");
      return TRUE;
    }
  const MsSite *site = ms_trace_site_intern (SITE_FILE, (int) line_num, (int) pc, FALSE, FALSE);
  if (site == NULL)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "too many sites (memsim's site table holds %d)", MS_MAX_SITES);
  if (!g_hash_table_contains (s->site_text, site))
    g_hash_table_insert (s->site_text, (gpointer) site,
                         g_strdup_printf ("%s pc 0x%" G_GINT64_MODIFIER "x", opcode, pc));
  memset (a, 0, sizeof *a);
  a->site = site;
  a->block = s->block;
  a->warp = (guint16) s->warp;
  a->space = (guint8) space;
  a->op = (guint8) op;
  a->width = (guint8) width;
  a->mask = m32;
  memcpy (a->addr, addr, sizeof addr);
  *got = TRUE;
  return TRUE;
}

/* A line inside #BEGIN_TB ... #END_TB. */
static gboolean
parse_tb_line (AccelSource *s, char *line, MsWarpAccess *a, gboolean *got, GError **error)
{
  MsImportLines *L = s->lines;
  const char *p = line;
  *got = FALSE;
  if (line[0] == '#')
    {
      if (strcmp (line, "#BEGIN_TB") == 0)
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "#BEGIN_TB inside a thread block (no #END_TB before it)");
      if (strcmp (line, "#END_TB") == 0)
        {
          if (!end_warp (s, error))
            return FALSE;
          if (!s->have_block)
            return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                    "thread block without a \"thread block = X,Y,Z\" line");
          s->in_tb = FALSE;
        }
      return TRUE;   /* other '#' lines are comments */
    }
  if (ms_import_eat (&p, "thread block"))
    {
      guint64 c[3];
      if (!ms_import_eat (&p, " = ") || !ms_import_eat_dim3 (&p, c) || *p != '\0')
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "expected \"thread block = X,Y,Z\"");
      if (s->have_block)
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "a second \"thread block =\" line in one thread block");
      for (int d = 0; d < 3; d++)
        if (c[d] >= s->grid[d])
          return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                  "thread block %" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
                                  G_GUINT64_FORMAT " is outside the grid (%" G_GUINT64_FORMAT ",%"
                                  G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ")", c[0], c[1], c[2],
                                  s->grid[0], s->grid[1], s->grid[2]);
      memcpy (s->cta, c, sizeof c);
      s->block = (guint32) (c[0] + s->grid[0] * (c[1] + s->grid[1] * c[2]));
      s->have_block = TRUE;
      return TRUE;
    }
  if (g_str_has_prefix (line, "cluster "))
    return TRUE;   /* cluster id / cta / rank (Hopper tracers) */
  if (ms_import_eat (&p, "warp"))
    {
      guint64 w;
      if (!ms_import_eat (&p, " = ") || !ms_import_eat_dec (&p, G_MAXUINT32, &w) || *p != '\0')
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "expected \"warp = W\"");
      if (!end_warp (s, error))
        return FALSE;
      if (!s->have_block)
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "\"warp =\" before \"thread block = X,Y,Z\"");
      if (w > 65535)
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "warp %" G_GUINT64_FORMAT " is absurd (more than 65535)", w);
      s->warp = w;
      s->in_warp = TRUE;
      s->have_insts = FALSE;
      s->seen = 0;
      return TRUE;
    }
  if (ms_import_eat (&p, "insts"))
    {
      guint64 n;
      if (!ms_import_eat (&p, " = ") || !ms_import_eat_dec (&p, G_MAXUINT64, &n) || *p != '\0')
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT, "expected \"insts = N\"");
      if (!s->in_warp || s->have_insts)
        return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                                "\"insts =\" without a \"warp = W\" line before it");
      s->insts = n;
      s->have_insts = TRUE;
      return TRUE;
    }
  if (!g_ascii_isxdigit (line[0]))
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "unexpected line in a thread block: \"%.40s\"", line);
  if (!s->in_warp || !s->have_insts)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "instruction line before \"warp = W\" and \"insts = N\"");
  if (++s->seen > s->insts)
    return ms_import_error (error, L, MS_TRACE_ERROR_CORRUPT,
                            "more instruction lines than insts = %" G_GUINT64_FORMAT
                            " for warp %" G_GUINT64_FORMAT, s->insts, s->warp);
  return parse_inst (s, line, a, got, error);
}

static const MsRunInfo *
accel_info (MsTraceSource *src)
{
  return ((AccelSource *) src)->info;
}

static gboolean
accel_next (MsTraceSource *src, MsWarpAccess *a, GError **error)
{
  AccelSource *s = (AccelSource *) src;
  if (s->failed)
    {
      g_propagate_error (error, g_error_copy (s->failed));
      return FALSE;
    }
  GError *err = NULL;
  while (!s->done)
    {
      char *raw;
      int r = ms_import_lines_next (s->lines, &raw, &err);
      if (r < 0)
        return fail_stream (s, err, error);
      if (r == 0)
        {
          if (s->in_tb)
            {
              ms_import_error (&err, s->lines, MS_TRACE_ERROR_CORRUPT,
                               "the file ends inside a thread block (no #END_TB: truncated?)");
              return fail_stream (s, err, error);
            }
          s->done = TRUE;
          break;
        }
      char *line = trim (raw);
      if (*line == '\0')
        continue;
      if (s->in_tb)
        {
          gboolean got;
          if (!parse_tb_line (s, line, a, &got, &err))
            return fail_stream (s, err, error);
          if (got)
            return TRUE;
        }
      else if (strcmp (line, "#BEGIN_TB") == 0)
        {
          s->in_tb = TRUE;
          s->have_block = s->in_warp = s->have_insts = FALSE;
        }
      else if (line[0] != '#')
        {
          ms_import_error (&err, s->lines, MS_TRACE_ERROR_CORRUPT,
                           "unexpected line outside a thread block: \"%.40s\"", line);
          return fail_stream (s, err, error);
        }
    }
  return FALSE;
}

static void
accel_free (MsTraceSource *src)
{
  AccelSource *s = (AccelSource *) src;
  ms_import_lines_free (s->lines);
  ms_run_info_free (s->info);
  g_hash_table_unref (s->site_text);
  if (s->skips)
    g_hash_table_unref (s->skips);
  g_clear_error (&s->failed);
  g_free (s);
}

guint64
ms_accelsim_skipped (MsTraceSource *src, char **summary)
{
  g_return_val_if_fail (src != NULL && src->free == accel_free, 0);
  return ms_import_skip_summary (((AccelSource *) src)->skips, summary);
}

/* Reads a .traceg's header up to the first #BEGIN_TB (or the end) into h;
 * *in_tb when it stopped at #BEGIN_TB. */
static gboolean
read_header (MsImportLines *lines, Header *h, gboolean *in_tb, GError **error)
{
  *in_tb = FALSE;
  for (;;)
    {
      char *raw;
      int r = ms_import_lines_next (lines, &raw, error);
      if (r < 0)
        return FALSE;
      if (r == 0)
        break;
      char *line = trim (raw);
      if (*line == '\0')
        continue;
      if (line[0] == '-')
        {
          if (!parse_header_line (lines, line + 1, h, error))
            return FALSE;
        }
      else if (strcmp (line, "#BEGIN_TB") == 0)
        {
          *in_tb = TRUE;
          break;
        }
      else if (line[0] != '#')
        return ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                                "unexpected line before the first #BEGIN_TB: \"%.40s\"", line);
    }
  const char *missing = h->kernel == NULL ? "-kernel name" : !h->have_grid ? "-grid dim"
                        : !h->have_block ? "-block dim" : NULL;
  if (missing != NULL && !*in_tb && ms_import_lines_number (lines) == 0)
    return ms_import_error (error, lines, MS_TRACE_ERROR_FORMAT,
                            "empty file, not an Accel-Sim trace");
  if (missing != NULL && !*in_tb)
    return ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                            "no %s header line (not an Accel-Sim .traceg?)", missing);
  if (missing != NULL)
    return ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                            "#BEGIN_TB before the %s header line", missing);
  if (h->have_version && h->version < 3)
    return ms_import_error (error, lines, MS_TRACE_ERROR_FORMAT,
                            "Accel-Sim trace version %" G_GUINT64_FORMAT " (memsim reads version 3 "
                            "and later)", h->version);
  g_autofree char *why = NULL;
  if (!ms_import_check_launch (h->grid, h->block, &why))
    {
      /* at the header line that made it absurd: the grid's, if it is absurd
       * with any block */
      static const guint64 one[3] = { 1, 1, 1 };
      g_autofree char *grid_why = NULL;
      guint64 line = ms_import_check_launch (h->grid, one, &grid_why) ? h->block_line
                                                                     : h->grid_line;
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_CORRUPT, "%s:%" G_GUINT64_FORMAT
                   ": absurd launch: %s", ms_import_lines_name (lines), line, why);
      return FALSE;
    }
  return TRUE;
}

/* Opens a .traceg: its header, up to the first #BEGIN_TB. */
static AccelSource *
open_traceg (const char *path, GError **error)
{
  MsImportLines *lines = ms_import_lines_open (path, error);
  if (lines == NULL)
    return NULL;
  AccelSource *s = g_new0 (AccelSource, 1);
  s->base = (MsTraceSource) { accel_info, accel_next, accel_free, "accelsim" };
  s->lines = lines;
  s->site_text = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  Header h = { 0 };
  if (!read_header (lines, &h, &s->in_tb, error))
    {
      header_clear (&h);
      accel_free (&s->base);
      return NULL;
    }
  s->lineinfo = h.lineinfo != 0;
  memcpy (s->grid, h.grid, sizeof h.grid);
  s->info = ms_import_run_info (*h.kernel ? h.kernel : "unnamed", "Accel-Sim tracer",
                                s->lineinfo
                                  ? "imported from an Accel-Sim trace: PCs, active masks and "
                                    "source line numbers (no source text) from the trace"
                                  : "imported from an Accel-Sim trace: PCs and active masks from "
                                    "the trace, no source lines",
                                h.grid, h.block, (guint) h.shmem);
  if (h.have_nregs)
    ms_run_info_add_param (s->info, "nregs", (gint64) h.nregs);
  s->info->source_line = accel_source_line;
  s->info->source_data = s;
  header_clear (&h);
  return s;
}

typedef struct {
  guint64 base, bytes;
} Copy;

/* Reads a kernelslist up to its first kernel line: the MemcpyHtoD copies
 * before it (one per address, the longest) into copies; the kernel's file
 * name, newly allocated, or NULL on an error. */
static char *
read_kernelslist (MsImportLines *lines, GArray *copies, GError **error)
{
  for (;;)
    {
      char *raw;
      int r = ms_import_lines_next (lines, &raw, error);
      if (r < 0)
        return NULL;
      if (r == 0)
        {
          gboolean empty = ms_import_lines_number (lines) == 0;
          ms_import_error (error, lines, empty ? MS_TRACE_ERROR_FORMAT : MS_TRACE_ERROR_CORRUPT,
                           "%s", empty ? "empty file, not an Accel-Sim trace or kernelslist"
                                       : "no kernel trace listed (kernel-N.traceg)");
          return NULL;
        }
      char *line = trim (raw);
      const char *p = line;
      if (ms_import_eat (&p, "MemcpyHtoD,"))
        {
          Copy c;
          if (!ms_import_eat_hex (&p, FALSE, &c.base) || !ms_import_eat (&p, ",")
              || !ms_import_eat_dec (&p, G_MAXUINT64, &c.bytes) || *p != '\0')
            {
              ms_import_error (error, lines, MS_TRACE_ERROR_CORRUPT,
                               "expected \"MemcpyHtoD,0xADDRESS,BYTES\"");
              return NULL;
            }
          gboolean seen = FALSE;
          for (guint i = 0; i < copies->len && !seen; i++)
            {
              Copy *o = &g_array_index (copies, Copy, i);
              if (o->base == c.base)
                {
                  o->bytes = MAX (o->bytes, c.bytes);
                  seen = TRUE;
                }
            }
          /* more than memsim lists are only counted */
          if (!seen)
            g_array_append_val (copies, c);
          if (copies->len > MS_RUN_MAX_BUFFERS + 1)
            g_array_set_size (copies, MS_RUN_MAX_BUFFERS + 1);
        }
      else if (g_str_has_prefix (line, "kernel"))
        return g_strdup (line);
      /* cudaMalloc, MemcpyDtoH, ...: not needed */
    }
}

/* The .traceg a kernelslist line names: relative to the list's folder; for
 * a compressed (.xz) or raw (.trace) name, the .traceg beside it.  NULL
 * (and an error at the list's current line) when there is none. */
static char *
kernel_trace_path (MsImportLines *lines, const char *list_path, const char *kernel,
                   GError **error)
{
  g_autofree char *dir = g_path_get_dirname (list_path);
  char *trace = g_path_is_absolute (kernel) ? g_strdup (kernel)
                                            : g_build_filename (dir, kernel, NULL);
  if (g_str_has_suffix (trace, ".xz"))
    {
      trace[strlen (trace) - 3] = '\0';
      if (!g_file_test (trace, G_FILE_TEST_EXISTS))
        {
          g_free (trace);
          ms_import_error (error, lines, MS_TRACE_ERROR_FORMAT,
                           "%s is xz-compressed: decompress it beside the list (xz -dk) first",
                           kernel);
          return NULL;
        }
    }
  if (g_str_has_suffix (trace, ".trace"))
    {
      char *grouped = g_strconcat (trace, "g", NULL);
      g_free (trace);
      if (!g_file_test (grouped, G_FILE_TEST_EXISTS))
        {
          g_free (grouped);
          ms_import_error (error, lines, MS_TRACE_ERROR_FORMAT,
                           "%s is the tracer's raw output: run Accel-Sim's "
                           "post-traces-processing on it first (it writes .traceg files)",
                           kernel);
          return NULL;
        }
      trace = grouped;
    }
  return trace;
}

/* A kernelslist.g: the first kernel's trace, with the MemcpyHtoD lines
 * before it as buffers. */
static MsTraceSource *
open_kernelslist (const char *path, GError **error)
{
  MsImportLines *lines = ms_import_lines_open (path, error);
  if (lines == NULL)
    return NULL;
  g_autoptr (GArray) copies = g_array_new (FALSE, FALSE, sizeof (Copy));
  g_autofree char *kernel = read_kernelslist (lines, copies, error);
  g_autofree char *trace = kernel ? kernel_trace_path (lines, path, kernel, error) : NULL;
  ms_import_lines_free (lines);
  AccelSource *s = trace ? open_traceg (trace, error) : NULL;
  if (s == NULL)
    return NULL;
  guint listed = MIN (copies->len, MS_RUN_MAX_BUFFERS);
  for (guint i = 0; i < listed; i++)
    {
      Copy *c = &g_array_index (copies, Copy, i);
      g_autofree char *name = g_strdup_printf ("buffer%u", i);
      ms_run_info_add_buffer (s->info, name, c->base, c->bytes);
    }
  g_autofree char *list_name = g_path_get_basename (path);
  char *desc = g_strdup_printf ("%s; buffers from %s's MemcpyHtoD lines%s", s->info->description,
                                list_name, copies->len > listed ? " (the first 64)" : "");
  g_free (s->info->description);
  s->info->description = desc;
  return &s->base;
}

gboolean
ms_accelsim_sniff (const guint8 *head, gsize len)
{
  gsize i = 0;
  while (i < len && g_ascii_isspace (head[i]))
    i++;
  const char *p = (const char *) head + i;
  gsize n = len - i;
  static const char *const starts[] = { "-kernel name", "MemcpyHtoD,", "cudaMalloc,", "kernel-" };
  for (guint k = 0; k < G_N_ELEMENTS (starts); k++)
    {
      gsize m = strlen (starts[k]);
      if (n >= m && memcmp (p, starts[k], m) == 0)
        return TRUE;
    }
  return FALSE;
}

MsTraceSource *
ms_accelsim_open (const char *path, GError **error)
{
  /* a .traceg starts with its "-key = value" header (or a '#' line); a
   * kernelslist with anything else */
  guint8 head[4096];
  gsize n = 0;
  FILE *f = g_fopen (path, "rb");
  if (f == NULL)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot read %s: %s", path,
                   g_strerror (errno));
      return NULL;
    }
  n = fread (head, 1, sizeof head, f);
  fclose (f);
  gsize i = 0;
  while (i < n && g_ascii_isspace (head[i]))
    i++;
  if (i < n && (head[i] == '-' || head[i] == '#'))
    {
      AccelSource *s = open_traceg (path, error);
      return s ? &s->base : NULL;
    }
  return open_kernelslist (path, error);
}

/* ================================================================ writer */

/* A record waiting in the spill file for its block's turn. */
typedef struct {
  gint64 prev;            /* offset of the block's previous record, -1 for none */
  const MsSite *site;
  guint32 block, mask;
  guint16 warp;
  guint8 space, op, width;
  guint64 addr[MS_WARP_SIZE];
} SpillRec;

typedef struct {
  gint64 last;            /* offset of the block's last record */
  guint64 count;
} BlockChain;

typedef struct {
  guint32 warp, seq;
} WarpOrder;

static int
warp_order_compare (const void *a, const void *b)
{
  const WarpOrder *x = a, *y = b;
  if (x->warp != y->warp)
    return x->warp < y->warp ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int
u32_compare (const void *a, const void *b)
{
  guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;
  return x < y ? -1 : x > y;
}

static char *
printable_name (const char *kernel)
{
  char *name = g_strdup (kernel && *kernel ? kernel : "unnamed");
  for (char *c = name; *c; c++)
    if ((guchar) *c < 0x20 || *c == 0x7f)
      *c = '?';
  return name;
}

static gint64
param_value (const MsRunInfo *info, const char *name, gint64 otherwise)
{
  for (guint i = 0; i < info->n_params; i++)
    if (strcmp (info->param_name[i], name) == 0)
      return info->param_value[i];
  return otherwise;
}

/* One instruction line: line PC mask, registers (made up: the trace needs
 * some), opcode, width, addresses, immediate 0. */
static void
format_inst (GString *s, const SpillRec *r, const char *opcode)
{
  int line = r->site->line > 0 ? r->site->line : 0;
  guint pc = (guint) r->site->id * 16;
  g_string_append_printf (s, "%d %04x %08x ", line, pc, r->mask);
  if (r->op == MS_OP_LD)
    g_string_append_printf (s, "1 R0 %s 1 R2 ", opcode);
  else if (r->op == MS_OP_ST)
    g_string_append_printf (s, "0 %s 2 R2 R4 ", opcode);
  else
    g_string_append_printf (s, "1 R0 %s 2 R2 R4 ", opcode);
  g_string_append_printf (s, "%u ", r->width);
  guint32 m = r->mask;
  int n = __builtin_popcount (m);
  if (n <= 1)
    {
      /* list: the one address (or none) */
      g_string_append (s, "0 ");
      if (n == 1)
        g_string_append_printf (s, "0x%016" G_GINT64_MODIFIER "x ", r->addr[__builtin_ctz (m)]);
    }
  else
    {
      int l0 = __builtin_ctz (m);
      guint32 run = m >> l0;
      gboolean strided = (run & (run + 1)) == 0;   /* contiguous lanes */
      guint64 stride = r->addr[l0 + 1] - r->addr[l0];
      for (int l = l0 + 1; strided && l < l0 + n; l++)
        strided = r->addr[l] - r->addr[l - 1] == stride;
      /* Accel-Sim's reader keeps the stride in an int */
      if (strided && (gint64) stride >= G_MININT32 && (gint64) stride <= G_MAXINT32)
        g_string_append_printf (s, "1 0x%" G_GINT64_MODIFIER "x %d ", r->addr[l0],
                                (int) (gint64) stride);
      else
        {
          g_string_append_printf (s, "2 0x%" G_GINT64_MODIFIER "x ", r->addr[l0]);
          guint64 prev = r->addr[l0];
          for (guint32 k = m & (m - 1); k; k &= k - 1)
            {
              int l = __builtin_ctz (k);
              g_string_append_printf (s, "%" G_GINT64_FORMAT " ", (gint64) (r->addr[l] - prev));
              prev = r->addr[l];
            }
        }
    }
  g_string_append (s, "0\n");
}

static gboolean
export_failed (GError **error, GError *err)
{
  g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "%s", err->message);
  g_error_free (err);
  return FALSE;
}

/* Writes one block's records, by warp: every warp of the block (empty
 * ones with insts = 0, as post-traces-processing does) and any warp beyond
 * them that has records. */
static gboolean
write_block (FILE *out, int spill_fd, const MsRunInfo *info, guint32 block,
             const BlockChain *chain, GString *line, GError **error)
{
  guint64 count = chain->count;
  SpillRec *recs = g_new (SpillRec, count);
  WarpOrder *order = g_new (WarpOrder, count);
  gint64 off = chain->last;
  gboolean ok = TRUE;
  for (guint64 i = count; i-- > 0;)
    {
      if (pread (spill_fd, &recs[i], sizeof recs[i], off) != (ssize_t) sizeof recs[i])
        {
          g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO,
                       "cannot read back the export's temporary file: %s", g_strerror (errno));
          ok = FALSE;
          break;
        }
      off = recs[i].prev;
      order[i] = (WarpOrder) { recs[i].warp, (guint32) i };
    }
  if (ok)
    {
      qsort (order, count, sizeof *order, warp_order_compare);
      guint64 gx = info->grid[0], gy = info->grid[1];
      fprintf (out, "\n#BEGIN_TB\n\nthread block = %" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%"
               G_GUINT64_FORMAT "\n", block % gx, (block / gx) % gy, block / (gx * gy));
      guint64 n_warps = (ms_run_info_threads_per_block (info) + MS_WARP_SIZE - 1) / MS_WARP_SIZE;
      guint64 w = 0, j = 0;
      while (j < count || w < n_warps)
        {
          guint64 next = j < count ? order[j].warp : G_MAXUINT64;
          if (w < n_warps && w < next)
            {
              fprintf (out, "\nwarp = %" G_GUINT64_FORMAT "\ninsts = 0\n", w++);
              continue;
            }
          guint64 k = j;
          while (k < count && order[k].warp == next)
            k++;
          fprintf (out, "\nwarp = %" G_GUINT64_FORMAT "\ninsts = %" G_GUINT64_FORMAT "\n", next,
                   k - j);
          for (; j < k; j++)
            {
              const SpillRec *r = &recs[order[j].seq];
              char opcode[32];
              ms_import_opcode_name (r->space, r->op, r->width, opcode);
              g_string_truncate (line, 0);
              format_inst (line, r, opcode);
              fwrite (line->str, 1, line->len, out);
            }
          w = next + 1;
        }
      fprintf (out, "\n#END_TB\n");
    }
  g_free (recs);
  g_free (order);
  return ok;
}

/* Pass 1: every record of src into the spill file, chained by block. */
static gboolean
spill_records (MsTraceSource *src, const MsRunInfo *info, FILE *spill, GHashTable *blocks,
               GError **error)
{
  GError *err = NULL;
  gint64 offset = 0;
  guint64 n = 0, n_blocks = ms_run_info_blocks (info);
  MsWarpAccess a;
  while (src->next (src, &a, &err))
    {
      char opcode[32];
      n++;
      if ((guint64) a.block >= n_blocks)
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
      if (a.site == NULL || ms_site_register (a.site) < 0)
        {
          g_set_error (&err, MS_TRACE_ERROR, MS_TRACE_ERROR_CORRUPT, "cannot export record %"
                       G_GUINT64_FORMAT ": no registered site", n);
          break;
        }
      BlockChain *chain = g_hash_table_lookup (blocks, GUINT_TO_POINTER (a.block));
      if (chain == NULL)
        {
          chain = g_new0 (BlockChain, 1);
          chain->last = -1;
          g_hash_table_insert (blocks, GUINT_TO_POINTER (a.block), chain);
        }
      SpillRec r = { .prev = chain->last, .site = a.site, .block = a.block, .mask = a.mask,
                     .warp = a.warp, .space = a.space, .op = a.op, .width = a.width };
      memcpy (r.addr, a.addr, sizeof r.addr);
      if (fwrite (&r, sizeof r, 1, spill) != 1)
        {
          g_set_error (&err, MS_TRACE_ERROR, MS_TRACE_ERROR_IO,
                       "cannot write the export's temporary file: %s", g_strerror (errno));
          break;
        }
      chain->last = offset;
      chain->count++;
      offset += (gint64) sizeof r;
    }
  if (err == NULL && fflush (spill) != 0)
    g_set_error (&err, MS_TRACE_ERROR, MS_TRACE_ERROR_IO,
                 "cannot write the export's temporary file: %s", g_strerror (errno));
  if (err != NULL)
    {
      g_propagate_error (error, err);
      return FALSE;
    }
  return TRUE;
}

/* Pass 2: kernel-1.traceg, its header then block by block (ascending). */
static gboolean
write_traceg (const char *path, const MsRunInfo *info, FILE *spill, GHashTable *blocks,
              GError **error)
{
  MsOutput *out = ms_output_open (path, error);
  if (out == NULL)
    return FALSE;
  FILE *f = ms_output_file (out);
  g_autofree char *name = printable_name (info->kernel);
  fprintf (f, "-kernel name = %s\n-kernel id = 1\n-grid dim = (%u,%u,%u)\n-block dim = (%u,%u,%u)\n"
           "-shmem = %u\n-nregs = %" G_GINT64_FORMAT "\n-binary version = 90\n"
           "-cuda stream id = 0\n-shmem base_addr = 0x0000000000000000\n"
           "-local mem base_addr = 0x0000000000000000\n-nvbit version = none (memsim export)\n"
           "-accelsim tracer version = 5\n-enable lineinfo = 1\n\n"
           "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
           "mem_width [adrrescompress?] [mem_addresses] immediate\n", name, info->grid[0],
           info->grid[1], info->grid[2], info->block[0], info->block[1], info->block[2],
           info->shared_bytes, param_value (info, "nregs", 0));
  guint n_keys = g_hash_table_size (blocks);
  guint32 *keys = g_new (guint32, MAX (n_keys, 1));
  GHashTableIter it;
  gpointer k;
  guint nk = 0;
  g_hash_table_iter_init (&it, blocks);
  while (g_hash_table_iter_next (&it, &k, NULL))
    keys[nk++] = GPOINTER_TO_UINT (k);
  qsort (keys, nk, sizeof *keys, u32_compare);
  GString *line = g_string_sized_new (1024);
  gboolean ok = TRUE;
  for (guint i = 0; i < nk && ok; i++)
    ok = write_block (f, fileno (spill), info, keys[i],
                      g_hash_table_lookup (blocks, GUINT_TO_POINTER (keys[i])), line, error);
  g_string_free (line, TRUE);
  g_free (keys);
  if (!ok)
    {
      ms_output_abort (out);
      return FALSE;
    }
  return ms_output_commit (out, error);
}

static gboolean
write_kernelslist (const char *path, const MsRunInfo *info, GError **error)
{
  MsOutput *out = ms_output_open (path, error);
  if (out == NULL)
    return FALSE;
  FILE *f = ms_output_file (out);
  for (guint i = 0; i < info->n_buffers; i++)
    fprintf (f, "MemcpyHtoD,0x%016" G_GINT64_MODIFIER "x,%" G_GUINT64_FORMAT "\n",
             info->buffer_base[i], info->buffer_bytes[i]);
  fprintf (f, "kernel-1.traceg\n");
  return ms_output_commit (out, error);
}

gboolean
ms_accelsim_export (MsTraceSource *src, const char *dir, GError **error)
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
  gboolean made_dir = !g_file_test (dir, G_FILE_TEST_IS_DIR);
  if (made_dir && g_mkdir_with_parents (dir, 0777) != 0)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot create %s: %s", dir,
                   g_strerror (errno));
      return FALSE;
    }
  g_autofree char *trace_path = g_build_filename (dir, "kernel-1.traceg", NULL);
  g_autofree char *list_path = g_build_filename (dir, "kernelslist.g", NULL);
  GError *err = NULL;
  gboolean ok = FALSE;

  /* the spill file is unlinked at once: it goes when closed */
  g_autofree char *spill_name = NULL;
  int fd = g_file_open_tmp ("memsim-accelsim-XXXXXX", &spill_name, &err);
  FILE *spill = NULL;
  if (fd >= 0)
    {
      g_unlink (spill_name);
      spill = fdopen (fd, "w+b");
      if (spill == NULL)
        {
          g_set_error (&err, MS_TRACE_ERROR, MS_TRACE_ERROR_IO,
                       "cannot create a temporary file: %s", g_strerror (errno));
          close (fd);
        }
    }
  GHashTable *blocks = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  if (spill != NULL && spill_records (src, info, spill, blocks, &err)
      && write_traceg (trace_path, info, spill, blocks, &err))
    {
      ok = write_kernelslist (list_path, info, &err);
      if (!ok)
        g_unlink (trace_path);
    }
  if (spill != NULL)
    fclose (spill);
  g_hash_table_unref (blocks);
  if (!ok)
    {
      if (made_dir)
        g_rmdir (dir);
      if (err->domain != MS_TRACE_ERROR)
        return export_failed (error, err);
      g_propagate_error (error, err);
    }
  return ok;
}
