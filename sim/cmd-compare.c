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
 *   bytes moved   global bytes + shared bytes: the traffic the L1/shared-
 *                 memory pipeline handles for the kernel's memory instructions
 *     global      global sectors x 32 B (every sector whether or not the lanes
 *                 use all of it, L1 hits included: a cache model would tell
 *                 how much of it reaches L2 and DRAM)
 *     shared      shared wavefronts x 128 B (each wavefront is one 128-byte
 *                 pass over the 32 banks)
 *   partial       share of the memory instructions run with a partial warp
 */
#include "config.h"

#include <json-glib/json-glib.h>
#include <string.h>

#include "backend.h"
#include "commands.h"
#include "emulator.h"
#include "kernel-options.h"
#include "problem.h"
#include "report.h"

typedef struct {
  const MsKernel *kernel;
  char *size;              /* the size parameters, "WxHxD" */
  unsigned block[3];
  gboolean block_default;  /* --block was given but the block rule forbids it */
  guint64 instructions, global_inst, requests, sectors, shared_inst, wavefronts, excessive;
  guint64 bytes, global_bytes, shared_bytes;
  MsDivergence divergence;
  double seconds;          /* wall time of the simulation */
  char *check;             /* "passed" or the failure */
  gboolean passed;
  /* ---- GPU HOOK -------------------------------------------------------
   * Where `compare --gpu` (gpu/, being built) joins the measured columns
   * of seed 003's table: fill these after the variant's emulator run and
   * check (run_variant), with the same MsProblem, then the writers below
   * print them (search "GPU HOOK").  Left unset: the columns are absent. */
  gboolean gpu_measured;
  double gpu_seconds;      /* gpu__time_duration.sum, median of repeats */
  double gpu_bandwidth;    /* GB/s: the kernel's buffers / gpu_seconds (ms_gpu_measure) */
} CompareRow;

static gboolean compare_gpu;   /* --gpu: measure every variant (gpu/backend.h) */
static const MsArch *compare_arch;   /* --arch, resolved once per run */

static void
compare_row_clear (CompareRow *row)
{
  g_free (row->size);
  g_free (row->check);
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

/* Builds, simulates and checks one variant.  FALSE (error set) when it
 * cannot run; a failed output check is a row with passed = FALSE. */
static gboolean
run_variant (const MsKernelOptions *opts, const MsKernel *k, CompareRow *row, GError **error)
{
  g_autoptr (MsProblem) p = ms_problem_new (k);
  row->kernel = k;
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
      || !apply_params (p, opts->params, error) || !ms_problem_setup (p, error))
    return FALSE;

  MsLaunch launch;
  ms_problem_launch (p, compare_arch, &launch);
  launch.threads = (guint) opts->threads;
  g_autoptr (MsStats) stats = NULL;
  g_autoptr (MsGpuSnapshot) input = compare_gpu ? ms_gpu_snapshot_new (p) : NULL;
  gint64 t0 = g_get_monotonic_time ();
  if (!ms_emulate (&launch, &stats, error))
    {
      g_prefix_error (error, "%s: ", k->name);
      return FALSE;
    }
  row->seconds = (double) (g_get_monotonic_time () - t0) / 1e6;
  g_autoptr (GError) check_error = NULL;
  row->passed = k->check (p, &check_error);
  row->check = g_strdup (row->passed ? "passed" : check_error->message);

  g_autoptr (GString) size = g_string_new (NULL);
  for (int d = 0; d < 3 && k->size_params[d]; d++)
    g_string_append_printf (size, "%s%" G_GINT64_FORMAT, d ? "x" : "",
                            ms_problem_param (p, k->size_params[d]));
  row->size = g_string_free (g_steal_pointer (&size), FALSE);
  memcpy (row->block, p->args.block, sizeof row->block);

  const MsArch *arch = compare_arch;
  MsCounters g, s;
  ms_stats_total (stats, MS_SPACE_GLOBAL, -1, &g);
  ms_stats_total (stats, MS_SPACE_SHARED, -1, &s);
  row->global_inst = g.executions;
  row->requests = g.requests;
  row->sectors = g.sectors;
  row->shared_inst = s.executions;
  row->wavefronts = s.wavefronts;
  row->excessive = s.excessive;
  row->instructions = g.executions + s.executions;
  row->global_bytes = g.sectors * (guint64) arch->sector_bytes;
  row->shared_bytes = s.wavefronts * (guint64) (arch->banks * arch->bank_bytes);
  row->bytes = row->global_bytes + row->shared_bytes;
  ms_report_divergence (stats, &row->divergence);
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
      row->gpu_seconds = ms * 1e-3;
      row->gpu_bandwidth = gbs;
    }
  return TRUE;
}

