/* racecheck.h - the emulator's shared-memory race check (racecheck.c has
 * the rules and their assumptions): a shadow record per 4-byte word of the
 * block's shared memory (three 64-bit stamps), updated by every shared access of a lane, and the
 * barrier epochs that order them.
 *
 * Internal to the emulator: emulator.c calls the hooks below; the inline
 * ones are the fast path every shared-memory lane access takes, the rest
 * runs only when something is found.
 */
#pragma once

#include <glib.h>

#include "access.h"
#include "races.h"

G_BEGIN_DECLS

/* A stamp: one access packed in 64 bits, so a record is read and written
 * with a few whole-word loads and stores.  Epochs count barrier intervals
 * across all the blocks a worker runs, so a stamp of an earlier interval or
 * block is simply stale: nothing is cleared between blocks. */
#define MS_RC_EPOCH(s) ((guint32) (s))                     /* bits 0..31; 0: none */
#define MS_RC_SITE(s) ((guint) ((s) >> 32) & 0xfffu)       /* site id (MS_MAX_SITES) */
#define MS_RC_THREAD(s) ((guint) ((s) >> 44) & 0x3ffu)     /* warp * 32 + lane */
#define MS_RC_MASK(s) ((guint) ((s) >> 54) & 0xfu)         /* bytes of the word */
#define MS_RC_WSYNC(s) ((guint) ((s) >> 58) & 0xfu)        /* its warp's __syncwarps, mod 16 */
#define MS_RC_ATOMIC (G_GUINT64_CONSTANT (1) << 62)        /* a write by an atomic */
#define MS_RC_RACED (G_GUINT64_CONSTANT (1) << 63)         /* a race was found on the word
                                                               * this epoch (writes only) */

static inline guint64
ms_rc_stamp (guint32 epoch, guint site, guint thread, guint mask, guint wsync)
{
  return epoch | (guint64) site << 32 | (guint64) thread << 44 | (guint64) mask << 54
         | (guint64) (wsync & 0xfu) << 58;
}

/* What the check knows of one 4-byte word of shared memory: the last write
 * and up to two reads of the current epoch (the first, and a later one of
 * another lane, of another warp when there is one).  24 bytes. */
typedef struct {
  guint64 w;
  guint64 r[2];
} MsRaceWord;

/* A read of shared bytes no thread had written yet: an error unless
 * another warp writes them before the epoch ends (then it was a race). */
typedef struct {
  guint offset, size;
  guint thread;           /* linear thread index in the block */
  const MsSite *site;
} MsRacePending;

typedef struct {
  MsRaceWord *words;      /* per 4-byte word of the shared window */
  guint n_words;
  guint32 epoch;          /* the current barrier interval */
  guint16 wsync[32];      /* __syncwarps executed in the block, per warp */
  gboolean allow;         /* races are logged, not fatal */
  guint32 same_value;     /* lanes of the current store that write the value the
                             bytes already hold (set by the caller per store) */
  gboolean warp_hazards;  /* look for intra-warp hazards (sm_70+) */
  MsRaceLog *log;         /* this worker's findings */
  /* the block */
  guint64 block;
  guint block_idx[3], block_dim[3];
  guint64 seq;            /* findings in this block so far */
  guint64 suspects;       /* ms_racecheck_found's calls, over all blocks */
  GArray *found_log;      /* if set, each finding's entry in log->races (guint), in
                             order: a block's, for racememo.h */
  /* the pair of the last finding logged (ms_racecheck_found: sites, ops,
   * intra-warp, packed; 0: none) and its entry in log->races */
  guint32 last_pair;
  guint last_entry;
  GArray *pending;        /* MsRacePending of this epoch */
  /* for messages */
  const char *kernel;
  MsSourceLineFn source_line;
  gpointer source_data;
} MsRaceCheck;

void ms_racecheck_init (MsRaceCheck *rc, guint shared_bytes, gboolean allow,
                        gboolean warp_hazards, const char *kernel, MsSourceLineFn source_line,
                        gpointer source_data);
void ms_racecheck_clear (MsRaceCheck *rc);

/* A block starts: a fresh epoch, no pending reads. */
void ms_racecheck_block_begin (MsRaceCheck *rc, guint64 block, const guint block_idx[3],
                               const guint block_dim[3]);

/* Found something on word w: a race (fatal unless rc->allow: *error set,
 * FALSE) or an intra-warp hazard (logged), or nothing after all. */
gboolean ms_racecheck_found (MsRaceCheck *rc, MsRaceWord *w, guint offset, guint mask,
                             MsOp op, guint warp, guint lane, guint site, GError **error);

/* A read of unwritten bytes (the caller's uninitialised-memory shadow):
 * kept until the epoch ends. */
