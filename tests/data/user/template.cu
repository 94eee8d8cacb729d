// template.cu - a template kernel, run as an instantiation
// (`template.cu:'tile_transpose<32>'`, tests/test-cli.c): one TILE x TILE
// tile, transposed through a padded shared array sized by the template.
template <int TILE>
__global__ void tile_transpose(float *out, const float *in)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[y * TILE + x];
    __syncthreads();
    out[y * TILE + x] = tile[x][y];
}
