// race.cu - a tiled transpose that forgets its __syncthreads (tests/test-cli.c):
// warp w reads tile words written by other warps with no barrier between.
__global__ void transpose_race(float *out, const float *in)
{
    __shared__ float tile[32][33];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * 32 + x];
    out[y * 32 + x] = tile[x][y];
}
