/* registry.c - the table of built-in kernels, in the order `memsim list`
 * and `memsim compare` show them. */
#include "config.h"
#include "entries.h"
#include "problem.h"

#include <string.h>

#define DECLARE_DESCRIPTOR(name) extern const MsKernel ms_kernel_##name;
MS_FOR_EACH_KERNEL (DECLARE_DESCRIPTOR)

#define POINTER_TO(name) &ms_kernel_##name,
static const MsKernel *const kernels[] = { MS_FOR_EACH_KERNEL (POINTER_TO) NULL };

const MsKernel *const *
ms_kernels (void)
{
  return kernels;
}

const MsKernel *
ms_kernel_find (const char *name)
{
  for (int i = 0; kernels[i]; i++)
    if (strcmp (kernels[i]->name, name) == 0)
      return kernels[i];
  return NULL;
}
