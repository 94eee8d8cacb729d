/* emulator.c - the CPU SIMT emulator.
 *
 * Modelling assumptions (what "runs like the GPU" means here):
 *  - Every CUDA thread is a fiber.  A warp's lanes run one after another up
 *    to their next memory operation or collective; when all lanes of a warp
 *    have stopped, the lanes waiting at the earliest site (textual order in
 *    the kernel source) execute that operation together, as one warp-level
 *    instruction with those lanes active.  This reconverges if/else and
 *    loops the way SIMT hardware does and makes warp-synchronous code
 *    (loads of all lanes before stores of any) behave as on the GPU.
 *  - Warps of a block run one after another from barrier to barrier; a
 *    __syncthreads releases when every live (not exited) thread of the block
 *    waits at the same __syncthreads.  Exited threads do not hold a barrier
 *    back (as on sm_70+).  Live threads waiting at different barriers, or a
 *    warp collective that can never gather its lanes, is a deadlock: error.
 *  - Warp collectives (__shfl_*, votes) gather the lanes of their mask that
 *    are still live, at the same site; __syncwarp gathers them at any
 *    __syncwarp.  Reading a lane that is not taking part is an error.
 *  - Blocks are independent and run in parallel on a GThreadPool; counters
 *    are integer sums, so they do not depend on the number of threads.
 *  - A cooperative launch's blocks are all resident at once: each is a
 *    fiber of one thread, run in turn; a block steps aside before a strong
 *    load of global memory (a grid barrier's poll) and the next one runs,
 *    so every block polls once per barrier it waits at.  Its records reach
 *    the ordered sinks in the order the blocks run them.
 *  - Global accesses must fall inside one of the launch's buffers, shared
 *    accesses inside the block's shared window; anything else is an error.
 *  - Shared memory starts zeroed in every block (the GPU's is undefined).
 *  - Atomics of a warp execute lane by lane in lane order.
 *  - A warp of a built-in kernel that only loads and stores global memory
 *    may run straight through, its lanes one after the other without
 *    fibers (direct.h says when and why the result is the same).
 *  - Shared-memory races between warps (no __syncthreads between two
 *    accesses of the same bytes, one a write) are found by racecheck.c,
 *    through barrier epochs, not through the values (which the warp-by-warp
 *    order above leaves unchanged).
 */
#include "config.h"
/* Functions on 64-byte and loops on 32-byte boundaries: the per-access and
 * per-warp loops then sit where they sit whatever code the build puts
 * before them (docs/performance.md, "Code layout": without, a change of
 * code elsewhere moved reduce_shfl's time by up to 5%) */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize ("align-functions=64", "align-loops=32")
#endif
#include "emulator.h"
#include "warp.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fiber.h"
#include "halves.h"
#include "lane.h"
#include "racecheck.h"
#include "racememo.h"
#include "slow-path-route.h"
#include "cpu-clones.h"

#define MAX_BLOCK_THREADS 1024
#define MAX_SHARED_BYTES (48 * 1024)   /* static shared memory per block */
#define MAX_SHARED_ARRAYS 64
/* 32 KiB a fiber, at least 28 KiB usable after the stack colouring (fiber.c);
 * the spacing matters: 36 KiB slots measured 8% slower (cache sets). */
#define STACK_BYTES (32 * 1024)
#define WARP_BUDGET MS_WARP_BUDGET   /* lane.h */
/* lane 0's loads of a straight warp whose step to the next warp is guessed */
#define DIRECT_PREFETCH_STEPS 2
#define BLOCK_OP_LIMIT MS_BLOCK_OP_LIMIT
#define QUICK_SITES 64   /* Worker.quick: sites whose buffers it keeps */
/* Lanes that run one site this many times in a row while other lanes of
 * their warp wait at a later one are spinning on them (an intra-warp lock). */
#define SPIN_LIMIT (1u << 20)

G_DEFINE_QUARK (ms-emulator-error-quark, ms_emulator_error)

MS_TLS void *ms_self;
MS_TLS unsigned long ms_shared_block;   /* kernel.h's MS_SHARED_ */
MS_TLS MsBlockInfo ms_block;

typedef MsLane Lane;

/* How many times in a row a warp ran the same site with the same lanes
 * while others of its lanes waited (see SPIN_LIMIT). */
typedef struct {
  int best;
  guint32 group;
  guint repeats;
} SpinWatch;

/* A warp's last poll of memory another warp of its block writes
 * (ms_ptx_warp_poll): its site, and the block's instruction count then. */
typedef struct {
  const void *site;
  guint64 ops;
} PollWatch;

/* Where lanes' accesses may fall: [lo, lo + span) of the host, virtual
 * addresses from vbase, in memory space `space` (the shared window or a
 * buffer). */
typedef struct {
  const guint8 *lo;
  gsize span;
  guint64 vbase;
  MsSpace space;
} Region;

typedef struct {
  const MsLaunch *launch;
  MsWarpCtl ctl;         /* scheduler context, current warp (sim/emulator/lane.h) */
  MsStackPool *pool;
  MsStackPool *warp_pool;  /* warp-wide kernels: a stack per warp */
  Lane *lanes;
  guint *tid;            /* the block's thread indices, x then y then z: 3 x n_lanes
                            (warp-wide kernels read them side by side: ms_warp.tid) */
  guint n_lanes;
  guint8 *shared;
  guint shared_used;
  guint shared_window;   /* bytes the block may declare: static limit + dynamic */
  gboolean dynamic_declared;   /* the block declared its extern __shared__ array */
  gboolean reserved;     /* the block has reserved shared memory (device code from PTX) */
  guint reserved_at;     /* where it begins */
  guint own_used;        /* the bytes of the block's own arrays, before it */
  guint8 *shadow;        /* per shared byte: written in this block yet? */
  MsRaceCheck race;      /* the race check's shadow (racecheck.h) */
  MsRaceMemo race_memo;  /* a block repeating the last one is compared, not checked */
  guint shared_offsets[MAX_SHARED_ARRAYS];
  guint n_shared_arrays;
  const void *shared_keys[MAX_SHARED_ARRAYS];   /* array k's declaration (its key) */
  guint64 block;
  /* bar.red's sums, by the parity of the block's barriers so far: a warp
   * reads the last barrier's while others add to the next one's */
  guint barriers;
  struct {
    guint32 lanes, trues;
  } bar_red[2];
  guint64 seq;           /* the block's place in the stream order (= block unless sampled) */
  guint16 warp;
  guint n_done;          /* lanes of the block that exited */
  gboolean yielded;      /* a warp of this round stopped on its budget */
  SpinWatch spin[32];    /* per warp of the block: the last instruction's site and lanes */
  PollWatch polls[32];   /* per warp of the block: its last poll */
  double clock[32];      /* per warp of the block: device code's clock, its
                            cycles so far (ms_ptx_warp_clock) */
  MsRuntimeCalls runtime;              /* the device runtime's calls so far */
  guint32 warp_runtime[32][MS_RUNTIME_KINDS];   /* ... per warp of the block */
  guint runtime_pending;               /* kinds a lane of the running group called */
  /* the running group's printf: its lanes, the first lane's format's
   * bytes and conversions, the most %s bytes a lane passed */
  guint printf_lanes, printf_conversions;
  gsize printf_format, printf_strings;
  guint64 async_fills;                 /* cp.async issues that read nothing (ms_ptx_async_fill) */
  MsSlowPathRuns slow_paths;           /* float division's and its kin's slow paths
                                        * (ms_ptx_slow_path_warp) */
  /* the region the last access fell in, and the one before it (a kernel
   * that reads one buffer and writes another changes region every
   * access): swapped by find_region */
  Region region, other;
  /* an untraced launch's global accesses (access_quick): the buffer each
   * site last fell in, by the site's id modulo QUICK_SITES (a guess a
   * site's next access checks), and that buffer's page map or NULL */
  struct {
    const guint8 *lo;
    gsize span;
    guint8 *dirty;
    guint64 last;   /* a load's first lane's address (access_quick's prefetch) */
  } quick[QUICK_SITES];
  MsSinkWorker sinks;    /* the sinks' per-worker state */
  MsRepeatShortcut shortcut;   /* round them for a repeated shared record (stream.h) */
  MsStreamOrder *order;  /* the ordered sinks' reorder stage (or NULL) */
  guint ordered_skips;   /* spaces the ordered sinks have no use for */
  void *signal_stack;    /* the crash handler's, while the worker runs */
  GArray *ordered;       /* this block's buffered records (with order) */
  GError *error;
  guint64 error_block;
  guint64 blocks_done;   /* for launch->progress: written by this worker only (atomic) */
  /* global buffers: host base and size, virtual base */
  guint8 *buf_base[MS_MAX_BUFFERS];
  gsize buf_bytes[MS_MAX_BUFFERS];
  guint n_bufs;
  int last_buf;
  /* lanes of the access exec_memory just ran that fell in a buffer's guard
   * pages (allowed: MsLaunch.allow_out_of_bounds); their loads read zeros */
  guint32 oob_lanes;
  /* straight runs of warps (direct.h): off for users' kernels, and once
   * the launch's warps keep abandoning them */
  MsDirect direct;
  MsFiber direct_fiber;  /* runs them, on a stack of the pool like a lane's */
  Lane *direct_warp;     /* the warp it runs, its lanes, and whether they ran */
  guint direct_n;
  guint16 direct_len[32];  /* accesses of each lane */
  guint direct_total;      /* and of all */
  gboolean direct_uneven;  /* some lane's count differs from lane 0's */
  gboolean direct_ran;
  gboolean direct_off;
  guintptr direct_last_load[DIRECT_PREFETCH_STEPS];  /* direct_prefetch */
  guint64 direct_done, direct_abandoned;
  /* warp-wide kernels (warp.h): the block's build (MsLaunch.block_entry),
   * a fiber per warp, where each stands */
  MsEntryFn warp_entry;
  MsFiber warp_fiber[32];
  guint8 warp_state[32];  /* MS_LANE_READY, _AT_BARRIER or _DONE */
  const MsWarpSched *warp_sched[32];   /* a waiting warp's groups */
  MsWarp *warp_saved;     /* [32]: a warp's ms_warp while others run in its
                             round's budget (made on the first yield) */
  gboolean warp_blocked;  /* lanes wait at a collective that cannot run */
  guint64 warp_wide_done; /* warps run warp-wide */
  GString *dev_out;       /* what the block's device code printed */
  guint64 *block_counts;  /* device code's block runs (ms_ptx_block_counts) */
  guint n_block_counts;
  gboolean asserted;      /* a lane's assert failed */
  /* the lanes' local memory, a buffer per warp (kept for the next block) */
  guint8 *local_mem[MAX_BLOCK_THREADS / 32];
  gsize local_bytes[MAX_BLOCK_THREADS / 32];   /* the warp's 32 lanes' */
  /* a large function's registers, a buffer per warp (ms_ptx_frame) */
  guint8 *frame_mem[MAX_BLOCK_THREADS / 32];
  gsize frame_bytes[MAX_BLOCK_THREADS / 32];
  /* a cooperative launch's block (run_grid): its fiber, the grid
   * scheduler's context, its coordinates while other blocks run, the
   * ordered sinks it hands its records to as it makes them, and whether a
   * warp stepped aside before a poll (then so does the block) */
  MsFiber block_fiber;
  MsFiber *grid;
  MsBlockInfo block_info;
  const MsSinks *in_order;
  /* no sink takes a global access's record (a launch past --launches) */
  gboolean global_unrecorded;
  guint index;           /* among the launch's workers */
  gboolean poll;
  gboolean block_ran, block_ended;
} Worker;

/* A global store's or atomic's page of buffer b (offset off) was written
 * (MsLaunch.dirty_pages).  Workers mark bytes of one array: relaxed
 * stores of the same value. */
static inline void
mark_dirty (const Worker *W, guint b, guint64 off)
{
  guint8 *const *d = W->launch->dirty_pages;
  if (d != NULL && b < W->launch->n_buffers && d[b] != NULL)
    __atomic_store_n (&d[b][off >> MS_DIRTY_PAGE_SHIFT], 1, __ATOMIC_RELAXED);
}

static __thread Worker *cur_worker;
MS_TLS MsDirect *ms_direct;
MS_TLS MsLane *ms_cur_lane;
MS_TLS MsWarpCtl *ms_warp_ctl;
MS_TLS MsWarp ms_warp;

/* ------------------------------------------------------------ lane side */

static void G_GNUC_NORETURN lane_yield_forever (Lane *l);

/* Records the first error of the block and parks the lane for good (the
 * scheduler sees W->error and stops the block). */
static void
lane_fail (Lane *l, MsEmulatorError code, const char *fmt, ...) G_GNUC_PRINTF (3, 4);

static void
lane_fail (Lane *l, MsEmulatorError code, const char *fmt, ...)
{
  Worker *W = cur_worker;
  va_list ap;
  va_start (ap, fmt);
  char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  if (W->error == NULL)
    g_set_error (&W->error, MS_EMULATOR_ERROR, code, "%s", msg);
  g_free (msg);   /* by hand: lane_yield_forever never returns */
  lane_yield_forever (l);
}

static void
lane_yield_forever (Lane *l)
{
  l->state = MS_LANE_DONE;
  for (;;)
    ms_lane_yield (l);
}

void *
ms_atomic (const MsSite *site, volatile void *p, const void *v,
           const void *compare, unsigned size, int op, int num)
{
  Lane *l = ms_lane_stop (site, MS_K_ATOMIC);
  l->addr = p;
  l->size = (guint8) size;
  l->sub = (guint8) op;
  l->num = (guint8) num;
  memcpy (l->val, v, size);
  memcpy (l->cmp, compare, size);
  ms_lane_yield (l);
  return l->res;
}

void
ms_syncwarp (const MsSite *site, unsigned mask)
{
  Lane *l = ms_lane_stop (site, MS_K_SYNCWARP);
  l->mask = mask;
  ms_lane_yield (l);
}

/* Whether a shuffle's width (as a lane record keeps it: a byte) is not a
 * power of two in 1..32; bytewise, with no branch, so that the warp-wide
 * path tests a whole group in one vectorised loop. */
static inline guint8
shfl_width_bad (guint8 w)
{
  return (guint8) ((w & (w - 1)) | (w > 32) | (w == 0));   /* w & (w - 1): below 256 */
}

/* Whether a shuffle's value size is one the GPU has none for (4 or 8 bytes). */
static inline gboolean
shfl_size_bad (unsigned size)
{
  return size != 4 && size != 8;
}

/* A shuffle of a size or width the GPU has none for: its error message in
 * buf (TRUE), or FALSE. */
static gboolean
shfl_args_error (const MsSite *site, unsigned size, int width, char *buf, gsize len)
{
  if (shfl_size_bad (size))
    g_snprintf (buf, len, "%s:%d: __shfl of a %u-byte value; shuffle 4- or 8-byte values",
                site->file, site->line, size);
  else if ((guint) width > 32u || shfl_width_bad ((guint8) width))
    g_snprintf (buf, len, "%s:%d: __shfl width %d is not a power of two in 1..32",
                site->file, site->line, width);
  else
    return FALSE;
  return TRUE;
}

void *
ms_shfl (const MsSite *site, unsigned mask, const void *v, unsigned size,
         int kind, int arg, int width)
{
  char msg[256];
  if (shfl_args_error (site, size, width, msg, sizeof msg))
    lane_fail (ms_lane_stop (site, MS_K_SHFL), MS_EMULATOR_ERROR_LAUNCH, "%s", msg);
  return ms_lane_shfl (site, mask, v, size, kind, arg, width);
}

unsigned
ms_vote (const MsSite *site, unsigned mask, int pred, int kind)
{
  return ms_lane_vote (site, mask, pred, kind);
}

/* The shared array of the declaration `key` in the running block, placed
 * after the others the first time a thread of the block reaches it (a
 * declaration inside a loop is one array, as on the GPU). */
void *
ms_shared_alloc_at (const void *key, unsigned size, unsigned align)
{
  if (G_UNLIKELY (ms_direct != NULL))
    ms_direct_abandon ();
  Worker *W = cur_worker;
  for (guint k = 0; k < W->n_shared_arrays; k++)
    if (W->shared_keys[k] == key)
      return W->shared + W->shared_offsets[k];
  Lane *l = ms_cur_lane;
  guint k = W->n_shared_arrays;
  if (k >= MAX_SHARED_ARRAYS)
    lane_fail (l, MS_EMULATOR_ERROR_RESOURCES, "%s: more than %d shared arrays in one block",
               W->launch->kernel, MAX_SHARED_ARRAYS);
  align = MAX (align, 1);
  guint off = (W->shared_used + align - 1) / align * align;
  if ((guint64) off + size > W->shared_window)
    lane_fail (l, MS_EMULATOR_ERROR_RESOURCES,
               "%s: the block declares %u bytes of shared memory, more than the %u a block may "
               "use statically (plus --dynamic-shared); make the tile smaller",
               W->launch->kernel, off + size, W->shared_window);
  W->shared_keys[k] = key;
  W->shared_offsets[k] = off;
  W->n_shared_arrays = k + 1;
  W->shared_used = off + size;
  W->region.span = W->other.span = 0;   /* the shared window grew: look the regions up again */
  return W->shared + off;
}

/* Every `extern __shared__` array of a block is the same memory. */
void *
ms_shared_alloc_dynamic (unsigned align)
{
  static const char dynamic_key;
  Worker *W = cur_worker;
  W->dynamic_declared = TRUE;
  return ms_shared_alloc_at (&dynamic_key, W->launch->dynamic_shared, MAX (align, 16));
}

/* The block's reserved shared memory (device code from PTX: cooperative
 * groups' barriers), after its own arrays. */
void *
ms_shared_alloc_reserved (unsigned size)
{
  static const char reserved_key;
  Worker *W = cur_worker;
  if (!W->reserved)
    W->own_used = W->shared_used;
  guint8 *at = ms_shared_alloc_at (&reserved_key, size, 16);
  W->reserved_at = (guint) (at - W->shared);
  W->reserved = TRUE;
  return at;
}

/* Whether [a, a + size) lies whole in the block's declared shared memory. */
/* The bytes of the shared window a kernel's own accesses may reach: all the
 * block declared, but not the reserved memory after an extern __shared__
 * array given 0 bytes (an access past that array is out of bounds, as it
 * is on the GPU, not cooperative groups' barrier words). */
static inline guint
shared_open (const Worker *W)
{
  return W->dynamic_declared && W->launch->dynamic_shared == 0 && W->reserved
           ? W->reserved_at : W->shared_used;
}

static inline gboolean
in_shared (const Worker *W, const guint8 *a, gsize size)
{
  return a >= W->shared && (gsize) (a - W->shared) + size <= shared_open (W);
}

/* The buffer holding [a, a + size) whole, or -1. */
static inline int
buffer_holding (const Worker *W, const guint8 *a, gsize size)
{
  for (guint b = 0; b < W->n_bufs; b++)
    if (a >= W->buf_base[b] && (gsize) (a - W->buf_base[b]) + size <= W->buf_bytes[b])
      return (int) b;
  return -1;
}

/* Whether an access of size bytes at a has a size the GPU has (a power of
 * two) and its natural alignment. */
static inline gboolean
naturally_aligned (const guint8 *a, gsize size)
{
  return (size & (size - 1)) == 0 && ((guintptr) a & (size - 1)) == 0;
}

/* A fiber runs the kernel once per block it is given: after the kernel
 * returns it parks, and the next resume starts the next block's thread
 * (no fiber set-up per CUDA thread). */
static void
lane_main (void *arg)
{
  Lane *l = arg;
  for (;;)
    {
      cur_worker->launch->entry (&cur_worker->launch->args);
      l->state = MS_LANE_DONE;
      cur_worker->ctl.order[l->lane] = MS_NO_ORDER;
      cur_worker->n_done++;
      ms_lane_yield (l);
    }
}

/* ------------------------------------------------------- scheduler side */

/* Runs lane l and, through ms_lane_yield's hand-over, every ready lane after
 * it in the warp, each up to its next stop. */
static inline void
resume (Worker *W, Lane *l)
{
  for (Lane *p = l; p < l + 2 && p < W->ctl.warp_end; p++)
    ms_prefetch_lane (p);
  ms_cur_lane = l;
  ms_self = &l->thread_idx;
  ms_fiber_switch (&W->ctl.sched, &l->fiber);
}

/* Called on the worker's thread, where ms_block is the current block. */
static void
thread_coords (const Lane *l, char *buf, gsize len)
{
  g_snprintf (buf, len, "block (%u,%u,%u) thread (%u,%u,%u)",
              ms_block.block_idx.x, ms_block.block_idx.y, ms_block.block_idx.z,
              l->thread_idx.x, l->thread_idx.y, l->thread_idx.z);
}

/* The error of lane l at site (W->error, unless set already); FALSE. */
static gboolean
fail_va (Worker *W, const Lane *l, const MsSite *site, MsEmulatorError code, const char *fmt,
         va_list ap)
{
  g_autofree char *what = g_strdup_vprintf (fmt, ap);
  char where[96];
  thread_coords (l, where, sizeof where);
  const char *file = strrchr (site->file, '/');
  if (W->error == NULL)
    g_set_error (&W->error, MS_EMULATOR_ERROR, code, "%s: %s at %s:%d, %s", W->launch->kernel,
                 what, file ? file + 1 : site->file, site->line, where);
  return FALSE;
}

static gboolean
fail_at (Worker *W, const Lane *l, MsEmulatorError code, const char *fmt, ...) G_GNUC_PRINTF (4, 5);

/* The error of lane l at the site it stopped at. */
static gboolean
fail_at (Worker *W, const Lane *l, MsEmulatorError code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fail_va (W, l, l->site, code, fmt, ap);
  va_end (ap);
  return FALSE;
}

static gboolean
fail_at_site (Worker *W, const Lane *l, const MsSite *site, MsEmulatorError code,
              const char *fmt, ...) G_GNUC_PRINTF (5, 6);

/* The error of lane l at site: a warp-wide kernel's lane records do not
 * hold the site of its accesses (only the general path writes them). */
