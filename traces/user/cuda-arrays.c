/* cuda-arrays.c - CUDA arrays, texture objects and surface objects for
 * nvcc-built programs (`memsim run`), beside cuda-runtime.c and, like it,
 * compiled against CUDA's headers with every definition's symbol
 * memsim_<name>.
 *
 * Modelling assumptions:
 *   - an array is host memory, its texels packed (row pitch = width x
 *     element size, slice pitch = rows x row pitch); only copies and
 *     texture and surface instructions reach it, as on a GPU;
 *   - 1D, 2D, 3D, layered and cubemap arrays of 1, 2 or 4 channels of 8,
 *     16 or 32 bits (signed, unsigned, float; 16-bit float is half);
 *     no mipmapped arrays, no sRGB;
 *   - a texture or surface object is a handle of the emulator's table
 *     (sim/emulator/texture.h), which holds the sampling; the kernel gets
 *     the handle as its parameter.
 * Errors are CUDA's error codes (cudaGetLastError's too); a form CUDA has
 * and memsim lacks also says so on stderr, in one line.
 */
#include "config.h"

#ifdef MS_CUDA_RUNTIME_API_H
/* programs still call cudaMemcpyToArray and cudaMemcpyFromArray */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include MS_CUDA_RUNTIME_API_H
#define MS_RENAME(f) __typeof__ (f) f __asm__ ("memsim_" #f);
MS_RENAME (cudaCreateChannelDesc) MS_RENAME (cudaMallocArray) MS_RENAME (cudaMalloc3DArray)
MS_RENAME (cudaFreeArray) MS_RENAME (cudaArrayGetInfo) MS_RENAME (cudaGetChannelDesc)
MS_RENAME (cudaMemcpyToArray) MS_RENAME (cudaMemcpyFromArray)
MS_RENAME (cudaMemcpyToArrayAsync) MS_RENAME (cudaMemcpyFromArrayAsync)
MS_RENAME (cudaMemcpy2DToArray) MS_RENAME (cudaMemcpy2DFromArray)
MS_RENAME (cudaMemcpy2DToArrayAsync) MS_RENAME (cudaMemcpy2DFromArrayAsync)
MS_RENAME (cudaMemcpy3D) MS_RENAME (cudaMemcpy3DAsync) MS_RENAME (cudaMalloc3D)
MS_RENAME (cudaCreateTextureObject) MS_RENAME (cudaDestroyTextureObject)
MS_RENAME (cudaGetTextureObjectResourceDesc) MS_RENAME (cudaGetTextureObjectTextureDesc)
MS_RENAME (cudaCreateSurfaceObject) MS_RENAME (cudaDestroySurfaceObject)
MS_RENAME (cudaGetSurfaceObjectResourceDesc)
/* cuda-runtime.c's, called here */
MS_RENAME (cudaMemcpy) MS_RENAME (cudaMallocPitch) MS_RENAME (cudaGetErrorName)
#endif

#include "cuda-runtime.h"

#include <string.h>

#include "texture.h"

#ifdef MS_CUDA_RUNTIME_API_H

#include "cuda-runtime-private.h"

struct cudaArray {
  struct cudaChannelFormatDesc desc;
  struct cudaExtent extent;    /* as the program asked (0 for a dimension it lacks) */
  unsigned flags;
  gsize elem;                  /* bytes of an element */
  gsize width, height, slices; /* at least 1 each */
  guint8 *data;
};

typedef struct {
  struct cudaResourceDesc res;
  struct cudaTextureDesc tex;
} Object;

static struct {
  GHashTable *arrays;    /* cudaArray_t -> itself (owned) */
  GHashTable *objects;   /* texture or surface handle -> Object (owned) */
} st;

static void
array_free (gpointer p)
{
  cudaArray_t a = p;
  g_free (a->data);
  g_free (a);
}

static gint
by_data (gconstpointer a, gconstpointer b)
{
  const guint8 *x = (*(cudaArray_t const *) a)->data, *y = (*(cudaArray_t const *) b)->data;
  return x < y ? -1 : x > y;
}

