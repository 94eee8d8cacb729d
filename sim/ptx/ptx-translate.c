/* ptx-translate.c - a PTX module (ptx.h) to warp-wide C (ptx-warp.h).
 *
 * Each .entry becomes `void ms_ptx_k_M_K (const MsLaunchArgs *L)`, run by
 * the emulator once per warp (MsLaunch.warp_entry).  Its registers are
 * arrays of 32 lanes; its code is cut into blocks that end at a memory
 * instruction, a collective, a barrier, a branch or a label, and a block
 * runs for a group of lanes as one loop over them (MS_WARP_LANES), as
 * sim/emulator/warp.h's scheduler expects.  Every global or shared memory
 * instruction is one stop of the group: one warp record, its site the
 * instruction's source line (.loc) and its order the instruction's place
 * in the PTX, which is also the order in which waiting groups go first
 * (reconvergence by program order).  Parameters, constants and local
 * memory are read directly: no record (the GPU's counters that memsim
 * models do not count them).
 *
 * Texture and surface instructions are lane statements (ptx-texture.c).
 * Calls of the module's own functions are inlined first (flatten, under
 * "inlining": a call through a pointer compares it with each candidate);
 * the device runtime's (vprintf, __assertfail, malloc, free) are lane
 * statements calling the emulator, as cp.async.bulk, mbarrier.* and trap are
 * (device_insn): no records.
 *
 * What the engine does not run (texture gathers, recursion, ...) becomes
 * a call of ms_ptx_fail naming the instruction and its source line, in
 * place of what was made of it: the kernel fails when it reaches it,
 * other kernels of the program run.
 */
#include "config.h"

#include <string.h>

#include "ptx-lane-temps.h"
#include "ptx-texture.h"
#include "ptx-translate.h"
#include "runtime-calls.h"
#include "slow-path-runs.h"

/* the most bytes of registers a translated function keeps on its warp's
 * stack (emulator.c gives a warp 32 x 32 KiB) */
#define MAX_STACK_FRAME (256 * 1024)
/* a kernel of more blocks than this is compiled without GCC's GCSE
 * (translate_function says why) */
#define BIG_KERNEL_BLOCKS 400

typedef struct {
  char kind;    /* 'u' 's' 'b' 'f' 'p' (pred), 0: none */
  guint bits;
} Ty;

typedef struct {
  GString *o;
  const MsPtxModule *m;
  const MsPtxFunc *f;
  guint mod, fn;
  GHashTable *labels;       /* label -> insn index */
  GHashTable *starts;       /* insn index -> TRUE: a block starts there */
  guint n;                  /* instructions */
  MsPtxInsn **ins;          /* without the labels */
  GString *body;            /* the lane loop being made */
  GString *after_lanes;     /* the warp's statements after that loop (flush) */
  guint n_slow_paths;       /* instructions whose slow path is counted so far */
  GString *slow_decls;      /* ... their records' definitions (MsPtxSlowPath) */
  guint n_sites;
  GHashTable *shared_off;   /* shared variable name -> offset + 1 */
  guint shared_static;      /* bytes */
  const char *dyn_name;     /* the extern .shared array, or NULL */
  guint dyn_align;
  GHashTable *local_off;    /* local variable name -> offset + 1 */
  guint local_bytes;
  GHashTable *param_off;    /* parameter name -> offset + 1 */
  GHashTable *bparam_off;   /* a .param of the body (a call's arguments and
                             * results) -> offset + 1 in the lane's local memory */
  gboolean ftz;             /* the instruction being made has .ftz on f32: its
                             * float operands and results are flushed (rd, wr_reg) */
  guint n_bad;              /* unsupported instructions so far */
  GString *last_fail;       /* the last one's message */
  GPtrArray *site_heads;    /* per site: its MsSite definition up to its inner lines
                             * (written out at the end, with them) */
  GPtrArray *site_inners;   /* ... and those (GString, "FILE:LINE" tab-separated:
                             * the own lines of its accesses in inlined code), or NULL */
  GString *aggs;            /* its reductions ptxas may aggregate: { &site, &flag } */
  GString *agg_flags;       /* ... their flags' definitions */
  GHashTable *agg_sites;    /* ... their site numbers + 1 */
  guint32 *completions;     /* per insn: it has a completion block */
  guint *region;            /* per insn: its straight-line region (between labels
                             * and branches) */
  gboolean *reloaded;       /* per insn: a load ptxas does not issue again (reloaded_loads) */
  GHashTable *access_sites; /* an access's key -> its site number + 1 */
  /* Reconvergence (reconverge below): per instruction, the join of the
   * branch it is (-1: none); per join, the instruction it is at. */
  int *branch_join;
  guint *join_at;
  guint n_joins;
  /* the instruction count: the block being made (its counter ms_IC[n]),
   * and each block's instructions by source line, or NULL */
  guint block_no;
  MsInstMap *inst;
  /* the function reads the clock (%clock, %clock64, %globaltimer): each
   * block adds its instructions to the warp's (ms_ptx_warp_clock) */
  gboolean clock;
  /* a strong load of global memory (ld.volatile, or .relaxed/.acquire at
   * .gpu or .sys scope): the function may wait on what other blocks
   * write (ms_ptx_translate_entry's polls_blocks) */
  gboolean polls_blocks;
  /* per register: 1 when its only write is an unguarded mov of a constant
   * (its value in const_value), 2 when not; NULL until asked */
  guint8 *const_state;
  gint64 *const_value;
} Tr;

/* ------------------------------------------------------------ types */

static Ty
ty_parse (const char *t)
{
  Ty y = { 0, 0 };
  guint s = ms_ptx_type_size (t);
  if (s == 0)
    return y;
  if (strcmp (t, "pred") == 0)
    return (Ty) { 'p', 1 };
  y.bits = s * 8;
  y.kind = t[0] == 'f' ? 'f' : t[0] == 's' ? 's' : t[0] == 'u' ? 'u' : 'b';
  if (strcmp (t, "f16x2") == 0 || strcmp (t, "bf16x2") == 0 || strcmp (t, "bf16") == 0
      || strcmp (t, "tf32") == 0 || strcmp (t, "u16x2") == 0 || strcmp (t, "s16x2") == 0)
    y.kind = 'b';   /* raw bits: what the engine moves, never computes */
  return y;
}

/* The instruction's last type modifier (or the n-th from the end). */
static Ty
ty_of (const MsPtxInsn *i, int nth_from_end)
{
  int n = 0;
  for (char **p = i->mods; p && *p; p++)
    n++;
  for (int k = n - 1; k >= 0; k--)
    {
      Ty y = ty_parse (i->mods[k]);
      if (y.kind && nth_from_end-- == 0)
        return y;
    }
  return (Ty) { 0, 0 };
}

static const char *
ctype (Ty t)
{
  if (t.kind == 'p')
    return "uint8_t";
  if (t.kind == 'f')
    return t.bits == 64 ? "double" : t.bits == 32 ? "float" : "float";
  static const char *u[] = { "uint8_t", "uint16_t", "uint32_t", "uint64_t" };
  static const char *s[] = { "int8_t", "int16_t", "int32_t", "int64_t" };
  int k = t.bits == 8 ? 0 : t.bits == 16 ? 1 : t.bits == 32 ? 2 : 3;
  return t.kind == 's' ? s[k] : u[k];
}

static const char *
utype (guint bits)
{
  return bits <= 8 ? "uint8_t" : bits <= 16 ? "uint16_t" : bits <= 32 ? "uint32_t" : "uint64_t";
}

static const char *
stype (guint bits)
{
  return bits <= 8 ? "int8_t" : bits <= 16 ? "int16_t" : bits <= 32 ? "int32_t" : "int64_t";
}

static guint
reg_bits (const MsPtxReg *r)
{
  return r->cls == MS_PTX_PRED ? 1 : r->cls == MS_PTX_B16 ? 16 : r->cls == MS_PTX_B32 ? 32 : 64;
}

/* The bytes of a register's array of 32 lanes (a predicate: a byte each) */
static gsize
warp_reg_bytes (const MsPtxReg *r)
{
  return 32 * (r->cls == MS_PTX_PRED ? 1 : reg_bits (r) / 8);
}

/* ------------------------------------------------------------ messages */

/* The basename of .file number `file` of m, or NULL (none, or unknown). */
static char *
file_base (const MsPtxModule *m, int file)
{
  const char *path = file > 0 && (guint) file < m->files->len ? g_ptr_array_index (m->files, file)
                                                               : NULL;
  return path ? g_path_get_basename (path) : NULL;
}

static void
unsupported (Tr *t, const MsPtxInsn *i, const char *what)
{
  t->n_bad++;
  g_string_truncate (t->last_fail, 0);
  g_autofree char *base = file_base (t->m, i->file);
  GString *w = g_string_new (i->op);
  for (char **p = i->mods; p && *p; p++)
    g_string_append_printf (w, ".%s", *p);
  if (base != NULL)
    g_string_append_printf (t->last_fail, "%s:%d: ", base, i->line);
  g_string_append_printf (t->last_fail,
                          "memsim cannot run the PTX instruction '%s' (%s; %s line %d)",
                          w->str, what, t->m->path, i->ptx_line);
  g_string_free (w, TRUE);
}

static void
c_string (GString *o, const char *s)
{
  g_string_append_c (o, '"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_c (o, '\\');
      if ((guchar) *s < 32)
        g_string_append_printf (o, "\\%03o", (guchar) *s);
      else
        g_string_append_c (o, *s);
    }
  g_string_append_c (o, '"');
}

/* ------------------------------------------------------------ operands */

static char *
reg_ref (int r)
{
  return g_strdup_printf ("R%d[L]", r);
}

/* A special register's value (lane L) as uint32_t or uint64_t. */
static char *
special (Tr *t, const MsPtxInsn *i, const char *s)
{
  static const char *dims[] = { "x", "y", "z" };
  for (int d = 0; d < 3; d++)
    {
      char b[32];
      g_snprintf (b, sizeof b, "%%tid.%s", dims[d]);
      if (strcmp (s, b) == 0)
        return g_strdup_printf ("((uint32_t) ms_warp.tid[%d][L])", d);
      g_snprintf (b, sizeof b, "%%ntid.%s", dims[d]);
      if (strcmp (s, b) == 0)
        return g_strdup_printf ("((uint32_t) blockDim.%s)", dims[d]);
      g_snprintf (b, sizeof b, "%%ctaid.%s", dims[d]);
      if (strcmp (s, b) == 0)
        return g_strdup_printf ("((uint32_t) blockIdx.%s)", dims[d]);
      g_snprintf (b, sizeof b, "%%nctaid.%s", dims[d]);
      if (strcmp (s, b) == 0)
        return g_strdup_printf ("((uint32_t) gridDim.%s)", dims[d]);
    }
  if (strcmp (s, "%laneid") == 0)
    return g_strdup ("((uint32_t) L)");
  if (strcmp (s, "%warpid") == 0)
    return g_strdup ("((uint32_t) ms_ptx_warp_index ())");
  if (strcmp (s, "%nwarpid") == 0)
    return g_strdup ("((uint32_t) 64)");
  if (strcmp (s, "%lanemask_eq") == 0)
    return g_strdup ("((uint32_t) 1u << L)");
  if (strcmp (s, "%lanemask_lt") == 0)
    return g_strdup ("(((uint32_t) 1u << L) - 1u)");
  if (strcmp (s, "%lanemask_le") == 0)
    return g_strdup ("((uint32_t) (((uint64_t) 2 << L) - 1u))");
  if (strcmp (s, "%lanemask_gt") == 0)
    return g_strdup ("((uint32_t) ~(uint32_t) (((uint64_t) 2 << L) - 1u))");
  if (strcmp (s, "%lanemask_ge") == 0)
    return g_strdup ("((uint32_t) ~(((uint32_t) 1u << L) - 1u))");
  if (strcmp (s, "%clock") == 0)
    return g_strdup ("((uint32_t) (uint64_t) *ms_CK)");
  if (strcmp (s, "%clock_hi") == 0)
    return g_strdup ("((uint32_t) ((uint64_t) *ms_CK >> 32))");
  if (strcmp (s, "%clock64") == 0)
    return g_strdup ("((uint64_t) *ms_CK)");
  if (strcmp (s, "%globaltimer") == 0)
    return g_strdup ("((uint64_t) ms_ptx_globaltimer (*ms_CK))");
  if (strcmp (s, "%globaltimer_lo") == 0)
    return g_strdup ("((uint32_t) ms_ptx_globaltimer (*ms_CK))");
  if (strcmp (s, "%globaltimer_hi") == 0)
    return g_strdup ("((uint32_t) (ms_ptx_globaltimer (*ms_CK) >> 32))");
  /* a cooperative launch's grid workspace (cooperative groups' grid
   * barrier), its high half in %envreg1: 0 outside one */
  if (strcmp (s, "%envreg1") == 0)
    return g_strdup ("((uint32_t) (ms_ptx_grid_workspace () >> 32))");
  if (strcmp (s, "%envreg2") == 0)
    return g_strdup ("((uint32_t) ms_ptx_grid_workspace ())");
  if (strcmp (s, "%smid") == 0 || strncmp (s, "%envreg", 7) == 0)
    return g_strdup ("((uint32_t) 0)");
  if (strcmp (s, "%nsmid") == 0)
    return g_strdup ("((uint32_t) 132)");
  if (strcmp (s, "WARP_SZ") == 0)
    return g_strdup ("((uint32_t) 32)");
  if (strncmp (s, "%reserved_smem_offset", 21) == 0)
    return g_strdup ("((uint32_t) (ms_res - ms_shb))");
  if (strcmp (s, "%dynamic_smem_size") == 0)
    return g_strdup ("((uint32_t) ms_ptx_dyn_bytes)");
  unsupported (t, i, "a special register memsim does not know");
  return g_strdup ("0");
}

static int
module_var (const Tr *t, const char *name)
{
  for (guint k = 0; k < t->m->vars->len; k++)
    if (strcmp (g_array_index (t->m->vars, MsPtxVar, k).name, name) == 0)
      return (int) k;
  return -1;
}

/* Whether sym is an extern .shared array: every one is the block's
 * dynamic shared memory. */
static gboolean
is_dynamic (const Tr *t, const char *sym)
{
  const GArray *lists[2] = { t->m->vars, t->f->vars };
  for (int l = 0; l < 2; l++)
    for (guint k = 0; k < lists[l]->len; k++)
      {
        const MsPtxVar *v = &g_array_index (lists[l], MsPtxVar, k);
        if (v->space == MS_PTX_SPACE_SHARED && (v->external || v->size == 0)
            && strcmp (v->name, sym) == 0)
          return TRUE;
      }
  return FALSE;
}

/* The address a symbol stands for (uint64_t): a shared variable's offset
 * in the block's window, a local one's in the lane's local memory, a
 * parameter's host address, a module variable's host address. */
static char *
sym_addr (Tr *t, const MsPtxInsn *i, const char *sym, gint64 off)
{
  gpointer v;
  if ((v = g_hash_table_lookup (t->shared_off, sym)) != NULL)
    return g_strdup_printf ("((uint64_t) %u + (uint64_t) (%" G_GINT64_FORMAT "))",
                            GPOINTER_TO_UINT (v) - 1, off);
  if (t->dyn_name && is_dynamic (t, sym))
    return g_strdup_printf ("((uint64_t) ms_ptx_dyn_off + (uint64_t) (%" G_GINT64_FORMAT "))",
                            off);
  if ((v = g_hash_table_lookup (t->local_off, sym)) != NULL)
    return g_strdup_printf ("((uint64_t) %u + (uint64_t) (%" G_GINT64_FORMAT "))",
                            GPOINTER_TO_UINT (v) - 1, off);
  if ((v = g_hash_table_lookup (t->param_off, sym)) != NULL)
    return g_strdup_printf ("((uint64_t) (uintptr_t) (ms_P + %u + (%" G_GINT64_FORMAT ")))",
                            GPOINTER_TO_UINT (v) - 1, off);
  if ((v = g_hash_table_lookup (t->bparam_off, sym)) != NULL)
    return g_strdup_printf ("((uint64_t) (uintptr_t) (ms_loc + L * %u + %u + (%" G_GINT64_FORMAT
                            ")))",
                            MAX (t->local_bytes, 1), GPOINTER_TO_UINT (v) - 1, off);
  if (strcmp (sym, "WARP_SZ") == 0)
    return g_strdup ("((uint64_t) 32)");
  int g = module_var (t, sym);
  if (g >= 0)
    return g_strdup_printf ("((uint64_t) (uintptr_t) (ms_ptx_g_%u_%d + (%" G_GINT64_FORMAT ")))",
                            t->mod, g, off);
  for (guint k = 0; k < t->m->funcs->len; k++)
    if (strcmp (((const MsPtxFunc *) g_ptr_array_index (t->m->funcs, k))->name, sym) == 0)
      return g_strdup_printf ("((uint64_t) UINT64_C (0x%" G_GINT64_MODIFIER "x))",
                              MS_PTX_FUNC_ADDR (k));
  unsupported (t, i, "a symbol memsim does not know");
  return g_strdup ("0");
}

/* The registers operand o names (a register or pair, a vector's, an
 * address's base), appended to regs (room for 16). */
static void
operand_regs (const MsPtxOperand *o, int *regs, guint *n)
{
  if (o->kind == MS_PTX_OPD_VEC)
    {
      for (int v = 0; v < o->n_vec && *n < 16; v++)
        if (o->vec[v] >= 0)
          regs[(*n)++] = o->vec[v];
      return;
    }
  if (o->reg >= 0 && *n < 16)
    regs[(*n)++] = o->reg;
  if (o->kind == MS_PTX_OPD_REG && o->reg2 >= 0 && *n < 16)
    regs[(*n)++] = o->reg2;
}

/* Whether register reg holds one value in every lane all along: its only
 * write in the function is an unguarded mov of an immediate or of WARP_SZ
 * (nvcc puts a shuffle's arguments and warpSize so); the value, cut to the
 * register's width, in *value.  Read as a literal, it lets the host
 * compiler fold a division by warpSize into a shift. */
static gboolean
const_reg (Tr *t, int reg, gint64 *value)
{
  guint n_regs = t->f->regs->len;
  if (reg < 0 || (guint) reg >= n_regs)
    return FALSE;
  if (t->const_state == NULL)
    {
      t->const_state = g_new0 (guint8, n_regs);
      t->const_value = g_new0 (gint64, n_regs);
      for (guint x = 0; x < t->f->insns->len; x++)
        {
          const MsPtxInsn *w = &g_array_index (t->f->insns, MsPtxInsn, x);
          if (w->op == NULL || w->n_opd == 0)
            continue;
          const MsPtxOperand *d = &w->opd[0], *s = w->n_opd == 2 ? &w->opd[1] : NULL;
          gboolean mov = strcmp (w->op, "mov") == 0 && w->guard < 0 && s != NULL
                         && d->kind == MS_PTX_OPD_REG && d->reg2 < 0
                         && (s->kind == MS_PTX_OPD_IMM
                             || ((s->kind == MS_PTX_OPD_SPECIAL || s->kind == MS_PTX_OPD_SYM)
                                 && s->sym != NULL && strcmp (s->sym, "WARP_SZ") == 0));
          int written[16];
          guint n_written = 0;
          if (d->kind == MS_PTX_OPD_REG || d->kind == MS_PTX_OPD_VEC)
            operand_regs (d, written, &n_written);
          for (guint e = 0; e < n_written; e++)
            {
              int r = written[e];
              if (r < 0 || (guint) r >= n_regs)
                continue;
              const MsPtxReg *rr = &g_array_index (t->f->regs, MsPtxReg, r);
              if (t->const_state[r] == 0 && mov && rr->cls != MS_PTX_PRED)
                {
                  guint bits = reg_bits (rr);
                  guint64 v = s->kind == MS_PTX_OPD_IMM ? (guint64) s->imm : 32;
                  t->const_state[r] = 1;
                  t->const_value[r] = (gint64) (bits >= 64 ? v : v & ((G_GUINT64_CONSTANT (1) << bits) - 1));
                }
              else
                t->const_state[r] = 2;
            }
        }
    }
  if (t->const_state[reg] != 1)
    return FALSE;
  *value = t->const_value[reg];
  return TRUE;
}

/* Operand k of i read as type y, for lane L. */
static char *
rd (Tr *t, const MsPtxInsn *i, guint k, Ty y)
{
  if (k >= i->n_opd)
    {
      unsupported (t, i, "an operand is missing");
      return g_strdup ("0");
    }
  const MsPtxOperand *o = &i->opd[k];
  switch (o->kind)
    {
    case MS_PTX_OPD_REG:
      {
        const MsPtxReg *r = &g_array_index (t->f->regs, MsPtxReg, o->reg);
        g_autofree char *raw = reg_ref (o->reg);
        if (y.kind == 'p')
          return g_strdup_printf (o->neg ? "(!%s)" : "(%s != 0)", raw);
        if (y.kind == 'f' && y.bits == 32)
          return g_strdup_printf (t->ftz ? "ms_ftz32 (ms_f32 ((uint32_t) %s))"
                                         : "ms_f32 ((uint32_t) %s)", raw);
        if (y.kind == 'f' && y.bits == 64)
          return g_strdup_printf ("ms_f64 ((uint64_t) %s)", raw);
        if (y.kind == 'f' && y.bits == 16)
          return g_strdup_printf ("ms_f16_f32 ((uint16_t) %s)", raw);
        if (r->cls == MS_PTX_PRED)
          return g_strdup_printf ("((%s) (%s%s))", ctype (y), o->neg ? "!" : "", raw);
        gint64 c;
        if ((y.kind == 'u' || y.kind == 's' || y.kind == 'b') && const_reg (t, o->reg, &c))
          return g_strdup_printf ("((%s) (%s) UINT64_C (%" G_GUINT64_FORMAT "))", ctype (y),
                                  utype (reg_bits (r)), (guint64) c);
        return g_strdup_printf ("((%s) %s)", ctype (y), raw);
      }
    case MS_PTX_OPD_IMM:
      if (y.kind == 'f')
        return g_strdup_printf ("((%s) %" G_GINT64_FORMAT ")", ctype (y), o->imm);
      if (y.kind == 'p')
        return g_strdup (o->imm ? "1" : "0");
      return g_strdup_printf ("((%s) INT64_C (%" G_GINT64_FORMAT "))", ctype (y), o->imm);
    case MS_PTX_OPD_FIMM:
      if (y.kind == 'f' && y.bits == 64)
        {
          guint64 b;
          memcpy (&b, &o->fimm, 8);
          return g_strdup_printf ("ms_f64 (UINT64_C (0x%016" G_GINT64_MODIFIER "x))", b);
        }
      if (y.kind == 'f')
        {
          float f = (float) o->fimm;
          guint32 b;
          memcpy (&b, &f, 4);
          return g_strdup_printf ("ms_f32 (0x%08xu)", b);
        }
      {
        /* bits of a float immediate given to an integer-typed mov */
        if (y.bits == 64)
          {
            guint64 b;
            memcpy (&b, &o->fimm, 8);
            return g_strdup_printf ("UINT64_C (0x%016" G_GINT64_MODIFIER "x)", b);
          }
        float f = (float) o->fimm;
        guint32 b;
        memcpy (&b, &f, 4);
        return g_strdup_printf ("((%s) 0x%08xu)", ctype (y), b);
      }
    case MS_PTX_OPD_SPECIAL:
      {
        g_autofree char *s = special (t, i, o->sym);
        return g_strdup_printf ("((%s) %s)", ctype (y), s);
      }
    case MS_PTX_OPD_SYM:
      {
        g_autofree char *a = sym_addr (t, i, o->sym, o->imm);
        return g_strdup_printf ("((%s) %s)", ctype (y), a);
      }
    default:
      unsupported (t, i, "an operand of a kind this instruction does not take");
      return g_strdup ("0");
    }
}

/* Writes `value` (of type y) to register operand k (lane L). */
static void
wr_reg (Tr *t, int reg, Ty y, const char *value)
{
  if (reg < 0)
    return;   /* _ */
  const MsPtxReg *r = &g_array_index (t->f->regs, MsPtxReg, reg);
  guint bits = reg_bits (r);
  g_autofree char *dst = reg_ref (reg);
  if (r->cls == MS_PTX_PRED)
    g_string_append_printf (t->body, "%s = (uint8_t) ((%s) != 0);\n", dst, value);
  else if (y.kind == 'f' && y.bits == 32)
    g_string_append_printf (t->body, t->ftz ? "%s = (%s) ms_b32 (ms_ftz32 ((float) (%s)));\n"
                                            : "%s = (%s) ms_b32 ((float) (%s));\n",
                            dst, utype (bits), value);
  else if (y.kind == 'f' && y.bits == 64)
    g_string_append_printf (t->body, "%s = (%s) ms_b64 ((double) (%s));\n", dst, utype (bits),
                            value);
  else if (y.kind == 'f' && y.bits == 16)
    g_string_append_printf (t->body, "%s = (%s) ms_f32_f16 ((float) (%s));\n", dst, utype (bits),
                            value);
  else
    g_string_append_printf (t->body, "%s = (%s) (%s) (%s);\n", dst, utype (bits),
                            y.kind == 's' ? stype (y.bits) : utype (y.bits), value);
}

static void
wr (Tr *t, const MsPtxInsn *i, guint k, Ty y, const char *value)
{
  if (k >= i->n_opd)
    {
      unsupported (t, i, "an operand is missing");
      return;
    }
  const MsPtxOperand *o = &i->opd[k];
  if (o->kind == MS_PTX_OPD_SINK)
    return;
  if (o->kind != MS_PTX_OPD_REG)
    {
      unsupported (t, i, "its destination is not a register");
      return;
    }
  wr_reg (t, o->reg, y, value);
}

/* ------------------------------------------------------------ ALU */


static const char *
int_cmp (const char *c, gboolean is_signed)
{
  (void) is_signed;
  if (!strcmp (c, "eq")) return "==";
  if (!strcmp (c, "ne")) return "!=";
  if (!strcmp (c, "lt") || !strcmp (c, "lo")) return "<";
  if (!strcmp (c, "le") || !strcmp (c, "ls")) return "<=";
  if (!strcmp (c, "gt") || !strcmp (c, "hi")) return ">";
  if (!strcmp (c, "ge") || !strcmp (c, "hs")) return ">=";
  return NULL;
}

