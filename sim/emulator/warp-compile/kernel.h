/* kernel.h as the warp-wide compiler (warp-compile.py) reads a kernel
 * source: plain C that pycparser parses, each memsim construct a call the
 * compiler recognises.  Never compiled. */
typedef struct { unsigned x, y, z; } uint3;
typedef struct { float x, y; } float2;
typedef struct { float x, y, z; } float3;
typedef struct { float x, y, z, w; } float4;
typedef struct { int x, y; } int2;
typedef struct { int x, y, z, w; } int4;
typedef struct MsLaunchArgs MsLaunchArgs;
typedef unsigned long size_t;
typedef long ptrdiff_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef int int32_t;
typedef long int64_t;
extern uint3 threadIdx, blockIdx, blockDim, gridDim;
extern int warpSize;

#define __global__ inline
#define __device__ static
#define __forceinline__
#define __noinline__
#define __restrict__
#define __host__
/* a kernel kept out of UndefinedBehaviorSanitizer's way (the crash tests):
 * marked with a storage class pycparser keeps, for the compiler to see */
#define MS_NO_UBSAN register

/* LD, ST, __syncthreads and the other site calls stay calls (not macros),
 * so that each keeps the line it is written on, as __LINE__ in the fiber
 * build's expansion does (a macro call spanning lines would move them all
 * to its first line). */
#define SHARED_ARRAY(T, name, n) static T name[n]
#define SHARED_ARRAY2(T, name, n, m) static T name[n][m]

#define MS_ENTRY(name) void __ms_entry_##name (const MsLaunchArgs *L)
#define MS_LAUNCH(kernel, L, ...) kernel (__VA_ARGS__)
