// guard.cu - kernels that read and write just outside their buffers and do
// not use what they read, as Rodinia's srad_v2 reads the row above its
// image: `memsim run --allow-out-of-bounds` warns once for each such access
// and goes on, the load reading zeros and the store dropped (on the GPU the
// memory there is whatever is mapped).  The program checks what it can.
#include <cstdio>
#include <cuda_runtime.h>

// lane 0 reads the float before `in`: 0 under memsim
__global__ void shifted(float *out, const float *in) { out[threadIdx.x] = in[(int) threadIdx.x - 1] + 1.0f; }

// lane 31 writes the float after `out`: dropped
__global__ void spill(float *out) { out[threadIdx.x + 1] = (float) threadIdx.x; }

int main()
{
    float h[32], *in, *out;
    for (int i = 0; i < 32; i++)
        h[i] = (float) (i + 1);
    cudaMalloc(&in, sizeof h);
    cudaMalloc(&out, sizeof h);
    cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
    shifted<<<1, 32>>>(out, in);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 1; i < 32; i++)   // out[i] = in[i - 1] + 1 = i + 1
        bad += h[i] != (float) (i + 1);
    bad += h[0] != 1.0f;           // memsim's zero + 1
    cudaMemset(out, 0, sizeof h);
    spill<<<1, 32>>>(out);
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 32; i++)   // out[i] = i - 1, out[0] untouched
        bad += h[i] != (i == 0 ? 0.0f : (float) (i - 1));
    bad += cudaDeviceSynchronize() != cudaSuccess;
    fprintf(stderr, "guard: %s\n", bad ? "FAILED" : "all checks passed");
    return bad != 0;
}
