// missing.cu - calls a CUDA function memsim's runtime does not answer
// (interprocess memory: one process, one device)
#include <cuda_runtime.h>

int main()
{
    cudaIpcMemHandle_t h;
    return cudaIpcGetMemHandle(&h, 0) == cudaSuccess ? 0 : 1;
}
