// long-loop.cu - a block that runs more than 2^26 warp-level instructions.
// long_loop stores its running count on each of 2^25 + 2^21 iterations (a
// load and a store each: 2^26 + 2^22 memory instructions, and the loop's
// arithmetic): a long loop, which memsim runs to its end.  With the
// argument `spin`, block 0 waits for a flag that block 1 sets; memsim runs
// block 0 first (on one emulator thread), so block 0 spins reading the
// flag, writing nothing, and memsim stops the program with the deadlock
// error.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

__global__ void long_loop(volatile unsigned *sum, int n)
{
    for (int i = 0; i < n; i++)
        sum[threadIdx.x] = sum[threadIdx.x] + 1;
}

__global__ void spin(volatile int *flag)
{
    if (blockIdx.x == 0)
        while (*flag == 0)
            ;
    else
        *flag = 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "spin") == 0) {
        int *flag;
        cudaMalloc(&flag, sizeof(int));
        cudaMemset(flag, 0, sizeof(int));
        spin<<<2, 32>>>(flag);
        cudaDeviceSynchronize();
        printf("long-loop: the spin ended\n");
        return 0;
    }
    unsigned *sum, host[32];
    const int n = (1 << 25) + (1 << 21);
    cudaMalloc(&sum, sizeof host);
    cudaMemset(sum, 0, sizeof host);
    long_loop<<<1, 32>>>(sum, n);
    cudaMemcpy(host, sum, sizeof host, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 32; t++)
        if (host[t] != (unsigned) n) {
            printf("long-loop: thread %d counted %u, not %d\n", t, host[t], n);
            return 1;
        }
    printf("long-loop: every thread counted %d\n", n);
    return 0;
}
