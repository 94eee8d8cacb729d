/* ptx-program.c - a program's PTX modules made runnable: read (ptx-read.c)
 * and a kernel descriptor made per entry at once; each entry translated to
 * C (ptx-translate.c), compiled by the host compiler into a shared object
 * cached by the hash of its C text and the headers it includes, and loaded
 * when it is first asked for (ms_ptx_program_kernel): a program runs the
 * few kernels of a library's hundreds it launches, and compiles no more.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <glib/gstdio.h>

#include "ptx-program.h"
#include "ptx-source-names.h"
#include "ptx-translate.h"
#include "ptx.h"
#include "ptx-warp.h"
#include "access.h"
#include "user-build.h"
#include "user-sass.h"

typedef struct {
  guint module, func;        /* the entry's */
  MsKernel *kernel;          /* warp_entry NULL until built */
  gboolean failed;           /* its build failed (said once) */
  MsInstMap *inst;           /* its blocks' instructions by line (kernel->inst_map) */
  MsSite *const *sites;      /* its build's sites, in order (the next build's twins) */
  GString *quick_c;          /* the C of a kernel that runs its quick build, whose
                              * optimised build is compiled in the background
                              * (optimise), or NULL */
  char *optimised_stem;      /* ... and that build's place in the cache (build_stem) */
  MsEntryFn quick_fn;        /* MEMSIM_QUICK_BUILD=once: the quick build, which
                              * each launch's first block runs (entry_block) */
  MsPtxProgram *program;     /* ... whose optimiser compiles its optimised build once
                              * its blocks have run for busy_limit microseconds */
  gint64 busy_limit, busy;   /* (busy_lock) */
  gint64 busy_since;         /* when busy was last added to (busy_lock) */
  gint in_flight;            /* its blocks running now (busy_lock) */
  gint optimising;
  char *busy_path;           /* the cache's count of the microseconds its quick
                              * build ran in the runs before (busy_before), to
                              * which this run's are added at its end */
  gint64 busy_before;
} Entry;

typedef struct {
  guint module, var;         /* the variable's */
  void *device;              /* where it lives (ms_ptx_program_bind_global), or NULL */
  GPtrArray *slots;          /* uint8_t ** in the kernels' builds */
} Global;

struct MsPtxProgram {
  GPtrArray *modules;        /* MsPtxModule * */
  GArray *kernels;           /* MsPtxKernel */
  GArray *entries;           /* Entry, one a kernel */
  GPtrArray *owned;          /* what the kernels point to */
  GPtrArray *sass;           /* MsSass * of the kernels (ptxas's SASS) */
  GArray *globals;           /* MsPtxGlobal */
  GArray *global_places;     /* Global, one a global */
  const MsPtxCompiled *compiled;  /* built into memsim (ms_ptx_program_load_compiled), or NULL */
  MsPtxSassFn sass_of;            /* ... and its kernels' SASS, asked for as each is built */
  gboolean quick_first;           /* big kernels start with a quick build (see QUICK_BYTES) */
  /* the background builds: one at a time (the optimiser's one thread);
   * the compiler it runs (0: none) and its output file, which
   * ms_ptx_program_free and the process's exit end and remove; the lock
   * over them and over the builds' variable slots */
  GThreadPool *optimiser;
  GMutex lock;
  GPid compiler;
  char *compiler_in, *compiler_out;
  gboolean closing;
};

/* Tiers of a kernel's build.  gcc -O2 takes about 50 us a byte of the
 * generated C (a 1.2 MB CUB sort kernel: 67 s) and -O0 a tenth of that,
 * while the -O0 code runs 2-8 times slower.  With quick_first (memsim
 * run), a kernel of more than QUICK_BYTES of C whose optimised build is not
 * in the cache yet starts at once on its quick build (-O0).  Once its
 * blocks have run for BUSY_SHARE of the time its optimised build should
 * take, that build is compiled in the background, one kernel at a time
 * (a ski rental: most of CUB's kernels run for a moment, and never pay
 * for it); it takes over at the next block that starts (the launch's
 * blocks run whichever build is current as they start: entry_block), and
 * the builds' sites are twins (ms_site_twin), so the counts are those of
 * either build alone.  A background build not done when the program ends
 * is stopped: a short program runs its quick builds, from the cache the
 * next time.  Both builds are of the same C text: their results and
 * counts are the same. */
#define QUICK_BYTES (32 * 1024)
#define OPTIMISED_US_PER_BYTE 50
#define BUSY_SHARE 0.1

/* The headers the generated C includes, from memsim's source tree. */
static const char *const include_dirs[] = { "sim/ptx", "sim/emulator", "sim/stream", NULL };

/* Flags for this host's CPU.  With FMA, a PTX fma (fmaf, fma) is one
 * instruction, not a call of libm's (perf, convolutionSeparable: 8% of
 * the run in fmaf and its PLT entry); both round once, so the values are
 * the same.  -ffp-contract=off: no other multiply and add fuse, as none
 * did without FMA.  With AVX2, the lane loops' integer work is 8 lanes an
 * instruction, not 4 (correlation, simpleStreams: 4-10% faster).  They
 * are part of the cache's key: a cache shared with a host without them
 * does not load these builds. */
static const char *
host_cpu_flags (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (__builtin_cpu_supports ("fma") && __builtin_cpu_supports ("avx2"))
    return "-mfma -mavx2 -ffp-contract=off";
  if (__builtin_cpu_supports ("fma") && __builtin_cpu_supports ("avx"))
    return "-mfma -ffp-contract=off";
#endif
  return "";
}

