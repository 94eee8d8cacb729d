// names.cu - kernels found by name (tests/test-user.c): overloads, a
// namespace, a template with two instantiations, a typedef'd pointer, a
// struct by value, an extern "C" kernel.
typedef float real;
struct Pair { float a; int b; };

__global__ void over(int *p) { p[threadIdx.x] = 1; }
__global__ void over(float *p) { p[threadIdx.x] = 2.0f; }

namespace lib {
__global__ void fill(real *out, const real *__restrict__ in, unsigned long long n, double s)
{
  unsigned i = threadIdx.x;
  if (i < n) out[i] = in[i] * (real) s;
}
}

template <int N> __global__ void rep(int *p) { p[threadIdx.x] = N; }
template __global__ void rep<1>(int *);
template __global__ void rep<2>(int *);

__global__ void byvalue(Pair q, float *out) { out[0] = q.a; }

extern "C" __global__ void plain(short *s, char c) { s[threadIdx.x] = c; }
