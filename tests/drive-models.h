/* drive-models.h - runs synthetic warp records through a table of models
 * as a producer drives them (stream.h: both parts of the sink), for the
 * model tests. */
#pragma once

#include "model.h"

/* ... with n_host buffers of mapped host memory [host_base, + host_bytes);
 * one_address: the producer's word on every record that its active lanes
 * share one address (ms_stride_hint, stride 0) */
static inline MsStats *
drive_models_hinted (const MsArch *arch, const MsModel *const *models, const MsSite *site,
                     const MsWarpAccess *recs, guint n, const guint64 *host_base,
                     const guint64 *host_bytes, guint n_host, gboolean one_address)
{
  g_autoptr (GError) error = NULL;
  g_assert_cmpint (ms_site_register (site), >=, 0);
  g_autoptr (MsModelRun) r = ms_model_run_new_with (arch, 1024, models, &error);
  g_assert_no_error (error);
  const gboolean host[] = { TRUE, TRUE, TRUE, TRUE };
  g_assert_cmpuint (n_host, <=, G_N_ELEMENTS (host));
  ms_model_run_set_host_memory (r, n_host, host_base, host_bytes, host);
  const MsStreamSink *sink = ms_model_run_sink (r);
  gpointer w = sink->worker_new (sink->user);
  for (guint i = 0; i < n; i++)
    {
      if (one_address)
        ms_stride_hint = (MsStrideHint) { &recs[i], 0 };
      sink->access (w, &recs[i]);
      sink->ordered (sink->user, &recs[i]);
      ms_stride_hint.record = NULL;
    }
  sink->worker_done (sink->user, w);
  return ms_model_run_finish (r, 1);
}

static inline MsStats *
drive_models_host (const MsArch *arch, const MsModel *const *models, const MsSite *site,
                   const MsWarpAccess *recs, guint n, const guint64 *host_base,
                   const guint64 *host_bytes, guint n_host)
{
  return drive_models_hinted (arch, models, site, recs, n, host_base, host_bytes, n_host,
                              FALSE);
}

static inline MsStats *
drive_models (const MsArch *arch, const MsModel *const *models, const MsSite *site,
              const MsWarpAccess *recs, guint n)
{
  return drive_models_host (arch, models, site, recs, n, NULL, NULL, 0);
}
