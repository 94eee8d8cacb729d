/* ptx-cas-loops.c - shared-memory atomics that sm_90 has no instruction
 * for, run as the compare-and-swap loops ptxas makes of them.
 *
 * ptxas (sm_90) compiles atom.shared.add.f32, .add.f64, .add.u64,
 * .min/.max.u64/.s64 and .and/.or/.xor.b64 (and red.shared of the same) to
 * a loop: LDS of the old value, the operation, ATOMS.CAST.SPIN of the new
 * value against the old, again while the swap fails; min and max leave
 * the loop without the swap when the old value already is the result.
 * Every other shared atomic memsim runs (32-bit integer ones, exch, cas,
 * inc, dec) is one ATOMS.  The GPU counts the loop's loads and swaps, so
 * memsim runs the same loop, written in PTX in place of the atomic:
 *
 *       [@!g bra SKIP]            (a guarded atomic)
 *   LOOP: ld.relaxed.cta.shared.bW old, [a]
 *       OP new, old, b
 *       [setp.eq.uW p, new, old; @p bra DONE]   (min, max)
 *       atom.SEM.shared.cas.bW got, [a], old, new
 *       setp.ne.uW p, got, old
 *       @p bra LOOP
 *   DONE: [mov.bW d, old]
 *   SKIP:
 *
 * So a warp executes one load and one swap for an atomic whose lanes hit
 * distinct words, and k of each when k lanes hit one word (the emulator
 * runs a warp's swaps in lane order: the first of them succeeds, the
 * others see the new value and go round again).  Warps run one after
 * another, so another warp's swap never comes between a warp's load and
 * its swap, as it may on the GPU.  The load is relaxed: like the atomic,
 * it does not race with the other warps' atomics (sim/stream/site.h).
 */
#include "config.h"
#include "ptx-cas-loops.h"

#include <string.h>

/* The operation of a shared atomic ptxas makes a loop, or NULL: "add",
 * "min" ..., its type in *type. */
static const char *
loop_op (const MsPtxInsn *i, const char **type)
{
  if (i->op == NULL || (strcmp (i->op, "atom") && strcmp (i->op, "red")))
    return NULL;
  const char *space = NULL, *op = NULL;
  *type = NULL;
  for (char **m = i->mods; m && *m; m++)
    {
      if (!strcmp (*m, "shared") || !strcmp (*m, "shared::cta"))
        space = *m;
      else if (!strcmp (*m, "add") || !strcmp (*m, "min") || !strcmp (*m, "max")
               || !strcmp (*m, "and") || !strcmp (*m, "or") || !strcmp (*m, "xor"))
        op = *m;
      else if (ms_ptx_type_size (*m) > 0)
        *type = *m;
      else if (!strcmp (*m, "noftz") || g_str_has_prefix (*m, "v"))
        return NULL;
    }
  if (space == NULL || op == NULL || *type == NULL)
    return NULL;
  const char *t = *type;
  if (!strcmp (op, "add"))
    return !strcmp (t, "f32") || !strcmp (t, "f64") || !strcmp (t, "u64") ? op : NULL;
  if (!strcmp (op, "min") || !strcmp (op, "max"))
    return !strcmp (t, "u64") || !strcmp (t, "s64") ? op : NULL;
  return !strcmp (t, "b64") ? op : NULL;
}

typedef struct {
  MsPtxFunc *f;
  GArray *out;          /* the new instructions */
  const MsPtxInsn *at;  /* the atomic: its lines */
} Lower;

static int
new_reg (MsPtxFunc *f, const char *what, guint serial, MsPtxRegClass cls)
{
  MsPtxReg r = { g_strdup_printf ("%%ms_cas_%s%u", what, serial), cls };
  g_array_append_val (f->regs, r);
  return (int) f->regs->len - 1;
}

static MsPtxOperand
reg_opd (int reg)
{
  return (MsPtxOperand) { .kind = MS_PTX_OPD_REG, .reg = reg, .reg2 = -1 };
}

static MsPtxOperand
sym_opd (const char *label)
{
  return (MsPtxOperand) { .kind = MS_PTX_OPD_SYM, .reg = -1, .reg2 = -1, .sym = g_strdup (label) };
}

/* A copy of operand o (its symbol its own). */
static MsPtxOperand
copy_opd (const MsPtxOperand *o)
{
  MsPtxOperand c = *o;
  c.sym = g_strdup (o->sym);
  return c;
}

/* Appends op.MODS (a NULL-terminated list of strings, copied) with the
 * operands (n of them, taken), at the atomic's lines, guard g (-1: none). */
static void
emit (Lower *L, const char *op, const char *const *mods, int g, gboolean neg,
      MsPtxOperand *opds, guint n)
{
  MsPtxInsn in = { 0 };
  in.op = g_strdup (op);
  in.mods = g_strdupv ((char **) mods);
  in.guard = g;
  in.guard_neg = neg;
  in.opd = g_new0 (MsPtxOperand, MAX (n, 1));
  memcpy (in.opd, opds, n * sizeof *opds);
  in.n_opd = n;
  in.file = L->at->file;
  in.line = L->at->line;
  in.at_file = L->at->at_file;
  in.at_line = L->at->at_line;
  in.ptx_line = L->at->ptx_line;
  g_array_append_val (L->out, in);
}

static void
label (Lower *L, const char *name)
{
  MsPtxInsn in = { 0 };
  in.label = g_strdup (name);
  in.guard = -1;
  in.ptx_line = L->at->ptx_line;
  g_array_append_val (L->out, in);
}

