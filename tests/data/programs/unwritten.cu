// unwritten.cu - a kernel that reads shared memory no thread wrote and
// whose program does not use it (as cuda-samples' shfl_scan does with lanes
// past its last warp): lane i copies s[i] out, only s[0..3] are written,
// and the host adds up out[0..3] alone.  Prints "unwritten: sum 6".
#include <cstdio>

__global__ void partial(int *out)
{
    __shared__ int s[32];
    if (threadIdx.x < 4)
        s[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x];      // lanes 4..31 copy garbage
}

int main()
{
    int *d, h[32];
    cudaMalloc(&d, sizeof h);
    partial<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int sum = h[0] + h[1] + h[2] + h[3];
    printf("unwritten: sum %d\n", sum);
    return sum == 6 ? 0 : 1;
}
