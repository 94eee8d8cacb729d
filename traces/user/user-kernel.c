/* user-kernel.c - a user's kernel loaded and set up for a launch (see
 * user-kernel.h).
 *
 * The file is built by nvcc as `memsim run` builds a program (nvcc-build.h;
 * with -g for the host side's debug information), and the kernel runs from
 * its PTX on the PTX engine (sim/ptx/ptx-program.h), as the built-in
 * kernels and programs' kernels do: the counts are those of the code nvcc
 * compiled.  The kernel is found among the PTX's entries by its name as the
 * source says it ("scale", "tile<32>", "ns::f"), by its mangled name, or by
 * its name without namespace and template arguments when that is unique.
 *
 * Parameters: PTX has only sizes and offsets.  Their C types come from the
 * DWARF of nvcc's host build (kernel-signature.h): the launch stub carries
 * the kernel's mangled name and the declared types, exact where any reading
 * of the source would have to guess at macros and typedefs.  The stub's
 * parameters are named __parN, so the names are those the PTX program
 * reads from the declaration its line table points at (the names `memsim
 * run` reports), else param_N.
 *
 * Buffers: one per pointer parameter, named after it, --arg NAME=TYPE[COUNT]
 * (COUNT elements of TYPE) filled with the built-in kernels' seeded data:
 * floating point uniform in [-1, 1), signed integers in [-1000, 1000],
 * unsigned ones in [0, 1000] (a 4-byte float or int buffer gets exactly the
 * numbers a built-in kernel's input of that size gets, so the outputs can
 * be compared); structs member by member (their layout from the build's
 * debug info); TYPE[COUNT]=0 leaves the buffer zeroed, TYPE[COUNT]=LO..HI
 * fills it from that range (indices, histogram bins).  Buffers get guard
 * pages on both sides, so an access just outside one is reported as out of
 * bounds before it happens.
 */
#include "config.h"
#include "user-kernel.h"

#include <errno.h>
#include <gmodule.h>
#include <string.h>

#include "kernel-signature.h"
#include "nvcc-build.h"
#include "ptx-program.h"
#include "user-build.h"
#include "user-error.h"
#include "user-gpu.h"

#define GUARD_BYTES ((gsize) 1 << 20)
#define MAX_DYNAMIC_SHARED (227 * 1024)   /* an H100 block's opt-in maximum */

typedef struct {
  char *name;
  char *type;              /* as C writes it (kernel-signature.h) */
  char kind;               /* 'p' pointer, 'f' floating point, 'i' integer */
  guint offset, size;      /* in the PTX's parameter block */
} Param;

struct MsUserKernel {
  MsKernel kernel;         /* first: MsProblem.kernel points here */
  char *spec;              /* canonical "FILE:KERNEL" */
  char *name;              /* KERNEL as the source says it ("tile<32>") */
  char *file;
  char **lines;
  char *text;              /* the file as built */
  GArray *params;          /* Param */
  guint param_bytes;       /* the PTX's parameter block */
  guint static_shared;     /* bytes of .shared the entry declares */
  MsKernelSignature *signature;   /* the host build's DWARF: structs for --arg */
  MsPtxProgram *program;   /* the kernel's code, sites and SASS are its */
  char *build_key;         /* the nvcc build's cache name (it covers flags) */
  char **flags;            /* the user's nvcc flags */
  GModule *gpu_module;     /* the GPU build, once --gpu asked for it */
  void (*gpu_set_dynamic_shared) (unsigned bytes);
};

/* Loaded kernels stay for the process: the site table points into them. */
static GMutex loaded_lock;
static GPtrArray *loaded;

gboolean
ms_user_kernel_spec (const char *name)
{
  return strpbrk (name, ":./") != NULL;
}

const MsKernel *
ms_user_kernel_descriptor (const MsUserKernel *k)
{
  return &k->kernel;
}

static gboolean
no_setup (MsProblem *p, GError **error)
{
  return TRUE;
}

/* "a, b, c" of the n kernels' names */
static char *
kernel_names (const MsPtxKernel *ks, guint n)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", ks[i].kernel->name);
  return g_string_free (s, FALSE);
}

