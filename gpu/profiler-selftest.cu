/* Self-test of gpu/profiler.{h,cu}: known access patterns, measured with the
 * CUPTI range profiler and timed with CUDA events.
 *
 *   profiler-selftest               profile + time every case, check counts
 *   profiler-selftest --launch-only launch every case once, no CUPTI
 *                                   (for cross-checking under ncu)
 *   profiler-selftest --no-time     skip the timing
 *
 * Exit status: 0 all checks passed, 1 a check or a call failed,
 * 77 no usable GPU (automake's "skipped").
 */
#include "profiler.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N_THREADS 1024 /* 32 warps */
#define BLOCK 256
#define SH_WORDS 2048

__global__ void
global_ld_kernel (const float *in, float *out, int stride, int offset, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[(size_t) i * stride + offset];
}

/* one block: fill 2048 words (2 conflict-free stores per thread), then lane l
 * reads word l*stride */
__global__ void
shared_ld_kernel (float *out, int stride)
{
  __shared__ float s[SH_WORDS];
  for (int j = threadIdx.x; j < SH_WORDS; j += blockDim.x)
    s[j] = (float) j;
  __syncthreads ();
  int lane = threadIdx.x & 31;
  out[blockIdx.x * blockDim.x + threadIdx.x] = s[(lane * stride) & (SH_WORDS - 1)];
}

static const char *const METRICS[] = {
  "smsp__sass_inst_executed_op_global_ld.sum",
  "smsp__sass_inst_executed_op_global_st.sum",
  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
  "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
  "smsp__sass_inst_executed_op_shared_ld.sum",
  "smsp__sass_inst_executed_op_shared_st.sum",
  "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
  "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
  "lts__t_sectors_srcunit_tex_op_read.sum",
  "dram__bytes_read.sum",
  "dram__bytes_write.sum",
  "gpu__time_duration.sum",
};
#define N_METRICS ((int) (sizeof METRICS / sizeof METRICS[0]))
enum { M_GLD, M_GST, M_GREQ, M_GSECT, M_GSTSECT, M_SLD, M_SST, M_SLDWF, M_SSTWF,
       M_SLDBC, M_LTS, M_DRAMR, M_DRAMW, M_TIME };

typedef struct
{
  const char *name;
  int shared;      /* 0 global, 1 shared */
  int stride;
  int offset;
  int repeat;      /* kernels launched per call */
  float *in, *out;
} Case;

static void
launch_case (void *user)
{
  Case *c = (Case *) user;
  for (int r = 0; r < c->repeat; r++)
    {
      if (c->shared)
        shared_ld_kernel<<<1, N_THREADS>>> (c->out, c->stride);
      else
        global_ld_kernel<<<N_THREADS / BLOCK, BLOCK>>> (c->in, c->out, c->stride,
                                                       c->offset, N_THREADS);
    }
}

static void
noop_launch (void *user)
{
  (void) user;
}

static int
gcd (int a, int b)
{
  while (b)
    {
      int t = a % b;
      a = b;
      b = t;
    }
  return a;
}

static int
check_output (const Case *c, float *host)
{
  if (cudaMemcpy (host, c->out, N_THREADS * sizeof (float), cudaMemcpyDeviceToHost)
      != cudaSuccess)
    return -1;
  for (int i = 0; i < N_THREADS; i++)
    {
      float want = c->shared ? (float) (((i & 31) * c->stride) & (SH_WORDS - 1))
                             : (float) ((size_t) i * c->stride + c->offset);
      if (host[i] != want)
        {
          fprintf (stderr, "%s: out[%d] = %g, want %g\n", c->name, i, host[i], want);
          return -1;
        }
    }
  return 0;
}

static int
close_to (double got, double want)
{
  return fabs (got - want) <= 0.5;
}

