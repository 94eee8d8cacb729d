/* fiber.c - see fiber.h.  Two implementations:
 *   x86-64: save the six callee-saved registers on the stack, swap stack
 *           pointers, restore, return (System V ABI: nothing else survives a
 *           call, and kernels do not change MXCSR or the x87 control word);
 *   other:  ucontext (makecontext/swapcontext), slow but portable.
 */
#include "config.h"
#include "fiber.h"

#include <errno.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Linux 6.13's lightweight guard pages: a guard installed with madvise does
 * not split the mapping, so installing one per stack and unmapping the pool
 * cost about half of mprotect's (measured: 256 stacks, 1.74 -> 0.75 ms,
 * page faults included).  Older kernels refuse it (EINVAL): mprotect. */
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

/* All the pool's guards in one system call: process_madvise on this
 * process takes a vector of ranges and, for oneself, any advice (Linux
 * 6.13).  Measured, 256 stacks: 0.21 ms in 256 madvise calls, 0.14 ms in
 * one.  FALSE (nothing to undo: installing a guard twice is harmless) when
 * the kernel refuses; the caller then guards page by page. */
static gboolean
guards_in_one_call (guint8 *base, gsize slot, gsize page, guint n)
{
#if defined(SYS_process_madvise) && defined(SYS_pidfd_open)
  static gboolean refused;
  if (__atomic_load_n (&refused, __ATOMIC_RELAXED))
    return FALSE;
  int pidfd = (int) syscall (SYS_pidfd_open, getpid (), 0);
  gboolean ok = pidfd >= 0;
  struct iovec v[256];
  for (guint i = 0; ok && i < n; i += G_N_ELEMENTS (v))
    {
      guint k = MIN (n - i, (guint) G_N_ELEMENTS (v));
      for (guint j = 0; j < k; j++)
        v[j] = (struct iovec) { base + (gsize) (i + j) * slot, page };
      ok = syscall (SYS_process_madvise, pidfd, v, (size_t) k, MADV_GUARD_INSTALL, 0)
           == (long) (k * page);
    }
  if (pidfd >= 0)
    close (pidfd);
  if (!ok)
    __atomic_store_n (&refused, TRUE, __ATOMIC_RELAXED);
  return ok;
#else
  (void) base, (void) slot, (void) page, (void) n;
  return FALSE;
#endif
}

/* Under AddressSanitizer: a fiber parked in the middle of a function leaves
 * its frames' redzones poisoned in the shadow memory, which outlives the
 * stack mapping; a new pool at the same address must start clean. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION (p, n)
#else
#define UNPOISON(p, n) ((void) (p), (void) (n))
#endif

/* What a fiber runs first: its function and argument. */
typedef struct {
  MsFiberFn fn;
  void *arg;
} Entry;

struct MsStackPool {
  guint8 *base;
  Entry *entry;        /* per stack, for the fiber's first switch */
  gsize stack_bytes;   /* usable bytes per stack */
  gsize slot_bytes;    /* stack + guard page */
  gsize page;
  guint n;
};

MsStackPool *
ms_stack_pool_new (guint n, gsize stack_bytes, GError **error)
{
  gsize page = (gsize) sysconf (_SC_PAGESIZE);
  stack_bytes = (stack_bytes + page - 1) / page * page;
  gsize slot = stack_bytes + page;
  void *base = mmap (NULL, slot * n, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                   "cannot reserve %u fiber stacks of %zu bytes; use fewer threads (--threads)",
                   n, stack_bytes);
      return NULL;
    }
  static gboolean no_guard_advice;   /* the kernel refused MADV_GUARD_INSTALL once */
  for (guint i = guards_in_one_call (base, slot, page, n) ? n : 0; i < n; i++)
    {
      guint8 *guard = (guint8 *) base + i * slot;
      if (!__atomic_load_n (&no_guard_advice, __ATOMIC_RELAXED))
        {
          if (madvise (guard, page, MADV_GUARD_INSTALL) == 0)
            continue;
          if (errno == EINVAL)
            __atomic_store_n (&no_guard_advice, TRUE, __ATOMIC_RELAXED);
        }
      if (mprotect (guard, page, PROT_NONE) == 0)
        continue;
      /* each mprotect'ed guard splits the mapping: the kernel's map limit */
      munmap (base, slot * n);
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_NOMEM,
                   "cannot protect %u fiber stacks (the system's limit on memory "
                   "mappings); use fewer threads (--threads)", n);
      return NULL;
    }
  UNPOISON (base, slot * n);
  MsStackPool *pool = g_new0 (MsStackPool, 1);
  pool->base = base;
  pool->entry = g_new0 (Entry, n);
  pool->stack_bytes = stack_bytes;
  pool->slot_bytes = slot;
  pool->page = page;
  pool->n = n;
  return pool;
}

