/* sass.c - reading the nvcc build's SASS (see sass.h).
 *
 * The opcode names and suffixes are those nvdisasm prints for sm_70 ..
 * sm_90: LDG/STG (global), LDS/STS (shared), LDL/STL (local), LD/ST
 * (generic: global or shared), LDGSTS (an asynchronous copy: a global load
 * and a shared store), ATOMG/ATOMS/ATOM, REDG/RED (an atomic whose result
 * is unused); LDC (constant bank) and LDSM (matrix fragments) are no
 * accesses memsim records.  Width suffixes: .U8/.S8 1 byte, .U16/.S16 2,
 * .64 8, .128 16, none (or .32) 4; other suffixes (.E, .CONSTANT, .STRONG.GPU,
 * .LTC128B, ...) are cache and ordering hints.
 */
#include "config.h"
#include "sass.h"

#include <stdlib.h>
#include <string.h>

static void
instr_free (gpointer p)
{
  MsSassInstr *i = p;
  g_free (i->function);
  g_free (i->file);
  g_strfreev (i->where);
  g_free (i->base);
  g_free (i->opcode);
  g_free (i);
}

void
ms_sass_free (MsSass *sass)
{
  if (sass == NULL)
    return;
  g_ptr_array_unref (sass->instrs);
  g_hash_table_unref (sass->line_counts);
  g_hash_table_unref (sass->line_predicated);
  g_hash_table_unref (sass->line_looped);
  g_ptr_array_unref (sass->loops);
  g_ptr_array_unref (sass->blocks);
  g_free (sass);
}

/* "_Z16gemm_tiled_nopadPKfS0_Pfiii" -> "gemm_tiled_nopad"; an unmangled
 * (extern "C") name stays as it is. */
static char *
demangle_identifier (const char *mangled)
{
  if (g_str_has_prefix (mangled, "_Z"))
    {
      char *end;
      long len = strtol (mangled + 2, &end, 10);
      if (end != mangled + 2 && len > 0 && (size_t) len <= strlen (end))
        return g_strndup (end, (gsize) len);
    }
  return g_strdup (mangled);
}

/* Space, op and width of an opcode; FALSE for what is no recorded access. */
static gboolean
classify (const char *opcode, guint *spaces, MsOp *op, guint *width, gboolean *cas)
{
  g_auto (GStrv) part = g_strsplit (opcode, ".", -1);
  const char *base = part[0];
  static const struct {
    const char *name;
    guint spaces;
    MsOp op;
  } kinds[] = {
    { "LDG", 1u << MS_SPACE_GLOBAL, MS_OP_LD },
    { "STG", 1u << MS_SPACE_GLOBAL, MS_OP_ST },
    { "LDS", 1u << MS_SPACE_SHARED, MS_OP_LD },
    { "STS", 1u << MS_SPACE_SHARED, MS_OP_ST },
    { "LDL", 1u << MS_SPACE_LOCAL, MS_OP_LD },
    { "STL", 1u << MS_SPACE_LOCAL, MS_OP_ST },
    { "LD", (1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED), MS_OP_LD },
    { "ST", (1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED), MS_OP_ST },
    { "LDGSTS", (1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED), MS_OP_LD },
    { "ATOMG", 1u << MS_SPACE_GLOBAL, MS_OP_ATOMIC },
    { "REDG", 1u << MS_SPACE_GLOBAL, MS_OP_ATOMIC },
    { "ATOMS", 1u << MS_SPACE_SHARED, MS_OP_ATOMIC },
    { "ATOM", (1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED), MS_OP_ATOMIC },
    { "RED", (1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED), MS_OP_ATOMIC },
  };
  gboolean known = FALSE;
  for (guint k = 0; k < G_N_ELEMENTS (kinds) && !known; k++)
    if (strcmp (base, kinds[k].name) == 0)
      {
        *spaces = kinds[k].spaces;
        *op = kinds[k].op;
        known = TRUE;
      }
  if (!known)
    return FALSE;
  *width = 4;
  *cas = FALSE;
  for (guint k = 1; part[k]; k++)
    {
      const char *s = part[k];
      if (strcmp (s, "U8") == 0 || strcmp (s, "S8") == 0)
        *width = 1;
      else if (strcmp (s, "U16") == 0 || strcmp (s, "S16") == 0)
        *width = 2;
      else if (strcmp (s, "64") == 0)
        *width = 8;
      else if (strcmp (s, "128") == 0)
        *width = 16;
      else if (strcmp (s, "CAS") == 0 || strcmp (s, "CAST") == 0)
        *cas = TRUE;
    }
  return TRUE;
}

/* The address operand: the last [...] of the instruction ("desc[UR4][R2.64+-0x8]"
 * -> "R2.64", -8; "[R6+URZ]" -> "R6+URZ", 0). */
static void
parse_address (const char *text, char **base, gint64 *offset)
{
  *offset = 0;
  const char *open = strrchr (text, '[');
  const char *close = open ? strchr (open, ']') : NULL;
  if (close == NULL)
    {
      *base = g_strdup ("");
      return;
    }
  g_autofree char *inside = g_strndup (open + 1, (gsize) (close - open - 1));
  char *plus = strchr (inside, '+');
  if (plus != NULL)
    {
      const char *num = plus + 1;
      gboolean neg = *num == '-';
      if (neg)
        num++;
      char *end;
      if (g_str_has_prefix (num, "0x"))
        {
          gint64 v = (gint64) g_ascii_strtoull (num + 2, &end, 16);
          if (end != num + 2 && *end == '\0')
            {
              *offset = neg ? -v : v;
              *plus = '\0';
            }
        }
    }
  *base = g_strdup (inside);
}

static void
loop_free (gpointer p)
{
  MsSassLoop *l = p;
  g_free (l->function);
  g_hash_table_unref (l->instrs);
  g_hash_table_unref (l->memory);
  g_hash_table_unref (l->reductions);
  g_free (l);
}

/* What a counted instruction is, for the loops (a bit set) */
enum {
  INSTR_MEMORY = 1,              /* a global or shared memory instruction */
  INSTR_PREDICATED_MEMORY = 2,   /* ... under a predicate */
  INSTR_CONTROL = 4,             /* a branch, call, exit or convergence barrier */
  INSTR_NOT_RUN = 8,             /* not counted as run (a slow path's call site, a
                                    divergent copy) */
  INSTR_TRANSPARENT = 16,        /* control that runs as straight code: the branch
                                    around a slow path's call site, and the
                                    convergence barrier (BSSY, BSYNC) around it */
  INSTR_START = 32,              /* the first after a label that starts a block */
  INSTR_REDUX = 64,              /* a warp reduction: once for each group of one mask */
};