/* name without namespace and template arguments: "f" of "ns::f<2>" */
static char *
base_name (const char *name)
{
  g_autofree char *plain = g_strstrip (g_strndup (name, strcspn (name, "<")));
  const char *colon = g_strrstr (plain, "::");
  return g_strdup (colon ? colon + 2 : plain);
}

/* The index of the kernel `name` names among ks, or -1 with the error. */
static int
find_kernel (const char *file, const MsPtxKernel *ks, guint n, const char *name, GError **error)
{
  g_autofree guint *matches = g_new0 (guint, MAX (n, 1));
  guint found = 0;
  if (n == 0 && name != NULL && strchr (name, '<') == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s has no kernel nvcc compiled; for a template kernel, name a template's "
                   "instantiation, e.g. %s:'%s<32>'", file, file, name);
      return -1;
    }
  if (n == 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s has no kernel nvcc compiled (no __global__ function, or only templates: "
                   "name an instantiation, FILE.cu:'KERNEL<...>')", file);
      return -1;
    }
  if (name == NULL)
    {
      if (n == 1)
        return 0;
      g_autofree char *names = kernel_names (ks, n);
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s has several kernels: name one as %s:KERNEL (%s)", file, file, names);
      return -1;
    }
  /* as the source says it, or mangled: exact */
  g_autofree char *wanted = g_strdup (name);
  g_strstrip (wanted);
  for (guint i = 0; i < n; i++)
    if (strcmp (ks[i].kernel->name, wanted) == 0 || strcmp (ks[i].name, wanted) == 0)
      matches[found++] = i;
  /* else by the base name, if that is unique */
  if (found == 0 && strchr (wanted, '<') == NULL)
    {
      g_autofree char *want_base = base_name (wanted);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *b = base_name (ks[i].kernel->name);
          if (strcmp (b, want_base) == 0)
            matches[found++] = i;
        }
    }
  if (found == 1)
    return (int) matches[0];
  if (found > 1)
    {
      /* overloads (the same name, other parameters): their mangled names */
      GString *s = g_string_new (NULL);
      for (guint i = 0; i < found; i++)
        g_string_append_printf (s, "%s%s (%s)", i ? ", " : "", ks[matches[i]].kernel->name,
                                ks[matches[i]].name);
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s:%s names %u kernels; name one as the source says it or by its mangled "
                   "name: %s", file, name, found, s->str);
      g_string_free (s, TRUE);
      return -1;
    }
  g_autofree char *names = kernel_names (ks, n);
  g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
               "%s has no kernel '%s'; its kernels: %s", file, name, names);
  return -1;
}

static void
user_kernel_free (MsUserKernel *k)
{
  g_free (k->spec);
  g_free (k->name);
  g_free (k->file);
  g_strfreev (k->lines);
  g_free (k->text);
  for (guint i = 0; k->params && i < k->params->len; i++)
    {
      g_free (g_array_index (k->params, Param, i).name);
      g_free (g_array_index (k->params, Param, i).type);
    }
  if (k->params)
    g_array_unref (k->params);
  ms_kernel_signature_free (k->signature);
  g_free (k->build_key);
  g_strfreev (k->flags);
  g_free (k);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsUserKernel, user_kernel_free)

/* The file's nvcc build (-g: the host side's debug information, for the
 * parameters' types; the PTX is the same with it as without) and its PTX
 * program; NULL with the error. */
static MsPtxProgram *
build_program (const char *file, const char *const *user_flags, MsNvccBuild **build,
               GError **error)
{
  const char *files[] = { file, NULL };
  g_autoptr (GPtrArray) flags = g_ptr_array_new ();
  g_ptr_array_add (flags, "-g");
  for (const char *const *f = user_flags; f && *f; f++)
    g_ptr_array_add (flags, (gpointer) *f);
  g_ptr_array_add (flags, NULL);
  *build = ms_nvcc_build (files, (const char *const *) flags->pdata, error);
  if (*build == NULL)
    return NULL;
  MsPtxProgram *prog = ms_ptx_program_load ((const char *const *) (*build)->ptx, error);
  if (prog == NULL)
    g_clear_pointer (build, ms_nvcc_build_free);
  return prog;
}

/* A .cu file in the cache that includes file and takes the address of the
 * template instantiation `name` ("tile<32>"); its path, or NULL. */
