/* kernel-usage.h - what a built-in kernel's launch uses per thread and per
 * block: registers and static shared bytes, from the nvcc build's
 * resource usage where memsim was built with CUDA, else from the emulator
 * (shared bytes) and a stated default (registers).
 */
#pragma once

#include <glib.h>

#include "occupancy.h"
#include "problem.h"

G_BEGIN_DECLS

/* One __global__ function as ptxas compiled it (sm_90, the nvcc build's
 * NVCC_FLAGS): generated at build time into kernel-usage-table.c by
 * traces/kernels/nvcc-usage.sh (empty without CUDA). */
typedef struct {
  const char *function;   /* the identifier: "transpose_naive", "smem_stride_4" */
  int registers;          /* per thread */
  int shared_bytes;       /* static, per block */
  int barriers;           /* block barriers */
} MsKernelUsage;

extern const MsKernelUsage ms_kernel_usage_table[];   /* ends with { NULL } */

/* Registers per thread assumed where no nvcc figure exists. */
#define MS_DEFAULT_REGISTERS 32
/* The fewest registers per thread the H100 allocates: Nsight reports
 * launch__registers_per_thread 16 where ptxas says 10 to 15 (measured,
 * docs/validation-costs.md); below 16 no occupancy limit changes. */
#define MS_MIN_ALLOCATED_REGISTERS 16

/* The registers a thread is allocated for ptxas's count: at least
 * MS_MIN_ALLOCATED_REGISTERS. */
static inline int
ms_allocated_registers (int ptxas_registers)
{
  return MAX (ptxas_registers, MS_MIN_ALLOCATED_REGISTERS);
}

/* The row of the __global__ function the problem's launch runs
 * (ms_problem_function), or NULL. */
const MsKernelUsage *ms_kernel_usage_find (const MsProblem *p);

/* The occupancy calculator's input for the problem's launch: the nvcc
 * build's registers, shared bytes and barriers where memsim has them, else
 * ptxas' registers of a user's kernel (or MS_DEFAULT_REGISTERS) and the
 * shared bytes its PTX declares (0 for a kernel not run from PTX yet). */
void ms_problem_occupancy_input (const MsProblem *p, MsOccInput *in);

/* The shared bytes block 0 declares: a built-in's, as its PTX declares
 * them; else those the emulator sees (its SHARED_ARRAYs, aligned as the
 * emulator places them), running block 0 alone, on copies of the problem's
 * buffers, without sinks; the problem is left unchanged. */
gboolean ms_problem_probe_shared (const MsProblem *p, guint *bytes, GError **error);

G_END_DECLS
