/* test-layout.c - the tree is the pipeline: no folder includes a header of a
 * stage after it.
 *
 * Stages, from the bottom (docs/architecture.md, "Layers"):
 *   sim/stream    the warp access record, sites, launch, sinks
 *   sim/arch      architecture descriptions
 *   sim/emulator  produces the stream             (stream)
 *   sim/models    consume the stream              (stream, arch)
 *   traces/format, traces/import: files <-> stream (stream, arch, each other;
 *                 replay.c runs the models over a file)
 *   traces/kernels  the kernel library, runs the emulator and the models
 *   traces/user   users' own CUDA files: compiled, loaded, set up as problems
 *                 (+ kernels)
 *   viz/report    tables                          (models, stream, arch)
 *   viz/diagrams  figures                         (+ report, kernels)
 *   gpu           the CUDA back-end               (everything but the CLI)
 *   sim/cli       the memsim command              (everything)
 * A header is found by its file name among the tree's folders; system and
 * GLib headers (<...>) are not checked, nor config.h and generated files.
 */
#include <glib.h>
#include <string.h>

typedef struct {
  const char *folder;
  const char *may_include;   /* space-separated folders */
} Rule;

static const Rule rules[] = {
  { "sim/stream", "" },
  { "sim/arch", "" },
  { "sim/emulator", "sim/stream" },
  { "sim/models", "sim/stream sim/arch" },
  { "traces/format", "sim/stream sim/arch sim/models traces/import" },
  { "traces/import", "sim/stream sim/arch traces/format" },
  { "traces/kernels", "sim/stream sim/arch sim/emulator sim/models" },
  { "traces/user", "sim/stream sim/arch sim/emulator sim/models traces/kernels" },
  { "viz/report", "sim/stream sim/arch sim/models" },
  { "viz/diagrams", "sim/stream sim/arch sim/models viz/report traces/kernels" },
  { "gpu", "sim/stream sim/arch sim/emulator sim/models traces/kernels traces/format "
           "traces/import viz/report" },
  { "sim/cli", "*" },
};

static char *
top_srcdir (void)
{
  return g_path_get_dirname (g_test_get_dir (G_TEST_DIST));
}

/* header file name -> folder (relative to the top) */
static GHashTable *
index_headers (const char *top)
{
  GHashTable *h = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      g_autofree char *dir = g_build_filename (top, rules[i].folder, NULL);
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      g_assert_nonnull (d);
      const char *name;
      while ((name = g_dir_read_name (d)))
        if (g_str_has_suffix (name, ".h") || g_str_has_suffix (name, ".cuh"))
          {
            g_assert_null (g_hash_table_lookup (h, name));   /* one header, one name */
            g_hash_table_insert (h, g_strdup (name), g_strdup (rules[i].folder));
          }
    }
  return h;
}

static void
test_layers (void)
{
  g_autofree char *top = top_srcdir ();
  g_autoptr (GHashTable) headers = index_headers (top);
  guint checked = 0;
  for (guint i = 0; i < G_N_ELEMENTS (rules); i++)
    {
      const Rule *r = &rules[i];
      g_auto (GStrv) allowed = g_strsplit (r->may_include, " ", -1);
      g_autofree char *dir = g_build_filename (top, r->folder, NULL);
      g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
      const char *name;
      while ((name = g_dir_read_name (d)))
        {
          if (!g_str_has_suffix (name, ".c") && !g_str_has_suffix (name, ".h")
              && !g_str_has_suffix (name, ".cu") && !g_str_has_suffix (name, ".cuh"))
            continue;
          /* build products of an in-tree build (Makefile.am's CLEANFILES) */
          if (g_str_has_suffix (name, ".trace.cu") || g_str_has_suffix (name, "-resources.c"))
            continue;
          g_autofree char *path = g_build_filename (dir, name, NULL);
          g_autofree char *text = NULL;
          g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
          g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
          for (guint k = 0; lines[k]; k++)
            {
              const char *l = g_strchug (lines[k]);
              if (!g_str_has_prefix (l, "#include \""))
                continue;
              const char *start = l + strlen ("#include \"");
              const char *end = strchr (start, '"');
              if (end == NULL)
                continue;
              g_autofree char *inc = g_strndup (start, (gsize) (end - start));
              const char *folder = g_hash_table_lookup (headers, inc);
              if (folder == NULL || strcmp (folder, r->folder) == 0
                  || strcmp (r->may_include, "*") == 0)
                continue;   /* config.h, generated, own folder, the CLI */
              checked++;
              if (!g_strv_contains ((const char *const *) allowed, folder))
                g_error ("%s/%s:%u includes %s (%s): a stage may include only the stages "
                         "before it (tests/test-layout.c)", r->folder, name, k + 1, inc, folder);
            }
        }
    }
  g_assert_cmpuint (checked, >, 20);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/layout/layers", test_layers);
  return g_test_run ();
}
