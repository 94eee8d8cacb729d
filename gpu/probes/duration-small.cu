// duration-small.cu - gpu__time_duration.sum of small launches as `--gpu`
// measures it (gpu/profiler.cu, MS_GPU_PROFILE_COLD_START: a CUPTI range
// per kernel, the L2 flushed before each pass), to set beside Nsight
// Compute's for the same kernels (launch-shape.cu's empty and touch).
//   nvcc -O2 -arch=sm_90 -std=c++17 -I$CUDA_HOME/include -o duration-small \
//        gpu/probes/duration-small.cu gpu/profiler.cu -lcupti
//   ./duration-small
#include <cstdio>
#include <cstdlib>

#include "../profiler.h"

__global__ void empty () {}

__global__ void touch (int *out)
{
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

struct Case { bool store; int grid, block; int *out; };

static void
launch (void *user)
{
  Case *c = (Case *) user;
  if (c->store)
    touch<<<c->grid, c->block>>> (c->out);
  else
    empty<<<c->grid, c->block>>> ();
}

int
main ()
{
  int *out;
  if (cudaMalloc (&out, 65536L * 1024 * sizeof (int)) != cudaSuccess)
    return 1;
  const char *m[] = { "gpu__time_duration.sum" };
  const int grids[] = { 1, 132, 1056, 4224, 65536 };
  const int blocks[] = { 32, 256 };
  for (int store = 0; store < 2; store++)
    for (int g : grids)
      for (int b : blocks)
        for (int r = 0; r < 3; r++) {
          Case c = { store != 0, g, b, out };
          double v = 0;
          char err[512] = "";
          int ok = ms_gpu_profile_ex (launch, &c, m, 1, &v, MS_GPU_PROFILE_COLD_START, err,
                                      sizeof err);
          printf ("%-5s grid %6d block %5d  %s %8.0f ns %s\n", store ? "touch" : "empty", g, b,
                  ok == 0 ? "ok" : "FAIL", v, err);
        }
  return 0;
}
