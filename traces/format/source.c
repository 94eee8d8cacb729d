/* source.c - opening any trace memsim reads, by its content; the sites of
 * imported traces. */
#include "config.h"
#include "source.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>

#include "accelsim.h"
#include "nvbit.h"
#include "trace-file.h"

G_DEFINE_QUARK (ms-trace-error-quark, ms_trace_error)

void
ms_trace_source_free (MsTraceSource *src)
{
  if (src)
    src->free (src);
}

MsTraceSource *
ms_trace_source_open (const char *path, GError **error)
{
  guint8 head[256];
  gsize n = 0;
  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      /* an Accel-Sim trace folder (memsim convert --to accelsim makes one) */
      g_autofree char *list = g_build_filename (path, "kernelslist.g", NULL);
      if (g_file_test (list, G_FILE_TEST_IS_REGULAR))
        return ms_accelsim_open (list, error);
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_FORMAT,
                   "%s is a folder without a kernelslist.g, not a trace", path);
      return NULL;
    }
  FILE *f = g_fopen (path, "rb");
  if (f == NULL)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot read %s: %s", path,
                   g_strerror (errno));
      return NULL;
    }
  n = fread (head, 1, sizeof head, f);
  gboolean failed = ferror (f);
  fclose (f);
  if (failed)
    {
      g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_IO, "cannot read %s (a directory?)",
                   path);
      return NULL;
    }
  /* one line per reader: the first bytes tell the format */
  if (ms_trace_file_sniff (head, n))
    return ms_trace_file_open (path, error);
  if (ms_nvbit_sniff (head, n))
    return ms_nvbit_open (path, error);
  if (ms_accelsim_sniff (head, n))
    return ms_accelsim_open (path, error);
  g_autofree char *base = g_path_get_basename (path);
  if (n == 0)
    g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_FORMAT, "%s is empty, not a trace", base);
  else
    g_set_error (error, MS_TRACE_ERROR, MS_TRACE_ERROR_FORMAT,
                 "%s is not a trace memsim reads (a memsim trace, NVBit mem_trace output, or "
                 "an Accel-Sim .traceg / kernelslist.g)", base);
  return NULL;
}

/* ---- interned sites ---- */

static GMutex intern_lock;
static GHashTable *interned;   /* "file\nline\norder\ncompiled\nasync_copy" -> MsSite * (never freed) */

const MsSite *
ms_trace_site_intern (const char *file, int line, int order, gboolean compiled,
                      gboolean async_copy)
{
  g_autofree char *key = g_strdup_printf ("%s\n%d\n%d\n%d\n%d", file, line, order, compiled != 0,
                                          async_copy != 0);
  g_mutex_lock (&intern_lock);
  if (interned == NULL)
    interned = g_hash_table_new (g_str_hash, g_str_equal);
  MsSite *site = g_hash_table_lookup (interned, key);
  if (site == NULL)
    {
      site = g_new0 (MsSite, 1);
      /* owned by the site, which lives as long as the process (not a quark:
       * GLib leaks its quark array as it grows) */
      site->file = g_strdup (file);
      site->line = line;
      site->order = order;
      site->id = -1;
      site->compiled = compiled != 0;
      site->async_copy = async_copy != 0;
      g_hash_table_insert (interned, g_steal_pointer (&key), site);
    }
  g_mutex_unlock (&intern_lock);
  return ms_site_register (site) >= 0 ? site : NULL;
}