/* A comparison of a and b (type y) as PTX's cmp names it. */
static char *
compare (Tr *t, const MsPtxInsn *i, const char *c, Ty y, const char *a, const char *b)
{
  if (y.kind == 'f')
    {
      gboolean unordered = strlen (c) == 3 && c[2] == 'u' && strcmp (c, "num") != 0;
      char base[3] = { c[0], c[1], 0 };
      if (!strcmp (c, "num"))
        return g_strdup_printf ("(!isnan (%s) && !isnan (%s))", a, b);
      if (!strcmp (c, "nan"))
        return g_strdup_printf ("(isnan (%s) || isnan (%s))", a, b);
      const char *op = int_cmp (base, FALSE);
      if (op == NULL)
        {
          unsupported (t, i, "an unknown comparison");
          return g_strdup ("0");
        }
      if (unordered)
        return g_strdup_printf ("(isnan (%s) || isnan (%s) || (%s) %s (%s))", a, b, a, op, b);
      if (!strcmp (base, "ne"))
        return g_strdup_printf ("(!isnan (%s) && !isnan (%s) && (%s) != (%s))", a, b, a, b);
      return g_strdup_printf ("((%s) %s (%s))", a, op, b);
    }
  const char *op = int_cmp (c, y.kind == 's');
  if (op == NULL)
    {
      unsupported (t, i, "an unknown comparison");
      return g_strdup ("0");
    }
  /* lo/ls/hi/hs compare unsigned whatever the type */
  if (!strcmp (c, "lo") || !strcmp (c, "ls") || !strcmp (c, "hi") || !strcmp (c, "hs"))
    return g_strdup_printf ("((%s) (%s) %s (%s) (%s))", utype (y.bits), a, op, utype (y.bits), b);
  return g_strdup_printf ("((%s) %s (%s))", a, op, b);
}

static const char *
cmp_mod (const MsPtxInsn *i)
{
  static const char *cmps[] = { "eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs",
                                "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan", NULL };
  for (char **p = i->mods; p && *p; p++)
    for (int k = 0; cmps[k]; k++)
      if (strcmp (*p, cmps[k]) == 0)
        return *p;
  return NULL;
}

static const char *
bool_mod (const MsPtxInsn *i)
{
  for (char **p = i->mods; p && *p; p++)
    if (!strcmp (*p, "and") || !strcmp (*p, "or") || !strcmp (*p, "xor"))
      return *p;
  return NULL;
}

static const char *
c_bool (const char *b)
{
  return !strcmp (b, "and") ? "&&" : !strcmp (b, "or") ? "||" : "!=";
}

/* v (owned) clamped to [0, 1] as .sat does, for a floating-point type of
 * `bits` */
static char *
saturate (char *v, guint bits)
{
  char *s = g_strdup_printf (bits == 64 ? "ms_sat_f64 (%s)" : "ms_sat_f32 (%s)", v);
  g_free (v);
  return s;
}

/* Integer arithmetic that wraps, as the GPU's: in the unsigned type. */
static char *
wrap (Ty y, const char *a, const char *op, const char *b)
{
  return g_strdup_printf ("((%s) ((%s) (%s) %s (%s) (%s)))", ctype (y), utype (y.bits), a, op,
                          utype (y.bits), b);
}

/* Operand k as type y if it is a value (else NULL, without a complaint:
 * the instruction may not have it). */
static char *
opt_rd (Tr *t, const MsPtxInsn *i, guint k, Ty y)
{
  if (k >= i->n_opd || y.kind == 0)
    return NULL;
  MsPtxOpdKind kd = i->opd[k].kind;
  if (kd != MS_PTX_OPD_REG && kd != MS_PTX_OPD_IMM && kd != MS_PTX_OPD_FIMM
      && kd != MS_PTX_OPD_SPECIAL && kd != MS_PTX_OPD_SYM)
    return NULL;
  return rd (t, i, k, y);
}

/* A lane statement of an arithmetic or logic instruction; FALSE if it is
 * none the engine knows. */
/* A half-precision type the engine computes lane by lane in its halves:
 * f16x2 (kind 1, two halves), bf16x2 (2, two), bf16 (2, one).  (A scalar
 * f16 is a float type of 16 bits: rd and wr convert it.) */
static gboolean
packed_half (const MsPtxInsn *i, guint *kind, guint *halves)
{
  for (char **p = i->mods; p && *p; p++)
    {
      if (!strcmp (*p, "f16x2"))
        *kind = 1, *halves = 2;
      else if (!strcmp (*p, "bf16x2"))
        *kind = 2, *halves = 2;
      else if (!strcmp (*p, "bf16"))
        *kind = 2, *halves = 1;
      else
        continue;
      return TRUE;
    }
  return FALSE;
}

/* Arithmetic, comparisons and approximations on half-precision values:
 * each half converted to double, computed, rounded once to its type
 * (exact for add, sub and mul; fma's product is exact in double).  FALSE:
 * an operation or modifier the engine does not know (never bits computed
 * as an integer). */
static gboolean
half_alu (Tr *t, const MsPtxInsn *i, guint kind, guint halves)
{
  const char *op = i->op;
  const char *un = kind == 1 ? "ms_f16_f32" : "ms_bf16_f32";
  const char *pk = kind == 1 ? "ms_f64_f16" : "ms_f64_bf16";
  guint bits = 16 * halves;
  Ty raw = { 'u', bits };
  if (ms_ptx_has_mod (i, "xorsign") || ms_ptx_has_mod (i, "oob"))
    return FALSE;
  if (!strcmp (op, "setp") || !strcmp (op, "set"))
    {
      const char *cm = cmp_mod (i);
      if (cm == NULL || bool_mod (i) || i->n_opd < 3)
        return FALSE;
      g_autofree char *a = rd (t, i, 1, raw), *b = rd (t, i, 2, raw);
      /* (no comma outside parentheses: the lane loop is a macro's argument) */
      g_string_append_printf (t->body, "{ uint32_t a_ = %s; uint32_t b_ = %s;\n", a, b);
      char *cond[2] = { NULL, NULL };
      for (guint h = 0; h < halves; h++)
        {
          g_string_append_printf (t->body,
                                  "double x%u_ = %s ((uint16_t) (a_ >> %u)); double y%u_ = %s ((uint16_t) (b_ >> %u));\n",
                                  h, un, 16 * h, h, un, 16 * h);
          g_autofree char *x = g_strdup_printf ("x%u_", h), *y = g_strdup_printf ("y%u_", h);
          cond[h] = compare (t, i, cm, (Ty) { 'f', 64 }, x, y);
        }
      const MsPtxOperand *d = &i->opd[0];
      if (op[1] == 'e' && op[3] == 'p')   /* setp: the low half's to p, the high's to q */
        {
          if (d->kind != MS_PTX_OPD_REG)
            return FALSE;
          wr_reg (t, d->reg, (Ty) { 'p', 1 }, cond[0]);
          if (halves == 2 && d->reg2 >= 0)
            wr_reg (t, d->reg2, (Ty) { 'p', 1 }, cond[1]);
        }
      else
        {
          /* set: each half all ones (an integer result) or 1.0 (a
           * half-precision one) where true */
          Ty dy = ty_of (i, 1);
          const char *one = dy.kind == 'u' || dy.kind == 's' ? "0xffffu"
                            : kind == 1 ? "0x3c00u" : "0x3f80u";
          GString *e = g_string_new ("(");
          for (guint h = 0; h < halves; h++)
            g_string_append_printf (e, "%s((%s ? %s : 0u) << %u)", h ? " | " : "", cond[h], one,
                                    16 * h);
          g_string_append_c (e, ')');
          wr (t, i, 0, raw, e->str);
          g_string_free (e, TRUE);
        }
      g_string_append (t->body, "}\n");
      g_free (cond[0]);
      g_free (cond[1]);
      return TRUE;
    }
  const char *expr;
  guint n_in;
  if (!strcmp (op, "add")) expr = "x_ + y_", n_in = 2;
  else if (!strcmp (op, "sub")) expr = "x_ - y_", n_in = 2;
  else if (!strcmp (op, "mul")) expr = "x_ * y_", n_in = 2;
  else if (!strcmp (op, "fma")) expr = "fma (x_, y_, z_)", n_in = 3;
  else if (!strcmp (op, "neg")) expr = "-x_", n_in = 1;
  else if (!strcmp (op, "abs")) expr = "fabs (x_)", n_in = 1;
  else if (!strcmp (op, "min"))
    expr = ms_ptx_has_mod (i, "NaN") ? "(isnan (x_) || isnan (y_) ? NAN : ms_fmin64 (x_, y_))"
                                     : "ms_fmin64 (x_, y_)", n_in = 2;
  else if (!strcmp (op, "max"))
    expr = ms_ptx_has_mod (i, "NaN") ? "(isnan (x_) || isnan (y_) ? NAN : ms_fmax64 (x_, y_))"
                                     : "ms_fmax64 (x_, y_)", n_in = 2;
  else if (!strcmp (op, "ex2")) expr = "exp2 (x_)", n_in = 1;
  else if (!strcmp (op, "tanh")) expr = "tanh (x_)", n_in = 1;
  else
    return FALSE;
  if (i->n_opd < n_in + 1)
    return FALSE;
  g_string_append (t->body, "{ uint32_t r_ = 0;\n");
  for (guint k = 0; k < n_in; k++)
    {
      g_autofree char *v = rd (t, i, k + 1, raw);
      g_string_append_printf (t->body, "uint32_t %c_ = %s;\n", 'a' + k, v);
    }
  g_string_append_printf (t->body, "for (int h_ = 0; h_ < %u; h_++) {\n", halves);
  for (guint k = 0; k < n_in; k++)
    g_string_append_printf (t->body, "double %c_ = %s ((uint16_t) (%c_ >> 16 * h_));\n",
                            "xyz"[k], un, 'a' + k);
  g_string_append_printf (t->body, "double v_ = %s;\n", expr);
  if (ms_ptx_has_mod (i, "sat"))
    g_string_append (t->body, "v_ = isnan (v_) ? 0 : v_ < 0 ? 0 : v_ > 1 ? 1 : v_;\n");
  if (ms_ptx_has_mod (i, "relu"))
    g_string_append (t->body, "v_ = v_ < 0 ? 0 : v_;\n");
  g_string_append_printf (t->body, "r_ |= (uint32_t) %s (v_) << 16 * h_;\n}\n", pk);
  wr (t, i, 0, raw, "r_");
  g_string_append (t->body, "}\n");
  return TRUE;
}

/* The n-th type modifier of i (0: the first), or NULL. */
static const char *
type_mod (const MsPtxInsn *i, guint n)
{
  for (char **p = i->mods; p && *p; p++)
    if (ms_ptx_type_size (*p) != 0 && n-- == 0)
      return *p;
  return NULL;
}

/* cvt to or from bfloat16, and the packing conversions to f16x2 and
 * bf16x2 (a's value in the upper half, b's in the lower).  FALSE: a
 * conversion the engine does not know. */
static gboolean
half_cvt (Tr *t, const MsPtxInsn *i)
{
  const char *dt = type_mod (i, 0), *st = type_mod (i, 1);
  if (dt == NULL || st == NULL || (!ms_ptx_has_mod (i, "rn") && strncmp (st, "bf16", 4)))
    return FALSE;
  const char *relu = ms_ptx_has_mod (i, "relu") ? "v_ = v_ < 0 ? 0 : v_; " : "";
  if ((!strcmp (dt, "f16x2") || !strcmp (dt, "bf16x2")) && !strcmp (st, "f32") && i->n_opd == 3)
    {
      const char *pk = dt[0] == 'f' ? "ms_f64_f16" : "ms_f64_bf16";
      g_autofree char *a = rd (t, i, 1, (Ty) { 'f', 32 }), *b = rd (t, i, 2, (Ty) { 'f', 32 });
      g_autofree char *v = g_strdup_printf ("({ double v_ = %s; %suint32_t lo_ = %s (v_); v_ = %s; "
                                            "%s(uint32_t) %s (v_) << 16 | lo_; })",
                                            b, relu, pk, a, relu, pk);
      wr (t, i, 0, (Ty) { 'u', 32 }, v);
      return TRUE;
    }
  if (!strcmp (dt, "bf16") && (!strcmp (st, "f32") || !strcmp (st, "f64")))
    {
      g_autofree char *a = rd (t, i, 1, (Ty) { 'f', st[1] == '3' ? 32 : 64 });
      g_autofree char *v = g_strdup_printf ("({ double v_ = %s; %s%s; })", a, relu,
                                            st[1] == '3' ? "ms_f32_bf16 ((float) v_)"
                                                         : "ms_f64_bf16 (v_)");
      wr (t, i, 0, (Ty) { 'u', 16 }, v);
      return TRUE;
    }
  if (!strcmp (st, "bf16") && (!strcmp (dt, "f32") || !strcmp (dt, "f64")))
    {
      g_autofree char *a = rd (t, i, 1, (Ty) { 'u', 16 });
      g_autofree char *v = g_strdup_printf ("ms_bf16_f32 ((uint16_t) %s)", a);
      wr (t, i, 0, (Ty) { 'f', dt[1] == '3' ? 32 : 64 }, v);
      return TRUE;
    }
  return FALSE;
}

/* The 8-bit float pairs: cvt.rn.satfinite{.relu}.{e4m3x2,e5m2x2}.f32 d, a,
 * b (a to the upper byte) and cvt.rn{.relu}.f16x2.{e4m3x2,e5m2x2} d, a
 * (each byte to a half).  FALSE: another form. */
static gboolean
fp8_cvt (Tr *t, const MsPtxInsn *i)
{
  const char *other = type_mod (i, 0);   /* the type beside the 8-bit pair */
  int e5 = -1;
  for (char **p = i->mods; p && *p; p++)
    if (!strcmp (*p, "e4m3x2") || !strcmp (*p, "e5m2x2"))
      e5 = (*p)[1] == '5';
  if (e5 < 0 || other == NULL)
    return FALSE;
  if (!strcmp (other, "f32") && i->n_opd == 3 && ms_ptx_has_mod (i, "satfinite"))
    {
      g_autofree char *a = rd (t, i, 1, (Ty) { 'f', 32 }), *b = rd (t, i, 2, (Ty) { 'f', 32 });
      const char *relu = ms_ptx_has_mod (i, "relu") ? "ms_fmax32 (0.0f, " : "(";
      g_autofree char *v = g_strdup_printf ("((uint32_t) ms_f32_fp8 (%s%s), %d) << 8 "
                                            "| ms_f32_fp8 (%s%s), %d))",
                                            relu, a, e5, relu, b, e5);
      wr (t, i, 0, (Ty) { 'u', 16 }, v);
      return TRUE;
    }
  if (!strcmp (other, "f16x2") && i->n_opd == 2 && !ms_ptx_has_mod (i, "relu"))
    {
      g_autofree char *a = rd (t, i, 1, (Ty) { 'u', 16 });
      g_autofree char *v = g_strdup_printf ("((uint32_t) ms_f64_f16 (ms_fp8_f32 ((uint8_t) ((%s) >> 8), %d)) << 16 "
                                            "| ms_f64_f16 (ms_fp8_f32 ((uint8_t) (%s), %d)))",
                                            a, e5, a, e5);
      wr (t, i, 0, (Ty) { 'u', 32 }, v);
      return TRUE;
    }
  return FALSE;
}

/* A floating-point instruction's directed rounding: .rz 1, .rm 2, .rp 3;
 * 0 for .rn or none (the host's own) */
static int
directed (const MsPtxInsn *i)
{
  return ms_ptx_has_mod (i, "rz") ? 1 : ms_ptx_has_mod (i, "rm") ? 2 : ms_ptx_has_mod (i, "rp") ? 3 : 0;
}

/* An IEEE float division, reciprocal or square root (kind), fn's call on
 * operands a (and b): the lanes its fast path's test sends to the slow
 * path, counted once the warp's lanes have run it (sim/models/
 * slow-path.c). */
static char *
slow_path_op (Tr *t, const MsPtxInsn *i, MsSlowPathKind kind, const char *fn, const char *a,
              const char *b)
{
  guint n = t->n_slow_paths++;
  /* the record lives as long as the function: its lanes' flags are
   * written by each run's lanes, and ms_ptx_slow_path_warp reads only
   * those (no clearing in the loop's way) */
  g_string_append_printf (t->slow_decls, "  MsPtxSlowPath sp_%u = { .kind = %u };\n", n,
                          (guint) kind);
  /* the lanes that ran it, where a guard may leave some out */
  if (i->guard >= 0)
    g_string_append_printf (t->o, "      uint8_t sp_%u_ran[32] = { 0 };\n"
                                  "      sp_%u.ran = sp_%u_ran;\n", n, n, n);
  g_string_append_printf (t->after_lanes, "      if (ms_ptx_any_slow (&sp_%u))\n"
                                          "        ms_ptx_slow_path_warp (&sp_%u, m);\n", n, n);
  g_autofree char *ran = i->guard >= 0 ? g_strdup_printf ("sp_%u_ran", n) : g_strdup ("NULL");
  return b ? g_strdup_printf ("%s (&sp_%u, %s, L, %s, %s)", fn, n, ran, a, b)
           : g_strdup_printf ("%s (&sp_%u, %s, L, %s)", fn, n, ran, a);
}

