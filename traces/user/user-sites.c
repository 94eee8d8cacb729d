/* user-sites.c - code addresses of a user's kernel build -> sites (see
 * user-sites.h).
 *
 * A site is one instrumented instruction: the return address of its hook
 * call (sim/emulator/native.c) or of the shim's ms_user_site() call for a
 * barrier, shuffle, vote or atomic.  Its file and line come from the DWARF
 * line table row holding the address (for code inlined from a __device__
 * function: the function's own line, as for the built-in kernels).
 *
 * The order (MsSite.order, which the emulator uses to reconverge diverged
 * lanes: the earliest site runs first) is textual, as for the built-in
 * kernels' __COUNTER__: rows of the user's file before rows of headers,
 * then by line, column and address; within one row, by the offset of the
 * instruction.  So a loop body orders before the code after the loop and
 * `then` before `else`, however the compiler laid the blocks out.
 */
#include "config.h"
#include "user-sites.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "user-source.h"

typedef struct {
  guint64 addr;
  int line, col;
  guint rank;            /* position in textual order */
  gboolean end;          /* end of a sequence: no code from here */
  const char *file;      /* interned base name */
} Row;

struct MsUserSites {
  int fd;
  Dwarf *dwarf;
  const guint8 *base;
  GArray *rows;          /* of Row, by address */
  GMutex lock;
  GHashTable *by_pc;     /* pc -> MsSite (owned) */
};

static int
by_addr (gconstpointer a, gconstpointer b)
{
  const Row *x = a, *y = b;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return (int) x->end - (int) y->end;   /* an end before a start at the same address */
}

static const char *user_file;   /* for by_text (under the caller's lock) */

static int
by_text (gconstpointer a, gconstpointer b)
{
  const Row *x = *(Row *const *) a, *y = *(Row *const *) b;
  gboolean ux = x->file == user_file, uy = y->file == user_file;
  if (ux != uy)
    return ux ? -1 : 1;
  if (x->file != y->file)
    return strcmp (x->file, y->file);
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  if (x->col != y->col)
    return x->col < y->col ? -1 : 1;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

MsUserSites *
ms_user_sites_new (const char *path, const void *base, const char *source, GError **error)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  Dwarf *dw = fd >= 0 ? dwarf_begin (fd, DWARF_C_READ) : NULL;
  if (dw == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                   "%s has no debug information memsim can read (%s)", path,
                   fd < 0 ? g_strerror (errno) : dwarf_errmsg (-1));
      if (fd >= 0)
        close (fd);
      return NULL;
    }
  MsUserSites *s = g_new0 (MsUserSites, 1);
  s->fd = fd;
  s->dwarf = dw;
  s->base = base;
  s->rows = g_array_new (FALSE, FALSE, sizeof (Row));
  g_mutex_init (&s->lock);
  s->by_pc = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_autofree char *src_base = g_path_get_basename (source);
  const char *user = g_intern_string (src_base);

  Dwarf_Off off = 0, next;
  size_t header;
  while (dwarf_nextcu (dw, off, &next, &header, NULL, NULL, NULL) == 0)
    {
      Dwarf_Die cu;
      Dwarf_Lines *lines;
      size_t n;
      if (dwarf_offdie (dw, off + header, &cu) != NULL && dwarf_getsrclines (&cu, &lines, &n) == 0)
        for (size_t i = 0; i < n; i++)
          {
            Dwarf_Line *l = dwarf_onesrcline (lines, i);
            Dwarf_Addr addr;
            int line = 0, col = 0;
            bool end = false;
            if (l == NULL || dwarf_lineaddr (l, &addr) != 0)
              continue;
            dwarf_lineno (l, &line);
            dwarf_linecol (l, &col);
            dwarf_lineendsequence (l, &end);
            const char *file = dwarf_linesrc (l, NULL, NULL);
            g_autofree char *fb = g_path_get_basename (file ? file : "?");
            Row r = { .addr = addr, .line = line, .col = col, .end = end,
                      .file = g_intern_string (fb) };
            g_array_append_val (s->rows, r);
          }
      off = next;
    }
  g_array_sort (s->rows, by_addr);
  /* textual ranks */
  g_autoptr (GPtrArray) text = g_ptr_array_sized_new (s->rows->len);
  for (guint i = 0; i < s->rows->len; i++)
    if (!g_array_index (s->rows, Row, i).end)
      g_ptr_array_add (text, &g_array_index (s->rows, Row, i));
  static GMutex sort_lock;
  g_mutex_lock (&sort_lock);
  user_file = user;
  g_ptr_array_sort (text, by_text);
  g_mutex_unlock (&sort_lock);
  for (guint i = 0; i < text->len; i++)
    ((Row *) text->pdata[i])->rank = i;
  return s;
}

