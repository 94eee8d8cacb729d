/* kernel-options.c - see kernel-options.h. */
#include "config.h"
#include "kernel-options.h"

#include <string.h>

#include "arch-match.h"
#include "backend.h"
#include "kernel-usage.h"
#include "user-kernel.h"

void
ms_kernel_options_add (GOptionContext *ctx, MsKernelOptions *opts, gboolean with_format)
{
  GOptionEntry entries[] = {
    { "size", 's', 0, G_OPTION_ARG_STRING, &opts->size,
      "Problem size: WxH (a matrix W columns wide, H rows high), N or WxHxD", "SIZE" },
    { "block", 'b', 0, G_OPTION_ARG_STRING, &opts->block, "Threads per block: X, XxY or XxYxZ",
      "XxY" },
    { "param", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &opts->params,
      "Set a kernel parameter (repeatable; `memsim list --params` shows them)", "NAME=VALUE" },
    { "threads", 'j', 0, G_OPTION_ARG_INT, &opts->threads,
      "CPU threads for the emulator (default: one per core)", "N" },
    { "sample", 0, 0, G_OPTION_ARG_STRING, &opts->sample,
      "Simulate about PERCENT% of the blocks (groups of consecutive blocks) and scale the "
      "counts; the output check is then not run", "PERCENT" },
    { "arch", 'a', 0, G_OPTION_ARG_STRING, &opts->arch,
      "Architecture: h100 (default; with --gpu, the measured device's), h200, a100, v100, "
      "kepler32, kepler64, fermi, cc13 or a .arch file", "ARCH" },
    { "source-counts", 0, 0, G_OPTION_ARG_NONE, &opts->source_counts,
      "Count nvcc's PTX memory instructions as they are, even where ptxas fused or unrolled them",
      NULL },
    { "allow-races", 0, 0, G_OPTION_ARG_NONE, &opts->allow_races,
      "Count shared-memory races between warps and go on (default: a race is an error)",
      NULL },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &opts->format, "Output format: text, json or csv",
      "FORMAT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &opts->output, "Write to FILE instead of stdout",
      "FILE" },
    { NULL },
  };
  /* without format: end the list before --format and --output (the last two) */
  for (guint i = 0; !with_format && entries[i].long_name; i++)
    if (strcmp (entries[i].long_name, "format") == 0)
      entries[i] = entries[G_N_ELEMENTS (entries) - 1];
  g_option_context_add_main_entries (ctx, entries, NULL);
}

void
ms_kernel_options_add_user (GOptionContext *ctx, MsKernelOptions *opts)
{
  GOptionEntry entries[] = {
    { "grid", 'g', 0, G_OPTION_ARG_STRING, &opts->grid,
      "Your kernel (FILE.cu:KERNEL): blocks in the grid, X, XxY or XxYxZ", "XxY" },
    { "arg", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opts->args,
      "Your kernel: a parameter's value (repeatable): NAME=TYPE[COUNT] for a pointer (a buffer "
      "of COUNT random elements; TYPE[COUNT]=0: zeros), NAME=NUMBER for a scalar", "NAME=VALUE" },
    { "dynamic-shared", 0, 0, G_OPTION_ARG_INT, &opts->dynamic_shared,
      "Your kernel: bytes of extern __shared__ memory per block (default 0)", "BYTES" },
    { "include", 'I', 0, G_OPTION_ARG_FILENAME_ARRAY, &opts->includes,
      "Your kernel: also search DIR for #include files (as nvcc -I)", "DIR" },
    { "define", 'D', 0, G_OPTION_ARG_STRING_ARRAY, &opts->defines,
      "Your kernel: define a macro for the build (as nvcc -D)", "NAME[=VALUE]" },
    { "std", 0, 0, G_OPTION_ARG_STRING, &opts->std,
      "Your kernel: C++ dialect of the build (as nvcc -std), e.g. c++17", "STD" },
    { "use-fast-math", 0, 0, G_OPTION_ARG_NONE, &opts->fast_math,
      "Your kernel: build with nvcc --use_fast_math", NULL },
    { "Xnvcc", 0, 0, G_OPTION_ARG_STRING_ARRAY, &opts->xnvcc,
      "Your kernel: pass FLAG to nvcc (repeat for more)", "FLAG" },
    { NULL },
  };
  g_option_context_add_main_entries (ctx, entries, NULL);
}

