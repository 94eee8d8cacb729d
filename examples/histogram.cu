// histogram.cu - a 64-bin histogram of byte values, two ways (plain CUDA).
//
// histogram_global: every thread adds 1 to a bin in global memory.  The
// result of atomicAdd is unused, so nvcc emits a RED (reduction) and Nsight
// counts it under ..._op_red; memsim reports it as a reduction too.
// Threads of a warp that hit the same bin share a sector, so the requests
// stay one per warp but the L2 serialises the updates.
//
// histogram_shared: each block counts into a private __shared__ copy
// (shared atomics: ATOMS), then adds its 64 bins to global memory once.
#define BINS 64

__global__ void histogram_global(unsigned *bins, const unsigned char *data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&bins[data[i] % BINS], 1u);
}

__global__ void histogram_shared(unsigned *bins, const unsigned char *data, int n)
{
    __shared__ unsigned local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&local[data[i] % BINS], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        atomicAdd(&bins[b], local[b]);
}
