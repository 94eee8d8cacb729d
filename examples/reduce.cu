// reduce.cu - a block-wide sum in plain CUDA, two ways: a tree in dynamic
// shared memory (the size comes from --dynamic-shared), and warp shuffles
// with one shared word per warp (examples/README.md has the commands).

// One partial sum per block: out[blockIdx.x].
__global__ void block_sum_shared(int *out, const int *in, int n)
{
    extern __shared__ int partial[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + tid;
    partial[tid] = i < (unsigned) n ? in[i] : 0;
    __syncthreads();
    for (unsigned int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (tid < stride)
            partial[tid] += partial[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = partial[0];
}

__device__ int warp_sum(int v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    return v;
}

__global__ void block_sum_shfl(int *out, const int *in, int n)
{
    __shared__ int per_warp[32];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = warp_sum(i < (unsigned) n ? in[i] : 0);
    if (threadIdx.x % 32 == 0)
        per_warp[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < blockDim.x / 32 ? per_warp[threadIdx.x] : 0;
        v = warp_sum(v);
        if (threadIdx.x == 0)
            out[blockIdx.x] = v;
    }
}
