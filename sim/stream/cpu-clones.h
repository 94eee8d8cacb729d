/* cpu-clones.h - the emulator's hot functions, compiled twice.
 *
 * A function marked MS_CPU_CLONES is built for the x86-64 baseline (SSE2)
 * and for AVX2, and the dynamic loader picks the copy for the CPU it runs
 * on (GCC's target_clones: an ifunc).  The functions so marked are the
 * per-record work whose loops over a warp's 32 lanes gcc vectorises: the
 * warp-wide kernels (translated from PTX), ms_warp_access and the coalescing
 * cost.  (Not the cache and bank costs: a cloned function stops gcc from
 * inlining the static helpers that hold their loops -- the bank memo,
 * the cache's column and line list -- which then ran once, uncloned, as
 * calls: 0.2-0.6% more instructions than one copy.)  With AVX2 a step takes 8 lanes instead of 4 and a 32-bit
 * multiply is one instruction (SSE2 has none): callgrind, 7-8% fewer
 * instructions on transpose_naive, reduce_sequential and gemm_tiled
 * (docs/performance.md).
 *
 * Neither copy changes a result: both are the same C, integer work and
 * float additions and multiplications of the same IEEE single and double
 * precision ("avx2" does not let gcc contract a*b+c into an FMA, which
 * would round once instead of twice).  configure's --disable-cpu-clones,
 * another compiler than GCC or another CPU than x86-64: one copy.
 * Internal to memsim's build.
 */
#pragma once

/* (config.h first, as in every .c file of memsim) */
#if defined (MS_HAVE_CPU_CLONES) && defined (__x86_64__) && defined (__GNUC__) \
    && !defined (__clang__)
#define MS_CPU_CLONES __attribute__ ((target_clones ("avx2", "default")))
/* TRUE where the AVX2 copies run: a loop of GCC's vectors of four 64-bit
 * lanes is one register there but slower than two lanes a vector in the
 * baseline copy (no macro tells the copies apart at compile time) */
#define MS_CPU_HAS_AVX2() __builtin_cpu_supports ("avx2")
#else
#define MS_CPU_CLONES
#define MS_CPU_HAS_AVX2() 0
#endif
