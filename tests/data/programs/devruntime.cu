// devruntime.cu - device code's printf, malloc and free, counted per warp
// (tests/test-run.c, /run/device-runtime): 4 blocks of 8 threads print a
// line each (4 warp-level calls, 32 lanes); one warp's 32 lanes malloc and
// free (a call of each); one lane prints three times in a row and then
// once more where only lane 0 of the warp does (4 calls of 1 lane, a
// chain of 4 from one warp).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void lines() { printf("block %d thread %d\n", blockIdx.x, threadIdx.x); }

__global__ void heap(int *ok)
{
    int *p = (int *) malloc(64);
    if (p != NULL) {
        p[0] = threadIdx.x;
        atomicAdd(ok, p[0] == (int) threadIdx.x);
    }
    free(p);
}

__global__ void chain()
{
    for (int k = 0; k < 3; k++)
        printf("again %d\n", k);
    if (threadIdx.x == 0)
        printf("last\n");
}

int main()
{
    int *ok, h = 0;
    cudaMalloc(&ok, sizeof(int));
    cudaMemset(ok, 0, sizeof(int));
    lines<<<4, 8>>>();
    heap<<<1, 32>>>(ok);
    chain<<<1, 1>>>();
    cudaMemcpy(&h, ok, sizeof h, cudaMemcpyDeviceToHost);
    fprintf(stderr, h == 32 ? "devruntime: all checks passed\n" : "devruntime: %d of 32 lanes\n", h);
    return h != 32;
}