static char *
instance_file (const char *file, const char *name, GError **error)
{
  g_autofree char *abs = g_canonicalize_filename (file, NULL);
  g_autofree char *quoted = g_strescape (abs, NULL);
  g_autofree char *text = g_strdup_printf (
    "/* memsim: the instantiation `memsim trace %s:%s` names */\n"
    "#include \"%s\"\n"
    "const void *memsim_instance_ = (const void *) &%s;\n", file, name, quoted, name);
  g_autofree char *hash = g_compute_checksum_for_string (G_CHECKSUM_SHA256, text, -1);
  g_autofree char *cache = ms_user_build_cache_dir ();
  g_autofree char *dir = g_build_filename (cache, "instances", NULL);
  g_autofree char *leaf = g_strdup_printf ("%.24s.cu", hash);
  char *path = g_build_filename (dir, leaf, NULL);
  if (g_mkdir_with_parents (dir, 0700) != 0 || !g_file_set_contents (path, text, -1, error))
    {
      if (*error == NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_COMPILER, "cannot create %s", dir);
      g_free (path);
      return NULL;
    }
  return path;
}

static MsUserKernel *
load (const char *file, const char *name, const char *const *flags, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (GError) e = NULL;
  if (!g_file_test (file, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE,
                   "%s: no such file; give FILE.cu:KERNEL with the path of your CUDA file", file);
      return NULL;
    }
  if (!g_file_get_contents (file, &text, NULL, &e))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE, "cannot read %s: %s", file,
                   e->message);
      return NULL;
    }
  if (!g_str_has_suffix (file, ".cu"))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_FILE,
                   "%s: memsim traces kernels of .cu files; give FILE.cu:KERNEL", file);
      return NULL;
    }
  MsNvccBuild *build = NULL;
  MsPtxProgram *prog = build_program (file, flags, &build, error);
  if (prog == NULL)
    return NULL;
  guint n = 0;
  const MsPtxKernel *ks = ms_ptx_program_kernels (prog, &n);
  int found = find_kernel (file, ks, n, name, error);
  if (found < 0 && name != NULL && strchr (name, '<') != NULL)
    {
      /* a template's instantiation the file does not make: a file that
       * includes it and takes the instantiation's address makes nvcc
       * compile it */
      g_autoptr (GError) instance_error = NULL;
      g_autofree char *wrapper = instance_file (file, name, &instance_error);
      MsNvccBuild *instance_build = NULL;
      MsPtxProgram *instance = wrapper ? build_program (wrapper, flags, &instance_build,
                                                        &instance_error) : NULL;
      if (instance != NULL)
        {
          g_clear_error (error);
          ms_ptx_program_free (prog);
          ms_nvcc_build_free (build);
          prog = instance;
          build = instance_build;
          ks = ms_ptx_program_kernels (prog, &n);
          found = find_kernel (file, ks, n, name, error);
        }
      else if (instance_error != NULL && error != NULL)
        {
          g_clear_error (error);
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                       "%s cannot be instantiated as %s: %s", file, name,
                       instance_error->message);
        }
    }
  g_autoptr (MsNvccBuild) build_owned = build;
  if (found < 0)
    {
      ms_ptx_program_free (prog);
      return NULL;
    }
  const MsPtxKernel *pk = &ks[found];
  const char *shown = pk->kernel->name;
  if (pk->n_params > MS_MAX_ARGS)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s: %s has %u parameters; memsim runs kernels of at most %d", file, shown,
                   pk->n_params, MS_MAX_ARGS);
      ms_ptx_program_free (prog);
      return NULL;
    }
  g_autoptr (MsUserKernel) k = g_new0 (MsUserKernel, 1);
  k->signature = ms_kernel_signature_open (build->so, error);
  GArray *types = k->signature ? ms_kernel_signature_params (k->signature, pk->name) : NULL;
  if (types == NULL || types->len != pk->n_params)
    {
      if (k->signature != NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                     "nvcc's host build of %s describes %s with %d parameters, its PTX with %u: "
                     "memsim cannot tell their types", file, shown, types ? (int) types->len : -1,
                     pk->n_params);
      ms_kernel_param_types_free (types);
      ms_ptx_program_free (prog);
      return NULL;
    }
  k->params = g_array_new (FALSE, TRUE, sizeof (Param));
  gsize prefix = strlen (pk->name);
  for (guint i = 0; i < pk->n_params; i++)
    {
      const MsPtxParam *q = &pk->params[i];
      const MsKernelParamType *t = &g_array_index (types, MsKernelParamType, i);
      /* a name PTX gave ("_Z5scalePfi_param_0"): "param_0" */
      const char *pname = strncmp (q->name, pk->name, prefix) == 0 && q->name[prefix] == '_'
                            ? q->name + prefix + 1 : q->name;
      Param p = { g_strdup (pname), g_strdup (t->type), t->kind, q->offset, q->size };
      g_array_append_val (k->params, p);
    }
  ms_kernel_param_types_free (types);
  for (guint i = 0; i < k->params->len; i++)
    {
      const Param *q = &g_array_index (k->params, Param, i);
      if (q->kind == 's')
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                       "%s: parameter %s of %s is passed by value (%s); memsim sets pointers "
                       "and numbers with --arg, not structs yet", file, q->name, shown, q->type);
          ms_ptx_program_free (prog);
          return NULL;
        }
    }
  /* the entry's C, compiled (cached) and loaded; its failure said why */
  if (ms_ptx_program_kernel (prog, pk->name) == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                   "memsim cannot run the device code of %s (the line above says why)", shown);
      ms_ptx_program_free (prog);
      return NULL;
    }
  k->kernel = *pk->kernel;
  k->param_bytes = pk->param_bytes;
  k->static_shared = pk->static_shared;
  k->file = g_strdup (file);
  k->name = g_strdup (shown);
  k->lines = g_strsplit (text, "\n", -1);
  k->text = g_steal_pointer (&text);
  g_autofree char *dir = g_path_get_dirname (build->so);
  k->build_key = g_path_get_basename (dir);
  k->flags = g_strdupv ((char **) flags);
  k->program = prog;
  MsKernel *d = &k->kernel;
  d->name = k->name;
  d->family = "user";
  d->origin = k->file;
  d->description = "a kernel of your own file";
  d->setup = no_setup;
  d->source_lines = (const char *const *) k->lines;
  return g_steal_pointer (&k);
}