/* Whether an instruction of kind f ends a block (a branch, exit, call or
 * convergence barrier that is not around a slow path's call site, and
 * not in code that is not counted as run). */
static gboolean
ends_block (guint8 f)
{
  return (f & INSTR_CONTROL) && !(f & (INSTR_TRANSPARENT | INSTR_NOT_RUN));
}

/* A loop's range of a function's counted instructions: [first, last]. */
typedef struct {
  guint first, last;
} Range;

/* The label instruction s jumps to ("BRA `(.L_x_2) ;": ".L_x_2"), or NULL. */
static char *
branch_target (const char *s)
{
  const char *open = strstr (s, "`(");
  const char *close = open ? strchr (open, ')') : NULL;
  return close ? g_strndup (open + 2, (gsize) (close - open - 2)) : NULL;
}

/* A branch (BRA, BRX, JMP ... `(.L_x_3)) back to a label of its function:
 * the instructions from the label to the branch are a loop's (their range
 * added to ranges). */
static void
mark_loop (const char *s, const char *opcode, GHashTable *labels, GArray *looped, GArray *ranges)
{
  if (!(g_str_has_prefix (opcode, "BR") || g_str_has_prefix (opcode, "JM")))
    return;
  g_autofree char *target = branch_target (s);
  if (target == NULL)
    return;
  guint at = GPOINTER_TO_UINT (g_hash_table_lookup (labels, target));
  for (guint i = at ? at - 1 : looped->len; i < looped->len; i++)
    g_array_index (looped, gboolean, i) = TRUE;
  if (at > 0 && at <= looped->len)
    {
      Range r = { at - 1, looped->len - 1 };
      g_array_append_val (ranges, r);
    }
}

static void
count_key (GHashTable *t, const char *key)
{
  g_hash_table_replace (t, g_strdup (key),
                        GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (t, key)) + 1));
}

/* Adds the function's instructions [first, last] to sass->loops as a
 * region (once: straight code, else a loop). */
static MsSassLoop *
add_region (GPtrArray *to, const char *function, GPtrArray *counted, GArray *kinds, guint first,
            guint last, gboolean once)
{
  MsSassLoop *l = g_new0 (MsSassLoop, 1);
  l->function = g_strdup (function);
  l->once = once;
  l->first = first;
  l->last = last;
  l->instrs = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l->memory = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  l->reductions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gsize skip = strlen (function) + 1;   /* the key's "FUNCTION\n" */
  for (guint k = first; k <= last; k++)
    {
      const char *key = (const char *) counted->pdata[k] + skip;
      guint8 kind = g_array_index (kinds, guint8, k);
      if (kind & INSTR_NOT_RUN)
        continue;
      count_key (l->instrs, key);
      /* (a region has none under a predicate: straight_with_memory) */
      if ((kind & INSTR_MEMORY) && !(kind & INSTR_PREDICATED_MEMORY))
        count_key (l->memory, key);
      if (kind & INSTR_REDUX)
        count_key (l->reductions, key);
    }
  g_ptr_array_add (to, l);
  return l;
}

/* Whether [first, last] is straight code with memory instructions: no
 * branch or exit but at `last` when last_may_branch, no memory
 * instruction under a predicate (its runs may be fewer than the code's). */
static gboolean
straight_with_memory (GArray *kinds, guint first, guint last, gboolean last_may_branch)
{
  gboolean memory = FALSE;
  for (guint k = first; k <= last; k++)
    {
      guint8 f = g_array_index (kinds, guint8, k);
      if (f & INSTR_NOT_RUN)
        continue;
      if ((f & INSTR_PREDICATED_MEMORY) || (ends_block (f) && !(k == last && last_may_branch)))
        return FALSE;
      memory = memory || (f & INSTR_MEMORY);
    }
  return memory;
}

/* The function's regions into sass->loops: its innermost loops (the
 * ranges of its backward branches, those to one label being one loop to
 * its last branch, that enclose no other) of straight code, and outside
 * every loop (looped: the instructions a backward branch encloses) its
 * basic blocks (from a label or a branch to the next) with
 * memory instructions (the copies of an unrolled loop's body that ptxas
 * runs once for the iterations its loop leaves). */
static void
add_loops (MsSass *sass, const char *function, GPtrArray *counted, GArray *looped,
           GArray *kinds, GArray *ranges, GHashTable *labels, GHashTable *targeted)
{
  for (guint i = 0; i < ranges->len; i++)
    {
      Range *r = &g_array_index (ranges, Range, i);
      for (guint j = 0; j < ranges->len; j++)
        {
          Range *o = &g_array_index (ranges, Range, j);
          if (j != i && o->first == r->first && o->last > r->last)
            r->last = o->last;
        }
    }
  guint n = MIN (MIN (counted->len, kinds->len), looped->len);
  for (guint i = 0; function != NULL && i < ranges->len; i++)
    {
      const Range *r = &g_array_index (ranges, Range, i);
      gboolean inner = TRUE, first = TRUE;
      for (guint j = 0; j < ranges->len && inner; j++)
        {
          const Range *o = &g_array_index (ranges, Range, j);
          if (o->first == r->first && o->last == r->last)
            first = first && j >= i;   /* the same loop again: once */
          else if (o->first >= r->first && o->last <= r->last)
            inner = FALSE;
        }
      if (inner && first && r->last < n && straight_with_memory (kinds, r->first, r->last, TRUE))
        add_region (sass->loops, function, counted, kinds, r->first, r->last, FALSE);
    }
  /* the basic blocks (from a label, but those around a slow path's call
   * site that no other branch jumps to): those outside the loops with
   * memory instructions are regions, and every one whose runs are known
   * is one of MsSass.blocks */
  g_autofree gboolean *starts = g_new0 (gboolean, n + 1);
  for (guint k = 0; k < n; k++)
    starts[k] = (g_array_index (kinds, guint8, k) & INSTR_START) != 0;
  GHashTableIter it;
  gpointer label, at;
  g_hash_table_iter_init (&it, labels);
  while (g_hash_table_iter_next (&it, &label, &at))
    if (GPOINTER_TO_UINT (at) >= 1 && GPOINTER_TO_UINT (at) - 1 < n
        && g_hash_table_contains (targeted, label))
      starts[GPOINTER_TO_UINT (at) - 1] = TRUE;
  for (guint b = 0; function != NULL && b < n;)
    {
      guint e = b;
      while (e + 1 < n && !starts[e + 1] && !ends_block (g_array_index (kinds, guint8, e)))
        e++;
      gboolean in_loop = FALSE, known = b == 0;
      for (guint k = b; k <= e; k++)
        {
          guint8 f = g_array_index (kinds, guint8, k);
          in_loop = in_loop || g_array_index (looped, gboolean, k);
          known = known || ((f & INSTR_MEMORY) && !(f & (INSTR_PREDICATED_MEMORY | INSTR_NOT_RUN)))
                  || ((f & INSTR_REDUX) && !(f & INSTR_NOT_RUN));
        }
      if (!in_loop && straight_with_memory (kinds, b, e, TRUE))
        add_region (sass->loops, function, counted, kinds, b, e, TRUE);
      if (known)
        add_region (sass->blocks, function, counted, kinds, b, e, FALSE)->entry = b == 0;
      b = e + 1;
    }
  g_array_set_size (kinds, 0);
  g_array_set_size (ranges, 0);
}

