/* test-run.c - `memsim run`: whole CUDA programs (tests/data/programs,
 * examples/program.cu) built and run on the CPU.  The programs check their
 * own results (exit 0), so every output the emulator computes is checked
 * against the program's host code; the counts are hand-derived for the
 * transposes of examples/program.cu; the runtime's errors, exit statuses,
 * JSON shape, --launches and -o are the command's contract.  Runs the
 * built memsim ($MEMSIM under `make check`); skipped without nvcc or a
 * memsim built without CUDA's headers. */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

typedef struct {
  int status;
  char *out, *err;
} Result;

static void
result_clear (Result *r)
{
  g_free (r->out);
  g_free (r->err);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Result, result_clear)

/* memsim COMMAND ARGS... in environment env (NULL: this process's) */
static Result
memsim_v (char **env, const char *command, const char *first, va_list ap)
{
  const char *exe = g_getenv ("MEMSIM");
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  g_ptr_array_add (argv, (char *) (exe ? exe : "./memsim"));
  g_ptr_array_add (argv, (char *) command);
  for (const char *a = first; a; a = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *) a);
  g_ptr_array_add (argv, NULL);
  Result r = { 0 };
  g_autoptr (GError) error = NULL;
  int wait_status = 0;
  if (!g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &r.out,
                     &r.err, &wait_status, &error))
    g_error ("cannot run memsim: %s", error->message);
  r.status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : 128 + WTERMSIG (wait_status);
  g_test_message ("status %d\nstdout: %.2000s\nstderr: %s", r.status, r.out, r.err);
  return r;
}

/* memsim run ARGS... (NULL-terminated) */
static Result
run (const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  Result r = memsim_v (NULL, "run", first, ap);
  va_end (ap);
  return r;
}

/* memsim run ARGS... (NULL-terminated) in environment env */
static Result
run_in (char **env, const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  Result r = memsim_v (env, "run", first, ap);
  va_end (ap);
  return r;
}

/* memsim COMMAND ARGS... (NULL-terminated) */
static Result
memsim (const char *command, const char *first, ...)
{
  va_list ap;
  va_start (ap, first);
  Result r = memsim_v (NULL, command, first, ap);
  va_end (ap);
  return r;
}

static char *
program (const char *name)
{
  if (strcmp (name, "program.cu") == 0)
    return g_test_build_filename (G_TEST_DIST, "..", "examples", name, NULL);
  return g_test_build_filename (G_TEST_DIST, "data", "programs", name, NULL);
}

static void
assert_one_line_error (const Result *r, int status, const char *fragment)
{
  g_assert_cmpint (r->status, ==, status);
  g_assert_true (g_str_has_prefix (r->err, "memsim: "));
  g_assert_true (strchr (r->err, '\n') == r->err + strlen (r->err) - 1);
  g_assert_nonnull (strstr (r->err, fragment));
}

/* memsim run's JSON document `text`, parsed by parser: its root object. */
static JsonObject *
json_root (JsonParser *parser, const char *text)
{
  g_autoptr (GError) error = NULL;
  g_assert_true (json_parser_load_from_data (parser, text, -1, &error));
  g_assert_no_error (error);
  return json_node_get_object (json_parser_get_root (parser));
}

/* The launches of tests/data/programs/NAME run with --format json, parsed
 * by parser: the program exits 0 and says `passed` (on stderr). */
static JsonArray *
json_launches (JsonParser *parser, const char *name, const char *passed)
{
  g_autofree char *p = program (name);
  g_auto (Result) r = run (p, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, passed));
  return json_object_get_array_member (json_root (parser, r.out), "launches");
}

static JsonObject *
metrics_of (JsonArray *launches, guint i)
{
  return json_object_get_object_member (json_array_get_object_element (launches, i), "metrics");
}

static gint64
metric (JsonObject *m, const char *name)
{
  g_assert_true (json_object_has_member (m, name));
  return json_object_get_int_member (m, name);
}

/* The runtime's behaviour, checked by the program itself (tests/data/
 * programs/runtime.cu: allocations, copies and their errors, a refused
 * launch configuration, device properties, events, a __shared__ array
 * declared in a loop, CUDA's min and max). */
static void
test_runtime (void)
{
  g_autofree char *p = program ("runtime.cu");
  g_auto (Result) r = run (p, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "all checks passed"));
  /* the refused launch is said on stderr, in one line, and nothing else */
  g_assert_nonnull (strstr (r.err, "block x = 2048"));
  g_assert_nonnull (strstr (r.err, "cudaErrorInvalidConfiguration"));
  g_assert_true (strchr (r.err, '\n') == r.err + strlen (r.err) - 1);
  /* six launches ran, each with its report */
  g_assert_nonnull (strstr (r.out, "memsim: 6 launches: 6 traced, 0 run without the models"));
  g_assert_nonnull (strstr (r.out, "== memsim: launch 6 of the program (launch 1 of clamp) =="));
}

/* examples/program.cu at 256 x 256, JSON: the launches' counts, derived by
 * hand.  64 blocks of 32 x 8 threads, each thread copies 4 elements: 2048
 * warp loads and 2048 warp stores per kernel.  A warp reads 32 consecutive
 * floats (4 sectors); the naive kernel writes them 256 floats apart (32
 * sectors); the tiled one writes rows (4 sectors) and its padded tile
 * (stride 33) has no bank conflict: one wavefront per shared access. */
