/* texture.c - texture fetches and surface loads and stores (see texture.h),
 * as the CUDA C++ Programming Guide's "Texture Fetching" appendix has them:
 *
 *   - coordinates: normalized ones are scaled by the size first; a cubemap
 *     direction picks a face and (s, t) on it by the appendix's table;
 *   - point sampling reads texel floor(x); linear filtering reads texels
 *     floor(x - 0.5) and the next, weighted by the fraction of x - 0.5 in
 *     9-bit fixed point with 8 fractional bits (as the hardware does),
 *     bilinearly in 2D and trilinearly in 3D;
 *   - addressing is applied to each texel index read: wrap (index mod n),
 *     mirror (period 2n, the edge texel repeated), clamp, border (the
 *     border colour); wrap and mirror need normalized coordinates and are
 *     clamp without them, as CUDA documents;
 *   - 8- and 16-bit integer channels read as normalized floats map to
 *     [0, 1] (unsigned) or [-1, 1] (signed); missing channels read 0, the
 *     fourth 1;
 *   - a layer index is clamped to the layers there are.
 *
 * Texture and surface memory is read and written directly: it is no
 * global memory access (the GPU's texture pipe serves it), so it makes no
 * warp record and no global counter counts it.  The table is changed only
 * by host code, between launches; fetches during a launch only read it.
 */
#include "config.h"

#include <string.h>
#include <glib.h>

#include "texture.h"
#include "warp.h"

/* ------------------------------------------------------------ the table */

/* A handle is an index into the table, plus 1.  A removed handle stays
 * dead until a texture or surface of the very same descriptor is made
 * again, which gets it back (as CUDA reuses handles): a program that makes
 * and destroys the same object around each launch then launches with the
 * same parameters each time, so the launch memo (traces/user/launch-memo.h)
 * can find its repeats.  A stale handle is then never another object, only
 * the same one again. */
typedef struct {
  MsTexture *t;
  int live;
} Entry;

static Entry *table;
static guint n_table, cap_table;
static GHashTable *dead;   /* a removed descriptor's bytes (GBytes) -> its handle */

static GBytes *
descriptor_key (const MsTexture *t)
{
  return g_bytes_new (t, sizeof *t);
}

uint64_t
ms_texture_add (const MsTexture *t)
{
  if (dead != NULL)
    {
      g_autoptr (GBytes) key = descriptor_key (t);
      gpointer stolen, handle;
      if (g_hash_table_steal_extended (dead, key, &stolen, &handle))
        {
          g_bytes_unref (stolen);
          table[GPOINTER_TO_SIZE (handle) - 1].live = 1;
          return GPOINTER_TO_SIZE (handle);
        }
    }
  if (n_table == G_MAXUINT32 - 1)
    return 0;
  if (n_table == cap_table)
    {
      cap_table = MAX (16, cap_table * 2);
      table = g_renew (Entry, table, cap_table);
    }
  table[n_table++] = (Entry) { g_memdup2 (t, sizeof *t), 1 };
  /* never 0 */
  return n_table;
}

int
ms_texture_remove (uint64_t handle, int reusable)
{
  if (handle == 0 || handle > n_table || !table[handle - 1].live)
    return 0;
  table[handle - 1].live = 0;
  if (!reusable)
    return 1;
  if (dead == NULL)
    dead = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                  (GDestroyNotify) g_bytes_unref, NULL);
  g_hash_table_replace (dead, descriptor_key (table[handle - 1].t), GSIZE_TO_POINTER (handle));
  return 1;
}

const MsTexture *
ms_texture_get (uint64_t handle)
{
  return handle == 0 || handle > n_table || !table[handle - 1].live ? NULL : table[handle - 1].t;
}

void
ms_texture_clear (void)
{
  for (guint i = 0; i < n_table; i++)
    g_free (table[i].t);
  g_clear_pointer (&table, g_free);
  g_clear_pointer (&dead, g_hash_table_unref);
  n_table = cap_table = 0;
}

/* ------------------------------------------------------------ arithmetic */

