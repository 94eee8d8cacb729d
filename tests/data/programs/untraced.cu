// untraced.cu - launches that memsim run --launches 1 runs free (without the
// models: MsLaunch.free_running): shared memory with barriers, a shared
// atomic on bytes written without a stop, warp shuffles, whole warps storing
// rows of 4- and 8-byte values; their results are checked here.  The last
// launch reads past its buffer (or, with an argument, stores past it): an
// untraced launch still reports it, exit status 1.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void blockSums(int *out, const int *in)
{
    __shared__ int tile[128];
    __shared__ int total;
    int t = threadIdx.x;
    tile[t] = in[blockIdx.x * 128 + t];
    if (t == 0)
        total = 0;
    __syncthreads();
    int v = tile[127 - t];             // another warp's element
    __syncthreads();
    atomicAdd(&total, v);              // a stop, on bytes stored without one
    __syncthreads();
    if (t == 0)
        out[blockIdx.x] = total;
}

__global__ void warpSums(int *out, const int *in)
{
    int v = in[blockIdx.x * 64 + threadIdx.x];
    for (int d = 16; d > 0; d /= 2)
        v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0)
        out[blockIdx.x * 2 + threadIdx.x / 32] = v;
}

// a row of ints and a row of doubles a warp: whole-warp row stores
__global__ void rows(int *out, double *wide, const int *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i] * 3 + 1;
    wide[i] = in[i] * 0.5;
}

__global__ void shift(int *out, const int *in, int n)
{
    if (threadIdx.x < n)
        out[threadIdx.x] = in[threadIdx.x + 1];
}

__global__ void shiftStore(int *out, const int *in, int n)
{
    if (threadIdx.x < n)
        out[threadIdx.x + 1] = in[threadIdx.x];
}

int main(int argc, char **argv)
{
    const int blocks = 6, n = blocks * 128;
    int host[n], sums[blocks * 2], got[n];
    double got_wide[n];
    int *in, *out;
    double *wide;
    cudaMalloc(&in, n * sizeof(int));
    cudaMalloc(&out, n * sizeof(int));
    cudaMalloc(&wide, n * sizeof(double));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < n; i++)
            host[i] = (i * 7 + round) % 13 - 6;
        cudaMemcpy(in, host, sizeof host, cudaMemcpyHostToDevice);
        blockSums<<<blocks, 128>>>(out, in);
        cudaMemcpy(sums, out, blocks * sizeof(int), cudaMemcpyDeviceToHost);
        for (int b = 0; b < blocks; b++) {
            int want = 0;
            for (int t = 0; t < 128; t++)
                want += host[b * 128 + t];
            if (sums[b] != want) {
                printf("blockSums round %d block %d: %d, expected %d\n", round, b, sums[b], want);
                return 2;
            }
        }
        warpSums<<<blocks * 2, 64>>>(out, in);
        cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost);
        for (int w = 0; w < blocks * 2 * 2; w++) {
            int want = 0;
            for (int l = 0; l < 32; l++)
                want += host[w * 32 + l];
            if (w < blocks * 2 && sums[w] != want) {
                printf("warpSums round %d warp %d: %d, expected %d\n", round, w, sums[w], want);
                return 2;
            }
        }
        rows<<<blocks, 128>>>(out, wide, in);
        cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
        cudaMemcpy(got_wide, wide, sizeof got_wide, cudaMemcpyDeviceToHost);
        for (int i = 0; i < n; i++)
            if (got[i] != host[i] * 3 + 1 || got_wide[i] != host[i] * 0.5) {
                printf("rows round %d element %d: %d %g, expected %d %g\n", round, i, got[i],
                       got_wide[i], host[i] * 3 + 1, host[i] * 0.5);
                return 2;
            }
    }
    printf("untraced checks passed\n");
    fflush(stdout);
    shift<<<1, 32>>>(out, in, 31);     // in bounds
    if (argc > 1)
        shiftStore<<<1, n>>>(out, in, n);   // the last thread stores out[n]
    else
        shift<<<1, n>>>(out, in, n);   // the last thread reads in[n]
    cudaDeviceSynchronize();
    return 0;
}
