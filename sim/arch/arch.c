/* arch.c - architecture presets: small GKeyFile files (sim/arch/NAME.arch,
 * installed in $(pkgdatadir)/arch), the H100's and the H200's compiled in
 * (arch.gresource.xml): the default, and the preset `--gpu` picks on an
 * H200.
 *
 * Every key is read through one table (`keys` below) that gives its range
 * and rule; a value out of range is refused with one line naming the file,
 * the group, the key and what it must be.  A preset gives only numbers:
 * rules that differ between generations are chosen by a named value
 * (segment_rule, register_alloc), each implemented by a model.
 */
#include "config.h"
#include "arch.h"

#include <stddef.h>
#include <string.h>

GBytes *ms_arch_files_lookup (const char *path);   /* arch-resources.c (generated) */

typedef enum { KEY_INT, KEY_DOUBLE, KEY_CHOICE, KEY_LIST } KeyType;

typedef struct {
  const char *group, *key;
  KeyType type;
  size_t offset;             /* in MsArch */
  double min, max;           /* range (of each element of a list) */
  gboolean pow2;             /* must also be a power of two */
  gboolean optional;         /* may be absent (a default is set first) */
  const char *const *choices;/* KEY_CHOICE: names of 0, 1, ... */
  gboolean costs;            /* one of the cost models' keys */
} Key;

static const char *const segment_rules[] = { "sectors", "shrink", NULL };
static const char *const reg_allocs[] = { "warp", "block", NULL };