const MsUserKernel *
ms_user_kernel_load (const char *spec, GError **error)
{
  return ms_user_kernel_load_with (spec, NULL, error);
}

const MsUserKernel *
ms_user_kernel_load_with (const char *spec, const char *const *flags, GError **error)
{
  const char *colon = strrchr (spec, ':');
  /* "ns::f" is a kernel's name, not a file's end */
  while (colon != NULL && colon > spec && colon[-1] == ':')
    {
      const char *before = colon - 1;
      colon = NULL;
      for (const char *c = spec; c < before; c++)
        if (*c == ':' && c[1] != ':' && (c == spec || c[-1] != ':'))
          colon = c;
    }
  g_autofree char *file = colon ? g_strndup (spec, (gsize) (colon - spec)) : g_strdup (spec);
  const char *name = colon ? colon + 1 : NULL;
  if (name != NULL && *name == '\0')
    name = NULL;
  /* loaded once per file, kernel and flags */
  g_autoptr (GString) key_text = g_string_new (NULL);
  g_string_printf (key_text, "%s:%s", file, name ? name : "");
  for (const char *const *f = flags; f && *f; f++)
    g_string_append_printf (key_text, "%c%s", 1, *f);
  g_autofree char *key = g_string_free (g_steal_pointer (&key_text), FALSE);
  g_mutex_lock (&loaded_lock);
  if (loaded == NULL)
    loaded = g_ptr_array_new ();
  MsUserKernel *k = NULL;
  for (guint i = 0; i < loaded->len && k == NULL; i++)
    if (strcmp (((MsUserKernel *) loaded->pdata[i])->spec, key) == 0)
      k = loaded->pdata[i];
  if (k == NULL)
    {
      k = load (file, name, flags, error);
      if (k != NULL)
        {
          k->spec = g_steal_pointer (&key);
          g_ptr_array_add (loaded, k);
        }
    }
  g_mutex_unlock (&loaded_lock);
  return k;
}

