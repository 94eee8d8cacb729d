/* cmd-compare.c - `memsim compare FAMILY`: every variant of a kernel family,
 * in the registry's order (the seeds' order), simulated at the same size,
 * one row each: the table of seed 003 (reduction, stencil), seed 004
 * (GEMM) or seed 002 (transpose), with the simulated counts and their ratio
 * to the first variant.  Every variant's output is checked; a failed check
 * makes the command fail.
 *
 * Definitions (also in --help and docs/kernels.md):
 *   instructions  warp-level global + shared memory instructions executed
 *   sectors/req   global sectors / global requests
 *   wavefr/inst   shared wavefronts / shared instructions
 *   excessive     shared wavefronts beyond the ideal (bank conflicts)
 *   global        global sectors x 32 B (every sector whether or not the lanes
 *                 use all of it, L1 hits included)
 *   shared        shared wavefronts x 128 B (each wavefront is one 128-byte
 *                 pass over the 32 banks)
 *   DRAM          bytes read + written, from the cache model (sim/models/cache.c)
 *   then the predicted time, bandwidth, speedup and bound (kernel-time.c)
 *   partial       share of the memory instructions run with a partial warp
 */
#include "config.h"

#include <string.h>

#include "backend.h"
#include "commands.h"
#include "emulator.h"
#include "kernel-options.h"
#include "kernel-time.h"
#include "problem.h"
#include "progress.h"
#include "replay.h"
#include "report.h"

typedef MsCompareRow CompareRow;

static gboolean compare_gpu;   /* --gpu: measure every variant (gpu/backend.h) */
static gboolean seed_sizes;    /* --seed-sizes: the sizes of the seeds' tables */

/* The sizes of the seeds' tables (--seed-sizes).  Seed 004's GEMM table is
 * at 4096^3, where the whole grid would take the emulator about an hour:
 * the GEMMs run a 1% sample of their blocks (unless --sample is given),
 * which keeps every instruction count and over-estimates only the DRAM
 * reads (docs/model.md, "Block sampling"). */
static const struct {
  const char *family, *size, *params[4], *sample, *note;
} seed_table[] = {
  { "transpose", "8192x8192", { NULL }, NULL, "seed 002 / issue: 8192x8192" },
  { "reduce", NULL, { "n=16777216", NULL }, NULL, "seed 003: 16M elements" },
  { "stencil", "256x256x256", { NULL }, NULL,
    "seed 003's stencil has no size; 256^3 (64 MB per array)" },
  { "gemm", NULL, { "n=4096", "m=4096", "k=4096", NULL }, "1",
    "seed 004: 4096^3, a sample of 1% of the blocks (--sample to change it)" },
};

/* Puts the seed's size for family into opts; FALSE when it has none. */
static gboolean
apply_seed_sizes (MsKernelOptions *opts, const char *family, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (seed_table); i++)
    if (strcmp (seed_table[i].family, family) == 0)
      {
        g_free (opts->size);
        opts->size = g_strdup (seed_table[i].size);
        g_strfreev (opts->params);
        opts->params = g_strdupv ((char **) seed_table[i].params);
        if (opts->sample == NULL && seed_table[i].sample != NULL)
          opts->sample = g_strdup (seed_table[i].sample);
        g_printerr ("memsim: compare %s --seed-sizes: %s\n", family, seed_table[i].note);
        return TRUE;
      }
  g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
               "--seed-sizes: no seed table for the %s family; give --size or -p instead", family);
  return FALSE;
}
static const MsArch *compare_arch;   /* --arch, resolved once per run */

static void
compare_row_clear (CompareRow *row)
{
  g_free (row->size);
  g_free (row->check);
  g_free (row->bound);
}

/* The cache and time models' figures for a variant that ran. */
static void
predict_variant (const MsKernelOptions *opts, const MsProblem *p, const MsStats *stats,
                 CompareRow *row)
{
  MsOccupancyRow occ;
  MsTimePrediction t;
  gboolean timed;
  ms_kernel_options_costs (opts, p, compare_arch, stats, &occ, &t, &timed);
  if (timed)
    {
      row->predicted = TRUE;
      row->dram_bytes = t.dram_bytes;
      row->pred_event_seconds = t.event_seconds;   /* as --gpu measures: CUDA events */
      row->pred_duration_seconds = t.seconds;
      row->pred_bandwidth = ms_time_gbs (&t, ms_problem_buffers_bytes (p));
      row->bound = ms_time_bound_text (&t, compare_arch);
    }
  ms_occupancy_row_clear (&occ);
}