guint
ms_cuda_arrays_memory (guint8 **base, gsize *bytes, guint max)
{
  if (st.arrays == NULL || g_hash_table_size (st.arrays) > max)
    return st.arrays == NULL ? 0 : G_MAXUINT;
  g_autoptr (GPtrArray) all = g_ptr_array_new ();
  GHashTableIter it;
  gpointer v;
  g_hash_table_iter_init (&it, st.arrays);
  while (g_hash_table_iter_next (&it, NULL, &v))
    g_ptr_array_add (all, v);
  g_ptr_array_sort (all, by_data);
  for (guint i = 0; i < all->len; i++)
    {
      cudaArray_t a = all->pdata[i];
      base[i] = a->data;
      bytes[i] = a->width * a->height * a->slices * a->elem;
    }
  return all->len;
}

void
ms_cuda_arrays_end (void)
{
  g_clear_pointer (&st.arrays, g_hash_table_destroy);
  g_clear_pointer (&st.objects, g_hash_table_destroy);
  ms_texture_clear ();
}

static cudaError_t
fail (cudaError_t e)
{
  return (cudaError_t) ms_cuda_runtime_fail (e);
}

/* A form CUDA has that memsim does not: said on stderr, in one line. */
static cudaError_t
lacks (const char *call, const char *what, cudaError_t e)
{
  g_printerr ("memsim: %s: %s is not supported by memsim's CUDA runtime (%s)\n", call, what,
              cudaGetErrorName (e));
  return fail (e);
}

static cudaArray_t
array_of (cudaArray_const_t a)
{
  return a != NULL && st.arrays != NULL && g_hash_table_contains (st.arrays, a)
           ? (cudaArray_t) a : NULL;
}

/* ------------------------------------------------------------ channels */

struct cudaChannelFormatDesc
cudaCreateChannelDesc (int x, int y, int z, int w, enum cudaChannelFormatKind f)
{
  struct cudaChannelFormatDesc d = { x, y, z, w, f };
  return d;
}

/* A format the emulator reads: channels of equal size from x on, 1, 2 or
 * 4 of them.  FALSE: not one (*e: the error to return). */
static gboolean
format_of (const char *call, const struct cudaChannelFormatDesc *d, unsigned *channels,
           unsigned *bytes, cudaError_t *e)
{
  int bits[4] = { d->x, d->y, d->z, d->w };
  unsigned n = 0;
  while (n < 4 && bits[n] != 0)
    n++;
  *e = cudaErrorInvalidChannelDescriptor;
  for (unsigned k = n; k < 4; k++)
    if (bits[k] != 0)
      return FALSE;
  for (unsigned k = 0; k < n; k++)
    if (bits[k] != bits[0] || (bits[k] != 8 && bits[k] != 16 && bits[k] != 32))
      return FALSE;
  if (n == 0 || n == 3)
    return FALSE;
  if (d->f != cudaChannelFormatKindSigned && d->f != cudaChannelFormatKindUnsigned
      && d->f != cudaChannelFormatKindFloat)
    {
      *e = lacks (call, "a channel format other than signed, unsigned or float",
                  cudaErrorInvalidChannelDescriptor);
      return FALSE;
    }
  if (d->f == cudaChannelFormatKindFloat && bits[0] == 8)
    return FALSE;
  *channels = n;
  *bytes = (unsigned) bits[0] / 8;
  return TRUE;
}

/* ------------------------------------------------------------ arrays */

static cudaError_t
new_array (const char *call, cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
           struct cudaExtent extent, unsigned flags)
{
  if (array == NULL || desc == NULL)
    return fail (cudaErrorInvalidValue);
  *array = NULL;
  unsigned channels, bytes;
  cudaError_t e;
  if (!format_of (call, desc, &channels, &bytes, &e))
    return fail (e);
  unsigned known = cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap
                   | cudaArrayTextureGather;
  if (flags & ~known)
    return lacks (call, "an array flag other than layered, cubemap, surface or gather",
                  cudaErrorInvalidValue);
  if (extent.width == 0 || (extent.height == 0 && extent.depth != 0
                            && !(flags & cudaArrayLayered)))
    return fail (cudaErrorInvalidValue);
  if ((flags & cudaArrayCubemap)
      && (extent.width != extent.height
          || ((flags & cudaArrayLayered) ? extent.depth % 6 != 0 : extent.depth != 6)))
    return fail (cudaErrorInvalidValue);
  gsize elem = (gsize) channels * bytes;
  gsize h = MAX (extent.height, 1), s = MAX (extent.depth, 1), total;
  if (!g_size_checked_mul (&total, extent.width, elem) || !g_size_checked_mul (&total, total, h)
      || !g_size_checked_mul (&total, total, s))
    return fail (cudaErrorMemoryAllocation);
  guint8 *data = g_try_malloc0 (total);
  if (data == NULL)
    return fail (cudaErrorMemoryAllocation);
  cudaArray_t a = g_new0 (struct cudaArray, 1);
  a->desc = *desc;
  a->extent = extent;
  a->flags = flags;
  a->elem = elem;
  a->width = extent.width;
  a->height = h;
  a->slices = s;
  a->data = data;
  if (st.arrays == NULL)
    st.arrays = g_hash_table_new_full (NULL, NULL, array_free, NULL);
  g_hash_table_add (st.arrays, a);
  *array = a;
  return cudaSuccess;
}