gboolean
ms_user_kernel_build_gpu (MsProblem *p, int cc_major, int cc_minor, GError **error)
{
  if (!p->kernel->external)
    return TRUE;
  MsUserKernel *k = (MsUserKernel *) p->kernel;   /* MsKernel is its first member */
  g_mutex_lock (&loaded_lock);
  gboolean ok = TRUE;
  if (k->kernel.gpu_entry == NULL)
    {
      const char *entries[] = { k->name, NULL };
      g_autofree char *so = ms_user_gpu_build (k->file, k->text, entries,
                                               (const char *const *) k->flags, k->build_key,
                                               cc_major, cc_minor, NULL, error);
      GModule *module = so ? g_module_open (so, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY) : NULL;
      g_autofree char *sym = ms_user_build_symbol ("ms_user_gpu_entry_", k->name);
      gpointer entry = NULL, set = NULL;
      if (so != NULL && module == NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                     "cannot load the nvcc build of %s: %s", k->file, g_module_error ());
      else if (module != NULL
               && (!g_module_symbol (module, sym, &entry) || entry == NULL
                   || !g_module_symbol (module, "ms_user_gpu_set_dynamic_shared", &set)
                   || set == NULL))
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                       "the nvcc build of %s has no entry for %s", k->file, k->name);
          g_module_close (module);
          module = NULL;
        }
      if (module == NULL)
        ok = FALSE;
      else
        {
          k->gpu_module = module;
          k->gpu_set_dynamic_shared = (void (*) (unsigned)) set;
          k->kernel.gpu_entry = (MsEntryFn) entry;
        }
    }
  if (ok)
    k->gpu_set_dynamic_shared (p->dynamic_shared);
  g_mutex_unlock (&loaded_lock);
  return ok;
}

/* ------------------------------------------------------------ buffers */

typedef struct {
  const char *name;
  guint size;        /* bytes of one element */
  guint lanes;       /* scalars in it */
  char kind;         /* 'f', 'i', 'u' */
} BuiltinType;

static const BuiltinType builtin_types[] = {
  { "float", 4, 1, 'f' }, { "double", 8, 1, 'f' },
  { "int", 4, 1, 'i' }, { "signed", 4, 1, 'i' }, { "unsigned", 4, 1, 'u' },
  { "unsigned int", 4, 1, 'u' }, { "uint", 4, 1, 'u' },
  { "char", 1, 1, 'i' }, { "signed char", 1, 1, 'i' }, { "unsigned char", 1, 1, 'u' },
  { "short", 2, 1, 'i' }, { "unsigned short", 2, 1, 'u' },
  { "long", 8, 1, 'i' }, { "long long", 8, 1, 'i' }, { "unsigned long", 8, 1, 'u' },
  { "unsigned long long", 8, 1, 'u' }, { "size_t", 8, 1, 'u' }, { "bool", 1, 1, 'b' },
  { "int8_t", 1, 1, 'i' }, { "int16_t", 2, 1, 'i' }, { "int32_t", 4, 1, 'i' },
  { "int64_t", 8, 1, 'i' }, { "uint8_t", 1, 1, 'u' }, { "uint16_t", 2, 1, 'u' },
  { "uint32_t", 4, 1, 'u' }, { "uint64_t", 8, 1, 'u' },
  { "float2", 8, 2, 'f' }, { "float3", 12, 3, 'f' }, { "float4", 16, 4, 'f' },
  { "int2", 8, 2, 'i' }, { "int4", 16, 4, 'i' }, { "uint2", 8, 2, 'u' },
  { "uint4", 16, 4, 'u' }, { "double2", 16, 2, 'f' },
  { NULL },
};

/* The range of a fill: [lo, hi) for floating point, [lo, hi] for integers. */
typedef struct {
  gboolean set;
  double lo, hi;
} Range;

