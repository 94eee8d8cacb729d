/* racememo.h - the race check of a block that repeats the block before it.
 *
 * A reduction's, a tiled transpose's or a tiled GEMM's blocks make the
 * same shared accesses, at the same offsets, in the same order, block
 * after block; checking each of them (racecheck.h: a lane's stamps read
 * and written) cost 16-28% of those kernels' whole runs, and 45% of a
 * warp-synchronous reduction's, whose every block finds the same
 * intra-warp hazards.  Here a block that repeats the last block is
 * compared with it instead, access by access, and checked only from where
 * it differs.
 *
 * Assumptions (each is what racecheck.c reads, nothing more):
 *  - What the check finds in a block, and what it leaves in the words,
 *    depend on the block's sequence of shared accesses alone: each
 *    access's epoch counted from the block's first, its warp's
 *    __syncwarps in the block (mod 16, as stamps keep them), site, warp,
 *    op, size, lanes and the lanes' offsets, and, for an access with a
 *    suspect lane (ms_racecheck_found: a stamp of this epoch, of another
 *    lane, on the same bytes), which lanes store the value already there.
 *    Stamps of earlier blocks are of older epochs, so what the words held
 *    before the block never matters.
 *  - So a block whose accesses equal, one by one, those of the block
 *    recorded (the model) finds what the model found: each finding adds
 *    one to its pair of sites' count, whose entry the model made or found
 *    (its example, of an earlier block, stays).  While a block repeats the
 *    model its accesses are only compared, and when it ends having
 *    repeated all of them, the model's findings are counted again.
 *  - At the first access that differs, or a read of unwritten bytes (which
 *    the epoch's end judges from the words), the words are brought up to
 *    date: the repeated accesses are checked then (replay), each at its
 *    epoch, __syncwarp count and values, finding what they find, and the
 *    block goes on checked, recorded as the next block's model.  A block
 *    that ends having repeated only the model's first accesses is replayed
 *    the same way.
 *  - A block with a read of unwritten bytes, or too many accesses to
 *    record, is no model: the block after it is checked.  Only a block
 *    that repeats all of the model's accesses saves work; one that stops
 *    repeating pays the replay, and recording costs about a quarter of a
 *    check.  A worker whose blocks keep differing (what it replayed and a
 *    quarter of what it recorded above half of what it compared) stops
 *    comparing.
 *  - The same comparison vouches for the shared records the models see: an
 *    access found equal to the model's has the same site, warp, op, size,
 *    lanes and offsets, so its record equals the model's record in every
 *    field but the block.  Each recorded access gets a serial (never 0,
 *    unique in the process: each memo draws from a range of its own),
 *    and the emulator hands its record on with the word "first delivery
 *    of serial s at position p", each equal one with "a repeat of s"
 *    (MsRepeatHint, access.h): the models' run then adds what it kept for
 *    s instead of costing the record again (sim/models/run.c).
 *  - Nothing else changes with it: the same races, hazards, counts,
 *    examples and errors, on any number of threads (tests/test-racecheck.c
 *    runs its kernels with and without it; MEMSIM_NO_RACE_MEMO=1 turns it
 *    off).
 */
#pragma once

#include <string.h>

#include <glib.h>

#include "racecheck.h"

G_BEGIN_DECLS

/* One shared access of a block, as the check sees it. */
typedef struct {
  guint64 key;            /* epoch in the block, wsync mod 16, site, warp, op, size;
                             MS_RACE_EVENT_SUSPECT: a lane was suspect */
  guint32 lanes;
  guint32 same_value;     /* racecheck's, for the suspect's finding */
  guint32 offset[32];     /* the lanes' (others 0) */
  guint64 serial;         /* the record's name for the models (MsRepeatHint, access.h) */
} MsRaceEvent;

#define MS_RACE_EVENT_SUSPECT (G_GUINT64_CONSTANT (1) << 60)

