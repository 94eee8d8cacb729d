// probe-timing.cuh - what the probes share: CHECK (exit with the CUDA
// error's name) and median_ms (a launch timed by CUDA events, the median of
// 5 after a warm-up).  The caller creates the events e0 and e1 first.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s: %s\n", #x, cudaGetErrorString (e_)); exit (1); } } while (0)

static cudaEvent_t e0, e1;
template <typename F> static double
median_ms (F launch)
{
  std::vector<float> t;
  for (int r = 0; r < 6; r++) {
    CHECK (cudaEventRecord (e0));
    launch ();
    CHECK (cudaEventRecord (e1));
    CHECK (cudaEventSynchronize (e1));
    float ms;
    CHECK (cudaEventElapsedTime (&ms, e0, e1));
    if (r > 0) t.push_back (ms);   // the first is a warm-up
  }
  std::sort (t.begin (), t.end ());
  return t[t.size () / 2];
}
