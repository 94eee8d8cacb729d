// division-slow-path.cu - when IEEE division and its relatives leave
// ptxas's fast path for the slow-path subroutine, and what Nsight Compute
// counts then.
//
// `sweep` (the default): which float divisions a / b take the slow path,
// for every pair of 516 values (every exponent with the smallest and the
// largest significand, zeros, denormals, infinity, NaN, a few negatives).
// One thread alone in its block times each division with clock64() (the
// least of two tries); the
// slow path (FCHK's predicate, a call of 21 to 92 more instructions) takes
// far longer than the fast one.  It prints the cycle histogram, then one
// line a dividend: the slow divisors as a hex bit string (bit j of the
// string, lowest first in each digit, is divisor j).
//
// `counts`: one warp divides (float and double), takes square roots and
// reciprocals of one case each launch, every lane alike or mixed (every
// route through the float division's, square root's and reciprocal's slow
// paths); profile
// with
//   ncu --clock-control none --metrics smsp__inst_executed.sum ./division-slow-path counts
//
//   nvcc -O3 -arch=sm_90 -o division-slow-path gpu/probes/division-slow-path.cu
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                  \
  do                                                                              \
    {                                                                             \
      cudaError_t e_ = (x);                                                       \
      if (e_ != cudaSuccess)                                                      \
        {                                                                         \
          fprintf (stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString (e_)); \
          return 1;                                                               \
        }                                                                         \
    }                                                                             \
  while (0)

static float
from_bits (uint32_t u)
{
  float f;
  memcpy (&f, &u, 4);
  return f;
}

// the sweep's values, in the order of the printed bits
static std::vector<float>
sweep_values ()
{
  std::vector<float> v;
  v.push_back (0.0f);
  v.push_back (from_bits (0x00000001u));   // the least denormal
  v.push_back (from_bits (0x00400000u));
  v.push_back (from_bits (0x007fffffu));   // the largest denormal
  for (uint32_t e = 1; e <= 254; e++)
    {
      v.push_back (from_bits (e << 23));               // 2^(e-127)
      v.push_back (from_bits (e << 23 | 0x7fffffu));   // just below 2^(e-126)
    }
  v.push_back (INFINITY);
  v.push_back (NAN);
  v.push_back (-1.0f);
  v.push_back (-3.0f);
  v.push_back (-0.0f);
  v.push_back (from_bits (0x80000001u));
  return v;
}

