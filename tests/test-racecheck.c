/* test-racecheck.c - the emulator's shared-memory race check
 * (sim/emulator/racecheck.c): races between warps through barrier epochs,
 * atomics, intra-warp hazards by architecture, the race that replaces an
 * uninitialised read, determinism over thread counts, blocks that repeat
 * the block before them (sim/emulator/racememo.h), and that no built-in
 * kernel but the deliberate ones races.  Every expected count is derived by
 * hand in the comment beside it. */
#include "config.h"

#include <string.h>

#include "emulator.h"
#include "problem.h"
#include "racecheck-kernels.h"
#include "racememo.h"

/* Runs one of racecheck-kernels.c's kernels on blocks of 64 threads, one
 * worker (blocks in order); FALSE with *error on a fatal race. */
static gboolean
run_blocks (MsEntryFn entry, const char *name, guint blocks, gboolean allow,
            gboolean warp_hazards, MsRaceLog *log, GError **error)
{
  int out[64] = { 0 };
  MsLaunch launch = { .kernel = name, .entry = entry, .n_buffers = 1, .threads = 1,
                      .allow_races = allow, .warp_hazards = warp_hazards, .races = log };
  launch.args = (MsLaunchArgs) { .grid = { blocks, 1, 1 }, .block = { 64, 1, 1 } };
  launch.args.buf[0] = out;
  launch.buffer_names[0] = "out";
  launch.buffer_bytes[0] = sizeof out;
  return ms_emulate (&launch, error);
}

/* One block of it. */
static gboolean
run_small (MsEntryFn entry, const char *name, gboolean allow, gboolean warp_hazards,
           MsRaceLog *log, GError **error)
{
  return run_blocks (entry, name, 1, allow, warp_hazards, log, error);
}

static const MsRace *
only_pair (const MsRaceLog *log)
{
  g_assert_cmpuint (log->races->len, ==, 1);
  return &g_array_index (log->races, MsRace, 0);
}

static void
test_write_write (void)
{
  /* warp 0 writes ints 0..31, then each lane of warp 1 writes one of them
   * again: 32 lane accesses race with warp 0's, one pair of sites (the
   * same store) */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_assert_true (run_small (ms_cpu_entry_rc_write_write, "rc_write_write", TRUE, TRUE, log, NULL));
  g_assert_cmpuint (log->n_races, ==, 32);
  g_assert_cmpuint (log->n_warp_hazards, ==, 0);
  const MsRace *r = only_pair (log);
  g_assert_false (r->intra_warp);
  g_assert_true (r->first.site == r->second.site);
  g_assert_cmpint (r->first.op, ==, MS_OP_ST);
  g_assert_cmpint (r->second.op, ==, MS_OP_ST);
  g_assert_cmpuint (r->first.warp, ==, 0);
  g_assert_cmpuint (r->second.warp, ==, 1);
  /* the first found: lane 0 of warp 1 (thread 32) on thread 0's int 0 */
  g_assert_cmpuint (r->first.thread[0], ==, 0);
  g_assert_cmpuint (r->second.thread[0], ==, 32);
  g_assert_cmpuint (r->offset, ==, 0);

  /* not allowed: the emulator's race error, one line naming both threads */
  g_autoptr (GError) error = NULL;
  g_assert_false (run_small (ms_cpu_entry_rc_write_write, "rc_write_write", FALSE, TRUE, NULL,
                             &error));
  g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_RACE);
  g_assert_null (strchr (error->message, '\n'));
  const char *frags[] = { "rc_write_write: race on shared memory between warps",
                          "a write by warp 0, thread (0,0,0)", "a write by warp 1, thread (32,0,0)",
                          "block (0,0,0), shared byte 0", "put a __syncthreads between",
                          "--allow-races", NULL };
  for (int i = 0; frags[i]; i++)
    g_assert_nonnull (strstr (error->message, frags[i]));
}

