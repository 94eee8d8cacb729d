/* racememo.c - the race check of a block that repeats the block before it
 * (racememo.h has the rule and its assumptions). */
#include "config.h"
#include "racememo.h"

#include <string.h>

#include "races.h"

/* Accesses a block may record (152 bytes each: 38 MiB at most per worker,
 * grown from 256 as blocks need them: a tiled GEMM's block has a few
 * thousand, FDTD3d's 117 312); a longer block is checked, not recorded,
 * and the next block too. */
#define MIN_EVENTS 256
#define MAX_EVENTS 262144

/* A worker stops comparing when what it replayed and a quarter of what it
 * recorded come to more than half of what it compared, beyond this many
 * accesses and the recording of the model it has (its first recording
 * has had nothing to be compared with yet; racememo.h). */
#define SLACK 4096

/* Each memo's serials are a range of their own, so that a serial names
 * one access in the whole process (a consumer that outlived a memo, or
 * kept a record of another worker's, never mistakes one for another). */
#define SERIAL_RANGE (G_GUINT64_CONSTANT (1) << 40)
static guint64 serial_ranges;

void
ms_racememo_init (MsRaceMemo *m, gboolean off, guint max_events)
{
  memset (m, 0, sizeof *m);
  m->serials = __atomic_fetch_add (&serial_ranges, SERIAL_RANGE, __ATOMIC_RELAXED);
  m->disabled = off;
  m->max = max_events > 0 ? max_events : MAX_EVENTS;
  m->mode = MS_RACE_MEMO_OFF;
  m->dirty = TRUE;   /* no block before the first */
  m->finds = g_array_new (FALSE, FALSE, sizeof (guint));
}

void
ms_racememo_clear (MsRaceMemo *m)
{
  g_free (m->ev);
  if (m->finds)
    g_array_unref (m->finds);
  memset (m, 0, sizeof *m);
}

/* Checks the model's first pos accesses, as the block made them: their
 * findings are logged, and kept as the model's. */
static gboolean
replay (MsRaceMemo *m, MsRaceCheck *rc, GError **error)
{
  /* each at its own epoch, __syncwarp count and values (nothing else of
   * the emulator's state is read by the check); then the current ones back */
  guint32 epoch = rc->epoch, same_value = rc->same_value;
  guint16 wsync[G_N_ELEMENTS (rc->wsync)];
  memcpy (wsync, rc->wsync, sizeof wsync);
  g_array_set_size (m->finds, 0);
  rc->found_log = m->finds;
  gboolean ok = TRUE;
  for (guint k = 0; k < m->pos && ok; k++)
    {
      const MsRaceEvent *e = &m->ev[k];
      guint warp = MS_RACE_KEY_FIELD (e->key, MS_RACE_KEY_WARP);
      guint64 offset[32];
      for (guint i = 0; i < 32; i++)
        offset[i] = e->offset[i];
      rc->epoch = m->epoch0 + (guint32) e->key;
      rc->wsync[warp] = (guint16) MS_RACE_KEY_FIELD (e->key, MS_RACE_KEY_WSYNC);
      rc->same_value = e->same_value;
      ok = ms_racecheck_access (rc, offset, e->lanes, MS_RACE_KEY_FIELD (e->key, MS_RACE_KEY_SIZE),
                                (MsOp) MS_RACE_KEY_FIELD (e->key, MS_RACE_KEY_OP), warp,
                                MS_RACE_KEY_FIELD (e->key, MS_RACE_KEY_SITE), error);
    }
  rc->epoch = epoch;
  rc->same_value = same_value;
  memcpy (rc->wsync, wsync, sizeof wsync);
  m->replayed += m->pos;
  m->n = m->pos;
  return ok;
}

gboolean
ms_racememo_grow (MsRaceMemo *m)
{
  if (m->cap >= m->max)
    {
      m->dirty = TRUE;
      m->mode = MS_RACE_MEMO_OFF;
      return FALSE;
    }
  m->cap = MIN (m->max, MAX (MIN_EVENTS, 2 * m->cap));
  m->ev = g_renew (MsRaceEvent, m->ev, m->cap);
  return TRUE;
}

gboolean
ms_racememo_diverge (MsRaceMemo *m, MsRaceCheck *rc, GError **error)
{
  m->compared += m->pos;
  gboolean ok = replay (m, rc, error);
  m->mode = MS_RACE_MEMO_RECORD;   /* recording goes on after them */
  return ok;
}

gboolean
ms_racememo_block_end (MsRaceMemo *m, MsRaceCheck *rc, GError **error)
{
  rc->found_log = NULL;
  if (m->mode != MS_RACE_MEMO_MATCH)
    return TRUE;
  m->compared += m->pos;
  if (m->pos < m->n)
    {
      /* the model's first accesses only: checked, so that their findings
       * count, and the model from now on */
      gboolean ok = replay (m, rc, error);
      rc->found_log = NULL;
      return ok;
    }
  /* all of them: the model's findings once more, in its entries */
  MsRaceLog *log = rc->log;
  for (guint i = 0; i < m->finds->len; i++)
    {
      MsRace *r = &g_array_index (log->races, MsRace, g_array_index (m->finds, guint, i));
      r->count++;
      if (r->intra_warp)
        log->n_warp_hazards++;
      else
        log->n_races++;
    }
  return TRUE;
}

void
ms_racememo_block_begin (MsRaceMemo *m, MsRaceCheck *rc)
{
  gboolean model = m->mode != MS_RACE_MEMO_OFF && !m->dirty;
  if (m->replayed + m->recorded / 4 > m->compared / 2 + SLACK + m->n / 4)
    m->disabled = TRUE;
  if (m->disabled)
    m->mode = MS_RACE_MEMO_OFF;
  else if (model)
    m->mode = MS_RACE_MEMO_MATCH;
  else
    {
      m->mode = MS_RACE_MEMO_RECORD;
      m->n = 0;
      g_array_set_size (m->finds, 0);
    }
  /* a recorded block's findings are the model's */
  rc->found_log = m->mode == MS_RACE_MEMO_RECORD ? m->finds : NULL;
  m->pos = 0;
  m->dirty = FALSE;
  m->epoch0 = rc->epoch;
}
