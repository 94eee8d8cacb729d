/* lane.h - the emulator's record of one CUDA thread (a lane) and the fast
 * path of a lane stopping at a load or store.
 *
 * The stop is inlined into the kernel code (kernel.h includes this header
 * in the CPU build), so a resumed lane lands in the kernel itself: no
 * call/return pair spans a context switch, and the CPU's return-address
 * predictor stays right (an out-of-line stop costs a mispredicted return
 * whenever consecutive stops are at different operations).  Internal to
 * memsim: kernels use LD/ST, never these names.
 */
#pragma once

#include <stdint.h>
#include <string.h>

#include "direct.h"
#include "fiber.h"

#include "site.h"

typedef enum {
  MS_LANE_READY,      /* will run on next resume */
  MS_LANE_AT_OP,      /* waiting at a memory operation or warp collective */
  MS_LANE_AT_BARRIER, /* waiting at __syncthreads */
  MS_LANE_DONE,       /* returned from the kernel */
} MsLaneState;

typedef enum {
  MS_K_LD, MS_K_ST, MS_K_ATOMIC, MS_K_SHFL, MS_K_VOTE, MS_K_SYNCWARP, MS_K_BARRIER,
} MsLaneOp;

#define MS_NO_ORDER 0x7fffffff

/* One CUDA thread.  The first 64 bytes are what a load or store of up to 8
 * bytes and the kernel's threadIdx touch; the rest only 16-byte accesses,
 * atomics and warp collectives. */
typedef struct {
  MsFiber fiber;
  const MsSite *site;    /* where the lane stopped */
  volatile uint8_t *addr;/* address of its memory operation */
  uint8_t state, kind, size, lane;
  struct { unsigned x, y, z; } thread_idx;   /* = MsThreadInfo; ms_self points here */
  uint64_t val[2];       /* value stored, or loaded / operand of a collective */
  uint32_t mask;         /* collective's mask */
  /* cold */
  uint64_t cmp[2], res[2];/* atomicCAS compare value; atomic/collective result */
  uint8_t sub, num, width;/* atomic/shuffle/vote kind, number type, shuffle width */
  int arg;
} __attribute__ ((aligned (64))) MsLane;
_Static_assert (sizeof (MsLane) == 128, "MsLane grew past two cache lines");

/* What a stopping lane needs of its warp's scheduler. */
typedef struct {
  MsFiber sched;          /* the scheduler's context */
  MsLane *warp_end;       /* one past the current warp's last lane */
  int order[32];          /* site order of the warp's lanes at an op, else MS_NO_ORDER */
  /* what the lanes of the latest hand-over chain stopped at: the earliest
   * site order, the lanes at it, and all lanes that stopped at an op */
  int step_best;
  uint32_t step_group, step_stopped;
  unsigned n_barrier;     /* lanes of the block waiting at a barrier */
  const MsSite *barrier_site;  /* the barrier the first waiting lane is at */
  int barrier_mismatch;   /* lanes wait at different barriers */
  /* the emulator's counts of warp-level instructions (here, where a
   * warp-wide kernel's inline count reaches them: ms_warp_shfl_counted) */
  uint64_t block_ops;     /* the block executed (since it last wrote memory,
                             once past MS_BLOCK_OP_LIMIT) */
  int wrote;              /* the block stored to memory, or changed it by an atomic,
                             since block_ops last started again */
  unsigned warp_ops;      /* the running warp executed this round */
} MsWarpCtl;

/* A warp runs at most this many instructions before the other warps of its
 * block get a turn, so a warp spinning on a flag another warp sets sees it
 * set; and a block that executes MS_BLOCK_OP_LIMIT without finishing, and
 * without writing memory since it last did so many, is stuck (a spin-wait
 * reads, or fails to swap; a long loop that computes something stores it). */
#define MS_WARP_BUDGET 4096
#define MS_BLOCK_OP_LIMIT ((uint64_t) 1 << 26)

extern MS_TLS MsLane *ms_cur_lane;
extern MS_TLS MsWarpCtl *ms_warp_ctl;
extern MS_TLS void *ms_self;

static inline void
ms_prefetch_lane (const MsLane *l)
{
  const char *sp = (const char *) l->fiber.sp;
  __builtin_prefetch (sp);
  __builtin_prefetch (sp + 64);
  __builtin_prefetch (sp + 128);
}

/* A lane that stops hands over directly to the next lane of its warp that
 * is ready to run, and the last one to the scheduler: one context switch
 * per lane and step instead of two. */
