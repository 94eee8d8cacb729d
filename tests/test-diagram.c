/* test-diagram.c - the diagrams (viz/) and `memsim diagram`.
 *
 * Each kind is drawn from hand-made warp accesses whose numbers are known
 * (BRIEF section 4), rendered to SVG through libgvc and checked by parsing
 * the SVG with GMarkup: the nodes and edges Graphviz drew, the texts of the
 * bank labels ("bank 0 . 32-way"), the title's counts.  PNG and PDF are
 * checked by their magic bytes; every kind must render without a single
 * Graphviz warning (a label too big for its cell is a warning); the same
 * input must give the same bytes.  The command is run through $MEMSIM (set
 * by `make check`): built-in kernels, and bad options that must fail with
 * one "memsim: ..." line and leave no file behind.
 * Built without Graphviz, every test skips.
 */
#include "config.h"

#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#ifdef HAVE_GRAPHVIZ
#include "diagram.h"
#include "emulator.h"
#include "problem.h"

/* ------------------------------------------------------------ SVG parsing */

typedef struct {
  guint nodes, edges, dashed_edges;
  GPtrArray *texts;       /* every <text>'s content, &#160; made a space */
  /* parse state */
  int in_text;
  GString *cur;
  int depth, edge_depth;
} Svg;

static void
svg_start (GMarkupParseContext *ctx, const char *name, const char **attr_names,
           const char **attr_values, gpointer data, GError **error)
{
  Svg *s = data;
  s->depth++;
  if (strcmp (name, "g") == 0)
    for (int i = 0; attr_names[i]; i++)
      if (strcmp (attr_names[i], "class") == 0)
        {
          if (strcmp (attr_values[i], "node") == 0)
            s->nodes++;
          else if (strcmp (attr_values[i], "edge") == 0)
            {
              s->edges++;
              s->edge_depth = s->depth;
            }
        }
  if (strcmp (name, "path") == 0 && s->edge_depth > 0)
    for (int i = 0; attr_names[i]; i++)
      if (strcmp (attr_names[i], "stroke-dasharray") == 0)
        s->dashed_edges++;
  if (strcmp (name, "text") == 0)
    {
      s->in_text = 1;
      g_string_truncate (s->cur, 0);
    }
}

static void
svg_end (GMarkupParseContext *ctx, const char *name, gpointer data, GError **error)
{
  Svg *s = data;
  if (strcmp (name, "text") == 0 && s->in_text)
    {
      g_autoptr (GString) t = g_string_new (s->cur->str);
      g_string_replace (t, "\xc2\xa0", " ", 0);
      while (g_string_replace (t, "  ", " ", 0))
        ;
      g_ptr_array_add (s->texts, g_strdup (t->str));
      s->in_text = 0;
    }
  if (s->depth == s->edge_depth)
    s->edge_depth = 0;
  s->depth--;
}

static void
svg_text (GMarkupParseContext *ctx, const char *text, gsize len, gpointer data, GError **error)
{
  Svg *s = data;
  if (s->in_text)
    g_string_append_len (s->cur, text, (gssize) len);
}

static void
svg_free (Svg *s)
{
  g_ptr_array_unref (s->texts);
  g_string_free (s->cur, TRUE);
  g_free (s);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (Svg, svg_free)

static Svg *
svg_parse (const char *data, gsize len)
{
  static const GMarkupParser parser = { svg_start, svg_end, svg_text, NULL, NULL };
  Svg *s = g_new0 (Svg, 1);
  s->texts = g_ptr_array_new_with_free_func (g_free);
  s->cur = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, s, NULL);
  gboolean ok = g_markup_parse_context_parse (ctx, data, (gssize) len, &error)
                && g_markup_parse_context_end_parse (ctx, &error);
  g_markup_parse_context_free (ctx);
  g_assert_no_error (error);
  g_assert_true (ok);
  return s;
}

/* How many texts contain `needle`. */
static guint
svg_count (const Svg *s, const char *needle)
{
  guint n = 0;
  for (guint i = 0; i < s->texts->len; i++)
    n += strstr (g_ptr_array_index (s->texts, i), needle) != NULL;
  return n;
}

/* How many texts are exactly `text`. */
static guint
svg_count_exact (const Svg *s, const char *text)
{
  guint n = 0;
  for (guint i = 0; i < s->texts->len; i++)
    n += strcmp (g_ptr_array_index (s->texts, i), text) == 0;
  return n;
}

/* The bank labels with an n-way degree: "bank B . N-way"; fills degree[B]. */
static guint
svg_bank_degrees (const Svg *s, guint degree[64])
{
  guint n = 0;
  memset (degree, 0, 64 * sizeof (guint));
  for (guint i = 0; i < s->texts->len; i++)
    {
      const char *t = g_ptr_array_index (s->texts, i);
      guint b, d;
      char dot[8];
      if (sscanf (t, "bank %u %7s %u-way", &b, dot, &d) == 3 && b < 64)
        {
          degree[b] = d;
          n++;
        }
    }
  return n;
}

/* ------------------------------------------------------------ helpers */

static MsSite test_site = { "test.cu", 7, 0, 0 };

static MsWarpAccess
access_make (MsSpace space, guint width, guint32 mask, guint64 base, guint64 stride_bytes)
{
  MsWarpAccess a = { 0 };
  a.site = &test_site;
  a.space = (guint8) space;
  a.op = MS_OP_LD;
  a.width = (guint8) width;
  a.mask = mask;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    a.addr[l] = base + l * stride_bytes;
  return a;
}