static void
fill_scalar (GRand *r, guint8 *dst, guint size, char kind, const Range *range)
{
  if (kind == 'f' && size == 4)
    {
      float v = (float) g_rand_double_range (r, range->set ? range->lo : -1.0,
                                             range->set ? range->hi : 1.0);
      memcpy (dst, &v, 4);
    }
  else if (kind == 'f' && size == 8)
    {
      double v = g_rand_double_range (r, range->set ? range->lo : -1.0,
                                      range->set ? range->hi : 1.0);
      memcpy (dst, &v, 8);
    }
  else
    {
      gint64 v = range->set ? g_rand_int_range (r, (gint32) range->lo, (gint32) range->hi + 1)
                 : kind == 'i' ? g_rand_int_range (r, -1000, 1001)
                 : kind == 'b' ? g_rand_int_range (r, 0, 2) : g_rand_int_range (r, 0, 1001);
      guint8 bytes[8];
      memcpy (bytes, &v, 8);   /* little-endian: the low bytes */
      memcpy (dst, bytes, MIN (size, 8u));
    }
}

/* "=LO..HI" -> range */
static gboolean
parse_range (const char *text, Range *range)
{
  const char *dots = strstr (text, "..");
  if (dots == NULL)
    return FALSE;
  g_autofree char *lo = g_strndup (text, (gsize) (dots - text));
  char *end1 = NULL, *end2 = NULL;
  range->lo = g_ascii_strtod (lo, &end1);
  range->hi = g_ascii_strtod (dots + 2, &end2);
  range->set = TRUE;
  return *lo != '\0' && *end1 == '\0' && dots[2] != '\0' && *end2 == '\0'
         && range->lo <= range->hi && range->lo > -2e9 && range->hi < 2e9;
}

/* TYPE[COUNT], TYPE[COUNT]=0 or TYPE[COUNT]=LO..HI -> element size, count,
 * zero, range; fields for the fill (builtin types: one field per lane). */
static gboolean
parse_buffer (const MsUserKernel *k, const Param *param, const char *value, gsize *elem,
              guint64 *count, gboolean *zero, Range *range, GArray *fields, GError **error)
{
  const char *open = strchr (value, '['), *close = open ? strchr (open, ']') : NULL;
  const char *form = "give TYPE[COUNT] (e.g. float[1024]), TYPE[COUNT]=0 for zeros or "
                     "TYPE[COUNT]=LO..HI for a range";
  *zero = close != NULL && strcmp (close + 1, "=0") == 0;
  if (open == NULL || close == NULL || open == value
      || (close[1] != '\0' && !*zero && !(close[1] == '=' && parse_range (close + 2, range))))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                   "--arg %s=%s: %s is a pointer (%s); %s", param->name, value, param->name,
                   param->type, form);
      return FALSE;
    }
  g_autofree char *type_raw = g_strndup (value, (gsize) (open - value));
  g_autofree char *type = g_strstrip (g_strdup (type_raw));
  g_autofree char *num = g_strndup (open + 1, (gsize) (close - open - 1));
  guint64 n = 0;
  if (!g_ascii_string_to_unsigned (num, 10, 1, G_GUINT64_CONSTANT (1) << 40, &n, NULL))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                   "--arg %s=%s: COUNT '%s' is not a number of elements from 1; %s",
                   param->name, value, num, form);
      return FALSE;
    }
  *count = n;
  g_array_set_size (fields, 0);
  for (const BuiltinType *t = builtin_types; t->name; t++)
    if (strcmp (t->name, type) == 0)
      {
        guint lane = t->size / t->lanes;
        for (guint l = 0; l < t->lanes; l++)
          {
            MsUserField f = { l * lane, lane, t->kind };
            g_array_append_val (fields, f);
          }
        *elem = t->size;
        return TRUE;
      }
  const char *tname = g_str_has_prefix (type, "struct ") ? type + 7 : type;
  if (ms_kernel_signature_struct (k->signature, tname, elem, fields))
    return TRUE;
  g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
               "--arg %s=%s: unknown type '%s'; give a scalar type (float, int, ...), a "
               "vector type (float2, float4, int4, ...) or a struct your kernel uses",
               param->name, value, type);
  return FALSE;
}

