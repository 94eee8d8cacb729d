// reduce.cu - plain-CUDA copies of built-in reductions (traces/kernels/reduce.cu)
// for tests/test-user.c: the shared array is `extern __shared__` here (size
// from --dynamic-shared), a __device__ helper does the warp-synchronous last
// steps on volatile memory, and reduce_shfl uses warp shuffles.
#include <cuda_runtime.h>

__device__ void warp_reduce(volatile int *s, unsigned int tid)
{
    s[tid] += s[tid + 32];
    s[tid] += s[tid + 16];
    s[tid] += s[tid + 8];
    s[tid] += s[tid + 4];
    s[tid] += s[tid + 2];
    s[tid] += s[tid + 1];
}

__global__ void reduce_sequential(int *out, const int *in, int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    sdata[tid] = i < (unsigned) n ? in[i] : 0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

__global__ void reduce_unroll_last(int *out, const int *in, int n)
{
    extern __shared__ int sdata[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + tid;
    int v = i < (unsigned) n ? in[i] : 0;
    if (i + blockDim.x < (unsigned) n)
        v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        warp_reduce(sdata, tid);
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

__device__ int warp_sum(int sum)
{
    for (int m = 16; m >= 1; m /= 2)
        sum += __shfl_xor_sync(0xffffffff, sum, m);
    return sum;
}

__global__ void reduce_shfl(int *out, const int *in, int n)
{
    __shared__ int smem[32];
    unsigned int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int my_sum = idx < (unsigned) n ? in[idx] : 0;
    int lane = threadIdx.x % warpSize;
    int warp = threadIdx.x / warpSize;
    my_sum = warp_sum(my_sum);
    if (lane == 0)
        smem[warp] = my_sum;
    __syncthreads();
    my_sum = (threadIdx.x < blockDim.x / warpSize) ? smem[lane] : 0;
    if (warp == 0)
        my_sum = warp_sum(my_sum);
    if (threadIdx.x == 0)
        out[blockIdx.x] = my_sum;
}
