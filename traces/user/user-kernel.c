/* user-kernel.c - a user's kernel loaded and set up for a launch (see
 * user-kernel.h).
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
#define _GNU_SOURCE 1   /* dladdr */
#include "config.h"
#include "user-kernel.h"

#include <dlfcn.h>
#include <gmodule.h>
#include <string.h>

#include "native.h"
#include "user-build.h"
#include "user-gpu.h"
#include "user-sites.h"
#include "user-sass.h"

#define GUARD_BYTES ((gsize) 1 << 20)
#define MAX_DYNAMIC_SHARED (227 * 1024)   /* an H100 block's opt-in maximum */

struct MsUserKernel {
  MsKernel kernel;         /* first: MsProblem.kernel points here */
  char *spec;              /* canonical "FILE:KERNEL" */
  char *name;              /* KERNEL: a name or a template's instantiation */
  char *file;
  char **lines;
  MsUserFunction *fn;
  char *kinds;             /* per parameter, from the build: 'p' pointer,
                              'f' floating point, 'i' integer (cuda-shim.h) */
  GModule *module;
  MsUserSites *sites;
  char *text;              /* the file as built */
  char **entries;          /* the kernels the builds have entries for */
  char *cpu_key;           /* the CPU build's cache name (its hash) */
  GModule *gpu_module;     /* the nvcc build, once --gpu asked for it */
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

static char *
kernel_names (GPtrArray *fns)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < fns->len; i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", ((MsUserFunction *) fns->pdata[i])->name);
  return g_string_free (s, FALSE);
}