static gboolean
set_buffer (MsProblem *p, const MsUserKernel *k, const Param *param,
            const char *value, GError **error)
{
  gsize elem = 0;
  guint64 count = 0;
  gboolean zero = FALSE;
  Range range = { FALSE, 0, 0 };
  g_autoptr (GArray) fields = g_array_new (FALSE, FALSE, sizeof (MsUserField));
  if (!parse_buffer (k, param, value, &elem, &count, &zero, &range, fields, error))
    return FALSE;
  if (count > G_MAXSIZE / MAX (elem, 1))
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG, "--arg %s=%s: too large",
                   param->name, value);
      return FALSE;
    }
  /* buffers in call order = pointer parameters in order (L->buf[k],
   * pack_params); a pointer to const data is an input */
  gboolean output = !g_str_has_prefix (param->type, "const ");
  guint8 *buf = ms_problem_buffer (p, param->name, (gsize) count * elem, output, error);
  if (buf == NULL)
    return FALSE;
  /* floating point throughout: compared with a tolerance under --gpu */
  guint fsize = 0;
  for (guint i = 0; i < fields->len; i++)
    {
      const MsUserField *f = &g_array_index (fields, MsUserField, i);
      if (f->kind != 'f' || (fsize != 0 && f->size != fsize) || (f->size != 4 && f->size != 8)
          || f->offset % f->size != 0)
        {
          fsize = 0;
          break;
        }
      fsize = f->size;
    }
  gsize covered = fsize ? fields->len * fsize : 0;
  p->buffer_float[p->n_buffers - 1] = fsize && covered == elem ? (guint8) fsize : 0;
  if (zero)
    return TRUE;
  /* the built-in kernels' fill for whole buffers of 4-byte floats and ints */
  const MsUserField *f0 = fields->len ? &g_array_index (fields, MsUserField, 0) : NULL;
  gboolean uniform = f0 != NULL && f0->size == 4;
  for (guint i = 0; i < fields->len && uniform; i++)
    {
      const MsUserField *f = &g_array_index (fields, MsUserField, i);
      uniform = f->size == 4 && f->kind == f0->kind && f->offset == 4 * i;
    }
  uniform = uniform && elem == 4 * fields->len;
  guint64 scalars = count * fields->len;
  if (uniform && f0->kind == 'f' && !range.set)
    ms_fill_floats (p, (float *) buf, scalars);
  else if (uniform && f0->kind != 'f')
    ms_fill_ints (p, (int *) buf, scalars,
                  range.set ? (int) range.lo : f0->kind == 'i' ? -1000 : 0,
                  range.set ? (int) range.hi : 1000);
  else
    {
      g_autoptr (GRand) r = g_rand_new_with_seed (p->seed);
      for (guint64 e = 0; e < count; e++)
        for (guint i = 0; i < fields->len; i++)
          {
            const MsUserField *f = &g_array_index (fields, MsUserField, i);
            if (f->offset + f->size <= elem)
              fill_scalar (r, buf + e * elem + f->offset, f->size, f->kind, &range);
          }
    }
  return TRUE;
}

static gboolean
set_scalar (MsProblem *p, guint index, const Param *param, gboolean floating,
            const char *value, GError **error)
{
  char *end = NULL;
  if (strcmp (value, "true") == 0 || strcmp (value, "false") == 0)
    {
      p->args.i[index] = value[0] == 't';
      p->args.f[index] = (double) p->args.i[index];
    }
  else if (floating)
    {
      double v = g_ascii_strtod (value, &end);
      if (*value == '\0' || *end != '\0')
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                       "--arg %s=%s: %s is a %s; give a number (e.g. %s=0.5)", param->name,
                       value, param->name, param->type, param->name);
          return FALSE;
        }
      p->args.f[index] = v;
      p->args.i[index] = (long long) v;
    }
  else
    {
      errno = 0;
      gint64 v = g_ascii_strtoll (value, &end, 0);
      if (*value == '\0' || *end != '\0' || errno != 0)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                       "--arg %s=%s: %s is a%s %s; give an integer (e.g. %s=1024)%s",
                       param->name, value, param->name,
                       strchr ("aeiou", param->type[0]) ? "n" : "", param->type, param->name,
                       strchr (value, '[') ? ", or make it a pointer parameter" : "");
          return FALSE;
        }
      p->args.i[index] = v;
      p->args.f[index] = (double) v;
      if (p->n_run_params < MS_MAX_PARAMS)
        {
          p->run_param_names[p->n_run_params] = param->name;
          p->run_params[p->n_run_params++] = v;
        }
    }
  return TRUE;
}

