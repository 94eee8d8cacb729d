/* report-occupancy.c - occupancy tables as text, JSON and CSV (see
 * report-occupancy.h).  Metric names are Nsight Compute's (launch__*,
 * sm__maximum_warps_per_active_cycle_pct); a limit no resource imposes is
 * null in JSON, empty in CSV and "none" in text. */
#include "config.h"
#include "report-occupancy.h"

#include <string.h>

void
ms_occupancy_row_compute (MsOccupancyRow *row, const MsArch *arch)
{
  g_autoptr (GError) error = NULL;
  g_clear_pointer (&row->error, g_free);
  row->ok = ms_occupancy_compute (arch, &row->in, &row->occ, &error);
  if (!row->ok)
    row->error = g_strdup (error->message);
}

void
ms_occupancy_row_clear (MsOccupancyRow *row)
{
  g_clear_pointer (&row->error, g_free);
  g_clear_pointer (&row->registers_source, g_free);
  g_clear_pointer (&row->shared_source, g_free);
}

/* "registers, warps": the limiting factors */
static char *
limiting_text (guint bits, const char *sep)
{
  GString *s = g_string_new (NULL);
  for (guint bit = 1; bit <= MS_OCC_LIMIT_BARRIERS; bit <<= 1)
    if (bits & bit)
      g_string_append_printf (s, "%s%s", s->len ? sep : "", ms_occupancy_limit_name (bit));
  return g_string_free (s, FALSE);
}

/* waves per SM: blocks / (active blocks per SM x SMs), or < 0 when unknown */
static double
waves (const MsOccupancyRow *r, const MsArch *arch)
{
  if (r->blocks == 0 || r->occ.active_blocks == 0)
    return -1;
  return (double) r->blocks / ((double) r->occ.active_blocks * arch->sm_count);
}

/* ------------------------------------------------------------ JSON */

static void
json_limit (JsonBuilder *b, const char *name, int v)
{
  json_builder_set_member_name (b, name);
  if (v == MS_OCC_UNLIMITED)
    json_builder_add_null_value (b);
  else
    json_builder_add_int_value (b, v);
}

static void
json_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

/* The members of one row (inside an object being built). */
static void
json_row (JsonBuilder *b, const MsOccupancyRow *r, const MsArch *arch)
{
  const MsOccupancy *o = &r->occ;
  json_int (b, "launch__block_size", r->in.threads_per_block);
  if (r->blocks)
    json_int (b, "launch__grid_size", (gint64) r->blocks);
  json_int (b, "launch__registers_per_thread", r->in.registers_per_thread);
  json_int (b, "launch__shared_mem_per_block_static", r->in.static_shared);
  json_int (b, "launch__shared_mem_per_block_dynamic", r->in.dynamic_shared);
  json_int (b, "launch__shared_mem_per_block_driver", arch->reserved_shared_per_block);
  json_int (b, "launch__shared_mem_config_size", o->shared_pool);
  json_limit (b, "launch__occupancy_limit_registers", o->limit_registers);
  json_limit (b, "launch__occupancy_limit_shared_mem", o->limit_shared);
  json_limit (b, "launch__occupancy_limit_warps", o->limit_warps);
  json_limit (b, "launch__occupancy_limit_blocks", o->limit_blocks);
  json_limit (b, "launch__occupancy_limit_barriers", o->limit_barriers);
  json_builder_set_member_name (b, "sm__maximum_warps_per_active_cycle_pct");
  json_builder_add_double_value (b, o->occupancy_pct);
  json_builder_set_member_name (b, "launch__waves_per_multiprocessor");
  double w = waves (r, arch);
  if (w < 0)
    json_builder_add_null_value (b);
  else
    json_builder_add_double_value (b, w);
  json_int (b, "active_blocks_per_sm", o->active_blocks);
  json_int (b, "active_warps_per_sm", o->active_warps);
  json_int (b, "warps_per_block", o->warps_per_block);
  json_int (b, "allocated_registers_per_block", o->registers_per_block);
  json_int (b, "allocated_shared_per_block", o->shared_per_block);
  json_int (b, "barriers", r->in.barriers);
  json_builder_set_member_name (b, "limiting_factors");
  json_builder_begin_array (b);
  for (guint bit = 1; bit <= MS_OCC_LIMIT_BARRIERS; bit <<= 1)
    if (o->limiting & bit)
      json_builder_add_string_value (b, ms_occupancy_limit_name (bit));
  json_builder_end_array (b);
  if (r->registers_source)
    {
      json_builder_set_member_name (b, "registers_source");
      json_builder_add_string_value (b, r->registers_source);
    }
  if (r->shared_source)
    {
      json_builder_set_member_name (b, "shared_source");
      json_builder_add_string_value (b, r->shared_source);
    }
  if (!r->ok)
    {
      json_builder_set_member_name (b, "error");
      json_builder_add_string_value (b, r->error);
    }
}

