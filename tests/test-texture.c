/* test-texture.c - textures and surfaces (sim/emulator/texture.h, sim/ptx/
 * ptx-texture.c, traces/user/cuda-arrays.c): the sampling rules on small
 * textures with values derived by hand from the CUDA Programming Guide's
 * "Texture Fetching" appendix (each test says how), and the PTX forms
 * memsim refuses, named.  A whole program with texture and surface
 * objects runs in tests/test-run.c (tests/data/programs/texture.cu). */
#include "config.h"

#include <string.h>

#include "ptx-translate.h"
#include "ptx.h"
#include "texture.h"

/* A texture over data (width x height x slices, packed) of texels of
 * `channels` channels of `bytes` bytes. */
static MsTexture
texture (void *data, guint w, guint h, guint s, unsigned dims, unsigned channels,
         unsigned bytes, unsigned kind)
{
  MsTexture t = { 0 };
  t.data = data;
  t.width = w;
  t.height = h;
  t.slices = s;
  t.pitch = (guint64) w * channels * bytes;
  t.slice_pitch = t.pitch * h;
  t.dims = dims;
  t.channels = channels;
  t.channel_bytes = bytes;
  t.kind = kind;
  return t;
}

static MsTexture
floats (float *data, guint w, guint h, guint s, unsigned dims)
{
  return texture (data, w, h, s, dims, 1, 4, MS_TEX_FLOAT);
}

static float
at1 (const MsTexture *t, float x)
{
  float c[3] = { x, 0, 0 }, out[4];
  ms_texture_sample (t, MS_TEX_1D, 0, c, out);
  return out[0];
}

/* Two texels {10, 20}, unnormalized, linear: x - 0.5 gives the lower texel
 * and the weight.  x = 0.75: 0.25 -> 12.5; 1.0: 0.5 -> 15; 0.5 and below:
 * 10 (clamp: texel -1 is texel 0); 1.5 and above: 20.  Border (colour 0):
 * x = 0.25 -> 0.75 x 10 + 0.25 x 0 = 7.5; x = 2.0 -> 1.5 -> 0.5 x 20 = 10. */
static void
test_linear_1d (void)
{
  float d[2] = { 10, 20 };
  MsTexture t = floats (d, 2, 1, 1, 1);
  t.linear_filter = 1;
  t.address[0] = MS_TEX_CLAMP;
  g_assert_cmpfloat (at1 (&t, 0.75f), ==, 12.5f);
  g_assert_cmpfloat (at1 (&t, 1.0f), ==, 15.0f);
  g_assert_cmpfloat (at1 (&t, 0.5f), ==, 10.0f);
  g_assert_cmpfloat (at1 (&t, 0.25f), ==, 10.0f);
  g_assert_cmpfloat (at1 (&t, 1.5f), ==, 20.0f);
  g_assert_cmpfloat (at1 (&t, 7.0f), ==, 20.0f);
  t.address[0] = MS_TEX_BORDER;
  g_assert_cmpfloat (at1 (&t, 0.25f), ==, 7.5f);
  g_assert_cmpfloat (at1 (&t, 2.0f), ==, 10.0f);
  /* normalized: x = 0.375 is texel-space 0.75 */
  t.normalized_coords = 1;
  t.address[0] = MS_TEX_CLAMP;
  g_assert_cmpfloat (at1 (&t, 0.375f), ==, 12.5f);
}

/* The weight in 1.8 fixed point: x - 0.5 = 0.3 -> 0.3 x 256 = 76.8 -> 77/256
 * -> 10 + 10 x 77/256 = 13.0078125; a weight under 1/512 is 0: x = 0.501
 * gives 10 exactly. */
static void
test_weight_9bit (void)
{
  float d[2] = { 10, 20 };
  MsTexture t = floats (d, 2, 1, 1, 1);
  t.linear_filter = 1;
  t.address[0] = MS_TEX_CLAMP;
  g_assert_cmpfloat (at1 (&t, 0.8f), ==, 13.0078125f);
  g_assert_cmpfloat (at1 (&t, 0.501f), ==, 10.0f);
}

