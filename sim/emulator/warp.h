/* warp.h - what a warp-wide kernel sees of the emulator.
 *
 * A warp-wide kernel is device code translated from nvcc's PTX
 * (sim/ptx/ptx-translate.c) to run one whole warp per call: every
 * per-thread variable (a PTX register) is an array of 32
 * lane values, straight-line code is a loop over the lanes of a group (a
 * mask), and each warp-level instruction is one stop of the group with its
 * lanes' addresses and values in the arrays below.  No fiber per CUDA
 * thread, no switch per lane: one fiber per warp, which stops only at
 * __syncthreads.  The scheduler below picks the stop to run as the fiber
 * path's run_warp picks it, and the stop runs through the fiber path's own
 * exec_fast/exec_memory/exec_shfl (through a view of these arrays), so both
 * paths make the same records and counts.  Internal to memsim's build.
 */
#pragma once

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cpu-clones.h"
#include "kernel.h"
#include "lane.h"

typedef struct {
  volatile uint8_t *addr[32];  /* each lane's address of the current access */
  uint64_t val[32][2];         /* each lane's value to store or to shuffle */
  /* a collective's: each lane's mask; a shuffle's: argument, width, result
   * (a vote keeps its argument and result in the lane records) */
  uint32_t mask[32];
  int arg[32];
  uint8_t width[32];
  uint64_t res[32];
  /* the last load's lanes (ms_warp_access): MS_WARP_ROW, a whole warp's
   * consecutive values; MS_WARP_BROADCAST, one value; 0, any other */
  uint8_t load_pattern;
  MsLane *lanes;     /* the current warp's 32 (or fewer) lane records */
  /* its lanes' threadIdx.x, .y and .z side by side (the lane records'
   * thread_idx, 128 bytes apart there: a lane loop reading them from
   * here is a load a vector of lanes) */
  const unsigned *tid[3];
  uint32_t live;     /* its lanes that exist (a block's partial last warp) */
} MsWarp;

extern MS_TLS MsWarp ms_warp;

/* One warp-level load or store of `size` bytes at `site` by the lanes of
 * mask: addr[i] set (and val[i] for a store).  After a load each lane
 * reads its value at addr[i] itself (nothing runs in between, so it is
 * the value the instruction loaded).  others: lanes of the warp waiting
 * at later sites (the spin-wait watch).  Does not return on an error. */
void ms_warp_access (const MsSite *site, uint32_t mask, unsigned size, MsLaneOp kind,
                     uint32_t others);


/* For device code (sim/ptx): fails the launch (an instruction memsim
 * cannot run; the message names it); the running warp's local memory,
 * 32 lanes of `bytes` each; its index in the block.  Its clock, in
 * cycles: device code that reads the clock adds each block's cycles
 * (ms_ptx_block_cycles (), MsLaunch.block_cycles; where NULL, its PTX
 * instructions) to *ms_ptx_warp_clock () as the block runs, and a barrier
 * sets the block's warps to the last one's; %globaltimer's nanoseconds at
 * a clock of `cycles`. */
void ms_ptx_fail (const char *message) __attribute__ ((noreturn));
uint8_t *ms_ptx_local (unsigned bytes);
/* The running warp's buffer of `bytes` for the registers of a function
 * too large for its stack (kept for the next block, not cleared). */
uint8_t *ms_ptx_frame (size_t bytes);
unsigned ms_ptx_warp_index (void);
double *ms_ptx_warp_clock (void);
const double *ms_ptx_block_cycles (void);
uint64_t ms_ptx_globaltimer (double cycles);
/* The running worker's counters of a kernel's n blocks (sim/models/
 * instructions.h): each run of block b by a group of lanes adds 1 to [b]. */
uint64_t *ms_ptx_block_counts (unsigned n);
/* bar.red: a lane's predicate at the barrier (the block's count of them
 * and of the lanes), then after it the block's reduction: 0 popc, 1 and,
 * 2 or. */
void ms_ptx_bar_red_lane (int pred);
uint32_t ms_ptx_bar_red_result (int op);

