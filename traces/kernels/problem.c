/* problem.c - parameters, buffers and launch geometry of a built-in kernel. */
#include "config.h"
#include "problem.h"

#include "builtin-ptx.h"
#include "device-runtime.h"
#include "kernel-time.h"
#include "kernel-usage.h"

#include "reduction.h"
#include "regroup.h"
#include "sass.h"
#include "slow-path.h"

#include <sys/mman.h>

#include "parallel.h"

#define HUGE_PAGE ((gsize) 2 << 20)
/* items per chunk of the parallel fill and check loops */
#define FILL_GRAIN ((gsize) 1 << 16)
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

GBytes *ms_kernel_sources_lookup (const char *path);   /* kernels-resources.c (generated) */

G_DEFINE_QUARK (ms-problem-error-quark, ms_problem_error)

static int
param_index (const MsKernel *k, const char *name)
{
  for (int i = 0; k->params && k->params[i].name; i++)
    if (strcmp (k->params[i].name, name) == 0)
      return i;
  return -1;
}

MsProblem *
ms_problem_new (const MsKernel *kernel)
{
  MsProblem *p = g_new0 (MsProblem, 1);
  p->kernel = kernel;
  p->seed = 2026;
  for (int i = 0; kernel->params && kernel->params[i].name; i++)
    p->param[i] = kernel->params[i].def;
  for (int d = 0; d < 3; d++)
    p->args.block[d] = kernel->block[d] ? kernel->block[d] : 1;
  return p;
}

void
ms_problem_free (MsProblem *p)
{
  if (p == NULL)
    return;
  for (guint b = 0; b < p->n_buffers; b++)
    if (p->buffer_map_bytes[b] > 0)
      munmap ((guint8 *) p->args.buf[b] - p->guard_bytes, p->buffer_map_bytes[b]);
    else if (p->buffer_mapped[b] != 0)
      munmap (p->args.buf[b], p->buffer_mapped[b]);
    else
      free (p->args.buf[b]);
  g_free (p->params);
  g_free (p);
}

gint64
ms_problem_param (const MsProblem *p, const char *name)
{
  int i = param_index (p->kernel, name);
  g_return_val_if_fail (i >= 0, 0);
  return p->param[i];
}

static gboolean
parse_int (const char *what, const char *text, gint64 min, gint64 max, gint64 *out,
           GError **error)
{
  g_autoptr (GError) e = NULL;
  if (!g_ascii_string_to_signed (text, 10, min, max, out, &e))
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s: '%s' is not an integer in %" G_GINT64_FORMAT "..%" G_GINT64_FORMAT,
                   what, text, min, max);
      return FALSE;
    }
  return TRUE;
}

gboolean
ms_problem_set_param (MsProblem *p, const char *name, const char *value, GError **error)
{
  const MsKernel *k = p->kernel;
  int i = param_index (k, name);
  if (i < 0)
    {
      g_autoptr (GString) names = g_string_new (NULL);
      for (int j = 0; k->params && k->params[j].name; j++)
        g_string_append_printf (names, "%s%s", j ? ", " : "", k->params[j].name);
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "kernel %s has no parameter '%s'; its parameters are: %s", k->name, name,
                   names->len ? names->str : "(none)");
      return FALSE;
    }
  const MsParamSpec *spec = &k->params[i];
  for (gint64 v = spec->min; spec->choices && v <= spec->max; v++)
    if (g_strcmp0 (ms_param_choice_name (spec, v), value) == 0)
      {
        p->param[i] = v;
        return TRUE;
      }
  g_autofree char *what = g_strdup_printf ("%s parameter %s", k->name, name);
  if (*value == '\0')
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM, "%s is missing its value",
                   what);
      return FALSE;
    }
  if (spec->choices && !g_ascii_isdigit (*value))
    {
      g_autofree char *names = g_strjoinv ("|", (char **) spec->choices);
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s: '%s' is not one of %s (or their numbers %" G_GINT64_FORMAT "..%"
                   G_GINT64_FORMAT ")", what, value, names, spec->min, spec->max);
      return FALSE;
    }
  return parse_int (what, value, spec->min, spec->max, &p->param[i], error);
}

const char *
ms_param_choice_name (const MsParamSpec *spec, gint64 value)
{
  if (spec->choices == NULL || value < spec->min || value > spec->max)
    return NULL;
  for (gint64 v = spec->min; v <= value; v++)
    if (spec->choices[v - spec->min] == NULL)
      return NULL;
  return spec->choices[value - spec->min];
}

/* Splits "AxBxC" into up to 3 parts. */
static int
split_dims (const char *text, char ***parts)
{
  *parts = g_strsplit_set (text, "xX", 4);
  return (int) g_strv_length (*parts);
}

gboolean
ms_problem_set_size (MsProblem *p, const char *size, GError **error)
{
  const MsKernel *k = p->kernel;
  int want = 0;
  while (want < 3 && k->size_params[want])
    want++;
  g_auto (GStrv) parts = NULL;
  int n = split_dims (size, &parts);
  if (want == 0 || n < 1 || n > want)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--size %s: kernel %s takes %s", size, k->name,
                   want == 3 ? "WxHxD" : want == 2 ? "WxH (or W for a square)" : want == 1 ? "N"
                                                                            : "no size");
      return FALSE;
    }
  for (int d = 0; d < want; d++)
    {
      const char *text = parts[MIN (d, n - 1)];   /* "W" alone means WxW */
      if (n > 1 && d >= n)
        text = "1";
      if (!ms_problem_set_param (p, k->size_params[d], text, error))
        {
          g_prefix_error (error, "--size %s: ", size);
          return FALSE;
        }
    }
  return TRUE;
}

