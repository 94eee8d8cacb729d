// openmp.cu - host code that needs OpenMP's runtime: memsim run builds it
// with the user's -Xcompiler -fopenmp, or links it with -lgomp, as nvcc does
#include <cstdio>
#include <omp.h>

__global__ void one(int *a) { a[threadIdx.x] = 1; }

int main()
{
    int *d;
    cudaMalloc(&d, 32 * sizeof(int));
    one<<<1, 32>>>(d);
    int h[32];
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    printf("openmp: %d processors, h[31] = %d\n", omp_get_num_procs() > 0, h[31]);
    return 0;
}
