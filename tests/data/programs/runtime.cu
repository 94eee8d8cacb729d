// runtime.cu - memsim run's CUDA runtime, checked by the program itself:
// exit 0 when every check holds, else the number of the first that fails.
// tests/test-run.c runs it.  (Plain CUDA: it also builds with nvcc.)
#include <cstdio>
#include <cuda_runtime.h>

__global__ void fill(int *out, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = value + i;
}

// a __shared__ array declared inside a loop is one array (the GPU's static
// allocation), however many times the block executes the declaration
__global__ void loopShared(float *out, const float *in, int rounds)
{
    float sum = 0;
    for (int r = 0; r < rounds; r++) {
        __shared__ float tile[256];
        tile[threadIdx.x] = in[r * 256 + threadIdx.x];
        __syncthreads();
        sum += tile[255 - threadIdx.x];
        __syncthreads();
    }
    out[threadIdx.x] = sum;
}

// CUDA's min and max on two values of one type
__global__ void clamp(float *x, float lo, float hi, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] = min(max(x[i], lo), hi);
}

#define FAIL(k) do { printf("check %d failed\n", k); return k; } while (0)

int main()
{
    const int n = 1000;
    int *d = NULL, h[1000];
    if (cudaMalloc(&d, n * sizeof(int)) != cudaSuccess) FAIL(1);
    fill<<<(n + 255) / 256, 256>>>(d, 7, n);
    if (cudaGetLastError() != cudaSuccess) FAIL(2);
    if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess) FAIL(3);
    for (int i = 0; i < n; i++)
        if (h[i] != 7 + i) FAIL(4);

    // a block of 2048 threads is no launch: the error, and no write
    if (cudaMemset(d, 0, n * sizeof(int)) != cudaSuccess) FAIL(5);
    fill<<<1, 2048>>>(d, 1, n);
    if (cudaGetLastError() != cudaErrorInvalidConfiguration) FAIL(6);
    if (cudaGetLastError() != cudaSuccess) FAIL(7);   // read once, then cleared
    if (cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess || h[0] != 0) FAIL(8);

    // copies past the allocation's end, and of host memory as device memory
    if (cudaMemcpy(h, d, 2 * sizeof h, cudaMemcpyDeviceToHost) != cudaErrorInvalidValue) FAIL(9);
    if (cudaMemcpy(h, h, sizeof h, cudaMemcpyDeviceToHost) != cudaErrorInvalidValue) FAIL(10);
    cudaGetLastError();
    if (cudaFree(h) != cudaErrorInvalidDevicePointer) FAIL(11);
    cudaGetLastError();

    // the device is the preset's
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) FAIL(12);
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    if (p.major != 9 || p.minor != 0 || p.multiProcessorCount != 132 || sms != 132
        || p.warpSize != 32) FAIL(13);

    // events measure the predicted time of the launches between them
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventRecord(a);
    for (int k = 0; k < 3; k++)
        fill<<<4, 256>>>(d, k, n);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms = -1;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess || !(ms > 0)) FAIL(14);
    printf("elapsed %.6f ms\n", ms);

    float *x, *in, hx[256], hin[1024];
    for (int i = 0; i < 1024; i++)
        hin[i] = (float) (i % 37) - 18;
    cudaMalloc(&x, sizeof hx);
    cudaMalloc(&in, sizeof hin);
    cudaMemcpy(in, hin, sizeof hin, cudaMemcpyHostToDevice);
    loopShared<<<1, 256>>>(x, in, 4);
    cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost);
    for (int t = 0; t < 256; t++) {
        float want = 0;
        for (int r = 0; r < 4; r++)
            want += hin[r * 256 + 255 - t];
        if (hx[t] != want) FAIL(15);
    }
    cudaMemcpy(x, hin, sizeof hx, cudaMemcpyHostToDevice);
    clamp<<<1, 256>>>(x, -5.0f, 5.5f, 256);
    cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 256; i++) {
        float want = hin[i] < -5 ? -5 : hin[i] > 5.5f ? 5.5f : hin[i];
        if (hx[i] != want) FAIL(16);
    }
    cudaFree(d);
    cudaFree(x);
    cudaFree(in);
    printf("all checks passed\n");
    return 0;
}