/* The device runtime's functions (sim/ptx's calls): printf (the format
 * and nvcc's argument buffer; its text is the program's at the next
 * synchronisation), a failed assert's message for one lane, then the end
 * of the launch if a lane's failed (cudaErrorAssert); malloc and free in
 * the device heap at `heap`. */
int32_t ms_ptx_printf (const char *fmt, const uint8_t *args);
void ms_ptx_assertfail (const char *message, const char *file, uint32_t line,
                        const char *function, unsigned tx, unsigned ty, unsigned tz);
void ms_ptx_assert_end (void);
void *ms_ptx_malloc (uint8_t *heap, uint64_t size);
void ms_ptx_free (uint8_t *heap, void *ptr);
/* A lane's call of the device runtime (MsRuntimeKind: 0 printf, 1 malloc,
 * 2 free), then, once the group's lanes have made theirs, the group's
 * call: the counts of MsLaunch.runtime_calls. */
void ms_ptx_runtime_lane (unsigned kind);
void ms_ptx_runtime_call (unsigned kind);
/* cudaGraphSetConditional: the handle's value, through the hook the
 * runtime set (ms_emulator_graph_conditionals); fails the launch on a
 * handle it does not know. */
void ms_ptx_set_conditional (uint64_t handle, uint32_t value);
/* cp.async of cp_size bytes (src_size of them from src, zeros after) to
 * dst in shared memory; an mbarrier's operation (the object's old value;
 * the tests: whether the phase completed); a wait that cannot end yet
 * (the block's other warps run). */
void ms_ptx_cp_async (uint8_t *dst, const uint8_t *src, uint32_t cp_size, uint32_t src_size);
/* A group's cp.async no lane of which reads (each fills zeros only): an
 * LDGSTS instruction the GPU counts, with no request (MsLaunch.async_fills). */
void ms_ptx_async_fill (void);
/* A warp-level div.rn.f32, rcp.rn.f32 or sqrt.rn.f32 (kind:
 * MsSlowPathKind; MsLaunch.slow_paths): the lanes its fast path's test
 * sends to the slow path, the lanes that ran it where it has a guard
 * (ran: NULL where it has none), and their operands' bits (b: a
 * division's divisor).  ms_ptx_fdiv_rn and its kin (sim/ptx/ptx-warp.h)
 * fill it in the lane loop with plain stores, which the compiler
 * vectorises with the arithmetic; lanes outside the loop's mask (or ran)
 * keep an earlier run's flags, which ms_ptx_slow_path_warp leaves out. */
typedef struct {
  uint32_t kind;
  uint32_t slow[32];   /* words, not bytes: no packing in the vector loop */
  uint8_t *ran;
  uint32_t a[32], b[32];
} MsPtxSlowPath;
/* After the lanes, where one took the slow path: the warp's count (m: the
 * lanes of the loop). */
void ms_ptx_slow_path_warp (const MsPtxSlowPath *sp, uint32_t m);
enum {
  MS_MBAR_INIT, MS_MBAR_INVAL, MS_MBAR_EXPECT_TX, MS_MBAR_COMPLETE_TX, MS_MBAR_ARRIVE,
  MS_MBAR_ARRIVE_DROP, MS_MBAR_TEST, MS_MBAR_TEST_PARITY,
  MS_MBAR_TX = 16,          /* arrive.expect_tx: arg is the bytes, one arrival */
  MS_MBAR_NOCOMPLETE = 32,
};
uint64_t ms_ptx_mbarrier (uint8_t *p, unsigned op, uint64_t arg);
void ms_ptx_spin (void);
/* A cooperative launch's grid workspace (%envreg1/2), else 0; before a
 * load that may poll another block's writes: in a cooperative launch the
 * block steps aside and the grid's other blocks run. */
uint64_t ms_ptx_grid_workspace (void);
void ms_ptx_poll (void);
/* Before a load with a memory order that may poll another warp of the
 * block (site: the load's): the warp steps aside when it polled there
 * last and did nothing since. */
void ms_ptx_warp_poll (const void *site);

