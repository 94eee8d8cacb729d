/* ptx-program.h - device code as nvcc compiled it: a program's PTX modules,
 * translated to warp-wide C (ptx-translate.c), compiled by the host
 * compiler (cached by hash) and loaded; each .entry a kernel descriptor
 * whose warp_entry runs one warp of it on the emulator (sim/emulator/warp.h).
 *
 *   prog = ms_ptx_program_load (ptx_files, &error);
 *   k = ms_ptx_program_kernel (prog, "_Z4vaddPKfS0_Pfi");
 *   (build k->param_bytes of parameters at k->params[i].offset, then launch
 *    k->kernel with MsLaunchArgs.params pointing at them)
 *
 * Module-scope variables (__device__, __constant__) live in memory the
 * caller provides (its own allocations, so that the emulator sees them as
 * buffers of the launch): ms_ptx_program_bind_global before a launch.
 */
#pragma once

#include <glib.h>

#include "problem.h"
#include "ptx-compiled.h"

G_BEGIN_DECLS

#define MS_PTX_ERROR (ms_ptx_error_quark ())
GQuark ms_ptx_error_quark (void);

typedef enum {
  MS_PTX_ERROR_SYNTAX,       /* the reader: file:line: what was expected */
  MS_PTX_ERROR_UNSUPPORTED,  /* an instruction the engine does not know (name, source line) */
  MS_PTX_ERROR_COMPILER,     /* the host compiler failed on the generated C */
  MS_PTX_ERROR_LOAD,         /* dlopen / a symbol missing */
} MsPtxError;

typedef struct MsPtxProgram MsPtxProgram;

typedef struct {
  const char *name;      /* as the kernel's source declares it ("in"), where memsim
                          * could read the declaration; else as in the PTX (..._param_0) */
  guint offset, size, align;
} MsPtxParam;

typedef struct {
  const char *name;          /* the .entry's (mangled) name */
  const MsKernel *kernel;    /* descriptor: external, warp_entry set */
  guint n_params;
  const MsPtxParam *params;
  guint param_bytes;         /* the parameter block's size */
  guint static_shared;       /* bytes of .shared the entry declares */
} MsPtxKernel;

typedef struct {
  const char *name;          /* as in the PTX (mangled) */
  gsize size;
  guint align;
  gboolean constant;         /* .const (else .global) */
  const guint8 *init;        /* initial bytes (size of them), or NULL: zeros */
} MsPtxGlobal;

/* Reads, translates, compiles (or finds in the cache) and loads the PTX
 * files as one program.  NULL with a one-line MS_PTX_ERROR. */
MsPtxProgram *ms_ptx_program_load (const char *const *ptx_files, GError **error);
/* The same for one module whose entries were translated and compiled
 * when memsim was built (compiled, NULL-terminated: ptx-to-c.c's table):
 * text is the PTX they came from, named path in messages; sass_of gives
 * the SASS of an entry's kernel (its name as the source says it) and the
 * function in it, or NULL. */
typedef const MsSass *(*MsPtxSassFn) (const char *kernel, char **function);
MsPtxProgram *ms_ptx_program_load_compiled (const char *path, const char *text, gsize len,
                                            const MsPtxCompiled *compiled, MsPtxSassFn sass_of,
                                            GError **error);
void ms_ptx_program_free (MsPtxProgram *p);

/* The kernel of entry `name`, or NULL. */
const MsPtxKernel *ms_ptx_program_kernel (MsPtxProgram *p, const char *name);
/* Big kernels built quickly first (-O0), their optimised builds compiled
 * in the background, each taking over from the next block of its kernel
 * that starts (ptx-program.c, QUICK_BYTES): what memsim run does.  Off by
 * default. */
void ms_ptx_program_set_quick_first (MsPtxProgram *p, gboolean quick_first);
/* The same by the kernel's name as its source says it ("clamp", "red<128>"). */
const MsPtxKernel *ms_ptx_program_kernel_shown (MsPtxProgram *p, const char *shown);

/* All the program's kernels (n of them), their entries not yet built:
 * ms_ptx_program_kernel builds one. */
const MsPtxKernel *ms_ptx_program_kernels (MsPtxProgram *p, guint *n);

/* The module-scope variables (n of them). */
const MsPtxGlobal *ms_ptx_program_globals (MsPtxProgram *p, guint *n);
/* Where variable `name` lives for the program's launches (memory of at
 * least its size, holding its initial bytes); FALSE if there is none. */
gboolean ms_ptx_program_bind_global (MsPtxProgram *p, const char *name, void *device);

/* A kernel's name as its source says it ("clamp" for _Z5clampPfi;
 * "red<128>" for a template's instance when demangle_it); free it. */
char *ms_ptx_display_name (const char *mangled, gboolean demangle_it);

G_END_DECLS