static void
test_json_counts (void)
{
  g_autofree char *p = program ("program.cu");
  g_auto (Result) r = run (p, "--format", "json", "--", "256", NULL);
  g_assert_cmpint (r.status, ==, 0);
  /* the program's lines went to stderr: stdout is the JSON alone */
  g_assert_nonnull (strstr (r.err, "naive: correct"));
  g_assert_nonnull (strstr (r.err, "tiled: correct"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = json_root (parser, r.out);
  g_assert_cmpint (json_object_get_int_member (root, "traced"), ==, 2);
  g_assert_cmpint (json_object_get_int_member (root, "untraced"), ==, 0);
  JsonArray *launches = json_object_get_array_member (root, "launches");
  g_assert_cmpint (json_array_get_length (launches), ==, 2);
  JsonObject *naive = json_array_get_object_element (launches, 0);
  g_assert_cmpstr (json_object_get_string_member (naive, "kernel"), ==, "transposeNaive");
  JsonArray *grid = json_object_get_array_member (naive, "grid");
  JsonArray *block = json_object_get_array_member (naive, "block");
  g_assert_cmpint (json_array_get_int_element (grid, 0), ==, 8);
  g_assert_cmpint (json_array_get_int_element (grid, 1), ==, 8);
  g_assert_cmpint (json_array_get_int_element (block, 0), ==, 32);
  g_assert_cmpint (json_array_get_int_element (block, 1), ==, 8);
  g_assert_true (json_object_has_member (naive, "lines"));
  JsonObject *m = metrics_of (launches, 0);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==, 2048);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 8192);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), ==, 2048);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ==, 65536);
  JsonObject *tiled = json_array_get_object_element (launches, 1);
  g_assert_cmpstr (json_object_get_string_member (tiled, "kernel"), ==, "transposeTiled");
  m = metrics_of (launches, 1);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 8192);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ==, 8192);
  g_assert_cmpint (metric (m, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"), ==,
                   2048);
  g_assert_cmpint (metric (m, "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), ==,
                   2048);
  g_assert_cmpint (metric (m, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), ==, 0);
}

/* --launches 1: the first launch of each kernel is traced, the others run
 * without the models, and still compute (the program's checks pass). */
static void
test_launches (void)
{
  g_autofree char *p = program ("runtime.cu");
  g_auto (Result) r = run (p, "--launches", "1", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "all checks passed"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *root = json_root (parser, r.out);
  /* fill, loopShared, clamp traced; fill's three timed launches not */
  g_assert_cmpint (json_object_get_int_member (root, "traced"), ==, 3);
  g_assert_cmpint (json_object_get_int_member (root, "untraced"), ==, 3);
  JsonArray *launches = json_object_get_array_member (root, "launches");
  g_assert_cmpint (json_array_get_length (launches), ==, 3);
  g_assert_cmpstr (json_object_get_string_member (json_array_get_object_element (launches, 1),
                                                  "kernel"), ==, "loopShared");
}

/* Untraced launches run without the models and still compute what the
 * program checks: shared memory across barriers, a shared atomic on bytes stored
 * without a stop, shuffles, whole warps' rows of ints and doubles; an
 * out-of-bounds read or store in an untraced launch (the last lane of a
 * row, the only lane the checks of a row's first and last lane see out)
 * is still memsim's one-line error, exit 1. */
static void
assert_untraced_error (const Result *r, const char *kernel, const char *what, const char *line)
{
  g_assert_cmpint (r->status, ==, 1);
  g_assert_nonnull (strstr (r->out, "untraced checks passed"));
  g_autofree char *launch = g_strdup_printf ("launch 11 of the program (%s)", kernel);
  g_assert_nonnull (strstr (r->err, launch));
  g_assert_nonnull (strstr (r->err, what));
  g_assert_nonnull (strstr (r->err, line));
  g_assert_null (strchr (strchr (r->err, '\n') + 1, '\n'));   /* one line */
}

static void
test_untraced (void)
{
  g_autofree char *p = program ("untraced.cu");
  g_auto (Result) r = run (p, "--launches", "1", NULL);
  assert_untraced_error (&r, "shift",
                         "out-of-bounds load of 4 bytes at byte offset 3072 of buffer 'in'",
                         "untraced.cu:47");
  g_auto (Result) s = run (p, "--launches", "1", "--", "store", NULL);
  assert_untraced_error (&s, "shiftStore",
                         "out-of-bounds store of 4 bytes at byte offset 3072 of buffer 'out'",
                         "untraced.cu:53");
}

/* Two files (host .cpp, kernels .cu, a header), and cooperative groups. */
static void
test_split_and_groups (void)
{
  g_autofree char *host = program ("split/host.cpp");
  g_autofree char *kernels = program ("split/kernels.cu");
  g_auto (Result) r = run (host, kernels, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "scaled"));
  g_assert_nonnull (strstr (r.out, "launch 1 of scale"));
  g_autofree char *groups = program ("groups.cu");
  /* a two-warp tile's reduce passes its partial sums through shared
   * memory ordered by cooperative groups' release/acquire barrier: the
   * acquire orders them for the race check, which reports no race */
  g_auto (Result) g = run (groups, NULL);
  g_assert_cmpint (g.status, ==, 0);
  g_assert_nonnull (strstr (g.out, "tile sums correct"));
  g_assert_nonnull (strstr (g.out, "tileSums<64>"));
  g_assert_nonnull (strstr (g.out, "bit atomics correct"));

  /* cg::reduce over two-warp tiles as CUDA's own cooperative_groups
   * builds it: per block of 8 warps in 4 tiles, each warp stores its slot
   * (8 stores) and each tile's last warp stores the total back (4 stores):
   * 4 blocks, 48 shared stores.  (Its loads and atomics include the
   * barrier's polls of shared memory, as many as the schedule makes.) */
  g_auto (Result) j = run (groups, "--format", "json", NULL);
  g_assert_cmpint (j.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, j.out), "launches");
  JsonObject *m = metrics_of (launches, 1);
  g_assert_cmpint (metric (m, "smsp__sass_inst_executed_op_shared_st.sum"), ==, 48);
}

/* Column loads the L1 holds: a warp reads down 32 columns of a 32 x 32
 * float matrix twice (column-loads.cu), 64 loads of 32 lines each.  By the
 * cache model's rules (sim/models/cache.c: 128-byte lines of 32-byte
 * sectors, loads allocate the sectors they miss): each line's 4 sectors
 * miss once, when k reaches them, 32 x 4 = 128 L2 read sectors; every
 * other load hits, the second pass wholly (memsim's shortcut for a
 * column loaded again must give the same). */
static void
test_column_loads (void)
{
  g_autofree char *p = program ("column-loads.cu");
  g_auto (Result) r = run (p, "--arch", "h200", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, r.out), "launches");
  JsonObject *m = metrics_of (launches, 0);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==, 64);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 64 * 32);
  g_assert_cmpint (metric (m, "lts__t_sectors_srcunit_tex_op_read.sum"), ==, 32 * 4);
}

/* Errors: one line, non-zero, and -o never written by a failed program. */
static void
test_errors (void)
{
  g_autofree char *host = program ("hostpointer.cu");
  g_auto (Result) a = run (host, NULL);
  /* found where the kernel stores through it (PTX has no pointer types) */
  assert_one_line_error (&a, 1, "at address 0x");
  g_assert_nonnull (strstr (a.err, "which is in no buffer of the launch"));
  g_assert_nonnull (strstr (a.err, "hostpointer.cu:5"));
  g_assert_null (strstr (a.out, "launches:"));   /* no summary of a failed run */

  g_autofree char *oob = program ("outofbounds.cu");
  g_autofree char *dir = g_dir_make_tmp ("memsim-run-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "report.json", NULL);
  g_auto (Result) b = run (oob, "--format", "json", "-o", out, NULL);
  assert_one_line_error (&b, 1, "out-of-bounds load of 4 bytes at byte offset 128 of buffer 'in'");
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));

  g_auto (Result) c = run ("no-such-program.cu", NULL);
  assert_one_line_error (&c, 1, "no such file");
  g_auto (Result) d = run (NULL);
  assert_one_line_error (&d, 2, "run needs the program's files");

  g_autofree char *bad = g_build_filename (dir, "bad.cu", NULL);
  g_assert_true (g_file_set_contents (bad, "int main()\n{\n  return undeclared;\n}\n", -1, NULL));
  g_auto (Result) e = run (bad, NULL);
  assert_one_line_error (&e, 1, "bad.cu:3: error:");
  g_autofree char *nomain = g_build_filename (dir, "nomain.cu", NULL);
  g_assert_true (g_file_set_contents (nomain, "__global__ void k(float *x) { x[0] = 1; }\n", -1,
                                      NULL));
  g_auto (Result) f = run (nomain, NULL);
  assert_one_line_error (&f, 1, "has no main()");

  /* a comment that moves the kernel's lines makes a new build: the error
   * names the new line, not the one a cached build of the old text had */
  g_autofree char *moved = g_build_filename (dir, "moved.cu", NULL);
  const char *text = "__global__ void k(float *x) { x[threadIdx.x + 32] = 1; }\n"
                     "int main()\n{\n  float *x;\n  cudaMalloc(&x, 128);\n  k<<<1, 32>>>(x);\n"
                     "  cudaDeviceSynchronize();\n  return 0;\n}\n";
  g_assert_true (g_file_set_contents (moved, text, -1, NULL));
  g_auto (Result) m1 = run (moved, NULL);
  assert_one_line_error (&m1, 1, "at moved.cu:1,");
  g_autofree char *commented = g_strconcat ("// a comment\n", text, NULL);
  g_assert_true (g_file_set_contents (moved, commented, -1, NULL));
  g_auto (Result) m2 = run (moved, NULL);
  assert_one_line_error (&m2, 1, "at moved.cu:2,");

  /* a program that succeeds writes the whole file */
  g_autofree char *prog = program ("program.cu");
  g_auto (Result) g = run (prog, "--format", "json", "-o", out, "--", "64", NULL);
  g_assert_cmpint (g.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_assert_true (json_parser_load_from_file (parser, out, NULL));
  g_unlink (bad);
  g_unlink (nomain);
  g_unlink (moved);
  g_unlink (out);
  g_rmdir (dir);
}

/* The nvcc build's SASS groups the accesses (compiler-exact counts), as for
 * the built-in kernels: tiled-gemm.cu's k loop reads As[ty][k..k+3] with
 * one LDS.128, so 40 shared loads per warp and tile instead of the source's
 * 64.  64 x 64 with 32 x 32 tiles: 4 blocks x 32 warps x 2 tiles = 256
 * warp-tiles, 256 x 64 = 16384 source-level, 256 x 40 = 10240 loads. */