void
ms_nvcc_flags_add (GPtrArray *flags, char **includes, char **defines, const char *std,
                   gboolean fast_math, gboolean rdc, char **xnvcc)
{
  for (char **d = includes; d && *d; d++)
    g_ptr_array_add (flags, g_strconcat ("-I", *d, NULL));
  for (char **d = defines; d && *d; d++)
    g_ptr_array_add (flags, g_strconcat ("-D", *d, NULL));
  if (std != NULL)
    g_ptr_array_add (flags, g_strconcat ("-std=", std, NULL));
  if (fast_math)
    g_ptr_array_add (flags, g_strdup ("--use_fast_math"));
  if (rdc)
    g_ptr_array_add (flags, g_strdup ("-rdc=true"));
  for (char **x = xnvcc; x && *x; x++)
    g_ptr_array_add (flags, g_strdup (*x));
}

/* nvcc's flags that change nothing memsim counts or that it chooses itself:
 * given to nvcc as they are (-Xnvcc) */
static const char *const nvcc_passed[] = {
  "-O0", "-O1", "-O2", "-O3", "-O", "-g", "-G", "-lineinfo", "--generate-line-info", "-m64",
  "-w", "--disable-warnings", "--expt-relaxed-constexpr", "--expt-extended-lambda",
  "--extended-lambda", "-extended-lambda", "-restrict", "--restrict", "-keep", NULL,
};
/* nvcc's flags that take a value, given to nvcc with it */
static const char *const nvcc_passed_with_value[] = {
  "-ftz", "--ftz", "-prec-div", "--prec-div", "-prec-sqrt", "--prec-sqrt", "-fmad", "--fmad",
  "-Xptxas", "--ptxas-options", "-Xlinker", "--linker-options", "-maxrregcount",
  "--maxrregcount", NULL,
};
/* the target: memsim builds its own (compute_90 PTX), so these are left out */
static const char *const nvcc_target[] = {
  "-arch", "--gpu-architecture", "-gencode", "--generate-code", "-code", "--gpu-code", NULL,
};

/* the flag FLAG of TABLE that A is, alone or with its value joined by '=';
 * the value's start in *value (NULL when A is the flag alone) */
static const char *
nvcc_flag (const char *a, const char *const *table, const char **value)
{
  for (const char *const *f = table; *f; f++)
    {
      size_t n = strlen (*f);
      if (strncmp (a, *f, n) == 0 && (a[n] == '\0' || a[n] == '='))
        {
          *value = a[n] == '=' ? a + n + 1 : NULL;
          return *f;
        }
    }
  return NULL;
}