/* Adds delta to key's count of instructions (and of predicated ones). */
static void
line_count_add (MsSass *sass, const char *key, gboolean predicated, int delta)
{
  GHashTable *tables[] = { sass->line_counts, predicated ? sass->line_predicated : NULL };
  for (guint k = 0; k < G_N_ELEMENTS (tables) && tables[k]; k++)
    {
      guint n = GPOINTER_TO_UINT (g_hash_table_lookup (tables[k], key)) + delta;
      if (n == 0)
        g_hash_table_remove (tables[k], key);   /* a line left with no instruction has none */
      else
        g_hash_table_replace (tables[k], g_strdup (key), GUINT_TO_POINTER (n));
    }
}

/* Whether label line s (its text without the colon, n bytes) starts a
 * subroutine ptxas appends to the kernel: `$__internal_0_$__cuda_sm20_...`,
 * or one of the kernel's own (`$_Z17likelihood_kernel...$__internal_
 * accurate_pow`: a double pow Rodinia's particlefilter calls in a loop). */
static gboolean
subroutine_label (const char *s, gsize n)
{
  return n > 0 && s[0] == '$' && g_strstr_len (s, (gssize) n, "$__internal_") != NULL;
}

/* Whether instruction s (its opcode) calls one of the slow paths ptxas
 * appends to a kernel (`CALL.REL.NOINC `($__internal_0_$__cuda_sm3x_div_rn_
 * noftz_f32_slowpath)`; a double square root's "mediumpath", a double
 * division's "div_rn_f64_full"): IEEE
 * division, reciprocal and square root branch around the call, its
 * argument moves and the result's move back for every lane their fast
 * path serves, so those run only with the slow path (the engine counts
 * them then: sim/models/slow-path.c). */
static gboolean
slow_path_call (const char *opcode, const char *s)
{
  const char *callee = strstr (s, "$__internal_");
  return g_str_has_prefix (opcode, "CALL") && callee != NULL
         && (strstr (callee, "slowpath") != NULL || strstr (callee, "mediumpath") != NULL
             || strstr (callee, "_full") != NULL);
}

/* The opcode of instruction line s ("@!P0 BRA `(.L_x_1) ;": "BRA"), or
 * NULL; *guarded: it has a predicate. */
static char *
line_opcode (const char *s, gboolean *guarded)
{
  s += strspn (s, " \t");
  if (g_str_has_prefix (s, "/*"))
    {
      const char *e = strstr (s, "*/");
      if (e == NULL)
        return NULL;
      s = e + 2 + strspn (e + 2, " \t");
    }
  *guarded = s[0] == '@';
  if (*guarded)
    s += strcspn (s, " \t") + strspn (s + strcspn (s, " \t"), " \t");
  gsize n = strcspn (s, " \t;");
  if (n == 0 || !g_ascii_isupper (s[0]) || strchr (s, ';') == NULL)
    return NULL;
  return g_strndup (s, n);
}

/* The instructions of each subroutine ptxas appends to a kernel
 * (`$__internal_1_$__cuda_sm20_div_ru_f64_v2:` -> count) along its usual
 * path: from its label to its RET, past every guarded branch (the special
 * operands' exits), through every unguarded one. */
static GHashTable *
subroutine_paths (char **lines)
{
  GHashTable *paths = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) at = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n = g_strv_length (lines);
  for (guint k = 0; k < n; k++)
    {
      const char *s = lines[k] + strspn (lines[k], " \t");
      gsize len = strlen (s);
      if (len > 1 && s[len - 1] == ':' && (s[0] == '.' || subroutine_label (s, len - 1)))
        g_hash_table_replace (at, g_strndup (s, len - 1), GUINT_TO_POINTER (k + 1));
    }
  GHashTableIter it;
  gpointer name, where;
  g_hash_table_iter_init (&it, at);
  while (g_hash_table_iter_next (&it, &name, &where))
    {
      if (!subroutine_label (name, strlen (name)))
        continue;
      guint count = 0, steps = 0;
      for (guint k = GPOINTER_TO_UINT (where); k < n && steps < 100000; k++, steps++)
        {
          gboolean guarded;
          g_autofree char *op = line_opcode (lines[k], &guarded);
          if (op == NULL || g_str_has_prefix (op, "NOP"))
            continue;
          count++;
          if (g_str_has_prefix (op, "RET") || g_str_has_prefix (op, "EXIT"))
            break;
          g_autofree char *target = strcmp (op, "BRA") == 0 && !guarded ? branch_target (lines[k])
                                                                         : NULL;
          guint to = target ? GPOINTER_TO_UINT (g_hash_table_lookup (at, target)) : 0;
          if (to > 0)
            k = to - 1;   /* the loop's k++ makes it the label's next line */
        }
      g_hash_table_replace (paths, g_strdup (name), GUINT_TO_POINTER (count));
    }
  return paths;
}

/* The function's looped instructions into sass->line_looped, by key; then
 * starts over for the next function. */
static void
add_looped (MsSass *sass, const char *function, GPtrArray *counted, GArray *looped,
            GArray *kinds, GArray *ranges, GHashTable *labels, GHashTable *targeted)
{
  add_loops (sass, function, counted, looped, kinds, ranges, labels, targeted);
  for (guint i = 0; i < counted->len; i++)
    if (g_array_index (looped, gboolean, i))
      {
        const char *key = counted->pdata[i];
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (sass->line_looped, key));
        g_hash_table_replace (sass->line_looped, g_strdup (key), GUINT_TO_POINTER (n + 1));
      }
  g_ptr_array_set_size (counted, 0);
  g_array_set_size (looped, 0);
  g_hash_table_remove_all (labels);
  g_hash_table_remove_all (targeted);
}

