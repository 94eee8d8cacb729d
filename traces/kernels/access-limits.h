/* access-limits.h - the sizes of smem_stride's shared array, shared by the
 * kernel source (access.cu, also compiled by nvcc) and its descriptor
 * (access.c), which refuses the strides the array cannot hold.
 *
 * Lane l of warp w accesses element l*stride + w, so the array holds
 * 32 * the largest stride + 32 warps (1024 threads) elements.  It is static
 * shared memory, 48 KB at most: stride 128 takes 4128 elements, 33 KB of
 * 8-byte ones but 66 KB of 16-byte ones, so 16-byte elements stop at
 * stride 64 (2080 elements, 33 KB). */
#pragma once

#define SMEM_MAX_STRIDE 128
#define SMEM_MAX_STRIDE_OF_WIDTH(w) ((w) == 16 ? 64 : SMEM_MAX_STRIDE)
#define SMEM_MAX_ELEMS_OF_WIDTH(w) (32 * SMEM_MAX_STRIDE_OF_WIDTH (w) + 32)
