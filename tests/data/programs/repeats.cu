// repeats.cu - launches that repeat earlier ones (tests/test-run.c,
// /run/repeats): c = f(a, b) five times on the same memory, then again
// after the host changed b; then c = f(a, b) and d = f(c, a) in turn, four
// times each; x += 1 five times in place; a kernel that prints, three
// times; e = m three times from managed memory, then after the host
// wrote m; e = a twice, then after a cudaMemset of e; e = a * scale
// twice, then after a cudaMemcpyToSymbol of scale; e = a then e += 1 (an atomic),
// five times in turn.  The program checks every result; memsim need not
// run again a launch that would change nothing or that repeats one on
// memory in the state that one found, and must run one after memory
// changed otherwise; e = a texture's texels three times, then after a
// copy into its CUDA array; then a texture object made and destroyed around
// each of three launches (the same object each time), and one of another
// description, which must run.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void combine(const float *a, const float *b, float *c)
{
    int i = threadIdx.x;
    float v = a[i];
    for (int k = 0; k < 100; k++)   // to the fixed point 2 b[i] (from a[i] = 1)
        v = v * 0.5f + b[i];
    c[i] = v;
}

__global__ void increment(int *x) { x[threadIdx.x] += 1; }

__global__ void hello(int n) { printf("hello %d\n", n); }

__global__ void copy(const float *src, float *dst) { dst[threadIdx.x] = src[threadIdx.x]; }

__global__ void add_one(float *e) { atomicAdd(&e[threadIdx.x], 1.0f); }   // an atomic: its writes too

__global__ void fetch(cudaTextureObject_t t, float *e) { e[threadIdx.x] = tex1D<float>(t, threadIdx.x + 0.5f); }

__device__ float scale;

__global__ void scaled(const float *a, float *e) { e[threadIdx.x] = a[threadIdx.x] * scale; }

static int expect(const float *e, int n, float want)
{
    float h[1024];
    int bad = 0;
    cudaMemcpy(h, e, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != want;
    return bad;
}

int main()
{
    const int n = 256;
    float h[n], *a, *b, *c, *d;
    int *x, hx[n], bad = 0;
    cudaMalloc(&a, n * sizeof(float));
    cudaMalloc(&b, n * sizeof(float));
    cudaMalloc(&c, n * sizeof(float));
    cudaMalloc(&d, n * sizeof(float));
    cudaMalloc(&x, n * sizeof(int));
    for (int i = 0; i < n; i++)
        h[i] = 1.0f;
    cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    for (int r = 0; r < 5; r++)
        combine<<<1, n>>>(a, b, c);   // c = 2 (the fixed point of v/2 + 1)
    cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 2.0f;
    for (int i = 0; i < n; i++)
        h[i] = 4.0f;
    cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice);
    combine<<<1, n>>>(a, b, c);       // c = 8 now
    cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 8.0f;
    for (int r = 0; r < 4; r++) {
        combine<<<1, n>>>(a, b, c);   // 8
        combine<<<1, n>>>(c, a, d);   // 2
    }
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != 2.0f;
    cudaMemset(x, 0, n * sizeof(int));
    for (int r = 0; r < 5; r++)
        increment<<<1, n>>>(x);
    cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += hx[i] != 5;
    for (int r = 0; r < 3; r++)
        hello<<<1, 1>>>(7);
    cudaDeviceSynchronize();
    float *m, *e, s = 2.0f;
    cudaMallocManaged(&m, n * sizeof(float));
    cudaMalloc(&e, n * sizeof(float));
    for (int i = 0; i < n; i++)
        m[i] = 1.0f;
    for (int r = 0; r < 3; r++)
        copy<<<1, n>>>(m, e);         // the 3rd need not run
    cudaDeviceSynchronize();
    for (int i = 0; i < n; i++)
        m[i] = 3.0f;                  // the host's own write: no runtime call
    copy<<<1, n>>>(m, e);
    bad += expect(e, n, 3.0f);
    copy<<<1, n>>>(a, e);
    copy<<<1, n>>>(a, e);
    cudaMemset(e, 0, n * sizeof(float));
    copy<<<1, n>>>(a, e);             // after the memset: runs
    bad += expect(e, n, 1.0f);
    cudaMemcpyToSymbol(scale, &s, sizeof s);
    scaled<<<1, n>>>(a, e);
    scaled<<<1, n>>>(a, e);
    s = 3.0f;
    cudaMemcpyToSymbol(scale, &s, sizeof s);
    scaled<<<1, n>>>(a, e);           // after the symbol's copy: runs
    bad += expect(e, n, 3.0f);
    for (int r = 0; r < 5; r++) {     // from the 3rd round, memory as in the 2nd: the 4th and 5th need not run
        copy<<<1, n>>>(a, e);
        bad += expect(e, n, 1.0f);
        add_one<<<1, n>>>(e);
        bad += expect(e, n, 2.0f);
    }
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t texels;
    cudaMallocArray(&texels, &cd, n);
    for (int i = 0; i < n; i++)
        h[i] = 5.0f;
    cudaMemcpy2DToArray(texels, 0, 0, h, n * sizeof(float), n * sizeof(float), 1, cudaMemcpyHostToDevice);
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = texels;
    cudaTextureDesc td = {};
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    cudaCreateTextureObject(&tex, &rd, &td, NULL);
    for (int r = 0; r < 3; r++)
        fetch<<<1, n>>>(tex, e);      // the 3rd need not run
    bad += expect(e, n, 5.0f);
    for (int i = 0; i < n; i++)
        h[i] = 6.0f;
    cudaMemcpy2DToArray(texels, 0, 0, h, n * sizeof(float), n * sizeof(float), 1, cudaMemcpyHostToDevice);
    fetch<<<1, n>>>(tex, e);          // after the copy into the array: runs
    bad += expect(e, n, 6.0f);
    cudaDestroyTextureObject(tex);
    for (int r = 0; r < 3; r++) {     // the same texture object made for each launch: the 2nd and 3rd need not run
        cudaCreateTextureObject(&tex, &rd, &td, NULL);
        fetch<<<1, n>>>(tex, e);
        cudaDestroyTextureObject(tex);
        bad += expect(e, n, 6.0f);
    }
    td.normalizedCoords = 1;          // another object over the same texels: x = (i + 0.5) n is past the
    td.addressMode[0] = cudaAddressModeBorder;   // last texel but for thread 0, the border's 0 there
    cudaCreateTextureObject(&tex, &rd, &td, NULL);
    fetch<<<1, n>>>(tex, e);          // on memory as the one before found it: runs all the same
    cudaDestroyTextureObject(tex);
    cudaMemcpy(h, e, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        bad += h[i] != (i == 0 ? 6.0f : 0.0f);
    cudaFreeArray(texels);
    fprintf(stderr, bad ? "repeats: %d wrong results\n" : "repeats: all checks passed\n", bad);
    return bad != 0;
}