__device__ __forceinline__ long long
now ()
{
  long long t;
  asm volatile ("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}

// thread 0 of block i: dividend vals[i] by every vals[j], cycles[i * n + j]
__global__ void
sweep (const float *vals, int n, int *cycles)
{
  float a = vals[blockIdx.x];
  for (int j = 0; j < n; j++)
    {
      float b = vals[j];
      int least = 1 << 30;
      for (int rep = 0; rep < 2; rep++)   // the least of two: the first may miss the caches
        {
          float q;
          long long t0 = now ();
          asm volatile ("div.rn.f32 %0, %1, %2;" : "=f"(q) : "f"(a), "f"(b));
          asm volatile ("" ::"f"(q));
          long long t1 = now ();
          int c = (int) (t1 - t0) + (q == 12345.0f);
          least = c < least ? c : least;
        }
      cycles[blockIdx.x * n + j] = least;
    }
}

__global__ void
divide (const float *a, const float *b, float *c)
{
  int i = threadIdx.x;
  c[i] = a[i] / b[i];
}

__global__ void
divide_double (const double *a, const double *b, double *c)
{
  int i = threadIdx.x;
  c[i] = a[i] / b[i];
}

__global__ void
root (const float *a, float *c)
{
  int i = threadIdx.x;
  c[i] = sqrtf (a[i]);
}

__global__ void
root_double (const double *a, double *c)
{
  int i = threadIdx.x;
  c[i] = sqrt (a[i]);
}

__global__ void
reciprocal (const float *a, float *c)
{
  int i = threadIdx.x;
  c[i] = 1.0f / a[i];
}

__global__ void
reciprocal_double (const double *a, double *c)
{
  int i = threadIdx.x;
  c[i] = 1.0 / a[i];
}

static int
run_sweep ()
{
  std::vector<float> v = sweep_values ();
  int n = (int) v.size ();
  float *dv;
  int *dc;
  CHECK (cudaMalloc (&dv, n * sizeof (float)));
  CHECK (cudaMalloc (&dc, (size_t) n * n * sizeof (int)));
  CHECK (cudaMemcpy (dv, v.data (), n * sizeof (float), cudaMemcpyHostToDevice));
  sweep<<<n, 1>>> (dv, n, dc);
  CHECK (cudaGetLastError ());
  std::vector<int> c ((size_t) n * n);
  CHECK (cudaMemcpy (c.data (), dc, c.size () * sizeof (int), cudaMemcpyDeviceToHost));
  // the histogram, in 8-cycle bins, to show the two modes
  std::vector<long> hist (512, 0);
  for (int x : c)
    hist[x / 8 < 511 ? x / 8 : 511]++;
  printf ("# division-slow-path sweep: %d values, cycles of each division (8-cycle bins)\n", n);
  for (int b = 0; b < 512; b++)
    if (hist[b])
      printf ("# %d-%d cycles: %ld\n", b * 8, b * 8 + 7, hist[b]);
  // the threshold: the middle of the widest empty gap between the modes
  int lo = 1 << 30, hi = 0;
  for (int x : c)
    {
      lo = x < lo ? x : lo;
      hi = x > hi ? x : hi;
    }
  std::vector<int> sorted (c);
  std::sort (sorted.begin (), sorted.end ());
  int gap = 0, cut = 0;
  // (among the times below 4x the fastest: the modes, not the outliers)
  for (size_t k = 1; k < sorted.size () && sorted[k] < 4 * lo; k++)
    if (sorted[k] - sorted[k - 1] > gap)
      {
        gap = sorted[k] - sorted[k - 1];
        cut = sorted[k - 1] + gap / 2;
      }
  printf ("# fastest %d, slowest %d, widest gap %d cycles: slow above %d\n", lo, hi, gap, cut);
  printf ("# values (float bits):");
  for (float x : v)
    {
      uint32_t u;
      memcpy (&u, &x, 4);
      printf (" %08x", u);
    }
  printf ("\n");
  for (int i = 0; i < n; i++)
    {
      uint32_t u;
      memcpy (&u, &v[i], 4);
      printf ("%08x ", u);
      for (int j = 0; j < n; j += 4)
        {
          int d = 0;
          for (int k = 0; k < 4 && j + k < n; k++)
            d |= (c[(size_t) i * n + j + k] > cut) << k;
          printf ("%x", d);
        }
      printf ("\n");
    }
  return 0;
}

// the counts' cases: a dividend and divisor for lane i
struct Case
{
  const char *name;
  double a, b;     // every lane's
  int lanes;       // lanes (from lane 0) that take a2 / b2 instead
  double a2, b2;
};

static const Case cases[] = {
  { "1/3", 1, 3, 0, 0, 0 },
  { "0/3", 0, 3, 0, 0, 0 },
  { "-0/3", -0.0, 3, 0, 0, 0 },
  { "1/0", 1, 0, 0, 0, 0 },
  { "0/0", 0, 0, 0, 0, 0 },
  { "inf/3", INFINITY, 3, 0, 0, 0 },
  { "inf/inf", INFINITY, INFINITY, 0, 0, 0 },
  { "3/inf", 3, INFINITY, 0, 0, 0 },
  { "nan/3", NAN, 3, 0, 0, 0 },
  { "1e-40/3", 1e-40, 3, 0, 0, 0 },
  { "1/1e-40", 1, 1e-40, 0, 0, 0 },
  { "1e-40/1e-40", 1e-40, 1e-40, 0, 0, 0 },
  { "1e38/1e-3", 1e38, 1e-3, 0, 0, 0 },
  { "1e-30/1e10", 1e-30, 1e10, 0, 0, 0 },
  { "1e-30/1e30", 1e-30, 1e30, 0, 0, 0 },
  { "3/2^126", 3, 0x1p126, 0, 0, 0 },
  { "1/2^-126", 1, 0x1p-126, 0, 0, 0 },
  { "1e38/3", 1e38, 3, 0, 0, 0 },
  { "1/2^-125", 1, 0x1p-125, 0, 0, 0 },
  { "1/3 but lane 0 0/3", 1, 3, 1, 0, 3 },
  { "1/0 but 16 lanes 0/3", 1, 0, 16, 0, 3 },
  { "1e-30/1e10 but 16 lanes 0/3", 1e-30, 1e10, 16, 0, 3 },
  { "1e38/1e-3 but 16 lanes 1e-30/1e10", 1e38, 1e-3, 16, 1e-30, 1e10 },
};

template <typename T>
static int
launch_case (const char *kernel, const Case &k, T *da, T *db, T *dc)
{
  T a[32], b[32];
  for (int i = 0; i < 32; i++)
    {
      a[i] = (T) (i < k.lanes ? k.a2 : k.a);
      b[i] = (T) (i < k.lanes ? k.b2 : k.b);
    }
  CHECK (cudaMemcpy (da, a, sizeof a, cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (db, b, sizeof b, cudaMemcpyHostToDevice));
  if (!strcmp (kernel, "divide"))
    divide<<<1, 32>>> ((const float *) da, (const float *) db, (float *) dc);
  else if (!strcmp (kernel, "divide_double"))
    divide_double<<<1, 32>>> ((const double *) da, (const double *) db, (double *) dc);
  else if (!strcmp (kernel, "root"))
    root<<<1, 32>>> ((const float *) da, (float *) dc);
  else if (!strcmp (kernel, "root_double"))
    root_double<<<1, 32>>> ((const double *) da, (double *) dc);
  else if (!strcmp (kernel, "reciprocal"))
    reciprocal<<<1, 32>>> ((const float *) db, (float *) dc);
  else
    reciprocal_double<<<1, 32>>> ((const double *) db, (double *) dc);
  CHECK (cudaGetLastError ());
  T c[32];
  CHECK (cudaMemcpy (c, dc, sizeof c, cudaMemcpyDeviceToHost));
  printf ("%s %s: lane 0 %a, lane 31 %a\n", kernel, k.name, (double) c[0], (double) c[31]);
  return 0;
}

static int
run_counts ()
{
  float *fa, *fb, *fc;
  double *da, *db, *dc;
  CHECK (cudaMalloc (&fa, 32 * sizeof (float)));
  CHECK (cudaMalloc (&fb, 32 * sizeof (float)));
  CHECK (cudaMalloc (&fc, 32 * sizeof (float)));
  CHECK (cudaMalloc (&da, 32 * sizeof (double)));
  CHECK (cudaMalloc (&db, 32 * sizeof (double)));
  CHECK (cudaMalloc (&dc, 32 * sizeof (double)));
  for (const Case &k : cases)
    if (launch_case<float> ("divide", k, fa, fb, fc))
      return 1;
  // the relatives: a fast and a slow case each (a square root of 0, a
  // reciprocal of 0, a double dividend of 0)
  static const Case others[] = { { "2/3", 2, 3, 0, 0, 0 }, { "0/0", 0, 0, 0, 0, 0 } };
  for (const Case &k : others)
    if (launch_case<double> ("divide_double", k, da, db, dc)
        || launch_case<float> ("root", k, fa, fb, fc)
        || launch_case<double> ("root_double", k, da, db, dc)
        || launch_case<float> ("reciprocal", k, fa, fb, fc)
        || launch_case<double> ("reciprocal_double", k, da, db, dc))
      return 1;
  // every route through the float square root's and reciprocal's slow
  // paths (the root of a, the reciprocal of b), and warps that mix them
  static const Case roots[] = {
    { "sqrt 0", 0, 1, 0, 0, 0 },         { "sqrt -0", -0.0, 1, 0, 0, 0 },
    { "sqrt -1", -1, 1, 0, 0, 0 },       { "sqrt nan", NAN, 1, 0, 0, 0 },
    { "sqrt inf", INFINITY, 1, 0, 0, 0 }, { "sqrt 1e-40", 1e-40, 1, 0, 0, 0 },
    { "sqrt 1e-35", 1e-35, 1, 0, 0, 0 }, { "sqrt -1e-40", -1e-40, 1, 0, 0, 0 },
    { "sqrt 2 but lane 0 0", 2, 1, 1, 0, 1 }, { "sqrt -1 but 16 lanes 0", -1, 1, 16, 0, 1 },
  };
  for (const Case &k : roots)
    if (launch_case<float> ("root", k, fa, fb, fc))
      return 1;
  static const Case reciprocals[] = {
    { "rcp 1e-40", 1, 1e-40, 0, 0, 0 },  { "rcp -0", 1, -0.0, 0, 0, 0 },
    { "rcp inf", 1, INFINITY, 0, 0, 0 }, { "rcp nan", 1, NAN, 0, 0, 0 },
    { "rcp 2^126", 1, 0x1p126, 0, 0, 0 }, { "rcp 2^127", 1, 0x1p127, 0, 0, 0 },
    { "rcp 3 but lane 0 0", 1, 3, 1, 1, 0 }, { "rcp 0 but 16 lanes 2^127", 1, 0, 16, 1, 0x1p127 },
  };
  for (const Case &k : reciprocals)
    if (launch_case<float> ("reciprocal", k, fa, fb, fc))
      return 1;
  printf ("division-slow-path: done\n");
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc > 1 && !strcmp (argv[1], "counts"))
    return run_counts ();
  return run_sweep ();
}
