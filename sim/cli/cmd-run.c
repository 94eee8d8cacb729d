/* cmd-run.c - `memsim run PROGRAM.cu [MORE.cu ...] [-- ARGS]`: build a
 * whole CUDA program (host code included) against memsim's CUDA runtime,
 * run it on the CPU and trace its launches: a report per launch, as trace
 * writes one (docs/model.md, "Whole programs").  The build is nvcc's, the
 * kernels its PTX (traces/user/nvcc-program.h).
 *
 * Output: text reports go to stdout as the launches happen, between the
 * program's own lines; JSON is {"launches": [report, ...]} and CSV one
 * table with a launch column, both written when the program ends (its
 * own stdout then goes to stderr, so stdout is the JSON or CSV alone).
 * With -o every format is written to the file when the program ends, and
 * only if it ran without a failed launch.  The exit status is the
 * program's; a launch that fails (out of bounds, race, deadlock) ends it
 * with status 1.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "emulator.h"
#include "kernel-options.h"
#include "problem.h"
#include "progress.h"
#include "report.h"
#include "report-time.h"
#include "nvcc-program.h"

typedef struct {
  MsArch *arch;
  MsNvccProgram *program;    /* loaded for the process (nvcc-program.h) */
  guint threads;
  int launches;              /* --launches: traced per kernel (0: all) */
  gboolean allow_races;
  gboolean allow_out_of_bounds;
  MsFormat format;
  const char *output;        /* -o, or NULL */
  gboolean immediate;        /* text to stdout: each report as its launch ends */
  GString *out;              /* what is written at the end */
  JsonArray *json;           /* JSON: the launches' reports */
  gboolean csv_header;
  guint traced, untraced;
  guint repeats;             /* untraced launches not run: MsProgramLaunch.repeat */
  int saved_stdout;          /* the real stdout while the program's goes to stderr */
  gboolean failed, finished;
} RunSession;

static RunSession session;

static void add_text (RunSession *s, const MsProgramLaunch *L, const char *body);

/* One traced launch's report into the session's output. */
static void
add_report (RunSession *s, const MsProgramLaunch *L, const MsProblem *p, const MsStats *stats,
            const MsRaceLog *races, double wall, MsTimePrediction *t, gboolean *timed)
{
  MsKernelOptions none = { 0 };
  g_autoptr (MsRunInfo) info =
    ms_problem_run_info (p, s->arch, "not run (your program checks its own results)");
  MsTraceReport report = { .info = info, .arch = s->arch, .stats = stats, .seconds = wall,
                           .races = races };
  g_autoptr (GString) one = g_string_new (NULL);
  ms_report_write (&report, s->format, one);
  MsOccupancyRow row;
  if (ms_kernel_options_costs (&none, p, s->arch, stats, &row, t, timed))
    ms_occupancy_report_append (&row, s->arch, s->format, one);
  if (*timed)
    ms_time_report_append (t, s->arch, ms_problem_buffers_bytes (p), s->format, one);
  ms_occupancy_row_clear (&row);

  if (s->format == MS_FORMAT_JSON)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      if (json_parser_load_from_data (parser, one->str, (gssize) one->len, NULL))
        {
          JsonNode *root = json_node_copy (json_parser_get_root (parser));
          JsonObject *o = json_node_get_object (root);
          json_object_set_int_member (o, "launch", L->index + 1);
          json_object_set_int_member (o, "kernel_launch", L->kernel_index + 1);
          json_array_add_element (s->json, root);
        }
      return;
    }
  if (s->format == MS_FORMAT_CSV)
    {
      /* one table: the launch's number before every row, the header once */
      g_auto (GStrv) rows = g_strsplit (one->str, "\n", -1);
      for (guint i = 0; rows[i] && *rows[i]; i++)
        {
          if (i == 0 && s->csv_header)
            continue;
          if (i == 0)
            g_string_append_printf (s->out, "launch,%s\n", rows[i]);
          else
            g_string_append_printf (s->out, "%u,%s\n", L->index + 1, rows[i]);
        }
      s->csv_header = TRUE;
      return;
    }
  add_text (s, L, one->str);
}

