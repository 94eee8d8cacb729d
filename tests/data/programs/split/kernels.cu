// kernels.cu - the device half of the two-file program (see host.cpp)
#include "scale.h"

__device__ float times(float a, float b) { return a * b; }

__global__ void scale(float *x, float factor, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = times(x[i], factor);
}

void launchScale(float *x, float factor, int n)
{
    scale<<<8, 128>>>(x, factor, n);
}
