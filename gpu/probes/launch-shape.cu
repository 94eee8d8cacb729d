// launch-shape.cu - what a launch costs before its work, by its shape, and
// what a texture fetch costs the SM: the kernels Nsight Compute times
// (gpu__time_duration.sum) in gpu/measurements/h200-2026-11-29-launch/.
//   empty         no work: the launch's fixed time by grid and block size
//   touch         one 4-byte store a thread (the smallest real work)
//   tex_point     16 fetches a thread from a 2048 x 2048 float texture,
//   tex_linear    point-sampled or bilinear-filtered, summed, one store:
//                 the texture pipe's rate (16 MiB: the L2 holds it)
//   ld_sum        the same 16 loads from global memory, for comparison
// Each shape runs twice; the second launch is the one to read.
//   nvcc -O3 -arch=sm_90 -o launch-shape gpu/probes/launch-shape.cu
//   ncu --clock-control none --cache-control all --metrics \
//     gpu__time_duration.sum,launch__grid_size,launch__block_size ./launch-shape
#include "probe-timing.cuh"

__global__ void empty () {}

__global__ void touch (int *out)
{
  out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}

#define SIDE 2048
#define FETCHES 16

__global__ void tex_point (cudaTextureObject_t t, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0;
#pragma unroll
  for (int k = 0; k < FETCHES; k++)
    s += tex2D<float> (t, x + k + 0.5f, y + 0.5f);
  out[y * SIDE + x] = s;
}

__global__ void tex_linear (cudaTextureObject_t t, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0;
#pragma unroll
  for (int k = 0; k < FETCHES; k++)
    s += tex2D<float> (t, x + k + 0.25f, y + 0.75f);
  out[y * SIDE + x] = s;
}

__global__ void ld_sum (const float *in, float *out)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  float s = 0;
#pragma unroll
  for (int k = 0; k < FETCHES; k++)
    s += in[y * SIDE + ((x + k) & (SIDE - 1))];
  out[y * SIDE + x] = s;
}

static cudaTextureObject_t
texture (cudaArray_t a, bool linear)
{
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc d = {};
  d.addressMode[0] = d.addressMode[1] = cudaAddressModeClamp;
  d.filterMode = linear ? cudaFilterModeLinear : cudaFilterModePoint;
  d.readMode = cudaReadModeElementType;
  cudaTextureObject_t t;
  CHECK (cudaCreateTextureObject (&t, &r, &d, NULL));
  return t;
}

int
main ()
{
  int *out;
  const long most = 65536L * 1024;
  CHECK (cudaMalloc (&out, most * sizeof (int)));
  const int grids[] = { 1, 2, 132, 264, 1056, 4224, 16896, 65536 };
  const int blocks[] = { 32, 64, 256, 1024 };
  for (int g : grids)
    for (int b : blocks)
      for (int r = 0; r < 2; r++) {
        empty<<<g, b>>> ();
        touch<<<g, b>>> (out);
      }
  CHECK (cudaDeviceSynchronize ());

  cudaChannelFormatDesc f = cudaCreateChannelDesc<float> ();
  cudaArray_t a;
  CHECK (cudaMallocArray (&a, &f, SIDE, SIDE));
  float *in, *res;
  CHECK (cudaMalloc (&in, SIDE * SIDE * sizeof (float)));
  CHECK (cudaMalloc (&res, SIDE * SIDE * sizeof (float)));
  float *host = (float *) malloc (SIDE * SIDE * sizeof (float));
  for (int i = 0; i < SIDE * SIDE; i++)
    host[i] = (float) (i % 1000) * 0.001f;
  CHECK (cudaMemcpy (in, host, SIDE * SIDE * sizeof (float), cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy2DToArray (a, 0, 0, host, SIDE * sizeof (float), SIDE * sizeof (float), SIDE,
                              cudaMemcpyHostToDevice));
  cudaTextureObject_t tp = texture (a, false), tl = texture (a, true);
  dim3 blk (16, 16), grd (SIDE / 16, SIDE / 16);
  for (int r = 0; r < 2; r++) {
    tex_point<<<grd, blk>>> (tp, res);
    tex_linear<<<grd, blk>>> (tl, res);
    ld_sum<<<grd, blk>>> (in, res);
  }
  CHECK (cudaDeviceSynchronize ());
  printf ("launch-shape: done\n");
  return 0;
}
