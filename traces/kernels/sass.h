/* sass.h - the memory instructions nvcc emitted for a kernel, per source
 * line, read from the SASS of the nvcc build (`nvdisasm -c -g` of its
 * cubins, as traces/kernels/nvcc-sass.sh extracts it), and what they say
 * about the emulator's source-level records: which sites the compiler
 * fused into wider instructions, and which atomics it made compare-and-swap
 * loops (contention-dependent counts).  docs/model.md, "Compiler-exact
 * counts".
 */
#pragma once

#include <glib.h>

#include "access.h"

G_BEGIN_DECLS

/* One memory instruction of the SASS. */
typedef struct {
  char *function;   /* the __global__ function's identifier ("gemm_tiled_nopad") */
  char *file;       /* basename of the source file of its innermost line mark
                     * ("gemm.cu"); "" unknown */
  int line;         /* 0: no line mark before it */
  char **where;     /* "FILE:LINE" of the mark, innermost first, then each
                     * call site it was inlined at (nvdisasm -gi), each
                     * once; a site matches any of them */
  char *opcode;     /* "LDS.128", "LDG.E", "ATOMS.CAS" */
  guint spaces;     /* bit MsSpace: global, shared, local; generic LD/ST/ATOM: global | shared */
  MsOp op;          /* LD*: ld; ST*: st; ATOM*, RED*: atomic */
  guint width;      /* bytes per lane: 1, 2, 4 (no suffix), 8 (.64), 16 (.128) */
  gboolean cas;     /* a compare-and-swap (.CAS, .CAST): a CAS loop's step */
  gboolean red;     /* RED, REDG: an atomic whose result is unused (Nsight's op_red) */
  gboolean predicated;   /* @P / @!P guard */
  char *base;       /* the address operand's register ("R2.64", "UR5"); "" unknown */
  gint64 offset;    /* its immediate offset ([R2.64+-0x8]: -8) */
  guint block;      /* its basic block: a number that changes at each label and
                     * after each branch, exit or call */
} MsSassInstr;

/* A region of a function's SASS: an innermost loop of straight code (the
 * range from a label to the last branch back to it, enclosing no other
 * such range), or a basic block with memory instructions outside every
 * loop (once). */
typedef struct {
  char *function;
  gboolean once;
  gboolean entry;       /* (blocks) the function's first block: every warp runs it once */
  guint first, last;    /* its range: the function's instructions, counted from 0 */
  GHashTable *instrs;   /* its instructions by line mark chain ("FILE:LINE[\tFILE:LINE ...]",
                           as line_counts' keys after the function) -> count */
  GHashTable *memory;   /* ... and those of them global or shared memory instructions
                           (blocks: those not under a predicate) */
  GHashTable *reductions;   /* ... and those of them warp reductions (REDUX) */
} MsSassLoop;

typedef struct {
  GPtrArray *instrs;   /* MsSassInstr, in the order of the text */
  /* every instruction that can execute (NOPs, a function's closing
   * branch to itself and the slow-path subroutines ptxas appends to it,
   * `$__internal_...:`, aside), counted by function and line mark:
   * "FUNCTION\nFILE:LINE[\tFILE:LINE ...]" (the mark's chain, innermost
   * first, as MsSassInstr.where; "FUNCTION\n" before the first mark) -> count */
  GHashTable *line_counts;
  /* ... and those of them under a predicate (@P, @!P), branches aside:
   * code ptxas predicated rather than branch around */
  GHashTable *line_predicated;
  /* ... and those of them a backward branch of the function encloses (a
   * loop's; the others run at most once each time the function does) */
  GHashTable *line_looped;
  GPtrArray *loops;    /* MsSassLoop, every function's regions */
  /* MsSassLoop, every function's basic blocks (from a label or a branch,
   * exit, call or convergence barrier to the next, what is not counted as
   * run aside) that have a global or shared memory instruction not under
   * a predicate or a warp reduction, or that start the function: each of
   * their instructions runs as often as the block, which such an
   * instruction's runs (or the warps) say */
  GPtrArray *blocks;
} MsSass;

/* Parses `nvdisasm -c -gi` (or -g) output (whole, or filtered by nvcc-sass.sh):
 * function headers `.text.MANGLED:`, line marks `//## File "PATH", line N`
 * (with `inlined at "PATH", line M` call sites under -gi, one mark a level
 * of inlining on consecutive lines, innermost first: read as one chain,
 * MsSassInstr.where) and instruction lines `/\*ADDR*\/ [@P] OPCODE
 * operands ;` (the address comment is optional).  Other lines are skipped;
 * never fails. */
MsSass *ms_sass_parse (const char *text);
void ms_sass_free (MsSass *sass);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsSass, ms_sass_free)

/* What ms_sass_line_counts counts. */
typedef enum {
  MS_SASS_ALL,          /* every instruction (MsSass.line_counts) */
  MS_SASS_PREDICATED,   /* those under a predicate (line_predicated) */
  MS_SASS_LOOPED,       /* those inside a loop (line_looped) */
  MS_SASS_MEMORY,       /* global and shared memory instructions, on every
                         * line of their mark (inlined code: the call's too) */
} MsSassCount;

/* The instructions of function by line: a new table "FILE:LINE" (or "";
 * MS_SASS_ALL, MS_SASS_PREDICATED and MS_SASS_LOOPED: the mark's chain, "FILE:LINE\t..."
 * innermost first) -> GUINT_TO_POINTER (count); empty when the text has
 * no instruction of it. */