/* Four texels {1, 2, 3, 4}, normalized, point sampling.  Wrap: frac(x)
 * x 4: 1.1 -> 0.4 -> 1; -0.1 -> 3.6 -> 4; -0.3 -> 2.8 -> 3.  Mirror (the
 * guide: 1 - frac(x) in odd periods): 1.1 -> 0.9 -> 3.6 -> 4; 1.3 -> 2.8
 * -> 3; -0.1 -> 0.1 -> 1.  Clamp: 1.1 -> 4, -2 -> 1.  Border (9): -0.1 and
 * 1.1 -> 9, 0.8 -> 3.2 -> 4.  Unnormalized, wrap and mirror are clamp:
 * 5.5 -> 4, -3 -> 1. */
static void
test_addressing (void)
{
  float d[4] = { 1, 2, 3, 4 };
  MsTexture t = floats (d, 4, 1, 1, 1);
  t.normalized_coords = 1;
  t.border[0] = 9;
  t.address[0] = MS_TEX_WRAP;
  g_assert_cmpfloat (at1 (&t, 1.1f), ==, 1);
  g_assert_cmpfloat (at1 (&t, -0.1f), ==, 4);
  g_assert_cmpfloat (at1 (&t, -0.3f), ==, 3);
  t.address[0] = MS_TEX_MIRROR;
  g_assert_cmpfloat (at1 (&t, 1.1f), ==, 4);
  g_assert_cmpfloat (at1 (&t, 1.3f), ==, 3);
  g_assert_cmpfloat (at1 (&t, -0.1f), ==, 1);
  t.address[0] = MS_TEX_CLAMP;
  g_assert_cmpfloat (at1 (&t, 1.1f), ==, 4);
  g_assert_cmpfloat (at1 (&t, -2.0f), ==, 1);
  t.address[0] = MS_TEX_BORDER;
  g_assert_cmpfloat (at1 (&t, -0.1f), ==, 9);
  g_assert_cmpfloat (at1 (&t, 1.1f), ==, 9);
  g_assert_cmpfloat (at1 (&t, 0.8f), ==, 4);
  t.normalized_coords = 0;
  t.address[0] = MS_TEX_WRAP;
  g_assert_cmpfloat (at1 (&t, 5.5f), ==, 4);
  t.address[0] = MS_TEX_MIRROR;
  g_assert_cmpfloat (at1 (&t, -3.0f), ==, 1);
}

/* 2 x 2 texels, rows {0, 10} and {20, 30}, linear: (1, 1) is the middle:
 * 15; (0.75, 1.25): weights 0.25 in x, 0.75 in y -> rows 2.5 and 22.5 ->
 * 0.25 x 2.5 + 0.75 x 22.5 = 17.5. */
static void
test_bilinear (void)
{
  float d[4] = { 0, 10, 20, 30 };
  MsTexture t = floats (d, 2, 2, 1, 2);
  t.linear_filter = 1;
  t.address[0] = t.address[1] = MS_TEX_CLAMP;
  float out[4];
  ms_texture_sample (&t, MS_TEX_2D, 0, (float[3]) { 1, 1, 0 }, out);
  g_assert_cmpfloat (out[0], ==, 15);
  ms_texture_sample (&t, MS_TEX_2D, 0, (float[3]) { 0.75f, 1.25f, 0 }, out);
  g_assert_cmpfloat (out[0], ==, 17.5f);
  /* a missing channel reads 0, the fourth 1 */
  g_assert_cmpfloat (out[1], ==, 0);
  g_assert_cmpfloat (out[3], ==, 1);
}

/* 2 x 2 x 2 texels, value 4z + 2y + x: the middle (1, 1, 1) averages them:
 * 3.5; (1.5, 0.5, 1.0): texel x 1, y 0, z half way -> (1 + 5) / 2 = 3. */