static MsUserKernel *
load (const char *file, const char *name, GError **error)
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
  g_autoptr (GPtrArray) fns = ms_user_source_kernels (text);
  if (fns->len == 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s has no __global__ function; memsim runs CUDA kernels", file);
      return NULL;
    }
  /* a template's instantiation: tile<1> */
  g_autofree char *base = name ? g_strstrip (g_strndup (name, strcspn (name, "<"))) : NULL;
  gboolean instance = name != NULL && strchr (name, '<') != NULL;
  MsUserFunction *fn = NULL;
  for (guint i = 0; i < fns->len; i++)
    if (base != NULL && strcmp (((MsUserFunction *) fns->pdata[i])->name, base) == 0)
      fn = fns->pdata[i];
  if (fn == NULL && name == NULL && fns->len == 1)
    fn = fns->pdata[0];
  if (fn == NULL)
    {
      g_autofree char *names = kernel_names (fns);
      if (name == NULL)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                     "%s has several kernels: name one as %s:KERNEL (%s)", file, file, names);
      else
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                     "%s has no __global__ function '%s'; its kernels: %s", file, name, names);
      return NULL;
    }
  if (fn->is_template != instance)
    {
      if (instance)
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                     "%s:%d: %s is not a template; name it without <...>", file, fn->line,
                     fn->name);
      else
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                     "%s:%d: %s is a template: name an instantiation, e.g. %s:'%s<...>'", file,
                     fn->line, fn->name, file, fn->name);
      return NULL;
    }
  if (name == NULL)
    name = fn->name;
  if (fn->params->len > MS_MAX_ARGS)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                   "%s:%d: %s has %u parameters; memsim runs kernels of at most %d", file,
                   fn->line, fn->name, fn->params->len, MS_MAX_ARGS);
      return NULL;
    }
  for (guint i = 0; i < fn->params->len; i++)
    if (*((MsUserParam *) fn->params->pdata[i])->name == '\0')
      {
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                     "%s:%d: parameter %u of %s has no name; name it to set it with --arg",
                     file, fn->line, i + 1, fn->name);
        return NULL;
      }

  /* every non-template kernel gets an entry: one build serves them all */
  g_autoptr (GPtrArray) entries = g_ptr_array_new ();
  for (guint i = 0; i < fns->len; i++)
    {
      MsUserFunction *f = fns->pdata[i];
      if (!f->is_template && f->params->len <= MS_MAX_ARGS)
        g_ptr_array_add (entries, f->name);
    }
  if (instance)
    g_ptr_array_add (entries, (char *) name);
  g_ptr_array_add (entries, NULL);
  g_autofree char *so = ms_user_build (file, text, (const char *const *) entries->pdata, NULL,
                                       error);
  if (so == NULL)
    return NULL;

  (void) ms_native_runtime_version ();   /* the hooks the build calls: linked in */
  /* lazily bound: the file's host code calls CUDA's runtime, which memsim
   * declares (cuda-host.h) but trace never runs */
  GModule *module = g_module_open (so, G_MODULE_BIND_LOCAL | G_MODULE_BIND_LAZY);
  if (module == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                   "cannot load the build of %s: %s (a CUDA feature memsim does not provide?)",
                   file, g_module_error ());
      return NULL;
    }
  g_autofree char *sym = ms_user_build_symbol ("ms_user_entry_", name);
  gpointer entry = NULL;
  Dl_info info;
  if (!g_module_symbol (module, sym, &entry) || entry == NULL || dladdr (entry, &info) == 0)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                   "the build of %s has no entry for %s (is it inside a namespace?)", file,
                   fn->name);
      g_module_close (module);
      return NULL;
    }
  /* what the compiler says the parameters are (a typedef'd pointer is one) */
  g_autofree char *kinds_sym = ms_user_build_symbol ("ms_user_kinds_", name);
  const char *(*kinds_fn) (void) = NULL;
  const char *kinds = g_module_symbol (module, kinds_sym, (gpointer *) &kinds_fn) && kinds_fn
                        ? kinds_fn () : "";
  if (strlen (kinds) != fn->params->len)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_LOAD,
                   "%s:%d: memsim read %u parameters of %s, the compiler %zu; write the "
                   "parameter list plainly (no macros)", file, fn->line, fn->params->len,
                   fn->name, strlen (kinds));
      g_module_close (module);
      return NULL;
    }
  for (guint i = 0; i < fn->params->len; i++)
    if (kinds[i] == 's')
      {
        const MsUserParam *q = fn->params->pdata[i];
        g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_KERNEL,
                     "%s:%d: parameter %s of %s is passed by value (%s); memsim sets pointers "
                     "and numbers with --arg, not structs yet", file, fn->line, q->name,
                     fn->name, q->type);
        g_module_close (module);
        return NULL;
      }
  /* compiler-exact counts: the kernel's instructions in nvcc's SASS of the
   * file, found by its symbol (user-sass.h); without nvcc or nvdisasm,
   * source-level */
  MsSass *sass = NULL;
  char *sass_function = NULL;
  g_autofree char *addr_sym = ms_user_build_symbol ("ms_user_addr_", name);
  const void *(*addr_fn) (void) = NULL;
  Dl_info kinfo;
  if (g_module_symbol (module, addr_sym, (gpointer *) &addr_fn) && addr_fn
      && dladdr (addr_fn (), &kinfo) != 0 && kinfo.dli_sname != NULL)
    {
      const char *files[] = { file, NULL };
      g_autofree char *why = NULL;
      g_autofree char *sass_text = ms_user_sass_text (files, NULL, &why);
      if (sass_text != NULL)
        sass = ms_user_sass_kernel (sass_text, kinfo.dli_sname, &sass_function);
    }
  MsUserSites *sites = ms_user_sites_new (so, info.dli_fbase, file, error);
  if (sites == NULL)
    {
      g_clear_pointer (&sass, ms_sass_free);
      g_free (sass_function);
      g_module_close (module);
      return NULL;
    }

  MsUserKernel *k = g_new0 (MsUserKernel, 1);
  k->file = g_strdup (file);
  k->name = g_strdup (name);
  k->lines = g_strsplit (text, "\n", -1);
  k->module = module;
  k->sites = sites;
  k->kinds = g_strdup (kinds);
  k->text = g_steal_pointer (&text);
  g_ptr_array_remove_index (entries, entries->len - 1);   /* the NULL */
  k->entries = g_new0 (char *, entries->len + 1);
  for (guint i = 0; i < entries->len; i++)
    k->entries[i] = g_strdup (entries->pdata[i]);
  k->cpu_key = g_path_get_basename (so);
  for (guint i = 0; i < fns->len; i++)
    if (fns->pdata[i] == fn)
      k->fn = g_ptr_array_steal_index (fns, i);
  MsKernel *d = &k->kernel;
  d->name = k->name;
  d->family = "user";
  d->origin = k->file;
  d->description = "a kernel of your own file";
  d->source = k->file;
  d->setup = no_setup;
  d->cpu_entry = (MsEntryFn) entry;
  d->external = TRUE;
  d->source_lines = (const char *const *) k->lines;
  d->site_at = ms_user_sites_at;
  d->site_data = sites;
  d->sass = sass;
  d->sass_function = sass_function;
  return k;
}

