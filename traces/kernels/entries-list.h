/* entries-list.h - every built-in kernel entry and descriptor, one line
 * each; the registry (registry.c) lists the same names in its table. */
#define MS_FOR_EACH_KERNEL(X) \
  X (transpose_naive) X (transpose_shared) X (transpose_padded) X (transpose_padded2) \
  X (transpose_swizzled) X (copy) X (transpose_coalesced) X (transpose_nobankconflicts) \
  X (reduce_interleaved) X (reduce_nondivergent) X (reduce_sequential) X (reduce_firstadd) \
  X (reduce_unroll_last) X (reduce_unroll_complete) X (reduce_multiple) X (reduce_shfl) \
  X (stencil_naive) X (stencil_shared) X (stencil_nondivergent) X (stencil_25d) \
  X (stencil_25d_single) \
  X (gemm_naive) X (gemm_tiled) X (gemm_tiled_nopad) X (gemm_regtile) X (gemm_double_buffer) \
  X (matrix_add) X (gmem_stride) X (smem_stride) X (smem_gather) X (aos_read) X (soa_read) \
  X (aos_float3_read) X (broadcast_read) X (per_thread_sum) X (per_thread_sum_capped) \
  X (test_oob) X (test_barrier_divergence) X (test_collective_deadlock) \
  X (test_shfl_width) X (test_warp_sync) X (test_shuffle) \
  X (test_divergence) X (test_atomics) X (test_early_exit) X (test_3d) \
  X (test_wild_pointer) X (test_uninitialised) \
  X (test_warp_flag) X (test_lane_lock) X (test_race_transpose) X (test_race_phases) \
  X (test_warp_global) X (test_late_divergence) X (test_long_divergence)

MS_FOR_EACH_KERNEL (MS_DECLARE_ENTRY)
