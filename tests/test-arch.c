/* test-arch.c - architecture presets: loading, validation, and the bank
 * rules they change (seed 000's Kepler 64-bit bank mode). */
#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "arch.h"
#include "banks.h"

static MsArch *
preset (const char *name)
{
  g_autoptr (GError) error = NULL;
  MsArch *a = ms_arch_lookup (name, &error);
  g_assert_no_error (error);
  g_assert_nonnull (a);
  return a;
}

static void
test_builtin_and_presets (void)
{
  const MsArch *h = ms_arch_default ();
  g_assert_cmpstr (h->name, ==, "h100");
  g_assert_cmpint (h->compute_capability, ==, 90);
  g_assert_true (ms_arch_lookup ("h100", NULL) == h);
  g_assert_true (ms_arch_lookup (NULL, NULL) == h);
  const char *names[] = { "a100", "v100", "kepler32", "kepler64", "fermi", "cc13" };
  int ccs[] = { 80, 70, 35, 35, 20, 13 };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (MsArch) a = preset (names[i]);
      g_assert_cmpstr (a->name, ==, names[i]);
      g_assert_cmpint (a->compute_capability, ==, ccs[i]);
      g_assert_cmpint (a->warp_size, ==, 32);
      g_assert_cmpint (a->sector_bytes, ==, 32);
      /* every shipped preset carries the cost models' figures */
      g_assert_true (a->has_costs);
    }
  g_autofree char *list = ms_arch_list ();
  g_assert_cmpstr (list, ==, "a100, cc13, fermi, h100, h200, kepler32, kepler64, v100");
}

/* The compiled-in H200 is sim/arch/h200.arch; its figures are the ones
 * measured on an H200 (gpu/measurements/h200-2026-11-29-preset: props.txt,
 * events.txt, ncu.csv), worked out here from the raw readings, and the
 * H100's SM and fitted [time] constants. */
static void
test_h200_figures (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MsArch) b = ms_arch_lookup ("h200", &error);
  g_assert_no_error (error);
  g_autoptr (MsArch) f = ms_arch_load_file (MEMSIM_SRCDIR "/sim/arch/h200.arch", &error);
  g_assert_no_error (error);
  g_assert_cmpint (memcmp (&b->compute_capability, &f->compute_capability,
                           sizeof (MsArch) - G_STRUCT_OFFSET (MsArch, compute_capability)), ==, 0);
  g_assert_cmpstr (b->name, ==, "h200");
  g_assert_cmpint (b->compute_capability, ==, 90);
  g_assert_cmpint (b->sm_count, ==, 132);
  g_assert_cmpint (b->clock_mhz, ==, 1980);
  g_assert_cmpint (b->l2_bytes, ==, 62914560);   /* cudaDeviceProp.l2CacheSize */
  g_assert_cmpint (b->l2_seen_bytes, ==, 42 << 20);   /* copy's write-backs, measured */
  /* peak: 6016-bit bus, 3201 MHz, two transfers a clock */
  g_assert_cmpfloat (fabs (b->dram_gbs - 6016 / 8 * 3201e6 * 2 / 1e9), <, 1.0);
  /* launch latency: events 2.752 us - ncu 1.504 us, an empty kernel */
  g_assert_cmpfloat (fabs (b->launch_event_latency_us - (2.752 - 1.504)), <, 0.01);
  g_assert_cmpfloat (b->memory_gb, ==, 141);
  /* the SM is the H100's: occupancy limits, shared memory, banks */
  const MsArch *h = ms_arch_default ();
  g_assert_cmpint (memcmp (&b->max_threads_per_block, &h->max_threads_per_block,
                           G_STRUCT_OFFSET (MsArch, l1_bytes)
                             - G_STRUCT_OFFSET (MsArch, max_threads_per_block)), ==, 0);
  g_assert_cmpint (b->banks, ==, h->banks);
  g_assert_cmpint (b->paired_load_phase_bytes, ==, h->paired_load_phase_bytes);
  /* the time model's constants: the H100's fit, and the instruction
   * constants fitted on both GPUs (the same SM) */
  g_assert_cmpint (memcmp (&b->dram_efficiency, &h->dram_efficiency,
                           G_STRUCT_OFFSET (MsArch, dram_loaded_latency_cycles) + sizeof (int)
                             - G_STRUCT_OFFSET (MsArch, dram_efficiency)), ==, 0);
  g_assert_cmpint (b->dram_latency_cycles, ==, h->dram_latency_cycles);
  g_assert_cmpint (b->l2_latency_cycles, ==, h->l2_latency_cycles);
  g_assert_cmpfloat (b->launch_overhead_us, ==, h->launch_overhead_us);
}