/* "X", "XxY" or "XxYxZ" (option names the option, unit what it counts)
 * -> dims, each in 1..max[d]; missing ones are 1. */
static gboolean
parse_dims (const char *option, const char *unit, const char *text, const gint64 max[3],
            unsigned dims[3], GError **error)
{
  g_auto (GStrv) parts = NULL;
  int n = split_dims (text, &parts);
  if (n < 1 || n > 3)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s %s: give X, XxY or XxYxZ %s", option, text, unit);
      return FALSE;
    }
  dims[0] = dims[1] = dims[2] = 1;
  for (int d = 0; d < n; d++)
    {
      gint64 v;
      if (!parse_int (option, parts[d], 1, max[d], &v, error))
        return FALSE;
      dims[d] = (unsigned) v;
    }
  return TRUE;
}

gboolean
ms_problem_set_block (MsProblem *p, const char *block, GError **error)
{
  static const gint64 max[3] = { 1024, 1024, 1024 };
  unsigned dims[3];
  if (!parse_dims ("--block", "threads", block, max, dims, error))
    return FALSE;
  const MsKernel *k = p->kernel;
  gboolean one_d = dims[1] == 1 && dims[2] == 1;
  const char *rule = NULL;
  switch (k->block_rule)
    {
    case MS_BLOCK_FIXED:
      if (dims[0] != k->block[0] || dims[1] != MAX (k->block[1], 1u)
          || dims[2] != MAX (k->block[2], 1u))
        rule = "its tile is built for its default block; leave --block out";
      break;
    case MS_BLOCK_1D:
      if (!one_d)
        rule = "it takes a 1D block: give --block X";
      break;
    case MS_BLOCK_POW2:
      if (!one_d || (dims[0] & (dims[0] - 1)) != 0 || dims[0] < 64)
        rule = "its tree reduction needs a 1D block of 64, 128, 256, 512 or 1024 threads";
      break;
    default:
      break;
    }
  if (rule != NULL)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_BLOCK_RULE,
                   "--block %s: kernel %s does not accept it: %s (default %ux%ux%u)", block,
                   k->name, rule, k->block[0], MAX (k->block[1], 1u), MAX (k->block[2], 1u));
      return FALSE;
    }
  memcpy (p->args.block, dims, sizeof dims);
  guint64 threads = (guint64) dims[0] * dims[1] * dims[2];
  if (threads > 1024 || dims[2] > 64)
    return ms_launch_check_geometry (&(MsLaunchArgs) { .grid = { 1, 1, 1 },
                                                       .block = { dims[0], dims[1], dims[2] } },
                                     error);
  return TRUE;
}

gboolean
ms_problem_set_grid (MsProblem *p, const char *grid, GError **error)
{
  static const gint64 max[3] = { G_MAXINT32, 65535, 65535 };
  return parse_dims ("--grid", "blocks", grid, max, p->args.grid, error);
}

guint64
ms_problem_buffers_bytes (const MsProblem *p)
{
  guint64 bytes = 0;
  for (guint b = 0; b < p->n_buffers; b++)
    bytes += p->buffer_bytes[b];
  return bytes;
}

gboolean
ms_problem_setup (MsProblem *p, GError **error)
{
  if (!p->kernel->setup (p, error))
    return FALSE;
  if (p->kernel->bind_entry == NULL)
    return TRUE;
  MsBuiltinLaunch b;
  if (!ms_builtin_ptx_bind (p->kernel, &p->args, &b, error))
    return FALSE;
  g_free (p->params);
  p->args.params = p->params = b.params;
  p->warp_entry = b.warp_entry;
  p->inst_map = b.inst_map;
  p->static_shared = b.static_shared;
  return TRUE;
}

/* What the launch runs (MsProblem.warp_entry). */
static MsEntryFn
problem_warp_entry (const MsProblem *p)
{
  return p->warp_entry ? p->warp_entry : p->kernel->warp_entry;
}

/* What the problem's buffers may take: the memory the machine has available
 * now (MemAvailable: free memory plus what the kernel can reclaim), else 80%
 * of its physical memory.  A problem bigger than that would push the machine
 * into swap or the out-of-memory killer.  *what names it for the message. */
static guint64
memory_budget (const char **what)
{
  g_autofree char *text = NULL;
  if (g_file_get_contents ("/proc/meminfo", &text, NULL, NULL))
    {
      const char *line = strstr (text, "\nMemAvailable:");
      char *end = NULL;
      guint64 kb = line ? g_ascii_strtoull (line + strlen ("\nMemAvailable:"), &end, 10) : 0;
      if (kb > 0 && end != NULL && g_str_has_prefix (g_strchug (end), "kB"))
        {
          *what = "is available";
          return kb * 1024;
        }
    }
  *what = "is 80% of this machine's memory";
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  if (pages <= 0 || page <= 0)
    return G_MAXUINT64;
  return (guint64) pages * (guint64) page / 10 * 8;
}

