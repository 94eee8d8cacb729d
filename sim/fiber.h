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
  void *sp;            /* saved stack pointer; registers are on the stack */
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
void ms_fiber_switch (MsFiber *from, MsFiber *to);

/* Does address p lie in a guard page of the pool (stack overflow)? */
gboolean ms_stack_pool_is_guard (const MsStackPool *pool, const void *p);

G_END_DECLS
