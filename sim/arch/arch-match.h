/* arch-match.h - which preset describes a device `--gpu` measures, and
 * whether a preset the user chose disagrees with it (arch-match.c).
 *
 * Pure functions over the device's properties (what cudaDeviceProp says)
 * and a list of presets, so they are tested without a GPU.
 */
#pragma once

#include <glib.h>

#include "arch.h"

G_BEGIN_DECLS

/* What the GPU back-end reads from the device. */
typedef struct {
  const char *name;        /* cudaDeviceProp.name: "NVIDIA H200" */
  int compute_capability;  /* 10 * major + minor: 90 */
  int sm_count;            /* multiProcessorCount */
  guint64 memory_bytes;    /* totalGlobalMem */
} MsDeviceProps;

/* The preset among presets[0..n) that describes device d: the one whose
 * name is a word of the device's name ("NVIDIA H200" -> h200, "NVIDIA
 * A100-SXM4-80GB" -> a100), else the one with the device's compute
 * capability, SM count and memory size class (ms_arch_memory_matches),
 * else NULL.  *reason (free it) says which rule chose it, in a few words,
 * or why none matched. */
const MsArch *ms_arch_match_device (const MsDeviceProps *d, const MsArch *const *presets,
                                    guint n, char **reason);

/* TRUE if the device's memory is of the preset's class: within 10% of
 * memory_gb GiB (the "141 GB" of an H200 is 139.8 GiB of totalGlobalMem);
 * TRUE when the preset gives no memory_gb. */
gboolean ms_arch_memory_matches (const MsArch *a, guint64 memory_bytes);

/* NULL when preset a agrees with device d (compute capability, SM count,
 * memory size class), else a one-line warning naming what differs (free
 * it). */
char *ms_arch_device_mismatch (const MsArch *a, const MsDeviceProps *d);

/* Loads every preset (ms_arch_list) and picks the device's; the default
 * (h100) when none matches.  *note (free it): one line for the report,
 * "preset h200: the device's name NVIDIA H200 names it". */
MsArch *ms_arch_for_device (const MsDeviceProps *d, char **note, GError **error);

G_END_DECLS
