/* lazy-libs.c - json-glib (with GObject) and libdw, loaded by the first
 * call that needs them, in the memsim program only.
 *
 * Why: a process that links libjson-glib (which brings libgio, libgobject,
 * libmount, libselinux, libblkid, libffi) and libdw (libelf, liblzma,
 * libbz2, libz) pays for loading and relocating them before main, and
 * libgobject's type system starts up there too: 2.4 ms of a 6.2 ms
 * start-up on the 2-core machine (docs/performance.md, "Start-up"),
 * though `memsim trace` with a text report uses none of them.  So
 * the program does not link them: each function of theirs that memsim
 * calls is defined here, and its first call opens the library (GModule)
 * and looks the real function up; later calls go straight to it.  The
 * definitions take their prototypes from the libraries' own headers, so a
 * wrong one does not compile.  They are hidden (not exported by the
 * program's -rdynamic), so the libraries' calls among their own functions
 * stay theirs.  libmemsim.a and the tests link the libraries as usual
 * (memsim.pc, MEMSIM_LIBS): this file is the program's.
 *
 * A library that does not load is an installation problem: a one-line
 * message that says what to install, and exit status 1 (lazy_fail).
 */
#include "config.h"

#include <elfutils/libdw.h>
#include <gmodule.h>
#include <json-glib/json-glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  const char *soname;   /* what the library's -dev package links to */
  const char *package;  /* Debian's package of it */
  const char *needs;    /* what memsim needs it for */
  GModule *module;
} LazyLib;

static LazyLib json_glib = { "libjson-glib-1.0.so.0", "libjson-glib-1.0-0",
                             "JSON output and input", NULL };
static LazyLib gobject = { "libgobject-2.0.so.0", "libglib2.0-0",
                           "JSON output and input", NULL };
static LazyLib libdw = { "libdw.so.1", "libdw1", "a user kernel's parameter types", NULL };

/* The process ends without exit's handlers: `memsim run` writes its report
 * from one (for a program that calls exit), which here would replace an
 * -o file with the report of an unfinished run, and could call this file's
 * functions again. */
static G_GNUC_NORETURN void
lazy_fail (const LazyLib *lib, const char *detail)
{
  fprintf (stderr, "memsim: %s needs %s, which did not load (%s); install it (Debian: "
           "apt-get install %s)\n", lib->needs, lib->soname, detail, lib->package);
  fflush (stdout);
  _exit (1);
}

/* The library is found by the dynamic loader's usual search
 * (LD_LIBRARY_PATH, ld.so.cache, the system's folders) and bound at once,
 * so that a mismatched one fails here, with the message above, not at
 * some later call. */
static gpointer
lazy_symbol (LazyLib *lib, const char *name)
{
  static GMutex lock;
  gpointer fn = NULL;
  g_autofree char *failed = NULL;
  g_mutex_lock (&lock);
  if (lib->module == NULL)
    {
      lib->module = g_module_open (lib->soname, G_MODULE_BIND_LOCAL);
      if (lib->module != NULL)
        g_module_make_resident (lib->module);
      else
        failed = g_strdup (g_module_error ());
    }
  if (failed == NULL && (!g_module_symbol (lib->module, name, &fn) || fn == NULL))
    failed = g_strdup (g_module_error ());
  g_mutex_unlock (&lock);
  if (failed != NULL)
    lazy_fail (lib, failed);
  return fn;
}

/* The real function, looked up once (a race between threads looks it up
 * twice and stores the same pointer). */