static void
json_dims (JsonBuilder *b, const char *name, const unsigned v[3])
{
  json_builder_set_member_name (b, name);
  json_builder_begin_array (b);
  for (int k = 0; k < 3; k++)
    json_builder_add_int_value (b, v[k]);
  json_builder_end_array (b);
}

/* ------------------------------------------------------------ text */

static void
text_limit (GString *out, const char *what, int v, gboolean limiting)
{
  if (v == MS_OCC_UNLIMITED)
    g_string_append_printf (out, "    limit by %-16s %9s\n", what, "none");
  else
    g_string_append_printf (out, "    limit by %-16s %9d%s\n", what, v,
                            limiting ? "   <- limiting" : "");
}

static void
text_row (GString *out, const MsOccupancyRow *r, const MsArch *arch)
{
  const MsOccupancy *o = &r->occ;
  g_string_append_printf (out, "  registers per thread: %d (%s)\n", r->in.registers_per_thread,
                          r->registers_source ? r->registers_source : "given");
  g_string_append_printf (out, "  shared memory per block: %d static (%s) + %d dynamic",
                          r->in.static_shared, r->shared_source ? r->shared_source : "given",
                          r->in.dynamic_shared);
  if (arch->reserved_shared_per_block)
    g_string_append_printf (out, " + %d reserved", arch->reserved_shared_per_block);
  g_string_append_printf (out, " = %d allocated", o->shared_per_block);
  if (o->shared_pool)
    g_string_append_printf (out, " of a %d-byte carveout", o->shared_pool);
  g_string_append_printf (out, "\n  registers per block: %d allocated\n\n",
                          o->registers_per_block);
  if (!r->ok)
    g_string_append_printf (out, "  cannot launch: %s\n", r->error);
  g_string_append (out, "  Occupancy (blocks per SM)\n");
  text_limit (out, "registers", o->limit_registers, o->limiting & MS_OCC_LIMIT_REGISTERS);
  text_limit (out, "shared memory", o->limit_shared, o->limiting & MS_OCC_LIMIT_SHARED);
  text_limit (out, "warps", o->limit_warps, o->limiting & MS_OCC_LIMIT_WARPS);
  text_limit (out, "blocks", o->limit_blocks, o->limiting & MS_OCC_LIMIT_BLOCKS);
  text_limit (out, "barriers", o->limit_barriers, o->limiting & MS_OCC_LIMIT_BARRIERS);
  g_string_append_printf (out, "  %-27s %9d\n", "active blocks per SM", o->active_blocks);
  g_string_append_printf (out, "  %-27s %9d of %d\n", "active warps per SM", o->active_warps,
                          arch->max_threads_per_sm / arch->warp_size);
  g_string_append_printf (out, "  %-27s %8.1f%%\n", "theoretical occupancy", o->occupancy_pct);
  double w = waves (r, arch);
  if (w >= 0)
    g_string_append_printf (out, "  %-27s %9.2f   (%" G_GUINT64_FORMAT
                            " blocks / (%d per SM x %d SMs))\n",
                            "waves per SM", w, r->blocks, o->active_blocks, arch->sm_count);
}

static void
text_limit_cell (GString *out, int v)
{
  if (v == MS_OCC_UNLIMITED)
    g_string_append_printf (out, " %9s", "none");
  else
    g_string_append_printf (out, " %9d", v);
}

static void
text_sweep (GString *out, const MsOccupancyRow *rows, guint n, const MsArch *arch)
{
  g_string_append_printf (out, "\nBlock sizes (%d registers per thread, %d + %d shared bytes "
                          "per block)\n", rows[0].in.registers_per_thread,
                          rows[0].in.static_shared, rows[0].in.dynamic_shared);
  g_string_append_printf (out, "%7s %5s %9s %9s %9s %9s %9s %7s %7s %9s  %s\n", "threads",
                          "warps", "regs", "shared", "warps", "blocks", "barriers", "active",
                          "warps", "occupancy", "limited by");
  for (guint i = 0; i < n; i++)
    {
      const MsOccupancyRow *r = &rows[i];
      const MsOccupancy *o = &r->occ;
      g_string_append_printf (out, "%7d %5d", r->in.threads_per_block, o->warps_per_block);
      text_limit_cell (out, o->limit_registers);
      text_limit_cell (out, o->limit_shared);
      text_limit_cell (out, o->limit_warps);
      text_limit_cell (out, o->limit_blocks);
      text_limit_cell (out, o->limit_barriers);
      g_autofree char *lim = r->ok ? limiting_text (o->limiting, ", ")
                                   : g_strconcat ("cannot launch: ", r->error, NULL);
      g_string_append_printf (out, " %7d %7d %8.1f%%  %s\n", o->active_blocks, o->active_warps,
                              o->occupancy_pct, lim);
    }
}

/* ------------------------------------------------------------ CSV */