MsSass *
ms_sass_parse (const char *text)
{
  MsSass *sass = g_new0 (MsSass, 1);
  sass->instrs = g_ptr_array_new_with_free_func (instr_free);
  sass->line_counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sass->line_predicated = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sass->line_looped = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sass->loops = g_ptr_array_new_with_free_func (loop_free);
  sass->blocks = g_ptr_array_new_with_free_func (loop_free);
  /* the function's counted instructions (their keys), whether a backward
   * branch encloses each, and where its labels are (label -> index + 1) */
  g_autoptr (GPtrArray) counted = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GArray) looped = g_array_new (FALSE, TRUE, sizeof (gboolean));
  /* ... what each is (INSTR_*), and the ranges of its loops (Range) */
  g_autoptr (GArray) kinds = g_array_new (FALSE, TRUE, sizeof (guint8));
  g_autoptr (GArray) ranges = g_array_new (FALSE, FALSE, sizeof (Range));
  g_autoptr (GHashTable) labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_auto (GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  /* what a call of a subroutine that is no slow path (a double division
   * rounded up or down, always a call) runs: counted at the call's line */
  g_autoptr (GHashTable) paths = subroutine_paths (lines);
  /* the last label, and whether an instruction came after it (a branch to
   * it right after it is the closing loop nvdisasm shows, never run) */
  g_autofree char *label = NULL;
  gboolean after_label = FALSE;
  guint block = 0;   /* MsSassInstr.block */
  /* inside a subroutine ptxas appends to the kernel ($__internal_...: the
   * slow paths of division, square root, ... which a CALL reaches only for
   * rare operands): its instructions are not counted as run */
  gboolean slow_path = FALSE;
  /* the instructions since the last label or conditional branch (their
   * keys; "\1" before a predicated one's), and whether they, up to the
   * next label, are the call site of a slow path (the branch skips them
   * for every lane the fast path served: slow_path_call) */
  g_autoptr (GPtrArray) run = g_ptr_array_new_with_free_func (g_free);
  guint run_first = 0;   /* the first of them, in counted */
  gboolean call_site = FALSE;
  /* the code around a call site runs as straight code (INSTR_TRANSPARENT):
   * the last conditional branch (its index in counted, -1 none, and
   * target), which skips the call site when it is the one before it; the
   * labels such branches jump to, which a BSYNC follows that ends the
   * BSSY (by its target label: its index + 1) before the branch; the
   * branches to each label (label -> count: a label that one jumps to
   * starts a block) */
  int guard = -1;
  g_autofree char *guard_target = NULL;
  g_autoptr (GHashTable) guard_labels = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                               NULL);
  g_autoptr (GHashTable) bssy_at = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GHashTable) targeted = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  gboolean after_guard_label = FALSE, after_slow_bsync = FALSE, start = FALSE;
  /* the labels BRA.DIV jumps to, and whether the instructions are from
   * one to the branch back: the copy of a collective's code (a shuffle
   * loop's) that ptxas lays out after the exit for a warp that is not
   * converged there.  A converged warp runs the copy in line, so this one
   * is not counted as run (warp-wide shuffles run converged) */
  g_autoptr (GHashTable) divergent_entries = g_hash_table_new_full (g_str_hash, g_str_equal,
                                                                    g_free, NULL);
  gboolean divergent = FALSE;
  g_autofree char *function = NULL;
  g_autofree char *file = g_strdup ("");
  int line = 0;
  /* the line mark's locations, innermost first: "gemm.cu:91" */
  g_autoptr (GPtrArray) where = g_ptr_array_new_with_free_func (g_free);
  gboolean in_marks = FALSE;   /* the line before was a mark */
  for (char **lp = lines; *lp; lp++)
    {
      const char *s = *lp;
      while (*s == ' ' || *s == '\t')
        s++;
      if (g_str_has_prefix (s, ".text."))
        {
          /* .text.MANGLED:  (the header line nvdisasm prints per function) */
          g_autofree char *name = g_strdup (s + 6);
          char *colon = strchr (name, ':');
          if (colon == NULL || colon[1] != '\0')
            continue;
          add_looped (sass, function, counted, looped, kinds, ranges, labels, targeted);
          *colon = '\0';
          g_free (function);
          function = demangle_identifier (name);
          g_free (file);
          file = g_strdup ("");
          line = 0;
          g_ptr_array_set_size (where, 0);
          g_clear_pointer (&label, g_free);
          run_first = 0;
          guard = -1;
          g_hash_table_remove_all (guard_labels);
          g_hash_table_remove_all (bssy_at);
          slow_path = FALSE;
          divergent = FALSE;
          g_hash_table_remove_all (divergent_entries);
          continue;
        }
      if (g_str_has_suffix (s, ":") && subroutine_label (s, strlen (s) - 1))
        {
          slow_path = TRUE;
          continue;
        }
      if (g_str_has_prefix (s, "//## File \""))
        {
          /* //## File "PATH", line N[ inlined at "PATH2", line M ...];
           * nvdisasm -gi writes one such mark a level of inlining,
           * innermost first, on consecutive lines ("A", line 5 inlined
           * at "B", line 9; then "B", line 9 inlined at "K", line 30;
           * then "K", line 30): one chain, each location once */
          if (!in_marks)
            g_ptr_array_set_size (where, 0);
          gboolean chain = in_marks && where->len > 0;
          in_marks = TRUE;
          const char *p = s;
          for (;;)
            {
              const char *open = strchr (p, '"');
              const char *close = open ? strchr (open + 1, '"') : NULL;
              if (close == NULL || !g_str_has_prefix (close, "\", line "))
                break;
              g_autofree char *full = g_strndup (open + 1, (gsize) (close - open - 1));
              g_autofree char *b = g_path_get_basename (full);
              int n = atoi (close + 8);
              g_autofree char *loc = g_strdup_printf ("%s:%d", b, n);
              if (where->len == 0)
                {
                  g_free (file);
                  file = g_strdup (b);
                  line = n;
                }
              gboolean seen = FALSE;
              for (guint k = 0; chain && k < where->len && !seen; k++)
                seen = strcmp (where->pdata[k], loc) == 0;
              if (!seen)
                g_ptr_array_add (where, g_steal_pointer (&loc));
              p = close + 8;
            }
          continue;
        }
      in_marks = FALSE;
      if (function == NULL)
        continue;
      if (g_str_has_prefix (s, "/*"))
        {
          const char *e = strstr (s, "*/");
          if (e == NULL)
            continue;
          s = e + 2;
        }
      g_auto (GStrv) word = g_strsplit_set (s, " \t", -1);
      gboolean was_counted = FALSE;
      const char *opcode = NULL;
      for (char **w = word; *w && opcode == NULL; w++)
        if (**w != '\0' && **w != '@' && **w != '{')
          opcode = *w;
      if (opcode != NULL && opcode[0] == '.' && g_str_has_suffix (opcode, ":"))
        {
          g_free (label);
          label = g_strndup (opcode, strlen (opcode) - 1);
          after_label = FALSE;
          block++;
          g_hash_table_replace (labels, g_strdup (label), GUINT_TO_POINTER (counted->len + 1));
          g_ptr_array_set_size (run, 0);
          run_first = counted->len;
          call_site = FALSE;
          if (g_hash_table_contains (guard_labels, label))
            after_guard_label = TRUE;   /* a BSYNC may follow */
          else if (after_slow_bsync)
            {
              /* the end of the BSSY around a call site */
              guint at = GPOINTER_TO_UINT (g_hash_table_lookup (bssy_at, label));
              if (at > 0 && at <= kinds->len)
                g_array_index (kinds, guint8, at - 1) |= INSTR_TRANSPARENT;
            }
          else
            start = TRUE;
          after_slow_bsync = FALSE;
          divergent = divergent || g_hash_table_contains (divergent_entries, label);
          continue;
        }
      if (opcode != NULL && g_ascii_isupper (opcode[0]) && strchr (s, ';') != NULL
          && strncmp (opcode, "NOP", 3) != 0 && !slow_path
          && !(strcmp (opcode, "BRA") == 0 && label != NULL && !after_label
               && strstr (s, label) != NULL))
        {
          g_ptr_array_add (where, NULL);
          g_autofree char *chain = g_strjoinv ("\t", (char **) where->pdata);
          g_ptr_array_set_size (where, where->len - 1);
          char *key = g_strdup_printf ("%s\n%s", function, chain);
          const char *first = s + strspn (s, " \t");
          gboolean predicated = first[0] == '@' && strcmp (opcode, "BRA") != 0;
          g_autofree char *target = branch_target (s);   /* a branch's or a call's */
          guint8 kind = call_site || divergent ? INSTR_NOT_RUN : 0;
          if (start)
            kind |= INSTR_START;
          start = FALSE;
          gboolean slow_bsync = after_guard_label && strcmp (opcode, "BSYNC") == 0;
          if (slow_bsync)
            kind |= INSTR_TRANSPARENT;
          after_guard_label = FALSE;
          if (!call_site && !divergent)
            {
              line_count_add (sass, key, predicated, 1);
              g_ptr_array_add (run, g_strconcat (predicated ? "\1" : "", key, NULL));
            }
          if (slow_path_call (opcode, s))
            {
              /* the call and what led to it are not counted as run */
              for (guint k = 0; k < run->len; k++)
                {
                  const char *r = run->pdata[k];
                  line_count_add (sass, r + (r[0] == '\1'), r[0] == '\1', -1);
                }
              g_ptr_array_set_size (run, 0);
              for (guint k = run_first; k < kinds->len; k++)
                g_array_index (kinds, guint8, k) |= INSTR_NOT_RUN;
              kind = INSTR_NOT_RUN;
              call_site = TRUE;
              if (guard >= 0 && (guint) guard + 1 == run_first && guard_target != NULL)
                {
                  /* the branch around it, and where it goes, run as straight code */
                  g_array_index (kinds, guint8, guard) |= INSTR_TRANSPARENT;
                  guint n = GPOINTER_TO_UINT (g_hash_table_lookup (targeted, guard_target));
                  if (n <= 1)
                    g_hash_table_remove (targeted, guard_target);
                  else
                    g_hash_table_replace (targeted, g_strdup (guard_target),
                                          GUINT_TO_POINTER (n - 1));
                  g_hash_table_add (guard_labels, g_strdup (guard_target));
                }
            }
          else if (strcmp (opcode, "BRA") == 0 && first[0] == '@')
            {
              g_ptr_array_set_size (run, 0);
              run_first = counted->len + 1;
              guard = (int) counted->len;
              g_free (guard_target);
              guard_target = g_strdup (target);
            }
          else if (g_str_has_prefix (opcode, "CALL") && !call_site && !divergent)
            {
              guint path = target ? GPOINTER_TO_UINT (g_hash_table_lookup (paths, target)) : 0;
              if (path > 0)
                line_count_add (sass, key, FALSE, (int) path);
            }
          g_ptr_array_add (counted, key);
          gboolean no = FALSE;
          g_array_append_val (looped, no);
          static const char *const control[] = { "BRA", "BRX", "JMP", "JMX", "EXIT", "RET",
                                                 "CALL", "BSSY", "BSYNC", "BREAK", "KILL" };
          for (guint c = 0; c < G_N_ELEMENTS (control); c++)
            if (g_str_has_prefix (opcode, control[c])
                && (opcode[strlen (control[c])] == '\0' || opcode[strlen (control[c])] == '.'))
              {
                kind |= INSTR_CONTROL;
                block++;   /* (after it: the instruction's own block is the one before) */
              }
          /* the warp splits into its groups of one mask, each running
           * this and what follows up to the BSYNC on its own (a warp
           * reduction over a mask that differs between lanes: 5
           * instructions a group on the H200,
           * gpu/measurements/h200-2026-12-01-redux-groups/) */
          if (strcmp (opcode, "WARPSYNC.EXCLUSIVE") == 0)
            kind |= INSTR_START;
          if (g_str_has_prefix (opcode, "REDUX") && first[0] != '@')
            kind |= INSTR_REDUX;
          g_array_append_val (kinds, kind);
          if (g_str_has_prefix (opcode, "BRA.DIV") && target != NULL)
            g_hash_table_add (divergent_entries, g_strdup (target));
          if (target != NULL && (g_str_has_prefix (opcode, "BR") || g_str_has_prefix (opcode, "JM")))
            count_key (targeted, target);
          if (g_str_has_prefix (opcode, "BSSY") && target != NULL)
            g_hash_table_replace (bssy_at, g_strdup (target), GUINT_TO_POINTER (counted->len));
          after_slow_bsync = slow_bsync;
          if (!divergent)
            mark_loop (s, opcode, labels, looped, ranges);
          else if (strcmp (opcode, "BRA") == 0 && first[0] != '@' && target != NULL
                   && g_hash_table_contains (labels, target))
            divergent = FALSE;   /* the copy's branch back */
          after_label = TRUE;
          was_counted = TRUE;
        }
      guint spaces, width;
      MsOp op;
      gboolean cas;
      if (opcode == NULL || !classify (opcode, &spaces, &op, &width, &cas))
        continue;
      if (was_counted && (spaces & ((1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED))))
        g_array_index (kinds, guint8, kinds->len - 1)
          |= *(s + strspn (s, " \t")) == '@' ? INSTR_MEMORY | INSTR_PREDICATED_MEMORY : INSTR_MEMORY;
      MsSassInstr *in = g_new0 (MsSassInstr, 1);
      in->function = g_strdup (function);
      in->file = g_strdup (file);
      in->line = line;
      in->where = g_new0 (char *, where->len + 1);
      for (guint k = 0; k < where->len; k++)
        in->where[k] = g_strdup (where->pdata[k]);
      in->opcode = g_strdup (opcode);
      in->spaces = spaces;
      in->op = op;
      in->width = width;
      in->cas = cas;
      /* RED, REDG: a reduction, an atomic whose result nvcc found unused */
      in->red = strncmp (opcode, "RED", 3) == 0 && (opcode[3] == '.' || opcode[3] == 'G'
                                                    || opcode[3] == '\0');
      in->predicated = FALSE;
      for (char **w = word; *w && *w != opcode; w++)
        if (**w == '@')
          in->predicated = TRUE;
      parse_address (s, &in->base, &in->offset);
      in->block = block;
      g_ptr_array_add (sass->instrs, in);
    }
  add_looped (sass, function, counted, looped, kinds, ranges, labels, targeted);
  return sass;
}