/* g_format_size with a plain space before the unit (GLib writes a no-break
 * space), for a message that is grepped as often as read. */
static char *
format_size (guint64 bytes)
{
  g_autofree char *text = g_format_size (bytes);
  GString *s = g_string_new (text);
  g_string_replace (s, "\u00a0", " ", 0);
  return g_string_free (s, FALSE);
}

/* size bytes (a multiple of HUGE_PAGE) of zeroed memory aligned to
 * HUGE_PAGE, with huge pages where the kernel gives them; NULL if the
 * mapping fails.  munmap (mem, size) frees it. */
static void *
map_zeroed (gsize size)
{
  gsize span = size + HUGE_PAGE;
  guint8 *raw = mmap (NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED)
    return NULL;
  guint8 *mem = (guint8 *) (((guintptr) raw + HUGE_PAGE - 1) & ~(guintptr) (HUGE_PAGE - 1));
  if (mem > raw)
    munmap (raw, (gsize) (mem - raw));
  if (raw + span > mem + size)
    munmap (mem + size, (gsize) (raw + span - (mem + size)));
#ifdef MADV_HUGEPAGE
  madvise (mem, size, MADV_HUGEPAGE);
#endif
  return mem;
}

void *
ms_problem_buffer (MsProblem *p, const char *name, gsize bytes, gboolean output, GError **error)
{
  g_assert (p->n_buffers < MS_MAX_BUFFERS);
  /* read once: the problem's own buffers lower MemAvailable as they fill */
  const char *what = NULL;
  if (p->memory_budget == 0)
    p->memory_budget = memory_budget (&what);
  /* Big buffers are mapped afresh: the kernel hands out zeroed pages, so
   * they need no memset (the fill or the kernel touches each page first, on
   * whichever thread writes it), and they get transparent huge pages: a
   * strided kernel (the naive transpose's stores) otherwise costs the
   * emulator TLB misses per lane. */
  gboolean big = bytes >= HUGE_PAGE;
  gsize align = big ? HUGE_PAGE : 256;
  gsize alloc = (MAX (bytes, 1) + align - 1) / align * align;
  p->total_bytes += alloc;
  void *mem = NULL;
  gboolean over = p->total_bytes > p->memory_budget;
  gsize map_bytes = 0;
  if (!over && p->guard_bytes > 0)
    {
      /* guard pages on both sides: nothing else lives near the buffer, so
       * the emulator can call an access there out of bounds */
      map_bytes = p->guard_bytes * 2 + alloc;
      guint8 *m = mmap (NULL, map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (m == MAP_FAILED || mprotect (m + p->guard_bytes, alloc, PROT_READ | PROT_WRITE) != 0)
        {
          if (m != MAP_FAILED)
            munmap (m, map_bytes);
          map_bytes = 0;
        }
      else
        mem = m + p->guard_bytes;
    }
  gboolean fresh = FALSE;   /* mapped by map_zeroed: zero already */
  if (!over && mem == NULL)
    {
      if (big)
        fresh = (mem = map_zeroed (alloc)) != NULL;
      else if (posix_memalign (&mem, align, alloc) != 0)
        mem = NULL;
    }
  if (mem == NULL)
    {
      g_autofree char *need = format_size (p->total_bytes);
      g_autofree char *budget = format_size (p->memory_budget);
      if (what == NULL)
        memory_budget (&what);   /* where the budget came from, for the message */
      if (over)
        g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_TOO_BIG,
                     "%s: the problem needs at least %s of buffers but %s %s; use a smaller "
                     "--size", p->kernel->name, need, budget, what);
      else
        g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_TOO_BIG,
                     "%s: the problem needs at least %s of buffers and the allocation of "
                     "'%s' failed; use a smaller --size", p->kernel->name, need, name);
      return NULL;
    }
  guint b = p->n_buffers++;
  p->buffer_names[b] = name;
  p->buffer_bytes[b] = bytes;
  p->buffer_output[b] = output;
  p->buffer_mapped[b] = fresh ? alloc : 0;
  p->buffer_map_bytes[b] = map_bytes;
  p->args.buf[b] = mem;
  if (!fresh && map_bytes == 0)   /* fresh mappings are zero */
    memset (mem, 0, alloc);
  return mem;
}

typedef struct {
  guint64 key;
  void *x;
  int lo;
  guint64 range;
} Fill;

static void
fill_floats_range (gsize lo, gsize hi, gpointer data)
{
  const Fill *f = data;
  float *x = f->x;
  for (gsize i = lo; i < hi; i++)   /* k / 2^23 for k in [-2^23, 2^23): exact floats */
    x[i] = (float) ((gint64) (ms_random_bits (f->key, i) >> 40) - (1 << 23)) * 0x1p-23f;
}

static void
fill_ints_range (gsize lo, gsize hi, gpointer data)
{
  const Fill *f = data;
  int *x = f->x;
  for (gsize i = lo; i < hi; i++)   /* the top 32 bits scaled to the range */
    x[i] = (int) ((gint64) f->lo + (gint64) (((ms_random_bits (f->key, i) >> 32) * f->range) >> 32));
}

