/* cmd-diagram.c - `memsim diagram KERNEL -o FILE`: run a kernel in the
 * emulator, pick one warp access (or the whole kernel for --kind lines)
 * and draw it with Graphviz (viz/).
 *
 * The access drawn is the INSTANCE-th execution (0-based) of the source
 * line by warp WARP of block BLOCK (linear index).  Without --line, the
 * worst line of the kind is drawn: the most excessive shared wavefronts per
 * execution (banks, tile), the most sectors per request (sectors); ties go
 * to the line that comes first.  The emulator hands every access to a sink
 * in a deterministic order (it runs on one thread then), and the sink keeps
 * only the executions of the chosen warp, so memory stays small.
 */
#include "config.h"

#include <string.h>

#include "commands.h"
#include "emulator.h"
#include "kernel-options.h"
#include "problem.h"
#include "progress.h"
#include "replay.h"
#include "report.h"
#ifdef HAVE_GRAPHVIZ
#include "diagram.h"
#endif

#ifdef HAVE_GRAPHVIZ

typedef struct {
  char *kind;
  char *output;
  char *tile;
  int line;
  int block;
  int warp;
  int instance;
  int access;
} DiagramOptions;

/* Per site, the first warp (in the emulator's deterministic order) that
 * executes it: the fallback when neither --in-block nor --in-warp is given
 * and warp 0 of block 0 never gets there (halo loads, divergent code). */
typedef struct {
  guint block, warp, count;
  MsWarpAccess *pick;
} FirstWarp;

static void
first_warp_free (gpointer p)
{
  FirstWarp *f = p;
  g_free (f->pick);
  g_free (f);
}

/* The sink: the executions of one warp, per site. */
typedef struct {
  guint block, warp, instance;
  GHashTable *count;   /* const MsSite * -> executions so far (guint) */
  GHashTable *pick;    /* const MsSite * -> MsWarpAccess * (the instance-th) */
  GHashTable *first;   /* const MsSite * -> FirstWarp */
} Capture;

static void
capture_sink (gpointer data, const MsWarpAccess *a)
{
  Capture *c = data;
  FirstWarp *f = g_hash_table_lookup (c->first, a->site);
  if (f == NULL)
    {
      f = g_new0 (FirstWarp, 1);
      f->block = a->block;
      f->warp = a->warp;
      g_hash_table_insert (c->first, (gpointer) a->site, f);
    }
  if (a->block == f->block && a->warp == f->warp)
    {
      if (f->count == c->instance)
        f->pick = g_memdup2 (a, sizeof *a);
      f->count++;
    }
  if (a->block != c->block || a->warp != c->warp)
    return;
  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (c->count, a->site));
  if (n == c->instance)
    g_hash_table_insert (c->pick, (gpointer) a->site, g_memdup2 (a, sizeof *a));
  g_hash_table_insert (c->count, (gpointer) a->site, GUINT_TO_POINTER (n + 1));
}

/* The access captured for a site: the chosen warp's, else the first
 * warp's. */
static const MsWarpAccess *
captured (const Capture *cap, const MsSite *site)
{
  const MsWarpAccess *a = g_hash_table_lookup (cap->pick, site);
  const FirstWarp *f = g_hash_table_lookup (cap->first, site);
  return a ? a : f ? f->pick : NULL;
}

static double
site_score (const MsSiteStats *s)
{
  if (s->c.executions == 0)
    return -1;
  if (s->space == MS_SPACE_SHARED)
    return (double) s->c.v[MS_SLOT_EXCESSIVE] / (double) s->c.executions;
  return s->c.v[MS_SLOT_REQUESTS] ? (double) s->c.v[MS_SLOT_SECTORS] / (double) s->c.v[MS_SLOT_REQUESTS] : 0;
}

/* Bytes between the lowest and the highest byte the active lanes touch:
 * among lines that cost the same, the widest-spread access (a column of a
 * tile rather than its row) is the one worth drawing. */
static guint64
access_span (const MsWarpAccess *a)
{
  guint64 lo = G_MAXUINT64, hi = 0;
  for (guint l = 0; l < MS_WARP_SIZE; l++)
    if ((a->mask >> l) & 1)
      {
        lo = MIN (lo, a->addr[l]);
        hi = MAX (hi, a->addr[l] + a->width);
      }
  return hi > lo ? hi - lo : 0;
}

