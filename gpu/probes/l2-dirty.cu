// l2-dirty.cu - how long the L2 keeps a kernel's dirty lines while a later
// kernel streams reads through it: the data the cache model's write-back
// rule (sim/models/cache.c) is checked against.
//
// For W MB written and R MB read: the L2 is flushed (a read of 3 x its
// size from a zeroed buffer, unprofiled), `wr` writes W MB (every byte,
// coalesced: W MB of dirty lines), then `rd_dense` reads R MB (every byte)
// or `rd_sparse` reads 16 bytes of each 128-byte line of R MB (the
// footprint of gmem_stride's 16-byte elements at stride 8).  Nsight
// Compute, with the L2 left as the kernels leave it, measures each read's
// dram__bytes_write.sum: the writer's dirty lines the read evicted (under
// LRU with capacity C: min(W, max(0, W + R - C))).
//
//   nvcc -O3 -arch=sm_90 -o l2-dirty gpu/probes/l2-dirty.cu
//   ncu --clock-control none --cache-control none --kernel-name regex:"^(wr|rd_)" \
//       --metrics dram__bytes_write.sum,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum \
//       --csv ./l2-dirty > l2-dirty.csv
//
// The program prints the launches in order ("W R pattern"), to match the
// csv's rows.
#include <cstdio>
#include <cstdlib>

/* Reads element i * step of in for i < count (xor-folded: no stores). */
__device__ void xor_reads (const int4 *in, size_t count, size_t step, int *sink)
{
  int s = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < count;
       i += (size_t) gridDim.x * blockDim.x)
    s ^= in[i * step].x ^ in[i * step].w;
  if (s == 0x7654321)
    *sink = s;
}

__global__ void flush_rd (const int4 *in, size_t n, int *sink) { xor_reads (in, n, 1, sink); }
__global__ void rd_dense (const int4 *in, size_t n, int *sink) { xor_reads (in, n, 1, sink); }
/* one 16-byte element of each 128-byte line */
__global__ void rd_sparse (const int4 *in, size_t lines, int *sink) { xor_reads (in, lines, 8, sink); }

__global__ void wr (int4 *o, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) gridDim.x * blockDim.x)
    o[i] = make_int4 ((int) i, 1, 2, 3);
}

#define CHECK(x)                                                                          \
  do {                                                                                    \
    cudaError_t e_ = (x);                                                                 \
    if (e_ != cudaSuccess) {                                                              \
      fprintf (stderr, "l2-dirty: %s: %s\n", #x, cudaGetErrorString (e_));                \
      exit (1);                                                                           \
    }                                                                                     \
  } while (0)

int main ()
{
  const int ws[] = { 8, 16, 32 };
  const int rs[] = { 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 128, 192 };
  int dev;
  cudaDeviceProp p;
  CHECK (cudaGetDevice (&dev));
  CHECK (cudaGetDeviceProperties (&p, dev));
  size_t flush_bytes = 3 * (size_t) p.l2CacheSize;
  int *sink;
  int4 *flush, *out, *in;
  CHECK (cudaMalloc (&sink, 4));
  CHECK (cudaMalloc (&flush, flush_bytes));
  CHECK (cudaMemset (flush, 0, flush_bytes));
  CHECK (cudaMalloc (&out, 32u << 20));
  CHECK (cudaMalloc (&in, 192u << 20));
  CHECK (cudaMemset (in, 1, 192u << 20));
  CHECK (cudaDeviceSynchronize ());
  int grid = p.multiProcessorCount * 8;
  printf ("# %s, L2 %d bytes, flush %zu bytes\n", p.name, p.l2CacheSize, flush_bytes);
  for (int pattern = 0; pattern < 2; pattern++)
    for (int wi = 0; wi < 3; wi++)
      for (int ri = 0; ri < 12; ri++)
        {
          size_t w = (size_t) ws[wi] << 20, r = (size_t) rs[ri] << 20;
          flush_rd<<<grid, 256>>> (flush, flush_bytes / 16, sink);
          wr<<<grid, 256>>> (out, w / 16);
          if (pattern == 0)
            rd_dense<<<grid, 256>>> (in, r / 16, sink);
          else
            rd_sparse<<<grid, 256>>> (in, r / 128, sink);
          CHECK (cudaGetLastError ());
          printf ("%d %d %s\n", ws[wi], rs[ri], pattern ? "sparse" : "dense");
        }
  CHECK (cudaDeviceSynchronize ());
  return 0;
}