static void
test_write_same (void)
{
  /* rc_write_write's pattern, but every int gets its index from whichever
   * warp writes it: equal values, no race (as compute-sanitizer on the
   * H100 for the store probes), and no error without --allow-races */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_assert_true (run_small (ms_cpu_entry_rc_write_same, "rc_write_same", TRUE, TRUE, log, NULL));
  g_assert_cmpuint (log->n_races, ==, 0);
  g_autoptr (GError) error = NULL;
  g_assert_true (run_small (ms_cpu_entry_rc_write_same, "rc_write_same", FALSE, TRUE, NULL,
                            &error));
  g_assert_no_error (error);
}

static void
test_no_race (void)
{
  /* ordered by a barrier; a lane's own write; atomics among themselves */
  struct { MsEntryFn entry; const char *name; } cases[] = {
    { ms_cpu_entry_rc_barrier_clean, "rc_barrier_clean" },
    { ms_cpu_entry_rc_own_lane, "rc_own_lane" },
    { ms_cpu_entry_rc_atomics, "rc_atomics" },
    { ms_cpu_entry_rc_own_warp_synced, "rc_own_warp_synced" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (MsRaceLog) log = ms_race_log_new ();
      g_autoptr (GError) error = NULL;
      g_assert_true (run_small (cases[i].entry, cases[i].name, FALSE, TRUE, log, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (log->n_races, ==, 0);
      g_assert_cmpuint (log->n_warp_hazards, ==, 0);
    }
}

static void
test_broadcast_then_write (void)
{
  /* warp 0's 32 lanes read int 0 in one instruction, then lane 0 writes
   * it: the race check keeps two readers of a word, the first (thread 0,
   * the writer itself: no hazard) and another of its warp (thread 1), so
   * the write is found to follow thread 1's read; one hazard, no race
   * between warps (warp 1 never touches int 0 after the barrier) */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (run_small (ms_cpu_entry_rc_broadcast_then_write, "rc_broadcast_then_write",
                            FALSE, TRUE, log, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (log->n_races, ==, 0);
  g_assert_cmpuint (log->n_warp_hazards, ==, 1);
  const MsRace *r = only_pair (log);
  g_assert_true (r->intra_warp);
  g_assert_cmpint (r->first.op, ==, MS_OP_LD);
  g_assert_cmpint (r->second.op, ==, MS_OP_ST);
  g_assert_cmpuint (r->first.thread[0], ==, 1);
  g_assert_cmpuint (r->second.thread[0], ==, 0);
  g_assert_cmpuint (r->offset, ==, 0);
}

static void
test_atomic_and_plain (void)
{
  /* warp 0's 32 atomics on int 0 do not race with each other; each of
   * warp 1's 32 plain reads of it, in the same epoch, races with them */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_assert_true (run_small (ms_cpu_entry_rc_atomic_vs_read, "rc_atomic_vs_read", TRUE, TRUE, log,
                            NULL));
  g_assert_cmpuint (log->n_races, ==, 32);
  const MsRace *r = only_pair (log);
  g_assert_cmpint (r->first.op, ==, MS_OP_ATOMIC);
  g_assert_cmpint (r->second.op, ==, MS_OP_LD);
  g_autoptr (GError) error = NULL;
  g_assert_false (run_small (ms_cpu_entry_rc_atomic_vs_read, "rc_atomic_vs_read", FALSE, TRUE,
                             NULL, &error));
  g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_RACE);
  g_assert_nonnull (strstr (error->message, "an atomic by warp 0"));
}

static void
test_runs_after_write (void)
{
  /* warp 0 writes ints 0 and 1, then every lane of warp 1 reads one of
   * them, 16 lanes a word, in the same epoch: 32 racing reads (the check
   * skips the later lanes of a run on a word only when no lane wrote it
   * this epoch) */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_assert_true (run_small (ms_cpu_entry_rc_runs_after_write, "rc_runs_after_write", TRUE, TRUE,
                            log, NULL));
  g_assert_cmpuint (log->n_races, ==, 32);
  g_assert_cmpuint (log->n_warp_hazards, ==, 0);
  const MsRace *r = only_pair (log);
  g_assert_cmpint (r->first.op, ==, MS_OP_ST);
  g_assert_cmpint (r->second.op, ==, MS_OP_LD);
  g_assert_cmpuint (r->first.warp, ==, 0);
  g_assert_cmpuint (r->second.warp, ==, 1);
}

static void
test_intra_warp (void)
{
  /* each lane reads what the next lane of its warp wrote at another site,
   * with no __syncwarp: 32 hazards per warp, 64, one pair of sites; never
   * a race, not even when races are fatal */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_autoptr (GError) error = NULL;
  g_assert_true (run_small (ms_cpu_entry_rc_own_warp, "rc_own_warp", FALSE, TRUE, log, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (log->n_races, ==, 0);
  g_assert_cmpuint (log->n_warp_hazards, ==, 64);
  g_assert_true (log->warp_hazards_checked);
  const MsRace *r = only_pair (log);
  g_assert_true (r->intra_warp);
  g_assert_cmpint (r->first.op, ==, MS_OP_ST);
  g_assert_cmpint (r->second.op, ==, MS_OP_LD);
  g_assert_cmpuint (r->first.warp, ==, r->second.warp);
  /* lane 0 reads lane 1's int: byte 4 */
  g_assert_cmpuint (r->first.thread[0], ==, 1);
  g_assert_cmpuint (r->second.thread[0], ==, 0);
  g_assert_cmpuint (r->offset, ==, 4);

  /* without independent thread scheduling (before sm_70): nothing */
  g_autoptr (MsRaceLog) old = ms_race_log_new ();
  g_assert_true (run_small (ms_cpu_entry_rc_own_warp, "rc_own_warp", FALSE, FALSE, old, NULL));
  g_assert_cmpuint (old->n_warp_hazards, ==, 0);
  g_assert_false (old->warp_hazards_checked);
}

/* The architecture decides: sm_70+ presets look for intra-warp hazards. */
static void
test_arch_rule (void)
{
  struct { const char *arch; gboolean its; } cases[] = {
    { "h100", TRUE }, { "a100", TRUE }, { "v100", TRUE },
    { "kepler32", FALSE }, { "kepler64", FALSE }, { "fermi", FALSE }, { "cc13", FALSE },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (MsArch) arch = ms_arch_lookup (cases[i].arch, NULL);
      g_assert_nonnull (arch);
      g_assert_cmpint (ms_arch_independent_threads (arch), ==, cases[i].its);
      /* test_warp_sync: the unrolled last warp without __syncwarp */
      g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find ("test_warp_sync"));
      g_assert_true (ms_problem_set_param (p, "n", "64", NULL));
      g_assert_true (ms_problem_setup (p, NULL));
      g_autoptr (MsRaceLog) log = ms_race_log_new ();
      ms_problem_set_race_log (p, log);
      g_assert_true (ms_problem_simulate (p, arch, 1, NULL, NULL, NULL));
      g_assert_cmpuint (log->n_races, ==, 0);
      if (cases[i].its)
        g_assert_cmpuint (log->n_warp_hazards, >, 0);
      else
        g_assert_cmpuint (log->n_warp_hazards, ==, 0);
    }
}

/* Blocks that repeat the block before them are compared with it, not
 * checked (sim/emulator/racememo.h): the same findings as checking every
 * block, each test run three ways: compared; with room for 3 accesses a
 * block (MEMSIM_RACE_MEMO_EVENTS: every block here has more, so each is
 * checked after its third, and is no model); checked (MEMSIM_NO_RACE_MEMO). */
static void
test_repeated_blocks (void)
{
  for (int way = 0; way < 3; way++)
    {
      if (way == 1)
        g_setenv ("MEMSIM_RACE_MEMO_EVENTS", "3", TRUE);
      if (way == 2)
        {
          g_unsetenv ("MEMSIM_RACE_MEMO_EVENTS");
          g_setenv ("MEMSIM_NO_RACE_MEMO", "1", TRUE);
        }
      /* rc_late_race, 8 blocks: one race in block 5 (thread 63's read of
       * thread 31's int, a whole warp's access) and one in block 7 (thread
       * 40's of thread 8's, a partial warp's), two pairs of sites; fatal,
       * the error names block 5.  (Without the repeated writes checked when
       * a block stops repeating the one before: no race.) */
      g_autoptr (MsRaceLog) log = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_late_race, "rc_late_race", 8, TRUE, TRUE, log,
                                 NULL));
      g_assert_cmpuint (log->n_races, ==, 2);
      g_assert_cmpuint (log->n_warp_hazards, ==, 0);
      g_assert_cmpuint (log->races->len, ==, 2);
      const guint block[2] = { 5, 7 }, reader[2] = { 63, 40 }, writer[2] = { 31, 8 };
      for (guint i = 0; i < 2; i++)
        {
          const MsRace *r = &g_array_index (log->races, MsRace, i);
          g_assert_cmpuint (r->found_block, ==, block[i]);
          g_assert_cmpint (r->first.op, ==, MS_OP_ST);
          g_assert_cmpint (r->second.op, ==, MS_OP_LD);
          g_assert_cmpuint (r->first.thread[0], ==, writer[i]);
          g_assert_cmpuint (r->second.thread[0], ==, reader[i]);
        }
      g_autoptr (GError) error = NULL;
      g_assert_false (run_blocks (ms_cpu_entry_rc_late_race, "rc_late_race", 8, FALSE, TRUE,
                                  NULL, &error));
      g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_RACE);
      g_assert_nonnull (strstr (error->message, "block (5,0,0)"));

      /* rc_late_uninitialised: thread 40 of block 5 reads int 64, which
       * nothing wrote */
      g_clear_error (&error);
      g_assert_false (run_blocks (ms_cpu_entry_rc_late_uninitialised, "rc_late_uninitialised",
                                  8, TRUE, TRUE, NULL, &error));
      g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_UNINITIALISED);
      g_assert_nonnull (strstr (error->message, "block (5,0,0)"));
      g_assert_nonnull (strstr (error->message, "thread (40,0,0)"));

      /* rc_late_barrier: block 5's 64 races, found in block 5 */
      g_autoptr (MsRaceLog) barrier = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_late_barrier, "rc_late_barrier", 8, TRUE, TRUE,
                                 barrier, NULL));
      g_assert_cmpuint (barrier->n_races, ==, 64);
      g_assert_cmpuint (g_array_index (barrier->races, MsRace, 0).found_block, ==, 5);
      /* rc_late_syncwarp: block 5's 64 hazards, found in block 5 */
      g_autoptr (MsRaceLog) syncwarp = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_late_syncwarp, "rc_late_syncwarp", 8, FALSE,
                                 TRUE, syncwarp, NULL));
      g_assert_cmpuint (syncwarp->n_warp_hazards, ==, 64);
      g_assert_cmpuint (syncwarp->n_races, ==, 0);
      g_assert_cmpuint (only_pair (syncwarp)->found_block, ==, 5);

      /* rc_late_same: block 3's 32 races, and no other (block 5's stores,
       * checked late, with their values) */
      g_autoptr (MsRaceLog) same = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_late_same, "rc_late_same", 8, TRUE, TRUE, same,
                                 NULL));
      g_assert_cmpuint (same->n_races, ==, 32);
      g_assert_cmpuint (only_pair (same)->found_block, ==, 3);
      /* rc_late_short: 7 x 128 + 96 hazards, two pairs of sites */
      g_autoptr (MsRaceLog) shorter = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_late_short, "rc_late_short", 8, FALSE, TRUE,
                                 shorter, NULL));
      g_assert_cmpuint (shorter->n_warp_hazards, ==, 992);
      g_assert_cmpuint (shorter->races->len, ==, 2);
      /* rc_late_synced_read: nothing in any block */
      g_autoptr (MsRaceLog) synced_read = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_late_synced_read, "rc_late_synced_read", 8,
                                 FALSE, TRUE, synced_read, NULL));
      g_assert_cmpuint (synced_read->n_warp_hazards + synced_read->n_races, ==, 0);

      /* rc_own_warp, 8 blocks: every block has test_intra_warp's 64
       * hazards, 512 (blocks 1-7 repeat block 0: its findings count again
       * for each) */
      g_autoptr (MsRaceLog) own = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_own_warp, "rc_own_warp", 8, FALSE, TRUE, own,
                                 NULL));
      g_assert_cmpuint (own->n_warp_hazards, ==, 512);
      g_assert_cmpuint (own->n_races, ==, 0);
      /* rc_own_warp_synced: none, in any block */
      g_autoptr (MsRaceLog) synced = ms_race_log_new ();
      g_assert_true (run_blocks (ms_cpu_entry_rc_own_warp_synced, "rc_own_warp_synced", 8, FALSE,
                                 TRUE, synced, NULL));
      g_assert_cmpuint (synced->n_warp_hazards + synced->n_races, ==, 0);
    }
  g_unsetenv ("MEMSIM_NO_RACE_MEMO");
}