static void
test_trilinear (void)
{
  float d[8];
  for (int k = 0; k < 8; k++)
    d[k] = k;
  MsTexture t = floats (d, 2, 2, 2, 3);
  t.linear_filter = 1;
  t.address[0] = t.address[1] = t.address[2] = MS_TEX_CLAMP;
  float out[4];
  ms_texture_sample (&t, MS_TEX_3D, 0, (float[3]) { 1, 1, 1 }, out);
  g_assert_cmpfloat (out[0], ==, 3.5f);
  ms_texture_sample (&t, MS_TEX_3D, 0, (float[3]) { 1.5f, 0.5f, 1.0f }, out);
  g_assert_cmpfloat (out[0], ==, 3.0f);
}

/* Normalized reads: unsigned 8-bit v / 255 (255 -> 1, 51 -> 0.2); signed
 * 8-bit v / 127 clamped to -1 (-128 and -127 -> -1, 127 -> 1); unsigned
 * 16-bit v / 65535. */
static void
test_read_normalized (void)
{
  guint8 u[4] = { 255, 51, 0, 128 };
  MsTexture t = texture (u, 1, 1, 1, 2, 4, 1, MS_TEX_UNSIGNED);
  t.read_normalized = 1;
  float out[4];
  ms_texture_sample (&t, MS_TEX_2D, 0, (float[3]) { 0.5f, 0.5f, 0 }, out);
  g_assert_cmpfloat (out[0], ==, 1.0f);
  g_assert_cmpfloat (out[1], ==, 0.2f);
  g_assert_cmpfloat (out[2], ==, 0.0f);
  g_assert_cmpfloat (out[3], ==, 128 / 255.0f);
  gint8 s[4] = { -128, -127, 127, 0 };
  t.data = (guint8 *) s;
  t.kind = MS_TEX_SIGNED;
  ms_texture_sample (&t, MS_TEX_2D, 0, (float[3]) { 0.5f, 0.5f, 0 }, out);
  g_assert_cmpfloat (out[0], ==, -1.0f);
  g_assert_cmpfloat (out[1], ==, -1.0f);
  g_assert_cmpfloat (out[2], ==, 1.0f);
  guint16 w[1] = { 65535 };
  t = texture (w, 1, 1, 1, 2, 1, 2, MS_TEX_UNSIGNED);
  t.read_normalized = 1;
  ms_texture_sample (&t, MS_TEX_2D, 0, (float[3]) { 0.5f, 0.5f, 0 }, out);
  g_assert_cmpfloat (out[0], ==, 1.0f);
}

/* A cubemap of six 2 x 2 faces, texel value 10 face + 2 row + column.  The
 * guide's table: the largest magnitude picks the face (+x 0, -x 1, +y 2,
 * -y 3, +z 4, -z 5), (s, t) = ((sc / |m| + 1) / 2, (tc / |m| + 1) / 2) with
 * +x: sc -z, tc -y; +y: sc x, tc z; -z: sc -x, tc -y.
 *   (1, -0.5, -0.5): +x, sc 0.5, tc 0.5 -> (0.75, 0.75) -> texel (1, 1): 3
 *   (1, 0.5, 0.5): +x, (0.25, 0.25) -> (0, 0): 0
 *   (0.5, 1, -0.5): +y, sc 0.5, tc -0.5 -> (0.75, 0.25) -> (1, 0): 21
 *   (-0.5, 0.2, -1): -z, sc 0.5, tc -0.2 -> (0.75, 0.4) -> (1, 0): 51
 *   (-1, 0, 0.2), (0.1, -1, 0), (0, 0.1, 1): faces 1, 3, 4 */
