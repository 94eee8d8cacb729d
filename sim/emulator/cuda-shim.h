/* cuda-shim.h - CUDA C++ on the CPU for users' own kernels (`memsim trace
 * FILE.cu:KERNEL`, traces/user/).
 *
 * memsim compiles the user's file with g++ as C++, this header forced in
 * first (-include), and with -fsanitize=thread: GCC then calls a hook
 * (__tsan_read4, __tsan_write16, ...) before every load and store, and
 * memsim's runtime (sim/emulator/native.c) answers those calls.  So the
 * kernel needs no LD/ST macros: plain pointer code is instrumented by the
 * compiler.  This header supplies the rest of CUDA's device side by reusing
 * the CPU branch of kernel.h (threadIdx..., vector types, atomics,
 * shuffles, votes, __syncwarp), with three differences:
 *   - a site is the call's return address (MS_SITE_ = ms_user_site()): the
 *     runtime maps it to file:line through the build's debug info;
 *   - __syncthreads() is a call into the runtime (no GLib needed here);
 *   - __shared__ declarations are rewritten by memsim before compiling
 *     (traces/user/user-source.c) into references to arrays in the
 *     emulator's shared window (ms_shared_ref_ below);
 *   - a file's host code compiles (cuda-host.h declares the runtime API,
 *     `<<<...>>>` is blanked out) but never runs.
 * Plain C++ with GNU extensions (g++ -std=gnu++17); nothing of GLib.
 */
#ifndef MEMSIM_CUDA_SHIM_H
#define MEMSIM_CUDA_SHIM_H

#define MS_USER_KERNEL 1
#define MS_KERNEL_SOURCE 1
/* The device memsim emulates is an sm_90 (its SASS is what compiler-exact
 * counts read): code that picks a device feature with `#if __CUDA_ARCH__ >=
 * 800` gets the sm_90 one.  The file is compiled once for host and device,
 * so host code that tests `#ifdef __CUDA_ARCH__` takes the device branch
 * too (docs/model.md). */
#define __CUDA_ARCH__ 900
#define MS_SITE_ (ms_user_site ())

#ifdef __cplusplus
extern "C" {
#endif
struct MsSite;
const struct MsSite *ms_user_site (void);
void ms_user_syncthreads (void);
#ifdef __cplusplus
}
#endif

/* system headers first: the CUDA keyword macros follow */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>
#include <tuple>
#include <type_traits>
#include <utility>

#include "kernel.h"
#include "cuda-host.h"

/* kernel.h's accessor macros are for the built-in kernels only: a user's
 * kernel may use these names for its own things. */
#undef LD
#undef ST
#undef SHARED_ARRAY
#undef SHARED_ARRAY2
#undef MS_ENTRY
#undef MS_LAUNCH

/* Users' kernels are C++: kernels keep external linkage (the entry memsim
 * generates calls them by name). */
#undef __global__
#define __global__
/* __device__ functions and variables are ordinary C++ ones: external
 * linkage, as CUDA gives them; the build is linked with
 * --allow-multiple-definition (a __device__ function defined in a header
 * that several files of a program include is one function) and -Bsymbolic
 * (the file's names never bind to memsim's own). */
#undef __device__
#define __device__
#undef __host__
#define __host__
#define __constant__
#define __managed__
#define __align__(n) __attribute__ ((aligned (n)))
#define __launch_bounds__(...)
#define __syncthreads() ms_user_syncthreads ()
/* The built-in variables are calls into the runtime, declared const: within
 * one run of the kernel by one thread they never change, so the compiler
 * reads each once, with no hook call and no thread-local look-up per use. */
