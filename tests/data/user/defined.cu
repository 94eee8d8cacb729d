// defined.cu - a kernel that needs a macro from the build's flags
// (tests/test-user.c: `-D SCALE=3`).
__global__ void scaled(float *out)
{
    out[threadIdx.x] = SCALE;
}
