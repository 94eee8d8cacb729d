/* report-compare.c - `memsim compare FAMILY`'s table: one row per variant
 * with its ratios to the first, as text, JSON or CSV (see report.h). */
#include "config.h"
#include "report.h"

#include <json-glib/json-glib.h>

static void
write_text (const char *family, const MsArch *arch, const char *arch_note,
            const MsCompareRow *rows, guint n, GString *out)
{
  g_string_append_printf (out, "memsim compare %s: %u variants, %s (%s), simulated\n", family,
                          n, arch->name, arch->description);
  if (arch_note != NULL)
    g_string_append_printf (out, "%s\n", arch_note);
  g_string_append_c (out, '\n');
  g_string_append_printf (out, "%-26s %-12s %-8s %12s %8s %11s %10s %10s %10s %7s %8s %10s %8s"
                               "  %s\n",
                          "variant", "size", "block", "instructions", "sect/req", "wavefr/inst",
                          "excessive", "global", "shared", "inst x", "global x", "DRAM",
                          "partial", "check");
  for (guint i = 0; i < n; i++)
    {
      const MsCompareRow *r = &rows[i];
      /* "256", "32x8", "32x4x2"; * marks a variant that ignored --block */
      g_autofree char *block =
        r->block[2] > 1 ? g_strdup_printf ("%ux%ux%u%s", r->block[0], r->block[1], r->block[2],
                                           r->block_default ? "*" : "")
        : r->block[1] > 1 ? g_strdup_printf ("%ux%u%s", r->block[0], r->block[1],
                                             r->block_default ? "*" : "")
                          : g_strdup_printf ("%u%s", r->block[0], r->block_default ? "*" : "");
      g_autofree char *global = g_format_size (r->global_bytes);
      g_autofree char *shared = g_format_size (r->shared_bytes);
      g_autofree char *dram = r->predicted ? g_format_size (r->dram_bytes) : g_strdup ("-");
      g_string_append_printf (out,
                              "%-26s %-12s %-8s %12" G_GUINT64_FORMAT " %8.2f %11.2f %10"
                              G_GUINT64_FORMAT " %10s %10s %6.2fx %7.2fx %10s %7.1f%%  %s\n",
                              r->kernel, r->size, block, r->instructions,
                              ms_ratio (r->sectors, r->requests),
                              ms_ratio (r->wavefronts, r->shared_inst), r->excessive, global, shared,
                              ms_ratio (r->instructions, rows[0].instructions),
                              ms_ratio (r->global_bytes, rows[0].global_bytes), dram,
                              100.0 * r->divergence.partial_warp_share,
                              r->blocks_run < r->blocks ? "sampled"
                              : r->passed ? "passed" : "FAILED");
    }
  if (rows[0].predicted)
    {
      g_string_append_printf (out, "\npredicted on %s (cache and time models, docs/model.md; time: "
                                   "memsim__event_time, the launch as CUDA events see it;\nGB/s: "
                                   "the kernel's buffers / time):\n", arch->name);
      g_string_append_printf (out, "%-26s %12s %10s %9s  %s\n", "variant", "time (ms)", "GB/s",
                              "speedup", "bound");
      for (guint i = 0; i < n; i++)
        if (rows[i].predicted)
          g_string_append_printf (out, "%-26s %12.4f %10.1f %8.2fx  %s\n", rows[i].kernel,
                                  rows[i].pred_event_seconds * 1e3, rows[i].pred_bandwidth,
                                  rows[i].pred_event_seconds > 0
                                    ? rows[0].pred_event_seconds / rows[i].pred_event_seconds : 0.0,
                                  rows[i].bound);
    }
  if (rows[0].gpu_measured)
    {
      g_string_append (out, "\nmeasured on the GPU (CUDA events: memsim__event_time, median of "
                            "the launches, L2 flushed before each;\nGB/s: the kernel's buffers / "
                            "time):\n");
      g_string_append_printf (out, "%-26s %12s %10s %9s\n", "variant", "time (ms)", "GB/s",
                              "speedup");
      for (guint i = 0; i < n; i++)
        if (rows[i].gpu_measured)
          g_string_append_printf (out, "%-26s %12.4f %10.1f %8.2fx\n", rows[i].kernel,
                                  rows[i].gpu_event_seconds * 1e3, rows[i].gpu_bandwidth,
                                  rows[i].gpu_event_seconds > 0
                                    ? rows[0].gpu_event_seconds / rows[i].gpu_event_seconds : 0.0);
    }
  gboolean any_default = FALSE;
  for (guint i = 0; i < n; i++)
    any_default |= rows[i].block_default;
  g_string_append_printf (out, "\ninstructions: warp-level global + shared memory instructions; "
                          "global: sectors x %d B (L1 traffic);\nshared: wavefronts x %d B; "
                          "DRAM: bytes read + written (cache model); x: ratio to the first "
                          "variant;\npartial: memory instructions run with a partial warp.\n",
                          arch->sector_bytes, arch->banks * arch->bank_bytes);
  if (any_default)
    g_string_append (out, "*: this variant's block rule does not allow --block; it ran at its "
                          "own block.\n");
  g_autoptr (GString) sampled = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    if (rows[i].blocks_run < rows[i].blocks)
      g_string_append_printf (sampled, "%s%s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                              sampled->len ? ", " : "", rows[i].kernel, rows[i].blocks_run,
                              rows[i].blocks);
  if (sampled->len)
    g_string_append_printf (out, "sampled (--sample: counts scaled to the grid, outputs not "
                            "checked; docs/model.md, \"Block sampling\"), blocks run: %s.\n",
                            sampled->str);
  gboolean any_sass = FALSE, any_source = FALSE;
  for (guint i = 0; i < n; i++)
    {
      any_sass |= g_strcmp0 (rows[i].counts, "sass") == 0;
      any_source |= g_strcmp0 (rows[i].counts, "source") == 0;
    }
  if (any_sass)
    g_string_append (out, "counts: compiler-exact (the instructions of the nvcc build's SASS; "
                          "--source-counts: one per memory access the emulator ran)\n");
  else if (any_source)
    g_string_append (out, "counts: source-level (one instruction per memory access the emulator "
                          "ran; ptxas may emit fewer, wider ones: docs/model.md)\n");
  for (guint i = 0; i < n; i++)
    if (rows[i].fused > 0)
      g_string_append_printf (out, "  %s: %" G_GUINT64_FORMAT " fewer instructions than "
                              "source accesses: nvcc fused neighbouring accesses into wider "
                              "ones (e.g. 4 loads into one 128-bit load)\n", rows[i].kernel,
                              rows[i].fused);
  for (guint i = 0; i < n; i++)
    if (rows[i].unrolled > 0)
      g_string_append_printf (out, "  %s: %" G_GUINT64_FORMAT " more instructions than source "
                              "accesses: nvcc unrolled a loop with a data-dependent trip count, "
                              "and warps run its unrolled blocks with some lanes idle\n",
                              rows[i].kernel, rows[i].unrolled);
  for (guint i = 0; i < n; i++)
    if (rows[i].races > 0)
      g_string_append_printf (out, "%s: %" G_GUINT64_FORMAT " lane accesses in shared-memory "
                              "races between warps, let through by --allow-races (`memsim "
                              "trace` lists them)\n", rows[i].kernel, rows[i].races);
}