/* Each fill of a problem draws its own stream (the setup's fills come in a
 * fixed order), so two inputs filled alike are not equal. */
void
ms_fill_floats (MsProblem *p, float *x, gsize n)
{
  Fill f = { ms_random_key (p->seed, p->n_fills++), x, 0, 0 };
  ms_parallel_for (n, FILL_GRAIN, p->threads, fill_floats_range, &f);
}

void
ms_fill_ints (MsProblem *p, int *x, gsize n, int lo, int hi)
{
  g_return_if_fail (lo <= hi);
  Fill f = { ms_random_key (p->seed, p->n_fills++), x, lo, (guint64) ((gint64) hi - lo + 1) };
  ms_parallel_for (n, FILL_GRAIN, p->threads, fill_ints_range, &f);
}

gboolean
ms_problem_set_sample (MsProblem *p, double percent, GError **error)
{
  if (!(percent > 0.0 && percent <= 100.0))
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--sample %g: give a percentage of the blocks, more than 0 and at most 100",
                   percent);
      return FALSE;
    }
  p->sample_period = (guint) MAX (1.0, 100.0 / percent + 0.5);
  return TRUE;
}

void
ms_problem_set_threads (MsProblem *p, guint threads)
{
  p->threads = threads;
}

guint
ms_div_up (guint64 a, guint b)
{
  return (guint) ((a + b - 1) / b);
}

typedef struct {
  const void *got, *want;
  double tolerance;
  gsize first;   /* the lowest mismatching index found (G_MAXSIZE: none) */
} Check;

static void
check_floats_range (gsize lo, gsize hi, gpointer data)
{
  Check *c = data;
  const float *got = c->got, *want = c->want;
  for (gsize i = lo; i < hi; i++)
    {
      double d = (double) got[i] - (double) want[i];
      if (!(d <= c->tolerance && -d <= c->tolerance))
        {
          ms_lowest_index_offer (&c->first, i);
          return;
        }
    }
}

static void
check_ints_range (gsize lo, gsize hi, gpointer data)
{
  Check *c = data;
  const int *got = c->got, *want = c->want;
  for (gsize i = lo; i < hi; i++)
    if (got[i] != want[i])
      {
        ms_lowest_index_offer (&c->first, i);
        return;
      }
}

gboolean
ms_check_floats (const MsProblem *p, const char *buffer, const float *got, const float *want,
                 gsize n, double tolerance, GError **error)
{
  Check c = { got, want, tolerance, G_MAXSIZE };
  ms_parallel_for (n, FILL_GRAIN, p->threads, check_floats_range, &c);
  if (c.first == G_MAXSIZE)
    return TRUE;
  return ms_check_fail_float (buffer, c.first, got[c.first], want[c.first], error);
}

gboolean
ms_check_fail_float (const char *buffer, gsize i, float got, float want, GError **error)
{
  g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_CHECK,
               "output check failed: %s[%zu] = %.9g, expected %.9g", buffer, i,
               (double) got, (double) want);
  return FALSE;
}

gboolean
ms_check_ints (const MsProblem *p, const char *buffer, const int *got, const int *want,
               gsize n, GError **error)
{
  Check c = { got, want, 0.0, G_MAXSIZE };
  ms_parallel_for (n, FILL_GRAIN, p->threads, check_ints_range, &c);
  if (c.first == G_MAXSIZE)
    return TRUE;
  g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_CHECK,
               "output check failed: %s[%zu] = %d, expected %d", buffer, c.first,
               got[c.first], want[c.first]);
  return FALSE;
}

void
ms_problem_set_progress (MsProblem *p, MsProgressFn progress, gpointer data)
{
  p->progress = progress;
  p->progress_data = data;
}

void
ms_problem_set_race_log (MsProblem *p, MsRaceLog *log)
{
  p->races = log;
}

static char *
kernel_source_line (gpointer data, const MsSite *site)
{
  return ms_kernel_source_line (site->file, site->line);
}

void
ms_problem_launch (const MsProblem *p, MsLaunch *launch)
{
  memset (launch, 0, sizeof *launch);
  launch->kernel = p->kernel->name;
  launch->entry = p->kernel->cpu_entry;
  launch->warp_entry = problem_warp_entry (p);
  if (p->warp_entry == NULL)
    {
      launch->block_entry = p->kernel->block_entry;
      launch->block_done = p->kernel->block_done;
      launch->block_entry_data = p->kernel->block_entry_data;
    }
  launch->in_order = p->kernel->in_order;   /* known once the entry is built */
  launch->args = p->args;
  launch->n_buffers = p->n_buffers;
  launch->progress = p->progress;
  launch->progress_data = p->progress_data;
  launch->allow_races = p->allow_races;
  launch->allow_unwritten = p->allow_unwritten;
  launch->allow_out_of_bounds = p->allow_out_of_bounds;
  launch->races = p->races;
  launch->source_line = kernel_source_line;
  launch->dynamic_shared = p->dynamic_shared;
  launch->cooperative = p->cooperative;
  launch->grid_workspace = p->grid_workspace;
  launch->oob_margin = p->guard_bytes;
  launch->dirty_pages = p->dirty_pages;
  for (guint b = 0; b < p->n_buffers; b++)
    {
      launch->buffer_names[b] = p->buffer_names[b];
      launch->buffer_bytes[b] = p->buffer_bytes[b];
    }
}

