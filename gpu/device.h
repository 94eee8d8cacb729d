/* device.h - the few CUDA runtime calls gpu/backend.c needs, behind a plain
 * C API (device.cu), so that C files never include CUDA's headers (whose
 * vector types clash with the CPU build's in sim/emulator/kernel.h).
 *
 * Every function returns 0 on success, or -1 with a one-line message in
 * err[errlen] naming the call and CUDA's error.
 */
#ifndef MEMSIM_GPU_DEVICE_H
#define MEMSIM_GPU_DEVICE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

int ms_gpu_dev_alloc (void **ptr, size_t bytes, char *err, size_t errlen);
void ms_gpu_dev_free (void *ptr);
int ms_gpu_dev_memset (void *ptr, int value, size_t bytes, char *err, size_t errlen);
int ms_gpu_dev_upload (void *dst, const void *src, size_t bytes, char *err, size_t errlen);
int ms_gpu_dev_download (void *dst, const void *src, size_t bytes, char *err, size_t errlen);
/* Launch errors (cudaGetLastError), then cudaDeviceSynchronize; what names
 * the work in the message. */
int ms_gpu_dev_sync (const char *what, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif /* MEMSIM_GPU_DEVICE_H */
