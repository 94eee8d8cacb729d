/* import.c - what the trace importers share (see import.h). */
#include "config.h"
#include "import.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

struct MsImportLines {
  FILE *file;
  char *name;
  char *buf;
  gsize cap, start, end;
  gboolean eof;
  guint64 number;
};

MsImportLines *
ms_import_lines_open (const char *path, GError **error)
{
  FILE *f = g_fopen (path, "rb");
  if (f == NULL)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot read %s: %s", path,
                   g_strerror (errno));
      return NULL;
    }
  MsImportLines *r = g_new0 (MsImportLines, 1);
  r->file = f;
  r->name = g_path_get_basename (path);
  /* room for one whole line plus one more read */
  r->cap = 2 * MS_IMPORT_MAX_LINE + 2;
  r->buf = g_malloc (r->cap);
  return r;
}

int
ms_import_lines_next (MsImportLines *r, char **line, GError **error)
{
  for (;;)
    {
      char *s = r->buf + r->start;
      gsize avail = r->end - r->start;
      char *nl = memchr (s, '\n', avail);
      if (nl != NULL || (r->eof && avail > 0))
        {
          gsize len = nl ? (gsize) (nl - s) : avail;
          r->start += len + (nl ? 1 : 0);
          r->number++;
          if (len > MS_IMPORT_MAX_LINE)
            {
              ms_import_error (error, r, MS_TRACE_ERROR_CORRUPT, "line longer than %d KiB",
                               MS_IMPORT_MAX_LINE / 1024);
              return -1;
            }
          s[len] = '\0';   /* the newline, or the spare byte after the data at the end */
          if (len > 0 && s[len - 1] == '\r')
            s[--len] = '\0';
          if (memchr (s, '\0', len) != NULL)
            {
              ms_import_error (error, r, MS_TRACE_ERROR_CORRUPT,
                               "a NUL byte (binary data, not a text trace)");
              return -1;
            }
          *line = s;
          return 1;
        }
      if (r->eof)
        return 0;
      if (avail > MS_IMPORT_MAX_LINE)
        {
          r->number++;
          ms_import_error (error, r, MS_TRACE_ERROR_CORRUPT, "line longer than %d KiB",
                           MS_IMPORT_MAX_LINE / 1024);
          return -1;
        }
      memmove (r->buf, s, avail);
      r->start = 0;
      r->end = avail;
      gsize n = fread (r->buf + r->end, 1, r->cap - 1 - r->end, r->file);
      if (n == 0)
        {
          if (ferror (r->file))
            {
              g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "%s: read error: %s",
                           r->name, g_strerror (errno));
              return -1;
            }
          r->eof = TRUE;
        }
      r->end += n;
    }
}

guint64
ms_import_lines_number (const MsImportLines *r)
{
  return r->number;
}

const char *
ms_import_lines_name (const MsImportLines *r)
{
  return r->name;
}

void
ms_import_lines_free (MsImportLines *r)
{
  if (r == NULL)
    return;
  fclose (r->file);
  g_free (r->name);
  g_free (r->buf);
  g_free (r);
}

gboolean
ms_import_error (GError **error, const MsImportLines *r, MsTraceError code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (error, MS_TRACE_ERROR, code, "%s:%" G_GUINT64_FORMAT ": %s", r->name,
               MAX (r->number, 1), what);
  return FALSE;
}

gboolean
ms_import_eat (const char **p, const char *literal)
{
  gsize n = strlen (literal);
  if (strncmp (*p, literal, n) != 0)
    return FALSE;
  *p += n;
  return TRUE;
}

gboolean
ms_import_eat_dec (const char **p, guint64 max, guint64 *v)
{
  const char *s = *p;
  guint64 x = 0;
  if (!g_ascii_isdigit (*s))
    return FALSE;
  for (; g_ascii_isdigit (*s); s++)
    {
      guint d = (guint) (*s - '0');
      if (d > max || x > (max - d) / 10)
        return FALSE;
      x = x * 10 + d;
    }
  *v = x;
  *p = s;
  return TRUE;
}

gboolean
ms_import_eat_hex (const char **p, gboolean need_0x, guint64 *v)
{
  const char *s = *p;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  else if (need_0x)
    return FALSE;
  guint64 x = 0;
  int n = 0;
  for (; g_ascii_isxdigit (*s); s++, n++)
    {
      if (n == 16)
        return FALSE;   /* more than 64 bits */
      x = (x << 4) | (guint64) g_ascii_xdigit_value (*s);
    }
  if (n == 0)
    return FALSE;
  *v = x;
  *p = s;
  return TRUE;
}

