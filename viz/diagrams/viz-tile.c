/* viz-tile.c - a shared array drawn as a grid coloured by bank, with the cells
 * one warp access touches (the 32x32 versus 32x33 picture of seed 002).
 *
 * Every cell is an element of the array; its colour is the bank of its
 * first byte (viridis, 32 steps: a column of a 32x32 float tile is one
 * colour, a column of a 32x33 tile runs through all of them).  Cells the
 * access touches are drawn in full colour with a black frame and the lane
 * number; the others are pale.  Padding columns are grey and headed "pad".
 * One HTML-like table, laid out by dot.
 *
 * The shape of the array is not in the warp access record (the emulator
 * sees bytes), so ms_tile_shape_from_source() reads the kernel's
 * SHARED_ARRAY declaration; --tile gives it by hand.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "banks.h"
#include "problem.h"
#include "viz-style.h"

#define MAX_CELLS_PER_SIDE 128

/* ------------------------------------------------------------ the shape */

gboolean
ms_tile_shape_parse (const char *text, MsTileShape *tile, GError **error)
{
  guint64 rows = 0, cols = 0, pad = 0;
  char *end = NULL;
  const char *s = text;
  if (s && g_ascii_isdigit (*s))
    rows = g_ascii_strtoull (s, &end, 10);
  if (end && (*end == 'x' || *end == 'X') && g_ascii_isdigit (end[1]))
    {
      cols = g_ascii_strtoull (end + 1, &end, 10);
      if (*end == '+' && g_ascii_isdigit (end[1]))
        pad = g_ascii_strtoull (end + 1, &end, 10);
    }
  if (end == NULL || *end != '\0' || rows == 0 || cols == 0 || rows > MAX_CELLS_PER_SIDE
      || cols + pad > MAX_CELLS_PER_SIDE)
    {
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                   "--tile %s: write ROWSxCOLS or ROWSxCOLS+PAD, e.g. 32x32+1, at most %d cells "
                   "a side",
                   text ? text : "", MAX_CELLS_PER_SIDE);
      return FALSE;
    }
  memset (tile, 0, sizeof *tile);
  tile->rows = (guint) rows;
  tile->cols = (guint) cols;
  tile->pad = (guint) pad;
  return TRUE;
}

/* A tiny evaluator of integer constant expressions: + - * / % ( ),
 * numbers and identifiers #defined in the file. */
typedef struct {
  const char *p;
  GHashTable *defines;
  int depth;
  gboolean ok;
} Eval;

static gint64 eval_sum (Eval *e);

static gint64
eval_macro (Eval *e, const char *name)
{
  const char *body = g_hash_table_lookup (e->defines, name);
  if (body == NULL || e->depth > 16)
    {
      e->ok = FALSE;
      return 0;
    }
  Eval sub = { body, e->defines, e->depth + 1, TRUE };
  gint64 v = eval_sum (&sub);
  while (g_ascii_isspace (*sub.p))
    sub.p++;
  if (!sub.ok || *sub.p != '\0')
    e->ok = FALSE;
  return v;
}

static gint64
eval_atom (Eval *e)
{
  while (g_ascii_isspace (*e->p))
    e->p++;
  if (*e->p == '(')
    {
      e->p++;
      gint64 v = eval_sum (e);
      while (g_ascii_isspace (*e->p))
        e->p++;
      if (*e->p != ')')
        e->ok = FALSE;
      else
        e->p++;
      return v;
    }
  if (*e->p == '-')
    {
      e->p++;
      return -eval_atom (e);
    }
  if (g_ascii_isdigit (*e->p))
    {
      char *end;
      gint64 v = g_ascii_strtoll (e->p, &end, 0);
      e->p = end;
      while (*e->p == 'u' || *e->p == 'U' || *e->p == 'l' || *e->p == 'L')
        e->p++;
      return v;
    }
  if (g_ascii_isalpha (*e->p) || *e->p == '_')
    {
      const char *s = e->p;
      while (g_ascii_isalnum (*e->p) || *e->p == '_')
        e->p++;
      g_autofree char *name = g_strndup (s, (gsize) (e->p - s));
      return eval_macro (e, name);
    }
  e->ok = FALSE;
  return 0;
}

