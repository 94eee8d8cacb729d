/* racecheck.c - shared-memory race detection in the emulator, as
 * compute-sanitizer's racecheck does on the GPU.
 *
 * The rules (docs/model.md, "Races"):
 *  - Two accesses of the same shared bytes, at least one a write, by
 *    threads of different warps of a block, with no __syncthreads between
 *    them, are a race.  The emulator runs the warps of a block one after
 *    another between barriers, so a missing barrier does not change the
 *    values it computes; the check therefore reasons about happens-before
 *    through barriers, never about values: every __syncthreads that
 *    releases the block starts a new *epoch*, and two accesses of
 *    different warps race exactly when they fall in the same epoch.
 *  - Atomics do not race with each other; an atomic and a plain access of
 *    another warp in the same epoch do.
 *  - Two writes of the same value are no race (the result does not depend
 *    on their order): compute-sanitizer's racecheck reports none for
 *    memsim's store probes, whose warps store equal values to shared
 *    elements (measured on the H100, gpu/device-racecheck.sh).  The
 *    emulator knows the value of a built-in kernel's store
 *    (MsRaceCheck.same_value); a user's kernel stores natively after the
 *    stop, so there every write-write overlap counts.
 *  - Intra-warp hazards: two lanes of one warp, at different sites, one
 *    writing what the other reads or writes, with no __syncwarp between
 *    (counted mod 16: accesses 16 __syncwarps apart look unseparated).
 *    With independent thread scheduling (sm_70+) the lanes of a warp need
 *    not run in lockstep, so this is a warning there; before sm_70 a warp
 *    runs in lockstep and nothing is reported.  Any __syncwarp of the warp
 *    (whatever its mask) separates its lanes' accesses.
 *  - A read of bytes no thread has written yet is the emulator's
 *    uninitialised-read error, unless another warp writes them later in the
 *    same epoch: then the read raced with that write (it happens for a
 *    tiled transpose without its barrier, where warp 0 reads what warps
 *    1..31 have not written yet), and the race is what is reported.
 *
 * The shadow state, for speed: one 24-byte record per 4-byte word of
 * shared memory (racecheck.h), three 64-bit stamps: the last write and up
 * to two reads of the current epoch (the first, and one of another lane,
 * preferably of another warp), each packing the epoch, the thread (warp
 * and lane), the site, the bytes of the word and its warp's __syncwarp
 * count (mod 16).  Stamps carry the epoch, which counts on across the
 * blocks a worker runs, so no record is cleared between barriers or
 * blocks.  Only shared-memory accesses pay: a read is one or two loads and
 * a store, a write three loads and a store, in the common case (a word
 * touched by one lane per epoch, or read by several).
 *
 * What it does not see (documented as such):
 *  - With one write record per word, a race on a word whose bytes were
 *    written by two warps in one epoch (say two 1-byte stores to bytes 0 and
 *    1) can be missed after the second write; no race is invented.
 *  - Reads keep two slots: a third reader's race is found through the two
 *    that are kept (a race is reported, not necessarily every pair).
 *  - Global memory is not checked (compute-sanitizer's racecheck checks
 *    shared memory only, too); neither are __syncthreads_count-style or
 *    named barriers (the CUDA subset has none), nor memory fences.
 */
#include "config.h"
#include "racecheck.h"

#include <string.h>

#include "emulator.h"

/* Pending unwritten reads kept per epoch; beyond this many, the reads past
 * the first ones are not kept (their bytes are checked through the kept
 * ones' words only). */
#define MAX_PENDING 65536

void
ms_racecheck_init (MsRaceCheck *rc, guint shared_bytes, gboolean allow, gboolean warp_hazards,
                   const char *kernel, MsSourceLineFn source_line, gpointer source_data)
{
  memset (rc, 0, sizeof *rc);
  rc->n_words = (shared_bytes + 3) / 4;
  rc->words = g_new0 (MsRaceWord, rc->n_words);
  rc->allow = allow;
  rc->warp_hazards = warp_hazards;
  rc->log = ms_race_log_new ();
  rc->log->warp_hazards_checked = warp_hazards;
  rc->pending = g_array_new (FALSE, FALSE, sizeof (MsRacePending));
  rc->kernel = kernel;
  rc->source_line = source_line;
  rc->source_data = source_data;
}

