/* user-program.c - a user's whole CUDA program, built and run on the CPU
 * (see user-program.h; docs/model.md, "Whole programs").
 *
 * The build is the one of users' kernels (user-build.c) in program mode:
 * `<<<...>>>` launches become calls of the shim's launch operator, which
 * hands memsim's runtime (cuda-runtime.c) the kernel's address and a
 * closure.  A kernel is known by its address: the build's debug info
 * gives its name, its parameters' names and its file (user-sites.c), and
 * the first launch of each makes its descriptor, kept for the process.
 */
#define _GNU_SOURCE 1   /* dladdr */
#include "config.h"
#include "user-program.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <string.h>

#include "native.h"
#include "user-build.h"
#include "user-sites.h"
#include "user-sass.h"
#include "user-source.h"

/* A kernel of the program, as its launches found it. */
typedef struct {
  MsKernel kernel;     /* first: the launch's MsProblem points here */
  char *name;
  char *file;
  GPtrArray *params;   /* names (owned) */
} ProgramKernel;

struct MsUserProgram {
  char *name;                /* argv[0]: the first file's name without .cu */
  char **files;
  char ***lines;             /* per file, its lines */
  GModule *module;
  MsUserSites *sites;
  int (*main_fn) (int argc, char **argv);
  GMutex lock;
  GHashTable *kernels;       /* code address -> ProgramKernel */
  char *sass_text;           /* nvcc's SASS of the files (user-sass.h), or NULL */
};

static gboolean
no_setup (MsProblem *p, GError **error)
{
  return TRUE;
}

/* The lines of the program's file whose base name is that of path. */
static char **
lines_of (const MsUserProgram *p, const char *path, const char **file)
{
  g_autofree char *base = g_path_get_basename (path ? path : "?");
  for (guint i = 0; p->files[i]; i++)
    {
      g_autofree char *b = g_path_get_basename (p->files[i]);
      if (strcmp (b, base) == 0)
        {
          *file = p->files[i];
          return p->lines[i];
        }
    }
  return NULL;
}

/* cuda-runtime.h's MsProgramKernelFn. */
static const MsKernel *
kernel_at (gpointer data, const void *code, const char *kinds, const char **names,
           GError **error)
{
  MsUserProgram *p = data;
  g_mutex_lock (&p->lock);
  ProgramKernel *k = g_hash_table_lookup (p->kernels, code);
  if (k == NULL)
    {
      g_autoptr (GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *decl = NULL;
      int line = 0;
      char *name = ms_user_sites_function (p->sites, code, params, &decl, &line);
      if (name == NULL)
        {
          g_mutex_unlock (&p->lock);
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                       "the launched function at %p is not in the program's build", code);
          return NULL;
        }
      k = g_new0 (ProgramKernel, 1);
      k->name = name;
      const char *file = NULL;
      char **lines = lines_of (p, decl, &file);
      k->file = g_strdup (file ? file : decl ? decl : "?");
      k->params = g_steal_pointer (&params);
      MsKernel *d = &k->kernel;
      d->name = k->name;
      d->family = "user";
      d->origin = k->file;
      d->description = "a kernel of your program";
      d->source = k->file;
      d->setup = no_setup;
      d->cpu_entry = ms_cuda_runtime_entry;
      d->external = TRUE;
      static const char *const no_lines[] = { NULL };
      d->source_lines = lines ? (const char *const *) lines : no_lines;
      d->site_at = ms_user_sites_at;
      d->site_data = p->sites;
      /* compiler-exact counts: the kernel's own instructions, by symbol */
      Dl_info info;
      char *function = NULL;
      if (p->sass_text != NULL && dladdr (code, &info) != 0 && info.dli_sname != NULL)
        d->sass = ms_user_sass_kernel (p->sass_text, info.dli_sname, &function);
      d->sass_function = function;
      g_hash_table_insert (p->kernels, (gpointer) code, k);
    }
  g_mutex_unlock (&p->lock);
  for (guint i = 0; kinds[i] && i < MS_MAX_ARGS; i++)
    names[i] = i < k->params->len ? k->params->pdata[i] : NULL;
  return &k->kernel;
}