/* floor, without libm (the memsim program does not link it) */
static float
floor_f (float x)
{
  if (!(x > -8388608.0f && x < 8388608.0f))
    return x;   /* already an integer (or NaN) */
  float t = (float) (int32_t) x;
  return t > x ? t - 1.0f : t;
}

static float
abs_f (float x)
{
  return x < 0 ? -x : x;
}

static float
max_f (float a, float b)
{
  return a > b ? a : b;
}

/* ------------------------------------------------------------ texels */

static int
is_array_form (unsigned g)
{
  return g == MS_TEX_A1D || g == MS_TEX_A2D || g == MS_TEX_ACUBE;
}

static const uint8_t *
texel_at (const MsTexture *t, uint64_t x, uint64_t y, uint64_t s)
{
  return t->data + s * t->slice_pitch + y * t->pitch + x * t->channels * t->channel_bytes;
}

static float
channel_float (const MsTexture *t, const uint8_t *p)
{
  int norm = t->read_normalized;
  if (t->kind == MS_TEX_FLOAT)
    {
      if (t->channel_bytes == 2)
        {
          _Float16 h;
          memcpy (&h, p, 2);
          return (float) h;
        }
      float f;
      memcpy (&f, p, 4);
      return f;
    }
  if (t->kind == MS_TEX_UNSIGNED)
    switch (t->channel_bytes)
      {
      case 1: return norm ? p[0] / 255.0f : p[0];
      case 2: { uint16_t v; memcpy (&v, p, 2); return norm ? v / 65535.0f : v; }
      default: { uint32_t v; memcpy (&v, p, 4); return (float) v; }
      }
  switch (t->channel_bytes)
    {
    case 1: { int8_t v = (int8_t) p[0]; return norm ? max_f (v / 127.0f, -1.0f) : v; }
    case 2: { int16_t v; memcpy (&v, p, 2); return norm ? max_f (v / 32767.0f, -1.0f) : v; }
    default: { int32_t v; memcpy (&v, p, 4); return (float) v; }
    }
}

static uint32_t
channel_raw (const MsTexture *t, const uint8_t *p)
{
  switch (t->channel_bytes)
    {
    case 1: return t->kind == MS_TEX_SIGNED ? (uint32_t) (int32_t) (int8_t) p[0] : p[0];
    case 2:
      {
        uint16_t v;
        memcpy (&v, p, 2);
        return t->kind == MS_TEX_SIGNED ? (uint32_t) (int32_t) (int16_t) v : v;
      }
    default:
      {
        uint32_t v;
        memcpy (&v, p, 4);
        return v;
      }
    }
}

/* the commonest texture: one float channel */
static inline int
one_float (const MsTexture *t)
{
  return t->channels == 1 && t->kind == MS_TEX_FLOAT && t->channel_bytes == 4;
}

static inline void
texel_float (const MsTexture *t, const uint8_t *p, float v[4])
{
  v[0] = v[1] = v[2] = 0.0f;
  v[3] = 1.0f;
  if (one_float (t))
    {
      memcpy (&v[0], p, 4);
      return;
    }
  for (unsigned c = 0; c < t->channels && c < 4; c++)
    v[c] = channel_float (t, p + c * t->channel_bytes);
}

/* ------------------------------------------------------------ addressing */

/* floor(x) as an index, far outside any texture for huge x or NaN (-1) */
static int64_t
index_of (float x)
{
  if (!(x >= -1e15f))
    return x > 0 ? (int64_t) 1e15 : -1;
  if (x > 1e15f)
    return (int64_t) 1e15;
  return (int64_t) floor_f (x);
}

/* Index i of a dimension of n texels, as the mode says; -1: the border. */
static int64_t
address (int64_t i, uint64_t n, unsigned mode, unsigned normalized)
{
  int64_t N = (int64_t) n;
  if (!normalized && (mode == MS_TEX_WRAP || mode == MS_TEX_MIRROR))
    mode = MS_TEX_CLAMP;
  switch (mode)
    {
    case MS_TEX_WRAP:
      {
        int64_t r = i % N;
        return r < 0 ? r + N : r;
      }
    case MS_TEX_MIRROR:
      {
        int64_t p = i % (2 * N);
        if (p < 0)
          p += 2 * N;
        return p >= N ? 2 * N - 1 - p : p;
      }
    case MS_TEX_BORDER:
      return i < 0 || i >= N ? -1 : i;
    default:
      return i < 0 ? 0 : i >= N ? N - 1 : i;
    }
}