typedef enum {
  MS_RACE_MEMO_RECORD,    /* checking, and recording the block's accesses */
  MS_RACE_MEMO_MATCH,     /* comparing with the model's, pos of n so far */
  MS_RACE_MEMO_OFF        /* checking only (the block, or the worker: disabled) */
} MsRaceMemoMode;

typedef struct {
  MsRaceMemoMode mode;
  MsRaceEvent *ev;        /* the model's accesses: n of them, room for cap (grown
                             on demand, to max) */
  guint n, cap, max;
  GArray *finds;          /* the model's findings: their entries in the log (guint) */
  guint pos;              /* MATCH: the block's accesses so far equal ev[0..pos) */
  gboolean dirty;         /* the block is no model (a read of unwritten bytes, or
                             too many accesses) */
  guint32 epoch0;         /* the block's first epoch */
  guint64 compared, replayed, recorded;   /* accesses, over the worker's blocks
                                             (compared: counted from pos when a
                                             block stops or ends repeating) */
  gboolean disabled;      /* for good (MEMSIM_NO_RACE_MEMO, or blocks that keep differing) */
  guint64 serials;        /* the last serial given to a recorded access */
  /* the last access: recorded as ev[pos] or equal to it (a repeat),
   * last_serial its serial, 0: neither; last_at = pos << 1 | repeat, one
   * word (two stored apart and read together made the read wait) (the
   * producer's word on the record: MsRepeatHint, access.h) */
  guint64 last_serial;
  guint32 last_at;
} MsRaceMemo;

#define MS_RACE_MEMO_LAST_POS(m) ((m)->last_at >> 1)
#define MS_RACE_MEMO_LAST_AGAIN(m) ((gboolean) ((m)->last_at & 1))

/* off: check every block (MEMSIM_NO_RACE_MEMO); max_events: the most a
 * block may record, 0 for the default (MEMSIM_RACE_MEMO_EVENTS, a test's
 * way to longer blocks than the default's). */
void ms_racememo_init (MsRaceMemo *m, gboolean off, guint max_events);
void ms_racememo_clear (MsRaceMemo *m);

/* A block begins (after ms_racecheck_block_begin). */
void ms_racememo_block_begin (MsRaceMemo *m, MsRaceCheck *rc);

/* The block ends (before the next begins, and after the worker's last):
 * what it repeated is counted, or replayed.  FALSE with *error set if the
 * check fails (it cannot: the model did not). */
gboolean ms_racememo_block_end (MsRaceMemo *m, MsRaceCheck *rc, GError **error);

/* Room for one more access: FALSE when the block has too many to keep (it
 * goes on checked, no model for the next). */
gboolean ms_racememo_grow (MsRaceMemo *m);

/* The block stops repeating the model: the accesses it repeated are
 * checked now; recording goes on from there.  FALSE as block_end. */
gboolean ms_racememo_diverge (MsRaceMemo *m, MsRaceCheck *rc, GError **error);

/* A key's fields: bit 0 up, the epoch in the block (32 bits), the warp's
 * __syncwarp count mod 16 (4), site (12: MS_MAX_SITES), warp (5), op (2),
 * size (5: 1..16).  ms_race_event_key packs them, the replay unpacks them
 * with MS_RACE_KEY_FIELD. */
#define MS_RACE_KEY_WSYNC 32, 0xfu
#define MS_RACE_KEY_SITE 36, 0xfffu
#define MS_RACE_KEY_WARP 48, 0x1fu
#define MS_RACE_KEY_OP 53, 0x3u
#define MS_RACE_KEY_SIZE 55, 0x1fu
#define MS_RACE_KEY_FIELD_(key, shift, mask) ((guint) ((key) >> (shift)) & (mask))
#define MS_RACE_KEY_FIELD(key, field) MS_RACE_KEY_FIELD_ (key, field)
#define MS_RACE_KEY_PUT_(value, shift, mask) ((guint64) ((value) & (mask)) << (shift))
#define MS_RACE_KEY_PUT(value, field) MS_RACE_KEY_PUT_ (value, field)