GHashTable *
ms_sass_line_counts (const MsSass *sass, const char *function, MsSassCount what)
{
  GHashTable *t = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (what == MS_SASS_MEMORY)
    {
      for (guint i = 0; i < sass->instrs->len; i++)
        {
          const MsSassInstr *in = sass->instrs->pdata[i];
          if (strcmp (in->function, function) != 0
              || !(in->spaces & ((1u << MS_SPACE_GLOBAL) | (1u << MS_SPACE_SHARED))))
            continue;
          for (char **w = in->where; w && *w; w++)
            {
              gboolean seen = FALSE;   /* a line twice in the chain: once */
              for (char **v = in->where; v != w && !seen; v++)
                seen = strcmp (*v, *w) == 0;
              if (!seen)
                g_hash_table_replace (t, g_strdup (*w),
                                      GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (t, *w)) + 1));
            }
        }
      return t;
    }
  gsize n = strlen (function);
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, what == MS_SASS_PREDICATED ? sass->line_predicated
                               : what == MS_SASS_LOOPED ? sass->line_looped : sass->line_counts);
  while (g_hash_table_iter_next (&it, &key, &value))
    if (strncmp (key, function, n) == 0 && ((const char *) key)[n] == '\n')
      g_hash_table_insert (t, g_strdup ((const char *) key + n + 1), value);
  return t;
}

