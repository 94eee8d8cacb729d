// particles.cu - array of structs against struct of arrays, in plain CUDA:
// moving particles reads 16-byte structs (AoS) or three float arrays (SoA).
// examples/README.md has the commands.
struct Particle {
    float x, y, z;
    float mass;
};

// AoS: each thread reads one 16-byte struct member by member: every warp
// load spans 512 bytes for 128 useful ones.
__global__ void drift_aos(Particle *p, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        p[i].x += dt * p[i].mass;
        p[i].y += dt * p[i].mass;
    }
}

// SoA: consecutive threads read consecutive floats: 4 sectors a warp.
__global__ void drift_soa(float *x, float *y, const float *mass, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += dt * mass[i];
        y[i] += dt * mass[i];
    }
}