static void
test_compiler_exact (void)
{
  g_autofree char *nvcc = g_find_program_in_path ("nvcc");
#ifdef MS_NVCC_PATH
  if (nvcc == NULL && g_file_test (MS_NVCC_PATH, G_FILE_TEST_IS_EXECUTABLE))
    nvcc = g_strdup (MS_NVCC_PATH);
#endif
  g_autofree char *dis = g_find_program_in_path ("nvdisasm");
#ifdef MS_NVDISASM_PATH
  if (dis == NULL && g_file_test (MS_NVDISASM_PATH, G_FILE_TEST_IS_EXECUTABLE))
    dis = g_strdup (MS_NVDISASM_PATH);
#endif
  if (nvcc == NULL || dis == NULL)
    {
      g_test_skip ("no nvcc or nvdisasm: counts are source-level");
      return;
    }
  g_autofree char *p = program ("tiled-gemm.cu");
  const char *ld = "smsp__sass_inst_executed_op_shared_ld.sum";
  g_auto (Result) r = run (p, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "product correct"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, r.out), "launches");
  JsonObject *l = json_array_get_object_element (launches, 0);
  g_assert_cmpstr (json_object_get_string_member (l, "counts"), ==, "sass");
  g_assert_cmpint (metric (metrics_of (launches, 0), ld), ==, 10240);
  /* nvcc's device code: every warp instruction counted, at least the
   * memory ones, from the SASS line by line */
  g_assert_true (json_object_has_member (l, "instructions"));
  JsonObject *inst = json_object_get_object_member (l, "instructions");
  g_assert_cmpstr (json_object_get_string_member (inst, "basis"), ==, "sass-lines");
  gint64 all = metric (metrics_of (launches, 0), "smsp__inst_executed.sum");
  g_assert_cmpint (all, ==, json_object_get_int_member (inst, "executed"));
  g_assert_cmpint (all, >, 10240 + metric (metrics_of (launches, 0),
                                           "smsp__sass_inst_executed_op_global_ld.sum"));
  /* the text report says the same number, and where they go */
  g_auto (Result) t = run (p, "--launches", "1", NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_autofree char *line = g_strdup_printf ("Instructions: %" G_GINT64_FORMAT " warp instructions "
                                           "executed (smsp__inst_executed.sum, estimated", all);
  const char *at = strstr (t.out, line);
  g_assert_nonnull (at);
  g_assert_nonnull (strstr (at, "\n  most issued: tiled-gemm.cu:"));
  /* occupancy from the registers ptxas allocates (its own -v report, read
   * here independently), not a default */
  g_autofree char *dir = g_dir_make_tmp ("memsim-regs-XXXXXX", NULL);
  g_autofree char *cubin = g_build_filename (dir, "k.cubin", NULL);
  g_autofree char *report = NULL;
  int wait_status = 0;
  const char *argv[] = { nvcc, "-cubin", "-arch=sm_90", "-Xptxas=-v", p, "-o", cubin, NULL };
  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL,
                               &report, &wait_status, NULL));
  g_unlink (cubin);
  g_rmdir (dir);
  const char *used = strstr (report, "Used ");
  int regs = 0;
  g_assert_nonnull (used);
  g_assert_cmpint (sscanf (used, "Used %d registers", &regs), ==, 1);
  JsonObject *occ = json_object_get_object_member (l, "occupancy");
  g_assert_cmpint (json_object_get_int_member (occ, "launch__registers_per_thread"), ==,
                   MAX (regs, 16));
  g_autofree char *source = g_strdup_printf ("ptxas sm_90 build of gemm (%d", regs);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (occ, "registers_source"),
                                   source));
  /* its static shared memory: As and Bs, 2 x 32 x 32 floats, without the
   * 1 KiB the GPU reserves per block (a key of its own) */
  g_assert_cmpint (json_object_get_int_member (occ, "launch__shared_mem_per_block_static"), ==,
                   8192);
  g_assert_cmpint (json_object_get_int_member (occ, "launch__shared_mem_per_block_driver"), ==,
                   1024);
}

/* Texture and surface objects (tests/data/programs/texture.cu checks its
 * results itself, derived by hand).  Its first launch (sample2d, 16
 * threads: one warp) fetches from a texture and stores one float a lane:
 * 0 global loads, 1 store request of 2 sectors (64 bytes); the fetches are
 * no global loads, but one warp texture fetch for the time model.  With "gather" it reaches a tex2Dgather (tld4), which
 * memsim does not run, with "freed" a texture whose array it freed: one
 * line naming the instruction or the handle, exit status 1. */
static void
test_textures (void)
{
  g_autofree char *p = program ("texture.cu");
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_launches (parser, "texture.cu", "texture: all checks passed");
  JsonObject *first = json_array_get_object_element (launches, 0);
  g_assert_cmpstr (json_object_get_string_member (first, "kernel"), ==, "sample2d");
  JsonObject *m = metrics_of (launches, 0);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==, 0);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 0);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), ==, 1);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ==, 2);
  /* the time model's input: one warp, one tex instruction */
  JsonObject *inst = json_object_get_object_member (first, "instructions");
  g_assert_cmpint (json_object_get_int_member (inst, "texture_fetches"), ==, 1);
  g_auto (Result) g = run (p, "--launches", "0", "--", "gather", NULL);
  assert_one_line_error (&g, 1, "'tld4.r.2d.v4.f32.f32' (a texture gather");
  g_auto (Result) f = run (p, "--launches", "0", "--", "freed", NULL);
  assert_one_line_error (&f, 1, "which is no live texture object of the program");
}

/* Mapped host memory (tests/data/programs/zerocopy.cu): vectorAdd of 1M
 * floats over the host link, 8 MiB read and 4 MiB written and no DRAM
 * byte, the time bound by the link; then the same kernel on device
 * memory, whose 12 MiB are DRAM's and which has no link term. */
static void
test_zero_copy (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_launches (parser, "zerocopy.cu", "zerocopy: all checks passed");
  g_assert_cmpuint (json_array_get_length (launches), ==, 2);
  JsonObject *m = metrics_of (launches, 0);
  g_assert_cmpint (metric (m, "dram__bytes_read.sum"), <, 16384);   /* the launch's own */
  g_assert_cmpint (metric (m, "dram__bytes_write.sum"), ==, 0);
  JsonObject *t = json_object_get_object_member (json_array_get_object_element (launches, 0),
                                                 "time");
  g_assert_true (g_str_has_prefix (json_object_get_string_member (t, "bound"),
                                   "host-memory-bound: 12.6 MB"));
  JsonObject *ns = json_object_get_object_member (t, "resources_ns");
  g_assert_cmpfloat (fabs (json_object_get_double_member (ns, "host") - 8388608 / 51.0), <, 1);
  JsonObject *d = metrics_of (launches, 1);
  g_assert_cmpint (metric (d, "dram__bytes_read.sum"), >=, 8388608);
  JsonObject *t2 = json_object_get_object_member (json_array_get_object_element (launches, 1),
                                                  "time");
  g_assert_false (json_object_has_member (json_object_get_object_member (t2, "resources_ns"),
                                          "host"));
}

/* Kernels that wait on the clock (tests/data/programs/clock.cu, which
 * checks that each waited as long as it asked).  The clock advances by the
 * time model's cycles per instruction, so a warp alone that spins for 1 ms
 * of clock takes 1 ms, as on the GPU, plus the launch's few microseconds;
 * so does a wait of 20 us on %globaltimer.  In a full wave (two blocks of
 * 32 warps an SM: 16 warps a scheduler) a warp issues at most one
 * instruction in 16 cycles, the scheduler's limit on the GPU: its spin of
 * 1/200 ms runs no more instructions than that allows.  An untraced
 * launch's clock runs as a traced one's. */
