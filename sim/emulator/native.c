/* native.c - the runtime of compiler-instrumented kernels: users' own CUDA
 * files, compiled by g++ with -fsanitize=thread (traces/user/).
 *
 * GCC's ThreadSanitizer pass calls __tsan_readN / __tsan_writeN (N = 1, 2,
 * 4, 8, 16) before every load and store the optimiser left in memory, and
 * __tsan_read_range / __tsan_write_range for aggregate copies.  The build
 * is linked without libtsan, so these names resolve to the definitions
 * below, exported by the memsim executable (-rdynamic).  Each hook hands
 * the address to the emulator (ms_native_access): a device access stops
 * the lane until its warp executes the instruction, then the kernel's own
 * instruction, right after the call, performs the access.  The return
 * address of the hook is the access's code address: its site.
 *
 * Modelling assumptions: one hook call = one warp-level memory instruction
 * of the width the compiler chose for the CPU (a float4 is one 16-byte
 * access, a struct copied member by member is one access per member);
 * a range access (an aggregate copy GCC does not split itself, e.g. a
 * float3) is split into 4-byte pieces when its address and size are
 * multiples of 4 -- what nvcc does for a type aligned to 4 bytes: a float3
 * is three 32-bit loads -- and into bytes otherwise, one instruction per
 * piece.  The same split for every lane keeps an instruction's width
 * uniform.
 */
#include "config.h"

#include "kernel.h"
#include "lane.h"
#include "native.h"

#define RA() __builtin_return_address (0)

/* Exported for the user's build: keep them out of the C prototype checks. */
#define HOOK(name, args) void name args; void name args

#define READ_WRITE(n)                                                           \
  HOOK (__tsan_read##n, (void *p)) { ms_native_access (p, n, FALSE, RA ()); }   \
  HOOK (__tsan_write##n, (void *p)) { ms_native_access (p, n, TRUE, RA ()); }   \
  HOOK (__tsan_unaligned_read##n, (void *p)) { ms_native_access (p, n, FALSE, RA ()); } \
  HOOK (__tsan_unaligned_write##n, (void *p)) { ms_native_access (p, n, TRUE, RA ()); } \
  HOOK (__tsan_volatile_read##n, (void *p)) { ms_native_access (p, n, FALSE, RA ()); } \
  HOOK (__tsan_volatile_write##n, (void *p)) { ms_native_access (p, n, TRUE, RA ()); }

READ_WRITE (1)
READ_WRITE (2)
READ_WRITE (4)
READ_WRITE (8)
READ_WRITE (16)

static void
range (void *p, gsize size, gboolean store, const void *pc)
{
  guint8 *a = p;
  unsigned n = (size % 4 == 0 && ((guintptr) a & 3) == 0) ? 4 : 1;
  for (gsize done = 0; done < size; done += n)
    ms_native_access (a + done, n, store, pc);
}

HOOK (__tsan_read_range, (void *p, gsize size)) { range (p, size, FALSE, RA ()); }
HOOK (__tsan_write_range, (void *p, gsize size)) { range (p, size, TRUE, RA ()); }

/* What the build may also call: nothing to do for memsim. */
HOOK (__tsan_init, (void)) {}
HOOK (__tsan_func_entry, (void *pc)) {}
HOOK (__tsan_func_exit, (void)) {}
HOOK (__tsan_vptr_update, (void **p, void *v)) {}
HOOK (__tsan_vptr_read, (void **p)) {}
HOOK (__tsan_atomic_thread_fence, (int order)) { __atomic_thread_fence (__ATOMIC_SEQ_CST); }
HOOK (__tsan_atomic_signal_fence, (int order)) {}

/* The shim's MS_SITE_ (sim/emulator/cuda-shim.h): the site of the caller. */
const MsSite *ms_user_site (void);
const MsSite *
ms_user_site (void)
{
  return ms_native_site (RA ());
}

void ms_user_syncthreads (void);
void
ms_user_syncthreads (void)
{
  ms_lane_syncthreads (ms_native_site (RA ()));
}

/* threadIdx, blockIdx, blockDim, gridDim of the shim (const functions). */
uint3 ms_user_thread_idx (void);
uint3 ms_user_block_idx (void);
uint3 ms_user_block_dim (void);
uint3 ms_user_grid_dim (void);

uint3
ms_user_thread_idx (void)
{
  return ((MsThreadInfo *) ms_self)->thread_idx;
}

uint3
ms_user_block_idx (void)
{
  return ms_block.block_idx;
}

uint3
ms_user_block_dim (void)
{
  return ms_block.block_dim;
}

uint3
ms_user_grid_dim (void)
{
  return ms_block.grid_dim;
}

/* Referenced by traces/user so the linker keeps this file in programs that
 * load users' kernels. */
int
ms_native_runtime_version (void)
{
  return 1;
}
