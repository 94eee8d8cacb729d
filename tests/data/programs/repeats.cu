// repeats.cu - launches that repeat earlier ones (tests/test-run.c,
// /run/repeats): c = f(a, b) five times on the same memory, then again
// after the host changed b; then c = f(a, b) and d = f(c, a) in turn, four
// times each; x += 1 five times in place; a kernel that prints, three
// times.  The program checks every
// result; memsim need not run again a launch that would change nothing.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void combine(const float *a, const float *b, float *c)
{
    int i = threadIdx.x;
    float v = a[i];
    for (int k = 0; k < 40000; k++)   // a few ms: far above the 0.1 ms a digest would take
        v = v * 0.5f + b[i];
    c[i] = v;
}

__global__ void increment(int *x) { x[threadIdx.x] += 1; }

__global__ void hello(int n) { printf("hello %d\n", n); }

int main()
{
    const int n = 256;
    float h[n], *a, *b, *c, *d;
    int *x, hx[n], bad = 0;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMalloc(&x, n * sizeof(int));
    for (int i = 0; i < n; i++)
        h[i] = 1.0f;
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    for (int r = 0; r < 5; r++)
        combine<<<1, n>>>(a, b, c);   // c = 2 (the fixed point of v/2 + 1)
    cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 2.0f;
    for (int i = 0; i < n; i++)
        h[i] = 4.0f;
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    combine<<<1, n>>>(a, b, c);       // c = 8 now
    cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 8.0f;
    for (int r = 0; r < 4; r++) {
        combine<<<1, n>>>(a, b, c);   // 8
        combine<<<1, n>>>(c, a, d);   // 2
    }
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 2.0f;
    cudaMemset(x, 0, n * sizeof(int));
    for (int r = 0; r < 5; r++)
        increment<<<1, n>>>(x);
    cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += hx[i] != 5;
    for (int r = 0; r < 3; r++)
        hello<<<1, 1>>>(7);
    cudaDeviceSynchronize();
    fprintf(stderr, bad ? "repeats: %d wrong results\n" : "repeats: all checks passed\n", bad);
    return bad != 0;
}
