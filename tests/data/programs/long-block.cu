// long-block.cu - one block that runs for a while through a big kernel:
// each of n iterations (the argument; 65536 by default) takes 256 steps of a
// hash, unrolled, so the kernel's translated C is far above the size memsim
// starts on a quick build.  The block's whole run counts as the quick
// build's time, though no other block starts while it runs.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void hash(unsigned *out, int n)
{
    unsigned x = threadIdx.x + 1;
    for (int i = 0; i < n; i++) {
#pragma unroll
        for (int s = 0; s < 256; s++)
            x = (x ^ (x >> (s % 13 + 1))) * (2654435761u + 2 * s);
    }
    out[threadIdx.x] = x;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 65536;
    unsigned *d, h[32];
    cudaMalloc(&d, sizeof h);
    hash<<<1, 32>>>(d, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    unsigned x = 1;   // lane 0 on the host
    for (int i = 0; i < n; i++)
        for (int s = 0; s < 256; s++)
            x = (x ^ (x >> (s % 13 + 1))) * (2654435761u + 2 * s);
    printf("long-block: %s\n", h[0] == x ? "lane 0 as the host computes it" : "WRONG");
    return h[0] == x ? 0 : 1;
}