static const char *const buffer_names[] = { "in", "out" };

static MsDiagramInfo
info_make (void)
{
  MsDiagramInfo info = {
    .kernel = "test_kernel", .params = "n=32", .file = "test.cu", .line = 7,
    .source = "float v = LD (sh[threadIdx.x * S]);  /* a comment */", .arch = ms_arch_default (),
    .executions = 1, .buffer_names = buffer_names, .n_buffers = 2,
  };
  return info;
}

static GBytes *
render (const GString *dot, MsDiagramFormat format)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *warnings = NULL;
  GBytes *out = NULL;
  gboolean ok = ms_diagram_render (dot->str, format, &out, &warnings, &error);
  g_assert_no_error (error);
  g_assert_true (ok);
  /* slide quality: nothing overflows its cell, nothing Graphviz frowns at */
  g_assert_null (warnings);
  g_assert_nonnull (out);
  return out;
}

static Svg *
render_svg (const GString *dot)
{
  g_autoptr (GBytes) b = render (dot, MS_DIAGRAM_SVG);
  gsize len;
  const char *data = g_bytes_get_data (b, &len);
  return svg_parse (data, len);
}

/* ------------------------------------------------------------ formats */

static void
test_format (void)
{
  MsDiagramFormat f;
  g_assert_true (ms_diagram_format_from_path ("a.svg", &f, NULL));
  g_assert_cmpint (f, ==, MS_DIAGRAM_SVG);
  g_assert_true (ms_diagram_format_from_path ("dir.x/B.PNG", &f, NULL));
  g_assert_cmpint (f, ==, MS_DIAGRAM_PNG);
  g_assert_true (ms_diagram_format_from_path ("c.pdf", &f, NULL));
  g_assert_cmpint (f, ==, MS_DIAGRAM_PDF);
  g_assert_true (ms_diagram_format_from_path ("d.dot", &f, NULL));
  g_assert_cmpint (f, ==, MS_DIAGRAM_DOT);
  const char *bad[] = { "a.jpg", "noext", "dir.svg/file", "a.svg.txt", ".", "" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_assert_false (ms_diagram_format_from_path (bad[i], &f, &error));
      g_assert_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_FORMAT);
      g_assert_nonnull (strstr (error->message, ".svg, .png, .pdf or .dot"));
    }
  MsDiagramKind k;
  g_assert_true (ms_diagram_kind_parse ("tile", &k, NULL));
  g_assert_cmpint (k, ==, MS_DIAGRAM_TILE);
  g_assert_false (ms_diagram_kind_parse ("bank", &k, NULL));
}

/* ------------------------------------------------------------ banks */

/* 4-byte words at word stride 32: every lane in bank 0 -> 32-way. */
static void
test_banks_stride32 (void)
{
  MsDiagramInfo info = info_make ();
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0xFFFFFFFFu, 0, 32 * 4);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_banks (&info, &a, dot);
  g_autoptr (Svg) s = render_svg (dot);
  /* 32 lanes, 32 banks, 2 column headers, the legend */
  g_assert_cmpuint (s->nodes, ==, 32 + 32 + 2 + 1);
  g_assert_cmpuint (s->edges, ==, 32);
  guint deg[64];
  g_assert_cmpuint (svg_bank_degrees (s, deg), ==, 1);
  g_assert_cmpuint (deg[0], ==, 32);
  g_assert_cmpuint (svg_count (s, "32 wavefronts for an ideal of 1: 31 excessive"), ==, 1);
  g_assert_cmpuint (svg_count (s, "w 992"), ==, 1); /* lane 31's word: 31 * 32 */
  /* the title: kernel, line, source without its comment, arch */
  g_assert_cmpuint (svg_count (s, "test_kernel"), ==, 1);
  g_assert_cmpuint (svg_count (s, "test.cu:7"), ==, 1);
  g_assert_cmpuint (svg_count (s, "float v = LD (sh[threadIdx.x * S]);"), ==, 1);
  g_assert_cmpuint (svg_count (s, "a comment"), ==, 0);
  g_assert_cmpuint (svg_count (s, "H100"), ==, 1);
}

/* Word strides 1 and 33: conflict-free, no bank says n-way; stride 2:
 * the 16 even banks 2-way; stride 3: conflict-free. */
static void
test_banks_strides (void)
{
  static const struct { guint stride, labelled, degree; } cases[] = {
    { 1, 0, 0 }, { 33, 0, 0 }, { 3, 0, 0 }, { 2, 16, 2 }, { 4, 8, 4 }, { 8, 4, 8 },
  };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      MsDiagramInfo info = info_make ();
      MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0xFFFFFFFFu, 0, cases[c].stride * 4);
      g_autoptr (GString) dot = g_string_new (NULL);
      ms_diagram_banks (&info, &a, dot);
      g_autoptr (Svg) s = render_svg (dot);
      g_assert_cmpuint (s->edges, ==, 32);
      guint deg[64];
      g_assert_cmpuint (svg_bank_degrees (s, deg), ==, cases[c].labelled);
      for (guint b = 0; b < 32; b++)
        if (deg[b])
          {
            g_assert_cmpuint (deg[b], ==, cases[c].degree);
            g_assert_cmpuint (b % (cases[c].stride % 32), ==, 0);
          }
      g_assert_cmpuint (svg_count (s, "conflict-free"), >=, cases[c].labelled ? 1 : 2);
      if (cases[c].labelled == 0)
        g_assert_cmpuint (svg_count (s, "1 wavefront = the ideal: conflict-free"), ==, 1);
    }
}

