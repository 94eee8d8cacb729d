/* builtin-ptx.c - the built-in kernels run from nvcc's PTX of their
 * sources (builtin-ptx.h says how). */
#include "config.h"

#include <string.h>

#include "builtin-ptx.h"
#include "ptx-program.h"
#include "sass.h"

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
static GHashTable *programs;   /* MsPtxCompiled * -> MsPtxProgram *, loaded once, kept */

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

/* Whether mangled name m is that of plain function `name` (the built-ins
 * are neither templates nor in namespaces). */
static gboolean
names (const char *m, const char *name)
{
  g_autofree char *shown = ms_ptx_display_name (m, FALSE);
  return strcmp (shown, name) == 0;
}

/* The program of kernel `kernel` of source (its entry's PTX alone), or
 * NULL with the error. */
static MsPtxProgram *
program_of (const char *source, const char *kernel, GError **error)
{
  const MsPtxCompiled *c = NULL;
  for (gsize m = 0; m < G_N_ELEMENTS (modules) && c == NULL; m++)
    if (strcmp (modules[m].source, source) == 0)
      for (const MsPtxCompiled *e = modules[m].compiled; e->name != NULL && c == NULL; e++)
        if (names (e->name, kernel))
          c = e;
  if (c == NULL)
    {
      g_set_error (error, MS_PROBLEM_ERROR, MS_PROBLEM_ERROR_PARAM,
                   "memsim's build of %s has no kernel %s: rebuild memsim", source, kernel);
      return NULL;
    }
  g_mutex_lock (&programs_lock);
  if (programs == NULL)
    programs = g_hash_table_new (NULL, NULL);
  MsPtxProgram *p = g_hash_table_lookup (programs, c);
  if (p == NULL)
    {
      g_autofree char *base = g_strndup (source, strcspn (source, "."));
      g_autofree char *name = g_strconcat (base, ".ptx", NULL);
      p = ms_ptx_program_load_compiled (name, c->ptx, strlen (c->ptx), c, builtin_sass, error);
      if (p != NULL)
        g_hash_table_insert (programs, (gpointer) c, p);
    }
  g_mutex_unlock (&programs_lock);
  return p;
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
      MsPtxProgram *p = program_of (k->source, b.kernel, error);
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