static gboolean
alu (Tr *t, const MsPtxInsn *i)
{
  Ty y = ty_of (i, 0);
  const char *op = i->op;
  g_autofree char *a = opt_rd (t, i, 1, y), *b = opt_rd (t, i, 2, y), *c = opt_rd (t, i, 3, y);
  g_autofree char *v = NULL;
#define A (a ? a : "0")
#define B (b ? b : "0")
#define C (c ? c : "0")
  if (!strcmp (op, "mov"))
    {
      if (i->n_opd == 2 && i->opd[0].kind == MS_PTX_OPD_VEC)
        {
          /* unpack: mov.b64 {lo, hi}, %rd */
          g_autofree char *src = rd (t, i, 1, (Ty) { 'u', y.bits });
          guint n = (guint) i->opd[0].n_vec, part = y.bits / n;
          for (guint k = 0; k < n; k++)
            {
              g_autofree char *e = g_strdup_printf ("(%s) ((%s) >> %u)", utype (part), src,
                                                    k * part);
              wr_reg (t, i->opd[0].vec[k], (Ty) { 'u', part }, e);
            }
          return TRUE;
        }
      if (i->n_opd == 2 && i->opd[1].kind == MS_PTX_OPD_VEC)
        {
          guint n = (guint) i->opd[1].n_vec, part = y.bits / n;
          GString *e = g_string_new ("(");
          for (guint k = 0; k < n; k++)
            {
              int r = i->opd[1].vec[k];
              if (r < 0)
                continue;
              g_string_append_printf (e, "%s((%s) (%s) R%d[L] << %u)", k ? " | " : "",
                                      utype (y.bits), utype (part), r, k * part);
            }
          g_string_append_c (e, ')');
          wr (t, i, 0, (Ty) { 'u', y.bits }, e->str);
          g_string_free (e, TRUE);
          return TRUE;
        }
      if (y.kind == 'p')
        wr (t, i, 0, y, A);
      else
        {
          /* bits move unchanged whatever the type */
          Ty raw = { 'u', y.bits };
          if (i->opd[1].kind == MS_PTX_OPD_FIMM)
            raw = y;
          g_autofree char *src = rd (t, i, 1, raw);
          wr (t, i, 0, raw, src);
        }
      return TRUE;
    }
  if (y.kind == 'p' && (!strcmp (op, "and") || !strcmp (op, "or") || !strcmp (op, "xor")))
    {
      const char *o = !strcmp (op, "and") ? "&&" : !strcmp (op, "or") ? "||" : "!=";
      v = g_strdup_printf ("(%s %s %s)", A, o, B);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (y.kind == 'p' && !strcmp (op, "not"))
    {
      v = g_strdup_printf ("(!%s)", A);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  guint hkind, halves;
  if (strcmp (op, "cvt") && strcmp (op, "selp") && packed_half (i, &hkind, &halves))
    return half_alu (t, i, hkind, halves);
  if (ms_ptx_has_mod (i, "u16x2") || ms_ptx_has_mod (i, "s16x2"))
    {
      /* two 16-bit integers in a register (add, sub, min, max; wrapping,
       * or clamped where .sat) */
      int k = !strcmp (op, "add") ? 0 : !strcmp (op, "sub") ? 1 : !strcmp (op, "min") ? 2
              : !strcmp (op, "max") ? 3 : -1;
      if (k < 0 || i->n_opd != 3)
        return FALSE;
      Ty u = { 'u', 32 };
      g_autofree char *ua = rd (t, i, 1, u), *ub = rd (t, i, 2, u);
      v = g_strdup_printf ("ms_simd16x2 (%s, %s, %d, %d, %d)", ua, ub, k,
                           ms_ptx_has_mod (i, "s16x2"), ms_ptx_has_mod (i, "sat"));
      wr (t, i, 0, u, v);
      return TRUE;
    }
  gboolean f = y.kind == 'f';
  gboolean carry_in = !strcmp (op, "addc") || !strcmp (op, "subc") || !strcmp (op, "madc");
  if (!f && (carry_in || ms_ptx_has_mod (i, "cc")))
    {
      /* multiword arithmetic (add.cc, addc, sub.cc, subc, mad.cc, madc:
       * the carry flag, per lane in ms_CC): the sum in twice the width,
       * its top half the carry out; a subtraction's flag is its borrow */
      if (y.bits != 32 && y.bits != 64)
        return FALSE;
      gboolean sub = op[0] == 's', mad = op[0] == 'm';
      const char *wide = y.bits == 32 ? "uint64_t" : "unsigned __int128";
      Ty u = { 'u', y.bits };
      g_autofree char *ua = rd (t, i, 1, u), *ub = rd (t, i, 2, u);
      g_autofree char *first = NULL;
      if (mad && ms_ptx_has_mod (i, "hi"))
        first = g_strdup_printf ("((%s) (((%s) %s * (%s) %s) >> %u))", wide, wide, ua, wide, ub,
                                 y.bits);
      else if (mad)
        first = g_strdup_printf ("((%s) (%s) ((%s) %s * (%s) %s))", wide, utype (y.bits), wide,
                                 ua, wide, ub);
      else
        first = g_strdup_printf ("((%s) %s)", wide, ua);
      g_autofree char *second = mad ? rd (t, i, 3, u) : g_strdup (ub);
      g_string_append_printf (t->body, "{ %s s_ = %s %s (%s) %s%s;\n", wide, first,
                              sub ? "-" : "+", wide, second,
                              carry_in ? (sub ? " - ms_CC[L]" : " + ms_CC[L]") : "");
      if (ms_ptx_has_mod (i, "cc"))
        g_string_append_printf (t->body, "ms_CC[L] = (uint32_t) (s_ >> %u) & 1;\n", y.bits);
      g_autofree char *low = g_strdup_printf ("((%s) s_)", utype (y.bits));
      wr (t, i, 0, u, low);
      g_string_append (t->body, "}\n");
      return TRUE;
    }
  if (!strcmp (op, "add") || !strcmp (op, "sub"))
    {
      const char *o = op[0] == 'a' ? "+" : "-";
      if (f && directed (i) && y.bits >= 32)
        v = g_strdup_printf ("ms_add%u (%s, %s(%s), %d)", y.bits, A, op[0] == 'a' ? "" : "-", B,
                             directed (i));
      else if (f)
        v = g_strdup_printf ("(%s %s %s)", A, o, B);
      else if (ms_ptx_has_mod (i, "sat"))
        v = g_strdup_printf ("((int32_t) ({ int64_t s_ = (int64_t) %s %s (int64_t) %s; "
                             "s_ > INT32_MAX ? INT32_MAX : s_ < INT32_MIN ? INT32_MIN : s_; }))",
                             A, o, B);
      else
        v = wrap (y, A, o, B);
      if (f && ms_ptx_has_mod (i, "sat"))
        v = saturate (v, y.bits);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "mul") || !strcmp (op, "mad") || !strcmp (op, "mul24")
      || !strcmp (op, "mad24"))
    {
      gboolean mad = op[1] == 'a';
      if (f)
        {
          if (mad && directed (i) && y.bits == 32)
            v = g_strdup_printf ("ms_fma32 (%s, %s, %s, %d)", A, B, C, directed (i));
          else if (mad)
            v = g_strdup_printf (y.bits == 64 ? "fma (%s, %s, %s)" : "fmaf (%s, %s, %s)", A, B,
                                 C);
          else if (directed (i) && y.bits >= 32)
            v = g_strdup_printf ("ms_mul%u (%s, %s, %d)", y.bits, A, B, directed (i));
          else
            v = g_strdup_printf ("(%s * %s)", A, B);
          if (ms_ptx_has_mod (i, "sat"))
            v = saturate (v, y.bits);
          wr (t, i, 0, y, v);
          return TRUE;
        }
      if (ms_ptx_has_mod (i, "wide"))
        {
          Ty w = { y.kind, y.bits * 2 };
          g_autofree char *p = g_strdup_printf ("((%s) %s * (%s) %s)", ctype (w), A, ctype (w), B);
          if (mad)
            {
              g_autofree char *cc = rd (t, i, 3, w);
              v = wrap (w, p, "+", cc);
            }
          else
            v = g_strdup (p);
          wr (t, i, 0, w, v);
          return TRUE;
        }
      if (ms_ptx_has_mod (i, "hi"))
        {
          Ty w = { y.kind, y.bits * 2 };
          const char *wt = y.bits == 64 ? (y.kind == 's' ? "__int128" : "unsigned __int128")
                                        : ctype (w);
          g_autofree char *p = g_strdup_printf ("((%s) (((%s) %s * (%s) %s) >> %u))", ctype (y),
                                                wt, A, wt, B, y.bits);
          v = mad ? wrap (y, p, "+", C) : g_strdup (p);
          wr (t, i, 0, y, v);
          return TRUE;
        }
      if (op[3] == '2')   /* 24-bit */
        {
          g_autofree char *p = g_strdup_printf ("((%s) ((int64_t) (((int32_t) (%s) << 8) >> 8) * "
                                                "(int64_t) (((int32_t) (%s) << 8) >> 8)))",
                                                ctype (y), A, B);
          v = mad ? wrap (y, p, "+", C) : g_strdup (p);
          wr (t, i, 0, y, v);
          return TRUE;
        }
      g_autofree char *p = wrap (y, A, "*", B);
      v = mad ? wrap (y, p, "+", C) : g_strdup (p);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "fma"))
    {
      if (directed (i) && y.bits == 32)
        v = g_strdup_printf ("ms_fma32 (%s, %s, %s, %d)", A, B, C, directed (i));
      else if (directed (i))
        return FALSE;   /* a double fma rounded otherwise than to nearest: not yet */
      else
        v = g_strdup_printf (y.bits == 64 ? "fma (%s, %s, %s)" : "fmaf (%s, %s, %s)", A, B, C);
      if (ms_ptx_has_mod (i, "sat"))
        v = saturate (v, y.bits);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "div") || !strcmp (op, "rem"))
    {
      if (f && op[0] == 'd' && directed (i) && y.bits >= 32)
        v = g_strdup_printf ("ms_div%u (%s, %s, %d)", y.bits, A, B, directed (i));
      else if (f && op[0] == 'd' && y.bits == 32 && ms_ptx_has_mod (i, "rn")
               && !ms_ptx_has_mod (i, "ftz"))
        v = slow_path_op (t, i, MS_SLOW_FDIV, "ms_ptx_fdiv_rn", A, B);
      else if (f && op[0] == 'd')
        v = g_strdup_printf ("(%s / %s)", A, B);
      else if (f)
        return FALSE;
      else if (y.kind == 's' && op[0] == 'd')
        v = g_strdup_printf ("((%s) == 0 ? (%s) -1 : (%s) == -1 ? (%s) (0 - (%s) (%s)) : (%s) / (%s))",
                             B, ctype (y), B, ctype (y), utype (y.bits), A, A, B);
      else if (y.kind == 's')
        v = g_strdup_printf ("((%s) == 0 ? (%s) : (%s) == -1 ? (%s) 0 : (%s) %% (%s))", B, A, B,
                             ctype (y), A, B);
      else if (i->n_opd > 2 && i->opd[2].kind == MS_PTX_OPD_REG
               && !const_reg (t, i->opd[2].reg, &(gint64) { 0 }) && (y.bits == 32 || y.bits == 64))
        /* a divisor that varies (a reduction's tid % (2 * s)): a power of
         * two is a mask or a shift, no division */
        v = g_strdup_printf ("ms_ptx_u%s%u (%s, %s)", op[0] == 'd' ? "div" : "rem", y.bits, A, B);
      else
        v = g_strdup_printf ("((%s) == 0 ? (%s) %s : (%s) %s (%s))", B, ctype (y),
                             op[0] == 'd' ? "~0ull" : A, A, op[0] == 'd' ? "/" : "%", B);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "min") || !strcmp (op, "max"))
    {
      gboolean mn = op[1] == 'i';
      if (f)
        v = g_strdup_printf (ms_ptx_has_mod (i, "NaN")
                             ? "(%3$s != %3$s || %4$s != %4$s ? NAN : ms_f%1$s%2$u (%3$s, %4$s))"
                             : "ms_f%s%u (%s, %s)",
                             mn ? "min" : "max", y.bits == 64 ? 64 : 32, A, B);
      else
        v = g_strdup_printf ("((%s) %s (%s) ? (%s) : (%s))", A, mn ? "<" : ">", B, A, B);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "abs"))
    {
      v = f ? g_strdup_printf (y.bits == 64 ? "fabs (%s)" : "fabsf (%s)", A)
            : g_strdup_printf ("((%s) < 0 ? (%s) (0 - (%s) (%s)) : (%s))", A, ctype (y),
                               utype (y.bits), A, A);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "neg"))
    {
      v = f ? g_strdup_printf ("(-%s)", A)
            : g_strdup_printf ("((%s) (0 - (%s) (%s)))", ctype (y), utype (y.bits), A);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "and") || !strcmp (op, "or") || !strcmp (op, "xor"))
    {
      Ty u = { 'u', y.bits };
      g_autofree char *ua = rd (t, i, 1, u), *ub = rd (t, i, 2, u);
      v = g_strdup_printf ("(%s %s %s)", ua, op[0] == 'a' ? "&" : op[0] == 'o' ? "|" : "^", ub);
      wr (t, i, 0, u, v);
      return TRUE;
    }
  if (!strcmp (op, "not") || !strcmp (op, "cnot"))
    {
      Ty u = { 'u', y.bits };
      g_autofree char *ua = rd (t, i, 1, u);
      v = op[0] == 'n' ? g_strdup_printf ("(~%s)", ua) : g_strdup_printf ("(%s == 0)", ua);
      wr (t, i, 0, u, v);
      return TRUE;
    }
  if (!strcmp (op, "shl") || !strcmp (op, "shr"))
    {
      Ty u32 = { 'u', 32 };
      g_autofree char *sh = rd (t, i, 2, u32);
      if (op[2] == 'l')
        v = g_strdup_printf ("((%s) >= %u ? 0 : (%s) ((%s) %s << (%s)))", sh, y.bits,
                             utype (y.bits), utype (y.bits), A, sh);
      else if (y.kind == 's')
        v = g_strdup_printf ("((%s) (%s) >> ((%s) >= %u ? %u : (%s)))", ctype (y), A, sh,
                             y.bits, y.bits - 1, sh);
      else
        v = g_strdup_printf ("((%s) >= %u ? 0 : (%s) %s >> (%s))", sh, y.bits, utype (y.bits), A,
                             sh);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "shf"))
    {
      /* funnel shift of {b:a} by c (.clamp or .wrap) */
      Ty u = { 'u', 32 };
      g_autofree char *ua = rd (t, i, 1, u), *ub = rd (t, i, 2, u), *uc = rd (t, i, 3, u);
      gboolean left = ms_ptx_has_mod (i, "l");
      g_autofree char *nn = ms_ptx_has_mod (i, "wrap")
                              ? g_strdup_printf ("((%s) & 31)", uc)
                              : g_strdup_printf ("((%s) > 32 ? 32 : (%s))", uc, uc);
      if (left)
        v = g_strdup_printf ("((uint32_t) ((((uint64_t) %s << 32 | %s) << %s) >> 32))", ub, ua,
                             nn);
      else
        v = g_strdup_printf ("((uint32_t) (((uint64_t) %s << 32 | %s) >> %s))", ub, ua, nn);
      wr (t, i, 0, u, v);
      return TRUE;
    }
  if (!strcmp (op, "setp"))
    {
      const char *cm = cmp_mod (i), *bo = bool_mod (i);
      if (cm == NULL)
        return FALSE;
      g_autofree char *cond = compare (t, i, cm, y, A, B);
      const MsPtxOperand *d = &i->opd[0];
      if (bo)
        {
          g_autofree char *pc = rd (t, i, 2 + 1, (Ty) { 'p', 1 });
          g_autofree char *p1 = g_strdup_printf ("(%s %s %s)", cond, c_bool (bo), pc);
          g_autofree char *p2 = g_strdup_printf ("((!%s) %s %s)", cond, c_bool (bo), pc);
          wr_reg (t, d->reg, (Ty) { 'p', 1 }, p1);
          if (d->reg2 >= 0)
            wr_reg (t, d->reg2, (Ty) { 'p', 1 }, p2);
        }
      else
        {
          g_autofree char *neg = g_strdup_printf ("(!%s)", cond);
          if (d->reg2 >= 0)
            {
              /* both written from the inputs as they were */
              g_string_append_printf (t->body, "{ uint8_t c_ = (uint8_t) %s;\n", cond);
              wr_reg (t, d->reg, (Ty) { 'p', 1 }, "c_");
              wr_reg (t, d->reg2, (Ty) { 'p', 1 }, "!c_");
              g_string_append (t->body, "}\n");
            }
          else
            wr (t, i, 0, (Ty) { 'p', 1 }, cond);
        }
      return TRUE;
    }
  if (!strcmp (op, "set"))
    {
      const char *cm = cmp_mod (i);
      Ty dy = ty_of (i, 1), sy = ty_of (i, 0);
      if (cm == NULL || bool_mod (i))
        return FALSE;
      g_autofree char *sa = rd (t, i, 1, sy), *sb = rd (t, i, 2, sy);
      g_autofree char *cond = compare (t, i, cm, sy, sa, sb);
      v = dy.kind == 'f' ? g_strdup_printf ("(%s ? 1.0f : 0.0f)", cond)
                         : g_strdup_printf ("(%s ? 0xffffffffu : 0u)", cond);
      wr (t, i, 0, dy, v);
      return TRUE;
    }
  if (!strcmp (op, "selp"))
    {
      g_autofree char *p = rd (t, i, 3, (Ty) { 'p', 1 });
      v = g_strdup_printf ("(%s ? %s : %s)", p, A, B);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "slct"))
    {
      Ty cy = ty_of (i, 0), dy = ty_of (i, 1);
      g_autofree char *sa = rd (t, i, 1, dy), *sb = rd (t, i, 2, dy), *sc = rd (t, i, 3, cy);
      v = g_strdup_printf ("((%s) >= 0 ? %s : %s)", sc, sa, sb);
      wr (t, i, 0, dy, v);
      return TRUE;
    }
  if (!strcmp (op, "cvt"))
    {
      for (char **p = i->mods; p && *p; p++)
        if (!strcmp (*p, "e4m3x2") || !strcmp (*p, "e5m2x2"))
          return fp8_cvt (t, i);
      if (ms_ptx_has_mod (i, "pack"))
        {
          /* cvt.pack.sat.{u16,s16}.s32 d, a, b: a clamped to the upper
           * half, b to the lower (the 8-, 4- and 2-bit forms: not yet) */
          Ty dy = ty_of (i, 1);
          if (dy.bits != 16 || i->n_opd != 3 || ty_of (i, 0).kind != 's' || ty_of (i, 0).bits != 32)
            return FALSE;
          Ty s32 = { 's', 32 };
          g_autofree char *pa = rd (t, i, 1, s32), *pb = rd (t, i, 2, s32);
          const char *lo = dy.kind == 's' ? "-32768" : "0", *hi = dy.kind == 's' ? "32767" : "65535";
          v = g_strdup_printf ("((uint32_t) (uint16_t) ({ int32_t x_ = %s; x_ < %s ? %s : x_ > %s ? %s : x_; }) << 16 "
                               "| (uint16_t) ({ int32_t x_ = %s; x_ < %s ? %s : x_ > %s ? %s : x_; }))",
                               pa, lo, lo, hi, hi, pb, lo, lo, hi, hi);
          wr (t, i, 0, (Ty) { 'u', 32 }, v);
          return TRUE;
        }
      if (packed_half (i, &hkind, &halves))
        return half_cvt (t, i);
      Ty dy = ty_of (i, 1), sy = ty_of (i, 0);
      g_autofree char *s = rd (t, i, 1, sy);
      const char *rnd = ms_ptx_has_mod (i, "rzi") || ms_ptx_has_mod (i, "rz") ? "trunc"
                        : ms_ptx_has_mod (i, "rmi") || ms_ptx_has_mod (i, "rm") ? "floor"
                        : ms_ptx_has_mod (i, "rpi") || ms_ptx_has_mod (i, "rp") ? "ceil"
                                                                                 : "nearbyint";
      if (dy.kind == 0 || sy.kind == 0)
        return FALSE;
      if (dy.kind == 'f' && sy.kind == 'f')
        {
          if (ms_ptx_has_mod (i, "rni") || ms_ptx_has_mod (i, "rzi") || ms_ptx_has_mod (i, "rmi")
              || ms_ptx_has_mod (i, "rpi"))
            v = g_strdup_printf ("%s%s (%s)", rnd, dy.bits == 64 ? "" : "f", s);
          else if (dy.bits == 32 && sy.bits == 64 && directed (i))
            v = g_strdup_printf ("ms_f64_f32_dir (%s, %d)", s, directed (i));
          else
            v = g_strdup_printf ("((%s) %s)", dy.bits == 64 ? "double" : "float", s);
          if (ms_ptx_has_mod (i, "sat"))
            v = saturate (v, dy.bits);
        }
      else if (dy.kind == 'f')
        v = g_strdup_printf ("((%s) %s)", dy.bits == 64 ? "double" : "float", s);
      else if (sy.kind == 'f')
        {
          const char *lo = dy.kind == 's'
                             ? (dy.bits == 8 ? "INT8_MIN" : dy.bits == 16 ? "INT16_MIN"
                                : dy.bits == 32 ? "INT32_MIN" : "INT64_MIN")
                             : "0";
          const char *hi = dy.kind == 's'
                             ? (dy.bits == 8 ? "INT8_MAX" : dy.bits == 16 ? "INT16_MAX"
                                : dy.bits == 32 ? "INT32_MAX" : "INT64_MAX")
                             : (dy.bits == 8 ? "UINT8_MAX" : dy.bits == 16 ? "UINT16_MAX"
                                : dy.bits == 32 ? "UINT32_MAX" : "UINT64_MAX");
          v = g_strdup_printf ("({ double x_ = %s ((double) %s); MS_PTX_F2I (%s, %s, %s, x_); })",
                               rnd, s, ctype (dy), lo, hi);
        }
      else if (ms_ptx_has_mod (i, "sat") && dy.bits < 64)
        {
          Ty dy2 = dy;
          v = g_strdup_printf ("({ int64_t x_ = (int64_t) %s; (%s) (x_ < (int64_t) %s ? %s : x_ > "
                               "(int64_t) %s ? %s : x_); })",
                               s, ctype (dy2),
                               dy.kind == 's' ? (dy.bits == 8 ? "INT8_MIN" : dy.bits == 16 ? "INT16_MIN" : "INT32_MIN") : "0",
                               dy.kind == 's' ? (dy.bits == 8 ? "INT8_MIN" : dy.bits == 16 ? "INT16_MIN" : "INT32_MIN") : "0",
                               dy.kind == 's' ? (dy.bits == 8 ? "INT8_MAX" : dy.bits == 16 ? "INT16_MAX" : "INT32_MAX")
                                              : (dy.bits == 8 ? "UINT8_MAX" : dy.bits == 16 ? "UINT16_MAX" : "UINT32_MAX"),
                               dy.kind == 's' ? (dy.bits == 8 ? "INT8_MAX" : dy.bits == 16 ? "INT16_MAX" : "INT32_MAX")
                                              : (dy.bits == 8 ? "UINT8_MAX" : dy.bits == 16 ? "UINT16_MAX" : "UINT32_MAX"));
        }
      else
        v = g_strdup_printf ("((%s) %s)", ctype (dy), s);
      wr (t, i, 0, dy, v);
      return TRUE;
    }
  if (!strcmp (op, "cvta"))
    {
      /* shared: offset <-> host address of the block's window; local: of
       * the lane's local memory; global, const, param: host addresses */
      Ty u = { 'u', y.bits ? y.bits : 64 };
      g_autofree char *s = rd (t, i, 1, u);
      gboolean to = ms_ptx_has_mod (i, "to");
      if (ms_ptx_has_mod (i, "shared"))
        v = to ? g_strdup_printf ("((uint64_t) ((uintptr_t) %s - (uintptr_t) ms_shb))", s)
               : g_strdup_printf ("((uint64_t) (uintptr_t) (ms_shb + (uint32_t) %s))", s);
      else if (ms_ptx_has_mod (i, "local"))
        v = to ? g_strdup_printf ("((uint64_t) ((uintptr_t) %s - (uintptr_t) (ms_loc + L * %u)))", s,
                                  MAX (t->local_bytes, 1))
               : g_strdup_printf ("((uint64_t) (uintptr_t) (ms_loc + L * %u + %s))",
                                  MAX (t->local_bytes, 1), s);
      else
        v = g_strdup (s);
      wr (t, i, 0, u, v);
      return TRUE;
    }
  if (!strcmp (op, "sqrt") || !strcmp (op, "rsqrt") || !strcmp (op, "rcp") || !strcmp (op, "ex2")
      || !strcmp (op, "lg2") || !strcmp (op, "sin") || !strcmp (op, "cos")
      || !strcmp (op, "tanh"))
    {
      gboolean d = y.bits == 64;
      const char *sf = d ? "" : "f";
      gboolean ieee = !d && ms_ptx_has_mod (i, "rn") && !ms_ptx_has_mod (i, "ftz");
      if (!strcmp (op, "sqrt") && directed (i))
        v = g_strdup_printf ("ms_sqrt%u (%s, %d)", y.bits, A, directed (i));
      else if (!strcmp (op, "sqrt") && ieee)
        v = slow_path_op (t, i, MS_SLOW_FSQRT, "ms_ptx_fsqrt_rn", A, NULL);
      else if (!strcmp (op, "rcp") && ieee)
        v = slow_path_op (t, i, MS_SLOW_FRCP, "ms_ptx_frcp_rn", A, NULL);
      else if (!strcmp (op, "sqrt"))
        v = g_strdup_printf ("sqrt%s (%s)", sf, A);
      else if (!strcmp (op, "rsqrt"))
        v = g_strdup_printf ("(1 / sqrt%s (%s))", sf, A);
      else if (!strcmp (op, "rcp"))
        v = g_strdup_printf ("(1 / (%s))", A);
      else if (!strcmp (op, "ex2"))
        v = g_strdup_printf ("exp2%s (%s)", sf, A);
      else if (!strcmp (op, "lg2"))
        v = g_strdup_printf ("log2%s (%s)", sf, A);
      else
        v = g_strdup_printf ("%s%s (%s)", op, sf, A);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "copysign"))
    {
      v = g_strdup_printf (y.bits == 64 ? "copysign (%s, %s)" : "copysignf (%s, %s)", B, A);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "testp"))
    {
      const char *k = i->mods[0];
      if (k == NULL)
        return FALSE;
      if (!strcmp (k, "finite"))
        v = g_strdup_printf ("isfinite (%s)", A);
      else if (!strcmp (k, "infinite"))
        v = g_strdup_printf ("isinf (%s)", A);
      else if (!strcmp (k, "number"))
        v = g_strdup_printf ("!isnan (%s)", A);
      else if (!strcmp (k, "notanumber"))
        v = g_strdup_printf ("isnan (%s)", A);
      else if (!strcmp (k, "normal"))
        v = g_strdup_printf ("isnormal (%s)", A);
      else if (!strcmp (k, "subnormal"))
        v = g_strdup_printf ("(fpclassify (%s) == FP_SUBNORMAL)", A);
      else
        return FALSE;
      wr (t, i, 0, (Ty) { 'p', 1 }, v);
      return TRUE;
    }
  if (!strcmp (op, "popc") || !strcmp (op, "clz") || !strcmp (op, "brev") || !strcmp (op, "bfind"))
    {
      Ty u = { 'u', y.bits };
      g_autofree char *ua = rd (t, i, 1, u);
      Ty u32 = { 'u', 32 };
      if (!strcmp (op, "popc"))
        v = g_strdup_printf ("(uint32_t) __builtin_popcountll (%s)", ua);
      else if (!strcmp (op, "clz"))
        v = g_strdup_printf (y.bits == 64 ? "ms_clz64 (%s)" : "ms_clz32 ((uint32_t) %s)", ua);
      else if (!strcmp (op, "bfind"))
        {
          g_autofree char *pos = y.kind == 's'
                                   ? g_strdup_printf ("ms_bfind_s64 ((int64_t) (%s) %s)", stype (y.bits), ua)
                                   : g_strdup_printf ("ms_bfind_u64 (%s)", ua);
          /* .shiftamt: the left shift that brings that bit to the top
           * (__ffs is brev then bfind.shiftamt); none found stays ~0 */
          v = ms_ptx_has_mod (i, "shiftamt")
                ? g_strdup_printf ("({ uint32_t p_ = %s; p_ == 0xffffffffu ? p_ : %uu - p_; })", pos,
                                   y.bits - 1)
                : g_steal_pointer (&pos);
        }
      else
        {
          v = g_strdup_printf (y.bits == 64 ? "ms_brev64 (%s)" : "ms_brev32 ((uint32_t) %s)", ua);
          wr (t, i, 0, u, v);
          return TRUE;
        }
      wr (t, i, 0, u32, v);
      return TRUE;
    }
  if (!strcmp (op, "bfe"))
    {
      Ty u32 = { 'u', 32 };
      g_autofree char *pos = rd (t, i, 2, u32), *len = rd (t, i, 3, u32);
      v = y.kind == 's' ? g_strdup_printf ("ms_bfe_s ((int64_t) %s, %s, %s, %u)", A, pos, len, y.bits)
                        : g_strdup_printf ("ms_bfe_u ((uint64_t) %s, %s, %s, %u)", A, pos, len, y.bits);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "bfi"))
    {
      Ty u32 = { 'u', 32 };
      g_autofree char *pos = rd (t, i, 3, u32), *len = rd (t, i, 4, u32);
      v = g_strdup_printf ("ms_bfi ((uint64_t) %s, (uint64_t) %s, %s, %s, %u)", A, B, pos, len,
                           y.bits);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "bmsk"))
    {
      Ty u32 = { 'u', 32 };
      g_autofree char *from = rd (t, i, 1, u32), *width = rd (t, i, 2, u32);
      v = g_strdup_printf ("ms_bmsk (%s, %s, %d)", from, width, ms_ptx_has_mod (i, "clamp"));
      wr (t, i, 0, u32, v);
      return TRUE;
    }
  if (!strcmp (op, "prmt"))
    {
      static const char *const modes[] = { "f4e", "b4e", "rc8", "ecl", "ecr", "rc16", NULL };
      if (i->mods[0] && strcmp (i->mods[0], "b32") != 0)
        return FALSE;
      int mode = 0;
      for (int k = 0; modes[k]; k++)
        if (ms_ptx_has_mod (i, modes[k]))
          mode = k + 1;
      if (mode == 0 && i->mods[0] && i->mods[1])
        return FALSE;   /* a mode memsim does not know */
      v = mode ? g_strdup_printf ("ms_prmt_mode (%s, %s, %s, %d)", A, B, C, mode)
               : g_strdup_printf ("ms_prmt (%s, %s, %s)", A, B, C);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "szext") && y.bits == 32)
    {
      Ty u = { 'u', 32 };
      g_autofree char *ua = rd (t, i, 1, u), *ub = rd (t, i, 2, u);
      v = g_strdup_printf ("ms_szext (%s, %s, %d, %d)", ua, ub, ms_ptx_has_mod (i, "wrap"),
                           y.kind == 's');
      wr (t, i, 0, u, v);
      return TRUE;
    }
  if (!strcmp (op, "lop3"))
    {
      g_autofree char *lut = rd (t, i, 4, (Ty) { 'u', 32 });
      v = g_strdup_printf ("ms_lop3 (%s, %s, %s, %s)", A, B, C, lut);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "sad"))
    {
      v = g_strdup_printf ("((%s) + ((%s) > (%s) ? (%s) - (%s) : (%s) - (%s)))", C, A, B, A, B,
                           B, A);
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if ((!strcmp (op, "dp4a") || !strcmp (op, "dp2a")) && i->n_opd == 4)
    {
      /* c + the products of a's and b's bytes (dp4a), or of a's two
       * halves and two of b's bytes (dp2a.lo: bytes 0, 1; .hi: 2, 3), each
       * signed as its type says; the sum wraps in 32 bits */
      Ty u = { 'u', 32 };
      g_autofree char *ua = rd (t, i, 1, u), *ub = rd (t, i, 2, u), *uc = rd (t, i, 3, u);
      gboolean sa = ty_of (i, 1).kind == 's', sb = ty_of (i, 0).kind == 's';
      v = op[2] == '4' ? g_strdup_printf ("ms_dp4a (%s, %s, %s, %d, %d)", ua, ub, uc, sa, sb)
                       : g_strdup_printf ("ms_dp2a (%s, %s, %s, %d, %d, %d)", ua, ub, uc, sa, sb,
                                          ms_ptx_has_mod (i, "hi"));
      wr (t, i, 0, u, v);
      return TRUE;
    }
  if (!strcmp (op, "vabsdiff4") && !ms_ptx_has_mod (i, "add") && !ms_ptx_has_mod (i, "sat")
      && !ms_ptx_has_mod (i, "min") && !ms_ptx_has_mod (i, "max") && y.bits == 32
      && i->n_opd == 4)
    {
      /* each byte lane's |a - b| (the default mask: all four from the
       * result, c unused) */
      v = g_strdup_printf ("ms_vabsdiff4 (%s, %s, %d, %d)", A, B, ty_of (i, 2).kind == 's',
                           ty_of (i, 1).kind == 's');
      wr (t, i, 0, y, v);
      return TRUE;
    }
  if (!strcmp (op, "vabsdiff4") && ms_ptx_has_mod (i, "add") && !ms_ptx_has_mod (i, "sat")
      && y.bits == 32 && i->n_opd == 4)
    {
      /* the four bytes' |a - b| summed into c (no mask, no selectors) */
      v = g_strdup_printf ("ms_vabsdiff4_add (%s, %s, %s, %d, %d)", A, B, C,
                           ty_of (i, 2).kind == 's', ty_of (i, 1).kind == 's');
      wr (t, i, 0, y, v);
      return TRUE;
    }
#undef A
#undef B
#undef C
  return FALSE;
}

/* ------------------------------------------------------------ blocks */

typedef enum { K_ALU, K_NOP, K_MEM, K_DIRECT, K_BRA, K_RET, K_BAR, K_SHFL, K_VOTE, K_ACTIVEMASK,
               K_SYNCWARP, K_REDUX, K_TEX, K_BAD, K_CALL, K_DEVICE, K_BARRED } Kind;

static MsPtxSpace
space_of (const MsPtxInsn *i, gboolean *generic)
{
  *generic = FALSE;
  if (ms_ptx_has_mod (i, "shared")) return MS_PTX_SPACE_SHARED;
  if (ms_ptx_has_mod (i, "global")) return MS_PTX_SPACE_GLOBAL;
  if (ms_ptx_has_mod (i, "local")) return MS_PTX_SPACE_LOCAL;
  if (ms_ptx_has_mod (i, "const")) return MS_PTX_SPACE_CONST;
  if (ms_ptx_has_mod (i, "param")) return MS_PTX_SPACE_PARAM;
  *generic = TRUE;
  return MS_PTX_SPACE_GLOBAL;
}

/* cp.async.ca|cg.shared{::cta}.global: LDGSTS, each lane's copy from
 * global to shared memory, which memsim records as a global load
 * (async_copy_stop) */
static gboolean
is_async_copy (const MsPtxInsn *i)
{
  if (strcmp (i->op, "cp") || !ms_ptx_has_mod (i, "async") || ms_ptx_has_mod (i, "bulk")
      || ms_ptx_has_mod (i, "mbarrier") || !ms_ptx_has_mod (i, "global"))
    return FALSE;
  for (char **p = i->mods; p && *p; p++)
    if (strncmp (*p, "shared", 6) == 0)
      return TRUE;
  return FALSE;
}

static Kind
kind_of (const MsPtxInsn *i)
{
  const char *op = i->op;
  if (!strcmp (op, "ld") || !strcmp (op, "ldu") || !strcmp (op, "st") || !strcmp (op, "atom")
      || !strcmp (op, "red"))
    {
      gboolean generic;
      MsPtxSpace s = space_of (i, &generic);
      if (s == MS_PTX_SPACE_CONST || s == MS_PTX_SPACE_PARAM || s == MS_PTX_SPACE_LOCAL)
        return K_DIRECT;
      return K_MEM;
    }
  if (!strcmp (op, "bra") || !strcmp (op, "brx"))
    return K_BRA;
  if (!strcmp (op, "ret") || !strcmp (op, "exit"))
    return K_RET;
  if ((!strcmp (op, "bar") || !strcmp (op, "barrier")) && ms_ptx_has_mod (i, "red"))
    return K_BARRED;
  if (!strcmp (op, "bar") || !strcmp (op, "barrier"))
    return ms_ptx_has_mod (i, "warp") ? K_SYNCWARP
           : (ms_ptx_has_mod (i, "sync") || ms_ptx_has_mod (i, "aligned") || i->mods[0] == NULL)
               && !ms_ptx_has_mod (i, "red") && !ms_ptx_has_mod (i, "arrive")
             ? K_BAR : K_BAD;
  if (!strcmp (op, "shfl"))
    return K_SHFL;
  if (!strcmp (op, "vote"))
    return K_VOTE;
  if (!strcmp (op, "activemask"))
    return K_ACTIVEMASK;
  if (!strcmp (op, "redux"))
    return K_REDUX;
  if (!strcmp (op, "call"))
    return K_CALL;
  if (is_async_copy (i))
    return K_MEM;
  if (!strcmp (op, "mbarrier") || !strcmp (op, "trap") || !strcmp (op, "match")
      || (!strcmp (op, "cp") && ms_ptx_has_mod (i, "async")))
    return K_DEVICE;
  if (!strcmp (op, "membar") || !strcmp (op, "fence") || !strcmp (op, "prefetch")
      || !strcmp (op, "prefetchu") || !strcmp (op, "nanosleep") || !strcmp (op, "pmevent")
      || !strcmp (op, "griddepcontrol"))
    return K_NOP;
  if (ms_ptx_texture_op (op))
    return K_TEX;
  return K_ALU;
}

