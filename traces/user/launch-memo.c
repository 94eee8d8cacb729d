/* launch-memo.c - launches a program need not run (see launch-memo.h).
 *
 * Assumptions:
 *   - a launch whose kernel only reads and writes memory (no printf,
 *     malloc, clock, graph conditions: the caller's `eligible`) leaves
 *     memory in a state that depends on nothing but its key and the state
 *     it found; where several results are possible (atomics racing), the
 *     one memsim computed once is as good as another;
 *   - equal 128-bit hashes are equal pages;
 *   - the host writes device memory only through the runtime, which says
 *     so (ms_launch_memo_written), and a launch writes only where the
 *     engine marks (MsLaunch.dirty_pages) or, not marked, anywhere;
 *     memory the host writes by itself is hashed again at each launch.
 */
#include "config.h"

#include "launch-memo.h"

#include <string.h>
#include <xxhash.h>

#define PAGE_SHIFT 12
#define PAGE ((gsize) 1 << PAGE_SHIFT)
/* XXH3's rate on this machine's 4 KiB pages (some 7 GB/s): memory the host
 * writes by itself is hashed for a key only when its launches take ten
 * times longer than that */
#define HASH_BYTES_PER_SECOND 7e9
/* keys remembered; a program past that forgets them all */
#define MAX_KEYS 4096

/* A buffer's state: a hash per page, and the pages written since they
 * were hashed. */
typedef struct {
  guint8 *base;
  gsize bytes;
  guint pages;
  XXH128_hash_t *page;
  guint8 *stale;           /* per page: written since hashed */
  guint8 *dirty;           /* per page: the engine's marks of the running launch */
} Buf;

/* The memory's state: the buffers launches had, by base; the running
 * launch's, in its order. */
typedef struct {
  GHashTable *bufs;        /* base -> Buf */
  guint n;
  Buf **of;                /* the running launch's buffers */
  guint8 **dirty_of;       /* ... their dirty[] */
} Known;

/* Pages a launch changed: bytes [offset, offset + length) of buffer
 * `buffer`, kept at `at` in Done.bytes. */
typedef struct {
  guint buffer;
  gsize offset, length, at;
} Span;

/* The last launch of a key. */
typedef struct {
  double seconds;          /* the time it took here */
  gboolean have_before;    /* before is known */
  gboolean have_effect;    /* ... and spans and bytes */
  XXH128_hash_t before;    /* the state it found */
  GArray *spans;           /* of Span: the pages it changed, as it left them */
  GByteArray *bytes;
  GArray *hashes;          /* of XXH128_hash_t: those pages' hashes, in order */
} Done;

struct MsLaunchMemo {
  GHashTable *done;        /* GBytes key -> Done */
  gsize budget, kept;      /* bytes of pages the Dones may keep, and keep */
  GQueue kept_keys;        /* keys whose Done keeps pages, oldest first (refs) */
  Known known;
  /* the launch begun */
  GBytes *key;
  gboolean eligible;
  Done *hit;               /* it need not run: as this Done */
  gboolean have_before;
  XXH128_hash_t before;    /* the state it found, when taken */
};

static void
buf_free (gpointer p)
{
  Buf *f = p;
  g_free (f->page);
  g_free (f->stale);
  g_free (f->dirty);
  g_free (f);
}

/* The running launch's buffers: those known kept where their base and
 * size are the same, the others new with every page stale. */