/* A launch's text report (its heading, then body) into the output. */
static void
add_text (RunSession *s, const MsProgramLaunch *L, const char *body)
{
  g_autoptr (GString) text = g_string_new (NULL);
  g_string_append_printf (text, "== memsim: launch %u of the program (launch %u of %s) ==\n",
                          L->index + 1, L->kernel_index + 1, L->kernel->name);
  g_string_append (text, body);
  g_string_append_c (text, '\n');
  if (s->immediate)
    {
      fflush (stdout);
      g_autoptr (GError) error = NULL;
      if (!ms_write_output (NULL, text, &error))
        ms_error ("%s", error->message);
    }
  else
    g_string_append_len (s->out, text->str, (gssize) text->len);
}

/* cuda-runtime.h's MsProgramLaunchFn: a launch, traced or run plainly. */
static gboolean
on_launch (gpointer data, const MsProgramLaunch *L, MsProgramLaunchResult *result)
{
  RunSession *s = data;
  g_autoptr (GError) error = NULL;
  MsProblem *p = ms_problem_new (L->kernel);
  p->args = L->args;
  p->n_buffers = L->n_buffers;
  for (guint b = 0; b < L->n_buffers; b++)
    {
      p->buffer_names[b] = L->buffer_names[b];
      p->buffer_bytes[b] = L->buffer_bytes[b];
      p->buffer_host[b] = L->buffer_host[b];
    }
  for (guint i = 0; L->kinds[i] && p->n_run_params < MS_MAX_PARAMS; i++)
    if (L->kinds[i] == 'i' && L->param_names[i] != NULL)
      {
        p->run_param_names[p->n_run_params] = L->param_names[i];
        p->run_params[p->n_run_params++] = L->args.i[i];
      }
  p->guard_bytes = L->guard_bytes;
  p->dynamic_shared = L->dynamic_shared;
  p->cooperative = L->cooperative;
  p->grid_workspace = L->grid_workspace;
  p->allow_races = s->allow_races;
  p->allow_unwritten = s->allow_races;
  p->allow_out_of_bounds = s->allow_out_of_bounds;
  p->threads = s->threads;
  guint shared_bytes = 0;
  p->shared_bytes = &shared_bytes;
  p->dirty_pages = L->dirty_pages;
  gboolean traced = s->launches <= 0 || L->kernel_index < (guint) s->launches;
  gboolean ok;
  if (traced)
    {
      g_autoptr (MsStats) stats = NULL;
      g_autoptr (MsRaceLog) races = ms_race_log_new ();
      ms_problem_set_race_log (p, races);
      gint64 t0 = g_get_monotonic_time ();
      ok = ms_simulate_with_progress (p, s->arch, s->threads, NULL, &stats, &error);
      if (ok)
        {
          result->marked = TRUE;
          result->whole = !ms_stats_sampled (stats);
        }
      if (ok)
        {
          MsTimePrediction t;
          gboolean timed = FALSE;
          add_report (s, L, p, stats, races,
                      (double) (g_get_monotonic_time () - t0) / 1e6, &t, &timed);
          /* the program's cudaEventElapsedTime sees the launch latency too */
          if (timed)
            result->seconds = t.event_seconds;
          s->traced++;
        }
    }
  else if (L->repeat)
    {
      /* the runtime puts memory as it would leave it */
      ok = TRUE;
      result->ran = FALSE;
      s->untraced++;
      s->repeats++;
    }
  else
    {
      /* for its results: no models, no records; the clock as a traced
       * launch's */
      MsLaunch launch;
      ms_problem_launch (p, &launch);
      launch.threads = s->threads;
      g_autofree double *block_cycles = ms_problem_clock_cycles (p, s->arch);
      launch.block_cycles = block_cycles;
      launch.clock_ghz = s->arch->clock_mhz / 1000.0;
      ok = ms_emulate (&launch, &error);
      if (ok)
        result->marked = TRUE;
      s->untraced++;
    }
  p->n_buffers = 0;   /* the program's memory, not the problem's */
  ms_problem_free (p);
  if (!ok && g_error_matches (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_ASSERT))
    {
      /* the program sees cudaErrorAssert (cuda-runtime.c) */
      if (traced && s->format == MS_FORMAT_TEXT)
        add_text (s, L, "  a device-side assert failed and ended the launch (the program gets "
                        "cudaErrorAssert): no counts\n");
      if (traced)
        s->traced++;
      else
        s->untraced++;
      return TRUE;
    }
  if (!ok)
    {
      /* the errors an option lets the program go past: say which */
      const char *hint = "";
      if (g_error_matches (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_UNINITIALISED))
        hint = " (--allow-races warns and goes on)";
      else if (g_error_matches (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_OUT_OF_BOUNDS)
               && strstr (error->message, " buffer '") != NULL)
        hint = " (--allow-out-of-bounds warns and goes on)";
      ms_error ("launch %u of the program (%s): %s%s", L->index + 1, L->kernel->name,
                error->message, hint);
      s->failed = TRUE;
    }
  return ok;
}

