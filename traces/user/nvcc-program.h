/* nvcc-program.h - a user's whole CUDA program built by nvcc and run on the
 * CPU (`memsim run`'s default): the host code as nvcc compiled it, its CUDA
 * runtime calls answered by memsim (cuda-runtime.c), its kernels the PTX
 * nvcc emitted, executed by the PTX engine (sim/ptx/ptx-program.h).
 *
 *   prog = ms_nvcc_program_load (files, flags, &error);  // build (cached), load
 *   status = ms_nvcc_program_run (prog, arch, argc, argv, launch_fn, data);
 */
#pragma once

#include <glib.h>

#include "arch.h"
#include "cuda-runtime.h"

G_BEGIN_DECLS

typedef struct MsNvccProgram MsNvccProgram;

/* Whether this memsim can build and run programs with nvcc: it was built
 * with the CUDA headers and the PTX engine.  FALSE with a one-line error
 * saying what is missing. */
gboolean ms_nvcc_program_available (GError **error);

/* Builds the files with nvcc flags (nvcc-build.h), loads the device code
 * (the PTX engine) and the host code.  One-line errors (MsUserError, or
 * the engine's MsPtxError): nvcc's first error, a CUDA function memsim's
 * runtime lacks, no main(). */
MsNvccProgram *ms_nvcc_program_load (const char *const *files, const char *const *flags,
                                     GError **error);

/* Loads a build (so, from ms_nvcc_build) whose kernels code finds (copied;
 * the engine's program, or a test's stand-in); name: argv[0]. */
MsNvccProgram *ms_nvcc_program_open (const char *so, const char *name, const MsDeviceCode *code,
                                     GError **error);

/* Runs main (argv[0] is the program's name) with memsim's CUDA runtime
 * answering for arch and each launch handed to launch; returns main's
 * status (a program that calls exit() ends the process there).  A
 * program stays loaded for the process. */
int ms_nvcc_program_run (MsNvccProgram *p, const MsArch *arch, int argc, char **argv,
                         MsProgramLaunchFn launch, gpointer data);

/* Frees what p holds of its own; its build stays loaded (its static
 * constructors registered it with the runtime, which may still name its
 * kernels). */
void ms_nvcc_program_free (MsNvccProgram *p);

G_END_DECLS