#define O(field) offsetof (MsArch, field)
static const Key keys[] = {
  { "arch", "compute_capability", KEY_INT, O (compute_capability), 10, 200 },
  { "arch", "warp_size", KEY_INT, O (warp_size), 32, 32 },
  { "global", "sector_bytes", KEY_INT, O (sector_bytes), 16, 256, TRUE },
  { "global", "line_bytes", KEY_INT, O (line_bytes), 16, 1024, TRUE },
  { "global", "coalesce_lanes", KEY_INT, O (coalesce_lanes), 16, 32, TRUE, TRUE },
  { "global", "segment_rule", KEY_CHOICE, O (segment_rule), 0, 0, FALSE, TRUE, segment_rules },
  { "shared", "banks", KEY_INT, O (banks), 1, 64, TRUE },
  { "shared", "bank_bytes", KEY_INT, O (bank_bytes), 4, 8, TRUE },
  { "shared", "phase_bytes", KEY_INT, O (phase_bytes), 16, 4096, TRUE },
  { "shared", "paired_load_phase_bytes", KEY_INT, O (paired_load_phase_bytes), 16, 4096, TRUE,
    TRUE },
  /* the cost models' figures */
  { "sm", "count", KEY_INT, O (sm_count), 1, 1024, .costs = TRUE },
  { "sm", "clock_mhz", KEY_INT, O (clock_mhz), 100, 5000, .costs = TRUE },
  { "sm", "sub_partitions", KEY_INT, O (sub_partitions), 1, 8, TRUE, .costs = TRUE },
  { "occupancy", "max_threads_per_block", KEY_INT, O (max_threads_per_block), 32, 4096, TRUE,
    .costs = TRUE },
  { "occupancy", "max_threads_per_sm", KEY_INT, O (max_threads_per_sm), 32, 8192, .costs = TRUE },
  { "occupancy", "max_warps_per_sm", KEY_INT, O (max_warps_per_sm), 1, 256, .costs = TRUE },
  { "occupancy", "max_blocks_per_sm", KEY_INT, O (max_blocks_per_sm), 1, 256, .costs = TRUE },
  { "occupancy", "registers_per_sm", KEY_INT, O (registers_per_sm), 1024, 1 << 20, TRUE,
    .costs = TRUE },
  { "occupancy", "max_registers_per_block", KEY_INT, O (max_registers_per_block), 1024, 1 << 20,
    TRUE, .costs = TRUE },
  { "occupancy", "max_registers_per_thread", KEY_INT, O (max_registers_per_thread), 16, 1024,
    .costs = TRUE },
  { "occupancy", "register_alloc_unit", KEY_INT, O (register_alloc_unit), 1, 4096, TRUE,
    .costs = TRUE },
  { "occupancy", "register_alloc", KEY_CHOICE, O (register_alloc), 0, 0, .choices = reg_allocs,
    .costs = TRUE },
  { "occupancy", "warp_alloc_granularity", KEY_INT, O (warp_alloc_granularity), 1, 8, TRUE,
    .costs = TRUE },
  { "occupancy", "shared_per_sm", KEY_INT, O (shared_per_sm), 1024, 1 << 22, .costs = TRUE },
  { "occupancy", "shared_per_block", KEY_INT, O (shared_per_block), 1024, 1 << 22, .costs = TRUE },
  { "occupancy", "shared_per_block_optin", KEY_INT, O (shared_per_block_optin), 1024, 1 << 22,
    .costs = TRUE },
  { "occupancy", "shared_alloc_unit", KEY_INT, O (shared_alloc_unit), 1, 65536, TRUE,
    .costs = TRUE },
  { "occupancy", "reserved_shared_per_block", KEY_INT, O (reserved_shared_per_block), 0, 65536,
    .costs = TRUE },
  { "occupancy", "carveouts_kib", KEY_LIST, O (carveouts_kib), 0, 4096, .costs = TRUE },
  { "memory", "l1_bytes", KEY_INT, O (l1_bytes), 0, 1 << 24, .costs = TRUE },
  { "memory", "l2_bytes", KEY_INT, O (l2_bytes), 0, 1 << 30, .costs = TRUE },
  { "memory", "l2_partitions", KEY_INT, O (l2_partitions), 1, 8, .costs = TRUE },
  { "memory", "l2_seen_bytes", KEY_INT, O (l2_seen_bytes), 0, 1 << 30, .optional = TRUE,
    .costs = TRUE },
  { "memory", "l2_ways", KEY_INT, O (l2_ways), 1, 128, .costs = TRUE },
  { "memory", "dram_granularity", KEY_INT, O (dram_granularity), 16, 1024, TRUE, .costs = TRUE },
  { "memory", "dram_gbs", KEY_DOUBLE, O (dram_gbs), 1, 1e6, .costs = TRUE },
  { "memory", "l2_gbs", KEY_DOUBLE, O (l2_gbs), 1, 1e6, .costs = TRUE },
  { "memory", "dram_latency_cycles", KEY_INT, O (dram_latency_cycles), 1, 100000, .costs = TRUE },
  { "memory", "l2_latency_cycles", KEY_INT, O (l2_latency_cycles), 1, 100000, .costs = TRUE },
  { "memory", "launch_read_bytes", KEY_INT, O (launch_read_bytes), 0, 1 << 24, .costs = TRUE },
  { "memory", "memory_gb", KEY_DOUBLE, O (memory_gb), 0, 1e5, .optional = TRUE, .costs = TRUE },
  { "memory", "host_read_gbs", KEY_DOUBLE, O (host_read_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "memory", "host_write_gbs", KEY_DOUBLE, O (host_write_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "memory", "host_duplex_gbs", KEY_DOUBLE, O (host_duplex_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "launch", "overhead_us", KEY_DOUBLE, O (launch_overhead_us), 0, 1000, .costs = TRUE },
  { "launch", "event_latency_us", KEY_DOUBLE, O (launch_event_latency_us), 0, 1000,
    .optional = TRUE, .costs = TRUE },
  { "launch", "block_dispatch_ns", KEY_DOUBLE, O (block_dispatch_ns), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "launch", "store_drain_us", KEY_DOUBLE, O (store_drain_us), 0, 1000, .optional = TRUE,
    .costs = TRUE },
  { "time", "dram_efficiency", KEY_DOUBLE, O (dram_efficiency), 0.05, 1, .costs = TRUE },
  { "time", "dram_write_cost", KEY_DOUBLE, O (dram_write_cost), 0.1, 10, .costs = TRUE },
  { "time", "l2_partial_write_ps", KEY_DOUBLE, O (l2_partial_write_ps), 0, 10000, .costs = TRUE },
  { "time", "lsu_per_clock", KEY_DOUBLE, O (lsu_per_clock), 0.01, 64, .costs = TRUE },
  { "time", "loads_in_flight_per_warp", KEY_DOUBLE, O (loads_in_flight_per_warp), 0.1, 64,
    .costs = TRUE },
  { "time", "l1_latency_cycles", KEY_INT, O (l1_latency_cycles), 1, 100000, .costs = TRUE },
  { "time", "shared_phase_cycles", KEY_INT, O (shared_phase_cycles), 0, 100000, .costs = TRUE },
  { "time", "issue_efficiency", KEY_DOUBLE, O (issue_efficiency), 0, 1, .optional = TRUE,
    .costs = TRUE },
  { "time", "atomic_pass_ns", KEY_DOUBLE, O (atomic_pass_ns), 0, 1000, .optional = TRUE,
    .costs = TRUE },
  { "time", "dependence_scale", KEY_DOUBLE, O (dependence_scale), 0, 1000,
    .optional = TRUE, .costs = TRUE },
  { "time", "barrier_wait_cycles", KEY_DOUBLE, O (barrier_wait_cycles), 0, 100000,
    .optional = TRUE, .costs = TRUE },
  { "time", "texture_fetch_cycles", KEY_DOUBLE, O (texture_fetch_cycles), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "time", "conflict_wavefront_cost", KEY_DOUBLE, O (conflict_wavefront_cost), 0, 1000,
    .optional = TRUE, .costs = TRUE },
  { "time", "l2_loaded_latency_cycles", KEY_INT, O (l2_loaded_latency_cycles), 0, 100000,
    .optional = TRUE, .costs = TRUE },
  { "time", "dram_loaded_latency_cycles", KEY_INT, O (dram_loaded_latency_cycles), 0, 100000,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "printf_call_us", KEY_DOUBLE, O (device_runtime[0].call_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "printf_lane_us", KEY_DOUBLE, O (device_runtime[0].lane_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "printf_other_call_us", KEY_DOUBLE, O (device_runtime[0].other_call_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "printf_other_lane_us", KEY_DOUBLE, O (device_runtime[0].other_lane_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "malloc_call_us", KEY_DOUBLE, O (device_runtime[1].call_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "malloc_lane_us", KEY_DOUBLE, O (device_runtime[1].lane_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "malloc_other_call_us", KEY_DOUBLE, O (device_runtime[1].other_call_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "malloc_other_lane_us", KEY_DOUBLE, O (device_runtime[1].other_lane_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "free_call_us", KEY_DOUBLE, O (device_runtime[2].call_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "free_lane_us", KEY_DOUBLE, O (device_runtime[2].lane_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "free_other_call_us", KEY_DOUBLE, O (device_runtime[2].other_call_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "device_runtime", "free_other_lane_us", KEY_DOUBLE, O (device_runtime[2].other_lane_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "copy", "latency_us", KEY_DOUBLE, O (copy_latency_us), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "copy", "async_latency_us", KEY_DOUBLE, O (copy_async_latency_us), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "copy", "device_latency_us", KEY_DOUBLE, O (copy_device_latency_us), 0, 1e6,
    .optional = TRUE, .costs = TRUE },
  { "copy", "pinned_gbs", KEY_DOUBLE, O (copy_pinned_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "copy", "pageable_h2d_gbs", KEY_DOUBLE, O (copy_pageable_h2d_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "copy", "pageable_d2h_gbs", KEY_DOUBLE, O (copy_pageable_d2h_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
  { "copy", "d2d_gbs", KEY_DOUBLE, O (copy_d2d_gbs), 0, 1e6, .optional = TRUE, .costs = TRUE },
  { "copy", "memset_gbs", KEY_DOUBLE, O (copy_memset_gbs), 0, 1e6, .optional = TRUE,
    .costs = TRUE },
};
#undef O

static gboolean
bad_value (GError **error, const char *origin, const Key *k, GKeyFile *kf, const char *why)
{
  g_autofree char *got = g_key_file_get_value (kf, k->group, k->key, NULL);
  g_autofree char *shown = g_strescape (got ? g_strstrip (got) : "", NULL);
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
               "%s: [%s] %s must be %s, not '%s'", origin, k->group, k->key, why, shown);
  return FALSE;
}

static gboolean
in_range (const Key *k, double v)
{
  if (v < k->min || v > k->max)
    return FALSE;
  return !k->pow2 || (v >= 1 && ((guint64) v & ((guint64) v - 1)) == 0);
}

static char *
range_text (const Key *k)
{
  const char *what = k->type == KEY_DOUBLE ? "a number" : k->pow2 ? "a power of two"
                                                                   : "an integer";
  if (k->type == KEY_DOUBLE)
    return g_strdup_printf ("%s in %g..%g", what, k->min, k->max);
  return g_strdup_printf ("%s in %.0f..%.0f", what, k->min, k->max);
}

static gboolean
read_key (GKeyFile *kf, const Key *k, MsArch *a, const char *origin, GError **error)
{
  char *field = (char *) a + k->offset;
  /* the range's text only for a message (printf of %g for every key of
   * every preset read cost 6% of a small trace's start-up) */
  if (k->type == KEY_CHOICE)
    {
      g_autofree char *s = g_key_file_get_string (kf, k->group, k->key, NULL);
      for (int i = 0; s && k->choices[i]; i++)
        if (strcmp (g_strstrip (s), k->choices[i]) == 0)
          {
            *(int *) field = i;
            return TRUE;
          }
      g_autofree char *names = g_strjoinv (" or ", (char **) k->choices);
      return bad_value (error, origin, k, kf, names);
    }
  if (k->type == KEY_LIST)
    {
      gsize n = 0;
      g_autofree int *v = g_key_file_get_integer_list (kf, k->group, k->key, &n, NULL);
      if (v == NULL || n < 1 || n > MS_ARCH_MAX_CARVEOUTS)
        {
          g_autofree char *why = g_strdup_printf ("1 to %d integers separated by ';'",
                                                  MS_ARCH_MAX_CARVEOUTS);
          return bad_value (error, origin, k, kf, why);
        }
      for (gsize i = 0; i < n; i++)
        if (!in_range (k, v[i]) || (i > 0 && v[i] <= v[i - 1]))
          {
            g_autofree char *range = range_text (k);
            g_autofree char *why = g_strdup_printf ("%s, ascending", range);
            return bad_value (error, origin, k, kf, why);
          }
      memcpy (field, v, n * sizeof *v);
      a->n_carveouts = (int) n;
      return TRUE;
    }
  g_autoptr (GError) e = NULL;
  double v = k->type == KEY_DOUBLE ? g_key_file_get_double (kf, k->group, k->key, &e)
                                   : g_key_file_get_integer (kf, k->group, k->key, &e);
  if (e != NULL || !in_range (k, v))
    {
      g_autofree char *range = range_text (k);
      return bad_value (error, origin, k, kf, range);
    }
  if (k->type == KEY_DOUBLE)
    *(double *) field = v;
  else
    *(int *) field = (int) v;
  return TRUE;
}

/* Rules between keys, each named after the key that breaks it. */
static gboolean
check_relations (const MsArch *a, const char *origin, GError **error)
{
#define REFUSE(group, key, ...)                                                               \
  do {                                                                                        \
    g_autofree char *why_ = g_strdup_printf (__VA_ARGS__);                                    \
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: [%s] %s %s",   \
                 origin, group, key, why_);                                                   \
    return FALSE;                                                                             \
  } while (0)
  if (a->line_bytes < a->sector_bytes)
    REFUSE ("global", "line_bytes", "must be at least sector_bytes (%d)", a->sector_bytes);
  if (a->coalesce_lanes > a->warp_size)
    REFUSE ("global", "coalesce_lanes", "must be at most warp_size (%d)", a->warp_size);
  if (a->phase_bytes < a->bank_bytes)
    REFUSE ("shared", "phase_bytes", "must be at least bank_bytes (%d)", a->bank_bytes);
  if (a->phase_bytes > a->banks * a->bank_bytes * 2)
    REFUSE ("shared", "phase_bytes", "must be at most twice banks * bank_bytes (%d)",
            a->banks * a->bank_bytes * 2);
  if (!a->has_costs)
    return TRUE;
  if (a->max_warps_per_sm * a->warp_size < a->max_threads_per_sm)
    REFUSE ("occupancy", "max_warps_per_sm", "must hold max_threads_per_sm (%d threads)",
            a->max_threads_per_sm);
  if (a->max_threads_per_block > a->max_threads_per_sm)
    REFUSE ("occupancy", "max_threads_per_block", "must be at most max_threads_per_sm (%d)",
            a->max_threads_per_sm);
  if (a->max_registers_per_block > a->registers_per_sm)
    REFUSE ("occupancy", "max_registers_per_block", "must be at most registers_per_sm (%d)",
            a->registers_per_sm);
  if (a->shared_per_block > a->shared_per_block_optin)
    REFUSE ("occupancy", "shared_per_block", "must be at most shared_per_block_optin (%d)",
            a->shared_per_block_optin);
  if (a->shared_per_block_optin > a->shared_per_sm)
    REFUSE ("occupancy", "shared_per_block_optin", "must be at most shared_per_sm (%d)",
            a->shared_per_sm);
  if (a->carveouts_kib[a->n_carveouts - 1] * 1024 != a->shared_per_sm)
    REFUSE ("occupancy", "carveouts_kib", "must end with shared_per_sm in KiB (%d)",
            a->shared_per_sm / 1024);
  if (a->l1_bytes != 0 && a->l1_bytes < a->shared_per_sm)
    REFUSE ("memory", "l1_bytes", "must be 0 (no L1 cache for global loads) or at least "
            "shared_per_sm (%d): it is the L1 + shared array", a->shared_per_sm);
  if (a->l2_bytes % (a->line_bytes * a->l2_ways * a->l2_partitions) != 0)
    REFUSE ("memory", "l2_bytes", "must be 0 (no L2) or a multiple of line_bytes * l2_ways * "
            "l2_partitions (%d)", a->line_bytes * a->l2_ways * a->l2_partitions);
  if (a->l2_seen_bytes % (a->line_bytes * a->l2_ways) != 0)
    REFUSE ("memory", "l2_seen_bytes", "must be 0 (not given) or a multiple of line_bytes * "
            "l2_ways (%d)", a->line_bytes * a->l2_ways);
  if (a->launch_event_latency_us > a->launch_overhead_us)
    REFUSE ("launch", "event_latency_us", "must be at most overhead_us (%g): it is the part of "
            "the launch's fixed time that only CUDA events see", a->launch_overhead_us);
  if (a->dram_granularity < a->sector_bytes || a->dram_granularity > a->line_bytes)
    REFUSE ("memory", "dram_granularity", "must be between sector_bytes (%d) and line_bytes (%d)",
            a->sector_bytes, a->line_bytes);
  return TRUE;
#undef REFUSE
}

MsArch *
ms_arch_load_data (const char *data, gsize len, const char *origin, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  if (!g_key_file_load_from_data (kf, data, len, G_KEY_FILE_NONE, error))
    {
      g_prefix_error (error, "cannot read architecture file %s: ", origin);
      return NULL;
    }
  g_autofree char *name = g_key_file_get_string (kf, "arch", "name", NULL);
  if (name == NULL || *name == '\0')
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                   "%s: [arch] name is missing", origin);
      return NULL;
    }
  g_autoptr (MsArch) a = g_new0 (MsArch, 1);
  a->has_costs = g_key_file_has_group (kf, "sm") || g_key_file_has_group (kf, "occupancy")
                 || g_key_file_has_group (kf, "memory") || g_key_file_has_group (kf, "launch")
                 || g_key_file_has_group (kf, "time");
  for (gsize i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      const Key *k = &keys[i];
      if (k->costs && !a->has_costs)
        continue;
      if (g_key_file_has_key (kf, k->group, k->key, NULL))
        {
          if (!read_key (kf, k, a, origin, error))
            return NULL;
        }
      else if (!k->optional)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                       "%s: [%s] %s is missing%s", origin, k->group, k->key,
                       k->costs ? " (a preset with cost figures must give them all: see "
                                  "docs/model.md)" : "");
          return NULL;
        }
    }
  /* defaults of the optional keys */
  if (!g_key_file_has_key (kf, "global", "coalesce_lanes", NULL))
    a->coalesce_lanes = a->warp_size;
  if (!g_key_file_has_key (kf, "shared", "paired_load_phase_bytes", NULL))
    a->paired_load_phase_bytes = a->phase_bytes;
  if (!check_relations (a, origin, error))
    return NULL;
  a->name = g_steal_pointer (&name);
  a->description = g_key_file_get_string (kf, "arch", "description", NULL);
  if (a->description == NULL)
    a->description = g_strdup (a->name);
  return g_steal_pointer (&a);
}

MsArch *
ms_arch_load_file (const char *path, GError **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &data, &len, error))
    {
      g_prefix_error (error, "cannot read architecture file %s: ", path);
      return NULL;
    }
  return ms_arch_load_data (data, len, path, error);
}

static MsArch *builtin_h100;

const MsArch *
ms_arch_default (void)
{
  if (g_once_init_enter (&builtin_h100))
    {
      g_autoptr (GBytes) bytes = ms_arch_files_lookup ("/org/memsim/arch/h100.arch");
      g_autoptr (GError) error = NULL;
      gsize len = 0;
      const char *data = bytes ? g_bytes_get_data (bytes, &len) : "";
      MsArch *a = ms_arch_load_data (data, len, "built-in h100.arch", &error);
      /* the built-in preset is checked by the tests: it cannot fail here */
      if (a == NULL)
        g_error ("%s", error ? error->message : "built-in h100.arch is missing");
      g_once_init_leave (&builtin_h100, a);
    }
  return builtin_h100;
}

void
ms_arch_free (MsArch *arch)
{
  if (arch == NULL || arch == builtin_h100)
    return;
  g_free (arch->name);
  g_free (arch->description);
  g_free (arch);
}

/* Where presets are looked for: $MEMSIM_ARCH_PATH (colon-separated), the
 * source tree's sim/arch (uninstalled builds only), the installed data dir. */
static GPtrArray *
search_dirs (void)
{
  GPtrArray *dirs = g_ptr_array_new_with_free_func (g_free);
  const char *env = g_getenv ("MEMSIM_ARCH_PATH");
  if (env != NULL)
    {
      g_auto (GStrv) parts = g_strsplit (env, ":", -1);
      for (int i = 0; parts[i]; i++)
        if (*parts[i])
          g_ptr_array_add (dirs, g_strdup (parts[i]));
    }
  /* an installed memsim (running from its bindir) reads the installed
   * presets only; a build-tree one the source tree's first */
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *exe_dir = exe ? g_path_get_dirname (exe) : NULL;
  if (g_strcmp0 (exe_dir, MEMSIM_BINDIR) != 0)
    g_ptr_array_add (dirs, g_strdup (MEMSIM_SRCDIR "/sim/arch"));
  g_ptr_array_add (dirs, g_strdup (MEMSIM_PKGDATADIR "/arch"));
  return dirs;
}

/* The presets compiled into the library (arch.gresource.xml). */
static const char *const builtin_names[] = { "h100", "h200" };

/* A compiled-in preset other than the default (the tests check that each
 * loads). */
static MsArch *
builtin_load (const char *name, GError **error)
{
  g_autofree char *path = g_strconcat ("/org/memsim/arch/", name, ".arch", NULL);
  g_autoptr (GBytes) bytes = ms_arch_files_lookup (path);
  if (bytes == NULL)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_NOT_FOUND,
                   "the built-in preset %s is missing from this build; give its .arch file",
                   name);
      return NULL;
    }
  g_autofree char *origin = g_strdup_printf ("built-in %s.arch", name);
  gsize len = 0;
  const char *data = g_bytes_get_data (bytes, &len);
  return ms_arch_load_data (data, len, origin, error);
}

MsArch *
ms_arch_lookup (const char *name_or_path, GError **error)
{
  if (name_or_path == NULL || strcmp (name_or_path, "h100") == 0)
    return (MsArch *) ms_arch_default ();
  if (strchr (name_or_path, '/') != NULL || g_str_has_suffix (name_or_path, ".arch"))
    return ms_arch_load_file (name_or_path, error);
  /* the compiled-in presets are the ones memsim was built with */
  for (guint i = 0; i < G_N_ELEMENTS (builtin_names); i++)
    if (strcmp (name_or_path, builtin_names[i]) == 0)
      return builtin_load (name_or_path, error);
  g_autoptr (GPtrArray) dirs = search_dirs ();
  g_autofree char *file = g_strconcat (name_or_path, ".arch", NULL);
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autofree char *path = g_build_filename (dirs->pdata[i], file, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        return ms_arch_load_file (path, error);
    }
  g_autofree char *known = ms_arch_list ();
  g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_NOT_FOUND,
               "unknown architecture '%s'; known: %s (or give a .arch file)", name_or_path, known);
  return NULL;
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

char *
ms_arch_list (void)
{
  g_autoptr (GPtrArray) dirs = search_dirs ();
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; i < G_N_ELEMENTS (builtin_names); i++)
    g_ptr_array_add (names, g_strdup (builtin_names[i]));
  for (guint i = 0; i < dirs->len; i++)
    {
      g_autoptr (GDir) dir = g_dir_open (dirs->pdata[i], 0, NULL);
      const char *f;
      while (dir && (f = g_dir_read_name (dir)))
        if (g_str_has_suffix (f, ".arch"))
          {
            g_autofree char *n = g_strndup (f, strlen (f) - 5);
            gboolean dup = FALSE;
            for (guint k = 0; k < names->len && !dup; k++)
              dup = strcmp (names->pdata[k], n) == 0;
            if (!dup)
              g_ptr_array_add (names, g_steal_pointer (&n));
          }
    }
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (", ", (char **) names->pdata);
}