GHashTable *ms_sass_line_counts (const MsSass *sass, const char *function, MsSassCount what);

/* A line "//memsim-registers SYM N" in SASS text: ptxas's registers N a
 * thread of kernel SYM (the mangled symbol), which the text of a user's
 * build carries (user-sass.c). */
#define MS_SASS_REGISTERS_TAG "//memsim-registers "
/* The registers of kernel `symbol` that text says (a line starting with
 * MS_SASS_REGISTERS_TAG SYMBOL and a space); -1 when it does not. */
int ms_sass_registers (const char *text, const char *symbol);

/* Whether the SASS has the __global__ function. */
gboolean ms_sass_has_function (const MsSass *sass, const char *function);

/* What the compiler did with the source accesses of one site. */
typedef struct {
  guint fuse;           /* consecutive accesses fused into one instruction: 1, 2, 4 ... */
  gboolean contended;   /* an atomic the SASS implements with compare-and-swap */
  guint n_instrs;       /* SASS instructions of the site's line, space and op */
  /* a load or store of the function with no such instruction on its line:
   * ptxas merged it into a neighbour's wider instruction, or moved it */
  gboolean absorbed;
  /* A loop with a data-dependent trip count that nvcc unrolled (n_blocks >
   * 0): runs of blocks[0] > blocks[1] > ... contiguous accesses, each half
   * the one before, and one single access (the remainder loop), first in
   * the text when remainder_first (MsGrouping, regroup.h). */
  guint n_blocks;
  guint blocks[4];
  gboolean remainder_first;
  /* the line's accesses come in runs of several lengths that match no such
   * plan: the compiler grouped them in a way memsim does not model */
  gboolean compiler_dependent;
} MsSassGrouping;

/* The grouping of a site of function: from the function's instructions on
 * the site's line (file matched by basename) of the site's space and op, in
 * text order.  fuse > 1 when such an instruction is 2 or 4 times the site's
 * width (a load or store); contended when the op is atomic and such an
 * instruction is a CAS.  A *run* is a sequence of unpredicated such
 * instructions of the site's width on one base register at offsets that
 * step by the width (unrolled iterations of one access); runs of two or
 * more distinct lengths >= 2 are an unrolled loop with a runtime trip
 * count: an unroll plan when the lengths halve down to >= 2 (16, 8, 4),
 * once each, beside one single access and no predicated one, else
 * compiler_dependent.  Where the instructions are on several registers
 * (copies that each compute their address), a run is those of one basic
 * block, a predicated one alone in its block left out (a peeled iteration
 * whose predicate is off): a plan as above, else nothing.  A site with
 * own lines (MsSite.inner: inlined code) has only the instructions whose
 * innermost mark is one of them.  No instruction on the line: fuse 1, and
 * absorbed for a load or store of a function the SASS has; but a shared
 * load or store of no line (0, hoisted by NVVM) fuses up to 16 bytes. */
MsSassGrouping ms_sass_grouping (const MsSass *sass, const char *function, const MsSite *site,
                                 MsSpace space, MsOp op, guint width);

/* "FILE:LINE" of function's sites whose grouping is compiler_dependent
 * (loads or stores; see ms_sass_grouping), NULL-terminated, or NULL. */
char **ms_sass_dependent_lines (const MsSass *sass, const char *function);

/* "FILE:LINE" of function's atomics that are compare-and-swap
 * instructions (the lines whose atomic counts depend on contention),
 * NULL-terminated, each once; NULL when there are none. */
char **ms_sass_contended_lines (const MsSass *sass, const char *function);

/* "FILE:LINE" of function's lines whose global atomics are all reductions
 * (RED, REDG: nvcc found the result unused), NULL-terminated, each once;
 * NULL when there are none.  A line with both RED and ATOM instructions is
 * not among them. */
char **ms_sass_reduction_lines (const MsSass *sass, const char *function);

/* Without the SASS: whether the atomics on a line of CUDA source are all
 * reductions by the source-level rule, that is atomicAdd/Sub/Min/Max/And/
 * Or/Xor/Inc/Dec calls (the ones RED implements) whose result is
 * discarded: each call on the line is a whole statement, `atomicAdd (...);`
 * or `(void) atomicAdd (...);`, after the start of a statement (`;`, `{`,
 * `}`, `else`, the `)` of an if/for/while, or, at the start of the line, a
 * previous line ending in one of those or empty).  previous: the line
 * before (may be NULL).  FALSE when the line has no such call, or any
 * atomic on it is used or is atomicCAS/atomicExch. */
gboolean ms_sass_source_reduction (const char *line, const char *previous);

/* The SASS of the built-in kernels compiled into this memsim
 * (kernel-sass-table.c, generated by nvcc-sass.sh), or NULL when this
 * build has none (no CUDA, cuobjdump or nvdisasm): counts are then
 * source-level.  Parsed once. */
const MsSass *ms_kernel_sass (void);
/* The same, only the sections of one __global__ function (the same
 * instructions ms_kernel_sass has for it), parsed when first asked for and
 * kept; NULL when this build has none.  What `trace` uses: parsing every
 * kernel's SASS cost more than a small kernel's whole simulation. */
const MsSass *ms_kernel_sass_function (const char *function);
extern const char ms_kernel_sass_text[];

G_END_DECLS
