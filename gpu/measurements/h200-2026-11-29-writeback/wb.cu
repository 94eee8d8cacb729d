// wb.cu: DRAM writes of a read-only kernel by the size it reads (ncu measures)
#include <cstdio>
#include <cstdlib>
__global__ void rd(const int4 *in, size_t n, int *sink) {
  int s = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    s ^= in[i].x ^ in[i].w;
  if (s == 0x7654321) *sink = s;
}
__global__ void wr(int4 *o, size_t n) {
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    o[i] = make_int4(i, 1, 2, 3);
}
int main(int argc, char **argv) {
  const int mbs[] = { 16, 32, 48, 56, 64, 96, 128, 256 };
  int *sink; cudaMalloc(&sink, 4);
  int4 *buf; size_t maxb = 256u << 20; cudaMalloc(&buf, maxb); cudaMemset(buf, 1, maxb);
  int4 *other; cudaMalloc(&other, 64u << 20);
  cudaDeviceSynchronize();
  for (int k = 0; k < 8; k++) {
    size_t n = ((size_t) mbs[k] << 20) / 16;
    rd<<<132 * 8, 256>>>(buf, n, sink);   // launch id 2k: read mbs[k] MB
    wr<<<132 * 8, 256>>>(other, (8u << 20) / 16);   // 8 MB of dirty lines, then
    rd<<<132 * 8, 256>>>(buf, n, sink);   // the read again
  }
  cudaDeviceSynchronize();
  printf("done\n");
  return 0;
}
