/* ptx-read.c - the PTX reader: text to MsPtxModule (ptx.h).
 *
 * A statement-level parser: tokens up to ';', '{', '}' or a label's ':'.
 * Directives it has no use for (.version, .target, .pragma, .maxntid ...)
 * are skipped; a .section (debug info) is skipped with its braces.  Every
 * error names the file and line and what was expected: bad input never
 * crashes the reader (tests/fuzz/fuzz-ptx.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ptx.h"
#include "ptx-cas-loops.h"
#include "ptx-program.h"

G_DEFINE_QUARK (ms-ptx-error-quark, ms_ptx_error)

/* ------------------------------------------------------------ tokens */

typedef enum { T_END, T_IDENT, T_INT, T_FLOAT, T_STRING, T_PUNCT } TokKind;

typedef struct {
  TokKind kind;
  const char *s;   /* into the text */
  gsize len;
  int line;
  guint64 ival;
  double fval;
  gboolean f32;
} Tok;

typedef struct {
  const char *path, *p, *end;
  int line;
  Tok t;           /* the current token */
  GError **error;
  gboolean failed;
} Lexer;

static gboolean
ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_' || c == '$' || c == '%' || c == '.';
}

static void
fail (Lexer *x, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
static void
fail (Lexer *x, const char *fmt, ...)
{
  if (x->failed)
    return;
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_set_error (x->error, MS_PTX_ERROR, MS_PTX_ERROR_SYNTAX, "%s:%d: %s", x->path, x->t.line,
               msg);
  x->failed = TRUE;
}

static void
next (Lexer *x)
{
  const char *p = x->p, *e = x->end;
  for (;;)
    {
      while (p < e && g_ascii_isspace (*p))
        x->line += *p++ == '\n';
      if (p + 1 < e && p[0] == '/' && p[1] == '/')
        {
          while (p < e && *p != '\n')
            p++;
          continue;
        }
      if (p + 1 < e && p[0] == '/' && p[1] == '*')
        {
          p += 2;
          while (p + 1 < e && !(p[0] == '*' && p[1] == '/'))
            x->line += *p++ == '\n';
          p = p + 1 < e ? p + 2 : e;
          continue;
        }
      break;
    }
  Tok t = { .line = x->line, .s = p };
  if (p >= e || *p == '\0')
    t.kind = T_END;
  else if (*p == '"')
    {
      const char *q = p + 1;
      while (q < e && *q != '"' && *q != '\n')
        q++;
      t.kind = T_STRING;
      t.s = p + 1;
      t.len = (gsize) (q - p - 1);
      p = q < e && *q == '"' ? q + 1 : q;
    }
  else if (g_ascii_isdigit (*p))
    {
      const char *q = p;
      while (q < e && (g_ascii_isalnum (*q) || *q == '.'))
        q++;
      t.len = (gsize) (q - p);
      char buf[64];
      gsize n = MIN (t.len, sizeof buf - 1);
      memcpy (buf, p, n);
      buf[n] = '\0';
      if ((buf[1] == 'f' || buf[1] == 'F') && buf[0] == '0' && n == 10)
        {
          guint32 bits = (guint32) g_ascii_strtoull (buf + 2, NULL, 16);
          float f;
          memcpy (&f, &bits, 4);
          t.kind = T_FLOAT;
          t.fval = f;
          t.f32 = TRUE;
        }
      else if ((buf[1] == 'd' || buf[1] == 'D') && buf[0] == '0' && n == 18)
        {
          guint64 bits = g_ascii_strtoull (buf + 2, NULL, 16);
          double d;
          memcpy (&d, &bits, 8);
          t.kind = T_FLOAT;
          t.fval = d;
        }
      else if (strchr (buf, '.') != NULL || ((strchr (buf, 'e') || strchr (buf, 'E'))
                                             && !(buf[1] == 'x' || buf[1] == 'X')))
        {
          t.kind = T_FLOAT;
          t.fval = g_ascii_strtod (buf, NULL);
        }
      else
        {
          char *endp = NULL;
          gboolean hex = buf[1] == 'x' || buf[1] == 'X';
          t.kind = T_INT;
          t.ival = g_ascii_strtoull (hex ? buf + 2 : buf, &endp, hex ? 16 : 10);
          if (endp && *endp == 'U')
            endp++;
          if (endp == NULL || *endp != '\0')
            t.kind = T_PUNCT;   /* not a number: an error where it is used */
        }
      p = q;
    }
  else if (ident_char (*p))
    {
      const char *q = p;
      while (q < e && (ident_char (*q) || (q + 1 < e && q[0] == ':' && q[1] == ':')))
        q += q[0] == ':' ? 2 : 1;
      t.kind = T_IDENT;
      t.len = (gsize) (q - p);
      p = q;
    }
  else
    {
      t.kind = T_PUNCT;
      t.len = 1;
      p++;
    }
  if (t.kind != T_STRING && t.kind != T_END && t.len == 0)
    t.len = (gsize) (p - t.s);
  x->p = p;
  x->t = t;
}

static gboolean
is (const Lexer *x, const char *s)
{
  gsize n = strlen (s);
  return x->t.kind != T_END && x->t.kind != T_STRING && x->t.len == n
         && memcmp (x->t.s, s, n) == 0;
}

static gboolean
accept (Lexer *x, const char *s)
{
  if (!is (x, s))
    return FALSE;
  next (x);
  return TRUE;
}

static gboolean
expect (Lexer *x, const char *s)
{
  if (accept (x, s))
    return TRUE;
  fail (x, "expected '%s' here, found '%.*s'", s, (int) MIN (x->t.len, 40), x->t.s);
  return FALSE;
}

static char *
tok_str (const Tok *t)
{
  return g_strndup (t->s, t->len);
}

/* ------------------------------------------------------------ types */

guint
ms_ptx_type_size (const char *t)
{
  static const struct { const char *n; guint s; } types[] = {
    { "b8", 1 }, { "u8", 1 }, { "s8", 1 }, { "b16", 2 }, { "u16", 2 }, { "s16", 2 },
    { "f16", 2 }, { "bf16", 2 }, { "b32", 4 }, { "u32", 4 }, { "s32", 4 }, { "f32", 4 },
    { "f16x2", 4 }, { "bf16x2", 4 }, { "u16x2", 4 }, { "s16x2", 4 }, { "tf32", 4 }, { "b64", 8 }, { "u64", 8 }, { "s64", 8 },
    { "f64", 8 }, { "b128", 16 }, { "pred", 1 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (t, types[i].n) == 0)
      return types[i].s;
  return 0;
}

gboolean
ms_ptx_has_mod (const MsPtxInsn *i, const char *m)
{
  for (char **p = i->mods; p && *p; p++)
    if (strcmp (*p, m) == 0)
      return TRUE;
  return FALSE;
}

/* ------------------------------------------------------------ module */

static void
var_clear (gpointer p)
{
  MsPtxVar *v = p;
  g_free (v->name);
  g_free (v->init);
}

void
ms_ptx_insn_clear (gpointer p)
{
  MsPtxInsn *i = p;
  g_free (i->label);
  g_free (i->op);
  g_strfreev (i->mods);
  for (guint k = 0; k < i->n_opd; k++)
    g_free (i->opd[k].sym);
  g_free (i->opd);
}

static void
reg_clear (gpointer p)
{
  g_free (((MsPtxReg *) p)->name);
}

static void
func_free (gpointer p)
{
  MsPtxFunc *f = p;
  g_free (f->name);
  g_array_unref (f->params);
  g_array_unref (f->rets);
  g_array_unref (f->regs);
  g_array_unref (f->vars);
  g_array_unref (f->insns);
  g_free (f);
}

static MsPtxFunc *
func_new (void)
{
  MsPtxFunc *f = g_new0 (MsPtxFunc, 1);
  f->params = g_array_new (FALSE, TRUE, sizeof (MsPtxVar));
  g_array_set_clear_func (f->params, var_clear);
  f->rets = g_array_new (FALSE, TRUE, sizeof (MsPtxVar));
  g_array_set_clear_func (f->rets, var_clear);
  f->regs = g_array_new (FALSE, TRUE, sizeof (MsPtxReg));
  g_array_set_clear_func (f->regs, reg_clear);
  f->vars = g_array_new (FALSE, TRUE, sizeof (MsPtxVar));
  g_array_set_clear_func (f->vars, var_clear);
  f->insns = g_array_new (FALSE, TRUE, sizeof (MsPtxInsn));
  g_array_set_clear_func (f->insns, ms_ptx_insn_clear);
  return f;
}

void
ms_ptx_module_free (MsPtxModule *m)
{
  if (m == NULL)
    return;
  g_free (m->path);
  g_ptr_array_unref (m->files);
  g_array_unref (m->vars);
  g_ptr_array_unref (m->funcs);
  g_free (m);
}

/* ------------------------------------------------------------ declarations */

typedef struct {
  Lexer x;
  MsPtxModule *m;
  MsPtxFunc *f;          /* the function being read */
  GPtrArray *scopes;     /* GHashTable * name -> reg index + 1, innermost last */
  int loc_file, loc_line;
  int loc_inner_file, loc_inner_line;   /* MsPtxInsn.inner_file, inner_line */
  guint scope_serial;
} Reader;

/* The space and type of a declaration's leading directives; FALSE at the
 * first token that is neither. */
typedef struct {
  gboolean is_space, external, visible;
  MsPtxSpace space;
  guint align, elem;
  gboolean is_reg;
  MsPtxRegClass cls;
  gboolean v;            /* .v2/.v4 vector declarations: elem * n */
  guint vn;
} DeclHead;

static MsPtxRegClass
class_of (guint size, gboolean pred)
{
  return pred ? MS_PTX_PRED : size <= 2 ? MS_PTX_B16 : size <= 4 ? MS_PTX_B32 : MS_PTX_B64;
}

/* A word of a declaration's head that needs nothing after it (a space,
 * .reg, .extern, visibility, a vector, a type): applied to h, TRUE; else
 * FALSE. */
static gboolean
head_word (DeclHead *h, const char *n)
{
  if (strcmp (n, "global") == 0) { h->is_space = TRUE; h->space = MS_PTX_SPACE_GLOBAL; }
  else if (strcmp (n, "const") == 0) { h->is_space = TRUE; h->space = MS_PTX_SPACE_CONST; }
  else if (strcmp (n, "shared") == 0) { h->is_space = TRUE; h->space = MS_PTX_SPACE_SHARED; }
  else if (strcmp (n, "local") == 0) { h->is_space = TRUE; h->space = MS_PTX_SPACE_LOCAL; }
  else if (strcmp (n, "param") == 0) { h->is_space = TRUE; h->space = MS_PTX_SPACE_PARAM; }
  else if (strcmp (n, "reg") == 0) h->is_reg = TRUE;
  else if (strcmp (n, "extern") == 0) h->external = TRUE;
  else if (strcmp (n, "visible") == 0 || strcmp (n, "weak") == 0
           || strcmp (n, "common") == 0 || strcmp (n, "ptr") == 0)
    h->visible = TRUE;
  else if (n[0] == 'v' && (strcmp (n, "v2") == 0 || strcmp (n, "v4") == 0
                           || strcmp (n, "v8") == 0))
    {
      h->v = TRUE;
      h->vn = (guint) (n[1] - '0');
    }
  else if (ms_ptx_type_size (n) != 0)
    {
      h->elem = ms_ptx_type_size (n);
      h->cls = class_of (h->elem, strcmp (n, "pred") == 0);
    }
  else
    return FALSE;
  return TRUE;
}

static void
read_head (Reader *r, DeclHead *h)
{
  Lexer *x = &r->x;
  memset (h, 0, sizeof *h);
  while (!x->failed && x->t.kind == T_IDENT && x->t.s[0] == '.')
    {
      g_autofree char *d = tok_str (&x->t);
      const char *n = d + 1;
      if (strchr (n, '.') != NULL)
        {
          /* words written together (".reg.b32", as CUDA's headers' inline
           * asm declares its scratch registers): all of them simple, or
           * another directive */
          g_auto (GStrv) words = g_strsplit (n, ".", -1);
          DeclHead all = *h;
          for (char **w = words; *w; w++)
            if (!head_word (&all, *w))
              return;
          *h = all;
        }
      else if (head_word (h, n))
        ;
      else if (strcmp (n, "align") == 0)
        {
          next (x);
          if (x->t.kind != T_INT || x->t.ival == 0 || x->t.ival > 4096
              || (x->t.ival & (x->t.ival - 1)) != 0)
            {
              fail (x, "expected an alignment (a power of two) after .align");
              return;
            }
          h->align = (guint) x->t.ival;
        }
      else if (strncmp (n, "attribute", 9) == 0 || strcmp (n, "managed") == 0)
        {
          /* .attribute(.managed) */
          next (x);
          if (accept (x, "("))
            {
              while (!x->failed && x->t.kind != T_END && !is (x, ")"))
                next (x);
              expect (x, ")");
            }
          continue;
        }
      else
        return;   /* another directive: the caller's */
      next (x);
    }
}

static int
reg_lookup (Reader *r, const char *name)
{
  for (guint s = r->scopes->len; s-- > 0;)
    {
      gpointer v = g_hash_table_lookup (g_ptr_array_index (r->scopes, s), name);
      if (v != NULL)
        return GPOINTER_TO_INT (v) - 1;
    }
  return -1;
}

static void
reg_add (Reader *r, const char *name, MsPtxRegClass cls)
{
  GHashTable *scope = g_ptr_array_index (r->scopes, r->scopes->len - 1);
  MsPtxReg g = { NULL, cls };
  /* a register of a nested scope gets a name of its own */
  g.name = r->scopes->len > 1 ? g_strdup_printf ("%s_s%u", name, r->scope_serial)
                              : g_strdup (name);
  g_array_append_val (r->f->regs, g);
  g_hash_table_insert (scope, g_strdup (name), GINT_TO_POINTER (r->f->regs->len));
}

/* .reg .TYPE %a, %b<N>, ...; */
static void
read_regs (Reader *r, const DeclHead *h)
{
  Lexer *x = &r->x;
  if (h->elem == 0)
    {
      fail (x, "expected a type in the .reg declaration");
      return;
    }
  do
    {
      if (x->t.kind != T_IDENT)
        {
          fail (x, "expected a register name");
          return;
        }
      g_autofree char *name = tok_str (&x->t);
      next (x);
      if (accept (x, "<"))
        {
          if (x->t.kind != T_INT || x->t.ival > 1000000)
            {
              fail (x, "expected a register count");
              return;
            }
          guint64 n = x->t.ival;
          next (x);
          if (!expect (x, ">"))
            return;
          for (guint64 k = 0; k < n; k++)
            {
              g_autofree char *one = g_strdup_printf ("%s%" G_GUINT64_FORMAT, name, k);
              reg_add (r, one, h->cls);
            }
        }
      else
        reg_add (r, name, h->cls);
    }
  while (!x->failed && accept (x, ","));
  expect (x, ";");
}

static gboolean
store_init (guint8 *buf, gsize size, gsize *at, guint elem, double f, guint64 i, gboolean is_float)
{
  if (*at + elem > size)
    return FALSE;
  if (is_float && elem == 4)
    {
      float v = (float) f;
      memcpy (buf + *at, &v, 4);
    }
  else if (is_float && elem == 8)
    memcpy (buf + *at, &f, 8);
  else
    memcpy (buf + *at, &i, elem);   /* little-endian, as the GPU */
  *at += elem;
  return TRUE;
}

/* The index in the module of the first function named (name, len)
 * declared so far, or -1. */
static int
func_index (Reader *r, const char *name, gsize len)
{
  for (guint k = 0; k < r->m->funcs->len; k++)
    {
      const MsPtxFunc *f = g_ptr_array_index (r->m->funcs, k);
      if (strlen (f->name) == len && strncmp (f->name, name, len) == 0)
        return (int) k;
    }
  return -1;
}

/* name[N][M]... = init ; */
static void
read_var (Reader *r, const DeclHead *h, GArray *into)
{
  Lexer *x = &r->x;
  if (h->elem == 0)
    {
      fail (x, "expected a type in the variable declaration");
      return;
    }
  if (x->t.kind != T_IDENT)
    {
      fail (x, "expected a variable name");
      return;
    }
  MsPtxVar v = { 0 };
  v.name = tok_str (&x->t);
  v.space = h->space;
  v.elem = h->elem * (h->v ? h->vn : 1);
  v.align = h->align ? h->align : v.elem;
  v.external = h->external;
  next (x);
  gsize n = 1;
  gboolean open = FALSE;
  while (!x->failed && accept (x, "["))
    {
      if (accept (x, "]"))
        {
          open = TRUE;   /* extern dynamic array, or sized by its initializer */
          n = 0;
          continue;
        }
      if (x->t.kind != T_INT || x->t.ival == 0 || x->t.ival > ((guint64) 1 << 34))
        {
          fail (x, "expected an array size");
          break;
        }
      n *= x->t.ival;
      next (x);
      expect (x, "]");
    }
  v.size = n * v.elem;
  if (!x->failed && accept (x, "="))
    {
      GArray *vals = g_array_new (FALSE, FALSE, sizeof (guint8));
      gboolean brace = accept (x, "{");
      int depth = brace ? 1 : 0;
      while (!x->failed)
        {
          if (brace && accept (x, "{"))
            {
              depth++;
              continue;
            }
          if (brace && accept (x, "}"))
            {
              if (--depth == 0)
                break;
              continue;
            }
          if (accept (x, ","))
            continue;
          if (!brace && (is (x, ";")))
            break;
          gboolean minus = accept (x, "-");
          guint8 tmp[8];
          gsize at = 0;
          if (x->t.kind == T_INT)
            store_init (tmp, 8, &at, v.elem > 8 ? 8 : v.elem, 0,
                        minus ? (guint64) -(gint64) x->t.ival : x->t.ival, FALSE);
          else if (x->t.kind == T_FLOAT)
            store_init (tmp, 8, &at, v.elem > 8 ? 8 : v.elem, minus ? -x->t.fval : x->t.fval, 0,
                        TRUE);
          else if (x->t.kind == T_IDENT && func_index (r, x->t.s, x->t.len) >= 0
                   && v.elem == 8)
            {
              /* a function's address (a virtual function table) */
              store_init (tmp, 8, &at, 8, 0,
                          MS_PTX_FUNC_ADDR ((guint) func_index (r, x->t.s, x->t.len)), FALSE);
            }
          else if (x->t.kind == T_IDENT)
            {
              /* a variable's address (generic(sym)): not supported as data */
              fail (x, "initialiser of '%s' holds an address; memsim reads numbers only",
                    v.name);
              break;
            }
          else
            {
              fail (x, "expected a number in the initialiser of '%s'", v.name);
              break;
            }
          g_array_append_vals (vals, tmp, at);
          next (x);
          if (!brace)
            break;
        }
      if (open)
        v.size = vals->len;
      if (!x->failed)
        {
          v.init = g_malloc0 (MAX (v.size, 1));
          if (vals->len > 0)   /* "= {}": zeros */
            memcpy (v.init, vals->data, MIN (v.size, vals->len));
        }
      g_array_unref (vals);
    }
  if (x->failed)
    {
      var_clear (&v);
      return;
    }
  g_array_append_val (into, v);
}

/* ------------------------------------------------------------ instructions */

static gboolean
read_operand (Reader *r, MsPtxOperand *o)
{
  Lexer *x = &r->x;
  memset (o, 0, sizeof *o);
  o->reg = o->reg2 = -1;
  if (accept (x, "["))
    {
      o->kind = MS_PTX_OPD_ADDR;
      if (x->t.kind == T_IDENT)
        {
          g_autofree char *n = tok_str (&x->t);
          int reg = reg_lookup (r, n);
          if (reg >= 0)
            o->reg = reg;
          else
            o->sym = g_steal_pointer (&n);
          next (x);
          if (is (x, "+") || is (x, "-"))
            {
              gboolean minus = is (x, "-");
              next (x);
              if (accept (x, "-"))
                minus = !minus;
              if (x->t.kind != T_INT)
                {
                  fail (x, "expected an offset in the address");
                  return FALSE;
                }
              o->imm = minus ? -(gint64) x->t.ival : (gint64) x->t.ival;
              next (x);
            }
        }
      else if (x->t.kind == T_INT)
        {
          o->imm = (gint64) x->t.ival;
          next (x);
        }
      else
        {
          fail (x, "expected a register, a variable or a number in the address");
          return FALSE;
        }
      /* a texture's or surface's coordinates: [tex, {x, y}] in vec; n_vec
       * -1: a form the engine does not keep ([tex, sampler, {...}], an
       * immediate coordinate) */
      if (accept (x, ","))
        {
          o->n_vec = -1;
          int depth = 0;
          if (accept (x, "{"))
            {
              depth = 1;
              int n = 0, reg = -1;
              do
                {
                  g_autofree char *c = x->t.kind == T_IDENT ? tok_str (&x->t) : NULL;
                  reg = c == NULL ? -1 : strcmp (c, "_") == 0 ? G_MAXINT : reg_lookup (r, c);
                  if (reg < 0 || n == 8)
                    break;
                  if (reg == G_MAXINT)
                    reg = -1;   /* _: a coordinate the geometry ignores */
                  o->vec[n++] = reg;
                  next (x);
                }
              while (accept (x, ","));
              if (n > 0 && accept (x, "}"))
                {
                  o->n_vec = n;
                  depth = 0;
                }
            }
          while (!x->failed && x->t.kind != T_END && !(depth == 0 && is (x, "]")))
            {
              depth += is (x, "{") - is (x, "}");
              next (x);
            }
        }
      return expect (x, "]");
    }
  if (accept (x, "{"))
    {
      o->kind = MS_PTX_OPD_VEC;
      do
        {
          if (o->n_vec == 8)
            {
              fail (x, "more than 8 registers in a vector");
              return FALSE;
            }
          if (accept (x, "_"))
            {
              o->vec[o->n_vec++] = -1;
              continue;
            }
          g_autofree char *n = x->t.kind == T_IDENT ? tok_str (&x->t) : NULL;
          int reg = n ? reg_lookup (r, n) : -1;
          if (reg < 0)
            {
              fail (x, "expected a register in the vector");
              return FALSE;
            }
          o->vec[o->n_vec++] = reg;
          next (x);
        }
      while (accept (x, ","));
      return expect (x, "}");
    }
  if (accept (x, "!"))
    o->neg = TRUE;
  gboolean minus = accept (x, "-");
  if (x->t.kind == T_INT)
    {
      o->kind = MS_PTX_OPD_IMM;
      o->imm = minus ? -(gint64) x->t.ival : (gint64) x->t.ival;
      next (x);
      return TRUE;
    }
  if (x->t.kind == T_FLOAT)
    {
      o->kind = MS_PTX_OPD_FIMM;
      o->fimm = minus ? -x->t.fval : x->t.fval;
      o->f32 = x->t.f32;
      next (x);
      return TRUE;
    }
  if (x->t.kind != T_IDENT)
    {
      fail (x, "expected an operand, found '%.*s'", (int) MIN (x->t.len, 40), x->t.s);
      return FALSE;
    }
  g_autofree char *n = tok_str (&x->t);
  next (x);
  if (strcmp (n, "_") == 0)
    {
      o->kind = MS_PTX_OPD_SINK;
      return TRUE;
    }
  int reg = reg_lookup (r, n);
  if (reg >= 0)
    {
      o->kind = MS_PTX_OPD_REG;
      o->reg = reg;
      if (accept (x, "|"))
        {
          g_autofree char *n2 = x->t.kind == T_IDENT ? tok_str (&x->t) : NULL;
          o->reg2 = n2 ? reg_lookup (r, n2) : -1;
          if (o->reg2 < 0)
            {
              fail (x, "expected a register after '|'");
              return FALSE;
            }
          next (x);
        }
      return TRUE;
    }
  if (n[0] == '%')
    {
      o->kind = MS_PTX_OPD_SPECIAL;
      o->sym = g_steal_pointer (&n);
      return TRUE;
    }
  o->kind = MS_PTX_OPD_SYM;
  o->sym = g_steal_pointer (&n);
  if (is (x, "+") && x->t.kind == T_PUNCT)
    {
      next (x);
      if (x->t.kind != T_INT)
        {
          fail (x, "expected an offset after '+'");
          return FALSE;
        }
      o->imm = (gint64) x->t.ival;
      next (x);
    }
  return TRUE;
}

/* [@[!]%p] op.mods operands ; */
static void
read_insn (Reader *r)
{
  Lexer *x = &r->x;
  MsPtxInsn in = { 0 };
  in.guard = -1;
  in.file = r->loc_file;
  in.line = r->loc_line;
  in.inner_file = r->loc_inner_file;
  in.inner_line = r->loc_inner_line;
  in.ptx_line = x->t.line;
  if (accept (x, "@"))
    {
      in.guard_neg = accept (x, "!");
      g_autofree char *n = x->t.kind == T_IDENT ? tok_str (&x->t) : NULL;
      in.guard = n ? reg_lookup (r, n) : -1;
      if (in.guard < 0)
        {
          fail (x, "expected a predicate register after '@'");
          return;
        }
      next (x);
    }
  if (x->t.kind != T_IDENT)
    {
      fail (x, "expected an instruction, found '%.*s'", (int) MIN (x->t.len, 40), x->t.s);
      return;
    }
  g_autofree char *word = tok_str (&x->t);
  next (x);
  char **parts = g_strsplit (word, ".", -1);
  in.op = g_strdup (parts[0]);
  guint np = g_strv_length (parts);
  in.mods = g_new0 (char *, np);
  for (guint k = 1; k < np; k++)
    in.mods[k - 1] = g_strdup (parts[k]);
  g_strfreev (parts);
  GArray *opds = g_array_new (FALSE, TRUE, sizeof (MsPtxOperand));
  /* call's operands: (ret), func, (args) -- parentheses are flattened,
   * with a sink marking each group's end */
  while (!x->failed && !is (x, ";") && x->t.kind != T_END)
    {
      if (accept (x, "(") || accept (x, ")"))
        {
          MsPtxOperand mark = { .kind = MS_PTX_OPD_SINK, .reg = -1, .reg2 = -1, .imm = -1 };
          g_array_append_val (opds, mark);
          continue;
        }
      MsPtxOperand o;
      if (!read_operand (r, &o))
        {
          g_free (o.sym);
          break;
        }
      g_array_append_val (opds, o);
      if (!accept (x, ","))
        {
          if (accept (x, "(") || accept (x, ")"))
            {
              MsPtxOperand mark = { .kind = MS_PTX_OPD_SINK, .reg = -1, .reg2 = -1, .imm = -1 };
              g_array_append_val (opds, mark);
              accept (x, ",");
            }
        }
    }
  in.n_opd = opds->len;
  in.opd = (MsPtxOperand *) g_array_free (opds, FALSE);
  if (!x->failed)
    expect (x, ";");
  if (x->failed)
    {
      ms_ptx_insn_clear (&in);
      return;
    }
  g_array_append_val (r->f->insns, in);
}

static void
skip_statement (Lexer *x)
{
  while (!x->failed && x->t.kind != T_END && !is (x, ";"))
    {
      if (is (x, "{"))
        {
          int depth = 0;
          do
            {
              depth += is (x, "{") - is (x, "}");
              next (x);
            }
          while (x->t.kind != T_END && depth > 0);
          return;
        }
      next (x);
    }
  accept (x, ";");
}

static void
scope_push (Reader *r)
{
  g_ptr_array_add (r->scopes, g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL));
  r->scope_serial++;
}

static void
scope_pop (Reader *r)
{
  g_ptr_array_remove_index (r->scopes, r->scopes->len - 1);
}

/* ( .param .TYPE name, ... ) */
static void
read_params (Reader *r, GArray *into)
{
  Lexer *x = &r->x;
  if (!accept (x, "("))
    return;
  while (!x->failed && !accept (x, ")"))
    {
      DeclHead h;
      read_head (r, &h);
      if (x->failed)
        return;
      if (h.is_reg)
        {
          /* a .func's register parameter: a register of the body */
          if (x->t.kind != T_IDENT || h.elem == 0)
            {
              fail (x, "expected a typed register parameter");
              return;
            }
          g_autofree char *n = tok_str (&x->t);
          reg_add (r, n, h.cls);
          MsPtxVar v = { .name = g_strdup (n), .space = MS_PTX_SPACE_PARAM, .size = h.elem,
                         .align = h.elem, .elem = h.elem };
          g_array_append_val (into, v);
          next (x);
        }
      else if (!h.is_space || h.space != MS_PTX_SPACE_PARAM)
        {
          fail (x, "expected a .param declaration");
          return;
        }
      else
        read_var (r, &h, into);
      if (!is (x, ")") && !expect (x, ","))
        return;
    }
}

static void
read_body (Reader *r)
{
  Lexer *x = &r->x;
  int depth = 1;
  while (!x->failed && depth > 0)
    {
      if (x->t.kind == T_END)
        {
          fail (x, "the function '%s' has no closing '}'", r->f->name);
          return;
        }
      if (accept (x, "{"))
        {
          depth++;
          scope_push (r);
          continue;
        }
      if (accept (x, "}"))
        {
          if (--depth > 0)
            scope_pop (r);
          continue;
        }
      if (x->t.kind == T_IDENT && x->t.s[0] == '.')
        {
          if (is (x, ".loc"))
            {
              int line = x->t.line;
              next (x);
              if (x->t.kind != T_INT)
                {
                  fail (x, "expected a file number after .loc");
                  return;
                }
              r->loc_file = (int) MIN (x->t.ival, 1u << 20);
              next (x);
              if (x->t.kind != T_INT)
                {
                  fail (x, "expected a line number after .loc");
                  return;
                }
              r->loc_line = (int) MIN (x->t.ival, G_MAXINT);
              r->loc_inner_file = r->loc_inner_line = 0;
              int own_file = r->loc_file, own_line = r->loc_line;
              /* the column, and ", function_name ..., inlined_at f l c":
               * the rest of the line */
              while (x->t.kind != T_END && x->t.line == line)
                {
                  /* code inlined from a header counts at its call */
                  if (is (x, "inlined_at"))
                    {
                      next (x);
                      if (x->t.kind == T_INT && x->t.line == line)
                        {
                          int file = (int) MIN (x->t.ival, 1u << 20);
                          next (x);
                          if (x->t.kind == T_INT && x->t.line == line)
                            {
                              r->loc_file = file;
                              r->loc_line = (int) MIN (x->t.ival, G_MAXINT);
                              r->loc_inner_file = own_file;
                              r->loc_inner_line = own_line;
                            }
                        }
                      continue;
                    }
                  next (x);
                }
              continue;
            }
          DeclHead h;
          read_head (r, &h);
          if (x->failed)
            return;
          if (h.is_reg)
            read_regs (r, &h);
          else if (h.is_space)
            {
              read_var (r, &h, r->f->vars);
              expect (x, ";");
            }
          else
            skip_statement (x);   /* .pragma and the like */
          continue;
        }
      /* a label? */
      if (x->t.kind == T_IDENT && x->t.s[0] != '%')
        {
          const char *save_p = x->p;
          Tok save = x->t;
          int save_line = x->line;
          next (x);
          if (accept (x, ":"))
            {
              MsPtxInsn l = { 0 };
              l.label = tok_str (&save);
              l.guard = -1;
              l.ptx_line = save.line;
              g_array_append_val (r->f->insns, l);
              continue;
            }
          x->p = save_p;
          x->t = save;
          x->line = save_line;
        }
      read_insn (r);
    }
}

/* .entry / .func NAME (params) [attributes] { body } or ; */
static void
read_function (Reader *r, gboolean entry)
{
  Lexer *x = &r->x;
  MsPtxFunc *f = func_new ();
  f->entry = entry;
  r->f = f;
  scope_push (r);
  if (!entry && is (x, "("))
    read_params (r, f->rets);
  if (x->t.kind != T_IDENT)
    fail (x, "expected the function's name");
  else
    {
      f->name = tok_str (&x->t);
      next (x);
      read_params (r, f->params);
    }
  /* .maxntid 256, 1, 1  .reqntid ...  .noreturn ... */
  while (!x->failed && x->t.kind == T_IDENT && x->t.s[0] == '.')
    {
      next (x);
      while (!x->failed && (x->t.kind == T_INT || is (x, ",")))
        next (x);
    }
  if (!x->failed && accept (x, "{"))
    {
      f->defined = TRUE;
      read_body (r);
    }
  else if (!x->failed)
    expect (x, ";");
  scope_pop (r);
  r->f = NULL;
  if (x->failed)
    {
      func_free (f);
      return;
    }
  g_ptr_array_add (r->m->funcs, f);
}

MsPtxModule *
ms_ptx_read (const char *path, const char *text, gsize len, GError **error)
{
  Reader r = { 0 };
  r.x = (Lexer) { .path = path, .p = text, .end = text + len, .line = 1, .error = error };
  r.m = g_new0 (MsPtxModule, 1);
  r.m->path = g_strdup (path);
  r.m->files = g_ptr_array_new_with_free_func (g_free);
  r.m->vars = g_array_new (FALSE, TRUE, sizeof (MsPtxVar));
  g_array_set_clear_func (r.m->vars, var_clear);
  r.m->funcs = g_ptr_array_new_with_free_func (func_free);
  r.scopes = g_ptr_array_new_with_free_func ((GDestroyNotify) g_hash_table_unref);
  Lexer *x = &r.x;
  next (x);
  while (!x->failed && x->t.kind != T_END)
    {
      if (is (x, ".file"))
        {
          next (x);
          if (x->t.kind != T_INT || x->t.ival > 100000)
            {
              fail (x, "expected a file number after .file");
              break;
            }
          guint k = (guint) x->t.ival;
          next (x);
          if (x->t.kind != T_STRING)
            {
              fail (x, "expected a file name after .file %u", k);
              break;
            }
          if (r.m->files->len <= k)
            g_ptr_array_set_size (r.m->files, k + 1);
          g_free (g_ptr_array_index (r.m->files, k));
          g_ptr_array_index (r.m->files, k) = tok_str (&x->t);
          next (x);
          while (accept (x, ","))   /* timestamp, size */
            next (x);
          continue;
        }
      if (is (x, ".section"))
        {
          skip_statement (x);
          continue;
        }
      if (is (x, ".version") || is (x, ".target") || is (x, ".address_size"))
        {
          int line = x->t.line;
          next (x);
          while (x->t.kind != T_END && x->t.line == line && !is (x, "."))
            {
              if (x->t.kind == T_IDENT && x->t.s[0] == '.')
                break;
              next (x);
              if (accept (x, ","))
                continue;
            }
          continue;
        }
      DeclHead h;
      read_head (&r, &h);
      if (x->failed)
        break;
      if (is (x, ".entry") || is (x, ".func"))
        {
          gboolean entry = is (x, ".entry");
          next (x);
          read_function (&r, entry);
          continue;
        }
      if (h.is_space)
        {
          scope_push (&r);
          read_var (&r, &h, r.m->vars);
          scope_pop (&r);
          expect (x, ";");
          continue;
        }
      fail (x, "expected a declaration, found '%.*s'", (int) MIN (x->t.len, 40), x->t.s);
    }
  g_ptr_array_unref (r.scopes);
  if (x->failed)
    {
      ms_ptx_module_free (r.m);
      return NULL;
    }
  /* device malloc and free: the heap they allocate in */
  for (guint k = 0; k < r.m->funcs->len; k++)
    {
      const MsPtxFunc *f = g_ptr_array_index (r.m->funcs, k);
      if (!f->defined && (strcmp (f->name, "malloc") == 0 || strcmp (f->name, "free") == 0))
        {
          MsPtxVar heap = { .name = g_strdup (MS_PTX_HEAP_NAME), .space = MS_PTX_SPACE_GLOBAL,
                            .size = MS_PTX_HEAP_BYTES, .align = 16, .elem = 1 };
          g_array_append_val (r.m->vars, heap);
          break;
        }
    }
  ms_ptx_lower_cas_loops (r.m);
  return r.m;
}