static void
test_clock (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_launches (parser, "clock.cu", "clock: all checks passed");
  g_assert_cmpuint (json_array_get_length (launches), ==, 6);
  double t[3];
  for (guint i = 0; i < 3; i++)
    t[i] = json_object_get_double_member (
      json_object_get_object_member (json_array_get_object_element (launches, i), "time"),
      "gpu__time_duration.sum");
  g_assert_cmpfloat (t[0], >=, 1e6);
  g_assert_cmpfloat (t[0], <, 1e6 + 5000);
  g_assert_cmpfloat (t[2], >=, 20000);
  g_assert_cmpfloat (t[2], <, 25000);
  g_assert_cmpfloat (t[1], >=, 5000);
  JsonObject *wave = json_array_get_object_element (launches, 1);
  JsonArray *grid = json_object_get_array_member (wave, "grid");
  double warps = (double) json_array_get_int_element (grid, 0) * 32;
  JsonObject *occ = json_object_get_object_member (wave, "occupancy");
  g_assert_cmpint (json_object_get_int_member (occ, "active_warps_per_sm"), ==, 64);
  /* 1/200 ms of the default preset's 1 980 MHz clock, 16 warps a scheduler */
  g_assert_cmpfloat ((double) metric (metrics_of (launches, 1), "smsp__inst_executed.sum") / warps,
                     <=, 1980e3 / 200 / 16);
  /* a launch the models do not see keeps the traced one's clock: the
   * second of two equal spins (untraced) turns as often as the first */
  g_autofree char *p = program ("clock.cu");
  g_auto (Result) r = run (p, "--launches", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  long long a = 0, b = -1;
  const char *at = strstr (r.err, "spins ");
  g_assert_nonnull (at);
  g_assert_cmpint (sscanf (at, "spins %lld %lld", &a, &b), ==, 2);
  g_assert_cmpint (a, >, 0);
  g_assert_cmpint (a, ==, b);
}

/* A lone thread's spin on the clock turns as often as on the H200:
 * gpu/probes/clock-spin.cu's `spin` mode, whose three kernels spin 2
 * million cycles on clock() and clock64() and 2 ms on %globaltimer.  On
 * the GPU each iteration is 6 SASS instructions (nvdisasm), so the
 * iterations are Nsight Compute's smsp__inst_executed.sum there
 * (gpu/measurements/h200-2026-12-01-clock-spin.txt) over 6; memsim's are
 * the PTX instructions it ran (its lines' ptx_executed, or the count
 * itself where there is no SASS: basis "ptx") over the loop's 5, 4 and 4
 * (the PTX of each kernel's loop).  Within 3%. */
static void
test_clock_spin (void)
{
  g_autofree char *p = g_test_build_filename (G_TEST_DIST, "..", "gpu", "probes", "clock-spin.cu", NULL);
  g_auto (Result) r = run (p, "--arch", "h200", "--format", "json", "--", "spin", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "spin: done"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, r.out), "launches");
  g_assert_cmpuint (json_array_get_length (launches), ==, 3);
  const double gpu_iterations[3] = { 176482 / 6.0, 307695 / 6.0, 609237 / 6.0 };
  const double ptx_per_iteration[3] = { 5, 4, 4 };
  for (guint i = 0; i < 3; i++)
    {
      JsonObject *inst = json_object_get_object_member (json_array_get_object_element (launches, i),
                                                        "instructions");
      double ptx = 0;
      if (json_object_has_member (inst, "lines"))
        {
          JsonArray *lines = json_object_get_array_member (inst, "lines");
          for (guint l = 0; l < json_array_get_length (lines); l++)
            ptx += (double) json_object_get_int_member (json_array_get_object_element (lines, l),
                                                        "ptx_executed");
        }
      else
        {
          g_assert_cmpstr (json_object_get_string_member (inst, "basis"), ==, "ptx");
          ptx = (double) json_object_get_int_member (inst, "executed");
        }
      g_assert_cmpfloat (fabs (ptx / ptx_per_iteration[i] / gpu_iterations[i] - 1), <, 0.03);
    }
}

/* The H200's counts of gpu/probes/runtime-counts.cu's launches
 * (gpu/measurements/h200-2026-12-01-runtime-counts.txt, Nsight Compute's
 * output): each launch's metric name -> value (gdouble *). */
static GPtrArray *
measured_launches (const char *path)
{
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  GPtrArray *launches = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  for (char **l = lines; *l; l++)
    {
      if (strstr (*l, "Context") != NULL)
        {
          g_ptr_array_add (launches, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free));
          continue;
        }
      g_auto (GStrv) f = g_strsplit_set (g_strstrip (*l), " ", -1);
      guint n = g_strv_length (f);
      if (launches->len == 0 || n < 2 || !g_str_has_suffix (f[0], ".sum"))
        continue;
      GString *v = g_string_new (NULL);   /* "6,847": without the commas */
      for (const char *c = f[n - 1]; *c; c++)
        if (*c != ',')
          g_string_append_c (v, *c);
      gdouble *value = g_new (gdouble, 1);
      *value = g_ascii_strtod (v->str, NULL);
      g_string_free (v, TRUE);
      g_hash_table_insert (launches->pdata[launches->len - 1], g_strdup (f[0]), value);
    }
  return launches;
}

/* printf's own code, as the H200 counts it (sim/models/device-runtime.c):
 * gpu/probes/runtime-counts.cu's 23 printf launches (formats of 2 to 60
 * bytes, 0 to 6 conversions, a %s argument, 1 to 32 lanes, 1 to 4 warps,
 * twice in a row) have the GPU's global load and store requests and store
 * sectors exactly, and its warp instructions within 0.5%; Nsight
 * Compute's counts there, not memsim's, are the expected values. */
static void
test_printf_counts (void)
{
  g_autofree char *p = g_test_build_filename (G_TEST_DIST, "..", "gpu", "probes", "runtime-counts.cu", NULL);
  g_autofree char *m = g_test_build_filename (G_TEST_DIST, "..", "gpu", "measurements",
                                              "h200-2026-12-01-runtime-counts.txt", NULL);
  g_autoptr (GPtrArray) gpu = measured_launches (m);
  g_auto (Result) r = run (p, "--arch", "h200", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "runtime-counts: done"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, r.out), "launches");
  g_assert_cmpuint (json_array_get_length (launches), ==, gpu->len);
  guint printing = 0;
  for (guint i = 0; i < gpu->len; i++)
    {
      JsonObject *launch = json_array_get_object_element (launches, i);
      if (!g_str_has_prefix (json_object_get_string_member (launch, "kernel"), "print"))
        continue;
      printing++;
      GHashTable *g = gpu->pdata[i];
      JsonObject *ours = metrics_of (launches, i);
      static const char *const exact[] = { "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                                           "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                                           "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
                                           "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum" };
      for (guint k = 0; k < G_N_ELEMENTS (exact); k++)
        g_assert_cmpfloat ((double) metric (ours, exact[k]), ==,
                           *(gdouble *) g_hash_table_lookup (g, exact[k]));
      double inst = *(gdouble *) g_hash_table_lookup (g, "smsp__inst_executed.sum");
      g_assert_cmpfloat (fabs ((double) metric (ours, "smsp__inst_executed.sum") / inst - 1), <, 0.005);
    }
  g_assert_cmpuint (printing, ==, 23);
  /* the text report says what the totals hold beyond the source lines:
   * the first launch's 11 loads, 222 stores of a sector (one lane) */
  g_auto (Result) text = run (p, "--arch", "h200", "--launches", "1", NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "printf's own code (the device runtime's, in the totals "
                                      "above, no source line): 11 load requests, 222 store "
                                      "requests (222 sectors)"));
}

/* The slow paths of float division, reciprocal and square root as the
 * H200 counts them (sim/models/slow-path.c): gpu/probes/division-slow-path.cu
 * runs one warp, one case a launch: every route through ptxas's
 * subroutines (for division NaN, 0 / 0, inf / inf, signed zeros and
 * infinities, denormal operands and results, overflow, underflow to zero,
 * divisors out of FCHK's range; for the reciprocal zeros, denormals,
 * infinity, NaN, 2^126 and 2^127; for the square root zeros, negatives,
 * NaN, infinity, tiny values and denormals), fast and slow lanes mixed,
 * two routes in a warp.  What each case adds to its kind's fast case
 * (launches 0, 24 and 26) is the GPU's exactly, whatever the basis; with
 * the SASS every count is, but the double slow paths' (launches 28, 30
 * and 32: not modelled). */