/* The row holding address a, or NULL. */
static const Row *
row_at (const MsUserSites *s, guint64 a)
{
  guint lo = 0, hi = s->rows->len;
  while (lo < hi)   /* the first row past a */
    {
      guint mid = (lo + hi) / 2;
      if (g_array_index (s->rows, Row, mid).addr <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;
  const Row *r = &g_array_index (s->rows, Row, lo - 1);
  return r->end ? NULL : r;
}

/* Sites of one build share their file names (interned) and live for the
 * process: the site table keeps pointers to them. */
const MsSite *
ms_user_sites_at (gpointer data, const void *pc)
{
  MsUserSites *s = data;
  g_mutex_lock (&s->lock);
  MsSite *site = g_hash_table_lookup (s->by_pc, pc);
  if (site == NULL)
    {
      /* a return address: the call instruction is just before it */
      guint64 a = (guint64) ((const guint8 *) pc - s->base) - 1;
      const Row *r = row_at (s, a);
      site = g_new0 (MsSite, 1);
      site->id = -1;
      if (r != NULL)
        {
          site->file = r->file;
          site->line = r->line;
          guint64 within = MIN (a - r->addr, 1023);
          site->order = (int) MIN ((guint64) r->rank * 1024 + within, G_MAXINT - 1);
        }
      else
        {
          site->file = g_intern_string ("?");
          site->order = G_MAXINT - 1;
        }
      g_hash_table_insert (s->by_pc, (gpointer) pc, site);
    }
  g_mutex_unlock (&s->lock);
  return site;
}

/* ------------------------------------------------------------ structs */

static Dwarf_Die *
type_of (Dwarf_Die *die, Dwarf_Die *out)
{
  Dwarf_Attribute at;
  if (dwarf_attr_integrate (die, DW_AT_type, &at) == NULL)
    return NULL;
  return dwarf_formref_die (&at, out);
}

/* Strips typedefs and qualifiers. */
static Dwarf_Die *
strip (Dwarf_Die *die, Dwarf_Die *out)
{
  Dwarf_Die cur = *die;
  for (int guard = 0; guard < 64; guard++)
    {
      int tag = dwarf_tag (&cur);
      if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type
          && tag != DW_TAG_restrict_type)
        {
          *out = cur;
          return out;
        }
      Dwarf_Die t;
      if (type_of (&cur, &t) == NULL)
        return NULL;
      cur = t;
    }
  return NULL;
}

static void add_fields (Dwarf_Die *type, guint offset, GArray *fields, int depth);

static void
add_members (Dwarf_Die *aggregate, guint offset, GArray *fields, int depth)
{
  Dwarf_Die m;
  if (dwarf_child (aggregate, &m) != 0)
    return;
  do
    {
      if (dwarf_tag (&m) != DW_TAG_member)
        continue;
      Dwarf_Attribute at;
      Dwarf_Word loc = 0;
      if (dwarf_attr (&m, DW_AT_data_member_location, &at) != NULL)
        dwarf_formudata (&at, &loc);
      Dwarf_Die t;
      if (type_of (&m, &t) != NULL)
        add_fields (&t, offset + (guint) loc, fields, depth + 1);
    }
  while (dwarf_siblingof (&m, &m) == 0);
}

static void
add_fields (Dwarf_Die *type, guint offset, GArray *fields, int depth)
{
  Dwarf_Die t;
  if (depth > 16 || strip (type, &t) == NULL)
    return;
  switch (dwarf_tag (&t))
    {
    case DW_TAG_base_type:
    case DW_TAG_enumeration_type:
      {
        Dwarf_Attribute at;
        Dwarf_Word enc = DW_ATE_signed;
        if (dwarf_attr (&t, DW_AT_encoding, &at) != NULL)
          dwarf_formudata (&at, &enc);
        int size = dwarf_bytesize (&t);
        if (size <= 0)
          return;
        MsUserField f = { offset, (guint) size,
                          enc == DW_ATE_float ? 'f'
                          : enc == DW_ATE_signed || enc == DW_ATE_signed_char ? 'i' : 'u' };
        g_array_append_val (fields, f);
      }
      break;
    case DW_TAG_structure_type:
    case DW_TAG_class_type:
      add_members (&t, offset, fields, depth);
      break;
    case DW_TAG_array_type:
      {
        Dwarf_Die elem, sub, es;
        Dwarf_Word count = 0;
        if (type_of (&t, &elem) == NULL || strip (&elem, &es) == NULL)
          return;
        if (dwarf_child (&t, &sub) == 0)
          {
            Dwarf_Attribute at;
            Dwarf_Word v;
            if (dwarf_attr (&sub, DW_AT_count, &at) != NULL && dwarf_formudata (&at, &v) == 0)
              count = v;
            else if (dwarf_attr (&sub, DW_AT_upper_bound, &at) != NULL
                     && dwarf_formudata (&at, &v) == 0)
              count = v + 1;
          }
        int esize = dwarf_bytesize (&es);
        for (Dwarf_Word i = 0; esize > 0 && i < MIN (count, 4096); i++)
          add_fields (&es, offset + (guint) (i * (guint) esize), fields, depth + 1);
      }
      break;
    default:   /* pointers, unions: left zero */
      break;
    }
}

/* Finds a complete type named name under die. */
static gboolean
find_type (Dwarf_Die *die, const char *name, Dwarf_Die *out, int depth)
{
  Dwarf_Die c;
  if (depth > 8 || dwarf_child (die, &c) != 0)
    return FALSE;
  do
    {
      int tag = dwarf_tag (&c);
      if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_typedef
          || tag == DW_TAG_union_type)
        {
          const char *n = dwarf_diename (&c);
          Dwarf_Attribute at;
          gboolean decl = dwarf_attr (&c, DW_AT_declaration, &at) != NULL;
          if (n != NULL && strcmp (n, name) == 0 && !decl)
            {
              *out = c;
              return TRUE;
            }
        }
      if (tag == DW_TAG_namespace && find_type (&c, name, out, depth + 1))
        return TRUE;
    }
  while (dwarf_siblingof (&c, &c) == 0);
  return FALSE;
}

