// device-runtime.cu - what the device runtime's calls and mapped host
// memory cost a kernel, as Nsight Compute measures it (--cache-control
// all, clocks as the GPU sets them).  Each shape runs twice in a row (the
// first may pay a one-time set-up, the second is the steady cost):
//   printf_k  the first n threads of a block of 32 printf one line each;
//             n = 0 (the kernel's other work alone), 1, 8, 32; then 4
//             blocks of 256 threads, each thread a line (1 024)
//   malloc_k  the first n threads malloc 64 bytes each (n = 0, 1, 8, 32;
//             then 1 024) and free_k frees them
//   host_*    kernels on cudaHostAlloc'd (mapped) memory of 4 and 64 MiB,
//             256 threads a block, a thread a 4-byte element: block_sums
//             (a read, one store a block), host_write (fill), host_copy;
//             the same on cudaMalloc'd memory beside them; and a chain of
//             16 dependent loads of one warp from mapped memory (chase)
//   nvcc -O3 -arch=sm_90 -o device-runtime gpu/probes/device-runtime.cu
//   ncu --clock-control none --cache-control all --csv --metrics \
//     gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,\
//     lts__t_sectors_aperture_sysmem_op_read.sum,lts__t_sectors_aperture_sysmem_op_write.sum \
//     ./device-runtime > device-runtime-ncu.csv
#include "probe-kernels.cuh"
#include "probe-timing.cuh"
#include <cstdio>

__global__ void printf_k (int n)
{
  if (threadIdx.x < n)
    printf ("line %d of block %d\n", threadIdx.x, blockIdx.x);
}

__global__ void malloc_k (int n, void **slot)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < n)
    slot[t] = malloc (64);
}

__global__ void free_k (int n, void **slot)
{
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x < n)
    free (slot[t]);
}

__global__ void host_write (int *out, size_t n)
{
  size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = (int) i;
}

__global__ void host_copy (const int *in, int *out, size_t n)
{
  size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i];
}

int
main ()
{
  CHECK (cudaSetDeviceFlags (cudaDeviceMapHost));
  CHECK (cudaDeviceSetLimit (cudaLimitPrintfFifoSize, 8 << 20));
  for (int n : { 0, 1, 8, 32 })
    for (int r = 0; r < 2; r++)
      printf_k<<<1, 32>>> (n);
  for (int r = 0; r < 2; r++)
    printf_k<<<4, 256>>> (256);
  CHECK (cudaDeviceSynchronize ());

  void **slot;
  CHECK (cudaMalloc (&slot, 1024 * sizeof (void *)));
  for (int n : { 0, 1, 8, 32 })
    for (int r = 0; r < 2; r++) {
      malloc_k<<<1, 32>>> (n, slot);
      free_k<<<1, 32>>> (n, slot);
    }
  for (int r = 0; r < 2; r++) {
    malloc_k<<<4, 256>>> (256, slot);
    free_k<<<4, 256>>> (256, slot);
  }
  CHECK (cudaDeviceSynchronize ());

  for (size_t mib : { 4, 64 }) {
    size_t n = mib << 18;   // 4-byte elements
    int *h_in, *h_out, *d_in, *d_out, *in, *out;
    CHECK (cudaHostAlloc (&h_in, n * 4, cudaHostAllocMapped));
    CHECK (cudaHostAlloc (&h_out, n * 4, cudaHostAllocMapped));
    for (size_t i = 0; i < n; i++)
      h_in[i] = (int) (i & 7);
    CHECK (cudaHostGetDevicePointer (&in, h_in, 0));
    CHECK (cudaHostGetDevicePointer (&out, h_out, 0));
    CHECK (cudaMalloc (&d_in, n * 4));
    CHECK (cudaMalloc (&d_out, n * 4));
    CHECK (cudaMemcpy (d_in, h_in, n * 4, cudaMemcpyHostToDevice));
    unsigned blocks = (unsigned) (n / 256);
    for (int r = 0; r < 2; r++) {
      block_sums<<<blocks, 256>>> (in, d_out, n);
      host_write<<<blocks, 256>>> (out, n);
      host_copy<<<blocks, 256>>> (in, out, n);
      block_sums<<<blocks, 256>>> (d_in, d_out, n);
      host_write<<<blocks, 256>>> (d_out, n);
      host_copy<<<blocks, 256>>> (d_in, d_out, n);
    }
    CHECK (cudaDeviceSynchronize ());
    CHECK (cudaFreeHost (h_in));
    CHECK (cudaFreeHost (h_out));
    CHECK (cudaFree (d_in));
    CHECK (cudaFree (d_out));
  }

  // the chain: 16 dependent loads, lines 64 KiB apart
  const unsigned stride = 16384, most = 16;
  unsigned *h_p, *p, *out;
  CHECK (cudaHostAlloc (&h_p, (size_t) stride * (most + 1) * 4, cudaHostAllocMapped));
  for (unsigned k = 0; k < most; k++)
    h_p[k * stride] = (k + 1) * stride;
  CHECK (cudaHostGetDevicePointer (&p, h_p, 0));
  CHECK (cudaMalloc (&out, 4));
  for (int n : { 0, 16 })
    for (int r = 0; r < 2; r++)
      chase<<<1, 32>>> (p, n, out);
  CHECK (cudaDeviceSynchronize ());
  printf ("done\n");
  return 0;
}