gboolean
ms_import_eat_signed (const char **p, gint64 *v)
{
  const char *s = *p;
  gboolean neg = FALSE;
  if (*s == '-' || *s == '+')
    neg = *s++ == '-';
  guint64 x;
  if (!ms_import_eat_dec (&s, neg ? (guint64) G_MAXINT64 + 1 : (guint64) G_MAXINT64, &x))
    return FALSE;
  /* -(2^63) is representable: negate in unsigned arithmetic */
  *v = neg ? (gint64) (0 - x) : (gint64) x;
  *p = s;
  return TRUE;
}

gboolean
ms_import_eat_dim3 (const char **p, guint64 v[3])
{
  const char *s = *p;
  guint64 t[3];
  for (int d = 0; d < 3; d++)
    if ((d > 0 && !ms_import_eat (&s, ",")) || !ms_import_eat_dec (&s, G_MAXUINT32, &t[d]))
      return FALSE;
  memcpy (v, t, sizeof t);
  *p = s;
  return TRUE;
}

gboolean
ms_import_check_launch (const guint64 grid[3], const guint64 block[3], char **why)
{
  static const guint64 grid_max[3] = { G_MAXINT32, 65535, 65535 };
  static const guint64 block_max[3] = { 1024, 1024, 64 };
  for (int d = 0; d < 3; d++)
    if (grid[d] == 0 || block[d] == 0)
      {
        *why = g_strdup_printf ("a zero dimension in grid (%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                                ",%" G_GUINT64_FORMAT ") or block (%" G_GUINT64_FORMAT ",%"
                                G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ")", grid[0], grid[1],
                                grid[2], block[0], block[1], block[2]);
        return FALSE;
      }
  for (int d = 0; d < 3; d++)
    if (grid[d] > grid_max[d])
      {
        *why = g_strdup_printf ("grid dimension %c = %" G_GUINT64_FORMAT " is beyond CUDA's "
                                "limit %" G_GUINT64_FORMAT, "xyz"[d], grid[d], grid_max[d]);
        return FALSE;
      }
  for (int d = 0; d < 3; d++)
    if (block[d] > block_max[d])
      {
        *why = g_strdup_printf ("block dimension %c = %" G_GUINT64_FORMAT " is beyond CUDA's "
                                "limit %" G_GUINT64_FORMAT, "xyz"[d], block[d], block_max[d]);
        return FALSE;
      }
  guint64 threads = block[0] * block[1] * block[2];
  if (threads > 1024)
    {
      *why = g_strdup_printf ("a block of %" G_GUINT64_FORMAT " threads (more than 1024)", threads);
      return FALSE;
    }
  /* grid[0] < 2^31 and grid[1] * grid[2] < 2^32: no overflow */
  guint64 yz = grid[1] * grid[2];
  if (yz > G_MAXUINT32 / grid[0])
    {
      *why = g_strdup_printf ("a grid of %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " x %"
                              G_GUINT64_FORMAT " blocks (memsim numbers at most 2^32 blocks)",
                              grid[0], grid[1], grid[2]);
      return FALSE;
    }
  return TRUE;
}

MsRunInfo *
ms_import_run_info (const char *kernel, const char *producer, const char *description,
                    const guint64 grid[3], const guint64 block[3], guint shared_bytes)
{
  MsRunInfo *info = ms_run_info_new ();
  info->kernel = g_utf8_make_valid (kernel, -1);
  info->family = g_strdup ("");
  info->origin = g_strdup (producer);
  info->producer = g_strdup (producer);
  info->description = g_strdup (description);
  info->source = g_strdup ("");
  info->arch = g_strdup ("h100");
  info->check = g_strdup ("not run (imported trace)");
  for (int d = 0; d < 3; d++)
    {
      info->grid[d] = (guint) grid[d];
      info->block[d] = (guint) block[d];
    }
  info->shared_bytes = shared_bytes;
  return info;
}

typedef struct {
  const char *name;
  MsSpace space;
  MsOp op;
} OpcodeClass;

static const OpcodeClass opcode_classes[] = {
  { "LDG", MS_SPACE_GLOBAL, MS_OP_LD },   { "STG", MS_SPACE_GLOBAL, MS_OP_ST },
  { "ATOMG", MS_SPACE_GLOBAL, MS_OP_ATOMIC }, { "RED", MS_SPACE_GLOBAL, MS_OP_RED },
  { "REDG", MS_SPACE_GLOBAL, MS_OP_RED }, { "ATOM", MS_SPACE_GLOBAL, MS_OP_ATOMIC },
  { "LD", MS_SPACE_GLOBAL, MS_OP_LD },    { "ST", MS_SPACE_GLOBAL, MS_OP_ST },
  { "LDS", MS_SPACE_SHARED, MS_OP_LD },   { "STS", MS_SPACE_SHARED, MS_OP_ST },
  { "ATOMS", MS_SPACE_SHARED, MS_OP_ATOMIC },
  { "LDL", MS_SPACE_LOCAL, MS_OP_LD },    { "STL", MS_SPACE_LOCAL, MS_OP_ST },
};

