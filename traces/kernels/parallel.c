/* parallel.c - ms_parallel_for: chunks of a range handed out from one atomic
 * counter to a few short-lived threads.  (Not a GThreadPool: the emulator's
 * workers are idle while the problem is set up or checked, and a loop that
 * starts and joins its own threads has nothing to share or tear down.) */
#include "config.h"
#include "parallel.h"

typedef struct {
  gsize n, grain, next;   /* next: the first item no thread has taken (atomic) */
  MsRangeFn fn;
  gpointer data;
} Loop;

static gpointer
run_chunks (gpointer data)
{
  Loop *loop = data;
  for (;;)
    {
      gsize lo = __atomic_fetch_add (&loop->next, loop->grain, __ATOMIC_RELAXED);
      if (lo >= loop->n)
        return NULL;
      loop->fn (lo, MIN (loop->n, lo + loop->grain), loop->data);
    }
}

void
ms_parallel_for (gsize n, gsize grain, guint threads, MsRangeFn fn, gpointer data)
{
  if (n == 0)
    return;
  grain = MAX (grain, 1);
  gsize chunks = (n + grain - 1) / grain;
  guint t = threads ? threads : g_get_num_processors ();
  t = (guint) MIN ((gsize) t, chunks);
  if (t <= 1)
    {
      fn (0, n, data);
      return;
    }
  Loop loop = { n, grain, 0, fn, data };
  GThread *extra[t - 1];
  guint started = 0;
  for (guint i = 0; i + 1 < t; i++)
    {
      extra[started] = g_thread_try_new ("memsim-fill", run_chunks, &loop, NULL);
      if (extra[started] != NULL)
        started++;   /* a thread that cannot start leaves its share to the others */
    }
  run_chunks (&loop);
  for (guint i = 0; i < started; i++)
    g_thread_join (extra[i]);
}
