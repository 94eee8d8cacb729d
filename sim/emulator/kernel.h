/* kernel.h - the CUDA C subset memsim kernels are written in.
 *
 * One kernel source, two back-ends: every memsim kernel (.cu) includes this
 * header and is compiled twice,
 *   - by nvcc for the GPU (__CUDACC__ defined): the macros below are plain
 *     CUDA, so the kernel is an ordinary CUDA kernel;
 *   - by gcc as C for the CPU emulator: the macros route every global and
 *     shared memory access, barrier and warp collective to the emulator,
 *     which runs each CUDA thread as a fiber and records warp accesses.
 *
 * The rules a kernel follows (docs/model.md has the long form):
 *   LD(x)            read the lvalue x (global or shared memory)
 *   ST(x, v)         x = v (a statement)
 *   SHARED_ARRAY(T, name, n)        __shared__ T name[n];
 *   SHARED_ARRAY2(T, name, n, m)    __shared__ T name[n][m];
 *   __syncthreads(), __syncwarp([mask]), __shfl_sync/_up/_down/_xor,
 *   __ballot_sync, __any_sync, __all_sync, __activemask, atomicAdd/Sub/
 *   Min/Max/Exch/CAS/And/Or/Xor, threadIdx/blockIdx/blockDim/gridDim/warpSize,
 *   float2/float3/float4/int2/int4 and their make_ functions (a float3 is
 *   loaded member by member, LD (p[i].x): the GPU has no 12-byte access).
 * A kernel is exposed to memsim through an entry:
 *   MS_ENTRY (name) { MS_LAUNCH (kernel, L, args...); }
 * where L->buf[i], L->i[i] and L->f[i] are the buffers and parameters the
 * kernel descriptor set up.
 */
#ifndef MEMSIM_KERNEL_H
#define MEMSIM_KERNEL_H

#define MS_MAX_BUFFERS 64
#define MS_MAX_ARGS 8

typedef struct {
  unsigned grid[3];
  unsigned block[3];
  void *buf[MS_MAX_BUFFERS];  /* device (GPU) or host (CPU) buffer pointers */
  long long i[MS_MAX_ARGS];   /* integer parameters */
  double f[MS_MAX_ARGS];      /* floating-point parameters */
  const void *params;         /* a PTX kernel's parameter block (sim/ptx), else NULL */
} MsLaunchArgs;

#ifndef __CUDACC__
/* A built-in kernel's entry built as C (MS_BIND_BUILD below) tells which
 * kernel it launches and with which arguments, each its bytes as the
 * kernel's parameter takes them (traces/kernels/builtin-ptx.h). */
typedef struct {
  const void *value;
  unsigned size;
} MsBindArg;
void ms_bind_launch (const MsLaunchArgs *L, const char *kernel, unsigned n, const MsBindArg *args);
#endif

#ifdef __CUDACC__
/* ------------------------------------------------------------------ GPU */

#include <stdint.h>   /* uint8_t etc. in kernels, as in the CPU branch */

#define LD(x) (x)
#define ST(x, v) ((x) = (v))
#define MS_NO_UBSAN
#define SHARED_ARRAY(T, name, n) __shared__ T name[n]
#define SHARED_ARRAY2(T, name, n, m) __shared__ T name[n][m]
#define MS_ENTRY(name) \
  extern "C" void ms_gpu_entry_##name (const MsLaunchArgs *L)
#define MS_LAUNCH(kernel, L, ...) \
  kernel<<<dim3 ((L)->grid[0], (L)->grid[1], (L)->grid[2]), \
           dim3 ((L)->block[0], (L)->block[1], (L)->block[2])>>> (__VA_ARGS__)

/* The address-trace build (--check-trace) includes gpu/trace-device.cuh
 * after this header: it redefines LD/ST/atomics to also record every
 * warp-level access on the GPU (see the %.gputrace.o rule in Makefile.am). */

#elif defined (MS_BIND_BUILD)
/* ------------------------------------------------- CPU, the entries alone */

