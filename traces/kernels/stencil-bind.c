/* The entries of stencil.cu (MS_ENTRY), compiled as C: what each launches, with
 * which arguments (traces/kernels/builtin-ptx.h); the kernels themselves run
 * from the PTX nvcc made of the same file. */
#include "config.h"
#define MS_BIND_BUILD 1
#include "stencil.cu"