/* Whether i is a memory instruction on global (or generic) addresses. */
static gboolean
global_memory (const MsPtxInsn *i)
{
  gboolean generic;
  return kind_of (i) == K_MEM && space_of (i, &generic) == MS_PTX_SPACE_GLOBAL;
}

/* Whether i waits for a value from memory beyond the SM: a global (or
 * generic) load, an atomic that returns its old value, or a texture
 * fetch. */
static gboolean
loads_from_memory (const MsPtxInsn *i)
{
  return kind_of (i) == K_TEX
         || (global_memory (i) && strcmp (i->op, "st") && strcmp (i->op, "red"));
}

/* Whether i writes global memory (a global or generic store or atomic):
 * ptxas keeps a later load that may read the same bytes below it. */
static gboolean
writes_global (const MsPtxInsn *i)
{
  return global_memory (i) && strcmp (i->op, "ld") && strcmp (i->op, "ldu");
}

/* Whether operand 0 of i is written (a result), not read. */
static gboolean
writes_first_operand (const MsPtxInsn *i)
{
  static const char *const none[] = { "st", "red", "bra", "brx", "bar", "barrier", "ret", "exit",
                                      "membar", "fence", "prefetch", "prefetchu", "trap",
                                      "nanosleep", "call", NULL };
  for (guint k = 0; none[k]; k++)
    if (!strcmp (i->op, none[k]))
      return FALSE;
  return TRUE;
}

static int target (Tr *t, const MsPtxInsn *i);

/* A value per register, valid in the straight-line region `gen` it was
 * set in (stamp): load_rounds' and dependent_cycles' bookkeeping. */
typedef struct {
  guint n_regs;
  guint *value, *stamp;
  guint gen;
} RegionRegs;

static void
region_regs_init (RegionRegs *r, guint n_regs)
{
  *r = (RegionRegs) { n_regs, g_new0 (guint, n_regs + 1), g_new0 (guint, n_regs + 1), 1 };
}

static void
region_regs_clear (RegionRegs *r)
{
  g_free (r->value);
  g_free (r->stamp);
}

/* The largest value of the registers i reads (its guard and sources) set
 * in this region; 0 if none. */
static guint
region_regs_in (const RegionRegs *r, const MsPtxInsn *i)
{
  int regs[16];
  guint nr = 0, v = 0;
  if (i->guard >= 0 && (guint) i->guard < r->n_regs && r->stamp[i->guard] == r->gen)
    v = r->value[i->guard];
  for (guint k = writes_first_operand (i) ? 1 : 0; k < i->n_opd; k++)
    operand_regs (&i->opd[k], regs, &nr);
  for (guint k = 0; k < nr; k++)
    if ((guint) regs[k] < r->n_regs && r->stamp[regs[k]] == r->gen)
      v = MAX (v, r->value[regs[k]]);
  return v;
}

/* Sets the registers i writes to v, in this region. */
static void
region_regs_out (RegionRegs *r, const MsPtxInsn *i, guint v)
{
  if (!writes_first_operand (i) || i->n_opd == 0)
    return;
  int regs[16];
  guint nr = 0;
  operand_regs (&i->opd[0], regs, &nr);
  for (guint k = 0; k < nr; k++)
    if ((guint) regs[k] < r->n_regs)
      {
        r->value[regs[k]] = v;
        r->stamp[regs[k]] = r->gen;
      }
}

/* Whether instruction idx starts a new straight-line region (a loop head
 * or a barrier); if so, the registers' values of the last one lapse. */
static gboolean
region_regs_starts (RegionRegs *r, const gboolean *loop_head, const MsPtxInsn *i, guint idx)
{
  if (!loop_head[idx] && (i->op == NULL || kind_of (i) != K_BAR))
    return FALSE;
  r->gen++;
  return TRUE;
}

/* Which instructions are loop heads: the targets of backward branches. */
static gboolean *
loop_heads (Tr *t)
{
  gboolean *loop_head = g_new0 (gboolean, t->n + 1);
  for (guint idx = 0; idx < t->n; idx++)
    if (t->ins[idx]->op != NULL && kind_of (t->ins[idx]) == K_BRA)
      {
        int to = target (t, t->ins[idx]);
        if (to >= 0 && (guint) to <= idx)
          loop_head[to] = TRUE;
      }
  return loop_head;
}

/* The rounds of global loads a warp waits for, at the instruction whose
 * block counts them (rounds[idx]).  A load's round is one more than the
 * latest round of the loads its operands and guard come from; ptxas issues
 * the independent loads of a round together (gemm_naive's unrolled body: 8
 * loads, one round), so a warp waits for memory once a round, not once a
 * load.  A global store of a loaded value is a floor: the warp waits there
 * for the value, and ptxas keeps the later loads below the store (they may
 * read what it writes), so they start a new round (copy's four rows, each
 * a load and its store: four rounds, as in its SASS), unless they are
 * read-only (ld.global.nc), which ptxas moves freely.
 * Rounds restart at each loop head (the target of a backward branch: a
 * value loaded in one iteration is taken as arrived in the next) and after
 * each barrier (no load moves above one).  A stretch's rounds count where
 * it starts, as if its loads all ran: a load that only some warps run (a
 * stencil's halo) still makes the others wait for the round it is in. */
static void
load_rounds (Tr *t, guint *rounds)
{
  RegionRegs depth;
  region_regs_init (&depth, t->f->regs->len);
  g_autofree gboolean *loop_head = loop_heads (t);
  guint region_max = 0, start = 0, floor = 0;
  for (guint idx = 0; idx < t->n; idx++)
    {
      const MsPtxInsn *i = t->ins[idx];
      if (region_regs_starts (&depth, loop_head, i, idx))
        {
          region_max = floor = 0;
          start = idx;
        }
      if (i->op == NULL || kind_of (i) == K_BAR)
        continue;
      guint d = region_regs_in (&depth, i);
      if (writes_global (i))
        floor = MAX (floor, d);
      if (loads_from_memory (i))
        {
          if (!ms_ptx_has_mod (i, "nc"))
            d = MAX (d, floor);
          d++;
          if (d > region_max)
            {
              rounds[start] += d - region_max;
              region_max = d;
            }
        }
      region_regs_out (&depth, i, d);
    }
  region_regs_clear (&depth);
}

/* A load ptxas does not issue: ptxas keeps the value of a non-volatile
 * load of shared or global memory in a register and reuses it for a later
 * load of the same address in the same straight-line region, and the value
 * of a store for a later load of the address it wrote, where NVVM could not
 * (the PTX loads again after an inline-asm block with a "memory" clobber,
 * such as CUB's shuffles, which ptxas does not read as one).  What ends
 * the reuse, as ptxas 13.0's SASS for sm_90 shows (tests/data/ptx/kernels.cu,
 * `reload`): a store, atomic or async copy to the same space (anywhere in
 * it; a generic one to both), a barrier, a fence, a call, the address
 * register written, and the region's end.  Read-only loads (ld.global.nc)
 * outlive stores.  Such a load runs lane by lane with no record
 * (reloaded[idx]); a guarded load or store is never reused. */
typedef struct {
  const MsPtxOperand *addr;
  char **mods;              /* space, type, vector: equal for a reuse */
  MsPtxSpace space;
  gboolean nc;
} Held;

static gboolean
same_mods (char **a, char **b)
{
  for (; *a != NULL && *b != NULL; a++, b++)
    if (strcmp (*a, *b))
      return FALSE;
  return *a == *b;
}

/* Whether i is an unguarded plain load or store of shared or global memory
 * named by its space (the space in *space); its address in *addr. */
static gboolean
holdable (const MsPtxInsn *i, MsPtxSpace *space, const MsPtxOperand **addr)
{
  gboolean generic;
  gboolean ld = !strcmp (i->op, "ld");
  if ((!ld && strcmp (i->op, "st")) || i->guard >= 0 || i->n_opd != 2 || kind_of (i) != K_MEM)
    return FALSE;
  *space = space_of (i, &generic);
  *addr = &i->opd[ld ? 1 : 0];
  return !generic && (*space == MS_PTX_SPACE_SHARED || *space == MS_PTX_SPACE_GLOBAL)
         && (*addr)->kind == MS_PTX_OPD_ADDR && !ms_ptx_has_mod (i, "volatile")
         && !ms_ptx_has_mod (i, "relaxed") && !ms_ptx_has_mod (i, "acquire")
         && !ms_ptx_has_mod (i, "release") && !ms_ptx_has_mod (i, "mmio");
}

static gboolean *
reloaded_loads (Tr *t)
{
  gboolean *reloaded = g_new0 (gboolean, t->n + 1);
  g_autoptr (GArray) held = g_array_new (FALSE, FALSE, sizeof (Held));
  for (guint idx = 0; idx < t->n; idx++)
    {
      const MsPtxInsn *i = t->ins[idx];
      if (idx > 0 && t->region[idx] != t->region[idx - 1])
        g_array_set_size (held, 0);
      if (i->op == NULL)
        continue;
      Kind k = kind_of (i);
      MsPtxSpace space;
      const MsPtxOperand *addr;
      gboolean hold = holdable (i, &space, &addr);
      if (hold && !strcmp (i->op, "ld"))
        {
          guint j = 0;
          for (; j < held->len; j++)
            {
              const Held *h = &g_array_index (held, Held, j);
              if (h->addr->reg == addr->reg && h->addr->imm == addr->imm
                  && g_strcmp0 (h->addr->sym, addr->sym) == 0 && same_mods (h->mods, i->mods))
                break;
            }
          reloaded[idx] = j < held->len;
          if (!reloaded[idx])
            g_array_append_val (held, ((Held) { addr, i->mods, space,
                                                ms_ptx_has_mod (i, "nc") }));
        }
      else if (k == K_MEM && strcmp (i->op, "ld") && strcmp (i->op, "ldu"))
        {
          /* a store, atomic or async copy: the values held of its space
           * lapse; a plain store's own is held */
          gboolean generic;
          MsPtxSpace s = space_of (i, &generic);
          generic |= is_async_copy (i);
          for (guint j = held->len; j-- > 0;)
            {
              const Held *h = &g_array_index (held, Held, j);
              if (generic || (h->space == s && !h->nc))
                g_array_remove_index_fast (held, j);
            }
          if (hold)
            g_array_append_val (held, ((Held) { addr, i->mods, space, FALSE }));
        }
      else if (k != K_ALU && k != K_DIRECT && k != K_SHFL && k != K_VOTE && k != K_ACTIVEMASK
               && k != K_REDUX && !(k == K_TEX && i->op[0] == 't'))
        g_array_set_size (held, 0);   /* barriers, fences, calls, ordered loads */
      if (!writes_first_operand (i) || i->n_opd == 0)
        continue;
      int regs[16];
      guint nr = 0;
      operand_regs (&i->opd[0], regs, &nr);
      for (guint j = held->len; j-- > 0;)
        for (guint r = 0; r < nr; r++)
          if (g_array_index (held, Held, j).addr->reg == regs[r])
            {
              g_array_remove_index_fast (held, j);
              break;
            }
    }
  return reloaded;
}

/* Whether one of i's type modifiers is a float type (f16, bf16, f32, f64,
 * ...) or an integer type (s8 ... u64, b32 ...). */
static gboolean
has_type (const MsPtxInsn *i, gboolean floating)
{
  for (char **m = i->mods; m && *m; m++)
    {
      const char *x = *m;
      gboolean f = (x[0] == 'f' || (x[0] == 'b' && x[1] == 'f')) && g_ascii_isdigit (x[strlen (x) - 1]);
      gboolean n = (x[0] == 's' || x[0] == 'u') && g_ascii_isdigit (x[1]);
      if (floating ? f : n)
        return TRUE;
    }
  return FALSE;
}

/* Whether operand d is the clock or the global timer (%clock, %clock_hi,
 * %clock64, %globaltimer and its halves). */
static gboolean
is_clock_register (const MsPtxOperand *d)
{
  return d->kind == MS_PTX_OPD_SPECIAL
         && (g_str_has_prefix (d->sym, "%clock") || g_str_has_prefix (d->sym, "%globaltimer"));
}

/* Whether instruction j keeps only the low 32 bits of the register it
 * reads: and with 0xffffffff, or a cvt to a 32-bit integer. */
static gboolean
keeps_low_word (const MsPtxInsn *j)
{
  if (!strcmp (j->op, "and"))
    return j->n_opd == 3 && j->opd[2].kind == MS_PTX_OPD_IMM && j->opd[2].imm == 0xffffffff;
  return !strcmp (j->op, "cvt") && j->mods && j->mods[0]
         && (!strcmp (j->mods[0], "u32") || !strcmp (j->mods[0], "s32"));
}

/* Whether every use of register r (through at most one add or sub) keeps
 * only its low 32 bits. */
static gboolean
only_low_word_used (const Tr *t, int r, gboolean through_arithmetic)
{
  for (guint k = 0; k < t->n; k++)
    {
      const MsPtxInsn *j = t->ins[k];
      if (j->op == NULL)
        continue;
      for (guint o = 1; o < j->n_opd; o++)
        {
          if (j->opd[o].kind != MS_PTX_OPD_REG || j->opd[o].reg != r)
            continue;
          if (keeps_low_word (j))
            break;
          if (!through_arithmetic || (strcmp (j->op, "sub") && strcmp (j->op, "add"))
              || j->opd[0].kind != MS_PTX_OPD_REG
              || !only_low_word_used (t, j->opd[0].reg, FALSE))
            return FALSE;
        }
    }
  return TRUE;
}

/* The cycles a read of the clock or the global timer takes to its first
 * use, such that through the time model's dependence_scale a lone warp's
 * spin on it turns as often as on the H200 (gpu/probes/clock-spin.cu,
 * gpu/measurements/h200-2026-12-01-clock-spin.txt).  ptxas reads a 32-bit
 * clock (%clock, or clock()'s %clock64 of which only the low word is
 * used) with S2UR, 68 cycles an iteration of the spin: 24; the whole
 * %clock64 and %globaltimer with CS2R, 39 cycles: 12. */
static guint
clock_read_cycles (const Tr *t, guint idx)
{
  const MsPtxInsn *i = t->ins[idx];
  const char *sym = i->opd[1].sym;
  gboolean word = !strcmp (sym, "%clock") || !strcmp (sym, "%clock_hi")
                  || (!strcmp (sym, "%clock64") && i->opd[0].kind == MS_PTX_OPD_REG
                      && only_low_word_used (t, i->opd[0].reg, TRUE));
  return word ? 24 : 12;
}

/* How many cycles after i issues an instruction that reads its result
 * can go, as measured on the H200 (gpu/probes/dependent.cu, latency.cu;
 * gpu/measurements/h200-2026-11-29-dependent.txt): integer and float
 * arithmetic 4, double 8, the special-function unit's approximations 23,
 * IEEE division and square root 58 and 56 (a subroutine of dependent
 * steps), conversions between integers and floats 12, a shared-memory load
 * 29, a shuffle 26.  Integer division and remainder and double division
 * are taken as the float division (not measured).  Loads from memory
 * beyond the SM wait in load rounds instead (0 here); a mov is renamed
 * away by ptxas, except a read of the clock or the global timer
 * (clock_read_cycles). */
static guint
result_cycles (const Tr *t, guint idx)
{
  const MsPtxInsn *i = t->ins[idx];
  const char *op = i->op;
  Kind k = kind_of (i);
  if (!strcmp (op, "mov") && i->n_opd >= 2 && is_clock_register (&i->opd[1]))
    return clock_read_cycles (t, idx);
  if (loads_from_memory (i) || k == K_BRA || k == K_RET || k == K_BAR || k == K_NOP
      || !strcmp (op, "mov"))
    return 0;
  if (k == K_MEM)
    {
      gboolean generic;
      MsPtxSpace s = space_of (i, &generic);
      return (s == MS_PTX_SPACE_SHARED || s == MS_PTX_SPACE_LOCAL) && strcmp (op, "st") ? 29 : 0;
    }
  if (k == K_SHFL || k == K_REDUX)
    return 26;
  gboolean approx = ms_ptx_has_mod (i, "approx");
  if (!strcmp (op, "div") || !strcmp (op, "rem"))
    return approx ? 23 : 58;
  if (!strcmp (op, "sqrt") || !strcmp (op, "rcp"))
    return approx ? 23 : 56;
  if (!strcmp (op, "sin") || !strcmp (op, "cos") || !strcmp (op, "ex2") || !strcmp (op, "lg2")
      || !strcmp (op, "rsqrt") || !strcmp (op, "tanh"))
    return 23;
  if (!strcmp (op, "cvt") && has_type (i, TRUE) && has_type (i, FALSE))
    return 12;
  return ms_ptx_has_mod (i, "f64") ? 8 : 4;
}

/* The cycles a warp's path through each block takes for its instructions'
 * dependences, at the instruction whose result lengthens it (cycles[idx]):
 * an instruction starts when the results it reads (and its guard) are
 * ready, its result is ready result_cycles later, and a warp issues one
 * instruction a cycle, so a straight-line region takes the longer of its
 * longest dependence path and its instruction count.  Regions restart at
 * loop heads and barriers, as load_rounds' do (the barrier's own wait is
 * the time model's); an instruction only some warps run (an if's body)
 * lengthens the path only where it runs. */
static void
dependent_cycles (Tr *t, guint *cycles)
{
  RegionRegs ready;
  region_regs_init (&ready, t->f->regs->len);
  g_autofree gboolean *loop_head = loop_heads (t);
  guint path = 0, issued = 0, cost = 0;
  for (guint idx = 0; idx < t->n; idx++)
    {
      const MsPtxInsn *i = t->ins[idx];
      if (region_regs_starts (&ready, loop_head, i, idx))
        path = issued = cost = 0;
      if (i->op == NULL || kind_of (i) == K_BAR)
        continue;
      guint done = region_regs_in (&ready, i) + result_cycles (t, idx);
      path = MAX (path, done);
      issued++;
      guint now = MAX (path, issued);
      cycles[idx] += now - cost;
      cost = now;
      region_regs_out (&ready, i, done);
    }
  region_regs_clear (&ready);
}

/* The operands an instruction reads by position (ld/st/atom/red, mov,
 * setp, bra; the others' are checked where they are read). */
static guint
min_operands (const MsPtxInsn *i)
{
  const char *op = i->op;
  if (!strcmp (op, "ld") || !strcmp (op, "ldu") || !strcmp (op, "st") || !strcmp (op, "atom")
      || !strcmp (op, "red") || !strcmp (op, "mov"))
    return 2;
  if (!strcmp (op, "setp"))
    return 3;
  if (!strcmp (op, "bra"))
    return 1;
  return 0;
}

static gboolean
is_stop (Kind k)
{
  return k == K_MEM || k == K_BAR || k == K_BARRED || k == K_SHFL || k == K_VOTE || k == K_ACTIVEMASK
         || k == K_SYNCWARP;
}

static void
flush (Tr *t)
{
  if (t->body->len == 0)
    return;
  g_string_append (t->o, "      MS_WARP_LANES (m, L, {\n");
  g_string_append (t->o, t->body->str);
  g_string_append (t->o, "      });\n");
  g_string_truncate (t->body, 0);
  g_string_append (t->o, t->after_lanes->str);
  g_string_truncate (t->after_lanes, 0);
}

/* A stop's completion block (B(n + 1 + idx), written to `after`): what
 * the lanes do with the stop's results, put in t->body between
 * completion_begin and completion_end, then on to instruction idx + 1. */
static guint
completion_begin (Tr *t, guint idx, GString *after, GString **saved)
{
  guint comp = t->n + 1 + idx;
  t->completions[idx] = 1;
  g_string_append_printf (after, "    B%u:\n", comp);
  *saved = t->body;
  t->body = g_string_new (NULL);
  return comp;
}

static void
completion_end (Tr *t, guint idx, GString *after, GString *saved)
{
  GString *o = t->o;
  t->o = after;
  flush (t);
  t->o = o;
  g_string_free (t->body, TRUE);
  t->body = saved;
  g_string_append_printf (after, "      goto B%u;\n", idx + 1);
}

/* The lanes' statements so far, then the kernel's failure at this point
 * (its message: the unsupported instruction's, the last one met). */
static void
emit_fail (Tr *t)
{
  flush (t);
  g_string_append (t->o, "      ms_ptx_fail (");
  c_string (t->o, t->last_fail->str);
  g_string_append (t->o, ");\n");
}

/* The guard of i around a lane statement. */
static void
guard_open (Tr *t, const MsPtxInsn *i)
{
  if (i->guard >= 0)
    {
      g_string_append_printf (t->body, "if (%sR%d[L]) {\n", i->guard_neg ? "!" : "", i->guard);
    }
}

static void
guard_close (Tr *t, const MsPtxInsn *i)
{
  if (i->guard >= 0)
    g_string_append (t->body, "}\n");
}

/* Adds instruction i's own line, if it is inlined code, to site sn's
 * (MsSite.inner), once. */
static void
site_add_inner (Tr *t, guint sn, const MsPtxInsn *i)
{
  const char *file = i->file > 0 && (guint) i->file < t->m->files->len
                       ? g_ptr_array_index (t->m->files, i->file) : NULL;
  g_autofree char *base = file && i->inner_line > 0 ? file_base (t->m, i->inner_file) : NULL;
  if (base == NULL)
    return;
  g_autofree char *key = g_strdup_printf ("%s:%d", base, i->inner_line);
  GString *list = g_ptr_array_index (t->site_inners, sn);
  if (list == NULL)
    {
      g_ptr_array_index (t->site_inners, sn) = g_string_new (key);
      return;
    }
  g_auto (GStrv) have = g_strsplit (list->str, "\t", -1);
  if (!g_strv_contains ((const char *const *) have, key))
    g_string_append_printf (list, "\t%s", key);
}

/* A site of instruction i; reduction: a global atomic whose records are
 * RED (MsSite.reduction). */
static guint
site_of (Tr *t, const MsPtxInsn *i, guint idx, gboolean reduction)
{
  const char *file = i->file > 0 && (guint) i->file < t->m->files->len
                       ? g_ptr_array_index (t->m->files, i->file) : NULL;
  GString *head = g_string_new (NULL);
  g_string_append_printf (head, "static MsSite ms_site_%u_%u_%u = { ", t->mod, t->fn, t->n_sites);
  c_string (head, file ? file : t->m->path);
  int ordered = ms_ptx_has_mod (i, "acquire") || ms_ptx_has_mod (i, "acq_rel")
                  ? MS_SITE_ACQUIRE
                  : ms_ptx_has_mod (i, "release") || ms_ptx_has_mod (i, "relaxed");
  g_string_append_printf (head, ", %d, %u, -1, %d, 1, %d, %d", file ? i->line : i->ptx_line, idx,
                          ordered, reduction, is_async_copy (i));
  g_ptr_array_add (t->site_heads, g_string_free (head, FALSE));
  g_ptr_array_add (t->site_inners, NULL);
  site_add_inner (t, t->n_sites, i);
  return t->n_sites++;
}

static guint
site (Tr *t, const MsPtxInsn *i, guint idx)
{
  return site_of (t, i, idx, FALSE);
}

/* The site of a memory instruction: one per source access, as the source
 * level has it, so that the accesses of one unrolled loop (As[ty][k],
 * As[ty][k + 1] ... on one base register) are one site, which the
 * regrouping fuses as ptxas did (sim/stream/regroup.h) and the report
 * lists once.  The key: the straight-line region (lanes cannot wait at two
 * instructions of one region at once), the line, the instruction without
 * its operands, the width and the address's base. */
static guint
access_site (Tr *t, const MsPtxInsn *i, guint idx, guint size, guint addr_opd, gboolean reduction)
{
  const MsPtxOperand *a = &i->opd[addr_opd];
  g_autoptr (GString) key = g_string_new (NULL);
  g_string_append_printf (key, "%u %d %d %s %u %d %s %d", t->region[idx], i->file, i->line, i->op,
                          size, a->reg, a->sym ? a->sym : "", reduction);
  for (char **m = i->mods; m && *m; m++)
    g_string_append_printf (key, ".%s", *m);
  gpointer v = g_hash_table_lookup (t->access_sites, key->str);
  if (v != NULL)
    {
      site_add_inner (t, GPOINTER_TO_UINT (v) - 1, i);
      return GPOINTER_TO_UINT (v) - 1;
    }
  guint sn = site_of (t, i, idx, reduction);
  g_hash_table_insert (t->access_sites, g_string_free (g_steal_pointer (&key), FALSE),
                       GUINT_TO_POINTER (sn + 1));
  return sn;
}

/* The address of memory operand k of i for lane L, as a host pointer. */
static char *
host_addr (Tr *t, const MsPtxInsn *i, guint k, MsPtxSpace s, gboolean generic)
{
  const MsPtxOperand *o = &i->opd[k];
  if (o->kind != MS_PTX_OPD_ADDR)
    {
      unsupported (t, i, "its address is not [...]");
      return g_strdup ("0");
    }
  g_autofree char *base = NULL;
  if (o->reg >= 0)
    {
      base = g_strdup_printf ("(uint64_t) R%d[L]", o->reg);
    }
  else if (o->sym)
    base = sym_addr (t, i, o->sym, 0);
  else
    base = g_strdup ("(uint64_t) 0");
  g_autofree char *a = g_strdup_printf ("(%s + (uint64_t) (%" G_GINT64_FORMAT "))", base, o->imm);
  if (generic || s == MS_PTX_SPACE_GLOBAL || s == MS_PTX_SPACE_CONST || s == MS_PTX_SPACE_PARAM)
    return g_strdup_printf ("((uint8_t *) (uintptr_t) %s)", a);
  if (s == MS_PTX_SPACE_SHARED)
    return g_strdup_printf ("(ms_shb + (uint32_t) %s)", a);
  /* local: the lane's own */
  return g_strdup_printf ("(ms_loc + L * %u + (uint32_t) %s)", MAX (t->local_bytes, 1), a);
}

