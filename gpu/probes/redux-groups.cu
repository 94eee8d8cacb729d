// redux-groups.cu - how often Nsight Compute counts a warp reduction over
// a membermask that differs between lanes (__match_any_sync, then
// __reduce_max_sync: cooperative groups' labeled_partition and cg::reduce).
// ptxas wraps the REDUX in WARPSYNC.EXCLUSIVE ... BSYNC, which runs once
// for each group of lanes of one mask.  Each launch is one warp whose
// lanes take `keys` distinct keys (lane % keys), 1 to 32; it checks every
// lane's maximum against the CPU's.  Profile with
//   ncu --clock-control none --metrics smsp__inst_executed.sum ./redux-groups
//
//   nvcc -O3 -arch=sm_90 -o redux-groups gpu/probes/redux-groups.cu
#include <cstdio>

__global__ void max_by_key (const int *key, const int *val, int *out)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned group = __match_any_sync (0xffffffffu, key[i]);
  out[i] = __reduce_max_sync (group, val[i]);
}

int main ()
{
  int *key, *val, *out;
  cudaMalloc (&key, 128);
  cudaMalloc (&val, 128);
  cudaMalloc (&out, 128);
  int bad = 0;
  for (int keys = 1; keys <= 32; keys *= 2)
    for (int k = keys; k <= keys + (keys > 1 && keys < 32); k++)
      {
        int h[32], v[32], o[32];
        for (int i = 0; i < 32; i++)
          {
            h[i] = i % k;
            v[i] = (i * 37) % 101 - 50;
          }
        cudaMemcpy (key, h, 128, cudaMemcpyHostToDevice);
        cudaMemcpy (val, v, 128, cudaMemcpyHostToDevice);
        max_by_key<<<1, 32>>> (key, val, out);
        cudaMemcpy (o, out, 128, cudaMemcpyDeviceToHost);
        for (int i = 0; i < 32; i++)
          {
            int want = -1000;
            for (int j = 0; j < 32; j++)
              if (h[j] == h[i] && v[j] > want)
                want = v[j];
            bad += o[i] != want;
          }
        printf ("launch: %d keys\n", k);
      }
  printf ("%s\n", bad ? "FAILED" : "PASSED");
  return bad != 0;
}