/* Sets -p NAME=VALUE on every variant that has the parameter. */
static gboolean
apply_params (MsProblem *p, char **params, GError **error)
{
  for (int i = 0; params && params[i]; i++)
    {
      const char *eq = strchr (params[i], '=');
      g_autofree char *name = g_strndup (params[i], (gsize) (eq - params[i]));
      for (const MsParamSpec *s = p->kernel->params; s && s->name; s++)
        if (strcmp (s->name, name) == 0 && !ms_problem_set_param (p, name, eq + 1, error))
          return FALSE;
    }
  return TRUE;
}

/* Checks the -p options: NAME=VALUE, a parameter of some variant. */
static gboolean
check_params (const char *family, char **params, GError **error)
{
  for (int i = 0; params && params[i]; i++)
    {
      const char *eq = strchr (params[i], '=');
      if (eq == NULL || eq == params[i])
        {
          g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                       "-p %s: write NAME=VALUE", params[i]);
          return FALSE;
        }
      g_autofree char *name = g_strndup (params[i], (gsize) (eq - params[i]));
      gboolean found = FALSE;
      for (const MsKernel *const *k = ms_kernels (); *k && !found; k++)
        if (strcmp ((*k)->family, family) == 0)
          for (const MsParamSpec *s = (*k)->params; s && s->name; s++)
            found |= strcmp (s->name, name) == 0;
      if (!found)
        {
          g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                       "-p %s: no %s kernel has a parameter '%s'; `memsim list --params` "
                       "shows them", params[i], family, name);
          return FALSE;
        }
    }
  return TRUE;
}

/* The row's counts from a run's stats (live or replayed). */
static void
fill_counts (CompareRow *row, const MsStats *stats)
{
  const MsArch *arch = compare_arch;
  MsCounters g, s;
  row->blocks = stats->blocks;
  row->blocks_run = stats->blocks_run ? stats->blocks_run : stats->blocks;
  ms_stats_total (stats, MS_SPACE_GLOBAL, -1, &g);
  ms_stats_total (stats, MS_SPACE_SHARED, -1, &s);
  row->global_inst = g.executions;
  row->requests = g.v[MS_SLOT_REQUESTS];
  row->sectors = g.v[MS_SLOT_SECTORS];
  row->shared_inst = s.executions;
  row->wavefronts = s.v[MS_SLOT_WAVEFRONTS];
  row->excessive = s.v[MS_SLOT_EXCESSIVE];
  row->instructions = g.executions + s.executions;
  row->global_bytes = row->sectors * (guint64) arch->sector_bytes;
  row->shared_bytes = row->wavefronts * (guint64) (arch->banks * arch->bank_bytes);
  row->bytes = row->global_bytes + row->shared_bytes;
  ms_report_divergence (stats, &row->divergence);
  row->fused = stats->fused;
  row->unrolled = stats->unrolled;
}

/* One row per trace file: the replayed counts (`compare A.trace B.trace`);
 * the size column names the file. */
static gboolean
replay_variant (const MsKernelOptions *opts, const char *path, CompareRow *row, GError **error)
{
  g_autoptr (MsTraceSource) src = ms_trace_source_open (path, error);
  if (src == NULL)
    return FALSE;
  const MsRunInfo *info = src->info (src);
  g_autoptr (MsStats) stats = NULL;
  if (!ms_trace_replay_models (src, compare_arch, (guint) opts->threads, NULL, &stats,
                               &row->seconds, error))
    return FALSE;
  row->kernel = g_intern_string (info->kernel);
  row->size = g_path_get_basename (path);
  memcpy (row->block, info->block, sizeof row->block);
  row->check = g_strdup (info->check);
  row->passed = TRUE;   /* a recorded run: its check is reported as recorded */
  fill_counts (row, stats);
  return TRUE;
}

/* Builds, simulates and checks one variant.  FALSE (error set) when it
 * cannot run; a failed output check is a row with passed = FALSE. */
