// tiled-gemm.cu - C = A B with 32 x 32 shared tiles, the textbook way (each
// thread one element of C).  For memsim run's compiler-exact counts: nvcc
// unrolls the k loop and reads four consecutive As[ty][k] with one
// LDS.128, so a warp executes 8 + 32 = 40 shared loads per tile where the
// source has 64 (tests/test-run.c; the cuda-samples' matrixMul, measured on
// an H100 in docs/validation-programs.md, is the same kernel).
#include <cstdio>
#include <cuda_runtime.h>

#define T 32

__global__ void gemm(float *C, const float *A, const float *B, int n)
{
    __shared__ float As[T][T];
    __shared__ float Bs[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
    float sum = 0;
    for (int t = 0; t < n / T; t++) {
        As[ty][tx] = A[row * n + t * T + tx];
        Bs[ty][tx] = B[(t * T + ty) * n + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < T; k++)
            sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    C[row * n + col] = sum;
}

int main()
{
    const int n = 64;
    static float a[n * n], b[n * n], c[n * n];
    for (int i = 0; i < n * n; i++) {
        a[i] = (float) (i % 7) - 3;
        b[i] = (float) (i % 5) - 2;
    }
    float *dA, *dB, *dC;
    cudaMalloc(&dA, sizeof a);
    cudaMalloc(&dB, sizeof b);
    cudaMalloc(&dC, sizeof c);
    cudaMemcpy(dA, a, sizeof a, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, b, sizeof b, cudaMemcpyHostToDevice);
    gemm<<<dim3(n / T, n / T), dim3(T, T)>>>(dC, dA, dB, n);
    cudaMemcpy(c, dC, sizeof c, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float want = 0;
            for (int k = 0; k < n; k++)
                want += a[i * n + k] * b[k * n + j];
            if (c[i * n + j] != want) {
                printf("C[%d][%d] = %g, expected %g\n", i, j, c[i * n + j], want);
                return 1;
            }
        }
    printf("product correct\n");
    return 0;
}
