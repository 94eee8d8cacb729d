// predicated-off.cu - how Nsight Compute counts a warp's load or store
// whose guard predicate is false in some or all of its lanes (ptxas turns
// a short `if` around an access into such a predicated instruction: dxtc's
// `if (ranks[tid] == ranks[i]) ++ranks[tid];` is `@!P0 STS`).  One block of
// 32 threads per launch; every kernel runs its access once per thread
// under the predicate `lane < on` (inline PTX, so the SASS keeps it one
// predicated instruction): on = 0 (no lane), 1, 32.
//   nvcc -O3 -arch=sm_90 -o predicated-off gpu/probes/predicated-off.cu
//   ncu --clock-control none --metrics smsp__sass_inst_executed_op_shared_st.sum,... ./predicated-off
#include <cstdio>
#include <cuda_runtime.h>

__global__ void sts(int *out, int on)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[t]);
    asm volatile("{ .reg .pred p; setp.lt.s32 p, %0, %1; @p st.shared.u32 [%2], %0; }"
                 :: "r"(t), "r"(on), "r"(a) : "memory");
    out[t] = on;
}

__global__ void lds(int *out, int on)
{
    __shared__ int s[32];
    int t = threadIdx.x, v = -1;
    unsigned a = (unsigned)__cvta_generic_to_shared(&s[t]);
    asm volatile("{ .reg .pred p; setp.lt.s32 p, %1, %2; @p ld.shared.u32 %0, [%3]; }"
                 : "+r"(v) : "r"(t), "r"(on), "r"(a) : "memory");
    out[t] = v;
}

__global__ void ldg(int *out, const int *in, int on)
{
    int t = threadIdx.x, v = -1, w = -1;
    // two loads under one predicate (one alone, ptxas branches around)
    asm volatile("{ .reg .pred p; setp.lt.s32 p, %2, %3; @p ld.global.u32 %0, [%4];"
                 " @p ld.global.u32 %1, [%4+128]; }"
                 : "+r"(v), "+r"(w) : "r"(t), "r"(on), "l"(in + t) : "memory");
    out[t] = v + w;
}

__global__ void stg(int *out, int on)
{
    int t = threadIdx.x;
    asm volatile("{ .reg .pred p; setp.lt.s32 p, %0, %1; @p st.global.u32 [%2], %0; }"
                 :: "r"(t), "r"(on), "l"(out + 32 + t) : "memory");
    out[t] = on;
}

int main()
{
    int *out, *in;
    cudaMalloc(&out, 64 * sizeof(int));
    cudaMalloc(&in, 64 * sizeof(int));
    cudaMemset(in, 0, 64 * sizeof(int));
    const int ons[] = { 0, 1, 32 };
    for (int on : ons) {
        sts<<<1, 32>>>(out, on);
        lds<<<1, 32>>>(out, on);
        ldg<<<1, 32>>>(out, in, on);
        stg<<<1, 32>>>(out, on);
        printf("on %d\n", on);
    }
    cudaDeviceSynchronize();
    return 0;
}
