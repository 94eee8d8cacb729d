/* fiber.h - user-space context switching for the emulator's CUDA threads.
 *
 * Every CUDA thread runs on a fiber: its own small stack and a saved stack
 * pointer.  On x86-64 the switch is a few instructions of hand-written
 * assembly (no system call, unlike swapcontext); elsewhere it falls back to
 * ucontext.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

typedef struct {
#if defined(__x86_64__)
  void *sp, *bp, *pc;  /* stack pointer, frame pointer, resume address */
#else
  ucontext_t uc;
#endif
} MsFiber;
typedef void (*MsFiberFn) (void *arg);

/* A stack pool: n stacks of `stack_bytes`, each with a guard page below. */
typedef struct MsStackPool MsStackPool;

MsStackPool *ms_stack_pool_new (guint n, gsize stack_bytes, GError **error);
void ms_stack_pool_free (MsStackPool *pool);
guint ms_stack_pool_size (const MsStackPool *pool);

/* Prepare fiber f (stack i of the pool) to run fn(arg) on its next resume. */
void ms_fiber_init (MsFiber *f, MsStackPool *pool, guint i, MsFiberFn fn, void *arg);

/* Save the current context in `from` and continue `to`. */
#if defined(__x86_64__)
/* Inlined at each call site and without call/ret across contexts, so the
 * CPU's return-stack predictor stays right (a called swap function costs
 * a mispredicted return per switch).  Everything but rbp and rsp is declared
 * clobbered, so the compiler saves what it needs; rsp, rbp (maybe the frame
 * pointer) and the resume address go to the MsFiber, not to the stack, so
 * the red zone is left alone. */
static inline void
ms_fiber_switch (MsFiber *from, MsFiber *to)
{
  MsFiber *f = from, *t = to;
  __asm__ volatile ("leaq 1f(%%rip), %%rax\n\t"
                    "movq %%rax, 16(%0)\n\t"
                    "movq %%rsp, (%0)\n\t"
                    "movq %%rbp, 8(%0)\n\t"
                    "movq (%1), %%rsp\n\t"
                    "movq 8(%1), %%rbp\n\t"
                    "jmpq *16(%1)\n"
                    "1:\n\t"
                    : "+D" (f), "+S" (t)
                    :
                    : "rax", "rbx", "rcx", "rdx", "r8", "r9", "r10", "r11", "r12", "r13",
                      "r14", "r15", "memory", "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4",
                      "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
                      "xmm13", "xmm14", "xmm15", "st", "st(1)", "st(2)", "st(3)", "st(4)",
                      "st(5)", "st(6)", "st(7)"
#ifdef __AVX512F__
                      , "xmm16", "xmm17", "xmm18", "xmm19", "xmm20", "xmm21", "xmm22",
                      "xmm23", "xmm24", "xmm25", "xmm26", "xmm27", "xmm28", "xmm29", "xmm30",
                      "xmm31", "k1", "k2", "k3", "k4", "k5", "k6", "k7"
#endif
                      );
}
#else
void ms_fiber_switch (MsFiber *from, MsFiber *to);
#endif

/* Does address p lie in a guard page of the pool (stack overflow)? */
gboolean ms_stack_pool_is_guard (const MsStackPool *pool, const void *p);

G_END_DECLS
