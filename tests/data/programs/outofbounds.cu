// outofbounds.cu - a launch that reads one element past its buffer: memsim
// run stops the program with the out-of-bounds error and exit status 1.
#include <cuda_runtime.h>

__global__ void shift(float *out, const float *in) { out[threadIdx.x] = in[threadIdx.x + 1]; }

int main()
{
    float *a, *b;
    cudaMalloc(&a, 32 * sizeof(float));
    cudaMalloc(&b, 32 * sizeof(float));
    shift<<<1, 32>>>(b, a);
    cudaDeviceSynchronize();
    return 0;
}
