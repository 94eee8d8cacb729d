// texture.cu - texture and surface objects under `memsim run` (tests/test-run.c).
// Every expected value is derived by hand from the CUDA Programming Guide's
// "Texture Fetching" rules (each check says how); the program exits 0 when
// all hold.  With argument "gather" it also launches a tex2Dgather (tld4),
// which memsim does not run, with "freed" a fetch from a texture whose
// array it freed: either kernel fails with a one-line error.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define CHECK(x)                                                                 \
  do {                                                                           \
    cudaError_t e_ = (x);                                                        \
    if (e_ != cudaSuccess) {                                                     \
      printf ("%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorName (e_));         \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

// 16 threads, x = 0.25 i, y = 1.25: a bilinear fetch, stored (one global
// store per warp, no global load)
__global__ void sample2d (cudaTextureObject_t tex, float *out)
{
  int i = threadIdx.x;
  out[i] = tex2D<float> (tex, 0.25f * i, 1.25f);
}

__global__ void sample1d (cudaTextureObject_t tex, const float *x, float *out, int n)
{
  int i = threadIdx.x;
  if (i < n)
    out[i] = tex1D<float> (tex, x[i]);
}

__global__ void fetch_int (cudaTextureObject_t tex, int *out, int n)
{
  int i = threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<int> (tex, i - 1);
}

__global__ void read_normalized (cudaTextureObject_t tex, float4 *out)
{
  out[0] = tex2D<float4> (tex, 0.5f, 0.5f);
}

__global__ void layered (cudaTextureObject_t tex, float *out)
{
  int i = threadIdx.x;   // layers 0, 1, 2 (2 is past the last: clamped)
  out[i] = tex2DLayered<float> (tex, 1.5f, 0.5f, i);
}

// value 100 y + x at element (x, y) of a 4 x 2 surface
__global__ void surface_write (cudaSurfaceObject_t s)
{
  int x = threadIdx.x, y = threadIdx.y;
  surf2Dwrite (100.0f * y + x, s, x * 4, y);
}

__global__ void surface_read (cudaSurfaceObject_t s, float *out)
{
  out[0] = surf2Dread<float> (s, -4, 1, cudaBoundaryModeClamp);   // (0, 1): 100
  out[1] = surf2Dread<float> (s, 40, 1, cudaBoundaryModeZero);    // outside: 0
  out[2] = surf2Dread<float> (s, 12, 1, cudaBoundaryModeTrap);    // (3, 1): 103
}

__global__ void gather (cudaTextureObject_t tex, float4 *out)
{
  out[0] = tex2Dgather<float4> (tex, 0.5f, 0.5f, 0);
}

static int failures;

static void
expect (const char *what, int i, float got, float want)
{
  if (got != want) {
    printf ("%s[%d]: %.9g, expected %.9g\n", what, i, got, want);
    failures++;
  }
}

static cudaTextureObject_t
texture_of (cudaArray_t a, cudaTextureAddressMode mode, cudaTextureFilterMode filter,
            int normalized, cudaTextureReadMode read)
{
  cudaResourceDesc r;
  memset (&r, 0, sizeof r);
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaTextureDesc t;
  memset (&t, 0, sizeof t);
  t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = mode;
  t.filterMode = filter;
  t.normalizedCoords = normalized;
  t.readMode = read;
  t.borderColor[0] = 9.0f;
  cudaTextureObject_t o = 0;
  if (cudaCreateTextureObject (&o, &r, &t, NULL) != cudaSuccess)
    printf ("cudaCreateTextureObject failed\n");
  return o;
}

int
main (int argc, char **argv)
{
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float> ();

  // 2 x 2 texels, rows {0, 10} and {20, 30}; unnormalized, clamp, linear.
  // At y = 1.25: y - 0.5 = 0.75, rows 0 and 1 weighted 0.25 and 0.75, so
  // the result is 15 + 10 a, a the x weight: x - 0.5 = 0.25 i - 0.5,
  // clamped to [0, 1].
  float t2[4] = { 0, 10, 20, 30 };
  cudaArray_t a2;
  CHECK (cudaMallocArray (&a2, &f1, 2, 2));
  CHECK (cudaMemcpy2DToArray (a2, 0, 0, t2, 2 * sizeof (float), 2 * sizeof (float), 2,
                              cudaMemcpyHostToDevice));
  cudaTextureObject_t bilinear = texture_of (a2, cudaAddressModeClamp, cudaFilterModeLinear, 0,
                                             cudaReadModeElementType);
  float *d_out;
  CHECK (cudaMalloc (&d_out, 64 * sizeof (float)));
  sample2d<<<1, 16>>> (bilinear, d_out);
  CHECK (cudaGetLastError ());
  float out[64];
  CHECK (cudaMemcpy (out, d_out, 16 * sizeof (float), cudaMemcpyDeviceToHost));
  const float want2[16] = { 15, 15, 15, 17.5f, 20, 22.5f, 25, 25, 25, 25, 25, 25, 25, 25, 25, 25 };
  for (int i = 0; i < 16; i++)
    expect ("bilinear", i, out[i], want2[i]);

  // 1D: 4 texels {1, 2, 3, 4}, normalized coordinates, point sampling.
  // wrap: 1.1 -> frac 0.1 -> texel 0.4 -> 1; -0.1 -> 0.9 -> 3.6 -> 4;
  //       -0.3 -> 0.7 -> 2.8 -> 3; 0.8 -> 3.2 -> 4
  // mirror: 1.1 (odd period) -> 1 - 0.1 = 0.9 -> 4; 1.3 -> 0.7 -> 3;
  //         -0.1 -> 0.1 -> 1; 0.8 -> 4
  // clamp: 1.1 -> 4; -0.1 -> 1; -0.3 -> 1; 0.8 -> 4
  // border (9): 1.1 -> 9; -0.1 -> 9; -0.3 -> 9; 0.8 -> 4
  float t1[4] = { 1, 2, 3, 4 };
  cudaArray_t a1;
  CHECK (cudaMallocArray (&a1, &f1, 4, 0));
  CHECK (cudaMemcpyToArray (a1, 0, 0, t1, sizeof t1, cudaMemcpyHostToDevice));
  float xs[4] = { 1.1f, -0.1f, -0.3f, 0.8f }, xm[4] = { 1.1f, 1.3f, -0.1f, 0.8f };
  float *d_x;
  CHECK (cudaMalloc (&d_x, sizeof xs));
  struct { cudaTextureAddressMode mode; const float *x; float want[4]; const char *name; } modes[] = {
    { cudaAddressModeWrap, xs, { 1, 4, 3, 4 }, "wrap" },
    { cudaAddressModeMirror, xm, { 4, 3, 1, 4 }, "mirror" },
    { cudaAddressModeClamp, xs, { 4, 1, 1, 4 }, "clamp" },
    { cudaAddressModeBorder, xs, { 9, 9, 9, 4 }, "border" },
  };
  for (int m = 0; m < 4; m++) {
    cudaTextureObject_t t = texture_of (a1, modes[m].mode, cudaFilterModePoint, 1,
                                        cudaReadModeElementType);
    CHECK (cudaMemcpy (d_x, modes[m].x, sizeof xs, cudaMemcpyHostToDevice));
    sample1d<<<1, 32>>> (t, d_x, d_out, 4);
    CHECK (cudaMemcpy (out, d_out, 4 * sizeof (float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4; i++)
      expect (modes[m].name, i, out[i], modes[m].want[i]);
    CHECK (cudaDestroyTextureObject (t));
  }

  // linear 1D filtering of 2 texels {10, 20}, unnormalized, clamp:
  // x = 0.75 -> x - 0.5 = 0.25 -> 12.5; x = 1 -> 15; x = 0.25 -> 10;
  // x = 0.8 -> 0.3, which is 77/256 in 1.8 fixed point (0.3 x 256 = 76.8)
  // -> 10 + 10 x 77/256 = 13.0078125 (not 13)
  cudaArray_t a12;
  CHECK (cudaMallocArray (&a12, &f1, 2));
  float t12[2] = { 10, 20 };
  CHECK (cudaMemcpyToArray (a12, 0, 0, t12, sizeof t12, cudaMemcpyHostToDevice));
  cudaTextureObject_t lin1 = texture_of (a12, cudaAddressModeClamp, cudaFilterModeLinear, 0,
                                         cudaReadModeElementType);
  float xl[4] = { 0.75f, 1.0f, 0.25f, 0.8f }, wl[4] = { 12.5f, 15, 10, 13.0078125f };
  CHECK (cudaMemcpy (d_x, xl, sizeof xl, cudaMemcpyHostToDevice));
  sample1d<<<1, 32>>> (lin1, d_x, d_out, 4);
  CHECK (cudaMemcpy (out, d_out, 4 * sizeof (float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 4; i++)
    expect ("linear1d", i, out[i], wl[i]);

  // tex1Dfetch of linear memory {7, 8, 9} at -1 .. 4: 0 outside
  int ints[3] = { 7, 8, 9 }, iout[6];
  int *d_ints, *d_iout;
  CHECK (cudaMalloc (&d_ints, sizeof ints));
  CHECK (cudaMalloc (&d_iout, sizeof iout));
  CHECK (cudaMemcpy (d_ints, ints, sizeof ints, cudaMemcpyHostToDevice));
  cudaResourceDesc lr;
  memset (&lr, 0, sizeof lr);
  lr.resType = cudaResourceTypeLinear;
  lr.res.linear.devPtr = d_ints;
  lr.res.linear.desc = cudaCreateChannelDesc<int> ();
  lr.res.linear.sizeInBytes = sizeof ints;
  cudaTextureDesc lt;
  memset (&lt, 0, sizeof lt);
  cudaTextureObject_t linear;
  CHECK (cudaCreateTextureObject (&linear, &lr, &lt, NULL));
  fetch_int<<<1, 32>>> (linear, d_iout, 6);
  CHECK (cudaMemcpy (iout, d_iout, sizeof iout, cudaMemcpyDeviceToHost));
  const int wi[6] = { 0, 7, 8, 9, 0, 0 };
  for (int i = 0; i < 6; i++)
    expect ("tex1Dfetch", i, (float) iout[i], (float) wi[i]);

  // uchar4 (255, 51, 0, 128) read as normalized floats: v / 255
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<uchar4> ();
  cudaArray_t a4;
  CHECK (cudaMallocArray (&a4, &f4, 1, 1));
  unsigned char texel[4] = { 255, 51, 0, 128 };
  CHECK (cudaMemcpy2DToArray (a4, 0, 0, texel, 4, 4, 1, cudaMemcpyHostToDevice));
  cudaTextureObject_t norm = texture_of (a4, cudaAddressModeClamp, cudaFilterModePoint, 0,
                                         cudaReadModeNormalizedFloat);
  float4 *d_f4;
  CHECK (cudaMalloc (&d_f4, sizeof (float4)));
  read_normalized<<<1, 1>>> (norm, d_f4);
  float4 f;
  CHECK (cudaMemcpy (&f, d_f4, sizeof f, cudaMemcpyDeviceToHost));
  expect ("normalized", 0, f.x, 1.0f);
  expect ("normalized", 1, f.y, 0.2f);
  expect ("normalized", 2, f.z, 0.0f);
  expect ("normalized", 3, f.w, 128 / 255.0f);

  // 2 layers of 2 x 1 texels, {1, 2} and {5, 7}, linear, x = 1.5 (the
  // second texel's centre): layer 0 -> 2, 1 -> 7, 2 (clamped to 1) -> 7
  cudaArray_t al;
  CHECK (cudaMalloc3DArray (&al, &f1, make_cudaExtent (2, 1, 2), cudaArrayLayered));
  float tl[4] = { 1, 2, 5, 7 };
  cudaMemcpy3DParms p;
  memset (&p, 0, sizeof p);
  p.srcPtr = make_cudaPitchedPtr (tl, 2 * sizeof (float), 2, 1);
  p.dstArray = al;
  p.extent = make_cudaExtent (2, 1, 2);
  p.kind = cudaMemcpyHostToDevice;
  CHECK (cudaMemcpy3D (&p));
  cudaTextureObject_t lay = texture_of (al, cudaAddressModeClamp, cudaFilterModeLinear, 0,
                                        cudaReadModeElementType);
  layered<<<1, 3>>> (lay, d_out);
  CHECK (cudaMemcpy (out, d_out, 3 * sizeof (float), cudaMemcpyDeviceToHost));
  expect ("layered", 0, out[0], 2);
  expect ("layered", 1, out[1], 7);
  expect ("layered", 2, out[2], 7);

  // a surface: written by a kernel, copied back, read with the boundary modes
  cudaArray_t as;
  CHECK (cudaMallocArray (&as, &f1, 4, 2, cudaArraySurfaceLoadStore));
  cudaResourceDesc sr;
  memset (&sr, 0, sizeof sr);
  sr.resType = cudaResourceTypeArray;
  sr.res.array.array = as;
  cudaSurfaceObject_t surf;
  CHECK (cudaCreateSurfaceObject (&surf, &sr));
  surface_write<<<1, dim3 (4, 2)>>> (surf);
  float back[8];
  CHECK (cudaMemcpy2DFromArray (back, 4 * sizeof (float), as, 0, 0, 4 * sizeof (float), 2,
                                cudaMemcpyDeviceToHost));
  for (int i = 0; i < 8; i++)
    expect ("surface", i, back[i], 100.0f * (i / 4) + i % 4);
  surface_read<<<1, 1>>> (surf, d_out);
  CHECK (cudaMemcpy (out, d_out, 3 * sizeof (float), cudaMemcpyDeviceToHost));
  expect ("surface-read", 0, out[0], 100);
  expect ("surface-read", 1, out[1], 0);
  expect ("surface-read", 2, out[2], 103);
  CHECK (cudaDestroySurfaceObject (surf));

  if (argc > 1 && strcmp (argv[1], "gather") == 0) {
    gather<<<1, 1>>> (bilinear, d_f4);
    cudaDeviceSynchronize ();
  }
  if (argc > 1 && strcmp (argv[1], "freed") == 0) {
    // a texture whose array is gone: no fetch of freed memory
    CHECK (cudaFreeArray (a12));
    sample1d<<<1, 32>>> (lin1, d_x, d_out, 4);
    cudaDeviceSynchronize ();
  }
  CHECK (cudaDestroyTextureObject (bilinear));
  CHECK (cudaFreeArray (a1));
  CHECK (cudaFreeArray (a2));
  if (failures == 0)
    printf ("texture: all checks passed\n");
  return failures != 0;
}
