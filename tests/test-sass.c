/* test-sass.c - compiler-exact counts: the SASS reader on captured
 * nvdisasm output of the real nvcc builds (tests/data/sass/), and the
 * regrouping filter (sim/stream/regroup.c) on hand-built records, and the
 * producer's shortcut round the filters for repeated shared records
 * (stream.h, MsRepeatShortcut).
 *
 * Expected values come from the SASS text itself as a person reads it
 * (docs/validation.md shows the same gemm_tiled_nopad instructions from the
 * H100 run's cuobjdump) and from the rule the filter implements, worked out
 * by hand for each case below. */
#include "config.h"

#include <string.h>

#include "reduction.h"
#include "regroup.h"
#include "instructions.h"
#include "sass.h"

static MsSass *
load (const char *name)
{
  g_autofree char *path = g_test_build_filename (G_TEST_DIST, "data", "sass", name, NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return ms_sass_parse (text);
}

static guint
count (const MsSass *s, const char *function, const char *opcode, int line)
{
  guint n = 0;
  for (guint i = 0; i < s->instrs->len; i++)
    {
      const MsSassInstr *in = s->instrs->pdata[i];
      if (strcmp (in->function, function) == 0 && strcmp (in->opcode, opcode) == 0
          && (line == 0 || in->line == line))
        n++;
    }
  return n;
}

/* gemm.cu's whole `nvdisasm -c -gi` output: gemm_tiled_nopad's inner loop
 * (line 91, fully unrolled over k = 0..31) is 8 LDS.128 (As[ty][k..k+3])
 * and 32 LDS (Bs[k][tx]); its tile loads are 2 LDG and 2 STS, its result 1
 * STG.  The padded gemm_tiled has no LDS.128. */
static void
test_parse_gemm (void)
{
  g_autoptr (MsSass) s = load ("gemm.nvdisasm.txt");
  g_assert_cmpuint (count (s, "gemm_tiled_nopad", "LDS.128", 91), ==, 8);
  g_assert_cmpuint (count (s, "gemm_tiled_nopad", "LDS", 91), ==, 32);
  g_assert_cmpuint (count (s, "gemm_tiled_nopad", "LDG.E", 0), ==, 2);
  g_assert_cmpuint (count (s, "gemm_tiled_nopad", "STS", 0), ==, 2);
  g_assert_cmpuint (count (s, "gemm_tiled_nopad", "STG.E", 0), ==, 1);
  g_assert_cmpuint (count (s, "gemm_tiled", "LDS.128", 0), ==, 0);
  g_assert_cmpuint (count (s, "gemm_tiled", "LDS", 0), ==, 64);
  g_assert_true (ms_sass_has_function (s, "gemm_regtile"));
  g_assert_false (ms_sass_has_function (s, "gemm"));
  for (guint i = 0; i < s->instrs->len; i++)
    {
      const MsSassInstr *in = s->instrs->pdata[i];
      if (strcmp (in->opcode, "LDS.128") == 0)
        {
          g_assert_cmpuint (in->width, ==, 16);
          g_assert_cmpuint (in->spaces, ==, 1u << MS_SPACE_SHARED);
          g_assert_cmpint (in->op, ==, MS_OP_LD);
          g_assert_cmpstr (in->file, ==, "gemm.cu");
        }
    }
}

/* What the SASS says about sites: line 91's As/Bs loads (4 bytes) may be
 * fused 4 to 1 in gemm_tiled_nopad (an LDS.128 on the line), not in
 * gemm_tiled (line 56, only LDS); a global load line is never fused; an
 * 8-byte site on a line with LDS.128 fuses 2 to 1. */
static void
test_grouping (void)
{
  g_autoptr (MsSass) s = load ("gemm.nvdisasm.txt");
  MsSite nopad = { "traces/kernels/gemm.cu", 91, 0, -1 };
  MsSassGrouping g = ms_sass_grouping (s, "gemm_tiled_nopad", &nopad, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 4);
  g_assert_cmpuint (g.n_instrs, ==, 40);
  g_assert_false (g.contended);
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &nopad, MS_SPACE_SHARED, MS_OP_LD, 8);
  g_assert_cmpuint (g.fuse, ==, 2);
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &nopad, MS_SPACE_SHARED, MS_OP_ST, 4);
  g_assert_cmpuint (g.fuse, ==, 1);
  g_assert_cmpuint (g.n_instrs, ==, 0);
  g_assert_true (g.absorbed);   /* no STS on the line */
  MsSite padded = { "gemm.cu", 56, 0, -1 };
  g = ms_sass_grouping (s, "gemm_tiled", &padded, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 1);
  g_assert_cmpuint (g.n_instrs, ==, 64);
  MsSite global = { "gemm.cu", 81, 0, -1 };
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &global, MS_SPACE_GLOBAL, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 1);
  g_assert_cmpuint (g.n_instrs, ==, 1);
  /* another file with the same line number is not the site */
  MsSite other = { "tests.cu", 91, 0, -1 };
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &other, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_instrs, ==, 0);
  /* no line (NVVM's hoisted loads): a shared one fuses up to 16 bytes, a
   * global one is absorbed as any site without instructions */
  MsSite hoisted = { "gemm.cu", 0, 0, -1 };
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &hoisted, MS_SPACE_SHARED, MS_OP_LD, 8);
  g_assert_cmpuint (g.fuse, ==, 2);
  g_assert_false (g.absorbed);
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &hoisted, MS_SPACE_SHARED, MS_OP_ST, 4);
  g_assert_cmpuint (g.fuse, ==, 4);
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &hoisted, MS_SPACE_SHARED, MS_OP_LD, 16);
  g_assert_cmpuint (g.fuse, ==, 1);
  g = ms_sass_grouping (s, "gemm_tiled_nopad", &hoisted, MS_SPACE_GLOBAL, MS_OP_LD, 8);
  g_assert_cmpuint (g.fuse, ==, 1);
  g_assert_true (g.absorbed);
}

/* nvdisasm -c -gi of fp16ScalarProduct (cuda-samples, ptxas 13.0, sm_90),
 * the last step of scalarProductKernel_native: its LDS.64 reads
 * shArray[0..1] for __hadd2 (cuda_fp16.h:5122) inlined in operator+
 * (cuda_fp16.hpp:307) inlined in reduceInShared_native (line 84) inlined
 * in the kernel (line 127): one mark a level, innermost first, on four
 * lines.  They are one chain, each location a site matches; the next
 * instruction's single mark starts a new one. */
static void
test_inlined_chain (void)
{
  const char *text =
    ".text._Z26scalarProductKernel_nativePK7__half2S1_Pfm:\n"
    "\t//## File \"/c/include/cuda_fp16.h\", line 5122 inlined at \"/c/include/cuda_fp16.hpp\", line 307\n"
    "\t//## File \"/c/include/cuda_fp16.hpp\", line 307 inlined at \"/s/fp16ScalarProduct.cu\", line 84\n"
    "\t//## File \"/s/fp16ScalarProduct.cu\", line 84 inlined at \"/s/fp16ScalarProduct.cu\", line 127\n"
    "\t//## File \"/s/fp16ScalarProduct.cu\", line 127\n"
    "        /*0540*/              @!P1 LDS.64 R6, [UR4] ;\n"
    "        /*0550*/              @!P1 HADD2 R6, R6, R7 ;\n"
    "\t//## File \"/s/fp16ScalarProduct.cu\", line 130\n"
    "        /*0590*/                   LDS R5, [UR4] ;\n";
  g_autoptr (MsSass) s = ms_sass_parse (text);
  g_assert_cmpuint (s->instrs->len, ==, 2);
  const MsSassInstr *fused = s->instrs->pdata[0], *last = s->instrs->pdata[1];
  const char *chain[] = { "cuda_fp16.h:5122", "cuda_fp16.hpp:307", "fp16ScalarProduct.cu:84",
                          "fp16ScalarProduct.cu:127", NULL };
  g_assert_cmpstrv (fused->where, chain);
  g_assert_cmpstr (fused->file, ==, "cuda_fp16.h");
  g_assert_cmpint (fused->line, ==, 5122);
  const char *alone[] = { "fp16ScalarProduct.cu:130", NULL };
  g_assert_cmpstrv (last->where, alone);
  /* the PTX's site of the loads: operator+'s line (its .loc's inlined_at) */
  const char *fn = "scalarProductKernel_native";
  MsSite op = { "cuda_fp16.hpp", 307, 0, -1 };
  MsSassGrouping g = ms_sass_grouping (s, fn, &op, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 2);
  g_assert_cmpuint (g.n_instrs, ==, 1);
  MsSite step = { "fp16ScalarProduct.cu", 84, 0, -1 };
  g_assert_cmpuint (ms_sass_grouping (s, fn, &step, MS_SPACE_SHARED, MS_OP_LD, 4).fuse, ==, 2);
  MsSite result = { "fp16ScalarProduct.cu", 130, 0, -1 };
  g = ms_sass_grouping (s, fn, &result, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 1);
  g_assert_cmpuint (g.n_instrs, ==, 1);
  g_assert_false (g.absorbed);
  /* a site that names its own lines too (MsSite.inner, device code run
   * from its PTX): the instructions whose innermost mark is one of them
   * (a whole line: 512 and 51222 are not 5122); another access inlined at
   * the same call has none of them, so its accesses are absorbed (into a
   * neighbour's wider instruction, or moved: sim/stream/regroup.h) */
  MsSite own = { "fp16ScalarProduct.cu", 84, 0, -1, .inner = "cuda_fp16.h:5122" };
  g = ms_sass_grouping (s, fn, &own, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 2);
  g_assert_cmpuint (g.n_instrs, ==, 1);
  g_assert_false (g.absorbed);
  MsSite both = { "fp16ScalarProduct.cu", 84, 0, -1, .inner = "cuda_fp16.h:51\tcuda_fp16.h:5122" };
  g_assert_cmpuint (ms_sass_grouping (s, fn, &both, MS_SPACE_SHARED, MS_OP_LD, 4).n_instrs, ==, 1);
  MsSite other = { "fp16ScalarProduct.cu", 84, 0, -1, .inner = "cuda_fp16.h:512\tcuda_fp16.h:51222" };
  g = ms_sass_grouping (s, fn, &other, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.fuse, ==, 1);
  g_assert_cmpuint (g.n_instrs, ==, 0);
  g_assert_true (g.absorbed);
  /* no such instruction in a function the SASS does not have: not absorbed */
  g = ms_sass_grouping (s, "no_such_kernel", &result, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_instrs, ==, 0);
  g_assert_false (g.absorbed);
}

/* histogram's mergeHistogram64Kernel (nvdisasm -c -gi, ptxas 13.0, sm_90,
 * cut down): `for (i = threadIdx.x; i < n; i += 256) sum += d[...]` on
 * line 142 is a predicated load alone in its block (a peeled iteration
 * whose predicate is off), a loop of 4 loads, a block of 2 and a single
 * load, each computing its own address (offsets 0, registers of their
 * own): an unroll plan of blocks of 4 and 2 with the single iteration
 * last, as the H200 counts it (gpu/measurements/h200-2026-12-02-source-
 * counters: 138 loads a block).  A second load of the line in the loop's
 * block (two accesses unrolled together) leaves two singles: no plan. */
static void
test_block_runs (void)
{
  const char *head =
    ".text._Z22mergeHistogram64KernelPjS_j:\n"
    "\t//## File \"/s/histogram64.cu\", line 142\n"
    "        /*0070*/               @P0 BRA `(.L_x_1) ;\n"
    "        /*00d0*/               @P1 LDG.E R6, desc[UR6][R6.64] ;\n"
    "        /*0180*/               @P2 BRA `(.L_x_3) ;\n"
    ".L_x_4:\n"
    "        /*0200*/                   LDG.E R8, desc[UR6][R8.64] ;\n"
    "        /*0230*/                   LDG.E R10, desc[UR6][R10.64] ;\n"
    "        /*0250*/                   LDG.E R12, desc[UR6][R12.64] ;\n"
    "        /*0260*/                   LDG.E R14, desc[UR6][R14.64] ;\n";
  const char *tail =
    "        /*02c0*/              @!P1 BRA `(.L_x_4) ;\n"
    ".L_x_3:\n"
    "        /*0320*/               @P1 BRA `(.L_x_6) ;\n"
    "        /*0370*/                   LDG.E R8, desc[UR6][R8.64] ;\n"
    "        /*0380*/                   LDG.E R6, desc[UR6][R6.64] ;\n"
    ".L_x_6:\n"
    "        /*03f0*/              @!P0 BRA `(.L_x_1) ;\n"
    "        /*0420*/                   LDG.E R4, desc[UR6][R4.64] ;\n"
    ".L_x_1:\n"
    "        /*0440*/                   EXIT ;\n";
  g_autofree char *text = g_strconcat (head, tail, NULL);
  g_autoptr (MsSass) s = ms_sass_parse (text);
  MsSite site = { "histogram64.cu", 142, 0, -1 };
  MsSassGrouping g = ms_sass_grouping (s, "mergeHistogram64Kernel", &site, MS_SPACE_GLOBAL,
                                       MS_OP_LD, 4);
  g_assert_cmpuint (g.n_instrs, ==, 8);
  g_assert_cmpuint (g.n_blocks, ==, 2);
  g_assert_cmpuint (g.blocks[0], ==, 4);
  g_assert_cmpuint (g.blocks[1], ==, 2);
  g_assert_false (g.remainder_first);
  g_assert_false (g.compiler_dependent);
  g_autofree char *two = g_strconcat (head, "        /*0268*/                   LDG.E R16, desc[UR6][R16.64] ;\n",
                                      tail, NULL);
  g_autoptr (MsSass) s2 = ms_sass_parse (two);
  g = ms_sass_grouping (s2, "mergeHistogram64Kernel", &site, MS_SPACE_GLOBAL, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 0);
  /* the predicated load in the loop's block: no plan either */
  g_autofree char *pred = g_strconcat (head, "        /*0268*/               @P3 LDG.E R16, desc[UR6][R16.64] ;\n",
                                       tail, NULL);
  g_autoptr (MsSass) s3 = ms_sass_parse (pred);
  g = ms_sass_grouping (s3, "mergeHistogram64Kernel", &site, MS_SPACE_GLOBAL, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 0);
}