/* Runs a built-in kernel with races allowed into log. */
static gboolean
run_builtin (const char *name, const char *const *settings, guint threads, MsRaceLog *log,
             GError **error)
{
  g_autoptr (MsProblem) p = ms_problem_new (ms_kernel_find (name));
  for (int i = 0; settings && settings[i]; i += 2)
    g_assert_true (ms_problem_set_param (p, settings[i], settings[i + 1], NULL));
  g_assert_true (ms_problem_setup (p, NULL));
  p->allow_races = log != NULL;
  ms_problem_set_race_log (p, log);
  if (!ms_problem_simulate (p, ms_arch_default (), threads, NULL, NULL, error))
    return FALSE;
  g_autoptr (GError) check_error = NULL;
  g_assert_true (p->kernel->check (p, &check_error));
  return TRUE;
}

static void
test_second_phase (void)
{
  /* test_race_phases, n = 1000: 8 blocks of 128 threads (4 warps).  Phase
   * 1 (a read of another warp's int after a barrier) is clean; in phase 2
   * warps 1, 2 and 3 each write ints 0..31 after warp 0 did, in one epoch:
   * 3 x 32 races a block, 768, all at the one store. */
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_assert_true (run_builtin ("test_race_phases", NULL, 0, log, NULL));
  g_assert_cmpuint (log->n_races, ==, 768);
  const MsRace *r = only_pair (log);
  g_assert_true (r->first.site == r->second.site);
  g_autofree char *text = ms_kernel_source_line (r->first.site->file, r->first.site->line);
  g_assert_nonnull (strstr (text, "ST (s[t % 32]"));

  g_autoptr (GError) error = NULL;
  g_assert_false (run_builtin ("test_race_phases", NULL, 0, NULL, &error));
  g_assert_error (error, MS_EMULATOR_ERROR, MS_EMULATOR_ERROR_RACE);
  g_assert_nonnull (strstr (error->message, "tests.cu:"));
  g_assert_nonnull (strstr (error->message, "`ST (s[t % 32], (int) (t / 32));`"));
}

