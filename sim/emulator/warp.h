/* warp.h - what a warp-wide kernel sees of the emulator.
 *
 * A warp-wide kernel is a built-in kernel compiled (warp-compile/) to run
 * one whole warp per call: every per-thread variable is an array of 32
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
 * 32 lanes of `bytes` each; its index in the block; a clock that moves
 * (the block's warp-level instructions so far). */
void ms_ptx_fail (const char *message) __attribute__ ((noreturn));
uint8_t *ms_ptx_local (unsigned bytes);
unsigned ms_ptx_warp_index (void);
uint64_t ms_ptx_clock (void);
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
/* cp.async of cp_size bytes (src_size of them from src, zeros after) to
 * dst in shared memory; an mbarrier's operation (the object's old value;
 * the tests: whether the phase completed); a wait that cannot end yet
 * (the block's other warps run). */
void ms_ptx_cp_async (uint8_t *dst, const uint8_t *src, uint32_t cp_size, uint32_t src_size);
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

/* A warp-wide build's kernels (warp-compile.py's output), by name. */
typedef struct {
  const char *name;
  void (*fn) (const MsLaunchArgs *L);
} MsWarpEntry;

/* The lanes of a warp in groups, as a warp-wide kernel runs them (see
 * warp-compile.py): ready groups run to their next stop; then the stop of
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
  uint8_t whole;             /* ms_warp_sched_stop_whole's: pc is the block
                                fill, in_place the whole warp's block */
  int in_place;
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

/* Each lane L of mask m reads into t[L] the value of the load that just
 * ran, at its address ms_warp.addr[L]: a whole warp's row of consecutive
 * values is one copy, a broadcast one read (ms_warp.load_pattern). */
#define MS_WARP_LOAD(m, t)                                                      \
  do {                                                                          \
    if ((m) == 0xffffffffu && ms_warp.load_pattern == MS_WARP_ROW)              \
      ms_warp_copy_row ((t), ms_warp.addr[0], sizeof (t));                      \
    else if ((m) == 0xffffffffu && ms_warp.load_pattern == MS_WARP_BROADCAST)   \
      {                                                                         \
        __typeof__ ((t)[0]) ms_v_;                                              \
        memcpy (&ms_v_, (const void *) ms_warp.addr[0], sizeof ms_v_);          \
        for (unsigned ms_L = 0; ms_L < 32; ms_L++)                              \
          (t)[ms_L] = ms_v_;                                                    \
      }                                                                         \
    else                                                                        \
      MS_WARP_LANES ((m), ms_L, {                                               \
        memcpy (&(t)[ms_L], (const void *) ms_warp.addr[ms_L], sizeof (t)[0]);  \
      });                                                                       \
  } while (0)

/* The lane whose value lane L reads in a shuffle of kind sub (MS_SHFL_*)
 * by a whole warp with argument a (0..31) and width 32: the closed form of
 * the fiber path's shuffles of one argument (exec_shfl_view) and of the
 * warp-wide kernels' constant ones (warp-compile.py), one text for both. */
#define MS_SHFL_SOURCE(sub, L, a)                                               \
  ((sub) == MS_SHFL_IDX ? (a)                                                   \
   : (sub) == MS_SHFL_UP ? ((L) >= (a) ? (L) - (a) : (L))                       \
   : (sub) == MS_SHFL_DOWN ? ((L) + (a) < 32 ? (L) + (a) : (L))                 \
   : (L) ^ (a))

/* The same shuffle in place on a whole warp's 32 values of `size` (4 or 8)
 * bytes: value L becomes value MS_SHFL_SOURCE (sub, L, a).  sub and a are
 * constants where warp-compile.py calls it, so one case remains: a shift
 * is one memmove (the lanes past the end keep their own values), an index
 * a broadcast, an XOR whole vectors in swapped places (a's high bits) with
 * their elements swapped within (its low bits) -- 24 instructions for 32
 * ints instead of a loop of 32 copies through the lanes' result words. */