static gboolean
run_variant (const MsKernelOptions *opts, const MsKernel *k, CompareRow *row, GError **error)
{
  g_autoptr (MsProblem) p = ms_problem_new (k);
  p->source_counts = opts->source_counts;
  ms_problem_set_threads (p, (guint) opts->threads);
  g_autoptr (MsRaceLog) races = ms_race_log_new ();
  p->allow_races = opts->allow_races;
  ms_problem_set_race_log (p, races);
  row->kernel = k->name;
  row->counts = ms_problem_counts (p);
  if (opts->sample && !ms_kernel_options_sample (opts->sample, p, error))
    return FALSE;
  if (opts->block)
    {
      g_autoptr (GError) e = NULL;
      if (!ms_problem_set_block (p, opts->block, &e))
        {
          if (!g_error_matches (e, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_BLOCK_RULE))
            {
              g_propagate_error (error, g_steal_pointer (&e));
              return FALSE;
            }
          row->block_default = TRUE;   /* the variant runs at its own block */
        }
    }
  if ((opts->size && !ms_problem_set_size (p, opts->size, error))
      || !apply_params (p, opts->params, error))
    return FALSE;
  p->arch = compare_arch;   /* a launch may be sized for it */
  if (!ms_problem_setup (p, error))
    return FALSE;

  g_autoptr (MsStats) stats = NULL;
  g_autoptr (MsGpuSnapshot) input = compare_gpu ? ms_gpu_snapshot_new (p) : NULL;
  gint64 t0 = g_get_monotonic_time ();
  if (!ms_simulate_with_progress (p, compare_arch, (guint) opts->threads, NULL, &stats, error))
    {
      g_prefix_error (error, "%s: ", k->name);
      return FALSE;
    }
  row->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  row->races = races->n_races;
  g_autoptr (GError) check_error = NULL;
  gboolean sampled = ms_stats_sampled (stats);   /* the output is partial: no check */
  row->passed = sampled || k->check (p, &check_error);
  row->check = g_strdup (sampled ? "not run (sampled)" : row->passed ? "passed"
                         : check_error->message);

  g_autoptr (GString) size = g_string_new (NULL);
  for (int d = 0; d < 3 && k->size_params[d]; d++)
    g_string_append_printf (size, "%s%" G_GINT64_FORMAT, d ? "x" : "",
                            ms_problem_param (p, k->size_params[d]));
  row->size = g_string_free (g_steal_pointer (&size), FALSE);
  memcpy (row->block, p->args.block, sizeof row->block);

  fill_counts (row, stats);
  predict_variant (opts, p, stats, row);
  /* GPU HOOK: measure the variant here (same p, after the check passed). */
  if (compare_gpu && row->passed)
    {
      double ms = 0, gbs = 0;
      if (!ms_gpu_measure (p, input, &ms, &gbs, NULL, error))
        {
          g_prefix_error (error, "%s: ", k->name);
          return FALSE;
        }
      row->gpu_measured = TRUE;
      row->gpu_event_seconds = ms * 1e-3;
      row->gpu_bandwidth = gbs;
    }
  return TRUE;
}

/* "transpose, reduce, ..." in registry order. */
static char *
family_names (void)
{
  g_autoptr (GString) names = g_string_new (NULL);
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    if (strcmp ((*k)->family, "test") != 0
        && !g_ptr_array_find_with_equal_func (seen, (*k)->family, g_str_equal, NULL))
      {
        g_ptr_array_add (seen, (gpointer) (*k)->family);
        g_string_append_printf (names, "%s%s", names->len ? ", " : "", (*k)->family);
      }
  return g_string_free (g_steal_pointer (&names), FALSE);
}