void
ms_stack_pool_free (MsStackPool *pool)
{
  if (pool == NULL)
    return;
  UNPOISON (pool->base, pool->slot_bytes * pool->n);
  munmap (pool->base, pool->slot_bytes * pool->n);
  g_free (pool->entry);
  g_free (pool);
}

guint
ms_stack_pool_size (const MsStackPool *pool)
{
  return pool->n;
}

gboolean
ms_stack_pool_is_guard (const MsStackPool *pool, const void *p)
{
  const guint8 *b = p;
  if (pool == NULL || b < pool->base || b >= pool->base + pool->slot_bytes * pool->n)
    return FALSE;
  return (gsize) (b - pool->base) % pool->slot_bytes < pool->page;
}

/* Stacks are a whole number of pages apart, so their tops would all fall
 * in the same cache sets; shifting each top by a different multiple of 64
 * bytes ("colouring") spreads the hot top-of-stack lines over the cache. */
static guint8 *
stack_top (MsStackPool *pool, guint i)
{
  return pool->base + (gsize) i * pool->slot_bytes + pool->slot_bytes - (i % 61) * 64;
}

#if defined(__x86_64__)

/* First entry of a fiber, jumped to by ms_fiber_switch with rbp pointing
 * to its Entry and rsp at the top of its stack; fn never returns.  The
 * stack is not written before the fiber runs: a kernel whose warps all run
 * straight through never touches its lanes' stacks (one page fault each,
 * 256 of them for a block of 256 threads). */
__asm__ (
  ".text\n"
  ".p2align 4\n"
  ".type ms_fiber_trampoline, @function\n"
  "ms_fiber_trampoline:\n"
  "  movq %rbp, %rax\n"
  "  xorl %ebp, %ebp\n"
  "  movq 8(%rax), %rdi\n"
  "  callq *(%rax)\n"
  "  ud2\n"
  ".size ms_fiber_trampoline, .-ms_fiber_trampoline\n");

void ms_fiber_trampoline (void);

void
ms_fiber_init (MsFiber *f, MsStackPool *pool, guint i, MsFiberFn fn, void *arg)
{
  /* The top is 16-byte aligned, so the trampoline's call gives fn the
   * frame alignment the ABI requires. */
  pool->entry[i] = (Entry) { fn, arg };
  f->sp = stack_top (pool, i);
  f->bp = &pool->entry[i];
  f->pc = (void *) ms_fiber_trampoline;
}

#else /* portable fallback */

static void
fiber_entry_split (unsigned g_hi, unsigned g_lo, unsigned a_hi, unsigned a_lo)
{
  MsFiberFn fn = (MsFiberFn) (((uintptr_t) g_hi << 32) | g_lo);
  fn ((void *) (((uintptr_t) a_hi << 32) | a_lo));
}

void
ms_fiber_init (MsFiber *f, MsStackPool *pool, guint i, MsFiberFn fn, void *arg)
{
  getcontext (&f->uc);
  f->uc.uc_stack.ss_sp = stack_top (pool, i) - pool->stack_bytes;
  f->uc.uc_stack.ss_size = pool->stack_bytes;
  f->uc.uc_link = NULL;
  /* makecontext passes int arguments: split the pointers in halves. */
  uintptr_t a = (uintptr_t) arg, g = (uintptr_t) fn;
  makecontext (&f->uc, (void (*) (void)) fiber_entry_split, 4,
               (unsigned) (g >> 32), (unsigned) g, (unsigned) (a >> 32), (unsigned) a);
}

void
ms_fiber_switch (MsFiber *from, MsFiber *to)
{
  swapcontext (&from->uc, &to->uc);
}

#endif
