/* parallel.h - the kernel library's data-parallel loops: input fill,
 * references and output checks over all cores.  Their results never depend
 * on the number of threads: work is cut into fixed chunks, each chunk's
 * result depends only on its index range, and "the first mismatch" is the
 * lowest index whatever chunk finds it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Work on [lo, hi): called once per chunk, on any thread. */
typedef void (*MsRangeFn) (gsize lo, gsize hi, gpointer data);

/* Calls fn over [0, n) in chunks of grain items (the last may be shorter)
 * on up to threads threads (0: one per core; the caller's thread is one of
 * them) and returns when all chunks are done.  Small ranges run on the
 * caller's thread alone. */
void ms_parallel_for (gsize n, gsize grain, guint threads, MsRangeFn fn, gpointer data);

/* A counter-based generator (SplitMix64's finaliser over key + index):
 * item i of a stream depends only on (key, i), so any chunk fills its part
 * of a buffer alone, in any order, on any thread. */
static inline guint64
ms_random_bits (guint64 key, guint64 i)
{
  guint64 z = key + (i + 1) * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94d049bb133111eb);
  return z ^ (z >> 31);
}

/* The key of stream k of a seed: distinct seeds and streams give unrelated
 * keys. */
static inline guint64
ms_random_key (guint32 seed, guint stream)
{
  return ms_random_bits (G_GUINT64_CONSTANT (0x6d656d73696d) ^ seed, stream);
}

/* The lowest index in a set of chunks' findings: each chunk offers the first
 * index it found (G_MAXSIZE: none). */
static inline void
ms_lowest_index_offer (gsize *lowest, gsize i)
{
  gsize cur = __atomic_load_n (lowest, __ATOMIC_RELAXED);
  while (i < cur && !__atomic_compare_exchange_n (lowest, &cur, i, TRUE, __ATOMIC_RELAXED,
                                                  __ATOMIC_RELAXED))
    ;
}

G_END_DECLS