extern "C" uint3 ms_user_thread_idx (void) __attribute__ ((const));
extern "C" uint3 ms_user_block_idx (void) __attribute__ ((const));
extern "C" uint3 ms_user_block_dim (void) __attribute__ ((const));
extern "C" uint3 ms_user_grid_dim (void) __attribute__ ((const));
#undef threadIdx
#undef blockIdx
#undef blockDim
#undef gridDim
#define threadIdx (ms_user_thread_idx ())
#define blockIdx (ms_user_block_idx ())
#define blockDim (ms_user_block_dim ())
#define gridDim (ms_user_grid_dim ())
#define __threadfence() __sync_synchronize ()
#define __threadfence_block() __sync_synchronize ()
#define __ldg(p) (*(p))
static constexpr int warpSize = 32;   /* a name, not a macro: cudaDeviceProp has one */
/* memsim rewrites the __shared__ declarations it can see (in a function,
 * not in a macro or header): any other one stops the compiler here */
#define __shared__ memsim_cannot_rewrite_this___shared___declaration_write_it_in_the_kernel

/* __shared__ T name[N][M];  ->
 *     T (&name)[N][M] = ms_shared_ref_<T[N][M], __COUNTER__> (align);
 * extern __shared__ T name[];  ->  T *const name = ms_shared_dynamic_<T> (align);
 * (the rewrite, traces/user/user-source.c, keeps the source's lines; the
 * emulator gives each declaration one array per block, however often the
 * block executes it, and every extern one the same memory) */
template <typename T, int Site>
static inline T &
ms_shared_ref_ (unsigned align)
{
  static const char key = 0;   /* one per declaration (Site: its __COUNTER__) */
  return *static_cast<T *> (ms_shared_alloc_at (&key, sizeof (T),
                                                align > alignof (T) ? align : alignof (T)));
}
template <typename T>
static inline T *
ms_shared_dynamic_ (unsigned align)
{
  return static_cast<T *> (ms_shared_alloc_dynamic (align > alignof (T) ? align : alignof (T)));
}

/* A few of CUDA's device functions. */
static inline int __popc (unsigned x) { return __builtin_popcount (x); }
static inline int __popcll (unsigned long long x) { return __builtin_popcountll (x); }
static inline int __clz (int x) { return x ? __builtin_clz ((unsigned) x) : 32; }
static inline int __ffs (int x) { return __builtin_ffs (x); }
static inline unsigned __brev (unsigned x)
{
  unsigned r = 0;
  for (int i = 0; i < 32; i++, x >>= 1)
    r = (r << 1) | (x & 1);
  return r;
}
static inline int __mul24 (int a, int b) { return a * b; }
static inline unsigned __umul24 (unsigned a, unsigned b) { return a * b; }
static inline float __fdividef (float a, float b) { return a / b; }
static inline float __saturatef (float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }
static inline float rsqrtf (float x) { return 1.0f / sqrtf (x); }
/* sm_80's warp reductions (__reduce_add_sync ...): every lane of mask gets
 * the reduction of the values of the lanes of mask (one REDUX instruction
 * on the GPU, no memory access; here a shuffle from each lane of mask). */
template <typename T, typename Op>
static inline T
ms_warp_reduce_ (unsigned mask, T v, Op op)
{
  T acc = v;
  bool first = true;
  for (unsigned m = mask; m; m &= m - 1)
    {
      T x = __shfl_sync (mask, v, __builtin_ctz (m));
      acc = first ? x : op (acc, x);
      first = false;
    }
  return acc;
}
static inline int __reduce_add_sync (unsigned mask, int v)
{ return ms_warp_reduce_ (mask, v, [] (int a, int b) { return a + b; }); }
static inline unsigned __reduce_add_sync (unsigned mask, unsigned v)
{ return ms_warp_reduce_ (mask, v, [] (unsigned a, unsigned b) { return a + b; }); }
static inline int __reduce_min_sync (unsigned mask, int v)
{ return ms_warp_reduce_ (mask, v, [] (int a, int b) { return b < a ? b : a; }); }
static inline unsigned __reduce_min_sync (unsigned mask, unsigned v)
{ return ms_warp_reduce_ (mask, v, [] (unsigned a, unsigned b) { return b < a ? b : a; }); }
static inline int __reduce_max_sync (unsigned mask, int v)
{ return ms_warp_reduce_ (mask, v, [] (int a, int b) { return a < b ? b : a; }); }
static inline unsigned __reduce_max_sync (unsigned mask, unsigned v)
{ return ms_warp_reduce_ (mask, v, [] (unsigned a, unsigned b) { return a < b ? b : a; }); }
static inline unsigned __reduce_and_sync (unsigned mask, unsigned v)
{ return ms_warp_reduce_ (mask, v, [] (unsigned a, unsigned b) { return a & b; }); }
static inline unsigned __reduce_or_sync (unsigned mask, unsigned v)
{ return ms_warp_reduce_ (mask, v, [] (unsigned a, unsigned b) { return a | b; }); }
static inline unsigned __reduce_xor_sync (unsigned mask, unsigned v)
{ return ms_warp_reduce_ (mask, v, [] (unsigned a, unsigned b) { return a ^ b; }); }