static void
test_division_slow_path (void)
{
  g_autofree char *p = g_test_build_filename (G_TEST_DIST, "..", "gpu", "probes",
                                              "division-slow-path.cu", NULL);
  g_autofree char *m = g_test_build_filename (G_TEST_DIST, "..", "gpu", "measurements",
                                              "h200-2026-12-01-division-slow-path", "counts.txt",
                                              NULL);
  g_autoptr (GPtrArray) gpu = measured_launches (m);
  g_assert_cmpuint (gpu->len, ==, 51);
  g_auto (Result) r = run (p, "--arch", "h200", "--format", "json", "--", "counts", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "division-slow-path: done"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, r.out), "launches");
  g_assert_cmpuint (json_array_get_length (launches), ==, gpu->len);
  const char *name = "smsp__inst_executed.sum";
  JsonObject *inst = json_object_get_object_member (json_array_get_object_element (launches, 0),
                                                    "instructions");
  gboolean sass = !g_strcmp0 (json_object_get_string_member (inst, "basis"), "sass-lines");
  for (guint i = 0; i < gpu->len; i++)
    {
      double want = *(gdouble *) g_hash_table_lookup (gpu->pdata[i], name);
      double got = (double) metric (metrics_of (launches, i), name);
      /* the fast case of the launch's kind: division, square root, reciprocal */
      guint fast = i < 23 ? 0 : i == 29 || (i >= 33 && i < 43) ? 24 : i == 31 || i >= 43 ? 26 : i;
      double gpu_fast = *(gdouble *) g_hash_table_lookup (gpu->pdata[fast], name);
      g_assert_cmpfloat (got - (double) metric (metrics_of (launches, fast), name), ==,
                         want - gpu_fast);
      if (sass && i != 28 && i != 30 && i != 32)
        g_assert_cmpfloat (got, ==, want);
    }
  /* the text report says what the slow paths added: 0 / 3's 34 */
  g_auto (Result) text = run (p, "--arch", "h200", "--launches", "2", "--", "counts", NULL);
  g_assert_cmpint (text.status, ==, 0);
  g_assert_nonnull (strstr (text.out, "  34 of them the slow paths of float division, "
                                      "reciprocal and square root (ptxas's subroutines for "
                                      "zeros, infinities, NaNs, denormals and results out of "
                                      "range: no source line)\n"));
}

/* CUDA graphs' conditional nodes (tests/data/programs/conditional.cu
 * checks what each ran against CUDA's documented rules): if with an else
 * body, while with its handle's default at each launch, switch, a body
 * filled by stream capture; a handle no graph made, set from device code,
 * stops the run with one line. */
static void
test_conditional_graphs (void)
{
  g_autofree char *p = program ("conditional.cu");
  g_auto (Result) r = run (p, "--launches", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "conditional: all checks passed"));
  g_auto (Result) b = run (p, "--launches", "0", "--", "bogus", NULL);
  assert_one_line_error (&b, 1, "cudaGraphSetConditional with a handle that no "
                                "cudaGraphConditionalHandleCreate made");
}

/* How often needle occurs in haystack. */
static guint
occurrences (const char *haystack, const char *needle)
{
  guint n = 0;
  for (const char *at = strstr (haystack, needle); at; at = strstr (at + 1, needle))
    n++;
  return n;
}

/* Launches that repeat an earlier one (tests/data/programs/repeats.cu
 * checks every result itself).  Untraced, the 3rd to 5th of five equal
 * launches of combine are not run: the 2nd left memory as the 1st had
 * left it.  The 6th follows a change the host made: it runs, and so
 * does the first of the four that follow it, on memory the 6th changed.
 * Of the 2nd kernel's launches taken in turn with those, the first two
 * run, and from the third round both are not run: 7 in all.  increment
 * changes its memory each time, and hello prints (its text is no
 * memory): all run.  copy's 3rd launch from managed memory is not run;
 * after the host writes that memory, a cudaMemset or a
 * cudaMemcpyToSymbol, the launch that follows runs (each checked by the
 * program).  e = a and e += 1 in turn, five times each, change memory,
 * but from the 3rd round each finds memory as its launch of the round
 * before found it: the memo keeps their pages then, and the 4th and 5th
 * rounds are not run, their pages put back (the program checks e after
 * each): 4.  A kernel reading a texture of a CUDA array, three times:
 * the 3rd not run; after a copy into the array, it runs.  The same
 * texture object made and destroyed around each of three launches gets
 * its handle back each time: the 2nd and 3rd not run; one of another
 * description over the same texels runs (the program checks its border
 * texels).  15 in all.  Traced, every launch runs and is reported. */
static void
test_repeats (void)
{
  g_autofree char *p = program ("repeats.cu");
  g_auto (Result) r = run (p, "--launches", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "repeats: all checks passed"));
  g_assert_cmpuint (occurrences (r.out, "hello 7\n"), ==, 3);
  g_assert_nonnull (strstr (r.out, "memsim: 50 launches: 7 traced, 43 run without the models "
                                   "(--launches; 15 of them repeated an earlier launch on "
                                   "memory in the state it had found, and were not run: memory "
                                   "was put as it had left it)\n"));
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (Result) all = run (p, "--format", "json", NULL);
  g_assert_cmpint (all.status, ==, 0);
  JsonObject *root = json_root (parser, all.out);
  g_assert_cmpint (json_array_get_length (json_object_get_array_member (root, "launches")), ==, 50);
  g_assert_cmpint (json_object_get_int_member (root, "repeats_not_run"), ==, 0);
}

/* The files of directory dir whose names end in suffix. */
static guint
files_ending (const char *dir, const char *suffix)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  guint n = 0;
  for (const char *f; d && (f = g_dir_read_name (d)) != NULL;)
    n += g_str_has_suffix (f, suffix);
  return n;
}

static void
remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) d = g_dir_open (path, 0, NULL);
      for (const char *f; d && (f = g_dir_read_name (d)) != NULL;)
        {
          g_autofree char *child = g_build_filename (path, f, NULL);
          remove_tree (child);
        }
    }
  g_remove (path);
}

/* A kernel's quick build (-O0) computes and counts what its optimised one
 * does, and the optimised one takes over between two blocks of a launch.
 * With MEMSIM_QUICK_BUILD=once each launch's first block runs on its
 * kernel's quick build and its other blocks on the optimised build, into
 * an empty cache, which then holds both builds of each kernel (repeats.cu:
 * 7 kernels, 50 launches, textures among them; groups.cu's tiles and
 * shared memory, tiled-gemm.cu's blocks of tiles); with =always the
 * optimised builds are compiled in the background while the quick ones
 * run, and take over wherever they are done (or not at all: a build not
 * done at exit is stopped, its output removed).  The programs' checks pass
 * and every launch's counts are those of the run with optimised builds
 * only (with twin sites in the two builds: without them, the counts of
 * groups.cu and tiled-gemm.cu, whose launches mix builds, differ).  A
 * quick build's run time is kept in the cache, so tiled-gemm.cu's second
 * run starts on its optimised build. */
static void
test_quick_build (void)
{
  static const char *const programs[] = { "repeats.cu", "groups.cu", "tiled-gemm.cu" };
  static const char *const modes[] = { "once", "always" };
  for (guint k = 0; k < G_N_ELEMENTS (programs); k++)
    {
      g_autofree char *p = program (programs[k]);
      g_auto (Result) optimised = run (p, "--format", "json", NULL);
      g_assert_cmpint (optimised.status, ==, 0);
      for (guint m = 0; m < G_N_ELEMENTS (modes); m++)
        {
          g_autofree char *cache = g_dir_make_tmp ("memsim-quick-XXXXXX", NULL);
          g_assert_nonnull (cache);
          g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "XDG_CACHE_HOME", cache, TRUE);
          env = g_environ_setenv (env, "MEMSIM_QUICK_BUILD", modes[m], TRUE);
          g_auto (Result) quick = run_in (env, p, "--format", "json", NULL);
          g_assert_cmpint (quick.status, ==, 0);
          g_assert_cmpstr (quick.out, ==, optimised.out);
          g_autofree char *kernels = g_build_filename (cache, "memsim", "kernels", NULL);
          if (k == 0)
            g_assert_nonnull (strstr (quick.err, "repeats: all checks passed"));
          if (k == 0 && m == 0)
            g_assert_cmpuint (files_ending (kernels, ".so"), ==, 2 * 7);
          g_assert_cmpuint (files_ending (kernels, ".tmp"), ==, 0);
          g_assert_cmpuint (files_ending (kernels, ".c"), ==, 0);
          if (k == 2 && m == 1)
            {
              /* the time its quick build ran is kept: the second run
               * optimises the kernel at once (when the first did not) */
              g_auto (Result) again = run_in (env, p, "--format", "json", NULL);
              g_assert_cmpstr (again.out, ==, optimised.out);
              g_assert_cmpuint (files_ending (kernels, ".so"), ==, 2);
              g_assert_cmpuint (files_ending (kernels, ".busy"), ==, 0);
            }
          remove_tree (cache);
        }
    }
}

