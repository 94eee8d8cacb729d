/* models.c - the model table and the metric names it gives the reports.
 * A new model is one file plus one line in `models` below. */
#include "config.h"
#include "model.h"

#include <stdio.h>
#include <string.h>

#include "atomics.h"
#include "banks.h"
#include "cache.h"
#include "coalescing.h"

static const MsModel *const models[] = {
  &ms_model_coalescing,   /* global: requests, sectors, lines */
  &ms_model_banks,        /* shared: wavefronts, ideal, excessive */
  &ms_model_cache,        /* global, in stream order: L2 sectors, DRAM bytes */
  &ms_model_atomics,      /* global, in stream order: the busiest line's atomic passes */
  NULL,
};

const MsModel *const *
ms_models (void)
{
  return models;
}

gboolean
ms_models_arch_check (const MsArch *arch, GError **error)
{
  /* every model assumes warps of at most MS_WARP_SIZE lanes */
  if (arch->warp_size < 1 || arch->warp_size > MS_WARP_SIZE)
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE,
                   "architecture %s: warp_size %d is not in 1..%d",
                   arch->name ? arch->name : "(unnamed)", arch->warp_size, MS_WARP_SIZE);
      return FALSE;
    }
  for (const MsModel *const *m = models; *m; m++)
    if ((*m)->arch_check && !(*m)->arch_check (arch, error))
      return FALSE;
  return TRUE;
}

/* pattern with its one "%s" replaced by arg, interned (reports keep the
 * pointers). */
static const char *
intern_printf (const char *pattern, const char *arg)
{
  const char *at = strstr (pattern, "%s");
  if (at == NULL)
    return g_intern_string (pattern);
  g_autofree char *name = g_strdup_printf ("%.*s%s%s", (int) (at - pattern), pattern, arg, at + 2);
  return g_intern_string (name);
}

const char *
ms_metric_inst_name (MsSpace space, MsOp op)
{
  if (space != MS_SPACE_GLOBAL && space != MS_SPACE_SHARED)
    return NULL;
  g_autofree char *name = g_strdup_printf ("smsp__sass_inst_executed_op_%s_%s.sum",
                                           ms_space_name (space), ms_op_name (op));
  return g_intern_string (name);
}

const char *
ms_counter_metric_name (const MsCounterDef *def, MsOp op)
{
  if (def->nsight == NULL || (def->ops != 0 && !((def->ops >> op) & 1)))
    return NULL;
  return intern_printf (def->nsight, ms_op_name (op));
}

gboolean
ms_counter_applies (const MsModel *m, const MsCounterDef *def, const MsArch *arch)
{
  return (!m->applies || m->applies (arch)) && (!def->applies || def->applies (arch));
}

gboolean
ms_models_launch_counters (const MsArch *arch)
{
  for (const MsModel *const *m = models; *m; m++)
    for (const MsCounterDef *d = (*m)->counters; d->key; d++)
      if (d->per_launch && d->nsight && ms_counter_applies (*m, d, arch))
        return TRUE;
  return FALSE;
}

const MsCounterDef *
ms_counter_find_launch_metric (const MsArch *arch, const char *nsight)
{
  for (const MsModel *const *m = models; *m; m++)
    for (const MsCounterDef *d = (*m)->counters; d->key; d++)
      if (d->per_launch && d->nsight && strcmp (d->nsight, nsight) == 0
          && ms_counter_applies (*m, d, arch))
        return d;
  return NULL;
}

guint64
ms_stats_launch_total (const MsStats *stats, const MsCounterDef *def)
{
  guint64 sum = stats->launch.v[def->slot];
  for (guint i = 0; i < stats->sites->len; i++)
    sum += g_array_index (stats->sites, MsSiteStats, i).c.v[def->slot];
  return sum;
}

const MsCounterDef *
ms_counter_find (MsSpace space, const char *key)
{
  for (const MsModel *const *m = models; *m; m++)
    if ((*m)->space == space)
      for (const MsCounterDef *d = (*m)->counters; d->key; d++)
        if (strcmp (d->key, key) == 0)
          return d;
  return NULL;
}

MsArch *
ms_models_arch_lookup (const char *name_or_path, GError **error)
{
  g_autoptr (MsArch) arch = ms_arch_lookup (name_or_path, error);
  if (arch == NULL)
    return NULL;
  if (!ms_models_arch_check (arch, error))
    {
      g_prefix_error (error, "%s: ", name_or_path);
      return NULL;
    }
  return g_steal_pointer (&arch);
}