/* The texel at indices i (dims of them) of slice s after addressing, or
 * NULL for the border. */
static const uint8_t *
texel_addressed (const MsTexture *t, unsigned dims, uint64_t slice, const int64_t i[3],
                 unsigned normalized)
{
  uint64_t n[3] = { t->width, t->height, t->slices };
  int64_t a[3] = { 0, 0, 0 };
  for (unsigned d = 0; d < dims; d++)
    if ((a[d] = address (i[d], n[d], t->address[d], normalized)) < 0)
      return NULL;
  return texel_at (t, (uint64_t) a[0], (uint64_t) a[1], dims == 3 ? (uint64_t) a[2] : slice);
}

/* The weight of linear filtering: the fraction in 1.8 fixed point. */
static float
weight_9bit (float frac)
{
  return (float) (int32_t) (frac * 256.0f + 0.5f) / 256.0f;
}

/* Sampling at texel-space coordinates x (dims of them) of slice s. */
static void
sample_scaled (const MsTexture *t, unsigned dims, uint64_t slice, const float x[3], int point,
               unsigned normalized, float out[4])
{
  if (point || !t->linear_filter)
    {
      int64_t i[3] = { 0, 0, 0 };
      for (unsigned d = 0; d < dims; d++)
        i[d] = index_of (x[d]);
      const uint8_t *p = texel_addressed (t, dims, slice, i, normalized);
      if (p == NULL)
        memcpy (out, t->border, 4 * sizeof (float));
      else
        texel_float (t, p, out);
      return;
    }
  /* per dimension, its two texels' indices after addressing (-1: the
   * border) and their weights, worked out once for the 2^dims corners */
  const uint64_t n[3] = { t->width, t->height, t->slices };
  int64_t at[3][2] = { { 0, 0 }, { 0, 0 }, { 0, 0 } };
  float wt[3][2] = { { 1, 1 }, { 1, 1 }, { 1, 1 } };
  for (unsigned d = 0; d < dims; d++)
    {
      float xb = x[d] - 0.5f;
      int64_t i0 = index_of (xb);
      float a = weight_9bit (xb - floor_f (xb));
      wt[d][0] = 1.0f - a;
      wt[d][1] = a;
      at[d][0] = address (i0, n[d], t->address[d], normalized);
      at[d][1] = address (i0 + 1, n[d], t->address[d], normalized);
    }
  /* summed exactly (each product of a float and a 1.8 weight product fits
   * a double), rounded once: simpleTexture's image then differs from the
   * GPU's reference in half as many pixels as with float sums */
  double acc[4] = { 0, 0, 0, 0 };
  int floats = one_float (t);
  for (unsigned corner = 0; corner < (1u << dims); corner++)
    {
      float w = 1.0f;
      int64_t i[3] = { 0, 0, 0 };
      int border = 0;
      for (unsigned d = 0; d < dims; d++)
        {
          unsigned hi = corner >> d & 1;
          w *= wt[d][hi];
          i[d] = at[d][hi];
          border |= i[d] < 0;
        }
      float v[4];
      const uint8_t *p = border ? NULL
                         : texel_at (t, (uint64_t) i[0], (uint64_t) i[1],
                                     dims == 3 ? (uint64_t) i[2] : slice);
      if (p != NULL && floats)
        {
          /* the same sums, the texel kept out of memory (perf: storing it
           * in v and loading it back as a pair stalled the loop) */
          float f;
          memcpy (&f, p, 4);
          acc[0] += (double) w * f;
          acc[3] += (double) w;   /* the fourth channel reads 1; the others 0 add +0 */
          continue;
        }
      if (p == NULL)
        memcpy (v, t->border, sizeof v);
      else
        texel_float (t, p, v);
      for (int c = 0; c < 4; c++)
        acc[c] += (double) w * v[c];
    }
  for (int c = 0; c < 4; c++)
    out[c] = (float) acc[c];
}

