/* trace-check.c - the emulator's address trace against the GPU's (see
 * trace-check.h). */
#include "config.h"
#include "trace-check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "problem.h"
#include "trace-file.h"

/* The emulator's side keeps at most this many accesses (296 bytes each,
 * and up to 32 per-lane entries of 32 bytes when compared). */
#define MS_TRACE_CAP (G_GUINT64_CONSTANT (1) << 20)

MsTraceCollector *
ms_trace_collector_new (void)
{
  MsTraceCollector *c = g_new0 (MsTraceCollector, 1);
  c->sink.ordered = ms_trace_collect;
  c->sink.user = c;
  c->sink.source_level = TRUE;   /* the GPU records per source access too */
  c->records = g_array_new (FALSE, FALSE, sizeof (MsTraceRecord));
  c->cap = MS_TRACE_CAP;
  return c;
}

void
ms_trace_collector_free (MsTraceCollector *c)
{
  if (c == NULL)
    return;
  g_array_unref (c->records);
  g_free (c);
}

void
ms_trace_collect (gpointer collector, const MsWarpAccess *a)
{
  MsTraceCollector *c = collector;
  c->total++;
  if (c->records->len >= c->cap)
    return;
  MsTraceRecord t;
  memset (&t, 0, sizeof t);
  t.block = a->block;
  t.warp = a->warp;
  t.mask = a->mask;
  t.line = a->site->line;
  t.order = a->site->order;
  t.space = a->space;
  t.op = a->op;
  t.width = a->width;
  for (guint32 m = a->mask; m; m &= m - 1)
    {
      int l = __builtin_ctz (m);
      t.addr[l] = a->addr[l];
    }
  g_array_append_val (c->records, t);
}

void
ms_trace_check_clear (MsTraceCheck *check)
{
  g_clear_pointer (&check->message, g_free);
}

/* ------------------------------------------------------------ keys */

/* A warp-level access (lane = 32) or one lane's part of it.  Lane keys
 * pair the k-th lowest address a lane accessed on a line (in one space, op
 * and width) on both sides: the emulator runs nvcc's compiled code, whose
 * instructions for a line may be more (an unrolled loop), fewer or in
 * another order than the GPU's instrumented source accesses, while the
 * addresses each lane touches are the same.  Warp keys pair the k-th
 * access of a line in program order. */
typedef struct {
  guint32 block;
  guint16 warp;
  guint8 lane;
  int line;
  guint32 cls;    /* lane keys: space, op and width */
  guint64 addr;   /* lane keys: the lane's address (shared: as recorded) */
  guint32 inst;   /* k-th of the line's keys, in the order above */
  guint idx;      /* the record, in trace order (program order per warp) */
} Key;

#define CMP_FIELD(f) if (x->f != y->f) return x->f < y->f ? -1 : 1
static int
cmp_key_seq (const void *a, const void *b)
{
  const Key *x = a, *y = b;
  CMP_FIELD (block);
  CMP_FIELD (warp);
  CMP_FIELD (lane);
  CMP_FIELD (line);
  CMP_FIELD (cls);
  CMP_FIELD (addr);
  CMP_FIELD (idx);
  return 0;
}

static int
cmp_key (const Key *x, const Key *y)
{
  CMP_FIELD (block);
  CMP_FIELD (warp);
  CMP_FIELD (lane);
  CMP_FIELD (line);
  CMP_FIELD (cls);
  CMP_FIELD (inst);
  return 0;
}
#undef CMP_FIELD

/* per_lane: one key per active lane, else one per record. */
static Key *
build_keys (const GArray *recs, gboolean per_lane, guint64 *n_out)
{
  guint64 n = 0;
  for (guint i = 0; i < recs->len; i++)
    n += per_lane ? (guint) __builtin_popcount (g_array_index (recs, MsTraceRecord, i).mask) : 1;
  Key *keys = g_new (Key, MAX (n, 1));
  guint64 j = 0;
  for (guint i = 0; i < recs->len; i++)
    {
      const MsTraceRecord *r = &g_array_index (recs, MsTraceRecord, i);
      Key k = { r->block, r->warp, 32, r->line, 0, 0, 0, i };
      if (!per_lane)
        keys[j++] = k;
      else
        for (guint32 m = r->mask; m; m &= m - 1)
          {
            k.lane = (guint8) __builtin_ctz (m);
            k.cls = ((guint32) r->space << 24) | ((guint32) r->op << 16) | r->width;
            k.addr = r->addr[k.lane];
            keys[j++] = k;
          }
    }
  qsort (keys, n, sizeof *keys, cmp_key_seq);
  for (guint64 i = 1; i < n; i++)
    if (keys[i].block == keys[i - 1].block && keys[i].warp == keys[i - 1].warp
        && keys[i].lane == keys[i - 1].lane && keys[i].line == keys[i - 1].line
        && keys[i].cls == keys[i - 1].cls)
      keys[i].inst = keys[i - 1].inst + 1;
  *n_out = n;
  return keys;
}

