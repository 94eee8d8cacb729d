/* arch-match.c - the preset of the device `--gpu` measures (arch-match.h).
 *
 * Rules, in order:
 * - the device's name: a preset whose name is one of the words of the
 *   device's name (split at anything not a letter or digit, any case)
 *   describes it: NVIDIA's names carry the product (H200, H100, A100,
 *   V100), and the presets are named after it;
 * - else its properties: compute capability, SM count and memory size
 *   class all equal (a preset without memory_gb matches any memory);
 * - else none: the caller falls back to the default and says so.
 * The memory size class allows 10%: totalGlobalMem is a little less than
 * the memory as sold (an H200's 141 GB is 139.8 GiB; an H100's 80 GB is
 * 79.2 GiB), and the next product sizes differ by far more (40/80, 80/94,
 * 94/141).
 */
#include "config.h"
#include "arch-match.h"

#include <math.h>
#include <string.h>

static gboolean
name_has_word (const char *device, const char *word)
{
  g_autofree char *lower = g_ascii_strdown (device, -1);
  for (char *p = lower; *p; p++)
    if (!g_ascii_isalnum (*p))
      *p = ' ';
  g_auto (GStrv) words = g_strsplit (lower, " ", -1);
  for (int i = 0; words[i]; i++)
    if (g_ascii_strcasecmp (words[i], word) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ms_arch_memory_matches (const MsArch *a, guint64 memory_bytes)
{
  if (a->memory_gb <= 0)
    return TRUE;
  double gib = (double) memory_bytes / (double) (1 << 30);
  return fabs (gib - a->memory_gb) <= 0.1 * a->memory_gb;
}

static gboolean
properties_match (const MsArch *a, const MsDeviceProps *d)
{
  return a->has_costs && a->compute_capability == d->compute_capability
         && a->sm_count == d->sm_count && ms_arch_memory_matches (a, d->memory_bytes);
}

const MsArch *
ms_arch_match_device (const MsDeviceProps *d, const MsArch *const *presets, guint n,
                      char **reason)
{
  for (guint i = 0; i < n; i++)
    if (d->name != NULL && name_has_word (d->name, presets[i]->name))
      {
        *reason = g_strdup_printf ("the device's name, %s, names it", d->name);
        return presets[i];
      }
  for (guint i = 0; i < n; i++)
    if (properties_match (presets[i], d))
      {
        *reason = g_strdup_printf ("its compute capability %d.%d, %d SMs and %.0f GiB match "
                                   "the device's", d->compute_capability / 10,
                                   d->compute_capability % 10, d->sm_count,
                                   (double) d->memory_bytes / (double) (1 << 30));
        return presets[i];
      }
  *reason = g_strdup_printf ("no preset has the name, or the compute capability %d.%d, %d SMs "
                             "and %.0f GiB, of the device %s", d->compute_capability / 10,
                             d->compute_capability % 10, d->sm_count,
                             (double) d->memory_bytes / (double) (1 << 30),
                             d->name ? d->name : "?");
  return NULL;
}

char *
ms_arch_device_mismatch (const MsArch *a, const MsDeviceProps *d)
{
  g_autoptr (GString) what = g_string_new (NULL);
  if (a->compute_capability != d->compute_capability)
    g_string_append_printf (what, ", compute capability %d.%d (the device: %d.%d)",
                            a->compute_capability / 10, a->compute_capability % 10,
                            d->compute_capability / 10, d->compute_capability % 10);
  if (a->has_costs && a->sm_count != d->sm_count)
    g_string_append_printf (what, ", %d SMs (the device: %d)", a->sm_count, d->sm_count);
  if (a->has_costs && !ms_arch_memory_matches (a, d->memory_bytes))
    g_string_append_printf (what, ", %.0f GB of memory (the device: %.0f GiB)", a->memory_gb,
                            (double) d->memory_bytes / (double) (1 << 30));
  if (what->len == 0)
    return NULL;
  return g_strdup_printf ("warning: preset %s describes another GPU than %s:%s; its predictions "
                          "are for that GPU", a->name, d->name ? d->name : "the device",
                          what->str + 1);
}

MsArch *
ms_arch_for_device (const MsDeviceProps *d, char **note, GError **error)
{
  g_autofree char *list = ms_arch_list ();
  g_auto (GStrv) names = g_strsplit (list, ", ", -1);
  g_autoptr (GPtrArray) presets = g_ptr_array_new_with_free_func ((GDestroyNotify) ms_arch_free);
  for (int i = 0; names[i]; i++)
    {
      /* a preset file that does not load is not the device's */
      MsArch *a = ms_arch_lookup (names[i], NULL);
      if (a != NULL)
        g_ptr_array_add (presets, a);
    }
  g_autofree char *reason = NULL;
  const MsArch *m = ms_arch_match_device (d, (const MsArch *const *) presets->pdata,
                                          presets->len, &reason);
  const char *name = m ? m->name : ms_arch_default ()->name;
  MsArch *arch = ms_arch_lookup (name, error);
  if (arch == NULL)
    return NULL;
  g_autofree char *differs = ms_arch_device_mismatch (arch, d);
  *note = m ? g_strdup_printf ("preset %s (the measured device's): %s%s%s", name, reason,
                               differs ? "; " : "", differs ? differs : "")
            : g_strdup_printf ("preset %s (the default): %s", name, reason);
  return arch;
}