/* Writes what the session collected; at most once (after main returns, or
 * from atexit when the program calls exit()).  FALSE if it could not. */
static gboolean
finish (RunSession *s)
{
  if (s->finished)
    return TRUE;
  s->finished = TRUE;
  fflush (stdout);
  if (s->saved_stdout >= 0)
    {
      dup2 (s->saved_stdout, STDOUT_FILENO);
      close (s->saved_stdout);
      s->saved_stdout = -1;
    }
  gboolean ok = TRUE;
  if (!s->failed && !ms_cuda_runtime_failed ())
    {
      if (s->format == MS_FORMAT_JSON)
        {
          g_autoptr (JsonBuilder) b = json_builder_new ();
          json_builder_begin_object (b);
          json_builder_set_member_name (b, "launches");
          json_builder_add_value (b, json_node_init_array (json_node_alloc (), s->json));
          json_builder_set_member_name (b, "traced");
          json_builder_add_int_value (b, s->traced);
          json_builder_set_member_name (b, "untraced");
          json_builder_add_int_value (b, s->untraced);
          json_builder_set_member_name (b, "repeats_not_run");
          json_builder_add_int_value (b, s->repeats);
          json_builder_end_object (b);
          g_autoptr (JsonNode) root = json_builder_get_root (b);
          ms_report_append_json (root, s->out);
        }
      else if (s->format == MS_FORMAT_TEXT)
        {
          /* why launches ran without the models, and which did not run */
          g_autofree char *why =
            s->repeats ? g_strdup_printf (" (--launches; %u of them repeated an earlier "
                                          "launch on memory in the state it had found, and "
                                          "were not run: memory was put as it had left it)",
                                          s->repeats)
            : g_strdup (s->untraced ? " (--launches)" : "");
          g_string_append_printf (s->out, "memsim: %u launches: %u traced, %u run without the "
                                  "models%s\n", s->traced + s->untraced, s->traced, s->untraced,
                                  why);
        }
      g_autoptr (GError) error = NULL;
      if (!ms_write_output (s->output, s->out, &error))
        {
          ms_error ("%s", error->message);
          ok = FALSE;
        }
    }
  g_string_free (s->out, TRUE);
  s->out = NULL;
  if (s->json)
    json_array_unref (s->json);
  s->json = NULL;
  ms_arch_free (s->arch);
  s->arch = NULL;
  return ok;
}

static void
finish_at_exit (void)
{
  if (!finish (&session))
    _exit (1);
}