/* tests.cu's filtered SASS (nvcc-sass.sh extract): test_atomics' atomicCAS
 * on line 120 is an ATOMS.CAS inlined from CUDA's header (the mark names
 * both), its atomicAdd on line 117 an ATOMS.POPC.INC (no CAS), its global
 * atomics REDG: only line 120 is contention-dependent. */
static void
test_contended (void)
{
  g_autoptr (MsSass) s = load ("tests.gpu.sass");
  g_auto (GStrv) lines = ms_sass_contended_lines (s, "test_atomics");
  g_assert_nonnull (lines);
  g_assert_true (g_strv_contains ((const char *const *) lines, "tests.cu:120"));
  g_assert_false (g_strv_contains ((const char *const *) lines, "tests.cu:117"));
  MsSite cas = { "tests.cu", 120, 0, -1 };
  MsSassGrouping g = ms_sass_grouping (s, "test_atomics", &cas, MS_SPACE_SHARED, MS_OP_ATOMIC, 4);
  g_assert_true (g.contended);
  MsSite add = { "tests.cu", 117, 0, -1 };
  g = ms_sass_grouping (s, "test_atomics", &add, MS_SPACE_SHARED, MS_OP_ATOMIC, 4);
  g_assert_false (g.contended);
  g_assert_cmpuint (g.n_instrs, ==, 1);
  MsSite red = { "tests.cu", 118, 0, -1 };
  g = ms_sass_grouping (s, "test_atomics", &red, MS_SPACE_GLOBAL, MS_OP_ATOMIC, 4);
  g_assert_cmpuint (g.n_instrs, ==, 1);
  g_assert_null (ms_sass_contended_lines (s, "test_early_exit"));
}

/* Reductions from the SASS: tests.gpu.sass (nvcc 13.0, sm_90) has REDG on
 * test_atomics's global atomic lines 118, 121 and 124 (their results are
 * unused) and ATOMS on its shared ones, 117 and 120; a line with both an
 * ATOMG and a REDG is not a reduction line; shared RED-free lines never. */
static void
test_reduction_lines (void)
{
  g_autoptr (MsSass) s = load ("tests.gpu.sass");
  g_auto (GStrv) lines = ms_sass_reduction_lines (s, "test_atomics");
  g_assert_nonnull (lines);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  g_assert_true (g_strv_contains ((const char *const *) lines, "tests.cu:118"));
  g_assert_true (g_strv_contains ((const char *const *) lines, "tests.cu:121"));
  g_assert_true (g_strv_contains ((const char *const *) lines, "tests.cu:124"));
  g_assert_null (ms_sass_reduction_lines (s, "test_early_exit"));   /* ATOMS only */
  g_autoptr (MsSass) mixed = ms_sass_parse (
    ".text._Z1kPi:\n"
    "\t//## File \"/x/k.cu\", line 5\n"
    "        /*0010*/  REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;\n"
    "\t//## File \"/x/k.cu\", line 6\n"
    "        /*0020*/  ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R2.64], R5 ;\n"
    "\t//## File \"/x/k.cu\", line 7\n"
    "        /*0030*/  REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;\n"
    "        /*0040*/  ATOMG.E.ADD.STRONG.GPU PT, R7, desc[UR4][R2.64], R5 ;\n"
    "\t//## File \"/x/k.cu\", line 8\n"
    "        /*0050*/  REDUX.SUM UR5, R4 ;\n");
  g_auto (GStrv) k = ms_sass_reduction_lines (mixed, "k");
  g_assert_nonnull (k);
  g_assert_cmpuint (g_strv_length (k), ==, 1);
  g_assert_cmpstr (k[0], ==, "k.cu:5");
}

/* Without the SASS: a line's atomics are reductions when each is
 * atomicAdd/Sub/Min/Max/And/Or/Xor/Inc/Dec as a whole statement. */
static void
test_source_reduction (void)
{
  static const struct { const char *prev, *line; gboolean red; } cases[] = {
    { "    int v = in[i];", "    atomicAdd(&hist[v], 1);", TRUE },
    { NULL, "    atomicMax (&out[16], v);", TRUE },
    { "  if (atomicCAS (&flag[0], 0, 1) == 0)", "    atomicAdd (&out[17], 1);", TRUE },
    { NULL, "  if (i < n) atomicAdd (&c[i], 1);", TRUE },
    { NULL, "  for (int k = 0; k < 4; k++) atomicSub (&c[k], 1);  // four", TRUE },
    { NULL, "  (void) atomicAdd (&c[0], 1);", TRUE },
    { NULL, "  if (x) { atomicOr (&c[0], 1); } else atomicAnd (&c[1], 2);", TRUE },
    { NULL, "  atomicAdd_block (&c[0], 1);", TRUE },
    { "  } else", "    atomicInc (&c[0], 9);", TRUE },
    { "  int v = 1;", "  atomicAdd (&c[0],", TRUE },            /* continues below */
    { NULL, "  if (atomicCAS (&flag[0], 0, 1) == 0)", FALSE },   /* CAS: no RED form */
    { NULL, "  atomicExch (&lock, 0);", FALSE },
    { NULL, "  int old = atomicAdd (&c[0], 1);", FALSE },
    { NULL, "  out[i] = atomicAdd (&c[0], 1) + 1;", FALSE },
    { NULL, "  return atomicAdd (p, v);", FALSE },
    { NULL, "  x = (int) atomicAdd (&c[0], 1);", FALSE },
    { NULL, "  f (atomicAdd (&c[0], 1));", FALSE },
    { NULL, "  atomicAdd (&a[0], 1); int t = atomicAdd (&a[1], 1);", FALSE },   /* mixed */
    { "  int old =", "      atomicAdd (&c[0], 1);", FALSE },
    { "  x = f (y)", "      + atomicAdd (&c[0], 1);", FALSE },
    { NULL, "  myatomicAdd (&c[0]);", FALSE },
    { NULL, "  out[i] = in[i];", FALSE },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s / %s", cases[i].prev ? cases[i].prev : "-", cases[i].line);
      g_assert_cmpint (ms_sass_source_reduction (cases[i].line, cases[i].prev), ==, cases[i].red);
    }
}

/* Opcode suffixes and text that is no SASS. */
static void
test_parse_forms (void)
{
  g_autoptr (MsSass) s = ms_sass_parse (
    "garbage\n"
    "    LDS.128 R4, [R2] ;\n"                    /* before any function: skipped */
    ".text._Z1fPi:\n"
    "        /*0000*/  LDC R1, c[0x0][0x28] ;\n"  /* constant bank: no access */
    "\t//## File \"/x/k.cu\", line 7\n"
    "        /*0010*/  @!P0 LDG.E.U8 R2, desc[UR4][R2.64] ;\n"
    "        /*0020*/  STG.E.64 desc[UR4][R2.64], R4 ;\n"
    "        /*0030*/  LD.E.S16 R2, [R2.64] ;\n"
    "        /*0040*/  ATOMS.CAST.SPIN.64 P0, [R3], R4, R6 ;\n"
    "        /*0050*/  LDG.E.128.CONSTANT R4, desc[UR4][R2.64] ;\n"
    "        /*0060*/  LDG.E.LTC128B R4, desc[UR4][R2.64] ;\n"
    "//## File \"broken\n"
    ".text.plain_c:\n"
    "    RED.E.ADD.STRONG.GPU [R2.64], R5 ;\n");
  g_assert_cmpuint (s->instrs->len, ==, 7);
  const MsSassInstr *const *in = (const MsSassInstr *const *) s->instrs->pdata;
  g_assert_cmpstr (in[0]->function, ==, "f");
  g_assert_cmpstr (in[0]->opcode, ==, "LDG.E.U8");
  g_assert_cmpuint (in[0]->width, ==, 1);
  g_assert_cmpint (in[0]->line, ==, 7);
  g_assert_cmpstr (in[0]->file, ==, "k.cu");
  g_assert_cmpuint (in[1]->width, ==, 8);
  g_assert_cmpint (in[1]->op, ==, MS_OP_ST);
  g_assert_cmpuint (in[2]->width, ==, 2);
  g_assert_cmpuint (in[2]->spaces, ==, (1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED));
  g_assert_true (in[3]->cas);
  g_assert_cmpuint (in[3]->width, ==, 8);
  g_assert_cmpuint (in[4]->width, ==, 16);
  g_assert_cmpuint (in[5]->width, ==, 4);   /* LTC128B is a cache hint */
  g_assert_cmpstr (in[6]->function, ==, "plain_c");
  g_assert_cmpint (in[6]->line, ==, 0);
  g_assert_cmpint (in[6]->op, ==, MS_OP_ATOMIC);
  g_autoptr (MsSass) empty = ms_sass_parse (NULL);
  g_assert_cmpuint (empty->instrs->len, ==, 0);
}

/* A float division's slow path, the subroutine ptxas appends after the
 * kernel's EXIT (as nvdisasm shows simplePitchLinearTexture's kernels): a
 * CALL reaches it only for rare operands, so its instructions, though
 * marked with the division's line, are not counted as run with it; nor is
 * the call site the fast path's branch skips, from the branch to the next
 * label (the argument's move, the return address, the CALL, the result's
 * move back; the engine counts them with the slow path).  A call of
 * another subroutine counts. */
static void
test_slow_path (void)
{
  g_autoptr (MsSass) s = ms_sass_parse (
    ".text._Z1kPf:\n"
    "\t//## File \"/x/k.cu\", line 5\n"
    "        /*0000*/  FFMA R0, R2, R3, R4 ;\n"
    "        /*0010*/  @!P0 BRA `(.L_x_1) ;\n"
    "        /*0018*/  MOV R3, R13 ;\n"
    "        /*0018*/  @P1 MOV R4, 0x30 ;\n"
    "        /*0020*/  CALL.REL.NOINC `($__internal_1_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;\n"
    "        /*0028*/  IMAD.MOV.U32 R9, RZ, RZ, R0 ;\n"
    ".L_x_1:\n"
    "        /*0030*/  @!P2 BRA `(.L_x_3) ;\n"
    "        /*0034*/  CALL.REL.NOINC `($__internal_2_$__cuda_sm20_div_u64) ;\n"
    ".L_x_3:\n"
    "        /*0038*/  EXIT ;\n"
    "        .type           $__internal_1_$__cuda_sm3x_div_rn_noftz_f32_slowpath,@function\n"
    "$__internal_1_$__cuda_sm3x_div_rn_noftz_f32_slowpath:\n"
    "\t//## File \"/x/k.cu\", line 5\n"
    "        /*0040*/  SHF.R.U32.HI R8, RZ, 0x17, R3 ;\n"
    "        /*0050*/  @P0 LOP3.LUT R12, R8, 0xff, RZ, 0xc0, !PT ;\n"
    "        /*0060*/  RET.REL.NODEC R6 `(_Z1kPf) ;\n"
    ".L_x_2:\n"
    "        /*0070*/  BRA `(.L_x_2);\n"
    ".text._Z1gPf:\n"
    "\t//## File \"/x/k.cu\", line 9\n"
    "        /*0000*/  FADD R0, R2, R3 ;\n"
    "        /*0010*/  EXIT ;\n");
  g_autoptr (GHashTable) all = ms_sass_line_counts (s, "k", MS_SASS_ALL);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (all, "k.cu:5")), ==, 5);
  g_autoptr (GHashTable) pred = ms_sass_line_counts (s, "k", MS_SASS_PREDICATED);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (pred, "k.cu:5")), ==, 0);
  /* the next function's instructions count again */
  g_autoptr (GHashTable) next = ms_sass_line_counts (s, "g", MS_SASS_ALL);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (next, "k.cu:9")), ==, 2);
}

/* A shuffle loop ptxas unrolled (tests like reduction's reduce4): the
 * copy for a converged warp in line, then after the exit the copy BRA.DIV
 * jumps to for a warp that is not converged, which branches back.  The
 * second copy is not counted as run, and its branch back makes no loop:
 * line 10 counts its copy in line (2 SHFL, 2 FADD), the BSYNC and the
 * EXIT, and the FADD after the branch back (7; the other copy's 5 not),
 * and no line is looped. */