static void
test_transpose_without_barrier (void)
{
  /* test_race_transpose 64x64: 4 blocks of 32 warps; tile word (r, c) is
   * written by warp r, lane c and read by warp c, lane r.  The 992
   * off-diagonal words of a block race once each: at the read when the
   * writer ran first (c > r), at the write when the reader did (c < r, a
   * read of unwritten memory that the race, not the uninitialised-read
   * error, explains): 3968 in all, the same on 1 and 3 threads, with the
   * same first example (block 0). */
  g_autoptr (MsRaceLog) one = ms_race_log_new ();
  g_autoptr (MsRaceLog) three = ms_race_log_new ();
  g_assert_true (run_builtin ("test_race_transpose", NULL, 1, one, NULL));
  g_assert_true (run_builtin ("test_race_transpose", NULL, 3, three, NULL));
  g_assert_cmpuint (one->n_races, ==, 3968);
  g_assert_cmpuint (ms_race_log_pairs (one, FALSE), ==, 2);
  g_assert_cmpuint (three->n_races, ==, one->n_races);
  g_assert_cmpuint (three->races->len, ==, one->races->len);
  for (guint i = 0; i < one->races->len; i++)
    {
      const MsRace *a = &g_array_index (one->races, MsRace, i);
      const MsRace *b = &g_array_index (three->races, MsRace, i);
      g_assert_cmpuint (a->count, ==, 1984);
      g_assert_cmpuint (a->count, ==, b->count);
      g_assert_true (a->first.site == b->first.site && a->second.site == b->second.site);
      g_assert_cmpuint (a->offset, ==, b->offset);
      g_assert_cmpuint (a->found_block, ==, 0);
    }
  /* the first found: warp 0 (thread (1,0,0)) read tile[1][0], byte 128,
   * before warp 1 (thread (0,1,0)) wrote it */
  const MsRace *r = &g_array_index (one->races, MsRace, 0);
  g_assert_cmpint (r->first.op, ==, MS_OP_LD);
  g_assert_cmpuint (r->first.thread[0], ==, 1);
  g_assert_cmpuint (r->second.thread[1], ==, 1);
  g_assert_cmpuint (r->offset, ==, 128);
}