static double
ratio (guint64 a, guint64 b)
{
  return b ? (double) a / (double) b : 0.0;
}

static void
write_text (const char *family, const CompareRow *rows, guint n, GString *out)
{
  const MsArch *arch = compare_arch;
  g_string_append_printf (out, "memsim compare %s: %u variants, %s (%s), simulated\n\n", family,
                          n, arch->name, arch->description);
  g_string_append_printf (out, "%-26s %-12s %-8s %12s %8s %11s %10s %10s %10s %7s %8s %7s %8s"
                               "  %s\n",
                          "variant", "size", "block", "instructions", "sect/req", "wavefr/inst",
                          "excessive", "global", "shared", "inst x", "global x", "bytes x",
                          "partial", "check");
  for (guint i = 0; i < n; i++)
    {
      const CompareRow *r = &rows[i];
      /* "256", "32x8", "32x4x2"; * marks a variant that ignored --block */
      g_autofree char *block =
        r->block[2] > 1 ? g_strdup_printf ("%ux%ux%u%s", r->block[0], r->block[1], r->block[2],
                                           r->block_default ? "*" : "")
        : r->block[1] > 1 ? g_strdup_printf ("%ux%u%s", r->block[0], r->block[1],
                                             r->block_default ? "*" : "")
                          : g_strdup_printf ("%u%s", r->block[0], r->block_default ? "*" : "");
      g_autofree char *global = g_format_size (r->global_bytes);
      g_autofree char *shared = g_format_size (r->shared_bytes);
      g_string_append_printf (out,
                              "%-26s %-12s %-8s %12" G_GUINT64_FORMAT " %8.2f %11.2f %10"
                              G_GUINT64_FORMAT " %10s %10s %6.2fx %7.2fx %6.2fx %7.1f%%  %s\n",
                              r->kernel->name, r->size, block, r->instructions,
                              ratio (r->sectors, r->requests),
                              ratio (r->wavefronts, r->shared_inst), r->excessive, global, shared,
                              ratio (r->instructions, rows[0].instructions),
                              ratio (r->global_bytes, rows[0].global_bytes),
                              ratio (r->bytes, rows[0].bytes),
                              100.0 * r->divergence.partial_warp_share,
                              r->passed ? "passed" : "FAILED");
    }
  if (rows[0].gpu_measured)
    {
      g_string_append (out, "\nmeasured on the GPU (median of the launches, L2 flushed before "
                            "each; GB/s: the kernel's buffers / time):\n");
      g_string_append_printf (out, "%-26s %12s %10s %9s\n", "variant", "time (ms)", "GB/s",
                              "speedup");
      for (guint i = 0; i < n; i++)
        if (rows[i].gpu_measured)
          g_string_append_printf (out, "%-26s %12.4f %10.1f %8.2fx\n", rows[i].kernel->name,
                                  rows[i].gpu_seconds * 1e3, rows[i].gpu_bandwidth,
                                  rows[i].gpu_seconds > 0
                                    ? rows[0].gpu_seconds / rows[i].gpu_seconds : 0.0);
    }
  gboolean any_default = FALSE;
  for (guint i = 0; i < n; i++)
    any_default |= rows[i].block_default;
  g_string_append_printf (out, "\ninstructions: warp-level global + shared memory instructions; "
                          "global: sectors x %d B;\nshared: wavefronts x %d B; bytes: global + "
                          "shared; x: ratio to the first variant;\npartial: memory instructions "
                          "run with a partial warp.\n",
                          compare_arch->sector_bytes, compare_arch->banks * compare_arch->bank_bytes);
  if (any_default)
    g_string_append (out, "*: this variant's block rule does not allow --block; it ran at its "
                          "own block.\n");
}

static void
write_json (const char *family, const CompareRow *rows, guint n, GString *out)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, family);
  json_builder_set_member_name (b, "arch");
  json_builder_add_string_value (b, compare_arch->name);
  json_builder_set_member_name (b, "variants");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      const CompareRow *r = &rows[i];
      json_builder_begin_object (b);
#define MEMBER_INT(name, v) \
  (json_builder_set_member_name (b, name), json_builder_add_int_value (b, (gint64) (v)))
#define MEMBER_DOUBLE(name, v) \
  (json_builder_set_member_name (b, name), json_builder_add_double_value (b, v))