static void
test_divergent_copy (void)
{
  g_autoptr (MsSass) s = ms_sass_parse (
    ".text._Z3redPKfPf:\n"
    "\t//## File \"/x/sh.cu\", line 8\n"
    "        /*0100*/  @P0 BRA `(.L_x_1) ;\n"
    "        /*0110*/  UMOV UR6, 0xffffffff ;\n"
    "        /*0120*/  BRA.DIV UR6, `(.L_x_2) ;\n"
    "\t//## File \"/x/sh.cu\", line 10\n"
    "        /*0130*/  SHFL.DOWN PT, R2, R5, 0x10, 0x1f ;\n"
    "        /*0140*/  FADD R2, R5, R2 ;\n"
    "        /*0150*/  SHFL.DOWN PT, R6, R2, 0x8, 0x1f ;\n"
    ".L_x_8:\n"
    "        /*0160*/  FADD R5, R2, R6 ;\n"
    ".L_x_1:\n"
    "        /*0170*/  BSYNC B0 ;\n"
    "        /*0180*/  EXIT ;\n"
    ".L_x_2:\n"
    "        /*0190*/  MOV R8, 0xffffffff ;\n"
    "        /*01a0*/  WARPSYNC.COLLECTIVE R8, `(.L_x_3) ;\n"
    "        /*01b0*/  SHFL.DOWN P0, R6, R5, R10, R11 ;\n"
    "        /*01c0*/  ENDCOLLECTIVE ;\n"
    ".L_x_3:\n"
    "        /*01d0*/  FADD R2, R5, R2 ;\n"
    "        /*01e0*/  BRA `(.L_x_8) ;\n"
    ".L_x_4:\n"
    "        /*01f0*/  FADD R9, R5, R2 ;\n"
    ".L_x_5:\n"
    "        /*0200*/  BRA `(.L_x_5);\n");
  g_autoptr (GHashTable) all = ms_sass_line_counts (s, "red", MS_SASS_ALL);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (all, "sh.cu:8")), ==, 3);
  /* 2 SHFL, 2 FADD, BSYNC, EXIT; then the FADD after the copy */
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (all, "sh.cu:10")), ==, 7);
  g_autoptr (GHashTable) looped = ms_sass_line_counts (s, "red", MS_SASS_LOOPED);
  g_assert_cmpuint (g_hash_table_size (looped), ==, 0);
}

/* A subroutine ptxas calls every time (a double division rounded up):
 * its usual path, past the guarded branch to the special operands' code,
 * through the unguarded branch to the join, up to the RET (8
 * instructions: 3, BRA, BSYNC, LDL, VIADD, RET), counts at the call's line
 * besides the line's own 3 (MOV, CALL, EXIT). */
static void
test_subroutine_path (void)
{
  g_autoptr (MsSass) s = ms_sass_parse (
    ".text._Z1kPd:\n"
    "\t//## File \"/x/k.cu\", line 5\n"
    "        /*0000*/  MOV R20, 0x20 ;\n"
    "        /*0010*/  CALL.REL.NOINC `($__internal_1_$__cuda_sm20_div_ru_f64_v2) ;\n"
    "        /*0020*/  EXIT ;\n"
    ".L_x_9:\n"
    "        /*0030*/  BRA `(.L_x_9);\n"
    "        .type           $__internal_1_$__cuda_sm20_div_ru_f64_v2,@function\n"
    "$__internal_1_$__cuda_sm20_div_ru_f64_v2:\n"
    "        /*0040*/  VIADD R1, R1, 0xfffffff8 ;\n"
    "        /*0050*/  ISETP.GT.U32.AND P0, PT, R10, 0x7feffffe, PT ;\n"
    "        /*0060*/  @P0 BRA `(.L_x_155) ;\n"
    "        /*0070*/  BRA `(.L_x_156) ;\n"
    ".L_x_155:\n"
    "        /*0080*/  DSETP.NAN.AND P0, PT, R2, R2, PT ;\n"
    "        /*0090*/  NOP ;\n"
    ".L_x_156:\n"
    "        /*00a0*/  BSYNC B0 ;\n"
    "        /*00b0*/  LDL R2, [R1] ;\n"
    "        /*00c0*/  VIADD R1, R1, 0x8 ;\n"
    "        /*00d0*/  RET.REL.NODEC R20 `(_Z1kPd) ;\n");
  g_autoptr (GHashTable) all = ms_sass_line_counts (s, "k", MS_SASS_ALL);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (all, "k.cu:5")), ==, 3 + 8);
  /* a subroutine of the kernel's own (a double pow: its label is the
   * kernel's name, then $__internal_): its path counts at the call, its
   * text is not the kernel's line's */
  g_autoptr (MsSass) own = ms_sass_parse (
    ".text._Z1kPd:\n"
    "\t//## File \"/x/k.cu\", line 7\n"
    "        /*0000*/  MOV R34, 0x20 ;\n"
    "        /*0010*/  CALL.REL.NOINC `($_Z1kPd$__internal_accurate_pow) ;\n"
    "\t//## File \"/x/k.cu\", line 9\n"
    "        /*0020*/  EXIT ;\n"
    ".L_x_3:\n"
    "        /*0030*/  BRA `(.L_x_3);\n"
    "$_Z1kPd$__internal_accurate_pow:\n"
    "        /*0040*/  SHF.R.U32.HI R11, RZ, 0x14, R15 ;\n"
    "        /*0050*/  @!P0 DMUL R12, R14, 2 ;\n"
    "        /*0060*/  DADD R22, R16, 1 ;\n"
    "        /*0070*/  RET.REL.NODEC R34 `(_Z1kPd) ;\n");
  g_autoptr (GHashTable) own_all = ms_sass_line_counts (own, "k", MS_SASS_ALL);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (own_all, "k.cu:7")), ==, 2 + 4);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (own_all, "k.cu:9")), ==, 1);
}

/* ---- the regrouping filter ---- */

typedef struct {
  GArray *got;   /* MsWarpAccess, as the inner sink saw them */
} Capture;

static void
capture (gpointer user, const MsWarpAccess *a)
{
  g_array_append_val (((Capture *) user)->got, *a);
}

static MsSite site_as = { "k.cu", 10, 0, -1 };
static MsSite site_bs = { "k.cu", 10, 1, -1 };
static MsSite site_plain = { "k.cu", 20, 2, -1 };

static MsSite site_loop = { "k.cu", 30, 3, -1 };
/* mergeSort's block scalars: lenSrcA (line 40) and lenSrcB (41) side by
 * side, which ptxas loads with one LDS.64 marked 41; line 40 has none */
static MsSite site_absorbed = { "k.cu", 40, 4, -1 };
static MsSite site_pair = { "k.cu", 41, 5, -1 };
/* lavaMD's qB_shared[j] and qB_shared[j + 1]: two copies of line 50 (an
 * unrolled loop's, in two regions of the PTX), one LDS.128 in the SASS;
 * and another line's, which fuses too but is no copy */
static MsSite site_copy0 = { "k.cu", 50, 6, -1 };
static MsSite site_copy1 = { "k.cu", 50, 7, -1 };
static MsSite site_other = { "k.cu", 51, 8, -1 };

/* As and Bs fuse 4 (the SASS has an LDS.128 on their line), plain 1; loop
 * is per_thread_sum's loop: blocks of 16, 8 and 4 after a remainder loop. */
static void
grouping_of (gpointer data, const MsWarpAccess *a, MsGrouping *out)
{
  (void) data;
  if (a->site == &site_loop)
    {
      out->n_blocks = 3;
      out->blocks[0] = 16;
      out->blocks[1] = 8;
      out->blocks[2] = 4;
      out->remainder_first = TRUE;
      return;
    }
  if (a->site == &site_absorbed)
    {
      out->absorbed = TRUE;
      return;
    }
  out->fuse = a->site == &site_plain ? 1
              : a->site == &site_pair || a->site == &site_copy0 || a->site == &site_copy1
                    || a->site == &site_other ? 2 : 4;
}

static MsWarpAccess
rec (MsSite *site, guint32 block, guint16 warp, guint64 base, guint64 lane_step, guint32 mask)
{
  MsWarpAccess a;
  memset (&a, 0, sizeof a);
  a.site = site;
  a.block = block;
  a.warp = warp;
  a.space = MS_SPACE_SHARED;
  a.op = MS_OP_LD;
  a.width = 4;
  a.mask = mask;
  for (int l = 0; l < MS_WARP_SIZE; l++)
    a.addr[l] = base + (guint64) l * lane_step;
  return a;
}

/* Feeds records through the filter's ordered part and returns what came
 * out. */
static GArray *
run_ordered (const MsWarpAccess *in, guint n)
{
  Capture c = { g_array_new (FALSE, FALSE, sizeof (MsWarpAccess)) };
  MsStreamSink inner_sink = { 0 };
  inner_sink.user = &c;
  inner_sink.ordered = capture;
  MsSinks inner = { 0 };
  ms_sinks_add (&inner, &inner_sink);
  g_autoptr (MsRegroup) r = ms_regroup_new (&inner, grouping_of, NULL);
  const MsStreamSink *s = ms_regroup_sink (r);
  g_assert_null (s->access);
  for (guint i = 0; i < n; i++)
    s->ordered (s->user, &in[i]);
  ms_regroup_finish (r);
  return c.got;
}

static gpointer
capture_worker_new (gpointer user)
{
  return user;
}

/* A sink with a parallel part only, whose worker state is user. */
static MsStreamSink
parallel_sink (gpointer user, void (*access) (gpointer worker, const MsWarpAccess *a))
{
  MsStreamSink sink = { 0 };
  sink.user = user;
  sink.worker_new = capture_worker_new;
  sink.access = access;
  return sink;
}

/* The parallel part, with an inner sink whose worker state is the capture. */
static GArray *
run_parallel (const MsWarpAccess *in, guint n, guint64 *merged)
{
  Capture c = { g_array_new (FALSE, FALSE, sizeof (MsWarpAccess)) };
  MsStreamSink inner_sink = parallel_sink (&c, capture);
  MsSinks inner = { 0 };
  ms_sinks_add (&inner, &inner_sink);
  g_autoptr (MsRegroup) r = ms_regroup_new (&inner, grouping_of, NULL);
  const MsStreamSink *s = ms_regroup_sink (r);
  g_assert_null (s->ordered);
  gpointer w = s->worker_new (s->user);
  for (guint i = 0; i < n; i++)
    s->access (w, &in[i]);
  s->worker_done (s->user, w);
  *merged = ms_regroup_merged (r);
  return c.got;
}

#define ALL 0xffffffffu

/* gemm_tiled_nopad's inner loop for one warp and k = 0..3: As[ty][k] is one
 * address for all lanes (a broadcast, row ty at byte 128 ty), Bs[k][tx] is
 * lane l at 4 l + 128 k, alternating.  Out: the four Bs loads as they were
 * and one 16-byte As load at As[ty][0], after Bs of k = 2 (it takes the
 * place of As of k = 3). */
static void
test_regroup_broadcast (void)
{
  g_assert_cmpint (ms_site_register (&site_as), >=, 0);
  g_assert_cmpint (ms_site_register (&site_bs), >=, 0);
  g_assert_cmpint (ms_site_register (&site_plain), >=, 0);
  MsWarpAccess in[8];
  for (int k = 0; k < 4; k++)
    {
      in[2 * k] = rec (&site_as, 0, 1, 4096 + 3 * 128 + 4 * k, 0, ALL);
      in[2 * k + 1] = rec (&site_bs, 0, 1, 8192 + 128 * k, 4, ALL);
    }
  for (int part = 0; part < 2; part++)
    {
      guint64 merged = 0;
      g_autoptr (GArray) out = part ? run_parallel (in, 8, &merged)
                                    : run_ordered (in, 8);
      g_assert_cmpuint (out->len, ==, 5);
      const MsWarpAccess *o = (const MsWarpAccess *) out->data;
      for (int k = 0; k < 3; k++)
        {
          g_assert_true (o[k].site == &site_bs);
          g_assert_cmpuint (o[k].addr[5], ==, 8192 + 128 * k + 20);
        }
      g_assert_true (o[3].site == &site_as);
      g_assert_cmpuint (o[3].width, ==, 16);
      g_assert_cmpuint (o[3].mask, ==, ALL);
      g_assert_cmpuint (o[3].addr[0], ==, 4096 + 3 * 128);
      g_assert_cmpuint (o[3].addr[31], ==, 4096 + 3 * 128);
      g_assert_true (o[4].site == &site_bs);
      g_assert_cmpuint (o[4].width, ==, 4);
      if (part)
        g_assert_cmpuint (merged, ==, 3);
    }
}

/* Records that cannot form one 16-byte access come out unchanged and in
 * their order: starts that are not 16-byte aligned; a group broken by a
 * gap (k = 0, 1, then 3); a different mask; a whole warp's part with its
 * last lane out of step; a group cut by the end of the block; a site the
 * compiler did not fuse. */
