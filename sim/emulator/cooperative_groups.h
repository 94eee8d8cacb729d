/* cooperative_groups.h - CUDA's cooperative groups on the CPU, for users'
 * files (`memsim trace FILE.cu:KERNEL`, `memsim run PROGRAM.cu`).
 *
 * memsim writes this file beside its CUDA shim (traces/user/user-build.c),
 * so `#include <cooperative_groups.h>` (and <cooperative_groups/reduce.h>)
 * finds it.  The groups a block can form without the GPU's help, on the
 * emulator's primitives (sim/emulator/kernel.h): the thread block, tiles
 * (of up to 32 threads with their shuffles and votes; larger ones with
 * sync and cg::reduce), cg::reduce, and the coalesced group of the active
 * lanes.  Grid and multi-grid groups (cooperative launches) stop the
 * compiler with a message that names them.
 *
 * Modelling assumptions: cg::reduce over a tile of up to 32 threads is a
 * butterfly of shfl_xor (what nvcc emits for floating point; for 32-bit
 * integers on sm_80+ it emits one REDUX instruction): no memory access
 * either way.  Over a tile of several warps it follows CUDA's library for
 * sm_80+ (cooperative_groups/details/reduce.h and sync.h, read, not
 * copied): each warp stores its total to its slot of a shared scratch
 * (all lanes), its lane 0 sets the warp's bit in a shared barrier word
 * (an atomic OR); the tile's last warp to arrive loads the tile's slots
 * (one lane per warp), reduces them, stores the total back to every slot
 * and clears the tile's bits (an atomic AND), while the others wait by
 * loading the barrier word; then every thread loads its warp's slot.
 * Forming such a tile (tiled_partition) clears each warp's bit (an atomic
 * AND by lane 0) and syncs the block.  Warps run in order here, so the
 * last to arrive is the tile's last warp and a waiting warp loads the
 * barrier word once; on the GPU it spins, so its loads are a lower bound
 * (the reduction sample's kernel 9: 18 shared loads per block here, 24 on
 * the H100; its 12 stores agree).
 */
#ifndef MEMSIM_COOPERATIVE_GROUPS_H
#define MEMSIM_COOPERATIVE_GROUPS_H

