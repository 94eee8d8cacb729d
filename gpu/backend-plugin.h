/* backend-plugin.h - between backend.c (in memsim) and the GPU plug-in
 * memsim-gpu.so (backend-cuda.c), which exports ms_gpu_plugin. */
#pragma once

#include "backend.h"

G_BEGIN_DECLS

typedef struct {
  gboolean (*available) (MsGpuInfo *info, GError **error);
  MsGpuResult *(*run) (const MsProblem *p, const MsGpuSnapshot *input, guint flags,
                       GError **error);
} MsGpuPlugin;

/* Every metric memsim simulates, plus the RED twins of global atomics
 * (backend.c; the plug-in profiles them). */
GPtrArray *ms_gpu_simulated_metrics (void);

G_END_DECLS