static void
known_for (Known *k, const MsMemoryView *mem)
{
  if (k->bufs == NULL)
    k->bufs = g_hash_table_new_full (NULL, NULL, NULL, buf_free);
  k->n = mem->n;
  k->of = g_renew (Buf *, k->of, MAX (mem->n, 1));
  k->dirty_of = g_renew (guint8 *, k->dirty_of, MAX (mem->n, 1));
  for (guint b = 0; b < mem->n; b++)
    {
      Buf *f = g_hash_table_lookup (k->bufs, mem->base[b]);
      if (f == NULL || f->bytes != mem->bytes[b])
        {
          f = g_new0 (Buf, 1);
          f->base = mem->base[b];
          f->bytes = mem->bytes[b];
          f->pages = (guint) ((f->bytes + PAGE - 1) >> PAGE_SHIFT);
          f->page = g_new0 (XXH128_hash_t, MAX (f->pages, 1));
          f->stale = g_malloc (MAX (f->pages, 1));
          memset (f->stale, 1, MAX (f->pages, 1));
          f->dirty = g_malloc0 (MAX (f->pages, 1));
          g_hash_table_replace (k->bufs, f->base, f);
        }
      k->of[b] = f;
      k->dirty_of[b] = f->dirty;
    }
}

static void
known_clear (Known *k)
{
  if (k->bufs)
    g_hash_table_destroy (k->bufs);
  g_free (k->of);
  g_free (k->dirty_of);
  memset (k, 0, sizeof *k);
}

static void
mark_stale (Buf *f, gsize offset, gsize length)
{
  if (length == 0 || offset >= f->bytes)
    return;
  gsize end = MIN (offset + length, f->bytes);
  memset (f->stale + (offset >> PAGE_SHIFT), 1,
          ((end - 1) >> PAGE_SHIFT) - (offset >> PAGE_SHIFT) + 1);
}

/* Rehashes the running launch's stale pages (each one that changed handed
 * to `changed`: its buffer, page and new hash); the state's hash. */
static XXH128_hash_t
known_refresh (Known *k, void (*changed) (gpointer data, guint b, guint page, XXH128_hash_t h),
               gpointer data)
{
  XXH3_state_t *all = XXH3_createState ();
  XXH3_128bits_reset (all);
  for (guint b = 0; b < k->n; b++)
    {
      Buf *f = k->of[b];
      for (guint i = 0; i < f->pages; i++)
        if (f->stale[i])
          {
            gsize off = (gsize) i << PAGE_SHIFT;
            XXH128_hash_t h = XXH3_128bits (f->base + off, MIN (PAGE, f->bytes - off));
            if (changed != NULL && !XXH128_isEqual (h, f->page[i]))
              changed (data, b, i, h);
            f->page[i] = h;
            f->stale[i] = 0;
          }
      guint64 place[2] = { (guint64) (guintptr) f->base, f->bytes };
      XXH3_128bits_update (all, place, sizeof place);
      XXH3_128bits_update (all, f->page, f->pages * sizeof *f->page);
    }
  XXH128_hash_t h = XXH3_128bits_digest (all);
  XXH3_freeState (all);
  return h;
}

static gsize
effect_bytes (const Done *d)
{
  return (d->bytes ? d->bytes->len : 0) + (d->hashes ? d->hashes->len * sizeof (XXH128_hash_t) : 0);
}

static void
effect_drop (MsLaunchMemo *memo, Done *d)
{
  memo->kept -= effect_bytes (d);
  g_clear_pointer (&d->spans, g_array_unref);
  g_clear_pointer (&d->bytes, g_byte_array_unref);
  g_clear_pointer (&d->hashes, g_array_unref);
  d->have_effect = FALSE;
}

static void
done_free (gpointer p)
{
  Done *d = p;
  g_clear_pointer (&d->spans, g_array_unref);
  g_clear_pointer (&d->bytes, g_byte_array_unref);
  g_clear_pointer (&d->hashes, g_array_unref);
  g_free (d);
}

static void
forget_all (MsLaunchMemo *memo)
{
  g_hash_table_remove_all (memo->done);
  g_queue_clear_full (&memo->kept_keys, (GDestroyNotify) g_bytes_unref);
  memo->kept = 0;
}

MsLaunchMemo *
ms_launch_memo_new (gsize budget_bytes)
{
  MsLaunchMemo *memo = g_new0 (MsLaunchMemo, 1);
  memo->done = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                      (GDestroyNotify) g_bytes_unref, done_free);
  memo->budget = budget_bytes;
  g_queue_init (&memo->kept_keys);
  return memo;
}