static char *sass_function (const MsProblem *p);
static const MsSass *problem_sass (const MsProblem *p, const char *function);

/* A user's kernel: its file's lines (sites in other files have none). */
static char *
external_source_line (gpointer data, const MsSite *site)
{
  const MsKernel *k = data;
  /* (sites from PTX name the file as nvcc was given it, a path) */
  const char *base = strrchr (k->source, '/');
  const char *site_base = strrchr (site->file, '/');
  base = base ? base + 1 : k->source;
  site_base = site_base ? site_base + 1 : site->file;
  if (site->line < 1 || strcmp (site_base, base) != 0)
    return NULL;
  for (int i = 0; k->source_lines[i]; i++)
    if (i + 1 == site->line)
      return g_strstrip (g_strdup (k->source_lines[i]));
  return NULL;
}

MsRunInfo *
ms_problem_run_info (const MsProblem *p, const MsArch *arch, const char *check)
{
  const MsKernel *k = p->kernel;
  MsRunInfo *info = ms_run_info_new ();
  info->kernel = g_strdup (k->name);
  info->family = g_strdup (k->family);
  info->origin = g_strdup (k->origin);
  info->description = g_strdup (k->description);
  const char *base = strrchr (k->source, '/');
  info->source = g_strdup (base ? base + 1 : k->source);
  info->arch = g_strdup (arch->name);
  info->producer = g_strdup ("memsim emulator");
  memcpy (info->grid, p->args.grid, sizeof info->grid);
  memcpy (info->block, p->args.block, sizeof info->block);
  for (int i = 0; k->params && k->params[i].name; i++)
    ms_run_info_add_param (info, k->params[i].name, p->param[i]);
  for (guint i = 0; i < p->n_run_params; i++)
    ms_run_info_add_param (info, p->run_param_names[i], p->run_params[i]);
  for (guint b = 0; b < p->n_buffers; b++)
    {
      ms_run_info_add_buffer (info, p->buffer_names[b], (guint64) (b + 1) << MS_BUFFER_SHIFT,
                              p->buffer_bytes[b]);
      info->buffer_host[b] = p->buffer_host[b];
    }
  info->buffers_complete = TRUE;
  info->check = g_strdup (check ? check : "not run");
  info->source_line = kernel_source_line;
  g_autofree char *function = sass_function (p);
  info->counts = g_strdup (function ? MS_COUNTS_SASS : MS_COUNTS_SOURCE);
  info->compiled = problem_warp_entry (p) != NULL;
  if (function)
    {
      info->contended = ms_sass_contended_lines (problem_sass (p, function), function);
      info->dependent = ms_sass_dependent_lines (problem_sass (p, function), function);
    }
  /* the cp.async lines, from the translation (a replay's sites know no flag) */
  const MsInstMap *inst = p->warp_entry ? p->inst_map : p->kernel->inst_map;
  if (inst != NULL && inst->async_copies->len > 0)
    {
      info->async_copies = g_new0 (char *, inst->async_copies->len + 1);
      for (guint i = 0; i < inst->async_copies->len; i++)
        info->async_copies[i] = g_strdup (inst->async_copies->pdata[i]);
    }
  if (k->source_lines != NULL)
    {
      info->source_line = external_source_line;
      info->source_data = (gpointer) k;
    }
  return info;
}

char *
ms_problem_function (const MsProblem *p, gboolean (*known) (gpointer data, const char *name),
                     gpointer data)
{
  const char *name = p->kernel->name;
  if (known (data, name))
    return g_strdup (name);
  if (param_index (p->kernel, "width") >= 0)
    {
      char *f = g_strdup_printf ("%s_%" G_GINT64_FORMAT, name, ms_problem_param (p, "width"));
      if (known (data, f))
        return f;
      g_free (f);
    }
  char *f = g_strdup_printf ("%s_%u", name, p->args.block[0]);
  if (known (data, f))
    return f;
  g_free (f);
  return NULL;
}

static gboolean
sass_knows (gpointer data, const char *name)
{
  (void) data;
  return ms_sass_has_function (ms_kernel_sass_function (name), name);
}

/* The kernel's function in the SASS, or NULL (source-level counts). */
static char *
sass_function (const MsProblem *p)
{
  if (p->source_counts)
    return NULL;
  if (p->kernel->external)   /* a user's kernel: its own build's, if any */
    return p->kernel->sass ? g_strdup (p->kernel->sass_function) : NULL;
  if (ms_kernel_sass_text[0] == '\0')
    return NULL;
  return ms_problem_function (p, sass_knows, NULL);
}

/* The SASS that holds function: the user's kernel's own, or the built-ins'. */
static const MsSass *
problem_sass (const MsProblem *p, const char *function)
{
  return p->kernel->sass ? p->kernel->sass : ms_kernel_sass_function (function);
}

const char *
ms_problem_counts (const MsProblem *p)
{
  g_autofree char *f = sass_function (p);
  return f ? MS_COUNTS_SASS : MS_COUNTS_SOURCE;
}

/* What the regrouping asks: a SASS and the kernel's function in it. */
typedef struct {
  const MsSass *sass;
  const char *function;
} SassRef;

