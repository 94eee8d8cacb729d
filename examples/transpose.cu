// transpose.cu - three matrix transposes in plain CUDA: the naive one, a
// shared-memory tile, and the tile with one pad column (examples/README.md
// has the commands).
#define TILE_DIM 32

__global__ void transpose_naive(float *odata, const float *idata, int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        odata[x * height + y] = idata[y * width + x];
}

__global__ void transpose_shared(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    if (x < height && y < width)
        odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void transpose_padded(float *odata, const float *idata, int width, int height)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + 1];   // the pad column
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;
    if (x < width && y < height)
        tile[threadIdx.y][threadIdx.x] = idata[y * width + x];
    __syncthreads();
    x = blockIdx.y * TILE_DIM + threadIdx.x;
    y = blockIdx.x * TILE_DIM + threadIdx.y;
    if (x < height && y < width)
        odata[y * height + x] = tile[threadIdx.x][threadIdx.y];
}