static gint64
eval_product (Eval *e)
{
  gint64 v = eval_atom (e);
  for (;;)
    {
      while (g_ascii_isspace (*e->p))
        e->p++;
      char op = *e->p;
      if (op != '*' && op != '/' && op != '%')
        return v;
      e->p++;
      gint64 r = eval_atom (e);
      if (op == '*')
        v *= r;
      else if (r == 0)
        e->ok = FALSE;
      else
        v = op == '/' ? v / r : v % r;
    }
}

static gint64
eval_sum (Eval *e)
{
  gint64 v = eval_product (e);
  for (;;)
    {
      while (g_ascii_isspace (*e->p))
        e->p++;
      char op = *e->p;
      if (op != '+' && op != '-')
        return v;
      e->p++;
      gint64 r = eval_product (e);
      v = op == '+' ? v + r : v - r;
    }
}

static gboolean
eval_expr (GHashTable *defines, const char *text, gint64 *out)
{
  Eval e = { text, defines, 0, TRUE };
  *out = eval_sum (&e);
  while (g_ascii_isspace (*e.p))
    e.p++;
  return e.ok && *e.p == '\0';
}

/* A trailing "+ k" (k a literal) of a column count: the padding. */
static guint
trailing_pad (const char *expr)
{
  g_autofree char *s = g_strstrip (g_strdup (expr));
  char *plus = strrchr (s, '+');
  if (plus == NULL || plus == s)
    return 0;
  /* only at the top level: no parenthesis after it */
  char *end;
  guint64 k = g_ascii_strtoull (plus + 1, &end, 10);
  while (g_ascii_isspace (*end))
    end++;
  if (*end != '\0' || end == plus + 1)
    return 0;
  int depth = 0;
  for (char *c = s; c < plus; c++)
    depth += *c == '(' ? 1 : *c == ')' ? -1 : 0;
  return depth == 0 ? (guint) k : 0;
}

static gboolean
type_size (const char *type, guint *size, guint *align)
{
  static const struct { const char *name; guint size, align; } types[] = {
    { "char", 1, 1 }, { "unsigned char", 1, 1 }, { "signed char", 1, 1 }, { "bool", 1, 1 },
    { "int8_t", 1, 1 }, { "uint8_t", 1, 1 }, { "short", 2, 2 }, { "unsigned short", 2, 2 },
    { "int16_t", 2, 2 }, { "uint16_t", 2, 2 }, { "half", 2, 2 }, { "__half", 2, 2 },
    { "int", 4, 4 }, { "unsigned", 4, 4 }, { "unsigned int", 4, 4 }, { "float", 4, 4 },
    { "int32_t", 4, 4 }, { "uint32_t", 4, 4 }, { "float3", 12, 4 },
    { "double", 8, 8 }, { "long long", 8, 8 }, { "unsigned long long", 8, 8 },
    { "int64_t", 8, 8 }, { "uint64_t", 8, 8 }, { "float2", 8, 8 }, { "int2", 8, 8 },
    { "float4", 16, 16 }, { "int4", 16, 16 }, { "double2", 16, 16 },
  };
  g_autofree char *t = g_strstrip (g_strdup (type));
  const char *name = t;
  if (g_str_has_prefix (name, "volatile "))
    name += strlen ("volatile ");
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (name, types[i].name) == 0)
      {
        *size = types[i].size;
        *align = types[i].align;
        return TRUE;
      }
  return FALSE;
}

/* The arguments of a SHARED_ARRAY/SHARED_ARRAY2 on this line, or NULL. */
static char **
shared_decl_args (const char *line)
{
  const char *m = strstr (line, "SHARED_ARRAY");
  if (m == NULL)
    return NULL;
  const char *p = m + strlen ("SHARED_ARRAY");
  if (*p == '2')
    p++;
  while (g_ascii_isspace (*p))
    p++;
  if (*p != '(')
    return NULL;
  p++;
  GPtrArray *args = g_ptr_array_new ();
  int depth = 0;
  const char *start = p;
  for (; *p; p++)
    {
      if (*p == '(' || *p == '[')
        depth++;
      else if ((*p == ')' || *p == ']') && depth > 0)
        depth--;
      else if ((*p == ',' && depth == 0) || (*p == ')' && depth == 0))
        {
          g_ptr_array_add (args, g_strstrip (g_strndup (start, (gsize) (p - start))));
          start = p + 1;
          if (*p == ')')
            break;
        }
    }
  g_ptr_array_add (args, NULL);
  char **v = (char **) g_ptr_array_free (args, FALSE);
  guint n = g_strv_length (v);
  gboolean two = m[strlen ("SHARED_ARRAY")] == '2';
  if (n != (two ? 4u : 3u))
    {
      g_strfreev (v);
      return NULL;
    }
  return v;
}

