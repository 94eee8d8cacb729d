// atomic-lanes.cu - how Nsight Compute counts the sectors of one warp's
// global atomic when several lanes hit one address (the probe behind
// docs/model.md's atomics rule).  One block of 32 threads per launch, one
// atomicAdd per thread: lane l adds to element (l % groups) * stride, so
// `groups` distinct addresses, each hit by 32 / groups lanes, `stride`
// elements (4 bytes each) apart.  Kernel red: the result is unused (nvcc
// emits RED); kernel atom: the result is stored (ATOM).
//   nvcc -O3 -arch=sm_90 -o atomic-lanes gpu/probes/atomic-lanes.cu
//   ncu --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum,... ./atomic-lanes
#include <cstdio>
#include <cuda_runtime.h>

__global__ void red(int *bins, int groups, int stride)
{
    atomicAdd(&bins[(threadIdx.x % groups) * stride], 1);
}

__global__ void atom(int *bins, int *out, int groups, int stride)
{
    out[threadIdx.x] = atomicAdd(&bins[(threadIdx.x % groups) * stride], 1);
}

int main()
{
    const int cases[][2] = { { 1, 1 }, { 2, 1 }, { 4, 1 }, { 8, 1 }, { 32, 1 },
                             { 2, 8 }, { 4, 8 }, { 8, 8 }, { 16, 8 }, { 32, 8 },
                             { 2, 32 }, { 4, 32 }, { 16, 32 } };
    int *bins, *out;
    cudaMalloc(&bins, 32 * 32 * sizeof(int));
    cudaMalloc(&out, 32 * sizeof(int));
    for (auto &c : cases) {
        cudaMemset(bins, 0, 32 * 32 * sizeof(int));
        red<<<1, 32>>>(bins, c[0], c[1]);
        atom<<<1, 32>>>(bins, out, c[0], c[1]);
        printf("groups %d stride %d\n", c[0], c[1]);
    }
    cudaDeviceSynchronize();
    return 0;
}
