/* launch.c - the launch description (see launch.h). */
#include "config.h"
#include "launch.h"

MsRunInfo *
ms_run_info_new (void)
{
  MsRunInfo *info = g_new0 (MsRunInfo, 1);
  for (int d = 0; d < 3; d++)
    info->grid[d] = info->block[d] = 1;
  return info;
}

void
ms_run_info_free (MsRunInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->kernel);
  g_free (info->family);
  g_free (info->origin);
  g_free (info->description);
  g_free (info->source);
  g_free (info->arch);
  g_free (info->producer);
  g_free (info->check);
  g_free (info->counts);
  g_strfreev (info->contended);
  g_strfreev (info->dependent);
  g_strfreev (info->async_copies);
  for (guint i = 0; i < info->n_params; i++)
    g_free (info->param_name[i]);
  for (guint i = 0; i < info->n_buffers; i++)
    g_free (info->buffer_name[i]);
  g_free (info);
}

static gboolean
lines_contain (char **lines, const MsSite *site)
{
  if (lines == NULL || site == NULL || site->file == NULL)
    return FALSE;
  g_autofree char *base = g_path_get_basename (site->file);
  g_autofree char *key = g_strdup_printf ("%s:%d", base, site->line);
  return g_strv_contains ((const char *const *) lines, key);
}

gboolean
ms_run_info_contended (const MsRunInfo *info, const MsSite *site)
{
  return lines_contain (info->contended, site);
}

gboolean
ms_run_info_dependent (const MsRunInfo *info, const MsSite *site)
{
  return lines_contain (info->dependent, site);
}

void
ms_run_info_add_param (MsRunInfo *info, const char *name, gint64 value)
{
  g_return_if_fail (info->n_params < MS_RUN_MAX_PARAMS);
  info->param_name[info->n_params] = g_strdup (name);
  info->param_value[info->n_params++] = value;
}

void
ms_run_info_add_buffer (MsRunInfo *info, const char *name, guint64 base, guint64 bytes)
{
  g_return_if_fail (info->n_buffers < MS_RUN_MAX_BUFFERS);
  info->buffer_name[info->n_buffers] = g_strdup (name);
  info->buffer_base[info->n_buffers] = base;
  info->buffer_bytes[info->n_buffers++] = bytes;
}

char *
ms_run_info_source_line (const MsRunInfo *info, const MsSite *site)
{
  return info->source_line ? info->source_line (info->source_data, site) : NULL;
}

char *
ms_run_info_params_text (const MsRunInfo *info)
{
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < info->n_params; i++)
    g_string_append_printf (s, "%s%s=%" G_GINT64_FORMAT, s->len ? " " : "", info->param_name[i],
                            info->param_value[i]);
  return g_string_free (s, FALSE);
}

guint64
ms_run_info_blocks (const MsRunInfo *info)
{
  return (guint64) info->grid[0] * info->grid[1] * info->grid[2];
}

guint64
ms_run_info_threads_per_block (const MsRunInfo *info)
{
  return (guint64) info->block[0] * info->block[1] * info->block[2];
}
