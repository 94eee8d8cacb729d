// writeback-range.cu - the DRAM bytes `--gpu` measures for a kernel that
// only reads (gpu/profiler.cu's modes, as memsim's back-end uses them),
// to set beside Nsight Compute's for the same kernel: an empty kernel, and
// a read of 16 or 64 MiB in blocks of 256 threads (a sum a block, stored:
// reduce_interleaved's traffic), the input uploaded with cudaMemcpy first.
//   nvcc -O2 -arch=sm_90 -std=c++17 -o writeback-range \
//        gpu/probes/writeback-range.cu gpu/profiler.cu -lcupti
//   ./writeback-range
//   ncu --clock-control none --cache-control all --csv \
//       --metrics dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum \
//       ./writeback-range ncu
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "../profiler.h"
#include "probe-kernels.cuh"

__global__ void empty () {}

struct Case { size_t n; const int *in; int *out; };

static void
launch (void *user)
{
  Case *c = (Case *) user;
  if (c->n == 0)
    empty<<<1, 32>>> ();
  else
    block_sums<<<(unsigned) (c->n / 256), 256>>> (c->in, c->out, c->n);
}

int
main (int argc, char **argv)
{
  bool ncu = argc > 1 && strcmp (argv[1], "ncu") == 0;
  size_t most = 64ull << 18;
  int *in, *out;
  if (cudaMalloc (&in, most * 4) != cudaSuccess || cudaMalloc (&out, most) != cudaSuccess)
    return 1;
  int *h = (int *) malloc (most * 4);
  for (size_t i = 0; i < most; i++)
    h[i] = (int) (i & 7);
  if (cudaMemcpy (in, h, most * 4, cudaMemcpyHostToDevice) != cudaSuccess)
    return 1;
  const char *m[] = { "dram__bytes_read.sum", "dram__bytes_write.sum",
                      "lts__t_sectors_srcunit_tex_op_write.sum", "gpu__time_duration.sum" };
  struct { const char *name; unsigned flags; } modes[] = {
    { "flush-l2", MS_GPU_PROFILE_FLUSH_L2 }, { "cold-start", MS_GPU_PROFILE_COLD_START },
    { "kernel-replay", 0 } };
  for (size_t n : { (size_t) 0, (size_t) 16 << 18, (size_t) 64 << 18 })
    for (int r = 0; r < 3; r++) {
      Case c = { n, in, out };
      if (ncu) {
        launch (&c);
        cudaDeviceSynchronize ();
        continue;
      }
      for (auto &mode : modes) {
        double v[4] = { 0, 0, 0, 0 };
        char err[512] = "";
        int ok = ms_gpu_profile_ex (launch, &c, m, 4, v, mode.flags, err, sizeof err);
        printf ("%-13s n %9zu  %s read %12.0f write %10.0f l2-write-sectors %8.0f ns %8.0f %s\n",
                mode.name, n, ok == 0 ? "ok" : "FAIL", v[0], v[1], v[2], v[3], err);
      }
    }
  return 0;
}