static void
branch (Lower *L, const char *to, int g, gboolean neg)
{
  const char *none[] = { NULL };
  MsPtxOperand o = sym_opd (to);
  emit (L, "bra", none, g, neg, &o, 1);
}

/* The loop in place of atomic i (operation op, type type). */
static void
lower (Lower *L, const MsPtxInsn *i, const char *op, const char *type, guint serial)
{
  gboolean red = !strcmp (i->op, "red");
  guint a = red ? 0 : 1;   /* the address operand; the value follows */
  if (i->n_opd != a + 2 || i->opd[a].kind != MS_PTX_OPD_ADDR)
    {
      g_array_append_val (L->out, *i);   /* not the shape ptxas takes: as it is */
      return;
    }
  guint bits = ms_ptx_type_size (type) * 8;
  MsPtxRegClass cls = bits == 64 ? MS_PTX_B64 : MS_PTX_B32;
  g_autofree char *b = g_strdup_printf ("b%u", bits), *u = g_strdup_printf ("u%u", bits);
  g_autofree char *loop = g_strdup_printf ("$ms_cas_loop%u", serial);
  g_autofree char *done = g_strdup_printf ("$ms_cas_done%u", serial);
  g_autofree char *skip = g_strdup_printf ("$ms_cas_skip%u", serial);
  int old = new_reg (L->f, "old", serial, cls), val = new_reg (L->f, "new", serial, cls);
  int got = new_reg (L->f, "got", serial, cls), p = new_reg (L->f, "p", serial, MS_PTX_PRED);

  if (i->guard >= 0)
    branch (L, skip, i->guard, !i->guard_neg);
  label (L, loop);
  {
    const char *mods[] = { "relaxed", "cta", "shared", b, NULL };
    MsPtxOperand o[] = { reg_opd (old), copy_opd (&i->opd[a]) };
    emit (L, "ld", mods, -1, FALSE, o, 2);
  }
  {
    const char *mods[] = { type, NULL };
    MsPtxOperand o[] = { reg_opd (val), reg_opd (old), copy_opd (&i->opd[a + 1]) };
    emit (L, op, mods, -1, FALSE, o, 3);
  }
  if (!strcmp (op, "min") || !strcmp (op, "max"))
    {
      const char *mods[] = { "eq", u, NULL };
      MsPtxOperand o[] = { reg_opd (p), reg_opd (val), reg_opd (old) };
      emit (L, "setp", mods, -1, FALSE, o, 3);
      branch (L, done, p, FALSE);
    }
  {
    /* the atomic's memory order and scope, on the swap */
    const char *mods[8];
    guint n = 0;
    for (char **m = i->mods; m && *m && n < 4; m++)
      if (!strcmp (*m, "relaxed") || !strcmp (*m, "acquire") || !strcmp (*m, "release")
          || !strcmp (*m, "acq_rel") || !strcmp (*m, "cta") || !strcmp (*m, "gpu")
          || !strcmp (*m, "sys") || !strcmp (*m, "cluster"))
        mods[n++] = *m;
    mods[n++] = "shared";
    mods[n++] = "cas";
    mods[n++] = b;
    mods[n] = NULL;
    MsPtxOperand o[] = { reg_opd (got), copy_opd (&i->opd[a]), reg_opd (old), reg_opd (val) };
    emit (L, "atom", mods, -1, FALSE, o, 4);
  }
  {
    const char *mods[] = { "ne", u, NULL };
    MsPtxOperand o[] = { reg_opd (p), reg_opd (got), reg_opd (old) };
    emit (L, "setp", mods, -1, FALSE, o, 3);
    branch (L, loop, p, FALSE);
  }
  label (L, done);
  if (!red && i->opd[0].kind == MS_PTX_OPD_REG)
    {
      const char *mods[] = { b, NULL };
      MsPtxOperand o[] = { copy_opd (&i->opd[0]), reg_opd (old) };
      emit (L, "mov", mods, -1, FALSE, o, 2);
    }
  label (L, skip);
  MsPtxInsn gone = *i;   /* the atomic itself is dropped */
  ms_ptx_insn_clear (&gone);
}

void
ms_ptx_lower_cas_loops (MsPtxModule *m)
{
  guint serial = 0;
  for (guint k = 0; k < m->funcs->len; k++)
    {
      MsPtxFunc *f = g_ptr_array_index (m->funcs, k);
      gboolean any = FALSE;
      for (guint n = 0; n < f->insns->len && !any; n++)
        {
          const char *type;
          any = loop_op (&g_array_index (f->insns, MsPtxInsn, n), &type) != NULL;
        }
      if (!any)
        continue;
      /* the instructions move to a new array; the old one is freed
       * without clearing them */
      GArray *in = f->insns;
      Lower L = { f, g_array_sized_new (FALSE, TRUE, sizeof (MsPtxInsn), in->len + 16), NULL };
      g_array_set_clear_func (L.out, ms_ptx_insn_clear);
      for (guint n = 0; n < in->len; n++)
        {
          const MsPtxInsn *i = &g_array_index (in, MsPtxInsn, n);
          const char *type;
          const char *op = loop_op (i, &type);
          L.at = i;
          if (op == NULL)
            g_array_append_val (L.out, *i);
          else
            lower (&L, i, op, type, serial++);
        }
      g_array_set_clear_func (in, NULL);
      g_array_unref (in);
      f->insns = L.out;
    }
}