void
ms_racecheck_clear (MsRaceCheck *rc)
{
  g_free (rc->words);
  ms_race_log_free (rc->log);
  if (rc->pending)
    g_array_unref (rc->pending);
  memset (rc, 0, sizeof *rc);
}

void
ms_racecheck_block_begin (MsRaceCheck *rc, guint64 block, const guint block_idx[3],
                          const guint block_dim[3])
{
  if (rc->epoch >= G_MAXUINT32 - (1u << 28))
    {
      /* the stamps would wrap: start over from clean records */
      memset (rc->words, 0, rc->n_words * sizeof (MsRaceWord));
      rc->epoch = 0;
    }
  rc->epoch++;
  rc->block = block;
  memcpy (rc->block_idx, block_idx, sizeof rc->block_idx);
  memcpy (rc->block_dim, block_dim, sizeof rc->block_dim);
  rc->seq = 0;
  /* the counts start again: only a stamp's count of this epoch (of this
   * block) is ever compared, and mod 16, so this changes no finding, and
   * a block's counts depend on the block alone (racememo.h) */
  memset (rc->wsync, 0, sizeof rc->wsync);
  g_array_set_size (rc->pending, 0);
}

static void
fill_side (const MsRaceCheck *rc, MsRaceSide *side, guint op, guint warp, guint lane, guint site)
{
  guint t = warp * 32 + lane, bx = rc->block_dim[0], by = rc->block_dim[1];
  side->site = ms_site_lookup ((int) site);
  side->op = (guint8) op;
  side->warp = (guint16) warp;
  side->thread[0] = t % bx;
  side->thread[1] = t / bx % by;
  side->thread[2] = t / (bx * by);
}

/* The op of stamp k of a word (0: the writer; 1, 2: readers). */
static inline MsOp
stamp_op (guint64 s, guint k)
{
  return k > 0 ? MS_OP_LD : (s & MS_RC_ATOMIC) ? MS_OP_ATOMIC : MS_OP_ST;
}

/* A race between warps on word w: it raced this epoch
 * (ms_racecheck_epoch_end); a write is about to stamp the record with this
 * epoch, a read's writer has it. */
static inline void
mark_raced (MsRaceCheck *rc, MsRaceWord *w, MsOp op)
{
  w->w |= MS_RC_RACED;
  if (op != MS_OP_LD)
    w->w = (w->w & ~(guint64) G_MAXUINT32) | rc->epoch;
}

static gboolean found_new (MsRaceCheck *rc, MsRaceWord *w, guint offset, guint mask, MsOp op,
                           guint warp, guint lane, guint site, guint64 other, MsOp other_op,
                           gboolean intra, guint32 pair, GError **error);

/* An atomic, or a load or store with a memory order (MsSite.ordered):
 * two such accesses synchronise, they do not race. */
static gboolean
strong (MsOp op, guint site)
{
  const MsSite *s = ms_site_lookup ((int) site);
  return op == MS_OP_ATOMIC || (s != NULL && s->ordered);
}

