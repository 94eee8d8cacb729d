/* nvcc-program.c - a user's whole program built by nvcc, run on the CPU
 * (see nvcc-program.h).  Loading the build runs nvcc's registration code,
 * which tells the runtime each kernel's and variable's device name
 * (cuda-runtime.c); a launch finds its kernel by that name in the device
 * code. */
#include "config.h"
#include "nvcc-program.h"

#include <gmodule.h>
#include <string.h>

#include "nvcc-build.h"
#include "ptx-program.h"
#include "user-error.h"

struct MsNvccProgram {
  char *name;
  GModule *module;
  int (*main_fn) (int argc, char **argv);
  MsDeviceCode code;
};

gboolean
ms_nvcc_program_available (GError **error)
{
  if (!ms_cuda_runtime_has_nvcc_abi ())
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER,
                   "this memsim was built without the CUDA headers: memsim run needs nvcc; "
                   "install the CUDA toolkit (or pip install nvidia-cuda-nvcc) and rebuild memsim");
      return FALSE;
    }
  return TRUE;
}

static const MsPtxKernel *
engine_kernel (gpointer data, const char *name)
{
  return ms_ptx_program_kernel (data, name);
}

static const MsPtxGlobal *
engine_globals (gpointer data, guint *n)
{
  return ms_ptx_program_globals (data, n);
}

static gboolean
engine_bind (gpointer data, const char *name, void *device)
{
  return ms_ptx_program_bind_global (data, name, device);
}

MsNvccProgram *
ms_nvcc_program_load (const char *const *files, const char *const *flags, GError **error)
{
  if (!ms_nvcc_program_available (error))
    return NULL;
  g_autoptr (MsNvccBuild) build = ms_nvcc_build (files, flags, error);
  if (build == NULL)
    return NULL;
  g_autofree char *base = g_path_get_basename (files[0]);
  char *dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  MsPtxProgram *device = ms_ptx_program_load ((const char *const *) build->ptx, error);
  if (device == NULL)
    return NULL;
  ms_ptx_program_set_quick_first (device, TRUE);
  MsDeviceCode code = { engine_kernel, engine_globals, engine_bind, device };
  MsNvccProgram *p = ms_nvcc_program_open (build->so, base, &code, error);
  if (p == NULL)
    ms_ptx_program_free (device);
  return p;
}

/* The function a load failure names, without memsim's prefix
 * ("undefined symbol: memsim_cudaMallocArray" -> cudaMallocArray). */
static char *
undefined_symbol (const char *message)
{
  const char *u = message ? strstr (message, "undefined symbol: ") : NULL;
  if (u == NULL)
    return NULL;
  u += strlen ("undefined symbol: ");
  if (g_str_has_prefix (u, "memsim_"))
    u += strlen ("memsim_");
  return g_strndup (u, strcspn (u, " \t\n,"));
}

MsNvccProgram *
ms_nvcc_program_open (const char *so, const char *name, const MsDeviceCode *code,
                      GError **error)
{
  (void) ms_cuda_runtime_version ();   /* the runtime the build calls */
  ms_cuda_runtime_set_device_code (code);
  /* bound at once: a CUDA function memsim lacks is named now, not in the
   * middle of the run */
  GModule *module = g_module_open (so, G_MODULE_BIND_LOCAL);
  if (module == NULL)
    {
      g_autofree char *missing = undefined_symbol (g_module_error ());
      if (missing != NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                     "memsim's CUDA runtime has no %s; %s calls it (docs/model.md, \"Whole "
                     "programs\", lists what the runtime answers)", missing, name);
      else
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD, "cannot load the build of %s: %s",
                     name, g_module_error ());
      ms_cuda_runtime_set_device_code (NULL);
      return NULL;
    }
  gpointer main_fn = NULL;
  if (!g_module_symbol (module, "main", &main_fn) || main_fn == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s has no main(): memsim run runs whole programs; for one kernel use "
                   "`memsim trace FILE.cu:KERNEL`", name);
      g_module_close (module);
      ms_cuda_runtime_set_device_code (NULL);
      return NULL;
    }
  MsNvccProgram *p = g_new0 (MsNvccProgram, 1);
  p->name = g_strdup (name);
  p->module = module;
  p->main_fn = (int (*) (int, char **)) main_fn;
  p->code = *code;
  return p;
}

int
ms_nvcc_program_run (MsNvccProgram *p, const MsArch *arch, int argc, char **argv,
                     MsProgramLaunchFn launch, gpointer data)
{
  g_autoptr (GPtrArray) args = g_ptr_array_new ();
  g_ptr_array_add (args, p->name);
  for (int i = 0; i < argc; i++)
    g_ptr_array_add (args, argv[i]);
  g_ptr_array_add (args, NULL);
  ms_cuda_runtime_set_device_code (&p->code);
  ms_cuda_runtime_begin (arch, launch, data);
  int status = p->main_fn ((int) args->len - 1, (char **) args->pdata);
  ms_cuda_runtime_end ();
  ms_cuda_arrays_end ();
  return status;
}

void
ms_nvcc_program_free (MsNvccProgram *p)
{
  if (p == NULL)
    return;
  g_free (p->name);
  g_free (p);
}