int
ms_sass_registers (const char *text, const char *symbol)
{
  g_autofree char *needle = g_strconcat (MS_SASS_REGISTERS_TAG, symbol, " ", NULL);
  for (const char *at = text; (at = strstr (at, needle)) != NULL; at++)
    if (at == text || at[-1] == '\n')
      return atoi (at + strlen (needle));
  return -1;
}

gboolean
ms_sass_has_function (const MsSass *sass, const char *function)
{
  for (guint i = 0; sass && i < sass->instrs->len; i++)
    if (strcmp (((MsSassInstr *) sass->instrs->pdata[i])->function, function) == 0)
      return TRUE;
  return FALSE;
}

/* Whether list (MsSite.inner: "FILE:LINE" tab-separated) has loc. */
static gboolean
inner_has (const char *list, const char *loc)
{
  gsize n = strlen (loc);
  for (const char *p = list; (p = strstr (p, loc)) != NULL; p++)
    if ((p == list || p[-1] == '\t') && (p[n] == '\0' || p[n] == '\t'))
      return TRUE;
  return FALSE;
}

/* An unroll plan from a line's runs (ms_sass_grouping) into *g: runs of
 * lengths that halve down to >= 2, once each, beside one single access;
 * start: the runs' first offsets, which must be the same (NULL: runs of
 * basic blocks, whose copies each have their own address); predicated: a
 * predicated access among them, which rules a plan out. */
static void
unroll_plan (const guint *runs, const gint64 *start, guint n_runs, gboolean predicated,
             MsSassGrouping *g)
{
  guint lengths[64], n_lengths = 0, n_big = 0, singles = 0;
  guint first_long = n_runs, first_single = n_runs;
  gboolean once = TRUE, same_start = TRUE;
  gint64 long_start = 0;
  for (guint r = 0; r < n_runs && r < G_N_ELEMENTS (lengths); r++)
    {
      if (runs[r] == 1)
        {
          singles++;
          first_single = MIN (first_single, r);
          continue;
        }
      if (start != NULL && first_long == n_runs)
        long_start = start[r];
      else if (start != NULL && start[r] != long_start)
        same_start = FALSE;
      first_long = MIN (first_long, r);
      gboolean seen = FALSE;
      for (guint k = 0; k < n_lengths; k++)
        seen |= lengths[k] == runs[r];
      if (seen)
        once = FALSE;
      else
        {
          lengths[n_lengths++] = runs[r];
          n_big += runs[r] >= 4;
        }
    }
  gboolean plan = n_lengths >= 2 && !predicated && once && same_start && singles == 1
                  && n_lengths <= G_N_ELEMENTS (g->blocks);
  for (guint k = 0; plan && k < n_lengths; k++)
    plan = ms_exact_log2 (lengths[k]) > 0 && (k == 0 || lengths[k] * 2 == lengths[k - 1]);
  if (plan)
    {
      g->n_blocks = n_lengths;
      memcpy (g->blocks, lengths, n_lengths * sizeof lengths[0]);
      g->remainder_first = first_single < first_long;
    }
  else if (n_big >= 2 && start != NULL)
    g->compiler_dependent = TRUE;   /* unrolled copies of several sizes, no plan */
}

