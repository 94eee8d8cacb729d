/* ptx-lane-temps.c - registers that live inside one lane loop become
 * scalars of the lane.
 *
 * nvcc's PTX names a new virtual register for most values, and most of
 * them are made and used within one straight run of instructions: one
 * lane loop of the translation (MS_WARP_LANES, MS_WARP_BRANCH).  As an
 * array of 32 lanes such a register costs a store a lane that nothing
 * reads after the loop, and the loop cannot keep the value in a host
 * register across its statements; as a scalar of the lane's iteration the
 * host compiler keeps it in a register or drops it (MonteCarloMultiGPU:
 * 1 019 of its kernel's 1 921 registers; docs/performance.md).
 *
 * The pass reads the text ptx-translate.c makes, whose shape it relies on:
 * - a lane loop opens with a line that begins `MS_WARP_LANES (` or
 *   `MS_WARP_BRANCH (` and ends with `{`, and closes with a line `});` at
 *   its own brace depth; a branch's condition (on its opening line) is
 *   evaluated after the body, in the same lane's iteration;
 * - a statement that writes a whole register for the lane is one line
 *   beginning `R<n>[L] = ` and ending with `;`.
 * A register qualifies when every reference to it is `R<n>[L]` inside
 * one lane loop, and the first is such a write, unguarded (at the loop's
 * own depth: not under an `if` of a guard) and not reading the register.
 * Then each lane writes it before it reads it in every iteration, so no
 * value crosses from one lane or one run of the loop to the next.  Anything
 * else keeps its array: a reference outside lane loops, one without [L]
 * (a row copy), a loop with a string or character literal or a goto
 * (whose braces or flow the pass does not read).
 */
#include "config.h"

#include <string.h>

#include "ptx-lane-temps.h"

enum { UNSEEN, DEFINED, REJECTED };

typedef struct {
  guint8 state;
  int loop;      /* the lane loop of its references */
} Reg;

static gboolean
ident_char (char c)
{
  return g_ascii_isalnum (c) || c == '_';
}

/* The register of a reference R<n> at s (a token: not inside a longer
 * identifier), or -1; *end: the character after its number */
static int
reg_at (const char *line, const char *s, guint n_regs, const char **end)
{
  if (*s != 'R' || (s > line && ident_char (s[-1])) || !g_ascii_isdigit (s[1]))
    return -1;
  guint64 n = 0;
  const char *p = s + 1;
  for (; g_ascii_isdigit (*p) && n < G_MAXUINT32; p++)
    n = n * 10 + (guint64) (*p - '0');
  if (ident_char (*p) || n >= n_regs)
    return -1;
  *end = p;
  return (int) n;
}

/* A reference's lane index: [L] after its number */
static gboolean
indexed (const char *end)
{
  return strncmp (end, "[L]", 3) == 0;
}

static const char *
skip_spaces (const char *line)
{
  while (*line == ' ')
    line++;
  return line;
}

static gboolean
starts_with_word (const char *line, const char *w)
{
  return g_str_has_prefix (skip_spaces (line), w);
}

static gboolean
opens_loop (const char *line, gsize len)
{
  while (len > 0 && line[len - 1] == ' ')
    len--;
  return len > 0 && line[len - 1] == '{'
         && (starts_with_word (line, "MS_WARP_LANES (") || starts_with_word (line, "MS_WARP_BRANCH ("));
}

/* A whole-register write of r for the lane: the line is `R<r>[L] = ...;`
 * (the reference at `at`, its number ending at `end`) with no other
 * reference to r */
static gboolean
writes_whole (const char *line, gsize len, const char *at, const char *end, int r,
              guint n_regs)
{
  if (skip_spaces (line) != at || !indexed (end))
    return FALSE;
  const char *after = end + 3;
  if (strncmp (after, " = ", 3) != 0 || len == 0 || line[len - 1] != ';')
    return FALSE;
  const char *e;
  for (const char *s = after; s < line + len; s++)
    if (*s == 'R' && reg_at (line, s, n_regs, &e) == r)
      return FALSE;
  return TRUE;
}