typedef struct {
  char *name;
  guint64 base;
  guint rows, cols, pad, elem, align;
  gboolean ok;
} Decl;

/* Whether line t opens the kernel `name`: "__global__ void name (". */
static gboolean
opens_kernel (const char *t, const char *name)
{
  if (!g_str_has_prefix (t, "__global__"))
    return FALSE;
  const char *p = t + strlen ("__global__");
  while (g_ascii_isspace (*p))
    p++;
  if (!g_str_has_prefix (p, "void"))
    return FALSE;
  p += 4;
  while (g_ascii_isspace (*p))
    p++;
  gsize n = strlen (name);
  return strncmp (p, name, n) == 0 && !(g_ascii_isalnum (p[n]) || p[n] == '_');
}

gboolean
ms_tile_shape_from_source (const char *file, const char *kernel, int line,
                           const MsWarpAccess *a, MsTileShape *tile, char **name_out,
                           GError **error)
{
  const char *hint = "give the array's shape with --tile ROWSxCOLS[+PAD]";
  const char *slash = strrchr (file, '/');
  const char *base = slash ? slash + 1 : file;
  g_autoptr (GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_add (lines, NULL); /* 1-based */
  for (int i = 1;; i++)
    {
      char *text = ms_kernel_source_line (file, i);
      if (text == NULL)
        break;
      g_ptr_array_add (lines, text);
    }
  if (line < 1 || (guint) line >= lines->len)
    {
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                   "cannot read line %d of %s to find the shared array; %s", line, base, hint);
      return FALSE;
    }

  /* the file's object-like integer #defines */
  g_autoptr (GHashTable) defines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 1; i < lines->len; i++)
    {
      const char *t = g_ptr_array_index (lines, i);
      if (!g_str_has_prefix (t, "#define"))
        continue;
      const char *p = t + strlen ("#define");
      while (g_ascii_isspace (*p))
        p++;
      const char *n0 = p;
      while (g_ascii_isalnum (*p) || *p == '_')
        p++;
      if (p == n0 || *p == '(')
        continue;
      g_autofree char *body = g_strdup (p);
      char *comment = strstr (body, "/*");
      if (comment)
        *comment = '\0';
      comment = strstr (body, "//");
      if (comment)
        *comment = '\0';
      g_hash_table_replace (defines, g_strndup (n0, (gsize) (p - n0)),
                            g_strstrip (g_strdup (body)));
    }

  /* the kernel's body: from its __global__ line to the next one; without
   * the kernel's name, the kernel the line is in */
  int start = 0, end = (int) lines->len;
  for (guint i = 1; kernel && i < lines->len && start == 0; i++)
    if (opens_kernel (g_ptr_array_index (lines, i), kernel))
      start = (int) i;
  if (start == 0)
    {
      start = line;
      while (start > 1 && !g_str_has_prefix (g_ptr_array_index (lines, start), "__global__"))
        start--;
    }
  for (int i = start + 1; i < (int) lines->len; i++)
    if (g_str_has_prefix (g_ptr_array_index (lines, i), "__global__"))
      {
        end = i;
        break;
      }

  /* its shared arrays, in declaration order (the emulator's allocation
   * order), with their offsets */
  g_autoptr (GArray) decls = g_array_new (FALSE, TRUE, sizeof (Decl));
  guint64 used = 0;
  for (int i = start; i < end; i++)
    {
      g_auto (GStrv) args = shared_decl_args (g_ptr_array_index (lines, i));
      if (args == NULL)
        continue;
      Decl d = { 0 };
      d.name = g_strdup (args[1]);
      gint64 rows = 1, cols = 0;
      gboolean two = args[3] != NULL;
      d.ok = type_size (args[0], &d.elem, &d.align)
             && eval_expr (defines, args[2], two ? &rows : &cols)
             && (!two || eval_expr (defines, args[3], &cols)) && rows > 0 && cols > 0;
      if (d.ok)
        {
          d.base = (used + d.align - 1) / d.align * d.align;
          used = d.base + (guint64) rows * (guint64) cols * d.elem;
          d.rows = (guint) rows;
          d.cols = (guint) cols;
          d.pad = two ? trailing_pad (args[3]) : 0;
          if (d.pad >= d.cols)
            d.pad = 0;
          d.cols -= d.pad;
        }
      g_array_append_val (decls, d);
      if (!d.ok)
        break; /* the offsets of later arrays are unknown */
    }

  /* the array: the first NAME[ on the line that names one of them (when
   * the line is in the kernel), else the one holding the access's bytes
   * (a helper function reached through a pointer) */
  Decl *found = NULL;
  if (line >= start && line < end)
    {
      const char *t = g_ptr_array_index (lines, line);
      for (const char *p = t; *p && found == NULL; p++)
        {
          if (!(g_ascii_isalpha (*p) || *p == '_')
              || (p > t && (g_ascii_isalnum (p[-1]) || p[-1] == '_')))
            continue;
          const char *q = p;
          while (g_ascii_isalnum (*q) || *q == '_')
            q++;
          const char *r = q;
          while (g_ascii_isspace (*r))
            r++;
          if (*r == '[')
            for (guint i = 0; i < decls->len; i++)
              {
                Decl *d = &g_array_index (decls, Decl, i);
                if (strlen (d->name) == (gsize) (q - p)
                    && strncmp (d->name, p, (gsize) (q - p)) == 0)
                  found = d;
              }
          p = q - 1;
        }
    }
  if (found == NULL && a != NULL && a->mask != 0)
    for (guint i = 0; i < decls->len && found == NULL; i++)
      {
        Decl *d = &g_array_index (decls, Decl, i);
        if (!d->ok)
          continue;
        guint64 size = (guint64) d->rows * (d->cols + d->pad) * d->elem;
        gboolean inside = TRUE;
        for (guint l = 0; l < MS_WARP_SIZE; l++)
          if ((a->mask >> l) & 1)
            inside &= a->addr[l] >= d->base && a->addr[l] + a->width <= d->base + size;
        if (inside)
          found = d;
      }

  gboolean ok = FALSE;
  if (found == NULL)
    g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                 "cannot tell which SHARED_ARRAY of %s line %d of %s accesses; %s",
                 kernel ? kernel : "its kernel", line, base, hint);
  else if (!found->ok)
    g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                 "cannot work out the size of shared array '%s' in %s; %s", found->name, base,
                 hint);
  else
    {
      memset (tile, 0, sizeof *tile);
      tile->base = found->base;
      tile->elem_bytes = found->elem;
      if (found->rows == 1)
        {
          /* a 1-D array: rows of one wavefront's bytes (a bank per column
           * for 4-byte elements) */
          guint per_row = MAX (1u, 128u / found->elem);
          tile->cols = MIN (per_row, found->cols);
          tile->rows = (found->cols + tile->cols - 1) / tile->cols;
          tile->flat = found->cols;
        }
      else
        {
          tile->rows = found->rows;
          tile->cols = found->cols;
          tile->pad = found->pad;
        }
      *name_out = g_strdup (found->name);
      tile->name = *name_out;
      ok = TRUE;
    }
  for (guint i = 0; i < decls->len; i++)
    g_free (g_array_index (decls, Decl, i).name);
  return ok;
}

