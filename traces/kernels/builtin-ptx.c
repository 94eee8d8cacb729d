/* builtin-ptx.c - the built-in kernels run from nvcc's PTX of their
 * sources (builtin-ptx.h says how). */
#include "config.h"

#include <string.h>

#include "builtin-ptx.h"
#include "ptx-program.h"
#include "sass.h"

GBytes *ms_kernel_sources_lookup (const char *path);   /* kernels-resources.c (generated) */

/* the modules compiled into memsim (Makefile.am: PTX_KERNEL_FILES) */
extern const MsPtxCompiled ms_ptx_compiled_transpose[], ms_ptx_compiled_tests[],
  ms_ptx_compiled_reduce[], ms_ptx_compiled_stencil[], ms_ptx_compiled_gemm[],
  ms_ptx_compiled_access[];
static const struct {
  const char *source;             /* MsKernel.source */
  const MsPtxCompiled *compiled;
} modules[] = {
  { "transpose.cu", ms_ptx_compiled_transpose }, { "tests.cu", ms_ptx_compiled_tests },
  { "reduce.cu", ms_ptx_compiled_reduce }, { "stencil.cu", ms_ptx_compiled_stencil },
  { "gemm.cu", ms_ptx_compiled_gemm }, { "access.cu", ms_ptx_compiled_access },
};

static GMutex programs_lock;
static MsPtxProgram *programs[G_N_ELEMENTS (modules)];   /* loaded once, kept */

/* The SASS of the nvcc build (sass.h) for a kernel of the module. */
static const MsSass *
builtin_sass (const char *kernel, char **function)
{
  if (ms_kernel_sass_text[0] == '\0')
    return NULL;
  const MsSass *sass = ms_kernel_sass_function (kernel);
  if (sass == NULL || !ms_sass_has_function (sass, kernel))
    return NULL;
  *function = g_strdup (kernel);
  return sass;
}

static MsPtxProgram *
program_of (const char *source, GError **error)
{
  for (gsize m = 0; m < G_N_ELEMENTS (modules); m++)
    {
      if (strcmp (modules[m].source, source) != 0)
        continue;
      g_mutex_lock (&programs_lock);
      if (programs[m] == NULL)
        {
          g_autofree char *base = g_strndup (source, strlen (source) - strlen (".cu"));
          g_autofree char *name = g_strconcat (base, ".ptx", NULL);
          g_autofree char *path = g_strconcat ("/org/memsim/kernels/", name, NULL);
          g_autoptr (GBytes) text = ms_kernel_sources_lookup (path);
          if (text != NULL)
            programs[m] = ms_ptx_program_load_compiled (name, g_bytes_get_data (text, NULL),
                                                        g_bytes_get_size (text),
                                                        modules[m].compiled, builtin_sass, error);
          else
            g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                         "memsim's build has no PTX of %s: rebuild memsim", source);
        }
      MsPtxProgram *p = programs[m];
      g_mutex_unlock (&programs_lock);
      return p;
    }
  g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
               "no PTX module holds the kernels of %s", source);
  return NULL;
}

/* What the entry being bound launched (ms_bind_launch). */
typedef struct {
  char *kernel;
  guint n;
  MsBindArg args[MS_MAX_ARGS];
  gboolean twice;
} Binding;
static __thread Binding *binding;

void
ms_bind_launch (const MsLaunchArgs *L, const char *kernel, unsigned n, const MsBindArg *args)
{
  (void) L;
  Binding *b = binding;
  if (b == NULL)
    return;
  if (b->kernel != NULL || n > MS_MAX_ARGS)
    {
      b->twice = TRUE;
      return;
    }
  b->kernel = g_strdup (kernel);
  b->n = n;
  for (guint i = 0; i < n; i++)
    {
      b->args[i].size = args[i].size;
      b->args[i].value = g_memdup2 (args[i].value, args[i].size);
    }
}

/* The parameter block of pk from the bound arguments, or NULL with the
 * error (a memsim bug: the entry and the kernel disagree). */
static guint8 *
pack (const MsPtxKernel *pk, const Binding *b, GError **error)
{
  if (pk->n_params != b->n)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "%s takes %u parameters, its entry gives %u: a memsim bug", b->kernel,
                   pk->n_params, b->n);
      return NULL;
    }
  guint8 *params = g_malloc0 (MAX (pk->param_bytes, 1));
  for (guint i = 0; i < b->n; i++)
    {
      if (pk->params[i].size != b->args[i].size)
        {
          g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                       "%s's parameter %u takes %u bytes, its entry gives %u: a memsim bug",
                       b->kernel, i + 1, pk->params[i].size, b->args[i].size);
          g_free (params);
          return NULL;
        }
      memcpy (params + pk->params[i].offset, b->args[i].value, b->args[i].size);
    }
  return params;
}

gboolean
ms_builtin_ptx_bind (const MsKernel *k, const MsLaunchArgs *args, MsBuiltinLaunch *out,
                     GError **error)
{
  memset (out, 0, sizeof *out);
  Binding b = { 0 };
  binding = &b;
  k->bind_entry (args);
  binding = NULL;
  const MsPtxKernel *pk = NULL;
  if (b.kernel == NULL || b.twice)
    g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                 "%s's entry launched %s kernel for these parameters", k->name,
                 b.twice ? "more than one" : "no");
  else
    {
      MsPtxProgram *p = program_of (k->source, error);
      pk = p ? ms_ptx_program_kernel_shown (p, b.kernel) : NULL;
      if (p != NULL && pk == NULL)
        g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                     "memsim's build of %s has no kernel %s: rebuild memsim", k->source,
                     b.kernel);
    }
  guint8 *params = pk ? pack (pk, &b, error) : NULL;
  if (params != NULL)
    {
      out->warp_entry = pk->kernel->warp_entry;
      out->inst_map = pk->kernel->inst_map;
      out->params = params;
      out->function = pk->kernel->name;
      out->static_shared = pk->static_shared;
    }
  for (guint i = 0; i < b.n; i++)
    g_free ((gpointer) b.args[i].value);
  g_free (b.kernel);
  return params != NULL;
}
