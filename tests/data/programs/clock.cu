// clock.cu - kernels that wait on the clock, as cuda-samples' do: one warp
// spins until clock64() has advanced 1 ms of the device's clock
// (cudaDevAttrClockRate), then a full wave of blocks spins for 5 us each,
// one thread waits 20 us of %globaltimer, the same spin twice counting its
// turns (memsim's test compares them), and a block whose second warp
// works before a barrier: the first warp's clock after the barrier is no
// earlier than the second's before it (tests/test-run.c, /run/clock).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void spin(long long cycles, long long *elapsed)
{
    long long start = clock64(), now;
    do {
        now = clock64();
    } while (now - start < cycles);
    if (threadIdx.x == 0)
        elapsed[blockIdx.x] = now - start;
}

__global__ void count_spins(long long cycles, long long *spins)
{
    long long start = clock64(), n = 0;
    while (clock64() - start < cycles)
        n++;
    *spins = n;
}

__global__ void wait_ns(unsigned long long ns, unsigned long long *elapsed)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    *elapsed = now - start;
}

__global__ void barrier(long long *t, int work)
{
    __shared__ float s[64];
    float x = threadIdx.x;
    if (threadIdx.x >= 32)
        for (int i = 0; i < work; i++)
            x = x * 0.999f + 1.0f;
    long long before = clock64();
    s[threadIdx.x] = x;
    __syncthreads();
    long long after = clock64();
    if (threadIdx.x == 0)
        t[0] = after;
    if (threadIdx.x == 32)
        t[1] = before;
    if (s[63 - threadIdx.x] < 0.0f)
        t[2] = 1;
}

int main()
{
    int khz = 0, sms = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = 2 * sms;   // two blocks of 32 warps an SM: 16 warps a scheduler
    long long *elapsed, *t, h[2], *wave = new long long[blocks];
    unsigned long long *ns, hns;
    cudaMalloc(&elapsed, blocks * sizeof(long long));
    cudaMalloc(&t, 3 * sizeof(long long));
    cudaMalloc(&ns, sizeof(unsigned long long));
    cudaMemset(t, 0, 3 * sizeof(long long));
    int bad = 0;
    long long ms = khz;   // cycles in 1 ms
    spin<<<1, 32>>>(ms, elapsed);
    cudaMemcpy(h, elapsed, sizeof(long long), cudaMemcpyDeviceToHost);
    bad += h[0] < ms;
    spin<<<blocks, 1024>>>(ms / 200, elapsed);
    cudaMemcpy(wave, elapsed, blocks * sizeof(long long), cudaMemcpyDeviceToHost);
    for (int b = 0; b < blocks; b++)
        bad += wave[b] < ms / 200;
    wait_ns<<<1, 1>>>(20000, ns);
    cudaMemcpy(&hns, ns, sizeof hns, cudaMemcpyDeviceToHost);
    bad += hns < 20000;
    long long spins[2];
    for (int k = 0; k < 2; k++) {
        count_spins<<<1, 1>>>(ms / 100, elapsed);
        cudaMemcpy(&spins[k], elapsed, sizeof(long long), cudaMemcpyDeviceToHost);
    }
    fprintf(stderr, "spins %lld %lld\n", spins[0], spins[1]);
    barrier<<<1, 64>>>(t, 1000);
    cudaMemcpy(h, t, 2 * sizeof(long long), cudaMemcpyDeviceToHost);
    bad += h[0] < h[1];
    delete[] wave;
    fprintf(stderr, bad ? "clock: %d checks failed\n" : "clock: all checks passed\n", bad);
    return bad != 0;
}