/* In the background compiler's process before it runs: it dies with
 * memsim, even one killed by a signal (no exit handler then runs). */
static void
die_with_parent (gpointer data)
{
#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
}

/* Runs the C compiler of argv in the background build, its pid in
 * p->compiler while it runs (to be ended by ms_ptx_program_free or at
 * exit): as ms_user_build_run. */
static gboolean
run_stoppable (MsPtxProgram *p, const char *const *argv, char **err_out, GError **error)
{
  g_auto (GStrv) env = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  GPid pid = 0;
  int err_fd = -1;
  g_mutex_lock (&p->lock);
  gboolean started = !p->closing
                     && g_spawn_async_with_pipes (NULL, (char **) argv, env,
                                                  G_SPAWN_DO_NOT_REAP_CHILD
                                                  | G_SPAWN_STDOUT_TO_DEV_NULL,
                                                  die_with_parent, NULL, &pid, NULL, NULL,
                                                  &err_fd, error);
  if (started)
    p->compiler = pid;
  g_mutex_unlock (&p->lock);
  if (!started)
    return FALSE;
  GString *text = g_string_new (NULL);
  char buf[4096];
  for (;;)
    {
      gssize n = read (err_fd, buf, sizeof buf);
      if (n > 0)
        g_string_append_len (text, buf, n);
      else if (n == 0 || errno != EINTR)
        break;
    }
  close (err_fd);
  /* no longer stoppable before it is reaped: its pid is not reused */
  siginfo_t info;
  while (waitid (P_PID, (id_t) pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR)
    ;
  g_mutex_lock (&p->lock);
  p->compiler = 0;
  g_mutex_unlock (&p->lock);
  int status = 0;
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;
  g_spawn_close_pid (pid);
  *err_out = g_string_free (text, FALSE);
  return g_spawn_check_wait_status (status, NULL);
}

/* Compiles c_path into so_path (in the background build when p is set). */
static gboolean
compile (MsPtxProgram *p, const char *c_path, const char *so_path, gboolean quick,
         GError **error)
{
  const char *cc = g_getenv ("MEMSIM_CC");
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  char *path = g_find_program_in_path (cc && *cc ? cc : "cc");
  if (path == NULL)
    path = g_find_program_in_path ("gcc");
  if (path == NULL)
    {
      g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_COMPILER,
                   "no C compiler found for the device code: install gcc or set MEMSIM_CC");
      return FALSE;
    }
  g_ptr_array_add (argv, path);
  const char *flags[] = { "-std=gnu11", quick ? "-O0" : "-O2", "-fPIC", "-shared", "-w",
                          "-fno-strict-aliasing", "-fno-math-errno", "-DMS_PTX_BUILD=1", NULL };
  for (const char *const *f = flags; *f; f++)
    g_ptr_array_add (argv, g_strdup (*f));
  g_auto (GStrv) cpu = g_strsplit (host_cpu_flags (), " ", -1);
  for (char **f = cpu; *f; f++)
    if (**f)
      g_ptr_array_add (argv, g_strdup (*f));
  for (const char *const *d = include_dirs; *d; d++)
    g_ptr_array_add (argv, g_strdup_printf ("-I%s/%s", MEMSIM_SRCDIR, *d));
  g_ptr_array_add (argv, g_strdup_printf ("-I%s", MEMSIM_BUILDDIR));
  g_auto (GStrv) glib = g_strsplit (MS_GLIB_CFLAGS, " ", -1);
  for (char **g = glib; *g; g++)
    if (**g)
      g_ptr_array_add (argv, g_strdup (*g));
  g_ptr_array_add (argv, g_strdup (c_path));
  g_ptr_array_add (argv, g_strdup ("-o"));
  g_ptr_array_add (argv, g_strdup (so_path));
  g_ptr_array_add (argv, g_strdup ("-lm"));
  g_ptr_array_add (argv, NULL);
  g_autofree char *err = NULL;
  g_autoptr (GError) run_error = NULL;
  if (p != NULL ? !run_stoppable (p, (const char *const *) argv->pdata, &err, &run_error)
                : !ms_user_build_run ((const char *const *) argv->pdata, NULL, &err, &run_error))
    {
      if (run_error != NULL)
        g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_COMPILER,
                     "cannot run the C compiler for the device code: %s (set MEMSIM_CC)",
                     run_error->message);
      else
        {
          g_auto (GStrv) lines = g_strsplit (err ? err : "", "\n", -1);
          const char *first = "";
          for (char **l = lines; *l; l++)
            if (strstr (*l, "error") != NULL)
              {
                first = *l;
                break;
              }
          g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_COMPILER,
                       "the C compiler failed on memsim's translation of the device code "
                       "(%s): %s; this is a memsim bug, please report it", c_path, first);
        }
      return FALSE;
    }
  return TRUE;
}

static void save_busy (MsPtxProgram *p);

/* over the entries' busy counts (entry_busy) */
static GMutex busy_lock;

/* e's busy time until now, its blocks in flight included (busy_lock held). */
static gint64
busy_at (const Entry *e, gint64 now)
{
  return e->busy + (e->in_flight > 0 ? e->in_flight * (now - e->busy_since) : 0);
}

/* The programs with a background build, which the process's exit stops. */
static GMutex optimising_lock;
static GSList *optimising;