/* The compiled-in H100 is sim/arch/h100.arch, and its figures are the
 * sm_90 ones of CUDA's occupancy calculator (cuda_occupancy.h, CUDA 13.0)
 * and the Programming Guide's compute-capability table. */
static void
test_h100_figures (void)
{
  const MsArch *h = ms_arch_default ();
  g_autoptr (GError) error = NULL;
  g_autoptr (MsArch) f = ms_arch_load_file (MEMSIM_SRCDIR "/sim/arch/h100.arch", &error);
  g_assert_no_error (error);
  g_assert_true (h->has_costs);
  g_assert_cmpint (memcmp (&h->compute_capability, &f->compute_capability,
                           sizeof (MsArch) - G_STRUCT_OFFSET (MsArch, compute_capability)), ==, 0);
  g_assert_cmpint (h->sm_count, ==, 132);
  g_assert_cmpint (h->max_warps_per_sm, ==, 64);
  g_assert_cmpint (h->max_blocks_per_sm, ==, 32);
  g_assert_cmpint (h->register_alloc_unit, ==, 256);
  g_assert_cmpint (h->register_alloc, ==, MS_REG_ALLOC_WARP);
  g_assert_cmpint (h->shared_alloc_unit, ==, 128);
  g_assert_cmpint (h->reserved_shared_per_block, ==, 1024);
  g_assert_cmpint (h->shared_per_sm, ==, 228 * 1024);
  g_assert_cmpint (h->n_carveouts, ==, 10);
  g_assert_cmpint (h->carveouts_kib[5], ==, 100);
  g_assert_cmpint (h->l2_bytes, ==, 50 * 1024 * 1024);
  /* cc 1.3: half-warp coalescing, shrinking segments, per-block registers */
  g_autoptr (MsArch) c = preset ("cc13");
  g_assert_cmpint (c->coalesce_lanes, ==, 16);
  g_assert_cmpint (c->segment_rule, ==, MS_SEGMENTS_SHRINK);
  g_assert_cmpint (c->banks, ==, 16);
  g_assert_cmpint (c->register_alloc, ==, MS_REG_ALLOC_BLOCK);
  g_assert_cmpint (c->warp_alloc_granularity, ==, 2);
  g_assert_cmpint (h->coalesce_lanes, ==, 32);
  g_assert_cmpint (h->segment_rule, ==, MS_SEGMENTS_SECTORS);
}

/* Nonsense values in a preset: one line naming the key (issue 9's cases
 * first: 33 banks, 3-byte banks, a phase of 1 byte). */