/* The lanes of a warp in groups, as a warp-wide kernel runs them
 * (sim/ptx/ptx-translate.c): ready groups run to their next stop; then the stop of
 * the earliest site runs for all lanes waiting there, as the fiber
 * scheduler does (emulator.c, run_warp). */
typedef struct {
  int pc;
  uint32_t mask;
} MsWarpGroup;
typedef struct {
  const MsSite *site;
  int order;                 /* site->order, at hand for the scheduler */
  int pc;
  uint32_t mask;
  uint8_t kind, size, sub;   /* sub: a shuffle's or vote's kind */
} MsWarpStop;
typedef struct {
  int pc;
  uint32_t mask;
  const MsSite *site;
} MsWarpWait;
typedef struct {
  MsWarpGroup ready[32];
  MsWarpStop stop[32];
  MsWarpWait barrier[32];
  unsigned n_ready, n_stop, n_barrier;
  uint32_t barrier_mask;
} MsWarpSched;

enum { MS_WARP_ROW = 1, MS_WARP_BROADCAST = 2 };

/* A whole warp's row of n bytes (32 values: a multiple of 32) into a lane
 * array, 32 bytes a step: GCC copied 128 bytes 16 at a time, and the
 * kernel's next loop, which reads the array 32 bytes at a time in the AVX2
 * copies, waited for each pair of stores (perf annotate, reduce_shfl: 4%
 * of the kernel's samples on the first use of its input). */
static inline __attribute__ ((always_inline)) void
ms_warp_copy_row (void *dst, const volatile void *src, size_t n)
{
  typedef uint8_t V32 __attribute__ ((vector_size (32), aligned (1)));
  for (size_t i = 0; i < n; i += 32)
    {
      V32 x;
      memcpy (&x, (const uint8_t *) src + i, 32);
      memcpy ((uint8_t *) dst + i, &x, 32);
    }
}

/* One value of size bytes (4 or 8) for each lane of a whole warp's lane
 * array (MS_WARP_BROADCAST): a read and vector stores, where a lane loop
 * read the same address 32 times and stored 4 bytes at a time, which the
 * next loop's vector loads then waited for (callgrind, simpleStreams'
 * kernel, whose `*factor` is such a load: 1 011 -> 682 M instructions). */
static inline __attribute__ ((always_inline)) void
ms_warp_fill_lanes (void *dst, const volatile void *src, size_t size)
{
  if (size == 4)
    {
      uint32_t v, *d = dst;
      memcpy (&v, (const void *) src, 4);
      for (int i = 0; i < 32; i++)
        d[i] = v;
    }
  else
    {
      uint64_t v, *d = dst;
      memcpy (&v, (const void *) src, 8);
      for (int i = 0; i < 32; i++)
        d[i] = v;
    }
}

/* The lane whose value lane L reads in a shuffle of kind sub (MS_SHFL_*)
 * by a whole warp with argument a (0..31) and width 32: the closed form of
 * the fiber path's shuffles of one argument (exec_shfl_view) and of the
 * warp-wide kernels' constant ones (ptx-translate.c), one text for both. */
#define MS_SHFL_SOURCE(sub, L, a)                                               \
  ((sub) == MS_SHFL_IDX ? (a)                                                   \
   : (sub) == MS_SHFL_UP ? ((L) >= (a) ? (L) - (a) : (L))                       \
   : (sub) == MS_SHFL_DOWN ? ((L) + (a) < 32 ? (L) + (a) : (L))                 \
   : (L) ^ (a))

/* A shuffle of `size`-byte values by every lane of the warp, all in the
 * group that runs (so none waits elsewhere: the warp is converged), of mask
 * ~0u, a constant argument (0..31) and width 32, whose results the kernel
 * reads from its values by the stop's closed form: counted as its stop
 * would count it.  0 when it cannot (a value size a shuffle has not): the
 * stop then gives the error. */
int ms_warp_shfl_counted_out (const MsSite *site, unsigned size);
/* Inline while neither count is at its limit (a call a shuffle was a
 * twentieth of reduce_shfl's instructions: callgrind 22.3 M at 2^22). */