static void
test_cubemap (void)
{
  float d[24];
  for (int f = 0; f < 6; f++)
    for (int k = 0; k < 4; k++)
      d[f * 4 + k] = 10 * f + 2 * (k / 2) + k % 2;
  MsTexture t = floats (d, 2, 2, 6, 2);
  t.cubemap = 1;
  struct { float c[3]; float want; } cases[] = {
    { { 1, -0.5f, -0.5f }, 3 }, { { 1, 0.5f, 0.5f }, 0 }, { { 0.5f, 1, -0.5f }, 21 },
    { { -0.5f, 0.2f, -1 }, 51 },
  };
  float out[4];
  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      ms_texture_sample (&t, MS_TEX_CUBE, 0, cases[k].c, out);
      g_assert_cmpfloat (out[0], ==, cases[k].want);
    }
  ms_texture_sample (&t, MS_TEX_CUBE, 0, (float[3]) { -1, 0, 0.2f }, out);
  g_assert_cmpint ((int) out[0] / 10, ==, 1);
  ms_texture_sample (&t, MS_TEX_CUBE, 0, (float[3]) { 0.1f, -1, 0 }, out);
  g_assert_cmpint ((int) out[0] / 10, ==, 3);
  ms_texture_sample (&t, MS_TEX_CUBE, 0, (float[3]) { 0, 0.1f, 1 }, out);
  g_assert_cmpint ((int) out[0] / 10, ==, 4);
}

/* Layers: 3 layers of one texel {5, 6, 7}; layer 1 -> 6; layer 9 is
 * clamped to the last: 7. */
static void
test_layers (void)
{
  float d[3] = { 5, 6, 7 };
  MsTexture t = floats (d, 1, 1, 3, 2);
  t.layered = 1;
  float out[4];
  ms_texture_sample (&t, MS_TEX_A2D, 1, (float[3]) { 0.5f, 0.5f, 0 }, out);
  g_assert_cmpfloat (out[0], ==, 6);
  ms_texture_sample (&t, MS_TEX_A2D, 9, (float[3]) { 0.5f, 0.5f, 0 }, out);
  g_assert_cmpfloat (out[0], ==, 7);
}

/* The device entry points through the table: integer texels as they are
 * (signed 16-bit -2 sign-extended), s32 coordinates as texel indices;
 * surfaces with x in bytes, .clamp and .zero out of range. */
static void
test_table (void)
{
  gint16 s[4] = { -2, 3, 4, 5 };
  MsTexture t = texture (s, 4, 1, 1, 1, 1, 2, MS_TEX_SIGNED);
  uint64_t h = ms_texture_add (&t);
  g_assert_cmpuint (h, !=, 0);
  g_assert_true (ms_texture_get (h) != NULL);
  uint32_t c[4] = { 0, 0, 0, 0 }, out[4];
  ms_tex_fetch (h, MS_TEX_1D | MS_TEX_INT_COORDS | MS_TEX_INT_RESULT, c, out);
  g_assert_cmpint ((int32_t) out[0], ==, -2);
  c[0] = 2;
  ms_tex_fetch (h, MS_TEX_1D | MS_TEX_INT_COORDS | MS_TEX_INT_RESULT, c, out);
  g_assert_cmpint ((int32_t) out[0], ==, 4);
  /* surface: element 1 is bytes 2..3 */
  int32_t sc[4] = { 2, 0, 0, 0 };
  gint16 v = 77, r = 0;
  ms_surf_store (h, MS_TEX_1D, sc, &v, 2);
  g_assert_cmpint (s[1], ==, 77);
  sc[0] = 100;   /* past the 8-byte row: clamped to the last element */
  ms_surf_load (h, MS_TEX_1D | MS_SURF_CLAMP, sc, &r, 2);
  g_assert_cmpint (r, ==, 5);
  r = 1;
  ms_surf_load (h, MS_TEX_1D | MS_SURF_ZERO, sc, &r, 2);
  g_assert_cmpint (r, ==, 0);
  ms_surf_store (h, MS_TEX_1D | MS_SURF_ZERO, sc, &v, 2);   /* dropped */
  g_assert_cmpint (s[3], ==, 5);
  g_assert_true (ms_texture_remove (h, 1));
  g_assert_false (ms_texture_remove (h, 1));
  g_assert_null (ms_texture_get (h));
  ms_texture_clear ();
}

/* Handles: a destroyed object's handle comes back for a new object of the
 * very same descriptor (so a program that makes the same texture around
 * each launch launches with the same parameters), never for another one,
 * nor for one whose handle died with its CUDA array (not reusable). */