void ms_racecheck_uninitialised (MsRaceCheck *rc, guint offset, guint size, guint thread,
                                 const MsSite *site);

/* The epoch ends (a barrier released, or the block finished): the first
 * pending read whose bytes are still unwritten, or written only by its own
 * warp (a real read of garbage), or NULL; written[] is the caller's
 * per-byte shadow.  Clears the pending reads. */
const MsRacePending *ms_racecheck_epoch_end (MsRaceCheck *rc, const guint8 *written);

/* A barrier released the block: a new epoch. */
static inline void
ms_racecheck_barrier (MsRaceCheck *rc)
{
  rc->epoch++;
}

/* The warp's lanes met at a __syncwarp. */
static inline void
ms_racecheck_syncwarp (MsRaceCheck *rc, guint warp)
{
  rc->wsync[warp]++;
}

/* Whether the stamp s (of this epoch) is of another lane and overlaps mask. */
static inline gboolean
ms_rc_conflicts (guint64 s, guint32 epoch, guint mask, guint thread)
{
  return MS_RC_EPOCH (s) == epoch && (MS_RC_MASK (s) & mask) && MS_RC_THREAD (s) != thread;
}

/* Records a lane's access of `size` bytes at shared byte offset `offset`
 * (aligned: the emulator checked it); base is the stamp of the warp's
 * instruction (ms_rc_stamp with thread 0 and mask 0).  FALSE with *error
 * set on a race that is fatal.  Every case; ms_racecheck_lane below takes
 * the usual one first. */
static inline G_ALWAYS_INLINE gboolean
ms_rc_lane_general (MsRaceCheck *rc, guint64 base, guint offset, guint size, MsOp op,
                    guint warp, guint lane, guint site, GError **error)
{
  guint32 epoch = MS_RC_EPOCH (base);
  guint thread = warp * 32 + lane;
  guint mask = size >= 4 ? 0xfu : ((1u << size) - 1) << (offset & 3);
  guint64 me = base | (guint64) thread << 44 | (guint64) mask << 54;
  MsRaceWord *w = &rc->words[offset >> 2];
  for (guint n = size >= 4 ? size >> 2 : 1; n > 0; n--, w++, offset = (offset | 3) + 1)
    {
      gboolean suspect = ms_rc_conflicts (w->w, epoch, mask, thread);
      if (op != MS_OP_LD)
        suspect |= ms_rc_conflicts (w->r[0], epoch, mask, thread)
                   | ms_rc_conflicts (w->r[1], epoch, mask, thread);
      if (G_UNLIKELY (suspect)
          && !ms_racecheck_found (rc, w, offset, mask, op, warp, lane, site, error))
        return FALSE;
      if (op != MS_OP_LD)
        {
          guint64 old = w->w;
          w->w = me | (op == MS_OP_ATOMIC ? MS_RC_ATOMIC : 0)
                 | (MS_RC_EPOCH (old) == epoch ? old & MS_RC_RACED : 0);
          continue;
        }
      guint64 r0 = w->r[0];
      if (MS_RC_EPOCH (r0) != epoch)
        w->r[0] = me;
      else if (MS_RC_THREAD (r0) == thread)
        w->r[0] = r0 | (guint64) mask << 54;
      else
        {
          /* slot 1: another lane; replaced by another warp's reader while
           * it holds one of reader 0's warp */
          guint64 r1 = w->r[1];
          guint warp0 = MS_RC_THREAD (r0) / 32;
          if (MS_RC_EPOCH (r1) != epoch || (MS_RC_THREAD (r1) / 32 == warp0 && warp != warp0))
            w->r[1] = me;
        }
    }
  return TRUE;
}

/* The same, a call (inlined, ms_rc_lane_general where size and op are
 * constants: ms_racecheck_access's byte accesses). */
static inline gboolean
ms_racecheck_lane_any (MsRaceCheck *rc, guint64 base, guint offset, guint size, MsOp op,
                       guint warp, guint lane, guint site, GError **error)
{
  return ms_rc_lane_general (rc, base, offset, size, op, warp, lane, site, error);
}

/* ms_racecheck_lane_any with the usual case inline: a 4-byte load or store
 * of a word no thread touched yet in this epoch (a tile's row stored, or
 * read after the barrier).  No stamp of the word is of this epoch, so no
 * lane is suspect; a load becomes reader 0, a store the writer, as
 * ms_racecheck_lane_any does (reader 1 is of this epoch only when reader 0
 * is: it is set only beside a reader 0 of the epoch).  callgrind, clean -O2
 * builds: the check on transpose_padded 512^2 14.0 -> 12.2 M instructions,
 * whole runs -0.4% (gemm_regtile 256) to -1.7% (transpose_padded,
 * reduce_sequential 2^18).  (The case tested inside ms_racecheck_lane_any
 * instead, the function grew past gcc's inlining limits: +10-44%.) */