/* float2, consecutive: two phases of 16 lanes, 2 words each -> 64 arrows,
 * 2 wavefronts, conflict-free.  float4 at stride 2 elements: 4 phases of 8
 * lanes, each phase 2-way -> 8 wavefronts. */
static void
test_banks_phases (void)
{
  MsDiagramInfo info = info_make ();
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 8, 0xFFFFFFFFu, 0, 8);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_banks (&info, &a, dot);
  g_autoptr (Svg) s = render_svg (dot);
  g_assert_cmpuint (s->edges, ==, 64);
  g_assert_cmpuint (s->nodes, ==, 32 + 2 * 32 + 2 * 3 + 1);
  g_assert_cmpuint (svg_count (s, "phase 0"), ==, 1);
  g_assert_cmpuint (svg_count (s, ": lanes 16-31"), ==, 1);
  g_assert_cmpuint (svg_count (s, "2 wavefronts = the ideal"), ==, 1);
  guint deg[64];
  g_assert_cmpuint (svg_bank_degrees (s, deg), ==, 0);

  MsWarpAccess b = access_make (MS_SPACE_SHARED, 16, 0xFFFFFFFFu, 0, 32);
  g_autoptr (GString) dot2 = g_string_new (NULL);
  ms_diagram_banks (&info, &b, dot2);
  g_autoptr (Svg) s2 = render_svg (dot2);
  g_assert_cmpuint (s2->edges, ==, 128);
  g_assert_cmpuint (svg_count (s2, "phase 3"), ==, 1);
  g_assert_cmpuint (svg_count (s2, "8 wavefronts for an ideal of 4: 4 excessive"), ==, 1);
  /* each phase: 8 lanes x 4 words = 32 words over 16 banks: all 2-way */
  g_assert_cmpuint (svg_bank_degrees (s2, deg), ==, 4 * 16);
}

/* All lanes on one word: a broadcast, 1 wavefront, dashed arrows. */
static void
test_banks_broadcast (void)
{
  MsDiagramInfo info = info_make ();
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0xFFFFFFFFu, 40, 0);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_banks (&info, &a, dot);
  g_autoptr (Svg) s = render_svg (dot);
  g_assert_cmpuint (s->edges, ==, 32);
  g_assert_cmpuint (s->dashed_edges, ==, 32);
  g_assert_cmpuint (svg_count (s, "bank 10 \xc2\xb7 broadcast"), ==, 1);
  g_assert_cmpuint (svg_count (s, "(with broadcast)"), ==, 1);
}

/* Half the warp active: 16 arrows, 16 lanes marked inactive. */
static void
test_banks_partial (void)
{
  MsDiagramInfo info = info_make ();
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0x0000FFFFu, 0, 4);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_banks (&info, &a, dot);
  g_autoptr (Svg) s = render_svg (dot);
  g_assert_cmpuint (s->edges, ==, 16);
  g_assert_cmpuint (svg_count (s, "inactive"), ==, 16);
  g_assert_cmpuint (svg_count (s, "16 of 32 lanes active"), ==, 1);
}

/* ------------------------------------------------------------ sectors */

/* Seed 001: threads 0-15 read 4-byte words at addresses 116..176 ->
 * sectors 96, 128, 160 (3 x 32 B = 96 B for 64 B: 66.7%) in lines 0 and
 * 128. */
static void
test_sectors_seed001 (void)
{
  MsDiagramInfo info = info_make ();
  guint64 in = (guint64) 1 << MS_BUFFER_SHIFT; /* buffer 0 */
  MsWarpAccess a = access_make (MS_SPACE_GLOBAL, 4, 0x0000FFFFu, in + 116, 4);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_sectors (&info, &a, dot);
  g_autoptr (Svg) s = render_svg (dot);
  g_assert_cmpuint (s->edges, ==, 16);
  g_assert_cmpuint (svg_count (s, "in+116"), ==, 1);
  g_assert_cmpuint (svg_count (s, "in+176"), ==, 1);
  g_assert_cmpuint (svg_count (s, "64 B requested \xc2\xb7 3 sectors (96 B) fetched in 2 lines "
                                  "\xc2\xb7 efficiency 66.7%"), ==, 1);
  /* the 2 lines are drawn whole: 8 sector rows, 5 of them not fetched */
  g_assert_cmpuint (svg_count (s, "not fetched"), ==, 5 + 1 /* legend */);
  g_assert_cmpuint (svg_count (s, "12 of 32 B"), ==, 1); /* 116..127 */
  g_assert_cmpuint (svg_count (s, "32 of 32 B"), ==, 1); /* 128..159 */
  g_assert_cmpuint (svg_count (s, "20 of 32 B"), ==, 1); /* 160..179 */
}