static int
atomic_code (const MsPtxInsn *i)
{
  static const struct { const char *n; int c; } ops[] = {
    { "add", MS_ATOMIC_ADD }, { "min", MS_ATOMIC_MIN }, { "max", MS_ATOMIC_MAX },
    { "exch", MS_ATOMIC_EXCH }, { "cas", MS_ATOMIC_CAS }, { "and", MS_ATOMIC_AND },
    { "or", MS_ATOMIC_OR }, { "xor", MS_ATOMIC_XOR }, { "inc", MS_ATOMIC_INC },
    { "dec", MS_ATOMIC_DEC },
  };
  for (char **p = i->mods; p && *p; p++)
    for (gsize k = 0; k < G_N_ELEMENTS (ops); k++)
      if (strcmp (*p, ops[k].n) == 0)
        return ops[k].c;
  return -1;
}

static int
vec_count (const MsPtxInsn *i)
{
  if (ms_ptx_has_mod (i, "v2")) return 2;
  if (ms_ptx_has_mod (i, "v4")) return 4;
  if (ms_ptx_has_mod (i, "v8")) return 8;
  return 1;
}

/* A load of a register (or vector of them) from a host address in one
 * lane statement: parameters, constants, local memory. */
static void
direct_access (Tr *t, const MsPtxInsn *i)
{
  gboolean generic;
  MsPtxSpace s = space_of (i, &generic);
  Ty y = ty_of (i, 0);
  int n = vec_count (i);
  gboolean st = !strcmp (i->op, "st");
  if (strcmp (i->op, "ld") && strcmp (i->op, "ldu") && !st)
    {
      unsupported (t, i, "an atomic on this memory space");
      return;
    }
  guint ek = y.bits / 8;
  guint vk = st ? 1 : 0;
  g_autofree char *addr = host_addr (t, i, st ? 0 : 1, s, generic);
  guard_open (t, i);
  g_string_append_printf (t->body, "{ uint8_t *a_ = %s;\n", addr);
  for (int e = 0; e < n; e++)
    {
      const MsPtxOperand *o = &i->opd[vk];
      int reg = n > 1 ? (o->kind == MS_PTX_OPD_VEC ? o->vec[e] : -1) : -2;
      if (st)
        {
          g_autofree char *val = NULL;
          if (reg == -2)
            val = rd (t, i, 1, (Ty) { y.kind == 'f' ? 'f' : 'u', y.bits });
          else if (reg >= 0)
            {
              val = g_strdup_printf ("((%s) R%d[L])", utype (y.bits), reg);
            }
          if (val == NULL)
            continue;
          if (y.kind == 'f' && reg == -2)
            g_string_append_printf (t->body, "{ %s v_ = %s; memcpy (a_ + %u, &v_, %u); }\n",
                                    ctype (y), val, e * ek, ek);
          else
            g_string_append_printf (t->body, "{ %s v_ = (%s) %s; memcpy (a_ + %u, &v_, %u); }\n",
                                    utype (y.bits), utype (y.bits), val, e * ek, ek);
        }
      else
        {
          g_autofree char *v = g_strdup_printf ("({ %s v_; memcpy (&v_, a_ + %u, %u); v_; })",
                                                y.kind == 'f' ? ctype (y) : ctype (y), e * ek, ek);
          if (reg == -2)
            wr (t, i, 0, y, v);
          else if (reg >= 0)
            wr_reg (t, reg, y, v);
        }
    }
  g_string_append (t->body, "}\n");
  guard_close (t, i);
}

/* The label's instruction index, or -1. */
static int
target (Tr *t, const MsPtxInsn *i)
{
  if (i->n_opd < 1 || i->opd[0].kind != MS_PTX_OPD_SYM)
    return -1;
  gpointer v = g_hash_table_lookup (t->labels, i->opd[0].sym);
  return v ? GPOINTER_TO_INT (v) - 1 : -1;
}

/* The guard's lanes of m into `g` (emitting the pending lane statements
 * in the same loop); TRUE if there is a guard. */
static gboolean
guard_mask (Tr *t, const MsPtxInsn *i, const char *g)
{
  if (i->guard < 0)
    {
      flush (t);
      return FALSE;
    }
  g_string_append_printf (t->o, "      uint32_t %s = 0;\n", g);
  g_string_append_printf (t->o, "      MS_WARP_BRANCH (m, L, %s, %sR%d[L], {\n%s});\n", g,
                          i->guard_neg ? "!" : "", i->guard, t->body->str);
  g_string_truncate (t->body, 0);
  return TRUE;
}

/* A stop's lanes: m, or the guard's (the others go on at `next`). */
static void
stop_lanes (Tr *t, const MsPtxInsn *i, guint next)
{
  if (guard_mask (t, i, "g_"))
    g_string_append_printf (t->o,
                            "      if (g_ != m)\n"
                            "        {\n"
                            "          if (g_ == 0)\n"
                            "            goto B%u;\n"
                            "          ms_warp_sched_ready (&S, %u, m & ~g_);\n"
                            "          m = g_;\n"
                            "        }\n",
                            next, next);
}

/* Whether register r is read anywhere in the function (an atomic whose
 * result nothing reads is a reduction, RED, as ptxas makes it). */
static gboolean
reg_read (const Tr *t, int r)
{
  for (guint k = 0; k < t->n; k++)
    {
      const MsPtxInsn *i = t->ins[k];
      if (i->guard == r)
        return TRUE;
      for (guint j = 0; j < i->n_opd; j++)
        {
          const MsPtxOperand *o = &i->opd[j];
          gboolean dst = j == 0 && strcmp (i->op, "st") && strcmp (i->op, "red")
                         && strcmp (i->op, "bra") && strcmp (i->op, "call");
          if (o->kind == MS_PTX_OPD_ADDR && o->reg == r)
            return TRUE;
          for (int e = 0; o->kind == MS_PTX_OPD_ADDR && e < o->n_vec; e++)
            if (o->vec[e] == r)   /* a texture's or surface's coordinate */
              return TRUE;
          if (dst)
            continue;
          if (o->kind == MS_PTX_OPD_REG && (o->reg == r || o->reg2 == r))
            return TRUE;
          if (o->kind == MS_PTX_OPD_VEC)
            for (int e = 0; e < o->n_vec; e++)
              if (o->vec[e] == r)
                return TRUE;
        }
    }
  return FALSE;
}

/* Whether atomic i is a reduction: a `red`, or an `atom` whose result
 * nothing reads and whose operation has a RED form (not exch, not cas:
 * ptxas keeps those ATOM).  ptxas makes it a RED instruction (Nsight's
 * op_red), and memsim counts its global records so (MsSite.reduction): one
 * answer per instruction, which ptxas's line marks cannot give (they may
 * put an inlined atomic on its caller's line, or two atomics on one
 * line). */
static gboolean
reduction (const Tr *t, const MsPtxInsn *i)
{
  if (!strcmp (i->op, "red"))
    return TRUE;
  int op = atomic_code (i);
  if (op == MS_ATOMIC_EXCH || op == MS_ATOMIC_CAS)
    return FALSE;
  return i->opd[0].kind != MS_PTX_OPD_REG || !reg_read (t, i->opd[0].reg);
}

/* Whether atomic i (operation op) is a reduction ptxas may aggregate over
 * a warp: its result unused, an operation whose lanes combine into one
 * (add, min, max, and, or, xor), on a global address. */
static gboolean
aggregable (const Tr *t, const MsPtxInsn *i, int op)
{
  gboolean generic;
  guint hk, hv;
  if (space_of (i, &generic) != MS_PTX_SPACE_GLOBAL || packed_half (i, &hk, &hv)
      || ms_ptx_has_mod (i, "f16"))
    return FALSE;
  return reduction (t, i) && (op == MS_ATOMIC_ADD || op == MS_ATOMIC_MIN || op == MS_ATOMIC_MAX
                 || op == MS_ATOMIC_AND || op == MS_ATOMIC_OR || op == MS_ATOMIC_XOR);
}

/* Whether atomic i (operation op) is a fetch-and-add ptxas may aggregate
 * over a warp: its result used, an integer add on a global address. */
static gboolean
fetch_aggregable (const Tr *t, const MsPtxInsn *i, int op)
{
  gboolean generic;
  Ty y = ty_of (i, 0);
  return space_of (i, &generic) == MS_PTX_SPACE_GLOBAL && !strcmp (i->op, "atom")
         && !reduction (t, i) && op == MS_ATOMIC_ADD && y.kind != 'f'
         && (y.bits == 32 || y.bits == 64);
}

/* The flag of site sn's aggregation (set by the loader from the SASS),
 * declared once. */
static void
agg_flag (Tr *t, guint sn)
{
  if (g_hash_table_add (t->agg_sites, GUINT_TO_POINTER (sn + 1)))
    {
      g_string_append_printf (t->agg_flags, "int ms_ptx_agg_%u_%u_%u;\n", t->mod, t->fn, sn);
      g_string_append_printf (t->aggs, "{ &ms_site_%u_%u_%u, &ms_ptx_agg_%u_%u_%u }, ", t->mod,
                              t->fn, sn, t->mod, t->fn, sn);
    }
}

/* cp.async.ca|cg.shared.global [dst], [src], cp-size{, src-size |
 * ignore-src}: LDGSTS, one stop, a global load record of cp-size bytes a
 * lane at src (its site MsSite.async_copy), then each lane's copy into
 * shared memory (ms_ptx_cp_async: made when issued, which gives a correct
 * program its results; commit and wait are then nothing).  A lane that
 * reads nothing (src-size 0, ignore-src set) only fills its zeros: no lane
 * of the record, as its address need not be valid. */
static void
async_copy_stop (Tr *t, const MsPtxInsn *i, guint idx, GString *after)
{
  if (i->n_opd < 3 || i->opd[2].kind != MS_PTX_OPD_IMM
      || (i->opd[2].imm != 4 && i->opd[2].imm != 8 && i->opd[2].imm != 16))
    {
      unsupported (t, i, "an asynchronous copy memsim does not run (cp-size is 4, 8 or 16)");
      return;
    }
  guint size = (guint) i->opd[2].imm;
  g_autofree char *d = host_addr (t, i, 0, MS_PTX_SPACE_SHARED, FALSE);
  g_autofree char *src = host_addr (t, i, 1, MS_PTX_SPACE_GLOBAL, FALSE);
  g_autofree char *n = NULL;
  if (i->n_opd > 3 && i->opd[3].kind == MS_PTX_OPD_REG
      && g_array_index (t->f->regs, MsPtxReg, i->opd[3].reg).cls == MS_PTX_PRED)
    {
      g_autofree char *p = rd (t, i, 3, (Ty) { 'p', 1 });
      n = g_strdup_printf ("(%s ? 0u : %uu)", p, size);
    }
  else if (i->n_opd > 3 && (i->opd[3].kind == MS_PTX_OPD_REG
                            || i->opd[3].kind == MS_PTX_OPD_IMM))
    n = rd (t, i, 3, (Ty) { 'u', 32 });
  else
    n = g_strdup_printf ("%uu", size);
  g_autofree char *on = i->guard >= 0 ? g_strdup_printf ("%sR%d[L]", i->guard_neg ? "!" : "",
                                                         i->guard)
                                      : g_strdup ("1");
  g_string_append_printf (t->body,
                          "ms_warp.addr[L] = (volatile uint8_t *) %s;\n"
                          "if (%s && (%s) == 0u)\n"
                          "  { ms_ptx_cp_async (%s, NULL, %u, 0); fill_ = 1; }\n",
                          src, on, n, d, size);
  guint next = idx + 1;
  g_string_append_printf (t->o,
                          "      {\n"
                          "      uint32_t cg_ = 0;\n"
                          "      int fill_ = 0;\n"
                          "      MS_WARP_BRANCH (m, L, cg_, %s && (%s) != 0u, {\n%s});\n"
                          "      if (cg_ != m)\n"
                          "        {\n"
                          "          if (cg_ == 0)\n"
                          "            {\n"
                          "              if (fill_)\n"
                          "                ms_ptx_async_fill ();\n"
                          "              goto B%u;\n"
                          "            }\n"
                          "          ms_warp_sched_ready (&S, %u, m & ~cg_);\n"
                          "          m = cg_;\n"
                          "        }\n"
                          "      }\n",
                          on, n, t->body->str, next, next);
  g_string_truncate (t->body, 0);
  guint sn = access_site (t, i, idx, size, 1, FALSE);
  GString *save;
  guint comp = completion_begin (t, idx, after, &save);
  g_string_append_printf (t->o,
                          "      if (ms_warp_sched_access (&S, &ms_site_%u_%u_%u, MS_K_LD, %u, m, %u))\n"
                          "        goto B%u;\n"
                          "      continue;\n",
                          t->mod, t->fn, sn, size, comp, comp);
  g_string_append_printf (t->body,
                          "ms_ptx_cp_async (%s, (const uint8_t *) ms_warp.addr[L], %u, %s);\n",
                          d, size, n);
  completion_end (t, idx, after, save);
}

/* A global or shared load, store or atomic: one stop. */
static void
memory_stop (Tr *t, const MsPtxInsn *i, guint idx, GString *after)
{
  if (is_async_copy (i))
    {
      async_copy_stop (t, i, idx, after);
      return;
    }
  gboolean generic;
  MsPtxSpace s = space_of (i, &generic);
  gboolean ld = !strcmp (i->op, "ld") || !strcmp (i->op, "ldu");
  gboolean st = !strcmp (i->op, "st");
  gboolean atomic = !ld && !st;
  Ty y = ty_of (i, 0);
  int n = vec_count (i);
  guint ek = y.bits / 8, size = ek * (guint) n;
  if (size == 0 || size > 16 || (size & (size - 1)) != 0)
    {
      unsupported (t, i, "an access of this size");
      return;
    }
  if (ld && s == MS_PTX_SPACE_GLOBAL
      && (ms_ptx_has_mod (i, "volatile")
          || ((ms_ptx_has_mod (i, "relaxed") || ms_ptx_has_mod (i, "acquire"))
              && (ms_ptx_has_mod (i, "gpu") || ms_ptx_has_mod (i, "sys")))))
    {
      /* a strong load of global memory may poll what another block writes
       * (a grid barrier's spin): in a cooperative launch the block steps
       * aside first, so that the others can write it */
      flush (t);
      g_string_append (t->o, "      ms_ptx_poll ();\n");
      t->polls_blocks = TRUE;
    }
  else if (ld && (ms_ptx_has_mod (i, "relaxed") || ms_ptx_has_mod (i, "acquire")))
    {
      /* a load with a memory order from the block's memory may poll what
       * another warp writes (a tile barrier's spin): the warp steps aside
       * when it polls there again, so that the others can write it */
      flush (t);
      g_string_append_printf (t->o, "      ms_ptx_warp_poll (&ms_site_%u_%u_%u);\n", t->mod, t->fn,
                              access_site (t, i, idx, size, 1, FALSE));
    }
  guint ai = st || !strcmp (i->op, "red") ? 0 : 1;
  g_autofree char *addr = host_addr (t, i, ai, s, generic);
  g_string_append_printf (t->body, "ms_warp.addr[L] = (volatile uint8_t *) %s;\n", addr);
  int op = -1;
  if (st)
    {
      const MsPtxOperand *o = &i->opd[1];
      for (int e = 0; e < n; e++)
        {
          g_autofree char *val = NULL;
          if (n == 1)
            val = rd (t, i, 1, (Ty) { y.kind == 'f' ? 'f' : 'u', y.bits });
          else if (o->kind == MS_PTX_OPD_VEC && o->vec[e] >= 0)
            {
              val = g_strdup_printf ("((%s) R%d[L])", utype (y.bits), o->vec[e]);
            }
          else if (o->kind == MS_PTX_OPD_VEC)
            continue;
          else
            {
              unsupported (t, i, "a vector store without a vector");
              return;
            }
          if (y.kind == 'f' && n == 1)
            g_string_append_printf (t->body,
                                    "{ %s v_ = %s; memcpy ((uint8_t *) ms_warp.val[L] + %u, &v_, %u); }\n",
                                    ctype (y), val, e * ek, ek);
          else
            g_string_append_printf (t->body,
                                    "{ %s v_ = (%s) %s; memcpy ((uint8_t *) ms_warp.val[L] + %u, &v_, %u); }\n",
                                    utype (y.bits), utype (y.bits), val, e * ek, ek);
        }
    }
  else if (atomic)
    {
      op = atomic_code (i);
      if (op < 0 || n != 1)
        {
          unsupported (t, i, "an atomic operation memsim does not know");
          return;
        }
      guint vi = ai + 1;
      int num = y.kind == 'f' ? (y.bits == 64 ? MS_NUM_DOUBLE : MS_NUM_FLOAT)
                : y.kind == 's' ? MS_NUM_INT : MS_NUM_UINT;
      guint hk, hv;
      if (packed_half (i, &hk, &hv) || (y.kind == 'f' && y.bits == 16))
        {
          /* f16, f16x2, bf16, bf16x2: the bits move as they are, the
           * emulator adds (or takes the min, max) half by half */
          num = y.kind == 'f' || hk == 1 ? MS_NUM_HALF : MS_NUM_BF16;
          y = (Ty) { 'u', y.bits };
        }
      Ty vy = { y.kind == 'b' ? 'u' : y.kind, y.bits };
      g_autofree char *val = rd (t, i, op == MS_ATOMIC_CAS ? vi + 1 : vi, vy);
      g_string_append_printf (t->body,
                              "{ %s v_ = %s; memcpy (ms_warp.val[L], &v_, %u); }\n"
                              "ms_warp.lanes[L].sub = %d; ms_warp.lanes[L].num = %d;\n",
                              ctype (vy), val, ek, op, num);
      if (op == MS_ATOMIC_CAS)
        {
          g_autofree char *cmpv = rd (t, i, vi, vy);
          g_string_append_printf (t->body,
                                  "{ %s c_ = %s; memcpy (ms_warp.lanes[L].cmp, &c_, %u); }\n",
                                  ctype (vy), cmpv, ek);
        }
    }
  guint next = idx + 1;
  stop_lanes (t, i, next);
  guint sn = access_site (t, i, idx, size, ai, atomic && reduction (t, i));
  if (atomic && aggregable (t, i, op))
    {
      /* ptxas aggregates a reduction on an address it proves uniform: one
       * lane performs it with the warp's combined value (REDUX, then @P
       * RED: the loader sets the flag from the SASS), at once, and the
       * group goes on whole */
      g_string_append_printf (t->o,
                              "      if (ms_ptx_agg_%u_%u_%u && ms_ptx_aggregate (m, %d, %d, %u))\n"
                              "        {\n"
                              "          ms_warp_access (&ms_site_%u_%u_%u, m & -m, %u, MS_K_ATOMIC, 0);\n"
                              "          goto B%u;\n"
                              "        }\n",
                              t->mod, t->fn, sn, op, y.kind == 'f' ? (y.bits == 64 ? MS_NUM_DOUBLE : MS_NUM_FLOAT)
                                                            : y.kind == 's' ? MS_NUM_INT : MS_NUM_UINT,
                              ek, t->mod, t->fn, sn, size, next);
      agg_flag (t, sn);
    }
  const char *kind = ld ? "MS_K_LD" : st ? "MS_K_ST" : "MS_K_ATOMIC";
  if (ld || atomic)
    {
      /* the completion block: the loaded values or the atomic's results */
      GString *save;
      guint comp = completion_begin (t, idx, after, &save);
      if (atomic && fetch_aggregable (t, i, op))
        {
          /* ptxas aggregates a counter's atomicAdd whose result is used
           * (@P ATOM after a VOTE, the loader sets the flag from the
           * SASS): one lane adds the warp's total, the others' results
           * follow from the old value */
          g_string_append_printf (t->o,
                                  "      if (ms_ptx_agg_%u_%u_%u && ms_ptx_aggregate_fetch (m, %d, %u))\n"
                                  "        {\n"
                                  "          ms_warp_access (&ms_site_%u_%u_%u, m & -m, %u, MS_K_ATOMIC, 0);\n"
                                  "          ms_ptx_aggregate_results (m, %u);\n"
                                  "          goto B%u;\n"
                                  "        }\n",
                                  t->mod, t->fn, sn,
                                  y.kind == 's' ? MS_NUM_INT : MS_NUM_UINT, ek, t->mod, t->fn, sn,
                                  size, ek, comp);
          agg_flag (t, sn);
        }
      g_string_append_printf (t->o,
                              "      if (ms_warp_sched_access (&S, &ms_site_%u_%u_%u, %s, %u, m, %u))\n"
                              "        goto B%u;\n"
                              "      continue;\n",
                              t->mod, t->fn, sn, kind, size, comp, comp);
      if (ld)
        {
          const MsPtxOperand *o = &i->opd[0];
          /* a whole warp's row of consecutive values into a register of
           * their width: one copy; one value for the whole warp: one read,
           * filled (the emulator found the pattern: warp.h, MS_WARP_ROW) */
          if (n == 1 && o->kind == MS_PTX_OPD_REG && o->reg >= 0 && (y.bits == 32 || y.bits == 64)
              && ek * 8 == y.bits
              && reg_bits (&g_array_index (t->f->regs, MsPtxReg, o->reg)) == y.bits
              && g_array_index (t->f->regs, MsPtxReg, o->reg).cls != MS_PTX_PRED)
            g_string_append_printf (after,
                                    "      if (m == 0xffffffffu && ms_warp.load_pattern == MS_WARP_ROW)\n"
                                    "        {\n"
                                    "          ms_warp_copy_row (R%d, ms_warp.addr[0], 32 * sizeof R%d[0]);\n"
                                    "          goto B%u;\n"
                                    "        }\n"
                                    "      if (m == 0xffffffffu && ms_warp.load_pattern == MS_WARP_BROADCAST)\n"
                                    "        {\n"
                                    "          ms_warp_fill_lanes (R%d, ms_warp.addr[0], sizeof R%d[0]);\n"
                                    "          goto B%u;\n"
                                    "        }\n",
                                    o->reg, o->reg, idx + 1, o->reg, o->reg, idx + 1);
          g_string_append_printf (t->body, "{ const uint8_t *a_ = (const uint8_t *) ms_warp.addr[L];\n");
          for (int e = 0; e < n; e++)
            {
              int reg = n == 1 ? (o->kind == MS_PTX_OPD_REG ? o->reg : -1)
                               : (o->kind == MS_PTX_OPD_VEC ? o->vec[e] : -1);
              if (reg < 0)
                continue;
              g_autofree char *v = g_strdup_printf ("({ %s v_; memcpy (&v_, a_ + %u, %u); v_; })",
                                                    ctype (y), e * ek, ek);
              wr_reg (t, reg, y, v);
            }
          g_string_append (t->body, "}\n");
        }
      else if (i->opd[0].kind == MS_PTX_OPD_REG && !strcmp (i->op, "atom"))
        {
          Ty vy = { y.kind == 'b' ? 'u' : y.kind, y.bits };
          g_autofree char *v = g_strdup_printf ("({ %s v_; memcpy (&v_, ms_warp.lanes[L].res, %u); v_; })",
                                                ctype (vy), ek);
          wr_reg (t, i->opd[0].reg, vy, v);
        }
      completion_end (t, idx, after, save);
    }
  else
    g_string_append_printf (t->o,
                            "      if (ms_warp_sched_access (&S, &ms_site_%u_%u_%u, %s, %u, m, %u))\n"
                            "        goto B%u;\n"
                            "      continue;\n",
                            t->mod, t->fn, sn, kind, size, next, next);
}

/* Whether operand k of i is a constant: an immediate, or a register of
 * constant value (const_reg) */
static gboolean
constant_operand (Tr *t, const MsPtxInsn *i, guint k, gint64 *value)
{
  const MsPtxOperand *o = k < i->n_opd ? &i->opd[k] : NULL;
  if (o != NULL && o->kind == MS_PTX_OPD_IMM)
    {
      *value = o->imm;
      return TRUE;
    }
  return o != NULL && o->kind == MS_PTX_OPD_REG && !o->neg && const_reg (t, o->reg, value);
}

/* shfl.sync.MODE.b32 d[|p], a, b, c, membermask: one stop */
static void
shfl_stop (Tr *t, const MsPtxInsn *i, guint idx, GString *after)
{
  int sub = ms_ptx_has_mod (i, "up") ? MS_SHFL_UP : ms_ptx_has_mod (i, "down") ? MS_SHFL_DOWN
            : ms_ptx_has_mod (i, "bfly") ? MS_SHFL_XOR : MS_SHFL_IDX;
  Ty u = { 'u', 32 };
  if (i->n_opd < 5)
    {
      unsupported (t, i, "a shuffle without its mask (shfl.sync)");
      return;
    }
  g_autofree char *a = rd (t, i, 1, u), *b = rd (t, i, 2, u), *c = rd (t, i, 3, u),
                  *mk = rd (t, i, 4, u);
  g_autofree char *fill = g_strdup_printf ("ms_warp.val[L][0] = %s; ms_warp.arg[L] = (int) (%s);\n"
                                           "ms_warp.width[L] = (uint8_t) (32 - ((%s) >> 8 & 31));\n"
                                           "ms_warp.mask[L] = %s;\n",
                                           a, b, c, mk);
  /* constant arguments of a whole-warp shuffle (the full mask, width 32,
   * an argument of 0..31): a converged warp shuffles its registers in
   * place and goes on, no stop; the lanes' records are filled only for
   * the stop */
  gint64 b_c = 0, c_c = 0, mk_c = 0;
  gboolean constant = constant_operand (t, i, 2, &b_c) && constant_operand (t, i, 3, &c_c)
                      && constant_operand (t, i, 4, &mk_c) && (guint32) mk_c == 0xffffffffu
                      && ((c_c >> 8) & 31) == 0 && b_c >= 0 && b_c < 32
                      && i->opd[0].kind == MS_PTX_OPD_REG && i->guard < 0;
  if (!constant)
    g_string_append (t->body, fill);
  stop_lanes (t, i, idx + 1);
  guint sn = site (t, i, idx);
  GString *save;
  guint comp = completion_begin (t, idx, after, &save);
  if (constant)
    {
      GString *saved = t->body;
      t->body = g_string_new (NULL);
      g_autofree char *from = g_strdup_printf ("v_[MS_SHFL_SOURCE (%d, L, %u)]", sub, (guint) b_c);
      wr_reg (t, i->opd[0].reg, u, from);
      if (i->opd[0].reg2 >= 0)
        {
          guint a_c = (guint) b_c;
          g_autofree char *v = sub == MS_SHFL_UP ? g_strdup_printf ("(L >= %uu)", a_c)
                               : sub == MS_SHFL_DOWN ? g_strdup_printf ("(L + %uu < 32u)", a_c)
                               : g_strdup ("1");
          wr_reg (t, i->opd[0].reg2, (Ty) { 'p', 1 }, v);
        }
      g_string_append_printf (t->o,
                              "      if (m == 0xffffffffu && S.n_ready == 0 && S.n_stop == 0\n"
                              "          && ms_warp_shfl_counted (&ms_site_%u_%u_%u, 4))\n"
                              "        {\n"
                              "          uint32_t v_[32];\n"
                              "          MS_WARP_LANES (m, L, { v_[L] = %s; });\n"
                              "          MS_WARP_LANES (m, L, {\n%s});\n"
                              "          goto B%u;\n"
                              "        }\n"
                              "      MS_WARP_LANES (m, L, {\n%s});\n",
                              t->mod, t->fn, sn, a, t->body->str, idx + 1 < t->n ? idx + 1 : t->n,
                              fill);
      g_string_free (t->body, TRUE);
      t->body = saved;
    }
  else
    g_string_append_printf (t->o,
                            "      if (ms_ptx_shfl_whole (&S, &ms_site_%u_%u_%u, m, %d))\n"
                            "        goto B%u;\n",
                            t->mod, t->fn, sn, sub, comp);
  g_string_append_printf (t->o,
                          "      ms_warp_sched_stop (&S, &ms_site_%u_%u_%u, MS_K_SHFL, 4, %d, m, %u);\n"
                          "      continue;\n",
                          t->mod, t->fn, sn, sub, comp);
  wr_reg (t, i->opd[0].reg, u, "(uint32_t) ms_warp.res[L]");
  if (i->opd[0].reg2 >= 0)
    {
      /* the source lane is inside the lane's segment */
      g_autofree char *valid = NULL;
      /* (a width is a power of two, 32 less the segment mask: no division) */
      if (sub == MS_SHFL_UP)
        valid = g_strdup_printf ("((L & (ms_warp.width[L] - 1u)) >= (uint32_t) ms_warp.arg[L])");
      else if (sub == MS_SHFL_DOWN)
        valid = g_strdup_printf ("((L & (ms_warp.width[L] - 1u)) + (uint32_t) ms_warp.arg[L] < ms_warp.width[L])");
      else if (sub == MS_SHFL_XOR)
        valid = g_strdup_printf ("(((uint32_t) ms_warp.arg[L] & 31) < ms_warp.width[L])");
      else
        valid = g_strdup ("1");
      wr_reg (t, i->opd[0].reg2, (Ty) { 'p', 1 }, valid);
    }
  completion_end (t, idx, after, save);
}