static void
test_nonsense_values (void)
{
  g_autofree char *h100 = NULL;
  g_assert_true (g_file_get_contents (MEMSIM_SRCDIR "/sim/arch/h100.arch", &h100, NULL, NULL));
  struct { const char *from, *to, *fragment; } cases[] = {
    { "banks=32", "banks=33", "[shared] banks must be a power of two" },
    { "bank_bytes=4", "bank_bytes=3", "[shared] bank_bytes must be a power of two" },
    { "\nphase_bytes=128", "\nphase_bytes=1", "[shared] phase_bytes must be" },
    { "\nphase_bytes=128", "\nphase_bytes=1024", "[shared] phase_bytes must be at most twice" },
    { "sector_bytes=32", "sector_bytes=48", "[global] sector_bytes must be a power of two" },
    { "line_bytes=128", "line_bytes=16", "[global] line_bytes must be at least sector_bytes" },
    { "count=132", "count=0", "[sm] count must be" },
    { "count=132", "count=many", "[sm] count must be" },
    { "register_alloc=warp", "register_alloc=thread", "[occupancy] register_alloc must be warp or block" },
    { "carveouts_kib=0;8;16;32;64;100;132;164;196;228", "carveouts_kib=0;8;16;32;64;100;132;164;228;196",
      "[occupancy] carveouts_kib must be" },
    { "carveouts_kib=0;8;16;32;64;100;132;164;196;228", "carveouts_kib=0;8;16;32;64;100;132;164;196",
      "[occupancy] carveouts_kib must end with shared_per_sm" },
    { "shared_per_block=49152", "shared_per_block=300000", "[occupancy] shared_per_block must be at most" },
    { "max_warps_per_sm=64", "max_warps_per_sm=32", "[occupancy] max_warps_per_sm must hold" },
    { "dram_gbs=3352", "dram_gbs=-5", "[memory] dram_gbs must be a number" },
    { "dram_granularity=64", "dram_granularity=256", "[memory] dram_granularity must be between" },
    { "l2_ways=16", "l2_ways=7", "[memory] l2_bytes must be 0 (no L2) or a multiple" },
    { "l2_ways=16", "l2_ways=16\nl2_seen_bytes=1000", "[memory] l2_seen_bytes must be 0 (not "
      "given) or a multiple of line_bytes * l2_ways (2048)" },
    { "overhead_us=2.75\\n", "", "[launch] overhead_us is missing" },
    { "lsu_per_clock=1.14", "lsu_per_clock=0", "[time] lsu_per_clock must be a number" },
    { "event_latency_us=1.25", "event_latency_us=4", "[launch] event_latency_us must be at most "
      "overhead_us" },
  };
  g_autofree char *dir = g_dir_make_tmp ("memsim-arch-XXXXXX", NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *from = g_strcompress (cases[i].from), *to = g_strcompress (cases[i].to);
      g_assert_nonnull (strstr (h100, from));
      g_auto (GStrv) parts = g_strsplit (h100, from, 2);
      g_autofree char *text = g_strjoinv (to, parts);
      g_autofree char *path = g_strdup_printf ("%s/bad%zu.arch", dir, i);
      g_assert_true (g_file_set_contents (path, text, -1, NULL));
      g_autoptr (GError) error = NULL;
      g_assert_null (ms_arch_lookup (path, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
      g_assert_nonnull (strstr (error->message, path));
      g_assert_null (strchr (error->message, '\n'));
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* paired_load_phase_bytes: 256 on the H100 (measured, docs/validation.md),
 * assumed on a100/v100; Kepler and files without the key: phase_bytes. */
static void
test_paired_load_phase_bytes (void)
{
  g_assert_cmpint (ms_arch_default ()->paired_load_phase_bytes, ==, 256);
  const char *names[] = { "a100", "v100", "kepler32", "kepler64" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (MsArch) a = preset (names[i]);
      g_assert_cmpint (a->paired_load_phase_bytes, ==, i < 2 ? 256 : a->phase_bytes);
    }

  g_autofree char *dir = g_dir_make_tmp ("memsim-arch-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "p.arch", NULL);
  const char *head = "[arch]\nname=p\ncompute_capability=90\nwarp_size=32\n[global]\n"
                     "sector_bytes=32\nline_bytes=128\n[shared]\nbanks=32\nbank_bytes=4\n"
                     "phase_bytes=128\n";
  /* absent: the same as phase_bytes */
  g_assert_true (g_file_set_contents (path, head, -1, NULL));
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (MsArch) a = ms_arch_lookup (path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (a->paired_load_phase_bytes, ==, 128);
  }
  /* given */
  g_autofree char *given = g_strconcat (head, "paired_load_phase_bytes=512\n", NULL);
  g_assert_true (g_file_set_contents (path, given, -1, NULL));
  {
    g_autoptr (GError) error = NULL;
    g_autoptr (MsArch) a = ms_arch_lookup (path, &error);
    g_assert_no_error (error);
    g_assert_cmpint (a->paired_load_phase_bytes, ==, 512);
  }
  /* bad: one line naming the key */
  g_autofree char *bad = g_strconcat (head, "paired_load_phase_bytes=zero\n", NULL);
  g_assert_true (g_file_set_contents (path, bad, -1, NULL));
  {
    g_autoptr (GError) error = NULL;
    g_assert_null (ms_arch_lookup (path, &error));
    g_assert_nonnull (error);
    g_assert_nonnull (strstr (error->message, "paired_load_phase_bytes"));
  }
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_bad_files (void)
{
  g_autofree char *dir = g_dir_make_tmp ("memsim-arch-XXXXXX", NULL);
  struct { const char *text, *fragment; } cases[] = {
    { "[arch]\ncompute_capability=90\n", "name is missing" },
    { "[arch]\nname=x\ncompute_capability=90\nwarp_size=32\n[global]\nsector_bytes=32\n"
      "line_bytes=128\n[shared]\nbanks=32\nbank_bytes=4\n", "phase_bytes" },
    { "[arch]\nname=x\ncompute_capability=90\nwarp_size=32\n[global]\nsector_bytes=32\n"
      "line_bytes=128\n[shared]\nbanks=99\nbank_bytes=4\nphase_bytes=128\n", "banks" },
    { "not a key file", "cannot read" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("%s/bad%zu.arch", dir, i);
      g_assert_true (g_file_set_contents (path, cases[i].text, -1, NULL));
      g_autoptr (GError) error = NULL;
      g_assert_null (ms_arch_lookup (path, &error));
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, cases[i].fragment));
      g_unlink (path);
    }
  g_rmdir (dir);
  g_autoptr (GError) error = NULL;
  g_assert_null (ms_arch_lookup ("nope", &error));
  g_assert_nonnull (strstr (error->message, "kepler64"));
}

/* Column read of a float tile with row pitch P floats: lane l reads byte
 * 4*(P*l + c).  Returns the wavefronts of one warp access. */
static guint
column_read (const MsArch *a, int pitch, int c)
{
  MsWarpAccess acc = { .space = MS_SPACE_SHARED, .op = MS_OP_LD, .width = 4, .mask = ~0u };
  for (int l = 0; l < 32; l++)
    acc.addr[l] = (guint64) 4 * (pitch * l + c);
  MsSharedCost cost;
  ms_banks_cost (a, &acc, &cost);
  return cost.wavefronts;
}

static void
test_kepler64_padding (void)
{
  g_autoptr (MsArch) k = preset ("kepler64");
  const MsArch *h = ms_arch_default ();
  /* 8-byte banks.  Pitch 34 (seed 000's +2): byte 136 l + 4c, 8-byte word
   * 17 l + c/2, bank (17 l + c/2) mod 32: 17 is odd, so the 32 lanes hit 32
   * different banks -> 1 wavefront for every c. */
  for (int c = 0; c < 32; c++)
    g_assert_cmpuint (column_read (k, 34, c), ==, 1);
  /* Pitch 33 (+1): byte 132 l + 4c.  Even lanes l = 2m: word 33m + floor(c/2),
   * odd lanes: 33m + 16 + floor((c+1)/2).  For even c both halves cover 32
   * distinct banks -> 1; for odd c even lane 0 and odd lane 31 share bank
   * (c-1)/2 with different words -> 2. */
  for (int c = 0; c < 32; c++)
    g_assert_cmpuint (column_read (k, 33, c), ==, c % 2 ? 2 : 1);
  /* Pitch 32: word 16 l + c/2 -> only banks {c/2, c/2 + 16}, 16 words each */
  g_assert_cmpuint (column_read (k, 32, 0), ==, 16);
  /* On 4-byte banks (H100): gcd(34, 32) = 2, gcd(33, 32) = 1, gcd(32,32) = 32. */
  g_assert_cmpuint (column_read (h, 34, 0), ==, 2);
  g_assert_cmpuint (column_read (h, 33, 0), ==, 1);
  g_assert_cmpuint (column_read (h, 32, 0), ==, 32);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/arch/builtin-and-presets", test_builtin_and_presets);
  g_test_add_func ("/arch/bad-files", test_bad_files);
  g_test_add_func ("/arch/h100-figures", test_h100_figures);
  g_test_add_func ("/arch/h200-figures", test_h200_figures);
  g_test_add_func ("/arch/nonsense-values", test_nonsense_values);
  g_test_add_func ("/arch/paired-load-phase-bytes", test_paired_load_phase_bytes);
  g_test_add_func ("/arch/kepler64-padding", test_kepler64_padding);
  return g_test_run ();
}