static inline guint64
ms_race_event_key (const MsRaceMemo *m, const MsRaceCheck *rc, guint size, MsOp op, guint warp,
                   guint site)
{
  return (guint64) (rc->epoch - m->epoch0) | MS_RACE_KEY_PUT (rc->wsync[warp], MS_RACE_KEY_WSYNC)
         | MS_RACE_KEY_PUT (site, MS_RACE_KEY_SITE) | MS_RACE_KEY_PUT (warp, MS_RACE_KEY_WARP)
         | MS_RACE_KEY_PUT ((guint) op, MS_RACE_KEY_OP) | MS_RACE_KEY_PUT (size, MS_RACE_KEY_SIZE);
}

/* Whether recorded access e is this one (offset[i] of lane i in lanes;
 * same_offsets >= 0: the caller has compared them, 1 if all equal). */
static inline gboolean
ms_race_event_same (const MsRaceEvent *e, guint64 key, guint32 lanes, guint32 same_value,
                    const guint64 *offset, int same_offsets)
{
  if ((e->key & ~MS_RACE_EVENT_SUSPECT) != key || e->lanes != lanes
      || ((e->key & MS_RACE_EVENT_SUSPECT) && e->same_value != same_value))
    return FALSE;
  if (same_offsets >= 0)
    return same_offsets;
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

/* The offsets the next access will be compared with (the model's next
 * access), or NULL: a caller that walks the lanes' offsets anyway may
 * compare them on the way (ms_racememo_access's same_offsets; a partial
 * warp's lanes one by one: callgrind, reduce_interleaved -2%). */
static inline const guint32 *
ms_racememo_next_offsets (const MsRaceMemo *m)
{
  return m->mode == MS_RACE_MEMO_MATCH && m->pos < m->n ? m->ev[m->pos].offset : NULL;
}

/* ms_racecheck_access, for a block that may repeat the model.  Offsets
 * are below the shared window (a few hundred KiB), so 32 bits keep them.
 * same_offsets: -1, or whether the lanes' offsets (truncated to 32 bits)
 * equal those of ms_racememo_next_offsets, as the caller found. */
static inline G_ALWAYS_INLINE gboolean
ms_racememo_access (MsRaceMemo *m, MsRaceCheck *rc, const guint64 *offset, guint32 lanes,
                    guint size, MsOp op, guint warp, guint site, int same_offsets,
                    GError **error)
{
  if (m->mode == MS_RACE_MEMO_MATCH)
    {
      guint64 key = ms_race_event_key (m, rc, size, op, warp, site);
      if (G_LIKELY (m->pos < m->n)
          && ms_race_event_same (&m->ev[m->pos], key, lanes, rc->same_value, offset,
                                 same_offsets))
        {
          m->last_serial = m->ev[m->pos].serial;
          m->last_at = m->pos++ << 1 | 1;
          return TRUE;
        }
      if (!ms_racememo_diverge (m, rc, error))
        return FALSE;
    }
  /* checked (one call: the check is inlined), and recorded unless there
   * is no room */
  MsRaceEvent *e = NULL;
  m->last_serial = 0;
  if (m->mode == MS_RACE_MEMO_RECORD && (G_LIKELY (m->n < m->cap) || ms_racememo_grow (m)))
    {
      m->last_at = m->n << 1;
      e = &m->ev[m->n++];
      m->recorded++;
      e->serial = m->last_serial = ++m->serials;
      e->key = ms_race_event_key (m, rc, size, op, warp, site);
      e->lanes = lanes;
      e->same_value = rc->same_value;
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
  guint64 suspects = rc->suspects;
  gboolean ok = ms_racecheck_access (rc, offset, lanes, size, op, warp, site, error);
  if (e != NULL && rc->suspects != suspects)
    e->key |= MS_RACE_EVENT_SUSPECT;
  return ok;
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
