/* reduce.c - descriptors of the reduction family (reduce.cu).
 *
 * Buffers: out (one int per block), in (n ints in [-1000, 1000]); arg: n.
 * Every kernel writes out[b] = the sum of the elements block b covers, so
 * the reference is a plain loop that assigns each element to its block the
 * way the kernel does; integer sums are exact, the check is equality.
 */
#include "config.h"
#include "entries.h"
#include "kernel-usage.h"
#include "occupancy.h"
#include "parallel.h"
#include "problem.h"

static const MsParamSpec reduce_params[] = {
  { "n", "number of ints to add up", 1 << 20, 1, 1 << 26 },
  { NULL },
};

static const MsParamSpec reduce_multiple_params[] = {
  { "n", "number of ints to add up", 1 << 20, 1, 1 << 26 },
  { "blocks", "most blocks to launch; each thread then adds n / (blocks * block) elements, four a "
              "step of a grid-stride loop (0: as many as fill the device, active blocks per SM x "
              "SMs)", 0, 0, 65535 },
  { NULL },
};

/* How a kernel maps elements to blocks: element e goes to block
 * (e / per_block) % grid. */
static gboolean
reduce_setup_common (MsProblem *p, guint per_thread, guint max_blocks, GError **error)
{
  gint64 n = ms_problem_param (p, "n");
  guint per_block = p->args.block[0] * per_thread;
  guint grid = MIN (ms_div_up ((guint64) n, per_block), max_blocks);
  if (!ms_problem_buffer (p, "out", (gsize) grid * sizeof (int), TRUE, error))
    return FALSE;
  int *in = ms_problem_buffer (p, "in", (gsize) n * sizeof (int), FALSE, error);
  if (in == NULL)
    return FALSE;
  ms_fill_ints (p, in, (gsize) n, -1000, 1000);
  p->args.i[0] = n;
  p->args.i[1] = per_block;   /* for the check, not read by the kernels */
  p->args.grid[0] = grid;
  p->args.grid[1] = p->args.grid[2] = 1;
  return TRUE;
}

/* one element per thread */
static gboolean
reduce_setup_one (MsProblem *p, GError **error)
{
  return reduce_setup_common (p, 1, G_MAXUINT, error);
}

/* two elements per thread (add during load) */
static gboolean
reduce_setup_two (MsProblem *p, GError **error)
{
  return reduce_setup_common (p, 2, G_MAXUINT, error);
}

/* reduce_multiple's shared array: REDUCE_MAX_BLOCK ints (reduce.cu), for
 * its occupancy where memsim has no nvcc build */
#define REDUCE_MULTIPLE_SHARED (1024 * (int) sizeof (int))

/* The blocks that fill the device, the seed's "just enough blocks to keep
 * every SM busy": the active blocks per SM of this launch on the preset
 * (the occupancy model, with the nvcc build's registers, shared bytes and
 * barriers where memsim has them) times its SMs. */
static guint
blocks_filling_device (const MsProblem *p)
{
  const MsArch *arch = p->arch ? p->arch : ms_arch_default ();
  const MsKernelUsage *u = ms_kernel_usage_find (p);
  MsOccInput in = {
    .threads_per_block = (int) p->args.block[0],
    .registers_per_thread = u ? ms_allocated_registers (u->registers) : MS_DEFAULT_REGISTERS,
    .static_shared = u ? u->shared_bytes : REDUCE_MULTIPLE_SHARED,
    .barriers = u ? u->barriers : 1,
    .carveout_pct = -1,
  };
  MsOccupancy occ;
  /* a preset without occupancy figures: the seed's 64 */
  if (!arch->has_costs || !ms_occupancy_compute (arch, &in, &occ, NULL) || occ.active_blocks <= 0)
    return 64;
  return (guint) occ.active_blocks * (guint) arch->sm_count;
}

/* four per step of a grid-stride loop over at most `blocks` blocks (0: the
 * blocks that fill the device; the report then shows that number) */