/* (the common type, not decltype (a < b ? a : b): that is a reference to
 * a parameter when both have one type) */
template <typename A, typename B>
static inline typename std::common_type<A, B>::type min (A a, B b) { return b < a ? b : a; }
template <typename A, typename B>
static inline typename std::common_type<A, B>::type max (A a, B b) { return a < b ? b : a; }

/* The launch entry memsim generates after the user's source, one per
 * kernel: ms_user_launch_ (kernel, L) calls the kernel with its k-th
 * pointer parameter from L->buf[k], and parameter i, when it is a number,
 * from L->f[i] (floating point) or L->i[i] (integers, enums, bool).
 * ms_user_kinds_<decltype (&kernel)>::kinds says which each parameter is:
 * 'p' pointer, 'f' floating point, 'i' integer, 's' anything else (a struct
 * by value: memsim refuses to launch the kernel, so it is never passed). */
template <typename P>
static constexpr char
ms_user_kind_ ()
{
  return std::is_pointer<P>::value ? 'p'
         : std::is_floating_point<P>::value ? 'f'
         : std::is_integral<P>::value || std::is_enum<P>::value ? 'i' : 's';
}
template <typename F> struct ms_user_kinds_;
template <typename... P> struct ms_user_kinds_<void (*) (P...)>
{
  static constexpr char kinds[sizeof... (P) + 1] = { ms_user_kind_<P> ()..., '\0' };
};
template <typename P>
static inline P
ms_user_arg_ (const MsLaunchArgs *L, int i, int pointer)
{
  if constexpr (std::is_pointer<P>::value)
    return static_cast<P> (L->buf[pointer]);
  else if constexpr (std::is_floating_point<P>::value)
    return static_cast<P> (L->f[i]);
  else if constexpr (std::is_integral<P>::value || std::is_enum<P>::value)
    return static_cast<P> (L->i[i]);
  else
    {
      alignas (P) static const unsigned char zero[sizeof (P)] = {};
      return *reinterpret_cast<const P *> (zero);   /* never launched (kind 's') */
    }
}
/* How many of the first i parameters are pointers. */
template <typename... P>
static constexpr int
ms_user_pointers_before_ (int i)
{
  constexpr bool pointer[] = { std::is_pointer<P>::value..., false };
  int n = 0;
  for (int k = 0; k < i; k++)
    n += pointer[k];
  return n;
}
template <typename... P, std::size_t... I>
static inline void
ms_user_call_ (void (*kernel) (P...), const MsLaunchArgs *L, std::index_sequence<I...>)
{
  static_assert (sizeof... (P) <= MS_MAX_ARGS, "memsim runs kernels of at most 8 parameters");
  kernel (ms_user_arg_<P> (L, (int) I, ms_user_pointers_before_<P...> ((int) I))...);
}
template <typename... P>
static inline void
ms_user_launch_ (void (*kernel) (P...), const MsLaunchArgs *L)
{
  ms_user_call_ (kernel, L, std::index_sequence_for<P...> {});
}