static inline __attribute__ ((always_inline)) void
ms_warp_shfl_whole (void *values, unsigned size, int sub, unsigned a)
{
  uint8_t *v = (uint8_t *) values;
  if (size != 4 && size != 8)
    return;   /* ms_warp_shfl_counted refuses these */
  if (sub == MS_SHFL_DOWN)
    memmove (v, v + a * size, (32 - a) * size);
  else if (sub == MS_SHFL_UP)
    memmove (v + a * size, v, (32 - a) * size);
  else if (sub == MS_SHFL_IDX)
    {
      uint64_t x = 0;
      memcpy (&x, v + a * size, size);
      for (unsigned L = 0; L < 32; L++)
        memcpy (v + L * size, &x, size);
    }
  else if (MS_CPU_HAS_AVX2 ())
    {
      /* 32 bytes a step where the AVX2 copies run: the kernel's next loop
       * reads the results 32 bytes at a time, and a load that spans two
       * 16-byte stores waits for both (perf annotate, reduce_shfl: the
       * adds after its five shuffles, 15% of the kernel's samples).  The
       * element order within a vector, by lo, a constant mask each (the
       * kernels' arguments are constants: one instruction or none). */
      typedef uint32_t V8 __attribute__ ((vector_size (32)));
      unsigned n = 32 / size, hi = a / n, lo = (a % n) * (size / 4);
      V8 y[8];
#pragma GCC unroll 8
      for (unsigned i = 0; i < size; i++)
        memcpy (&y[i], v + 32 * (i ^ hi), 32);
#pragma GCC unroll 8
      for (unsigned i = 0; i < size; i++)
        {
          switch (lo)
            {
            case 1: y[i] = __builtin_shuffle (y[i], (V8) { 1, 0, 3, 2, 5, 4, 7, 6 }); break;
            case 2: y[i] = __builtin_shuffle (y[i], (V8) { 2, 3, 0, 1, 6, 7, 4, 5 }); break;
            case 3: y[i] = __builtin_shuffle (y[i], (V8) { 3, 2, 1, 0, 7, 6, 5, 4 }); break;
            case 4: y[i] = __builtin_shuffle (y[i], (V8) { 4, 5, 6, 7, 0, 1, 2, 3 }); break;
            case 5: y[i] = __builtin_shuffle (y[i], (V8) { 5, 4, 7, 6, 1, 0, 3, 2 }); break;
            case 6: y[i] = __builtin_shuffle (y[i], (V8) { 6, 7, 4, 5, 2, 3, 0, 1 }); break;
            case 7: y[i] = __builtin_shuffle (y[i], (V8) { 7, 6, 5, 4, 3, 2, 1, 0 }); break;
            default: break;
            }
          memcpy (v + 32 * i, &y[i], 32);
        }
    }
  else
    {
#ifdef __SSE2__
      /* element e of vector i: lane (i * n + e) with n = 16 / size lanes
       * a vector (8 vectors of 4-byte values, 16 of 8-byte ones); its
       * source is lane (i ^ (a / n)) * n + (e ^ (a % n)) */
      unsigned n = 16 / size, hi = a / n, lo = a % n;
      __m128i x[16];
#pragma GCC unroll 16
      for (unsigned i = 0; i < 2 * size; i++)
        x[i] = _mm_loadu_si128 ((const __m128i *) (v + 16 * (i ^ hi)));
#pragma GCC unroll 16
      for (unsigned i = 0; i < 2 * size; i++)
        {
          if (size == 8 ? lo == 1 : lo == 2)
            x[i] = _mm_shuffle_epi32 (x[i], 0x4E);   /* swap the halves */
          else if (size == 4 && lo == 1)
            x[i] = _mm_shuffle_epi32 (x[i], 0xB1);
          else if (size == 4 && lo == 3)
            x[i] = _mm_shuffle_epi32 (x[i], 0x1B);
          _mm_storeu_si128 ((__m128i *) (v + 16 * i), x[i]);
        }
#else
      uint64_t x[32];
      for (unsigned L = 0; L < 32; L++)
        memcpy (&x[L], v + (L ^ a) * size, size);
      for (unsigned L = 0; L < 32; L++)
        memcpy (v + L * size, &x[L], size);
#endif
    }
}

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

/* The stop of a group at a shuffle of constant arguments (the full mask,
 * an argument of 0..31, width 32: warp-compile.py) that has not stored its
 * lanes' records: when the stop runs (ms_warp_sched_step), a whole warp
 * met there is counted and goes on at in_place, the kernel's block that
 * shuffles the values' array in place, as a converged warp does; other
 * lanes go on at fill, the block that stores their records and stops as
 * any other shuffle.  Spares the records and the general shuffle where a
 * warp that split rejoins at a shuffle (reduce_shfl's first warp, after
 * `tid < blockDim.x / 32 ? smem[lane] : 0`).  (The values' array itself
 * is not passed: a local array whose address escapes keeps gcc from
 * vectorising the kernel's loops.) */
static inline void
ms_warp_sched_stop_whole (MsWarpSched *S, const MsSite *site, unsigned size, uint32_t mask,
                          int fill, int in_place)
{
  S->stop[S->n_stop++] = (MsWarpStop) { site, site->order, fill, mask, MS_K_SHFL, (uint8_t) size,
                                        0, 1, in_place };
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

/* a % b where b is not a constant (warp-compile.py; only where neither
 * operand has side effects).  In a lane statement it is the division. */
#define MS_MOD_(a, b) ((a) % (b))

/* A branch whose condition has such a %: a first pass reads a % b as
 * a & (b - 1), valid for a non-negative a and a power-of-two b (a
 * reduction's tid % (2 * s), a stride), and notes in ms_mod_bad_ any lane
 * where that does not hold; then the condition is evaluated again, lane by
 * lane, with the division (its operands have no side effects).  A
 * division costs tens of cycles a lane and keeps gcc from vectorising the
 * whole warp's loop: reduce_interleaved 4096^2 took 12-15% less time
 * (docs/performance.md). */
#define MS_MOD_P2_(a, b)                                                       \
  ((__typeof__ ((a) % (b))) (ms_mod_bad_ |= MS_MOD_P2_BAD_ (                   \
     (__typeof__ ((a) % (b))) (a), (__typeof__ ((a) % (b))) (b)),              \
   (__typeof__ ((a) % (b))) (a) & ((__typeof__ ((a) % (b))) (b) - 1)))
/* x negative or top-bit set, y not a power of two (0 included); in the
 * operands' own type (promoted: int at least), so that a warp's loop over
 * 32-bit lanes stays 32 bits wide */
#define MS_MOD_P2_BAD_(x, y)                                                   \
  ((((x) >> (sizeof (x) * 8 - 1) | (y) >> (sizeof (y) * 8 - 1) | ((y) & ((y) - 1))) != 0) \
   | ((y) == 0))
#define MS_WARP_BRANCH_MOD(mask, L, t, fast, slow)                             \
  do {                                                                         \
    uint32_t ms_mm_ = (mask);                                                  \
    int ms_mod_bad_ = 0;                                                       \
    MS_WARP_BRANCH (ms_mm_, L, t, fast, {});                                   \
    if (__builtin_expect (ms_mod_bad_, 0))                                     \
      {                                                                        \
        t = 0;                                                                 \
        MS_WARP_BRANCH (ms_mm_, L, t, slow, {});                               \
      }                                                                        \
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