/* vote.sync.MODE d, p, membermask; activemask.b32 d: one stop */
/* bar.red.{popc,and,or} (__syncthreads_count/_and/_or): each lane adds
 * its predicate to the block's sums, the warp waits at the barrier, then
 * reads the block's reduction. */
static void
bar_red_stop (Tr *t, const MsPtxInsn *i, guint idx, GString *after)
{
  int op = ms_ptx_has_mod (i, "popc") ? 0 : ms_ptx_has_mod (i, "and") ? 1
           : ms_ptx_has_mod (i, "or") ? 2 : -1;
  if (op < 0 || i->n_opd != 3)
    {
      unsupported (t, i, op < 0 ? "a barrier reduction memsim does not know"
                                : "a barrier reduction with a thread count");
      emit_fail (t);
      return;
    }
  g_autofree char *p = rd (t, i, 2, (Ty) { 'p', 1 });
  guard_open (t, i);
  g_string_append_printf (t->body, "ms_ptx_bar_red_lane (%s);\n", p);
  guard_close (t, i);
  stop_lanes (t, i, idx + 1);
  guint sn = site (t, i, idx);
  GString *save;
  guint comp = completion_begin (t, idx, after, &save);
  g_string_append_printf (t->o,
                          "      ms_warp_sched_barrier (&S, &ms_site_%u_%u_%u, m, %u);\n"
                          "      continue;\n",
                          t->mod, t->fn, sn, comp);
  Ty dy = ty_of (i, 0);
  g_autofree char *res = g_strdup_printf ("ms_ptx_bar_red_result (%d)", op);
  wr (t, i, 0, dy.kind == 'p' ? dy : (Ty) { 'u', 32 }, res);
  completion_end (t, idx, after, save);
}

static void
vote_stop (Tr *t, const MsPtxInsn *i, guint idx, GString *after, gboolean activemask)
{
  int sub = activemask ? MS_VOTE_ACTIVEMASK : ms_ptx_has_mod (i, "ballot") ? MS_VOTE_BALLOT
            : ms_ptx_has_mod (i, "any") ? MS_VOTE_ANY : ms_ptx_has_mod (i, "all") ? MS_VOTE_ALL
                                                                                    : -1;
  if (sub < 0 || (!activemask && i->n_opd < 3))
    {
      unsupported (t, i, "a vote memsim does not know (vote.sync all/any/ballot)");
      return;
    }
  g_autofree char *p = activemask ? g_strdup ("1") : rd (t, i, 1, (Ty) { 'p', 1 });
  g_autofree char *mk = activemask ? g_strdup ("0xffffffffu") : rd (t, i, 2, (Ty) { 'u', 32 });
  g_string_append_printf (t->body,
                          "ms_warp.mask[L] = %s; ms_warp.lanes[L].mask = %s;\n"
                          "ms_warp.lanes[L].arg = (int) %s; ms_warp.lanes[L].sub = %d;\n",
                          mk, mk, p, sub);
  stop_lanes (t, i, idx + 1);
  guint sn = site (t, i, idx);
  GString *save;
  guint comp = completion_begin (t, idx, after, &save);
  g_string_append_printf (t->o,
                          "      ms_warp_sched_stop (&S, &ms_site_%u_%u_%u, MS_K_VOTE, 4, %d, m, %u);\n"
                          "      continue;\n",
                          t->mod, t->fn, sn, sub, comp);
  Ty dy = ty_of (i, 0);
  if (dy.kind == 0)
    dy = (Ty) { 'u', 32 };
  wr (t, i, 0, dy.kind == 'p' ? dy : (Ty) { 'u', 32 }, "(uint32_t) ms_warp.lanes[L].res[0]");
  completion_end (t, idx, after, save);
}

/* Where the lanes of a branch meet again, as the GPU has them meet: at
 * the branch's immediate post-dominator (nvcc's BSSY/BSYNC).  Without it
 * the lanes that left a loop's iteration first could reach the next
 * iteration's load before the others finish this one, and one
 * instruction would run as two (scalarProd, bitonicSort: +2-13% shared
 * and global instructions against the H200).  The straight-line regions
 * are the CFG's nodes; a branch's join is the first instruction of its
 * region's immediate post-dominator.  At run time a split records the
 * lanes it split (ms_J), the lanes that reach the join wait there
 * (ms_A) until all of them have come or ended (ms_EX), and go on as one
 * group. */
static void
reconverge (Tr *t)
{
  guint n = t->n, nr = n ? t->region[n - 1] + 1 : 0;
  t->branch_join = g_new (int, n + 1);
  for (guint k = 0; k <= n; k++)
    t->branch_join[k] = -1;
  t->join_at = g_new0 (guint, nr + 1);
  t->n_joins = 0;
  if (nr == 0)
    return;
  /* regions: first instruction, successors (exit = nr) */
  g_autofree guint *first = g_new0 (guint, nr);
  g_autofree guint *last = g_new0 (guint, nr);
  for (guint k = n; k-- > 0;)
    first[t->region[k]] = k;
  for (guint k = 0; k < n; k++)
    last[t->region[k]] = k;
  g_autofree int *succ = g_new (int, 2 * nr);
  for (guint r = 0; r < nr; r++)
    {
      const MsPtxInsn *i = t->ins[last[r]];
      Kind kd = kind_of (i);
      int next = r + 1 < nr ? (int) r + 1 : (int) nr;
      int to = kd == K_BRA ? target (t, i) : -1;
      succ[2 * r] = kd == K_RET && i->guard < 0 ? (int) nr
                    : kd == K_BRA && to >= 0 ? (int) t->region[to] : next;
      succ[2 * r + 1] = kd == K_BRA && i->guard >= 0 ? next : -1;
      if (kd == K_RET && i->guard >= 0)
        succ[2 * r + 1] = (int) nr;
    }
  /* post-dominator sets, bit r of row x: r post-dominates x */
  guint words = (nr + 1 + 63) / 64;
  g_autofree guint64 *pd = g_new (guint64, (gsize) (nr + 1) * words);
  for (guint x = 0; x <= nr; x++)
    for (guint w = 0; w < words; w++)
      pd[(gsize) x * words + w] = x == nr ? 0 : ~G_GUINT64_CONSTANT (0);
  pd[(gsize) nr * words + nr / 64] |= G_GUINT64_CONSTANT (1) << (nr % 64);
  g_autofree guint64 *tmp = g_new (guint64, words);
  for (gboolean changed = TRUE; changed;)
    {
      changed = FALSE;
      for (guint x = nr; x-- > 0;)
        {
          for (guint w = 0; w < words; w++)
            tmp[w] = ~G_GUINT64_CONSTANT (0);
          for (int e = 0; e < 2; e++)
            {
              int y = succ[2 * x + e];
              if (y < 0)
                continue;
              for (guint w = 0; w < words; w++)
                tmp[w] &= pd[(gsize) y * words + w];
            }
          tmp[x / 64] |= G_GUINT64_CONSTANT (1) << (x % 64);
          if (memcmp (tmp, &pd[(gsize) x * words], words * 8) != 0)
            {
              memcpy (&pd[(gsize) x * words], tmp, words * 8);
              changed = TRUE;
            }
        }
    }
  /* each conditional branch's immediate post-dominator: of its strict
   * post-dominators (a chain), the one post-dominated by all the others */
  g_autofree int *join_of = g_new (int, nr + 1);
  g_autofree guint *pd_size = g_new0 (guint, nr + 1);
  for (guint r = 0; r <= nr; r++)
    {
      join_of[r] = -1;
      for (guint w = 0; w < words; w++)
        pd_size[r] += (guint) __builtin_popcountll (pd[(gsize) r * words + w]);
    }
  for (guint r = 0; r < nr; r++)
    {
      const MsPtxInsn *i = t->ins[last[r]];
      if (kind_of (i) != K_BRA || i->guard < 0)
        continue;
      int best = -1;
      guint best_size = 0;
      for (guint y = 0; y <= nr; y++)
        {
          if (y == r || !(pd[(gsize) r * words + y / 64] >> (y % 64) & 1))
            continue;
          guint size = pd_size[y];
          if (best < 0 || size > best_size)
            {
              best = (int) y;
              best_size = size;
            }
        }
      if (best < 0 || best == (int) nr)
        continue;   /* they meet only at the end */
      if (join_of[best] < 0)
        {
          join_of[best] = (int) t->n_joins;
          t->join_at[t->n_joins++] = first[best];
        }
      t->branch_join[last[r]] = join_of[best];
    }
}

/* At a join's instruction: the lanes that come wait for the rest of the
 * split's lanes (those not ended), then go on as one group. */
static void
emit_join_wait (Tr *t, guint idx)
{
  for (guint k = 0; k < t->n_joins; k++)
    if (t->join_at[k] == idx)
      g_string_append_printf (t->o,
                              "      if (ms_J[%u] != 0)\n"
                              "        {\n"
                              "          ms_A[%u] |= m;\n"
                              "          if ((ms_A[%u] | (ms_J[%u] & ms_EX)) != (ms_J[%u] | ms_A[%u]))\n"
                              "            continue;\n"
                              "          m = ms_A[%u];\n"
                              "          ms_J[%u] = ms_A[%u] = 0;\n"
                              "        }\n",
                              k, k, k, k, k, k, k, k, k);
}

/* Lanes `ended` have ended: a join that waited only for them goes on. */
static void
emit_lanes_ended (Tr *t, const char *ended)
{
  if (t->n_joins == 0)
    return;
  g_string_append_printf (t->o, "      ms_EX |= %s;\n      ms_joins_ended (&S, ms_J, ms_A, ms_EX);\n",
                          ended);
}

/* What was made before an instruction: if it turns out to be one the
 * engine cannot run, its code goes and the kernel fails there instead
 * (never a half-made access, at address 0). */
typedef struct {
  gsize o, body, after;
  guint bad;
} Mark;

/* Per instruction, its block's number (the place of its start in
 * sorted), or, in the straight code a conditional forward branch skips
 * (at most 32 instructions, no branch, return or barrier in it: what
 * ptxas may predicate instead), the number of the branch's block
 * (MsInstLine.guard). */
static guint *
skip_guards (Tr *t, GArray *sorted)
{
  guint *block = g_new0 (guint, t->n + 1), *guard = g_new0 (guint, t->n + 1);
  for (guint k = 0, b = 0; k < t->n; k++)
    {
      while (b + 1 < sorted->len && g_array_index (sorted, guint, b + 1) <= k)
        b++;
      block[k] = guard[k] = b;
    }
  for (guint k = 0; k < t->n; k++)
    {
      const MsPtxInsn *i = t->ins[k];
      int to = kind_of (i) == K_BRA && i->guard >= 0 ? target (t, i) : -1;
      if (to <= (int) k + 1 || to - (int) k - 1 > 32)
        continue;
      gboolean straight = TRUE;
      for (int j = (int) k + 1; j < to && straight; j++)
        {
          Kind kj = kind_of (t->ins[j]);
          straight = kj != K_BRA && kj != K_RET && kj != K_BAR && kj != K_BARRED
                     && kj != K_SYNCWARP && kj != K_CALL;
        }
      for (int j = (int) k + 1; j < to && straight; j++)
        guard[j] = block[k];
    }
  g_free (block);
  return guard;
}

/* "file.cu:LINE" (basename) of a .loc, "" for none: the key by which
 * instructions meet nvdisasm's line marks (instructions.h) */
static char *
loc_key (const MsPtxModule *m, int file, int line)
{
  g_autofree char *base = file_base (m, file);
  return base && line > 0 ? g_strdup_printf ("%s:%d", base, line) : g_strdup ("");
}

static gboolean
failed_since (Tr *t, const Mark *k, GString *after, guint idx)
{
  if (t->n_bad == k->bad)
    return FALSE;
  g_string_truncate (t->o, k->o);
  g_string_truncate (t->body, k->body);
  g_string_truncate (after, k->after);
  t->completions[idx] = 0;
  emit_fail (t);
  return TRUE;
}

static gboolean call_insn (Tr *t, const MsPtxInsn *i);

/* After the lanes' calls of the device runtime (each counted by
 * ms_ptx_runtime_lane): the group's one call. */
static void
runtime_call (Tr *t, MsRuntimeKind kind)
{
  flush (t);
  g_string_append_printf (t->o, "      ms_ptx_runtime_call (%d);\n", kind);
}
static gboolean device_insn (Tr *t, const MsPtxInsn *i);

/* The code of instruction idx onwards, to the end of its block. */
static void
emit_block (Tr *t, guint start, GString *after)
{
  g_string_append_printf (t->o, "    B%u:\n", start);
  emit_join_wait (t, start);
  /* the group runs the block: one issue of each of its instructions */
  g_string_append_printf (t->o, "      ms_IC[%u]++;\n", t->block_no);
  if (t->clock)
    {
      guint end = start + 1;
      while (end < t->n && !g_hash_table_contains (t->starts, GUINT_TO_POINTER (end)))
        end++;
      g_string_append_printf (t->o, "      *ms_CK += ms_CW ? ms_CW[%u] : %u;\n", t->block_no,
                              end - start);
    }
  for (guint idx = start; idx < t->n; idx++)
    {
      if (idx > start && g_hash_table_contains (t->starts, GUINT_TO_POINTER (idx)))
        {
          flush (t);
          g_string_append_printf (t->o, "      goto B%u;\n", idx);
          return;
        }
      const MsPtxInsn *i = t->ins[idx];
      Kind k = kind_of (i);
      /* the warp's statements after the lanes' (a division's slow path)
       * follow their own loop: the stops, branches and collectives below
       * put the lanes' statements in loops of their own making */
      if (t->after_lanes->len > 0 && k != K_ALU && k != K_NOP && k != K_DIRECT && k != K_TEX)
        flush (t);
      Mark before = { t->o->len, t->body->len, after->len, t->n_bad };
      if (i->n_opd < min_operands (i))
        {
          unsupported (t, i, "an operand is missing");
          emit_fail (t);
          return;
        }
      switch (k)
        {
        case K_NOP:
          break;
        case K_ALU:
          {
            gsize mark = t->body->len;
            guard_open (t, i);
            /* .ftz: f32 denormals in and out are zeros of their sign, as
             * the GPU computes them (--use_fast_math makes most f32
             * arithmetic .ftz) */
            t->ftz = ms_ptx_has_mod (i, "ftz") && ms_ptx_has_mod (i, "f32");
            gboolean known = alu (t, i);
            t->ftz = FALSE;
            if (!known)
              {
                g_string_truncate (t->body, mark);
                unsupported (t, i, "not in memsim's engine yet");
                emit_fail (t);
                return;
              }
            guard_close (t, i);
            break;
          }
        case K_DIRECT:
          direct_access (t, i);
          break;
        case K_TEX:
          {
            /* a lane statement: the texture pipe's, no warp record */
            const char *why = NULL;
            gsize mark = t->body->len;
            guard_open (t, i);
            if (!ms_ptx_texture_lanes (t->f, i, t->body, &why))
              {
                g_string_truncate (t->body, mark);
                unsupported (t, i, why);
                emit_fail (t);
                return;
              }
            guard_close (t, i);
            break;
          }
        case K_CALL:
          if (!call_insn (t, i))
            {
              failed_since (t, &before, after, idx);
              return;
            }
          break;
        case K_DEVICE:
          if (!device_insn (t, i))
            {
              failed_since (t, &before, after, idx);
              return;
            }
          break;
        case K_MEM:
          if (t->reloaded[idx])
            {
              direct_access (t, i);
              break;
            }
          memory_stop (t, i, idx, after);
          failed_since (t, &before, after, idx);
          return;
        case K_SHFL:
          shfl_stop (t, i, idx, after);
          failed_since (t, &before, after, idx);
          return;
        case K_VOTE:
        case K_ACTIVEMASK:
          vote_stop (t, i, idx, after, k == K_ACTIVEMASK);
          failed_since (t, &before, after, idx);
          return;
        case K_SYNCWARP:
          {
            g_autofree char *mk = i->n_opd > 0 ? rd (t, i, 0, (Ty) { 'u', 32 })
                                               : g_strdup ("0xffffffffu");
            g_string_append_printf (t->body, "ms_warp.mask[L] = %s;\n", mk);
            stop_lanes (t, i, idx + 1);
            guint sn = site (t, i, idx);
            g_string_append_printf (t->o,
                                    "      ms_warp_sched_stop (&S, &ms_site_%u_%u_%u, MS_K_SYNCWARP, 0, 0, m, %u);\n"
                                    "      continue;\n",
                                    t->mod, t->fn, sn, idx + 1);
            return;
          }
        case K_BARRED:
          bar_red_stop (t, i, idx, after);
          return;
        case K_BAR:
          {
            if (i->n_opd > 1)
              {
                unsupported (t, i, "a barrier with a thread count");
                emit_fail (t);
                return;
              }
            stop_lanes (t, i, idx + 1);
            guint sn = site (t, i, idx);
            g_string_append_printf (t->o,
                                    "      ms_warp_sched_barrier (&S, &ms_site_%u_%u_%u, m, %u);\n"
                                    "      continue;\n",
                                    t->mod, t->fn, sn, idx + 1);
            return;
          }
        case K_RET:
          if (i->guard >= 0)
            {
              /* the lanes whose guard holds end; the others go on */
              g_string_append_printf (t->o, "      uint32_t e_%u = 0;\n", idx);
              g_string_append_printf (t->o, "      MS_WARP_BRANCH (m, L, e_%u, %sR%d[L], {\n%s});\n",
                                      idx, i->guard_neg ? "!" : "", i->guard, t->body->str);
              g_string_truncate (t->body, 0);
              g_string_append_printf (t->o, "      m &= ~e_%u;\n", idx);
              g_autofree char *ended = g_strdup_printf ("e_%u", idx);
              emit_lanes_ended (t, ended);
              g_string_append (t->o, "      if (m == 0)\n        continue;\n");
              break;
            }
          flush (t);
          emit_lanes_ended (t, "m");
          g_string_append (t->o, "      continue;\n");
          return;
        case K_BRA:
          {
            int to = target (t, i);
            if (to < 0)
              {
                unsupported (t, i, "an indirect branch");
                emit_fail (t);
                return;
              }
            if (i->guard < 0)
              {
                flush (t);
                g_string_append_printf (t->o, "      goto B%d;\n", to);
                return;
              }
            g_string_append_printf (t->o, "      {\n      uint32_t t_ = 0;\n");
            g_string_append_printf (t->o, "      MS_WARP_BRANCH (m, L, t_, %sR%d[L], {\n%s});\n",
                                    i->guard_neg ? "!" : "", i->guard, t->body->str);
            g_string_truncate (t->body, 0);
            g_autofree char *join = t->branch_join[idx] >= 0
                                      ? g_strdup_printf ("          ms_J[%d] |= m;\n",
                                                         t->branch_join[idx])
                                      : g_strdup ("");
            g_string_append_printf (t->o,
                                    "      if (t_ == m)\n"
                                    "        goto B%d;\n"
                                    "      if (t_ != 0)\n"
                                    "        {\n"
                                    "%s"
                                    "          ms_warp_sched_push (&S, %d, t_);\n"
                                    "          m &= ~t_;\n"
                                    "        }\n"
                                    "      goto B%u;\n"
                                    "      }\n",
                                    to, join, to, idx + 1);
            return;
          }
        case K_REDUX:
          {
            /* the group's lanes are the ones that meet (converged, as
             * redux.sync requires): reduced in lane order, then given to each */
            Ty y = ty_of (i, 0);
            Ty v = { y.kind == 's' ? 's' : 'u', 32 };
            const char *o = ms_ptx_has_mod (i, "add") ? "+" : ms_ptx_has_mod (i, "and") ? "&"
                            : ms_ptx_has_mod (i, "or") ? "|" : ms_ptx_has_mod (i, "xor") ? "^"
                            : NULL;
            gboolean mn = ms_ptx_has_mod (i, "min"), mx = ms_ptx_has_mod (i, "max");
            if ((o == NULL && !mn && !mx) || i->guard >= 0)
              {
                unsupported (t, i, "a warp reduction memsim does not know");
                emit_fail (t);
                return;
              }
            flush (t);
            g_autofree char *src = rd (t, i, 1, v);
            g_autofree char *member = rd (t, i, 2, (Ty) { 'u', 32 });
            /* lanes of one membermask reduce together; ptxas runs each such
             * group on its own (WARPSYNC.EXCLUSIVE), so the block, which
             * holds the reduction alone, counts a run a group */
            g_string_append_printf (t->o,
                                    "      {\n      uint32_t left_ = m, groups_ = 0;\n"
                                    "      while (left_ != 0)\n        {\n"
                                    "          uint32_t k_, g_ = 0, mm_ = left_;\n"
                                    "          { unsigned L = (unsigned) __builtin_ctz (left_); k_ = %s; }\n"
                                    "          MS_WARP_BITS_ (mm_, L)\n"
                                    "            if ((uint32_t) (%s) == k_)\n"
                                    "              g_ |= 1u << L;\n"
                                    "          %s acc_ = 0;\n          int first_ = 1;\n"
                                    "          mm_ = g_;\n          MS_WARP_BITS_ (mm_, L)\n            {\n"
                                    "              %s x_ = %s;\n",
                                    member, member, ctype (v), ctype (v), src);
            if (o != NULL)
              g_string_append_printf (t->o, "              acc_ = first_ ? x_ : (%s) ((uint32_t) acc_ %s (uint32_t) x_);\n",
                                      ctype (v), o);
            else
              g_string_append_printf (t->o, "              acc_ = first_ || x_ %s acc_ ? x_ : acc_;\n",
                                      mn ? "<" : ">");
            g_string_append (t->o, "              first_ = 0;\n            }\n");
            wr (t, i, 0, v, "acc_");
            g_string_append (t->o, "          MS_WARP_LANES (g_, L, {\n");
            g_string_append (t->o, t->body->str);
            g_string_truncate (t->body, 0);
            g_string_append_printf (t->o, "          });\n          left_ &= ~g_;\n          groups_++;\n"
                                    "        }\n      ms_IC[%u] += groups_ - 1;\n      }\n",
                                    t->block_no);
            break;
          }
        case K_BAD:
        default:
          unsupported (t, i, "not in memsim's engine yet");
          emit_fail (t);
          return;
        }
      if (failed_since (t, &before, after, idx))
        return;
    }
  flush (t);
  g_string_append (t->o, "      continue;\n");
}

/* ------------------------------------------------------------ calls */

/* call[.uni] [(rets),] fn, (args)[, prototype]: the reader flattens the
 * parentheses, a sink marking each group's ends. */
typedef struct {
  guint n_rets, n_args;
  const MsPtxOperand *rets[8], *args[32], *fn;
} CallOps;

static gboolean
call_operands (const MsPtxInsn *i, CallOps *c)
{
  memset (c, 0, sizeof *c);
  guint k = 0, n = i->n_opd;
  if (k < n && i->opd[k].kind == MS_PTX_OPD_SINK)
    {
      for (k++; k < n && i->opd[k].kind != MS_PTX_OPD_SINK; k++)
        {
          if (c->n_rets == G_N_ELEMENTS (c->rets))
            return FALSE;
          c->rets[c->n_rets++] = &i->opd[k];
        }
      k++;
    }
  if (k >= n)
    return FALSE;
  c->fn = &i->opd[k++];
  if (k < n && i->opd[k].kind == MS_PTX_OPD_SINK)
    for (k++; k < n && i->opd[k].kind != MS_PTX_OPD_SINK; k++)
      {
        if (c->n_args == G_N_ELEMENTS (c->args))
          return FALSE;
        c->args[c->n_args++] = &i->opd[k];
      }
  return TRUE;
}

/* The host address (uint64_t, lane L) of a call's argument or result
 * operand: a .param of the body. */
static char *
call_param (Tr *t, const MsPtxInsn *i, const MsPtxOperand *o)
{
  if (o->kind != MS_PTX_OPD_SYM || !g_hash_table_contains (t->bparam_off, o->sym))
    {
      unsupported (t, i, "an argument that is no .param of the caller");
      return g_strdup ("0");
    }
  return sym_addr (t, i, o->sym, o->imm);
}

static const MsPtxFunc *
defined_func (const MsPtxModule *m, const char *name)
{
  for (guint k = 0; k < m->funcs->len; k++)
    {
      const MsPtxFunc *f = g_ptr_array_index (m->funcs, k);
      if (f->defined && strcmp (f->name, name) == 0)
        return f;
    }
  return NULL;
}

/* A call the flattening left (translate_entry inlines the module's
 * functions): the device runtime's vprintf, __assertfail, malloc and
 * free, run on the host for each lane, in lane order; FALSE for any other
 * (the kernel fails there). */
