// copy-time.cu - what a copy or a set costs, as CUDA events around it see
// it (the figures memsim run's clock adds for cudaMemcpy, cudaMemset and
// their async forms): per kind and size, the median of 5 after a warm-up,
// on the legacy default stream, the events recorded right before and
// after the call.  Kinds: host to device and device to host from pinned
// (cudaMallocHost) and pageable (malloc) host memory, device to device,
// cudaMemset, and an empty pair of events (the baseline).
//   nvcc -O3 -arch=sm_90 -o copy-time gpu/probes/copy-time.cu
//   ./copy-time > copy-time.txt
#include "probe-timing.cuh"
#include <cstring>

int
main ()
{
  CHECK (cudaEventCreate (&e0));
  CHECK (cudaEventCreate (&e1));
  const size_t most = (size_t) 256 << 20;
  char *dev, *dev2, *pinned, *pageable = (char *) malloc (most);
  CHECK (cudaMalloc (&dev, most));
  CHECK (cudaMalloc (&dev2, most));
  CHECK (cudaMallocHost (&pinned, most));
  memset (pageable, 1, most);
  memset (pinned, 1, most);
  printf ("kind bytes ms GB/s\n");
  printf ("events 0 %.5f 0\n", median_ms ([&] {}));
  for (size_t bytes = 4096; bytes <= most; bytes *= 4)
    {
      struct { const char *kind; void *dst; const void *src; cudaMemcpyKind k; } c[] = {
        { "h2d_pinned", dev, pinned, cudaMemcpyHostToDevice },
        { "d2h_pinned", pinned, dev, cudaMemcpyDeviceToHost },
        { "h2d_pageable", dev, pageable, cudaMemcpyHostToDevice },
        { "d2h_pageable", pageable, dev, cudaMemcpyDeviceToHost },
        { "d2d", dev2, dev, cudaMemcpyDeviceToDevice },
      };
      for (auto &x : c)
        {
          double ms = median_ms ([&] { CHECK (cudaMemcpy (x.dst, x.src, bytes, x.k)); });
          printf ("%s %zu %.5f %.2f\n", x.kind, bytes, ms, bytes / ms / 1e6);
        }
      double ms = median_ms ([&] { CHECK (cudaMemset (dev, 0, bytes)); });
      printf ("memset %zu %.5f %.2f\n", bytes, ms, bytes / ms / 1e6);
      ms = median_ms ([&] { CHECK (cudaMemcpyAsync (dev, pinned, bytes, cudaMemcpyHostToDevice)); });
      printf ("h2d_pinned_async %zu %.5f %.2f\n", bytes, ms, bytes / ms / 1e6);
    }
  return 0;
}