static inline __attribute__ ((always_inline)) int
ms_warp_shfl_counted (const MsSite *site, unsigned size)
{
  MsWarpCtl *c = ms_warp_ctl;
  if ((size == 4 || size == 8) && c->block_ops < MS_BLOCK_OP_LIMIT
      && c->warp_ops + 1 < MS_WARP_BUDGET)
    {
      c->block_ops++;
      c->warp_ops++;
      return 1;
    }
  return ms_warp_shfl_counted_out (site, size);
}

/* Runs the stop of the earliest site that can run (S->n_stop > 0); 0
 * when none can (lanes wait at collectives that cannot complete). */
int ms_warp_sched_step (MsWarpSched *S);
/* Every lane of the warp has ended, waits at a __syncthreads (S's barrier
 * groups) or at a collective that cannot run (S's stops): back when the
 * block's barrier releases (never, in the last case: a deadlock). */
void ms_warp_barrier (const MsWarpSched *S);

static inline void
ms_warp_sched_begin (MsWarpSched *S)
{
  S->ready[0] = (MsWarpGroup) { 0, ms_warp.live };
  S->n_ready = 1;
  S->n_stop = S->n_barrier = 0;
  S->barrier_mask = 0;
}

/* Lanes of a group whose branch went the other way: a group of their own. */
static inline void
ms_warp_sched_push (MsWarpSched *S, int pc, uint32_t mask)
{
  S->ready[S->n_ready++] = (MsWarpGroup) { pc, mask };
}

/* Lanes that go on at pc: one group with the ready group already there,
 * if any (what runs up to the next stop is each lane's own). */
static inline void
ms_warp_sched_ready (MsWarpSched *S, int pc, uint32_t mask)
{
  unsigned k = 0;
  while (k < S->n_ready && S->ready[k].pc != pc)
    k++;
  if (k < S->n_ready)
    S->ready[k].mask |= mask;
  else
    S->ready[S->n_ready++] = (MsWarpGroup) { pc, mask };
}

/* A group stops at a load, store, atomic or collective (its lanes' addr,
 * val, mask... set); it goes on at pc.  sub: a shuffle's or vote's kind. */
static inline void
ms_warp_sched_stop (MsWarpSched *S, const MsSite *site, MsLaneOp kind, unsigned size,
                    unsigned sub, uint32_t mask, int pc)
{
  S->stop[S->n_stop++] = (MsWarpStop) { site, site->order, pc, mask, (uint8_t) kind,
                                        (uint8_t) size, (uint8_t) sub };
}

/* A load, store or atomic of the group that runs: when the warp has
 * nothing else to run (no other group ready, no other stop), it runs here
 * and the group goes straight on (1), as ms_warp_sched_next would run it
 * next; else it is recorded as a stop (0).  Saves the stop's record and
 * the jump through the kernel's switch of blocks for a converged warp. */
static inline int
ms_warp_sched_access (MsWarpSched *S, const MsSite *site, MsLaneOp kind, unsigned size,
                      uint32_t mask, int pc)
{
  if (S->n_ready == 0 && S->n_stop == 0)
    {
      ms_warp_access (site, mask, size, kind, 0);
      return 1;
    }
  ms_warp_sched_stop (S, site, kind, size, 0, mask, pc);
  return 0;
}

static inline void
ms_warp_sched_barrier (MsWarpSched *S, const MsSite *site, uint32_t mask, int pc)
{
  S->barrier[S->n_barrier++] = (MsWarpWait) { pc, mask, site };
  S->barrier_mask |= mask;
}

/* The next group to run (its pc and lanes), after running the stops and
 * barriers that must come first; 0 when every lane has ended. */
