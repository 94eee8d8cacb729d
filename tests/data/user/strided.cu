// strided.cu - the smallest kernels with hand-derived counts
// (tests/test-user.c): each thread loads one float at a stride of `stride`
// floats and stores it contiguously; a float4 copy; a struct member read.
struct Particle {
    float x, y, z;
    int id;
};

__global__ void strided(float *out, const float *in, int stride)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i * stride];
}

__global__ void copy4(float4 *out, const float4 *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}

__global__ void ids(int *out, const Particle *p)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = p[i].id;
}

__global__ void overrun(float *out, const float *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i + n];
}

// A struct passed by value: memsim says it cannot set it (tests/test-cli.c);
// its presence must not stop the file's other kernels.
__global__ void scaled(float *out, float2 scale)
{
    out[threadIdx.x] *= scale.x;
}

// float3 (12 bytes, aligned to 4): copied in three 4-byte accesses, as nvcc does.
__global__ void copy3(float3 *out, const float3 *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i];
}
