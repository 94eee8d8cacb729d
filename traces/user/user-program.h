/* user-program.h - a user's whole CUDA program (host code and kernels) run
 * on the CPU: `memsim run PROGRAM.cu [MORE.cu ...] [-I DIR] [-- ARGS]`.
 *
 *   prog = ms_user_program_load (files, include_dirs, &error);  // build (cached), load
 *   status = ms_user_program_run (prog, arch, argc, argv, launch_fn, data);
 *
 * The files are compiled together (traces/user/user-build.h, program
 * mode: launches run) and the program's main runs on the calling thread;
 * its CUDA calls are answered by traces/user/cuda-runtime.c and every
 * launch goes to launch_fn.
 */
#pragma once

#include <glib.h>

#include "arch.h"
#include "cuda-runtime.h"

G_BEGIN_DECLS

typedef struct MsUserProgram MsUserProgram;

/* Reads and builds the files (.cu and .cpp; the folders of the files and
 * include_dirs are searched for #include), loads the build; with
 * compiler_exact, also nvcc's SASS of the .cu files when nvcc and nvdisasm
 * are there (user-sass.h: the kernels' counts are then compiler-exact).
 * One-line errors (MsUserError): a file missing, the compiler's first
 * error, no main(), a CUDA function memsim's runtime does not provide. */
MsUserProgram *ms_user_program_load (const char *const *files, const char *const *include_dirs,
                                     gboolean compiler_exact, GError **error);

/* Runs main (argv[0] is the program's name) with memsim's CUDA runtime
 * answering for arch and each launch handed to launch (cuda-runtime.h);
 * returns main's status.  A program that calls exit() ends the process
 * there: callers that must finish something use atexit().  A program is
 * loaded for the process (the site table holds its sites). */
int ms_user_program_run (MsUserProgram *program, const MsArch *arch, int argc, char **argv,
                         MsProgramLaunchFn launch, gpointer data);

G_END_DECLS