gboolean
ms_racecheck_found (MsRaceCheck *rc, MsRaceWord *w, guint offset, guint mask, MsOp op,
                    guint warp, guint lane, guint site, GError **error)
{
  guint thread = warp * 32 + lane;
  guint64 stamps[3] = { w->w, w->r[0], w->r[1] };
  rc->suspects++;
  /* a store of the value already there cannot race with a plain store */
  gboolean same = op == MS_OP_ST && (rc->same_value >> lane & 1u) && !(w->w & MS_RC_ATOMIC);
  guint first = same ? 1 : 0, n = op != MS_OP_LD ? 3u : 1u;

  /* the stamps of other lanes this access overlaps (atomics and ordered
   * accesses do not race with each other), in order: the first of another warp (a race); else the
   * first of this warp at another site with no __syncwarp between (an
   * intra-warp hazard) */
  guint hit = 3, hazard = 3;
  for (guint k = first; k < n; k++)
    {
      if (!ms_rc_conflicts (stamps[k], rc->epoch, mask, thread)
          || (strong (op, site) && strong (stamp_op (stamps[k], k), MS_RC_SITE (stamps[k]))))
        continue;
      if (MS_RC_THREAD (stamps[k]) / 32 != warp)
        {
          hit = k;
          break;
        }
      if (hazard == 3 && rc->warp_hazards && MS_RC_SITE (stamps[k]) != site
          && MS_RC_WSYNC (stamps[k]) == (rc->wsync[warp] & 0xfu))
        hazard = k;
    }
  gboolean intra = hit == 3 && hazard != 3;
  if (intra)
    hit = hazard;
  if (hit == 3)
    return TRUE;
  guint64 other = stamps[hit];
  MsOp other_op = stamp_op (other, hit);

  /* The pair found again since it was logged (a warp-synchronous
   * reduction's lanes find one pair hundreds of thousands of times): its
   * count goes up and the example stays, as ms_race_log_add would do,
   * without building the example (site lookups, thread coordinates) and
   * searching the log.  callgrind, reduce_unroll_last at its default size:
   * 604.8 -> 509.3 M instructions. */
  guint32 pair = 1u << 31 | (guint32) intra << 30 | (guint32) other_op << 28
                 | (guint32) op << 26 | MS_RC_SITE (other) << 12 | site;
  if (pair == rc->last_pair && (intra || rc->allow))
    {
      MsRace *r = &g_array_index (rc->log->races, MsRace, rc->last_entry);
      if (r->found_block < rc->block || (r->found_block == rc->block && r->found_seq < rc->seq))
        {
          rc->seq++;
          if (!intra)
            mark_raced (rc, w, op);
          r->count++;
          if (intra)
            rc->log->n_warp_hazards++;
          else
            rc->log->n_races++;
          if (rc->found_log)
            g_array_append_val (rc->found_log, rc->last_entry);
          return TRUE;
        }
    }
  return found_new (rc, w, offset, mask, op, warp, lane, site, other, other_op, intra, pair,
                    error);
}

/* A finding with its example: logged, or the fatal race's error. */
static gboolean
found_new (MsRaceCheck *rc, MsRaceWord *w, guint offset, guint mask, MsOp op, guint warp,
           guint lane, guint site, guint64 other, MsOp other_op, gboolean intra, guint32 pair,
           GError **error)
{
  guint t = MS_RC_THREAD (other);
  MsRace race = { .intra_warp = intra, .offset = offset + (guint) __builtin_ctz (mask),
                  .count = 1, .found_block = rc->block, .found_seq = rc->seq++ };
  fill_side (rc, &race.first, other_op, t / 32, t % 32, MS_RC_SITE (other));
  fill_side (rc, &race.second, op, warp, lane, site);
  memcpy (race.block, rc->block_idx, sizeof race.block);
  if (!intra)
    mark_raced (rc, w, op);
  if (intra || rc->allow)
    {
      MsRace *r = ms_race_log_add (rc->log, &race);
      rc->last_pair = pair;
      rc->last_entry = (guint) (r - (MsRace *) (gpointer) rc->log->races->data);
      if (rc->found_log)
        g_array_append_val (rc->found_log, rc->last_entry);
      return TRUE;
    }
  g_autofree char *what = ms_race_describe (&race, rc->source_line, rc->source_data);
  g_set_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_RACE,
               "%s: race on shared memory between warps: %s, with no __syncthreads between "
               "them; put a __syncthreads between the two accesses (or pass --allow-races to "
               "count races and go on)", rc->kernel, what);
  return FALSE;
}

void
ms_racecheck_uninitialised (MsRaceCheck *rc, guint offset, guint size, guint thread,
                            const MsSite *site)
{
  if (rc->pending->len < MAX_PENDING)
    {
      MsRacePending p = { offset, size, thread, site };
      g_array_append_val (rc->pending, p);
    }
}

const MsRacePending *
ms_racecheck_epoch_end (MsRaceCheck *rc, const guint8 *written)
{
  static __thread MsRacePending failed;
  const MsRacePending *result = NULL;
  for (guint i = 0; i < rc->pending->len && result == NULL; i++)
    {
      const MsRacePending *p = &g_array_index (rc->pending, MsRacePending, i);
      guint warp = p->thread / 32;
      gboolean raced = TRUE;
      for (guint b = 0; b < p->size && raced; b++)
        {
          const MsRaceWord *w = &rc->words[(p->offset + b) >> 2];
          raced = written[p->offset + b] && MS_RC_EPOCH (w->w) == rc->epoch
                  && (MS_RC_THREAD (w->w) / 32 != warp || (w->w & MS_RC_RACED));
        }
      if (!raced)
        {
          failed = *p;
          result = &failed;
        }
    }
  g_array_set_size (rc->pending, 0);
  return result;
}