/* ------------------------------------------------------------ messages */

static const char *
ordinal_suffix (guint n)
{
  if (n % 100 >= 11 && n % 100 <= 13)
    return "th";
  return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

static void
describe_site (GString *s, const Key *k, const MsTraceRecord *r, const char *source)
{
  g_autofree char *text = source ? ms_kernel_source_line (source, k->line) : NULL;
  g_string_append_printf (s, "block %u, warp %u, ", k->block, k->warp);
  if (k->lane < 32)
    g_string_append_printf (s, "lane %u, ", k->lane);
  g_string_append_printf (s, "line %d", k->line);
  if (text)
    g_string_append_printf (s, " (`%s`)", text);
  g_string_append_printf (s, ", its %u%s %s %s%s", k->inst + 1, ordinal_suffix (k->inst + 1),
                          ms_space_name ((MsSpace) r->space), ms_op_name ((MsOp) r->op),
                          k->lane < 32 ? " in address order" : "");
}

static void
describe_addr (GString *s, const MsTraceRecord *r, int lane)
{
  guint64 a = r->addr[lane];
  if (r->space == MS_SPACE_GLOBAL && !r->unmapped)
    g_string_append_printf (s, "buffer %d + %" G_GUINT64_FORMAT, MS_VADDR_BUFFER (a),
                            (guint64) MS_VADDR_OFFSET (a));
  else if (r->space == MS_SPACE_GLOBAL)
    g_string_append_printf (s, "0x%" G_GINT64_MODIFIER "x (outside every buffer)", a);
  else
    g_string_append_printf (s, "offset %" G_GUINT64_FORMAT, a);
}

/* The records of one warp, in trace order, one line each. */
static void
dump_warp (const char *path, const GArray *recs, guint32 block, guint16 warp)
{
  g_autoptr (GString) s = g_string_new (NULL);
  g_string_append_printf (s, "# block %u warp %u: seq line order space op width mask "
                             "addresses of the active lanes (lane:address)\n", block, warp);
  for (guint i = 0; i < recs->len; i++)
    {
      const MsTraceRecord *r = &g_array_index (recs, MsTraceRecord, i);
      if (r->block != block || r->warp != warp)
        continue;
      g_string_append_printf (s, "%u %d %d %s %s %u 0x%08x", i, r->line, r->order,
                              ms_space_name ((MsSpace) r->space), ms_op_name ((MsOp) r->op),
                              r->width, r->mask);
      for (guint32 m = r->mask; m; m &= m - 1)
        {
          int l = __builtin_ctz (m);
          g_string_append_printf (s, " %d:%" G_GINT64_MODIFIER "x", l, r->addr[l]);
        }
      g_string_append_c (s, '\n');
    }
  g_file_set_contents (path, s->str, (gssize) s->len, NULL);
}

/* ------------------------------------------------------------ compare */

/* Per-lane addresses; appends the first difference to s.  TRUE if equal. */
static gboolean
compare_lanes (const GArray *emu, const GArray *gpu,
               const char *source, MsTraceCheck *check, GString *s, Key *where)
{
  guint64 ne, ng;
  Key *ek = build_keys (emu, TRUE, &ne), *gk = build_keys (gpu, TRUE, &ng);
  guint64 i = 0, j = 0;
  gboolean same = TRUE;
  while (i < ne || j < ng)
    {
      int c = i >= ne ? 1 : j >= ng ? -1 : cmp_key (&ek[i], &gk[j]);
      if (c != 0)
        {
          const Key *k = c < 0 ? &ek[i] : &gk[j];
          const MsTraceRecord *r = c < 0 ? &g_array_index (emu, MsTraceRecord, k->idx)
                                         : &g_array_index (gpu, MsTraceRecord, k->idx);
          g_string_append (s, "first difference: ");
          describe_site (s, k, r, source);
          g_string_append (s, " (");
          describe_addr (s, r, k->lane);
          g_string_append_printf (s, ") happened only on the %s", c < 0 ? "emulator" : "GPU");
          *where = *k;
          same = FALSE;
          break;
        }
      const MsTraceRecord *e = &g_array_index (emu, MsTraceRecord, ek[i].idx);
      const MsTraceRecord *g = &g_array_index (gpu, MsTraceRecord, gk[j].idx);
      int l = ek[i].lane;
      gboolean ok;
      if (e->space != g->space || e->op != g->op || e->width != g->width)
        ok = FALSE;
      else if (e->space == MS_SPACE_SHARED)
        {
          gint64 delta = (gint64) (g->addr[l] - e->addr[l]);
          if (!check->shared_seen)
            {
              check->shared_seen = TRUE;
              check->shared_base = delta;
            }
          ok = delta == check->shared_base;
        }
      else
        ok = !g->unmapped && g->addr[l] == e->addr[l];
      if (!ok)
        {
          g_string_append (s, "first difference: ");
          describe_site (s, &ek[i], e, source);
          if (e->space != g->space || e->op != g->op || e->width != g->width)
            g_string_append_printf (s, ": the GPU made a %u-byte %s %s, the emulator a %u-byte "
                                    "%s %s", g->width, ms_space_name ((MsSpace) g->space),
                                    ms_op_name ((MsOp) g->op), e->width,
                                    ms_space_name ((MsSpace) e->space),
                                    ms_op_name ((MsOp) e->op));
          else
            {
              g_string_append (s, ": ");
              describe_addr (s, g, l);
              g_string_append (s, " on the GPU, ");
              describe_addr (s, e, l);
              g_string_append (s, " in the emulator");
              if (e->space == MS_SPACE_SHARED)
                g_string_append_printf (s, " (earlier shared accesses differed by %+"
                                        G_GINT64_FORMAT " bytes)", check->shared_base);
            }
          *where = ek[i];
          same = FALSE;
          break;
        }
      check->lane_accesses++;
      i++;
      j++;
    }
  g_free (ek);
  g_free (gk);
  return same;
}

/* Warp-level masks; appends the first difference to s.  TRUE if equal. */
static gboolean
compare_grouping (const GArray *emu, const GArray *gpu,
                  const char *source, GString *s, Key *where)
{
  guint64 ne, ng;
  Key *ek = build_keys (emu, FALSE, &ne), *gk = build_keys (gpu, FALSE, &ng);
  guint64 i = 0, j = 0;
  gboolean same = TRUE;
  while (i < ne || j < ng)
    {
      int c = i >= ne ? 1 : j >= ng ? -1 : cmp_key (&ek[i], &gk[j]);
      const MsTraceRecord *e = i < ne ? &g_array_index (emu, MsTraceRecord, ek[i].idx) : NULL;
      const MsTraceRecord *g = j < ng ? &g_array_index (gpu, MsTraceRecord, gk[j].idx) : NULL;
      if (c != 0 || e->mask != g->mask)
        {
          const Key *k = c <= 0 ? &ek[i] : &gk[j];
          const MsTraceRecord *r = c <= 0 ? e : g;
          g_string_append (s, "first: ");
          describe_site (s, k, r, source);
          if (c == 0)
            g_string_append_printf (s, " ran lanes 0x%08x on the GPU, 0x%08x in the emulator",
                                    g->mask, e->mask);
          else
            g_string_append_printf (s, " (lanes 0x%08x) only on the %s", r->mask,
                                    c < 0 ? "emulator" : "GPU");
          *where = *k;
          same = FALSE;
          break;
        }
      i++;
      j++;
    }
  g_free (ek);
  g_free (gk);
  return same;
}

void
ms_trace_compare (const GArray *emu, guint64 emu_total, const GArray *gpu, guint64 gpu_total,
                  const char *source, const char *dump, MsTraceCheck *check)
{
  memset (check, 0, sizeof *check);
  g_autoptr (GString) s = g_string_new (NULL);
  check->emulator_accesses = emu_total;
  check->gpu_accesses = gpu_total;
  if (emu_total > emu->len || gpu_total > gpu->len)
    {
      g_string_printf (s, "not compared: %s; use a smaller --size",
                       emu_total > emu->len ? "the emulator's trace is too long for --check-trace"
                                            : "the GPU's trace is incomplete");
      check->message = g_string_free (g_steal_pointer (&s), FALSE);
      return;
    }
  for (guint i = 0; i < emu->len; i++)
    {
      if (g_array_index (emu, MsTraceRecord, i).space == MS_SPACE_SHARED)
        check->shared++;
      else
        check->global++;
    }
  Key where = { 0 };
  check->identical = compare_lanes (emu, gpu, source, check, s, &where);
  g_autoptr (GString) grouping = g_string_new (NULL);
  Key gwhere = { 0 };
  check->grouping_identical = compare_grouping (emu, gpu, source, grouping, &gwhere);
  if (check->identical)
    {
      g_string_printf (s, "identical: every lane's address in %" G_GUINT64_FORMAT " warp-level "
                       "accesses (%" G_GUINT64_FORMAT " global, %" G_GUINT64_FORMAT " shared; %"
                       G_GUINT64_FORMAT " lane accesses)", emu_total, check->global, check->shared,
                       check->lane_accesses);
      if (check->shared_seen && check->shared_base == 0)
        g_string_append (s, "; shared offsets equal: the emulator's shared layout is nvcc's");
      else if (check->shared_seen)
        g_string_append_printf (s, "; every GPU shared offset is the emulator's %+" G_GINT64_FORMAT
                                " bytes (a constant base%s%s)", check->shared_base,
                                check->shared_base == 1024
                                  ? ": the 1 KB sm_80+ reserves at the start of a block's "
                                    "shared window"
                                  : "",
                                check->shared_base % 128 == 0
                                  ? "; a multiple of 128 bytes, so every bank is the same"
                                  : "; NOT a multiple of 128 bytes: banks differ");
    }
  if (check->grouping_identical)
    g_string_append (s, "; lanes grouped into warp-level accesses as in the emulator");
  else
    g_string_append_printf (s, "; lanes grouped differently (GPU %" G_GUINT64_FORMAT
                            " warp-level accesses, emulator %" G_GUINT64_FORMAT "; %s)",
                            gpu_total, emu_total, grouping->str);
  if (dump && (!check->identical || !check->grouping_identical))
    {
      const Key *k = check->identical ? &gwhere : &where;
      g_autofree char *pe = g_strconcat (dump, "-emulator.txt", NULL);
      g_autofree char *pg = g_strconcat (dump, "-gpu.txt", NULL);
      dump_warp (pe, emu, k->block, k->warp);
      dump_warp (pg, gpu, k->block, k->warp);
    }
  check->message = g_string_free (g_steal_pointer (&s), FALSE);
}

/* ---- saving the GPU's trace (--save-gpu-trace) ---- */

static gint
compare_block (gconstpointer a, gconstpointer b, gpointer data)
{
  const MsTraceRecord *recs = data;
  guint x = *(const guint *) a, y = *(const guint *) b;
  if (recs[x].block != recs[y].block)
    return recs[x].block < recs[y].block ? -1 : 1;
  return x < y ? -1 : x > y;   /* within a block: the GPU's own order */
}

gboolean
ms_gpu_trace_save (const MsProblem *p, const MsGpuResult *r, const char *check, const char *path,
                   GError **error)
{
  if (r->trace == NULL)
    {
      g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED, "no GPU trace was recorded");
      return FALSE;
    }
  if (r->trace_total > r->trace->len)
    {
      g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED,
                   "the GPU trace holds %u of the kernel's %" G_GUINT64_FORMAT " accesses (its "
                   "buffer is capped); not saved: use a smaller --size", r->trace->len,
                   r->trace_total);
      return FALSE;
    }
  g_autoptr (MsRunInfo) info = ms_problem_run_info (p, ms_arch_default (), check);
  g_free (info->producer);
  info->producer = g_strdup_printf ("GPU address trace (%s, --check-trace)", r->info.name);
  /* the instrumented build records per source access */
  g_free (info->counts);
  info->counts = g_strdup (MS_COUNTS_SOURCE);
  info->compiled = FALSE;   /* the instrumented source's accesses */
  g_autoptr (MsTraceWriter) w = ms_trace_writer_new (path, info, error);
  if (w == NULL)
    return FALSE;
  const MsTraceRecord *recs = (const MsTraceRecord *) (void *) r->trace->data;
  g_autoptr (GArray) order = g_array_sized_new (FALSE, FALSE, sizeof (guint), r->trace->len);
  for (guint i = 0; i < r->trace->len; i++)
    g_array_append_val (order, i);
  g_array_sort_with_data (order, compare_block, (gpointer) recs);
  const MsStreamSink *sink = ms_trace_writer_sink (w);
  const char *base = strrchr (p->kernel->source, '/');
  for (guint i = 0; i < order->len; i++)
    {
      const MsTraceRecord *t = &recs[g_array_index (order, guint, i)];
      if (t->unmapped || t->space > MS_SPACE_SHARED)
        {
          g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED,
                       "the GPU trace has an access at line %d outside every buffer of the "
                       "launch; not saved", t->line);
          return FALSE;
        }
      /* the GPU build numbers sites in its own way, in the same textual order */
      const MsSite *site = ms_trace_site_intern (base ? base + 1 : p->kernel->source, t->line,
                                                 t->order, FALSE, FALSE);
      if (site == NULL)
        {
          g_set_error (error, MS_GPU_ERROR, MS_GPU_ERROR_FAILED, "too many access sites");
          return FALSE;
        }
      MsWarpAccess a = { .site = site, .block = t->block, .warp = t->warp, .space = t->space,
                         .op = t->op, .width = t->width, .mask = t->mask };
      memcpy (a.addr, t->addr, sizeof a.addr);
      sink->ordered (sink->user, &a);
    }
  return ms_trace_writer_finish (w, check, error);
}