static int
compare_run (MsKernelOptions *opts, GOptionContext *ctx, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  MsFormat format;
  if (ms_parse_command_line (ctx, &argc, &argv, &opts->format, &format) != 0)
    return 2;
  g_autofree char *families = family_names ();
  /* compare TRACE TRACE...: files instead of a family */
  gboolean traces = argc >= 2 && ms_kernel_find (argv[1]) == NULL
                    && g_file_test (argv[1], G_FILE_TEST_EXISTS);
  if (argc != 2 && !traces)
    {
      ms_error ("compare needs exactly one FAMILY (%s) or trace files", families);
      return 2;
    }
  const char *family = traces ? "traces" : argv[1];
  int bad = ms_check_output ("-o", opts->output);
  if (bad != 0)
    return bad;
  if (opts->threads < 0 || opts->threads > 1024)
    {
      ms_error ("--threads %d: give 0 (one per core) to 1024", opts->threads);
      return 2;
    }
  if (traces && (opts->params || opts->size || opts->block))
    {
      ms_error ("-p, --size and --block do not apply to trace files (they were recorded)");
      return 2;
    }
  gboolean known = traces;
  for (const MsKernel *const *k = ms_kernels (); *k && !known; k++)
    known = strcmp ((*k)->family, family) == 0;
  if (!known)
    {
      ms_error ("unknown family '%s'; the families are: %s", family, families);
      return 2;
    }
  if (seed_sizes && (traces || opts->size || opts->params))
    {
      ms_error ("--seed-sizes sets the size itself: leave out --size and -p (and trace files)");
      return 2;
    }
  if (seed_sizes && !apply_seed_sizes (opts, family, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  if (!traces && !check_params (family, opts->params, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  /* --gpu: the measured device's preset unless --arch (the note says) */
  g_autofree char *arch_note = NULL;
  int arch_status;
  g_autoptr (MsArch) arch = ms_kernel_options_gpu_arch (opts, compare_gpu, &arch_note,
                                                        &arch_status, &error);
  if (arch == NULL)
    {
      ms_error ("%s", error->message);
      return arch_status;
    }
  compare_arch = arch;

  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (CompareRow));
  g_array_set_clear_func (rows, (GDestroyNotify) compare_row_clear);
  for (int i = 1; traces && i < argc; i++)
    {
      g_array_set_size (rows, rows->len + 1);
      CompareRow *row = &g_array_index (rows, CompareRow, rows->len - 1);
      if (!replay_variant (opts, argv[i], row, &error))
        {
          ms_error ("%s", error->message);
          return 1;
        }
    }
  for (const MsKernel *const *k = ms_kernels (); *k && !traces; k++)
    {
      if (strcmp ((*k)->family, family) != 0)
        continue;
      g_array_set_size (rows, rows->len + 1);
      CompareRow *row = &g_array_index (rows, CompareRow, rows->len - 1);
      if (!run_variant (opts, *k, row, &error))
        {
          ms_error ("%s", error->message);
          /* a bad parameter or a size too big for the machine: usage */
          return g_error_matches (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM)
                 || g_error_matches (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_TOO_BIG) ? 2 : 1;
        }
    }
  if (rows->len == 0)
    {
      ms_error ("unknown family '%s'; the families are: %s", family, families);
      return 2;
    }

  const CompareRow *r = (const CompareRow *) (void *) rows->data;
  g_autoptr (GString) out = g_string_new (NULL);
  ms_compare_report_write (family, compare_arch, arch_note, r, rows->len, format, out);
  if (!ms_write_output (opts->output, out, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  int status = 0;
  for (guint i = 0; i < rows->len; i++)
    if (!r[i].passed)
      {
        ms_error ("%s: %s", r[i].kernel, r[i].check);
        status = 1;
      }
  return status;
}

int
ms_cmd_compare (int argc, char **argv)
{
  MsKernelOptions opts = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "FAMILY|TRACE... - simulate every variant of a kernel family, one row each");
  g_option_context_set_description (
    ctx, "Runs every kernel of FAMILY (transpose, reduce, stencil, gemm, access) in the\n"
         "order of the seeds' tables, at the same --size, checks each output, and prints\n"
         "one row per variant with its ratio to the first:\n"
         "  instructions  warp-level global + shared memory instructions\n"
         "  sect/req      global sectors per request\n"
         "  wavefr/inst   shared wavefronts per shared instruction\n"
         "  excessive     shared wavefronts beyond the ideal (bank conflicts)\n"
         "  global        global sectors x 32 B (every sector a warp touches, used or\n"
         "                not; L1 hits included)\n"
         "  shared        shared wavefronts x 128 B (every pass over the 32 banks)\n"
         "  DRAM          bytes read + written, predicted by the cache model\n"
         "  partial       memory instructions run with a partial warp (divergence)\n"
         "--block applies where a variant's block rule allows it; the others run at\n"
         "their own block (marked *).  -p sets a parameter on the variants that have it.\n"
         "Then, where the preset has the cost figures, the predicted time, effective\n"
         "bandwidth (the kernel's buffers / time), speedup over the first and what\n"
         "bounds each variant (docs/model.md).\n"
         "A failed output check is an error (exit status 1).\n\n"
         "Examples:\n"
         "  memsim compare reduce\n"
         "  memsim compare transpose --size 2048x2048 --format csv -o transpose.csv\n"
         "  memsim compare reduce --block 512 -p n=1000000\n"
         "  memsim compare reduce --seed-sizes   # seed 003's 16M elements\n"
         "  memsim compare naive.trace shared.trace   # one row per trace file, replayed\n");
  ms_kernel_options_add (ctx, &opts, TRUE);
  GOptionEntry gpu_entries[] = {
    { "gpu", 0, 0, G_OPTION_ARG_NONE, &compare_gpu,
      "Also run every variant on the GPU: measured time (median, L2 flushed), effective "
      "bandwidth (the kernel's buffers / time) and speedup over the first", NULL },
    { "seed-sizes", 0, 0, G_OPTION_ARG_NONE, &seed_sizes,
      "Run at the sizes of the seeds' tables: transposes 8192x8192, reductions 16M, "
      "stencils 256^3, GEMMs 1024^3 (seed 004: 4096^3)", NULL },
    { NULL },
  };
  g_option_context_add_main_entries (ctx, gpu_entries, NULL);
  int status = compare_run (&opts, ctx, argc, argv);
  ms_kernel_options_clear (&opts);
  return status;
}