static inline G_ALWAYS_INLINE gboolean
ms_racecheck_lane (MsRaceCheck *rc, guint64 base, guint offset, guint size, MsOp op,
                   guint warp, guint lane, guint site, GError **error)
{
  MsRaceWord *w = &rc->words[offset >> 2];
  if (size == 4 && (op == MS_OP_LD || op == MS_OP_ST) && MS_RC_EPOCH (w->w) != MS_RC_EPOCH (base)
      && MS_RC_EPOCH (w->r[0]) != MS_RC_EPOCH (base))
    {
      guint64 me = base | (guint64) (warp * 32 + lane) << 44 | (guint64) 0xfu << 54;
      if (op == MS_OP_LD)
        w->r[0] = me;
      else
        w->w = me;
      return TRUE;
    }
  if (size == 4 && op == MS_OP_ATOMIC && MS_RC_EPOCH (w->r[0]) != MS_RC_EPOCH (base)
      && (MS_RC_EPOCH (w->w) != MS_RC_EPOCH (base) || (w->w & MS_RC_ATOMIC)))
    {
      /* A 4-byte atomic on a word no lane read this epoch (so neither
       * reader slot is of it) whose writer, if of this epoch, is an atomic
       * too: atomics do not race with each other (ms_racecheck_found skips
       * such a pair before anything else, and an atomic's finding never
       * reads same_value), so no lane is suspect; the word's new writer is
       * stamped as ms_racecheck_lane_any stamps it.  A histogram's shared
       * atomics, many lanes to a bin: perf, histogram: the check 53% of
       * the run, mostly ms_racecheck_lane_any's branches. */
      guint64 old = w->w;
      w->w = base | (guint64) (warp * 32 + lane) << 44 | (guint64) 0xfu << 54 | MS_RC_ATOMIC
             | (MS_RC_EPOCH (old) == MS_RC_EPOCH (base) ? old & MS_RC_RACED : 0);
      return TRUE;
    }
  return ms_racecheck_lane_any (rc, base, offset, size, op, warp, lane, site, error);
}

/* Whether word w, for a 4-byte load by another lane of `warp` in this
 * epoch, is left as it is by ms_racecheck_lane: no writer this epoch (no
 * lane is suspect), a whole-word reader in slot 0 and a reader of this
 * warp in slot 1 (neither slot is replaced). */
static inline gboolean
ms_rc_readers_full (const MsRaceWord *w, guint32 epoch, guint warp)
{
  return MS_RC_EPOCH (w->r[0]) == epoch && MS_RC_MASK (w->r[0]) == 0xf
         && MS_RC_EPOCH (w->r[1]) == epoch && MS_RC_THREAD (w->r[1]) / 32 == warp;
}

static inline gboolean
ms_rc_no_writer (const MsRaceWord *w, guint32 epoch)
{
  return MS_RC_EPOCH (w->w) != epoch || MS_RC_MASK (w->w) == 0;
}

static inline gboolean
ms_rc_saturated (const MsRaceWord *w, guint32 epoch, guint warp)
{
  return ms_rc_no_writer (w, epoch) && ms_rc_readers_full (w, epoch, warp);
}

/* Records the shared accesses of one warp-level instruction: `size` bytes
 * at offset[i] for each lane i of `lanes`, after the emulator checked them
 * (a tight loop of its own, apart from the lanes' records, so the loads of
 * consecutive lanes overlap).  FALSE with *error set on a fatal race. */
