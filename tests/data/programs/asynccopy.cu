// asynccopy.cu [FILL] - cp.async (LDGSTS): each thread copies one float4
// from global to shared memory with __pipeline_memcpy_async, waits for it
// and reads another thread's copy back.  4 blocks of 64 threads (2
// warps); the last FILL (default 8) threads of a block ask for zeros
// instead of reading (zfill: a source size of 0).
//
// What the GPU counts (tests/test-run.c, /run/async-copy): 8 LDGSTS
// instructions, no LDG; warp 0 of a block reads 32 x 16 contiguous bytes
// (16 sectors), warp 1 reads 24 of its lanes' (12 sectors); no shared
// store; 8 LDS.128 and 8 STG.
#include <cuda_pipeline.h>
#include <stdio.h>

__global__ void copy_tile (const float4 *in, float *out, int fill)
{
  __shared__ float4 tile[64];
  int t = threadIdx.x, i = blockIdx.x * 64 + t;
  __pipeline_memcpy_async (&tile[t], &in[i], sizeof (float4),
                           t >= 64 - fill ? sizeof (float4) : 0);
  __pipeline_commit ();
  __pipeline_wait_prior (0);
  __syncthreads ();
  float4 v = tile[63 - t];
  out[i] = v.x + v.y + v.z + v.w;
}

#include <stdlib.h>

int main (int argc, char **argv)
{
  const int n = 4 * 64, fill = argc > 1 ? atoi (argv[1]) : 8;
  float4 h[n];
  float r[n];
  for (int i = 0; i < n; i++)
    h[i] = make_float4 (i, 2 * i, 3 * i, 4 * i);
  float4 *din;
  float *dout;
  cudaMalloc (&din, sizeof h);
  cudaMalloc (&dout, sizeof r);
  cudaMemcpy (din, h, sizeof h, cudaMemcpyHostToDevice);
  copy_tile<<<4, 64>>> (din, dout, fill);
  cudaMemcpy (r, dout, sizeof r, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++)
    {
      int t = i % 64, src = i - t + 63 - t;
      float want = 63 - t >= 64 - fill ? 0.0f : 10.0f * src;
      if (r[i] != want)
        {
          if (bad++ < 4)
            printf ("out[%d] = %g, expected %g\n", i, r[i], want);
        }
    }
  cudaFree (din);
  cudaFree (dout);
  if (bad)
    {
      printf ("asynccopy: %d wrong\n", bad);
      return 1;
    }
  fprintf (stderr, "asynccopy: all checks passed\n");
  return 0;
}
