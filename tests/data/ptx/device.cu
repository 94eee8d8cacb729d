// Device-side features for tests/test-ptx.c: the device runtime's calls
// (printf, assert, malloc/free), calls of functions nvcc does not inline,
// cp.async and mbarriers.  Compiled by nvcc to PTX at test time; what each
// kernel must give is derived by hand there.
#include <assert.h>
#include <cuda_pipeline.h>

// printf's argument buffer: an int, a double (the float promoted) after 4
// bytes of padding, an unsigned, a string pointer after 4 more, a long
// long, a char, an int: each at a multiple of its size
__global__ void print_args(int base)
{
  long long big = 1LL << 40;
  printf("t%d: %5.2f/%u %s %lld %c|%x\n", threadIdx.x, base + 0.25f * threadIdx.x, blockIdx.x,
         threadIdx.x & 1 ? "odd" : "even", big + threadIdx.x, 'A' + threadIdx.x, 255);
}

// a failed assert prints CUDA's line for each lane and fails the launch
__global__ void check_positive(const int *in)
{
  assert(in[threadIdx.x] > 0);
}

// a function nvcc keeps (a call with .param arguments and a result),
// called twice; its two returns
__device__ __noinline__ float scale_add(float x, float y, int k)
{
  if (k > 2)
    return x * k + y;
  return x - y;
}

__global__ void call_noinline(const float *a, float *out)
{
  int t = threadIdx.x;
  out[t] = scale_add(a[t], 1.0f, t % 4) + scale_add(2.0f, a[t], 3);
}

// cp.async (LDGSTS) of one float4 a thread into shared memory, read back
// reversed after the wait
__global__ void async_copy(const float4 *in, float *out)
{
  __shared__ float4 tile[64];
  __pipeline_memcpy_async(&tile[threadIdx.x], &in[threadIdx.x], sizeof(float4));
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
  float4 v = tile[63 - threadIdx.x];
  out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

// an mbarrier between two warps: warp 1 writes and arrives, warp 0 waits
// for the phase to complete (spinning on try_wait) and reads
__global__ void mbar_exchange(int *out)
{
  __shared__ unsigned long long bar;
  __shared__ int data[32];
  unsigned addr = (unsigned) __cvta_generic_to_shared(&bar);
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(addr), "r"(32) : "memory");
  __syncthreads();
  if (threadIdx.x >= 32)
    {
      data[threadIdx.x - 32] = threadIdx.x * 10;
      unsigned long long state;
      asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(addr) : "memory");
      (void) state;
    }
  else
    {
      asm volatile("{\n\t.reg .pred p;\n"
                   "WAIT%=:\n\t"
                   "mbarrier.try_wait.parity.shared.b64 p, [%0], %1;\n\t"
                   "@!p bra WAIT%=;\n}" ::"r"(addr), "r"(0) : "memory");
      out[threadIdx.x] = data[threadIdx.x];
    }
}

// device malloc and free: each thread allocates, fills and frees a block
// of its own; thread 0 of the block keeps a shared one for the others
__global__ void heap_use(int *out)
{
  __shared__ int *shared_block;
  int t = threadIdx.x;
  int *mine = (int *) malloc(4 * sizeof(int));
  for (int k = 0; k < 4; k++)
    mine[k] = t + k;
  if (t == 0)
    shared_block = (int *) malloc(64 * sizeof(int));
  __syncthreads();
  shared_block[t] = mine[0] + mine[3];
  free(mine);
  __syncthreads();
  out[t] = shared_block[63 - t];
  __syncthreads();
  if (t == 0)
    free(shared_block);
}

// virtual functions: objects made by new in one launch, their functions
// called through the vtable (an indirect call) and deleted in the next
struct Shape
{
  __device__ virtual float area(float s) const = 0;
  __device__ virtual ~Shape() {}
};
struct Square : Shape
{
  __device__ float area(float s) const override { return s * s; }
};
struct Triangle : Shape
{
  __device__ float area(float s) const override { return 0.5f * s * s; }
};

__global__ void make_shapes(Shape **shapes)
{
  int t = threadIdx.x;
  if (t & 1)
    shapes[t] = new Triangle;
  else
    shapes[t] = new Square;
}

__global__ void shape_areas(Shape **shapes, const float *side, float *out)
{
  int t = threadIdx.x;
  out[t] = shapes[t]->area(side[t]);
  delete shapes[t];
}

// __match_any_sync and __match_all_sync (match.sync): lanes of equal value
__global__ void match_lanes(const int *in, unsigned *out)
{
  int t = threadIdx.x;
  int pred;
  out[t] = __match_any_sync(0xffffffffu, in[t]);
  out[32 + t] = __match_all_sync(0xffffffffu, in[t] / 100, &pred);
  out[64 + t] = pred;
}