/* The symbol a load failure names ("undefined symbol: cudaMallocPitch"). */
static char *
undefined_symbol (const char *message)
{
  const char *u = message ? strstr (message, "undefined symbol: ") : NULL;
  if (u == NULL)
    return NULL;
  u += strlen ("undefined symbol: ");
  return g_strndup (u, strcspn (u, " \t\n,"));
}

MsUserProgram *
ms_user_program_load (const char *const *files, const char *const *include_dirs,
                      gboolean compiler_exact, GError **error)
{
  guint n = g_strv_length ((char **) files);
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < n; i++)
    {
      char *text = NULL;
      g_autoptr (GError) e = NULL;
      if (!g_file_test (files[i], G_FILE_TEST_EXISTS))
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE,
                       "%s: no such file; give the path of your CUDA program", files[i]);
          return NULL;
        }
      if (!g_file_get_contents (files[i], &text, NULL, &e))
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE, "cannot read %s: %s", files[i],
                       e->message);
          return NULL;
        }
      g_ptr_array_add (texts, text);
    }
  g_ptr_array_add (texts, NULL);
  MsUserBuildSpec spec = { .files = files, .texts = (const char *const *) texts->pdata,
                           .include_dirs = include_dirs, .program = TRUE };
  g_autofree char *so = ms_user_build_spec (&spec, NULL, error);
  if (so == NULL)
    return NULL;

  (void) ms_native_runtime_version ();    /* the hooks the build calls */
  (void) ms_cuda_runtime_version ();      /* the CUDA runtime it calls */
  /* bound at once: a CUDA function memsim lacks is named now, not in the
   * middle of the run */
  GModule *module = g_module_open (so, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_autofree char *missing = undefined_symbol (g_module_error ());
      if (missing != NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                     "%s calls %s, which memsim's CUDA runtime does not provide "
                     "(docs/model.md, \"Whole programs\", lists what it does)", files[0], missing);
      else
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD, "cannot load the build of %s: %s",
                     files[0], g_module_error ());
      return NULL;
    }
  gpointer main_fn = NULL;
  Dl_info info;
  if (!g_module_symbol (module, "main", &main_fn) || main_fn == NULL
      || dladdr (main_fn, &info) == 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s has no main(): memsim run runs whole programs; for one kernel use "
                   "`memsim trace FILE.cu:KERNEL`", files[0]);
      g_module_close (module);
      return NULL;
    }
  MsUserSites *sites = ms_user_sites_new (so, info.dli_fbase, files[0], error);
  if (sites == NULL)
    {
      g_module_close (module);
      return NULL;
    }
  MsUserProgram *p = g_new0 (MsUserProgram, 1);
  g_autofree char *base = g_path_get_basename (files[0]);
  char *dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  p->name = g_strdup (base);
  p->files = g_strdupv ((char **) files);
  p->lines = g_new0 (char **, n + 1);
  for (guint i = 0; i < n; i++)
    p->lines[i] = g_strsplit (texts->pdata[i], "\n", -1);
  p->module = module;
  p->sites = sites;
  p->main_fn = (int (*) (int, char **)) main_fn;
  g_mutex_init (&p->lock);
  p->kernels = g_hash_table_new (NULL, NULL);
  if (compiler_exact)
    {
      g_autofree char *why = NULL;
      p->sass_text = ms_user_sass_text (files, include_dirs, &why);
    }
  return p;
}

int
ms_user_program_run (MsUserProgram *p, const MsArch *arch, int argc, char **argv,
                     MsProgramLaunchFn launch, gpointer data)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_ptr_array_add (args, p->name);
  for (int i = 0; i < argc; i++)
    g_ptr_array_add (args, argv[i]);
  g_ptr_array_add (args, NULL);
  ms_cuda_runtime_begin (arch, kernel_at, p, launch, data);
  int status = p->main_fn ((int) args->len - 1, (char **) args->pdata);
  ms_cuda_runtime_end ();
  return status;
}