char **
ms_nvcc_spellings (int *argc, char **argv, GPtrArray *owned, const char *own_short)
{
  char **args = g_new0 (char *, 2 * (gsize) *argc + 1);
  g_ptr_array_add (owned, args);
  int n_args = 0;
#define ADD(s) (g_ptr_array_add (owned, (s)), args[n_args++] = g_ptr_array_index (owned, owned->len - 1))
  for (int i = 0; i < *argc; i++)
    {
      const char *a = argv[i], *value = NULL;
      const char *next = i + 1 < *argc ? argv[i + 1] : NULL;
      if (i == 0 || a[0] != '-' || (a[1] && !a[2] && strchr (own_short, a[1])))
        ADD (g_strdup (a));   /* a file, a value, or the command's own -g */
      else if (strcmp (a, "-Xnvcc") == 0 || strcmp (a, "--Xnvcc") == 0
               || strcmp (a, "-Xcompiler") == 0 || strcmp (a, "--Xcompiler") == 0
               || strcmp (a, "--compiler-options") == 0)
        {
          /* its value, whatever it looks like (-Xcompiler -m64), as it is */
          ADD (g_strdup (strstr (a, "nvcc") ? "--Xnvcc" : "--Xcompiler"));
          if (next != NULL)
            ADD (g_strdup (argv[++i]));
        }
      else if (g_str_has_prefix (a, "-Xcompiler=") || g_str_has_prefix (a, "--compiler-options="))
        ADD (g_strconcat ("--Xcompiler=", strchr (a, '=') + 1, NULL));
      else if (strcmp (a, "-use_fast_math") == 0 || strcmp (a, "--use_fast_math") == 0)
        ADD (g_strdup ("--use-fast-math"));
      else if (strcmp (a, "-std") == 0)
        ADD (g_strdup ("--std"));
      else if (g_str_has_prefix (a, "-std="))
        ADD (g_strconcat ("-", a, NULL));
      else if (strcmp (a, "-rdc=true") == 0 || strcmp (a, "--relocatable-device-code=true") == 0)
        ADD (g_strdup ("--rdc"));
      else if ((strcmp (a, "-rdc") == 0 || strcmp (a, "--relocatable-device-code") == 0) && next)
        {
          if (strcmp (next, "true") == 0)
            ADD (g_strdup ("--rdc"));
          i++;   /* -rdc false: nvcc's default */
        }
      else if (strcmp (a, "-rdc=false") == 0 || strcmp (a, "--relocatable-device-code=false") == 0)
        ;
      else if (nvcc_flag (a, nvcc_passed, &value) && value == NULL)
        ADD (g_strconcat ("--Xnvcc=", a, NULL));
      else if (nvcc_flag (a, nvcc_passed_with_value, &value))
        {
          if (value == NULL && next != NULL)   /* -Xptxas -v: one flag for nvcc */
            ADD (g_strconcat ("--Xnvcc=", a, "=", argv[++i], NULL));
          else
            ADD (g_strconcat ("--Xnvcc=", a, NULL));
        }
      else if (nvcc_flag (a, nvcc_target, &value))
        i += value == NULL && next != NULL;
      else if (g_str_has_prefix (a, "-W") && !g_str_has_prefix (a, "-Wl,"))
        ADD (g_strconcat ("--Xnvcc=", a, NULL));   /* nvcc's warnings: -Wno-deprecated-gpu-targets */
      else if (a[1] && strchr ("IDlL", a[1]) && a[2])
        {
          ADD (g_strndup (a, 2));
          ADD (g_strdup (a + 2));
        }
      else
        ADD (g_strdup (a));
    }
#undef ADD
  *argc = n_args;
  return args;
}

void
ms_kernel_options_clear (MsKernelOptions *opts)
{
  g_free (opts->grid);
  g_strfreev (opts->args);
  g_strfreev (opts->includes);
  g_strfreev (opts->defines);
  g_strfreev (opts->xnvcc);
  g_free (opts->std);
  g_free (opts->size);
  g_free (opts->block);
  g_strfreev (opts->params);
  g_free (opts->format);
  g_free (opts->arch);
  g_free (opts->output);
  g_free (opts->sample);
  memset (opts, 0, sizeof *opts);
}

gboolean
ms_kernel_options_sample (const char *text, MsProblem *p, GError **error)
{
  char *end = NULL;
  double percent = g_ascii_strtod (text, &end);
  if (end == text || (*end != '\0' && strcmp (end, "%") != 0))
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--sample %s: give a percentage of the blocks, e.g. --sample 10", text);
      return FALSE;
    }
  return ms_problem_set_sample (p, percent, error);
}

MsArch *
ms_kernel_options_arch (const MsKernelOptions *opts, GError **error)
{
  MsArch *arch = ms_models_arch_lookup (opts->arch, error);
  if (arch == NULL)
    g_prefix_error (error, "--arch: ");
  return arch;
}

MsArch *
ms_kernel_options_gpu_arch (const MsKernelOptions *opts, gboolean gpu, char **note,
                            int *status, GError **error)
{
  *note = NULL;
  *status = 2;
  g_autoptr (MsArch) chosen = NULL;
  if (!gpu || opts->arch != NULL)
    {
      chosen = ms_kernel_options_arch (opts, error);
      if (chosen == NULL || !gpu)
        return g_steal_pointer (&chosen);
    }
  *status = 1;
  MsGpuInfo info;
  if (!ms_gpu_available (&info, error))
    return NULL;
  MsDeviceProps d = { info.name, 10 * info.cc_major + info.cc_minor, info.sm_count,
                      info.memory_bytes };
  if (chosen == NULL)
    return ms_arch_for_device (&d, note, error);
  *note = ms_arch_device_mismatch (chosen, &d);
  return g_steal_pointer (&chosen);
}