#define MEMBER_STRING(name, v) \
  (json_builder_set_member_name (b, name), json_builder_add_string_value (b, v))
      MEMBER_STRING ("kernel", r->kernel->name);
      MEMBER_STRING ("size", r->size);
      json_builder_set_member_name (b, "block");
      json_builder_begin_array (b);
      for (int d = 0; d < 3; d++)
        json_builder_add_int_value (b, r->block[d]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "block_is_default");
      json_builder_add_boolean_value (b, r->block_default);
      MEMBER_INT ("instructions", r->instructions);
      MEMBER_INT ("global_instructions", r->global_inst);
      MEMBER_INT ("global_requests", r->requests);
      MEMBER_INT ("global_sectors", r->sectors);
      MEMBER_DOUBLE ("sectors_per_request", ratio (r->sectors, r->requests));
      MEMBER_INT ("shared_instructions", r->shared_inst);
      MEMBER_INT ("shared_wavefronts", r->wavefronts);
      MEMBER_DOUBLE ("wavefronts_per_instruction", ratio (r->wavefronts, r->shared_inst));
      MEMBER_INT ("excessive_wavefronts", r->excessive);
      MEMBER_INT ("bytes_moved", r->bytes);
      MEMBER_INT ("global_bytes", r->global_bytes);
      MEMBER_INT ("shared_bytes", r->shared_bytes);
      json_builder_set_member_name (b, "ratio_to_first");
      json_builder_begin_object (b);
      MEMBER_DOUBLE ("instructions", ratio (r->instructions, rows[0].instructions));
      MEMBER_DOUBLE ("bytes_moved", ratio (r->bytes, rows[0].bytes));
      MEMBER_DOUBLE ("global_bytes", ratio (r->global_bytes, rows[0].global_bytes));
      MEMBER_DOUBLE ("global_sectors", ratio (r->sectors, rows[0].sectors));
      MEMBER_DOUBLE ("shared_wavefronts", ratio (r->wavefronts, rows[0].wavefronts));
      json_builder_end_object (b);
      json_builder_set_member_name (b, "divergence");
      json_builder_begin_object (b);
      MEMBER_DOUBLE ("partial_warp_share", r->divergence.partial_warp_share);
      MEMBER_DOUBLE ("avg_active_lanes", r->divergence.avg_active_lanes);
      json_builder_end_object (b);
      MEMBER_STRING ("check", r->check);
      MEMBER_DOUBLE ("simulated_seconds", r->seconds);
      /* GPU HOOK: "gpu": {"seconds", "bandwidth", "speedup"} when measured. */
      if (r->gpu_measured)
        {
          json_builder_set_member_name (b, "gpu");
          json_builder_begin_object (b);
          MEMBER_DOUBLE ("seconds", r->gpu_seconds);
          MEMBER_DOUBLE ("bandwidth_gbs", r->gpu_bandwidth);
          MEMBER_DOUBLE ("speedup", r->gpu_seconds > 0 ? rows[0].gpu_seconds / r->gpu_seconds
                                                       : 0.0);
          json_builder_end_object (b);
        }
#undef MEMBER_INT
#undef MEMBER_DOUBLE
#undef MEMBER_STRING
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, TRUE);
  g_autofree char *text = json_generator_to_data (gen, NULL);
  g_string_append (out, text);
  g_string_append_c (out, '\n');
}