/* Kernels that exist to race (or to fail before any race). */
static gboolean
deliberate (const char *name)
{
  const char *const names[] = {
    "test_race_transpose", "test_race_phases",
    "test_warp_flag",          /* a spin on a flag another warp sets: a race by design */
    "test_oob", "test_barrier_divergence", "test_collective_deadlock", "test_wild_pointer",
    "test_shfl_width", "test_uninitialised", "test_lane_lock", NULL,
  };
  return g_strv_contains (names, name);
}

/* Intra-warp hazards on sm_70+ (derived from the sources): the unrolled
 * last warp on volatile shared memory without __syncwarp (reduce.cu's
 * warp_reduce_volatile, tests.cu's test_warp_sync) and test_shuffle's
 * rotation, which reads the next lane's int and writes its own with no
 * __syncwarp between. */
static gboolean
warp_synchronous (const char *name)
{
  const char *const names[] = { "reduce_unroll_last", "reduce_unroll_complete",
                                "reduce_multiple", "test_warp_sync", "test_shuffle", NULL };
  return g_strv_contains (names, name);
}

static void
test_builtins_clean (void)
{
  /* every built-in kernel (small sizes) runs without a race; the intra-warp
   * hazards are exactly the warp-synchronous kernels' */
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    {
      const char *name = (*k)->name;
      if (deliberate (name))
        continue;
      g_autoptr (MsProblem) p = ms_problem_new (*k);
      if ((*k)->size_params[0] != NULL)
        g_assert_true (ms_problem_set_size (p, "96", NULL));
      g_assert_true (ms_problem_setup (p, NULL));
      g_autoptr (MsRaceLog) log = ms_race_log_new ();
      ms_problem_set_race_log (p, log);
      p->allow_races = TRUE;
      g_autoptr (GError) error = NULL;
      g_assert_true (ms_problem_simulate (p, ms_arch_default (), 0, NULL, NULL, &error));
      g_assert_no_error (error);
      g_test_message ("%s: %" G_GUINT64_FORMAT " races, %" G_GUINT64_FORMAT
                      " intra-warp hazards", name, log->n_races, log->n_warp_hazards);
      g_assert_cmpuint (log->n_races, ==, 0);
      g_assert_cmpint (log->n_warp_hazards > 0, ==, warp_synchronous (name));
    }
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  g_assert_true (run_builtin ("test_warp_flag", (const char *[]) { "n", "256", NULL }, 0, log,
                              NULL));
  g_assert_cmpuint (log->n_races, >, 0);
}