static void
sass_grouping (gpointer data, const MsWarpAccess *a, MsGrouping *out)
{
  const SassRef *r = data;
  MsSassGrouping g = ms_sass_grouping (r->sass, r->function, a->site, a->space, a->op, a->width);
  out->fuse = g.fuse;
  out->n_blocks = g.n_blocks;
  memcpy (out->blocks, g.blocks, sizeof out->blocks);
  out->remainder_first = g.remainder_first;
  out->absorbed = g.absorbed;
}

/* Which global atomics are reductions (RED): for device code run from its
 * PTX, the instruction's own answer (MsSite.reduction: its result unused);
 * else from the SASS when the problem counts compiler-exact, else by the
 * source-level rule on the site's line (sass.h: ms_sass_source_reduction). */
typedef struct {
  const MsKernel *kernel;
  char **sass_lines;     /* the SASS's reduction lines, or NULL */
  gboolean sass;
  gboolean ptx;          /* the kernel runs from its PTX */
} Reductions;

static gboolean
site_is_reduction (gpointer data, const MsSite *site)
{
  const Reductions *d = data;
  if (d->ptx)
    return site->reduction != 0;
  if (site->file == NULL || site->line < 1)
    return FALSE;
  g_autofree char *base = g_path_get_basename (site->file);
  if (d->sass)
    {
      g_autofree char *key = g_strdup_printf ("%s:%d", base, site->line);
      return d->sass_lines && g_strv_contains ((const char *const *) d->sass_lines, key);
    }
  g_autofree char *line = NULL, *previous = NULL;
  const MsKernel *k = d->kernel;
  if (k->source_lines != NULL)   /* a user's kernel: its file's lines */
    {
      g_autofree char *own = g_path_get_basename (k->source);
      if (strcmp (own, base) != 0)
        return FALSE;
      for (int i = 0; k->source_lines[i] && i < site->line; i++)
        {
          if (i + 2 == site->line)
            previous = g_strdup (k->source_lines[i]);
          if (i + 1 == site->line)
            line = g_strdup (k->source_lines[i]);
        }
    }
  else
    {
      line = ms_kernel_source_line (site->file, site->line);
      previous = site->line > 1 ? ms_kernel_source_line (site->file, site->line - 1) : NULL;
    }
  return line != NULL && ms_sass_source_reduction (line, previous);
}

/* function's regions of the SASS (MsSassLoop: MsSass.loops or .blocks)
 * as the instruction count takes them (MsInstLoop, borrowing the tables). */
static GPtrArray *
inst_regions (const GPtrArray *regions, const char *function)
{
  GPtrArray *to = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < regions->len; i++)
    {
      const MsSassLoop *l = regions->pdata[i];
      if (strcmp (l->function, function) != 0)
        continue;
      MsInstLoop *r = g_new (MsInstLoop, 1);
      *r = (MsInstLoop) { l->instrs, l->memory, l->once, l->entry, l->first, l->last,
                          l->reductions };
      g_ptr_array_add (to, r);
    }
  return to;
}

/* The global and shared memory instructions each source line ran (the
 * models' counts, after the regrouping: ptxas's instructions), by
 * "file.cu:LINE" (MsInstSass.memory_runs), of the blocks that ran: s is
 * scaled by `scale` when sampled. */
static GHashTable *
memory_runs (const MsStats *s, double scale)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < s->sites->len; i++)
    {
      const MsSiteStats *x = &g_array_index (s->sites, MsSiteStats, i);
      if (x->space == MS_SPACE_LOCAL || x->site == NULL || x->site->file == NULL)
        continue;
      g_autofree char *base = g_path_get_basename (x->site->file);
      char *key = g_strdup_printf ("%s:%d", base, x->site->line);
      gdouble *v = g_hash_table_lookup (t, key);
      if (v == NULL)
        g_hash_table_insert (t, key, v = g_new0 (gdouble, 1));
      else
        g_free (key);
      *v += (double) x->c.executions / scale;
    }
  return t;
}

/* The cycles each block of the kernel adds to device code's clock: the
 * time model's for its SASS instructions (the line ratios) and its
 * dependence path at this launch's occupancy; a spin until the clock
 * reaches a value then runs the instructions the model times at that
 * value. */
double *
ms_problem_clock_cycles (const MsProblem *p, const MsArch *arch)
{
  const MsInstMap *inst = p->warp_entry ? p->inst_map : p->kernel->inst_map;
  /* only a kernel that reads the clock asks (the SASS's line counts are
   * not free: Rodinia's myocyte, 4 700 launches of one big kernel, spent
   * a third of its run on them) */
  if (inst == NULL || !inst->reads_clock)
    return NULL;
  g_autofree char *function = sass_function (p);
  MsInstSass by_line = { 0 };
  const MsSass *sass = function ? problem_sass (p, function) : NULL;
  if (sass)
    by_line.lines = ms_sass_line_counts (sass, function, MS_SASS_ALL);
  double *w = ms_inst_block_sass (inst, &by_line);
  if (by_line.lines)
    g_hash_table_unref (by_line.lines);
  MsOccInput in;
  MsOccupancy occ;
  ms_problem_occupancy_input (p, &in);
  gboolean timed = arch->has_costs && ms_occupancy_compute (arch, &in, &occ, NULL);
  guint64 blocks = (guint64) p->args.grid[0] * p->args.grid[1] * p->args.grid[2];
  for (guint b = 0; timed && b < inst->n_blocks; b++)
    {
      double dependent = b < inst->waits->len
                           ? (double) g_array_index (inst->waits, MsInstWaits, b).dependent_cycles
                           : 0.0;
      w[b] = ms_time_block_cycles (arch, occ.active_blocks, occ.warps_per_block, blocks, w[b],
                                   dependent);
    }
  return w;
}