/* A kernel's quick build counts the whole run of its blocks, though none
 * starts another while it runs: long-block.cu's one block runs for about a
 * second on it (a tenth of the optimised build's 50 us a byte is far less),
 * so the second run, if not the first, optimises the kernel before it
 * starts. */
static void
test_quick_build_long_block (void)
{
  g_autofree char *p = program ("long-block.cu");
  g_autofree char *cache = g_dir_make_tmp ("memsim-quick-XXXXXX", NULL);
  g_assert_nonnull (cache);
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "XDG_CACHE_HOME", cache, TRUE);
  env = g_environ_unsetenv (env, "MEMSIM_QUICK_BUILD");
  g_autofree char *kernels = g_build_filename (cache, "memsim", "kernels", NULL);
  for (int i = 0; i < 2; i++)
    {
      g_auto (Result) r = run_in (env, p, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.out, "long-block: lane 0 as the host computes it"));
    }
  g_assert_cmpuint (files_ending (kernels, ".so"), ==, 2);
  g_assert_cmpuint (files_ending (kernels, ".busy"), ==, 0);
  remove_tree (cache);
}

/* The program's build is found again without nvcc's preprocessor (a
 * manifest of the files it read, by their text), and a header whose text
 * changes makes a new build: nvcc, through a wrapper that logs its
 * arguments, runs -E on the first run, nothing on the second, -E and -c
 * once the included header changes, and the program prints the header's
 * new value. */
static void
test_nvcc_cache (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memsim-nvcc-XXXXXX", NULL);
  g_assert_nonnull (dir);
  g_autofree char *cache = g_build_filename (dir, "cache", NULL);
  g_autofree char *log = g_build_filename (dir, "nvcc.log", NULL);
  g_autofree char *wrapper = g_build_filename (dir, "nvcc", NULL);
  g_autofree char *header = g_build_filename (dir, "value.h", NULL);
  g_autofree char *prog = g_build_filename (dir, "prog.cu", NULL);
  const char *env_nvcc = g_getenv ("MEMSIM_NVCC");
  g_autofree char *nvcc = g_find_program_in_path (env_nvcc && *env_nvcc ? env_nvcc : "nvcc");
#ifdef MS_NVCC_PATH
  if (nvcc == NULL)
    nvcc = g_strdup (MS_NVCC_PATH);
#endif
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\necho \" $* \" >> '%s'\nexec '%s' \"$@\"\n",
                                             log, nvcc);
  g_assert_true (g_file_set_contents (wrapper, script, -1, NULL));
  g_assert_cmpint (g_chmod (wrapper, 0755), ==, 0);
  g_assert_true (g_file_set_contents (header, "#define VALUE 3\n", -1, NULL));
  g_assert_true (g_file_set_contents (
    prog,
    "#include <cstdio>\n#include \"value.h\"\n"
    "__global__ void k(int *x) { x[threadIdx.x] = VALUE; }\n"
    "int main()\n{\n  int *d, h[32];\n  cudaMalloc(&d, sizeof h);\n  k<<<1, 32>>>(d);\n"
    "  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);\n  printf(\"value %d\\n\", h[5]);\n"
    "  return 0;\n}\n", -1, NULL));
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "XDG_CACHE_HOME", cache, TRUE);
  env = g_environ_setenv (env, "MEMSIM_NVCC", wrapper, TRUE);
  static const struct {
    const char *value;
    gboolean preprocessed, compiled;
  } runs[] = { { "3", TRUE, TRUE }, { "3", FALSE, FALSE }, { "4", TRUE, TRUE } };
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    {
      if (i == 2)
        g_assert_true (g_file_set_contents (header, "#define VALUE 4\n", -1, NULL));
      g_unlink (log);
      g_auto (Result) r = run_in (env, prog, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_autofree char *said = g_strdup_printf ("value %s\n", runs[i].value);
      g_assert_true (strstr (r.out, said) != NULL || strstr (r.err, said) != NULL);
      g_autofree char *calls = NULL;
      g_assert_true (g_file_get_contents (log, &calls, NULL, NULL));
      g_assert_cmpint (strstr (calls, " -E ") != NULL, ==, runs[i].preprocessed);
      g_assert_cmpint (strstr (calls, " -c ") != NULL, ==, runs[i].compiled);
    }
  remove_tree (dir);
}

/* Device code's printf, malloc and free as the engine counts them
 * (tests/data/programs/devruntime.cu says which calls each kernel makes):
 * a call per group of lanes that called together, the lanes, and the
 * most calls of one warp; the first kernel has simplePrintf's shape, 4
 * warps of 8 lines, which the H200 ran in 41.6 us. */
static void
test_device_runtime (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_launches (parser, "devruntime.cu", "devruntime: all checks passed");
  static const struct {
    const char *kind;
    gint64 calls, lanes, chain;
    guint launch;
  } want[] = { { "printf", 4, 32, 1, 0 }, { "malloc", 1, 32, 1, 1 }, { "free", 1, 32, 1, 1 },
               { "printf", 4, 4, 4, 2 } };
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      JsonObject *l = json_array_get_object_element (launches, want[i].launch);
      JsonObject *c = json_object_get_object_member (
        json_object_get_object_member (l, "instructions"), want[i].kind);
      g_assert_cmpint (json_object_get_int_member (c, "calls"), ==, want[i].calls);
      g_assert_cmpint (json_object_get_int_member (c, "lanes"), ==, want[i].lanes);
      g_assert_cmpint (json_object_get_int_member (c, "chain"), ==, want[i].chain);
    }
  JsonObject *t = json_object_get_object_member (json_array_get_object_element (launches, 0),
                                                 "time");
  double ns = json_object_get_double_member (t, "gpu__time_duration.sum");
  g_assert_cmpfloat (fabs (ns - 41600) / 41600, <, 0.1);
  g_assert_true (g_str_has_prefix (json_object_get_string_member (t, "bound"),
                                   "device-runtime-bound"));
}

/* cp.async (LDGSTS, tests/data/programs/asynccopy.cu FILL): its global
 * reads are requests and sectors of global loads, not load instructions;
 * a warp's copy that reads nothing (zero fill) is an LDGSTS instruction
 * with no request.  The counts are Nsight Compute's on the H200
 * (2026-11-30) for 0, 8 and 32 threads a block filling.  A saved trace
 * keeps which sites are copies; not the copies that read nothing. */
static void
test_async_copy (void)
{
  static const struct {
    const char *fill;
    gint64 ldgsts, requests, sectors;
  } want[] = { { "0", 8, 8, 128 }, { "8", 12, 8, 112 }, { "32", 8, 4, 64 } };
  g_autofree char *p = program ("asynccopy.cu");
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    {
      g_autoptr (JsonParser) parser = json_parser_new ();
      g_auto (Result) r = run (p, "--format", "json", "--", want[i].fill, NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_nonnull (strstr (r.err, "asynccopy: all checks passed"));
      JsonObject *m = metrics_of (
        json_object_get_array_member (json_root (parser, r.out), "launches"), 0);
      g_assert_cmpint (metric (m, "smsp__sass_inst_executed_op_global_ld.sum"), ==, 0);
      g_assert_cmpint (metric (m, "smsp__sass_inst_executed_op_ldgsts.sum"), ==, want[i].ldgsts);
      g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==,
                       want[i].requests);
      g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==,
                       want[i].sectors);
      g_assert_cmpint (metric (m, "smsp__sass_inst_executed_op_shared_st.sum"), ==, 0);
    }
  g_autofree char *dir = g_dir_make_tmp ("memsim-async-XXXXXX", NULL);
  g_autofree char *trace = g_build_filename (dir, "copy.trace", NULL);
  g_autofree char *kernel = g_strdup_printf ("%s:copy_tile", p);
  g_auto (Result) t = memsim ("trace", kernel, "-g", "4", "-b", "64", "--arg", "in=float4[256]",
                              "--arg", "out=float[256]", "--arg", "fill=0", "--save-trace", trace,
                              NULL);
  g_assert_cmpint (t.status, ==, 0);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_auto (Result) r = memsim ("replay", trace, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  JsonObject *root = json_root (parser, r.out);
  JsonObject *m = json_object_get_object_member (root, "metrics");
  g_assert_cmpint (metric (m, "smsp__sass_inst_executed_op_global_ld.sum"), ==, 0);
  g_assert_cmpint (metric (m, "smsp__sass_inst_executed_op_ldgsts.sum"), ==, 8);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 128);
  g_unlink (trace);
  g_rmdir (dir);
}