static inline __attribute__ ((always_inline)) void
ms_lane_yield (MsLane *l)
{
  MsWarpCtl *ctl = ms_warp_ctl;
  for (MsLane *next = l + 1; next < ctl->warp_end; next++)
    if (next->state == MS_LANE_READY)
      {
        if (next + 2 < ctl->warp_end)
          ms_prefetch_lane (next + 2);
        ms_cur_lane = next;
        ms_self = &next->thread_idx;
        ms_fiber_switch (&l->fiber, &next->fiber);
        return;
      }
  ms_fiber_switch (&l->fiber, &ctl->sched);
}

static inline __attribute__ ((always_inline)) MsLane *
ms_lane_stop_ (const MsSite *site, MsLaneOp kind)
{
  MsLane *l = ms_cur_lane;
  MsWarpCtl *ctl = ms_warp_ctl;
  int o = site->order;
  uint32_t bit = 1u << l->lane;
  l->site = site;
  l->kind = (uint8_t) kind;
  l->state = MS_LANE_AT_OP;
  ctl->order[l->lane] = o;
  ctl->step_stopped |= bit;
  if (o < ctl->step_best)
    {
      ctl->step_best = o;
      ctl->step_group = bit;
    }
  else if (o == ctl->step_best)
    ctl->step_group |= bit;
  return l;
}

/* A stop other than a load or store: it ends a straight run (direct.h). */
static inline __attribute__ ((always_inline)) MsLane *
ms_lane_stop (const MsSite *site, MsLaneOp kind)
{
  if (__builtin_expect (ms_direct != NULL, 0))
    ms_direct_abandon ();
  return ms_lane_stop_ (site, kind);
}

static inline __attribute__ ((always_inline)) void *
ms_lane_ld (const MsSite *site, const volatile void *p, unsigned size)
{
  MsDirect *d = ms_direct;
  if (d != NULL)
    return ms_direct_ld (d, site, p, size);
  MsLane *l = ms_lane_stop_ (site, MS_K_LD);
  l->addr = (volatile uint8_t *) p;
  l->size = (uint8_t) size;
  ms_lane_yield (l);
  return l->val;
}

static inline __attribute__ ((always_inline)) void
ms_lane_st (const MsSite *site, volatile void *p, const void *v, unsigned size)
{
  MsDirect *d = ms_direct;
  if (d != NULL)
    {
      ms_direct_st (d, site, p, v, size);
      return;
    }
  MsLane *l = ms_lane_stop_ (site, MS_K_ST);
  l->addr = (volatile uint8_t *) p;
  l->size = (uint8_t) size;
  memcpy (l->val, v, size);
  ms_lane_yield (l);
}

/* Warp collectives, inlined like loads and stores (the out-of-line
 * versions in emulator.c serve users' kernels, and report bad arguments). */
void *ms_shfl (const MsSite *site, unsigned mask, const void *v, unsigned size,
               int kind, int arg, int width);

static inline __attribute__ ((always_inline)) void *
ms_lane_shfl (const MsSite *site, unsigned mask, const void *v, unsigned size, int kind,
              int arg, int width)
{
  if ((size != 4 && size != 8) || width < 1 || width > 32 || (width & (width - 1)) != 0)
    return ms_shfl (site, mask, v, size, kind, arg, width);
  MsLane *l = ms_lane_stop (site, MS_K_SHFL);
  l->mask = mask;
  l->size = (uint8_t) size;
  l->sub = (uint8_t) kind;
  l->arg = arg;
  l->width = (uint8_t) width;
  memcpy (l->val, v, size);
  ms_lane_yield (l);
  return l->res;
}

static inline __attribute__ ((always_inline)) unsigned
ms_lane_vote (const MsSite *site, unsigned mask, int pred, int kind)
{
  MsLane *l = ms_lane_stop (site, MS_K_VOTE);
  l->mask = mask;
  l->sub = (uint8_t) kind;
  l->arg = pred;
  ms_lane_yield (l);
  return (unsigned) l->res[0];
}

/* Whether two barrier sites are one __syncthreads: the same source line
 * (a user's kernel compiled by g++ may call one __syncthreads from two
 * places, e.g. after an if whose tail it duplicated: two code addresses,
 * two sites, one barrier). */
static inline int
ms_same_barrier (const MsSite *a, const MsSite *b)
{
  return a == b || (a->line == b->line && (a->file == b->file || strcmp (a->file, b->file) == 0));
}

static inline __attribute__ ((always_inline)) void
ms_lane_syncthreads (const MsSite *site)
{
  if (__builtin_expect (ms_direct != NULL, 0))
    ms_direct_abandon ();
  MsLane *l = ms_cur_lane;
  MsWarpCtl *ctl = ms_warp_ctl;
  l->site = site;
  l->kind = MS_K_BARRIER;
  l->state = MS_LANE_AT_BARRIER;
  if (ctl->n_barrier++ == 0)
    ctl->barrier_site = site;
  else if (!ms_same_barrier (site, ctl->barrier_site))
    ctl->barrier_mismatch = 1;
  ms_lane_yield (l);
}