/* A cubemap direction's face and its (s, t) in [0, 1] (the appendix's
 * table; the largest magnitude picks, x before y before z on a tie). */
static unsigned
cube_face (const float c[3], float *s, float *t)
{
  float ax = abs_f (c[0]), ay = abs_f (c[1]), az = abs_f (c[2]), m, sc, tc;
  unsigned face;
  if (ax >= ay && ax >= az)
    {
      face = c[0] >= 0 ? 0 : 1;
      m = ax;
      sc = c[0] >= 0 ? -c[2] : c[2];
      tc = -c[1];
    }
  else if (ay >= az)
    {
      face = c[1] >= 0 ? 2 : 3;
      m = ay;
      sc = c[0];
      tc = c[1] >= 0 ? c[2] : -c[2];
    }
  else
    {
      face = c[2] >= 0 ? 4 : 5;
      m = az;
      sc = c[2] >= 0 ? c[0] : -c[0];
      tc = -c[1];
    }
  if (m == 0)
    m = 1;
  *s = (sc / m + 1) * 0.5f;
  *t = (tc / m + 1) * 0.5f;
  return face;
}

/* Geometry g's coordinates c (float) to texel space x, dims and slice. */
static unsigned
place (const MsTexture *t, unsigned g, uint64_t layer, const float c[3], int int_coords,
       float x[3], uint64_t *slice, unsigned *normalized)
{
  uint64_t layers = t->cubemap ? MAX (t->slices / 6, 1) : MAX (t->slices, 1);
  if (layer >= layers)
    layer = layers - 1;
  *normalized = t->normalized_coords && !int_coords;
  if (g == MS_TEX_CUBE || g == MS_TEX_ACUBE)
    {
      float s, tt;
      unsigned face = cube_face (c, &s, &tt);
      x[0] = s * (float) t->width;
      x[1] = tt * (float) t->height;
      x[2] = 0;
      *slice = MIN (layer * 6 + face, t->slices - 1);
      *normalized = 1;
      return 2;
    }
  unsigned dims = g == MS_TEX_1D || g == MS_TEX_A1D ? 1 : g == MS_TEX_3D ? 3 : 2;
  uint64_t n[3] = { t->width, t->height, t->slices };
  for (unsigned d = 0; d < 3; d++)
    x[d] = d < dims && *normalized ? c[d] * (float) n[d] : d < dims ? c[d] : 0;
  *slice = is_array_form (g) ? layer : 0;
  return dims;
}

void
ms_texture_sample (const MsTexture *t, unsigned geometry, unsigned layer, const float c[3],
                   float out[4])
{
  float x[3];
  uint64_t slice;
  unsigned normalized;
  unsigned dims = place (t, geometry, layer, c, 0, x, &slice, &normalized);
  sample_scaled (t, dims, slice, x, 0, normalized, out);
}

/* ------------------------------------------------------------ device code */

/* The kernel's failure, called through a pointer: a direct call of the
 * noreturn ms_ptx_fail from this (instrumented) file would have
 * AddressSanitizer handle a no-return on the warp's fiber stack, which it
 * does not know, and warn on stderr. */
static void (*volatile fail_launch) (const char *message) = ms_ptx_fail;

static const MsTexture *
lookup (uint64_t handle, const char *what)
{
  const MsTexture *t = ms_texture_get (handle);
  if (t == NULL)
    {
      char m[160];
      g_snprintf (m, sizeof m, "%s of handle %#" G_GINT64_MODIFIER "x, which is no live %s "
                  "object of the program", what, (guint64) handle,
                  strcmp (what, "tex") == 0 ? "texture" : "surface");
      fail_launch (m);
    }
  return t;
}

