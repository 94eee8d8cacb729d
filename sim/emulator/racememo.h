/* racememo.h - the race check of a block that repeats the block before it.
 *
 * A reduction's, a tiled transpose's or a tiled GEMM's blocks make the
 * same shared accesses, at the same offsets, in the same order, block
 * after block; checking each of them (racecheck.h: a lane's stamps read
 * and written) cost 16-28% of those kernels' whole runs.  Here a block
 * that repeats the last block is compared with it instead, access by
 * access, and checked only from where it differs.
 *
 * Assumptions (each is what racecheck.c reads, nothing more):
 *  - Which lanes the check suspects in a block (ms_racecheck_found: a
 *    stamp of this epoch, of another lane, on the same bytes), and what
 *    the block leaves in the words, depend on the block's sequence of
 *    shared accesses alone: each access's epoch counted from the block's
 *    first, its warp's __syncwarps in the block (mod 16, as stamps keep
 *    them), site, warp, op, size, lanes and the lanes' offsets.  Stamps of
 *    earlier blocks are of older epochs, so what the words held before
 *    the block never matters.  Values matter only once a lane is suspect
 *    (a store of the value already there is no race).
 *  - So a block whose accesses equal, one by one, those of a block in
 *    which no lane was ever suspect has none either: it finds nothing, and
 *    its words end as that block's did, at its own epochs.  While a block
 *    repeats such a block its accesses are only compared.
 *  - At the first access that differs, or a read of unwritten bytes (which
 *    the epoch's end judges from the words), the words are brought up to
 *    date: the repeated accesses are checked then, each at its epoch and
 *    __syncwarp count (replay), and the block goes on checked, its
 *    accesses recorded for the block after it.
 *  - A worker whose blocks keep differing (replays above a quarter of the
 *    accesses compared) stops comparing: recording and replaying would
 *    cost more than they save.  Nothing else changes with it: the same
 *    races, the same hazards, the same errors, on any number of threads
 *    (tests/test-racecheck.c runs its kernels with and without it;
 *    MEMSIM_NO_RACE_MEMO=1 turns it off).
 */
#pragma once

#include <string.h>

#include <glib.h>

#include "racecheck.h"

G_BEGIN_DECLS

/* One shared access of a block, as the check sees it. */
typedef struct {
  guint64 key;            /* epoch in the block, wsync mod 16, site, warp, op, size */
  guint32 lanes;
  guint32 offset[32];     /* the lanes' (others 0) */
} MsRaceEvent;

typedef enum {
  MS_RACE_MEMO_RECORD,    /* checking, and recording the block's accesses */
  MS_RACE_MEMO_MATCH,     /* comparing with the recorded block's, pos of n so far */
  MS_RACE_MEMO_OFF        /* checking only (the block, or the worker: disabled) */
} MsRaceMemoMode;

typedef struct {
  MsRaceMemoMode mode;
  MsRaceEvent *ev;        /* the accesses recorded: n of them, room for cap */
  guint n, cap;
  guint pos;              /* MATCH: the block's accesses so far equal ev[0..pos) */
  gboolean dirty;         /* the block is no model for the next: it read unwritten
                             bytes or recorded too many accesses (or a lane was
                             suspect: suspects0) */
  guint32 epoch0;         /* the block's first epoch */
  guint64 suspects0;      /* the check's suspects when the block began */
  guint64 compared, replayed;   /* accesses, over the worker's blocks */
  gboolean disabled;      /* for good (MEMSIM_NO_RACE_MEMO, or blocks that keep differing) */
} MsRaceMemo;

void ms_racememo_init (MsRaceMemo *m, gboolean off);
void ms_racememo_clear (MsRaceMemo *m);

/* A block begins (after ms_racecheck_block_begin): the one before it ends. */
void ms_racememo_block_begin (MsRaceMemo *m, const MsRaceCheck *rc);