/* The lines that have an access of `space` (-1: any), for messages. */
static char *
lines_with (const MsStats *stats, int space)
{
  g_autoptr (GString) s = g_string_new (NULL);
  int last = -1;
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *x = &g_array_index (stats->sites, MsSiteStats, i);
      if ((space >= 0 && (int) x->space != space) || x->site->line == last)
        continue;
      g_string_append_printf (s, "%s%d", s->len ? ", " : "", x->site->line);
      last = x->site->line;
    }
  return g_strdup (s->len ? s->str : "none");
}

/* The site to draw: on `line` (0: any), of `space` (-1: shared if the
 * kernel has any, else global), the worst by site_score, ties broken by
 * the span of the captured access, its active lanes, then source order. */
static const MsSiteStats *
pick_site (const MsStats *stats, const Capture *cap, const char *kernel, int line, int space,
           int access, GError **error)
{
  if (access >= 0)
    {
      /* the access-th site of the line, in source order */
      int k = 0;
      for (guint i = 0; i < stats->sites->len; i++)
        {
          const MsSiteStats *s = &g_array_index (stats->sites, MsSiteStats, i);
          if (s->site->line != line || k++ != access)
            continue;
          if (space >= 0 && (int) s->space != space)
            {
              g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                           "access %d of line %d of %s is a %s access; this --kind draws %s ones",
                           access, line, kernel, ms_space_name (s->space),
                           ms_space_name ((MsSpace) space));
              return NULL;
            }
          return s;
        }
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                   "line %d of %s has %d memory access%s: --access takes 0..%d", line, kernel, k,
                   k == 1 ? "" : "es", k - 1);
      if (k == 0)
        {
          g_autofree char *all = lines_with (stats, -1);
          g_clear_error (error);
          g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                       "line %d of %s has no memory access; lines with accesses: %s", line,
                       kernel, all);
        }
      return NULL;
    }
  if (space < 0)
    {
      space = MS_SPACE_GLOBAL;
      for (guint i = 0; i < stats->sites->len; i++)
        {
          const MsSiteStats *s = &g_array_index (stats->sites, MsSiteStats, i);
          if (s->space == MS_SPACE_SHARED && (line == 0 || s->site->line == line))
            space = MS_SPACE_SHARED;
        }
    }
  const MsSiteStats *best = NULL;
  gboolean on_line = FALSE;
  for (guint i = 0; i < stats->sites->len; i++)
    {
      const MsSiteStats *s = &g_array_index (stats->sites, MsSiteStats, i);
      if (line != 0 && s->site->line != line)
        continue;
      on_line = TRUE;
      if ((int) s->space != space || s->c.executions == 0)
        continue;
      if (best == NULL || site_score (s) > site_score (best))
        best = s;
      else if (site_score (s) == site_score (best))
        {
          const MsWarpAccess *x = captured (cap, s->site);
          const MsWarpAccess *y = captured (cap, best->site);
          if (x && (y == NULL || access_span (x) > access_span (y)
                    || (access_span (x) == access_span (y)
                        && __builtin_popcount (x->mask) > __builtin_popcount (y->mask))))
            best = s;
        }
    }
  if (best != NULL)
    return best;
  g_autofree char *lines = lines_with (stats, space);
  const char *what = space == MS_SPACE_SHARED ? "shared" : "global";
  if (line == 0)
    g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                 "%s has no %s memory access to draw; try another --kind", kernel, what);
  else if (on_line)
    g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                 "line %d of %s has no %s memory access (lines with one: %s); "
                 "try another --kind or --line",
                 line, kernel, what, lines);
  else
    {
      g_autofree char *all = lines_with (stats, -1);
      g_set_error (error, MS_DIAGRAM_ERROR, MS_DIAGRAM_ERROR_INPUT,
                   "line %d of %s has no memory access; lines with accesses: %s", line, kernel,
                   all);
    }
  return NULL;
}

static int emulate_and_draw (const MsKernelOptions *kopts, const DiagramOptions *o,
                             MsProblem *p, MsTraceSource *src, const MsRunInfo *run,
                             const MsArch *arch, gboolean kind_given, MsDiagramKind kind,
                             MsTileShape *tile_shape, MsDiagramFormat format, Capture *cap);