void
ms_tex_fetch (uint64_t handle, unsigned form, const uint32_t coord[4], uint32_t out[4])
{
  const MsTexture *t = lookup (handle, "tex");
  unsigned g = form & MS_TEX_GEOMETRY;
  int int_coords = (form & MS_TEX_INT_COORDS) != 0;
  unsigned first = is_array_form (g) ? 1 : 0;
  int32_t layer = first ? (int32_t) coord[0] : 0;
  float c[3];
  for (unsigned k = 0; k < 3; k++)
    {
      uint32_t b = first + k < 4 ? coord[first + k] : 0;
      if (int_coords)
        c[k] = (float) (int32_t) b;
      else
        memcpy (&c[k], &b, 4);
    }
  float x[3];
  uint64_t slice;
  unsigned normalized;
  unsigned dims = place (t, g, layer < 0 ? 0 : (uint64_t) layer, c, int_coords, x, &slice,
                         &normalized);
  if ((form & MS_TEX_INT_RESULT) && t->kind != MS_TEX_FLOAT && !t->read_normalized)
    {
      /* integer texels as they are: point sampled */
      int64_t i[3] = { 0, 0, 0 };
      for (unsigned d = 0; d < dims; d++)
        i[d] = index_of (x[d]);
      const uint8_t *p = texel_addressed (t, dims, slice, i, normalized);
      out[0] = out[1] = out[2] = 0;
      out[3] = 1;
      for (unsigned ch = 0; ch < 4; ch++)
        if (p == NULL)
          out[ch] = (uint32_t) (int32_t) t->border[ch];
        else if (ch < t->channels)
          out[ch] = channel_raw (t, p + ch * t->channel_bytes);
      return;
    }
  float v[4];
  sample_scaled (t, dims, slice, x, int_coords, normalized, v);
  for (unsigned ch = 0; ch < 4; ch++)
    {
      if (form & MS_TEX_INT_RESULT)
        out[ch] = (uint32_t) (int32_t) v[ch];
      else
        memcpy (&out[ch], &v[ch], 4);
    }
}

/* The bytes a surface access reaches, or NULL (.zero out of range). */
static uint8_t *
surface_bytes (uint64_t handle, unsigned form, const int32_t c[4], unsigned bytes,
               const char *what)
{
  const MsTexture *t = lookup (handle, what);
  unsigned g = form & MS_TEX_GEOMETRY, first = is_array_form (g) ? 1 : 0;
  int64_t x = c[first];
  int64_t y = g == MS_TEX_1D || g == MS_TEX_A1D ? 0 : c[first + 1];
  int64_t z = g == MS_TEX_3D ? c[2] : first ? c[0] : 0;
  int64_t row = (int64_t) (t->width * t->channels * t->channel_bytes);
  int64_t h = (int64_t) t->height, s = (int64_t) t->slices;
  if (x < 0 || x + bytes > row || y < 0 || y >= h || z < 0 || z >= s)
    {
      if (form & MS_SURF_ZERO)
        return NULL;
      if (!(form & MS_SURF_CLAMP))
        {
          char m[200];
          g_snprintf (m, sizeof m, "%s out of its surface's bounds (byte %" G_GINT64_FORMAT
                      " of a %" G_GINT64_FORMAT "-byte row, row %" G_GINT64_FORMAT " of %"
                      G_GINT64_FORMAT ", slice %" G_GINT64_FORMAT " of %" G_GINT64_FORMAT
                      "; cudaBoundaryModeTrap)", what, x, row, y, h, z, s);
          fail_launch (m);
        }
      if (row < (int64_t) bytes)
        return NULL;
      x = CLAMP (x, 0, row - (int64_t) bytes);
      y = CLAMP (y, 0, h - 1);
      z = CLAMP (z, 0, s - 1);
    }
  return t->data + (uint64_t) z * t->slice_pitch + (uint64_t) y * t->pitch + (uint64_t) x;
}

void
ms_surf_load (uint64_t handle, unsigned form, const int32_t coord[4], void *value, unsigned bytes)
{
  const uint8_t *p = surface_bytes (handle, form, coord, bytes, "suld");
  if (p == NULL)
    memset (value, 0, bytes);
  else
    memcpy (value, p, bytes);
}

void
ms_surf_store (uint64_t handle, unsigned form, const int32_t coord[4], const void *value,
               unsigned bytes)
{
  uint8_t *p = surface_bytes (handle, form, coord, bytes, "sust");
  if (p != NULL)
    memcpy (p, value, bytes);
}
