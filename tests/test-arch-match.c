/* test-arch-match.c - the preset `--gpu` picks for the device it measures,
 * and the warning for a preset that disagrees (sim/arch/arch-match.c), on a
 * table of device properties: the devices' names and cudaDeviceProp
 * figures as CUDA reports them (the H200's measured, gpu/measurements/
 * h200-2026-11-29-preset/props.txt; the others from NVIDIA's datasheets:
 * H100 SXM5 132 SMs, H100 PCIe 114, A100 108, V100 80, GTX 480 15). */
#include "config.h"

#include <string.h>

#include "arch-match.h"
#include "report.h"

#define GIB (1ull << 30)

static GPtrArray *
shipped_presets (void)
{
  GPtrArray *a = g_ptr_array_new_with_free_func ((GDestroyNotify) ms_arch_free);
  const char *names[] = { "a100", "cc13", "fermi", "h100", "h200", "kepler32", "kepler64",
                          "v100" };
  for (gsize i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GError) error = NULL;
      MsArch *p = ms_arch_lookup (names[i], &error);
      g_assert_no_error (error);
      g_ptr_array_add (a, p);
    }
  return a;
}

static void
test_table (void)
{
  g_autoptr (GPtrArray) presets = shipped_presets ();
  struct {
    MsDeviceProps d;
    const char *want;      /* NULL: no preset */
    const char *rule;      /* a word of the reason */
  } cases[] = {
    /* by name */
    { { "NVIDIA H200", 90, 132, 150109880320ull }, "h200", "name" },
    { { "NVIDIA H100 80GB HBM3", 90, 132, 85028372480ull }, "h100", "name" },
    { { "NVIDIA A100-SXM4-80GB", 80, 108, 85094891520ull }, "a100", "name" },
    { { "Tesla V100-SXM2-16GB", 70, 80, 16945512448ull }, "v100", "name" },
    /* the name wins over the figures (an H100 PCIe: 114 SMs) */
    { { "NVIDIA H100 PCIe", 90, 114, 85028372480ull }, "h100", "name" },
    /* a whole word, not a part of one: "H2000" is no H200 */
    { { "NVIDIA H2000", 90, 132, 150109880320ull }, "h200", "compute capability" },
    /* by properties: sm_90, 132 SMs and the memory class tell h100 from h200 */
    { { "GH100 sample", 90, 132, 150109880320ull }, "h200", "compute capability" },
    { { "GH100 sample", 90, 132, 85028372480ull }, "h100", "compute capability" },
    /* a preset without memory_gb matches any memory (fermi: cc 2.0, 15 SMs) */
    { { "NVIDIA GeForce GTX 480", 20, 15, 1610612736ull }, "fermi", "compute capability" },
    /* none: sm_90 with 114 SMs and no name; an Ada GPU; sm_90, 132 SMs, 94 GiB */
    { { "GH100 sample", 90, 114, 85028372480ull }, NULL, "no preset" },
    { { "NVIDIA GeForce RTX 4090", 89, 128, 25393692672ull }, NULL, "no preset" },
    { { "GH100 sample", 90, 132, 94 * GIB }, NULL, "no preset" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *reason = NULL;
      const MsArch *m = ms_arch_match_device (&cases[i].d, (const MsArch *const *) presets->pdata,
                                              presets->len, &reason);
      g_test_message ("%s: %s (%s)", cases[i].d.name, m ? m->name : "none", reason);
      g_assert_cmpstr (m ? m->name : NULL, ==, cases[i].want);
      g_assert_nonnull (strstr (reason, cases[i].rule));
      g_assert_null (strchr (reason, '\n'));
    }
}

/* The memory class: within 10% of memory_gb GiB. */
static void
test_memory_class (void)
{
  g_autoptr (MsArch) h200 = ms_arch_lookup ("h200", NULL);
  const MsArch *h100 = ms_arch_default ();
  g_assert_true (ms_arch_memory_matches (h200, 150109880320ull));   /* 139.8 GiB */
  g_assert_false (ms_arch_memory_matches (h100, 150109880320ull));
  g_assert_true (ms_arch_memory_matches (h100, 85028372480ull));    /* 79.2 GiB */
  g_assert_true (ms_arch_memory_matches (h100, 88 * GIB));
  g_assert_false (ms_arch_memory_matches (h100, 89 * GIB));
  g_assert_false (ms_arch_memory_matches (h100, 71 * GIB));
  MsArch none = *h100;
  none.memory_gb = 0;
  g_assert_true (ms_arch_memory_matches (&none, 1));
}

/* --arch that disagrees with the device: one line naming what differs. */
static void
test_mismatch (void)
{
  MsDeviceProps h200dev = { "NVIDIA H200", 90, 132, 150109880320ull };
  g_autoptr (MsArch) h200 = ms_arch_lookup ("h200", NULL);
  g_autoptr (MsArch) a100 = ms_arch_lookup ("a100", NULL);
  g_assert_null (ms_arch_device_mismatch (h200, &h200dev));
  /* the H100 preset on the H200: the same SM, not the same memory */
  g_autofree char *w = ms_arch_device_mismatch (ms_arch_default (), &h200dev);
  g_assert_nonnull (w);
  g_test_message ("%s", w);
  g_assert_true (g_str_has_prefix (w, "warning: preset h100 "));
  g_assert_nonnull (strstr (w, "80 GB of memory (the device: 140 GiB)"));
  g_assert_null (strstr (w, "SMs"));
  g_assert_null (strstr (w, "compute capability"));
  g_assert_null (strchr (w, '\n'));
  g_autofree char *w2 = ms_arch_device_mismatch (a100, &h200dev);
  g_test_message ("%s", w2);
  g_assert_nonnull (strstr (w2, "compute capability 8.0 (the device: 9.0)"));
  g_assert_nonnull (strstr (w2, "108 SMs (the device: 132)"));
}

/* The whole choice: the note names the preset and the rule, and an
 * unknown device gets the default, saying so. */
static void
test_for_device (void)
{
  MsDeviceProps h200dev = { "NVIDIA H200", 90, 132, 150109880320ull };
  g_autofree char *note = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (MsArch) a = ms_arch_for_device (&h200dev, &note, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (a->name, ==, "h200");
  g_assert_true (g_str_has_prefix (note, "preset h200 (the measured device's): "));
  MsDeviceProps pcie = { "NVIDIA H100 PCIe", 90, 114, 85028372480ull };
  g_autofree char *note2 = NULL;
  g_autoptr (MsArch) b = ms_arch_for_device (&pcie, &note2, &error);
  g_assert_cmpstr (b->name, ==, "h100");
  g_test_message ("%s", note2);
  g_assert_nonnull (strstr (note2, "132 SMs (the device: 114)"));
  MsDeviceProps ada = { "NVIDIA GeForce RTX 4090", 89, 128, 25393692672ull };
  g_autofree char *note3 = NULL;
  g_autoptr (MsArch) c = ms_arch_for_device (&ada, &note3, &error);
  g_assert_cmpstr (c->name, ==, "h100");
  g_assert_true (g_str_has_prefix (note3, "preset h100 (the default): no preset"));
}

/* compare --gpu carries the line: under the title (text), "arch_note"
 * (JSON); without it, neither. */
static void
test_compare_report_note (void)
{
  MsCompareRow row = { .kernel = "reduce_multiple", .size = (char *) "1024",
                       .block = { 256, 1, 1 }, .check = (char *) "passed", .passed = TRUE,
                       .blocks = 1, .blocks_run = 1 };
  const char *note = "preset h200 (the measured device's): the device's name, NVIDIA H200, "
                     "names it";
  g_autoptr (GString) text = g_string_new (NULL);
  ms_compare_report_write ("reduce", ms_arch_default (), note, &row, 1, MS_FORMAT_TEXT, text);
  g_autofree char *line = g_strdup_printf ("), simulated\n%s\n\n", note);
  g_assert_nonnull (strstr (text->str, line));
  g_autoptr (GString) json = g_string_new (NULL);
  ms_compare_report_write ("reduce", ms_arch_default (), note, &row, 1, MS_FORMAT_JSON, json);
  g_assert_nonnull (strstr (json->str, "\"arch_note\" : \"preset h200 (the measured"));
  g_autoptr (GString) plain = g_string_new (NULL);
  ms_compare_report_write ("reduce", ms_arch_default (), NULL, &row, 1, MS_FORMAT_JSON, plain);
  g_assert_null (strstr (plain->str, "arch_note"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/arch-match/table", test_table);
  g_test_add_func ("/arch-match/memory-class", test_memory_class);
  g_test_add_func ("/arch-match/mismatch", test_mismatch);
  g_test_add_func ("/arch-match/for-device", test_for_device);
  g_test_add_func ("/arch-match/compare-report-note", test_compare_report_note);
  return g_test_run ();
}