/* The built-in kernels run from nvcc's PTX (traces/kernels/builtin-ptx.h):
 * the host compiler builds only their entries, whose MS_LAUNCH records
 * which __global__ function to launch with which arguments.  The kernels'
 * bodies need only parse; they are unused and never emitted. */
#include <stddef.h>
#include <stdint.h>

/* what only the bodies would use */
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wstrict-aliasing"

typedef struct { unsigned x, y, z; } uint3;
typedef struct __attribute__ ((aligned (8))) { float x, y; } float2;
typedef struct { float x, y, z; } float3;
typedef struct __attribute__ ((aligned (16))) { float x, y, z, w; } float4;
typedef struct __attribute__ ((aligned (8))) { int x, y; } int2;
typedef struct __attribute__ ((aligned (16))) { int x, y, z, w; } int4;
static inline float2 make_float2 (float x, float y) { float2 r = { x, y }; return r; }
static inline float3 make_float3 (float x, float y, float z) { float3 r = { x, y, z }; return r; }
static inline float4 make_float4 (float x, float y, float z, float w) { float4 r = { x, y, z, w }; return r; }
static inline int2 make_int2 (int x, int y) { int2 r = { x, y }; return r; }
static inline int4 make_int4 (int x, int y, int z, int w) { int4 r = { x, y, z, w }; return r; }

static const uint3 ms_bind_dim_ __attribute__ ((unused)) = { 1, 1, 1 };
#define threadIdx ms_bind_dim_
#define blockIdx ms_bind_dim_
#define blockDim ms_bind_dim_
#define gridDim ms_bind_dim_
#define warpSize 32
#define __global__ static __attribute__ ((unused))
#define __device__ static inline __attribute__ ((unused))
#define __forceinline__
#define __noinline__
#define __restrict__ restrict
#define __host__
#define MS_NO_UBSAN
#define LD(x) (x)
#define ST(x, v) ((x) = (v))
#define SHARED_ARRAY(T, name, n) static T name[n]
#define SHARED_ARRAY2(T, name, n, m) static T name[n][m]
#define __syncthreads() ((void) 0)
#define __syncwarp(...) ((void) 0)
#define MS_BIND_VALUE_(x) ({ __typeof__ (x) ms_v_ = (x); ms_v_; })
#define __shfl_sync(mask, v, ...) MS_BIND_VALUE_ (v)
#define __shfl_up_sync(mask, v, ...) MS_BIND_VALUE_ (v)
#define __shfl_down_sync(mask, v, ...) MS_BIND_VALUE_ (v)
#define __shfl_xor_sync(mask, v, ...) MS_BIND_VALUE_ (v)
#define __ballot_sync(mask, pred) ((unsigned) !!(pred))
#define __any_sync(mask, pred) (!!(pred))
#define __all_sync(mask, pred) (!!(pred))
#define __activemask() 0xffffffffu
#define atomicAdd(p, v) MS_BIND_VALUE_ (*(p))
#define atomicSub(p, v) MS_BIND_VALUE_ (*(p))
#define atomicMin(p, v) MS_BIND_VALUE_ (*(p))
#define atomicMax(p, v) MS_BIND_VALUE_ (*(p))
#define atomicExch(p, v) MS_BIND_VALUE_ (*(p))
#define atomicCAS(p, c, v) MS_BIND_VALUE_ (*(p))
#define atomicAnd(p, v) MS_BIND_VALUE_ (*(p))
#define atomicOr(p, v) MS_BIND_VALUE_ (*(p))
#define atomicXor(p, v) MS_BIND_VALUE_ (*(p))

/* (the value in a struct of its own: `{ a }` also initialises a struct
 * from a struct) */