gboolean
ms_user_sites_struct (MsUserSites *s, const char *name, gsize *size, GArray *fields)
{
  Dwarf_Off off = 0, next;
  size_t header;
  while (dwarf_nextcu (s->dwarf, off, &next, &header, NULL, NULL, NULL) == 0)
    {
      Dwarf_Die cu, t, st;
      if (dwarf_offdie (s->dwarf, off + header, &cu) != NULL && find_type (&cu, name, &t, 0)
          && strip (&t, &st) != NULL && dwarf_bytesize (&st) > 0)
        {
          *size = (gsize) dwarf_bytesize (&st);
          g_array_set_size (fields, 0);
          add_fields (&st, 0, fields, 0);
          return TRUE;
        }
      off = next;
    }
  return FALSE;
}

/* ------------------------------------------------------------ functions */

typedef struct {
  Dwarf_Addr addr;
  Dwarf_Die found;
  gboolean have;
} FindFunction;

static int
find_function (Dwarf_Die *die, void *arg)
{
  FindFunction *f = arg;
  Dwarf_Addr low;
  if (dwarf_lowpc (die, &low) == 0 && low == f->addr)
    {
      f->found = *die;
      f->have = TRUE;
      return DWARF_CB_ABORT;
    }
  return DWARF_CB_OK;
}

char *
ms_user_sites_function (MsUserSites *s, const void *pc, GPtrArray *params, char **file,
                        int *line)
{
  Dwarf_Addr a = (Dwarf_Addr) ((const guint8 *) pc - s->base);
  Dwarf_Die cu;
  FindFunction f = { .addr = a };
  g_mutex_lock (&s->lock);
  if (dwarf_addrdie (s->dwarf, a, &cu) != NULL)
    dwarf_getfuncs (&cu, find_function, &f, 0);
  char *name = NULL;
  if (f.have)
    {
      Dwarf_Attribute at;
      const char *n = dwarf_formstring (dwarf_attr_integrate (&f.found, DW_AT_name, &at));
      name = g_strdup (n ? n : "?");
      if (file != NULL)
        {
          const char *d = dwarf_decl_file (&f.found);
          *file = d ? g_strdup (d) : NULL;
        }
      if (line != NULL && dwarf_decl_line (&f.found, line) != 0)
        *line = 0;
      Dwarf_Die child;
      if (params != NULL && dwarf_child (&f.found, &child) == 0)
        do
          if (dwarf_tag (&child) == DW_TAG_formal_parameter)
            {
              const char *p = dwarf_formstring (dwarf_attr_integrate (&child, DW_AT_name, &at));
              g_ptr_array_add (params, g_strdup (p ? p : "?"));
            }
        while (dwarf_siblingof (&child, &child) == 0);
    }
  g_mutex_unlock (&s->lock);
  return name;
}