/* The models' counts of sim (memo on, its record short, off): the shared
 * records a repeated block's accesses make are counted again from the
 * block before (MsRepeatHint, access.h), so a wrong word from the memo
 * (a position, a serial, a stale word on an access it did not compare)
 * changes them. */
static MsStats *
stats_of (const MsKernel *k, guint threads, gboolean allow, int way)
{
  g_unsetenv ("MEMSIM_RACE_MEMO_EVENTS");
  g_unsetenv ("MEMSIM_NO_RACE_MEMO");
  if (way == 1)
    g_setenv ("MEMSIM_RACE_MEMO_EVENTS", "3", TRUE);
  if (way == 2)
    g_setenv ("MEMSIM_NO_RACE_MEMO", "1", TRUE);
  g_autoptr (MsProblem) p = ms_problem_new (k);
  /* a few blocks to a few hundred: 1-D sizes by elements, 2-D by side */
  if (k->size_params[0] != NULL)
    g_assert_true (ms_problem_set_size (p, k->size_params[1] ? "80" : "5000", NULL));
  g_assert_true (ms_problem_setup (p, NULL));
  g_autoptr (MsRaceLog) log = ms_race_log_new ();
  ms_problem_set_race_log (p, log);
  p->allow_races = allow;
  MsStats *stats = NULL;
  g_autoptr (GError) error = NULL;
  gboolean ok = ms_problem_simulate (p, ms_arch_default (), threads, NULL, &stats, &error);
  g_unsetenv ("MEMSIM_RACE_MEMO_EVENTS");
  g_unsetenv ("MEMSIM_NO_RACE_MEMO");
  return ok ? stats : NULL;
}

