// bad.cu - kernels memsim must refuse with a clear message (tests/test-cli.c):
// a compile error on line 6, a template kernel.
__global__ void broken(float *out)
{
    int i = threadIdx.x;
    out[i] = undeclared_name;
}

template <int N>
__global__ void tiled(float *out)
{
    out[threadIdx.x] = N;
}
