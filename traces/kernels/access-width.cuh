/* access-width.cuh - the access-pattern kernels whose only difference is
 * the element width, written once and included by access.cu once per
 * width with (all #undef'd at the end):
 *   ACCESS_W           the width in bytes (1, 2, 4, 8, 16): the name suffix
 *   T                  the element type (a template parameter, in effect)
 *   ACCESS_OF_INDEX(k) the element value a store writes for index k
 *   ACCESS_ZERO        a zero element (widths 4, 8, 16: smem_gather)
 *   ACCESS_ATOMIC_INC(p)  atomicAdd of 1 to the element's bits (4, 8)
 * The kernels are described in access.cu. */

#define ACCESS_NAME__(base, w) base##_##w
#define ACCESS_NAME_(base, w) ACCESS_NAME__ (base, w)
#define ACCESS_NAME(base) ACCESS_NAME_ (base, ACCESS_W)

__global__ void ACCESS_NAME (gmem_stride) (T *out, const T *in, int n, int stride,
                                           int offset)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    T v = LD (in[(size_t) i * stride + offset]);
    ST (out[i], v);
  }
}

__global__ void ACCESS_NAME (smem_stride) (T *out, const T *in, int n, int stride,
                                           int op, int elems)
{
  SHARED_ARRAY (T, sh, SMEM_MAX_ELEMS_OF_WIDTH (ACCESS_W));
  unsigned int tid = threadIdx.x, g = blockIdx.x * blockDim.x + tid;
  unsigned int idx = (tid % 32) * stride + tid / 32;
  T v;
  if (op == 0) {
    for (unsigned int j = tid; j < (unsigned) elems; j += blockDim.x)
      ST (sh[j], LD (in[j]));
    __syncthreads ();
    v = LD (sh[idx]);                               /* the strided access (load) */
  } else {
    ST (sh[idx], ACCESS_OF_INDEX (idx));            /* the strided access (store) */
    __syncthreads ();
    v = LD (sh[idx]);
  }
  if (g < (unsigned) n)
    ST (out[g], v);
}

#if ACCESS_W >= 4
__global__ void ACCESS_NAME (smem_gather) (T *out, const T *in, const int *pattern,
                                           int n, int op, int mask)
{
  SHARED_ARRAY (T, sh, GATHER_ELEMS);
  unsigned int tid = threadIdx.x, g = blockIdx.x * blockDim.x + tid, lane = tid % 32;
  int e = LD (pattern[lane]);
  T v = ACCESS_ZERO;
  if (op == 0) {
    for (unsigned int j = tid; j < GATHER_ELEMS; j += blockDim.x)
      ST (sh[j], LD (in[j]));
    __syncthreads ();
    if (lane < (unsigned) mask)
      v = LD (sh[e]);                               /* the gather (load) */
#ifdef ACCESS_ATOMIC_INC
  } else if (op == 1) {
#else
  } else {
#endif
    if (lane < (unsigned) mask)
      ST (sh[e], ACCESS_OF_INDEX (e));              /* the scatter (store) */
    __syncthreads ();
    if (lane < (unsigned) mask)
      v = LD (sh[e]);
#ifdef ACCESS_ATOMIC_INC
  } else {                                          /* op 2 */
    for (unsigned int j = tid; j < GATHER_ELEMS; j += blockDim.x)
      ST (sh[j], LD (in[j]));
    __syncthreads ();
    if (lane < (unsigned) mask)
      ACCESS_ATOMIC_INC (&sh[e]);                   /* the atomic */
    __syncthreads ();
    if (lane < (unsigned) mask)
      v = LD (sh[e]);
#endif
  }
  if (g < (unsigned) n)
    ST (out[g], v);
}
#endif

#undef ACCESS_NAME
#undef ACCESS_NAME_
#undef ACCESS_NAME__
#undef ACCESS_W
#undef T
#undef ACCESS_OF_INDEX
#undef ACCESS_ZERO
#undef ACCESS_ATOMIC_INC
