// streams.cu - work issued to a stream the program created may wait for
// the next synchronisation, as on a GPU: a kernel that spins until the
// host sets a flag after launching it ends (UnifiedMemoryPerf's latch);
// a copy queued behind it sees its result; a copy from pageable memory
// takes its source as it was when issued; work on two streams and the
// default stream runs in the order issued.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void wait_for(volatile unsigned *flag, int *out)
{
    while (*flag == 0)
        ;
    out[threadIdx.x] = 7;
}

__global__ void add(int *out, int v) { out[threadIdx.x] += v; }

int main()
{
    const int n = 32;
    unsigned *flag;
    int *out, h[n], src[n], bad = 0;
    cudaMallocHost(&flag, sizeof *flag);
    cudaMalloc(&out, sizeof h);
    cudaStream_t s, t;
    cudaStreamCreate(&s);
    cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking);
    *flag = 0;
    wait_for<<<1, n, 0, s>>>(flag, out);
    cudaMemcpyAsync(h, out, sizeof h, cudaMemcpyDeviceToHost, s);
    if (cudaGetLastError() != cudaSuccess)
        bad++;
    *flag = 1;   // the host lets the kernel go
    cudaStreamSynchronize(s);
    for (int i = 0; i < n; i++)
        bad += h[i] != 7;
    for (int i = 0; i < n; i++)
        src[i] = 1;
    cudaMemcpyAsync(out, src, sizeof src, cudaMemcpyHostToDevice, t);
    for (int i = 0; i < n; i++)
        src[i] = 2;  // after the copy was issued: not what it copies
    add<<<1, n, 0, s>>>(out, 10);
    add<<<1, n, 0, t>>>(out, 100);
    add<<<1, n>>>(out, 1000);
    cudaDeviceSynchronize();
    cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 1111;
    cudaStreamDestroy(s);
    cudaStreamDestroy(t);
    cudaFree(out);
    cudaFreeHost(flag);
    fprintf(stderr, bad ? "streams: %d wrong results\n" : "streams: all checks passed\n", bad);
    return bad != 0;
}