static void
write_csv (const CompareRow *rows, guint n, GString *out)
{
  g_string_append (out, "kernel,size,block,instructions,global_instructions,global_requests,"
                        "global_sectors,sectors_per_request,shared_instructions,"
                        "shared_wavefronts,wavefronts_per_instruction,excessive_wavefronts,"
                        "bytes_moved,global_bytes,shared_bytes,instructions_ratio,"
                        "global_bytes_ratio,bytes_ratio,partial_warp_share,check\n");
  /* GPU HOOK: gpu_seconds,gpu_bandwidth,gpu_speedup columns. */
  if (n > 0 && rows[0].gpu_measured)
    {
      g_string_truncate (out, out->len - 1);
      g_string_append (out, ",gpu_seconds,gpu_bandwidth_gbs,gpu_speedup\n");
    }
  for (guint i = 0; i < n; i++)
    {
      const CompareRow *r = &rows[i];
      g_autoptr (GString) check = g_string_new (r->check);
      g_string_replace (check, "\"", "\"\"", 0);
      g_string_append_printf (out,
                              "%s,%s,%ux%ux%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.4f,%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%.4f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.4f,%.4f,%.4f,%.4f,"
                              "\"%s\"\n",
                              r->kernel->name, r->size, r->block[0], r->block[1], r->block[2],
                              r->instructions, r->global_inst, r->requests, r->sectors,
                              ratio (r->sectors, r->requests), r->shared_inst, r->wavefronts,
                              ratio (r->wavefronts, r->shared_inst), r->excessive, r->bytes,
                              r->global_bytes, r->shared_bytes,
                              ratio (r->instructions, rows[0].instructions),
                              ratio (r->global_bytes, rows[0].global_bytes),
                              ratio (r->bytes, rows[0].bytes),
                              r->divergence.partial_warp_share, check->str);
      if (r->gpu_measured)
        {
          g_string_truncate (out, out->len - 1);
          g_string_append_printf (out, ",%.9f,%.3f,%.4f\n", r->gpu_seconds, r->gpu_bandwidth,
                                  r->gpu_seconds > 0 ? rows[0].gpu_seconds / r->gpu_seconds
                                                     : 0.0);
        }
    }
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
  if (!g_option_context_parse (ctx, &argc, &argv, &error)
      || !ms_format_parse (opts->format, &format, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  g_autofree char *families = family_names ();
  if (argc != 2)
    {
      ms_error ("compare needs exactly one FAMILY: %s", families);
      return 2;
    }
  const char *family = argv[1];
  if (opts->threads < 0 || opts->threads > 1024)
    {
      ms_error ("--threads %d: give 0 (one per core) to 1024", opts->threads);
      return 2;
    }
  if (!check_params (family, opts->params, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  g_autoptr (MsArch) arch = ms_kernel_options_arch (opts, &error);
  if (arch == NULL)
    {
      ms_error ("%s", error->message);
      return 2;
    }
  compare_arch = arch;
  if (compare_gpu && !ms_gpu_available (NULL, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }

  g_autoptr (GArray) rows = g_array_new (FALSE, TRUE, sizeof (CompareRow));
  g_array_set_clear_func (rows, (GDestroyNotify) compare_row_clear);
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    {
      if (strcmp ((*k)->family, family) != 0)
        continue;
      g_array_set_size (rows, rows->len + 1);
      CompareRow *row = &g_array_index (rows, CompareRow, rows->len - 1);
      if (!run_variant (opts, *k, row, &error))
        {
          ms_error ("%s", error->message);
          return g_error_matches (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM) ? 2 : 1;
        }
    }
  if (rows->len == 0)
    {
      ms_error ("unknown family '%s'; the families are: %s", family, families);
      return 2;
    }

  const CompareRow *r = (const CompareRow *) (void *) rows->data;
  g_autoptr (GString) out = g_string_new (NULL);
  switch (format)
    {
    case MS_FORMAT_JSON: write_json (family, r, rows->len, out); break;
    case MS_FORMAT_CSV: write_csv (r, rows->len, out); break;
    default: write_text (family, r, rows->len, out); break;
    }
  if (!ms_write_output (opts->output, out, &error))
    {
      ms_error ("%s", error->message);
      return 1;
    }
  int status = 0;
  for (guint i = 0; i < rows->len; i++)
    if (!r[i].passed)
      {
        ms_error ("%s: %s", r[i].kernel->name, r[i].check);
        status = 1;
      }
  return status;
}

int
ms_cmd_compare (int argc, char **argv)
{
  MsKernelOptions opts = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "FAMILY - simulate every variant of a kernel family, one row each");
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
         "  bytes         global + shared: the bytes the memory pipeline moves\n"
         "  partial       memory instructions run with a partial warp (divergence)\n"
         "--block applies where a variant's block rule allows it; the others run at\n"
         "their own block (marked *).  -p sets a parameter on the variants that have it.\n"
         "A failed output check is an error (exit status 1).\n\n"
         "Examples:\n"
         "  memsim compare reduce\n"
         "  memsim compare transpose --size 2048x2048 --format csv -o transpose.csv\n"
         "  memsim compare reduce --block 512 -p n=1000000\n");
  ms_kernel_options_add (ctx, &opts, TRUE);
  GOptionEntry gpu_entries[] = {
    { "gpu", 0, 0, G_OPTION_ARG_NONE, &compare_gpu,
      "Also run every variant on the GPU: measured time (median, L2 flushed), effective "
      "bandwidth (the kernel's buffers / time) and speedup over the first", NULL },
    { NULL },
  };
  g_option_context_add_main_entries (ctx, gpu_entries, NULL);
  int status = compare_run (&opts, ctx, argc, argv);
  ms_kernel_options_clear (&opts);
  return status;
}
