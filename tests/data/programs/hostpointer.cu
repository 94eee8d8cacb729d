// hostpointer.cu - a kernel given host memory, which a GPU would fault on:
// memsim run stops with a one-line error and exit status 1.
#include <cuda_runtime.h>

__global__ void zero(float *x) { x[threadIdx.x] = 0; }

int main()
{
    static float host[32];
    zero<<<1, 32>>>(host);
    cudaDeviceSynchronize();
    return 0;
}
