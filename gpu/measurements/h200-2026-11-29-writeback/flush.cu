// flush.cu: which L2 flush leaves no dirty lines behind?  Each case: dirty
// the L2 (write 64 MB), flush, then a read-only kernel reads 64 MB; ncu
// --cache-control none measures that read's dram__bytes_write.
#include <cstdio>
#include <cstdlib>
#include <cstring>
__global__ void rd(const int4 *in, size_t n, int *sink) {
  int s = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    s ^= in[i].x ^ in[i].w;
  if (s == 0x7654321) *sink = s;
}
__global__ void wr(int4 *o, size_t n, int v) {
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    o[i] = make_int4(i, v, 2, 3);
}
int main() {
  int l2; cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  size_t L = (size_t) l2, big = 8 * L;
  int *sink; cudaMalloc(&sink, 4);
  int4 *data, *dirty, *fz, *fnz;
  size_t n64 = (64u << 20) / 16;
  cudaMalloc(&data, 64u << 20); cudaMemset(data, 1, 64u << 20);
  cudaMalloc(&dirty, 64u << 20);
  cudaMalloc(&fz, big); cudaMemset(fz, 0, big);
  cudaMalloc(&fnz, big); wr<<<1056, 256>>>(fnz, big / 16, 7);
  cudaDeviceSynchronize();
  // the input as memsim --gpu uploads it: cudaMemcpy from the host, then
  // memsim's flush (2 x L2 of zeros read), then the read-only kernel
  {
    size_t bytes = 64u << 20;
    void *h = malloc(bytes); memset(h, 3, bytes);
    for (int rep = 0; rep < 3; rep++) {
      cudaMemcpy(data, h, bytes, cudaMemcpyHostToDevice);
      for (int f = 0; f <= rep; f++) rd<<<528, 256>>>(fz, 2 * L / 16, sink);   // rep + 1 flushes
      rd<<<1056, 256>>>(data, n64, sink);
    }
    cudaDeviceSynchronize();
    free(h);
  }
  // case k: wr dirty; flush; rd data
  for (int k = 0; k < 5; k++) {
    wr<<<1056, 256>>>(dirty, n64, k);
    switch (k) {
      case 0: break;                                         // no flush
      case 1: rd<<<528, 256>>>(fz, 2 * L / 16, sink); break;  // memsim's: 2 x L2 of zeros
      case 2: rd<<<528, 256>>>(fz, 8 * L / 16, sink); break;  // 8 x L2 of zeros
      case 3: rd<<<528, 256>>>(fnz, 2 * L / 16, sink); break; // 2 x L2, not zeros
      case 4: rd<<<528, 256>>>(fnz, 8 * L / 16, sink); break; // 8 x L2, not zeros
    }
    rd<<<1056, 256>>>(data, n64, sink);
  }
  cudaDeviceSynchronize();
  printf("L2 %d\n", l2);
  return 0;
}
