/* kernel-signature.c - a kernel's parameter types and the file's structs
 * from the DWARF of nvcc's host build (see kernel-signature.h).
 *
 * Assumes GCC's DWARF of nvcc's host code (nvcc 12 and 13): a kernel's launch
 * stub is a DW_TAG_subprogram named __device_stub_<mangled .entry name>
 * (extern "C" kernels: a host function of the kernel's name), its
 * DW_TAG_formal_parameter children in order, with the declared types.  Anything else a
 * file holds (another compiler's DWARF, a damaged file) gives no function
 * and no struct, never a crash: every walk is bounded.
 */
#include "config.h"
#include "kernel-signature.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "user-error.h"

struct MsKernelSignature {
  int fd;
  Dwarf *dwarf;
};

MsKernelSignature *
ms_kernel_signature_open (const char *path, GError **error)
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
  MsKernelSignature *s = g_new0 (MsKernelSignature, 1);
  s->fd = fd;
  s->dwarf = dw;
  return s;
}

void
ms_kernel_signature_free (MsKernelSignature *s)
{
  if (s == NULL)
    return;
  dwarf_end (s->dwarf);
  close (s->fd);
  g_free (s);
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

/* ------------------------------------------------------------ lookup */

/* Whether die is the one a lookup wants (key: what it looks for). */
typedef gboolean (*Match) (Dwarf_Die *die, const void *key);

/* The first DIE under die that match accepts, namespaces searched; bounded
 * in depth and breadth (a damaged file may loop). */
static gboolean
find_die (Dwarf_Die *die, Match match, const void *key, Dwarf_Die *out, int depth)
{
  Dwarf_Die c;
  if (depth > 8 || dwarf_child (die, &c) != 0)
    return FALSE;
  int guard = 0;
  do
    {
      if (match (&c, key))
        {
          *out = c;
          return TRUE;
        }
      if (dwarf_tag (&c) == DW_TAG_namespace && find_die (&c, match, key, out, depth + 1))
        return TRUE;
    }
  while (++guard < 1000000 && dwarf_siblingof (&c, &c) == 0);
  return FALSE;
}

/* The same, in any compilation unit of the file. */
static gboolean
find_in_units (MsKernelSignature *s, Match match, const void *key, Dwarf_Die *out)
{
  Dwarf_Off off = 0, next;
  size_t header;
  while (dwarf_nextcu (s->dwarf, off, &next, &header, NULL, NULL, NULL) == 0)
    {
      Dwarf_Die cu;
      if (dwarf_offdie (s->dwarf, off + header, &cu) != NULL
          && find_die (&cu, match, key, out, 0))
        return TRUE;
      off = next;
    }
  return FALSE;
}

static gboolean
defined (Dwarf_Die *die)
{
  Dwarf_Attribute at;
  return dwarf_attr (die, DW_AT_declaration, &at) == NULL;
}

/* A complete struct, class, union or typedef named key, of a known size. */
static gboolean
complete_type_named (Dwarf_Die *die, const void *key)
{
  int tag = dwarf_tag (die);
  const char *n = dwarf_diename (die);
  Dwarf_Die st;
  return (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_typedef
          || tag == DW_TAG_union_type)
         && n != NULL && strcmp (n, key) == 0 && defined (die) && strip (die, &st) != NULL
         && dwarf_bytesize (&st) > 0;
}

gboolean
ms_kernel_signature_struct (MsKernelSignature *s, const char *name, gsize *size, GArray *fields)
{
  Dwarf_Die t, st;
  if (!find_in_units (s, complete_type_named, name, &t) || strip (&t, &st) == NULL)
    return FALSE;
  *size = (gsize) dwarf_bytesize (&st);
  g_array_set_size (fields, 0);
  add_fields (&st, 0, fields, 0);
  return TRUE;
}

/* ------------------------------------------------------------ parameters */

/* GCC's names of base types as C code usually spells them */
static const char *
c_spelling (const char *name)
{
  static const char *const names[][2] = {
    { "short int", "short" }, { "short unsigned int", "unsigned short" },
    { "long int", "long" }, { "long unsigned int", "unsigned long" },
    { "long long int", "long long" }, { "long long unsigned int", "unsigned long long" },
    { "unsigned int", "unsigned" },
  };
  for (gsize i = 0; name && i < G_N_ELEMENTS (names); i++)
    if (strcmp (name, names[i][0]) == 0)
      return names[i][1];
  return name;
}

/* The type as C writes it, bounded in depth (a damaged file may loop). */
static void
type_text (Dwarf_Die *die, GString *out, int depth)
{
  Dwarf_Die inner;
  gboolean has_inner = type_of (die, &inner) != NULL;
  const char *name = dwarf_diename (die);
  if (depth > 16)
    {
      g_string_append (out, "?");
      return;
    }
  switch (dwarf_tag (die))
    {
    case DW_TAG_pointer_type:
    case DW_TAG_reference_type:
    case DW_TAG_rvalue_reference_type:
      if (has_inner)
        type_text (&inner, out, depth + 1);
      else
        g_string_append (out, "void");
      g_string_append (out, dwarf_tag (die) == DW_TAG_pointer_type ? " *" : " &");
      break;
    case DW_TAG_const_type:
    case DW_TAG_volatile_type:
      {
        const char *q = dwarf_tag (die) == DW_TAG_const_type ? "const" : "volatile";
        Dwarf_Die st;
        /* T *const: the qualifier after the star */
        if (has_inner && strip (&inner, &st) != NULL && dwarf_tag (&inner) == DW_TAG_pointer_type)
          {
            type_text (&inner, out, depth + 1);
            g_string_append_printf (out, " %s", q);
          }
        else
          {
            g_string_append_printf (out, "%s ", q);
            if (has_inner)
              type_text (&inner, out, depth + 1);
            else
              g_string_append (out, "void");
          }
      }
      break;
    case DW_TAG_restrict_type:
      if (has_inner)
        type_text (&inner, out, depth + 1);
      break;
    case DW_TAG_base_type:
      g_string_append (out, name ? c_spelling (name) : "?");
      break;
    default:
      g_string_append (out, name ? name : "?");
      break;
    }
}

static char
type_kind (Dwarf_Die *die)
{
  Dwarf_Die t;
  if (strip (die, &t) == NULL)
    return 's';
  switch (dwarf_tag (&t))
    {
    case DW_TAG_pointer_type:
      return 'p';
    case DW_TAG_enumeration_type:
      return 'i';
    case DW_TAG_base_type:
      {
        Dwarf_Attribute at;
        Dwarf_Word enc = DW_ATE_signed;
        if (dwarf_attr (&t, DW_AT_encoding, &at) != NULL)
          dwarf_formudata (&at, &enc);
        return enc == DW_ATE_float ? 'f' : 'i';
      }
    default:
      return 's';
    }
}

/* A function (not a declaration) whose attribute attr (DW_AT_name,
 * DW_AT_linkage_name) is value. */
typedef struct {
  unsigned attr;
  const char *value;
} FunctionKey;

static gboolean
function_named (Dwarf_Die *die, const void *key)
{
  const FunctionKey *k = key;
  Dwarf_Attribute at;
  if (dwarf_tag (die) != DW_TAG_subprogram)
    return FALSE;
  const char *name = dwarf_formstring (dwarf_attr (die, k->attr, &at));
  return name != NULL && strcmp (name, k->value) == 0 && defined (die);
}

void
ms_kernel_param_types_free (GArray *types)
{
  for (guint i = 0; types && i < types->len; i++)
    g_free (g_array_index (types, MsKernelParamType, i).type);
  if (types)
    g_array_unref (types);
}

GArray *
ms_kernel_signature_params (MsKernelSignature *s, const char *mangled)
{
  /* nvcc's launch stub, __device_stub_<mangled> (templates' too); else the
   * kernel's host function: by its linkage name, or (extern "C") its name */
  g_autofree char *stub = g_strconcat ("__device_stub_", mangled, NULL);
  Dwarf_Die fn;
  const FunctionKey keys[] = { { DW_AT_name, stub }, { DW_AT_linkage_name, mangled },
                               { DW_AT_name, mangled } };
  gsize k = 0;
  while (k < G_N_ELEMENTS (keys) && !find_in_units (s, function_named, &keys[k], &fn))
    k++;
  if (k == G_N_ELEMENTS (keys))
    return NULL;
  GArray *types = g_array_new (FALSE, TRUE, sizeof (MsKernelParamType));
  Dwarf_Die child;
  if (dwarf_child (&fn, &child) == 0)
    do
      if (dwarf_tag (&child) == DW_TAG_formal_parameter)
        {
          Dwarf_Die t;
          MsKernelParamType p = { NULL, 's' };
          g_autoptr (GString) text = g_string_new (NULL);
          if (type_of (&child, &t) != NULL)
            {
              Dwarf_Die referred;
              /* the stub takes a struct by reference, the kernel by value */
              if (dwarf_tag (&t) == DW_TAG_reference_type && type_of (&t, &referred) != NULL)
                t = referred;
              type_text (&t, text, 0);
              p.kind = type_kind (&t);
            }
          p.type = g_strdup (text->len ? text->str : "?");
          g_array_append_val (types, p);
        }
    while (types->len < 4096 && dwarf_siblingof (&child, &child) == 0);
  return types;
}