/* Width of one size modifier, 0 if it is not one. */
static guint
modifier_width (const char *m, gsize n)
{
  static const struct { const char *name; guint width; } sizes[] = {
    { "8", 1 },  { "U8", 1 },  { "S8", 1 },  { "16", 2 },  { "U16", 2 }, { "S16", 2 },
    { "32", 4 }, { "U32", 4 }, { "S32", 4 }, { "F32", 4 }, { "64", 8 },  { "U64", 8 },
    { "S64", 8 }, { "F64", 8 }, { "128", 16 }, { "U128", 16 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    if (strlen (sizes[i].name) == n && strncmp (sizes[i].name, m, n) == 0)
      return sizes[i].width;
  return 0;
}

gboolean
ms_import_classify_opcode (const char *opcode, MsSpace *space, MsOp *op, guint *width)
{
  gsize n = strcspn (opcode, ".");
  const OpcodeClass *c = NULL;
  for (guint i = 0; i < G_N_ELEMENTS (opcode_classes); i++)
    if (strlen (opcode_classes[i].name) == n && strncmp (opcode_classes[i].name, opcode, n) == 0)
      c = &opcode_classes[i];
  if (c == NULL)
    return FALSE;
  guint w = 0;
  for (const char *m = opcode + n; *m == '.' && w == 0;)
    {
      m++;
      gsize k = strcspn (m, ".");
      w = modifier_width (m, k);
      m += k;
    }
  *space = c->space;
  *op = c->op;
  *width = w ? w : 4;
  return TRUE;
}

gboolean
ms_import_width_valid (guint64 width)
{
  return width == 1 || width == 2 || width == 4 || width == 8 || width == 16;
}

gboolean
ms_import_opcode_name (MsSpace space, MsOp op, guint width, char *buf)
{
  static const char *const names[MS_N_SPACES][MS_N_OPS] = {
    [MS_SPACE_GLOBAL] = { "LDG.E", "STG.E", "ATOMG.E.ADD", "REDG.E.ADD" },
    [MS_SPACE_SHARED] = { "LDS", "STS", "ATOMS.ADD", NULL },
    [MS_SPACE_LOCAL] = { "LDL", "STL", NULL, NULL },
  };
  if ((guint) space >= MS_N_SPACES || (guint) op >= MS_N_OPS || !ms_import_width_valid (width)
      || names[space][op] == NULL)
    return FALSE;
  const char *size = width == 1 ? ".U8" : width == 2 ? ".U16" : width == 8 ? ".64"
                     : width == 16 ? ".128" : "";
  g_snprintf (buf, 32, "%s%s", names[space][op], size);
  return TRUE;
}

#define MAX_SKIP_NAMES 64

void
ms_import_skip (GHashTable **table, const char *what)
{
  if (*table == NULL)
    *table = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gpointer old;
  if (!g_hash_table_lookup_extended (*table, what, NULL, &old))
    {
      if (g_hash_table_size (*table) >= MAX_SKIP_NAMES)
        what = "other";
      old = g_hash_table_lookup (*table, what);
    }
  /* counts up to 2^32 per name in the pointer; more is saturated */
  guint64 n = GPOINTER_TO_SIZE (old);
  if (n < G_MAXUINT32)
    n++;
  g_hash_table_replace (*table, g_strdup (what), GSIZE_TO_POINTER ((gsize) n));
}

typedef struct {
  const char *name;
  guint64 n;
} SkipCount;

static int
skip_count_compare (gconstpointer a, gconstpointer b)
{
  const SkipCount *x = a, *y = b;
  if (x->n != y->n)
    return x->n > y->n ? -1 : 1;
  return strcmp (x->name, y->name);
}

guint64
ms_import_skip_summary (GHashTable *table, char **summary)
{
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (SkipCount));
  guint64 total = 0;
  if (table != NULL)
    {
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init (&it, table);
      while (g_hash_table_iter_next (&it, &k, &v))
        {
          SkipCount c = { k, GPOINTER_TO_SIZE (v) };
          g_array_append_val (counts, c);
          total += c.n;
        }
    }
  if (summary != NULL)
    {
      g_array_sort (counts, skip_count_compare);
      GString *s = g_string_new (NULL);
      for (guint i = 0; i < counts->len; i++)
        {
          const SkipCount *c = &g_array_index (counts, SkipCount, i);
          g_string_append_printf (s, "%s%" G_GUINT64_FORMAT " %s", i ? ", " : "", c->n, c->name);
        }
      *summary = g_string_free (s, FALSE);
    }
  return total;
}

