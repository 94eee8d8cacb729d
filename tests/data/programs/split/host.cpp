// host.cpp - the host half of a two-file program (split/kernels.cu has the
// kernel, split/scale.h the interface), as CUDA projects are laid out:
// memsim run tests/data/programs/split/host.cpp tests/data/programs/split/kernels.cu
#include <cstdio>
#include <cuda_runtime.h>
#include "scale.h"

int main(int argc, char **argv)
{
    const int n = 4096;
    static float h[4096];
    for (int i = 0; i < n; i++)
        h[i] = (float) i;
    float *d;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    launchScale(d, 3.0f, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaFree(d);
    for (int i = 0; i < n; i++)
        if (h[i] != 3.0f * i) {
            printf("h[%d] = %g\n", i, h[i]);
            return 1;
        }
    printf("scaled\n");
    return 0;
}
