// launch.cu - memsim run's runtime for nvcc-built host code
// (tests/test-program.c): launches, module variables, device properties.
// Returns the number of the first check that fails, else 0.
#include <cstring>
#include <cuda_runtime.h>

__constant__ float coeffs[4] = {1, 2, 3, 4};
__device__ int counter = 7;

__global__ void scale(float *out, const float *in, int n, double factor, char tag)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * coeffs[i % 4] * (float) factor + tag + counter;
}

#define CHECK(k, cond) do { if (!(cond)) return k; } while (0)

int main()
{
    float *a = 0, *b = 0;
    CHECK(1, cudaMalloc(&a, 256 * sizeof(float)) == cudaSuccess);
    CHECK(2, cudaMalloc(&b, 256 * sizeof(float)) == cudaSuccess);
    scale<<<dim3(3, 2), dim3(64, 2), 96>>>(a, b, 256, 2.5, 'q');
    CHECK(3, cudaGetLastError() == cudaSuccess);

    // the variables: their initial bytes, then a round trip
    float back[4], h[4] = {9, 8, 7, 6};
    CHECK(4, cudaMemcpyFromSymbol(back, coeffs, sizeof back) == cudaSuccess);
    CHECK(5, back[0] == 1 && back[3] == 4);
    CHECK(6, cudaMemcpyToSymbol(coeffs, h, sizeof h) == cudaSuccess);
    CHECK(7, cudaMemcpyFromSymbol(back, coeffs, sizeof back) == cudaSuccess);
    CHECK(8, memcmp(back, h, sizeof h) == 0);
    size_t size = 0;
    CHECK(9, cudaGetSymbolSize(&size, coeffs) == cudaSuccess && size == sizeof h);
    void *where = 0;
    int c = 0;
    CHECK(10, cudaGetSymbolAddress(&where, counter) == cudaSuccess);
    CHECK(11, cudaMemcpy(&c, where, sizeof c, cudaMemcpyDeviceToHost) == cudaSuccess && c == 7);
    CHECK(12, cudaMemcpyToSymbol(coeffs, h, sizeof h + 4) == cudaErrorInvalidValue);
    cudaGetLastError();

    // the device is the preset's, in CUDA's own layout
    cudaDeviceProp p;
    CHECK(13, cudaGetDeviceProperties(&p, 0) == cudaSuccess);
    CHECK(14, strstr(p.name, "memsim") != 0);
    CHECK(15, p.multiProcessorCount == 132 && p.sharedMemPerBlock == 48 * 1024);
    CHECK(16, p.major == 9 && p.minor == 0 && p.warpSize == 32);
    int blocks = 0;
    CHECK(17, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0) == cudaSuccess
              && blocks == 8);

    // cudaLaunchKernel, as programs call it themselves
    int n = 32;
    double f = -1;
    char t = 'z';
    void *args[] = {&b, &a, &n, &f, &t};
    CHECK(18, cudaLaunchKernel((const void *) scale, dim3(1), dim3(32), args, 0, 0)
              == cudaSuccess);
    // a configuration the device refuses: the error, no launch
    scale<<<1, 2048>>>(a, b, 256, 1.0, 'x');
    CHECK(19, cudaGetLastError() == cudaErrorInvalidConfiguration);
    cudaFree(a);
    cudaFree(b);
    return 0;
}
