// groups.cu - cooperative groups in a whole program: block sums by a
// warp-sized tile's cg::reduce and by a two-warp tile's; the program checks
// both against the host's sum, and atomicOr/And/Xor (exit 0).  tests/test-run.c runs it.
#include <cstdio>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// sm_80's warp reduction over the first 8 lanes of each warp
__global__ void firstEight(int *out, const int *in)
{
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    unsigned lane = threadIdx.x % 32;
    if (lane < 8) {
        int s = __reduce_add_sync(0xffu, v);
        if (lane == 0)
            out[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = s;
    }
}

// atomicOr/And/Xor on shared and global words: out[0] = OR of the bits
// 1 << (t % 32), out[1] = AND of ~(1 << (t % 8)) over all bits set,
// out[2] = XOR of t (threads 0..255: 0)
__global__ void bitAtomics(unsigned *out)
{
    __shared__ unsigned word;
    unsigned t = threadIdx.x;
    if (t == 0)
        word = 0;
    __syncthreads();
    atomicOr(&word, 1u << (t % 32));
    __syncthreads();
    if (t == 0)
        out[0] = word;
    atomicAnd(&out[1], ~(1u << (t % 8)));
    atomicXor(&out[2], t);
}

template <unsigned TileSize>
__global__ void tileSums(int *out, const int *in)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<TileSize> tile = cg::tiled_partition<TileSize>(block);
    int v = in[blockIdx.x * blockDim.x + block.thread_rank()];
    int s = cg::reduce(tile, v, cg::plus<int>());
    if (tile.thread_rank() == 0)
        out[blockIdx.x * (blockDim.x / TileSize) + tile.meta_group_rank()] = s;
}

int main()
{
    const int blocks = 4, threads = 256, n = blocks * threads;
    int h[n], sums[n / 32], *d_in, *d_out;
    for (int i = 0; i < n; i++)
        h[i] = (i * 7) % 23 - 11;
    cudaMalloc(&d_in, sizeof h);
    cudaMalloc(&d_out, sizeof sums);
    cudaMemcpy(d_in, h, sizeof h, cudaMemcpyHostToDevice);

    tileSums<32><<<blocks, threads>>>(d_out, d_in);
    cudaMemcpy(sums, d_out, sizeof sums, cudaMemcpyDeviceToHost);
    for (int t = 0; t < n / 32; t++) {
        int want = 0;
        for (int i = 0; i < 32; i++)
            want += h[t * 32 + i];
        if (sums[t] != want) { printf("tile of 32, %d: %d, expected %d\n", t, sums[t], want); return 1; }
    }
    tileSums<64><<<blocks, threads>>>(d_out, d_in);
    cudaMemcpy(sums, d_out, sizeof sums, cudaMemcpyDeviceToHost);
    for (int t = 0; t < n / 64; t++) {
        int want = 0;
        for (int i = 0; i < 64; i++)
            want += h[t * 64 + i];
        if (sums[t] != want) { printf("tile of 64, %d: %d, expected %d\n", t, sums[t], want); return 2; }
    }
    firstEight<<<blocks, threads>>>(d_out, d_in);
    cudaMemcpy(sums, d_out, sizeof sums, cudaMemcpyDeviceToHost);
    for (int w = 0; w < n / 32; w++) {
        int want = 0;
        for (int i = 0; i < 8; i++)
            want += h[w * 32 + i];
        if (sums[w] != want) { printf("first eight, warp %d: %d, expected %d\n", w, sums[w], want); return 3; }
    }
    printf("tile sums correct\n");

    unsigned bits[3] = { 0, 0xffffffffu, 0 }, *d_bits;
    cudaMalloc(&d_bits, sizeof bits);
    cudaMemcpy(d_bits, bits, sizeof bits, cudaMemcpyHostToDevice);
    bitAtomics<<<1, 256>>>(d_bits);
    cudaMemcpy(bits, d_bits, sizeof bits, cudaMemcpyDeviceToHost);
    if (bits[0] != 0xffffffffu || bits[1] != 0xffffff00u || bits[2] != 0) {
        printf("bit atomics: %08x %08x %08x\n", bits[0], bits[1], bits[2]);
        return 4;
    }
    printf("bit atomics correct\n");
    return 0;
}