int
main (int argc, char **argv)
{
  int launch_only = 0, no_time = 0;
  setvbuf (stdout, NULL, _IOLBF, 0);
  for (int i = 1; i < argc; i++)
    {
      if (!strcmp (argv[i], "--launch-only"))
        launch_only = 1;
      else if (!strcmp (argv[i], "--no-time"))
        no_time = 1;
      else
        {
          fprintf (stderr, "usage: %s [--launch-only] [--no-time]\n", argv[0]);
          return 2;
        }
    }

  char err[512], name[256];
  int ccM = 0, ccm = 0, drv = 0, rt = 0;
  if (ms_gpu_device_info (name, sizeof name, &ccM, &ccm, &drv, &rt, err, sizeof err) != 0)
    {
      printf ("SKIP: %s (driver %d, runtime %d)\n", err, drv, rt);
      return strstr (err, "no CUDA-capable GPU found") ? 77 : 1;
    }
  printf ("device: %s, cc %d.%d, driver %d, runtime %d\n", name, ccM, ccm, drv, rt);

  size_t in_n = (size_t) N_THREADS * 33 + 64;
  float *hin = (float *) malloc (in_n * sizeof (float));
  float *hout = (float *) malloc (N_THREADS * sizeof (float));
  for (size_t j = 0; j < in_n; j++)
    hin[j] = (float) j;
  float *din = NULL, *dout = NULL;
  if (cudaMalloc ((void **) &din, in_n * sizeof (float)) != cudaSuccess
      || cudaMalloc ((void **) &dout, N_THREADS * sizeof (float)) != cudaSuccess
      || cudaMemcpy (din, hin, in_n * sizeof (float), cudaMemcpyHostToDevice)
             != cudaSuccess)
    {
      printf ("FAIL: device allocation/copy: %s\n", cudaGetErrorString (cudaGetLastError ()));
      return 1;
    }

  Case cases[] = {
    { "global s=1", 0, 1, 0, 1, din, dout },
    { "global s=2", 0, 2, 0, 1, din, dout },
    { "global s=4", 0, 4, 0, 1, din, dout },
    { "global s=8", 0, 8, 0, 1, din, dout },
    { "global s=32", 0, 32, 0, 1, din, dout },
    { "global s=1 +1", 0, 1, 1, 1, din, dout },
    { "global s=1 x2", 0, 1, 0, 2, din, dout },
    { "shared s=1", 1, 1, 0, 1, din, dout },
    { "shared s=2", 1, 2, 0, 1, din, dout },
    { "shared s=32", 1, 32, 0, 1, din, dout },
    { "shared s=33", 1, 33, 0, 1, din, dout },
  };
  const int n_cases = (int) (sizeof cases / sizeof cases[0]);
  const int warps = N_THREADS / 32;

  if (launch_only)
    {
      for (int k = 0; k < n_cases; k++)
        {
          printf ("launch %2d: %s\n", k, cases[k].name);
          launch_case (&cases[k]);
          if (cudaDeviceSynchronize () != cudaSuccess)
            {
              printf ("FAIL: %s\n", cudaGetErrorString (cudaGetLastError ()));
              return 1;
            }
        }
      return 0;
    }

  int failures = 0;

  /* error path: a call that launches nothing */
  {
    double v = 0;
    const char *m[] = { "gpu__time_duration.sum" };
    int r = ms_gpu_profile (noop_launch, NULL, m, 1, &v, err, sizeof err);
    printf ("noop profile -> %d: %s\n", r, r ? err : "(no error?)");
  }
  /* error path: unknown metric */
  {
    double v = 0;
    const char *m[] = { "no_such__metric.sum" };
    int r = ms_gpu_profile (launch_case, &cases[0], m, 1, &v, err, sizeof err);
    printf ("bad metric -> %d: %s\n", r, r ? err : "(no error?)");
  }

  double vals[16][N_METRICS], valsf[16][N_METRICS];
  int have[16][N_METRICS], havef[16];
  double med[16];
  memset (have, 0, sizeof have);

  for (int k = 0; k < n_cases; k++)
    {
      Case *c = &cases[k];
      printf ("\n== %s (%d threads, %d kernel(s))\n", c->name, N_THREADS, c->repeat);
      if (ms_gpu_profile (launch_case, c, METRICS, N_METRICS, vals[k], err, sizeof err) == 0)
        {
          for (int i = 0; i < N_METRICS; i++)
            have[k][i] = 1;
        }
      else
        {
          /* all at once failed: try one at a time to see which work */
          printf ("  all-metrics profile failed: %s\n", err);
          for (int i = 0; i < N_METRICS; i++)
            {
              if (ms_gpu_profile (launch_case, c, &METRICS[i], 1, &vals[k][i], err,
                                  sizeof err) == 0)
                have[k][i] = 1;
              else
                printf ("  %-64s NA (%s)\n", METRICS[i], err);
            }
        }
      for (int i = 0; i < N_METRICS; i++)
        if (have[k][i])
          printf ("  %-64s %14.1f\n", METRICS[i], vals[k][i]);
      /* cold L2: user range/user replay with an L2 flush before each pass */
      havef[k] = ms_gpu_profile_ex (launch_case, c, METRICS, N_METRICS, valsf[k],
                                    MS_GPU_PROFILE_FLUSH_L2, err, sizeof err) == 0;
      if (!havef[k])
        {
          printf ("  FLUSH_L2 profile failed: %s\n", err);
          failures++;
        }
      else
        {
          printf ("  -- with MS_GPU_PROFILE_FLUSH_L2 (user range/replay, cold L2):\n");
          for (int i = 0; i < N_METRICS; i++)
            printf ("  %-64s %14.1f\n", METRICS[i], valsf[k][i]);
          /* instruction and L1 counts must not depend on the mode */
          static const int same[] = { M_GLD, M_GST, M_GREQ, M_GSECT, M_GSTSECT,
                                      M_SLD, M_SST, M_SLDWF, M_SSTWF };
          for (unsigned j = 0; j < sizeof same / sizeof same[0]; j++)
            if (have[k][same[j]] && !close_to (valsf[k][same[j]], vals[k][same[j]]))
              {
                printf ("  FAIL: %s differs between modes (%g vs %g)\n",
                        METRICS[same[j]], valsf[k][same[j]], vals[k][same[j]]);
                failures++;
              }
        }
      if (check_output (c, hout) != 0)
        {
          printf ("  FAIL: wrong kernel output\n");
          failures++;
        }
      med[k] = -1;
      if (!no_time)
        {
          if (ms_gpu_time (launch_case, c, 5, 51, 1, &med[k], err, sizeof err) == 0)
            printf ("  %-64s %14.4f\n", "median ms (CUDA events, L2 flushed, 51 reps)", med[k]);
          else
            {
              printf ("  ms_gpu_time failed: %s\n", err);
              failures++;
            }
          double nf = -1;
          if (ms_gpu_time (launch_case, c, 5, 51, 0, &nf, err, sizeof err) == 0)
            printf ("  %-64s %14.4f\n", "median ms (CUDA events, no flush, 51 reps)", nf);
        }
    }

  /* summary with expectations */
  printf ("\nSummary (per warp-level instruction; expected from BRIEF section 4)\n");
  printf ("(lts_rd/dram_rd/dram_wr: warm = kernel replay, cold = FLUSH_L2 mode)\n");
  printf ("%-15s %5s %5s %6s %7s %8s %5s %5s %8s %7s %7s %7s %7s %7s %7s %7s %7s %6s %9s  %s\n",
          "case", "g_ld", "g_st", "g_req", "g_sect", "sect/req", "sh_ld", "sh_st",
          "sh_ld_wf", "wf/inst", "bank_cf", "lts_rd", "dram_rd", "dram_wr",
          "c_lts", "c_dr_rd", "c_dr_wr", "gpu_ns", "median_ms", "check");
  for (int k = 0; k < n_cases; k++)
    {
      Case *c = &cases[k];
      double *v = vals[k];
      int *h = have[k];
      const char *verdict = "PASS";
      char why[128] = "";
      int nw = warps * c->repeat;
      if (!c->shared)
        {
          int s = c->stride;
          double per = s >= 8 ? 32 : 4 * s;
          if (c->offset)
            per += 1;
          if (!h[M_GLD] || !h[M_GREQ] || !h[M_GSECT])
            verdict = "NA";
          else if (!close_to (v[M_GLD], nw) || !close_to (v[M_GREQ], nw))
            {
              verdict = "FAIL";
              snprintf (why, sizeof why, "want %d ld inst/req", nw);
            }
          else if (!close_to (v[M_GSECT], per * nw))
            {
              verdict = "FAIL";
              snprintf (why, sizeof why, "want %g sect/req", per);
            }
          else
            snprintf (why, sizeof why, "%g sect/req", per);
        }
      else
        {
          int w = gcd (c->stride, 32);
          if (!h[M_SLD] || !h[M_SLDWF])
            verdict = "NA";
          else if (!close_to (v[M_SLD], nw))
            {
              verdict = "FAIL";
              snprintf (why, sizeof why, "want %d sh ld inst", nw);
            }
          else if (!close_to (v[M_SLDWF], (double) w * nw))
            {
              verdict = "FAIL";
              snprintf (why, sizeof why, "want %d wf/inst", w);
            }
          else
            snprintf (why, sizeof why, "%d wf/inst", w);
        }
      if (!strcmp (verdict, "FAIL"))
        failures++;
#define V(i) (h[i] ? v[i] : -1.0)
      double spr = h[M_GREQ] && v[M_GREQ] > 0 ? v[M_GSECT] / v[M_GREQ] : 0;
      double wpi = h[M_SLD] && v[M_SLD] > 0 ? v[M_SLDWF] / v[M_SLD] : 0;
#define F(i) (havef[k] ? valsf[k][i] : -1.0)
      printf ("%-15s %5.0f %5.0f %6.0f %7.0f %8.2f %5.0f %5.0f %8.0f %7.2f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %7.0f %6.0f %9.4f  %s %s\n",
              c->name, V (M_GLD), V (M_GST), V (M_GREQ), V (M_GSECT), spr, V (M_SLD),
              V (M_SST), V (M_SLDWF), wpi, V (M_SLDBC), V (M_LTS), V (M_DRAMR),
              V (M_DRAMW), F (M_LTS), F (M_DRAMR), F (M_DRAMW), V (M_TIME), med[k],
              verdict, why);
#undef F
#undef V
    }
  printf ("\n%s (%d failure(s))\n", failures ? "SELFTEST FAILED" : "SELFTEST PASSED",
          failures);
  cudaFree (din);
  cudaFree (dout);
  free (hin);
  free (hout);
  return failures ? 1 : 0;
}
