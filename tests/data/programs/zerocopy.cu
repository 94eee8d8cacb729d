// zerocopy.cu - a kernel on mapped host memory (cudaHostAlloc with
// cudaHostAllocMapped, the device's pointer from cudaHostGetDevicePointer),
// then the same kernel on device memory: the first crosses the host link,
// the second reads and writes DRAM (tests/test-run.c, /run/zero-copy).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    const int n = 1 << 20;
    float *ha, *hb, *hc, *a, *b, *c;
    cudaSetDeviceFlags(cudaDeviceMapHost);
    cudaHostAlloc(&ha, n * sizeof(float), cudaHostAllocMapped);
    cudaHostAlloc(&hb, n * sizeof(float), cudaHostAllocMapped);
    cudaHostAlloc(&hc, n * sizeof(float), cudaHostAllocMapped);
    for (int i = 0; i < n; i++) {
        ha[i] = (float) i;
        hb[i] = 1.0f;
    }
    cudaHostGetDevicePointer(&a, ha, 0);
    cudaHostGetDevicePointer(&b, hb, 0);
    cudaHostGetDevicePointer(&c, hc, 0);
    add<<<n / 256, 256>>>(a, b, c, n);
    cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += hc[i] != (float) i + 1.0f;
    float *da, *db, *dc;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMalloc(&dc, n * sizeof(float));
    add<<<n / 256, 256>>>(da, db, dc, n);
    cudaDeviceSynchronize();
    fprintf(stderr, bad ? "zerocopy: %d wrong sums\n" : "zerocopy: all checks passed\n", bad);
    return bad != 0;
}