static void
write_json (const char *family, const MsArch *arch, const char *arch_note,
            const MsCompareRow *rows, guint n, GString *out)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "family");
  json_builder_add_string_value (b, family);
  json_builder_set_member_name (b, "arch");
  json_builder_add_string_value (b, arch->name);
  if (arch_note != NULL)
    {
      json_builder_set_member_name (b, "arch_note");
      json_builder_add_string_value (b, arch_note);
    }
  json_builder_set_member_name (b, "variants");
  json_builder_begin_array (b);
  for (guint i = 0; i < n; i++)
    {
      const MsCompareRow *r = &rows[i];
      json_builder_begin_object (b);
#define MEMBER_INT(name, v) \
  (json_builder_set_member_name (b, name), json_builder_add_int_value (b, (gint64) (v)))
#define MEMBER_DOUBLE(name, v) \
  (json_builder_set_member_name (b, name), json_builder_add_double_value (b, v))
#define MEMBER_STRING(name, v) \
  (json_builder_set_member_name (b, name), json_builder_add_string_value (b, v))
      MEMBER_STRING ("kernel", r->kernel);
      MEMBER_STRING ("size", r->size);
      json_builder_set_member_name (b, "block");
      json_builder_begin_array (b);
      for (int d = 0; d < 3; d++)
        json_builder_add_int_value (b, r->block[d]);
      json_builder_end_array (b);
      json_builder_set_member_name (b, "block_is_default");
      json_builder_add_boolean_value (b, r->block_default);
      MEMBER_INT ("instructions", r->instructions);
      MEMBER_INT ("global_instructions", r->global_inst);
      MEMBER_INT ("global_requests", r->requests);
      MEMBER_INT ("global_sectors", r->sectors);
      MEMBER_DOUBLE ("sectors_per_request", ms_ratio (r->sectors, r->requests));
      MEMBER_INT ("shared_instructions", r->shared_inst);
      MEMBER_INT ("shared_wavefronts", r->wavefronts);
      MEMBER_DOUBLE ("wavefronts_per_instruction", ms_ratio (r->wavefronts, r->shared_inst));
      MEMBER_INT ("excessive_wavefronts", r->excessive);
      MEMBER_INT ("bytes_moved", r->bytes);
      MEMBER_INT ("global_bytes", r->global_bytes);
      MEMBER_INT ("shared_bytes", r->shared_bytes);
      json_builder_set_member_name (b, "ratio_to_first");
      json_builder_begin_object (b);
      MEMBER_DOUBLE ("instructions", ms_ratio (r->instructions, rows[0].instructions));
      MEMBER_DOUBLE ("bytes_moved", ms_ratio (r->bytes, rows[0].bytes));
      MEMBER_DOUBLE ("global_bytes", ms_ratio (r->global_bytes, rows[0].global_bytes));
      MEMBER_DOUBLE ("global_sectors", ms_ratio (r->sectors, rows[0].sectors));
      MEMBER_DOUBLE ("shared_wavefronts", ms_ratio (r->wavefronts, rows[0].wavefronts));
      json_builder_end_object (b);
      json_builder_set_member_name (b, "divergence");
      json_builder_begin_object (b);
      MEMBER_DOUBLE ("partial_warp_share", r->divergence.partial_warp_share);
      MEMBER_DOUBLE ("avg_active_lanes", r->divergence.avg_active_lanes);
      json_builder_end_object (b);
      MEMBER_STRING ("check", r->check);
      if (r->blocks_run < r->blocks)
        {
          json_builder_set_member_name (b, "sample");
          json_builder_begin_object (b);
          MEMBER_INT ("blocks_run", r->blocks_run);
          MEMBER_INT ("blocks", r->blocks);
          MEMBER_DOUBLE ("scale", ms_ratio (r->blocks, r->blocks_run));
          json_builder_end_object (b);
        }
      if (r->counts)
        {
          MEMBER_STRING ("counts", r->counts);
          MEMBER_INT ("instructions_saved_by_fusion", r->fused);
          MEMBER_INT ("instructions_added_by_unrolling", r->unrolled);
        }
      if (r->races > 0)
        MEMBER_INT ("races", r->races);
      MEMBER_DOUBLE ("simulated_seconds", r->seconds);
      if (r->predicted)
        {
          json_builder_set_member_name (b, "predicted");
          json_builder_begin_object (b);
          MEMBER_INT ("dram_bytes", r->dram_bytes);
          MEMBER_DOUBLE ("event_seconds", r->pred_event_seconds);
          MEMBER_DOUBLE ("duration_seconds", r->pred_duration_seconds);
          MEMBER_DOUBLE ("bandwidth_gbs", r->pred_bandwidth);
          MEMBER_DOUBLE ("speedup", r->pred_event_seconds > 0
                                      ? rows[0].pred_event_seconds / r->pred_event_seconds : 0.0);
          MEMBER_STRING ("bound", r->bound);
          json_builder_end_object (b);
        }
      /* GPU HOOK: "gpu": {"event_seconds", "bandwidth", "speedup"} when measured. */
      if (r->gpu_measured)
        {
          json_builder_set_member_name (b, "gpu");
          json_builder_begin_object (b);
          MEMBER_DOUBLE ("event_seconds", r->gpu_event_seconds);
          MEMBER_DOUBLE ("bandwidth_gbs", r->gpu_bandwidth);
          MEMBER_DOUBLE ("speedup", r->gpu_event_seconds > 0
                                      ? rows[0].gpu_event_seconds / r->gpu_event_seconds : 0.0);
          json_builder_end_object (b);
        }
#undef MEMBER_INT
#undef MEMBER_DOUBLE
#undef MEMBER_STRING
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  g_autoptr (JsonNode) root = json_builder_get_root (b);
  ms_report_append_json (root, out);
}