#define LAZY_FN_(lib, name)                                                    \
  static gpointer fn;                                                          \
  gpointer f = g_atomic_pointer_get (&fn);                                     \
  if (G_UNLIKELY (f == NULL))                                                  \
    {                                                                          \
      f = lazy_symbol (&lib, #name);                                           \
      g_atomic_pointer_set (&fn, f);                                           \
    }
#define LAZY(lib, ret, name, params, args)                                     \
  G_GNUC_INTERNAL ret name params                                              \
  {                                                                            \
    typedef ret (*Real) params;                                                \
    LAZY_FN_ (lib, name)                                                       \
    return ((Real) f) args;                                                    \
  }
#define LAZY_VOID(lib, name, params, args)                                     \
  G_GNUC_INTERNAL void name params                                             \
  {                                                                            \
    typedef void (*Real) params;                                               \
    LAZY_FN_ (lib, name)                                                       \
    ((Real) f) args;                                                           \
  }

/* GObject: what frees json-glib's objects (g_autoptr); loaded with
 * json-glib before any of them exists */
LAZY_VOID (gobject, g_object_unref, (gpointer object), (object))

/* json-glib: the reports' JSON (viz/report), `memsim list --json`, and what
 * `memsim compare` and `memsim run` read */
LAZY_VOID (json_glib, json_array_add_element, (JsonArray *array, JsonNode *node), (array, node))
LAZY (json_glib, JsonArray *, json_array_new, (void), ())
LAZY_VOID (json_glib, json_array_unref, (JsonArray *array), (array))
LAZY (json_glib, JsonBuilder *, json_builder_add_boolean_value,
      (JsonBuilder *builder, gboolean value), (builder, value))
LAZY (json_glib, JsonBuilder *, json_builder_add_double_value,
      (JsonBuilder *builder, gdouble value), (builder, value))
LAZY (json_glib, JsonBuilder *, json_builder_add_int_value,
      (JsonBuilder *builder, gint64 value), (builder, value))
LAZY (json_glib, JsonBuilder *, json_builder_add_null_value, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonBuilder *, json_builder_add_string_value,
      (JsonBuilder *builder, const gchar *value), (builder, value))
LAZY (json_glib, JsonBuilder *, json_builder_add_value, (JsonBuilder *builder, JsonNode *node),
      (builder, node))
LAZY (json_glib, JsonBuilder *, json_builder_begin_array, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonBuilder *, json_builder_begin_object, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonBuilder *, json_builder_end_array, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonBuilder *, json_builder_end_object, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonNode *, json_builder_get_root, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonBuilder *, json_builder_new, (void), ())
LAZY_VOID (json_glib, json_builder_reset, (JsonBuilder *builder), (builder))
LAZY (json_glib, JsonBuilder *, json_builder_set_member_name,
      (JsonBuilder *builder, const gchar *member_name), (builder, member_name))
LAZY (json_glib, JsonGenerator *, json_generator_new, (void), ())
LAZY_VOID (json_glib, json_generator_set_pretty, (JsonGenerator *generator, gboolean is_pretty),
           (generator, is_pretty))
LAZY_VOID (json_glib, json_generator_set_root, (JsonGenerator *generator, JsonNode *node),
           (generator, node))
LAZY (json_glib, gchar *, json_generator_to_data, (JsonGenerator *generator, gsize *length),
      (generator, length))
LAZY (json_glib, JsonNode *, json_node_alloc, (void), ())
LAZY (json_glib, JsonNode *, json_node_copy, (JsonNode *node), (node))
LAZY (json_glib, JsonNodeType, json_node_get_node_type, (JsonNode *node), (node))
LAZY (json_glib, JsonObject *, json_node_get_object, (JsonNode *node), (node))
LAZY (json_glib, JsonNode *, json_node_init_array, (JsonNode *node, JsonArray *array),
      (node, array))
LAZY_VOID (json_glib, json_node_unref, (JsonNode *node), (node))
LAZY_VOID (json_glib, json_object_set_int_member,
           (JsonObject *object, const gchar *member_name, gint64 value),
           (object, member_name, value))
LAZY_VOID (json_glib, json_object_set_member,
           (JsonObject *object, const gchar *member_name, JsonNode *node),
           (object, member_name, node))
LAZY (json_glib, JsonNode *, json_parser_get_root, (JsonParser *parser), (parser))
LAZY (json_glib, gboolean, json_parser_load_from_data,
      (JsonParser *parser, const gchar *data, gssize length, GError **error),
      (parser, data, length, error))
LAZY (json_glib, JsonParser *, json_parser_new, (void), ())

/* libdw: a user's kernel's parameter types and structs (traces/user/kernel-signature.c) */
LAZY (libdw, Dwarf_Die *, dwarf_addrdie, (Dwarf *dbg, Dwarf_Addr addr, Dwarf_Die *result),
      (dbg, addr, result))
LAZY (libdw, Dwarf_Attribute *, dwarf_attr,
      (Dwarf_Die *die, unsigned int search_name, Dwarf_Attribute *result),
      (die, search_name, result))
LAZY (libdw, Dwarf_Attribute *, dwarf_attr_integrate,
      (Dwarf_Die *die, unsigned int search_name, Dwarf_Attribute *result),
      (die, search_name, result))
LAZY (libdw, Dwarf *, dwarf_begin, (int fildes, Dwarf_Cmd cmd), (fildes, cmd))
LAZY (libdw, int, dwarf_bytesize, (Dwarf_Die *die), (die))
LAZY (libdw, int, dwarf_child, (Dwarf_Die *die, Dwarf_Die *result), (die, result))
LAZY (libdw, const char *, dwarf_decl_file, (Dwarf_Die *decl), (decl))
LAZY (libdw, int, dwarf_decl_line, (Dwarf_Die *decl, int *linep), (decl, linep))
LAZY (libdw, const char *, dwarf_diename, (Dwarf_Die *die), (die))
LAZY (libdw, int, dwarf_end, (Dwarf *dwarf), (dwarf))
LAZY (libdw, const char *, dwarf_errmsg, (int err), (err))
LAZY (libdw, Dwarf_Die *, dwarf_formref_die, (Dwarf_Attribute *attr, Dwarf_Die *die_mem),
      (attr, die_mem))
LAZY (libdw, const char *, dwarf_formstring, (Dwarf_Attribute *attrp), (attrp))
LAZY (libdw, int, dwarf_formudata, (Dwarf_Attribute *attr, Dwarf_Word *return_uval),
      (attr, return_uval))
LAZY (libdw, ptrdiff_t, dwarf_getfuncs,
      (Dwarf_Die *cudie, int (*callback) (Dwarf_Die *, void *), void *arg, ptrdiff_t offset),
      (cudie, callback, arg, offset))
LAZY (libdw, int, dwarf_getsrclines, (Dwarf_Die *cudie, Dwarf_Lines **lines, size_t *nlines),
      (cudie, lines, nlines))
LAZY (libdw, int, dwarf_lineaddr, (Dwarf_Line *line, Dwarf_Addr *addrp), (line, addrp))
LAZY (libdw, int, dwarf_linecol, (Dwarf_Line *line, int *colp), (line, colp))
LAZY (libdw, int, dwarf_lineendsequence, (Dwarf_Line *line, bool *flagp), (line, flagp))
LAZY (libdw, int, dwarf_lineno, (Dwarf_Line *line, int *linep), (line, linep))
LAZY (libdw, const char *, dwarf_linesrc, (Dwarf_Line *line, Dwarf_Word *mtime, Dwarf_Word *length),
      (line, mtime, length))
LAZY (libdw, int, dwarf_lowpc, (Dwarf_Die *die, Dwarf_Addr *return_addr), (die, return_addr))
LAZY (libdw, int, dwarf_nextcu,
      (Dwarf *dwarf, Dwarf_Off off, Dwarf_Off *next_off, size_t *header_sizep,
       Dwarf_Off *abbrev_offsetp, uint8_t *address_sizep, uint8_t *offset_sizep),
      (dwarf, off, next_off, header_sizep, abbrev_offsetp, address_sizep, offset_sizep))
LAZY (libdw, Dwarf_Die *, dwarf_offdie, (Dwarf *dbg, Dwarf_Off offset, Dwarf_Die *result),
      (dbg, offset, result))
LAZY (libdw, Dwarf_Line *, dwarf_onesrcline, (Dwarf_Lines *lines, size_t idx), (lines, idx))
LAZY (libdw, int, dwarf_siblingof, (Dwarf_Die *die, Dwarf_Die *result), (die, result))
LAZY (libdw, int, dwarf_tag, (Dwarf_Die *die), (die))