static void
test_repeated_blocks_counts (void)
{
  guint compared = 0;
  for (const MsKernel *const *k = ms_kernels (); *k; k++)
    for (guint threads = 0; threads < 2; threads++)
      {
        /* the deliberate races, allowed; not the other deliberate errors
         * (a wild pointer ends the process) */
        gboolean allow = deliberate ((*k)->name);
        if (allow && !g_str_has_prefix ((*k)->name, "test_race")
            && strcmp ((*k)->name, "test_warp_flag") != 0)
          continue;
        g_autoptr (MsStats) want = stats_of (*k, threads, allow, 2);
        g_assert_nonnull (want);
        for (int way = 0; way < 2; way++)
          {
            g_autoptr (MsStats) got = stats_of (*k, threads, allow, way);
            g_assert_nonnull (got);
            g_assert_cmpuint (got->sites->len, ==, want->sites->len);
            for (guint i = 0; i < want->sites->len; i++)
              {
                const MsSiteStats *a = &g_array_index (got->sites, MsSiteStats, i);
                const MsSiteStats *b = &g_array_index (want->sites, MsSiteStats, i);
                if (memcmp (&a->c, &b->c, sizeof a->c) != 0)
                  g_error ("%s, %u threads, memo way %d: site %s:%d (%s) counts differ", (*k)->name,
                           threads, way, b->site->file, b->site->line, ms_space_name (b->space));
                g_assert_true (a->site == b->site && a->space == b->space && a->op == b->op);
              }
            g_assert_true (memcmp (&got->launch, &want->launch, sizeof got->launch) == 0);
            compared++;
          }
      }
  g_assert_cmpuint (compared, >, 60);
}

/* A worker whose first block is long (40 000 accesses: its recording
 * alone costs more than the slack the memo allows before it has compared
 * anything) still compares the blocks after it: the rule that turns the
 * memo off weighs what it recorded against what it compared once it had
 * a model to compare with.  Three equal blocks: the 2nd and 3rd are
 * compared whole. */
static void
test_memo_long_block (void)
{
  MsRaceCheck rc;
  ms_racecheck_init (&rc, 4096, TRUE, TRUE, "long", NULL, NULL);
  MsRaceMemo m;
  ms_racememo_init (&m, FALSE, 100000);
  guint64 off[32];
  for (guint l = 0; l < 32; l++)
    off[l] = 4 * l;
  const guint dim[3] = { 32, 1, 1 };
  for (guint b = 0; b < 3; b++)
    {
      ms_racecheck_block_begin (&rc, b, (const guint[3]) { b, 0, 0 }, dim);
      ms_racememo_block_begin (&m, &rc);
      for (guint i = 0; i < 40000; i++)
        g_assert_true (ms_racememo_access (&m, &rc, off, 0xffffffffu, 4,
                                           i % 2 ? MS_OP_LD : MS_OP_ST, 0, 1, -1, NULL));
      g_assert_true (ms_racememo_block_end (&m, &rc, NULL));
    }
  g_assert_false (m.disabled);
  g_assert_cmpuint (m.compared, ==, 80000);
  ms_racememo_clear (&m);
  ms_racecheck_clear (&rc);
}

/* The memo's word on each access (last_serial, last_at's position and repeat: the
 * producer's MsRepeatHint): a serial for each access it recorded, the
 * model's for each it found equal, and none for any other, with room for
 * 3 accesses a block. */
