/* cmd-occupancy.c - `memsim occupancy KERNEL`: the theoretical occupancy of
 * a kernel's launch (blocks per SM by registers, shared memory, warps,
 * blocks and barriers; active warps; occupancy), and a sweep over block
 * sizes.  No simulation: the problem is set up and, without an nvcc
 * figure for its shared memory, block 0 alone runs in the emulator. */
#include "config.h"

#include <string.h>

#include "commands.h"
#include "kernel-options.h"
#include "report-occupancy.h"

static char *block_sizes;   /* --block-sizes LIST|all */

/* The block sizes of --block-sizes: "all" (every multiple of the warp size
 * up to max_threads_per_block) or a comma-separated list of positive
 * numbers. */
static GArray *
parse_block_sizes (const char *text, const MsArch *arch, GError **error)
{
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (int));
  if (strcmp (text, "all") == 0)
    {
      for (int t = arch->warp_size; t <= arch->max_threads_per_block; t += arch->warp_size)
        g_array_append_val (sizes, t);
      return sizes;
    }
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (int i = 0; parts[i] || i == 0; i++)
    {
      char *end = NULL;
      gint64 t = parts[i] ? g_ascii_strtoll (parts[i], &end, 10) : 0;
      if (parts[i] == NULL || *parts[i] == '\0' || *end != '\0' || t < 1 || t > 1 << 20)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--block-sizes %s: give 'all' or threads per block separated by commas, "
                       "e.g. 128,256,1024", text);
          g_array_unref (sizes);
          return NULL;
        }
      int v = (int) t;
      g_array_append_val (sizes, v);
    }
  return sizes;
}

static int
occupancy_run (MsKernelOptions *opts, GOptionContext *ctx, int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  MsFormat format;
  if (ms_parse_command_line (ctx, &argc, &argv, &opts->format, &format) != 0)
    return 2;
  if (argc != 2)
    {
      ms_error ("occupancy needs exactly one KERNEL; `memsim list` shows them");
      return 2;
    }
  int bad = ms_check_output ("-o", opts->output);
  if (bad != 0)
    return bad;
  g_autoptr (MsArch) arch = ms_kernel_options_arch (opts, &error);
  if (arch == NULL)
    {
      ms_error ("%s", error->message);
      return 2;
    }
  g_autoptr (GArray) sizes = NULL;
  if (block_sizes != NULL && (sizes = parse_block_sizes (block_sizes, arch, &error)) == NULL)
    {
      ms_error ("%s", error->message);
      return 2;
    }
  g_autoptr (MsProblem) p = ms_kernel_options_problem (opts, argv[1], &error);
  if (p != NULL)
    p->arch = arch;   /* a launch may be sized for it */
  if (p == NULL || !ms_problem_setup (p, &error))
    {
      ms_error ("%s", error->message);
      return 2;
    }
  if (!arch->has_costs)
    {
      ms_error ("--arch: %s has no [occupancy] figures (docs/model.md lists them); use a "
                "preset such as h100", arch->name);
      return 2;
    }
  MsOccupancyRow launch = { 0 };
  if (!ms_kernel_options_occupancy (opts, p, arch, &launch, &error))
    {
      ms_occupancy_row_clear (&launch);
      ms_error ("%s: %s", p->kernel->name, error->message);
      return g_error_matches (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM) ? 2 : 1;
    }
  guint n = sizes ? sizes->len : 0;
  MsOccupancyRow *sweep = g_new0 (MsOccupancyRow, MAX (n, 1));
  for (guint i = 0; i < n; i++)
    {
      sweep[i].in = launch.in;
      sweep[i].in.threads_per_block = g_array_index (sizes, int, i);
      ms_occupancy_row_compute (&sweep[i], arch);
    }
  g_autoptr (GString) out = g_string_new (NULL);
  ms_occupancy_report_write (p->kernel->name, arch, p->args.block, p->args.grid, &launch, sweep,
                             n, format, out);
  int status = 0;
  if (!ms_write_output (opts->output, out, &error))
    {
      ms_error ("%s", error->message);
      status = 1;
    }
  else if (!launch.ok)
    {
      ms_error ("%s cannot launch on the %s: %s", p->kernel->name, arch->name, launch.error);
      status = 2;
    }
  for (guint i = 0; i < n; i++)
    ms_occupancy_row_clear (&sweep[i]);
  g_free (sweep);
  ms_occupancy_row_clear (&launch);
  return status;
}

int
ms_cmd_occupancy (int argc, char **argv)
{
  MsKernelOptions opts = { 0 };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "KERNEL - theoretical occupancy of a kernel's launch");
  g_option_context_set_description (
    ctx, "Blocks per SM as CUDA's occupancy calculator counts them: the limits by\n"
         "registers, shared memory, warps, blocks and barriers, the active warps and the\n"
         "theoretical occupancy, for the kernel's launch (its block, registers from the\n"
         "nvcc build or -p regs=N, shared memory from the nvcc build or the emulator).\n"
         "No simulation runs.\n\n"
         "Examples:\n"
         "  memsim occupancy transpose_naive\n"
         "  memsim occupancy transpose_shared --block-sizes all\n"
         "  memsim occupancy gemm_tiled -p regs=64 --arch a100 --format json\n");
  ms_kernel_options_add (ctx, &opts, TRUE);
  ms_kernel_options_add_user (ctx, &opts);
  GOptionEntry entries[] = {
    { "block-sizes", 0, 0, G_OPTION_ARG_STRING, &block_sizes,
      "Also the occupancy for these threads per block: a comma-separated LIST, or all "
      "(every multiple of 32 up to the arch's maximum)", "LIST" },
    { NULL },
  };
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  argv = ms_nvcc_spellings (&argc, argv, owned, "g");   /* -DNAME as nvcc takes it */
  int status = occupancy_run (&opts, ctx, argc, argv);
  ms_kernel_options_clear (&opts);
  g_clear_pointer (&block_sizes, g_free);
  return status;
}
