/* halves.h - half-precision values (IEEE binary16 and bfloat16) to and
 * from float and double, as the GPU converts them: shared by the
 * translated device code (ptx-warp.h) and the emulator's atomics. */
#pragma once

#include <stdint.h>
#include <string.h>

static inline float ms_f16_f32 (uint16_t b) { _Float16 h; memcpy (&h, &b, 2); return (float) h; }
static inline uint16_t ms_f32_f16 (float f) { _Float16 h = (_Float16) f; uint16_t b; memcpy (&b, &h, 2); return b; }
/* half-precision arithmetic rounds once, from the double it was computed in */
static inline uint16_t ms_f64_f16 (double d) { _Float16 h = (_Float16) d; uint16_t b; memcpy (&b, &h, 2); return b; }
/* bfloat16: a float's top half; rounded to nearest even, a NaN the GPU's 0x7fff */
static inline float ms_bf16_f32 (uint16_t b) { uint32_t u = (uint32_t) b << 16; float f; memcpy (&f, &u, 4); return f; }
static inline uint16_t
ms_f32_bf16 (float f)
{
  uint32_t u;
  memcpy (&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return 0x7fff;
  return (uint16_t) ((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}
/* (through float: a second rounding, off only for a double within 2^-24
 * of a bfloat16 midpoint) */
static inline uint16_t ms_f64_bf16 (double d) { return ms_f32_bf16 ((float) d); }