/* Seed 001 under compute capability 1.3's rule (segment_rule=shrink):
 * lane 0 (116) opens segment 0..127 with lanes 1, 2; only 116..127 is used,
 * the upper half of the upper half -> one 32-byte transaction 96..127.
 * Lane 3 (128) opens 128..255, lanes 3-15 use 128..179, the lower half ->
 * one 64-byte transaction 128..191.  Two boxes, 3 rows of 32 bytes, 96 B
 * for 64 B: 66.7%; 3 arrows to the 32-byte box, 13 to the 64-byte one. */
static void
test_sectors_seed001_cc13 (void)
{
  MsArch cc13 = *ms_arch_default ();
  cc13.coalesce_lanes = 16;
  cc13.segment_rule = MS_SEGMENTS_SHRINK;
  MsDiagramInfo info = info_make ();
  info.arch = &cc13;
  guint64 in = (guint64) 1 << MS_BUFFER_SHIFT; /* buffer 0 */
  MsWarpAccess a = access_make (MS_SPACE_GLOBAL, 4, 0x0000FFFFu, in + 116, 4);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_sectors (&info, &a, dot);
  g_assert_nonnull (strstr (dot->str, "<B>32-byte segment</B><BR/>half-warp 0<BR/>in+96<"));
  g_assert_nonnull (strstr (dot->str, "<B>64-byte segment</B><BR/>half-warp 0<BR/>in+128<"));
  g_autoptr (Svg) s = render_svg (dot);
  g_assert_cmpuint (s->edges, ==, 16);
  g_assert_cmpuint (svg_count (s, "-byte segment"), ==, 2);
  g_assert_cmpuint (svg_count (s, "128-byte segment"), ==, 0);
  g_assert_cmpuint (svg_count (s, "transactions: 1 x 32 B, 1 x 64 B, 0 x 128 B (96 B) "
                                  "\xc2\xb7 efficiency 66.7%"), ==, 1);
  g_assert_cmpuint (svg_count (s, "12 of 32 B"), ==, 1); /* 116..127 */
  g_assert_cmpuint (svg_count (s, "32 of 32 B"), ==, 1); /* 128..159 */
  g_assert_cmpuint (svg_count (s, "20 of 32 B"), ==, 1); /* 160..179 */
  g_assert_cmpuint (svg_count (s, "not fetched"), ==, 1 /* legend only */);
}

/* A word per 256 bytes (transpose_naive's store): 32 sectors in 32 lines,
 * 12.5%; only the fetched sectors are drawn. */
static void
test_sectors_strided (void)
{
  MsDiagramInfo info = info_make ();
  guint64 out = (guint64) 2 << MS_BUFFER_SHIFT; /* buffer 1 */
  MsWarpAccess a = access_make (MS_SPACE_GLOBAL, 4, 0xFFFFFFFFu, out, 256);
  a.op = MS_OP_ST;
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_sectors (&info, &a, dot);
  g_autoptr (Svg) s = render_svg (dot);
  g_assert_cmpuint (s->edges, ==, 32);
  g_assert_cmpuint (svg_count (s, "32 sectors (1024 B) fetched in 32 lines"), ==, 1);
  g_assert_cmpuint (svg_count (s, "efficiency 12.5%"), ==, 1);
  g_assert_cmpuint (svg_count (s, "4 of 32 B"), ==, 32);
  g_assert_cmpuint (svg_count (s, "only fetched sectors drawn"), ==, 1);
  g_assert_cmpuint (svg_count (s, "global store of buffer out"), ==, 1);
}

/* ------------------------------------------------------------ tile */

static guint
tile_column_read (guint pad, Svg **svg_out)
{
  MsDiagramInfo info = info_make ();
  MsTileShape t = { .name = "tile", .rows = 32, .cols = 32, .pad = pad, .elem_bytes = 4 };
  /* warp 0 reads tile[lane][0]: a column, stride 32 + pad words */
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0xFFFFFFFFu, 0, (32 + pad) * 4);
  g_autoptr (GString) dot = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_assert_true (ms_diagram_tile (&info, &a, &t, dot, &error));
  g_assert_no_error (error);
  Svg *s = render_svg (dot);
  *svg_out = s;
  /* lane numbers are the only bold texts "0".."31" inside the grid; count
   * the distinct ones */
  guint lanes = 0;
  for (guint l = 0; l < 32; l++)
    {
      char num[8];
      g_snprintf (num, sizeof num, "%u", l);
      guint n = svg_count_exact (s, num);
      /* column header, row header, legend swatch, and the lane */
      lanes += n >= 4;
    }
  return lanes;
}

