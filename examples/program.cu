// program.cu - a whole CUDA program, host code included: transposes a
// matrix with a naive kernel and a tiled one, checks both, and times them
// with events.  Plain CUDA; with memsim:
//
//     memsim run examples/program.cu                 # every launch traced
//     memsim run examples/program.cu -- 2048         # a 2048 x 2048 matrix
//
// and on a GPU:  nvcc -O2 -o program examples/program.cu && ./program
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define TILE 32
#define ROWS 8   // a block is TILE x ROWS threads; each copies TILE/ROWS elements

#define CHECK(call)                                                             \
  do {                                                                          \
    cudaError_t err_ = (call);                                                  \
    if (err_ != cudaSuccess) {                                                  \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err_)); \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

__global__ void transposeNaive(float *out, const float *in, int n)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[x * n + (y + j)] = in[(y + j) * n + x];
}

__global__ void transposeTiled(float *out, const float *in, int n)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

static int check(const float *got, const float *in, int n)
{
    for (int y = 0; y < n; y++)
        for (int x = 0; x < n; x++)
            if (got[x * n + y] != in[y * n + x]) {
                printf("wrong at (%d, %d): %g, expected %g\n", x, y, got[x * n + y], in[y * n + x]);
                return 0;
            }
    return 1;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    if (n <= 0 || n % TILE != 0) {
        fprintf(stderr, "usage: program [N], N a multiple of %d\n", TILE);
        return 2;
    }
    size_t bytes = (size_t) n * n * sizeof(float);
    float *h_in = (float *) malloc(bytes), *h_out = (float *) malloc(bytes);
    for (int i = 0; i < n * n; i++)
        h_in[i] = (float) (i % 1000);

    float *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    dim3 grid(n / TILE, n / TILE), block(TILE, ROWS);
    const char *names[] = { "naive", "tiled" };
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        CHECK(cudaMemset(d_out, 0, bytes));
        CHECK(cudaEventRecord(start));
        if (k == 0)
            transposeNaive<<<grid, block>>>(d_out, d_in, n);
        else
            transposeTiled<<<grid, block>>>(d_out, d_in, n);
        CHECK(cudaGetLastError());
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
        int good = check(h_out, h_in, n);
        printf("%s: %s, %.3f ms, %.1f GB/s\n", names[k], good ? "correct" : "WRONG", ms,
               2.0 * bytes / ms / 1e6);
        ok &= good;
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    free(h_in);
    free(h_out);
    return ok ? 0 : 1;
}