/* ---- `memsim run`: launches that run (traces/user/cuda-runtime.c) ----
 * user-source.c rewrites `k<<<grid, block, shared, stream>>>(args)` into
 *   k << ms_launch_config_ (grid, block, shared, stream)(args)
 * The config object packs the arguments; operator<< converts them to the
 * kernel's parameter types, as a call would, and hands memsim's runtime a
 * closure that runs the kernel for one CUDA thread, with each parameter's
 * kind ('p', 'f', 'i': ms_user_kinds_) and each argument's value: pointers
 * (to know the buffers the launch is given), integers and floating point
 * (for the report). */
extern "C" void ms_program_launch_ (const void *kernel, const char *kinds, const unsigned grid[3],
                                    const unsigned block[3], size_t shared, cudaStream_t stream,
                                    void (*thunk) (const void *closure), const void *closure,
                                    const void *const *pointers, const long long *ints,
                                    const double *floats);

struct ms_launch_config_t;
template <typename... A> struct ms_launch_call_
{
  const ms_launch_config_t *config;
  std::tuple<A...> args;
};
struct ms_launch_config_t
{
  dim3 grid, block;
  size_t shared;
  cudaStream_t stream;
  template <typename... A>
  ms_launch_call_<typename std::decay<A>::type...>
  operator() (A &&...a) const
  {
    return { this, std::tuple<typename std::decay<A>::type...> (std::forward<A> (a)...) };
  }
};
static inline ms_launch_config_t
ms_launch_config_ (dim3 grid, dim3 block, size_t shared = 0, cudaStream_t stream = 0)
{
  return { grid, block, shared, stream };
}
template <typename... P> struct ms_launch_closure_
{
  void (*kernel) (P...);
  std::tuple<typename std::decay<P>::type...> args;
  static void
  run (const void *c)
  {
    const ms_launch_closure_ *self = static_cast<const ms_launch_closure_ *> (c);
    std::apply (self->kernel, self->args);
  }
};
template <typename T>
static inline const void *
ms_launch_pointer_ (const T &v)
{
  if constexpr (std::is_pointer<T>::value)
    return (const void *) v;
  else
    return nullptr;
}
template <typename T>
static inline long long
ms_launch_int_ (const T &v)
{
  if constexpr (std::is_integral<T>::value || std::is_enum<T>::value)
    return (long long) v;
  else
    return 0;
}
template <typename T>
static inline double
ms_launch_float_ (const T &v)
{
  if constexpr (std::is_floating_point<T>::value)
    return (double) v;
  else
    return 0;
}
template <typename... P, typename... A>
static inline void
operator<< (void (*kernel) (P...), ms_launch_call_<A...> &&call)
{
  static_assert (sizeof... (P) == sizeof... (A),
                 "memsim: the launch passes a different number of arguments than the kernel "
                 "has parameters");
  ms_launch_closure_<P...> c {
    kernel, std::apply ([] (auto &...a) {
      return std::tuple<typename std::decay<P>::type...> (a...);
    }, call.args) };
  const dim3 &g = call.config->grid, &b = call.config->block;
  const unsigned grid[3] = { g.x, g.y, g.z }, block[3] = { b.x, b.y, b.z };
  std::apply ([&] (const auto &...a) {
    const void *pointers[] = { ms_launch_pointer_ (a)..., nullptr };
    const long long ints[] = { ms_launch_int_ (a)..., 0 };
    const double floats[] = { ms_launch_float_ (a)..., 0 };
    ms_program_launch_ ((const void *) kernel, ms_user_kinds_<void (*) (P...)>::kinds, grid,
                        block, call.config->shared, call.config->stream,
                        &ms_launch_closure_<P...>::run, &c, pointers, ints, floats);
  }, c.args);
}

#endif /* MEMSIM_CUDA_SHIM_H */
