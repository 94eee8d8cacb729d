// gridsync.cu - grid-wide barriers (cg::this_grid().sync()) in cooperative
// launches (tests/test-run.c).  Exit 0 when every result is the one worked
// out below; with the argument "plain", exchange is launched with <<< >>>,
// which has no grid workspace: the kernel traps (memsim's one-line error);
// with "deadlock", a barrier that block 0 never reaches (a GPU hangs,
// memsim says so in one line).
#include <cooperative_groups.h>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// Each thread stores its block's number + 1, waits for the grid, then
// copies the value of the thread one block further on (the last block
// reads block 0's).  Without the barrier, blocks run one after another
// would read the next block's values before it wrote them: 0.
__global__ void exchange(int *a, int *b)
{
    cg::grid_group grid = cg::this_grid();
    unsigned n = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
    a[i] = blockIdx.x + 1;
    grid.sync();
    b[i] = a[(i + blockDim.x) % n];
}

// Round r: block r mod G writes v[r + 1] = v[r] + r, which block
// (r - 1) mod G wrote the round before; a barrier between rounds.  So
// v[rounds] = 0 + 1 + ... + (rounds - 1), over many barriers (the
// workspace's flag flips back and forth).
__global__ void relay(int *v, int rounds)
{
    cg::grid_group grid = cg::this_grid();
    for (int r = 0; r < rounds; r++) {
        if (threadIdx.x == 0 && blockIdx.x == r % gridDim.x)
            v[r + 1] = v[r] + r;
        grid.sync();
    }
}

// Block 0 skips the barrier the others wait at.
__global__ void unequal(int *a)
{
    cg::grid_group grid = cg::this_grid();
    if (blockIdx.x != 0)
        grid.sync();
    a[blockIdx.x] = 1;
}

static int check(const int *h, int n, int threads, int blocks)
{
    for (int i = 0; i < n; i++) {
        int want = (i / threads + 1) % blocks + 1;
        if (h[i] != want) {
            printf("b[%d] = %d, expected %d\n", i, h[i], want);
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv)
{
    const int blocks = 4, threads = 64, n = blocks * threads, rounds = 10;
    int *a, *b, *v, h[n];
    cudaMalloc(&a, n * sizeof(int));
    cudaMalloc(&b, n * sizeof(int));
    cudaMalloc(&v, (rounds + 1) * sizeof(int));
    cudaMemset(v, 0, (rounds + 1) * sizeof(int));
    if (argc > 1 && strcmp(argv[1], "plain") == 0) {
        exchange<<<blocks, threads>>>(a, b);
        cudaDeviceSynchronize();
        return 3;
    }
    void *args[] = {&a, &b};
    if (argc > 1 && strcmp(argv[1], "deadlock") == 0) {
        cudaLaunchCooperativeKernel((void *)unequal, blocks, threads, args, 0, 0);
        cudaDeviceSynchronize();
        return 3;
    }
    if (cudaLaunchCooperativeKernel((void *)exchange, blocks, threads, args, 0, 0) != cudaSuccess)
        return 1;
    cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost);
    if (!check(h, n, threads, blocks))
        return 2;

    // the same through cudaLaunchKernelEx's cooperative attribute
    cudaMemset(b, 0, sizeof h);
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = blocks;
    config.blockDim = threads;
    config.attrs = &attr;
    config.numAttrs = 1;
    if (cudaLaunchKernelEx(&config, exchange, a, b) != cudaSuccess)
        return 1;
    cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost);
    if (!check(h, n, threads, blocks))
        return 2;

    int r = rounds;
    void *relay_args[] = {&v, &r};
    if (cudaLaunchCooperativeKernel((void *)relay, 3, 32, relay_args, 0, 0) != cudaSuccess)
        return 1;
    int last = -1;
    cudaMemcpy(&last, v + rounds, sizeof last, cudaMemcpyDeviceToHost);
    if (last != rounds * (rounds - 1) / 2) {
        printf("v[%d] = %d, expected %d\n", rounds, last, rounds * (rounds - 1) / 2);
        return 2;
    }

    // more blocks than the device holds at once: refused, nothing runs
    int per_sm = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, exchange, threads, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    if (cudaLaunchCooperativeKernel((void *)exchange, per_sm * sms + 1, threads, args, 0, 0)
        != cudaErrorCooperativeLaunchTooLarge)
        return 4;
    cudaGetLastError();
    printf("gridsync: all checks passed\n");
    return 0;
}
