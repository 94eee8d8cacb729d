/* device.cu - see device.h. */
#include "device.h"

#include <cuda_runtime.h>

#include <cstdio>

static int
fail (cudaError_t e, const char *what, char *err, size_t errlen)
{
  (void) cudaGetLastError ();   /* clear a non-sticky error */
  if (err && errlen)
    snprintf (err, errlen, "%s failed: %s: %s", what, cudaGetErrorName (e),
              cudaGetErrorString (e));
  return -1;
}

extern "C" int
ms_gpu_dev_alloc (void **ptr, size_t bytes, char *err, size_t errlen)
{
  cudaError_t e = cudaMalloc (ptr, bytes);
  return e == cudaSuccess ? 0 : fail (e, "cudaMalloc", err, errlen);
}

extern "C" void
ms_gpu_dev_free (void *ptr)
{
  if (ptr)
    (void) cudaFree (ptr);
}

extern "C" int
ms_gpu_dev_memset (void *ptr, int value, size_t bytes, char *err, size_t errlen)
{
  cudaError_t e = cudaMemset (ptr, value, bytes);
  return e == cudaSuccess ? 0 : fail (e, "cudaMemset", err, errlen);
}

extern "C" int
ms_gpu_dev_upload (void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
  cudaError_t e = cudaMemcpy (dst, src, bytes, cudaMemcpyHostToDevice);
  return e == cudaSuccess ? 0 : fail (e, "cudaMemcpy (to the GPU)", err, errlen);
}

extern "C" int
ms_gpu_dev_download (void *dst, const void *src, size_t bytes, char *err, size_t errlen)
{
  cudaError_t e = cudaMemcpy (dst, src, bytes, cudaMemcpyDeviceToHost);
  return e == cudaSuccess ? 0 : fail (e, "cudaMemcpy (from the GPU)", err, errlen);
}

extern "C" int
ms_gpu_dev_sync (const char *what, char *err, size_t errlen)
{
  cudaError_t e = cudaGetLastError ();
  if (e == cudaSuccess)
    e = cudaDeviceSynchronize ();
  return e == cudaSuccess ? 0 : fail (e, what, err, errlen);
}
