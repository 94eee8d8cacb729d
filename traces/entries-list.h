/* entries-list.h - every built-in kernel entry and descriptor, one line
 * each; the registry (registry.c) lists the same names in its table. */
#define MS_FOR_EACH_KERNEL(X) \
  X (transpose_naive) X (transpose_shared) X (transpose_padded) X (transpose_padded2) \
  X (transpose_swizzled) X (copy) X (transpose_coalesced) X (transpose_nobankconflicts) \
  X (test_oob) X (test_barrier_divergence) X (test_warp_sync) X (test_shuffle) \
  X (test_divergence) X (test_atomics) X (test_early_exit) X (test_3d)

MS_FOR_EACH_KERNEL (MS_DECLARE_ENTRY)