static int
diagram_run (MsKernelOptions *kopts, DiagramOptions *o, GOptionContext *ctx, int argc,
             char **argv)
{
  g_autoptr (GError) error = NULL;
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  if (argc != 2)
    {
      ms_error ("diagram needs exactly one KERNEL; `memsim list` shows them");
      return 2;
    }
  if (kopts->sample != NULL)
    {
      ms_error ("--sample is for trace and compare: a diagram draws the accesses of every "
                "block it shows; use a smaller --size");
      return 2;
    }
  if (o->output == NULL || *o->output == '\0')
    {
      ms_error ("diagram needs -o FILE; its extension picks the format: .svg, .png, .pdf "
                "or .dot");
      return 2;
    }
  MsDiagramFormat format;
  if (!ms_diagram_format_from_path (o->output, &format, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  int bad = ms_check_output ("-o", o->output);
  if (bad != 0)
    return bad;
  /* a missing plug-in is said before the kernel runs, not after */
  if (!ms_diagram_render_ready (format, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  gboolean kind_given = o->kind != NULL;
  MsDiagramKind kind = MS_DIAGRAM_BANKS;
  if (kind_given && !ms_diagram_kind_parse (o->kind, &kind, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  if (o->line < 0 || o->block < -1 || o->warp < -1 || o->instance < 0 || o->access < -1)
    {
      ms_error ("--line, --access, --in-block, --in-warp and --instance take numbers >= 0");
      return 2;
    }
  if (o->access >= 0 && o->line == 0)
    {
      ms_error ("--access K picks among the accesses of one line: give --line too");
      return 2;
    }
  MsTileShape tile_shape = { 0 };
  if (o->tile && !ms_tile_shape_parse (o->tile, &tile_shape, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  if (o->tile && kind_given && kind != MS_DIAGRAM_TILE)
    {
      ms_error ("--tile only goes with --kind tile");
      return 2;
    }
  /* a built-in kernel, run now, or a trace file, replayed */
  g_autoptr (MsProblem) p = NULL;
  g_autoptr (MsTraceSource) src = NULL;
  g_autoptr (MsRunInfo) own_run = NULL;
  const MsRunInfo *run;
  g_autoptr (MsArch) arch = NULL;
  if (ms_kernel_find (argv[1]) == NULL && g_file_test (argv[1], G_FILE_TEST_EXISTS)
      && !g_str_has_suffix (argv[1], ".cu"))
    {
      if ((src = ms_trace_source_open (argv[1], &error)) == NULL)
        {
          ms_error ("%s", error->message);
          return 1;
        }
      run = src->info (src);
      arch = ms_kernel_options_trace_arch (kopts->arch, run, &error);
    }
  else
    {
      arch = ms_kernel_options_arch (kopts, &error);
      p = arch ? ms_kernel_options_problem (kopts, argv[1], &error) : NULL;
      if (p != NULL)
        p->arch = arch;   /* a launch may be sized for it */
      if (p != NULL && !ms_problem_setup (p, &error))
        g_clear_pointer (&p, ms_problem_free);
      if (p != NULL)
        run = own_run = ms_problem_run_info (p, arch, NULL);
    }
  if (arch == NULL || (src == NULL && p == NULL))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  guint64 blocks = ms_run_info_blocks (run);
  guint64 threads = ms_run_info_threads_per_block (run);
  guint64 warps = (threads + (guint64) arch->warp_size - 1) / (guint64) arch->warp_size;
  if (o->block >= 0 && (guint64) o->block >= blocks)
    {
      ms_error ("--in-block %d: %s has %" G_GUINT64_FORMAT " blocks here (0..%" G_GUINT64_FORMAT
                ")", o->block, run->kernel, blocks, blocks - 1);
      return 2;
    }
  if (o->warp >= 0 && (guint64) o->warp >= warps)
    {
      ms_error ("--in-warp %d: a block of %s has %" G_GUINT64_FORMAT " warps (0..%"
                G_GUINT64_FORMAT ")", o->warp, run->kernel, warps, warps - 1);
      return 2;
    }

  Capture cap = { (guint) MAX (o->block, 0), (guint) MAX (o->warp, 0), (guint) o->instance,
                  g_hash_table_new (g_direct_hash, g_direct_equal),
                  g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free),
                  g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, first_warp_free) };
  int status = emulate_and_draw (kopts, o, p, src, run, arch, kind_given, kind, &tile_shape,
                                 format, &cap);
  g_hash_table_destroy (cap.count);
  g_hash_table_destroy (cap.pick);
  g_hash_table_destroy (cap.first);
  return status;
}

/* Runs the kernel p (or replays src), picks the access, draws, renders and
 * writes. */
static int
emulate_and_draw (const MsKernelOptions *kopts, const DiagramOptions *o, MsProblem *p,
                  MsTraceSource *src, const MsRunInfo *run, const MsArch *arch,
                  gboolean kind_given, MsDiagramKind kind, MsTileShape *tile_shape,
                  MsDiagramFormat format, Capture *cap)
{
  g_autoptr (GError) error = NULL;
  MsStreamSink capture = { .ordered = capture_sink, .user = cap };
  MsSinks sinks = { 0 };
  if (!(kind_given && kind == MS_DIAGRAM_LINES))
    ms_sinks_add (&sinks, &capture);
  g_autoptr (MsStats) stats = NULL;
  gboolean ok = src ? ms_trace_replay_models (src, arch, (guint) kopts->threads, &sinks, &stats,
                                               NULL, &error)
                     : ms_simulate_with_progress (p, arch, (guint) kopts->threads, &sinks,
                                                  &stats, &error);
  if (!ok)
    {
      ms_error ("%s", error->message);
      return 1;
    }

  g_autofree char *params = ms_run_info_params_text (run);
  g_autofree char *source = NULL;
  MsDiagramInfo info = {
    .kernel = run->kernel, .params = params,
    .file = run->source ? run->source : "", .line = o->line, .arch = arch,
    .block = cap->block, .warp = cap->warp, .instance = (guint) o->instance,
    .buffer_names = (const char *const *) run->buffer_name, .n_buffers = run->n_buffers,
    .run = run,
  };
  g_autoptr (GString) dot = g_string_new (NULL);

  if (kind_given && kind == MS_DIAGRAM_LINES)
    {
      gboolean found = o->line == 0;
      for (guint i = 0; i < stats->sites->len && !found; i++)
        found = g_array_index (stats->sites, MsSiteStats, i).site->line == o->line;
      if (!found)
        {
          g_autofree char *all = lines_with (stats, -1);
          ms_error ("line %d of %s has no memory access; lines with accesses: %s", o->line,
                    run->kernel, all);
          return 2;
        }
      ms_diagram_lines (&info, stats, dot);
    }
  else
    {
      int space = !kind_given ? -1
                  : kind == MS_DIAGRAM_SECTORS ? MS_SPACE_GLOBAL
                                               : MS_SPACE_SHARED;
      const MsSiteStats *s = pick_site (stats, cap, run->kernel, o->line, space, o->access, &error);
      if (s == NULL)
        {
          ms_error ("%s", error->message);
          return 2;
        }
      if (!kind_given)
        kind = s->space == MS_SPACE_SHARED ? MS_DIAGRAM_BANKS : MS_DIAGRAM_SECTORS;
      const MsWarpAccess *a = g_hash_table_lookup (cap->pick, s->site);
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (cap->count, s->site));
      const FirstWarp *f = g_hash_table_lookup (cap->first, s->site);
      if (n == 0 && o->block < 0 && o->warp < 0 && f != NULL)
        {
          /* warp 0 of block 0 never gets there: the first warp that does */
          a = f->pick;
          n = f->count;
          info.block = f->block;
          info.warp = f->warp;
        }
      if (a == NULL)
        {
          if (n == 0)
            ms_error ("warp %u of block %u never executes line %d of %s; try another "
                      "--in-warp or --in-block", info.warp, info.block, s->site->line,
                      run->kernel);
          else
            ms_error ("warp %u of block %u executes line %d of %s %u time%s: --instance "
                      "takes 0..%u", info.warp, info.block, s->site->line, run->kernel, n,
                      n == 1 ? "" : "s", n - 1);
          return 2;
        }
      source = ms_run_info_source_line (run, s->site);
      const char *site_base = strrchr (s->site->file, '/');
      info.file = site_base ? site_base + 1 : s->site->file;   /* may be an included file */
      info.line = s->site->line;
      info.source = source;
      info.executions = n;
      if (kind == MS_DIAGRAM_BANKS)
        ms_diagram_banks (&info, a, dot);
      else if (kind == MS_DIAGRAM_SECTORS)
        ms_diagram_sectors (&info, a, dot);
      else
        {
          g_autofree char *name = NULL;
          if (o->tile)
            {
              tile_shape->name = "shared array";
              tile_shape->elem_bytes = a->width;
            }
          else if (!ms_tile_shape_from_source (s->site->file, run->kernel, s->site->line, a,
                                               tile_shape, &name,
                                               &error))
            {
              ms_error ("%s", error->message);
              return 2;
            }
          if (!ms_diagram_tile (&info, a, tile_shape, dot, &error))
            {
              ms_error ("%s", error->message);
              return 2;
            }
        }
    }

  g_autoptr (GBytes) bytes = NULL;
  g_autofree char *warnings = NULL;
  if (!ms_diagram_render (dot->str, format, &bytes, &warnings, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  if (warnings && g_getenv ("MEMSIM_DEBUG_GRAPHVIZ"))
    ms_error ("Graphviz warnings: %s", warnings);
  gsize len = 0;
  const char *data = g_bytes_get_data (bytes, &len);
  g_autoptr (GString) text = g_string_new_len (data, (gssize) len);
  if (!ms_write_output (o->output, text, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  return 0;
}

int
ms_cmd_diagram (int argc, char **argv)
{
  MsKernelOptions kopts = { 0 };
  DiagramOptions o = { .access = -1, .block = -1, .warp = -1 };
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
      "Write the diagram to FILE (required); .svg, .png, .pdf or .dot picks the format",
      "FILE" },
    { "kind", 'k', 0, G_OPTION_ARG_STRING, &o.kind,
      "banks, sectors, tile or lines (default: banks for a shared access, sectors for a "
      "global one)", "KIND" },
    { "line", 'l', 0, G_OPTION_ARG_INT, &o.line,
      "Source line of the access (default: the worst line for the kind)", "N" },
    { "access", 0, 0, G_OPTION_ARG_INT, &o.access,
      "Which access of --line, from 0 in source order, when it has several (default: the "
      "worst)", "K" },
    { "in-block", 0, 0, G_OPTION_ARG_INT, &o.block,
      "Which thread block: linear index in the grid (default 0, or the first block whose "
      "warps execute the line)", "B" },
    { "in-warp", 0, 0, G_OPTION_ARG_INT, &o.warp,
      "Which warp of that block (default 0, or the first that executes the line)", "W" },
    { "instance", 'i', 0, G_OPTION_ARG_INT, &o.instance,
      "Which execution of the line by that warp, from 0 (default 0)", "I" },
    { "tile", 0, 0, G_OPTION_ARG_STRING, &o.tile,
      "The shared array for --kind tile, ROWSxCOLS[+PAD] elements (default: read from the "
      "kernel source)", "RxC+P" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "KERNEL|TRACE -o FILE - draw a warp's memory access for a lecture slide");
  g_option_context_set_summary (
    ctx, "Kinds:\n"
         "  banks    one shared access: 32 lanes, the words they request and the 32 banks,\n"
         "           conflicting banks coloured with their n-way degree, broadcasts, phases\n"
         "  sectors  one global access: lanes, addresses, 32-byte sectors and 128-byte lines,\n"
         "           bytes used versus fetched\n"
         "  tile     the shared array of one access as a grid coloured by bank, padding\n"
         "           marked, the cells the warp touches labelled with their lanes\n"
         "  lines    the kernel's per-source-line summary");
  g_option_context_set_description (
    ctx, "The access drawn is the INSTANCE-th execution of --line by warp --in-warp of\n"
         "block --in-block (--block is the thread-block shape, as in `memsim trace`).\n"
         "Without --line: the line with the most excessive wavefronts per execution\n"
         "(banks, tile) or the most sectors per request (sectors).  docs/diagrams.md has\n"
         "the details.\n\n"
         "Examples:\n"
         "  memsim diagram transpose_shared -o shared.svg\n"
         "  memsim diagram transpose_padded --kind tile -o padded-tile.png\n"
         "  memsim diagram transpose_naive --kind sectors --line 23 -o naive-store.pdf\n"
         "  memsim diagram transpose_naive --kind lines -o naive-lines.svg\n"
         "  memsim diagram t.trace -o from-trace.svg   # a trace file instead of a kernel\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  ms_kernel_options_add (ctx, &kopts, FALSE);
  ms_kernel_options_add_user (ctx, &kopts);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  argv = ms_nvcc_spellings (&argc, argv, owned, "g");   /* -DNAME as nvcc takes it */
  int status = diagram_run (&kopts, &o, ctx, argc, argv);
  ms_kernel_options_clear (&kopts);
  g_free (o.kind);
  g_free (o.output);
  g_free (o.tile);
  return status;
}

#else /* !HAVE_GRAPHVIZ */

int
ms_cmd_diagram (int argc, char **argv)
{
  (void) argc;
  (void) argv;
  ms_error ("this build has no Graphviz support, so no diagrams: install libgraphviz-dev "
            "and run configure again (--with-graphviz)");
  return 1;
}

#endif /* HAVE_GRAPHVIZ */
