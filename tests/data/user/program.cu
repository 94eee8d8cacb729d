// program.cu - a whole CUDA program (host code, cudaMalloc, dim3, events,
// <<<...>>>): `memsim trace program.cu` runs its kernel, never main
// (tests/test-cli.c).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    fprintf(stderr, "%s\n", cudaGetErrorString(e)); exit(1); } } while (0)

__global__ void vecAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    const int n = 1 << 20;
    std::vector<float> h(n, 1.0f);
    float *a, *b, *c;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc((void **)&b, n * sizeof(float)));
    CHECK(cudaMalloc(&c, n * sizeof(float)));
    CHECK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    dim3 block(256), grid((n + 255) / 256);
    cudaEvent_t t0, t1;
    cudaEventCreate(&t0); cudaEventCreate(&t1);
    cudaEventRecord(t0);
    vecAdd<<<grid, block>>>(a, b, c, n);
    cudaEventRecord(t1);
    CHECK(cudaDeviceSynchronize());
    float ms; cudaEventElapsedTime(&ms, t0, t1);
    printf("%f ms\n", ms);
    cudaFree(a); cudaFree(b); cudaFree(c);
    return 0;
}