/* ------------------------------------------------------------ the drawing */

/* Three nodes under the grid (one table would stretch the bank strip to
 * the width of the text): the caption, the strip of bank colours, the key
 * to the cells. */
static void
legend (GString *dot, guint banks, const MsTileShape *tile, guint cell)
{
  g_string_append (dot, "  legend1 [shape=plaintext, height=0, label=<<B>cell colour = the bank of the "
                        "element (of its first byte)</B>>];\n");
  g_string_append (dot, "  legend2 [shape=plaintext, height=0, label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" "
                        "CELLSPACING=\"1\" CELLPADDING=\"0\"><TR>");
  for (guint b = 0; b < banks; b++)
    {
      char c[8];
      gboolean dark;
      ms_viz_bank_colour (b, banks, FALSE, c, &dark);
      g_string_append_printf (dot, "<TD BGCOLOR=\"%s\" WIDTH=\"%u\" HEIGHT=\"%u\" FIXEDSIZE=\"TRUE\">"
                                   "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"9\" COLOR=\"%s\">%u"
                                   "</FONT></TD>",
                              c, cell, cell, dark ? "#FFFFFF" : "#000000", b);
    }
  g_string_append_printf (
    dot, "</TR></TABLE>>];\n"
         "  legend3 [shape=plaintext, height=0, label=<<B>framed, full colour, number</B>: touched by the "
         "lane of that number (n\xc3\x97k or \xc3\x97k: k lanes, from lane n)   \xc2\xb7   pale: "
         "not touched%s>];\n"
         "  tile -> legend1 -> legend2 -> legend3 [style=invis];\n",
    tile->pad ? "   \xc2\xb7   grey: padding" : "");
}

