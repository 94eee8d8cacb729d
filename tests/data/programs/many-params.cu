// many-params.cu - a kernel whose output pointer is its 9th parameter, past
// the 8 whose values a report shows, with more live allocations than a
// launch has buffers: its memory must still be one of the launch's buffers
// (tests/test-run.c).  Exit 0 when the output holds n0 + ... + n5 + i.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void sum6(const int *a, int *unused, int n0, int n1, int n2, int n3, int n4, int n5,
                     int *out)
{
    int i = threadIdx.x;
    out[i] = a[i] + n0 + n1 + n2 + n3 + n4 + n5;
}

int main()
{
    int *out, *a, *unused, *fill[8];
    // out first: the others' mappings come before it in address order
    cudaMalloc(&out, 32 * sizeof(int));
    for (int k = 0; k < 8; k++)
        cudaMalloc(&fill[k], 4096);
    cudaMalloc(&a, 32 * sizeof(int));
    cudaMalloc(&unused, 4096);
    int h[32];
    for (int i = 0; i < 32; i++)
        h[i] = i;
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    sum6<<<1, 32>>>(a, unused, 1, 2, 3, 4, 5, 6, out);
    if (cudaGetLastError() != cudaSuccess)
        return 1;
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; i++)
        if (h[i] != 21 + i) {
            printf("out[%d] = %d, expected %d\n", i, h[i], 21 + i);
            return 2;
        }
    printf("many-params: all checks passed\n");
    return 0;
}