static void
csv_limit (GString *out, int v)
{
  if (v == MS_OCC_UNLIMITED)
    g_string_append (out, ",");
  else
    g_string_append_printf (out, ",%d", v);
}

static void
csv_row (GString *out, const char *kernel, const MsArch *arch, const MsOccupancyRow *r,
         const char *row_kind)
{
  const MsOccupancy *o = &r->occ;
  g_string_append_printf (out, "%s,%s,%s,%d,%d,%d,%d", kernel, arch->name, row_kind,
                          r->in.threads_per_block, r->in.registers_per_thread,
                          r->in.static_shared, r->in.dynamic_shared);
  csv_limit (out, o->limit_registers);
  csv_limit (out, o->limit_shared);
  csv_limit (out, o->limit_warps);
  csv_limit (out, o->limit_blocks);
  csv_limit (out, o->limit_barriers);
  g_string_append_printf (out, ",%d,%d,%.2f", o->active_blocks, o->active_warps,
                          o->occupancy_pct);
  double w = waves (r, arch);
  if (w >= 0)
    g_string_append_printf (out, ",%.4f", w);
  else
    g_string_append (out, ",");
  g_autofree char *lim = limiting_text (o->limiting, ";");
  g_autoptr (GString) err = g_string_new (r->ok ? "" : r->error);
  g_string_replace (err, "\"", "\"\"", 0);
  g_string_append_printf (out, ",%s,\"%s\"\n", lim, err->str);
}

/* ------------------------------------------------------------ entry points */

void
ms_occupancy_report_write (const char *kernel, const MsArch *arch, const unsigned block[3],
                           const unsigned grid[3], const MsOccupancyRow *launch,
                           const MsOccupancyRow *sweep, guint n_sweep, MsFormat format,
                           GString *out)
{
  if (format == MS_FORMAT_JSON)
    {
      g_autoptr (JsonBuilder) b = json_builder_new ();
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kernel");
      json_builder_add_string_value (b, kernel);
      json_builder_set_member_name (b, "arch");
      json_builder_add_string_value (b, arch->name);
      json_int (b, "sm_count", arch->sm_count);
      json_dims (b, "grid", grid);
      json_dims (b, "block", block);
      json_builder_set_member_name (b, "occupancy");
      json_builder_begin_object (b);
      json_row (b, launch, arch);
      json_builder_end_object (b);
      if (n_sweep > 0)
        {
          json_builder_set_member_name (b, "block_sizes");
          json_builder_begin_array (b);
          for (guint i = 0; i < n_sweep; i++)
            {
              json_builder_begin_object (b);
              json_row (b, &sweep[i], arch);
              json_builder_end_object (b);
            }
          json_builder_end_array (b);
        }
      json_builder_end_object (b);
      g_autoptr (JsonNode) root = json_builder_get_root (b);
      ms_report_append_json (root, out);
    }
  else if (format == MS_FORMAT_CSV)
    {
      g_string_append (out, "kernel,arch,row,launch__block_size,launch__registers_per_thread,"
                            "launch__shared_mem_per_block_static,"
                            "launch__shared_mem_per_block_dynamic,"
                            "launch__occupancy_limit_registers,"
                            "launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps,"
                            "launch__occupancy_limit_blocks,launch__occupancy_limit_barriers,"
                            "active_blocks_per_sm,active_warps_per_sm,"
                            "sm__maximum_warps_per_active_cycle_pct,"
                            "launch__waves_per_multiprocessor,limiting_factors,error\n");
      csv_row (out, kernel, arch, launch, "launch");
      for (guint i = 0; i < n_sweep; i++)
        csv_row (out, kernel, arch, &sweep[i], "sweep");
    }
  else
    {
      g_string_append_printf (out, "%s on %s (%s, %d SMs)\n", kernel, arch->name,
                              arch->description, arch->sm_count);
      g_string_append_printf (out, "  block %ux%ux%u = %d threads (%d warps)   grid %ux%ux%u = "
                              "%" G_GUINT64_FORMAT " blocks\n",
                              block[0], block[1], block[2], launch->in.threads_per_block,
                              launch->occ.warps_per_block, grid[0], grid[1], grid[2],
                              launch->blocks);
      text_row (out, launch, arch);
      if (n_sweep > 0)
        text_sweep (out, sweep, n_sweep, arch);
    }
}

void
ms_occupancy_report_append (const MsOccupancyRow *row, const MsArch *arch, MsFormat format,
                            GString *out)
{
  if (format == MS_FORMAT_TEXT)
    {
      g_string_append (out, "\nOccupancy\n");
      text_row (out, row, arch);
      return;
    }
  if (format != MS_FORMAT_JSON)
    return;
  g_autoptr (JsonBuilder) b = json_builder_new ();
  json_builder_begin_object (b);
  json_row (b, row, arch);
  json_builder_end_object (b);
  ms_report_json_add_member (out, "occupancy", json_builder_get_root (b));
}