static void
test_tile (void)
{
  Svg *s32 = NULL, *s33 = NULL;
  g_assert_cmpuint (tile_column_read (0, &s32), ==, 32);
  g_assert_cmpuint (svg_count (s32, "32 cells in 1 bank \xc2\xb7 32 wavefronts for an ideal of 1: "
                                    "32-way bank conflict"), ==, 1);
  g_assert_cmpuint (svg_count_exact (s32, "pad"), ==, 0);
  g_assert_cmpuint (tile_column_read (1, &s33), ==, 32);
  g_assert_cmpuint (svg_count (s33, "32 cells in 32 banks \xc2\xb7 1 wavefront for an ideal of 1: "
                                    "conflict-free"), ==, 1);
  g_assert_cmpuint (svg_count_exact (s33, "pad"), ==, 1);
  g_assert_cmpuint (svg_count (s33, "tile[32][32 + 1]"), ==, 1);
  svg_free (s32);
  svg_free (s33);

  /* an access outside the array is refused, naming --tile */
  MsDiagramInfo info = info_make ();
  MsTileShape t = { .name = "tile", .rows = 4, .cols = 4, .elem_bytes = 4 };
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0xFFFFFFFFu, 0, 4);
  g_autoptr (GString) dot = g_string_new (NULL);
  g_autoptr (GError) error = NULL;
  g_assert_false (ms_diagram_tile (&info, &a, &t, dot, &error));
  g_assert_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT);
  g_assert_nonnull (strstr (error->message, "--tile"));

  MsTileShape p;
  g_assert_true (ms_tile_shape_parse ("32x32+1", &p, NULL));
  g_assert_cmpuint (p.rows, ==, 32);
  g_assert_cmpuint (p.cols, ==, 32);
  g_assert_cmpuint (p.pad, ==, 1);
  g_assert_true (ms_tile_shape_parse ("8x16", &p, NULL));
  g_assert_cmpuint (p.pad, ==, 0);
  const char *bad[] = { "32", "32x", "x32", "32x32+", "0x4", "32x32+1x", "200x2", "-1x4" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (ms_tile_shape_parse (bad[i], &p, NULL));
}

/* The shape of the tile read by the column load of transpose_shared,
 * _padded and _padded2, from the kernel source: 32x32 +0, +1, +2. */
static void
test_tile_shape_from_source (void)
{
  const char *kernels[] = { "transpose_shared", "transpose_padded", "transpose_padded2" };
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
    {
      /* find the kernel's column read */
      g_autofree char *head = g_strdup_printf ("__global__ void %s ", kernels[k]);
      int line = 0;
      gboolean inside = FALSE;
      for (int i = 1; line == 0; i++)
        {
          g_autofree char *t = ms_kernel_source_line ("transpose.cu", i);
          g_assert_nonnull (t);
          if (g_str_has_prefix (t, "__global__"))
            inside = g_str_has_prefix (t, head);
          if (inside && strstr (t, "LD (tile[threadIdx.x][threadIdx.y])"))
            line = i;
        }
      MsTileShape t;
      g_autofree char *name = NULL;
      g_autoptr (GError) error = NULL;
      g_assert_true (
        ms_tile_shape_from_source ("transpose.cu", kernels[k], line, NULL, &t, &name, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (name, ==, "tile");
      g_assert_cmpuint (t.rows, ==, 32);
      g_assert_cmpuint (t.cols, ==, 32);
      g_assert_cmpuint (t.pad, ==, k);
      g_assert_cmpuint (t.elem_bytes, ==, 4);
      g_assert_cmpuint (t.base, ==, 0);
    }
  /* a line without a shared array */
  MsTileShape t;
  g_autofree char *name = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_false (ms_tile_shape_from_source ("transpose.cu", NULL, 1, NULL, &t, &name, &error));
  g_assert_nonnull (strstr (error->message, "--tile"));
}

/* ------------------------------------------------------------ lines */

static void
test_lines (void)
{
  const MsKernel *k = ms_kernel_find ("transpose_shared");
  g_assert_nonnull (k);
  g_autoptr (MsProblem) p = ms_problem_new (k);
  g_assert_true (ms_problem_set_size (p, "64x64", NULL));
  g_assert_true (ms_problem_setup (p, NULL));
  g_autoptr (MsStats) stats = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_true (ms_problem_simulate (p, ms_arch_default (), 0, NULL, &stats, &error));
  g_assert_no_error (error);

  MsDiagramInfo info = info_make ();
  info.line = 0;
  info.executions = 0;
  info.kernel = "transpose_shared";
  info.file = "transpose.cu";
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_lines (&info, stats, dot);
  g_autoptr (Svg) s = render_svg (dot);
  /* one row per site; the column read: 32 wavefronts, 3968 excessive
   * (4 blocks x 32 warps x 31), efficiency 1/32 = 3% */
  g_assert_cmpuint (stats->sites->len, ==, 4);
  g_assert_cmpuint (svg_count_exact (s, "32.00 wavefronts"), ==, 1);
  g_assert_cmpuint (svg_count (s, "+3968"), ==, 1);
  g_assert_cmpuint (svg_count (s, "3%"), ==, 1);
  g_assert_cmpuint (svg_count_exact (s, "4.00 sectors"), ==, 2);
  g_assert_cmpuint (svg_count (s, "100%"), >=, 3);
}

/* ------------------------------------------------------------ formats, determinism */

static void
test_png_pdf (void)
{
  MsDiagramInfo info = info_make ();
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 4, 0xFFFFFFFFu, 0, 8);
  g_autoptr (GString) dot = g_string_new (NULL);
  ms_diagram_banks (&info, &a, dot);

  g_autoptr (GBytes) png = render (dot, MS_DIAGRAM_PNG);
  gsize len;
  const guint8 *d = g_bytes_get_data (png, &len);
  g_assert_cmpuint (len, >, 10000);
  g_assert_cmpmem (d, 8, "\x89PNG\r\n\x1a\n", 8);

  g_autoptr (GBytes) pdf = render (dot, MS_DIAGRAM_PDF);
  d = g_bytes_get_data (pdf, &len);
  g_assert_cmpuint (len, >, 1000);
  g_assert_cmpmem (d, 5, "%PDF-", 5);

  g_autoptr (GBytes) text = render (dot, MS_DIAGRAM_DOT);
  g_assert_cmpmem (g_bytes_get_data (text, NULL), g_bytes_get_size (text), dot->str, dot->len);
}

static void
test_deterministic (void)
{
  MsDiagramInfo info = info_make ();
  MsWarpAccess a = access_make (MS_SPACE_SHARED, 8, 0xFFFFFFFFu, 0, 16);
  g_autoptr (GString) d1 = g_string_new (NULL), d2 = g_string_new (NULL);
  ms_diagram_banks (&info, &a, d1);
  ms_diagram_banks (&info, &a, d2);
  g_assert_cmpstr (d1->str, ==, d2->str);
  g_autoptr (GBytes) s1 = render (d1, MS_DIAGRAM_SVG);
  g_autoptr (GBytes) s2 = render (d2, MS_DIAGRAM_SVG);
  g_assert_true (g_bytes_equal (s1, s2));
  g_autoptr (GBytes) p1 = render (d1, MS_DIAGRAM_PNG);
  g_autoptr (GBytes) p2 = render (d2, MS_DIAGRAM_PNG);
  g_assert_true (g_bytes_equal (p1, p2));
}

static void
test_render_error (void)
{
  GBytes *out = NULL;
  g_autoptr (GError) error = NULL;
  g_assert_false (ms_diagram_render ("digraph { a -> ", MS_DIAGRAM_SVG, &out, NULL, &error));
  g_assert_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_RENDER);
  g_assert_null (out);
  g_clear_error (&error);
  /* a broken HTML-like label is an error, not a silently wrong picture */
  g_assert_false (ms_diagram_render ("digraph { a [label=<<B></B>>] }", MS_DIAGRAM_SVG, &out,
                                     NULL, &error));
  g_assert_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_RENDER);
}