/* Streams the program created: their work waits for the next
 * synchronisation (tests/data/programs/streams.cu checks every result:
 * a kernel spinning on a flag the host sets after launching it, a copy
 * from pageable memory changed after it was issued, the order of work on
 * two streams and the default one).  Before, the kernel ran at its launch
 * and spun until memsim stopped it. */
static void
test_streams (void)
{
  g_autofree char *p = program ("streams.cu");
  g_auto (Result) r = run (p, "--launches", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "streams: all checks passed"));
  g_assert_nonnull (strstr (r.out, "memsim: 4 launches: 2 traced, 2 run without the models"));
}

/* A block that runs past 2^26 warp-level instructions is stopped only
 * when it wrote nothing since it last ran that many (a spin-wait): a long
 * loop that stores as it goes runs to its end (PolyBench's correlation
 * and covariance run 2^28 a block), and a block that spins on a flag a
 * later block sets is the deadlock error. */
static void
test_long_loops (void)
{
  g_autofree char *p = program ("long-loop.cu");
  g_auto (Result) a = run (p, "--launches", "1", NULL);
  g_assert_cmpint (a.status, ==, 0);
  g_assert_nonnull (strstr (a.out, "long-loop: every thread counted 35651584"));
  g_auto (Result) b = run (p, "-j", "1", "--", "spin", NULL);
  assert_one_line_error (&b, 1, "the block executed 67108865 warp-level instructions without "
                         "finishing or writing memory: a spin-wait?");
  g_assert_nonnull (strstr (b.err, "long-loop.cu:22"));
}

/* The "time NAME MS" line of a program's output */
static double
time_of (const char *out, const char *name)
{
  g_autofree char *key = g_strdup_printf ("time %s ", name);
  const char *at = strstr (out, key);
  g_assert_nonnull (at);
  return g_ascii_strtod (at + strlen (key), NULL);
}

/* Copies and sets advance a program's clock as the H200 measured them
 * with CUDA events (gpu/measurements/h200-2026-11-30-copies/copy-time.txt,
 * the event pair's own 0.00128 ms taken off; tests/data/programs/
 * copy-time.cu): within 3% for pinned memory, 10% within the device, 40%
 * for pageable memory (the GPU's own spread).  A 2D copy is one copy (one
 * fixed time, not one a row); an untraced launch of a grid no traced
 * launch had takes the traced one's time beyond the fixed 2.75 us scaled
 * by blocks.  Before, copies took no time and the untraced launch none. */
static void
test_copy_time (void)
{
  g_autofree char *p = program ("copy-time.cu");
  g_auto (Result) r = run (p, "--arch", "h200", "--launches", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "copy-time: done"));
  static const struct { const char *name; double measured_ms, tolerance; } gpu[] = {
    { "pinned_h2d", 1.21869 - 0.00128, 0.03 },
    { "pinned_d2h", 0.02659 - 0.00128, 0.03 },
    { "pageable_h2d", 1.10291 - 0.00128, 0.40 },
    { "async_h2d", 0.30605 - 0.00128, 0.03 },
    { "d2d", 0.13194 - 0.00128, 0.10 },
    { "memset", 0.02003 - 0.00128, 0.10 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (gpu); i++)
    {
      double ms = time_of (r.out, gpu[i].name);
      g_test_message ("%s: %.5f ms, the H200 %.5f", gpu[i].name, ms, gpu[i].measured_ms);
      g_assert_cmpfloat (fabs (ms / gpu[i].measured_ms - 1), <=, gpu[i].tolerance);
    }
  g_assert_cmpfloat_with_epsilon (time_of (r.out, "copy_2d"), time_of (r.out, "copy_1d"), 1e-4);
  double full = time_of (r.out, "kernel_full"), quarter = time_of (r.out, "kernel_quarter");
  g_assert_cmpfloat (full, >, 0.00275);
  g_assert_cmpfloat_with_epsilon (quarter, 0.00275 + (full - 0.00275) / 4, 1e-5);
}

/* A pointer parameter past the 8th (tests/data/programs/many-params.cu,
 * with 11 live allocations): its memory is a buffer of the launch, so the
 * kernel's stores through it are in bounds (HSOpticalFlow's
 * JacobiIteration writes through its 10th and 11th). */
static void
test_many_params (void)
{
  g_autofree char *p = program ("many-params.cu");
  g_auto (Result) r = run (p, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "many-params: all checks passed"));
}

/* CUDA graphs (captured over two streams, built by hand with an
 * allocation node), stream-ordered allocation, host registration and a
 * stream callback: the program checks each result against a value worked
 * out by hand (tests/data/programs/graphs.cu). */
static void
test_graphs (void)
{
  g_autofree char *p = program ("graphs.cu");
  g_auto (Result) r = run (p, "--launches", "1", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "FAILED"));
  g_assert_nonnull (strstr (r.out, "graphs: all checks passed"));
}

/* nvcc's host flags: -Xcompiler FLAG for the host compiler, -lLIB joined
 * as nvcc spells it; without either, the program's OpenMP call is a
 * function memsim's runtime does not have (a one-line error). */
static void
test_host_flags (void)
{
  g_autofree char *p = program ("openmp.cu");
  g_auto (Result) x = run (p, "-Xcompiler", "-fopenmp", NULL);
  g_assert_cmpint (x.status, ==, 0);
  g_assert_nonnull (strstr (x.out, "openmp: 1 processors, h[31] = 1"));
  g_auto (Result) l = run (p, "-lgomp", NULL);
  g_assert_cmpint (l.status, ==, 0);
  g_assert_nonnull (strstr (l.out, "openmp: 1 processors, h[31] = 1"));
  g_auto (Result) none = run (p, NULL);
  assert_one_line_error (&none, 1, "omp_get_num_procs");
}

/* nvcc's own flags as a build line spells them (tests/data/programs/
 * nvcc-flags.cu): -use_fast_math (the kernel's f32 arithmetic flushes a
 * denormal to zero, as .ftz does on the GPU), -rdc=true and -rdc true,
 * -std=c++20 and -std c++20, optimisation, line and warning flags given to
 * nvcc, the target flags left out (memsim builds its own), the value of
 * -Xcompiler or -Xnvcc as it is (-Xcompiler -m64); a flag neither knows is
 * a one-line error.  The H200 prints the same two lines for the plain and
 * the fast-math build (nvcc -O3 -arch=sm_90 [-use_fast_math -rdc=true
 * -std=c++20], 2026-12-03). */
static void
test_nvcc_flags (void)
{
  g_autofree char *p = program ("nvcc-flags.cu");
  g_auto (Result) plain = run (p, "--launches", "0", NULL);
  g_assert_cmpint (plain.status, ==, 0);
  g_assert_nonnull (strstr (plain.out, "nvcc-flags: fast math 0, rdc 0, C++ 201703"));
  g_auto (Result) joined = run (p, "-use_fast_math", "-rdc=true", "-std=c++20", "-O3",
                                "-arch=sm_80", "-lineinfo", "-Wno-deprecated-gpu-targets",
                                "-Xptxas", "-O3", "--launches", "0", NULL);
  g_assert_cmpint (joined.status, ==, 0);
  g_assert_nonnull (strstr (joined.out, "nvcc-flags: fast math 1, rdc 1, C++ 202002"));
  g_auto (Result) split = run (p, "--use_fast_math", "-rdc", "true", "-std", "c++20",
                               "-gencode", "arch=compute_80,code=sm_80", "-g", "-Xcompiler",
                               "-m64", "-Xnvcc", "-G", "--launches", "0", NULL);
  g_assert_cmpint (split.status, ==, 0);
  g_assert_nonnull (strstr (split.out, "nvcc-flags: fast math 1, rdc 1, C++ 202002"));
  g_auto (Result) bad = run (p, "--fast-maths", NULL);
  assert_one_line_error (&bad, 2, "--fast-maths");
}