gboolean
ms_problem_simulate (const MsProblem *p, const MsArch *arch, guint threads,
                     const MsSinks *extra, MsStats **stats, GError **error)
{
  MsLaunch launch;
  ms_problem_launch (p, &launch);
  launch.sample_period = p->sample_period;
  launch.sample_group = arch->sm_count > 0 ? 2 * (guint) arch->sm_count : 256;
  guint64 blocks = (guint64) p->args.grid[0] * p->args.grid[1] * p->args.grid[2];
  guint64 blocks_run = ms_launch_sampled_blocks (&launch);
  /* the cache model adapts its L2 to a sample (cache.c) */
  MsArch sampled = *arch;
  if (blocks_run < blocks)
    {
      sampled.sample_fraction = (double) blocks_run / (double) blocks;
      arch = &sampled;
    }
  g_autoptr (MsModelRun) run =
    ms_model_run_new (arch, (guint64) p->args.block[0] * p->args.block[1] * p->args.block[2],
                      error);
  if (run == NULL)
    return FALSE;
  /* mapped host memory: its traffic crosses the host link, not DRAM */
  guint64 base[MS_MAX_BUFFERS], bytes[MS_MAX_BUFFERS];
  for (guint b = 0; b < p->n_buffers; b++)
    {
      base[b] = (guint64) (b + 1) << MS_BUFFER_SHIFT;
      bytes[b] = p->buffer_bytes[b];
    }
  ms_model_run_set_host_memory (run, p->n_buffers, base, bytes, p->buffer_host);
  g_autofree char *function = sass_function (p);
  /* inner: what the models see, behind the reductions' filter and the
   * regrouping (when there is one), in that order; sinks: what the
   * emulator drives (and the extra sinks that want its records as they
   * are: source_level) */
  MsSinks inner = { 0 }, middle = { 0 }, sinks = { 0 };
  ms_sinks_add (&inner, ms_model_run_sink (run));
  for (guint i = 0; extra && i < extra->n; i++)
    if (!ms_sinks_add (extra->sink[i]->source_level ? &sinks : &inner, extra->sink[i])
        || sinks.n == MS_MAX_SINKS)
      {
        g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                     "too many consumers of the access stream (at most %d)", MS_MAX_SINKS);
        return FALSE;
      }
  Reductions reductions = { .kernel = p->kernel, .sass = function != NULL,
                            .ptx = problem_warp_entry (p) != NULL };
  SassRef ref = { function ? problem_sass (p, function) : NULL, function };
  if (function && !reductions.ptx)
    reductions.sass_lines = ms_sass_reduction_lines (ref.sass, function);
  /* no filter where the nvcc build has no RED: every record would pass it
   * unchanged, at a few tens of instructions each (callgrind,
   * reduce_interleaved: 4%) */
  g_autoptr (MsReduction) reduce =
    function == NULL || reductions.sass_lines != NULL || reductions.ptx
    ? ms_reduction_new (&inner, site_is_reduction, &reductions) : NULL;
  if (reduce)
    ms_sinks_add (&middle, ms_reduction_sink (reduce));
  else
    middle = inner;
  g_autoptr (MsRegroup) regroup = function ? ms_regroup_new (&middle, sass_grouping, &ref) : NULL;
  ms_sinks_add (&sinks, regroup ? ms_regroup_sink (regroup) : ms_reduction_sink (reduce));
  launch.threads = threads;
  launch.shared_bytes = p->shared_bytes;
  launch.sinks = &sinks;
  launch.warp_hazards = ms_arch_independent_threads (arch);
  const MsInstMap *inst = p->warp_entry ? p->inst_map : p->kernel->inst_map;
  g_autofree guint64 *block_counts = inst ? g_new0 (guint64, inst->n_blocks) : NULL;
  launch.block_counts = block_counts;
  launch.n_block_counts = inst ? inst->n_blocks : 0;
  g_autofree double *block_cycles = ms_problem_clock_cycles (p, arch);
  launch.block_cycles = block_cycles;
  launch.clock_ghz = arch->clock_mhz / 1000.0;
  MsRuntimeCalls runtime;
  launch.runtime_calls = &runtime;
  guint64 async_fills = 0;
  launch.async_fills = &async_fills;
  MsSlowPathRuns slow_paths;
  launch.slow_paths = &slow_paths;
  gboolean emulated = ms_emulate (&launch, error);
  g_strfreev (reductions.sass_lines);
  if (!emulated)
    return FALSE;
  if (regroup)
    ms_regroup_finish (regroup);
  MsStats *s = ms_model_run_finish_sampled (run, blocks, blocks_run);
  /* what the regrouping did, scaled like the counts when sampled */
  double scale = blocks_run > 0 ? (double) blocks / (double) blocks_run : 1.0;
  s->fused = regroup ? (guint64) (ms_regroup_merged (regroup) * scale + 0.5) : 0;
  s->unrolled = regroup ? (guint64) (ms_regroup_unrolled (regroup) * scale + 0.5) : 0;
  s->async_fills = (guint64) (async_fills * scale + 0.5);
  for (guint k = 0; k < MS_RUNTIME_KINDS; k++)
    {
      s->runtime.calls[k] = (guint64) (runtime.calls[k] * scale + 0.5);
      s->runtime.lanes[k] = (guint64) (runtime.lanes[k] * scale + 0.5);
      s->runtime.chain[k] = runtime.chain[k];
    }
  s->runtime.printf_format_bytes = (guint64) (runtime.printf_format_bytes * scale + 0.5);
  s->runtime.printf_conversions = (guint64) (runtime.printf_conversions * scale + 0.5);
  s->runtime.printf_lane_conversions = (guint64) (runtime.printf_lane_conversions * scale + 0.5);
  s->runtime.printf_string_bytes = (guint64) (runtime.printf_string_bytes * scale + 0.5);
  double runtime_instructions = 0;
  ms_device_runtime_counts (&s->runtime, s->runtime_own, &runtime_instructions);
  /* the slow paths of float division and its kin: ptxas's code, no line's */
  double slow_path_instructions = ms_slow_path_instructions (&slow_paths) * scale;
  s->slow_path_instructions = (guint64) (slow_path_instructions + 0.5);
  if (inst)
    {
      const MsSass *sass = function ? problem_sass (p, function) : NULL;
      MsInstSass by_line = { 0 };
      if (sass)
        {
          by_line.lines = ms_sass_line_counts (sass, function, MS_SASS_ALL);
          by_line.predicated = ms_sass_line_counts (sass, function, MS_SASS_PREDICATED);
          by_line.looped = ms_sass_line_counts (sass, function, MS_SASS_LOOPED);
          by_line.memory = ms_sass_line_counts (sass, function, MS_SASS_MEMORY);
          by_line.loops = inst_regions (sass->loops, function);
          by_line.blocks = inst_regions (sass->blocks, function);
          /* the blocks that ran, as the engine's block counts: s is scaled */
          by_line.memory_runs = memory_runs (s, scale);
        }
      guint64 block_threads = (guint64) p->args.block[0] * p->args.block[1] * p->args.block[2];
      guint64 warps = blocks_run * ((block_threads + 31) / 32);
      s->inst_executed = (guint64) (ms_inst_executed (inst, block_counts, &by_line, warps,
                                                      &s->inst_basis, &s->inst_lines)
                                    * scale + runtime_instructions + slow_path_instructions
                                    + 0.5);
      MsInstWaits w;
      ms_inst_waits (inst, block_counts, &w);
      s->load_rounds = (guint64) (w.rounds * scale + 0.5);
      s->barriers = (guint64) (w.barriers * scale + 0.5);
      s->texture_fetches = (guint64) (w.textures * scale + 0.5);
      s->dependent_cycles = (guint64) (w.dependent_cycles * scale + 0.5);
      g_clear_pointer (&by_line.lines, g_hash_table_unref);
      g_clear_pointer (&by_line.predicated, g_hash_table_unref);
      g_clear_pointer (&by_line.looped, g_hash_table_unref);
      g_clear_pointer (&by_line.memory, g_hash_table_unref);
      g_clear_pointer (&by_line.memory_runs, g_hash_table_unref);
      g_clear_pointer (&by_line.loops, g_ptr_array_unref);
      g_clear_pointer (&by_line.blocks, g_ptr_array_unref);
      for (guint k = 0; s->inst_lines && k < s->inst_lines->len; k++)
        {
          MsInstLineCount *c = &g_array_index (s->inst_lines, MsInstLineCount, k);
          c->ptx_runs *= scale;
          c->executed *= scale;
        }
    }
  if (stats)
    *stats = s;
  else
    ms_stats_free (s);
  return TRUE;
}

/* ------------------------------------------------------- source lines */

void ms_kernel_sources_register_resource (void);   /* kernels-resources.c */

static GMutex source_lock;
static GHashTable *source_cache;   /* file -> GStrv of lines */

char *
ms_kernel_source_line (const char *file, int line)
{
  const char *base = strrchr (file, '/');
  base = base ? base + 1 : file;
  g_mutex_lock (&source_lock);
  if (source_cache == NULL)
    source_cache = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                          (GDestroyNotify) g_strfreev);
  char **lines = g_hash_table_lookup (source_cache, base);
  if (lines == NULL)
    {
      g_autofree char *path = g_strconcat ("/org/memsim/kernels/", base, NULL);
      g_autoptr (GBytes) bytes = ms_kernel_sources_lookup (path);
      if (bytes != NULL)
        {
          g_autofree char *text = g_strndup (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
          lines = g_strsplit (text, "\n", -1);
          g_hash_table_insert (source_cache, g_strdup (base), lines);
        }
    }
  char *result = NULL;
  if (lines != NULL && line >= 1 && (guint) line <= g_strv_length (lines))
    result = g_strstrip (g_strdup (lines[line - 1]));
  g_mutex_unlock (&source_lock);
  return result;
}