const MsUserKernel *
ms_user_kernel_load (const char *spec, GError **error)
{
  const char *colon = strrchr (spec, ':');
  g_autofree char *file = colon ? g_strndup (spec, (gsize) (colon - spec)) : g_strdup (spec);
  const char *name = colon ? colon + 1 : NULL;
  if (name != NULL && *name == '\0')
    name = NULL;
  g_autofree char *key = g_strdup_printf ("%s:%s", file, name ? name : "");
  g_mutex_lock (&loaded_lock);
  if (loaded == NULL)
    loaded = g_ptr_array_new ();
  MsUserKernel *k = NULL;
  for (guint i = 0; i < loaded->len && k == NULL; i++)
    if (strcmp (((MsUserKernel *) loaded->pdata[i])->spec, key) == 0)
      k = loaded->pdata[i];
  if (k == NULL)
    {
      k = load (file, name, error);
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
      g_autofree char *so = ms_user_gpu_build (k->file, k->text,
                                               (const char *const *) k->entries, k->cpu_key,
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
parse_buffer (const MsUserKernel *k, const MsUserParam *param, const char *value, gsize *elem,
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
  if (ms_user_sites_struct (k->sites, tname, elem, fields))
    return TRUE;
  g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
               "--arg %s=%s: unknown type '%s'; give a scalar type (float, int, ...), a "
               "vector type (float2, float4, int4, ...) or a struct your kernel uses",
               param->name, value, type);
  return FALSE;
}

static gboolean
set_buffer (MsProblem *p, const MsUserKernel *k, const MsUserParam *param,
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
  /* buffers in call order = pointer parameters in order (L->buf[k], the
   * shim's ms_user_launch_) */
  gboolean output = strstr (param->type, "const") == NULL;
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
set_scalar (MsProblem *p, guint index, const MsUserParam *param, gboolean floating,
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

MsProblem *
ms_user_problem_new (const MsUserKernel *k, const MsUserLaunch *launch, GError **error)
{
  const MsUserFunction *fn = k->fn;
  if (launch->grid == NULL || launch->block == NULL)
    {
      g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                   "%s: give the launch with --grid X[xY[xZ]] and --block X[xY[xZ]]",
                   fn->name);
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
      for (guint i = 0; eq && i < fn->params->len && !known; i++)
        {
          const MsUserParam *q = fn->params->pdata[i];
          known = strlen (q->name) == (gsize) (eq - *a) && strncmp (q->name, *a, eq - *a) == 0;
        }
      if (!known)
        {
          GString *names = g_string_new (NULL);
          for (guint i = 0; i < fn->params->len; i++)
            {
              const MsUserParam *q = fn->params->pdata[i];
              g_string_append_printf (names, "%s%s %s", i ? ", " : "", q->type, q->name);
            }
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                       eq ? "--arg %s: %s has no such parameter; its parameters: %s"
                          : "--arg %s: write NAME=VALUE; the parameters of %s: %s",
                       *a, fn->name, names->len ? names->str : "(none)");
          g_string_free (names, TRUE);
          return NULL;
        }
    }
  for (guint i = 0; i < fn->params->len; i++)
    {
      const MsUserParam *q = fn->params->pdata[i];
      const char *value = NULL;
      gsize len = strlen (q->name);
      for (const char *const *a = launch->args; a && *a; a++)
        if (strncmp (*a, q->name, len) == 0 && (*a)[len] == '=')
          value = *a + len + 1;
      if (value == NULL)
        {
          g_set_error (error, MS_USER_ERROR, MS_USER_ERROR_ARG,
                       "%s needs --arg %s=%s (parameter %u: %s %s)", fn->name, q->name,
                       k->kinds[i] == 'p' ? "TYPE[COUNT]" : "NUMBER", i + 1, q->type, q->name);
          return NULL;
        }
      if (k->kinds[i] == 'p' ? !set_buffer (p, k, q, value, error)
                             : !set_scalar (p, i, q, k->kinds[i] == 'f', value, error))
        return NULL;
    }
  return g_steal_pointer (&p);
}