/* A read of shared memory no thread wrote (tests/data/programs/
 * unwritten.cu: lanes 4..31 read s[4..31], never written): the one-line
 * error by default; with --allow-races a one-line warning, and the program
 * goes on to its own result (0 + 1 + 2 + 3). */
static void
test_unwritten (void)
{
  g_autofree char *p = program ("unwritten.cu");
  g_auto (Result) strict = run (p, "--launches", "0", NULL);
  assert_one_line_error (&strict, 1, "reads shared memory no thread of the block has written");
  g_auto (Result) allowed = run (p, "--launches", "0", "--allow-races", NULL);
  g_assert_cmpint (allowed.status, ==, 0);
  g_assert_nonnull (strstr (allowed.out, "unwritten: sum 6"));
  const char *w = strstr (allowed.err, "memsim: warning: partial: reads shared memory no thread");
  g_assert_nonnull (w);
  g_assert_null (strstr (w + 1, "memsim: warning:"));   /* once */
}

/* Accesses just outside a buffer (tests/data/programs/guard.cu): an error
 * that names the option that goes past it; with --allow-out-of-bounds a
 * warning once for each site, the program's own checks pass (the load
 * reads zeros, the store is dropped), and the accesses are counted at their
 * addresses: 32 floats from 4 bytes before a buffer (buffers start on a
 * page) span 5 sectors in one request, as 32 floats from 4 bytes into one. */
static void
test_out_of_bounds_allowed (void)
{
  g_autofree char *p = program ("guard.cu");
  g_auto (Result) strict = run (p, NULL);
  assert_one_line_error (&strict, 1, "out-of-bounds load of 4 bytes 4 bytes before buffer 'in'");
  g_assert_nonnull (strstr (strict.err, "(--allow-out-of-bounds warns and goes on)"));

  g_auto (Result) r = run (p, "--allow-out-of-bounds", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "guard: all checks passed"));
  const char *load = "memsim: warning: shifted: out-of-bounds load of 4 bytes 4 bytes before "
                     "buffer 'in'";
  const char *store = "memsim: warning: spill: out-of-bounds store of 4 bytes at byte offset "
                      "128 of buffer 'out'";
  const char *w = strstr (r.err, load), *v = strstr (r.err, store);
  g_assert_nonnull (w);
  g_assert_nonnull (v);
  g_assert_null (strstr (w + 1, load));   /* once a site */
  g_assert_null (strstr (v + 1, store));
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_object_get_array_member (json_root (parser, r.out), "launches");
  g_assert_cmpint (json_array_get_length (launches), ==, 2);
  JsonObject *m = metrics_of (launches, 0);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==, 1);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 5);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ==, 4);
  m = metrics_of (launches, 1);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), ==, 1);
  g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ==, 5);
}

/* Grid-wide barriers (tests/data/programs/gridsync.cu checks its results,
 * worked out by hand).  exchange, 4 blocks of 64 threads (2 warps): each
 * warp stores 32 ints (8 stores of 4 sectors), the grid syncs, each warp
 * loads the next block's 32 ints (8 loads of 4 sectors) and stores them
 * (8 more stores).  The barrier: thread 0 of each block adds to the
 * workspace's counter (4 atomics of 1 sector) and polls it once (4 loads
 * of 1 sector: each block steps aside before its poll, so the last block
 * has arrived when the first polls).  So 12 loads, 36 sectors; 16 stores,
 * 64 sectors; 4 atomics.  <<< >>> instead of a cooperative launch: the
 * kernel finds no workspace and traps, a one-line error; a barrier that
 * one block never reaches: a one-line deadlock error, never a hang. */
static void
test_grid_sync (void)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonArray *launches = json_launches (parser, "gridsync.cu", "gridsync: all checks passed");
  g_assert_cmpint (json_array_get_length (launches), ==, 3);
  for (guint i = 0; i < 2; i++)   /* cudaLaunchCooperativeKernel, then cudaLaunchKernelEx */
    {
      JsonObject *m = metrics_of (launches, i);
      g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==, 12);
      g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), ==, 36);
      g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"), ==, 16);
      g_assert_cmpint (metric (m, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), ==, 64);
      g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"), ==, 4);
    }
  /* relay, 3 blocks, 10 barriers: 30 atomics and 30 polls, and the 10
   * rounds' loads of v[r] */
  JsonObject *m = metrics_of (launches, 2);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum"), ==, 30);
  g_assert_cmpint (metric (m, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), ==, 40);

  g_autofree char *p = program ("gridsync.cu");
  g_auto (Result) plain = run (p, "--", "plain", NULL);
  assert_one_line_error (&plain, 1, "needs a cooperative launch (cudaLaunchCooperativeKernel)");
  g_assert_nonnull (strstr (plain.err, "gridsync.cu:23"));
  g_auto (Result) deadlock = run (p, "--", "deadlock", NULL);
  assert_one_line_error (&deadlock, 1, "a grid-wide barrier that some block never reaches");
}

static void
skip_without_nvcc (void)
{
  g_test_skip ("no nvcc, or memsim built without CUDA's headers: memsim run builds the "
               "program with nvcc");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  /* memsim's nvcc: $MEMSIM_NVCC, nvcc on PATH, or configure's */
  const char *env = g_getenv ("MEMSIM_NVCC");
  g_autofree char *nvcc = g_find_program_in_path (env && *env ? env : "nvcc");
#ifdef MS_NVCC_PATH
  if (nvcc == NULL && g_file_test (MS_NVCC_PATH, G_FILE_TEST_IS_EXECUTABLE))
    nvcc = g_strdup (MS_NVCC_PATH);
#endif
#ifndef MS_CUDA_RUNTIME_API_H
  g_clear_pointer (&nvcc, g_free);   /* the runtime answers nvcc's host code with them */
#endif
  if (nvcc == NULL)
    {
      g_test_add_func ("/run/compiled", skip_without_nvcc);
      return g_test_run ();
    }
  g_test_add_func ("/run/runtime", test_runtime);
  g_test_add_func ("/run/json-counts", test_json_counts);
  g_test_add_func ("/run/launches", test_launches);
  g_test_add_func ("/run/untraced", test_untraced);
  g_test_add_func ("/run/split-and-groups", test_split_and_groups);
  g_test_add_func ("/run/errors", test_errors);
  g_test_add_func ("/run/compiler-exact", test_compiler_exact);
  g_test_add_func ("/run/textures", test_textures);
  g_test_add_func ("/run/zero-copy", test_zero_copy);
  g_test_add_func ("/run/clock", test_clock);
  g_test_add_func ("/run/clock-spin", test_clock_spin);
  g_test_add_func ("/run/division-slow-path", test_division_slow_path);
  g_test_add_func ("/run/printf-counts", test_printf_counts);
  g_test_add_func ("/run/conditional-graphs", test_conditional_graphs);
  g_test_add_func ("/run/repeats", test_repeats);
  g_test_add_func ("/run/quick-build", test_quick_build);
  g_test_add_func ("/run/quick-build-long-block", test_quick_build_long_block);
  g_test_add_func ("/run/nvcc-cache", test_nvcc_cache);
  g_test_add_func ("/run/device-runtime", test_device_runtime);
  g_test_add_func ("/run/async-copy", test_async_copy);
  g_test_add_func ("/run/streams", test_streams);
  g_test_add_func ("/run/long-loops", test_long_loops);
  g_test_add_func ("/run/column-loads", test_column_loads);
  g_test_add_func ("/run/copy-time", test_copy_time);
  g_test_add_func ("/run/many-params", test_many_params);
  g_test_add_func ("/run/graphs", test_graphs);
  g_test_add_func ("/run/host-flags", test_host_flags);
  g_test_add_func ("/run/nvcc-flags", test_nvcc_flags);
  g_test_add_func ("/run/unwritten", test_unwritten);
  g_test_add_func ("/run/out-of-bounds-allowed", test_out_of_bounds_allowed);
  g_test_add_func ("/run/grid-sync", test_grid_sync);
  return g_test_run ();
}
