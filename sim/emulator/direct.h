/* direct.h - a warp run straight through: its lanes called one after the
 * other on the worker's own stack, no fiber, no stop.
 *
 * When it applies: a warp of a built-in kernel whose lanes only load and
 * store global memory (no barrier, shared memory, atomic or collective),
 * whose loads read no byte the warp stores, in at most MS_DIRECT_STEPS
 * accesses a lane.  Then every load reads the same value whenever it runs,
 * and the fiber scheduler's order of the warp's accesses depends only on
 * each lane's sequence of sites.  So each lane runs to its end at once,
 * noting its accesses (loads read memory directly; stores only note their
 * value), and the emulator (emulator.c, run_direct) then executes the
 * notes in the order the fiber scheduler would have: the same records, the
 * same stores in the same order, the same counts.
 *
 * Anything else in a lane (a barrier, shared memory, an atomic, a
 * collective, an address outside every buffer or misaligned, a lane longer
 * than MS_DIRECT_STEPS) abandons the attempt before anything was stored or
 * recorded (ms_direct_abandon), and the warp runs on fibers as usual, which
 * also reports any error in its usual words.  Internal to the emulator:
 * kernels use LD/ST (kernel.h), never these names.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#include "site.h"

/* Accesses one lane may note (the notes of a warp take about 1 KiB a
 * step): run_warp lets other warps go after 4096 steps, so a lane of 4096
 * accesses could not run straight anyway. */
#define MS_DIRECT_STEPS 4095
/* Consecutive notes of one lane that sit together: a lane writes its notes
 * in runs of whole host cache lines, so each line is written by one lane
 * (interleaving the lanes at every step made each line of a long lane's
 * notes go to the host's L2 and back once per lane: 30% of gemm_naive). */
#define MS_DIRECT_CHUNK 8
/* Notes from one run of 32 lanes to the next: 4 KiB and two host cache
 * lines, so that a lane's runs do not all fall in the same sets of the
 * host's caches (a multiple of MS_DIRECT_CHUNK: ms_direct_note) */
#define MS_DIRECT_RUNS (33 * MS_DIRECT_CHUNK)
_Static_assert (MS_DIRECT_RUNS % MS_DIRECT_CHUNK == 0, "ms_direct_note finds a run's end so");

/* One access of one lane: its site, and its virtual address (access.h's
 * MS_VADDR_*, below 2^56) with its size and whether it stores in the top
 * byte: 16 bytes, 4 to a host cache line. */
typedef struct {
  const MsSite *site;
  uint64_t va;
} MsDirectNote;

#define MS_DIRECT_VADDR(n) ((n)->va & ((UINT64_C (1) << 56) - 1))
#define MS_DIRECT_SIZE(n) ((unsigned) ((n)->va >> 56) & 0x7f)
#define MS_DIRECT_STORE(n) ((unsigned) ((n)->va >> 63))

/* Where lane i's k-th note (and stored value) is: runs of MS_DIRECT_CHUNK
 * steps, lane after lane. */
static inline __attribute__ ((always_inline)) size_t
ms_direct_at (unsigned k, unsigned i)
{
  return (size_t) (k / MS_DIRECT_CHUNK) * MS_DIRECT_RUNS + i * MS_DIRECT_CHUNK
         + k % MS_DIRECT_CHUNK;
}

/* A buffer the warp loads or stores: [lo, lo + span) at virtual base vbase,
 * bit its buffer's bit. */
typedef struct {
  const uint8_t *lo;
  size_t span;
  uint64_t vbase;
  unsigned bit;
} MsDirectRegion;

typedef struct {
  MsDirectNote *note;      /* every run of MS_DIRECT_STEPS, at ms_direct_at */
  uint64_t (*val)[2];      /* stores' values, likewise */
  unsigned n;              /* accesses of the running lane so far */
  unsigned lane;
  size_t at;               /* where its next note goes */
  /* the buffers of the last two loads (most recent first: a GEMM's A and
   * B, a sum's two inputs, each load finds its own) and of the last store */
  MsDirectRegion ld[2], st;
  unsigned ld_bufs, st_bufs; /* the buffers the warp loads and stores */
} MsDirect;