/* Stops p's background build: no new one starts, the compiler running is
 * killed and its output removed. */
static void
stop_background (MsPtxProgram *p)
{
  g_mutex_lock (&p->lock);
  p->closing = TRUE;
  if (p->compiler != 0)
    kill (p->compiler, SIGKILL);
  if (p->compiler_out != NULL)
    g_unlink (p->compiler_out);
  if (p->compiler_in != NULL)
    g_unlink (p->compiler_in);
  g_mutex_unlock (&p->lock);
}

/* At exit (the program's main returned or it called exit()): a
 * background build not done is not waited for. */
static void
stop_all_at_exit (void)
{
  g_mutex_lock (&optimising_lock);
  for (GSList *l = optimising; l; l = l->next)
    {
      stop_background (l->data);
      save_busy (l->data);
    }
  g_mutex_unlock (&optimising_lock);
}

void
ms_ptx_program_free (MsPtxProgram *p)
{
  if (p == NULL)
    return;
  if (p->optimiser != NULL)
    {
      stop_background (p);
      g_thread_pool_free (p->optimiser, TRUE, TRUE);   /* those queued dropped; the one running ends */
      save_busy (p);
      g_mutex_lock (&optimising_lock);
      optimising = g_slist_remove (optimising, p);
      g_mutex_unlock (&optimising_lock);
    }
  g_mutex_clear (&p->lock);
  g_ptr_array_unref (p->modules);
  g_array_unref (p->kernels);
  for (guint k = 0; k < p->entries->len; k++)
    {
      Entry *e = &g_array_index (p->entries, Entry, k);
      ms_inst_map_free (e->inst);
      if (e->quick_c != NULL)
        g_string_free (e->quick_c, TRUE);
      g_free (e->optimised_stem);
      g_free (e->busy_path);
    }
  g_array_unref (p->entries);
  g_ptr_array_unref (p->owned);
  g_ptr_array_unref (p->sass);
  g_array_unref (p->globals);
  for (guint i = 0; i < p->global_places->len; i++)
    g_ptr_array_unref (g_array_index (p->global_places, Global, i).slots);
  g_array_unref (p->global_places);
  /* the builds stay loaded: launches may still refer to their sites */
  g_free (p);
}

/* The kernel's name as its source says it: "clamp" for _Z5clampPfi,
 * "red<128>" for a template's instance (the C++ runtime's demangler, when
 * the process has one and demangle is set; else the mangled name's first
 * identifier: memsim's own kernels, plain functions, spare loading it). */
char *
ms_ptx_display_name (const char *mangled, gboolean demangle_it)
{
  typedef char *(*Demangle) (const char *, char *, size_t *, int *);
  static Demangle demangle;
  static gsize once;
  if (demangle_it && g_once_init_enter (&once))
    {
      void *lib = dlopen ("libstdc++.so.6", RTLD_LAZY | RTLD_GLOBAL);
      demangle = (Demangle) dlsym (lib ? lib : RTLD_DEFAULT, "__cxa_demangle");
      g_once_init_leave (&once, 1);
    }
  if (demangle_it && demangle != NULL)
    {
      int status = 0;
      char *d = demangle (mangled, NULL, NULL, &status);
      if (d != NULL && status == 0)
        {
          /* "void tileSums<64>(int const*, int*)" -> "tileSums<64>": the
           * parameter list and a template's return type go */
          int depth = 0;
          const char *start = d, *end = d + strlen (d);
          for (const char *c = d; *c; c++)
            {
              if (*c == '<')
                depth++;
              else if (*c == '>')
                depth--;
              else if (*c == ' ' && depth == 0)
                start = c + 1;
              else if (*c == '(' && depth == 0)
                {
                  end = c;
                  break;
                }
            }
          GString *name = g_string_new (NULL);
          for (const char *c = end > start ? start : d; c < end; c++)
            if (!(*c == 'u' && c > start && g_ascii_isdigit (c[-1])
                  && (c[1] == '>' || c[1] == ',')))
              g_string_append_c (name, *c);   /* 64u -> 64, as the source writes it */
          free (d);
          return g_string_free (name, FALSE);
        }
      free (d);
    }
  if (g_str_has_prefix (mangled, "_Z") && g_ascii_isdigit (mangled[2]))
    {
      char *end = NULL;
      guint64 n = g_ascii_strtoull (mangled + 2, &end, 10);
      if (end != NULL && n > 0 && n <= strlen (end))
        return g_strndup (end, n);
    }
  return g_strdup (mangled);
}

/* The parameters' names as the kernel's declaration in its source file
 * gives them (PTX keeps only _Z..._param_N), read at the entry's first .loc
 * line (ptx-source-names.h); NULL where there is none (the caller keeps the
 * PTX names). */
static char **
source_param_names (const MsPtxModule *m, const MsPtxFunc *f, const char *shown, guint n)
{
  const MsPtxInsn *first = NULL;
  for (guint k = 0; k < f->insns->len && first == NULL; k++)
    {
      const MsPtxInsn *i = &g_array_index (f->insns, MsPtxInsn, k);
      if (i->file > 0 && (guint) i->file < m->files->len && i->line > 0
          && g_ptr_array_index (m->files, i->file) != NULL)
        first = i;
    }
  if (first == NULL || n == 0)
    return NULL;
  g_autofree char *text = NULL;
  if (!g_file_get_contents (g_ptr_array_index (m->files, first->file), &text, NULL, NULL))
    return NULL;
  return ms_ptx_source_param_names (text, (guint) first->line, shown, n);
}

