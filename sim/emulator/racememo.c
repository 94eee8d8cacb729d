/* racememo.c - the race check of a block that repeats the block before it
 * (racememo.h has the rule and its assumptions). */
#include "config.h"
#include "racememo.h"

#include <string.h>

/* Accesses a block may record (144 bytes each: 9 MiB at most per worker);
 * a longer block is checked, not recorded, and the next block too. */
#define MAX_EVENTS 65536

/* A worker stops comparing when it has replayed more than a quarter of the
 * accesses it compared, beyond this many. */
#define REPLAY_SLACK 4096

void
ms_racememo_init (MsRaceMemo *m, gboolean off)
{
  memset (m, 0, sizeof *m);
  m->disabled = off;
  m->mode = MS_RACE_MEMO_OFF;
  m->dirty = TRUE;   /* no block before the first */
}

void
ms_racememo_clear (MsRaceMemo *m)
{
  g_free (m->ev);
  memset (m, 0, sizeof *m);
}

void
ms_racememo_block_begin (MsRaceMemo *m, const MsRaceCheck *rc)
{
  /* the block that ended: what it recorded, or repeated, is ev[0..n) */
  if (m->mode == MS_RACE_MEMO_MATCH)
    m->n = m->pos;
  gboolean model = m->mode != MS_RACE_MEMO_OFF && !m->dirty && rc->suspects == m->suspects0;
  if (m->replayed > m->compared / 4 + REPLAY_SLACK)
    m->disabled = TRUE;
  if (m->disabled)
    m->mode = MS_RACE_MEMO_OFF;
  else if (model)
    m->mode = MS_RACE_MEMO_MATCH;
  else
    {
      m->mode = MS_RACE_MEMO_RECORD;
      m->n = 0;
    }
  if (m->mode != MS_RACE_MEMO_OFF && m->ev == NULL)
    {
      m->cap = MAX_EVENTS;
      m->ev = g_new (MsRaceEvent, m->cap);
    }
  m->pos = 0;
  m->dirty = FALSE;
  m->epoch0 = rc->epoch;
  m->suspects0 = rc->suspects;
}

gboolean
ms_racememo_diverge (MsRaceMemo *m, MsRaceCheck *rc, GError **error)
{
  /* the accesses repeated so far, checked at their own epochs and
   * __syncwarp counts (no lane of them is suspect, so same_value, the
   * values' part, is never read); then the current ones back */
  guint32 epoch = rc->epoch;
  guint16 wsync[G_N_ELEMENTS (rc->wsync)];
  memcpy (wsync, rc->wsync, sizeof wsync);
  gboolean ok = TRUE;
  for (guint k = 0; k < m->pos && ok; k++)
    {
      const MsRaceEvent *e = &m->ev[k];
      guint warp = (guint) (e->key >> 48) & 0x1fu;
      guint64 offset[32];
      for (guint i = 0; i < 32; i++)
        offset[i] = e->offset[i];
      rc->epoch = m->epoch0 + (guint32) e->key;
      rc->wsync[warp] = (guint16) ((e->key >> 32) & 0xfu);
      ok = ms_racecheck_access (rc, offset, e->lanes, (guint) (e->key >> 55) & 0x1fu,
                                (MsOp) ((e->key >> 53) & 0x3u), warp,
                                (guint) (e->key >> 36) & 0xfffu, error);
    }
  rc->epoch = epoch;
  memcpy (rc->wsync, wsync, sizeof wsync);
  m->replayed += m->pos;
  m->n = m->pos;   /* recording goes on after them */
  m->mode = MS_RACE_MEMO_RECORD;
  return ok;
}