namespace cooperative_groups {

/* The thread's rank in its block, x fastest. */
static inline unsigned
ms_cg_block_rank_ ()
{
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

class thread_block
{
public:
  static void sync () { __syncthreads (); }
  static unsigned thread_rank () { return ms_cg_block_rank_ (); }
  static unsigned size () { return blockDim.x * blockDim.y * blockDim.z; }
  static unsigned num_threads () { return size (); }
  static dim3 group_index () { return blockIdx; }
  static dim3 thread_index () { return threadIdx; }
  static dim3 group_dim () { return blockDim; }
  static dim3 dim_threads () { return blockDim; }
};

static inline thread_block
this_thread_block ()
{
  return thread_block ();
}

/* A tile of N threads: N a power of two up to 1024.  Tiles of up to 32
 * threads are part of one warp (shuffles, votes, __syncwarp); larger ones
 * span warps: sync() is then a block barrier (every tile of the block
 * syncs together, as the kernels that use them do) and cg::reduce goes
 * through shared memory. */
template <unsigned N> class thread_block_tile
{
  static_assert (N >= 1 && N <= 1024 && (N & (N - 1)) == 0,
                 "a tile has a power of two threads, at most 1024");
  /* the tile's lanes within the warp */
  static unsigned first_lane () { return N >= 32 ? 0 : ms_cg_block_rank_ () % 32 / N * N; }

public:
  static unsigned mask () { return (N >= 32 ? 0xffffffffu : ((1u << N) - 1)) << first_lane (); }
  static void sync ()
  {
    if constexpr (N <= 32)
      __syncwarp (mask ());
    else
      __syncthreads ();
  }
  static unsigned thread_rank () { return ms_cg_block_rank_ () % N; }
  static constexpr unsigned size () { return N; }
  static constexpr unsigned num_threads () { return N; }
  static unsigned meta_group_rank () { return ms_cg_block_rank_ () / N; }
  static unsigned meta_group_size () { return (thread_block::size () + N - 1) / N; }
  template <typename T> T shfl (T v, int src) const
  {
    static_assert (N <= 32, "shuffles are for tiles of at most 32 threads");
    return __shfl_sync (mask (), v, src, N);
  }
  template <typename T> T shfl_down (T v, unsigned d) const
  {
    static_assert (N <= 32, "shuffles are for tiles of at most 32 threads");
    return __shfl_down_sync (mask (), v, d, N);
  }
  template <typename T> T shfl_up (T v, unsigned d) const
  {
    static_assert (N <= 32, "shuffles are for tiles of at most 32 threads");
    return __shfl_up_sync (mask (), v, d, N);
  }
  template <typename T> T shfl_xor (T v, unsigned m) const
  {
    static_assert (N <= 32, "shuffles are for tiles of at most 32 threads");
    return __shfl_xor_sync (mask (), v, m, N);
  }
  int any (int p) const { return __any_sync (mask (), p); }
  int all (int p) const { return __all_sync (mask (), p); }
  unsigned ballot (int p) const { return __ballot_sync (mask (), p) >> first_lane (); }
};

/* The shared scratch of tiles of several warps: a slot per warp, and the
 * barrier word whose bit w says that warp w has arrived (memsim's own
 * arrays: the kernel's block_tile_memory stays unused). */
template <typename T>
static inline T &
ms_cg_slot_ (unsigned warp)
{
  /* 8 bytes a slot, CUDA's limit for these collectives too */
  return *reinterpret_cast<T *> (&ms_shared_ref_<unsigned long long[32], -1> (8)[warp]);
}

static inline unsigned &
ms_cg_arrived_ ()
{
  return ms_shared_ref_<unsigned[1], -2> (4)[0];
}

template <unsigned N, typename Parent>
static inline thread_block_tile<N>
tiled_partition (const Parent &)
{
  if constexpr (N > 32)
    {
      /* each warp clears its bit of the barrier word, then the block syncs */
      unsigned rank = ms_cg_block_rank_ ();
      if (rank % 32 == 0)
        atomicAnd (&ms_cg_arrived_ (), ~(1u << rank / 32));
      __syncthreads ();
    }
  return thread_block_tile<N> ();
}

/* The scratch memory CUDA wants for tiles larger than a warp: declared
 * __shared__ by the kernel, as on the GPU (memsim's reduction keeps its own). */
template <unsigned MaxBlockSize, unsigned TileCount = 0> struct block_tile_memory
{
  unsigned long long data[(MaxBlockSize + 31) / 32 + 1];
};

template <unsigned B, unsigned C>
static inline thread_block
this_thread_block (block_tile_memory<B, C> &)
{
  return thread_block ();
}

template <typename Group>
static inline void
sync (const Group &g)
{
  g.sync ();
}

/* The lanes of the warp that are active where it is formed. */
class coalesced_group
{
  unsigned lanes;

  static unsigned lane () { return ms_cg_block_rank_ () % 32; }

public:
  explicit coalesced_group (unsigned m) : lanes (m) {}
  unsigned mask () const { return lanes; }
  void sync () const { __syncwarp (lanes); }
  unsigned size () const { return (unsigned) __builtin_popcount (lanes); }
  unsigned num_threads () const { return size (); }
  unsigned thread_rank () const
  {
    return (unsigned) __builtin_popcount (lanes & ((1u << lane ()) - 1));
  }
  /* the lane of rank r */
  unsigned lane_of (unsigned r) const
  {
    unsigned m = lanes;
    for (unsigned i = 0; i < r && m; i++)
      m &= m - 1;
    return m ? (unsigned) __builtin_ctz (m) : lane ();
  }
  template <typename T> T shfl (T v, unsigned r) const
  {
    return __shfl_sync (lanes, v, (int) lane_of (r));
  }
  template <typename T> T shfl_down (T v, unsigned d) const
  {
    unsigned r = thread_rank () + d;
    return __shfl_sync (lanes, v, (int) lane_of (r < size () ? r : thread_rank ()));
  }
  template <typename T> T shfl_up (T v, unsigned d) const
  {
    unsigned r = thread_rank ();
    return __shfl_sync (lanes, v, (int) lane_of (r >= d ? r - d : r));
  }
  int any (int p) const { return __any_sync (lanes, p); }
  int all (int p) const { return __all_sync (lanes, p); }
  unsigned ballot (int p) const
  {
    unsigned b = __ballot_sync (lanes, p), out = 0, k = 0;
    for (unsigned m = lanes; m; m &= m - 1, k++)
      if (b & (1u << __builtin_ctz (m)))
        out |= 1u << k;
    return out;
  }
};

static inline coalesced_group
coalesced_threads ()
{
  return coalesced_group (__activemask ());
}

template <typename T> struct plus { T operator() (T a, T b) const { return a + b; } };
template <typename T> struct less { T operator() (T a, T b) const { return b < a ? b : a; } };
template <typename T> struct greater { T operator() (T a, T b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { T operator() (T a, T b) const { return a & b; } };
template <typename T> struct bit_or { T operator() (T a, T b) const { return a | b; } };
template <typename T> struct bit_xor { T operator() (T a, T b) const { return a ^ b; } };

template <unsigned N, typename T, typename Op>
static inline T
reduce (const thread_block_tile<N> &g, T v, Op op)
{
  if constexpr (N <= 32)
    {
      for (unsigned m = N / 2; m > 0; m /= 2)
        v = op (v, g.shfl_xor (v, m));
      return v;
    }
  else
    {
      /* the scheme of the opening comment */
      static_assert (sizeof (T) <= 8, "cg::reduce over tiles of several warps: at most 8 bytes");
      constexpr unsigned W = N / 32;   /* warps of the tile */
      for (unsigned m = 16; m > 0; m /= 2)
        v = op (v, __shfl_xor_sync (0xffffffffu, v, m));
      unsigned &arrived = ms_cg_arrived_ ();
      unsigned rank = ms_cg_block_rank_ (), warp = rank / 32, lane = rank % 32;
      unsigned first = rank / N * W, bits = (W == 32 ? ~0u : (1u << W) - 1) << first;
      ms_cg_slot_<T> (warp) = v;
      if (lane == 0)
        atomicOr (&arrived, 1u << warp);
      __syncthreads ();
      bool last = warp == first + W - 1;
      if (last)
        {
          if (lane < W)
            {
              T t = ms_cg_slot_<T> (first + lane);
              for (unsigned m = W / 2; m > 0; m /= 2)
                t = op (t, __shfl_xor_sync (W == 32 ? ~0u : (1u << W) - 1, t, m, W));
              ms_cg_slot_<T> (first + lane) = t;
            }
          if (lane == 0)
            atomicAnd (&arrived, ~bits);
        }
      __syncthreads ();
      if (!last)
        (void) *(volatile unsigned *) &arrived;   /* the wait: released already */
      return ms_cg_slot_<T> (warp);
    }
}

template <typename T, typename Op>
static inline T
reduce (const coalesced_group &g, T v, Op op)
{
  /* rank 0 gathers, then everyone reads its result */
  T acc = v;
  for (unsigned d = 1; d < g.size (); d *= 2)
    {
      T other = g.shfl_down (acc, d);
      if (g.thread_rank () % (2 * d) == 0 && g.thread_rank () + d < g.size ())
        acc = op (acc, other);
    }
  return g.shfl (acc, 0);
}

/* What needs the GPU's help: named, so that the compiler's error says it. */
struct grid_group;
grid_group this_grid ();   /* memsim: grid groups need a cooperative launch (not supported) */

} // namespace cooperative_groups

#endif /* MEMSIM_COOPERATIVE_GROUPS_H */