/* Whether ptxas aggregated the atomic at site (the loader's answer to
 * MsPtxAgg): the SASS's atomics of its line are all done by one elected
 * lane, reductions as reductions (@P RED after a REDUX or VOTE), an
 * atomic whose result is used as an atomic (@P ATOM after a VOTE). */
static gboolean
sass_aggregated (const MsSass *sass, const MsSite *site)
{
  g_autofree char *base = g_path_get_basename (site->file);
  g_autofree char *where = g_strdup_printf ("%s:%d", base, site->line);
  guint n = 0, agg = 0;
  for (guint k = 0; k < sass->instrs->len; k++)
    {
      const MsSassInstr *s = g_ptr_array_index (sass->instrs, k);
      if (!MS_OP_IS_ATOMIC (s->op) || !(s->spaces & (1u << MS_SPACE_GLOBAL)))
        continue;
      gboolean here = s->line == site->line && strcmp (s->file, base) == 0;
      for (char **w = s->where; !here && w && *w; w++)
        here = strcmp (*w, where) == 0;
      if (!here)
        continue;
      n++;
      agg += s->predicated && (site->reduction ? s->red : !s->red);
    }
  return n > 0 && agg == n;
}

static char *
kernel_file (const MsPtxModule *m, const MsPtxFunc *f)
{
  for (guint k = 0; k < f->insns->len; k++)
    {
      const MsPtxInsn *i = &g_array_index (f->insns, MsPtxInsn, k);
      if (i->file > 0 && (guint) i->file < m->files->len
          && g_ptr_array_index (m->files, i->file) != NULL)
        return g_strdup (g_ptr_array_index (m->files, i->file));
    }
  return g_strdup (m->path);
}

/* The text of the headers the translated C includes, read once (a
 * kernel's build is keyed by them too: build_stem). */
static const GString *
headers_text (void)
{
  static GString *text;
  if (g_once_init_enter (&text))
    {
      const char *headers[] = { "sim/ptx/ptx-warp.h", "sim/emulator/halves.h",
                                "sim/emulator/warp.h", "sim/emulator/lane.h",
                                "sim/emulator/kernel.h", "sim/emulator/direct.h",
                                "sim/emulator/fiber.h", "sim/emulator/texture.h",
                                "sim/stream/site.h", "sim/stream/cpu-clones.h", NULL };
      GString *all = g_string_new (NULL);
      for (const char *const *h = headers; *h; h++)
        {
          g_autofree char *path = g_build_filename (MEMSIM_SRCDIR, *h, NULL);
          g_autofree char *one = NULL;
          gsize len = 0;
          if (g_file_get_contents (path, &one, &len, NULL))
            g_string_append_len (all, one, (gssize) len);
        }
      g_once_init_leave (&text, all);
    }
  return text;
}

/* The path in the cache of the build of C text c, quick or optimised,
 * without its suffix (".so"; ".c" while it compiles; ".busy": how long a
 * quick build has run). */
static char *
build_stem (const GString *c, gboolean quick)
{
  g_autoptr (GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  g_checksum_update (sum, (const guchar *) c->str, (gssize) c->len);
  g_checksum_update (sum, (const guchar *) host_cpu_flags (), -1);
  if (quick)
    g_checksum_update (sum, (const guchar *) "-O0", -1);
  const GString *headers = headers_text ();
  g_checksum_update (sum, (const guchar *) headers->str, (gssize) headers->len);
  g_autofree char *name = g_strdup_printf ("ptx-%.24s", g_checksum_get_string (sum));
  g_autofree char *cache = ms_user_build_cache_dir ();
  return g_build_filename (cache, name, NULL);
}

/* Whether the cache has the build of stem (build_stem). */
static gboolean
built (const char *stem)
{
  g_autofree char *so_path = g_strconcat (stem, ".so", NULL);
  return g_file_test (so_path, G_FILE_TEST_EXISTS);
}

/* The shared object of C text c, quick or optimised (compiled into the
 * cache at stem, build_stem's, unless it is there), loaded; NULL with the
 * error. */
static void *
build_load (MsPtxProgram *background, const GString *c, const char *stem, gboolean quick,
            GError **error)
{
  g_autofree char *cache = ms_user_build_cache_dir ();
  if (g_mkdir_with_parents (cache, 0755) != 0)
    {
      g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_COMPILER, "cannot create %s: %s", cache,
                   g_strerror (errno));
      return NULL;
    }
  g_autofree char *so_path = g_strconcat (stem, ".so", NULL);
  if (!g_file_test (so_path, G_FILE_TEST_EXISTS))
    {
      g_autofree char *c_path = g_strconcat (stem, ".c", NULL);
      g_autofree char *tmp = g_strdup_printf ("%s.%d.tmp", so_path, (int) getpid ());
      if (background != NULL)
        {
          g_mutex_lock (&background->lock);
          g_free (background->compiler_out);
          g_free (background->compiler_in);
          background->compiler_out = g_strdup (tmp);
          background->compiler_in = g_strdup (c_path);
          g_mutex_unlock (&background->lock);
        }
      gboolean compiled = g_file_set_contents (c_path, c->str, (gssize) c->len, error)
                          && compile (background, c_path, tmp, quick, error);
      if (background != NULL)
        {
          g_mutex_lock (&background->lock);
          g_clear_pointer (&background->compiler_out, g_free);
          g_clear_pointer (&background->compiler_in, g_free);
          g_mutex_unlock (&background->lock);
        }
      if (!compiled)
        {
          g_unlink (tmp);
          if (background != NULL)
            g_unlink (c_path);   /* (kept for a report only in the foreground) */
          return NULL;
        }
      if (g_rename (tmp, so_path) != 0)
        {
          g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_COMPILER, "cannot write %s: %s",
                       so_path, g_strerror (errno));
          return NULL;
        }
      g_unlink (c_path);   /* kept only when the compiler fails on it */
    }
  void *dl = dlopen (so_path, RTLD_NOW | RTLD_LOCAL);
  if (dl == NULL)
    g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_LOAD, "cannot load %s: %s", so_path,
                 dlerror ());
  return dl;
}