static void
test_regroup_unchanged (void)
{
  g_assert_cmpint (ms_site_register (&site_as), >=, 0);
  g_assert_cmpint (ms_site_register (&site_plain), >=, 0);
  MsWarpAccess in[20];
  guint n = 0;
  static const int misaligned[] = { 1, 2, 3, 5 };   /* As[ty][k]: never at a 16-byte start */
  for (int k = 0; k < 4; k++)
    in[n++] = rec (&site_as, 0, 0, 4 * misaligned[k], 0, ALL);
  in[n++] = rec (&site_as, 0, 2, 0, 16, ALL);   /* lane l at 16 l: aligned */
  in[n++] = rec (&site_as, 0, 2, 4, 16, ALL);
  in[n++] = rec (&site_as, 0, 2, 12, 16, ALL);  /* gap: releases the two */
  in[n++] = rec (&site_as, 0, 3, 0, 0, ALL);
  in[n++] = rec (&site_as, 0, 3, 4, 0, 0xffff); /* another mask */
  for (int k = 0; k < 4; k++)                   /* lane 31 of the second part out of step */
    {
      in[n] = rec (&site_as, 0, 4, 4 * (guint64) k, 16, ALL);
      in[n++].addr[31] += k == 1 ? 64 : 0;
    }
  in[n++] = rec (&site_as, 1, 3, 0, 0, ALL);    /* block 1: two parts ... */
  in[n++] = rec (&site_as, 1, 3, 4, 0, ALL);
  in[n++] = rec (&site_as, 2, 3, 8, 0, ALL);    /* ... and block 2 starts */
  in[n++] = rec (&site_plain, 2, 3, 0, 0, ALL);
  in[n++] = rec (&site_plain, 2, 3, 4, 0, ALL);
  for (int part = 0; part < 2; part++)
    {
      guint64 merged = 0;
      g_autoptr (GArray) out = part ? run_parallel (in, n, &merged)
                                    : run_ordered (in, n);
      g_assert_cmpuint (out->len, ==, n);
      guint64 sum_in = 0, sum_out = 0;
      for (guint i = 0; i < n; i++)
        {
          const MsWarpAccess *o = &g_array_index (out, MsWarpAccess, i);
          g_assert_cmpuint (o->width, ==, 4);
          sum_in += in[i].addr[0] + in[i].block * 1000 + in[i].mask;
          sum_out += o->addr[0] + o->block * 1000 + o->mask;
        }
      g_assert_cmpuint (sum_in, ==, sum_out);
      /* the order is kept where nothing was held: the misaligned four first */
      for (guint i = 0; i < 4; i++)
        g_assert_cmpuint (g_array_index (out, MsWarpAccess, i).addr[0], ==, 4 * misaligned[i]);
      /* the broken group comes out in its order: 0, 4; then 12, which
       * may be the top part of a group walking down (12 = 16 - 4: ptxas
       * fuses ld [r + 12] .. ld [r] too), is held until that is ruled
       * out, and comes out before block 1 begins */
      g_assert_cmpuint (g_array_index (out, MsWarpAccess, 4).addr[0], ==, 0);
      g_assert_cmpuint (g_array_index (out, MsWarpAccess, 5).addr[0], ==, 4);
      guint at12 = 0, block1 = n;
      for (guint i = 0; i < n; i++)
        {
          const MsWarpAccess *o = &g_array_index (out, MsWarpAccess, i);
          if (o->block == 0 && o->warp == 2 && o->addr[0] == 12)
            at12 = i;
          if (o->block == 1 && block1 == n)
            block1 = i;
        }
      g_assert_cmpuint (at12, >, 5);
      g_assert_cmpuint (at12, <, block1);
      if (part)
        g_assert_cmpuint (merged, ==, 0);
    }
}

/* Two sites fused into one instruction (sim/stream/regroup.h): in either
 * order, walking up or down, with other sites' records between them; the
 * wide record has the fusing site's and the lowest addresses.  Warp 0:
 * the absorbed site at 0x808 then the pair's at 0x80c (up); warp 1: the
 * pair's at 0x80c, a plain record, the absorbed one at 0x808 (down);
 * warp 2: the pair's at 0x808, the absorbed at 0x80c (up); warp 3: the
 * same with another mask, which does not fuse; warp 4: an absorbed
 * record at 0x804 (no two-part alignment either way) stays. */
static void
test_regroup_cross (void)
{
  g_assert_cmpint (ms_site_register (&site_absorbed), >=, 0);
  g_assert_cmpint (ms_site_register (&site_pair), >=, 0);
  g_assert_cmpint (ms_site_register (&site_plain), >=, 0);
  MsWarpAccess in[16];
  guint n = 0;
  in[n++] = rec (&site_absorbed, 0, 0, 0x808, 0, 1);
  in[n++] = rec (&site_pair, 0, 0, 0x80c, 0, 1);
  in[n++] = rec (&site_pair, 0, 1, 0x80c, 0, ALL);
  in[n++] = rec (&site_plain, 0, 1, 0x100, 4, ALL);
  in[n++] = rec (&site_absorbed, 0, 1, 0x808, 0, ALL);
  in[n++] = rec (&site_pair, 0, 2, 0x808, 0, ALL);
  in[n++] = rec (&site_plain, 0, 2, 0x100, 4, ALL);
  in[n++] = rec (&site_absorbed, 0, 2, 0x80c, 0, ALL);
  in[n++] = rec (&site_pair, 0, 3, 0x808, 0, ALL);
  in[n++] = rec (&site_absorbed, 0, 3, 0x80c, 0, 0xffff);
  in[n++] = rec (&site_absorbed, 0, 4, 0x804, 0, ALL);
  for (int part = 0; part < 2; part++)
    {
      guint64 merged = 0;
      g_autoptr (GArray) out = part ? run_parallel (in, n, &merged) : run_ordered (in, n);
      guint wide[5] = { 0 }, narrow[5] = { 0 };
      for (guint i = 0; i < out->len; i++)
        {
          const MsWarpAccess *o = &g_array_index (out, MsWarpAccess, i);
          if (o->site == &site_plain)
            continue;
          if (o->width == 8)
            {
              wide[o->warp]++;
              g_assert_true (o->site == &site_pair);
              g_assert_cmpuint (o->addr[0], ==, 0x808);
            }
          else
            narrow[o->warp]++;
        }
      for (guint w = 0; w < 3; w++)
        {
          g_assert_cmpuint (wide[w], ==, 1);
          g_assert_cmpuint (narrow[w], ==, 0);
        }
      g_assert_cmpuint (wide[3], ==, 0);
      g_assert_cmpuint (narrow[3], ==, 2);
      g_assert_cmpuint (narrow[4], ==, 1);
      g_assert_cmpuint (out->len, ==, n - 3);
      if (part)
        g_assert_cmpuint (merged, ==, 3);
    }
}

/* Two copies of one line fuse as one site's records do (8-byte broadcasts
 * at j = 0, 1 and at j = 2, 3: two 16-byte records with the first copy's
 * site, other records between); a copy's record after another line's does
 * not (the pair of lines 50 and 51 stays two records). */
static void
test_regroup_copies (void)
{
  g_assert_cmpint (ms_site_register (&site_copy0), >=, 0);
  g_assert_cmpint (ms_site_register (&site_copy1), >=, 0);
  g_assert_cmpint (ms_site_register (&site_other), >=, 0);
  g_assert_cmpint (ms_site_register (&site_plain), >=, 0);
  MsWarpAccess in[8];
  guint n = 0;
  for (int j = 0; j < 4; j++)
    {
      in[n] = rec (j % 2 ? &site_copy1 : &site_copy0, 0, 0, 0x1900 + 8 * j, 0, ALL);
      in[n++].width = 8;
      in[n++] = rec (&site_plain, 0, 0, 0x100, 4, ALL);
    }
  for (int part = 0; part < 2; part++)
    {
      guint64 merged = 0;
      g_autoptr (GArray) out = part ? run_parallel (in, n, &merged) : run_ordered (in, n);
      guint wide = 0;
      for (guint i = 0; i < out->len; i++)
        {
          const MsWarpAccess *o = &g_array_index (out, MsWarpAccess, i);
          if (o->site == &site_plain)
            continue;
          g_assert_cmpuint (o->width, ==, 16);
          g_assert_true (o->site == &site_copy0);
          g_assert_cmpuint (o->addr[7], ==, 0x1900 + 16 * wide);
          wide++;
        }
      g_assert_cmpuint (wide, ==, 2);
      g_assert_cmpuint (out->len, ==, n - 2);
      if (part)
        g_assert_cmpuint (merged, ==, 2);
    }
  MsWarpAccess pair[2] = { rec (&site_copy0, 0, 0, 0x1900, 0, ALL),
                           rec (&site_other, 0, 0, 0x1908, 0, ALL) };
  pair[0].width = pair[1].width = 8;
  g_autoptr (GArray) out = run_ordered (pair, 2);
  g_assert_cmpuint (out->len, ==, 2);
  g_assert_cmpuint (g_array_index (out, MsWarpAccess, 0).width, ==, 8);
}

/* A warp's four parts walking down (ld [r + 12], [r + 8], [r + 4], [r],
 * as ptxas fuses them into one LDS.128 as well): one record of 16 bytes
 * at the lowest part's addresses; a walk down that does not start at a
 * wide access's top part stays four records. */
static void
test_regroup_down (void)
{
  g_assert_cmpint (ms_site_register (&site_as), >=, 0);
  MsWarpAccess in[8];
  guint n = 0;
  for (int k = 3; k >= 0; k--)
    in[n++] = rec (&site_as, 0, 0, 4 * (guint64) k, 16, ALL);
  for (int k = 4; k >= 1; k--)   /* 16 .. 4: its top part is not at 12 mod 16 */
    in[n++] = rec (&site_as, 0, 1, 4 * (guint64) k, 16, ALL);
  for (int part = 0; part < 2; part++)
    {
      guint64 merged = 0;
      g_autoptr (GArray) out = part ? run_parallel (in, n, &merged) : run_ordered (in, n);
      g_assert_cmpuint (out->len, ==, 1 + 4);
      guint wide = 0;
      for (guint i = 0; i < out->len; i++)
        {
          const MsWarpAccess *o = &g_array_index (out, MsWarpAccess, i);
          if (o->warp == 0)
            {
              g_assert_cmpuint (o->width, ==, 16);
              for (int l = 0; l < MS_WARP_SIZE; l++)
                g_assert_cmpuint (o->addr[l], ==, 16 * (guint64) l);
              wide++;
            }
          else
            g_assert_cmpuint (o->width, ==, 4);
        }
      g_assert_cmpuint (wide, ==, 1);
      if (part)
        g_assert_cmpuint (merged, ==, 3);
    }
}

/* Two warps and two blocks: each warp's four parts fuse, whatever comes in
 * between from the other warp. */
static void
test_regroup_warps (void)
{
  g_assert_cmpint (ms_site_register (&site_as), >=, 0);
  MsWarpAccess in[16];
  guint n = 0;
  for (guint32 b = 0; b < 2; b++)
    for (int k = 0; k < 4; k++)
      for (guint16 w = 0; w < 2; w++)
        in[n++] = rec (&site_as, b, w, 1024 * w + 4 * k, 32, ALL);
  guint64 merged = 0;
  g_autoptr (GArray) out = run_parallel (in, n, &merged);
  g_assert_cmpuint (out->len, ==, 4);
  g_assert_cmpuint (merged, ==, 12);
  for (guint i = 0; i < 4; i++)
    {
      const MsWarpAccess *o = &g_array_index (out, MsWarpAccess, i);
      g_assert_cmpuint (o->width, ==, 16);
      g_assert_cmpuint (o->block, ==, i / 2);
      g_assert_cmpuint (o->addr[1], ==, 1024 * o->warp + 32);
    }
}

/* per_thread_sum's loop for one warp whose lanes 0, 1, 2 have 21, 5 and 3
 * elements (lane l's k-th at 4096 l + 4 k), the other lanes none; the
 * source loop is 21 records, lane l active in the first n_l.  The unrolled
 * code (remainder of n mod 4 first: 1, 1, 3; then 16-blocks while 16 are
 * left: lane 0 once; then an 8-block: nobody, 20 - 16 = 4 and 5 - 1 = 4 are
 * left; then a 4-block: lanes 0 and 1) runs 3 remainder instructions
 * (lanes 0-2, then lane 2 twice), 16 for lane 0 alone (its elements 1-16)
 * and 4 for lanes 0 and 1 (elements 17-20 and 1-4): 23 instructions, and
 * the ST of another site that ends the loop comes after them. */
