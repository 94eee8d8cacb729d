/* launch.h - what a stream of warp accesses comes from: the kernel, its
 * launch geometry, parameters and buffers, and where its sites' source
 * lines are.  The same description heads a live run's report and a trace
 * file, so a replayed trace reports exactly what the live run did.
 */
#pragma once

#include <glib.h>

#include "access.h"

G_BEGIN_DECLS

#define MS_RUN_MAX_PARAMS 16
#define MS_RUN_MAX_BUFFERS 64

typedef struct {
  char *kernel;           /* "transpose_naive" */
  char *family;           /* "transpose"; "" when unknown (imported traces) */
  char *origin;           /* "seed 002"; for imports, the tool */
  char *description;      /* one line */
  char *source;           /* kernel source file name, "transpose.cu" */
  char *arch;             /* architecture preset the stream was costed on */
  char *producer;         /* "memsim emulator", "NVBit mem_trace", "Accel-Sim tracer" */
  guint grid[3], block[3];
  guint shared_bytes;     /* static shared memory per block (0: unknown) */
  guint n_params;
  char *param_name[MS_RUN_MAX_PARAMS];
  gint64 param_value[MS_RUN_MAX_PARAMS];
  guint n_buffers;
  char *buffer_name[MS_RUN_MAX_BUFFERS];
  guint64 buffer_base[MS_RUN_MAX_BUFFERS];   /* first byte's address in records */
  guint64 buffer_bytes[MS_RUN_MAX_BUFFERS];
  /* host memory the kernel reaches over the host link (mapped, zero-copy:
   * cudaHostAlloc, cudaHostRegister), not the GPU's DRAM */
  gboolean buffer_host[MS_RUN_MAX_BUFFERS];
  gboolean buffers_complete; /* every global access falls in a listed buffer (the
                              * emulator's launches; imports may list only some) */
  gboolean warp_is_slot;  /* MsWarpAccess.warp is a hardware warp slot, not the
                           * warp index in the block (NVBit) */
  char *check;            /* the output check: "passed", a failure, or "not run" */
  /* How the records map to the GPU's instructions: "sass" (compiler-exact:
   * the emulator's source accesses regrouped as the nvcc build's SASS has
   * them, docs/model.md), "source" (one record per source access), NULL
   * (not said: as the producer recorded them, e.g. an imported trace). */
  char *counts;
  /* The records are device code's instructions as compiled (the emulator
   * ran its PTX): its sites are MsSite.compiled, which the models read
   * (an atomic ptxas aggregated has its one lane already). */
  gboolean compiled;
  /* "FILE:LINE" of the atomics whose counts depend on contention (nvcc
   * made them compare-and-swap loops), NULL-terminated; NULL: none. */
  char **contended;
  /* "FILE:LINE" of the loads and stores whose counts depend on how nvcc
   * unrolled their loop in a way memsim does not model (source-level
   * counts there), NULL-terminated; NULL: none. */
  char **dependent;
  /* "FILE:LINE" of the cp.async global reads (LDGSTS), NULL-terminated;
   * NULL: none.  A trace's sites there are MsSite.async_copy. */
  char **async_copies;
  /* The text of a site's source line (newly allocated), or NULL. */
  char *(*source_line) (gpointer data, const MsSite *site);
  gpointer source_data;
} MsRunInfo;

MsRunInfo *ms_run_info_new (void);
void ms_run_info_free (MsRunInfo *info);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (MsRunInfo, ms_run_info_free)

void ms_run_info_add_param (MsRunInfo *info, const char *name, gint64 value);
void ms_run_info_add_buffer (MsRunInfo *info, const char *name, guint64 base, guint64 bytes);
/* The source line of a site through info->source_line, or NULL. */
char *ms_run_info_source_line (const MsRunInfo *info, const MsSite *site);
/* Whether the site's atomics have contention-dependent counts (its
 * FILE:LINE, file by basename, is in info->contended). */
gboolean ms_run_info_contended (const MsRunInfo *info, const MsSite *site);
/* Whether the site is in info->dependent. */
gboolean ms_run_info_dependent (const MsRunInfo *info, const MsSite *site);
/* "width=1024 height=1024" */
char *ms_run_info_params_text (const MsRunInfo *info);
guint64 ms_run_info_blocks (const MsRunInfo *info);
guint64 ms_run_info_threads_per_block (const MsRunInfo *info);

G_END_DECLS