static gboolean
call_insn (Tr *t, const MsPtxInsn *i)
{
  CallOps c;
  if (!call_operands (i, &c))
    {
      unsupported (t, i, "a call memsim cannot read");
      return FALSE;
    }
  if (c.fn->kind != MS_PTX_OPD_SYM)
    {
      unsupported (t, i, "an indirect call (a function pointer or a virtual function)");
      return FALSE;
    }
  const char *fn = c.fn->sym;
  /* the argument's and result's addresses (uint64_t host addresses) */
  g_autofree char *a0 = c.n_args > 0 ? call_param (t, i, c.args[0]) : NULL;
  g_autofree char *a1 = c.n_args > 1 ? call_param (t, i, c.args[1]) : NULL;
  g_autofree char *r0 = c.n_rets > 0 ? call_param (t, i, c.rets[0]) : NULL;
  if (!strcmp (fn, "vprintf") && c.n_args == 2)
    {
      guard_open (t, i);
      g_string_append (t->body, "ms_ptx_runtime_lane (0);\n");
      g_string_append_printf (t->body,
                              "{ uint64_t f_, a_; memcpy (&f_, (const void *) (uintptr_t) %s, 8);\n"
                              "memcpy (&a_, (const void *) (uintptr_t) %s, 8);\n"
                              "int32_t r_ = ms_ptx_printf ((const char *) (uintptr_t) f_, "
                              "(const uint8_t *) (uintptr_t) a_);\n",
                              a0, a1);
      if (r0)
        g_string_append_printf (t->body, "memcpy ((void *) (uintptr_t) %s, &r_, 4);\n", r0);
      g_string_append (t->body, "(void) r_; }\n");
      guard_close (t, i);
      runtime_call (t, MS_RUNTIME_PRINTF);
      return TRUE;
    }
  if (!strcmp (fn, "__assertfail") && c.n_args >= 4)
    {
      g_autofree char *a2 = call_param (t, i, c.args[2]);
      g_autofree char *a3 = call_param (t, i, c.args[3]);
      guard_open (t, i);
      g_string_append_printf (t->body,
                              "{ uint64_t m_, f_, fn_; uint32_t l_;\n"
                              "memcpy (&m_, (const void *) (uintptr_t) %s, 8);\n"
                              "memcpy (&f_, (const void *) (uintptr_t) %s, 8);\n"
                              "memcpy (&l_, (const void *) (uintptr_t) %s, 4);\n"
                              "memcpy (&fn_, (const void *) (uintptr_t) %s, 8);\n"
                              "ms_ptx_assertfail ((const char *) (uintptr_t) m_, "
                              "(const char *) (uintptr_t) f_, l_, (const char *) (uintptr_t) fn_, "
                              "ms_warp.tid[0][L], ms_warp.tid[1][L], ms_warp.tid[2][L]); }\n",
                              a0, a1, a2, a3);
      guard_close (t, i);
      /* the lanes that got here print, then the launch ends */
      flush (t);
      g_string_append (t->o, "      ms_ptx_assert_end ();\n");
      return TRUE;
    }
  if ((!strcmp (fn, "malloc") && c.n_args == 1 && r0) || (!strcmp (fn, "free") && c.n_args == 1))
    {
      int h = module_var (t, MS_PTX_HEAP_NAME);
      if (h < 0)
        {
          unsupported (t, i, "a device heap memsim did not set up");
          return FALSE;
        }
      guard_open (t, i);
      g_string_append_printf (t->body, "ms_ptx_runtime_lane (%d);\n",
                              fn[0] == 'm' ? MS_RUNTIME_MALLOC : MS_RUNTIME_FREE);
      if (fn[0] == 'm')
        g_string_append_printf (t->body,
                                "{ uint64_t s_, p_; memcpy (&s_, (const void *) (uintptr_t) %s, 8);\n"
                                "p_ = (uint64_t) (uintptr_t) ms_ptx_malloc (ms_ptx_g_%u_%d, s_);\n"
                                "memcpy ((void *) (uintptr_t) %s, &p_, 8); }\n",
                                a0, t->mod, h, r0);
      else
        g_string_append_printf (t->body,
                                "{ uint64_t p_; memcpy (&p_, (const void *) (uintptr_t) %s, 8);\n"
                                "ms_ptx_free (ms_ptx_g_%u_%d, (void *) (uintptr_t) p_); }\n",
                                a0, t->mod, h);
      guard_close (t, i);
      runtime_call (t, fn[0] == 'm' ? MS_RUNTIME_MALLOC : MS_RUNTIME_FREE);
      return TRUE;
    }
  if (!strcmp (fn, "cudaGraphSetConditional") && c.n_args == 2)
    {
      guard_open (t, i);
      g_string_append_printf (t->body,
                              "{ uint64_t h_; uint32_t v_;\n"
                              "memcpy (&h_, (const void *) (uintptr_t) %s, 8);\n"
                              "memcpy (&v_, (const void *) (uintptr_t) %s, 4);\n"
                              "ms_ptx_set_conditional (h_, v_); }\n",
                              a0, a1);
      guard_close (t, i);
      return TRUE;
    }
  if (defined_func (t->m, fn) != NULL)
    unsupported (t, i, "a recursive call: memsim inlines the calls of device functions");
  else
    unsupported (t, i, "a call of a function this file does not define (memsim runs vprintf, "
                       "__assertfail, malloc, free and cudaGraphSetConditional)");
  return FALSE;
}

/* ------------------------------------------------------------ async copies, mbarriers */

/* Whether i names the shared state space (.shared, .shared::cta,
 * .shared::cluster: one block's, as memsim runs clusters of one). */
static gboolean
shared_mod (const MsPtxInsn *i)
{
  for (char **p = i->mods; p && *p; p++)
    if (strncmp (*p, "shared", 6) == 0)
      return TRUE;
  return FALSE;
}

/* The host address of memory operand k, shared (an offset in the block's
 * window) or generic. */
static char *
space_addr (Tr *t, const MsPtxInsn *i, guint k, gboolean shared)
{
  if (k >= i->n_opd)
    {
      unsupported (t, i, "an operand is missing");
      return g_strdup ("0");
    }
  return host_addr (t, i, k, shared ? MS_PTX_SPACE_SHARED : MS_PTX_SPACE_GLOBAL, !shared);
}

/* The lanes' statement s (a C text with an int ms_spin_ it sets when the
 * lane must wait), then, when some lane must, the warp lets the others
 * run (an mbarrier's wait loop must not keep them from arriving). */
static void
emit_spin (Tr *t, const MsPtxInsn *i, const char *s)
{
  flush (t);
  g_string_append (t->o, "      {\n      int ms_spin_ = 0;\n      MS_WARP_LANES (m, L, {\n");
  guard_open (t, i);
  g_string_append (t->body, s);
  guard_close (t, i);
  g_string_append (t->o, t->body->str);
  g_string_truncate (t->body, 0);
  g_string_append (t->o, "      });\n      if (ms_spin_)\n        ms_ptx_spin ();\n      }\n");
}

/* Whether the function reads the grid workspace's address (%envreg1/2:
 * cooperative groups' grid barrier). */
static gboolean
reads_grid_workspace (const Tr *t)
{
  for (guint k = 0; k < t->n; k++)
    for (guint o = 0; o < t->ins[k]->n_opd; o++)
      {
        const MsPtxOperand *p = &t->ins[k]->opd[o];
        if (p->kind == MS_PTX_OPD_SPECIAL && p->sym
            && (!strcmp (p->sym, "%envreg1") || !strcmp (p->sym, "%envreg2")))
          return TRUE;
      }
  return FALSE;
}

/* cp.async's commit and wait (nothing: async_copy_stop makes the copy
 * when it is issued), cp.async.bulk (TMA, to an mbarrier's transaction count), mbarrier.*
 * (ms_ptx_mbarrier, warp.h), match.sync and trap.  FALSE: one the engine
 * does not run. */
static gboolean
device_insn (Tr *t, const MsPtxInsn *i)
{
  Ty u32 = { 'u', 32 }, u64 = { 'u', 64 };
  if (!strcmp (i->op, "match"))
    {
      /* match.any.sync / match.all.sync d[|p], a, membermask: the group's
       * lanes are the ones that meet (converged, as .sync requires), as
       * redux's; any: the lanes of equal value; all: the group if all
       * are equal (p set), else 0 */
      gboolean all = ms_ptx_has_mod (i, "all");
      Ty y = ty_of (i, 0);
      if ((!all && !ms_ptx_has_mod (i, "any")) || i->guard >= 0 || i->n_opd < 3
          || i->opd[0].kind != MS_PTX_OPD_REG || y.kind == 0)
        {
          unsupported (t, i, "a match memsim does not know");
          return FALSE;
        }
      Ty v = { 'u', y.bits };
      flush (t);
      g_autofree char *src = rd (t, i, 1, v);
      g_string_append_printf (t->o, "      {\n      %s mv_[32];\n"
                              "      MS_WARP_LANES (m, L, { mv_[L] = %s; });\n",
                              ctype (v), src);
      g_string_append (t->o, "      MS_WARP_LANES (m, L, {\n");
      g_string_append (t->body, "uint32_t eq_ = 0;\n"
                                "for (uint32_t r_ = m; r_; r_ &= r_ - 1)\n"
                                "  if (mv_[__builtin_ctz (r_)] == mv_[L])\n"
                                "    eq_ |= 1u << __builtin_ctz (r_);\n");
      wr_reg (t, i->opd[0].reg, u32, all ? "(eq_ == m ? m : 0u)" : "eq_");
      if (all && i->opd[0].reg2 >= 0)
        wr_reg (t, i->opd[0].reg2, (Ty) { 'p', 1 }, "(eq_ == m)");
      g_string_append (t->o, t->body->str);
      g_string_truncate (t->body, 0);
      g_string_append (t->o, "      });\n      }\n");
      return TRUE;
    }
  if (!strcmp (i->op, "trap"))
    {
      g_autoptr (GString) msg = g_string_new (NULL);
      g_autofree char *base = file_base (t->m, i->file);
      if (base)
        g_string_append_printf (msg, "%s:%d: ", base, i->line);
      g_autoptr (GString) grid = g_string_new (msg->str);
      g_string_append_printf (msg, "the kernel executed 'trap' (%s line %d); a GPU ends the "
                              "launch with an error", t->m->path, i->ptx_line);
      g_string_append_printf (grid, "the kernel executed 'trap' (%s line %d) without a grid "
                              "workspace: a grid-wide barrier (cg::this_grid().sync()) needs a "
                              "cooperative launch (cudaLaunchCooperativeKernel); a GPU ends this "
                              "launch with cudaErrorLaunchFailure",
                              t->m->path, i->ptx_line);
      flush (t);
      g_string_append (t->o, "      {\n      int ms_trap_ = 0;\n      MS_WARP_LANES (m, L, {\n");
      guard_open (t, i);
      g_string_append (t->body, "ms_trap_ = 1;\n");
      guard_close (t, i);
      g_string_append (t->o, t->body->str);
      g_string_truncate (t->body, 0);
      g_string_append (t->o, "      });\n      if (ms_trap_)\n        ms_ptx_fail (");
      if (reads_grid_workspace (t))
        {
          /* nvcc's grid.sync() traps where the launch gave no workspace */
          g_string_append (t->o, "ms_ptx_grid_workspace () ? ");
          c_string (t->o, msg->str);
          g_string_append (t->o, " : ");
          c_string (t->o, grid->str);
        }
      else
        c_string (t->o, msg->str);
      g_string_append (t->o, ");\n      }\n");
      return TRUE;
    }
  if (!strcmp (i->op, "cp"))
    {
      if (ms_ptx_has_mod (i, "commit_group") || ms_ptx_has_mod (i, "wait_group")
          || ms_ptx_has_mod (i, "wait_all"))
        return TRUE;
      if (ms_ptx_has_mod (i, "mbarrier") && ms_ptx_has_mod (i, "arrive"))
        {
          /* arrives once the thread's earlier copies are done (done
           * already); without .noinc the pending count was raised first:
           * no change */
          if (!ms_ptx_has_mod (i, "noinc"))
            return TRUE;
          g_autofree char *a = space_addr (t, i, 0, shared_mod (i));
          guard_open (t, i);
          g_string_append_printf (t->body, "ms_ptx_mbarrier (%s, MS_MBAR_ARRIVE, 1);\n", a);
          guard_close (t, i);
          return TRUE;
        }
      if (ms_ptx_has_mod (i, "bulk"))
        {
          /* cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes
           * [dst], [src], size, [mbar] */
          if (!shared_mod (i) || !ms_ptx_has_mod (i, "global") || i->n_opd != 4
              || i->opd[3].kind != MS_PTX_OPD_ADDR)
            {
              unsupported (t, i, "a bulk copy memsim does not run (it runs global to shared)");
              return FALSE;
            }
          g_autofree char *d = space_addr (t, i, 0, TRUE), *s = space_addr (t, i, 1, FALSE);
          g_autofree char *n = rd (t, i, 2, u32), *b = space_addr (t, i, 3, TRUE);
          guard_open (t, i);
          g_string_append_printf (t->body,
                                  "{ uint32_t n_ = %s; ms_ptx_cp_async (%s, %s, n_, n_);\n"
                                  "ms_ptx_mbarrier (%s, MS_MBAR_COMPLETE_TX, n_); }\n",
                                  n, d, s, b);
          guard_close (t, i);
          return TRUE;
        }
      /* cp.async.ca|cg.shared.global is a memory stop (async_copy_stop) */
      unsupported (t, i, "an asynchronous copy memsim does not run");
      return FALSE;
    }
  /* mbarrier.* */
  gboolean sh = shared_mod (i);
  if (ms_ptx_has_mod (i, "init") || ms_ptx_has_mod (i, "inval")
      || ms_ptx_has_mod (i, "expect_tx") || ms_ptx_has_mod (i, "complete_tx"))
    {
      if (!ms_ptx_has_mod (i, "arrive") && !ms_ptx_has_mod (i, "arrive_drop"))
        {
          const char *op = ms_ptx_has_mod (i, "init") ? "MS_MBAR_INIT"
                           : ms_ptx_has_mod (i, "inval") ? "MS_MBAR_INVAL"
                           : ms_ptx_has_mod (i, "expect_tx") ? "MS_MBAR_EXPECT_TX"
                                                             : "MS_MBAR_COMPLETE_TX";
          g_autofree char *a = space_addr (t, i, 0, sh);
          g_autofree char *c = i->n_opd > 1 ? rd (t, i, 1, u32) : g_strdup ("0");
          guard_open (t, i);
          g_string_append_printf (t->body, "ms_ptx_mbarrier (%s, %s, %s);\n", a, op, c);
          guard_close (t, i);
          return TRUE;
        }
    }
  if (ms_ptx_has_mod (i, "arrive") || ms_ptx_has_mod (i, "arrive_drop"))
    {
      /* [state,] [addr] {, count | txCount} */
      gboolean drop = ms_ptx_has_mod (i, "arrive_drop");
      gboolean tx = ms_ptx_has_mod (i, "expect_tx");
      gboolean nocomplete = ms_ptx_has_mod (i, "noComplete");
      guint ai = i->n_opd > 0 && i->opd[0].kind == MS_PTX_OPD_ADDR ? 0 : 1;
      g_autofree char *a = space_addr (t, i, ai, sh);
      g_autofree char *c = i->n_opd > ai + 1 ? rd (t, i, ai + 1, u32) : g_strdup ("1");
      g_autofree char *v = g_strdup_printf ("ms_ptx_mbarrier (%s, %s%s%s, %s)", a,
                                            drop ? "MS_MBAR_ARRIVE_DROP" : "MS_MBAR_ARRIVE",
                                            tx ? " | MS_MBAR_TX" : "",
                                            nocomplete ? " | MS_MBAR_NOCOMPLETE" : "", c);
      guard_open (t, i);
      if (ai == 1 && i->opd[0].kind == MS_PTX_OPD_REG)
        wr (t, i, 0, u64, v);
      else
        g_string_append_printf (t->body, "%s;\n", v);
      guard_close (t, i);
      return TRUE;
    }
  if (ms_ptx_has_mod (i, "test_wait") || ms_ptx_has_mod (i, "try_wait"))
    {
      /* waitComplete, [addr], state | phaseParity */
      gboolean parity = ms_ptx_has_mod (i, "parity");
      g_autofree char *a = space_addr (t, i, 1, sh);
      g_autofree char *s = rd (t, i, 2, parity ? u32 : u64);
      g_autofree char *v = g_strdup_printf ("ms_ptx_mbarrier (%s, %s, %s)", a,
                                            parity ? "MS_MBAR_TEST_PARITY" : "MS_MBAR_TEST", s);
      g_autoptr (GString) st = g_string_new (NULL);
      GString *save = t->body;
      t->body = st;
      g_string_append_printf (st, "{ uint64_t w_ = %s;\nif (!w_) ms_spin_ = 1;\n", v);
      wr (t, i, 0, (Ty) { 'p', 1 }, "w_");
      g_string_append (st, "}\n");
      t->body = save;
      emit_spin (t, i, st->str);
      return TRUE;
    }
  if (ms_ptx_has_mod (i, "pending_count"))
    {
      g_autofree char *s = rd (t, i, 1, u64);
      g_autofree char *v = g_strdup_printf ("(uint32_t) ((%s) & 0x1fffffu)", s);
      guard_open (t, i);
      wr (t, i, 0, u32, v);
      guard_close (t, i);
      return TRUE;
    }
  unsupported (t, i, "not in memsim's engine yet");
  return FALSE;
}

/* ------------------------------------------------------------ inlining */

/* Calls of the module's own .func functions are inlined when an entry is
 * translated: the entry is flattened into one function whose code is the
 * callee's at each call, its `ret` a branch to the instruction after the
 * call, so that branches, joins and stops work in it as anywhere.  A
 * callee's registers and variables (its local depot, the .params of its
 * own calls) are its own, once per function: without recursion a
 * function is never active twice in one thread.  Its parameters are the
 * caller's argument .params, its results the caller's result .params:
 * per-lane memory (bparam_off), read and written where they are.  What
 * stays a call (the device runtime's functions, recursion, a call through
 * a pointer) is call_insn's. */
typedef struct {
  const MsPtxModule *m;
  MsPtxFunc *flat;
  GPtrArray *pool;          /* what the flat copy owns (g_free) */
  GHashTable *reg_base;     /* callee -> its first register in flat + 1 */
  GPtrArray *active;        /* the functions being inlined */
  guint instances;
} Flat;

/* One inlined call: its callee's names in the flat function. */
typedef struct {
  const MsPtxFunc *f;
  guint inst;
  int rbase;
  GHashTable *map;          /* a parameter's or result's name -> the caller's .param */
  GHashTable *labels;       /* the callee's labels */
  const char *end;          /* the label after the call */
  int at_file, at_line;     /* the outermost call's .loc */
} Inst;

/* Instructions a flattened entry may grow to. */
#define FLAT_LIMIT 400000

static gpointer
pooled (Flat *F, gpointer s)
{
  g_ptr_array_add (F->pool, s);
  return s;
}

static const char *
flat_sym (Flat *F, const Inst *I, const char *sym)
{
  if (I == NULL || sym == NULL)
    return sym;
  const char *v = g_hash_table_lookup (I->map, sym);
  if (v != NULL)
    return v;
  if (g_hash_table_contains (I->labels, sym))
    return pooled (F, g_strdup_printf ("%s@%u", sym, I->inst));
  for (guint k = 0; k < I->f->vars->len; k++)
    if (strcmp (g_array_index (I->f->vars, MsPtxVar, k).name, sym) == 0)
      return pooled (F, g_strdup_printf ("%s@%s", I->f->name, sym));
  return sym;
}

static void
flat_add (Flat *F, const MsPtxInsn *src, const Inst *I)
{
  MsPtxInsn in = *src;
  if (I != NULL)
    {
      in.at_file = I->at_file;
      in.at_line = I->at_line;
      if (in.label)
        in.label = (char *) flat_sym (F, I, in.label);
      if (in.guard >= 0)
        in.guard += I->rbase;
      in.opd = pooled (F, g_memdup2 (src->opd, sizeof *src->opd * MAX (src->n_opd, 1)));
      for (guint k = 0; k < in.n_opd; k++)
        {
          MsPtxOperand *o = &in.opd[k];
          if (o->reg >= 0 && o->kind != MS_PTX_OPD_SINK)
            o->reg += I->rbase;
          if (o->reg2 >= 0)
            o->reg2 += I->rbase;
          if (o->kind == MS_PTX_OPD_VEC)
            for (int e = 0; e < o->n_vec; e++)
              if (o->vec[e] >= 0)
                o->vec[e] += I->rbase;
          if (o->kind != MS_PTX_OPD_SPECIAL)
            o->sym = (char *) flat_sym (F, I, o->sym);
        }
    }
  g_array_append_val (F->flat->insns, in);
}

/* A branch to label `to` (guard g, negated or not) or the label itself. */
static void
flat_branch (Flat *F, const MsPtxInsn *at, const char *to, int g, gboolean neg)
{
  static char *no_mods[] = { NULL };
  MsPtxInsn in = *at;
  in.label = NULL;
  in.op = (char *) "bra";
  in.mods = no_mods;
  in.guard = g;
  in.guard_neg = neg;
  in.opd = pooled (F, g_new0 (MsPtxOperand, 1));
  in.opd[0] = (MsPtxOperand) { .kind = MS_PTX_OPD_SYM, .reg = -1, .reg2 = -1, .sym = (char *) to };
  in.n_opd = 1;
  g_array_append_val (F->flat->insns, in);
}

static void
flat_label (Flat *F, const MsPtxInsn *at, const char *name)
{
  MsPtxInsn in = { 0 };
  in.label = (char *) name;
  in.guard = -1;
  in.ptx_line = at->ptx_line;
  g_array_append_val (F->flat->insns, in);
}

static void flat_body (Flat *F, const MsPtxFunc *f, const Inst *I);

/* Whether call c (of the function I stands for, or of the entry) can be
 * inlined as a call of g. */
static gboolean
inlinable (Flat *F, const CallOps *c, const MsPtxFunc *g)
{
  if (g == NULL || g->entry || c->n_args != g->params->len || c->n_rets != g->rets->len
      || F->flat->insns->len + g->insns->len > FLAT_LIMIT)
    return FALSE;
  for (guint k = 0; k < F->active->len; k++)
    if (g_ptr_array_index (F->active, k) == g)
      return FALSE;   /* recursion */
  for (guint k = 0; k < c->n_args; k++)
    if (c->args[k]->kind != MS_PTX_OPD_SYM || c->args[k]->imm != 0)
      return FALSE;
  for (guint k = 0; k < c->n_rets; k++)
    if (c->rets[k]->kind != MS_PTX_OPD_SYM || c->rets[k]->imm != 0)
      return FALSE;
  return TRUE;
}

/* g's code for call i, then the label after it */
static void
flat_inline (Flat *F, const MsPtxInsn *i, const Inst *I, const CallOps *cp, const MsPtxFunc *g)
{
  CallOps c = *cp;
  gpointer base = g_hash_table_lookup (F->reg_base, g);
  if (base == NULL)
    {
      /* the callee's registers and variables, once */
      base = GUINT_TO_POINTER (F->flat->regs->len + 1);
      g_hash_table_insert (F->reg_base, (gpointer) g, base);
      for (guint k = 0; k < g->regs->len; k++)
        {
          MsPtxReg r = g_array_index (g->regs, MsPtxReg, k);
          g_array_append_val (F->flat->regs, r);
        }
      for (guint k = 0; k < g->vars->len; k++)
        {
          MsPtxVar v = g_array_index (g->vars, MsPtxVar, k);
          v.name = pooled (F, g_strdup_printf ("%s@%s", g->name, v.name));
          g_array_append_val (F->flat->vars, v);
        }
    }
  Inst J = { g, ++F->instances, (int) GPOINTER_TO_UINT (base) - 1, NULL, NULL, NULL,
             I ? I->at_file : i->file, I ? I->at_line : i->line };
  J.map = g_hash_table_new (g_str_hash, g_str_equal);
  J.labels = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint k = 0; k < c.n_args; k++)
    g_hash_table_insert (J.map, g_array_index (g->params, MsPtxVar, k).name,
                         (gpointer) flat_sym (F, I, c.args[k]->sym));
  for (guint k = 0; k < c.n_rets; k++)
    g_hash_table_insert (J.map, g_array_index (g->rets, MsPtxVar, k).name,
                         (gpointer) flat_sym (F, I, c.rets[k]->sym));
  for (guint k = 0; k < g->insns->len; k++)
    {
      const MsPtxInsn *x = &g_array_index (g->insns, MsPtxInsn, k);
      if (x->label)
        g_hash_table_add (J.labels, x->label);
    }
  J.end = pooled (F, g_strdup_printf ("$ms_return@%u", J.inst));
  g_ptr_array_add (F->active, (gpointer) g);
  flat_body (F, g, &J);
  g_ptr_array_remove_index (F->active, F->active->len - 1);
  flat_label (F, i, J.end);
  g_hash_table_unref (J.map);
  g_hash_table_unref (J.labels);
}

/* Inlines call i (of the function I stands for, or of the entry) if it
 * calls a function of the module; FALSE to leave it a call.  A call
 * through a pointer (a virtual function) compares the pointer with each
 * function of the module that takes its arguments and inlines each
 * (MS_PTX_FUNC_ADDR); a pointer to none of them stays the call, which
 * fails the kernel there. */