/* The emulator's thread-local state, read at every load and store.  In
 * memsim's own build (MS_BUILDING_MEMSIM: objects of the executables that
 * define it) local-exec, one %fs access (the default model loads the
 * variable's offset from the GOT first, and kernels spill it around their
 * stops).  Device code memsim compiles at run time (MS_PTX_BUILD: a shared
 * object that memsim dlopens) initial-exec: the variables are the
 * executable's, in its static TLS block, so their offsets from %fs are
 * fixed at load, where the default model calls __tls_get_addr at every
 * access (14% of scan's run, perf).  A user's kernel built otherwise keeps
 * the default. */
#ifdef MS_BUILDING_MEMSIM
#define MS_TLS __thread __attribute__ ((tls_model ("local-exec")))
#elif defined MS_PTX_BUILD
#define MS_TLS __thread __attribute__ ((tls_model ("initial-exec")))
#else
#define MS_TLS __thread
#endif

/* Set while a warp runs straight through (emulator.c). */
extern MS_TLS MsDirect *ms_direct;

/* Makes the buffer holding [p, p + size) the load's (store's) region of d
 * (a load's: d->ld[0], the one before moving to d->ld[1]), and returns it;
 * abandons the warp if no buffer holds it whole. */
const MsDirectRegion *ms_direct_region (MsDirect *d, const volatile void *p, unsigned size,
                                        int store);
/* Gives up the straight run of the warp (see above): back to the
 * scheduler, leaving the run's frames behind (its fiber starts afresh).
 * It never returns, but is not declared noreturn: AddressSanitizer would
 * clean up the stack before the call, and warns that a fiber's stack is
 * not one it knows. */
void ms_direct_abandon (void);

/* The note of lane d->lane's next access; the region holds it.  Returns
 * where its value goes. */
static inline __attribute__ ((always_inline)) size_t
ms_direct_note (MsDirect *d, const MsSite *site, uint64_t vaddr, unsigned size, int store)
{
  unsigned k = d->n++;
  if (__builtin_expect (k >= MS_DIRECT_STEPS, 0))
    ms_direct_abandon ();
  size_t at = d->at, next = at + 1;
  d->at = next + (next % MS_DIRECT_CHUNK == 0) * (MS_DIRECT_RUNS - MS_DIRECT_CHUNK);   /* = ms_direct_at */
  d->note[at].site = site;
  d->note[at].va = vaddr | (uint64_t) size << 56 | (uint64_t) store << 63;
  return at;
}

/* Whether [p, p + size) is in region r and naturally aligned (size is a
 * constant at every call: the size tests fold away). */
static inline __attribute__ ((always_inline)) int
ms_direct_in (const MsDirectRegion *r, const volatile void *p, unsigned size)
{
  size_t off = (size_t) ((const uint8_t *) p - r->lo);
  return (size & (size - 1)) == 0 && size <= 16 && ((uintptr_t) p & (size - 1)) == 0
         && off < r->span && off + size <= r->span;
}

static inline __attribute__ ((always_inline)) void *
ms_direct_ld (MsDirect *d, const MsSite *site, const volatile void *p, unsigned size)
{
  const MsDirectRegion *r = &d->ld[0];
  if (__builtin_expect (!ms_direct_in (r, p, size), 0))
    {
      r = &d->ld[1];
      if (!ms_direct_in (r, p, size))
        r = ms_direct_region (d, p, size, 0);
    }
  uint64_t a = r->vbase + (uint64_t) ((const uint8_t *) p - r->lo);
  d->ld_bufs |= r->bit;
  ms_direct_note (d, site, a, size, 0);
  return (void *) p;
}

static inline __attribute__ ((always_inline)) void
ms_direct_st (MsDirect *d, const MsSite *site, volatile void *p, const void *v, unsigned size)
{
  const MsDirectRegion *r = &d->st;
  if (__builtin_expect (!ms_direct_in (r, p, size), 0))
    r = ms_direct_region (d, p, size, 1);
  uint64_t a = r->vbase + (uint64_t) ((const uint8_t *) p - r->lo);
  d->st_bufs |= r->bit;
  size_t at = ms_direct_note (d, site, a, size, 1);
  memcpy (d->val[at], v, size);
}
