/* texture.h - textures and surfaces as device code reads and writes them:
 * memsim's descriptor of one (the CUDA runtime fills it from CUDA's
 * resource and texture descriptors: traces/user/cuda-arrays.c), the table
 * that gives each its 64-bit handle (a cudaTextureObject_t or
 * cudaSurfaceObject_t), and the per-lane fetch, load and store that the
 * PTX engine's tex, suld and sust call (sim/ptx/ptx-texture.c).
 *
 * Plain C without GLib: the generated device code includes it.
 */
#pragma once

#include <stdint.h>

/* cudaTextureAddressMode's values */
enum { MS_TEX_WRAP, MS_TEX_CLAMP, MS_TEX_MIRROR, MS_TEX_BORDER };
/* cudaChannelFormatKind's values (a 2-byte FLOAT channel is a half) */
enum { MS_TEX_SIGNED, MS_TEX_UNSIGNED, MS_TEX_FLOAT };

typedef struct {
  uint8_t *data;              /* texel 0 of row 0 of slice 0 */
  uint64_t width, height;     /* texels (height 1 for 1D) */
  uint64_t slices;            /* 3D: depth; layered: layers; cubemap: 6 x layers; else 1 */
  uint64_t pitch, slice_pitch;   /* bytes from a row to the next, a slice to the next */
  unsigned dims;              /* 1, 2 or 3 */
  unsigned layered, cubemap;
  unsigned channels;          /* 1, 2 or 4 */
  unsigned channel_bytes;     /* 1, 2 or 4 */
  unsigned kind;              /* MS_TEX_SIGNED, _UNSIGNED, _FLOAT */
  /* a texture's sampling (a surface has none) */
  unsigned address[3];        /* per dimension: MS_TEX_WRAP ... */
  unsigned linear_filter;     /* cudaFilterModeLinear */
  unsigned normalized_coords;
  unsigned read_normalized;   /* cudaReadModeNormalizedFloat */
  float border[4];
} MsTexture;

/* The table (host code, between launches).  0: no handle (table full). */
uint64_t ms_texture_add (const MsTexture *t);
/* 0: handle is no texture or surface.  reusable: the object is destroyed,
 * and a new one of the same descriptor may get its handle back (else the
 * handle stays dead: its CUDA array was freed under a live object). */
int ms_texture_remove (uint64_t handle, int reusable);
/* The descriptor of handle, or NULL. */
const MsTexture *ms_texture_get (uint64_t handle);
/* Forgets every handle (the end of a program). */
void ms_texture_clear (void);

/* tex's geometry, with flags */
enum { MS_TEX_1D = 1, MS_TEX_2D, MS_TEX_3D, MS_TEX_A1D, MS_TEX_A2D, MS_TEX_CUBE, MS_TEX_ACUBE };
#define MS_TEX_GEOMETRY 0x0f
#define MS_TEX_INT_COORDS 0x10   /* coordinates .s32 (else .f32) */
#define MS_TEX_INT_RESULT 0x20   /* results .s32/.u32 (else .f32) */
/* suld/sust: out-of-range handling (.trap is 0) */
#define MS_SURF_CLAMP 0x40
#define MS_SURF_ZERO 0x80

/* One lane's tex: coord as the instruction's vector (an array form's
 * layer first, as s32), the four results as raw 32-bit values.  An
 * unknown handle fails the kernel (ms_ptx_fail). */
void ms_tex_fetch (uint64_t handle, unsigned form, const uint32_t coord[4], uint32_t out[4]);

/* One lane's suld.b / sust.b of `bytes` bytes (x in bytes, y and z in
 * elements; an array form's layer first).  Out of range with .trap
 * fails the kernel. */
void ms_surf_load (uint64_t handle, unsigned form, const int32_t coord[4], void *value,
                   unsigned bytes);
void ms_surf_store (uint64_t handle, unsigned form, const int32_t coord[4], const void *value,
                    unsigned bytes);

/* The sampling alone, for tests: what texture t gives at (float)
 * coordinates c (normalized or not, as t says) for geometry MS_TEX_1D,
 * _2D, _3D or _CUBE (c: a direction), as four floats. */
void ms_texture_sample (const MsTexture *t, unsigned geometry, unsigned layer, const float c[3],
                        float out[4]);
