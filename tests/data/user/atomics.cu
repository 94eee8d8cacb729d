// atomics.cu - a plain-CUDA copy of the built-in test_atomics
// (traces/kernels/tests.cu) for tests/test-user.c: a histogram with shared
// and global atomics, atomicMax and atomicCAS.
__global__ void histogram(int *out, const int *in, int n)
{
    __shared__ int hist[16];
    __shared__ int flag;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 16)
        hist[threadIdx.x] = 0;
    if (threadIdx.x == 0)
        flag = 0;
    __syncthreads();
    if (i < n) {
        int v = in[i];
        atomicAdd(&hist[v], 1);
        atomicMax(&out[16], v);
    }
    if (atomicCAS(&flag, 0, 1) == 0)
        atomicAdd(&out[17], 1);
    __syncthreads();
    if (threadIdx.x < 16)
        atomicAdd(&out[threadIdx.x], hist[threadIdx.x]);
}

// ticket: every thread takes a ticket and stores it, so the atomicAdd's
// result is used and nvcc keeps an ATOMG (op_atom), where the histogram's
// unused results become REDG (op_red).
__global__ void ticket(int *out, int *counter)
{
    int t = atomicAdd(counter, 1);
    out[blockIdx.x * blockDim.x + threadIdx.x] = t;
}