static void
pending_clear (MsLaunchMemo *memo)
{
  g_clear_pointer (&memo->key, g_bytes_unref);
  memo->have_before = FALSE;
  memo->hit = NULL;
}

void
ms_launch_memo_free (MsLaunchMemo *memo)
{
  if (memo == NULL)
    return;
  pending_clear (memo);
  forget_all (memo);
  g_hash_table_destroy (memo->done);
  known_clear (&memo->known);
  g_free (memo);
}

void
ms_launch_memo_written (MsLaunchMemo *memo, const void *p, gsize bytes)
{
  GHashTableIter it;
  gpointer v;
  if (memo->known.bufs == NULL)
    return;
  g_hash_table_iter_init (&it, memo->known.bufs);
  while (g_hash_table_iter_next (&it, NULL, &v))
    {
      Buf *f = v;
      guintptr lo = MAX ((guintptr) p, (guintptr) f->base);
      guintptr hi = MIN ((guintptr) p + bytes, (guintptr) f->base + f->bytes);
      if (lo < hi)
        mark_stale (f, lo - (guintptr) f->base, hi - lo);
    }
}

gboolean
ms_launch_memo_begin (MsLaunchMemo *memo, GBytes *key, const MsMemoryView *mem,
                      gboolean eligible, guint8 ***dirty)
{
  pending_clear (memo);
  Known *k = &memo->known;
  known_for (k, mem);
  *dirty = k->dirty_of;
  memo->key = g_bytes_ref (key);
  memo->eligible = eligible;
  /* what the host writes by itself may have changed anywhere */
  double host_bytes = 0;
  for (guint b = 0; b < mem->n; b++)
    if (mem->host[b])
      {
        mark_stale (k->of[b], 0, mem->bytes[b]);
        host_bytes += (double) mem->bytes[b];
      }
  if (!eligible)
    return FALSE;
  Done *d = g_hash_table_lookup (memo->done, key);
  if (host_bytes > 0 && (d == NULL || d->seconds < 10 * host_bytes / HASH_BYTES_PER_SECOND))
    return FALSE;
  memo->before = known_refresh (k, NULL, NULL);
  memo->have_before = TRUE;
  if (d != NULL && d->have_effect && XXH128_isEqual (memo->before, d->before))
    {
      memo->hit = d;
      return TRUE;
    }
  return FALSE;
}

void
ms_launch_memo_skipped (MsLaunchMemo *memo, const MsMemoryView *mem)
{
  Done *d = memo->hit;
  g_return_if_fail (d != NULL);
  /* the pages as it left them, and their hashes (no page is stale: the
   * state was taken in ms_launch_memo_begin) */
  Known *k = &memo->known;
  guint h = 0;
  for (guint i = 0; d->spans != NULL && i < d->spans->len; i++)
    {
      const Span *s = &g_array_index (d->spans, Span, i);
      memcpy (mem->base[s->buffer] + s->offset, d->bytes->data + s->at, s->length);
      for (gsize off = 0; off < s->length; off += PAGE)
        k->of[s->buffer]->page[(s->offset + off) >> PAGE_SHIFT]
          = g_array_index (d->hashes, XXH128_hash_t, h++);
    }
  pending_clear (memo);
}

/* known_refresh's `changed` while taking a launch's effect: the page's
 * span, appended or grown. */
typedef struct {
  const MsMemoryView *mem;
  GArray *spans, *hashes;
  gsize need;
} Take;

static void
take_page (gpointer data, guint b, guint page, XXH128_hash_t h)
{
  Take *t = data;
  g_array_append_val (t->hashes, h);
  gsize off = (gsize) page << PAGE_SHIFT, len = MIN (PAGE, t->mem->bytes[b] - off);
  Span *last = t->spans->len ? &g_array_index (t->spans, Span, t->spans->len - 1) : NULL;
  if (last && last->buffer == b && last->offset + last->length == off)
    last->length += len;
  else
    g_array_append_val (t->spans, ((Span) { b, off, len, t->need }));
  t->need += len;
}

