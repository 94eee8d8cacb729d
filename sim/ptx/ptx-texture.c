/* ptx-texture.c - texture and surface instructions to lane C (see
 * ptx-texture.h).  Forms run:
 *   tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.{f32,s32}
 *       {d0, d1, d2, d3}, [handle, {coordinates}]
 *   suld.b.{1d,2d,3d,a1d,a2d}[.v2,.v4].{b8,b16,b32,b64}[.trap,.clamp,.zero]
 *   sust.b.{...same...}  [handle, {coordinates}], {values}
 * with a texture or surface object (a 64-bit register) as the handle: what
 * nvcc emits for CUDA's texture and surface objects.  The semantics are the
 * emulator's (sim/emulator/texture.c).  Not run, each with its reason:
 * texture references, mipmap levels and gradients, gathers (tld4),
 * queries (txq, suq), surface reductions and formatted stores.
 */
#include "config.h"

#include <string.h>

#include "ptx-texture.h"
#include "texture.h"

gboolean
ms_ptx_texture_op (const char *op)
{
  static const char *const ops[] = { "tex", "tld4", "txq", "suld", "sust", "sured", "suq", NULL };
  for (const char *const *o = ops; *o; o++)
    if (strcmp (op, *o) == 0)
      return TRUE;
  return FALSE;
}

typedef struct {
  const char *name;
  unsigned form;
  guint coords;     /* registers of the coordinate vector read */
} Geometry;

static const Geometry geometries[] = {
  { "1d", MS_TEX_1D, 1 }, { "2d", MS_TEX_2D, 2 }, { "3d", MS_TEX_3D, 3 },
  { "a1d", MS_TEX_A1D, 2 }, { "a2d", MS_TEX_A2D, 3 }, { "cube", MS_TEX_CUBE, 3 },
  { "acube", MS_TEX_ACUBE, 4 },
};

static const Geometry *
geometry_of (const MsPtxInsn *i)
{
  for (guint k = 0; k < G_N_ELEMENTS (geometries); k++)
    if (ms_ptx_has_mod (i, geometries[k].name))
      return &geometries[k];
  return NULL;
}

/* The handle and coordinates operand: [%rd, {regs}] with enough of them. */
static gboolean
address_ok (const MsPtxInsn *i, guint k, const Geometry *g, const char **why)
{
  const MsPtxOperand *a = k < i->n_opd ? &i->opd[k] : NULL;
  if (a == NULL || a->kind != MS_PTX_OPD_ADDR)
    *why = "no [handle, {coordinates}] operand";
  else if (a->sym != NULL)
    *why = "a texture or surface reference (.texref, .surfref); memsim runs texture and "
           "surface objects";
  else if (a->reg < 0 || a->n_vec < 0)
    *why = "a handle or coordinates that are not registers";
  else if ((guint) a->n_vec < g->coords)
    *why = "too few coordinates";
  else
    {
      for (guint c = 0; c < g->coords; c++)
        if (a->vec[c] < 0)
          {
            *why = "a coordinate left out (_)";
            return FALSE;
          }
      return TRUE;
    }
  return FALSE;
}

static guint
reg_bytes (const MsPtxFunc *f, int reg)
{
  const MsPtxReg *r = &g_array_index (f->regs, MsPtxReg, reg);
  return r->cls == MS_PTX_B64 ? 8 : r->cls == MS_PTX_B32 ? 4 : r->cls == MS_PTX_B16 ? 2 : 1;
}

static void
coordinates (GString *b, const MsPtxOperand *a, const Geometry *g, const char *type)
{
  g_string_append_printf (b, "%s c_[4] = { ", type);
  for (guint c = 0; c < 4; c++)
    {
      if (c < g->coords)
        g_string_append_printf (b, "(%s) R%d[L]", type, a->vec[c]);
      else
        g_string_append (b, "0");
      g_string_append (b, c < 3 ? ", " : " };\n");
    }
}

static gboolean
tex_lanes (const MsPtxFunc *f, const MsPtxInsn *i, GString *b, const char **why)
{
  static const char *const refused[][2] = {
    { "level", "a mipmap level (tex.level)" }, { "grad", "a gradient (tex.grad)" },
    { "base", "a mipmap base level (tex.base)" }, { "2dms", "a multisample texture" },
    { "a2dms", "a multisample texture" }, { "f16", "half results" },
    { "f16x2", "half results" },
  };
  for (guint k = 0; k < G_N_ELEMENTS (refused); k++)
    if (ms_ptx_has_mod (i, refused[k][0]))
      {
        *why = refused[k][1];
        return FALSE;
      }
  const Geometry *g = geometry_of (i);
  guint nmods = g_strv_length (i->mods);
  if (g == NULL)
    {
      *why = "a texture geometry memsim does not know";
      return FALSE;
    }
  if (!ms_ptx_has_mod (i, "v4") || nmods < 3)
    {
      *why = "a result that is not .v4";
      return FALSE;
    }
  const char *dtype = i->mods[nmods - 2], *ctype = i->mods[nmods - 1];
  gboolean int_result = !strcmp (dtype, "s32") || !strcmp (dtype, "u32");
  gboolean int_coords = !strcmp (ctype, "s32");
  if ((!int_result && strcmp (dtype, "f32")) || (!int_coords && strcmp (ctype, "f32")))
    {
      *why = "result or coordinate types other than f32, s32, u32";
      return FALSE;
    }
  if (i->n_opd != 2 || i->opd[0].kind != MS_PTX_OPD_VEC || i->opd[0].n_vec != 4)
    {
      *why = "operands other than {d0, d1, d2, d3}, [handle, {coordinates}] (a predicate, "
             "an offset or a depth comparison)";
      return FALSE;
    }
  if (!address_ok (i, 1, g, why))
    return FALSE;
  for (guint k = 0; k < 4; k++)
    if (i->opd[0].vec[k] >= 0 && reg_bytes (f, i->opd[0].vec[k]) != 4)
      {
        *why = "a result register that is not 32-bit";
        return FALSE;
      }
  unsigned form = g->form | (int_coords ? MS_TEX_INT_COORDS : 0)
                  | (int_result ? MS_TEX_INT_RESULT : 0);
  g_string_append (b, "{\n");
  coordinates (b, &i->opd[1], g, "uint32_t");
  g_string_append_printf (b, "uint32_t o_[4];\nms_tex_fetch ((uint64_t) R%d[L], %uu, c_, o_);\n",
                          i->opd[1].reg, form);
  for (guint k = 0; k < 4; k++)
    if (i->opd[0].vec[k] >= 0)
      g_string_append_printf (b, "R%d[L] = o_[%u];\n", i->opd[0].vec[k], k);
  g_string_append (b, "}\n");
  return TRUE;
}