static void
write_csv (const MsCompareRow *rows, guint n, GString *out)
{
  g_string_append (out, "kernel,size,block,instructions,global_instructions,global_requests,"
                        "global_sectors,sectors_per_request,shared_instructions,"
                        "shared_wavefronts,wavefronts_per_instruction,excessive_wavefronts,"
                        "bytes_moved,global_bytes,shared_bytes,instructions_ratio,"
                        "global_bytes_ratio,bytes_ratio,partial_warp_share,check\n");
  if (n > 0 && rows[0].predicted)
    {
      g_string_truncate (out, out->len - 1);
      g_string_append (out, ",dram_bytes,predicted_event_seconds,predicted_duration_seconds,"
                            "predicted_bandwidth_gbs,predicted_speedup,bound\n");
    }
  /* GPU HOOK: gpu_event_seconds,gpu_bandwidth,gpu_speedup columns. */
  if (n > 0 && rows[0].gpu_measured)
    {
      g_string_truncate (out, out->len - 1);
      g_string_append (out, ",gpu_event_seconds,gpu_bandwidth_gbs,gpu_speedup\n");
    }
  for (guint i = 0; i < n; i++)
    {
      const MsCompareRow *r = &rows[i];
      g_autoptr (GString) check = g_string_new (r->check);
      g_string_replace (check, "\"", "\"\"", 0);
      g_string_append_printf (out,
                              "%s,%s,%ux%ux%u,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.4f,%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%.4f,%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT
                              ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT ",%.4f,%.4f,%.4f,%.4f,"
                              "\"%s\"\n",
                              r->kernel, r->size, r->block[0], r->block[1], r->block[2],
                              r->instructions, r->global_inst, r->requests, r->sectors,
                              ms_ratio (r->sectors, r->requests), r->shared_inst, r->wavefronts,
                              ms_ratio (r->wavefronts, r->shared_inst), r->excessive, r->bytes,
                              r->global_bytes, r->shared_bytes,
                              ms_ratio (r->instructions, rows[0].instructions),
                              ms_ratio (r->global_bytes, rows[0].global_bytes),
                              ms_ratio (r->bytes, rows[0].bytes),
                              r->divergence.partial_warp_share, check->str);
      if (rows[0].predicted)
        {
          g_string_truncate (out, out->len - 1);
          g_string_append_printf (out, ",%" G_GUINT64_FORMAT ",%.9f,%.9f,%.3f,%.4f,\"%s\"\n",
                                  r->dram_bytes, r->pred_event_seconds, r->pred_duration_seconds,
                                  r->pred_bandwidth,
                                  r->pred_event_seconds > 0
                                    ? rows[0].pred_event_seconds / r->pred_event_seconds : 0.0,
                                  r->bound ? r->bound : "");
        }
      if (r->gpu_measured)
        {
          g_string_truncate (out, out->len - 1);
          g_string_append_printf (out, ",%.9f,%.3f,%.4f\n", r->gpu_event_seconds,
                                  r->gpu_bandwidth, r->gpu_event_seconds > 0
                                    ? rows[0].gpu_event_seconds / r->gpu_event_seconds : 0.0);
        }
    }
}

void
ms_compare_report_write (const char *family, const MsArch *arch, const char *arch_note,
                         const MsCompareRow *rows, guint n, MsFormat format, GString *out)
{
  switch (format)
    {
    case MS_FORMAT_JSON: write_json (family, arch, arch_note, rows, n, out); break;
    case MS_FORMAT_CSV: write_csv (rows, n, out); break;
    default: write_text (family, arch, arch_note, rows, n, out); break;
    }
}
