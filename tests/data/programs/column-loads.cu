// A warp walks down the columns of a 32 x 32 float matrix: lane j reads
// a[j * 32 + k] for k = 0 .. 31, twice.  Each load is a column, one line a
// lane (a row is 128 bytes), the same 32 lines every time.
#include <cstdio>

__global__ void columns (const float *a, float *out)
{
  int j = threadIdx.x;
  float sum = 0;
  for (int pass = 0; pass < 2; pass++)
#pragma unroll 1
    for (int k = 0; k < 32; k++)
      sum += a[j * 32 + k];
  out[j] = sum;
}

int main ()
{
  float *a, *out;
  cudaMallocManaged (&a, 32 * 32 * sizeof (float));
  cudaMallocManaged (&out, 32 * sizeof (float));
  for (int i = 0; i < 32 * 32; i++)
    a[i] = 1.0f;
  columns<<<1, 32>>> (a, out);
  cudaDeviceSynchronize ();
  printf ("column-loads: sum %g\n", out[0]);
  return 0;
}
