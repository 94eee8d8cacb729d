/* access.c - names of the fields of a warp access record; the site table. */
#include "config.h"
#include "access.h"

#include <string.h>

__thread MsStrideHint ms_stride_hint;
__thread MsRepeatHint ms_repeat_hint;

static const char *const space_names[MS_N_SPACES] = { "global", "shared", "local" };
static const char *const op_names[MS_N_OPS] = { "ld", "st", "atom", "red" };

const char *
ms_space_name (MsSpace space)
{
  return (guint) space < MS_N_SPACES ? space_names[space] : "?";
}

const char *
ms_op_name (MsOp op)
{
  return (guint) op < MS_N_OPS ? op_names[op] : "?";
}

gboolean
ms_space_parse (const char *name, MsSpace *space)
{
  for (guint i = 0; i < MS_N_SPACES; i++)
    if (strcmp (name, space_names[i]) == 0)
      {
        *space = (MsSpace) i;
        return TRUE;
      }
  return FALSE;
}

gboolean
ms_op_parse (const char *name, MsOp *op)
{
  for (guint i = 0; i < MS_N_OPS; i++)
    if (strcmp (name, op_names[i]) == 0)
      {
        *op = (MsOp) i;
        return TRUE;
      }
  return FALSE;
}

static GMutex site_lock;
static const MsSite *site_table[MS_MAX_SITES];
static int n_sites;

int
ms_site_register (const MsSite *site)
{
  int id = g_atomic_int_get (&site->id);
  if (G_LIKELY (id >= 0))
    return id;
  g_mutex_lock (&site_lock);
  int twin = site->twin != NULL ? g_atomic_int_get (&site->twin->id) : -1;
  if (site->id < 0 && twin >= 0)
    g_atomic_int_set ((int *) &site->id, twin);   /* one instruction, one id */
  if (site->id < 0 && n_sites < MS_MAX_SITES)
    {
      site_table[n_sites] = site;
      g_atomic_int_set ((int *) &site->id, n_sites);
      n_sites++;
    }
  id = site->id;
  g_mutex_unlock (&site_lock);
  return id;
}

void
ms_site_twin (MsSite *a, MsSite *b)
{
  g_mutex_lock (&site_lock);
  a->twin = b;
  b->twin = a;
  if (a->id >= 0 && b->id < 0)
    g_atomic_int_set (&b->id, a->id);
  else if (b->id >= 0 && a->id < 0)
    g_atomic_int_set (&a->id, b->id);
  g_mutex_unlock (&site_lock);
}

const MsSite *
ms_site_lookup (int id)
{
  if (id < 0 || id >= g_atomic_int_get (&n_sites))
    return NULL;
  return site_table[id];
}

int
ms_site_count (void)
{
  return g_atomic_int_get (&n_sites);
}

int
ms_site_compare (const MsSite *a, const MsSite *b)
{
  if (a->line != b->line)
    return a->line < b->line ? -1 : 1;
  if (a->order != b->order)
    return a->order < b->order ? -1 : 1;
  return 0;
}