/* The spans into d (FALSE, nothing kept: more than the budget holds even
 * after dropping every other key's), the oldest keys' dropped to make
 * room. */
static gboolean
effect_keep (MsLaunchMemo *memo, Done *d, const MsMemoryView *mem, GArray *spans,
             GArray *hashes, gsize need)
{
  need += hashes->len * sizeof (XXH128_hash_t);
  if (need > memo->budget)
    return FALSE;
  while (memo->kept + need > memo->budget && !g_queue_is_empty (&memo->kept_keys))
    {
      GBytes *old = g_queue_pop_head (&memo->kept_keys);
      Done *o = g_hash_table_lookup (memo->done, old);
      if (o != NULL && o->have_effect)
        effect_drop (memo, o);
      g_bytes_unref (old);
    }
  d->bytes = g_byte_array_sized_new ((guint) need);
  for (guint i = 0; i < spans->len; i++)
    {
      const Span *s = &g_array_index (spans, Span, i);
      g_byte_array_append (d->bytes, mem->base[s->buffer] + s->offset, (guint) s->length);
    }
  d->spans = g_array_ref (spans);
  d->hashes = g_array_ref (hashes);
  memo->kept += need;
  return TRUE;
}

static gint
bytes_compare (gconstpointer a, gconstpointer b)
{
  return g_bytes_equal (a, b) ? 0 : 1;
}

void
ms_launch_memo_ran (MsLaunchMemo *memo, const MsMemoryView *mem, gboolean marked,
                    gboolean whole, double seconds)
{
  Known *k = &memo->known;
  /* what it wrote is stale: where the engine marked, else anywhere */
  for (guint b = 0; b < k->n; b++)
    {
      Buf *f = k->of[b];
      if (marked)
        for (guint i = 0; i < f->pages; i++)
          f->stale[i] |= f->dirty[i];
      else
        memset (f->stale, 1, f->pages);
      memset (f->dirty, 0, f->pages);
    }
  if (memo->key == NULL)
    return;
  if (g_hash_table_size (memo->done) >= MAX_KEYS)
    forget_all (memo);
  /* the key's earlier launch, replaced; whether it found this state too */
  Done *old = g_hash_table_lookup (memo->done, memo->key);
  gboolean again = old != NULL && old->have_before && memo->have_before
                   && XXH128_isEqual (old->before, memo->before);
  if (old != NULL && old->have_effect)
    {
      GList *at = g_queue_find_custom (&memo->kept_keys, memo->key, bytes_compare);
      if (at != NULL)
        {
          g_bytes_unref (at->data);
          g_queue_delete_link (&memo->kept_keys, at);
        }
      effect_drop (memo, old);
    }
  Done *d = g_new0 (Done, 1);
  d->seconds = seconds;
  if (memo->eligible && whole && memo->have_before)
    {
      g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (Span));
      g_autoptr (GArray) hashes = g_array_new (FALSE, FALSE, sizeof (XXH128_hash_t));
      Take t = { mem, spans, hashes, 0 };
      known_refresh (k, take_page, &t);
      d->before = memo->before;
      d->have_before = TRUE;
      /* its pages are kept when its key found this state before (a loop
       * that repeats) or it changed nothing: a launch that never repeats
       * pays the hashes of what it wrote, not a copy */
      if ((again || spans->len == 0) && effect_keep (memo, d, mem, spans, hashes, t.need))
        {
          d->have_effect = TRUE;
          g_queue_push_tail (&memo->kept_keys, g_bytes_ref (memo->key));
        }
    }
  g_hash_table_replace (memo->done, g_steal_pointer (&memo->key), d);
  pending_clear (memo);
}
