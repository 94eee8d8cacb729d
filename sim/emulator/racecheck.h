/* racecheck.h - the emulator's shared-memory race check (racecheck.c has
 * the rules and their assumptions): a shadow record per 4-byte word of the
 * block's shared memory, updated by every shared access of a lane, and the
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

/* What a record knows of the last write and of this epoch's reads of one
 * word (32 bytes: two per cache line).  Epochs count barrier intervals
 * across all the blocks a worker runs, so a record of an earlier interval
 * or block is simply stale: nothing is cleared between blocks. */
typedef struct {
  guint32 w_epoch;        /* epoch of the last write; 0: none */
  guint16 w_site;         /* its site id */
  guint16 w_wsync;        /* __syncwarps its warp had executed then */
  guint8 w_warp, w_lane;
  guint8 w_mask;          /* bytes of the word it wrote (bits 0..3) */
  guint8 w_flags;         /* MS_RC_ATOMIC, MS_RC_RACED */
  guint32 r_epoch;        /* epoch of the reads below */
  guint16 r_site[2];      /* reader 0: the first; reader 1: a later one of */
  guint16 r_wsync[2];     /* another lane, of another warp when there is one */
  guint8 r_warp[2], r_lane[2], r_mask[2];
  guint8 n_readers;       /* 0..2 valid reader slots (this epoch) */
  guint8 pad_[5];
} MsRaceWord;

#define MS_RC_ATOMIC 1    /* the last write was an atomic */
#define MS_RC_RACED 2     /* a race between warps was found on the word this epoch */

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
  guint16 wsync[32];      /* __syncwarps executed, per warp of the block */
  gboolean allow;         /* races are logged, not fatal */
  gboolean warp_hazards;  /* look for intra-warp hazards (sm_70+) */
  MsRaceLog *log;         /* this worker's findings */
  /* the block */
  guint64 block;
  guint block_idx[3], block_dim[3];
  guint64 seq;            /* findings in this block so far */
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

/* Whether word w holds something that may conflict with an access of
 * `mask` bytes by (warp, lane): a write, or for a write also a read, of
 * the same bytes this epoch by another lane. */
static inline gboolean
ms_racecheck_suspect (const MsRaceWord *w, guint32 epoch, guint mask, gboolean write,
                      guint warp, guint lane)
{
  if (w->w_epoch == epoch && (w->w_mask & mask) && (w->w_warp != warp || w->w_lane != lane))
    return TRUE;
  if (!write || w->r_epoch != epoch)
    return FALSE;
  for (guint k = 0; k < w->n_readers; k++)
    if ((w->r_mask[k] & mask) && (w->r_warp[k] != warp || w->r_lane[k] != lane))
      return TRUE;
  return FALSE;
}

/* Records a lane's access of `size` bytes at shared byte offset `offset`
 * (aligned: the emulator checked it).  FALSE with *error set on a race
 * that is fatal. */
static inline gboolean
ms_racecheck_access (MsRaceCheck *rc, guint offset, guint size, MsOp op, guint warp,
                     guint lane, guint site, GError **error)
{
  guint32 epoch = rc->epoch;
  gboolean write = op != MS_OP_LD;
  guint mask = size >= 4 ? 0xfu : ((1u << size) - 1) << (offset & 3);
  MsRaceWord *w = &rc->words[offset >> 2];
  for (guint n = size >= 4 ? size >> 2 : 1; n > 0; n--, w++, offset = (offset | 3) + 1)
    {
      if (G_UNLIKELY (ms_racecheck_suspect (w, epoch, mask, write, warp, lane))
          && !ms_racecheck_found (rc, w, offset, mask, op, warp, lane, site, error))
        return FALSE;
      if (write)
        {
          w->w_flags = (w->w_epoch == epoch ? w->w_flags & MS_RC_RACED : 0)
                       | (op == MS_OP_ATOMIC ? MS_RC_ATOMIC : 0);
          w->w_epoch = epoch;
          w->w_site = (guint16) site;
          w->w_wsync = rc->wsync[warp];
          w->w_warp = (guint8) warp;
          w->w_lane = (guint8) lane;
          w->w_mask = (guint8) mask;
        }
      else if (w->r_epoch != epoch)
        {
          w->r_epoch = epoch;
          w->n_readers = 1;
          w->r_site[0] = (guint16) site;
          w->r_wsync[0] = rc->wsync[warp];
          w->r_warp[0] = (guint8) warp;
          w->r_lane[0] = (guint8) lane;
          w->r_mask[0] = (guint8) mask;
        }
      else if (w->r_warp[0] != warp || w->r_lane[0] != lane)
        {
          /* slot 1: another lane; replaced by another warp's reader while
           * it holds one of reader 0's warp */
          if (w->n_readers == 1 || (w->r_warp[1] == w->r_warp[0] && warp != w->r_warp[0]))
            {
              w->n_readers = 2;
              w->r_site[1] = (guint16) site;
              w->r_wsync[1] = rc->wsync[warp];
              w->r_warp[1] = (guint8) warp;
              w->r_lane[1] = (guint8) lane;
              w->r_mask[1] = (guint8) mask;
            }
        }
      else
        w->r_mask[0] |= (guint8) mask;
    }
  return TRUE;
}

G_END_DECLS