/* Which of entry e's reductions ptxas aggregated (aggs: its MsPtxAgg
 * table), from its SASS.  Without the SASS (no nvdisasm), the models'
 * source-level guess (sim/models/coalescing.c): a reduction whose lanes
 * all hit one address is aggregated. */
static void
set_aggregation (Entry *e, const MsPtxAgg *aggs)
{
  for (guint a = 0; aggs != NULL && aggs[a].site != NULL; a++)
    *aggs[a].flag = e->kernel->sass ? sass_aggregated (e->kernel->sass, aggs[a].site) : 1;
}

/* Entry e of a program built into memsim: its function from the table. */
static gboolean
compiled_entry (MsPtxProgram *p, Entry *e, MsInstMap *inst, GError **error)
{
  const MsPtxModule *m = g_ptr_array_index (p->modules, e->module);
  const MsPtxFunc *f = g_ptr_array_index (m->funcs, e->func);
  for (const MsPtxCompiled *c = p->compiled; c->name != NULL; c++)
    if (strcmp (c->name, f->name) == 0)
      {
        char *function = NULL;
        const MsSass *sass = p->sass_of ? p->sass_of (e->kernel->name, &function) : NULL;
        if (sass != NULL)
          {
            g_ptr_array_add (p->owned, function);
            e->kernel->sass = sass;
            e->kernel->sass_function = function;
          }
        set_aggregation (e, c->aggs);
        e->kernel->warp_entry = c->fn;
        e->kernel->inst_map = e->inst = inst;
        return TRUE;
      }
  ms_inst_map_free (inst);
  g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_LOAD,
               "memsim's build has no compiled %s of %s: rebuild memsim", f->name, m->path);
  return FALSE;
}

/* MEMSIM_QUICK_BUILD: "never" (every kernel optimised at once),
 * "always" (every kernel quick first, whatever its size), "once" (every
 * kernel's quick and optimised builds made at once, and each launch's
 * first block runs the quick one, the others the optimised one: the
 * tests check both ways with these two), else as QUICK_BYTES says. */
static const char *
quick_mode (void)
{
  const char *env = g_getenv ("MEMSIM_QUICK_BUILD");
  return env ? env : "";
}

/* Whether entry e's C text c is built quickly first: in memsim run, for
 * a big kernel whose optimised build (at stem) is not in the cache yet. */
static gboolean
quick_build (const MsPtxProgram *p, const GString *c, const char *stem)
{
  if (!p->quick_first || strcmp (quick_mode (), "never") == 0)
    return FALSE;
  if (strcmp (quick_mode (), "once") != 0 && strcmp (quick_mode (), "always") != 0
      && c->len <= QUICK_BYTES)
    return FALSE;
  return !built (stem);
}

/* The limit of busy microseconds of a kernel of C text c (BUSY_SHARE). */
static gint64
busy_limit (const GString *c)
{
  if (strcmp (quick_mode (), "always") == 0)
    return 0;
  return (gint64) (BUSY_SHARE * OPTIMISED_US_PER_BYTE * (double) c->len);
}

/* The microseconds the quick build at stem ran in the runs before (its
 * .busy file in the cache, memsim's own: a number, else 0), and the
 * file's path. */
static gint64
busy_before (const char *stem, char **path)
{
  *path = g_strconcat (stem, ".busy", NULL);
  g_autofree char *text = NULL;
  if (!g_file_get_contents (*path, &text, NULL, NULL))
    return 0;
  return MAX (g_ascii_strtoll (text, NULL, 10), 0);
}

/* Adds this run's busy microseconds of each quick build not replaced to
 * its count in the cache: a program that ends before its background
 * build has its kernels optimised at once the run after they pass the
 * limit together. */
static void
save_busy (MsPtxProgram *p)
{
  for (guint k = 0; k < p->entries->len; k++)
    {
      Entry *e = &g_array_index (p->entries, Entry, k);
      g_mutex_lock (&busy_lock);
      gint64 busy = busy_at (e, g_get_monotonic_time ());
      g_mutex_unlock (&busy_lock);
      if (e->busy_path == NULL || e->quick_c == NULL || busy <= 0)
        continue;
      char text[32];
      g_snprintf (text, sizeof text, "%" G_GINT64_FORMAT "\n", e->busy_before + busy);
      g_file_set_contents (e->busy_path, text, -1, NULL);
    }
}

/* Entry e runs build dl from its next block: its function, its variables'
 * slots bound, ptxas's aggregation of its reductions set, its sites the
 * twins of the build's it replaces (the same ids: the models key on a
 * launch's sites). */
