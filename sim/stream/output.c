/* output.c - see output.h. */
#include "config.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct MsOutput {
  char *path;
  char *tmp;      /* temporary file to rename over path, or NULL */
  FILE *file;
  gboolean is_stdout;
};

static gboolean
io_error (GError **error, const char *path, int err)
{
  g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (err), "cannot write %s: %s", path,
               g_strerror (err));
  return FALSE;
}

MsOutput *
ms_output_open (const char *path, GError **error)
{
  if (path == NULL || *path == '\0')
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "an output needs a file name "
                   "(or - for standard output)");
      return NULL;
    }
  MsOutput *o = g_new0 (MsOutput, 1);
  o->path = g_strdup (path);
  if (strcmp (path, "-") == 0)
    {
      o->file = stdout;
      o->is_stdout = TRUE;
      return o;
    }
  struct stat st;
  gboolean exists = g_lstat (path, &st) == 0;
  if (!exists || S_ISREG (st.st_mode))
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (path);
      o->tmp = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
      int fd = g_mkstemp (o->tmp);
      if (fd < 0)
        {
          int err = errno;
          g_clear_pointer (&o->tmp, g_free);
          ms_output_abort (o);
          io_error (error, path, err);
          return NULL;
        }
      /* the permissions a new file would get (mkstemp makes it 0600) */
      mode_t mask = umask (0);
      umask (mask);
      fchmod (fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
      o->file = fdopen (fd, "wb");
    }
  else if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "cannot write %s: it is a directory",
                   path);
      ms_output_abort (o);
      return NULL;
    }
  else
    {
      /* a symlink (written through to its target), a FIFO or a device */
      o->file = g_fopen (path, "wb");
      if (o->file == NULL)
        {
          int err = errno;
          ms_output_abort (o);
          io_error (error, path, err);
          return NULL;
        }
    }
  return o;
}

gboolean
ms_output_check (const char *path, GError **error)
{
  if (path != NULL && *path == '\0')
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL, "an output needs a file name "
                   "(or - for standard output)");
      return FALSE;
    }
  if (path == NULL || strcmp (path, "-") == 0)
    return TRUE;
  struct stat st;
  if (g_stat (path, &st) == 0 && S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_ISDIR, "cannot write %s: it is a directory",
                   path);
      return FALSE;
    }
  if (g_lstat (path, &st) == 0 && !S_ISREG (st.st_mode))
    return g_access (path, W_OK) == 0 || io_error (error, path, errno);
  /* a regular file or a new one: its folder must take a new file */
  g_autofree char *dir = g_path_get_dirname (path);
  if (g_access (dir, W_OK | X_OK) != 0)
    return io_error (error, path, errno);
  return TRUE;
}

FILE *
ms_output_file (MsOutput *o)
{
  return o->file;
}

gboolean
ms_output_commit (MsOutput *o, GError **error)
{
  int err = 0;
  if (fflush (o->file) != 0 || ferror (o->file))
    err = errno ? errno : EIO;
  if (!o->is_stdout && fclose (o->file) != 0 && err == 0)
    err = errno;
  o->file = NULL;
  if (err == 0 && o->tmp != NULL && g_rename (o->tmp, o->path) != 0)
    err = errno;
  if (err != 0)
    {
      io_error (error, o->is_stdout ? "to standard output" : o->path, err);
      ms_output_abort (o);
      return FALSE;
    }
  g_clear_pointer (&o->tmp, g_free);
  ms_output_abort (o);
  return TRUE;
}

void
ms_output_abort (MsOutput *o)
{
  if (o == NULL)
    return;
  if (o->file && !o->is_stdout)
    fclose (o->file);
  if (o->tmp)
    g_unlink (o->tmp);
  g_free (o->tmp);
  g_free (o->path);
  g_free (o);
}
