/* cuda-runtime-private.h - what the files of memsim's CUDA runtime share
 * (cuda-runtime.c, cuda-graphs.c); for builds against CUDA's own headers
 * (MS_CUDA_RUNTIME_API_H), included after them. */
#ifndef MEMSIM_CUDA_RUNTIME_PRIVATE_H
#define MEMSIM_CUDA_RUNTIME_PRIVATE_H

#include <glib.h>

#include "ptx-program.h"

G_BEGIN_DECLS

/* cuda-runtime.c's.  Sets the error cudaGetLastError returns; returns e. */
cudaError_t ms_cuda_fail (cudaError_t e);
/* The device code's kernel whose host stub is func (its parameter block's
 * layout); NULL, and the launch error set, if it is none. */
const MsPtxKernel *ms_cuda_kernel (const void *func);
/* Kernel k's parameters' values, from args (one pointer each), copied
 * into a block of its layout (*bytes) with a pointer to each (*ptrs),
 * both newly allocated; FALSE (nothing allocated) when one is missing or
 * the layout is bad. */
gboolean ms_cuda_kernel_params (const MsPtxKernel *k, void **args, guint8 **bytes, void ***ptrs);
/* Device memory for a graph's allocation node: freeing it keeps it (the
 * node's next run gives the same address). */
cudaError_t ms_cuda_graph_malloc (void **ptr, size_t bytes);
/* The runtime wrote bytes [p, p + bytes) of memory a kernel may be given,
 * or allocated or freed them: every such write of the runtime's calls
 * this, for the launches that need not run (launch-memo.h). */
void ms_cuda_memory_written (const void *p, gsize bytes);
/* cudaMemcpy's copy, checked, without its time on the program's clock */
cudaError_t ms_cuda_copy_untimed (void *dst, const void *src, size_t bytes,
                                  enum cudaMemcpyKind kind);
/* What a copy of bytes from src to dst adds to the program's clock (the
 * preset's [copy]); a side named in `arrays` is a CUDA array's (device
 * memory) */
#define MS_CUDA_DST_ARRAY 1u
#define MS_CUDA_SRC_ARRAY 2u
void ms_cuda_clock_copy (const void *dst, const void *src, gsize bytes, guint arrays,
                         gboolean async);
/* ... and a set of bytes of device memory */
void ms_cuda_clock_set (gsize bytes);
/* Runs a launch now, as cudaLaunchKernel does. */
cudaError_t ms_cuda_launch (const void *func, dim3 grid, dim3 block, void **args, size_t shared);

/* cuda-graphs.c: work issued to a stream that captures becomes a node of
 * its graph instead of running (each returns cudaSuccess or the error). */
gboolean ms_graph_capturing (cudaStream_t stream);
cudaError_t ms_graph_capture_kernel (cudaStream_t stream, const void *func, dim3 grid, dim3 block,
                                     void **args, size_t shared);
cudaError_t ms_graph_capture_memcpy (cudaStream_t stream, void *dst, const void *src,
                                     size_t bytes, enum cudaMemcpyKind kind);
cudaError_t ms_graph_capture_memset (cudaStream_t stream, void *dst, int value, size_t bytes);
cudaError_t ms_graph_capture_host (cudaStream_t stream, cudaHostFn_t fn, void *data);
cudaError_t ms_graph_capture_alloc (cudaStream_t stream, void **ptr, size_t bytes);
cudaError_t ms_graph_capture_free (cudaStream_t stream, void *ptr);
/* An event recorded in a capture joins the streams that wait on it to the
 * capture (fork and join across streams). */
void ms_graph_capture_record (cudaEvent_t event, cudaStream_t stream);
void ms_graph_capture_wait (cudaStream_t stream, cudaEvent_t event);
/* The runtime's end: graphs the program did not destroy. */
void ms_graph_end (void);

G_END_DECLS

#endif
