// copy-time.cu - copies, sets and launches timed with CUDA events, as a
// program times them: prints "time NAME MS" for each, for the test to
// compare with what the H200 measured (gpu/probes/copy-time.cu).
//   pinned_h2d   64 MiB from cudaMallocHost memory to the device
//   pinned_d2h   1 MiB back
//   pageable_h2d 16 MiB from malloc'd memory
//   async_h2d    16 MiB, cudaMemcpyAsync on a created stream
//   d2d          256 MiB within the device
//   memset       64 MiB
//   copy_2d      1 MiB as 256 rows of 4 KiB (one copy, not 256)
//   copy_1d      the same 1 MiB in one row
//   kernel_full  1024 blocks (the traced launch)
//   kernel_quarter 256 blocks of the same kernel (untraced)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void scale(float *a, float f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < 16; k++)
        a[i] = a[i] * f + 1.0f;
}

static cudaEvent_t e0, e1;

template <typename F> static void timed(const char *name, F work)
{
    cudaEventRecord(e0);
    work();
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    printf("time %s %.6f\n", name, ms);
}

int main()
{
    const size_t MiB = 1 << 20;
    char *dev, *dev2, *pinned, *pageable = (char *) calloc(16 * MiB, 1);
    cudaMalloc(&dev, 256 * MiB);
    cudaMalloc(&dev2, 256 * MiB);
    cudaMallocHost(&pinned, 64 * MiB);
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    cudaStream_t s;
    cudaStreamCreate(&s);
    timed("pinned_h2d", [&] { cudaMemcpy(dev, pinned, 64 * MiB, cudaMemcpyHostToDevice); });
    timed("pinned_d2h", [&] { cudaMemcpy(pinned, dev, MiB, cudaMemcpyDeviceToHost); });
    timed("pageable_h2d", [&] { cudaMemcpy(dev, pageable, 16 * MiB, cudaMemcpyHostToDevice); });
    timed("async_h2d", [&] {
        cudaMemcpyAsync(dev, pinned, 16 * MiB, cudaMemcpyHostToDevice, s);
        cudaStreamSynchronize(s);
    });
    timed("d2d", [&] { cudaMemcpy(dev2, dev, 256 * MiB, cudaMemcpyDeviceToDevice); });
    timed("memset", [&] { cudaMemset(dev, 0, 64 * MiB); });
    timed("copy_2d", [&] {
        cudaMemcpy2D(dev, 4096, pinned, 4096, 4096, 256, cudaMemcpyHostToDevice);
    });
    timed("copy_1d", [&] { cudaMemcpy(dev, pinned, MiB, cudaMemcpyHostToDevice); });
    float *a = (float *) dev;
    timed("kernel_full", [&] { scale<<<1024, 256>>>(a, 0.5f); });
    timed("kernel_quarter", [&] { scale<<<256, 256>>>(a, 0.5f); });
    if (cudaDeviceSynchronize() != cudaSuccess)
        return 1;
    cudaStreamDestroy(s);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFreeHost(pinned);
    cudaFree(dev2);
    cudaFree(dev);
    free(pageable);
    printf("copy-time: done\n");
    return 0;
}