/* The preset to cost on: --arch, else the one the trace was recorded on. */
MsArch *
ms_kernel_options_trace_arch (const char *option, const MsRunInfo *info, GError **error)
{
  const char *name = option ? option : info->arch && *info->arch ? info->arch : NULL;
  g_autoptr (GError) e = NULL;
  MsArch *arch = ms_models_arch_lookup (name, &e);
  if (arch == NULL)
    {
      if (option == NULL)
        g_set_error (error, e->domain, e->code, "%s (the trace's arch); choose one with --arch",
                     e->message);
      else
        g_set_error (error, e->domain, e->code, "--arch: %s", e->message);
    }
  return arch;
}

/* A user's kernel: compiled, loaded and set up from --grid, --block,
 * --dynamic-shared and --arg. */
static MsProblem *
user_problem (const MsKernelOptions *opts, const char *spec, GError **error)
{
  if (opts->size != NULL)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--size is for the built-in kernels; size your kernel's buffers with "
                   "--arg NAME=TYPE[COUNT] and its launch with --grid and --block");
      return NULL;
    }
  for (int i = 0; opts->params && opts->params[i]; i++)
    if (!g_str_has_prefix (opts->params[i], "regs="))
      {
        g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                     "-p %s: -p sets a built-in kernel's parameters; give your kernel's with "
                     "--arg NAME=VALUE", opts->params[i]);
        return NULL;
      }
  if (opts->dynamic_shared < 0)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--dynamic-shared %d: give a number of bytes from 0", opts->dynamic_shared);
      return NULL;
    }
  /* nvcc's flags, as memsim run's options give them */
  g_autoptr (GPtrArray) flags = g_ptr_array_new_with_free_func (g_free);
  ms_nvcc_flags_add (flags, opts->includes, opts->defines, opts->std, opts->fast_math, FALSE,
                     opts->xnvcc);
  g_ptr_array_add (flags, NULL);
  const MsUserKernel *k = ms_user_kernel_load_with (spec, (const char *const *) flags->pdata,
                                                    error);
  if (k == NULL)
    return NULL;
  MsUserLaunch launch = { .grid = opts->grid, .block = opts->block,
                          .dynamic_shared = (guint) opts->dynamic_shared,
                          .args = (const char *const *) opts->args };
  g_autoptr (MsProblem) p = ms_user_problem_new (k, &launch, error);
  if (p == NULL)
    return NULL;
  /* the options every kernel takes */
  p->source_counts = opts->source_counts;
  p->allow_races = opts->allow_races;
  ms_problem_set_threads (p, (guint) opts->threads);
  if (opts->sample && !ms_kernel_options_sample (opts->sample, p, error))
    return NULL;
  return g_steal_pointer (&p);
}

MsProblem *
ms_kernel_options_problem (const MsKernelOptions *opts, const char *name, GError **error)
{
  if (opts->threads < 0 || opts->threads > 1024)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--threads %d: give 0 (one per core) to 1024", opts->threads);
      return NULL;
    }
  if (ms_user_kernel_spec (name))
    return user_problem (opts, name, error);
  if (opts->grid != NULL || opts->args != NULL || opts->dynamic_shared != 0
      || opts->includes != NULL || opts->defines != NULL || opts->std != NULL
      || opts->fast_math || opts->xnvcc != NULL)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "--grid, --arg, --dynamic-shared and nvcc's flags are for your own kernels "
                   "(FILE.cu:KERNEL); %s is built in: use --size and -p", name);
      return NULL;
    }
  const MsKernel *k = ms_kernel_find (name);
  if (k == NULL)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "unknown kernel '%s'; `memsim list` shows the built-in kernels", name);
      return NULL;
    }
  g_autoptr (MsProblem) p = ms_problem_new (k);
  p->source_counts = opts->source_counts;
  ms_problem_set_threads (p, (guint) opts->threads);
  if (opts->sample && !ms_kernel_options_sample (opts->sample, p, error))
    return NULL;
  p->allow_races = opts->allow_races;
  if (opts->block && !ms_problem_set_block (p, opts->block, error))
    return NULL;
  if (opts->size && !ms_problem_set_size (p, opts->size, error))
    return NULL;
  for (int i = 0; opts->params && opts->params[i]; i++)
    {
      const char *eq = strchr (opts->params[i], '=');
      if (eq == NULL || eq == opts->params[i])
        {
          g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                       "-p %s: write NAME=VALUE", opts->params[i]);
          return NULL;
        }
      g_autofree char *pname = g_strndup (opts->params[i], (gsize) (eq - opts->params[i]));
      if (strcmp (pname, "regs") == 0)
        continue;   /* ms_kernel_options_registers */
      if (!ms_problem_set_param (p, pname, eq + 1, error))
        return NULL;
    }
  return g_steal_pointer (&p);
}