guint
ms_ptx_lane_temps (GString *code, guint n_regs, gboolean *is_temp)
{
  memset (is_temp, 0, n_regs * sizeof *is_temp);
  if (n_regs == 0)
    return 0;
  Reg *regs = g_new0 (Reg, n_regs);
  GArray *unsafe = g_array_new (FALSE, TRUE, sizeof (gboolean));   /* per loop */
  GArray *pending = g_array_new (FALSE, FALSE, sizeof (int));      /* a branch's condition */
  int loop = -1, depth = 0;
  const char *text = code->str, *end = code->str + code->len;
  for (const char *line = text; line < end;)
    {
      const char *nl = memchr (line, '\n', (gsize) (end - line));
      gsize len = nl ? (gsize) (nl - line) : (gsize) (end - line);
      const char *next = nl ? nl + 1 : end;
      gboolean header = FALSE;
      if (loop < 0 && opens_loop (line, len))
        {
          loop = (int) unsafe->len;
          g_array_set_size (unsafe, unsafe->len + 1);
          depth = 0;
          header = TRUE;
          g_array_set_size (pending, 0);
        }
      else if (loop >= 0 && depth == 0 && len >= 3 && strncmp (line + len - 3, "});", 3) == 0
               && starts_with_word (line, "});"))
        {
          /* the condition's registers: written in the body before */
          for (guint k = 0; k < pending->len; k++)
            {
              Reg *g = &regs[g_array_index (pending, int, k)];
              if (g->state != DEFINED || g->loop != loop)
                g->state = REJECTED;
            }
          loop = -1;
          line = next;
          continue;
        }
      if (loop >= 0 && !header
          && (memchr (line, '"', len) || memchr (line, '\'', len)
              || g_strstr_len (line, (gssize) len, "goto ") != NULL))
        g_array_index (unsafe, gboolean, loop) = TRUE;
      for (const char *s = line; s < line + len; s++)
        {
          const char *e;
          int r = *s == 'R' ? reg_at (line, s, n_regs, &e) : -1;
          if (r < 0)
            continue;
          Reg *g = &regs[r];
          if (g->state == REJECTED)
            continue;
          if (loop < 0 || !indexed (e) || (g->state == DEFINED && g->loop != loop))
            g->state = REJECTED;
          else if (header)
            g_array_append_val (pending, r);
          else if (g->state == UNSEEN)
            {
              if (depth == 0 && writes_whole (line, len, s, e, r, n_regs))
                *g = (Reg) { DEFINED, loop };
              else
                g->state = REJECTED;
            }
        }
      if (loop >= 0 && !header)
        for (const char *s = line; s < line + len; s++)
          depth += *s == '{' ? 1 : *s == '}' ? -1 : 0;
      line = next;
    }
  /* a loop left open (text the pass does not read): nothing in it */
  guint n = 0;
  for (guint r = 0; r < n_regs; r++)
    {
      Reg *g = &regs[r];
      is_temp[r] = g->state == DEFINED && !g_array_index (unsafe, gboolean, g->loop)
                   && !(loop >= 0 && g->loop == loop);
      n += is_temp[r];
    }
  if (n > 0)
    {
      GString *o = g_string_sized_new (code->len);
      const char *copied = text;
      for (const char *s = text; s < end; s++)
        {
          if (*s != 'R')
            continue;
          /* a token's start: the line's start is not needed, the text's is;
           * a temporary's every reference is R<n>[L] */
          const char *e;
          int r = reg_at (text, s, n_regs, &e);
          if (r < 0 || !is_temp[r])
            continue;
          g_string_append_len (o, copied, s - copied);
          g_string_append_printf (o, "T%d", r);
          copied = e + 3;
          s = copied - 1;
        }
      g_string_append_len (o, copied, end - copied);
      g_string_assign (code, o->str);
      g_string_free (o, TRUE);
    }
  g_free (regs);
  g_array_free (unsafe, TRUE);
  g_array_free (pending, TRUE);
  return n;
}