static gboolean
reduce_setup_multiple (MsProblem *p, GError **error)
{
  guint blocks = (guint) ms_problem_param (p, "blocks");
  if (blocks == 0)
    {
      blocks = blocks_filling_device (p);
      g_autofree char *text = g_strdup_printf ("%u", blocks);
      if (!ms_problem_set_param (p, "blocks", text, error))
        return FALSE;
    }
  return reduce_setup_common (p, 4, blocks, error);
}

/* The sums of the blocks' chunks of per_block elements, chunk c of them
 * added into block c % grid by the check: in parallel, wrapping as the
 * kernels' int sums do (chunks are contiguous: gcc vectorises the sum,
 * where an element-by-element loop divided twice per element, 11% of a
 * whole `memsim trace reduce_shfl` at 2^24). */
typedef struct {
  const int *in;
  gint64 n;
  guint per_block;
  guint32 *chunk_sum;
} ReduceSums;

static void
reduce_chunk_sums (gsize lo, gsize hi, gpointer data)
{
  const ReduceSums *r = data;
  for (gsize c = lo; c < hi; c++)
    {
      gint64 first = (gint64) c * r->per_block, last = MIN (first + r->per_block, r->n);
      guint32 sum = 0;
      for (gint64 e = first; e < last; e++)
        sum += (guint32) r->in[e];
      r->chunk_sum[c] = sum;
    }
}

static gboolean
reduce_check (MsProblem *p, GError **error)
{
  gint64 n = p->args.i[0];
  guint per_block = (guint) p->args.i[1], grid = p->args.grid[0];
  gsize chunks = ms_div_up ((guint64) n, per_block);
  g_autofree guint32 *chunk_sum = g_new (guint32, chunks);
  ReduceSums r = { p->args.buf[1], n, per_block, chunk_sum };
  ms_parallel_for (chunks, 64, p->threads, reduce_chunk_sums, &r);
  g_autofree int *want = g_new0 (int, grid);
  for (gsize c = 0; c < chunks; c++)
    want[c % grid] = (int) ((guint32) want[c % grid] + chunk_sum[c]);
  return ms_check_ints (p, "out", p->args.buf[0], want, grid, error);
}

#define REDUCE_KERNEL(kname, params_, setup_fn, orig, desc)                          \
  const MsKernel ms_kernel_##kname = {                                               \
    .name = #kname, .family = "reduce", .origin = orig, .description = desc,        \
    .source = "reduce.cu", .params = params_, .size_params = { "n" },                \
    .block = { 256, 1, 1 }, .block_rule = MS_BLOCK_POW2, .setup = setup_fn,          \
    .check = reduce_check, .bind_entry = ms_bind_entry_##kname,                        \
  };

#define SEED_003 "seed 003 (reduction table, after Harris's \"Optimizing Parallel Reduction\")"

REDUCE_KERNEL (reduce_interleaved, reduce_params, reduce_setup_one, SEED_003,
               "interleaved addressing, tid % (2*s) == 0: divergent, ever emptier warps")
REDUCE_KERNEL (reduce_nondivergent, reduce_params, reduce_setup_one, SEED_003,
               "index = 2*s*tid: whole warps active, but shared stride 2*s: bank conflicts")
REDUCE_KERNEL (reduce_sequential, reduce_params, reduce_setup_one, SEED_003,
               "sequential addressing, s halves: conflict-free, half the threads idle")
REDUCE_KERNEL (reduce_firstadd, reduce_params, reduce_setup_two, SEED_003,
               "first add during load: 2 elements per thread, half the blocks")
REDUCE_KERNEL (reduce_unroll_last, reduce_params, reduce_setup_two, SEED_003,
               "last warp unrolled, warp-synchronous on volatile shared memory, no barrier")
REDUCE_KERNEL (reduce_unroll_complete, reduce_params, reduce_setup_two, SEED_003,
               "fully unrolled for a compile-time block size (64..1024, picked at launch)")
REDUCE_KERNEL (reduce_multiple, reduce_multiple_params, reduce_setup_multiple, SEED_003,
               "grid-stride loop: many elements per thread, then reduce_unroll_last")
REDUCE_KERNEL (reduce_shfl, reduce_params, reduce_setup_one,
               "seed 000 (Cheng et al., reduceShfl)",
               "__shfl_xor_sync butterfly per warp, one shared word per warp")