static inline int
ms_warp_sched_next (MsWarpSched *S, int *pc, uint32_t *mask)
{
  for (;;)
    {
      if (S->n_ready > 0)
        {
          MsWarpGroup g = S->ready[--S->n_ready];
          *pc = g.pc;
          *mask = g.mask;
          return 1;
        }
      if (S->n_stop == 1 && S->stop[0].kind <= MS_K_ATOMIC)
        {
          /* the converged warp: its one stop, then on */
          MsWarpStop *st = &S->stop[0];
          ms_warp_access (st->site, st->mask, st->size, (MsLaneOp) st->kind, 0);
          S->n_stop = 0;
          *pc = st->pc;
          *mask = st->mask;
          return 1;
        }
      if (S->n_stop > 0 && ms_warp_sched_step (S))
        continue;
      if (S->n_barrier == 0 && S->n_stop == 0)
        return 0;
      ms_warp_barrier (S);
      /* groups that came to the barrier apart (a reduction's lanes that
       * stored and those that did not) and go on at the same place go on
       * as one: what runs up to the next stop is each lane's own, and the
       * stop takes the lanes waiting at it together anyway (a whole warp's
       * loops instead of two partial ones: callgrind, reduce_interleaved
       * 2^18: 405.6 -> 356.5 M instructions) */
      for (unsigned i = 0; i < S->n_barrier; i++)
        ms_warp_sched_ready (S, S->barrier[i].pc, S->barrier[i].mask);
      S->n_barrier = 0;
      S->barrier_mask = 0;
    }
}

/* The bits of 32 bytes of 0 or 1 (a whole warp's branch conditions): SSE2
 * moves bit 0 of each byte to bit 7 and takes the bytes' top bits. */
static inline uint32_t
ms_warp_pack32 (const uint8_t *c)
{
#ifdef __SSE2__
  __m128i lo = _mm_loadu_si128 ((const __m128i *) c);
  __m128i hi = _mm_loadu_si128 ((const __m128i *) (c + 16));
  return (uint32_t) _mm_movemask_epi8 (_mm_slli_epi64 (lo, 7))
         | (uint32_t) _mm_movemask_epi8 (_mm_slli_epi64 (hi, 7)) << 16;
#else
  uint32_t t = 0;
  for (unsigned i = 0; i < 32; i++)
    t |= (uint32_t) c[i] << i;
  return t;
#endif
}

/* each lane L of the bits of m (a variable, consumed), in lane order */
#define MS_WARP_BITS_(m, L)                                                    \
  for (unsigned L; m && (L = (unsigned) __builtin_ctz (m), 1); m &= m - 1)

/* MS_WARP_LANES for a block that ends in a branch: t gets the lanes whose
 * cond holds.  A whole warp stores each lane's 0 or 1 and packs them after
 * the loop (no chain of shifts and ors through the loop: gcc can vectorise
 * a loop that only compares); a group of fewer lanes sets its bits one by
 * one. */
#define MS_WARP_BRANCH(mask, L, t, cond, ...)                                  \
  do {                                                                         \
    uint32_t ms_m_ = (mask);                                                   \
    if (ms_m_ == 0xffffffffu)                                                  \
      {                                                                        \
        uint8_t ms_c_[32];                                                     \
        for (unsigned L = 0; L < 32; L++)                                      \
          { __VA_ARGS__ ms_c_[L] = (uint8_t) !!(cond); }                       \
        t = ms_warp_pack32 (ms_c_);                                            \
      }                                                                        \
    else                                                                       \
      MS_WARP_BITS_ (ms_m_, L)                                                 \
        { __VA_ARGS__ t |= (uint32_t) !!(cond) << L; }                         \
  } while (0)

/* body for each lane L of mask, in lane order: a whole warp's loop has no
 * test a lane, so the compiler can vectorise it; a group's walks its bits */
#define MS_WARP_LANES(mask, L, ...)                                            \
  do {                                                                         \
    uint32_t ms_m_ = (mask);                                                   \
    if (ms_m_ == 0xffffffffu)                                                  \
      for (unsigned L = 0; L < 32; L++)                                        \
        { __VA_ARGS__ }                                                        \
    else                                                                       \
      MS_WARP_BITS_ (ms_m_, L)                                                 \
        { __VA_ARGS__ }                                                        \
  } while (0)
