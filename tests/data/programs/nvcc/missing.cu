// missing.cu - calls a CUDA function memsim's runtime does not answer
#include <cuda_runtime.h>

int main()
{
    cudaGraph_t g;
    return cudaGraphCreate(&g, 0) == cudaSuccess ? 0 : 1;
}