static inline gboolean
ms_racecheck_access (MsRaceCheck *rc, const guint64 *offset, guint32 lanes, guint size, MsOp op,
                     guint warp, guint site, GError **error)
{
  guint64 base = ms_rc_stamp (rc->epoch, site, 0, 0, rc->wsync[warp]);
  /* the common cases with constant size and op, so the compiler drops the
   * word loop and the mask arithmetic */
#define MS_RC_LANE_(SIZE, OP)                                                             \
  if (G_UNLIKELY (!ms_racecheck_lane (rc, base, (guint) offset[i], SIZE, OP, warp, i, site,  \
                                      error)))                                            \
    return FALSE;
  /* a size or op the usual case never takes: the general check inlined,
   * its size and op constants (byte histograms' counters: perf,
   * histogram64, the per-lane call and its size arithmetic) */
#define MS_RC_LANE_GENERAL_(SIZE, OP)                                                     \
  if (G_UNLIKELY (!ms_rc_lane_general (rc, base, (guint) offset[i], SIZE, OP, warp, i, site, \
                                       error)))                                           \
    return FALSE;
  /* a whole warp: a counted loop, no lane search (callgrind: -12% of the
   * check's instructions on gemm_regtile) */
#define MS_RC_LANES_WITH_(LANE, SIZE, OP)                                                 \
  if (lanes == 0xffffffffu)                                                               \
    for (guint i = 0; i < MS_WARP_SIZE; i++)                                              \
      {                                                                                   \
        LANE (SIZE, OP)                                                                   \
      }                                                                                   \
  else                                                                                    \
    for (guint32 m = lanes; m; m &= m - 1)                                                \
      {                                                                                   \
        guint i = (guint) __builtin_ctz (m);                                              \
        LANE (SIZE, OP)                                                                   \
      }
#define MS_RC_LANES_(SIZE, OP) MS_RC_LANES_WITH_ (MS_RC_LANE_, SIZE, OP)
  if (size == 4 && op == MS_OP_LD && lanes == 0xffffffffu && offset[31] == offset[0])
    {
      /* A broadcast (a whole warp reads one word: a tiled GEMM's row of A).
       * With no writer of the word this epoch no lane is suspect, and once
       * the word is saturated (ms_rc_saturated) the later lanes change
       * nothing: stop there. */
      guint64 differ = 0;
      for (guint i = 1; i < MS_WARP_SIZE; i++)   /* vectorised */
        differ |= offset[i] ^ offset[0];
      MsRaceWord *w = &rc->words[offset[0] >> 2];
      if (differ == 0 && ms_rc_no_writer (w, rc->epoch))
        {
          for (guint i = 0; i < MS_WARP_SIZE; i++)
            {
              ms_racecheck_lane (rc, base, (guint) offset[0], 4, MS_OP_LD, warp, i, site, error);
              if (ms_rc_readers_full (w, rc->epoch, warp))
                break;
            }
          return TRUE;
        }
      MS_RC_LANES_ (4, MS_OP_LD)
    }
  else if (size == 4 && op == MS_OP_LD && lanes == 0xffffffffu && offset[1] == offset[0])
    {
      /* Lanes in runs on one word (a register-tiled GEMM's As[k][ty * TM +
       * m]: 16 lanes a word; taken when lanes 0 and 1 share one, a test of
       * every pair costing more than it saves on loads without runs): once
       * the word is saturated (ms_rc_saturated) the run's later lanes
       * change nothing (no lane is suspect on a word no lane wrote this
       * epoch, and its reader slots stay), so they are skipped.  callgrind,
       * gemm_regtile 256: the check 307.9 -> 255.6 M instructions.  (The
       * broadcast above stays apart: its one vectorised test and early stop
       * cost less than this loop for gemm_tiled's rows of A.) */
      guint64 done = G_MAXUINT64;   /* the offset of a saturated word */
      for (guint i = 0; i < MS_WARP_SIZE; i++)
        {
          if (offset[i] == done)
            continue;
          MS_RC_LANE_ (4, MS_OP_LD)
          if (i + 1 < MS_WARP_SIZE && offset[i + 1] == offset[i]
              && ms_rc_saturated (&rc->words[offset[i] >> 2], rc->epoch, warp))
            done = offset[i];
        }
    }
  else if (size == 4 && op == MS_OP_LD)
    MS_RC_LANES_ (4, MS_OP_LD)
  else if (size == 4 && op == MS_OP_ST)
    MS_RC_LANES_ (4, MS_OP_ST)
  else if (size == 4 && op == MS_OP_ATOMIC)
    MS_RC_LANES_ (4, MS_OP_ATOMIC)
  else if (size == 1 && op == MS_OP_LD)
    MS_RC_LANES_WITH_ (MS_RC_LANE_GENERAL_, 1, MS_OP_LD)
  else if (size == 1 && op == MS_OP_ST)
    MS_RC_LANES_WITH_ (MS_RC_LANE_GENERAL_, 1, MS_OP_ST)
  /* doubles: the general case with the size a constant (a call a lane with
   * the size unknown was a third of jacobiCudaGraphs' run) */
  else if (size == 8 && op == MS_OP_LD)
    MS_RC_LANES_WITH_ (MS_RC_LANE_GENERAL_, 8, MS_OP_LD)
  else if (size == 8 && op == MS_OP_ST)
    MS_RC_LANES_WITH_ (MS_RC_LANE_GENERAL_, 8, MS_OP_ST)
  else
    MS_RC_LANES_ (size, op)
#undef MS_RC_LANES_
#undef MS_RC_LANES_WITH_
#undef MS_RC_LANE_GENERAL_
#undef MS_RC_LANE_
  return TRUE;
}

G_END_DECLS
