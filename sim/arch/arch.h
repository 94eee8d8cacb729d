/* arch.h - the description of a GPU architecture used by the models.
 *
 * The H100 (sm_90) is built in; other presets are small GKeyFile files.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  char *name;              /* "h100" */
  char *description;       /* "NVIDIA H100 SXM (Hopper, sm_90)" */
  int compute_capability;  /* 90 */
  int warp_size;           /* 32 */
  /* global memory */
  int sector_bytes;        /* 32 */
  int line_bytes;          /* 128 */
  /* shared memory */
  int banks;               /* 32 */
  int bank_bytes;          /* 4 */
  /* bytes one shared-memory wavefront can serve (banks * bank_bytes); an
   * access of W bytes per lane is processed in phases of
   * max(1, warp_size * W / phase_bytes) groups of lanes */
  int phase_bytes;         /* 128 */
  /* the phase size of a LOAD in which every pair of lanes (2k, 2k+1) that
   * are both active reads one address (broadcasts, lanes sharing elements
   * in pairs): the pair is served as one lane, so such loads go in phases
   * of paired_load_phase_bytes (H100: 256, measured, see sim/models/banks.c);
   * other loads, stores and atomics use phase_bytes.  0 = phase_bytes. */
  int paired_load_phase_bytes;   /* 256 */
} MsArch;

const MsArch *ms_arch_default (void);

/* "h100" (built in), a preset name (sim/arch/NAME.arch) or a path to a
 * .arch file; free with ms_arch_free (a no-op for the built-in one). */
MsArch *ms_arch_lookup (const char *name_or_path, GError **error);
MsArch *ms_arch_load_file (const char *path, GError **error);
void ms_arch_free (MsArch *arch);
/* Comma-separated names of the presets found. */
char *ms_arch_list (void);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsArch, ms_arch_free)

G_END_DECLS