static void
test_handle_reuse (void)
{
  float d[4] = { 1, 2, 3, 4 };
  MsTexture t = floats (d, 4, 1, 1, 1), other = t;
  other.normalized_coords = 1;
  uint64_t h = ms_texture_add (&t);
  uint64_t same_live = ms_texture_add (&t);
  g_assert_cmpuint (same_live, !=, h);   /* h is live: a handle of its own */
  g_assert_true (ms_texture_remove (h, 1));
  uint64_t o = ms_texture_add (&other);
  g_assert_cmpuint (o, !=, h);
  g_assert_null (ms_texture_get (h));
  uint64_t again = ms_texture_add (&t);
  g_assert_cmpuint (again, ==, h);
  g_assert_nonnull (ms_texture_get (h));
  g_assert_cmpint (ms_texture_get (h)->normalized_coords, ==, 0);
  /* taken back once: the next identical object gets a new handle */
  g_assert_cmpuint (ms_texture_add (&t), !=, h);
  /* dead with its array: never back */
  g_assert_true (ms_texture_remove (o, 0));
  g_assert_cmpuint (ms_texture_add (&other), !=, o);
  ms_texture_clear ();
}

/* PTX forms memsim does not run become a failure naming the instruction
 * and why; the ones it runs become a fetch. */
static void
test_refused_forms (void)
{
  static const char *const forms[][2] = {
    { "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];", "texture gather" },
    { "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;", "mipmap level" },
    { "txq.width.b32 %r1, [%rd1];", "texture query" },
    { "sust.p.2d.v4.b32.trap [%rd1, {%r1, %r2}], {%r1, %r2, %r1, %r2};", "formatted surface store" },
    { "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];", NULL },
    { "suld.b.2d.v2.b32.clamp {%r1, %r2}, [%rd1, {%r1, %r2}];", NULL },
  };
  for (guint k = 0; k < G_N_ELEMENTS (forms); k++)
    {
      g_autofree char *text = g_strdup_printf (
        ".version 8.0\n.target sm_90\n.address_size 64\n"
        ".visible .entry k(.param .u64 k_param_0)\n{\n"
        ".reg .f32 %%f<8>;\n.reg .b32 %%r<4>;\n.reg .b64 %%rd<2>;\n"
        "ld.param.u64 %%rd1, [k_param_0];\n%s\nret;\n}\n", forms[k][0]);
      g_autoptr (GError) error = NULL;
      g_autoptr (MsPtxModule) m = ms_ptx_read ("t.ptx", text, strlen (text), &error);
      g_assert_no_error (error);
      g_autoptr (GString) c = g_string_new (NULL);
      g_assert_true (ms_ptx_translate (m, 0, c, &error));
      g_assert_no_error (error);
      if (forms[k][1] != NULL)
        {
          g_assert_nonnull (strstr (c->str, "memsim cannot run the PTX instruction"));
          g_assert_nonnull (strstr (c->str, forms[k][1]));
        }
      else
        {
          g_assert_null (strstr (c->str, "memsim cannot run"));
          g_assert_nonnull (strstr (c->str, k == 4 ? "ms_tex_fetch" : "ms_surf_load"));
        }
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/texture/linear-1d", test_linear_1d);
  g_test_add_func ("/texture/weight-9bit", test_weight_9bit);
  g_test_add_func ("/texture/addressing", test_addressing);
  g_test_add_func ("/texture/bilinear", test_bilinear);
  g_test_add_func ("/texture/trilinear", test_trilinear);
  g_test_add_func ("/texture/read-normalized", test_read_normalized);
  g_test_add_func ("/texture/cubemap", test_cubemap);
  g_test_add_func ("/texture/layers", test_layers);
  g_test_add_func ("/texture/table", test_table);
  g_test_add_func ("/texture/handle-reuse", test_handle_reuse);
  g_test_add_func ("/texture/refused-forms", test_refused_forms);
  return g_test_run ();
}