/* The block stops repeating the recorded one: the accesses it repeated are
 * checked now; recording goes on from there.  FALSE with *error set if the
 * check fails (it cannot: a recorded block found nothing). */
gboolean ms_racememo_diverge (MsRaceMemo *m, MsRaceCheck *rc, GError **error);

static inline guint64
ms_race_event_key (const MsRaceMemo *m, const MsRaceCheck *rc, guint size, MsOp op, guint warp,
                   guint site)
{
  return (guint64) (rc->epoch - m->epoch0) | (guint64) (rc->wsync[warp] & 0xfu) << 32
         | (guint64) site << 36 | (guint64) warp << 48 | (guint64) op << 53
         | (guint64) size << 55;
}

/* Whether recorded access e is this one (offset[i] of lane i in lanes). */
static inline gboolean
ms_race_event_same (const MsRaceEvent *e, guint64 key, guint32 lanes, const guint64 *offset)
{
  if (e->key != key || e->lanes != lanes)
    return FALSE;
  guint32 differ = 0;
  if (lanes == 0xffffffffu)
    for (guint i = 0; i < 32; i++)   /* vectorised */
      differ |= e->offset[i] ^ (guint32) offset[i];
  else
    for (guint32 b = lanes; b; b &= b - 1)
      {
        guint i = (guint) __builtin_ctz (b);
        differ |= e->offset[i] ^ (guint32) offset[i];
      }
  return differ == 0;
}

/* ms_racecheck_access, for a block that may repeat the recorded one.
 * Offsets are below the shared window (a few hundred KiB), so 32 bits
 * keep them. */
static inline G_ALWAYS_INLINE gboolean
ms_racememo_access (MsRaceMemo *m, MsRaceCheck *rc, const guint64 *offset, guint32 lanes,
                    guint size, MsOp op, guint warp, guint site, GError **error)
{
  if (m->mode == MS_RACE_MEMO_MATCH)
    {
      guint64 key = ms_race_event_key (m, rc, size, op, warp, site);
      if (G_LIKELY (m->pos < m->n)
          && ms_race_event_same (&m->ev[m->pos], key, lanes, offset))
        {
          m->pos++;
          m->compared++;
          return TRUE;
        }
      if (!ms_racememo_diverge (m, rc, error))
        return FALSE;
    }
  if (m->mode == MS_RACE_MEMO_RECORD)
    {
      if (G_UNLIKELY (m->n == m->cap))
        {
          m->dirty = TRUE;   /* too long to keep: the next block is checked */
          m->mode = MS_RACE_MEMO_OFF;
          m->n = 0;
        }
      else
        {
          MsRaceEvent *e = &m->ev[m->n++];
          e->key = ms_race_event_key (m, rc, size, op, warp, site);
          e->lanes = lanes;
          if (lanes == 0xffffffffu)
            for (guint i = 0; i < 32; i++)
              e->offset[i] = (guint32) offset[i];
          else
            {
              memset (e->offset, 0, sizeof e->offset);
              for (guint32 b = lanes; b; b &= b - 1)
                e->offset[__builtin_ctz (b)] = (guint32) offset[__builtin_ctz (b)];
            }
        }
    }
  return ms_racecheck_access (rc, offset, lanes, size, op, warp, site, error);
}

/* ms_racecheck_uninitialised: the epoch's end will read the words, which
 * must be up to date; and the block is no model.  FALSE as
 * ms_racememo_diverge. */
static inline gboolean
ms_racememo_uninitialised (MsRaceMemo *m, MsRaceCheck *rc, guint offset, guint size,
                           guint thread, const MsSite *site, GError **error)
{
  if (m->mode == MS_RACE_MEMO_MATCH && !ms_racememo_diverge (m, rc, error))
    return FALSE;
  m->dirty = TRUE;
  ms_racecheck_uninitialised (rc, offset, size, thread, site);
  return TRUE;
}

G_END_DECLS