MsSassGrouping
ms_sass_grouping (const MsSass *sass, const char *function, const MsSite *site, MsSpace space,
                  MsOp op, guint width)
{
  MsSassGrouping g = { .fuse = 1 };
  if (sass == NULL || site == NULL || site->file == NULL)
    return g;
  g_autofree char *base = g_path_get_basename (site->file);
  g_autofree char *key = g_strdup_printf ("%s:%d", base, site->line);
  /* runs: maximal sequences (text order) of the site's width whose offsets
   * step by the width; start: their first offsets */
  guint runs[64], n_runs = 0;
  gint64 start[64];
  gboolean predicated = FALSE, one_base = TRUE;
  const MsSassInstr *prev = NULL;
  const char *base_reg = "";
  gboolean have_base = FALSE;
  /* block_runs: the unpredicated ones of each basic block (unrolled copies
   * that each compute their own address, as a global load's do); a
   * predicated one alone in its block is left out (histogram's
   * mergeHistogram64Kernel: a peeled first iteration under a predicate
   * that is off in every lane, which the GPU does not count:
   * gpu/measurements/h200-2026-12-02-source-counters) */
  guint block_runs[64], n_block_runs = 0;
  const MsSassInstr *block_prev = NULL, *pred_prev = NULL;
  gboolean pred_shared = FALSE;   /* a predicated one shares its block */
  for (guint i = 0; i < sass->instrs->len; i++)
    {
      const MsSassInstr *in = sass->instrs->pdata[i];
      if (in->op != op || !(in->spaces & (1u << space)) || strcmp (in->function, function) != 0
          || !g_strv_contains ((const char *const *) in->where, key))
        continue;
      /* inlined code: one of the site's own lines, innermost in the mark */
      if (site->inner && (in->where == NULL || in->where[0] == NULL
                          || !inner_has (site->inner, in->where[0])))
        continue;
      g.n_instrs++;
      if (op == MS_OP_ATOMIC && in->cas)
        g.contended = TRUE;
      if (op != MS_OP_ATOMIC && width > 0 && in->width > width && in->width % width == 0
          && in->width / width > g.fuse)
        g.fuse = in->width / width;
      /* runs of unrolled iterations of the site's width */
      if (in->width != width)
        continue;
      if (in->predicated)
        predicated = TRUE;
      if (!have_base)
        base_reg = in->base;
      else if (strcmp (in->base, base_reg) != 0)
        one_base = FALSE;
      have_base = TRUE;
      if (in->predicated)
        {
          pred_shared |= (block_prev && block_prev->block == in->block)
                         || (pred_prev && pred_prev->block == in->block);
          pred_prev = in;
        }
      else if (pred_prev && pred_prev->block == in->block)
        pred_shared = TRUE;
      else if (block_prev && block_prev->block == in->block)
        block_runs[n_block_runs - 1]++;
      else if (n_block_runs < G_N_ELEMENTS (block_runs))
        block_runs[n_block_runs++] = 1;
      else
        pred_shared = TRUE;   /* too many to be a loop's copies */
      if (!in->predicated)
        block_prev = in;
      if (prev && in->offset == prev->offset + (gint64) width && !in->predicated
          && !prev->predicated)
        runs[n_runs - 1]++;
      else if (n_runs < G_N_ELEMENTS (runs))
        {
          start[n_runs] = in->offset;
          runs[n_runs++] = 1;
        }
      else
        one_base = FALSE;   /* too many runs to be a loop's unrolled copies */
      prev = in;
    }
  if (g.n_instrs == 0 && site->line == 0 && space == MS_SPACE_SHARED
      && (op == MS_OP_LD || op == MS_OP_ST) && width >= 4 && width < 16
      && ms_sass_has_function (sass, function))
    {
      /* no line (.loc 0: what NVVM hoisted out of a loop), so no mark in
       * the SASS to read: ptxas makes 16-byte shared accesses of what it
       * can, so such records fuse where each lane's are contiguous and
       * aligned (lavaMD's rA_shared[wtx].v .. .z: two LDS.128) */
      g.fuse = 16 / width;
      return g;
    }
  if (g.n_instrs == 0)
    g.absorbed = (op == MS_OP_LD || op == MS_OP_ST) && ms_sass_has_function (sass, function);
  if (op == MS_OP_ATOMIC || n_runs == 0)
    return g;
  if (one_base && *base_reg != '\0')
    unroll_plan (runs, start, n_runs, predicated, &g);
  else if (!pred_shared)
    unroll_plan (block_runs, NULL, n_block_runs, FALSE, &g);
  return g;
}

