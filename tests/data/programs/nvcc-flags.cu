/* nvcc-flags.cu - what nvcc's own flags, as a build line spells them, did to
 * the build: fast math and relocatable device code as the kernel sees them,
 * the C++ dialect as the host code does (tests/test-run.c). */
#include <cstdio>

/* fast math flushes denormals to zero (mul.ftz.f32): a denormal halved is 0 */
__global__ void probe (int *out, float tiny)
{
  out[0] = tiny * 0.5f == 0.0f;
#ifdef __CUDACC_RDC__
  out[1] = 1;
#else
  out[1] = 0;
#endif
}

int main ()
{
  int *d, h[2] = { -1, -1 };
  cudaMalloc (&d, sizeof h);
  probe<<<1, 1>>> (d, 1e-39f);
  cudaMemcpy (h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf ("nvcc-flags: fast math %d, rdc %d, C++ %ld\n", h[0], h[1], (long) __cplusplus);
  cudaFree (d);
  return 0;
}
