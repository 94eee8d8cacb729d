/* launch-memo.h - launches a program need not run: `memsim run`'s untraced
 * launches that would give memory a state already known.
 *
 * The memo keeps the state of the memory launches are given: a hash of
 * every 4 KiB page of every buffer, brought up to date where something
 * wrote (the engine marks the pages a launch writes, the runtime says what
 * it writes itself).  For each launch key (kernel, geometry, shared
 * bytes, parameter block: cuda-runtime.c) it keeps the last such launch:
 * the state it found and the pages it changed, as it left them (only
 * when it changed nothing or its key found that state before, so that a
 * launch that never repeats copies nothing).  A launch
 * need not run when memory is in the state the last launch of its key
 * found: its pages are put as that launch left them (none when it changed
 * nothing).  Memory the host writes by itself (managed, pinned, mapped) is
 * hashed again at every launch, and only for a key whose last launch took
 * ten times longer than that.  Hashes are XXH3 128-bit (some 7 GB/s here).
 * The pages kept are at most a budget of bytes, the oldest key's dropped
 * first.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The memory a launch is given, its buffers in order. */
typedef struct {
  guint n;
  guint8 **base;
  const gsize *bytes;
  const gboolean *host;   /* per buffer: memory the host writes by itself */
} MsMemoryView;

typedef struct MsLaunchMemo MsLaunchMemo;

MsLaunchMemo *ms_launch_memo_new (gsize budget_bytes);
void ms_launch_memo_free (MsLaunchMemo *memo);

/* Bytes [p, p + bytes) were written outside a launch (a copy, a set); p
 * NULL: the buffers themselves changed (an allocation, a free). */
void ms_launch_memo_written (MsLaunchMemo *memo, const void *p, gsize bytes);

/* Before a launch of `key` on `mem`; eligible: its kernel does nothing but
 * read and write memory.  *dirty: per buffer, a byte per 4 KiB page
 * (zeroed) for the engine to mark the pages the launch writes
 * (MsLaunch.dirty_pages), the memo's until ran or skipped.  TRUE: it need
 * not run (then ms_launch_memo_skipped, unless it runs anyway). */
gboolean ms_launch_memo_begin (MsLaunchMemo *memo, GBytes *key, const MsMemoryView *mem,
                               gboolean eligible, guint8 ***dirty);
/* After it, not run: memory is put as it would have left it. */
void ms_launch_memo_skipped (MsLaunchMemo *memo, const MsMemoryView *mem);
/* After it ran, in `seconds`: whether the engine marked the pages it
 * wrote in *dirty (if not, every page may have changed), and whether it
 * ran whole (not a sample of its blocks: then what it did is no launch's
 * to repeat). */
void ms_launch_memo_ran (MsLaunchMemo *memo, const MsMemoryView *mem, gboolean marked,
                         gboolean whole, double seconds);

G_END_DECLS