int
ms_cmd_run (int argc, char **argv)
{
  /* the program's own arguments: everything after "--" */
  int program_argc = 0;
  char **program_argv = NULL;
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], "--") == 0)
      {
        program_argv = argv + i + 1;
        program_argc = argc - i - 1;
        argc = i;
        break;
      }
  g_auto (GStrv) includes = NULL, defines = NULL, xnvcc = NULL, xcompiler = NULL, libs = NULL;
  g_auto (GStrv) lib_dirs = NULL;
  char *std = NULL;
  gboolean fast_math = FALSE, rdc = FALSE;
  g_autoptr (GPtrArray) owned = g_ptr_array_new_with_free_func (g_free);
  argv = ms_nvcc_spellings (&argc, argv, owned, "");
  char *arch_name = NULL, *format_text = NULL, *output = NULL;
  int threads = 0, launches = 0;
  gboolean allow_races = FALSE, allow_out_of_bounds = FALSE;
  GOptionEntry entries[] = {
    { "include", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY, &includes,
      "Also search DIR for #include files (as nvcc -I)", "DIR" },
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &defines,
      "Define a macro for the build (as nvcc -D)", "NAME[=VALUE]" },
    { "std", 0, 0, G_OPTION_ARG_STRING, &std,
      "C++ dialect of the build (as nvcc -std), e.g. c++17", "STD" },
    { "use-fast-math", 0, 0, G_OPTION_ARG_NONE, &fast_math,
      "Build with nvcc --use_fast_math (the kernels' PTX has the fast forms)", NULL },
    { "rdc", 0, 0, G_OPTION_ARG_NONE, &rdc,
      "Relocatable device code (nvcc -rdc=true): kernels may call device functions of "
      "other files", NULL },
    { "Xnvcc", 0, 0, G_OPTION_ARG_STRING_ARRAY, &xnvcc,
      "Pass FLAG to every nvcc command of the build (-Xnvcc FLAG; repeat for more)", "FLAG" },
    { "Xcompiler", 0, 0, G_OPTION_ARG_STRING_ARRAY, &xcompiler,
      "Pass FLAG to the host compiler, compiling and linking (as nvcc -Xcompiler), e.g. "
      "-fopenmp", "FLAG" },
    { "library", 'l', 0, G_OPTION_ARG_STRING_ARRAY, &libs,
      "Link the host code with library LIB (as nvcc -l), e.g. -l curand for cuRAND's host "
      "API (kernels inside libraries do not run)", "LIB" },
    { "library-path", 'L', 0, G_OPTION_ARG_FILENAME_ARRAY, &lib_dirs,
      "Also search DIR for libraries (as nvcc -L)", "DIR" },
    { "launches", 0, 0, G_OPTION_ARG_INT, &launches,
      "Trace the first N launches of each kernel; run the rest without the models, as fast "
      "as the emulator goes (default: trace all)", "N" },
    { "arch", 'a', 0, G_OPTION_ARG_STRING, &arch_name,
      "Architecture: h100 (default), h200, a100, v100, kepler32, kepler64, fermi, cc13 or a "
      ".arch file (the device the program sees)", "ARCH" },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &threads,
      "Emulator threads (default: one per core); counts do not depend on it", "N" },
    { "allow-races", 0, 0, G_OPTION_ARG_NONE, &allow_races,
      "Report shared-memory races and reads of unwritten shared memory and go on instead "
      "of stopping the program", NULL },
    { "allow-out-of-bounds", 0, 0, G_OPTION_ARG_NONE, &allow_out_of_bounds,
      "Report loads and stores just outside a buffer and go on instead of stopping the "
      "program (such a load reads zeros, such a store is dropped)", NULL },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format_text, "text (default), json or csv", "FMT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output,
      "Write the reports to FILE when the program ends (never a partial file)", "FILE" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new (
    "PROGRAM.cu [MORE.cu ...] [-- ARGS] - run a whole CUDA program and trace its launches");
  g_option_context_set_description (
    ctx, "Builds the program (host code and kernels, unmodified) with nvcc: .cu files\n"
         "for compute_90 (the kernels run as nvcc's PTX), .cpp/.cc/.cxx as C++ and .c as\n"
         "C host files; memsim answers its CUDA runtime calls.  Runs main() on the CPU\n"
         "with ARGS and reports every launch as `memsim trace` reports a kernel.  Events\n"
         "time launches by the model's predicted GPU time.  Builds are cached.\n"
         "nvcc's own spellings work too (-use_fast_math, -rdc=true, -std=c++17,\n"
         "--compiler-options); -O3, -g, -G, -lineinfo, -Xptxas FLAG and -W... go to\n"
         "nvcc as they are; -arch, -gencode and -code are left out (memsim builds\n"
         "the kernels' PTX for compute_90).\n\n"
         "Examples:\n"
         "  memsim run examples/program.cu\n"
         "  memsim run transpose.cu -I cuda-samples/Common --launches 1 -- -dimX=1024 -dimY=1024\n"
         "  memsim run reduction.cpp reduction_kernel.cu -I Common --format json -o r.json\n"
         "  memsim run stencil.cu -D RADIUS=4 --std c++17 --use-fast-math -Xnvcc -G0\n");
  g_option_context_add_main_entries (ctx, entries, NULL);
  MsFormat format;
  int status = ms_parse_command_line (ctx, &argc, &argv, &format_text, &format);
  g_autofree char *arch_owned = arch_name;
  g_autofree char *format_owned = format_text;
  g_autofree char *output_owned = output;
  g_autofree char *std_owned = std;
  if (status != 0)
    return status;
  if (argc < 2)
    {
      ms_error ("run needs the program's files: memsim run PROGRAM.cu [MORE.cu ...] [-- ARGS]");
      return 2;
    }
  if (launches < 0 || threads < 0)
    {
      ms_error ("--launches and --threads take a number >= 0");
      return 2;
    }
  int bad = ms_check_output ("-o", output);
  if (bad != 0)
    return bad;
  g_autoptr (GError) error = NULL;
  MsArch *arch = ms_arch_lookup (arch_name ? arch_name : "h100", &error);
  if (arch == NULL)
    {
      ms_error ("%s", error->message);
      return 2;
    }
  g_autoptr (GPtrArray) files = g_ptr_array_new ();
  for (int i = 1; i < argc; i++)
    g_ptr_array_add (files, argv[i]);
  g_ptr_array_add (files, NULL);
  /* nvcc's flags, as memsim run's options give them */
  g_autoptr (GPtrArray) flags = g_ptr_array_new_with_free_func (g_free);
  ms_nvcc_flags_add (flags, includes, defines, std, fast_math, rdc, xnvcc);
  for (char **x = xcompiler; x && *x; x++)
    g_ptr_array_add (flags, g_strconcat ("-Xcompiler=", *x, NULL));
  for (char **x = lib_dirs; x && *x; x++)
    g_ptr_array_add (flags, g_strconcat ("-L", *x, NULL));
  for (char **x = libs; x && *x; x++)
    g_ptr_array_add (flags, g_strconcat ("-l", *x, NULL));
  g_ptr_array_add (flags, NULL);
  MsNvccProgram *program = ms_nvcc_program_load ((const char *const *) files->pdata,
                                                 (const char *const *) flags->pdata, &error);
  if (program == NULL)
    {
      ms_error ("%s", error->message);
      ms_arch_free (arch);
      return 1;
    }
  session = (RunSession) { .arch = arch, .program = program, .threads = (guint) threads, .launches = launches,
                           .allow_races = allow_races,
                           .allow_out_of_bounds = allow_out_of_bounds, .format = format, .output = output,
                           .out = g_string_new (NULL), .saved_stdout = -1 };
  session.immediate = format == MS_FORMAT_TEXT && output == NULL;
  if (format == MS_FORMAT_JSON)
    session.json = json_array_new ();
  if (format != MS_FORMAT_TEXT && output == NULL)
    {
      /* stdout is the report's: the program's lines go to stderr */
      fflush (stdout);
      session.saved_stdout = dup (STDOUT_FILENO);
      if (session.saved_stdout >= 0)
        dup2 (STDERR_FILENO, STDOUT_FILENO);
    }
  atexit (finish_at_exit);
  status = ms_nvcc_program_run (program, arch, program_argc, program_argv, on_launch, &session);
  if (!finish (&session))
    return 1;
  return status;
}