static gboolean
entry_take (MsPtxProgram *p, Entry *e, void *dl, GError **error)
{
  g_autofree char *sym = g_strdup_printf ("ms_ptx_k_%u_%u", e->module, e->func);
  gpointer fn = dlsym (dl, sym);
  g_autofree char *sites_name = g_strdup_printf ("ms_ptx_sites_%u_%u", e->module, e->func);
  MsSite *const *sites = dlsym (dl, sites_name);
  if (fn == NULL || sites == NULL)
    {
      g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_LOAD, "the build of %s has no %s",
                   e->kernel->name, fn == NULL ? sym : sites_name);
      return FALSE;
    }
  for (guint i = 0; e->sites != NULL && e->sites[i] != NULL && sites[i] != NULL; i++)
    ms_site_twin (e->sites[i], sites[i]);
  e->sites = sites;
  g_mutex_lock (&p->lock);
  for (guint i = 0; i < p->global_places->len; i++)
    {
      Global *g = &g_array_index (p->global_places, Global, i);
      if (g->module != e->module)
        continue;
      g_autofree char *slot_name = g_strdup_printf ("ms_ptx_g_%u_%u", g->module, g->var);
      uint8_t **slot = dlsym (dl, slot_name);
      if (slot == NULL)
        continue;
      g_ptr_array_add (g->slots, slot);
      if (g->device != NULL)
        *slot = g->device;
    }
  g_mutex_unlock (&p->lock);
  g_autofree char *aggs_name = g_strdup_printf ("ms_ptx_aggs_%u_%u", e->module, e->func);
  set_aggregation (e, dlsym (dl, aggs_name));
  g_atomic_pointer_set (&e->kernel->warp_entry, (MsEntryFn) fn);
  return TRUE;
}

/* The time e's blocks have run, each block counted (two workers on its
 * blocks for a second: two seconds; host code and other kernels between
 * its launches not at all): added up as a block starts (change 1) or ends
 * (-1), its optimised build started once it passes the limit. */
static void
entry_busy (Entry *e, int change)
{
  gint64 now = g_get_monotonic_time ();
  g_mutex_lock (&busy_lock);
  e->busy = busy_at (e, now);
  e->busy_since = now;
  e->in_flight += change;
  gboolean start = e->busy >= e->busy_limit && !g_atomic_int_get (&e->optimising);
  if (start)
    g_atomic_int_set (&e->optimising, 1);
  g_mutex_unlock (&busy_lock);
  if (start)
    g_thread_pool_push (e->program->optimiser,
                        GUINT_TO_POINTER (e - (Entry *) e->program->entries->data + 1), NULL);
}

/* The build block `block` of a launch of entry data runs: the current one
 * (the optimised build once it is done), or with MEMSIM_QUICK_BUILD=once
 * the quick one for the first block. */
static MsEntryFn
entry_block (gpointer data, guint64 block)
{
  Entry *e = data;
  if (block == 0 && e->quick_fn != NULL)
    return e->quick_fn;
  if (e->program != NULL)
    entry_busy (e, 1);
  return g_atomic_pointer_get (&e->kernel->warp_entry);
}

static void
entry_block_done (gpointer data)
{
  Entry *e = data;
  if (e->program != NULL)
    entry_busy (e, -1);
}

/* The optimised build of the entry numbered task - 1, made on the
 * program's optimiser thread while its quick build runs; said on stderr if
 * it fails (the quick build stays). */
static void
optimise (gpointer task, gpointer data)
{
  MsPtxProgram *p = data;
  Entry *e = &g_array_index (p->entries, Entry, GPOINTER_TO_UINT (task) - 1);
  g_autoptr (GError) error = NULL;
  ms_emulator_work_beside (TRUE);   /* the launches leave the compiler a core */
  void *dl = build_load (p, e->quick_c, e->optimised_stem, FALSE, &error);
  ms_emulator_work_beside (FALSE);
  g_mutex_lock (&p->lock);
  gboolean closing = p->closing;
  g_mutex_unlock (&p->lock);
  if (closing)
    return;
  if (dl == NULL || !entry_take (p, e, dl, &error))
    {
      g_printerr ("memsim: %s (%s keeps its unoptimised build)\n", error->message,
                  e->kernel->name);
      return;
    }
  g_mutex_lock (&p->lock);
  if (e->busy_path != NULL)
    g_unlink (e->busy_path);
  g_clear_pointer (&e->busy_path, g_free);   /* save_busy has nothing to add */
  g_mutex_unlock (&p->lock);
}

/* Builds kernel k's entry: its C, compiled and loaded; its variables'
 * slots bound; ptxas's aggregation of its reductions set. */