static gboolean
flat_call (Flat *F, const MsPtxInsn *i, const Inst *I)
{
  CallOps c;
  if (!call_operands (i, &c))
    return FALSE;
  int rbase = I ? I->rbase : 0;
  const char *after = pooled (F, g_strdup_printf ("$ms_call@%u", ++F->instances));
  if (c.fn->kind == MS_PTX_OPD_SYM)
    {
      const MsPtxFunc *g = defined_func (F->m, c.fn->sym);
      if (!inlinable (F, &c, g))
        return FALSE;
      if (i->guard >= 0)
        flat_branch (F, i, after, i->guard + rbase, !i->guard_neg);
      flat_inline (F, i, I, &c, g);
      flat_label (F, i, after);
      return TRUE;
    }
  if (c.fn->kind != MS_PTX_OPD_REG)
    return FALSE;
  GPtrArray *cands = g_ptr_array_new ();
  for (guint k = 0; k < F->m->funcs->len; k++)
    {
      const MsPtxFunc *g = g_ptr_array_index (F->m->funcs, k);
      if (g->defined && inlinable (F, &c, g))
        g_ptr_array_add (cands, GUINT_TO_POINTER (k));
    }
  if (cands->len == 0)
    {
      g_ptr_array_unref (cands);
      return FALSE;
    }
  if (i->guard >= 0)
    flat_branch (F, i, after, i->guard + rbase, !i->guard_neg);
  /* p = (fn == address of g); @p bra to g's code: per candidate */
  MsPtxReg p = { (char *) "%ms_call_p", MS_PTX_PRED };
  int preg = (int) F->flat->regs->len;
  g_array_append_val (F->flat->regs, p);
  static char *eq_mods[] = { (char *) "eq", (char *) "u64", NULL };
  GPtrArray *labels = g_ptr_array_new ();
  for (guint n = 0; n < cands->len; n++)
    {
      guint k = GPOINTER_TO_UINT (g_ptr_array_index (cands, n));
      const MsPtxFunc *g = g_ptr_array_index (F->m->funcs, k);
      guint first = k;   /* the address is its first declaration's */
      for (guint j = 0; j < k; j++)
        if (strcmp (((const MsPtxFunc *) g_ptr_array_index (F->m->funcs, j))->name, g->name) == 0)
          {
            first = j;
            break;
          }
      MsPtxInsn set = *i;
      set.label = NULL;
      set.op = (char *) "setp";
      set.mods = eq_mods;
      set.guard = -1;
      set.n_opd = 3;
      set.opd = pooled (F, g_new0 (MsPtxOperand, 3));
      set.opd[0] = (MsPtxOperand) { .kind = MS_PTX_OPD_REG, .reg = preg, .reg2 = -1 };
      set.opd[1] = (MsPtxOperand) { .kind = MS_PTX_OPD_REG, .reg = c.fn->reg + rbase, .reg2 = -1 };
      set.opd[2] = (MsPtxOperand) { .kind = MS_PTX_OPD_IMM, .reg = -1, .reg2 = -1,
                                    .imm = (gint64) MS_PTX_FUNC_ADDR (first) };
      g_array_append_val (F->flat->insns, set);
      char *to = pooled (F, g_strdup_printf ("$ms_target@%u_%u", F->instances, n));
      g_ptr_array_add (labels, to);
      flat_branch (F, i, to, preg, FALSE);
    }
  /* a pointer to no candidate: the call itself, which fails there */
  flat_add (F, i, I);
  flat_branch (F, i, after, -1, FALSE);
  for (guint n = 0; n < cands->len; n++)
    {
      const MsPtxFunc *g = g_ptr_array_index (F->m->funcs,
                                              GPOINTER_TO_UINT (g_ptr_array_index (cands, n)));
      flat_label (F, i, g_ptr_array_index (labels, n));
      flat_inline (F, i, I, &c, g);
      flat_branch (F, i, after, -1, FALSE);
    }
  flat_label (F, i, after);
  g_ptr_array_unref (labels);
  g_ptr_array_unref (cands);
  return TRUE;
}

static void
flat_body (Flat *F, const MsPtxFunc *f, const Inst *I)
{
  for (guint k = 0; k < f->insns->len; k++)
    {
      const MsPtxInsn *i = &g_array_index (f->insns, MsPtxInsn, k);
      if (i->op && !strcmp (i->op, "call") && flat_call (F, i, I))
        continue;
      if (I != NULL && i->op && !strcmp (i->op, "ret"))
        {
          flat_branch (F, i, I->end, i->guard >= 0 ? i->guard + I->rbase : -1, i->guard_neg);
          continue;
        }
      flat_add (F, i, I);
    }
}

/* The entry f with its calls inlined (flat_free frees it). */
static MsPtxFunc *
flatten (const MsPtxModule *m, const MsPtxFunc *f, GPtrArray **pool)
{
  Flat F = { m, g_new0 (MsPtxFunc, 1), g_ptr_array_new_with_free_func (g_free),
             g_hash_table_new (NULL, NULL), g_ptr_array_new (), 0 };
  *F.flat = *f;
  F.flat->regs = g_array_new (FALSE, TRUE, sizeof (MsPtxReg));
  F.flat->vars = g_array_new (FALSE, TRUE, sizeof (MsPtxVar));
  F.flat->insns = g_array_new (FALSE, TRUE, sizeof (MsPtxInsn));
  g_array_append_vals (F.flat->regs, f->regs->data, f->regs->len);
  g_array_append_vals (F.flat->vars, f->vars->data, f->vars->len);
  g_ptr_array_add (F.active, (gpointer) f);
  flat_body (&F, f, NULL);
  g_hash_table_unref (F.reg_base);
  g_ptr_array_unref (F.active);
  *pool = F.pool;
  return F.flat;
}

static void
flat_free (MsPtxFunc *flat, GPtrArray *pool)
{
  g_array_unref (flat->regs);
  g_array_unref (flat->vars);
  g_array_unref (flat->insns);
  g_free (flat);
  g_ptr_array_unref (pool);
}

static void
layout_vars (Tr *t)
{
  /* shared: the module's (non-extern) then the function's, in order;
   * the extern array after them all (the dynamic part) */
  guint off = 0;
  const GArray *lists[2] = { t->m->vars, t->f->vars };
  for (int l = 0; l < 2; l++)
    for (guint k = 0; k < lists[l]->len; k++)
      {
        const MsPtxVar *v = &g_array_index (lists[l], MsPtxVar, k);
        if (v->space == MS_PTX_SPACE_SHARED && !v->external && v->size > 0)
          {
            guint a = MAX (v->align, 1);
            off = (off + a - 1) / a * a;
            g_hash_table_insert (t->shared_off, v->name, GUINT_TO_POINTER (off + 1));
            off += (guint) v->size;
          }
        else if (v->space == MS_PTX_SPACE_SHARED)
          {
            t->dyn_name = v->name;
            t->dyn_align = MAX (t->dyn_align, MAX (v->align, 16));
          }
        else if (v->space == MS_PTX_SPACE_LOCAL)
          {
            guint a = MAX (v->align, 1);
            t->local_bytes = (t->local_bytes + a - 1) / a * a;
            g_hash_table_insert (t->local_off, v->name, GUINT_TO_POINTER (t->local_bytes + 1));
            t->local_bytes += (guint) v->size;
          }
      }
  /* the body's .params (calls' arguments and results): per lane, after
   * its local variables; one place per name (each call declares its
   * param0 ... again, in a scope of its own) */
  for (guint k = 0; k < t->f->vars->len; k++)
    {
      const MsPtxVar *v = &g_array_index (t->f->vars, MsPtxVar, k);
      if (v->space != MS_PTX_SPACE_PARAM || g_hash_table_contains (t->bparam_off, v->name))
        continue;
      gsize size = v->size;
      guint a = MAX (v->align, 1);
      for (guint j = k + 1; j < t->f->vars->len; j++)
        {
          const MsPtxVar *w = &g_array_index (t->f->vars, MsPtxVar, j);
          if (w->space == MS_PTX_SPACE_PARAM && strcmp (w->name, v->name) == 0)
            {
              size = MAX (size, w->size);
              a = MAX (a, w->align);
            }
        }
      t->local_bytes = (t->local_bytes + a - 1) / a * a;
      g_hash_table_insert (t->bparam_off, v->name, GUINT_TO_POINTER (t->local_bytes + 1));
      t->local_bytes += (guint) MAX (size, 1);
    }
  t->shared_static = off;
  t->local_bytes = (t->local_bytes + 15) / 16 * 16;
  guint p = 0;
  for (guint k = 0; k < t->f->params->len; k++)
    {
      const MsPtxVar *v = &g_array_index (t->f->params, MsPtxVar, k);
      guint a = MAX (v->align, 1);
      p = (p + a - 1) / a * a;
      g_hash_table_insert (t->param_off, v->name, GUINT_TO_POINTER (p + 1));
      p += (guint) v->size;
    }
}

guint
ms_ptx_param_layout (const MsPtxFunc *f, guint k, guint *size, guint *align)
{
  guint p = 0;
  for (guint j = 0; j < f->params->len; j++)
    {
      const MsPtxVar *v = &g_array_index (f->params, MsPtxVar, j);
      guint a = MAX (v->align, 1);
      p = (p + a - 1) / a * a;
      if (j == k)
        {
          *size = (guint) v->size;
          *align = a;
          return p;
        }
      p += (guint) v->size;
    }
  *size = 0;
  *align = 1;
  return p;
}

guint
ms_ptx_static_shared (const MsPtxModule *m, const MsPtxFunc *f)
{
  guint off = 0;
  const GArray *lists[2] = { m->vars, f->vars };
  for (int l = 0; l < 2; l++)
    for (guint k = 0; k < lists[l]->len; k++)
      {
        const MsPtxVar *v = &g_array_index (lists[l], MsPtxVar, k);
        if (v->space == MS_PTX_SPACE_SHARED && !v->external && v->size > 0)
          {
            guint a = MAX (v->align, 1);
            off = (off + a - 1) / a * a + (guint) v->size;
          }
      }
  return off;
}

static void
translate_entry (Tr *t, GString *out)
{
  const MsPtxFunc *f = t->f;
  /* the instructions without labels; labels point at the next one */
  GPtrArray *ins = g_ptr_array_new ();
  for (guint k = 0; k < f->insns->len; k++)
    {
      MsPtxInsn *i = &g_array_index (f->insns, MsPtxInsn, k);
      if (i->label)
        g_hash_table_insert (t->labels, i->label, GINT_TO_POINTER (ins->len + 1));
      else
        g_ptr_array_add (ins, i);
    }
  t->n = ins->len;
  t->ins = (MsPtxInsn **) ins->pdata;
  t->completions = g_new0 (guint32, t->n + 1);
  static const char *const runtime[] = { "vprintf", "malloc", "free", "__assertfail",
                                          "cudaGraphSetConditional" };
  gboolean calls_runtime = FALSE;
  for (guint k = 0; k < t->n; k++)
    for (guint o = 0; o < t->ins[k]->n_opd; o++)
      {
        const MsPtxOperand *d = &t->ins[k]->opd[o];
        if (is_clock_register (d))
          t->clock = TRUE;
        for (guint r = 0; r < G_N_ELEMENTS (runtime); r++)
          calls_runtime |= d->kind == MS_PTX_OPD_SYM && t->ins[k]->op
                           && !strcmp (t->ins[k]->op, "call") && !strcmp (d->sym, runtime[r]);
      }
  /* surface stores write CUDA arrays, which are no buffer of the launch */
  gboolean writes_surfaces = FALSE;
  for (guint k = 0; k < t->n; k++)
    writes_surfaces |= t->ins[k]->op && (!strcmp (t->ins[k]->op, "sust")
                                         || !strcmp (t->ins[k]->op, "sured"));
  if (t->inst)
    {
      t->inst->effects = t->clock || calls_runtime || writes_surfaces;
      t->inst->reads_clock = t->clock;
    }
  for (guint k = 0; t->inst && k < t->n; k++)
    if (is_async_copy (t->ins[k]))
      {
        char *at = loc_key (t->m, t->ins[k]->file, t->ins[k]->line);
        if (*at && !g_ptr_array_find_with_equal_func (t->inst->async_copies, at, g_str_equal, NULL))
          g_ptr_array_add (t->inst->async_copies, at);
        else
          g_free (at);
      }
  layout_vars (t);
  /* blocks start at 0, at labels, after branches and returns */
  g_hash_table_add (t->starts, GUINT_TO_POINTER (0));
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, t->labels);
  while (g_hash_table_iter_next (&it, &key, &value))
    g_hash_table_add (t->starts, GUINT_TO_POINTER (GPOINTER_TO_UINT (value) - 1));
  /* straight-line regions: a label or the instruction after a branch or a
   * return starts one */
  g_autofree gboolean *labelled = g_new0 (gboolean, t->n + 1);
  g_hash_table_iter_init (&it, t->labels);
  while (g_hash_table_iter_next (&it, &key, &value))
    labelled[GPOINTER_TO_UINT (value) - 1] = TRUE;
  t->region = g_new0 (guint, t->n + 1);
  for (guint k = 0; k < t->n; k++)
    {
      Kind kd = kind_of (t->ins[k]);
      if (is_stop (kd) || kd == K_BRA || kd == K_RET || kd == K_REDUX)
        g_hash_table_add (t->starts, GUINT_TO_POINTER (k + 1));
      if (kd == K_REDUX)   /* a block of its own: it runs once a group (K_REDUX) */
        g_hash_table_add (t->starts, GUINT_TO_POINTER (k));
      if (k > 0)
        {
          Kind before = kind_of (t->ins[k - 1]);
          t->region[k] = t->region[k - 1] + (labelled[k] || before == K_BRA || before == K_RET);
        }
    }
  t->reloaded = reloaded_loads (t);
  reconverge (t);

  GString *code = g_string_new (NULL), *after = g_string_new (NULL);
  t->o = code;
  g_autoptr (GArray) sorted = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint k = 0; k <= t->n; k++)
    if (g_hash_table_contains (t->starts, GUINT_TO_POINTER (k)))
      g_array_append_val (sorted, k);
  g_autofree guint *guard = t->inst ? skip_guards (t, sorted) : NULL;
  g_autofree guint *rounds = g_new0 (guint, t->n + 1);
  g_autofree guint *cycles = g_new0 (guint, t->n + 1);
  if (t->inst)
    {
      load_rounds (t, rounds);
      dependent_cycles (t, cycles);
    }
  for (guint k = 0; k < sorted->len; k++)
    {
      guint s = g_array_index (sorted, guint, k);
      if (s >= t->n)
        continue;
      t->block_no = k;
      emit_block (t, s, after);
      guint end = k + 1 < sorted->len ? MIN (g_array_index (sorted, guint, k + 1), t->n) : t->n;
      if (t->inst != NULL)
        ms_inst_map_set_region (t->inst, k, t->region[s]);
      if (t->inst != NULL && kind_of (t->ins[s]) == K_REDUX)
        ms_inst_map_set_reduction (t->inst, k);
      for (guint idx = s; t->inst != NULL && idx < end; idx++)
        {
          const MsPtxInsn *i = t->ins[idx];
          g_autofree char *where = loc_key (t->m, i->file, i->line);
          g_autofree char *at = loc_key (t->m, i->at_file, i->at_line);
          ms_inst_map_add (t->inst, k, guard[idx], where, at, 1,
                           kind_of (i) == K_MEM && !t->reloaded[idx]);
          MsInstWaits w = { rounds[idx], kind_of (i) == K_BAR, kind_of (i) == K_TEX,
                            cycles[idx] };
          ms_inst_map_add_waits (t->inst, k, &w);
        }
    }
  g_string_append_printf (code, "    B%u:\n      continue;\n", t->n);

  /* the function */
  for (guint sn = 0; sn < t->n_sites; sn++)
    {
      g_string_append (out, g_ptr_array_index (t->site_heads, sn));
      const GString *inner = g_ptr_array_index (t->site_inners, sn);
      if (inner != NULL)
        {
          g_string_append (out, ", .inner = ");
          c_string (out, inner->str);
        }
      g_string_append (out, " };\n");
    }
  g_string_append (out, t->agg_flags->str);
  g_string_append_printf (out, "const MsPtxAgg ms_ptx_aggs_%u_%u[] = { %s{ NULL, NULL } };\n",
                          t->mod, t->fn, t->aggs->str);
  /* its sites in order, for the twins of another build of the same text
   * (ms_site_twin) */
  g_string_append_printf (out, "MsSite *const ms_ptx_sites_%u_%u[] = { ", t->mod, t->fn);
  for (guint s = 0; s < t->n_sites; s++)
    g_string_append_printf (out, "&ms_site_%u_%u_%u, ", t->mod, t->fn, s);
  g_string_append (out, "NULL };\n");
  /* Past BIG_KERNEL_BLOCKS blocks, compiled without GCC's RTL GCSE, whose
   * PRE grows with the blocks times the expressions: sortingNetworks'
   * 797-block kernel took 62 s to compile, 46 s of them in PRE, and 17 s
   * without it; MonteCarloMultiGPU's kernels (186 and 217 blocks), whose
   * run it shortens by 5-8%, keep it. */
  gboolean big = sorted->len > BIG_KERNEL_BLOCKS;
  if (big)
    g_string_append (out, "#if defined(__GNUC__) && !defined(__clang__)\n"
                          "#pragma GCC push_options\n#pragma GCC optimize (\"no-gcse\")\n#endif\n");
  g_string_append_printf (out,
                          "void ms_ptx_k_%u_%u (const MsLaunchArgs *ms_args);\n"
                          "MS_CPU_CLONES void\nms_ptx_k_%u_%u (const MsLaunchArgs *ms_args)\n{\n",
                          t->mod, t->fn, t->mod, t->fn);
  g_string_append (out, "  const uint8_t *ms_P = (const uint8_t *) ms_args->params;\n  (void) ms_P;\n");
  g_string_append_printf (out,
                          "  /* the block's shared window: the static variables first (keys\n"
                          "   * of their own: MS_SHARED_'s per-thread memo would put dynamic\n"
                          "   * TLS in this shared object, which LeakSanitizer's thread scan\n"
                          "   * trips on in worker threads) */\n"
                          "  static const char ms_shared_key;\n"
                          "  uint8_t *ms_shb = (uint8_t *) ms_shared_alloc_at (&ms_shared_key, %u, 16);\n"
                          "  (void) ms_shb;\n",
                          t->shared_static);
  if (t->dyn_name)
    g_string_append_printf (out,
                            "  uint8_t *ms_dyn = (uint8_t *) ms_shared_alloc_dynamic (%u);\n"
                            "  uint32_t ms_ptx_dyn_off = (uint32_t) (ms_dyn - ms_shb);\n",
                            t->dyn_align);
  /* the block's reserved shared memory (cooperative groups' barriers),
   * after the program's own */
  g_string_append (out, "  uint8_t *ms_res = (uint8_t *) ms_shared_alloc_reserved (1024);\n"
                        "  (void) ms_res;\n");
  g_string_append (out, "  uint32_t ms_ptx_dyn_bytes = 0;\n  (void) ms_ptx_dyn_bytes;\n");
  g_string_append_printf (out, "  uint64_t *ms_IC = ms_ptx_block_counts (%u);\n", sorted->len);
  if (t->clock)
    g_string_append (out, "  double *ms_CK = ms_ptx_warp_clock ();\n"
                          "  const double *ms_CW = ms_ptx_block_cycles ();\n");
  if (t->local_bytes)
    g_string_append_printf (out, "  uint8_t *ms_loc = ms_ptx_local (%u);\n", t->local_bytes);
  else
    g_string_append (out, "  uint8_t *ms_loc = NULL;\n");
  g_string_append (out, "  (void) ms_loc;\n");
  g_string_append (out, "  uint32_t ms_CC[32]; (void) ms_CC;   /* the carry flag */\n");
  g_string_append (out, t->slow_decls->str);
  /* the registers: arrays of the warp's 32 lanes on the warp's stack (1
   * MiB), or, for a function whose registers take more than a quarter of
   * it (libdevice's double-precision special functions inlined: 3 000
   * f64 registers), in a buffer of the warp's (ms_ptx_frame) */
  g_string_append (code, after->str);
  gboolean *temp = g_new0 (gboolean, MAX (f->regs->len, 1));
  ms_ptx_lane_temps (code, f->regs->len, temp);
  gsize frame = 0;
  for (guint r = 0; r < f->regs->len; r++)
    if (!temp[r])
      frame += warp_reg_bytes (&g_array_index (f->regs, MsPtxReg, r));
  gboolean heap = frame > MAX_STACK_FRAME;
  if (heap)
    g_string_append_printf (out, "  uint8_t *ms_frame = ms_ptx_frame (%" G_GSIZE_FORMAT ");\n",
                            frame);
  frame = 0;
  for (guint r = 0; r < f->regs->len; r++)
    {
      const MsPtxReg *reg = &g_array_index (f->regs, MsPtxReg, r);
      const char *ty = reg->cls == MS_PTX_PRED ? "uint8_t" : utype (reg_bits (reg));
      if (temp[r])
        {
          /* a lane's value within one lane loop (ptx-lane-temps.c) */
          g_string_append_printf (out, "  %s T%u; /* %s */\n", ty, r, reg->name);
          continue;
        }
      if (heap)
        g_string_append_printf (out, "  %s *R%u = (%s *) (ms_frame + %" G_GSIZE_FORMAT "); /* %s */\n",
                                ty, r, ty, frame, reg->name);
      else
        g_string_append_printf (out, "  %s R%u[32]; /* %s */\n", ty, r, reg->name);
      frame += warp_reg_bytes (reg);
    }
  g_string_append (out,
                   "  MsWarpSched S;\n  int pc;\n  uint32_t m;\n"
                   "  ms_warp_sched_begin (&S);\n");
  if (t->n_joins > 0)
    {
      g_string_append_printf (out,
                              "  uint32_t ms_J[%u] = { 0 }, ms_A[%u] = { 0 }, ms_EX = 0;\n"
                              "  static const int ms_join_pc[%u] = {",
                              t->n_joins, t->n_joins, t->n_joins);
      for (guint k = 0; k < t->n_joins; k++)
        g_string_append_printf (out, "%s %u", k ? "," : "", t->join_at[k]);
      g_string_append (out, " };\n"
                            "#define ms_joins_ended(S, J, A, EX) ms_ptx_joins_ended (S, J, A, EX, ms_join_pc, "
                            "(unsigned) G_N_ELEMENTS (ms_join_pc))\n"
                            " again:\n");
    }
  g_string_append (out,
                   "  while (ms_warp_sched_next (&S, &pc, &m))\n    {\n"
                   "      switch (pc)\n        {\n");
  for (guint k = 0; k < sorted->len; k++)
    {
      guint s = g_array_index (sorted, guint, k);
      g_string_append_printf (out, "        case %u: goto B%u;\n", s, s);
    }
  if (!g_hash_table_contains (t->starts, GUINT_TO_POINTER (t->n)))
    g_string_append_printf (out, "        case %u: goto B%u;\n", t->n, t->n);
  for (guint k = 0; k < t->n; k++)
    if (t->completions[k])
      g_string_append_printf (out, "        case %u: goto B%u;\n", t->n + 1 + k, t->n + 1 + k);
  g_string_append (out, "        default: __builtin_unreachable ();\n        }\n");
  g_string_append (out, code->str);   /* and after's, appended above */
  g_string_append (out, "    }\n");
  g_free (temp);
  if (t->n_joins > 0)
    /* lanes still waiting at a join whose other lanes went elsewhere (a
     * barrier, a path no post-dominance foresaw) go on, never lost */
    g_string_append (out,
                     "  if (ms_ptx_joins_release (&S, ms_J, ms_A, ms_join_pc, "
                     "(unsigned) G_N_ELEMENTS (ms_join_pc)))\n"
                     "    goto again;\n"
                     "#undef ms_joins_ended\n");
  g_string_append (out, "}\n\n");
  if (big)
    g_string_append (out, "#if defined(__GNUC__) && !defined(__clang__)\n"
                          "#pragma GCC pop_options\n#endif\n");
  g_string_free (code, TRUE);
  g_string_free (after, TRUE);
  g_free (t->completions);
  g_free (t->region);
  g_free (t->reloaded);
  g_free (t->branch_join);
  g_free (t->join_at);
  g_ptr_array_unref (ins);
}

/* The module's variables: a slot each, set to where the variable lives
 * (ms_ptx_program_bind_global). */
static void
translate_vars (const MsPtxModule *m, guint mod, GString *out)
{
  g_string_append_printf (out, "/* from %s */\n", m->path);
  for (guint k = 0; k < m->vars->len; k++)
    {
      const MsPtxVar *v = &g_array_index (m->vars, MsPtxVar, k);
      if (v->space == MS_PTX_SPACE_GLOBAL || v->space == MS_PTX_SPACE_CONST)
        g_string_append_printf (out, "uint8_t *ms_ptx_g_%u_%u; /* %s */\n", mod, k, v->name);
    }
}

/* Whether the function polls other blocks' writes (Tr.polls_blocks). */
static gboolean
translate_function (const MsPtxModule *m, guint mod, guint fi, GString *out, MsInstMap *inst)
{
  const MsPtxFunc *f = g_ptr_array_index (m->funcs, fi);
  Tr t = { 0 };
  GPtrArray *pool = NULL;
  MsPtxFunc *flat = flatten (m, f, &pool);
  t.m = m;
  t.f = flat;
  t.mod = mod;
  t.fn = fi;
  t.inst = inst;
  t.labels = g_hash_table_new (g_str_hash, g_str_equal);
  t.starts = g_hash_table_new (NULL, NULL);
  t.body = g_string_new (NULL);
  t.after_lanes = g_string_new (NULL);
  t.slow_decls = g_string_new (NULL);
  t.aggs = g_string_new (NULL);
  t.agg_flags = g_string_new (NULL);
  t.agg_sites = g_hash_table_new (NULL, NULL);
  t.shared_off = g_hash_table_new (g_str_hash, g_str_equal);
  t.local_off = g_hash_table_new (g_str_hash, g_str_equal);
  t.param_off = g_hash_table_new (g_str_hash, g_str_equal);
  t.bparam_off = g_hash_table_new (g_str_hash, g_str_equal);
  t.last_fail = g_string_new (NULL);
  t.access_sites = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  t.site_heads = g_ptr_array_new_with_free_func (g_free);
  t.site_inners = g_ptr_array_new ();
  translate_entry (&t, out);
  for (guint sn = 0; sn < t.site_inners->len; sn++)
    if (g_ptr_array_index (t.site_inners, sn) != NULL)
      g_string_free (g_ptr_array_index (t.site_inners, sn), TRUE);
  g_ptr_array_unref (t.site_inners);
  g_ptr_array_unref (t.site_heads);
  g_hash_table_unref (t.labels);
  g_hash_table_unref (t.starts);
  g_string_free (t.body, TRUE);
  g_string_free (t.after_lanes, TRUE);
  g_string_free (t.slow_decls, TRUE);
  g_string_free (t.aggs, TRUE);
  g_string_free (t.agg_flags, TRUE);
  g_hash_table_unref (t.agg_sites);
  g_hash_table_unref (t.shared_off);
  g_hash_table_unref (t.local_off);
  g_hash_table_unref (t.param_off);
  g_hash_table_unref (t.bparam_off);
  g_string_free (t.last_fail, TRUE);
  g_hash_table_unref (t.access_sites);
  g_free (t.const_state);
  g_free (t.const_value);
  flat_free (flat, pool);
  return t.polls_blocks;
}

gboolean
ms_ptx_translate (const MsPtxModule *m, guint mod, GString *out, GError **error)
{
  (void) error;
  translate_vars (m, mod, out);
  for (guint fi = 0; fi < m->funcs->len; fi++)
    {
      const MsPtxFunc *f = g_ptr_array_index (m->funcs, fi);
      if (f->entry && f->defined)
        translate_function (m, mod, fi, out, NULL);
    }
  return TRUE;
}

gboolean
ms_ptx_translate_entry (const MsPtxModule *m, guint mod, guint fn, GString *out,
                        MsInstMap *inst, gboolean *polls_blocks, GError **error)
{
  (void) error;
  const MsPtxFunc *f = fn < m->funcs->len ? g_ptr_array_index (m->funcs, fn) : NULL;
  g_return_val_if_fail (f != NULL && f->entry && f->defined, FALSE);
  translate_vars (m, mod, out);
  gboolean polls = translate_function (m, mod, fn, out, inst);
  if (polls_blocks != NULL)
    *polls_blocks = polls;
  return TRUE;
}
