// kernel-duration.cu - the kernel time `memsim trace --gpu` reports as
// gpu__time_duration.sum, checked against Nsight Compute's: memsim's copy and
// naive transpose of an 8192x8192 float matrix (the built-ins' access
// patterns), each launch after an L2 flush (a 120 MB read) and timed by CUDA
// events, median of 12.
//   nvcc -O3 -arch=sm_90 -o kernel-duration gpu/probes/kernel-duration.cu
//   ./kernel-duration        # CUDA events
//   ncu --clock-control none --cache-control all --metrics gpu__time_duration.sum \
//       -c 24 --csv ./kernel-duration
//   memsim trace copy --size 8192x8192 --gpu   # memsim's measurement, same GPU
#include <cstdio>
#include <algorithm>
#include <vector>
__global__ void copy(float *o, const float *in, int w, int h) {
  unsigned x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < (unsigned)w && y + j < (unsigned)h) o[(y + j) * w + x] = in[(y + j) * w + x];
}
__global__ void tnaive(float *o, const float *in, int w, int h) {
  unsigned x = threadIdx.x + blockIdx.x * blockDim.x, y = threadIdx.y + blockIdx.y * blockDim.y;
  if (x < (unsigned)w && y < (unsigned)h) o[y + h * x] = in[x + w * y];
}
__global__ void flush(const int4 *b, size_t n, int *sink) {
  int s = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) s ^= b[i].x;
  if (s == 0x12345) *sink = s;
}
int main() {
  const int n = 8192; size_t bytes = (size_t)n * n * 4;
  float *a, *b; int4 *f; int *sink;
  cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMemset(a, 1, bytes);
  size_t fn = 120u << 20; cudaMalloc(&f, fn); cudaMemset(f, 0, fn); cudaMalloc(&sink, 4);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int k = 0; k < 2; k++) {
    std::vector<float> t;
    for (int r = 0; r < 12; r++) {
      flush<<<1024, 256>>>(f, fn / 16, sink); cudaDeviceSynchronize();
      cudaEventRecord(e0);
      if (k == 0) copy<<<dim3(n / 32, n / 32), dim3(32, 8)>>>(b, a, n, n);
      else tnaive<<<dim3(n / 32, n / 32), dim3(32, 32)>>>(b, a, n, n);
      cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    printf("%s events median %.1f us min %.1f\n", k ? "tnaive" : "copy", t[6], t[0]);
  }
  return 0;
}