cudaError_t
cudaMallocArray (cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width,
                 size_t height, unsigned int flags)
{
  MS_CUDA_LOCKED;
  if (flags & (cudaArrayLayered | cudaArrayCubemap))
    return fail (cudaErrorInvalidValue);
  struct cudaExtent e = { width, height, 0 };
  return new_array ("cudaMallocArray", array, desc, e, flags);
}

cudaError_t
cudaMalloc3DArray (cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                   struct cudaExtent extent, unsigned int flags)
{
  MS_CUDA_LOCKED;
  return new_array ("cudaMalloc3DArray", array, desc, extent, flags);
}

/* The texture and surface objects over array leave the emulator's table
 * with it: a kernel that fetches through one then fails in one line, not
 * on freed memory.  The program may still destroy them. */
static void
forget_objects_of (cudaArray_t array)
{
  if (st.objects == NULL)
    return;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, st.objects);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      const struct cudaResourceDesc *r = &((const Object *) value)->res;
      if (r->resType == cudaResourceTypeArray && r->res.array.array == array)
        ms_texture_remove (*(const guint64 *) key, 0);
    }
}

cudaError_t
cudaFreeArray (cudaArray_t array)
{
  MS_CUDA_LOCKED;
  if (array == NULL)
    return cudaSuccess;
  if (array_of (array) == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  forget_objects_of (array);
  ms_cuda_memory_written (array->data, array->width * array->height * array->slices * array->elem);
  g_hash_table_remove (st.arrays, array);
  return cudaSuccess;
}

cudaError_t
cudaArrayGetInfo (struct cudaChannelFormatDesc *desc, struct cudaExtent *extent,
                  unsigned int *flags, cudaArray_t array)
{
  MS_CUDA_LOCKED;
  cudaArray_t a = array_of (array);
  if (a == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  if (desc)
    *desc = a->desc;
  if (extent)
    *extent = a->extent;
  if (flags)
    *flags = a->flags;
  return cudaSuccess;
}

cudaError_t
cudaGetChannelDesc (struct cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
  MS_CUDA_LOCKED;
  cudaArray_t a = array_of (array);
  if (a == NULL || desc == NULL)
    return fail (a == NULL ? cudaErrorInvalidResourceHandle : cudaErrorInvalidValue);
  *desc = a->desc;
  return cudaSuccess;
}

cudaError_t
cudaMalloc3D (struct cudaPitchedPtr *p, struct cudaExtent extent)
{
  MS_CUDA_LOCKED;
  if (p == NULL)
    return fail (cudaErrorInvalidValue);
  size_t pitch = 0;
  gsize rows;
  if (!g_size_checked_mul (&rows, MAX (extent.height, 1), MAX (extent.depth, 1)))
    return fail (cudaErrorMemoryAllocation);
  void *ptr = NULL;
  cudaError_t e = cudaMallocPitch (&ptr, &pitch, extent.width, rows);
  *p = (struct cudaPitchedPtr) { ptr, pitch, extent.width, extent.height };
  return e;
}

/* ------------------------------------------------------------ copies */

/* One side of a copy: an array's texels or linear memory. */
typedef struct {
  guint8 *base;          /* at the copy's first byte */
  gsize pitch, slice;    /* bytes */
  gboolean array;
} Side;

/* A row copied: the array side is host memory to cudaMemcpy, which checks
 * the linear side (device memory in its allocation, for the kind). */
static cudaError_t
copy_row (const Side *d, const Side *s, gsize at_d, gsize at_s, gsize bytes,
          enum cudaMemcpyKind kind)
{
  enum cudaMemcpyKind k = kind;
  if (kind != cudaMemcpyDefault)
    {
      gboolean src_device = s->array ? FALSE
                            : kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
      gboolean dst_device = d->array ? FALSE
                            : kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
      k = src_device ? (dst_device ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                     : (dst_device ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    }
  cudaError_t e = ms_cuda_copy_untimed (d->base + at_d, s->base + at_s, bytes, k);
  if (e == cudaSuccess && d->array)
    ms_cuda_memory_written (d->base + at_d, bytes);   /* (an array: no allocation) */
  return e;
}

/* An array's side at element (x, y, z), for a block of w bytes, h rows and
 * n slices; FALSE if the block does not fit. */
static gboolean
array_side (cudaArray_t a, gsize x, gsize y, gsize z, gsize w, gsize h, gsize n, Side *s)
{
  gsize row = a->width * a->elem;
  if (x > a->width || x * a->elem + w > row || y > a->height || h > a->height - y
      || z > a->slices || n > a->slices - z)
    return FALSE;
  s->pitch = row;
  s->slice = row * a->height;
  s->base = a->data + z * s->slice + y * s->pitch + x * a->elem;
  s->array = TRUE;
  return TRUE;
}

static cudaError_t
copy_block (const Side *d, const Side *s, gsize w, gsize h, gsize n, enum cudaMemcpyKind kind)
{
  if (kind > cudaMemcpyDefault)
    return fail (cudaErrorInvalidMemcpyDirection);
  for (gsize z = 0; z < n; z++)
    for (gsize y = 0; y < h; y++)
      {
        cudaError_t e = copy_row (d, s, z * d->slice + y * d->pitch, z * s->slice + y * s->pitch,
                                  w, kind);
        if (e != cudaSuccess)
          return e;
      }
  ms_cuda_clock_copy (d->base, s->base, w * h * n,
                      (d->array ? MS_CUDA_DST_ARRAY : 0) | (s->array ? MS_CUDA_SRC_ARRAY : 0), FALSE);
  return cudaSuccess;
}

static Side
linear_side (const void *p, gsize pitch, gsize slice)
{
  return (Side) { (guint8 *) p, pitch, slice, FALSE };
}

cudaError_t
cudaMemcpy2DToArray (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  cudaArray_t a = array_of (dst);
  if (a == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  Side d, s = linear_side (src, spitch, 0);
  if (width > spitch || wOffset % a->elem != 0
      || !array_side (a, wOffset / a->elem, hOffset, 0, width, height, 1, &d))
    return fail (cudaErrorInvalidValue);
  return copy_block (&d, &s, width, height, 1, kind);
}

cudaError_t
cudaMemcpy2DFromArray (void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  cudaArray_t a = array_of (src);
  if (a == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  Side s, d = linear_side (dst, dpitch, 0);
  if (width > dpitch || wOffset % a->elem != 0
      || !array_side (a, wOffset / a->elem, hOffset, 0, width, height, 1, &s))
    return fail (cudaErrorInvalidValue);
  return copy_block (&d, &s, width, height, 1, kind);
}

/* count bytes from row hOffset, byte wOffset on: the array's texels are
 * packed, so rows follow each other */
static cudaError_t
array_span (cudaArray_const_t array, size_t wOffset, size_t hOffset, size_t count, Side *side)
{
  cudaArray_t a = array_of (array);
  if (a == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  gsize row = a->width * a->elem, total = row * a->height * a->slices;
  if (wOffset > row || hOffset > a->height || hOffset * row + wOffset > total
      || count > total - (hOffset * row + wOffset))
    return fail (cudaErrorInvalidValue);
  *side = (Side) { a->data + hOffset * row + wOffset, 0, 0, TRUE };
  return cudaSuccess;
}

cudaError_t
cudaMemcpyToArray (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                   size_t count, enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  Side d, s = linear_side (src, 0, 0);
  cudaError_t e = array_span (dst, wOffset, hOffset, count, &d);
  return e != cudaSuccess ? e : copy_block (&d, &s, count, 1, 1, kind);
}

cudaError_t
cudaMemcpyFromArray (void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                     size_t count, enum cudaMemcpyKind kind)
{
  MS_CUDA_LOCKED;
  Side s, d = linear_side (dst, 0, 0);
  cudaError_t e = array_span (src, wOffset, hOffset, count, &s);
  return e != cudaSuccess ? e : copy_block (&d, &s, count, 1, 1, kind);
}

cudaError_t
cudaMemcpyToArrayAsync (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                        size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpyToArray (dst, wOffset, hOffset, src, count, kind);
}

cudaError_t
cudaMemcpyFromArrayAsync (void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                          size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpyFromArray (dst, src, wOffset, hOffset, count, kind);
}

cudaError_t
cudaMemcpy2DToArrayAsync (cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                          size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                          cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpy2DToArray (dst, wOffset, hOffset, src, spitch, width, height, kind);
}

cudaError_t
cudaMemcpy2DFromArrayAsync (void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                            size_t hOffset, size_t width, size_t height,
                            enum cudaMemcpyKind kind, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpy2DFromArray (dst, dpitch, src, wOffset, hOffset, width, height, kind);
}

/* Extents in elements where an array takes part, else in bytes; an
 * array's position in elements, a pitched pointer's x in bytes. */
cudaError_t
cudaMemcpy3D (const struct cudaMemcpy3DParms *p)
{
  MS_CUDA_LOCKED;
  if (p == NULL)
    return fail (cudaErrorInvalidValue);
  cudaArray_t sa = p->srcArray ? array_of (p->srcArray) : NULL;
  cudaArray_t da = p->dstArray ? array_of (p->dstArray) : NULL;
  if ((p->srcArray && sa == NULL) || (p->dstArray && da == NULL))
    return fail (cudaErrorInvalidResourceHandle);
  if ((sa == NULL && p->srcPtr.ptr == NULL) || (da == NULL && p->dstPtr.ptr == NULL))
    return fail (cudaErrorInvalidValue);
  if (sa && da && sa->elem != da->elem)
    return fail (cudaErrorInvalidValue);
  gsize elem = sa ? sa->elem : da ? da->elem : 1;
  gsize w = p->extent.width * elem, h = MAX (p->extent.height, 1), n = MAX (p->extent.depth, 1);
  if (p->extent.width == 0 || p->extent.height == 0 || p->extent.depth == 0)
    return cudaSuccess;
  Side s, d;
  if (sa)
    {
      if (!array_side (sa, p->srcPos.x, p->srcPos.y, p->srcPos.z, w, h, n, &s))
        return fail (cudaErrorInvalidValue);
    }
  else
    {
      const struct cudaPitchedPtr *q = &p->srcPtr;
      if (w > q->pitch)
        return fail (cudaErrorInvalidPitchValue);
      s = linear_side ((guint8 *) q->ptr + (p->srcPos.z * q->ysize + p->srcPos.y) * q->pitch
                         + p->srcPos.x, q->pitch, q->pitch * q->ysize);
    }
  if (da)
    {
      if (!array_side (da, p->dstPos.x, p->dstPos.y, p->dstPos.z, w, h, n, &d))
        return fail (cudaErrorInvalidValue);
    }
  else
    {
      const struct cudaPitchedPtr *q = &p->dstPtr;
      if (w > q->pitch)
        return fail (cudaErrorInvalidPitchValue);
      d = linear_side ((guint8 *) q->ptr + (p->dstPos.z * q->ysize + p->dstPos.y) * q->pitch
                         + p->dstPos.x, q->pitch, q->pitch * q->ysize);
    }
  return copy_block (&d, &s, w, h, n, p->kind);
}

cudaError_t
cudaMemcpy3DAsync (const struct cudaMemcpy3DParms *p, cudaStream_t stream)
{
  MS_CUDA_LOCKED;
  return cudaMemcpy3D (p);
}

/* ------------------------------------------------------------ objects */

/* The emulator's descriptor of a resource (sampling left zero), or an
 * error. */
static cudaError_t
describe (const char *call, const struct cudaResourceDesc *r, MsTexture *t)
{
  memset (t, 0, sizeof *t);
  const struct cudaChannelFormatDesc *fmt;
  unsigned channels, bytes;
  cudaError_t e;
  switch (r->resType)
    {
    case cudaResourceTypeArray:
      {
        cudaArray_t a = array_of (r->res.array.array);
        if (a == NULL)
          return fail (cudaErrorInvalidResourceHandle);
        fmt = &a->desc;
        t->data = a->data;
        t->width = a->width;
        t->height = a->height;
        t->slices = a->slices;
        t->pitch = a->width * a->elem;
        t->slice_pitch = t->pitch * a->height;
        t->layered = (a->flags & cudaArrayLayered) != 0;
        t->cubemap = (a->flags & cudaArrayCubemap) != 0;
        t->dims = t->cubemap || (t->layered && a->extent.height > 0) ? 2
                  : t->layered ? 1 : a->extent.depth > 0 ? 3 : a->extent.height > 0 ? 2 : 1;
        break;
      }
    case cudaResourceTypeLinear:
      fmt = &r->res.linear.desc;
      if (!format_of (call, fmt, &channels, &bytes, &e))
        return fail (e);
      if (!ms_cuda_runtime_device_range (r->res.linear.devPtr, r->res.linear.sizeInBytes))
        return fail (cudaErrorInvalidValue);
      t->data = r->res.linear.devPtr;
      t->width = r->res.linear.sizeInBytes / (channels * bytes);
      t->height = t->slices = 1;
      t->pitch = t->slice_pitch = r->res.linear.sizeInBytes;
      t->dims = 1;
      break;
    case cudaResourceTypePitch2D:
      {
        fmt = &r->res.pitch2D.desc;
        if (!format_of (call, fmt, &channels, &bytes, &e))
          return fail (e);
        gsize w = r->res.pitch2D.width, h = r->res.pitch2D.height, pitch = r->res.pitch2D.pitchInBytes;
        if (w == 0 || h == 0 || w * channels * bytes > pitch
            || !ms_cuda_runtime_device_range (r->res.pitch2D.devPtr,
                                              (h - 1) * pitch + w * channels * bytes))
          return fail (cudaErrorInvalidValue);
        t->data = r->res.pitch2D.devPtr;
        t->width = w;
        t->height = h;
        t->slices = 1;
        t->pitch = pitch;
        t->slice_pitch = pitch * h;
        t->dims = 2;
        break;
      }
    case cudaResourceTypeMipmappedArray:
      return lacks (call, "a mipmapped array", cudaErrorNotSupported);
    default:
      return fail (cudaErrorInvalidValue);
    }
  if (!format_of (call, fmt, &channels, &bytes, &e))
    return fail (e);
  t->channels = channels;
  t->channel_bytes = bytes;
  t->kind = fmt->f == cudaChannelFormatKindSigned ? MS_TEX_SIGNED
            : fmt->f == cudaChannelFormatKindUnsigned ? MS_TEX_UNSIGNED : MS_TEX_FLOAT;
  return cudaSuccess;
}

static uint64_t
add_object (const MsTexture *t, const struct cudaResourceDesc *r,
            const struct cudaTextureDesc *x)
{
  uint64_t h = ms_texture_add (t);
  if (h == 0)
    return 0;
  Object *o = g_new0 (Object, 1);
  o->res = *r;
  if (x)
    o->tex = *x;
  if (st.objects == NULL)
    st.objects = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  g_hash_table_insert (st.objects, g_memdup2 (&h, sizeof h), o);
  return h;
}

static cudaError_t
remove_object (unsigned long long h)
{
  guint64 key = h;
  if (st.objects == NULL || !g_hash_table_remove (st.objects, &key))
    return fail (cudaErrorInvalidValue);
  ms_texture_remove (h, 1);
  return cudaSuccess;
}

static const Object *
object_of (unsigned long long h)
{
  guint64 key = h;
  return st.objects ? g_hash_table_lookup (st.objects, &key) : NULL;
}

cudaError_t
cudaCreateTextureObject (cudaTextureObject_t *object, const struct cudaResourceDesc *res,
                         const struct cudaTextureDesc *tex,
                         const struct cudaResourceViewDesc *view)
{
  MS_CUDA_LOCKED;
  const char *call = "cudaCreateTextureObject";
  if (object == NULL || res == NULL || tex == NULL)
    return fail (cudaErrorInvalidValue);
  *object = 0;
  if (view != NULL)
    return lacks (call, "a resource view", cudaErrorNotSupported);
  if (tex->sRGB)
    return lacks (call, "sRGB conversion", cudaErrorNotSupported);
  MsTexture t;
  cudaError_t e = describe (call, res, &t);
  if (e != cudaSuccess)
    return e;
  for (int d = 0; d < 3; d++)
    {
      if ((unsigned) tex->addressMode[d] > cudaAddressModeBorder)
        return fail (cudaErrorInvalidValue);
      t.address[d] = (unsigned) tex->addressMode[d];
    }
  t.linear_filter = tex->filterMode == cudaFilterModeLinear;
  t.normalized_coords = tex->normalizedCoords != 0;
  /* normalized reads are for 8- and 16-bit integers only */
  t.read_normalized = tex->readMode == cudaReadModeNormalizedFloat && t.kind != MS_TEX_FLOAT
                      && t.channel_bytes < 4;
  memcpy (t.border, tex->borderColor, sizeof t.border);
  if (res->resType == cudaResourceTypeLinear)
    {
      /* tex1Dfetch: an element index, zero outside */
      t.linear_filter = t.normalized_coords = 0;
      t.address[0] = MS_TEX_BORDER;
      memset (t.border, 0, sizeof t.border);
    }
  uint64_t h = add_object (&t, res, tex);
  if (h == 0)
    return fail (cudaErrorMemoryAllocation);
  *object = h;
  return cudaSuccess;
}

cudaError_t
cudaDestroyTextureObject (cudaTextureObject_t object)
{
  MS_CUDA_LOCKED;
  return remove_object (object);
}

cudaError_t
cudaGetTextureObjectResourceDesc (struct cudaResourceDesc *res, cudaTextureObject_t object)
{
  MS_CUDA_LOCKED;
  const Object *o = object_of (object);
  if (o == NULL || res == NULL)
    return fail (cudaErrorInvalidValue);
  *res = o->res;
  return cudaSuccess;
}

cudaError_t
cudaGetTextureObjectTextureDesc (struct cudaTextureDesc *tex, cudaTextureObject_t object)
{
  MS_CUDA_LOCKED;
  const Object *o = object_of (object);
  if (o == NULL || tex == NULL)
    return fail (cudaErrorInvalidValue);
  *tex = o->tex;
  return cudaSuccess;
}

cudaError_t
cudaCreateSurfaceObject (cudaSurfaceObject_t *object, const struct cudaResourceDesc *res)
{
  MS_CUDA_LOCKED;
  if (object == NULL || res == NULL)
    return fail (cudaErrorInvalidValue);
  *object = 0;
  if (res->resType != cudaResourceTypeArray)
    return fail (cudaErrorInvalidValue);
  cudaArray_t a = array_of (res->res.array.array);
  if (a == NULL)
    return fail (cudaErrorInvalidResourceHandle);
  if (!(a->flags & cudaArraySurfaceLoadStore))
    return fail (cudaErrorInvalidValue);   /* as CUDA: the array must allow it */
  MsTexture t;
  cudaError_t e = describe ("cudaCreateSurfaceObject", res, &t);
  if (e != cudaSuccess)
    return e;
  uint64_t h = add_object (&t, res, NULL);
  if (h == 0)
    return fail (cudaErrorMemoryAllocation);
  *object = h;
  return cudaSuccess;
}

cudaError_t
cudaDestroySurfaceObject (cudaSurfaceObject_t object)
{
  MS_CUDA_LOCKED;
  return remove_object (object);
}

cudaError_t
cudaGetSurfaceObjectResourceDesc (struct cudaResourceDesc *res, cudaSurfaceObject_t object)
{
  MS_CUDA_LOCKED;
  const Object *o = object_of (object);
  if (o == NULL || res == NULL)
    return fail (cudaErrorInvalidValue);
  *res = o->res;
  return cudaSuccess;
}

#else   /* without CUDA's headers: nothing of this, and nothing to free */

void
ms_cuda_arrays_end (void)
{
  ms_texture_clear ();
}

#endif