static gboolean
entry_build (MsPtxProgram *p, guint k, GError **error)
{
  Entry *e = &g_array_index (p->entries, Entry, k);
  const MsPtxModule *m = g_ptr_array_index (p->modules, e->module);
  g_autoptr (GString) c = g_string_new (NULL);
  g_string_append (c, "/* memsim: device code translated from PTX (sim/ptx/ptx-translate.c) */\n"
                      "#define MS_KERNEL_SOURCE 1\n#include \"ptx-warp.h\"\n"
                      "#if defined(__GNUC__) && !defined(__clang__)\n"
                      "#pragma GCC optimize (\"no-tree-loop-distribute-patterns\")\n"
                      "#endif\n\n");
  g_autoptr (MsInstMap) inst = ms_inst_map_new ();
  /* (a compiled-in entry is translated again for its instruction map
   * alone: the same text, block for block) */
  gboolean polls_blocks = FALSE;
  if (!ms_ptx_translate_entry (m, e->module, e->func, c, inst, &polls_blocks, error))
    return FALSE;
  e->kernel->in_order = polls_blocks;
  if (p->compiled != NULL)
    return compiled_entry (p, e, g_steal_pointer (&inst), error);
  g_autofree char *stem = build_stem (c, FALSE);
  gboolean quick = quick_build (p, c, stem);
  g_autofree char *quick_stem = quick ? build_stem (c, TRUE) : NULL;
  g_autofree char *busy_path = NULL;
  gint64 before = quick && strcmp (quick_mode (), "once") != 0
                  ? busy_before (quick_stem, &busy_path) : 0;
  if (quick && before > 0 && before >= busy_limit (c))
    {
      quick = FALSE;   /* its quick build ran long enough in the runs before */
      g_unlink (busy_path);
    }
  void *dl = build_load (NULL, c, quick ? quick_stem : stem, quick, error);
  if (dl == NULL || !entry_take (p, e, dl, error))
    return FALSE;
  e->kernel->inst_map = e->inst = g_steal_pointer (&inst);
  if (!quick)
    return TRUE;
  e->kernel->block_entry = entry_block;
  e->kernel->block_done = entry_block_done;
  e->kernel->block_entry_data = e;
  if (strcmp (quick_mode (), "once") == 0)
    {
      MsEntryFn quick_fn = e->kernel->warp_entry;
      if ((dl = build_load (NULL, c, stem, FALSE, error)) == NULL || !entry_take (p, e, dl, error))
        return FALSE;
      e->quick_fn = quick_fn;
      return TRUE;
    }
  e->busy_limit = MAX (busy_limit (c) - before, 0);
  e->busy_before = before;
  e->busy_path = g_steal_pointer (&busy_path);
  e->quick_c = g_steal_pointer (&c);
  e->optimised_stem = g_steal_pointer (&stem);
  if (p->optimiser == NULL)
    {
      static gsize once;
      if (g_once_init_enter (&once))
        {
          atexit (stop_all_at_exit);
          g_once_init_leave (&once, 1);
        }
      p->optimiser = g_thread_pool_new (optimise, p, 1, FALSE, NULL);
      g_mutex_lock (&optimising_lock);
      optimising = g_slist_prepend (optimising, p);
      g_mutex_unlock (&optimising_lock);
    }
  e->program = p;   /* entry_block starts its optimised build */
  return TRUE;
}

static MsPtxProgram *
program_new (void)
{
  MsPtxProgram *p = g_new0 (MsPtxProgram, 1);
  g_mutex_init (&p->lock);
  p->modules = g_ptr_array_new_with_free_func ((GDestroyNotify) ms_ptx_module_free);
  p->kernels = g_array_new (FALSE, TRUE, sizeof (MsPtxKernel));
  p->entries = g_array_new (FALSE, TRUE, sizeof (Entry));
  p->owned = g_ptr_array_new_with_free_func (g_free);
  p->sass = g_ptr_array_new_with_free_func ((GDestroyNotify) ms_sass_free);
  p->globals = g_array_new (FALSE, TRUE, sizeof (MsPtxGlobal));
  p->global_places = g_array_new (FALSE, TRUE, sizeof (Global));
  return p;
}

/* The program's kernels and variables, once its modules are read: each
 * kernel's SASS from sass_text (nvdisasm's of the whole program), if any;
 * names demangled and parameter names from the sources where
 * names_from_source (a user's program). */
static void
program_index (MsPtxProgram *p, const char *sass_text, gboolean names_from_source)
{
  /* the kernels and the variables */
  for (guint mi = 0; mi < p->modules->len; mi++)
    {
      const MsPtxModule *m = g_ptr_array_index (p->modules, mi);
      for (guint vi = 0; vi < m->vars->len; vi++)
        {
          const MsPtxVar *v = &g_array_index (m->vars, MsPtxVar, vi);
          if (v->space != MS_PTX_SPACE_GLOBAL && v->space != MS_PTX_SPACE_CONST)
            continue;
          /* (one defined in another module: its slot is bound by name too) */
          MsPtxGlobal g = { v->name, v->external ? 0 : v->size, MAX (v->align, 1),
                            v->space == MS_PTX_SPACE_CONST, v->init };
          g_array_append_val (p->globals, g);
          Global place = { mi, vi, NULL, g_ptr_array_new () };
          g_array_append_val (p->global_places, place);
        }
      for (guint fi = 0; fi < m->funcs->len; fi++)
        {
          const MsPtxFunc *f = g_ptr_array_index (m->funcs, fi);
          if (!f->entry || !f->defined)
            continue;
          MsKernel *k = g_new0 (MsKernel, 1);
          g_ptr_array_add (p->owned, k);
          char *shown = ms_ptx_display_name (f->name, names_from_source);
          g_ptr_array_add (p->owned, shown);
          k->name = shown;
          k->family = "user";
          k->origin = "your program";
          k->description = "device code compiled by nvcc";
          char *file = kernel_file (m, f);
          g_ptr_array_add (p->owned, file);
          k->source = file;
          k->block[0] = k->block[1] = k->block[2] = 1;
          k->external = TRUE;
          char *sass_function = NULL;
          MsSass *sass = sass_text ? ms_user_sass_kernel (sass_text, f->name, &sass_function) : NULL;
          if (sass != NULL)
            {
              g_ptr_array_add (p->sass, sass);
              g_ptr_array_add (p->owned, sass_function);
              k->sass = sass;
              k->sass_function = sass_function;
              k->registers = MAX (ms_sass_registers (sass_text, f->name), 0);
            }
          MsPtxParam *params = g_new0 (MsPtxParam, MAX (f->params->len, 1));
          g_ptr_array_add (p->owned, params);
          guint end = 0;
          char **source_names = names_from_source
            ? source_param_names (m, f, shown, f->params->len) : NULL;
          for (guint a = 0; a < f->params->len; a++)
            {
              const MsPtxVar *v = &g_array_index (f->params, MsPtxVar, a);
              params[a].name = v->name;
              if (source_names != NULL)
                {
                  params[a].name = source_names[a];
                  g_ptr_array_add (p->owned, source_names[a]);
                }
              params[a].offset = ms_ptx_param_layout (f, a, &params[a].size, &params[a].align);
              end = params[a].offset + params[a].size;
            }
          g_free (source_names);   /* its strings are the program's */
          MsPtxKernel pk = { f->name, k, f->params->len, params, end,
                             ms_ptx_static_shared (m, f) };
          g_array_append_val (p->kernels, pk);
          Entry e = { mi, fi, k, FALSE };
          g_array_append_val (p->entries, e);
        }
    }
}