static void
test_regroup_unrolled (void)
{
  g_assert_cmpint (ms_site_register (&site_loop), >=, 0);
  g_assert_cmpint (ms_site_register (&site_plain), >=, 0);
  static const guint n[3] = { 21, 5, 3 };
  MsWarpAccess in[22];
  for (guint k = 0; k < 21; k++)
    {
      guint32 mask = 0;
      for (int l = 0; l < 3; l++)
        if (k < n[l])
          mask |= 1u << l;
      in[k] = rec (&site_loop, 7, 2, 4 * k, 4096, mask);
    }
  in[21] = rec (&site_plain, 7, 2, 0, 4, ALL);
  for (int part = 0; part < 2; part++)
    {
      guint64 merged = 0;
      g_autoptr (GArray) out = part ? run_parallel (in, 22, &merged) : run_ordered (in, 22);
      g_assert_cmpuint (out->len, ==, 24);
      const MsWarpAccess *o = (const MsWarpAccess *) out->data;
      g_assert_cmpuint (o[0].mask, ==, 0x7);
      g_assert_cmpuint (o[0].addr[0], ==, 0);
      g_assert_cmpuint (o[0].addr[2], ==, 2 * 4096);
      g_assert_cmpuint (o[1].mask, ==, 0x4);
      g_assert_cmpuint (o[2].mask, ==, 0x4);
      g_assert_cmpuint (o[2].addr[2], ==, 2 * 4096 + 8);
      for (guint t = 0; t < 16; t++)
        {
          g_assert_cmpuint (o[3 + t].mask, ==, 0x1);
          g_assert_cmpuint (o[3 + t].addr[0], ==, 4 * (1 + t));
        }
      for (guint t = 0; t < 4; t++)
        {
          g_assert_cmpuint (o[19 + t].mask, ==, 0x3);
          g_assert_cmpuint (o[19 + t].addr[0], ==, 4 * (17 + t));
          g_assert_cmpuint (o[19 + t].addr[1], ==, 4096 + 4 * (1 + t));
          g_assert_true (o[19 + t].site == &site_loop);
          g_assert_cmpuint (o[19 + t].width, ==, 4);
          g_assert_cmpuint (o[19 + t].block, ==, 7);
          g_assert_cmpuint (o[19 + t].warp, ==, 2);
        }
      g_assert_true (o[23].site == &site_plain);
    }
}

/* Global records the inner ordered part keeps (it has no use for shared
 * ones: ordered_skips) */
static void
capture_global (gpointer user, const MsWarpAccess *a)
{
  if (a->space == MS_SPACE_GLOBAL)
    capture (user, a);
}

/* the inner sink's parallel part: counts the records it gets */
static guint parallel_seen;

static void
count_access (gpointer worker, const MsWarpAccess *a)
{
  (void) a;
  (*(guint *) worker)++;
}

static gpointer
count_worker_new (gpointer user)
{
  (void) user;
  return &parallel_seen;
}

/* What the inner ordered part gets through the filter's ordered side when
 * the producer leaves out the records ms_sinks_ordered_skips allows
 * (skip TRUE: as the emulator does, stream.h; *skipped counts them), or
 * hands on every record. */
static GArray *
run_skipping (const MsWarpAccess *in, guint n, gboolean skip, guint *skipped)
{
  Capture c = { g_array_new (FALSE, FALSE, sizeof (MsWarpAccess)) };
  MsStreamSink inner_sink = { 0 };
  inner_sink.user = &c;
  inner_sink.ordered = capture_global;
  inner_sink.worker_new = count_worker_new;
  inner_sink.access = count_access;
  inner_sink.ordered_skips = 1u << MS_SPACE_SHARED;
  MsSinks inner = { 0 };
  ms_sinks_add (&inner, &inner_sink);
  g_autoptr (MsRegroup) r = ms_regroup_new (&inner, grouping_of, NULL);
  const MsStreamSink *s = ms_regroup_sink (r);
  MsSinks outer = { 0 };
  ms_sinks_add (&outer, s);
  guint skips = ms_sinks_ordered_skips (&outer);
  g_assert_cmpuint (skips, ==, 1u << MS_SPACE_SHARED);
  gpointer w = s->worker_new (s->user);
  *skipped = 0;
  parallel_seen = 0;
  for (guint i = 0; i < n; i++)
    {
      ms_ordered_keep = FALSE;
      s->access (w, &in[i]);
      if (!skip || !(skips >> in[i].space & 1) || ms_ordered_keep)
        s->ordered (s->user, &in[i]);
      else
        (*skipped)++;
    }
  s->worker_done (s->user, w);
  ms_regroup_finish (r);
  g_assert_cmpuint (parallel_seen, ==, n);   /* no loop, no fusion group: as they came */
  return c.got;
}

/* A producer may leave out of the ordered stream the records no ordered
 * part uses (stream.h: ms_sinks_ordered_skips), but not where the
 * regrouping's ordered side would have done more than pass one on: here
 * a shared access between records of an unrolled global loop ends the
 * loop (two unrolled runs: the instructions as they came), and without
 * it the four records would be one run (other instructions).  The same
 * records must reach the inner ordered part either way; shared records
 * of a site that merges nothing, with no group held, are left out.  And
 * a filter with no parallel side cannot tell: it skips nothing. */
static void
test_regroup_ordered_skips (void)
{
  g_assert_cmpint (ms_site_register (&site_loop), >=, 0);
  g_assert_cmpint (ms_site_register (&site_plain), >=, 0);
  g_assert_cmpint (ms_site_register (&site_as), >=, 0);
  MsWarpAccess in[16];
  guint n = 0;
  for (guint32 b = 0; b < 2; b++)
    {
      static const guint32 masks[4] = { ALL, ALL, 0xffff, 0xff };
      /* shared, before the loop, nothing held: left out */
      in[n++] = rec (&site_plain, b, 1, 64, 4, ALL);
      for (guint k = 0; k < 4; k++)
        {
          if (k == 2)
            in[n++] = rec (&site_plain, b, 1, 0, 4, ALL);   /* shared: ends the loop */
          in[n] = rec (&site_loop, b, 1, 4 * k, 4096, masks[k]);
          in[n++].space = MS_SPACE_GLOBAL;
        }
      in[n++] = rec (&site_plain, b, 1, 128, 4, ALL);   /* shared, ends the loop: handed on */
    }
  in[n] = rec (&site_plain, 1, 1, 256, 4, ALL);   /* global: handed on */
  in[n++].space = MS_SPACE_GLOBAL;
  in[n++] = rec (&site_plain, 1, 1, 192, 4, ALL);   /* shared, nothing held: left out */
  guint skipped = 0, none = 0;
  g_autoptr (GArray) all = run_skipping (in, n, FALSE, &none);
  g_autoptr (GArray) some = run_skipping (in, n, TRUE, &skipped);
  g_assert_cmpuint (none, ==, 0);
  g_assert_cmpuint (skipped, ==, 3);
  g_assert_cmpuint (some->len, ==, all->len);
  g_assert_cmpmem (some->data, some->len * sizeof (MsWarpAccess), all->data,
                   all->len * sizeof (MsWarpAccess));
  /* the loop's runs as they came (masks ALL ALL, then 0xffff 0xff) */
  g_assert_cmpuint (all->len, ==, 9);
  g_assert_cmpuint (g_array_index (all, MsWarpAccess, 1).mask, ==, ALL);
  g_assert_cmpuint (g_array_index (all, MsWarpAccess, 2).mask, ==, 0xffff);
  g_assert_cmpuint (g_array_index (all, MsWarpAccess, 3).mask, ==, 0xff);

  MsStreamSink ordered_only = { 0 };
  ordered_only.ordered = capture_global;
  ordered_only.ordered_skips = 1u << MS_SPACE_SHARED;
  MsSinks inner = { 0 };
  ms_sinks_add (&inner, &ordered_only);
  g_autoptr (MsRegroup) r = ms_regroup_new (&inner, grouping_of, NULL);
  g_assert_cmpuint (ms_regroup_sink (r)->ordered_skips, ==, 0);
}

/* The unroll plans the SASS gives: per_thread_sum's loop (line 171: one
 * single LDG, then runs of 16, 8 and 4 from one offset) is a plan with the
 * remainder first; per_thread_sum_capped's (line 211: a predicated
 * remainder of up to 3, then 16, 8, 4) is no plan: compiler-dependent.
 * gemm_naive's K loop (line 20: unrolled copies on several registers) and
 * gemm_regtile's Bs reads (line 143: one copy per k, scheduled out of
 * order) are neither. */
/* ---- the producer's shortcut for repeated shared records (stream.h) ---- */

static gboolean
shortcut_repeat (gpointer state, const void *record)
{
  (void) state;
  (void) record;
  return TRUE;
}

static gboolean
no_reduction (gpointer data, const MsSite *site)
{
  (void) data;
  (void) site;
  return FALSE;
}

static gboolean
inner_shortcut (gpointer worker, MsRepeatShortcut *sc)
{
  sc->repeat = shortcut_repeat;
  sc->state = worker;
  return TRUE;
}

/* The shortcut of a worker of the set of a and b (b may be NULL). */
static gboolean
shortcut_of (const MsStreamSink *a, const MsStreamSink *b, MsRepeatShortcut *sc)
{
  MsSinks sinks = { 0 };
  ms_sinks_add (&sinks, a);
  if (b)
    ms_sinks_add (&sinks, b);
  MsSinkWorker w;
  ms_sink_worker_begin (&w, &sinks);
  gboolean ok = ms_sink_worker_shortcut (&w, sc);
  ms_sink_worker_end (&w);
  return ok;
}

/* The regrouping gives its inner sink's shortcut with its own count of
 * groups held, which closes it while a fusion group waits for its parts
 * (gemm_tiled_nopad's As, four 4-byte loads that are one 16-byte one) and
 * opens it again once the group is out; a set with two parallel parts, or
 * one without a shortcut, gives none. */
static void
test_regroup_shortcut (void)
{
  g_assert_cmpint (ms_site_register (&site_as), >=, 0);
  guint seen = 0;
  MsStreamSink inner_sink = parallel_sink (&seen, count_access);
  inner_sink.shortcut = inner_shortcut;
  MsSinks inner = { 0 };
  ms_sinks_add (&inner, &inner_sink);
  g_autoptr (MsRegroup) r = ms_regroup_new (&inner, grouping_of, NULL);
  MsSinks outer = { 0 };
  ms_sinks_add (&outer, ms_regroup_sink (r));
  MsSinkWorker w;
  ms_sink_worker_begin (&w, &outer);
  MsRepeatShortcut sc;
  g_assert_true (ms_sink_worker_shortcut (&w, &sc));
  g_assert_true (sc.repeat == shortcut_repeat);
  g_assert_true (sc.state == &seen);
  g_assert_nonnull (sc.held[0]);
  g_assert_true (ms_repeat_shortcut_open (&sc));
  for (int k = 0; k < 4; k++)
    {
      MsWarpAccess a = rec (&site_as, 0, 1, 4096 + 3 * 128 + 4 * k, 0, ALL);
      ms_sink_worker_access (&w, &a);
      /* held after the first three parts; out (one record) after the fourth */
      g_assert_cmpint (ms_repeat_shortcut_open (&sc), ==, k == 3);
      g_assert_cmpuint (seen, ==, k == 3 ? 1 : 0);
    }
  ms_sink_worker_end (&w);

  /* the reductions' filter passes shared records unchanged: its inner
   * sink's shortcut, with nothing held */
  g_autoptr (MsReduction) red = ms_reduction_new (&inner, no_reduction, NULL);
  g_assert_true (shortcut_of (ms_reduction_sink (red), NULL, &sc));
  g_assert_true (sc.state == &seen && sc.held[0] == NULL);
  /* two sinks with parallel parts: none */
  guint other = 0;
  MsStreamSink second = inner_sink;
  second.user = &other;
  g_assert_false (shortcut_of (&inner_sink, &second, &sc));
  g_assert_null (sc.repeat);
  /* one without a shortcut, behind the regrouping: none */
  MsStreamSink plain = inner_sink;
  plain.shortcut = NULL;
  MsSinks one = { 0 };
  ms_sinks_add (&one, &plain);
  g_autoptr (MsRegroup) r2 = ms_regroup_new (&one, grouping_of, NULL);
  g_assert_false (shortcut_of (ms_regroup_sink (r2), NULL, &sc));
}

static void
test_unroll_plans (void)
{
  g_autoptr (MsSass) s = load ("access.gpu.sass");
  MsSite loop = { "access.cu", 171, 0, -1 };
  MsSassGrouping g = ms_sass_grouping (s, "per_thread_sum", &loop, MS_SPACE_GLOBAL, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 3);
  g_assert_cmpuint (g.blocks[0], ==, 16);
  g_assert_cmpuint (g.blocks[1], ==, 8);
  g_assert_cmpuint (g.blocks[2], ==, 4);
  g_assert_true (g.remainder_first);
  g_assert_false (g.compiler_dependent);
  g_assert_cmpuint (g.n_instrs, ==, 29);
  MsSite capped = { "access.cu", 211, 0, -1 };
  g = ms_sass_grouping (s, "per_thread_sum_capped", &capped, MS_SPACE_GLOBAL, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 0);
  g_assert_true (g.compiler_dependent);
  g_auto (GStrv) dep = ms_sass_dependent_lines (s, "per_thread_sum_capped");
  g_assert_nonnull (dep);
  g_assert_cmpstr (dep[0], ==, "access.cu:211");
  g_assert_null (dep[1]);
  g_assert_null (ms_sass_dependent_lines (s, "per_thread_sum"));
  g_autoptr (MsSass) gemm = load ("gemm.nvdisasm.txt");
  MsSite naive = { "gemm.cu", 20, 0, -1 };
  g = ms_sass_grouping (gemm, "gemm_naive", &naive, MS_SPACE_GLOBAL, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 0);
  g_assert_false (g.compiler_dependent);
  MsSite regtile = { "gemm.cu", 143, 0, -1 };
  g = ms_sass_grouping (gemm, "gemm_regtile", &regtile, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 0);
  g_assert_false (g.compiler_dependent);
  MsSite padded = { "gemm.cu", 56, 0, -1 };
  g = ms_sass_grouping (gemm, "gemm_tiled", &padded, MS_SPACE_SHARED, MS_OP_LD, 4);
  g_assert_cmpuint (g.n_blocks, ==, 0);
  g_assert_false (g.compiler_dependent);
}