char **
ms_sass_dependent_lines (const MsSass *sass, const char *function)
{
  g_autoptr (GPtrArray) out = g_ptr_array_new ();
  for (guint i = 0; sass && i < sass->instrs->len; i++)
    {
      const MsSassInstr *in = sass->instrs->pdata[i];
      if (in->op == MS_OP_ATOMIC || strcmp (in->function, function) != 0)
        continue;
      /* each location of the mark's chain may be a site */
      for (char **w = in->where; *w; w++)
        {
          const char *colon = strrchr (*w, ':');
          if (colon == NULL)
            continue;
          gboolean seen = FALSE;
          for (guint k = 0; k < out->len && !seen; k++)
            seen = strcmp (out->pdata[k], *w) == 0;
          if (seen)
            continue;
          g_autofree char *file = g_strndup (*w, (gsize) (colon - *w));
          MsSite site = { file, atoi (colon + 1), 0, -1 };
          for (int sp = 0; sp < MS_N_SPACES && !seen; sp++)
            if ((in->spaces & (1u << sp))
                && ms_sass_grouping (sass, function, &site, (MsSpace) sp, in->op, in->width)
                     .compiler_dependent)
              {
                g_ptr_array_add (out, g_strdup (*w));
                seen = TRUE;
              }
        }
    }
  if (out->len == 0)
    return NULL;
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

/* "FILE:LINE" of function's instructions that `pick` takes, each once,
 * NULL-terminated; NULL for none. */
static char **
lines_of (const MsSass *sass, const char *function,
          gboolean (*pick) (const MsSassInstr *in))
{
  g_autoptr (GPtrArray) out = g_ptr_array_new ();
  for (guint i = 0; sass && i < sass->instrs->len; i++)
    {
      const MsSassInstr *in = sass->instrs->pdata[i];
      if (!pick (in) || strcmp (in->function, function) != 0)
        continue;
      for (char **w = in->where; *w; w++)
        {
          gboolean seen = FALSE;
          for (guint k = 0; k < out->len && !seen; k++)
            seen = strcmp (out->pdata[k], *w) == 0;
          if (!seen)
            g_ptr_array_add (out, g_strdup (*w));
        }
    }
  if (out->len == 0)
    return NULL;
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

static gboolean
is_cas (const MsSassInstr *in)
{
  return in->op == MS_OP_ATOMIC && in->cas;
}

char **
ms_sass_contended_lines (const MsSass *sass, const char *function)
{
  return lines_of (sass, function, is_cas);
}

/* s[0..n) without trailing blanks, and without a // comment */
static gsize
trimmed_end (const char *s, gsize n)
{
  for (gsize i = 0; i + 1 < n; i++)
    if (s[i] == '/' && s[i + 1] == '/')
      n = i;
  while (n > 0 && g_ascii_isspace (s[n - 1]))
    n--;
  return n;
}

static gboolean
ends_with_word (const char *s, gsize n, const char *word)
{
  gsize k = strlen (word);
  return n >= k && strncmp (s + n - k, word, k) == 0
         && (n == k || !(g_ascii_isalnum (s[n - k - 1]) || s[n - k - 1] == '_'));
}

/* Does text s[0..n) end where a statement may begin? */
static gboolean
statement_start (const char *s, gsize n, const char *previous)
{
  n = trimmed_end (s, n);
  if (n == 0)
    {
      if (previous == NULL)
        return TRUE;
      gsize m = trimmed_end (previous, strlen (previous));
      if (m == 0 || previous[0] == '#')
        return TRUE;
      return statement_start (previous, m, NULL);
    }
  char c = s[n - 1];
  if (c == ';' || c == '{' || c == '}' || ends_with_word (s, n, "else"))
    return TRUE;
  if (c != ')')
    return FALSE;
  /* (void), or the condition of if/for/while */
  int depth = 0;
  gsize open = n;
  for (gsize i = n; i-- > 0;)
    {
      depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
      if (depth == 0)
        {
          open = i;
          break;
        }
    }
  if (open == n)
    return FALSE;
  g_autofree char *inside = g_strstrip (g_strndup (s + open + 1, n - open - 2));
  if (strcmp (inside, "void") == 0)
    return statement_start (s, open, previous);
  gsize before = trimmed_end (s, open);
  return ends_with_word (s, before, "if") || ends_with_word (s, before, "while")
         || ends_with_word (s, before, "for");
}

gboolean
ms_sass_source_reduction (const char *line, const char *previous)
{
  static const char *const red_ops[] = { "Add", "Sub", "Min", "Max", "And", "Or", "Xor",
                                         "Inc", "Dec", NULL };
  gboolean any = FALSE;
  gsize len = strlen (line);
  for (const char *p = strstr (line, "atomic"); p; p = strstr (p + 1, "atomic"))
    {
      if (p > line && (g_ascii_isalnum (p[-1]) || p[-1] == '_'))
        continue;
      const char *name = p + 6, *e = name;
      while (g_ascii_isalnum (*e) || *e == '_')
        e++;
      const char *call = e;
      while (*call == ' ' || *call == '\t')
        call++;
      if (e == name || *call != '(')
        continue;
      gboolean red_op = FALSE;
      for (const char *const *o = red_ops; *o && !red_op; o++)
        red_op = strncmp (name, *o, strlen (*o)) == 0
                 && (name + strlen (*o) == e || name[strlen (*o)] == '_');
      if (!red_op || !statement_start (line, (gsize) (p - line), previous))
        return FALSE;
      /* the call's end: `;` next, or the line ends inside it */
      int depth = 0;
      const char *q = call;
      for (; *q; q++)
        {
          depth += *q == '(' ? 1 : *q == ')' ? -1 : 0;
          if (depth == 0)
            break;
        }
      if (*q == ')')
        {
          gsize rest = trimmed_end (q + 1, len - (gsize) (q + 1 - line));
          const char *r = q + 1;
          while (rest > 0 && g_ascii_isspace (*r))
            r++, rest--;
          if (rest == 0 || *r != ';')
            return FALSE;
        }
      any = TRUE;
    }
  return any;
}

char **
ms_sass_reduction_lines (const MsSass *sass, const char *function)
{
  g_autoptr (GHashTable) lines = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr (GPtrArray) order = g_ptr_array_new ();
  for (guint i = 0; sass && i < sass->instrs->len; i++)
    {
      const MsSassInstr *in = sass->instrs->pdata[i];
      if (in->op != MS_OP_ATOMIC || !(in->spaces & (1u << MS_SPACE_GLOBAL))
          || strcmp (in->function, function) != 0)
        continue;
      for (char **w = in->where; *w; w++)
        {
          gpointer old = NULL;
          gboolean seen = g_hash_table_lookup_extended (lines, *w, NULL, &old);
          /* 1: only RED so far; 2: an ATOM too */
          if (!seen)
            {
              char *key = g_strdup (*w);
              g_hash_table_insert (lines, key, GINT_TO_POINTER (in->red ? 1 : 2));
              g_ptr_array_add (order, key);
            }
          else if (!in->red)
            g_hash_table_insert (lines, g_strdup (*w), GINT_TO_POINTER (2));
        }
    }
  g_autoptr (GPtrArray) out = g_ptr_array_new ();
  for (guint k = 0; k < order->len; k++)
    if (GPOINTER_TO_INT (g_hash_table_lookup (lines, order->pdata[k])) == 1)
      g_ptr_array_add (out, g_strdup (order->pdata[k]));
  if (out->len == 0)
    return NULL;
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

const MsSass *
ms_kernel_sass (void)
{
  static MsSass *sass;
  static gsize once;
  if (g_once_init_enter (&once))
    {
      if (ms_kernel_sass_text[0] != '\0')
        sass = ms_sass_parse (ms_kernel_sass_text);
      g_once_init_leave (&once, 1);
    }
  return sass;
}

/* A function's section of ms_kernel_sass_text: from its `.text.MANGLED:`
 * header line to the next header. */
typedef struct {
  char *function;
  gsize start, end;
} Section;

static GArray *
kernel_sass_sections (void)
{
  static GArray *sections;
  static gsize once;
  if (g_once_init_enter (&once))
    {
      GArray *a = g_array_new (FALSE, FALSE, sizeof (Section));
      const char *text = ms_kernel_sass_text;
      for (const char *l = text; *l; )
        {
          const char *nl = strchr (l, '\n');
          gsize len = nl ? (gsize) (nl - l) : strlen (l);
          const char *s = l;
          while (*s == ' ' || *s == '\t')
            s++;
          /* the header ms_sass_parse recognises: ".text.NAME:" and nothing after */
          if (g_str_has_prefix (s, ".text.") && len >= (gsize) (s - l) + 7 && l[len - 1] == ':')
            {
              g_autofree char *name = g_strndup (s + 6, len - (gsize) (s - l) - 7);
              if (strchr (name, ':') == NULL)
                {
                  if (a->len > 0)
                    g_array_index (a, Section, a->len - 1).end = (gsize) (l - text);
                  Section sec = { demangle_identifier (name), (gsize) (l - text), 0 };
                  g_array_append_val (a, sec);
                }
            }
          l += len + (nl != NULL);
        }
      if (a->len > 0)
        g_array_index (a, Section, a->len - 1).end = strlen (text);
      sections = a;
      g_once_init_leave (&once, 1);
    }
  return sections;
}

const MsSass *
ms_kernel_sass_function (const char *function)
{
  static GMutex lock;
  static GHashTable *parsed;   /* function -> MsSass, kept for the process */
  if (ms_kernel_sass_text[0] == '\0')
    return NULL;
  GArray *sections = kernel_sass_sections ();
  g_mutex_lock (&lock);
  if (parsed == NULL)
    parsed = g_hash_table_new (g_str_hash, g_str_equal);
  MsSass *sass = g_hash_table_lookup (parsed, function);
  if (sass == NULL)
    {
      g_autoptr (GString) text = g_string_new (NULL);
      for (guint i = 0; i < sections->len; i++)
        {
          const Section *sec = &g_array_index (sections, Section, i);
          if (strcmp (sec->function, function) == 0)
            g_string_append_len (text, ms_kernel_sass_text + sec->start,
                                 (gssize) (sec->end - sec->start));
        }
      sass = ms_sass_parse (text->str);
      g_hash_table_insert (parsed, g_strdup (function), sass);
    }
  g_mutex_unlock (&lock);
  return sass;
}