gboolean
ms_diagram_tile (const MsDiagramInfo *info, const MsWarpAccess *a, const MsTileShape *tile,
                 GString *dot, GError **error)
{
  const MsArch *arch = info->arch;
  guint width = tile->cols + tile->pad;
  guint elem = tile->elem_bytes ? tile->elem_bytes : a->width;
  if (tile->rows == 0 || width == 0 || tile->rows > MAX_CELLS_PER_SIDE
      || width > MAX_CELLS_PER_SIDE)
    {
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                   "the array is %ux%u elements; a tile diagram draws at most %d a side",
                   tile->rows, width, MAX_CELLS_PER_SIDE);
      return FALSE;
    }
  guint64 bytes = (guint64) tile->rows * width * elem;
  guint n = tile->rows * width;
  guint warp = (guint) MIN (arch->warp_size, MS_WARP_SIZE);

  /* the lanes touching each cell */
  g_autofree guint32 *lanes = g_new0 (guint32, n);
  guint touched = 0;
  for (guint l = 0; l < warp; l++)
    {
      if (!((a->mask >> l) & 1))
        continue;
      guint64 off = a->addr[l];
      if (off < tile->base || off + a->width > tile->base + bytes)
        {
          g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                       "lane %u touches shared byte %" G_GUINT64_FORMAT ", outside %s (%ux%u "
                       "elements of %u B at byte %" G_GUINT64_FORMAT "); give the shape with "
                       "--tile ROWSxCOLS[+PAD]",
                       l, off, tile->name ? tile->name : "the array", tile->rows, width, elem,
                       tile->base);
          return FALSE;
        }
      guint64 first = (off - tile->base) / elem, last = (off + a->width - 1 - tile->base) / elem;
      for (guint64 e = first; e <= last; e++)
        {
          touched += lanes[e] == 0;
          lanes[e] |= 1u << l;
        }
    }

  g_autofree MsBankDetail *detail = g_new0 (MsBankDetail, 1);
  ms_banks_detail (arch, a, detail);
  const MsSharedCost cost = detail->cost;
  guint worst = 0;
  for (guint p = 0; p < cost.phases; p++)
    for (guint b = 0; b < detail->banks; b++)
      worst = MAX (worst, detail->phase[p].bank_words[b]);
  guint nb = (guint) arch->banks;
  guint cell = width <= 40 && tile->rows <= 40 ? 24 : 14;
  guint font = cell >= 24 ? 11 : 7;

  ms_viz_begin (dot, "dot");
  g_string_append (dot, "  graph [rankdir=TB, nodesep=0.2, ranksep=0.12];\n");
  g_autofree char *pad_text = tile->pad ? g_strdup_printf (" + %u", tile->pad) : g_strdup ("");
  g_autofree char *dims = tile->flat
                            ? g_strdup_printf ("[%u] (in rows of %u)", tile->flat, tile->cols)
                            : g_strdup_printf ("[%u][%u%s]", tile->rows, tile->cols, pad_text);
  g_autofree char *what = g_strdup_printf (
    "%s %s of %s%s (%u B elements, from byte %" G_GUINT64_FORMAT " of shared memory)",
    ms_space_name (a->space), ms_viz_op_word (a->op), tile->name ? tile->name : "array", dims,
    elem, tile->base);
  /* distinct banks among the touched cells */
  guint64 banks_seen[2] = { 0, 0 };
  for (guint e = 0; e < n; e++)
    if (lanes[e])
      {
        guint b = (guint) (((tile->base + (guint64) e * elem) / (guint64) arch->bank_bytes) % nb);
        banks_seen[b / 64] |= G_GUINT64_CONSTANT (1) << (b % 64);
      }
  guint distinct = (guint) (__builtin_popcountll (banks_seen[0]) + __builtin_popcountll (banks_seen[1]));
  g_autofree char *verdict = cost.excessive
                                ? g_strdup_printf (": %u-way bank conflict", worst)
                                : g_strdup (": conflict-free");
  g_autofree char *summary = g_strdup_printf (
    "%u cell%s in %u bank%s \xc2\xb7 %u wavefront%s for an ideal of %u%s", touched,
    touched == 1 ? "" : "s", distinct, distinct == 1 ? "" : "s", cost.wavefronts,
    cost.wavefronts == 1 ? "" : "s", cost.ideal, verdict);
  ms_viz_title (dot, info, what, summary, cost.excessive ? MS_VIZ_BAD : MS_VIZ_GOOD);

  g_string_append (dot, "  tile [shape=plaintext, label=<<TABLE BORDER=\"0\" CELLBORDER=\"0\" "
                        "CELLSPACING=\"1\" CELLPADDING=\"0\">");
  /* column headers */
  g_string_append_printf (dot, "<TR><TD WIDTH=\"%u\" HEIGHT=\"%u\" FIXEDSIZE=\"TRUE\"> </TD>",
                          cell + 4, cell);
  for (guint c = 0; c < width; c++)
    {
      char num[16];
      g_snprintf (num, sizeof num, "%u", c);
      g_string_append_printf (dot, "<TD WIDTH=\"%u\" HEIGHT=\"%u\" FIXEDSIZE=\"TRUE\">"
                                   "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"%u\" COLOR=\"" MS_VIZ_MUTED "\">%s</FONT></TD>",
                              cell, cell, font - 2, c >= tile->cols ? "pad" : num);
    }
  g_string_append (dot, "</TR>");
  for (guint r = 0; r < tile->rows; r++)
    {
      g_string_append_printf (dot, "<TR><TD WIDTH=\"%u\" HEIGHT=\"%u\" FIXEDSIZE=\"TRUE\">"
                                   "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"%u\" COLOR=\"" MS_VIZ_MUTED "\">%u</FONT></TD>",
                              cell + 4, cell, font - 2, r);
      for (guint c = 0; c < width; c++)
        {
          guint e = r * width + c;
          guint64 byte = tile->base + (guint64) e * elem;
          guint b = (guint) ((byte / (guint64) arch->bank_bytes) % nb);
          gboolean pad = c >= tile->cols;
          char colour[8];
          gboolean dark = FALSE;
          if (tile->flat && e >= tile->flat && !lanes[e])
            g_strlcpy (colour, "#FFFFFF", sizeof colour); /* past the end of a 1-D array */
          else if (pad && !lanes[e])
            g_strlcpy (colour, "#D9D9D9", sizeof colour);
          else
            ms_viz_bank_colour (b, nb, lanes[e] == 0, colour, &dark);
          if (lanes[e] == 0)
            {
              g_string_append_printf (dot, "<TD BGCOLOR=\"%s\" WIDTH=\"%u\" HEIGHT=\"%u\" "
                                           "FIXEDSIZE=\"TRUE\"> </TD>",
                                      colour, cell, cell);
              continue;
            }
          guint first = (guint) __builtin_ctz (lanes[e]);
          guint count = (guint) __builtin_popcount (lanes[e]);
          /* several lanes on one element: "n×k" (k lanes from lane n), or
           * "×k" where the cells are small */
          g_autofree char *label = count == 1  ? g_strdup_printf ("%u", first)
                                   : cell >= 24 ? g_strdup_printf ("%u\xc3\x97%u", first, count)
                                                : g_strdup_printf ("\xc3\x97%u", count);
          g_string_append_printf (dot, "<TD BGCOLOR=\"%s\" BORDER=\"2\" COLOR=\"#000000\" "
                                       "WIDTH=\"%u\" HEIGHT=\"%u\" FIXEDSIZE=\"TRUE\">"
                                       "<FONT FACE=\"" MS_VIZ_FONT "\" POINT-SIZE=\"%u\" COLOR=\"%s\"><B>%s</B></FONT></TD>",
                                  colour, cell, cell, count == 1 ? font : cell >= 24 ? 7 : 6,
                                  dark ? "#FFFFFF" : "#000000", label);
        }
      g_string_append (dot, "</TR>");
    }
  g_string_append (dot, "</TABLE>>];\n");
  legend (dot, nb, tile, cell >= 24 ? 22 : 18);
  ms_viz_end (dot);
  return TRUE;
}