#define MS_BIND_ARG_(a) { &(struct { __typeof__ (a) v; }) { a }, sizeof (a) },
#define MS_BIND_EACH_1_(a) MS_BIND_ARG_ (a)
#define MS_BIND_EACH_2_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_1_ (__VA_ARGS__)
#define MS_BIND_EACH_3_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_2_ (__VA_ARGS__)
#define MS_BIND_EACH_4_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_3_ (__VA_ARGS__)
#define MS_BIND_EACH_5_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_4_ (__VA_ARGS__)
#define MS_BIND_EACH_6_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_5_ (__VA_ARGS__)
#define MS_BIND_EACH_7_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_6_ (__VA_ARGS__)
#define MS_BIND_EACH_8_(a, ...) MS_BIND_ARG_ (a) MS_BIND_EACH_7_ (__VA_ARGS__)
#define MS_BIND_PICK_(_1, _2, _3, _4, _5, _6, _7, _8, name, ...) name
#define MS_BIND_ARGS_(...) \
  MS_BIND_PICK_ (__VA_ARGS__, MS_BIND_EACH_8_, MS_BIND_EACH_7_, MS_BIND_EACH_6_, \
                 MS_BIND_EACH_5_, MS_BIND_EACH_4_, MS_BIND_EACH_3_, MS_BIND_EACH_2_, \
                 MS_BIND_EACH_1_, ) (__VA_ARGS__)

#define MS_ENTRY(name) \
  void ms_bind_entry_##name (const MsLaunchArgs *L); \
  void ms_bind_entry_##name (const MsLaunchArgs *L)