MsPtxProgram *
ms_ptx_program_load (const char *const *ptx_files, GError **error)
{
  MsPtxProgram *p = program_new ();
  for (guint k = 0; ptx_files[k]; k++)
    {
      g_autofree char *text = NULL;
      gsize len = 0;
      g_autoptr (GError) read_error = NULL;
      if (!g_file_get_contents (ptx_files[k], &text, &len, &read_error))
        {
          g_set_error (error, MS_PTX_ERROR, MS_PTX_ERROR_SYNTAX, "%s", read_error->message);
          ms_ptx_program_free (p);
          return NULL;
        }
      MsPtxModule *m = ms_ptx_read (ptx_files[k], text, len, error);
      if (m == NULL)
        {
          ms_ptx_program_free (p);
          return NULL;
        }
      g_ptr_array_add (p->modules, m);
    }

  /* ptxas's SASS of the PTX, where nvdisasm is there: the instructions
   * the GPU runs, which the counts then follow (sim/stream/regroup.h);
   * without it they are PTX's */
  g_autofree char *why = NULL;
  g_autofree char *sass_text = ms_user_sass_text (ptx_files, NULL, &why);
  program_index (p, sass_text, TRUE);
  return p;
}

MsPtxProgram *
ms_ptx_program_load_compiled (const char *path, const char *text, gsize len,
                              const MsPtxCompiled *compiled, MsPtxSassFn sass_of, GError **error)
{
  MsPtxModule *m = ms_ptx_read (path, text, len, error);
  if (m == NULL)
    return NULL;
  MsPtxProgram *p = program_new ();
  g_ptr_array_add (p->modules, m);
  p->compiled = compiled;
  p->sass_of = sass_of;
  program_index (p, NULL, FALSE);
  return p;
}

const MsPtxKernel *
ms_ptx_program_kernel (MsPtxProgram *p, const char *name)
{
  for (guint k = 0; k < p->kernels->len; k++)
    {
      const MsPtxKernel *pk = &g_array_index (p->kernels, MsPtxKernel, k);
      if (strcmp (pk->name, name) != 0)
        continue;
      Entry *e = &g_array_index (p->entries, Entry, k);
      if (e->kernel->warp_entry == NULL && !e->failed)
        {
          g_autoptr (GError) error = NULL;
          if (!entry_build (p, k, &error))
            {
              g_printerr ("memsim: %s\n", error->message);
              e->failed = TRUE;
            }
        }
      return e->kernel->warp_entry ? pk : NULL;
    }
  return NULL;
}

void
ms_ptx_program_set_quick_first (MsPtxProgram *p, gboolean quick_first)
{
  p->quick_first = quick_first;
}

const MsPtxKernel *
ms_ptx_program_kernel_shown (MsPtxProgram *p, const char *shown)
{
  for (guint k = 0; k < p->kernels->len; k++)
    {
      const MsPtxKernel *pk = &g_array_index (p->kernels, MsPtxKernel, k);
      if (strcmp (pk->kernel->name, shown) == 0)
        return ms_ptx_program_kernel (p, pk->name);
    }
  return NULL;
}

const MsPtxKernel *
ms_ptx_program_kernels (MsPtxProgram *p, guint *n)
{
  *n = p->kernels->len;
  return (const MsPtxKernel *) p->kernels->data;
}

const MsPtxGlobal *
ms_ptx_program_globals (MsPtxProgram *p, guint *n)
{
  *n = p->globals->len;
  return (const MsPtxGlobal *) p->globals->data;
}

gboolean
ms_ptx_program_bind_global (MsPtxProgram *p, const char *name, void *device)
{
  gboolean found = FALSE;
  g_mutex_lock (&p->lock);   /* a background build may be adding its slots */
  for (guint k = 0; k < p->globals->len; k++)
    if (strcmp (g_array_index (p->globals, MsPtxGlobal, k).name, name) == 0)
      {
        Global *g = &g_array_index (p->global_places, Global, k);
        g->device = device;
        for (guint s = 0; s < g->slots->len; s++)
          *(uint8_t **) g_ptr_array_index (g->slots, s) = device;
        found = TRUE;
      }
  g_mutex_unlock (&p->lock);
  return found;
}