/* Writes v into a parameter of size bytes (little-endian: the low ones). */
static void
put_integer (guint8 *dst, guint size, gint64 v)
{
  guint8 bytes[8];
  memcpy (bytes, &v, 8);
  memcpy (dst, bytes, MIN (size, 8u));
}

/* The PTX's parameter block of the launch: buffers' addresses, numbers. */
static guint8 *
pack_params (const MsUserKernel *k, const MsProblem *p)
{
  guint8 *block = g_malloc0 (MAX (k->param_bytes, 1));
  guint buffer = 0;
  for (guint i = 0; i < k->params->len; i++)
    {
      const Param *q = &g_array_index (k->params, Param, i);
      guint8 *dst = block + q->offset;
      if (q->offset + q->size > k->param_bytes)
        continue;
      if (q->kind == 'p')
        {
          void *ptr = p->args.buf[buffer++];
          memcpy (dst, &ptr, MIN (q->size, (guint) sizeof ptr));
        }
      else if (q->kind == 'f' && q->size == 4)
        {
          float v = (float) p->args.f[i];
          memcpy (dst, &v, 4);
        }
      else if (q->kind == 'f' && q->size == 8)
        memcpy (dst, &p->args.f[i], 8);
      else
        put_integer (dst, q->size, p->args.i[i]);
    }
  return block;
}

MsProblem *
ms_user_problem_new (const MsUserKernel *k, const MsUserLaunch *launch, GError **error)
{
  const char *kname = k->name;
  if (launch->grid == NULL || launch->block == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                   "%s: give the launch with --grid X[xY[xZ]] and --block X[xY[xZ]]", kname);
      return NULL;
    }
  if (launch->dynamic_shared > MAX_DYNAMIC_SHARED)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                   "--dynamic-shared %u: a block has at most %u bytes of shared memory",
                   launch->dynamic_shared, MAX_DYNAMIC_SHARED);
      return NULL;
    }
  g_autoptr (MsProblem) p = ms_problem_new (&k->kernel);
  p->guard_bytes = GUARD_BYTES;
  p->dynamic_shared = launch->dynamic_shared;
  if (!ms_problem_set_block (p, launch->block, error)
      || !ms_problem_set_grid (p, launch->grid, error))
    return NULL;
  /* every --arg names a parameter, once */
  for (const char *const *a = launch->args; a && *a; a++)
    {
      const char *eq = strchr (*a, '=');
      gboolean known = FALSE;
      for (guint i = 0; eq && i < k->params->len && !known; i++)
        {
          const Param *q = &g_array_index (k->params, Param, i);
          known = strlen (q->name) == (gsize) (eq - *a) && strncmp (q->name, *a, eq - *a) == 0;
        }
      if (!known)
        {
          GString *names = g_string_new (NULL);
          for (guint i = 0; i < k->params->len; i++)
            {
              const Param *q = &g_array_index (k->params, Param, i);
              g_string_append_printf (names, "%s%s %s", i ? ", " : "", q->type, q->name);
            }
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                       eq ? "--arg %s: %s has no such parameter; its parameters: %s"
                          : "--arg %s: write NAME=VALUE; the parameters of %s: %s",
                       *a, kname, names->len ? names->str : "(none)");
          g_string_free (names, TRUE);
          return NULL;
        }
    }
  for (guint i = 0; i < k->params->len; i++)
    {
      const Param *q = &g_array_index (k->params, Param, i);
      const char *value = NULL;
      gsize len = strlen (q->name);
      for (const char *const *a = launch->args; a && *a; a++)
        if (strncmp (*a, q->name, len) == 0 && (*a)[len] == '=')
          value = *a + len + 1;
      if (value == NULL)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                       "%s needs --arg %s=%s (parameter %u: %s %s)", kname, q->name,
                       q->kind == 'p' ? "TYPE[COUNT]" : "NUMBER", i + 1, q->type, q->name);
          return NULL;
        }
      if (q->kind == 'p' ? !set_buffer (p, k, q, value, error)
                         : !set_scalar (p, i, q, q->kind == 'f', value, error))
        return NULL;
    }
  p->args.params = p->params = pack_params (k, p);
  p->static_shared = k->static_shared;
  return g_steal_pointer (&p);
}