static gboolean
surface_lanes (const MsPtxFunc *f, const MsPtxInsn *i, GString *b, const char **why)
{
  gboolean store = strcmp (i->op, "sust") == 0;
  if (!ms_ptx_has_mod (i, "b"))
    {
      *why = ms_ptx_has_mod (i, "p") ? "a formatted surface store (sust.p)"
                                     : "a surface access that is not .b";
      return FALSE;
    }
  const Geometry *g = geometry_of (i);
  if (g == NULL || g->form == MS_TEX_CUBE || g->form == MS_TEX_ACUBE)
    {
      *why = "a surface geometry memsim does not know";
      return FALSE;
    }
  guint es = ms_ptx_has_mod (i, "b8") ? 1 : ms_ptx_has_mod (i, "b16") ? 2
             : ms_ptx_has_mod (i, "b32") ? 4 : ms_ptx_has_mod (i, "b64") ? 8 : 0;
  guint n = ms_ptx_has_mod (i, "v4") ? 4 : ms_ptx_has_mod (i, "v2") ? 2 : 1;
  if (es == 0)
    {
      *why = "an element type other than b8, b16, b32, b64";
      return FALSE;
    }
  unsigned form = g->form | (ms_ptx_has_mod (i, "clamp") ? MS_SURF_CLAMP : 0)
                  | (ms_ptx_has_mod (i, "zero") ? MS_SURF_ZERO : 0);
  guint ka = store ? 0 : 1, kv = store ? 1 : 0;
  if (i->n_opd != 2 || !address_ok (i, ka, g, why))
    {
      if (i->n_opd != 2)
        *why = "operands other than a value and [handle, {coordinates}]";
      return FALSE;
    }
  const MsPtxOperand *v = &i->opd[kv];
  int regs[4];
  if (v->kind == MS_PTX_OPD_VEC && (guint) v->n_vec == n)
    memcpy (regs, v->vec, n * sizeof (int));
  else if (v->kind == MS_PTX_OPD_REG && n == 1)
    regs[0] = v->reg;
  else
    {
      *why = "values that are not registers, one per element";
      return FALSE;
    }
  for (guint k = 0; k < n; k++)
    if (regs[k] < 0 ? store : reg_bytes (f, regs[k]) < MAX (es, 2))
      {
        *why = "a value register too small for its element";
        return FALSE;
      }
  g_string_append (b, "{\n");
  coordinates (b, &i->opd[ka], g, "int32_t");
  g_string_append (b, "uint8_t v_[32];\n");
  if (store)
    {
      for (guint k = 0; k < n; k++)
        g_string_append_printf (b, "{ uint64_t e_ = (uint64_t) R%d[L]; memcpy (v_ + %u, &e_, %u); }\n",
                                regs[k], k * es, es);
      g_string_append_printf (b, "ms_surf_store ((uint64_t) R%d[L], %uu, c_, v_, %u);\n",
                              i->opd[ka].reg, form, n * es);
    }
  else
    {
      g_string_append_printf (b, "ms_surf_load ((uint64_t) R%d[L], %uu, c_, v_, %u);\n",
                              i->opd[ka].reg, form, n * es);
      for (guint k = 0; k < n; k++)
        if (regs[k] >= 0)
          g_string_append_printf (b, "{ uint64_t e_ = 0; memcpy (&e_, v_ + %u, %u); R%d[L] = e_; }\n",
                                  k * es, es, regs[k]);
    }
  g_string_append (b, "}\n");
  return TRUE;
}

gboolean
ms_ptx_texture_lanes (const MsPtxFunc *f, const MsPtxInsn *i, GString *body, const char **why)
{
  gsize mark = body->len;
  gboolean ok;
  if (strcmp (i->op, "tex") == 0)
    ok = tex_lanes (f, i, body, why);
  else if (strcmp (i->op, "suld") == 0 || strcmp (i->op, "sust") == 0)
    ok = surface_lanes (f, i, body, why);
  else
    {
      ok = FALSE;
      *why = strcmp (i->op, "tld4") == 0 ? "a texture gather (tld4, tex2Dgather)"
             : strcmp (i->op, "txq") == 0 ? "a texture query (txq)"
             : strcmp (i->op, "suq") == 0 ? "a surface query (suq)"
             : "a surface reduction (sured)";
    }
  if (!ok)
    g_string_truncate (body, mark);
  return ok;
}