#define MS_LAUNCH(kernel, L, ...) \
  do { const MsBindArg ms_args_[] = { MS_BIND_ARGS_ (__VA_ARGS__) }; \
       (void) kernel; \
       ms_bind_launch ((L), #kernel, sizeof ms_args_ / sizeof ms_args_[0], ms_args_); } while (0)

#else
/* ------------------------------------------------------------------ CPU */

#ifndef MS_USER_KERNEL
#include "lane.h"   /* first: it includes GLib, before the CUDA keyword macros */
#else
#define MS_TLS __thread   /* a user's kernel, a shared object (direct.h) */
#endif

#include <stddef.h>
#include <stdint.h>

/* CUDA's own, where a file included them first (traces/user/cuda-runtime.c,
 * built against the toolkit's headers): the same layouts */
#ifndef __VECTOR_TYPES_H__
typedef struct { unsigned x, y, z; } uint3;
#ifdef __cplusplus   /* users' files: host code builds dim3s (cuda-shim.h) */
struct dim3 {
  unsigned x, y, z;
  constexpr dim3 (unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x (x_), y (y_), z (z_) {}
  constexpr dim3 (uint3 v) : x (v.x), y (v.y), z (v.z) {}
  constexpr operator uint3 () const { return uint3 { x, y, z }; }
};
#else
typedef uint3 dim3;
#endif

typedef struct __attribute__ ((aligned (8))) { float x, y; } float2;
typedef struct { float x, y, z; } float3;
typedef struct __attribute__ ((aligned (16))) { float x, y, z, w; } float4;
typedef struct __attribute__ ((aligned (8))) { int x, y; } int2;
typedef struct __attribute__ ((aligned (16))) { int x, y, z, w; } int4;
typedef struct __attribute__ ((aligned (16))) { double x, y; } double2;
typedef struct __attribute__ ((aligned (8))) { unsigned x, y; } uint2;
typedef struct __attribute__ ((aligned (16))) { unsigned x, y, z, w; } uint4;
#endif /* __VECTOR_TYPES_H__ */

static inline float2 make_float2 (float x, float y) { float2 r = { x, y }; return r; }
static inline float3 make_float3 (float x, float y, float z) { float3 r = { x, y, z }; return r; }
static inline float4 make_float4 (float x, float y, float z, float w) { float4 r = { x, y, z, w }; return r; }
static inline int2 make_int2 (int x, int y) { int2 r = { x, y }; return r; }
static inline int4 make_int4 (int x, int y, int z, int w) { int4 r = { x, y, z, w }; return r; }

#ifdef __cplusplus   /* the C++ build of users' kernels (traces/user/cuda-shim.h) */
extern "C" {
#endif

/* What a fiber (CUDA thread) sees of itself, and of its block (the same for
 * all fibers of an OS thread's current block, hence a plain thread-local). */
typedef struct {
  uint3 thread_idx;
} MsThreadInfo;
typedef struct {
  uint3 block_idx, block_dim, grid_dim;
} MsBlockInfo;

extern MS_TLS void *ms_self;        /* the current lane's MsThreadInfo */
extern MS_TLS MsBlockInfo ms_block;

/* The CUDA keywords and built-ins, only for kernel sources (the CPU build
 * wrappers define MS_KERNEL_SOURCE), so other C files keep their names. */
#ifdef MS_KERNEL_SOURCE
#define threadIdx (((MsThreadInfo *) ms_self)->thread_idx)
#define blockIdx (ms_block.block_idx)
#define blockDim (ms_block.block_dim)
#define gridDim (ms_block.grid_dim)
#ifndef MS_USER_KERNEL   /* (users' files: a constant, cuda-shim.h) */
#define warpSize 32
#endif

#define __global__ static
/* for the emulator's own crash tests, which dereference a null pointer on
 * purpose: kept out of UndefinedBehaviorSanitizer's way */
#define MS_NO_UBSAN __attribute__ ((no_sanitize ("undefined")))
#define __device__ static inline
#define __forceinline__ __attribute__ ((always_inline))
#define __noinline__ __attribute__ ((noinline))
#ifndef __cplusplus
#define __restrict__ restrict
#endif
#define __host__
#endif /* MS_KERNEL_SOURCE */

/* A static record per access site (macro expansion); see sim/stream/access.h.
 * __COUNTER__ grows in textual order, which is the order the emulator uses
 * to decide which diverged lanes run first. */
#include "site.h"
#ifndef MS_SITE_   /* users' kernels: the site of the call's return address */
#define MS_SITE_ \
  ({ static MsSite ms_site_ = { __FILE__, __LINE__, __COUNTER__, -1 }; &ms_site_; })
#endif

enum {
  MS_ATOMIC_ADD, MS_ATOMIC_SUB, MS_ATOMIC_MIN, MS_ATOMIC_MAX,
  MS_ATOMIC_EXCH, MS_ATOMIC_CAS, MS_ATOMIC_AND, MS_ATOMIC_OR, MS_ATOMIC_XOR,
  MS_ATOMIC_INC, MS_ATOMIC_DEC,   /* atomicInc/Dec: wrap at the operand (PTX atom.inc/dec) */
};
/* MS_NUM_HALF, MS_NUM_BF16: one (2 bytes) or two (4) half-precision values */
enum { MS_NUM_INT, MS_NUM_UINT, MS_NUM_FLOAT, MS_NUM_DOUBLE, MS_NUM_HALF, MS_NUM_BF16 };
enum { MS_SHFL_IDX, MS_SHFL_UP, MS_SHFL_DOWN, MS_SHFL_XOR };
enum { MS_VOTE_BALLOT, MS_VOTE_ANY, MS_VOTE_ALL, MS_VOTE_ACTIVEMASK };

void *ms_atomic (const MsSite *site, volatile void *p, const void *v,
                 const void *compare, unsigned size, int op, int num);
/* the array of one declaration (key: unique to it), and the `extern
 * __shared__` array (MsLaunch.dynamic_shared bytes) */
void *ms_shared_alloc_at (const void *key, unsigned size, unsigned align);
void *ms_shared_alloc_dynamic (unsigned align);
void *ms_shared_alloc_reserved (unsigned size);
void ms_syncwarp (const MsSite *site, unsigned mask);
void *ms_shfl (const MsSite *site, unsigned mask, const void *v, unsigned size,
               int kind, int arg, int width);
unsigned ms_vote (const MsSite *site, unsigned mask, int pred, int kind);

#ifdef __cplusplus
}
#endif

/* The unqualified type of an lvalue (drops volatile/const). */
#ifdef __cplusplus
#define MS_VALUE_TYPE_(x) __typeof__ (ms_unqualified_ (x))
template <typename T> static inline T ms_unqualified_ (const volatile T &x);
#else
#define MS_VALUE_TYPE_(x) __typeof__ (((void) 0, (x)))
#endif

/* Loads and stores stop the lane inline (sim/emulator/lane.h explains why).  The
 * loaded value is copied out of the emulator's buffer (a compound literal
 * of the value's type), so LD assumes nothing about that buffer's
 * alignment: float4/int4 need 16 bytes, which a plain *(T *) cast would
 * claim (GCC then emits movaps). */
#define LD(x) \
  (*(MS_VALUE_TYPE_ (x) *) __builtin_memcpy (&(MS_VALUE_TYPE_ (x)) { 0 }, \
                                             ms_lane_ld (MS_SITE_, &(x), sizeof (x)), sizeof (x)))
#define ST(x, v) \
  do { MS_VALUE_TYPE_ (x) ms_v_ = (v); \
       ms_lane_st (MS_SITE_, &(x), &ms_v_, sizeof (x)); } while (0)

/* Each declaration is one array of the block, found by a key of its own
 * (a declaration in a loop or a helper is one array, as on the GPU); the
 * block's first thread to reach it places it.  The declaration remembers
 * the array for the rest of the block (per worker thread: ms_shared_block
 * numbers the blocks a thread runs), so the block's other threads skip the
 * call; remembered only once the call returned (it may not). */
extern MS_TLS unsigned long ms_shared_block;
#define MS_SHARED_(size, align) \
  ({ static const char ms_key_ = 0; \
     static __thread void *ms_array_; \
     static __thread unsigned long ms_array_block_; \
     if (ms_array_block_ != ms_shared_block) \
       { \
         ms_array_ = ms_shared_alloc_at (&ms_key_, (size), (align)); \
         ms_array_block_ = ms_shared_block; \
       } \
     ms_array_; })
#define SHARED_ARRAY(T, name, n) \
  T *const name = (T *) MS_SHARED_ (sizeof (T) * (n), __alignof__ (T))
#define SHARED_ARRAY2(T, name, n, m) \
  T (*const name)[m] = (T (*)[m]) MS_SHARED_ (sizeof (T) * (n) * (m), __alignof__ (T))

#ifdef __cplusplus
static inline constexpr int ms_num_kind_ (float) { return MS_NUM_FLOAT; }
static inline constexpr int ms_num_kind_ (double) { return MS_NUM_DOUBLE; }
static inline constexpr int ms_num_kind_ (unsigned) { return MS_NUM_UINT; }
static inline constexpr int ms_num_kind_ (unsigned long) { return MS_NUM_UINT; }
static inline constexpr int ms_num_kind_ (unsigned long long) { return MS_NUM_UINT; }
static inline constexpr int ms_num_kind_ (int) { return MS_NUM_INT; }
static inline constexpr int ms_num_kind_ (long) { return MS_NUM_INT; }
static inline constexpr int ms_num_kind_ (long long) { return MS_NUM_INT; }
#define MS_NUM_KIND_(v) ms_num_kind_ (v)
#else
#define MS_NUM_KIND_(v) _Generic ((v), float: MS_NUM_FLOAT, double: MS_NUM_DOUBLE, \
  unsigned: MS_NUM_UINT, unsigned long: MS_NUM_UINT, unsigned long long: MS_NUM_UINT, \
  default: MS_NUM_INT)
#endif
#define MS_ATOMIC_(op, p, v, c) \
  ({ MS_VALUE_TYPE_ (*(p)) ms_v_ = (v), ms_c_ = (c); \
     *(MS_VALUE_TYPE_ (*(p)) *) ms_atomic (MS_SITE_, (p), &ms_v_, &ms_c_, \
                                           sizeof ms_v_, op, MS_NUM_KIND_ (ms_v_)); })
#define atomicAdd(p, v) MS_ATOMIC_ (MS_ATOMIC_ADD, p, v, 0)
#define atomicSub(p, v) MS_ATOMIC_ (MS_ATOMIC_SUB, p, v, 0)
#define atomicMin(p, v) MS_ATOMIC_ (MS_ATOMIC_MIN, p, v, 0)
#define atomicMax(p, v) MS_ATOMIC_ (MS_ATOMIC_MAX, p, v, 0)
#define atomicExch(p, v) MS_ATOMIC_ (MS_ATOMIC_EXCH, p, v, 0)
#define atomicCAS(p, c, v) MS_ATOMIC_ (MS_ATOMIC_CAS, p, v, c)
#define atomicAnd(p, v) MS_ATOMIC_ (MS_ATOMIC_AND, p, v, 0)   /* integers only, as in CUDA */
#define atomicOr(p, v) MS_ATOMIC_ (MS_ATOMIC_OR, p, v, 0)
#define atomicXor(p, v) MS_ATOMIC_ (MS_ATOMIC_XOR, p, v, 0)

#ifndef MS_USER_KERNEL
#define __syncthreads() ms_lane_syncthreads (MS_SITE_)
#endif
#define MS_MASK_OR_FULL_(...) (0xffffffffu __VA_OPT__ (& (__VA_ARGS__)))
#define __syncwarp(...) ms_syncwarp (MS_SITE_, MS_MASK_OR_FULL_ (__VA_ARGS__))

/* built-in kernels stop inline (lane.h), users' kernels call the emulator */
#ifdef MS_USER_KERNEL
#define MS_SHFL_CALL_ ms_shfl
#define MS_VOTE_CALL_ ms_vote
#else
#define MS_SHFL_CALL_ ms_lane_shfl
#define MS_VOTE_CALL_ ms_lane_vote
#endif
#define MS_WIDTH_OR_32_(...) (32 __VA_OPT__ (* 0 + (__VA_ARGS__)))
#define MS_SHFL_(kind, mask, v, arg, ...) \
  ({ MS_VALUE_TYPE_ (v) ms_v_ = (v); \
     *(MS_VALUE_TYPE_ (v) *) MS_SHFL_CALL_ (MS_SITE_, (mask), &ms_v_, sizeof ms_v_, kind, \
                                      (int) (arg), MS_WIDTH_OR_32_ (__VA_ARGS__)); })
#define __shfl_sync(mask, v, src, ...) MS_SHFL_ (MS_SHFL_IDX, mask, v, src, __VA_ARGS__)
#define __shfl_up_sync(mask, v, d, ...) MS_SHFL_ (MS_SHFL_UP, mask, v, d, __VA_ARGS__)
#define __shfl_down_sync(mask, v, d, ...) MS_SHFL_ (MS_SHFL_DOWN, mask, v, d, __VA_ARGS__)
#define __shfl_xor_sync(mask, v, m, ...) MS_SHFL_ (MS_SHFL_XOR, mask, v, m, __VA_ARGS__)

#define __ballot_sync(mask, pred) MS_VOTE_CALL_ (MS_SITE_, (mask), !!(pred), MS_VOTE_BALLOT)
#define __any_sync(mask, pred) ((int) MS_VOTE_CALL_ (MS_SITE_, (mask), !!(pred), MS_VOTE_ANY))
#define __all_sync(mask, pred) ((int) MS_VOTE_CALL_ (MS_SITE_, (mask), !!(pred), MS_VOTE_ALL))
#define __activemask() MS_VOTE_CALL_ (MS_SITE_, 0u, 1, MS_VOTE_ACTIVEMASK)

#define MS_ENTRY(name) \
  void ms_cpu_entry_##name (const MsLaunchArgs *L); \
  void ms_cpu_entry_##name (const MsLaunchArgs *L)
#define MS_LAUNCH(kernel, L, ...) ((void) (L), kernel (__VA_ARGS__))

#endif /* __CUDACC__ */

typedef void (*MsEntryFn) (const MsLaunchArgs *L);

#endif /* MEMSIM_KERNEL_H */