/* Every instruction counted on its line: the prologue before the first
 * mark on "", NOPs and the closing self-branch left out, a predicated
 * instruction counted like any other; vectorAdd's SASS (nvcc 13, sm_90). */
static void
test_line_counts (void)
{
  static const char text[] =
    ".text._Z9vectorAddPKfS0_Pfi:\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "\t//## File \"/x/vectorAdd.cu\", line 49\n"
    "        /*0010*/                   S2R R9, SR_CTAID.X ;\n"
    "        /*0020*/                   IMAD R9, R9, UR4, R0 ;\n"
    "\t//## File \"/x/vectorAdd.cu\", line 51\n"
    "        /*0060*/                   ISETP.GE.AND P0, PT, R9, UR4, PT ;\n"
    "        /*0070*/               @P0 EXIT ;\n"
    "\t//## File \"/x/vectorAdd.cu\", line 52\n"
    "        /*00d0*/                   LDG.E R3, desc[UR4][R2.64] ;\n"
    "\t//## File \"/x/helper.cuh\", line 7 inlined at \"/x/vectorAdd.cu\", line 52\n"
    "        /*0110*/                   FADD R0, R4, R3 ;\n"
    "\t//## File \"/x/vectorAdd.cu\", line 54\n"
    "        /*0140*/                   EXIT ;\n"
    ".L_x_0:\n"
    "        /*0150*/                   BRA `(.L_x_0);\n"
    "        /*0160*/                   NOP;\n"
    "        /*0170*/                   NOP;\n"
    ".L_x_1:\n";
  g_autoptr (MsSass) sass = ms_sass_parse (text);
  g_autoptr (GHashTable) lines = ms_sass_line_counts (sass, "vectorAdd", MS_SASS_ALL);
  g_assert_cmpuint (g_hash_table_size (lines), ==, 6);
  struct { const char *where; guint n; } want[] = {
    { "", 1 }, { "vectorAdd.cu:49", 2 }, { "vectorAdd.cu:51", 2 }, { "vectorAdd.cu:52", 1 },
    { "helper.cuh:7\tvectorAdd.cu:52", 1 }, { "vectorAdd.cu:54", 1 },
  };
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (lines, want[k].where)), ==,
                      want[k].n);
  g_autoptr (GHashTable) none = ms_sass_line_counts (sass, "other", MS_SASS_ALL);
  g_assert_cmpuint (g_hash_table_size (none), ==, 0);
  /* the predicated: the guarded EXIT on line 51 */
  g_autoptr (GHashTable) predicated = ms_sass_line_counts (sass, "vectorAdd", MS_SASS_PREDICATED);
  g_assert_cmpuint (g_hash_table_size (predicated), ==, 1);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (predicated, "vectorAdd.cu:51")), ==, 1);
}

/* The estimate, worked by hand: block 0 (line 10: 2 PTX, line 11: 1 PTX)
 * ran 4 times, block 1 (line 11: 3 PTX) 10 times.  The SASS has 3
 * instructions on line 10, 2 on line 11, 1 before any mark.
 *   line 10: 2 x 4 = 8 PTX runs of 2 -> 8 x 3 / 2 = 12
 *   line 11: 1 x 4 + 3 x 10 = 34 PTX runs of 4 -> 34 x 2 / 4 = 17
 *   "": no PTX line: once a warp, 5 warps -> 5
 * 34 in all; PTX alone: 8 + 34 = 42. */
static void
test_inst_estimate (void)
{
  g_autoptr (MsInstMap) map = ms_inst_map_new ();
  ms_inst_map_add (map, 0, 0, "k.cu:10", "", 1, 0);
  ms_inst_map_add (map, 0, 0, "k.cu:10", NULL, 1, 0);
  ms_inst_map_add (map, 0, 0, "k.cu:11", "", 1, 0);
  ms_inst_map_add (map, 1, 1, "k.cu:11", "", 3, 0);
  g_assert_cmpuint (map->n_blocks, ==, 2);
  g_assert_cmpuint (map->lines->len, ==, 3);   /* one entry per block and line */
  guint64 counts[2] = { 4, 10 };
  g_autoptr (GHashTable) sass = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (sass, "k.cu:10", GUINT_TO_POINTER (3));
  g_hash_table_insert (sass, "k.cu:11", GUINT_TO_POINTER (2));
  g_hash_table_insert (sass, "", GUINT_TO_POINTER (1));
  MsInstSass by_line = { sass, NULL, NULL, NULL };
  MsInstBasis basis;
  GArray *per_line = NULL;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 5, &basis, &per_line), ==, 34);
  g_assert_cmpint (basis, ==, MS_INST_SASS_LINES);
  g_assert_cmpuint (per_line->len, ==, 3);
  const MsInstLineCount *c = &g_array_index (per_line, MsInstLineCount, 2);
  g_assert_cmpstr (c->where, ==, "k.cu:11");
  g_assert_cmpuint (c->ptx, ==, 4);
  g_assert_cmpfloat (c->executed, ==, 17);
  g_array_unref (per_line);
  /* a mark's chain counts at its first line the PTX has: a header's line
   * 3 inlined at line 10 adds to line 10 (now 4 SASS: 8 x 4 / 2 = 16) */
  g_hash_table_insert (sass, "h.h:3\tk.cu:10", GUINT_TO_POINTER (1));
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 5, &basis, NULL), ==, 38);
  g_hash_table_remove (sass, "h.h:3\tk.cu:10");
  g_assert_cmpuint (ms_inst_executed (map, counts, NULL, 5, &basis, NULL), ==, 42);
  g_assert_cmpint (basis, ==, MS_INST_PTX);
  g_assert_cmpuint (ms_inst_executed (NULL, counts, &by_line, 5, &basis, NULL), ==, 0);
  g_assert_cmpint (basis, ==, MS_INST_NONE);

  /* A function memsim inlined at line 11 (block 1 ran 10 times), 2 PTX
   * instructions on its own line 87, where ptxas kept nothing: they count
   * at line 11, now 4 + 30 + 20 = 54 PTX runs of 6 -> 54 x 2 / 6 = 18; where ptxas
   * kept its line (1 SASS instruction), they count there: 20 x 1 / 2. */
  ms_inst_map_add (map, 1, 1, "h.h:87", "k.cu:11", 2, 0);
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 5, &basis, NULL), ==, 12 + 18 + 5);
  g_hash_table_insert (sass, "h.h:87", GUINT_TO_POINTER (1));
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 5, &basis, NULL), ==,
                    12 + 17 + 5 + 10);

  /* A branch in block 0 (run 4 times) skips line 20's 4 PTX instructions
   * in block 2, which ran twice (8 runs): 2 SASS instructions, 1 of them
   * predicated.  The unpredicated one runs as its block: 8 / 4 = 2; the
   * predicated one as the branch's block: 16 / 4 = 4. */
  g_autoptr (MsInstMap) skip = ms_inst_map_new ();
  ms_inst_map_add (skip, 2, 0, "k.cu:20", "", 4, 0);
  guint64 skip_counts[3] = { 4, 0, 2 };
  g_autoptr (GHashTable) sass20 = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (sass20, "k.cu:20", GUINT_TO_POINTER (2));
  g_autoptr (GHashTable) pred20 = g_hash_table_new (g_str_hash, g_str_equal);
  MsInstSass by20 = { sass20, pred20, NULL, NULL };
  g_assert_cmpuint (ms_inst_executed (skip, skip_counts, &by20, 1, &basis, NULL), ==, 4);
  g_hash_table_insert (pred20, "k.cu:20", GUINT_TO_POINTER (1));
  g_assert_cmpuint (ms_inst_executed (skip, skip_counts, &by20, 1, &basis, NULL), ==, 6);

  /* Header code nvcc inlined (line h.h:5, no SASS of its own) after line
   * 20's: its 5 instructions of block 0 (20 runs, guard 20) join line 20's
   * 4: 28 runs, 36 at the guard's rate, of 9 -> unpredicated 28 / 9,
   * predicated 36 / 9: 64 / 9 = 7.1. */
  ms_inst_map_add (skip, 0, 0, "h.h:5", "", 5, 0);
  g_assert_cmpuint (ms_inst_executed (skip, skip_counts, &by20, 1, &basis, NULL), ==, 7);

  /* A loop line ptxas unrolled again: 4 PTX instructions (1 a store) run
   * 10 times, 12 SASS instructions (4 stores).  Static shares: 12 / 4 = 3
   * a PTX instruction, 4 SASS stores a PTX store; but the models ran the
   * SASS stores 10 times, as many as the PTX one: scale (10 / 10) / 4.
   * 40 x 3 / 4 = 30, where the static share alone says 120. */
  g_autoptr (MsInstMap) loop = ms_inst_map_new ();
  ms_inst_map_add (loop, 0, 0, "k.cu:30", "", 4, 1);
  guint64 loop_counts[1] = { 10 };
  g_autoptr (GHashTable) sass30 = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (sass30, "k.cu:30", GUINT_TO_POINTER (12));
  MsInstSass by30 = { sass30, NULL, NULL, NULL };
  g_assert_cmpuint (ms_inst_executed (loop, loop_counts, &by30, 1, &basis, NULL), ==, 120);
  g_autoptr (GHashTable) mem30 = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (mem30, "k.cu:30", GUINT_TO_POINTER (4));
  g_autoptr (GHashTable) runs30 = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (runs30, "k.cu:30", g_memdup2 (&(gdouble) { 10 }, sizeof (gdouble)));
  by30.memory = mem30;
  by30.memory_runs = runs30;
  g_assert_cmpuint (ms_inst_executed (loop, loop_counts, &by30, 1, &basis, NULL), ==, 30);
  /* fused (the line's 2 PTX memory instructions, 20 runs, in 1 SASS one
   * that ran 10 times): as many runs as its static share, no scale */
  g_hash_table_insert (mem30, "k.cu:30", GUINT_TO_POINTER (1));
  g_hash_table_insert (runs30, "k.cu:30", g_memdup2 (&(gdouble) { 10 }, sizeof (gdouble)));
  ms_inst_map_add (loop, 0, 0, "k.cu:30", "", 0, 1);
  g_assert_cmpuint (ms_inst_executed (loop, loop_counts, &by30, 1, &basis, NULL), ==, 120);

  /* The rest of an unrolled loop body: line 31 (2 PTX, no memory) in
   * block 1, which ran as often as block 0, takes block 0's scale; its 16
   * SASS instructions: 20 runs x 8 = 160, scaled by 1/4 -> 40.  Scaled
   * further it would keep one SASS instruction a PTX one run (20). */
  g_autoptr (MsInstMap) body = ms_inst_map_new ();
  ms_inst_map_add (body, 0, 0, "k.cu:30", "", 4, 1);
  ms_inst_map_add (body, 1, 1, "k.cu:31", "", 2, 0);
  guint64 body_counts[2] = { 10, 10 };
  g_hash_table_insert (mem30, "k.cu:30", GUINT_TO_POINTER (4));
  g_hash_table_insert (runs30, "k.cu:30", g_memdup2 (&(gdouble) { 10 }, sizeof (gdouble)));
  g_hash_table_insert (sass30, "k.cu:31", GUINT_TO_POINTER (16));
  g_assert_cmpuint (ms_inst_executed (body, body_counts, &by30, 1, &basis, NULL), ==, 30 + 40);
  body_counts[1] = 9;   /* not the same loop: its own rate, unscaled */
  g_assert_cmpuint (ms_inst_executed (body, body_counts, &by30, 1, &basis, NULL), ==, 30 + 144);
  g_hash_table_insert (mem30, "k.cu:30", GUINT_TO_POINTER (16));   /* scale 1/16 */
  body_counts[1] = 10;
  g_assert_cmpuint (ms_inst_executed (body, body_counts, &by30, 1, &basis, NULL), ==,
                    28);   /* 120 / 16 = 7.5, + 20 */
}

/* A loop ptxas unrolled whole: line 40's PTX (3 instructions, one
 * iteration) ran 100 times in each of 2 warps, 200 runs; its SASS is the
 * 100 iterations, 300 instructions, none inside a SASS loop.  The line
 * rule alone says 600 x 300 / 3 = 60 000; each runs once a warp: 600.
 * With any of them inside a loop the rule stays. */
static void
test_unrolled_whole (void)
{
  g_autoptr (MsInstMap) map = ms_inst_map_new ();
  ms_inst_map_add (map, 0, 0, "k.cu:40", "", 3, 0);
  guint64 counts[1] = { 200 };
  g_autoptr (GHashTable) sass = g_hash_table_new (g_str_hash, g_str_equal);
  g_hash_table_insert (sass, "k.cu:40", GUINT_TO_POINTER (300));
  g_autoptr (GHashTable) looped = g_hash_table_new (g_str_hash, g_str_equal);
  MsInstSass by_line = { sass, NULL, NULL, NULL, NULL };
  MsInstBasis basis;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, NULL), ==, 60000);
  by_line.looped = looped;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, NULL), ==, 600);
  g_hash_table_insert (looped, "k.cu:40", GUINT_TO_POINTER (1));
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, NULL), ==, 60000);
  /* the rule below the cap: the block ran once, 3 x 300 / 3 */
  g_hash_table_remove (looped, "k.cu:40");
  counts[0] = 1;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, NULL), ==, 300);
}