/* ------------------------------------------------------------ the command */

static char *tmpdir;

typedef struct {
  int status;
  char *out, *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

static gboolean
have_memsim (void)
{
  if (g_getenv ("MEMSIM") != NULL)
    return TRUE;
  g_test_skip ("MEMSIM is not set (run under make check)");
  return FALSE;
}

/* Runs memsim diagram with the NULL-terminated arguments. */
static void
run_diagram (Run *r, ...)
{
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (gpointer) g_getenv ("MEMSIM"));
  g_ptr_array_add (argv, (gpointer) "diagram");
  va_list ap;
  va_start (ap, r);
  for (const char *a; (a = va_arg (ap, const char *));)
    g_ptr_array_add (argv, (gpointer) a);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_autoptr (GError) error = NULL;
  int wait = 0;
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                               &r->out, &r->err, &wait, &error));
  g_assert_no_error (error);
  r->status = WIFEXITED (wait) ? WEXITSTATUS (wait) : 255;
}

static char *
tmp (const char *name)
{
  return g_build_filename (tmpdir, name, NULL);
}

static Svg *
read_svg (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return svg_parse (data, len);
}

/* The acceptance test of the issue: transpose_shared's column read is
 * 32-way, transpose_padded's is conflict-free, both by default. */
static void
test_cli_transpose (void)
{
  if (!have_memsim ())
    return;
  g_autofree char *a = tmp ("shared.svg"), *b = tmp ("padded.svg");
  Run r = { 0 };
  run_diagram (&r, "transpose_shared", "--size", "64x64", "-o", a, NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autoptr (Svg) s = read_svg (a);
  guint deg[64];
  g_assert_cmpuint (svg_bank_degrees (s, deg), ==, 1);
  g_assert_cmpuint (deg[0], ==, 32);
  g_assert_cmpuint (svg_count (s, "transpose_shared"), ==, 1);
  g_assert_cmpuint (svg_count (s, "LD (tile[threadIdx.x][threadIdx.y])"), ==, 1);
  g_assert_cmpuint (s->edges, ==, 32);

  Run r2 = { 0 };
  run_diagram (&r2, "transpose_padded", "--size", "64x64", "-o", b, NULL);
  g_assert_cmpint (r2.status, ==, 0);
  run_clear (&r2);
  g_autoptr (Svg) p = read_svg (b);
  g_assert_cmpuint (svg_bank_degrees (p, deg), ==, 0);
  g_assert_cmpuint (svg_count (p, "1 wavefront = the ideal: conflict-free"), ==, 1);
  /* the default is the column read (ties go to the widest access) */
  g_assert_cmpuint (svg_count (p, "LD (tile[threadIdx.x][threadIdx.y])"), ==, 1);
}

static void
test_cli_kinds (void)
{
  if (!have_memsim ())
    return;
  static const struct { const char *kernel, *kind, *file, *expect; } cases[] = {
    { "transpose_padded2", "tile", "t.svg", "2-way bank conflict" },
    { "transpose_swizzled", "banks", "s.png", NULL },
    { "transpose_naive", "sectors", "n.pdf", NULL },
    { "transpose_naive", "lines", "l.dot", "digraph memsim" },
    { "transpose_naive", "sectors", "n.svg", "32 sectors (1024 B) fetched in 32 lines" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *f = tmp (cases[i].file);
      Run r = { 0 };
      run_diagram (&r, cases[i].kernel, "--size", "64x64", "--kind", cases[i].kind, "-o", f,
                   NULL);
      g_assert_cmpstr (r.err, ==, "");
      g_assert_cmpint (r.status, ==, 0);
      run_clear (&r);
      g_autofree char *data = NULL;
      gsize len = 0;
      g_assert_true (g_file_get_contents (f, &data, &len, NULL));
      g_assert_cmpuint (len, >, 100);
      if (g_str_has_suffix (f, ".png"))
        g_assert_cmpmem (data, 4, "\x89PNG", 4);
      else if (g_str_has_suffix (f, ".pdf"))
        g_assert_cmpmem (data, 5, "%PDF-", 5);
      else if (g_str_has_suffix (f, ".svg"))
        {
          g_autoptr (Svg) s = svg_parse (data, len);
          g_assert_cmpuint (svg_count (s, cases[i].expect), ==, 1);
        }
      else
        g_assert_true (g_str_has_prefix (data, cases[i].expect));
    }
}

/* Seed 001's figure from the kernel library, when it has gmem_stride:
 * n=16 threads, 4-byte elements from element 29 = byte 116. */
static void
test_cli_seed001 (void)
{
  if (!have_memsim ())
    return;
  if (ms_kernel_find ("gmem_stride") == NULL)
    {
      g_test_skip ("no gmem_stride kernel in this build");
      return;
    }
  g_autofree char *f = tmp ("seed001.svg");
  Run r = { 0 };
  run_diagram (&r, "gmem_stride", "-p", "n=16", "-p", "offset=29", "--kind", "sectors", "-o", f,
               NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autoptr (Svg) s = read_svg (f);
  g_assert_cmpuint (s->edges, ==, 16);
  g_assert_cmpuint (svg_count (s, "+116"), ==, 1);
  g_assert_cmpuint (svg_count (s, "+176"), ==, 1);
  g_assert_cmpuint (svg_count (s, "3 sectors (96 B) fetched in 2 lines"), ==, 1);
}

/* Seed 001 under --arch cc13, as DOT: one 32-byte and one 64-byte segment
 * box (derived in test_sectors_seed001_cc13 above), nothing else boxed. */
static void
test_cli_seed001_cc13 (void)
{
  if (!have_memsim ())
    return;
  if (ms_kernel_find ("gmem_stride") == NULL)
    {
      g_test_skip ("no gmem_stride kernel in this build");
      return;
    }
  g_autofree char *f = tmp ("seed001-cc13.dot");
  Run r = { 0 };
  run_diagram (&r, "gmem_stride", "-p", "n=16", "-p", "offset=29", "--kind", "sectors", "--arch",
               "cc13", "-o", f, NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autofree char *dot = NULL;
  g_assert_true (g_file_get_contents (f, &dot, NULL, NULL));
  guint boxes = 0;
  for (const char *p = dot; (p = strstr (p, "-byte segment</B>")); p++)
    boxes++;
  g_assert_cmpuint (boxes, ==, 2);
  g_assert_nonnull (strstr (dot, ">32-byte segment</B><BR/>half-warp 0<BR/>in+96<"));
  g_assert_nonnull (strstr (dot, ">64-byte segment</B><BR/>half-warp 0<BR/>in+128<"));
}

/* --arch changes the model: seed 000's +2 padding is conflict-free in
 * Kepler's 64-bit bank mode (34 floats = 17 eight-byte words a row: odd). */
static void
test_cli_arch (void)
{
  if (!have_memsim ())
    return;
  g_autoptr (MsArch) k64 = ms_arch_lookup ("kepler64", NULL);
  if (k64 == NULL)
    {
      g_test_skip ("no kepler64 preset in this build");
      return;
    }
  g_autofree char *f = tmp ("k64.svg");
  Run r = { 0 };
  run_diagram (&r, "transpose_padded2", "--size", "64x64", "--arch", "kepler64", "-o", f, NULL);
  g_assert_cmpstr (r.err, ==, "");
  g_assert_cmpint (r.status, ==, 0);
  run_clear (&r);
  g_autoptr (Svg) s = read_svg (f);
  guint deg[64];
  g_assert_cmpuint (svg_bank_degrees (s, deg), ==, 0);
  g_assert_cmpuint (svg_count (s, "1 wavefront = the ideal: conflict-free"), ==, 1);
  g_assert_cmpuint (svg_count (s, "word N = byte offset / 8"), ==, 1);
  g_assert_cmpuint (svg_count_exact (s, "w 17"), ==, 1); /* lane 1: 34 floats = 17 words */
}

/* Bad input: a one-line "memsim: ..." error, a non-zero status, and no
 * file (or the old file untouched). */
static void
test_cli_errors (void)
{
  if (!have_memsim ())
    return;
  g_autofree char *keep = tmp ("keep.svg");
  g_assert_true (g_file_set_contents (keep, "old", -1, NULL));
  g_autofree char *jpg = tmp ("x.jpg"), *svg = tmp ("x.svg"), *dot = tmp ("x.dot");
  g_autofree char *nodir = tmp ("no/such/dir/x.svg");
  static const char *size[] = { "--size", "64x64" };
  struct { const char *args[8]; const char *file; const char *says; } cases[] = {
    { { "transpose_shared", "-o", NULL }, NULL, "must end in .svg" },
    { { "transpose_shared", NULL }, NULL, "needs -o FILE" },
    { { "transpose_shared", "--kind", "bars", "-o", NULL }, NULL, "--kind bars" },
    { { "transpose_shared", "--in-warp", "99", "-o", NULL }, NULL, "--in-warp 99" },
    { { "transpose_shared", "--in-block", "4", "-o", NULL }, NULL, "--in-block 4" },
    { { "transpose_shared", "--line", "1", "-o", NULL }, NULL, "no memory access" },
    { { "transpose_shared", "--instance", "1", "-o", NULL }, NULL, "--instance takes 0..0" },
    { { "transpose_naive", "--kind", "tile", "-o", NULL }, NULL, "no shared memory access" },
    { { "transpose_shared", "--kind", "tile", "--tile", "4x", "-o", NULL }, NULL, "--tile 4x" },
    { { "transpose_shared", "--kind", "tile", "--tile", "4x4", "-o", NULL }, NULL, "outside" },
    { { "no_such_kernel", "-o", NULL }, NULL, "unknown kernel" },
    { { "transpose_shared", "--access", "0", "-o", NULL }, NULL, "--line" },
    { { "transpose_shared", "--arch", "no_such_arch", "-o", NULL }, NULL, "no_such_arch" },
    { { "transpose_shared", "-o", NULL }, NULL, "cannot write" },
  };
  const char *files[] = { jpg, NULL, svg, svg, svg, svg, svg, svg, svg, keep, dot, svg, svg,
                          nodir };
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const char *argv[16];
      guint n = 0;
      for (guint i = 0; cases[c].args[i]; i++)
        argv[n++] = cases[c].args[i];
      if (files[c])
        argv[n++] = files[c];
      argv[n++] = size[0];
      argv[n++] = size[1];
      while (n < 16)
        argv[n++] = NULL;
      Run r = { 0 };
      run_diagram (&r, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6], argv[7],
                   argv[8], argv[9], NULL);
      if (g_test_verbose ())
        g_printerr ("case %u: %s", c, r.err);
      g_assert_cmpint (r.status, !=, 0);
      g_assert_true (g_str_has_prefix (r.err, "memsim: "));
      g_assert_nonnull (strstr (r.err, cases[c].says));
      /* one line */
      g_assert_nonnull (strchr (r.err, '\n'));
      g_assert_cmpstr (strchr (r.err, '\n'), ==, "\n");
      g_assert_cmpstr (r.out, ==, "");
      run_clear (&r);
      if (files[c] && files[c] != keep)
        g_assert_false (g_file_test (files[c], G_FILE_TEST_EXISTS));
    }
  g_autofree char *old = NULL;
  g_assert_true (g_file_get_contents (keep, &old, NULL, NULL));
  g_assert_cmpstr (old, ==, "old");
  /* no temporary files left behind either */
  g_autoptr (GDir) dir = g_dir_open (tmpdir, 0, NULL);
  for (const char *name; (name = g_dir_read_name (dir));)
    g_assert_cmpstr (name, ==, "keep.svg");
}

#endif /* HAVE_GRAPHVIZ */

#ifndef HAVE_GRAPHVIZ
static void
test_skip (void)
{
  g_test_skip ("memsim is built without Graphviz");
}
#endif

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
#ifdef HAVE_GRAPHVIZ
  tmpdir = g_dir_make_tmp ("memsim-diagram-XXXXXX", NULL);
  g_test_add_func ("/diagram/format", test_format);
  g_test_add_func ("/diagram/banks/stride32", test_banks_stride32);
  g_test_add_func ("/diagram/banks/strides", test_banks_strides);
  g_test_add_func ("/diagram/banks/phases", test_banks_phases);
  g_test_add_func ("/diagram/banks/broadcast", test_banks_broadcast);
  g_test_add_func ("/diagram/banks/partial", test_banks_partial);
  g_test_add_func ("/diagram/sectors/seed001", test_sectors_seed001);
  g_test_add_func ("/diagram/sectors/strided", test_sectors_strided);
  g_test_add_func ("/diagram/sectors/seed001-cc13", test_sectors_seed001_cc13);
  g_test_add_func ("/diagram/tile/grid", test_tile);
  g_test_add_func ("/diagram/tile/shape-from-source", test_tile_shape_from_source);
  g_test_add_func ("/diagram/lines", test_lines);
  g_test_add_func ("/diagram/render/png-pdf", test_png_pdf);
  g_test_add_func ("/diagram/render/deterministic", test_deterministic);
  g_test_add_func ("/diagram/render/errors", test_render_error);
  g_test_add_func ("/diagram/cli/errors", test_cli_errors);
  g_test_add_func ("/diagram/cli/transpose", test_cli_transpose);
  g_test_add_func ("/diagram/cli/kinds", test_cli_kinds);
  g_test_add_func ("/diagram/cli/seed001", test_cli_seed001);
  g_test_add_func ("/diagram/cli/seed001-cc13", test_cli_seed001_cc13);
  g_test_add_func ("/diagram/cli/arch", test_cli_arch);
  int status = g_test_run ();
  /* clean the temporary folder */
  g_autoptr (GDir) dir = g_dir_open (tmpdir, 0, NULL);
  for (const char *name; dir && (name = g_dir_read_name (dir));)
    {
      g_autofree char *f = g_build_filename (tmpdir, name, NULL);
      g_remove (f);
    }
  g_rmdir (tmpdir);
  g_free (tmpdir);
  return status;
#else
  g_test_add_func ("/diagram/skipped", test_skip);
  return g_test_run ();
#endif
}