static gboolean
fail_at_site (Worker *W, const Lane *l, const MsSite *site, MsEmulatorError code,
              const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fail_va (W, l, site, code, fmt, ap);
  va_end (ap);
  return FALSE;
}

/* Explains an address no buffer contains. */
static gboolean
fail_out_of_bounds (Worker *W, const Lane *l, const char *what)
{
  const guint8 *a = (const guint8 *) l->addr;
  /* the shared window's extent is known exactly: test it first, before a
   * heap buffer just below it takes the blame */
  if (W->shared && a >= W->shared && a < W->shared + W->shared_window + 4096)
    return fail_at (W, l, MS_EMULATOR_ERROR_OUT_OF_BOUNDS,
                    "out-of-bounds shared %s at byte offset %td of the block's %u bytes of "
                    "shared arrays; %s",
                    what, a - W->shared, shared_open (W),
                    W->dynamic_declared && W->launch->dynamic_shared == 0
                      ? "the extern __shared__ array has 0 bytes: give --dynamic-shared BYTES"
                      : "check the tile indexing");
  int best = -1;
  for (guint b = 0; b < W->n_bufs; b++)
    if (W->buf_base[b] <= a && (best < 0 || W->buf_base[b] > W->buf_base[best]))
      best = (int) b;
  const MsLaunch *L = W->launch;
  if (best >= 0 && a < W->buf_base[best] + W->buf_bytes[best] + MAX (65536, W->launch->oob_margin))
    return fail_at (W, l, MS_EMULATOR_ERROR_OUT_OF_BOUNDS,
                    "out-of-bounds %s of %u bytes at byte offset %td of buffer '%s' (%zu bytes); "
                    "check the kernel's index bounds",
                    what, l->size, a - W->buf_base[best], L->buffer_names[best],
                    W->buf_bytes[best]);
  for (guint b = 0; b < W->n_bufs; b++)   /* guarded buffers: just below one */
    if (a < W->buf_base[b] && (gsize) (W->buf_base[b] - a) <= W->launch->oob_margin)
      return fail_at (W, l, MS_EMULATOR_ERROR_OUT_OF_BOUNDS,
                      "out-of-bounds %s of %u bytes %td bytes before buffer '%s'; check the "
                      "kernel's index bounds",
                      what, l->size, W->buf_base[b] - a, L->buffer_names[b]);
  return fail_at (W, l, MS_EMULATOR_ERROR_OUT_OF_BOUNDS,
                  "%s of %u bytes at address %p, which is in no buffer of the launch; "
                  "check the pointer arithmetic",
                  what, l->size, (const void *) a);
}

/* Where an access of size bytes at a, just outside a buffer (in the
 * launch's oob_margin of guard pages on either side of it), is in the
 * records: after the buffer, its offsets go on; before it, it is put 2^39
 * bytes into the buffer's space, past any real offset, at the same
 * alignment, so that the models count its sectors as the GPU does.  FALSE
 * if a is in no buffer's guard pages. */
static gboolean
guard_vaddr (const Worker *W, const guint8 *a, gsize size, guint64 *va)
{
  gsize margin = W->launch->oob_margin;
  for (guint b = 0; b < W->n_bufs; b++)
    {
      const guint8 *lo = W->buf_base[b], *end = lo + W->buf_bytes[b];
      guint64 vbase = (guint64) (b + 1) << MS_BUFFER_SHIFT;
      if (a >= end && (gsize) (a - end) + size <= margin)
        {
          *va = vbase + (guint64) (a - lo);
          return TRUE;
        }
      if (a < lo && (gsize) (lo - a) <= margin && (gsize) (lo - a) >= size)
        {
          *va = vbase + (G_GUINT64_CONSTANT (1) << 39) - (guint64) (lo - a);
          return TRUE;
        }
    }
  return FALSE;
}

/* An allowed access out of bounds: the error's words as a warning, once a
 * site for the process (a loop of launches would repeat it; the GPU reads
 * or writes whatever is mapped there, and a correct program does not use
 * it). */
static void
warn_out_of_bounds (Worker *W, const Lane *l, const char *what)
{
  static GMutex lock;
  static GHashTable *warned;
  if (W->error != NULL)
    return;
  g_mutex_lock (&lock);
  if (warned == NULL)
    warned = g_hash_table_new (NULL, NULL);
  gboolean first = g_hash_table_add (warned, (gpointer) l->site);
  g_mutex_unlock (&lock);
  if (!first)
    return;
  fail_out_of_bounds (W, l, what);
  g_printerr ("memsim: warning: %s (going on: --allow-out-of-bounds; such a load reads "
              "zeros, such a store is dropped)\n", W->error->message);
  g_clear_error (&W->error);
}

/* Finds the region (shared window or a buffer) holding lane l's access and
 * makes it the worker's current region; FALSE if there is none. */
static gboolean
find_region (Worker *W, const volatile void *addr, guint size)
{
  const guint8 *a = (const guint8 *) addr;
  /* the region before the current one: the two change places */
  Region r = W->other;
  W->other = W->region;
  if (a >= r.lo && (gsize) (a - r.lo) + size <= r.span)
    {
      W->region = r;
      return TRUE;
    }
  if (in_shared (W, a, size))
    {
      W->region = (Region) { W->shared, shared_open (W), 0, MS_SPACE_SHARED };
      return TRUE;
    }
  int b = buffer_holding (W, a, size);
  if (b < 0)
    return FALSE;
  W->region = (Region) { W->buf_base[b], W->buf_bytes[b], (guint64) (b + 1) << MS_BUFFER_SHIFT,
                         MS_SPACE_GLOBAL };
  return TRUE;
}

/* Maps lane l's address to (space, virtual address); FALSE if invalid.
 * Accesses of a warp nearly always fall in the region of the last one. */
static inline gboolean
classify (Worker *W, const Lane *l, MsSpace *space, guint64 *vaddr)
{
  gsize off = (gsize) ((const guint8 *) l->addr - W->region.lo);
  if (G_UNLIKELY (off + l->size > W->region.span || (const guint8 *) l->addr < W->region.lo))
    {
      if (!find_region (W, l->addr, l->size))
        return FALSE;
      off = (gsize) ((const guint8 *) l->addr - W->region.lo);
    }
  *space = W->region.space;
  *vaddr = W->region.vbase + off;
  return TRUE;
}

static inline MsOp
kind_op (guint8 kind)
{
  return kind == MS_K_LD ? MS_OP_LD : kind == MS_K_ST ? MS_OP_ST : MS_OP_ATOMIC;
}

static inline void
copy_value (void *dst, const volatile void *src, unsigned size)
{
  switch (size)
    {
    case 4: *(guint32 *) dst = *(const volatile guint32 *) src; break;
    case 8: *(guint64 *) dst = *(const volatile guint64 *) src; break;
    case 16: memcpy (dst, (const void *) src, 16); break;
    case 2: *(guint16 *) dst = *(const volatile guint16 *) src; break;
    default: memcpy (dst, (const void *) src, size); break;
    }
}

