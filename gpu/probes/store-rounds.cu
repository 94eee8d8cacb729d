// store-rounds.cu - what a loop iteration of loads, an FMA and a store of
// its result costs a warp (PolyBench's correlation, gemm and matrix-vector
// kernels): the same walk down a 2048^2 float matrix's columns (the L2
// holds it), with the store in the loop to 32 lines (correlation's
// symmat[j1*M+j2]), to one line, to none (the next load's address then
// depends on the sum instead), one load or two, a broadcast load beside a
// row load.  Each case is one launch of 16 sweeps of 2048 rows, timed by
// CUDA events (median of 5): cycles an iteration at 1980 MHz.
//   nvcc -O3 -arch=sm_90 -o store-rounds gpu/probes/store-rounds.cu && ./store-rounds
#include "probe-timing.cuh"

#define M 2048
#define SWEEPS 16

enum { STORE_32_LINES, STORE_ROW, STORE_ONE_WORD, NO_STORE };

// LOADS: 1 (data[i][j1]), 2 (and data[i][j2]), 3 (data[i][j1] and a
// broadcast data[j1 / 32][i], which the L1 keeps)
template <int STORE, int LOADS>
__global__ void walk (float *s, const float *data)
{
  int j1 = (blockIdx.x * blockDim.x + threadIdx.x) % M;   // larger grids share columns
  float acc = 0;
  for (int k = 0; k < SWEEPS; k++)
    {
      int j2 = (j1 + 1 + k) % M;
      int dep = 0;
      for (int i = 0; i < M; i++)
        {
          float v = data[i * M + j1 + dep];
          if (LOADS == 2)
            v *= data[i * M + j2 + dep];
          if (LOADS == 3)
            v *= data[(j1 / 32) * M + i + dep];
          acc += v;
          if (STORE == STORE_32_LINES)
            s[j1 * M + j2] = acc;
          else if (STORE == STORE_ROW)
            s[k * M + j1] = acc;
          else if (STORE == STORE_ONE_WORD)
            s[j1] = acc;
          else if (STORE == NO_STORE)
            dep = (int) (acc * 0.0f);   // 0, but the compiler cannot know it
        }
    }
  s[M * M + j1] = acc;
}

// A full GPU (1056 blocks of 256): every thread a column of its own, down
// 32 rows of a 32 x 270 336 float matrix (35 MB: the L2 holds it, the L1s
// do not), the sum stored in the loop to the thread's own word (gemm's
// C[i][j]: one line a warp, the same each iteration), to a word a row
// (a new line each iteration), or not stored (the next address depends on
// the sum); one load, or a row load and a broadcast (gemm's A[i][k]).
#define ROWS 32
template <int STORE, int LOADS>
__global__ void full (float *s, const float *data, int sweeps)
{
  int w = gridDim.x * blockDim.x, j = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  int dep = 0;
  for (int k = 0; k < sweeps; k++)
    for (int i = 0; i < ROWS; i++)
      {
        float v = data[i * w + j + dep];
        if (LOADS == 3)
          v *= data[(j / 32) % w + i + dep];
        acc += v;
        if (STORE == STORE_ONE_WORD)
          s[j] = acc;
        else if (STORE == STORE_ROW)
          s[i * w + j] = acc;
        else if (STORE == NO_STORE)
          dep = (int) (acc * 0.0f);
      }
  s[j] = acc;
}

int
main ()
{
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  float *s, *data;
  CHECK (cudaMalloc (&s, (size_t) (M * M + M) * sizeof (float)));
  CHECK (cudaMalloc (&data, (size_t) M * M * sizeof (float)));
  CHECK (cudaMemset (data, 0, (size_t) M * M * sizeof (float)));
  CHECK (cudaMemset (s, 0, (size_t) (M * M + M) * sizeof (float)));
  const double iters = (double) SWEEPS * M;
  struct Case { const char *name; void (*k) (float *, const float *); };
  const Case cases[] = {
    { "store 32 lines, 2 loads (correlation)", walk<STORE_32_LINES, 2> },
    { "store 32 lines, 1 load", walk<STORE_32_LINES, 1> },
    { "store a row, 2 loads", walk<STORE_ROW, 2> },
    { "store a row, 1 load", walk<STORE_ROW, 1> },
    { "store one word, 2 loads", walk<STORE_ONE_WORD, 2> },
    { "store one word, 1 load", walk<STORE_ONE_WORD, 1> },
    { "store a row, load + broadcast", walk<STORE_ROW, 3> },
    { "no store (dependent address), 2 loads", walk<NO_STORE, 2> },
    { "no store (dependent address), 1 load", walk<NO_STORE, 1> },
    { "no store (dependent address), load + broadcast", walk<NO_STORE, 3> },
  };
  const int grids[] = { 8, 64, 132 * 8 };
  printf ("case\tblocks of 256\tms\tcycles an iteration\n");
  for (const Case &c : cases)
    for (int blocks : grids)
      {
        double ms = median_ms ([&] { c.k<<<blocks, 256>>> (s, data); });
        CHECK (cudaGetLastError ());
        printf ("%s\t%d\t%.3f\t%.0f\n", c.name, blocks, ms, ms * 1e-3 * 1980e6 / iters);
      }
  const int blocks = 132 * 8, w = blocks * 256, sweeps = 256;
  float *big, *out;
  CHECK (cudaMalloc (&big, (size_t) ROWS * w * sizeof (float) + 4096));
  CHECK (cudaMalloc (&out, (size_t) ROWS * w * sizeof (float)));
  CHECK (cudaMemset (big, 0, (size_t) ROWS * w * sizeof (float) + 4096));
  struct Full { const char *name; void (*k) (float *, const float *, int); };
  const Full fulls[] = {
    { "full: store own word, 1 load", full<STORE_ONE_WORD, 1> },
    { "full: store own word, load + broadcast (gemm)", full<STORE_ONE_WORD, 3> },
    { "full: store a word a row, 1 load", full<STORE_ROW, 1> },
    { "full: no store (dependent address), 1 load", full<NO_STORE, 1> },
    { "full: no store (dependent address), load + broadcast", full<NO_STORE, 3> },
  };
  for (const Full &c : fulls)
    {
      double ms = median_ms ([&] { c.k<<<blocks, 256>>> (out, big, sweeps); });
      CHECK (cudaGetLastError ());
      printf ("%s\t%d\t%.3f\t%.0f\n", c.name, blocks, ms,
              ms * 1e-3 * 1980e6 / ((double) sweeps * ROWS));
    }
  return 0;
}