/* Which instructions a backward branch encloses: the loop from .L_x_1 to
 * its @P0 BRA (lines 5 and 6), not the forward branch's skip (line 7) nor
 * the closing self-branch; labels are a function's own. */
static void
test_looped_lines (void)
{
  const char *text =
    ".text._Z1kPi:\n"
    "\t//## File \"/x/k.cu\", line 4\n"
    "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
    ".L_x_1:\n"
    "\t//## File \"/x/k.cu\", line 5\n"
    "        /*0010*/                   IADD3 R2, R2, 0x1, RZ ;\n"
    "\t//## File \"/x/k.cu\", line 6\n"
    "        /*0020*/                   ISETP.GE.AND P0, PT, R2, 0x10, PT ;\n"
    "        /*0030*/              @!P0 BRA `(.L_x_1) ;\n"
    "\t//## File \"/x/k.cu\", line 7\n"
    "        /*0040*/                @P1 BRA `(.L_x_2) ;\n"
    "        /*0050*/                   IADD3 R3, R3, 0x1, RZ ;\n"
    ".L_x_2:\n"
    "        /*0060*/                   EXIT ;\n"
    ".L_x_3:\n"
    "        /*0070*/                   BRA `(.L_x_3);\n"
    ".text._Z1jPi:\n"
    "\t//## File \"/x/k.cu\", line 9\n"
    "        /*0000*/                   BRA `(.L_x_1) ;\n"
    "        /*0010*/                   EXIT ;\n";
  g_autoptr (MsSass) sass = ms_sass_parse (text);
  g_autoptr (GHashTable) all = ms_sass_line_counts (sass, "k", MS_SASS_ALL);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (all, "k.cu:7")), ==, 3);
  g_autoptr (GHashTable) looped = ms_sass_line_counts (sass, "k", MS_SASS_LOOPED);
  g_assert_cmpuint (g_hash_table_size (looped), ==, 2);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (looped, "k.cu:5")), ==, 1);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (looped, "k.cu:6")), ==, 2);
  g_autoptr (GHashTable) none = ms_sass_line_counts (sass, "j", MS_SASS_LOOPED);
  g_assert_cmpuint (g_hash_table_size (none), ==, 0);
}

/* The part of line `where` in per_line (MsInstLineCount); it must be there. */
static const MsInstLineCount *
line_part (GArray *per_line, const char *where)
{
  for (guint k = 0; k < per_line->len; k++)
    if (strcmp (g_array_index (per_line, MsInstLineCount, k).where, where) == 0)
      return &g_array_index (per_line, MsInstLineCount, k);
  g_assert_not_reached ();
}

/* The SASS's tables of function k, as the count takes them. */
static void
sass_tables (const MsSass *parsed, MsInstSass *by_line)
{
  g_clear_pointer (&by_line->lines, g_hash_table_unref);
  g_clear_pointer (&by_line->predicated, g_hash_table_unref);
  g_clear_pointer (&by_line->looped, g_hash_table_unref);
  g_clear_pointer (&by_line->memory, g_hash_table_unref);
  by_line->lines = ms_sass_line_counts (parsed, "k", MS_SASS_ALL);
  by_line->predicated = ms_sass_line_counts (parsed, "k", MS_SASS_PREDICATED);
  by_line->looped = ms_sass_line_counts (parsed, "k", MS_SASS_LOOPED);
  by_line->memory = ms_sass_line_counts (parsed, "k", MS_SASS_MEMORY);
}

/* The parsed regions (MsSass.loops or .blocks) as the count takes them. */
static GPtrArray *
inst_regions (const GPtrArray *regions)
{
  GPtrArray *to = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < regions->len; i++)
    {
      const MsSassLoop *l = regions->pdata[i];
      MsInstLoop *r = g_new (MsInstLoop, 1);
      *r = (MsInstLoop) { l->instrs, l->memory, l->once, l->entry, l->first, l->last,
                          l->reductions };
      g_ptr_array_add (to, r);
    }
  return to;
}

/* A loop ptxas unrolled 4 times, as it lays one out: the 4-copy loop
 * (.L_x_1), the ladder's 2-copy after it (straight code outside any loop,
 * from the branch to the next label), the 1-copy remainder loop (.L_x_3);
 * then a loop whose body branches (not straight: not a region), and the
 * epilogue's store (a block outside the loops).  Each instruction's line
 * mark names its PTX line: 5 the for, 6 the loaded sum, 7 the store. */
static const char *const ladder_sass =
  ".text._Z1kPf:\n"
  "\t//## File \"/x/k.cu\", line 4\n"
  "        /*0000*/                   MOV R1, c[0x0][0x28] ;\n"
  "\t//## File \"/x/k.cu\", line 5\n"
  "        /*0010*/                   ISETP.GE.AND P0, PT, R0, 0x4, PT ;\n"
  "        /*0020*/              @!P0 BRA `(.L_x_2) ;\n"
  ".L_x_1:\n"
  "\t//## File \"/x/k.cu\", line 6\n"
  "        /*0030*/                   LDG.E R2, desc[UR4][R4.64] ;\n"
  "        /*0040*/                   LDG.E R3, desc[UR4][R4.64+0x4] ;\n"
  "        /*0050*/                   LDG.E R6, desc[UR4][R4.64+0x8] ;\n"
  "        /*0060*/                   LDG.E R7, desc[UR4][R4.64+0xc] ;\n"
  "        /*0070*/                   FADD R8, R2, R3 ;\n"
  "\t//## File \"/x/k.cu\", line 5\n"
  "        /*0080*/                   IADD3 R0, R0, -0x4, RZ ;\n"
  "        /*0090*/                   ISETP.GT.AND P0, PT, R0, 0x3, PT ;\n"
  "        /*00a0*/               @P0 BRA `(.L_x_1) ;\n"
  ".L_x_2:\n"
  "        /*00b0*/              @!P1 BRA `(.L_x_3) ;\n"
  "\t//## File \"/x/k.cu\", line 6\n"
  "        /*00c0*/                   LDG.E R2, desc[UR4][R4.64] ;\n"
  "        /*00d0*/                   LDG.E R3, desc[UR4][R4.64+0x4] ;\n"
  "        /*00e0*/                   FADD R8, R2, R3 ;\n"
  ".L_x_3:\n"
  "        /*00f0*/                   LDG.E R2, desc[UR4][R4.64] ;\n"
  "\t//## File \"/x/k.cu\", line 5\n"
  "        /*0100*/                   IADD3 R0, R0, -0x1, RZ ;\n"
  "        /*0110*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;\n"
  "        /*0120*/               @P0 BRA `(.L_x_3) ;\n"
  ".L_x_4:\n"
  "\t//## File \"/x/k.cu\", line 8\n"
  "        /*0130*/               @P2 BRA `(.L_x_5) ;\n"
  "        /*0140*/                   LDG.E R9, desc[UR4][R4.64] ;\n"
  ".L_x_5:\n"
  "        /*0150*/               @P3 BRA `(.L_x_4) ;\n"
  "\t//## File \"/x/k.cu\", line 7\n"
  "        /*0160*/                   STG.E desc[UR4][R10.64], R8 ;\n"
  "        /*0170*/                   EXIT ;\n"
  ".L_x_6:\n"
  "        /*0180*/                   BRA `(.L_x_6);\n";

/* The regions ms_sass_parse finds in ladder_sass: the two straight loops
 * and, outside the loops, the blocks with memory instructions (the
 * 2-copy and the store's); not the loop that branches inside. */
static void
test_sass_regions (void)
{
  g_autoptr (MsSass) sass = ms_sass_parse (ladder_sass);
  g_assert_cmpuint (sass->loops->len, ==, 4);
  guint loops = 0, once = 0;
  for (guint i = 0; i < sass->loops->len; i++)
    {
      const MsSassLoop *l = sass->loops->pdata[i];
      g_assert_cmpstr (l->function, ==, "k");
      guint mem6 = GPOINTER_TO_UINT (g_hash_table_lookup (l->memory, "k.cu:6"));
      guint mem7 = GPOINTER_TO_UINT (g_hash_table_lookup (l->memory, "k.cu:7"));
      guint all5 = GPOINTER_TO_UINT (g_hash_table_lookup (l->instrs, "k.cu:5"));
      g_assert_null (g_hash_table_lookup (l->memory, "k.cu:8"));
      if (l->once)
        {
          once++;
          /* the 2-copy (the branch before it is the block's before) or the store */
          g_assert_true ((mem6 == 2 && mem7 == 0 && all5 == 0) || (mem6 == 0 && mem7 == 1));
        }
      else
        {
          loops++;
          g_assert_true ((mem6 == 4 && all5 == 3) || (mem6 == 1 && all5 == 3));
        }
    }
  g_assert_cmpuint (loops, ==, 2);
  g_assert_cmpuint (once, ==, 2);
}

/* The count of ladder_sass's kernel from its regions, as the SASS runs
 * it.  The PTX: block 0 (lines 4 and 5, 2 instructions each) once a warp,
 * block 1 the loop body (line 6: 2 instructions, one a load; line 5: 3)
 * 10 times a warp, block 2 the store (line 7: 2, one a store) once a
 * warp; 2 warps.  Per warp the 4-copy loop runs twice (8 instructions),
 * the 2-copy once (3), the remainder loop not at all; line 4's SASS
 * once, line 5's 3 outside the loops once, line 7's 2 once, line 8's 3
 * (no PTX line: once a warp): 2 x (16 + 3 + 1 + 3 + 2 + 3) = 56.  With 11
 * iterations the remainder loop runs once a warp (4): 64.  The line rule
 * alone (line 6: 40 PTX runs x 9 SASS / 2) says far more. */
static void
test_ladder_count (void)
{
  g_autoptr (MsSass) parsed = ms_sass_parse (ladder_sass);
  g_autoptr (MsInstMap) map = ms_inst_map_new ();
  ms_inst_map_add (map, 0, 0, "k.cu:4", "", 2, 0);
  ms_inst_map_add (map, 0, 0, "k.cu:5", "", 2, 0);
  ms_inst_map_add (map, 1, 1, "k.cu:6", "", 2, 1);
  ms_inst_map_add (map, 1, 1, "k.cu:5", "", 3, 0);
  ms_inst_map_add (map, 2, 2, "k.cu:7", "", 2, 1);
  for (guint b = 0; b < 3; b++)
    ms_inst_map_set_region (map, b, b);
  guint64 counts[3] = { 2, 20, 2 };
  MsInstSass by_line = { 0 };
  sass_tables (parsed, &by_line);
  /* the models' runs of the SASS memory instructions: line 6's 20 loads
   * (4 x 4 + 2 x 2 a warp... as the engine counts them: 20), line 7's 2 */
  by_line.memory_runs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (by_line.memory_runs, "k.cu:6", g_memdup2 (&(gdouble) { 20 }, sizeof (gdouble)));
  g_hash_table_insert (by_line.memory_runs, "k.cu:7", g_memdup2 (&(gdouble) { 2 }, sizeof (gdouble)));
  MsInstBasis basis;
  guint64 rule_alone = ms_inst_executed (map, counts, &by_line, 2, &basis, NULL);
  by_line.loops = inst_regions (parsed->loops);
  g_autoptr (GArray) per_line = NULL;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, &per_line), ==, 56);
  g_assert_cmpint (basis, ==, MS_INST_SASS_LINES);
  g_assert_cmpuint (rule_alone, >, 56 + 20);
  /* the lines' parts: line 6 is the loops' and the copy's alone */
  g_assert_cmpfloat_with_epsilon (line_part (per_line, "k.cu:6")->executed, 2 * (2 * 5 + 3), 1e-9);
  g_assert_cmpfloat_with_epsilon (line_part (per_line, "k.cu:6")->ptx_runs, 40, 1e-9);
  counts[1] = 22;
  g_hash_table_insert (by_line.memory_runs, "k.cu:6", g_memdup2 (&(gdouble) { 22 }, sizeof (gdouble)));
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, NULL), ==, 64);
  /* the models ran fewer of line 6's SASS loads than the copies would
   * (ptxas fused them: one LDS.128 for four loads looks like one copy):
   * no copies, the line rule */
  g_hash_table_insert (by_line.memory_runs, "k.cu:6", g_memdup2 (&(gdouble) { 6 }, sizeof (gdouble)));
  GPtrArray *regions = g_steal_pointer (&by_line.loops);
  guint64 rule = ms_inst_executed (map, counts, &by_line, 2, &basis, NULL);
  by_line.loops = regions;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 2, &basis, NULL), ==, rule);
  g_hash_table_unref (by_line.lines);
  g_hash_table_unref (by_line.predicated);
  g_hash_table_unref (by_line.looped);
  g_hash_table_unref (by_line.memory);
  g_hash_table_unref (by_line.memory_runs);
  g_ptr_array_unref (by_line.loops);
}