gboolean
ms_kernel_options_registers (const MsKernelOptions *opts, int *regs, GError **error)
{
  *regs = -1;
  for (int i = 0; opts->params && opts->params[i]; i++)
    {
      if (!g_str_has_prefix (opts->params[i], "regs="))
        continue;
      const char *v = opts->params[i] + 5;
      char *end = NULL;
      gint64 n = g_ascii_strtoll (v, &end, 10);
      if (*v == '\0' || *end != '\0' || n < 0 || n > 1024)
        {
          g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                       "-p %s: give registers per thread as a number from 0 to 1024",
                       opts->params[i]);
          return FALSE;
        }
      *regs = (int) n;
    }
  return TRUE;
}

gboolean
ms_kernel_options_occupancy (const MsKernelOptions *opts, const MsProblem *p,
                             const MsArch *arch, MsOccupancyRow *row, GError **error)
{
  int regs;
  if (!ms_kernel_options_registers (opts, &regs, error))
    return FALSE;
  const MsKernelUsage *u = ms_kernel_usage_find (p);
  *row = (MsOccupancyRow) { 0 };
  ms_problem_occupancy_input (p, &row->in);
  row->blocks = (guint64) p->args.grid[0] * p->args.grid[1] * p->args.grid[2];
  if (regs >= 0)
    {
      row->in.registers_per_thread = regs;
      row->registers_source = g_strdup ("-p regs");
    }
  else if (u != NULL)
    row->registers_source =
      u->registers < MS_MIN_ALLOCATED_REGISTERS ? g_strdup_printf ("nvcc sm_90 build of %s (%d, allocated as 16)",
                                                                   u->function, u->registers)
                                                : g_strdup_printf ("nvcc sm_90 build of %s", u->function);
  else if (p->kernel->registers > 0)
    row->registers_source = g_strdup_printf ("ptxas sm_90 build of %s (%d%s)",
                                             p->kernel->sass_function, p->kernel->registers,
                                             p->kernel->registers < MS_MIN_ALLOCATED_REGISTERS
                                               ? ", allocated as 16" : "");
  else
    row->registers_source = g_strdup ("default: no nvcc build; set with -p regs=N");
  if (u != NULL)
    row->shared_source = g_strdup_printf ("nvcc sm_90 build of %s", u->function);
  else
    {
      guint bytes = 0;
      if (p->shared_bytes != NULL)
        bytes = *p->shared_bytes;   /* seen by the run itself */
      else if (!ms_problem_probe_shared (p, &bytes, error))
        return FALSE;
      row->in.static_shared = (int) bytes;
      row->shared_source = g_strdup ("emulator");
    }
  ms_occupancy_row_compute (row, arch);
  return TRUE;
}

gboolean
ms_kernel_options_costs (const MsKernelOptions *opts, const MsProblem *p, const MsArch *arch,
                         const MsStats *stats, MsOccupancyRow *row, MsTimePrediction *t,
                         gboolean *timed)
{
  *timed = FALSE;
  *row = (MsOccupancyRow) { 0 };
  if (!arch->has_costs || !ms_kernel_options_occupancy (opts, p, arch, row, NULL))
    return FALSE;
  *timed = row->ok && ms_time_predict (arch, stats, row->occ.active_blocks,
                                       row->occ.warps_per_block, t);
  return TRUE;
}