static void
test_memo_word (void)
{
  MsRaceCheck rc;
  ms_racecheck_init (&rc, 4096, TRUE, TRUE, "word", NULL, NULL);
  MsRaceMemo m;
  ms_racememo_init (&m, FALSE, 3);
  guint64 base = m.serials;   /* the memo's range (serials below are from it) */
  guint64 off[32], other[32];
  for (guint l = 0; l < 32; l++)
    {
      off[l] = 4 * l;
      other[l] = 256 + 4 * l;
    }
  const guint dim[3] = { 32, 1, 1 };
  /* per block: its accesses (0: at off, 1: at other) and the words wanted:
   * serial, pos, again (serial 0: none) */
  static const struct {
    guint n, at[4];
    guint64 serial[4];
    guint pos[4];
    gboolean again[4];
  } blocks[] = {
    { 4, { 0, 0, 0, 0 }, { 1, 2, 3, 0 }, { 0, 1, 2, 0 }, { 0, 0, 0, 0 } },   /* 4th: no room */
    { 2, { 0, 0 }, { 4, 5 }, { 0, 1 }, { 0, 0 } },                 /* recorded: no model before */
    { 3, { 0, 0, 1 }, { 4, 5, 6 }, { 0, 1, 2 }, { 1, 1, 0 } },     /* repeats 2, then recorded */
    { 3, { 0, 1, 1 }, { 4, 7, 8 }, { 0, 1, 2 }, { 1, 0, 0 } },     /* differs at its 2nd */
    { 3, { 0, 1, 1 }, { 4, 7, 8 }, { 0, 1, 2 }, { 1, 1, 1 } },     /* all repeated */
  };
  for (guint b = 0; b < G_N_ELEMENTS (blocks); b++)
    {
      ms_racecheck_block_begin (&rc, b, (const guint[3]) { b, 0, 0 }, dim);
      ms_racememo_block_begin (&m, &rc);
      for (guint i = 0; i < blocks[b].n; i++)
        {
          g_assert_true (ms_racememo_access (&m, &rc, blocks[b].at[i] ? other : off, 0xffffffffu,
                                             4, i % 2 ? MS_OP_LD : MS_OP_ST, 0, 1, -1, NULL));
          g_assert_cmpuint (m.last_serial, ==, blocks[b].serial[i] ? base + blocks[b].serial[i] : 0);
          if (m.last_serial != 0)
            {
              g_assert_cmpuint (MS_RACE_MEMO_LAST_POS (&m), ==, blocks[b].pos[i]);
              g_assert_cmpint (MS_RACE_MEMO_LAST_AGAIN (&m), ==, blocks[b].again[i]);
            }
        }
      g_assert_true (ms_racememo_block_end (&m, &rc, NULL));
    }
  ms_racememo_clear (&m);
  /* another memo's serials are of another range */
  ms_racememo_init (&m, FALSE, 3);
  g_assert_cmpuint (m.serials, >=, base + blocks[G_N_ELEMENTS (blocks) - 1].serial[2]);
  ms_racememo_clear (&m);
  ms_racecheck_clear (&rc);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/racecheck/write-write", test_write_write);
  g_test_add_func ("/racecheck/write-same-value", test_write_same);
  g_test_add_func ("/racecheck/no-race", test_no_race);
  g_test_add_func ("/racecheck/atomic-and-plain", test_atomic_and_plain);
  g_test_add_func ("/racecheck/broadcast-then-write", test_broadcast_then_write);
  g_test_add_func ("/racecheck/runs-after-write", test_runs_after_write);
  g_test_add_func ("/racecheck/intra-warp", test_intra_warp);
  g_test_add_func ("/racecheck/arch-rule", test_arch_rule);
  g_test_add_func ("/racecheck/second-phase", test_second_phase);
  g_test_add_func ("/racecheck/transpose-without-barrier", test_transpose_without_barrier);
  g_test_add_func ("/racecheck/builtins-clean", test_builtins_clean);
  g_test_add_func ("/racecheck/repeated-blocks", test_repeated_blocks);
  g_test_add_func ("/racecheck/repeated-blocks-counts", test_repeated_blocks_counts);
  g_test_add_func ("/racecheck/memo-word", test_memo_word);
  g_test_add_func ("/racecheck/memo-long-block", test_memo_long_block);
  return g_test_run ();
}