/* A guarded load into shared memory, a barrier, then every thread's
 * work (shfl_scan's uniform_add): ptxas predicates the guarded code and
 * hoists its shared address (S2UR, UMOV, line 5) for line 7, so line 5's
 * unpredicated SASS runs in every warp though its PTX runs in one.  The
 * SASS's basic blocks say how often they ran: the first once a warp (8),
 * the other as often as line 7's loads and stores, all of them there and
 * not under a predicate (14 runs of 2: 7 warps; one left at the exit).
 * 4 x 8 + 8 x 7 = 88, as the GPU counts. */
static const char *const guarded_sass =
  ".text.k:\n"
  "\t//## File \"/t/k.cu\", line 3\n"
  "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
  "\t//## File \"/t/k.cu\", line 4\n"
  "        /*0010*/                   S2R R0, SR_TID.X ;\n"
  "        /*0020*/                   ISETP.NE.AND P0, PT, R0, RZ, PT ;\n"
  "        /*0030*/               @P1 EXIT ;\n"
  "\t//## File \"/t/k.cu\", line 5\n"
  "        /*0040*/              @!P0 LDG.E R2, desc[UR4][R2.64] ;\n"
  "        /*0050*/                   S2UR UR5, SR_CgaCtaId ;\n"
  "        /*0060*/                   UMOV UR4, 0x400 ;\n"
  "        /*0070*/              @!P0 STS [UR4], R2 ;\n"
  "\t//## File \"/t/k.cu\", line 6\n"
  "        /*0080*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n"
  "\t//## File \"/t/k.cu\", line 7\n"
  "        /*0090*/                   LDS R7, [UR4] ;\n"
  "        /*00a0*/                   STG.E desc[UR6][R4.64], R7 ;\n"
  "\t//## File \"/t/k.cu\", line 8\n"
  "        /*00b0*/                   EXIT ;\n"
  ".L_x_0:\n"
  "        /*00c0*/                   BRA `(.L_x_0);\n";

static void
test_known_blocks (void)
{
  g_autoptr (MsSass) parsed = ms_sass_parse (guarded_sass);
  g_assert_cmpuint (parsed->blocks->len, ==, 2);
  const MsSassLoop *first = parsed->blocks->pdata[0], *second = parsed->blocks->pdata[1];
  g_assert_true (first->entry);
  g_assert_cmpuint (first->first, ==, 0);
  g_assert_cmpuint (first->last, ==, 3);
  g_assert_false (second->entry);
  g_assert_cmpuint (second->first, ==, 4);
  g_assert_cmpuint (second->last, ==, 11);
  /* its memory instructions not under a predicate: line 7's two */
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (second->memory, "k.cu:7")), ==, 2);
  g_assert_false (g_hash_table_contains (second->memory, "k.cu:5"));
  /* the PTX: the exit test, the guard's test, the guarded code (one warp),
   * the rest */
  g_autoptr (MsInstMap) map = ms_inst_map_new ();
  ms_inst_map_add (map, 0, 0, "k.cu:3", "", 1, 0);
  ms_inst_map_add (map, 0, 0, "k.cu:4", "", 3, 0);
  ms_inst_map_add (map, 1, 1, "k.cu:5", "", 2, 0);
  ms_inst_map_add (map, 2, 1, "k.cu:5", "", 3, 2);
  ms_inst_map_add (map, 3, 3, "k.cu:6", "", 1, 0);
  ms_inst_map_add (map, 3, 3, "k.cu:7", "", 3, 2);
  ms_inst_map_add (map, 3, 3, "k.cu:8", "", 1, 0);
  guint64 counts[4] = { 8, 7, 1, 7 };
  MsInstSass by_line = { 0 };
  sass_tables (parsed, &by_line);
  by_line.memory_runs = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_hash_table_insert (by_line.memory_runs, "k.cu:5", g_memdup2 (&(gdouble) { 2 }, sizeof (gdouble)));
  g_hash_table_insert (by_line.memory_runs, "k.cu:7", g_memdup2 (&(gdouble) { 14 }, sizeof (gdouble)));
  MsInstBasis basis;
  guint64 rule_alone = ms_inst_executed (map, counts, &by_line, 8, &basis, NULL);
  by_line.blocks = inst_regions (parsed->blocks);
  g_autoptr (GArray) per_line = NULL;
  g_assert_cmpuint (ms_inst_executed (map, counts, &by_line, 8, &basis, &per_line), ==, 88);
  g_assert_cmpuint (rule_alone, <, 88);
  g_assert_cmpfloat_with_epsilon (line_part (per_line, "k.cu:5")->executed, 4 * 7, 1e-9);
  /* two anchors that disagree (ptxas's loads are not the PTX's): the
   * block's runs are not known, the line rule counts it */
  ms_inst_map_add (map, 3, 3, "k.cu:9", "", 1, 1);
  g_hash_table_insert (by_line.memory_runs, "k.cu:9", g_memdup2 (&(gdouble) { 3 }, sizeof (gdouble)));
  g_autoptr (GString) t = g_string_new (guarded_sass);
  g_string_replace (t, "        /*00b0*/                   EXIT ;\n",
                    "\t//## File \"/t/k.cu\", line 9\n"
                    "        /*00a8*/                   LDG.E R2, desc[UR4][R2.64] ;\n"
                    "        /*00b0*/                   EXIT ;\n", 1);
  g_autoptr (MsSass) nine = ms_sass_parse (t->str);
  g_assert_cmpuint (nine->blocks->len, ==, 2);
  g_ptr_array_unref (by_line.blocks);
  by_line.blocks = inst_regions (nine->blocks);
  sass_tables (nine, &by_line);
  /* only the first block's runs are known: 4 x 8, the rest the rule's */
  g_autoptr (GArray) lines9 = NULL;
  ms_inst_executed (map, counts, &by_line, 8, &basis, &lines9);
  g_assert_cmpfloat_with_epsilon (line_part (lines9, "k.cu:7")->executed, 7 * 2, 1e-9);   /* the rule: 21 x 2 / 3 */
  g_assert_cmpfloat_with_epsilon (line_part (lines9, "k.cu:4")->executed, 3 * 8, 1e-9);
  g_hash_table_unref (by_line.lines);
  g_hash_table_unref (by_line.predicated);
  g_hash_table_unref (by_line.looped);
  g_hash_table_unref (by_line.memory);
  g_hash_table_unref (by_line.memory_runs);
  g_ptr_array_unref (by_line.blocks);
}

/* A loop that divides: the branch around the slow path's call site, the
 * convergence barrier around it and the labels between run as straight
 * code (the call site itself is not counted as run), so the loop is one
 * region of straight code and one block whose runs are known. */
static const char *const dividing_loop_sass =
  ".text.k:\n"
  "\t//## File \"/t/k.cu\", line 3\n"
  "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
  "        /*0010*/                   MOV R2, RZ ;\n"
  ".L_x_1:\n"
  "\t//## File \"/t/k.cu\", line 5\n"
  "        /*0020*/                   LDS R3, [R2] ;\n"
  "        /*0030*/                   BSSY B1, `(.L_x_3) ;\n"
  "        /*0040*/                   FCHK P0, R3, R0 ;\n"
  "        /*0050*/                   FFMA R4, R3, R5, RZ ;\n"
  "        /*0060*/              @!P0 BRA `(.L_x_4) ;\n"
  "        /*0070*/                   MOV R6, 0x90 ;\n"
  "        /*0080*/                   CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;\n"
  ".L_x_4:\n"
  "        /*0090*/                   BSYNC B1 ;\n"
  ".L_x_3:\n"
  "        /*00a0*/                   FADD R7, R7, R4 ;\n"
  "        /*00b0*/                   IADD3 R2, R2, 0x4, RZ ;\n"
  "        /*00c0*/                   ISETP.NE.AND P1, PT, R2, R8, PT ;\n"
  "        /*00d0*/               @P1 BRA `(.L_x_1) ;\n"
  "\t//## File \"/t/k.cu\", line 6\n"
  "        /*00e0*/                   STG.E desc[UR4][R10.64], R7 ;\n"
  "        /*00f0*/                   EXIT ;\n"
  ".L_x_5:\n"
  "        /*0100*/                   BRA `(.L_x_5);\n"
  "$__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath:\n"
  "        /*0110*/                   FFMA R4, R3, R5, RZ ;\n"
  "        /*0120*/                   RET.REL.NODEC R6 `(k) ;\n";

static void
test_slow_path_straight (void)
{
  g_autoptr (MsSass) parsed = ms_sass_parse (dividing_loop_sass);
  g_autoptr (GHashTable) all = ms_sass_line_counts (parsed, "k", MS_SASS_ALL);
  /* the call site (MOV, CALL) is not counted as run */
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (all, "k.cu:5")), ==, 10);
  const MsSassLoop *loop = NULL;
  for (guint i = 0; i < parsed->loops->len; i++)
    {
      const MsSassLoop *l = parsed->loops->pdata[i];
      if (!l->once)
        loop = l;
    }
  g_assert_nonnull (loop);
  g_assert_cmpuint (loop->first, ==, 2);
  g_assert_cmpuint (loop->last, ==, 13);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (loop->instrs, "k.cu:5")), ==, 10);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (loop->memory, "k.cu:5")), ==, 1);
  /* blocks: the first, the loop's body, the store and exit */
  g_assert_cmpuint (parsed->blocks->len, ==, 3);
  const MsSassLoop *body = parsed->blocks->pdata[1];
  g_assert_cmpuint (body->first, ==, 2);
  g_assert_cmpuint (body->last, ==, 13);
  g_assert_cmpuint (GPOINTER_TO_UINT (g_hash_table_lookup (body->instrs, "k.cu:5")), ==, 10);
  /* without the call site the branch is an if: two blocks where the loop was */
  g_autoptr (GString) t = g_string_new (dividing_loop_sass);
  g_string_replace (t, "        /*0080*/                   CALL.REL.NOINC "
                    "`($__internal_0_$__cuda_sm3x_div_rn_noftz_f32_slowpath) ;\n", "", 1);
  g_autoptr (MsSass) branchy = ms_sass_parse (t->str);
  for (guint i = 0; i < branchy->loops->len; i++)
    g_assert_true (((const MsSassLoop *) branchy->loops->pdata[i])->once);
  g_assert_cmpuint (branchy->blocks->len, ==, 3);
  g_assert_cmpuint (((const MsSassLoop *) branchy->blocks->pdata[1])->last, ==, 3);
}

/* ptxas's registers as a user's build's text carries them: a line of its
 * own, the whole symbol. */
static void
test_registers_line (void)
{
  const char *text = "//memsim-registers _Z1kPi 40\n//memsim-registers _Z1kPi2 12\n"
                     "x//memsim-registers _Z1jPi 9\n.text._Z1kPi:\n";
  g_assert_cmpint (ms_sass_registers (text, "_Z1kPi"), ==, 40);
  g_assert_cmpint (ms_sass_registers (text, "_Z1kPi2"), ==, 12);
  g_assert_cmpint (ms_sass_registers (text, "_Z1jPi"), ==, -1);
  g_assert_cmpint (ms_sass_registers (text, "_Z1k"), ==, -1);
  g_assert_cmpint (ms_sass_registers ("", "_Z1kPi"), ==, -1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sass/line-counts", test_line_counts);
  g_test_add_func ("/sass/inst-estimate", test_inst_estimate);
  g_test_add_func ("/sass/unrolled-whole", test_unrolled_whole);
  g_test_add_func ("/sass/looped-lines", test_looped_lines);
  g_test_add_func ("/sass/regions", test_sass_regions);
  g_test_add_func ("/sass/ladder-count", test_ladder_count);
  g_test_add_func ("/sass/known-blocks", test_known_blocks);
  g_test_add_func ("/sass/slow-path-straight", test_slow_path_straight);
  g_test_add_func ("/sass/registers-line", test_registers_line);
  g_test_add_func ("/sass/parse-gemm", test_parse_gemm);
  g_test_add_func ("/sass/inlined-chain", test_inlined_chain);
  g_test_add_func ("/sass/block-runs", test_block_runs);
  g_test_add_func ("/sass/grouping", test_grouping);
  g_test_add_func ("/sass/contended", test_contended);
  g_test_add_func ("/sass/reduction-lines", test_reduction_lines);
  g_test_add_func ("/sass/source-reduction", test_source_reduction);
  g_test_add_func ("/sass/parse-forms", test_parse_forms);
  g_test_add_func ("/sass/slow-path", test_slow_path);
  g_test_add_func ("/sass/divergent-copy", test_divergent_copy);
  g_test_add_func ("/sass/subroutine-path", test_subroutine_path);
  g_test_add_func ("/regroup/broadcast", test_regroup_broadcast);
  g_test_add_func ("/regroup/unchanged", test_regroup_unchanged);
  g_test_add_func ("/regroup/warps", test_regroup_warps);
  g_test_add_func ("/regroup/down", test_regroup_down);
  g_test_add_func ("/regroup/cross", test_regroup_cross);
  g_test_add_func ("/regroup/copies", test_regroup_copies);
  g_test_add_func ("/regroup/unrolled", test_regroup_unrolled);
  g_test_add_func ("/regroup/shortcut", test_regroup_shortcut);
  g_test_add_func ("/regroup/ordered-skips", test_regroup_ordered_skips);
  g_test_add_func ("/sass/unroll-plans", test_unroll_plans);
  return g_test_run ();
}