#define ATOMIC_INT_OP(T, U, p, l)                                                   \
  do {                                                                          \
    T v, c, nw, old = __atomic_load_n ((T *) (p), __ATOMIC_RELAXED);           \
    memcpy (&v, (l)->val, sizeof v);                                             \
    memcpy (&c, (l)->cmp, sizeof c);                                            \
    do {                                                                        \
      switch ((l)->sub)                                                         \
        {                                                                       \
        case MS_ATOMIC_ADD: nw = (T) ((U) old + (U) v); break;  /* wraps, as CUDA */ \
        case MS_ATOMIC_SUB: nw = (T) ((U) old - (U) v); break;                  \
        case MS_ATOMIC_MIN: nw = old < v ? old : v; break;                      \
        case MS_ATOMIC_MAX: nw = old > v ? old : v; break;                      \
        case MS_ATOMIC_EXCH: nw = v; break;                                     \
        case MS_ATOMIC_AND: nw = (T) ((U) old & (U) v); break;                  \
        case MS_ATOMIC_OR: nw = (T) ((U) old | (U) v); break;                   \
        case MS_ATOMIC_XOR: nw = (T) ((U) old ^ (U) v); break;                  \
        case MS_ATOMIC_INC: nw = (U) old >= (U) v ? 0 : (T) ((U) old + 1); break; \
        case MS_ATOMIC_DEC: nw = (U) old == 0 || (U) old > (U) v ? v : (T) ((U) old - 1); break; \
        default: nw = old == c ? v : old; break;                                \
        }                                                                       \
    } while (!__atomic_compare_exchange_n ((T *) (p), &old, nw, FALSE,          \
                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
    changed = nw != old;                                                        \
    memcpy ((l)->res, &old, sizeof old);                                        \
  } while (0)

#define ATOMIC_FLOAT_OP(T, U, p, l)                                              \
  do {                                                                          \
    U oldbits = __atomic_load_n ((U *) (p), __ATOMIC_RELAXED), nwbits;         \
    T v, c, old, nw;                                                            \
    memcpy (&v, (l)->val, sizeof v);                                             \
    memcpy (&c, (l)->cmp, sizeof c);                                            \
    do {                                                                        \
      memcpy (&old, &oldbits, sizeof old);                                      \
      switch ((l)->sub)                                                         \
        {                                                                       \
        case MS_ATOMIC_ADD: nw = old + v; break;                                \
        case MS_ATOMIC_SUB: nw = old - v; break;                                \
        case MS_ATOMIC_MIN: nw = old < v ? old : v; break;                      \
        case MS_ATOMIC_MAX: nw = old > v ? old : v; break;                      \
        case MS_ATOMIC_EXCH: nw = v; break;                                     \
        default: nw = old == c ? v : old; break;                                \
        }                                                                       \
      memcpy (&nwbits, &nw, sizeof nw);                                         \
    } while (!__atomic_compare_exchange_n ((U *) (p), &oldbits, nwbits, FALSE,  \
                                           __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
    changed = nwbits != oldbits;                                                \
    memcpy ((l)->res, &old, sizeof old);                                        \
  } while (0)

/* An atomic on one or two half-precision values (f16 or bfloat16: atom
 * .add/.min/.max/.exch .f16, .f16x2, .bf16, .bf16x2), half by half. */
static gboolean
atomic_halves (Worker *W, Lane *l)
{
  gboolean bf = l->num == MS_NUM_BF16;
  guint n = l->size / 2;
  guint32 v = 0, oldbits, nw;
  memcpy (&v, l->val, l->size);
  if (l->sub != MS_ATOMIC_ADD && l->sub != MS_ATOMIC_MIN && l->sub != MS_ATOMIC_MAX
      && l->sub != MS_ATOMIC_EXCH)
    return fail_at (W, l, MS_EMULATOR_ERROR_LAUNCH,
                    "atomic on half-precision values other than add, min, max or exchange");
  oldbits = l->size == 2 ? __atomic_load_n ((guint16 *) l->addr, __ATOMIC_RELAXED)
                         : __atomic_load_n ((guint32 *) l->addr, __ATOMIC_RELAXED);
  for (;;)
    {
      nw = 0;
      for (guint h = 0; h < n; h++)
        {
          guint16 ha = (guint16) (oldbits >> 16 * h), hb = (guint16) (v >> 16 * h);
          double a = bf ? ms_bf16_f32 (ha) : ms_f16_f32 (ha);
          double b = bf ? ms_bf16_f32 (hb) : ms_f16_f32 (hb);
          double r = l->sub == MS_ATOMIC_ADD ? a + b : l->sub == MS_ATOMIC_MIN ? (b < a ? b : a)
                     : l->sub == MS_ATOMIC_MAX ? (b > a ? b : a) : b;
          nw |= (guint32) (bf ? ms_f64_bf16 (r) : ms_f64_f16 (r)) << 16 * h;
        }
      gboolean done;
      if (l->size == 2)
        {
          guint16 o = (guint16) oldbits;
          done = __atomic_compare_exchange_n ((guint16 *) l->addr, &o, (guint16) nw, FALSE,
                                              __ATOMIC_RELAXED, __ATOMIC_RELAXED);
          oldbits = o;
        }
      else
        done = __atomic_compare_exchange_n ((guint32 *) l->addr, &oldbits, nw, FALSE,
                                            __ATOMIC_RELAXED, __ATOMIC_RELAXED);
      if (done)
        break;
    }
  memcpy (l->res, &oldbits, l->size);
  return TRUE;
}

static gboolean
do_atomic (Worker *W, Lane *l)
{
  /* whether it changed memory (a swap that failed, an add of 0 did not:
   * block_wrote's spin-waits) */
  gboolean changed = TRUE;
  if ((l->num == MS_NUM_HALF || l->num == MS_NUM_BF16) && (l->size == 2 || l->size == 4))
    {
      W->ctl.wrote = TRUE;
      return atomic_halves (W, l);
    }
  volatile void *p = l->addr;
  if (l->size == 4 && l->num == MS_NUM_INT)
    ATOMIC_INT_OP (gint32, guint32, p, l);
  else if (l->size == 4 && l->num == MS_NUM_UINT)
    ATOMIC_INT_OP (guint32, guint32, p, l);
  else if (l->size == 8 && l->num == MS_NUM_INT)
    ATOMIC_INT_OP (gint64, guint64, p, l);
  else if (l->size == 8 && l->num == MS_NUM_UINT)
    ATOMIC_INT_OP (guint64, guint64, p, l);
  else if (l->size == 2 && (l->num == MS_NUM_UINT || l->num == MS_NUM_INT)
           && (l->sub == MS_ATOMIC_CAS || l->sub == MS_ATOMIC_EXCH))
    ATOMIC_INT_OP (guint16, guint16, p, l);   /* atom.cas.b16 */
  else if (l->sub == MS_ATOMIC_AND || l->sub == MS_ATOMIC_OR || l->sub == MS_ATOMIC_XOR)
    return fail_at (W, l, MS_EMULATOR_ERROR_LAUNCH,
                    "atomicAnd/Or/Xor on a floating-point value: CUDA has them for integers only");
  else if (l->size == 4 && l->num == MS_NUM_FLOAT)
    ATOMIC_FLOAT_OP (float, guint32, p, l);
  else if (l->size == 8 && l->num == MS_NUM_DOUBLE)
    ATOMIC_FLOAT_OP (double, guint64, p, l);
  else
    return fail_at (W, l, MS_EMULATOR_ERROR_LAUNCH,
                    "atomic on a %u-byte value of an unsupported type", l->size);
  W->ctl.wrote |= changed;
  return TRUE;
}

/* Hands one record to the sinks: their parallel part now, their ordered
 * part through the block's buffer (delivered in block order). */
static inline void
emit (Worker *W, const MsWarpAccess *acc)
{
  ms_ordered_keep = FALSE;
  ms_sink_worker_access (&W->sinks, acc);
  /* not a record the ordered sinks have no use for (ms_sinks_ordered_skips:
   * a reduction's shared accesses no longer pass the chain of ordered
   * filters, nor another worker's block buffer) */
  if (W->order && (!(W->ordered_skips >> acc->space & 1) || ms_ordered_keep))
    ms_stream_order_emit (W->order, W->seq, W->ordered, acc);
  else if (G_UNLIKELY (W->in_order != NULL)
           && (!(W->ordered_skips >> acc->space & 1) || ms_ordered_keep))
    ms_sinks_ordered_access (W->in_order, acc);
}

/* Hands on a shared record just compared or recorded by the race memo,
 * with the producer's word on it (MsRepeatHint, access.h): the models' run
 * adds again what it made of the equal record of the block before.  A
 * repeat goes round the sinks' chain when it may (the shortcut: no filter
 * holds anything, and the run kept the record). */
static inline void
emit_shared (Worker *W, const MsWarpAccess *acc)
{
  const MsRaceMemo *m = &W->race_memo;
  if (m->last_serial != 0)
    {
      ms_repeat_hint = (MsRepeatHint) { acc, m->last_serial, MS_RACE_MEMO_LAST_POS (m),
                                        MS_RACE_MEMO_LAST_AGAIN (m) };
      if (MS_RACE_MEMO_LAST_AGAIN (m) && ms_repeat_shortcut_open (&W->shortcut)
          && W->shortcut.repeat (W->shortcut.state, acc))
        {
          ms_repeat_hint.record = NULL;
          return;
        }
    }
  emit (W, acc);
  ms_repeat_hint.record = NULL;
}

/* Whether every shadow byte of [shadow, shadow + n) is 1 (written), n a
 * multiple of 4: a 4-, 8- or 16-byte access (a constant n: unrolled), or
 * up to SPAN_WRITTEN_MAX bytes that a whole warp's contiguous or broadcast
 * access spans, tested at once. */
#define SPAN_WRITTEN_MAX 256
static inline gboolean
span_written (const guint8 *shadow, gsize n)
{
  /* 16 bytes a step in GCC's vector extension (a 256-byte span: 16 steps,
   * not 64; callgrind: 130 -> 40 instructions a gemm_regtile tile read),
   * then the last words */
  typedef guint64 V2 __attribute__ ((vector_size (16)));
  V2 all16 = { G_MAXUINT64, G_MAXUINT64 };
  gsize k = 0;
  for (; k + 16 <= n; k += 16)
    {
      V2 w;
      memcpy (&w, shadow + k, 16);
      all16 &= w;
    }
  guint32 all = (guint32) (all16[0] & all16[1]) & (guint32) ((all16[0] & all16[1]) >> 32);
  for (; k < n; k += 4)
    {
      guint32 w;
      memcpy (&w, shadow + k, 4);
      all &= w;
    }
  return all == 0x01010101u;
}

/* Whether every byte of a shared access was written (shadow bytes are 1). */
static inline gboolean
all_written (const guint8 *shadow, guint size)
{
  if (size >= 4)
    return span_written (shadow, size);
  for (guint i = 0; i < size; i++)
    if (!shadow[i])
      return FALSE;
  return TRUE;
}

static inline void
mark_written (guint8 *shadow, guint size)
{
  static const guint8 ones[16] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
  switch (size)   /* constant sizes: inlined stores, not a memset call */
    {
    case 4: memcpy (shadow, ones, 4); break;
    case 8: memcpy (shadow, ones, 8); break;
    case 16: memcpy (shadow, ones, 16); break;
    default: memset (shadow, 1, size); break;
    }
}

/* A read of unwritten shared bytes (found at the end of its epoch: see
 * racecheck.c); p->thread's lane record gives its coordinates. */
static gboolean
fail_uninitialised (Worker *W, const MsRacePending *p)
{
  guint k = 0;
  while (k + 1 < W->n_shared_arrays && W->shared_offsets[k + 1] <= p->offset)
    k++;
  Lane l = { .site = p->site, .thread_idx = W->lanes[p->thread].thread_idx };
  gboolean failing = W->error != NULL;
  fail_at (W, &l, MS_EMULATOR_ERROR_UNINITIALISED,
           "reads shared memory no thread of the block has written (byte %u of shared "
           "array #%u, which holds garbage on the GPU); write it before the "
           "__syncthreads that precedes this read",
           p->offset - W->shared_offsets[k], k + 1);
  if (failing || !W->launch->allow_unwritten)
    return FALSE;
  /* allowed: said once a launch, and the block goes on (the GPU reads
   * garbage; a correct program does not use it) */
  static const MsLaunch *warned;
  if (g_atomic_pointer_exchange (&warned, W->launch) != W->launch)
    g_printerr ("memsim: warning: %s (going on: --allow-races)\n", W->error->message);
  g_clear_error (&W->error);
  return TRUE;
}

/* The end of a barrier interval: a pending unwritten read that no other
 * warp's write turned into a race is the uninitialised-read error. */
static gboolean
end_epoch (Worker *W)
{
  const MsRacePending *p = ms_racecheck_epoch_end (&W->race, W->shadow);
  return p == NULL || fail_uninitialised (W, p);
}

/* body for each lane i of group, in lane order: a whole warp's loop has
 * no test a lane (the usual case), a partial warp's walks its set bits (a
 * reduction's later steps have a few lanes) */
#define FOR_LANES(group, i, body)                                             \
  do {                                                                        \
    if ((group) == 0xffffffffu)                                               \
      for (guint i = 0; i < MS_WARP_SIZE; i++)                                \
        body                                                                  \
    else                                                                      \
      for (guint32 m_ = (group), i; m_ && (i = (guint) __builtin_ctz (m_), 1); \
           m_ &= m_ - 1)                                                      \
        body                                                                  \
  } while (0)

/* Copies every lane's value of a load (from the address to the lane) or
 * a store (from the lane to the address): one loop per size. */
#define COPY_LANES(T)                                                         \
  do {                                                                        \
    if (load)                                                                 \
      FOR_LANES (group, i,                                                    \
                 memcpy (LANE_VAL (i), (const void *) LANE_ADDR (i), sizeof (T));); \
    if (!load)                                                                \
      FOR_LANES (group, i,                                                    \
                 memcpy ((void *) LANE_ADDR (i), LANE_VAL (i), sizeof (T)););   \
    if (!load && W->launch->dirty_pages != NULL)                              \
      mark_dirty_lanes (W, group, A, as);                                     \
  } while (0)

/* Whether 32 lanes one stride apart from a0 are few enough steps to stay
 * within a region of span bytes (then they cannot wrap, and the first and
 * the last lane's checks stand for all); if so, *bad those checks (its top
 * bit set: some lane's size bytes leave the region at lo: the offset o or
 * lim - o wraps) and *low the bits the lanes' alignment is tested on. */
static inline gboolean
progression_checked (guint64 a0, guint64 stride, guint64 lo, guint64 span, guint64 size,
                     guint64 *bad, guint64 *low)
{
  guint64 step = (gint64) stride < 0 ? -stride : stride;
  if (step > span / MS_WARP_SIZE)
    return FALSE;
  guint64 lim = span - size, o0 = a0 - lo, o31 = a0 + (MS_WARP_SIZE - 1) * stride - lo;
  *bad = o0 | (lim - o0) | o31 | (lim - o31);
  *low = a0 | stride;
  return TRUE;
}

/* mark_dirty for the lanes of a store group in one region (the buffer
 * W->region): one mark when every lane wrote in the page of the first (a
 * whole test, vectorised), else each lane's.  perf, simpleStreams:
 * marking lane by lane was a quarter of its untraced stores' time. */
static inline __attribute__ ((always_inline)) void
mark_dirty_lanes (const Worker *W, guint32 group, const guint8 *A, gsize as)
{
  guint b = (guint) MS_VADDR_BUFFER (W->region.vbase);
  const guintptr lo = (guintptr) W->region.lo;
#define LANE_OFFSET(i) (*(const guintptr *) (A + (i) * as) - lo)
  guintptr off0 = LANE_OFFSET (__builtin_ctz (group)), other = 0;
  FOR_LANES (group, i, other |= LANE_OFFSET (i) ^ off0;);
  if (other >> MS_DIRTY_PAGE_SHIFT == 0)
    {
      mark_dirty (W, b, off0);
      return;
    }
  /* lanes in several pages (a column: each its own), the buffer's marks
   * found once; a page marked already is only read, so that workers
   * storing to the same pages do not take its line from each other */
  guint8 *const *d = W->launch->dirty_pages;
  guint8 *marks = b < W->launch->n_buffers ? d[b] : NULL;
  if (marks == NULL)
    return;
  FOR_LANES (group, i, {
    guint8 *m = &marks[LANE_OFFSET (i) >> MS_DIRTY_PAGE_SHIFT];
    if (__atomic_load_n (m, __ATOMIC_RELAXED) == 0)
      __atomic_store_n (m, 1, __ATOMIC_RELAXED);
  });
#undef LANE_OFFSET
}

/* A whole warp's global store of a row (lane l at row + l * size, size 4
 * or 8) from the lanes' 16-byte value slots, four or two lanes a vector
 * (store_row_values), and its pages marked (MsLaunch.dirty_pages) from
 * its first and last byte.  callgrind, simpleStreams' kernel: the lane by
 * lane copy and marking were 300 host instructions a store. */
static inline __attribute__ ((always_inline)) void
store_row_values (guint8 *row, const guint8 *V, guint size)
{
#ifdef __SSE2__
  if (size == 4)
    for (guint i = 0; i < MS_WARP_SIZE; i += 4)
      {
        __m128i v0 = _mm_loadu_si128 ((const __m128i *) (V + i * 16));
        __m128i v1 = _mm_loadu_si128 ((const __m128i *) (V + (i + 1) * 16));
        __m128i v2 = _mm_loadu_si128 ((const __m128i *) (V + (i + 2) * 16));
        __m128i v3 = _mm_loadu_si128 ((const __m128i *) (V + (i + 3) * 16));
        _mm_storeu_si128 ((__m128i *) (row + 4 * i),
                          _mm_unpacklo_epi64 (_mm_unpacklo_epi32 (v0, v1),
                                              _mm_unpacklo_epi32 (v2, v3)));
      }
  else
    for (guint i = 0; i < MS_WARP_SIZE; i += 2)
      {
        __m128i v0 = _mm_loadu_si128 ((const __m128i *) (V + i * 16));
        __m128i v1 = _mm_loadu_si128 ((const __m128i *) (V + (i + 1) * 16));
        _mm_storeu_si128 ((__m128i *) (row + 8 * i), _mm_unpacklo_epi64 (v0, v1));
      }
#else
  for (guint i = 0; i < MS_WARP_SIZE; i++)
    memcpy (row + i * size, V + i * 16, size);
#endif
}

static inline __attribute__ ((always_inline)) void
store_row (const Worker *W, guint8 *row, const guint8 *V, guint size)
{
  store_row_values (row, V, size);
  if (W->launch->dirty_pages != NULL)
    {
      guint b = (guint) MS_VADDR_BUFFER (W->region.vbase);
      guintptr first = (guintptr) (row - W->region.lo), last = first + MS_WARP_SIZE * size - 1;
      mark_dirty (W, b, first);
      if ((first ^ last) >> MS_DIRTY_PAGE_SHIFT != 0)
        mark_dirty (W, b, last);
    }
}

/* exec_memory's common case in tight loops: a load or store (no atomic) of
 * lanes that all fall, aligned, in one region, a global buffer or the
 * shared window (with the same checks and race-check record as
 * exec_memory's loop, in the same lane order).  0: nothing done (the
 * general path then runs, finds the region, the error or the unwritten
 * shared bytes); 1: done; -1: failed (W->error).  The loops are
 * FOR_LANES: nearly always every bit of the group is set, and a whole
 * warp's loop has no test a lane (callgrind: -7% instructions on
 * transpose_padded, -11% on gemm_tiled). */
static inline __attribute__ ((always_inline)) int
exec_fast_view (Worker *W, guint32 group, const MsSite *site, guint kind, guint size, MsOp op,
                const guint8 *A, gsize as, guint8 *V, gsize vs, gboolean copy_loads,
                guint8 *load_pattern)
{
#define LANE_ADDR(i) (*(volatile guint8 *const *) (A + (i) * as))
#define LANE_VAL(i) ((void *) (V + (i) * vs))
  const volatile guint8 *addr0 = LANE_ADDR (__builtin_ctz (group));
  gsize off0 = (gsize) ((const guint8 *) addr0 - W->region.lo);
  if ((off0 >= W->region.span || off0 + size > W->region.span) && !find_region (W, addr0, size))
    return 0;
  if (op == MS_OP_ATOMIC)
    return 0;
  gboolean shared = W->region.space == MS_SPACE_SHARED;
  /* a global access no sink takes (a launch past --launches): checked and
   * copied, no record made */
  gboolean unrecorded = !shared && W->global_unrecorded;
  if (!shared && op == MS_OP_LD)
    {
      /* A global load's values are copied (or, by a warp-wide kernel,
       * read) after the models have costed it: ask for its host lines now,
       * so that their misses (a large matrix read once: the host's memory,
       * not its cache) overlap with the models' work (docs/performance.md:
       * transpose_naive 8192^2, one core, 2.24 -> 1.91 s of CPU).  The first
       * and the last lane's lines: a row's 128 bytes; a line a lane cost a
       * GEMM whose inputs sit in the host's cache 20%.  Stores' lines asked
       * for so gained nothing. */
      __builtin_prefetch ((const void *) LANE_ADDR (__builtin_ctz (group)), 0, 0);
      __builtin_prefetch ((const void *) LANE_ADDR (31 - __builtin_clz (group)), 0, 0);
    }
  guintptr lo = (guintptr) W->region.lo, amin = G_MAXSIZE, amax = 0, low = 0;
  MsWarpAccess acc;   /* its addresses made in the same pass (unused if it fails) */
  gboolean strided = FALSE;   /* every lane: addr[0] + l * stride */
  gboolean one_address = FALSE;   /* the active lanes of a partial warp: one address */
  int same_offsets = -1;      /* ms_racememo_access's */
  guint64 stride = 0;
  guint64 vbase = W->region.vbase - lo;
  if (group == 0xffffffffu && as == sizeof (guint64) && W->region.span >= size)
    {
      /* A whole warp's contiguous addresses, two lanes a vector (four in
       * the AVX2 copy: cpu-clones.h) and no min or max: a lane is in the
       * region when its offset o and lim - o are both below 2^63 (an
       * address below the region wraps o; one past lim wraps lim - o;
       * spans are far below 2^63).  callgrind, transpose_naive: 11 -> 4
       * instructions a lane (SSE2).  (A shared load's span test wants the
       * lowest and highest address: the first and last lane's when the
       * lanes are one stride apart, else a loop.)  And whether the lanes
       * are one stride apart (ms_stride_hint). */
      guint64 a0 = (guint64) LANE_ADDR (0), bad = 0, vlow = 0, off_stride = 0;
      stride = (guint64) LANE_ADDR (1) - a0;
/* the first lanes' expected addresses, in registers (set lane by lane,
 * the vector was stored piecewise and loaded whole: a load that waits) */
#define LANE_STEPS_4(a0, d) { (a0), (a0) + (d), (a0) + 2 * (d), (a0) + 3 * (d) }
#define LANE_STEPS_2(a0, d) { (a0), (a0) + (d) }
#define ADDRESS_PASS(N, KEEP)                                                   \
  do {                                                                          \
    typedef guint64 VA __attribute__ ((vector_size (8 * (N))));                 \
    VA zero = { 0 }, e = LANE_STEPS_##N (a0, stride), vbad = zero, vlw = zero;  \
    VA voff = zero;                                                             \
    VA vlo = zero + lo, vlim = zero + (W->region.span - size), vb = zero + vbase;\
    for (guint i = 0; i < MS_WARP_SIZE; i += (N), e += (N) * stride)            \
      {                                                                         \
        VA a;                                                                   \
        memcpy (&a, A + i * sizeof (guint64), sizeof a);                        \
        VA o = a - vlo;                                                         \
        vbad |= o | (vlim - o);                                                 \
        vlw |= a;                                                               \
        voff |= a ^ e;                                                          \
        if (KEEP)                                                               \
          {                                                                     \
            a += vb;                                                            \
            memcpy (&acc.addr[i], &a, sizeof a);                                \
          }                                                                     \
      }                                                                         \
    for (guint k = 0; k < (N); k++)                                             \
      {                                                                         \
        bad |= vbad[k];                                                         \
        vlow |= vlw[k];                                                         \
        off_stride |= voff[k];                                                  \
      }                                                                         \
  } while (0)
      /* A record no sink takes: first whether the lanes are one stride
       * apart, then, if they are, the first and the last lane's checks
       * stand for all (a progression that cannot wrap: its 31 steps
       * stay within the region's span); else every lane's, without
       * their virtual addresses.  callgrind, simpleStreams' kernel: 100
       * -> 40 host instructions an access. */
      gboolean checked = FALSE;
      if (unrecorded)
        {
#define STRIDE_PASS(N)                                                          \
  do {                                                                          \
    typedef guint64 VA __attribute__ ((vector_size (8 * (N))));                 \
    VA zero = { 0 }, e = LANE_STEPS_##N (a0, stride), voff = zero;              \
    _Pragma ("GCC unroll 16")                                                   \
    for (guint i = 0; i < MS_WARP_SIZE; i += (N), e += (N) * stride)            \
      {                                                                         \
        VA a;                                                                   \
        memcpy (&a, A + i * sizeof (guint64), sizeof a);                        \
        voff |= a ^ e;                                                          \
      }                                                                         \
    for (guint k = 0; k < (N); k++)                                             \
      off_stride |= voff[k];                                                    \
  } while (0)
          if (MS_CPU_HAS_AVX2 ())
            STRIDE_PASS (4);
          else
            STRIDE_PASS (2);
#undef STRIDE_PASS
          checked = off_stride == 0
                    && progression_checked (a0, stride, lo, W->region.span, size, &bad, &vlow);
        }
      if (!checked && MS_CPU_HAS_AVX2 ())
        {
          if (unrecorded)
            ADDRESS_PASS (4, 0);
          else
            ADDRESS_PASS (4, 1);
        }
      else if (!checked)
        {
          if (unrecorded)
            ADDRESS_PASS (2, 0);
          else
            ADDRESS_PASS (2, 1);
        }
#undef ADDRESS_PASS
#undef LANE_STEPS_4
#undef LANE_STEPS_2
      if ((bad >> 63) != 0 || (vlow & (size - 1)) != 0)
        return 0;
      strided = off_stride == 0;
      if (shared && op == MS_OP_LD)
        {
          guint64 a31 = a0 + (MS_WARP_SIZE - 1) * stride;
          if (strided)
            {
              amin = MIN (a0, a31);
              amax = MAX (a0, a31);
            }
          else
            for (guint i = 0; i < MS_WARP_SIZE; i++)
              {
                amin = MIN (amin, (guintptr) LANE_ADDR (i));
                amax = MAX (amax, (guintptr) LANE_ADDR (i));
              }
        }
    }
  else
    {
      /* a shared access's offsets compared with the race memo's model on
       * the way (one walk over the lanes, not two) */
      static const guint32 no_offsets[MS_WARP_SIZE];
      const guint32 *expect = shared ? ms_racememo_next_offsets (&W->race_memo) : NULL;
      const guint32 *e = expect ? expect : no_offsets;
      guint32 differ = 0;
      FOR_LANES (group, i, {
        guintptr a = (guintptr) LANE_ADDR (i);
        amin = MIN (amin, a);
        amax = MAX (amax, a);
        low |= a;
        acc.addr[i] = vbase + a;
        differ |= (guint32) acc.addr[i] ^ e[i];
      });
      if (expect)
        same_offsets = differ == 0;
      if (amin < lo || amax - lo + size > W->region.span || (low & (size - 1)) != 0)
        return 0;
      one_address = amin == amax;
    }
  /* a read of shared bytes nothing wrote: exec_memory records it */
  /* the span of the lanes' bytes all written: so is every lane's (a
   * broadcast's one word, a row's 128 bytes); else each lane is tested */
  if (shared && op == MS_OP_LD
      && !(size >= 4 && amax - amin + size <= SPAN_WRITTEN_MAX
           && span_written (W->shadow + (amin - lo), amax - amin + size)))
    {
      guint unwritten = 0;
      /* 4-byte words, the usual, with a constant size: inlined tests */
#define UNWRITTEN(SIZE)                                                                  \
  FOR_LANES (group, i,                                                                   \
             unwritten |= !all_written (W->shadow + ((guintptr) LANE_ADDR (i) - lo), SIZE);)
      if (size == 4)
        UNWRITTEN (4);
      else
        UNWRITTEN (size);
#undef UNWRITTEN
      if (unwritten)
        return 0;
    }
  guint32 same_value = 0;
  if (shared && op == MS_OP_ST)
    {
      /* one lane after the other, as exec_memory: a lane storing where an
       * earlier lane of the instruction stored compares with its value */
      gboolean plain = kind == MS_K_ST;
#define SHARED_STORES(SIZE)                                                                   \
  FOR_LANES (group, i, {                                                                     \
    volatile guint8 *a_ = LANE_ADDR (i);                                                      \
    mark_written (W->shadow + ((guintptr) a_ - lo), SIZE);                                    \
    if (plain)                                                                                \
      {                                                                                       \
        same_value |= (guint32) (memcmp ((const void *) a_, LANE_VAL (i), SIZE) == 0) << i;   \
        copy_value ((void *) a_, LANE_VAL (i), SIZE);                                         \
      }                                                                                       \
  })
      if (size == 4 && plain && strided && stride == 4 && vs == 16)
        {
          /* a whole warp storing a row of 32 words: four lanes a vector
           * (lanes on distinct words: their order does not matter) */
          guint8 *row = (guint8 *) LANE_ADDR (0);
          memset (W->shadow + ((guintptr) row - lo), 1, MS_WARP_SIZE * 4);
          for (guint i = 0; i < MS_WARP_SIZE; i += 4)
            {
#ifdef __SSE2__
              /* the four lanes' words gathered in registers (their value
               * slots are 16 bytes): built on the stack word by word, the
               * vector's load stalled on the four stores (perf: 5% of
               * reduce_interleaved's emulator samples on it) */
              __m128i v0 = _mm_loadu_si128 ((const __m128i *) LANE_VAL (i));
              __m128i v1 = _mm_loadu_si128 ((const __m128i *) LANE_VAL (i + 1));
              __m128i v2 = _mm_loadu_si128 ((const __m128i *) LANE_VAL (i + 2));
              __m128i v3 = _mm_loadu_si128 ((const __m128i *) LANE_VAL (i + 3));
              __m128i v = _mm_unpacklo_epi64 (_mm_unpacklo_epi32 (v0, v1),
                                              _mm_unpacklo_epi32 (v2, v3));
              __m128i old = _mm_loadu_si128 ((const __m128i *) (row + 4 * i));
              same_value |= (guint32) _mm_movemask_ps (_mm_castsi128_ps (_mm_cmpeq_epi32 (old, v)))
                            << i;
              _mm_storeu_si128 ((__m128i *) (row + 4 * i), v);
#else
              typedef guint32 V4 __attribute__ ((vector_size (16)));
              V4 v, old;
              for (guint k = 0; k < 4; k++)
                memcpy (&v[k], LANE_VAL (i + k), 4);
              memcpy (&old, row + 4 * i, sizeof old);
              V4 eq = (V4) (old == v) & (V4) { 1, 2, 4, 8 };
              same_value |= (eq[0] | eq[1] | eq[2] | eq[3]) << i;
              memcpy (row + 4 * i, &v, sizeof v);
#endif
            }
        }
      else if (size == 4)
        SHARED_STORES (4);
      else if (size == 1)
        SHARED_STORES (1);   /* a byte histogram's counters: no memcmp call a lane */
      else
        SHARED_STORES (size);
#undef SHARED_STORES
    }
  /* loads only read and stores only write: lockstep semantics; a global
   * load's copy comes after the models (its lines were asked for above);
   * a shared store's values are in place already (SHARED_STORES) */
  gboolean copy = (kind == MS_K_LD && copy_loads) || (kind == MS_K_ST && !shared);
  gboolean copy_late = copy && !shared && op == MS_OP_LD;
#define COPY_ALL_LANES()                                                        \
  do {                                                                          \
    gboolean load = kind == MS_K_LD;                                            \
    switch (size)                                                               \
      {                                                                         \
      case 4: COPY_LANES (guint32); break;                                      \
      case 8: COPY_LANES (guint64); break;                                      \
      case 16: COPY_LANES (guint64[2]); break;                                  \
      case 2: COPY_LANES (guint16); break;                                      \
      default: COPY_LANES (guint8); break;                                      \
      }                                                                         \
  } while (0)
  if (copy && kind == MS_K_ST && strided && stride == size && (size == 4 || size == 8)
      && vs == 16)
    {
      store_row (W, (guint8 *) LANE_ADDR (0), V, size);   /* a whole warp's: strided */
      copy = FALSE;
    }
  if (copy && !copy_late)
    COPY_ALL_LANES ();
  W->race.same_value = same_value;
  if (shared
      && G_UNLIKELY (!ms_racememo_access (&W->race_memo, &W->race, acc.addr, group, size, op,
                                          W->warp, (guint) site->id, same_offsets,
                                          W->error ? NULL : &W->error)))
    return -1;
  if (!unrecorded)
    {
      acc.site = site;
      acc.block = (guint32) W->block;
      acc.warp = W->warp;
      acc.space = (guint8) W->region.space;
      acc.op = (guint8) op;
      acc.width = (guint8) size;
      acc.mask = group;
      if (strided || one_address)
        ms_stride_hint = (MsStrideHint) { &acc, strided ? stride : 0 };
      if (shared)
        emit_shared (W, &acc);
      else
        emit (W, &acc);
      ms_stride_hint.record = NULL;
    }
  if (copy_late)
    COPY_ALL_LANES ();
#undef COPY_ALL_LANES
  if (unrecorded && W->region.space == MS_SPACE_GLOBAL)
    {
      /* where the site's next whole-warp access will likely fall */
      guint b = (guint) MS_VADDR_BUFFER (W->region.vbase);
      guint8 *const *d = W->launch->dirty_pages;
      W->quick[site->id % QUICK_SITES].lo = W->region.lo;
      W->quick[site->id % QUICK_SITES].span = W->region.span;
      W->quick[site->id % QUICK_SITES].dirty = d != NULL && b < W->launch->n_buffers ? d[b] : NULL;
    }
  /* a warp-wide kernel's load: how its lanes may read their values
   * (warp.h, MS_WARP_ROW) */
  if (load_pattern != NULL)
    *load_pattern = kind != MS_K_LD || !strided ? 0
                    : stride == size ? MS_WARP_ROW : stride == 0 ? MS_WARP_BROADCAST : 0;
  return 1;
#undef LANE_ADDR
#undef LANE_VAL
}

static inline int
exec_fast (Worker *W, Lane *warp, guint32 group, const Lane *first, MsOp op)
{
  return exec_fast_view (W, group, first->site, first->kind, first->size, op,
                         (const guint8 *) &warp[0].addr, sizeof (Lane),
                         (guint8 *) warp[0].val, sizeof (Lane), TRUE, NULL);
}

/* Executes the memory operation of the lanes in `group` (all at one site). */
static gboolean in_local (const Worker *W, const volatile void *a, gsize size);

static gboolean
exec_memory (Worker *W, Lane *warp, guint32 group)
{
  MsWarpAccess acc[3];
  guint32 masks[3] = { 0, 0, 0 };
  guint32 same_value = 0;   /* shared stores of the value already there (racecheck.c) */
  const Lane *first = &warp[__builtin_ctz (group)];
  MsOp op = kind_op (first->kind);
  const char *what = op == MS_OP_LD ? "load" : op == MS_OP_ST ? "store" : "atomic";

  W->oob_lanes = 0;
  if (G_UNLIKELY (first->site->id < 0) && ms_site_register (first->site) < 0)
    return fail_at (W, first, MS_EMULATOR_ERROR_RESOURCES,
                    "more than %d memory-access sites in the kernels of this process; split "
                    "the kernel", MS_MAX_SITES);
  /* every lane of a site has the same size (one macro expansion) */
  if (G_UNLIKELY ((first->size & (first->size - 1)) != 0 || first->size > 16))
    return fail_at (W, first, MS_EMULATOR_ERROR_LAUNCH,
                    "a %u-byte %s: the GPU has 1-, 2-, 4-, 8- and 16-byte accesses, and "
                    "nvcc splits this one into several; access the members separately "
                    "(e.g. LD (p[i].x) for a float3)", first->size, what);
  int fast = exec_fast (W, warp, group, first, op);
  if (fast != 0)
    return fast > 0;
  for (guint32 m = group; m; m &= m - 1)
    {
      int i = __builtin_ctz (m);
      Lane *l = &warp[i];
      MsSpace sp;
      guint64 va;
      if (G_UNLIKELY (!classify (W, l, &sp, &va)))
        {
          if (op != MS_OP_ATOMIC && in_local (W, l->addr, l->size))
            {
              /* a generic load or store of the lane's local memory (device
               * code: a local variable whose address a callee got): made,
               * not recorded, as direct local accesses are not */
              if (first->kind == MS_K_LD)
                copy_value (l->val, l->addr, l->size);
              else
                copy_value ((void *) l->addr, l->val, l->size);
              continue;
            }
          if (op == MS_OP_ATOMIC || !W->launch->allow_out_of_bounds
              || ((guintptr) l->addr & (l->size - 1)) != 0
              || !guard_vaddr (W, (const guint8 *) l->addr, l->size, &va))
            return fail_out_of_bounds (W, l, what);
          /* allowed: counted at its address; a load reads zeros, a store
           * is dropped */
          warn_out_of_bounds (W, l, what);
          if (first->kind == MS_K_LD)
            memset (l->val, 0, sizeof l->val);
          W->oob_lanes |= 1u << i;
          acc[MS_SPACE_GLOBAL].addr[i] = va;
          masks[MS_SPACE_GLOBAL] |= 1u << i;
          continue;
        }
      if (G_UNLIKELY (((guintptr) l->addr & (l->size - 1)) != 0))
        return fail_at (W, l, MS_EMULATOR_ERROR_OUT_OF_BOUNDS,
                        "misaligned %u-byte %s (the GPU requires natural alignment)",
                        l->size, what);
      acc[sp].addr[i] = va;
      masks[sp] |= 1u << i;
      /* Shared memory holds garbage on the GPU until the block writes it:
       * reading a byte no thread has written is an error, not a zero (or a
       * race, when another warp writes it later in the epoch: decided at
       * the epoch's end). */
      if (sp == MS_SPACE_SHARED)
        {
          guint8 *sh = W->shadow + va;
          if (op != MS_OP_ST && G_UNLIKELY (!all_written (sh, l->size))
              && !ms_racememo_uninitialised (&W->race_memo, &W->race, (guint) va, l->size,
                                             (guint) (l - W->lanes), l->site,
                                             W->error ? NULL : &W->error))
            return FALSE;
          if (op != MS_OP_LD)
            mark_written (sh, l->size);
          if (first->kind == MS_K_ST && memcmp ((const void *) l->addr, l->val, l->size) == 0)
            same_value |= 1u << i;
        }
      /* Loads only read and stores only write, so doing each lane's in this
       * pass still has every load of the instruction before any later store
       * (lockstep semantics); atomics wait until the pass has checked all. */
      if (first->kind == MS_K_LD)
        copy_value (l->val, l->addr, l->size);
      else if (first->kind == MS_K_ST)
        copy_value ((void *) l->addr, l->val, l->size);
      if (sp == MS_SPACE_GLOBAL && first->kind != MS_K_LD)
        mark_dirty (W, (guint) MS_VADDR_BUFFER (va), MS_VADDR_OFFSET (va));
    }
  /* the race check's record of the shared accesses (racecheck.c) */
  W->race.same_value = same_value;
  if (masks[MS_SPACE_SHARED]
      && G_UNLIKELY (!ms_racememo_access (&W->race_memo, &W->race, acc[MS_SPACE_SHARED].addr,
                                          masks[MS_SPACE_SHARED], first->size, op, W->warp,
                                          (guint) first->site->id, -1,
                                          W->error ? NULL : &W->error)))
    return FALSE;
  for (int sp = 0; sp < 3; sp++)
    if (masks[sp])
      {
        acc[sp].site = first->site;
        acc[sp].block = (guint32) W->block;
        acc[sp].warp = W->warp;
        acc[sp].space = (guint8) sp;
        acc[sp].op = (guint8) op;
        acc[sp].width = first->size;
        acc[sp].mask = masks[sp];
        if (sp == MS_SPACE_SHARED)
          emit_shared (W, &acc[sp]);
        else
          emit (W, &acc[sp]);
      }

  if (first->kind == MS_K_ATOMIC)
    for (guint32 m = group; m; m &= m - 1)
      if (!do_atomic (W, &warp[__builtin_ctz (m)]))
        return FALSE;
  return TRUE;
}

/* A shuffle of the lanes of `group`, their widths, arguments, values and
 * results read through a view (the lane records, or a warp-wide kernel's
 * arrays: warp.h); warp's records give an error its coordinates, and its
 * site (when the records do not hold it). */
static inline __attribute__ ((always_inline)) gboolean
exec_shfl_view (Worker *W, Lane *warp, const MsSite *site, guint32 group, guint sub,
                const guint8 *width, gsize ws,
                const guint8 *arg, gsize as, const guint8 *val, gsize vs, guint8 *res, gsize rs)
{
  /* Each lane's result is another lane's value: results (res) and values
   * (val) are separate fields, so one pass reads and writes; values are 4
   * or 8 bytes (ms_lane_shfl, ms_shfl): val[0].  One site is one kind of
   * shuffle: a loop for each kind, SRC the lane that lane i reads. */
#define SHFL_ARG(i) (*(const int *) (arg + (gsize) (i) * as))
#define SHFL_COPY(i, src) memcpy (res + (gsize) (i) * rs, val + (gsize) (src) * vs, sizeof (guint64))
  if (group == 0xffffffffu && width[0] == 32 && (guint) SHFL_ARG (0) < 32)
    {
      /* a whole warp, every lane of width 32 and argument a (a constant
       * in the source, nearly always: __shfl_xor_sync (~0u, v, 16)): each
       * lane reads a lane of the warp, by a closed form */
      int a = SHFL_ARG (0);
      guint diff = 0;
      for (int i = 0; i < MS_WARP_SIZE; i++)   /* 32 steps: vectorised */
        diff |= (guint) (width[(gsize) i * ws] ^ 32) | (guint) (SHFL_ARG (i) ^ a);
      if (diff == 0)
        {
          /* unrolled: a lane's copy is then an index, a load and a store */
#define SHFL_ALL(SRC) _Pragma ("GCC unroll 32") for (int i = 0; i < MS_WARP_SIZE; i++) SHFL_COPY (i, SRC)
          switch (sub)   /* a loop for each kind: the kind a constant */
            {
            case MS_SHFL_IDX: SHFL_ALL (MS_SHFL_SOURCE (MS_SHFL_IDX, i, a)); break;
            case MS_SHFL_UP: SHFL_ALL (MS_SHFL_SOURCE (MS_SHFL_UP, i, a)); break;
            case MS_SHFL_DOWN: SHFL_ALL (MS_SHFL_SOURCE (MS_SHFL_DOWN, i, a)); break;
            default: SHFL_ALL (MS_SHFL_SOURCE (MS_SHFL_XOR, i, a)); break;
            }
#undef SHFL_ALL
          return TRUE;
        }
    }
#define SHFL_LANES(SRC)                                                                 \
  for (guint32 m = group; m; m &= m - 1)                                                \
    {                                                                                   \
      int i = __builtin_ctz (m);                                                        \
      int w = width[(gsize) i * ws], seg = i & ~(w - 1), src = (SRC);                   \
      if (src < 0 || src > 31 || !(group & (1u << src)))                                \
        {                                                                               \
          if (site != NULL)                                                             \
            warp[i].site = site;                                                        \
          return fail_at (W, &warp[i], MS_EMULATOR_ERROR_DEADLOCK,                      \
                          "__shfl reads lane %d, which is not taking part (exited, "    \
                          "diverged or not in the mask)", src);                        \
        }                                                                               \
      SHFL_COPY (i, src);                                                               \
    }
  switch (sub)
    {
    case MS_SHFL_IDX: SHFL_LANES (seg + (SHFL_ARG (i) & (w - 1))); break;
    case MS_SHFL_UP: SHFL_LANES ((i - seg) >= SHFL_ARG (i) ? i - SHFL_ARG (i) : i); break;
    case MS_SHFL_DOWN: SHFL_LANES ((i - seg) + SHFL_ARG (i) < w ? i + SHFL_ARG (i) : i); break;
    default: SHFL_LANES ((i ^ SHFL_ARG (i)) >= seg + w ? i : i ^ SHFL_ARG (i)); break;
    }
#undef SHFL_COPY
#undef SHFL_LANES
#undef SHFL_ARG
  return TRUE;
}

static gboolean
exec_shfl (Worker *W, Lane *warp, guint32 group)
{
  return exec_shfl_view (W, warp, NULL, group, warp[__builtin_ctz (group)].sub, &warp[0].width,
                         sizeof (Lane), (const guint8 *) &warp[0].arg, sizeof (Lane),
                         (const guint8 *) warp[0].val, sizeof (Lane), (guint8 *) warp[0].res,
                         sizeof (Lane));
}

static void
exec_vote (Lane *warp, guint32 group)
{
  guint32 ballot = 0;
  for (guint32 m = group; m; m &= m - 1)
    {
      int i = __builtin_ctz (m);
      if (warp[i].arg && (warp[i].sub == MS_VOTE_ACTIVEMASK || (warp[i].mask & (1u << i))))
        ballot |= 1u << i;
    }
  for (guint32 m = group; m; m &= m - 1)
    {
      Lane *l = &warp[__builtin_ctz (m)];
      guint32 in_mask = l->sub == MS_VOTE_ACTIVEMASK ? group : (l->mask & group);
      switch (l->sub)
        {
        case MS_VOTE_BALLOT: l->res[0] = ballot & in_mask; break;
        case MS_VOTE_ANY: l->res[0] = (ballot & in_mask) != 0; break;
        case MS_VOTE_ALL: l->res[0] = (ballot & in_mask) == in_mask; break;
        default: l->res[0] = group; break;
        }
    }
}

/* Lanes of the warp that a collective of `mask` must wait for. */
static inline guint32
live_lanes (const Lane *warp, guint n)
{
  guint32 live = 0;
  for (guint i = 0; i < n; i++)
    if (warp[i].state != MS_LANE_DONE)
      live |= 1u << i;
  return live;
}

/* The block has run BLOCK_OP_LIMIT instructions: TRUE, and the count
 * starts again, when it wrote memory since the count last started (a long
 * loop: PolyBench's correlation runs 2^28 warp instructions a block);
 * FALSE when it did not (a spin-wait: it only reads, or fails to swap). */
static gboolean
block_wrote (Worker *W)
{
  if (!W->ctl.wrote)
    return FALSE;
  W->ctl.wrote = FALSE;
  W->ctl.block_ops = 0;
  return TRUE;
}

/* Lanes `group` (first the lowest) ran the instruction of site order
 * `best` while lanes `others` of their warp waited at later sites.  FALSE,
 * the error set, when the same lanes ran the same site SPIN_LIMIT times in
 * a row that way (a spin-wait on a lane of the same warp), or when the
 * block has run BLOCK_OP_LIMIT instructions. */
static inline G_ALWAYS_INLINE gboolean
count_instruction (Worker *W, const Lane *first, const MsSite *site, int best, guint32 group,
                   guint32 others)
{
  SpinWatch *spin = &W->spin[W->warp];   /* kept across rounds */
  if (G_UNLIKELY (others != 0) && best == spin->best && group == spin->group)
    {
      if (G_UNLIKELY (++spin->repeats > SPIN_LIMIT))
        return fail_at_site (W, first, site, MS_EMULATOR_ERROR_DEADLOCK,
                        "lanes ran this site %u times in a row while other lanes of "
                        "their warp waited at a later one: a spin-wait on a lane of the "
                        "same warp (e.g. a lock)? The emulator runs the lanes at the "
                        "earliest site first, so such a lock never opens "
                        "(docs/model.md)", spin->repeats);
    }
  else if (G_UNLIKELY (others != 0))
    {
      spin->best = best;
      spin->group = group;
      spin->repeats = 0;
    }
  if (G_UNLIKELY (++W->ctl.block_ops > BLOCK_OP_LIMIT) && !block_wrote (W))
    return fail_at_site (W, first, site, MS_EMULATOR_ERROR_DEADLOCK,
                    "the block executed %" G_GUINT64_FORMAT " warp-level instructions "
                    "without finishing or writing memory: a spin-wait? (docs/model.md)",
                    W->ctl.block_ops);
  return TRUE;
}

/* Runs one warp until all its lanes have exited, wait at a barrier or wait
 * at a collective that cannot complete yet. */
typedef enum {
  WARP_CONTINUE,   /* lanes are where the last round left them */
  WARP_RELEASE,    /* the block's barrier has released: waiting lanes go on */
  WARP_START,      /* a new block: every lane starts the kernel */
} WarpRound;

/* (Each warp's lanes are set up here rather than in a sweep over the whole
 * block, so a lane's record is touched once per round, while hot.) */
static gboolean
run_warp (Worker *W, Lane *warp, guint n, WarpRound round)
{
  guint32 ready = 0, waiting = 0;   /* lanes to run; lanes stopped at an op */
  guint ops = 0;
  /* (masks built without branches: every lane of every warp passes here
   * at each barrier) */
  guint8 released = round == WARP_START ? MS_LANE_READY
                    : round == WARP_RELEASE ? MS_LANE_AT_BARRIER : 0xff;
  for (guint i = 0; i < n; i++)
    {
      Lane *l = &warp[i];
      guint8 state = l->state;
      if (round == WARP_START || state == released)
        l->state = state = MS_LANE_READY;
      W->ctl.order[i] = state == MS_LANE_AT_OP ? l->site->order : MS_NO_ORDER;
      ready |= (guint32) (state == MS_LANE_READY) << i;
      waiting |= (guint32) (state == MS_LANE_AT_OP) << i;
    }
  for (;;)
    {
      /* Run the ready lanes (one hand-over chain); they report where they
       * stopped, so when no other lane was waiting the next instruction is
       * known without a scan (the common, converged case). */
      gboolean known = FALSE;
      if (ready != 0)
        {
          W->ctl.step_best = MS_NO_ORDER;
          W->ctl.step_group = W->ctl.step_stopped = 0;
          resume (W, &warp[__builtin_ctz (ready)]);
          if (G_UNLIKELY (W->error != NULL))
            return FALSE;
          known = waiting == 0;
          waiting |= W->ctl.step_stopped;
        }

      /* Candidate sites in textual order: the earliest runnable one wins. */
      int floor_order = -1;
      for (;;)
        {
          int best = MS_NO_ORDER;
          guint32 group = 0;
          if (known)
            {
              best = W->ctl.step_best;
              group = W->ctl.step_group;
              known = FALSE;
            }
          else
            for (guint i = 0; i < n; i++)
              {
                int o = W->ctl.order[i];
                if (o <= floor_order || o > best)
                  continue;
                if (o < best)
                  {
                    best = o;
                    group = 0;
                  }
                group |= 1u << i;
              }
          if (best == MS_NO_ORDER)
            return TRUE;   /* nothing runnable: done, at barrier or blocked */

          Lane *first = &warp[__builtin_ctz (group)];
          switch (first->kind)
            {
            case MS_K_LD:
            case MS_K_ST:
            case MS_K_ATOMIC:
              if (!exec_memory (W, warp, group))
                return FALSE;
              break;
            case MS_K_SHFL:
            case MS_K_VOTE:
            case MS_K_SYNCWARP:
              {
                /* A collective waits for the live lanes of its masks; a
                 * __syncwarp is met by lanes at any __syncwarp. */
                guint32 need = 0, have = group;
                FOR_LANES (group, i, need |= warp[i].mask;);
                /* (a mask the group covers needs no look at the others:
                 * the usual whole-warp shuffle) */
                if ((need & ~group) != 0 || first->kind == MS_K_SYNCWARP)
                  need &= live_lanes (warp, n);
                if (first->kind == MS_K_VOTE && first->sub == MS_VOTE_ACTIVEMASK)
                  need = group;
                if (first->kind == MS_K_SYNCWARP)
                  for (guint i = 0; i < n; i++)
                    if (warp[i].state == MS_LANE_AT_OP && warp[i].kind == MS_K_SYNCWARP)
                      have |= 1u << i;
                if ((need & have) != need)
                  {
                    floor_order = best;   /* not ready: try a later site */
                    continue;
                  }
                if (first->kind == MS_K_SYNCWARP)
                  {
                    group |= need;
                    ms_racecheck_syncwarp (&W->race, W->warp);
                  }
                else if (first->kind == MS_K_SHFL && !exec_shfl (W, warp, group))
                  return FALSE;
                else if (first->kind == MS_K_VOTE)
                  exec_vote (warp, group);
              }
              break;
            default:
              g_assert_not_reached ();
            }
          FOR_LANES (group, i, {
            warp[i].state = MS_LANE_READY;
            W->ctl.order[i] = MS_NO_ORDER;
          });
          ready = group;
          waiting &= ~group;
          if (!count_instruction (W, first, first->site, best, group, waiting & ~group))
            return FALSE;
          if (G_UNLIKELY (++ops == WARP_BUDGET))
            {
              W->yielded = TRUE;   /* let the other warps run; back next round */
              return TRUE;
            }
          break;
        }
    }
}

/* ------------------------------------------------- straight runs (direct.h) */

const MsDirectRegion *
ms_direct_region (MsDirect *d, const volatile void *p, unsigned size, int store)
{
  Worker *W = cur_worker;
  const guint8 *a = (const guint8 *) p;
  int b = size <= 16 && naturally_aligned (a, size) ? buffer_holding (W, a, size) : -1;
  if (b < 0)
    {
      ms_direct_abandon ();
      return &d->st;   /* (never reached) */
    }
  MsDirectRegion r = { W->buf_base[b], W->buf_bytes[b], (guint64) (b + 1) << MS_BUFFER_SHIFT,
                       1u << b };
  if (store)
    {
      d->st = r;
      return &d->st;
    }
  d->ld[1] = d->ld[0];
  d->ld[0] = r;
  return &d->ld[0];
}

/* (A switch, not a longjmp: AddressSanitizer warns on a longjmp within a
 * stack it does not know, and the fiber is made anew anyway.) */
void
ms_direct_abandon (void)
{
  Worker *W = cur_worker;
  ms_direct = NULL;
  W->direct_ran = FALSE;
  ms_fiber_switch (&W->direct_fiber, &W->ctl.sched);
  /* never resumed: run_direct makes the fiber anew (and nothing here may
   * let the compiler infer noreturn, direct.h says why) */
}

/* a note's top byte holds its size and kind (direct.h) */
G_STATIC_ASSERT ((guint64) (MS_MAX_BUFFERS + 1) << MS_BUFFER_SHIFT <= G_GUINT64_CONSTANT (1) << 56);

/* The host address of virtual address va (a buffer's: direct.h checked). */
static inline guint8 *
direct_host (const Worker *W, guint64 va)
{
  return W->buf_base[MS_VADDR_BUFFER (va)] + MS_VADDR_OFFSET (va);
}

/* The addresses of the first n lanes' notes at one step (`note`: lane 0's,
 * each lane's MS_DIRECT_CHUNK notes after the last's) into addr, and 0 if
 * every one of them is at `site` (inlined: a constant n is unrolled). */
static inline __attribute__ ((always_inline)) guintptr
lanes_at (const MsDirectNote *note, guint n, const MsSite *site, guint64 *addr)
{
  guintptr other = 0;
#pragma GCC unroll 32
  for (guint i = 0; i < n; i++)
    {
      addr[i] = MS_DIRECT_VADDR (&note[i * MS_DIRECT_CHUNK]);
      other |= (guintptr) note[i * MS_DIRECT_CHUNK].site ^ (guintptr) site;
    }
  return other;
}

/* Executes the notes of the lanes in `group`, lane i's at step cur[i]: the
 * record of the warp access, and a store's values in lane order.  When
 * converged, every lane's at step cur[0], unless one of them is at another
 * site than the first: then nothing is done.  1: done; 0: that; -1: failed
 * (W->error). */
static int
direct_exec (Worker *W, const MsDirect *d, Lane *warp, guint32 group, const guint16 *cur,
             gboolean converged)
{
  guint f = __builtin_ctz (group);
  const MsDirectNote *n0 = &d->note[ms_direct_at (cur[f], f)];
  const MsSite *site = n0->site;
  MsWarpAccess acc;
  guint size = MS_DIRECT_SIZE (n0);
  gboolean store = MS_DIRECT_STORE (n0);
  /* every lane of the warp at step cur[0] when converged: lane i's note is
   * MS_DIRECT_CHUNK notes after lane i - 1's */
  guint n = 32 - __builtin_clz (group);
  const MsDirectNote *note = &d->note[ms_direct_at (cur[0], 0)];
  const guint64 (*val)[2] = &d->val[ms_direct_at (cur[0], 0)];
  if (converged)
    {
      /* a constant count for a whole warp: unrolled */
      if ((n == 32 ? lanes_at (note, 32, site, acc.addr) : lanes_at (note, n, site, acc.addr))
          != 0)
        return 0;
    }
  else
    for (guint32 m = group; m; m &= m - 1)
      {
        guint i = __builtin_ctz (m);
        acc.addr[i] = MS_DIRECT_VADDR (&d->note[ms_direct_at (cur[i], i)]);
      }
  if (G_UNLIKELY (site->id < 0) && ms_site_register (site) < 0)
    {
      fail_at (W, &warp[f], MS_EMULATOR_ERROR_RESOURCES,
               "more than %d memory-access sites in the kernels of this process; split the "
               "kernel", MS_MAX_SITES);
      return -1;
    }
  if (store && converged && size == 4)   /* the usual: its own loop, no switch a lane */
    for (guint i = 0; i < n; i++)
      copy_value (direct_host (W, acc.addr[i]), val[i * MS_DIRECT_CHUNK], 4);
  else if (store && converged)
    for (guint i = 0; i < n; i++)
      copy_value (direct_host (W, acc.addr[i]), val[i * MS_DIRECT_CHUNK], size);
  else if (store)
    for (guint32 m = group; m; m &= m - 1)
      {
        guint i = __builtin_ctz (m);
        copy_value (direct_host (W, acc.addr[i]), d->val[ms_direct_at (cur[i], i)], size);
      }
  acc.site = site;
  acc.block = (guint32) W->block;
  acc.warp = W->warp;
  acc.space = MS_SPACE_GLOBAL;
  acc.op = store ? MS_OP_ST : MS_OP_LD;
  acc.width = (guint8) size;
  acc.mask = group;
  emit (W, &acc);
  return 1;
}

/* The fiber scheduler's order over the notes (run_warp), from step `from`
 * of every lane on: each step, the lanes whose next access has the
 * earliest site order.  Counts the steps when exec is FALSE; runs them when
 * TRUE (FALSE on an error). */
static gboolean
direct_replay (Worker *W, const MsDirect *d, Lane *warp, const guint16 *len, guint n,
               guint from, gboolean exec, guint *ops)
{
  guint16 cur[32];
  guint32 live = 0;
  for (guint i = 0; i < n; i++)
    {
      cur[i] = (guint16) from;
      live |= (guint32) (len[i] > from) << i;
    }
  *ops = 0;
  while (live != 0)
    {
      int best = G_MAXINT;
      guint32 group = 0;
      for (guint32 m = live; m; m &= m - 1)
        {
          guint i = __builtin_ctz (m);
          int o = d->note[ms_direct_at (cur[i], i)].site->order;
          if (o < best)
            best = o, group = 0;
          if (o == best)
            group |= 1u << i;
        }
      if (exec && direct_exec (W, d, warp, group, cur, FALSE) < 0)
        return FALSE;
      for (guint32 m = group; m; m &= m - 1)
        {
          guint i = __builtin_ctz (m);
          if (++cur[i] == len[i])
            live &= ~(1u << i);
        }
      ++*ops;
    }
  return TRUE;
}

/* 0 if the m notes of run a are at the sites of run b's (inlined: a
 * constant m is unrolled). */
static inline __attribute__ ((always_inline)) guintptr
run_sites_differ (const MsDirectNote *a, const MsDirectNote *b, guint m)
{
  guintptr other = 0;
  for (guint k = 0; k < m; k++)
    other |= (guintptr) a[k].site ^ (guintptr) b[k].site;
  return other;
}

/* Whether each of the n lanes' `len` accesses is at lane 0's site of the
 * same step: then the warp takes `len` steps, each one access of all
 * (run_direct's count of a long warp's steps). */
static gboolean
direct_converged (const MsDirect *d, guint len, guint n)
{
  guint64 other = 0;
  for (guint c = 0; c < len; c += MS_DIRECT_CHUNK)
    {
      const MsDirectNote *lane0 = &d->note[ms_direct_at (c, 0)];
      guint m = MIN (MS_DIRECT_CHUNK, len - c);
      for (guint i = 1; i < n; i++)   /* a whole run, a constant count: unrolled */
        {
          const MsDirectNote *run = &lane0[i * MS_DIRECT_CHUNK];
          other |= m == MS_DIRECT_CHUNK ? run_sites_differ (run, lane0, MS_DIRECT_CHUNK)
                                        : run_sites_differ (run, lane0, m);
        }
    }
  return other == 0;
}

/* Whether the bytes the warp's lanes load and the bytes they store (the
 * span from the lowest to the highest of each) overlap. */
static gboolean
direct_overlap (const MsDirect *d, const guint16 *len, guint n)
{
  guint64 ld_min = G_MAXUINT64, ld_max = 0, st_min = G_MAXUINT64, st_max = 0;
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < len[i]; k++)
      {
        const MsDirectNote *s = &d->note[ms_direct_at (k, i)];
        guint64 a = MS_DIRECT_VADDR (s), e = a + MS_DIRECT_SIZE (s);
        if (MS_DIRECT_STORE (s))
          st_min = MIN (st_min, a), st_max = MAX (st_max, e);
        else
          ld_min = MIN (ld_min, a), ld_max = MAX (ld_max, e);
      }
  return ld_min < st_max && st_min < ld_max;
}

/* Prefetches what the next two straight warps will probably load: lane
 * 0's first loads stepped on by the step since the last warp's (a naive
 * transpose's warps read rows a row apart).  Each lane's first load comes
 * at once, so the warp waited a whole memory latency on it, several times
 * a warp; a wrong guess (a block's first warp) costs two useless
 * prefetches.  A hint only: nothing it does changes a value or a count. */
static void
direct_prefetch (Worker *W, guint ops)
{
  const MsDirect *d = &W->direct;
  for (guint k = 0; k < MIN (ops, DIRECT_PREFETCH_STEPS); k++)
    {
      const MsDirectNote *s = &d->note[ms_direct_at (k, 0)];
      const MsDirectRegion *r = &d->ld[0];
      guint64 va = MS_DIRECT_VADDR (s);
      if (MS_DIRECT_STORE (s))
        continue;
      if (va - r->vbase >= r->span)
        r = &d->ld[1];
      guint64 off = va - r->vbase;
      if (off >= r->span)
        continue;
      /* unsigned arithmetic: the step may come from another buffer */
      guintptr p = (guintptr) r->lo + off, step = p - W->direct_last_load[k];
      W->direct_last_load[k] = p;
      for (guintptr j = 1; j <= 2; j++)
        {
          /* in the buffer: no prefetch of an unmapped page (a TLB walk) */
          guintptr q = off + j * step;
          if (q < r->span)
            {
              __builtin_prefetch ((const void *) ((guintptr) r->lo + q));
              __builtin_prefetch ((const void *) ((guintptr) r->lo + q + 64));
            }
        }
    }
}

/* The straight run's fiber: runs the lanes of W->direct_warp one after the
 * other, each to its end, noting its accesses.  On a stack of the pool (not
 * the worker's own), so a kernel has the stack it has on fibers, and a
 * stack overflow is reported the same way. */
static void
direct_main (void *arg)
{
  Worker *W = arg;
  MsDirect *d = &W->direct;
  for (;;)
    {
      ms_direct = d;
      W->direct_uneven = FALSE;
      W->direct_total = 0;
      for (guint i = 0; i < W->direct_n; i++)
        {
          Lane *l = &W->direct_warp[i];
          d->lane = i;
          d->n = 0;
          d->at = ms_direct_at (0, i);
          ms_cur_lane = l;
          ms_self = &l->thread_idx;
          W->launch->entry (&W->launch->args);
          W->direct_len[i] = (guint16) d->n;
          W->direct_total += d->n;
          W->direct_uneven |= d->n != W->direct_len[0];
        }
      ms_direct = NULL;
      W->direct_ran = TRUE;
      ms_fiber_switch (&W->direct_fiber, &W->ctl.sched);
    }
}

/* Runs the n lanes of a new block's warp straight through (direct.h).
 * 1: done, every lane exited; 0: abandoned, nothing happened (run it on
 * fibers); -1: failed (W->error). */
static guint64 direct_warps;   /* warps run straight through, this process */

guint64
ms_emulator_direct_warps (void)
{
  return __atomic_load_n (&direct_warps, __ATOMIC_RELAXED);
}

static int
run_direct (Worker *W, Lane *warp, guint n)
{
  MsDirect *d = &W->direct;
  if (d->note == NULL)
    {
      /* only the steps a warp uses are touched; aligned, so that a lane's
       * run of notes is two host cache lines of its own */
      gsize notes = (gsize) (MS_DIRECT_STEPS + MS_DIRECT_CHUNK - 1) / MS_DIRECT_CHUNK
                    * MS_DIRECT_RUNS;   /* every run, the last one whole */
      d->note = g_aligned_alloc (notes, sizeof *d->note, 64);
      d->val = g_aligned_alloc (notes, sizeof *d->val, 64);
    }
  d->ld_bufs = d->st_bufs = 0;
  W->direct_warp = warp;
  W->direct_n = n;
  ms_fiber_switch (&W->ctl.sched, &W->direct_fiber);
  if (!W->direct_ran)
    {
      /* abandoned in the middle of a lane: start the fiber afresh */
      ms_fiber_init (&W->direct_fiber, W->pool, ms_stack_pool_size (W->pool) - 1, direct_main, W);
      if (++W->direct_abandoned > W->direct_done + 8)
        W->direct_off = TRUE;   /* e.g. a kernel with barriers: stop trying */
      return 0;
    }
  const guint16 *len = W->direct_len;
  direct_prefetch (W, len[0]);

  /* a load of bytes the warp stores could read another value on fibers */
  if ((d->ld_bufs & d->st_bufs) != 0 && direct_overlap (d, len, n))
    {
      W->direct_abandoned++;
      return 0;
    }
  /* run_warp lets other warps go after WARP_BUDGET steps, and stops a
   * block at BLOCK_OP_LIMIT: then the fibers' order is another one.  A
   * step advances a lane at least, so the lanes' accesses bound the steps;
   * past the limits the steps are counted. */
  guint ops = W->direct_total;
  if (ops >= WARP_BUDGET || W->ctl.block_ops + ops > BLOCK_OP_LIMIT)
    {
      if (W->direct_uneven || !direct_converged (d, len[0], n))
        direct_replay (W, d, warp, len, n, 0, FALSE, &ops);
      else
        ops = len[0];
      if (ops >= WARP_BUDGET || W->ctl.block_ops + ops > BLOCK_OP_LIMIT)
        {
          W->direct_abandoned++;
          return 0;
        }
    }
  /* The steps run in lockstep until one finds a lane at another site than
   * the first lane, and from there in the fibers' order, which up to there
   * took every lane at each step too. */
  guint32 group = n == 32 ? 0xffffffffu : (1u << n) - 1;
  guint16 cur[32];
  guint k = 0, more = 0;
  for (; !W->direct_uneven && k < len[0]; k++)
    {
      cur[0] = (guint16) k;
      int done = direct_exec (W, d, warp, group, cur, TRUE);
      if (done < 0)
        return -1;
      if (done == 0)
        break;
    }
  if ((W->direct_uneven || k < len[0]) && !direct_replay (W, d, warp, len, n, k, TRUE, &more))
    return -1;
  W->ctl.block_ops += k + more;
  for (guint i = 0; i < n; i++)
    {
      warp[i].state = MS_LANE_DONE;
      W->ctl.order[i] = MS_NO_ORDER;
    }
  W->n_done += n;
  W->direct_done++;
  return 1;
}

static gboolean run_block_warps (Worker *W, guint n);

/* Lanes a and b wait at different __syncthreads: the deadlock error. */
static gboolean
barrier_mismatch (Worker *W, const Lane *a, const Lane *b)
{
  char where[96];
  thread_coords (a, where, sizeof where);
  return fail_at (W, b, MS_EMULATOR_ERROR_DEADLOCK,
                  "deadlock: threads of the block wait at different __syncthreads "
                  "(%s waits at line %d); make every thread reach the same barrier",
                  where, a->site->line);
}

/* The block passed a barrier: the race check's accesses are ordered, and
 * bar.red's sums for the next one start at nothing. */
static void
barrier_passed (Worker *W)
{
  ms_racecheck_barrier (&W->race);
  /* the block's warps leave a barrier together, when the last arrives:
   * their clocks read alike after it */
  double last = 0;
  for (guint w = 0; w < G_N_ELEMENTS (W->clock); w++)
    last = MAX (last, W->clock[w]);
  for (guint w = 0; w < G_N_ELEMENTS (W->clock); w++)
    W->clock[w] = last;
  W->barriers++;
  W->bar_red[W->barriers & 1].lanes = W->bar_red[W->barriers & 1].trues = 0;
}

/* Every lane of the block is done, waits at a __syncthreads, or waits at a
 * collective: a deadlock is the error (-1); else the barrier releases its
 * lanes (1), or every lane has exited (0). */
static int
release_barrier (Worker *W, guint n)
{
  const Lane *at_barrier = NULL, *blocked = NULL, *other_barrier = NULL;
  for (guint t = 0; t < n; t++)
    {
      const Lane *l = &W->lanes[t];
      if (l->state == MS_LANE_AT_BARRIER)
        {
          if (at_barrier == NULL)
            at_barrier = l;
          else if (!ms_same_barrier (l->site, at_barrier->site) && other_barrier == NULL)
            other_barrier = l;
        }
      else if (l->state == MS_LANE_AT_OP && blocked == NULL)
        blocked = l;
    }
  if (blocked != NULL)
    return fail_at (W, blocked, MS_EMULATOR_ERROR_DEADLOCK,
                    "deadlock: a warp collective waits for lanes that never arrive "
                    "(they exited or wait at a __syncthreads)") ? 1 : -1;
  if (other_barrier != NULL)
    return barrier_mismatch (W, at_barrier, other_barrier) ? 1 : -1;
  if (at_barrier == NULL)
    return 0;
  if (!end_epoch (W))
    return -1;
  barrier_passed (W);
  for (guint t = 0; t < n; t++)
    if (W->lanes[t].state == MS_LANE_AT_BARRIER)
      W->lanes[t].state = MS_LANE_READY;
  return 1;
}

static gboolean
run_block (Worker *W, guint64 b)
{
  const MsLaunchArgs *A = &W->launch->args;
  guint bx = A->block[0], by = A->block[1], bz = A->block[2];
  guint n = bx * by * bz;
  uint3 bidx = { (unsigned) (b % A->grid[0]), (unsigned) (b / A->grid[0] % A->grid[1]),
                 (unsigned) (b / ((guint64) A->grid[0] * A->grid[1])) };
  uint3 bdim = { bx, by, bz }, gdim = { A->grid[0], A->grid[1], A->grid[2] };

  W->block = b;
  W->barriers = 0;
  memset (W->bar_red, 0, sizeof W->bar_red);
  ms_shared_block++;   /* the declarations' remembered arrays are the last block's */
  memset (W->shared, 0, W->shared_used);
  memset (W->shadow, 0, W->shared_used);
  W->shared_used = 0;
  W->n_shared_arrays = 0;
  W->dynamic_declared = FALSE;
  W->reserved = FALSE;
  ms_block = W->block_info = (MsBlockInfo) { bidx, bdim, gdim };
  ms_racecheck_block_begin (&W->race, b, (const guint[3]) { bidx.x, bidx.y, bidx.z },
                            A->block);
  ms_racememo_block_begin (&W->race_memo, &W->race);
  W->region.span = W->other.span = 0;
  W->n_done = W->ctl.n_barrier = 0;
  W->ctl.block_ops = 0;
  W->ctl.wrote = FALSE;
  memset (W->spin, 0, sizeof W->spin);
  memset (W->polls, 0, sizeof W->polls);
  memset (W->clock, 0, sizeof W->clock);
  memset (W->warp_runtime, 0, sizeof W->warp_runtime);
  W->ctl.barrier_site = NULL;
  W->ctl.barrier_mismatch = FALSE;

  if (W->launch->warp_entry)
    {
      if (W->launch->block_entry == NULL)
        {
          W->warp_entry = W->launch->warp_entry;
          return run_block_warps (W, n);
        }
      W->warp_entry = W->launch->block_entry (W->launch->block_entry_data, W->block);
      gboolean ok = run_block_warps (W, n);
      W->launch->block_done (W->launch->block_entry_data);
      return ok;
    }

  guint n_warps = (n + 31) / 32;
  WarpRound round = WARP_START;
  for (;;)
    {
      for (guint w = 0; w < n_warps; w++)
        {
          guint nw = MIN (32, n - w * 32);
          W->warp = (guint16) w;
          W->ctl.warp_end = &W->lanes[w * 32 + nw];
          if (round == WARP_START && !W->direct_off)
            {
              int r = run_direct (W, &W->lanes[w * 32], nw);
              if (r < 0)
                return FALSE;
              if (r > 0)
                continue;
            }
          if (!run_warp (W, &W->lanes[w * 32], nw, round))
            return FALSE;
        }
      round = WARP_CONTINUE;
      if (W->n_done == n)
        break;
      if (W->n_done + W->ctl.n_barrier == n && !W->ctl.barrier_mismatch)
        {
          W->ctl.n_barrier = 0;
          round = WARP_RELEASE;
          if (!end_epoch (W))
            return FALSE;
          barrier_passed (W);
          continue;
        }
      if (W->yielded)
        {
          W->yielded = FALSE;   /* some warp has more to do: another round */
          continue;
        }
      int r = release_barrier (W, n);
      if (r < 0)
        return FALSE;
      if (r == 0)
        break;   /* all threads exited */
    }
  return end_epoch (W);
}

/* ------------------------------------------------- warp-wide kernels (warp.h) */

/* A warp's fiber runs the warp-wide kernel once per block it is given. */
static void
warp_main (void *arg)
{
  guint w = GPOINTER_TO_UINT (arg);
  for (;;)
    {
      Worker *W = cur_worker;
      W->warp_entry (&W->launch->args);
      W->warp_state[w] = MS_LANE_DONE;
      ms_fiber_switch (&W->warp_fiber[w], &W->ctl.sched);
    }
}

/* After an error (W->error set): back to the scheduler, never to return
 * (the worker stops).  Nothing here may let the compiler infer noreturn:
 * AddressSanitizer then cleans up "the stack" before the call, and on a
 * warp's fiber, a stack it does not know, warns of false reports. */
static void
warp_stop_forever (Worker *W)
{
  while (W->error != NULL)
    ms_fiber_switch (&W->warp_fiber[W->warp], &W->ctl.sched);
}

/* For device code (sim/ptx/ptx-warp.h): a warp-wide kernel's failure
 * (an instruction memsim cannot run), its warp's index, a clock, and its
 * lanes' local memory (a buffer per warp of the worker, kept for the
 * next block). */
/* The launch fails with message (the first failure's stays). */
static void
launch_fails (Worker *W, const char *message)
{
  if (W->error == NULL)
    g_set_error (&W->error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH, "%s: %s",
                 W->launch->kernel, message);
}

void
ms_ptx_fail (const char *message)
{
  Worker *W = cur_worker;
  launch_fails (W, message);
  warp_stop_forever (W);
  g_assert_not_reached ();
}

unsigned
ms_ptx_warp_index (void)
{
  return cur_worker->warp;
}

double *
ms_ptx_warp_clock (void)
{
  Worker *W = cur_worker;
  return &W->clock[W->warp];
}

const double *
ms_ptx_block_cycles (void)
{
  return cur_worker->launch->block_cycles;
}

uint64_t
ms_ptx_globaltimer (double cycles)
{
  double ghz = cur_worker->launch->clock_ghz;
  return (uint64_t) (cycles / (ghz > 0 ? ghz : 1.0));
}

uint64_t *
ms_ptx_block_counts (unsigned n)
{
  Worker *W = cur_worker;
  if (W->n_block_counts < n)
    {
      W->block_counts = g_renew (guint64, W->block_counts, n);
      memset (W->block_counts + W->n_block_counts, 0, (n - W->n_block_counts) * sizeof (guint64));
      W->n_block_counts = n;
    }
  return W->block_counts;
}

void
ms_ptx_bar_red_lane (int pred)
{
  Worker *W = cur_worker;
  W->bar_red[W->barriers & 1].lanes++;
  W->bar_red[W->barriers & 1].trues += pred != 0;
}

uint32_t
ms_ptx_bar_red_result (int op)
{
  Worker *W = cur_worker;
  const guint32 lanes = W->bar_red[(W->barriers - 1) & 1].lanes;
  const guint32 trues = W->bar_red[(W->barriers - 1) & 1].trues;
  return op == 0 ? trues : op == 1 ? trues == lanes : trues > 0;
}

/* Whether [a, a + size) lies in the running warp's local memory. */
static gboolean
in_local (const Worker *W, const volatile void *a, gsize size)
{
  const guint8 *p = (const guint8 *) a, *lo = W->local_mem[W->warp];
  return lo != NULL && p >= lo && (gsize) (p - lo) + size <= W->local_bytes[W->warp];
}

/* A warp's buffer *mem of *have bytes, at least `bytes` now (zeroed when
 * it grows) */
static guint8 *
warp_buffer (guint8 **mem, gsize *have, gsize bytes)
{
  if (*have < bytes)
    {
      g_free (*mem);
      *mem = g_malloc0 (bytes);
      *have = bytes;
    }
  return *mem;
}

uint8_t *
ms_ptx_local (unsigned bytes)
{
  Worker *W = cur_worker;
  return warp_buffer (&W->local_mem[W->warp], &W->local_bytes[W->warp], (gsize) bytes * 32);
}

uint8_t *
ms_ptx_frame (size_t bytes)
{
  Worker *W = cur_worker;
  return warp_buffer (&W->frame_mem[W->warp], &W->frame_bytes[W->warp], bytes);
}

/* The running warp has used its budget: the other warps run now.  They
 * use ms_warp, the worker's one set of lane arrays, while this warp's
 * instruction is still in flight (a load's addresses, which its lanes
 * read their values at next; a shuffle's results): kept aside until it
 * goes on.  (Out of line: once per WARP_BUDGET instructions.) */
static G_NO_INLINE void
warp_yield (Worker *W)
{
  guint w = W->warp;
  if (W->warp_saved == NULL)
    W->warp_saved = g_new (MsWarp, 32);
  W->warp_saved[w] = ms_warp;
  W->yielded = TRUE;
  ms_fiber_switch (&W->warp_fiber[w], &W->ctl.sched);
  ms_warp = W->warp_saved[w];
}

/* ------------------------------------------------- device runtime (warp.h) */

/* What device code prints (printf, failed asserts): each block's text in
 * the order its lanes printed it (a warp's lanes in lane order), kept per
 * block while the launch runs (blocks run in parallel), then appended in
 * block order to what the program has yet to see
 * (ms_emulator_take_device_output). */
static GMutex device_lock;
static GTree *device_blocks;     /* block (stream order) -> GString * */
static GString *device_pending;
static gboolean device_asserted;

static void
gstring_free (gpointer s)
{
  g_string_free (s, TRUE);
}

static gint
block_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;
  return x < y ? -1 : x > y;
}

static GString *
device_out (Worker *W)
{
  if (W->dev_out == NULL)
    W->dev_out = g_string_new (NULL);
  return W->dev_out;
}

/* After a block: its text to the launch's. */
static void
device_output_block_end (Worker *W)
{
  if (W->dev_out == NULL || W->dev_out->len == 0)
    return;
  g_mutex_lock (&device_lock);
  if (device_blocks == NULL)
    device_blocks = g_tree_new_full (block_cmp, NULL, g_free,
                                     gstring_free);
  guint64 *key = g_new (guint64, 1);
  *key = W->seq;
  GString *had = g_tree_lookup (device_blocks, key);
  if (had != NULL)
    {
      g_string_append_len (had, W->dev_out->str, (gssize) W->dev_out->len);
      g_free (key);
    }
  else
    g_tree_insert (device_blocks, key, g_string_new_len (W->dev_out->str,
                                                         (gssize) W->dev_out->len));
  g_mutex_unlock (&device_lock);
  g_string_truncate (W->dev_out, 0);
}

static gboolean
device_append (gpointer key, gpointer value, gpointer data)
{
  GString *s = value;
  g_string_append_len (device_pending, s->str, (gssize) s->len);
  return FALSE;
}

/* After a launch: its blocks' text, in block order. */
static void
device_output_launch_end (void)
{
  g_mutex_lock (&device_lock);
  if (device_blocks != NULL)
    {
      if (device_pending == NULL)
        device_pending = g_string_new (NULL);
      g_tree_foreach (device_blocks, device_append, NULL);
      g_tree_destroy (device_blocks);
      device_blocks = NULL;
    }
  g_mutex_unlock (&device_lock);
}

char *
ms_emulator_take_device_output (void)
{
  g_mutex_lock (&device_lock);
  char *s = device_pending && device_pending->len ? g_string_free (device_pending, FALSE) : NULL;
  if (s != NULL)
    device_pending = NULL;
  g_mutex_unlock (&device_lock);
  return s;
}

gboolean
ms_emulator_take_device_assert (void)
{
  return __atomic_exchange_n (&device_asserted, FALSE, __ATOMIC_RELAXED);
}

/* One conversion of CUDA's printf: the argument buffer holds each
 * argument at the next multiple of its size (nvcc's .local buffer:
 * varargs' promotions, so a float is a double); %s and %p take 8 bytes. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"   /* the program's own formats */
int32_t
ms_ptx_printf (const char *fmt, const uint8_t *args)
{
  Worker *W = cur_worker;
  GString *o = device_out (W);
  gsize at = 0, strings = 0;
  int32_t n_args = 0;
  if (fmt == NULL)
    return -1;
  for (const char *p = fmt; *p; p++)
    {
      if (*p != '%')
        {
          g_string_append_c (o, *p);
          continue;
        }
      if (p[1] == '%')
        {
          g_string_append_c (o, '%');
          p++;
          continue;
        }
      /* %[flags][width][.precision][length]conversion */
      char spec[64];
      gsize k = 0;
      const char *q = p + 1;
      spec[k++] = '%';
      int stars[2], n_stars = 0;
      while (*q && strchr ("-+ #0", *q) && k < 40)
        spec[k++] = *q++;
      for (int part = 0; part < 2; part++)
        {
          if (part == 1)
            {
              if (*q != '.')
                break;
              spec[k++] = *q++;
            }
          if (*q == '*')
            {
              gsize a = (at + 3) / 4 * 4;
              int32_t v = 0;
              if (args)
                memcpy (&v, args + a, 4);
              at = a + 4;
              stars[n_stars++] = v;
              spec[k++] = *q++;
              n_args++;
            }
          else
            while (g_ascii_isdigit (*q) && k < 50)
              spec[k++] = *q++;
        }
      int longs = 0;
      while (*q && strchr ("hlLqjzt", *q) && k < 56)
        {
          if (*q == 'l' || *q == 'L' || *q == 'q' || *q == 'j' || *q == 'z' || *q == 't')
            longs++;
          q++;
        }
      char conv = *q;
      if (conv == 0)
        {
          g_string_append (o, p);
          break;
        }
      gsize size = strchr ("fFeEgGaAsp", conv) || longs ? 8 : 4;
      gsize a = (at + size - 1) / size * size;
      guint64 bits = 0;
      if (args && strchr ("diouxXcfFeEgGaAsp", conv))
        memcpy (&bits, args + a, size);
      if (strchr ("diouxXcfFeEgGaAsp", conv))
        {
          at = a + size;
          n_args++;
        }
      char *text = NULL;
      /* the conversion with its '*' width and precision, if any */
#define FORMAT_ARG(v)                                                          \
  (n_stars == 2 ? g_strdup_printf (spec, stars[0], stars[1], v)                \
   : n_stars == 1 ? g_strdup_printf (spec, stars[0], v) : g_strdup_printf (spec, v))
      if (strchr ("di", conv))
        {
          spec[k++] = 'l';
          spec[k++] = 'l';
          spec[k++] = conv;
          spec[k] = 0;
          long long v = size == 8 ? (long long) (gint64) bits : (long long) (gint32) bits;
          text = FORMAT_ARG (v);
        }
      else if (strchr ("ouxX", conv))
        {
          spec[k++] = 'l';
          spec[k++] = 'l';
          spec[k++] = conv;
          spec[k] = 0;
          unsigned long long v = size == 8 ? bits : (guint32) bits;
          text = FORMAT_ARG (v);
        }
      else if (conv == 'c')
        {
          spec[k++] = 'c';
          spec[k] = 0;
          int v = (int) (unsigned char) bits;
          text = FORMAT_ARG (v);
        }
      else if (strchr ("fFeEgGaA", conv))
        {
          spec[k++] = conv;
          spec[k] = 0;
          double v;
          memcpy (&v, &bits, 8);
          text = FORMAT_ARG (v);
        }
      else if (conv == 's')
        {
          spec[k++] = 's';
          spec[k] = 0;
          const char *v = bits ? (const char *) (uintptr_t) bits : "(null)";
          strings += bits ? strlen (v) + 1 : 0;
          text = FORMAT_ARG (v);
        }
      else if (conv == 'p')
        text = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", bits);
      else
        text = g_strndup (p, (gsize) (q - p + 1));   /* %n and unknown: as written */
#undef FORMAT_ARG
      g_string_append (o, text);
      g_free (text);
      p = q;
    }
  if (W->printf_lanes++ == 0)
    {
      W->printf_format = strlen (fmt);
      W->printf_conversions = (guint) n_args;
    }
  W->printf_strings = MAX (W->printf_strings, strings);
  return n_args;
}
#pragma GCC diagnostic pop

/* __assertfail: the message CUDA prints for the lane; the launch then
 * fails (ms_ptx_assert_end) once the warp's lanes have printed theirs. */
void
ms_ptx_assertfail (const char *message, const char *file, uint32_t line, const char *function,
                   unsigned tx, unsigned ty, unsigned tz)
{
  Worker *W = cur_worker;
  g_string_append_printf (device_out (W),
                          "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` "
                          "failed.\n",
                          file ? file : "?", line, function ? function : "?",
                          ms_block.block_idx.x, ms_block.block_idx.y, ms_block.block_idx.z, tx,
                          ty, tz, message ? message : "?");
  W->asserted = TRUE;
}

void
ms_ptx_assert_end (void)
{
  Worker *W = cur_worker;
  if (!W->asserted)
    return;
  __atomic_store_n (&device_asserted, TRUE, __ATOMIC_RELAXED);
  if (W->error == NULL)
    g_set_error (&W->error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_ASSERT,
                 "%s: a device-side assert failed (cudaErrorAssert)", W->launch->kernel);
  warp_stop_forever (W);
}

/* The device heap (malloc, free): first fit in a list of free ranges,
 * 16-byte aligned as CUDA's, one per heap variable, for the process. */
typedef struct {
  guint8 *base;
  gsize bytes;
  GSequence *free;     /* Range, by offset */
  GHashTable *used;    /* offset -> size */
} Heap;
typedef struct {
  gsize off, size;
} Range;

static GMutex heap_lock;
static GHashTable *heaps;   /* base -> Heap */

static gint
range_cmp (gconstpointer a, gconstpointer b, gpointer data)
{
  const Range *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

void
ms_emulator_device_heap (void *base, gsize bytes)
{
  g_mutex_lock (&heap_lock);
  if (heaps == NULL)
    heaps = g_hash_table_new (NULL, NULL);
  Heap *h = g_hash_table_lookup (heaps, base);
  if (h == NULL)
    {
      h = g_new0 (Heap, 1);
      h->base = base;
      h->free = g_sequence_new (g_free);
      h->used = g_hash_table_new (NULL, NULL);
      g_hash_table_insert (heaps, base, h);
    }
  else
    {
      g_sequence_remove_range (g_sequence_get_begin_iter (h->free),
                               g_sequence_get_end_iter (h->free));
      g_hash_table_remove_all (h->used);
    }
  h->bytes = bytes;
  Range *r = g_new (Range, 1);
  *r = (Range) { 0, bytes };
  g_sequence_append (h->free, r);
  g_mutex_unlock (&heap_lock);
}

static Heap *
heap_of (uint8_t *base)
{
  Heap *h = heaps ? g_hash_table_lookup (heaps, base) : NULL;
  if (h == NULL)
    {
      g_mutex_unlock (&heap_lock);
      ms_emulator_device_heap (base, (gsize) 8 << 20);
      g_mutex_lock (&heap_lock);
      h = g_hash_table_lookup (heaps, base);
    }
  return h;
}

void
ms_ptx_runtime_lane (unsigned kind)
{
  Worker *W = cur_worker;
  W->runtime.lanes[kind]++;
  W->runtime_pending |= 1u << kind;
}

void
ms_ptx_runtime_call (unsigned kind)
{
  Worker *W = cur_worker;
  if (!(W->runtime_pending & (1u << kind)))
    return;   /* no lane of the group called (their guards) */
  W->runtime_pending &= ~(1u << kind);
  W->runtime.calls[kind]++;
  if (kind == MS_RUNTIME_PRINTF)
    {
      W->runtime.printf_format_bytes += W->printf_format;
      W->runtime.printf_conversions += W->printf_conversions;
      W->runtime.printf_lane_conversions += (guint64) W->printf_conversions * W->printf_lanes;
      W->runtime.printf_string_bytes += W->printf_strings;
      W->printf_lanes = W->printf_conversions = 0;
      W->printf_format = W->printf_strings = 0;
    }
  guint32 n = ++W->warp_runtime[W->warp][kind];
  W->runtime.chain[kind] = MAX (W->runtime.chain[kind], n);
}

void
ms_ptx_async_fill (void)
{
  cur_worker->async_fills++;
}

void
ms_ptx_slow_path_warp (const MsPtxSlowPath *sp, uint32_t m)
{
  /* the slow lanes' distinct routes and the union of their blocks */
  guint32 routes[32], blocks = 0;
  guint n_routes = 0;
  gboolean fast = FALSE;
  for (guint l = 0; l < 32; l++)
    {
      if (!((m >> l) & 1) || (sp->ran != NULL && !sp->ran[l]))
        continue;
      if (!sp->slow[l])
        {
          fast = TRUE;
          continue;
        }
      guint32 route = ms_slow_path_route ((MsSlowPathKind) sp->kind, sp->a[l], sp->b[l]);
      blocks |= route;
      guint k = 0;
      while (k < n_routes && routes[k] != route)
        k++;
      if (k == n_routes)
        routes[n_routes++] = route;
    }
  if (n_routes == 0)
    return;   /* flags of lanes that did not run it this time */
  MsSlowPathCount *r = &cur_worker->slow_paths.kind[sp->kind];
  r->warps++;
  r->groups += n_routes - 1 + fast;
  r->routes += n_routes - 1;
  r->no_fast += !fast;
  for (guint k = 0; k < MS_SLOW_PATH_BLOCKS; k++)
    r->blocks[k] += (blocks >> k) & 1;
}

static MsConditionalFn conditional_fn;

void
ms_emulator_graph_conditionals (MsConditionalFn set)
{
  conditional_fn = set;
}

/* (not through ms_ptx_fail: a call of a noreturn function from here,
 * on a warp's fiber, has AddressSanitizer warn of the stack it does not
 * know; warp_stop_forever's comment says why) */
void
ms_ptx_set_conditional (uint64_t handle, uint32_t value)
{
  if (conditional_fn != NULL && conditional_fn (handle, value))
    return;
  Worker *W = cur_worker;
  launch_fails (W, "cudaGraphSetConditional with a handle that no "
                   "cudaGraphConditionalHandleCreate made");
  warp_stop_forever (W);
}

void *
ms_ptx_malloc (uint8_t *heap, uint64_t size)
{
  if (heap == NULL || size == 0 || size > ((guint64) 1 << 40))
    return NULL;
  gsize need = (gsize) (size + 15) / 16 * 16;
  void *p = NULL;
  g_mutex_lock (&heap_lock);
  Heap *h = heap_of (heap);
  for (GSequenceIter *it = g_sequence_get_begin_iter (h->free); !g_sequence_iter_is_end (it);
       it = g_sequence_iter_next (it))
    {
      Range *r = g_sequence_get (it);
      if (r->size < need)
        continue;
      p = h->base + r->off;
      g_hash_table_insert (h->used, GSIZE_TO_POINTER (r->off + 1), GSIZE_TO_POINTER (need));
      r->off += need;
      r->size -= need;
      if (r->size == 0)
        g_sequence_remove (it);
      break;
    }
  g_mutex_unlock (&heap_lock);
  return p;
}

void
ms_ptx_free (uint8_t *heap, void *ptr)
{
  if (heap == NULL || ptr == NULL)
    return;
  g_mutex_lock (&heap_lock);
  Heap *h = heap_of (heap);
  gsize off = (gsize) ((guint8 *) ptr - h->base);
  gpointer size = (guint8 *) ptr >= h->base && off < h->bytes
                    ? g_hash_table_lookup (h->used, GSIZE_TO_POINTER (off + 1)) : NULL;
  if (size != NULL)
    {
      g_hash_table_remove (h->used, GSIZE_TO_POINTER (off + 1));
      Range *r = g_new (Range, 1);
      *r = (Range) { off, GPOINTER_TO_SIZE (size) };
      GSequenceIter *it = g_sequence_insert_sorted (h->free, r, range_cmp, NULL);
      /* merge with the neighbours */
      GSequenceIter *next = g_sequence_iter_next (it);
      if (!g_sequence_iter_is_end (next))
        {
          Range *n = g_sequence_get (next);
          if (r->off + r->size == n->off)
            {
              r->size += n->size;
              g_sequence_remove (next);
            }
        }
      if (!g_sequence_iter_is_begin (it))
        {
          GSequenceIter *prev = g_sequence_iter_prev (it);
          Range *pr = g_sequence_get (prev);
          if (pr->off + pr->size == r->off)
            {
              pr->size += r->size;
              g_sequence_remove (it);
            }
        }
    }
  g_mutex_unlock (&heap_lock);
  /* a pointer malloc did not give: the GPU's free ignores it or faults;
   * memsim ignores it */
}

/* The lane's failure at an address outside the block's shared memory or
 * the launch's buffers. */
static void
device_bad_address (Worker *W, const char *what, const void *a, unsigned size)
{
  if (W->error == NULL)
    g_set_error (&W->error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_OUT_OF_BOUNDS,
                 "%s: %s of %u bytes at address %p, outside %s; check the pointer arithmetic",
                 W->launch->kernel, what, size, a,
                 strstr (what, "shared") ? "the block's shared memory" : "the launch's buffers");
  warp_stop_forever (W);
}

/* cp.async: src_size bytes of src, then zeros up to cp_size, at dst in
 * shared memory, now. */
void
ms_ptx_cp_async (uint8_t *dst, const uint8_t *src, uint32_t cp_size, uint32_t src_size)
{
  Worker *W = cur_worker;
  if (src_size > cp_size)
    src_size = cp_size;
  if (!in_shared (W, dst, cp_size))
    device_bad_address (W, "an asynchronous copy (cp.async) to shared memory", dst, cp_size);
  if (src_size > 0 && buffer_holding (W, src, src_size) < 0)
    device_bad_address (W, "an asynchronous copy (cp.async) from global memory", src, src_size);
  if (src_size > 0)
    memcpy (dst, src, src_size);
  memset (dst + src_size, 0, cp_size - src_size);
  memset (W->shadow + (dst - W->shared), 1, cp_size);
}

/* An mbarrier (PTX ISA, "Parallel synchronization: mbarrier"), a 64-bit
 * object in shared memory, here: bits 0-20 the arrivals pending in the
 * current phase, 21-41 the arrivals expected per phase, 42-62 the
 * transaction bytes pending (mod 2^21), 63 the phase's parity.  A phase
 * completes when no arrival and no byte is pending. */
#define MBAR_FIELD(v, at) ((guint32) ((v) >> (at)) & 0x1fffffu)
#define MBAR_SET(v, at, x) (((v) & ~((guint64) 0x1fffff << (at))) | ((guint64) ((x) & 0x1fffffu) << (at)))

static guint64
mbar_complete (guint64 v)
{
  if (MBAR_FIELD (v, 0) == 0 && MBAR_FIELD (v, 42) == 0)
    {
      v ^= (guint64) 1 << 63;
      v = MBAR_SET (v, 0, MBAR_FIELD (v, 21));
    }
  return v;
}

uint64_t
ms_ptx_mbarrier (uint8_t *p, unsigned op, uint64_t arg)
{
  Worker *W = cur_worker;
  if (!in_shared (W, p, 8) || ((guintptr) p & 7) != 0)
    device_bad_address (W, "an mbarrier operation on shared memory", p, 8);
  guint64 v;
  memcpy (&v, p, 8);
  guint64 old = v;
  guint32 n = (guint32) arg;
  switch (op & 15)
    {
    case MS_MBAR_INIT:
      v = MBAR_SET (MBAR_SET ((guint64) 0, 0, n), 21, n);
      memset (W->shadow + (p - W->shared), 1, 8);
      break;
    case MS_MBAR_INVAL:
      v = 0;
      break;
    case MS_MBAR_EXPECT_TX:
      v = MBAR_SET (v, 42, MBAR_FIELD (v, 42) + n);
      break;
    case MS_MBAR_COMPLETE_TX:
      v = mbar_complete (MBAR_SET (v, 42, MBAR_FIELD (v, 42) - n));
      break;
    case MS_MBAR_ARRIVE:
    case MS_MBAR_ARRIVE_DROP:
      {
        guint32 count = op & MS_MBAR_TX ? 1 : n;
        if (op & MS_MBAR_TX)
          v = MBAR_SET (v, 42, MBAR_FIELD (v, 42) + n);
        if ((op & 15) == MS_MBAR_ARRIVE_DROP)
          v = MBAR_SET (v, 21, MBAR_FIELD (v, 21) - count);
        v = MBAR_SET (v, 0, MBAR_FIELD (v, 0) - count);
        if (!(op & MS_MBAR_NOCOMPLETE))
          v = mbar_complete (v);
        break;
      }
    case MS_MBAR_TEST:
      return (v >> 63) != (arg >> 63);
    case MS_MBAR_TEST_PARITY:
      return (v >> 63) != (arg & 1);
    default:
      break;
    }
  memcpy (p, &v, 8);
  if ((op & 15) != MS_MBAR_INIT && (v >> 63) != (old >> 63))
    {
      /* a phase completed: the threads that waited for it see what the
       * others did before they arrived, as after a barrier (the race
       * check's epoch ends) */
      if (!end_epoch (W))
        warp_stop_forever (W);
      ms_racecheck_barrier (&W->race);
    }
  return old;
}

/* A wait that cannot end yet: the other warps of the block run (one step
 * of the block's budget, so a wait that never ends is a deadlock error). */
void
ms_ptx_spin (void)
{
  Worker *W = cur_worker;
  if (G_UNLIKELY (++W->ctl.block_ops > BLOCK_OP_LIMIT))
    {
      if (W->error == NULL)
        g_set_error (&W->error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_DEADLOCK,
                     "%s: a warp of block %" G_GUINT64_FORMAT " waited on an mbarrier whose "
                     "phase never completed (a deadlock)", W->launch->kernel, W->block);
      warp_stop_forever (W);
    }
  warp_yield (W);
}

uint64_t
ms_ptx_grid_workspace (void)
{
  return (uint64_t) (guintptr) cur_worker->launch->grid_workspace;
}

/* Outside a cooperative launch nothing: a block that polls another
 * block's writes there waits for a block that runs after it (the spin
 * ends on the block's op limit, a deadlock error). */
void
ms_ptx_poll (void)
{
  Worker *W = cur_worker;
  if (G_LIKELY (W->grid == NULL))
    return;
  W->poll = TRUE;
  warp_yield (W);
}

/* Before a load with a memory order from the block's memory (a flag another
 * warp sets: cooperative groups' barrier of a tile larger than a warp
 * spins on one): when the warp's last instruction was this same poll, it
 * found the flag unset and went round, and its warps run in turn, so the
 * warp it waits for has not run since; the warp steps aside, and the
 * block's other warps run before it polls again.  One poll then fails per
 * waiting warp, where the warp would otherwise spin for its whole budget
 * (docs/model.md). */
void
ms_ptx_warp_poll (const void *site)
{
  Worker *W = cur_worker;
  PollWatch *p = &W->polls[W->warp];
  if (p->site == site && W->ctl.block_ops == p->ops + 1)
    warp_yield (W);
  p->site = site;
  p->ops = W->ctl.block_ops;
}

/* A warp-level instruction ran, as run_warp counts it (count_instruction:
 * lanes `others` waited at later sites), then the warp's budget, after
 * which the other warps run.  (Inline: every access and shuffle passes
 * here, and a call's saved registers cost more than the count.) */
static inline G_ALWAYS_INLINE void
warp_counted (Worker *W, const MsSite *site, guint32 group, guint32 others)
{
  if (G_UNLIKELY (!count_instruction (W, &ms_warp.lanes[__builtin_ctz (group)], site, site->order,
                                      group, others)))
    warp_stop_forever (W);
  if (G_UNLIKELY (++W->ctl.warp_ops == WARP_BUDGET))
    warp_yield (W);
}

/* An untraced launch's plain load or store of 4 or 8 bytes by a whole
 * warp whose lanes all fall, aligned, in the buffer its site's last access
 * fell in (Worker.quick), as access_warp would run it: the bounds checked,
 * a store's values written and its pages marked, the instruction counted,
 * the load's pattern set; FALSE, nothing done, for any other (access_warp
 * then runs it: finds the buffer, the error, the warp's turn to yield).
 * No record, no race check (global memory has none), and none of
 * access_warp's frame (its fast path inlined, with shared memory's checks
 * and the records' fields). */
static inline G_ALWAYS_INLINE gboolean
access_quick (Worker *W, const MsSite *site, unsigned size, MsLaneOp kind)
{
  if (!W->global_unrecorded || (kind != MS_K_LD && kind != MS_K_ST) || (size != 4 && size != 8)
      || site->id < 0 || site->ordered != 0 || W->ctl.block_ops + 1 > BLOCK_OP_LIMIT
      || W->ctl.warp_ops + 1 >= WARP_BUDGET)
    return FALSE;
  typeof (W->quick[0]) *q = &W->quick[site->id % QUICK_SITES];
  if (q->span == 0)
    return FALSE;
  guint64 lo = (guintptr) q->lo, lim = q->span - size;
  guint64 a0 = (guintptr) ms_warp.addr[0], stride = (guintptr) ms_warp.addr[1] - a0;
  guint64 bad, low, off = 0, e = a0;
  /* as exec_fast_view's: a lane is in the buffer when its offset o and
   * lim - o are both below 2^63 */
  for (guint i = 0; i < MS_WARP_SIZE; i++, e += stride)
    off |= (guintptr) ms_warp.addr[i] ^ e;
  if (off != 0 || !progression_checked (a0, stride, lo, q->span, size, &bad, &low))
    {
      bad = low = 0;
      for (guint i = 0; i < MS_WARP_SIZE; i++)
        {
          guint64 a = (guintptr) ms_warp.addr[i], o = a - lo;
          bad |= o | (lim - o);
          low |= a;
        }
    }
  if ((bad >> 63) != 0 || (low & (size - 1)) != 0)
    return FALSE;
  gboolean row = off == 0 && stride == size;
  if (kind == MS_K_LD && off == 0)
    {
      /* a loop's load a few turns on, when its address keeps its step (a
       * column walked row by row: streamcluster's coordinates, a load
       * every 256 KiB, each a miss of the host's caches) */
      guint64 next = a0 + 4 * (a0 - q->last);
      q->last = a0;
      __builtin_prefetch ((const void *) (guintptr) next, 0, 3);
      __builtin_prefetch ((const void *) (guintptr) (next + (MS_WARP_SIZE - 1) * stride), 0, 3);
    }
  if (kind == MS_K_ST)
    {
      /* lane by lane, in lane order: a later lane's store to the same
       * address wins, as exec_fast_view's */
      if (row)
        store_row_values ((guint8 *) ms_warp.addr[0], (const guint8 *) ms_warp.val, size);
      else if (size == 4)
        for (guint i = 0; i < MS_WARP_SIZE; i++)
          memcpy ((void *) ms_warp.addr[i], ms_warp.val[i], 4);
      else
        for (guint i = 0; i < MS_WARP_SIZE; i++)
          memcpy ((void *) ms_warp.addr[i], ms_warp.val[i], 8);
      if (q->dirty != NULL)
        {
          guint64 o0 = a0 - lo, o31 = a0 + (MS_WARP_SIZE - 1) * stride - lo;
          /* relaxed stores of the same value, as mark_dirty's */
#define QUICK_DIRTY(o) __atomic_store_n (&q->dirty[(o) >> MS_DIRTY_PAGE_SHIFT], 1, __ATOMIC_RELAXED)
          if (off == 0)
            {
              QUICK_DIRTY (o0);
              QUICK_DIRTY (o31);
            }
          else
            for (guint i = 0; i < MS_WARP_SIZE; i++)
              QUICK_DIRTY ((guintptr) ms_warp.addr[i] - lo);
#undef QUICK_DIRTY
        }
      W->ctl.wrote = TRUE;
    }
  ms_warp.load_pattern = kind != MS_K_LD || off != 0 ? 0
                         : stride == size ? MS_WARP_ROW : stride == 0 ? MS_WARP_BROADCAST : 0;
  W->ctl.block_ops++;
  W->ctl.warp_ops++;
  return TRUE;
}

static void access_warp (const MsSite *site, uint32_t mask, unsigned size, MsLaneOp kind,
                         uint32_t others);

MS_CPU_CLONES void
ms_warp_access (const MsSite *site, uint32_t mask, unsigned size, MsLaneOp kind, uint32_t others)
{
  if (mask == 0xffffffffu && others == 0 && access_quick (cur_worker, site, size, kind))
    return;
  access_warp (site, mask, size, kind, others);
}

static G_GNUC_NO_INLINE MS_CPU_CLONES void
access_warp (const MsSite *site, uint32_t mask, unsigned size, MsLaneOp kind, uint32_t others)
{
  Worker *W = cur_worker;
  Lane *warp = ms_warp.lanes;
  if (mask == 0)
    return;
  MsOp op = kind_op ((guint8) kind);
  W->ctl.wrote |= kind == MS_K_ST;
  int fast = G_UNLIKELY (site->id < 0) || (size & (size - 1)) != 0 || size > 16 ? 0
             : exec_fast_view (W, mask, site, kind, size, op, (const guint8 *) ms_warp.addr,
                               sizeof ms_warp.addr[0], (guint8 *) ms_warp.val,
                               sizeof ms_warp.val[0], FALSE, &ms_warp.load_pattern);
  if (G_UNLIKELY (fast < 0))
    warp_stop_forever (W);
  if (fast == 0)
    {
      /* the general path (first use of the site, a new region, errors,
       * unwritten shared bytes) reads the lane records */
      ms_warp.load_pattern = 0;
      FOR_LANES (mask, i, {
        warp[i].site = site;
        warp[i].kind = (guint8) kind;
        warp[i].size = (guint8) size;
        warp[i].addr = ms_warp.addr[i];
        memcpy (warp[i].val, ms_warp.val[i], sizeof warp[i].val);
      });
      if (G_UNLIKELY (!exec_memory (W, warp, mask)))
        warp_stop_forever (W);
      if (G_UNLIKELY (W->oob_lanes != 0))
        {
          /* the kernel reads a load's values at its lanes' addresses:
           * those in guard pages read zeros */
          static const guint8 zeros[16] __attribute__ ((aligned (16)));
          FOR_LANES (W->oob_lanes, i, ms_warp.addr[i] = (volatile uint8_t *) zeros;);
          W->oob_lanes = 0;
        }
    }
  warp_counted (W, site, mask, others);
  if (G_UNLIKELY (site->ordered == MS_SITE_ACQUIRE))
    {
      /* an acquire: what other warps wrote before their release is
       * ordered before what follows (a barrier, for the race check) */
      if (!end_epoch (W))
        warp_stop_forever (W);
      ms_racecheck_barrier (&W->race);
    }
}

void
ms_warp_barrier (const MsWarpSched *S)
{
  Worker *W = cur_worker;
  guint w = W->warp;
  for (guint g = 0; g < S->n_barrier; g++)
    {
      const MsSite *site = S->barrier[g].site;
      if (W->ctl.barrier_site == NULL)
        W->ctl.barrier_site = site;
      else if (!ms_same_barrier (site, W->ctl.barrier_site))
        W->ctl.barrier_mismatch = TRUE;
    }
  W->warp_blocked |= S->n_stop > 0;   /* lanes at a collective that cannot run */
  W->warp_sched[w] = S;
  W->warp_state[w] = MS_LANE_AT_BARRIER;
  ms_fiber_switch (&W->warp_fiber[w], &W->ctl.sched);
}

/* The lanes' states of a warp-wide block as the fiber path would leave
 * them (release_barrier reads them): the warps' groups at the barrier or a
 * collective, the other lanes ended. */
static void
warp_lane_states (Worker *W, guint n)
{
  for (guint w = 0; w * 32 < n; w++)
    {
      Lane *warp = &W->lanes[w * 32];
      guint nw = MIN (32, n - w * 32);
      for (guint i = 0; i < nw; i++)
        warp[i].state = MS_LANE_DONE;
      if (W->warp_state[w] != MS_LANE_AT_BARRIER)
        continue;
      const MsWarpSched *S = W->warp_sched[w];
      for (guint g = 0; g < S->n_barrier; g++)
        FOR_LANES (S->barrier[g].mask, i, {
          warp[i].state = MS_LANE_AT_BARRIER;
          warp[i].site = S->barrier[g].site;
        });
      for (guint g = 0; g < S->n_stop; g++)
        FOR_LANES (S->stop[g].mask, i, {
          warp[i].state = MS_LANE_AT_OP;
          warp[i].site = S->stop[g].site;
        });
    }
}

/* A collective of `group` (all at one site, their lane records filled by
 * the kernel: mask, val, arg, width, sub): whether it can run now, as
 * run_warp decides (it waits for the live lanes of its masks; a
 * __syncwarp is met by the lanes at any __syncwarp), and then it runs.
 * *group grows by the lanes at other __syncwarps that it releases. */
static gboolean
warp_collective (Worker *W, const MsWarpSched *S, guint32 *group, const MsWarpStop *run)
{
  Lane *warp = ms_warp.lanes;
  guint kind = run->kind;
  guint32 need = 0, have = *group, live = 0, at_syncwarp = 0;
  const guint32 *lane_mask = ms_warp.mask;
  FOR_LANES (*group, i, need |= lane_mask[i];);
  for (guint i = 0; i < S->n_stop; i++)
    {
      live |= S->stop[i].mask;
      if (S->stop[i].kind == MS_K_SYNCWARP)
        at_syncwarp |= S->stop[i].mask;
    }
  live |= S->barrier_mask;
  if ((need & ~*group) != 0 || kind == MS_K_SYNCWARP)
    need &= live;
  if (kind == MS_K_VOTE && run->sub == MS_VOTE_ACTIVEMASK)
    need = *group;
  if (kind == MS_K_SYNCWARP)
    have |= at_syncwarp;
  if ((need & have) != need)
    return FALSE;
  if (kind == MS_K_SYNCWARP)
    {
      *group |= need;
      ms_racecheck_syncwarp (&W->race, W->warp);
    }
  else if (kind == MS_K_SHFL)
    {
      /* the out-of-line checks of ms_shfl, which a fiber build's lane
       * runs: first one test for the whole group (a width of 1..32, a
       * power of two), then, on a failure, the lane that fails first */
      const guint8 *width = ms_warp.width;
      guint8 bad = (guint8) shfl_size_bad (run->size);
      FOR_LANES (*group, i, bad |= shfl_width_bad (width[i]););
      char msg[256];
      if (G_UNLIKELY (bad))
        FOR_LANES (*group, i, {
          if (shfl_args_error (run->site, run->size, width[i], msg, sizeof msg))
            {
              if (W->error == NULL)
                g_set_error (&W->error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH, "%s", msg);
              warp_stop_forever (W);
            }
        });
      if (!exec_shfl_view (W, warp, run->site, *group, run->sub, ms_warp.width, 1,
                           (const guint8 *) ms_warp.arg, sizeof ms_warp.arg[0],
                           (const guint8 *) ms_warp.val, sizeof ms_warp.val[0],
                           (guint8 *) ms_warp.res, sizeof ms_warp.res[0]))
        warp_stop_forever (W);
    }
  else
    exec_vote (warp, *group);
  return TRUE;
}

int
ms_warp_shfl_counted_out (const MsSite *site, unsigned size)
{
  /* warp_collective's shuffle for a whole converged warp: every lane of
   * the mask is there, the width is valid; the kernel copies the results
   * (exec_shfl_view's closed form, ptx-translate.c) */
  if (shfl_size_bad (size))
    return 0;
  warp_counted (cur_worker, site, 0xffffffffu, 0);
  return 1;
}

/* The stops whose lanes are all in `lanes` go on at their pc, the others
 * stay in their order; lanes that go on at the same place go on as one
 * group. */
static void
stops_go_on (MsWarpSched *S, guint32 lanes)
{
  guint k = 0;
  for (guint i = 0; i < S->n_stop; i++)
    {
      MsWarpStop *st = &S->stop[i];
      if ((st->mask & ~lanes) != 0)
        {
          if (k != i)   /* in place until the first stop that goes on */
            S->stop[k] = *st;
          k++;
          continue;
        }
      ms_warp_sched_ready (S, st->pc, st->mask);
    }
  S->n_stop = k;
}

/* The stops of the groups: the earliest site's runs for all lanes waiting
 * there (as run_warp picks it), which then go on; a collective that cannot
 * run yet lets a later site run.  FALSE when nothing can run (every lane
 * left waits at a collective). */
int
ms_warp_sched_step (MsWarpSched *S)
{
  int floor = -1;
  for (;;)
    {
      /* one pass: the earliest site above floor, the lanes stopped there
       * (first: its first stop), and every lane waiting (a divergent
       * loop's warp has up to 32 stops: callgrind, per_thread_sum at its
       * default size: the step 143.2 -> 114.1 M instructions, with the
       * compaction below) */
      int best = G_MAXINT;
      guint32 group = 0, waiting = 0;
      guint first = 0;
      for (guint i = 0; i < S->n_stop; i++)
        {
          const MsWarpStop *st = &S->stop[i];
          waiting |= st->mask;
          if (st->order <= floor || st->order > best)
            continue;
          if (st->order < best)
            {
              best = st->order;
              group = 0;
              first = i;
            }
          group |= st->mask;
        }
      if (best == G_MAXINT)
        return FALSE;
      MsWarpStop run = S->stop[first];
      if (run.kind == MS_K_LD || run.kind == MS_K_ST || run.kind == MS_K_ATOMIC)
        ms_warp_access (run.site, group, run.size, (MsLaneOp) run.kind, waiting & ~group);
      else
        {
          if (!warp_collective (cur_worker, S, &group, &run))
            {
              floor = best;
              continue;
            }
          warp_counted (cur_worker, run.site, group, waiting & ~group);
        }
      /* the stops run (a __syncwarp's: every stop whose lanes it took)
       * go on */
      stops_go_on (S, group);
      return TRUE;
    }
}

/* run_block's loop for a warp-wide kernel: the warps in turn, each until it
 * waits at the barrier, ends, or spends its budget (as run_warp's lanes). */
static guint64 warp_wide_warps;   /* warps run warp-wide, this process */

guint64
ms_emulator_warp_wide_warps (void)
{
  return __atomic_load_n (&warp_wide_warps, __ATOMIC_RELAXED);
}

static gboolean
run_block_warps (Worker *W, guint n)
{
  guint n_warps = (n + 31) / 32;
  W->warp_wide_done += n_warps;
  W->warp_blocked = FALSE;
  for (guint w = 0; w < n_warps; w++)
    W->warp_state[w] = MS_LANE_READY;
  /* the first warp's threadIdx arrays in locals: with stores to ms_warp in
   * between, the loop loaded W's fields again for each (callgrind,
   * reduce_shfl 2^22: 550.2 -> 543.7 M instructions) */
  const unsigned *tid0 = W->tid, *tid1 = tid0 + W->n_lanes, *tid2 = tid1 + W->n_lanes;
  Lane *lanes = W->lanes;
  for (;;)
    {
      guint done = 0, waiting = 0;
      for (guint w = 0; w < n_warps; w++)
        {
          guint nw = MIN (32, n - w * 32);
          if (W->warp_state[w] == MS_LANE_READY)
            {
              W->warp = (guint16) w;
              ms_warp.lanes = &lanes[w * 32];
              ms_warp.tid[0] = tid0 + w * 32;
              ms_warp.tid[1] = tid1 + w * 32;
              ms_warp.tid[2] = tid2 + w * 32;
              ms_warp.live = nw == 32 ? 0xffffffffu : (1u << nw) - 1;
              ms_cur_lane = ms_warp.lanes;
              W->ctl.warp_ops = 0;
              ms_fiber_switch (&W->ctl.sched, &W->warp_fiber[w]);
              if (G_UNLIKELY (W->error != NULL))
                return FALSE;
              if (G_UNLIKELY (W->poll))
                {
                  /* before a poll (ms_ptx_poll): the grid's other blocks run */
                  W->poll = FALSE;
                  ms_fiber_switch (&W->block_fiber, W->grid);
                }
            }
          done += W->warp_state[w] == MS_LANE_DONE;
          waiting += W->warp_state[w] == MS_LANE_AT_BARRIER;
        }
      if (done == n_warps)
        break;
      if (done + waiting < n_warps)
        {
          g_assert (W->yielded);   /* a warp spent its budget: another round */
          W->yielded = FALSE;
          continue;
        }
      /* every warp has ended or waits: the barrier releases, as run_block's */
      W->yielded = FALSE;
      if (!W->ctl.barrier_mismatch && !W->warp_blocked)
        {
          if (!end_epoch (W))
            return FALSE;
          barrier_passed (W);
        }
      else
        {
          warp_lane_states (W, n);
          int r = release_barrier (W, n);
          if (r <= 0)
            return r == 0 && end_epoch (W);
        }
      W->ctl.n_barrier = 0;
      W->ctl.barrier_site = NULL;
      for (guint w = 0; w < n_warps; w++)
        if (W->warp_state[w] == MS_LANE_AT_BARRIER)
          W->warp_state[w] = MS_LANE_READY;
    }
  return end_epoch (W);
}

/* ------------------------------------------------------------ crashes */

/* A kernel can still crash the process: a pointer dereferenced without
 * LD/ST, or a kernel thread overflowing its fiber stack into the guard
 * page.  Turn that into memsim's one-line error instead of a core dump.
 * The handler runs on its own signal stack (the fiber's may be the one that
 * overflowed) and uses only async-signal-safe calls. */
static void
write_str (const char *s)
{
  gsize n = strlen (s);
  while (n > 0)
    {
      gssize w = write (2, s, n);
      if (w <= 0)
        return;
      s += w;
      n -= (gsize) w;
    }
}

static void
write_uint (guint64 v)
{
  char buf[24];
  int i = (int) sizeof buf;
  buf[--i] = 0;
  do
    buf[--i] = (char) ('0' + v % 10);
  while ((v /= 10) && i > 0);
  write_str (buf + i);
}

static void
crash_handler (int sig, siginfo_t *info, void *context)
{
  (void) context;
  /* only the first thread to crash reports; the others wait for the exit */
  static int reported;
  if (__atomic_exchange_n (&reported, 1, __ATOMIC_SEQ_CST))
    for (;;)
      pause ();
  Worker *W = cur_worker;
  Lane *l = ms_cur_lane;
  write_str ("memsim: ");
  if (W != NULL && l != NULL)
    {
      gboolean overflow = ms_stack_pool_is_guard (W->pool, info->si_addr)
                          || (W->warp_pool && ms_stack_pool_is_guard (W->warp_pool, info->si_addr));
      write_str (W->launch->kernel);
      write_str (overflow ? ": stack overflow in a kernel thread (a fiber has about 28 KiB of stack; "
                            "use fewer or smaller local arrays)"
                 : sig == SIGFPE ? ": the kernel crashed with an arithmetic error (integer "
                                   "division by zero?)"
                 : ": the kernel crashed (invalid memory access outside LD/ST: "
                   "check that every global and shared access uses LD/ST)");
      write_str (" in block (");
      write_uint (ms_block.block_idx.x), write_str (","), write_uint (ms_block.block_idx.y);
      write_str (","), write_uint (ms_block.block_idx.z), write_str (") thread (");
      write_uint (l->thread_idx.x), write_str (","), write_uint (l->thread_idx.y);
      write_str (","), write_uint (l->thread_idx.z), write_str (")\n");
    }
  else
    {
      write_str (sig == SIGSEGV ? "internal error: segmentation fault" : "internal error: fatal signal");
      write_str ("\n");
    }
  _exit (1);
}

#define SIGNAL_STACK_BYTES (SIGSTKSZ * 4)

/* Installs the handler and gives the calling thread the worker's alternate
 * signal stack, for the time the worker runs on it (uninstall_crash_handler
 * takes it back, so the worker can free it: nothing stays behind in a pool
 * thread, which AddressSanitizer would count as a leak). */
static void
install_crash_handler (void *signal_stack)
{
  stack_t ss = { .ss_sp = signal_stack, .ss_size = SIGNAL_STACK_BYTES, .ss_flags = 0 };
  sigaltstack (&ss, NULL);
  static gsize once;
  if (g_once_init_enter (&once))
    {
      struct sigaction sa = { 0 };
      sa.sa_sigaction = crash_handler;
      sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset (&sa.sa_mask);
      sigaction (SIGSEGV, &sa, NULL);
      sigaction (SIGBUS, &sa, NULL);
      sigaction (SIGFPE, &sa, NULL);
      g_once_init_leave (&once, 1);
    }
}

static void
uninstall_crash_handler (void)
{
  stack_t ss = { .ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE };
  sigaltstack (&ss, NULL);
}

/* ---------------------------------------------------------- sampling */

/* The sample's shape over a grid of n blocks: periods of `period` groups
 * of `group` blocks; in period s the group chosen is phase(s) (a hash, so
 * the sample does not line up with the grid's rows).  Every period but
 * the last is whole; the last chooses among the groups it has, so even a
 * grid smaller than one period runs one group. */
typedef struct {
  guint64 n, group, period;
} Sample;

static guint64
sample_phase (guint64 s, guint64 groups)
{
  guint64 z = (s + 1) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return (z ^ (z >> 31)) % groups;
}

/* The first block of period s's chosen group. */
static guint64
sample_group_start (const Sample *S, guint64 s)
{
  guint64 first = s * S->period * S->group;   /* the period's first block */
  guint64 groups = MIN (S->period, (S->n - first + S->group - 1) / S->group);
  return first + sample_phase (s, groups) * S->group;
}

static guint64
sample_count (const Sample *S)
{
  guint64 span = S->period * S->group;
  guint64 last = (S->n - 1) / span;            /* the last (maybe partial) period */
  return last * S->group + MIN (S->group, S->n - sample_group_start (S, last));
}

/* The block of the j-th sampled block (j in [0, sample_count)). */
static inline guint64
sample_block (const Sample *S, guint64 j)
{
  if (S->period <= 1)
    return j;
  return sample_group_start (S, j / S->group) + j % S->group;
}

static Sample
launch_sample (const MsLaunch *launch)
{
  const MsLaunchArgs *A = &launch->args;
  guint64 n = (guint64) A->grid[0] * A->grid[1] * A->grid[2];
  if (launch->max_blocks > 0 && !launch->cooperative)
    n = MIN (n, launch->max_blocks);
  Sample S = { n, MAX (launch->sample_group, 1), launch->sample_period };
  /* a grid barrier waits for every block: a cooperative launch runs all */
  if (S.period <= 1 || n == 0 || launch->cooperative)
    S.period = 1;
  return S;
}

guint64
ms_launch_sampled_blocks (const MsLaunch *launch)
{
  Sample S = launch_sample (launch);
  return S.period <= 1 ? S.n : sample_count (&S);
}

/* ------------------------------------------------------------ driver */

typedef struct {
  const MsLaunch *launch;
  guint64 n_blocks;       /* blocks to run: j in [0, n_blocks) runs block
                             sample_block (&sample, j) */
  Sample sample;
  gint64 next;            /* next block to claim (atomic) */
  gint64 error_block;     /* lowest block that failed, or n_blocks (atomic) */
  GMutex lock;
  GError *error;
  Worker **workers;
  MsStreamOrder *order;   /* when a sink has an ordered part */
  guint chunk;            /* blocks a worker claims at a time */
  guint n_workers;
  gint64 next_report;     /* monotonic time of the next progress call (atomic) */
} Job;

static Worker *
worker_new (const MsLaunch *launch, GError **error)
{
  const MsLaunchArgs *A = &launch->args;
  guint n = A->block[0] * A->block[1] * A->block[2];
  /* a stack per thread of the block, and the straight runs'; a warp-wide
   * kernel's lanes run on their warp's stack (a cooperative launch has a
   * worker per block: no stacks it does not use) */
  guint n_warps = (n + 31) / 32;
  guint n_lane_stacks = launch->warp_entry ? 0 : n;
  MsStackPool *pool = ms_stack_pool_new (n_lane_stacks + 1, STACK_BYTES, error);
  if (pool == NULL)
    return NULL;
  /* a warp-wide kernel's warp holds 32 lanes' locals: 32 fibers' stack */
  MsStackPool *warp_pool = NULL;
  if (launch->warp_entry
      && (warp_pool = ms_stack_pool_new (n_warps, 32 * STACK_BYTES, error)) == NULL)
    {
      ms_stack_pool_free (pool);
      return NULL;
    }
  Worker *W = g_new0 (Worker, 1);
  W->launch = launch;
  W->pool = pool;
  W->warp_pool = warp_pool;
  W->lanes = g_aligned_alloc0 (n, sizeof (Lane), 64);
  W->n_lanes = n;
  W->shared_window = MAX_SHARED_BYTES + launch->dynamic_shared;
  W->shared = g_aligned_alloc0 (1, W->shared_window + 4096, 128);
  W->shadow = g_malloc0 (W->shared_window + 4096);
  ms_racecheck_init (&W->race, W->shared_window, launch->allow_races, launch->warp_hazards,
                     launch->kernel, launch->source_line, launch->source_data);
  const char *memo_events = g_getenv ("MEMSIM_RACE_MEMO_EVENTS");
  ms_racememo_init (&W->race_memo, g_getenv ("MEMSIM_NO_RACE_MEMO") != NULL,
                    memo_events ? (guint) g_ascii_strtoull (memo_events, NULL, 10) : 0);
  /* MEMSIM_NO_DIRECT: fibers only (the tests compare the two) */
  W->direct_off = g_getenv ("MEMSIM_NO_DIRECT") != NULL;
  W->signal_stack = g_malloc (SIGNAL_STACK_BYTES);
  guint bx = A->block[0], by = A->block[1];
  W->tid = g_new0 (guint, 3 * (gsize) n + 32);   /* + a warp: a partial last warp's lanes */
  for (guint t = 0; t < n; t++)
    {
      Lane *l = &W->lanes[t];
      l->thread_idx.x = W->tid[t] = t % bx;
      l->thread_idx.y = W->tid[n + t] = t / bx % by;
      l->thread_idx.z = W->tid[2 * n + t] = t / (bx * by);
      l->lane = (guint8) (t % 32);
      if (t < n_lane_stacks)
        ms_fiber_init (&l->fiber, pool, t, lane_main, l);
    }
  ms_fiber_init (&W->direct_fiber, pool, n_lane_stacks, direct_main, W);
  if (launch->warp_entry)
    for (guint w = 0; w < n_warps; w++)
      ms_fiber_init (&W->warp_fiber[w], warp_pool, w, warp_main, GUINT_TO_POINTER (w));
  W->n_bufs = launch->n_buffers;
  W->last_buf = -1;
  for (guint b = 0; b < launch->n_buffers; b++)
    {
      W->buf_base[b] = A->buf[b];
      W->buf_bytes[b] = launch->buffer_bytes[b];
    }
  return W;
}

static void
worker_free (Worker *W)
{
  if (W == NULL)
    return;
  __atomic_add_fetch (&direct_warps, W->direct_done, __ATOMIC_RELAXED);
  __atomic_add_fetch (&warp_wide_warps, W->warp_wide_done, __ATOMIC_RELAXED);
  if (W->dev_out != NULL)
    g_string_free (W->dev_out, TRUE);
  g_free (W->block_counts);
  ms_stack_pool_free (W->pool);
  if (W->warp_pool)
    ms_stack_pool_free (W->warp_pool);
  g_aligned_free (W->lanes);
  g_free (W->tid);
  g_free (W->warp_saved);
  g_aligned_free (W->shared);
  g_free (W->shadow);
  ms_racecheck_clear (&W->race);
  ms_racememo_clear (&W->race_memo);
  for (guint w = 0; w < G_N_ELEMENTS (W->local_mem); w++)
    {
      g_free (W->local_mem[w]);
      g_free (W->frame_mem[w]);
    }
  g_aligned_free (W->direct.note);
  g_aligned_free (W->direct.val);
  g_free (W->signal_stack);
  if (W->ordered)
    g_array_unref (W->ordered);
  g_clear_error (&W->error);
  g_free (W);
}

#define CHUNK 8

/* After worker W ran a block: counts it in W's own counter (nothing shared
 * is written per block) and, when the next report time has passed, the one
 * worker that moves it on sums the counters and calls launch->progress. */
static void
report_progress (Job *job, Worker *W)
{
  __atomic_store_n (&W->blocks_done, W->blocks_done + 1, __ATOMIC_RELAXED);
  gint64 now = g_get_monotonic_time ();
  gint64 next = __atomic_load_n (&job->next_report, __ATOMIC_RELAXED);
  if (now < next
      || !__atomic_compare_exchange_n (&job->next_report, &next, now + MS_PROGRESS_INTERVAL_US,
                                       FALSE, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    return;
  guint64 done = 0;
  for (guint w = 0; w < job->n_workers; w++)
    done += __atomic_load_n (&job->workers[w]->blocks_done, __ATOMIC_RELAXED);
  job->launch->progress (job->launch->progress_data, done, job->n_blocks);
}

/* Records this worker's failure at block b, if it is the first block to fail. */
static void
record_failure (Job *job, Worker *W, gint64 b)
{
  g_mutex_lock (&job->lock);
  if (b < job->error_block)
    {
      __atomic_store_n (&job->error_block, b, __ATOMIC_RELAXED);
      g_clear_error (&job->error);
      job->error = g_steal_pointer (&W->error);
    }
  g_clear_error (&W->error);
  g_mutex_unlock (&job->lock);
  if (job->order)
    ms_stream_order_stop_at (job->order, (guint64) b);
}

/* ------------------------------------------------------------ workers */

/* The static shared memory the block declared, into the launch's most
 * (without the extern __shared__ array, nor the reserved memory, which the
 * occupancy model counts as the GPU reserves it). */
static void
note_shared_bytes (Worker *W)
{
  if (W->launch->shared_bytes == NULL)
    return;
  guint mine = W->reserved ? W->own_used : W->shared_used;
  guint used = mine - (W->dynamic_declared ? MIN (W->launch->dynamic_shared, mine) : 0);
  guint seen = __atomic_load_n (W->launch->shared_bytes, __ATOMIC_RELAXED);
  while (used > seen
         && !__atomic_compare_exchange_n (W->launch->shared_bytes, &seen, used, TRUE,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

static gint work_beside;

void
ms_emulator_work_beside (gboolean begins)
{
  if (begins)
    g_atomic_int_inc (&work_beside);
  else
    g_atomic_int_dec_and_test (&work_beside);
}

static void
worker_run (gpointer data, gpointer user_data)
{
  Job *job = user_data;
  Worker *W = data;
  install_crash_handler (W->signal_stack);
  cur_worker = W;
  ms_warp_ctl = &W->ctl;
  guint cores = g_get_num_processors ();
  for (;;)
    {
      /* work beside the launch (a kernel's optimised build) keeps a core:
       * a worker past the others waits for it to end before it takes more
       * blocks (with a worker a core: MsLaunch.threads 0) */
      while (job->launch->threads == 0 && W->index > 0
             && W->index + (guint) g_atomic_int_get (&work_beside) >= cores
             && (guint64) __atomic_load_n (&job->next, __ATOMIC_RELAXED) < job->n_blocks)
        g_usleep (2000);
      gint64 start = __atomic_fetch_add (&job->next, (gint64) job->chunk, __ATOMIC_RELAXED);
      if ((guint64) start >= job->n_blocks)
        break;
      for (gint64 b = start; b < start + (gint64) job->chunk && (guint64) b < job->n_blocks; b++)
        {
          /* After a failure, finish only the blocks before it, so the error
           * reported is the first block's whatever the thread count. */
          if (b >= __atomic_load_n (&job->error_block, __ATOMIC_RELAXED))
            goto out;
          if (job->order)
            {
              if (!ms_stream_order_wait (job->order, (guint64) b))
                goto out;
              if (W->ordered == NULL)   /* the last block's, when it was not taken */
                W->ordered = ms_stream_order_buffer_new ();
            }
          W->seq = (guint64) b;
          gboolean ran = run_block (W, sample_block (&job->sample, (guint64) b));
          device_output_block_end (W);
          if (!ran || !ms_racememo_block_end (&W->race_memo, &W->race, &W->error))
            {
              record_failure (job, W, b);
              goto out;
            }
          note_shared_bytes (W);
          if (job->order)
            ms_stream_order_submit (job->order, (guint64) b, &W->ordered);
          if (job->launch->progress)
            report_progress (job, W);
        }
    }
out:
  ms_cur_lane = NULL;
  ms_warp_ctl = NULL;
  cur_worker = NULL;
  uninstall_crash_handler ();
}

/* ------------------------------------------------------------ cooperative launches */

/* Turns in a row in which no block did more than poll before a grid
 * launch is a deadlock (a poll that passes may lead to another: a few). */
#define GRID_IDLE_TURNS 16

/* A block of a cooperative launch, on its own fiber: runs, then parks. */
static void
block_main (void *arg)
{
  Worker *W = arg;
  W->block_ran = run_block (W, W->seq);
  W->block_ended = TRUE;
  for (;;)
    ms_fiber_switch (&W->block_fiber, W->grid);
}

/* A cooperative launch: every block resident at once, as on the GPU (the
 * launch checked that they fit), each with a worker of its own and a
 * fiber on this thread.  The blocks take turns in block order, each
 * running until it ends or steps aside before a poll (ms_ptx_poll), so a
 * grid barrier's waiters poll once more after the last block arrived. */
static void
run_grid (Job *job)
{
  GError *error = NULL;
  MsStackPool *pool = ms_stack_pool_new ((guint) job->n_blocks, 4 * STACK_BYTES, &error);
  if (pool == NULL)
    {
      job->error = error;
      return;
    }
  MsFiber grid;
  for (guint b = 0; b < job->n_blocks; b++)
    {
      Worker *W = job->workers[b];
      W->seq = b;
      W->grid = &grid;
      ms_fiber_init (&W->block_fiber, pool, b, block_main, W);
    }
  install_crash_handler (job->workers[0]->signal_stack);
  guint64 left = job->n_blocks;
  for (guint idle = 0; left > 0 && idle < GRID_IDLE_TURNS;)
    {
      gboolean moved = FALSE;
      for (guint b = 0; b < job->n_blocks; b++)
        {
          Worker *W = job->workers[b];
          if (W->block_ended)
            continue;
          guint64 ops = W->ctl.block_ops;
          cur_worker = W;
          ms_warp_ctl = &W->ctl;
          ms_block = W->block_info;
          ms_fiber_switch (&grid, &W->block_fiber);
          moved |= W->block_ended || W->ctl.block_ops > ops + 1;
          if (!W->block_ended)
            continue;
          left--;
          device_output_block_end (W);
          if (!W->block_ran || !ms_racememo_block_end (&W->race_memo, &W->race, &W->error))
            {
              record_failure (job, W, b);
              goto out;
            }
          note_shared_bytes (W);
          if (job->launch->progress)
            report_progress (job, W);
        }
      idle = moved ? 0 : idle + 1;
    }
  if (left > 0)
    g_set_error (&job->error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_DEADLOCK,
                 "%s: every block of the cooperative launch that has not ended waits on "
                 "global memory no block changes any more (a grid-wide barrier that some "
                 "block never reaches: a deadlock)", job->launch->kernel);
out:
  ms_cur_lane = NULL;
  ms_warp_ctl = NULL;
  cur_worker = NULL;
  uninstall_crash_handler ();
  ms_stack_pool_free (pool);
}

gboolean
ms_launch_check_geometry (const MsLaunchArgs *A, GError **error)
{
  static const guint64 max_grid[3] = { 2147483647u, 65535, 65535 };
  static const guint max_block[3] = { 1024, 1024, 64 };
  static const char axis[3] = { 'x', 'y', 'z' };
  for (int d = 0; d < 3; d++)
    {
      if (A->block[d] == 0 || A->grid[d] == 0)
        {
          g_set_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH,
                       "the %s has size 0 in %c; every dimension must be at least 1",
                       A->block[d] == 0 ? "block" : "grid", axis[d]);
          return FALSE;
        }
      if (A->block[d] > max_block[d])
        {
          g_set_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH,
                       "block %c = %u exceeds CUDA's limit of %u", axis[d], A->block[d],
                       max_block[d]);
          return FALSE;
        }
      if (A->grid[d] > max_grid[d])
        {
          g_set_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH,
                       "grid %c = %u exceeds CUDA's limit of %" G_GUINT64_FORMAT, axis[d],
                       A->grid[d], max_grid[d]);
          return FALSE;
        }
    }
  guint64 n = (guint64) A->block[0] * A->block[1] * A->block[2];
  if (n > MAX_BLOCK_THREADS)
    {
      g_set_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_LAUNCH,
                   "a block of %ux%ux%u = %" G_GUINT64_FORMAT " threads exceeds CUDA's limit "
                   "of %d threads per block; use a smaller --block",
                   A->block[0], A->block[1], A->block[2], n, MAX_BLOCK_THREADS);
      return FALSE;
    }
  return TRUE;
}

/* Every fiber stack with its guard page takes two memory mappings; Linux
 * allows vm.max_map_count (65530 by default) per process.  Keep the workers'
 * stacks within half of it, leaving the rest to the program. */
static guint
max_workers (const MsLaunchArgs *A)
{
  guint64 limit = 65530;
  g_autofree char *text = NULL;
  if (g_file_get_contents ("/proc/sys/vm/max_map_count", &text, NULL, NULL))
    limit = g_ascii_strtoull (text, NULL, 10);
  guint64 per_worker = 2 * (guint64) A->block[0] * A->block[1] * A->block[2];
  guint64 n = limit / 2 / MAX (per_worker, 1);
  return (guint) CLAMP (n, 1, 4096);
}

gboolean
ms_emulate (const MsLaunch *launch, GError **error)
{
  const MsLaunchArgs *A = &launch->args;
  if (!ms_launch_check_geometry (A, error))
    return FALSE;
  static const MsSinks no_sinks;
  const MsSinks *sinks = launch->sinks ? launch->sinks : &no_sinks;
  Sample sample = launch_sample (launch);
  guint64 n_blocks = ms_launch_sampled_blocks (launch);
  if (launch->shared_bytes != NULL)
    *launch->shared_bytes = 0;
  guint n_workers = launch->threads ? launch->threads : g_get_num_processors ();
  gboolean ordered = ms_sinks_ordered (sinks);
  guint ordered_skips = ms_sinks_ordered_skips (sinks);
  /* Ordered sinks: workers claim one block at a time, so the blocks in
   * flight stay within the reorder window. */
  guint chunk = ordered ? 1 : CHUNK;
  /* A grid of few blocks: a block at a time, so that every worker gets
   * some (claims of 8 would hand a grid of 8 long blocks to one worker). */
  if (n_blocks < (guint64) n_workers * CHUNK)
    chunk = 1;
  n_workers = (guint) MIN ((guint64) n_workers, (n_blocks + chunk - 1) / chunk);
  n_workers = MIN (n_workers, max_workers (A));
  n_workers = MAX (n_workers, 1);
  if (launch->in_order)
    n_workers = 1;
  /* a cooperative launch: a worker per block, all on this thread (run_grid) */
  gboolean grid = launch->cooperative && launch->warp_entry != NULL;
  if (grid)
    n_workers = (guint) n_blocks;

  Job job = { .launch = launch, .n_blocks = n_blocks, .sample = sample,
              .error_block = (gint64) n_blocks,
              .chunk = chunk, .n_workers = n_workers,
              .next_report = g_get_monotonic_time () + MS_PROGRESS_INTERVAL_US };
  g_mutex_init (&job.lock);
  if (ordered && !grid)
    job.order = ms_stream_order_new (sinks, 0, 2 * n_workers,
                                     n_workers > 1 && n_workers <= g_get_num_processors ());
  job.workers = g_new0 (Worker *, n_workers);
  gboolean ok = TRUE;
  for (guint w = 0; w < n_workers && ok; w++)
    {
      ok = (job.workers[w] = worker_new (launch, error)) != NULL;
      if (ok)
        {
          job.workers[w]->index = w;
          ms_sink_worker_begin (&job.workers[w]->sinks, sinks);
          job.workers[w]->order = job.order;
          job.workers[w]->in_order = grid && ordered ? sinks : NULL;
          job.workers[w]->ordered_skips = ordered_skips;
          job.workers[w]->global_unrecorded = !ordered && job.workers[w]->sinks.n_access == 0;
          /* only where the ordered part would leave the record out too */
          if (!ordered || (ordered_skips >> MS_SPACE_SHARED & 1))
            ms_sink_worker_shortcut (&job.workers[w]->sinks, &job.workers[w]->shortcut);
        }
    }

  if (ok && grid)
    run_grid (&job);
  else if (ok && n_workers == 1)
    worker_run (job.workers[0], &job);
  else if (ok)
    {
      GThreadPool *pool = g_thread_pool_new (worker_run, &job, (gint) n_workers, TRUE, error);
      ok = pool != NULL;
      for (guint w = 0; ok && w < n_workers; w++)
        ok = g_thread_pool_push (pool, job.workers[w], error);
      if (pool)
        g_thread_pool_free (pool, FALSE, TRUE);
    }
  ms_stream_order_drain (job.order);   /* the ordered sinks have every record */
  if (ok && job.error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&job.error));
      ok = FALSE;
    }
  /* the sinks' per-worker parts end in worker order: merges are deterministic */
  if (launch->races != NULL)
    ms_race_log_clear (launch->races);
  if (launch->block_counts != NULL)
    memset (launch->block_counts, 0, launch->n_block_counts * sizeof (guint64));
  if (launch->runtime_calls != NULL)
    memset (launch->runtime_calls, 0, sizeof *launch->runtime_calls);
  if (launch->async_fills != NULL)
    *launch->async_fills = 0;
  if (launch->slow_paths != NULL)
    *launch->slow_paths = (MsSlowPathRuns) { 0 };
  for (guint w = 0; w < n_workers; w++)
    if (job.workers[w] != NULL)
      {
        if (launch->slow_paths != NULL)
          {
            for (guint kind = 0; kind < MS_SLOW_KINDS; kind++)
              {
                MsSlowPathCount *to = &launch->slow_paths->kind[kind];
                const MsSlowPathCount *from = &job.workers[w]->slow_paths.kind[kind];
                to->warps += from->warps;
                to->groups += from->groups;
                to->routes += from->routes;
                to->no_fast += from->no_fast;
                for (guint k = 0; k < MS_SLOW_PATH_BLOCKS; k++)
                  to->blocks[k] += from->blocks[k];
              }
          }
        if (launch->async_fills != NULL)
          *launch->async_fills += job.workers[w]->async_fills;
        for (guint k = 0; launch->runtime_calls != NULL && k < MS_RUNTIME_KINDS; k++)
          {
            const MsRuntimeCalls *c = &job.workers[w]->runtime;
            launch->runtime_calls->calls[k] += c->calls[k];
            launch->runtime_calls->lanes[k] += c->lanes[k];
            launch->runtime_calls->chain[k] = MAX (launch->runtime_calls->chain[k], c->chain[k]);
          }
        if (launch->runtime_calls != NULL)
          {
            MsRuntimeCalls *to = launch->runtime_calls;
            const MsRuntimeCalls *c = &job.workers[w]->runtime;
            to->printf_format_bytes += c->printf_format_bytes;
            to->printf_conversions += c->printf_conversions;
            to->printf_lane_conversions += c->printf_lane_conversions;
            to->printf_string_bytes += c->printf_string_bytes;
          }
        for (guint b = 0; launch->block_counts != NULL
                          && b < MIN (launch->n_block_counts, job.workers[w]->n_block_counts); b++)
          launch->block_counts[b] += job.workers[w]->block_counts[b];
        if (launch->races != NULL)
          ms_race_log_merge (launch->races, job.workers[w]->race.log);
        if (job.workers[w]->sinks.sinks != NULL)
          ms_sink_worker_end (&job.workers[w]->sinks);
        worker_free (job.workers[w]);
      }
  if (launch->races != NULL)
    {
      launch->races->warp_hazards_checked = launch->warp_hazards;
      ms_race_log_sort (launch->races);
    }
  device_output_launch_end ();
  ms_stream_order_free (job.order);
  g_free (job.workers);
  g_clear_error (&job.error);
  g_mutex_clear (&job.lock);
  return ok;
}
