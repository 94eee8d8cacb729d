/* ptx.h - a PTX module as memsim reads it (ptx-read.c): the functions with
 * their parameters, registers, variables and instructions, each
 * instruction with its guard, opcode, modifiers, operands and the source
 * line (.loc) it came from.
 *
 * Assumptions: PTX as nvcc emits it (ISA 7.x-9.x, 64-bit addresses).
 * Registers are resolved when read: a register declared in a nested { }
 * scope (inline asm) is another register than one of the same name
 * outside it.  Labels stay names (ptx-translate.c resolves them).
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Register classes, by their storage: a predicate, or 16, 32 or 64 bits
 * of raw data (floating-point registers hold their bits). */
typedef enum {
  MS_PTX_PRED, MS_PTX_B16, MS_PTX_B32, MS_PTX_B64,
} MsPtxRegClass;

typedef struct {
  char *name;            /* "%r5", or "%p<unique>" for a scoped one */
  MsPtxRegClass cls;
} MsPtxReg;

typedef enum {
  MS_PTX_OPD_REG,     /* reg */
  MS_PTX_OPD_IMM,     /* integer immediate: imm */
  MS_PTX_OPD_FIMM,    /* floating-point immediate: fimm (0f/0d: exact bits) */
  MS_PTX_OPD_SYM,     /* a variable, function or label: sym (+ imm) */
  MS_PTX_OPD_ADDR,    /* [reg + imm], [sym + imm] or [imm] */
  MS_PTX_OPD_VEC,     /* { regs } of a vector load/store/mov (vec[i] -1: _) */
  MS_PTX_OPD_SINK,    /* _ */
  MS_PTX_OPD_SPECIAL, /* %tid.x and the like: sym */
} MsPtxOpdKind;

typedef struct {
  MsPtxOpdKind kind;
  int reg;            /* REG, ADDR with a register base (else -1) */
  int reg2;           /* REG: the second of a pair "a|b" (else -1) */
  gboolean neg;       /* REG: "!%p" */
  gint64 imm;         /* IMM; ADDR, SYM: the offset */
  double fimm;        /* FIMM */
  gboolean f32;       /* FIMM written 0fXXXXXXXX */
  char *sym;          /* SYM, SPECIAL; ADDR with a symbol base (else NULL) */
  int n_vec;
  int vec[8];
} MsPtxOperand;

typedef struct {
  char *label;        /* a label line ("$L__BB0_2:"): no op */
  char *op;           /* "ld", "setp", ... (NULL for a label) */
  char **mods;        /* "global", "v4", "f32" ... (NULL-terminated) */
  int guard;          /* predicate register, or -1 */
  gboolean guard_neg; /* @!%p */
  MsPtxOperand *opd;
  guint n_opd;
  int file, line;     /* the last .loc before it (0 0: none) */
  int inner_file, inner_line;   /* code nvcc inlined (file, line: the call's):
                                 * its own .loc, innermost; else 0 0 */
  int at_file, at_line;   /* a .func's instruction memsim inlined (ptx-translate.c):
                           * the outermost call's .loc; else 0 0 */
  int ptx_line;       /* line in the .ptx file */
} MsPtxInsn;

typedef enum { MS_PTX_SPACE_GLOBAL, MS_PTX_SPACE_CONST, MS_PTX_SPACE_SHARED,
               MS_PTX_SPACE_LOCAL, MS_PTX_SPACE_PARAM } MsPtxSpace;

/* A variable (module-scope or a function's .shared/.local) or a parameter. */
typedef struct {
  char *name;
  MsPtxSpace space;
  gsize size;          /* bytes (0 for an extern array: dynamic shared) */
  guint align;
  gboolean external;   /* .extern */
  guint elem;          /* bytes of one element of its type */
  guint8 *init;        /* initial bytes or NULL */
} MsPtxVar;

typedef struct {
  char *name;
  gboolean entry;      /* .entry (else .func) */
  gboolean defined;    /* has a body (else a declaration) */
  GArray *params;      /* MsPtxVar (space PARAM), in order */
  GArray *rets;        /* MsPtxVar: a .func's return parameters */
  GArray *regs;        /* MsPtxReg */
  GArray *vars;        /* MsPtxVar: .shared and .local inside the body */
  GArray *insns;       /* MsPtxInsn */
} MsPtxFunc;

typedef struct {
  char *path;
  GPtrArray *files;    /* .file index -> path (char *; NULL gaps) */
  GArray *vars;        /* MsPtxVar: module-scope .global/.const/.shared */
  GPtrArray *funcs;    /* MsPtxFunc * */
} MsPtxModule;

/* The device heap of a module that calls malloc or free (the reader adds
 * it as a .global variable of cudaLimitMallocHeapSize's default bytes, so
 * that launches see it as a buffer). */
#define MS_PTX_HEAP_NAME "device malloc heap"
#define MS_PTX_HEAP_BYTES ((gsize) 8 << 20)

/* The value of the address of the module's function k (its first
 * declaration): what a virtual function table holds and an indirect call
 * compares (ptx-translate.c inlines the candidates). */
#define MS_PTX_FUNC_ADDR(k) (G_GUINT64_CONSTANT (0xfff0000000000000) | (guint64) (k))

/* Reads PTX text (path names it in errors).  NULL with MS_PTX_ERROR_SYNTAX:
 * "PATH:LINE: what was expected". */
MsPtxModule *ms_ptx_read (const char *path, const char *text, gsize len, GError **error);
void ms_ptx_module_free (MsPtxModule *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsPtxModule, ms_ptx_module_free)

/* Frees what an instruction owns (its strings and operands), not i. */
void ms_ptx_insn_clear (gpointer i);

/* Whether an instruction has modifier m. */
gboolean ms_ptx_has_mod (const MsPtxInsn *i, const char *m);
/* Bytes of a type named without its dot ("f32": 4, "pred": 1); 0 for
 * anything else ("v4", "global"). */
guint ms_ptx_type_size (const char *t);

G_END_DECLS
