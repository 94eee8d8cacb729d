/* memsim GPU back-end: CUPTI Range Profiler counter collection and CUDA-event
 * timing behind the plain C API of profiler.h.
 *
 * CUDA 13 CUPTI API used (headers cupti_profiler_host.h, which includes
 * <string> and so must be compiled as C++, and cupti_range_profiler.h):
 *   host side:   cuptiProfilerHostInitialize / ConfigAddMetrics /
 *                GetConfigImage / EvaluateToGpuValues / Deinitialize
 *   target side: cuptiRangeProfilerEnable / GetCounterDataSize /
 *                CounterDataImageInitialize / SetConfig / Start / Stop /
 *                DecodeData / GetCounterDataInfo / Disable
 * ms_gpu_profile: auto range + kernel replay (one range per kernel, summed).
 * ms_gpu_profile_ex(MS_GPU_PROFILE_FLUSH_L2): user range + user replay, with
 * an L2 flush before each pass, for cold-cache dram__/lts__ numbers.
 *
 * No libcuda at link time: the one driver call needed (cuCtxGetCurrent) is
 * looked up through the runtime, so the program still starts where no NVIDIA
 * driver is installed and reports "no CUDA-capable GPU found" instead.
 */
#include "profiler.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_result.h>
#include <cupti_target.h>
#include <cupti_profiler_target.h>
#include <cupti_profiler_host.h>
#include <cupti_range_profiler.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

/* ------------------------------------------------------------------ */
/* error helpers                                                       */

static void
set_err (char *err, size_t errlen, const char *fmt, ...)
{
  if (!err || errlen == 0)
    return;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (err, errlen, fmt, ap);
  va_end (ap);
  /* keep it one line */
  for (char *p = err; *p; p++)
    if (*p == '\n' || *p == '\r')
      *p = ' ';
}

static std::string
cuda_str (cudaError_t e)
{
  const char *name = cudaGetErrorName (e);
  const char *desc = cudaGetErrorString (e);
  std::string s = name ? name : "cudaError?";
  if (desc)
    {
      s += ": ";
      s += desc;
    }
  return s;
}

static std::string
cupti_str (CUptiResult r)
{
  const char *name = NULL, *msg = NULL;
  std::string s;
  if (cuptiGetResultString (r, &name) != CUPTI_SUCCESS || !name)
    s = "CUPTI error " + std::to_string ((int) r);
  else
    s = name;
  if (cuptiGetErrorMessage (r, &msg) == CUPTI_SUCCESS && msg && *msg
      && (!name || strcmp (msg, name) != 0))
    {
      s += ": ";
      s += msg;
    }
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES)
    s += " (GPU performance counters are restricted to admin users: run as"
         " root or load the driver with NVreg_RestrictProfilingToAdminUsers=0)";
  return s;
}

static bool
debug_on (void)
{
  const char *e = getenv ("MEMSIM_GPU_DEBUG");
  return e && *e && strcmp (e, "0") != 0;
}

#define CUDA_TRY(call)                                                      \
  do {                                                                      \
    cudaError_t e_ = (call);                                                \
    if (e_ != cudaSuccess)                                                  \
      {                                                                     \
        set_err (err, errlen, "%s failed: %s", #call,                      \
                 cuda_str (e_).c_str ());                                   \
        return -1;                                                          \
      }                                                                     \
  } while (0)

/* name is the CUPTI function, p its params struct */
#define CUPTI_TRY(fn, p)                                                    \
  do {                                                                      \
    CUptiResult r_ = fn (&(p));                                             \
    if (r_ != CUPTI_SUCCESS)                                                \
      {                                                                     \
        set_err (err, errlen, "%s failed: %s", #fn,                        \
                 cupti_str (r_).c_str ());                                  \
        return -1;                                                          \
      }                                                                     \
  } while (0)

/* ------------------------------------------------------------------ */
/* device                                                              */

/* Makes sure a device exists and its primary context is current.
 * *dev_out = the device ordinal in use. */
static int
ensure_device (int *dev_out, char *err, size_t errlen)
{
  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count <= 0)
    {
      (void) cudaGetLastError ();
      set_err (err, errlen, "no CUDA-capable GPU found (cudaGetDeviceCount: %s)",
               e != cudaSuccess ? cuda_str (e).c_str () : "0 devices");
      return -1;
    }
  int dev = 0;
  CUDA_TRY (cudaGetDevice (&dev));
  /* creates and binds the primary context if not done yet */
  CUDA_TRY (cudaFree (0));
  *dev_out = dev;
  return 0;
}

typedef CUresult (CUDAAPI *cuCtxGetCurrent_fn) (CUcontext *);

static int
current_context (CUcontext *ctx, char *err, size_t errlen)
{
  static cuCtxGetCurrent_fn fn = NULL;
  if (!fn)
    {
      void *p = NULL;
      cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
      cudaError_t e = cudaGetDriverEntryPointByVersion ("cuCtxGetCurrent", &p,
                                                        12000,
                                                        cudaEnableDefault, &q);
      if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p)
        {
          set_err (err, errlen,
                   "cudaGetDriverEntryPointByVersion(cuCtxGetCurrent) failed: %s"
                   " (query result %d)",
                   cuda_str (e).c_str (), (int) q);
          return -1;
        }
      fn = (cuCtxGetCurrent_fn) p;
    }
  CUcontext c = NULL;
  CUresult r = fn (&c);
  if (r != CUDA_SUCCESS || !c)
    {
      set_err (err, errlen, "cuCtxGetCurrent failed (CUresult %d, ctx %p)",
               (int) r, (void *) c);
      return -1;
    }
  *ctx = c;
  return 0;
}

extern "C" int
ms_gpu_device_info (char *name, size_t name_len, int *cc_major, int *cc_minor,
                    int *driver_version, int *runtime_version, char *err,
                    size_t errlen)
{
  int drv = 0, rt = 0;
  (void) cudaDriverGetVersion (&drv);
  (void) cudaRuntimeGetVersion (&rt);
  if (driver_version)
    *driver_version = drv;
  if (runtime_version)
    *runtime_version = rt;
  if (name && name_len)
    name[0] = '\0';

  int count = 0;
  cudaError_t e = cudaGetDeviceCount (&count);
  if (e != cudaSuccess || count <= 0)
    {
      (void) cudaGetLastError ();
      set_err (err, errlen, "no CUDA-capable GPU found (cudaGetDeviceCount: %s)",
               e != cudaSuccess ? cuda_str (e).c_str () : "0 devices");
      return -1;
    }
  int dev = 0;
  CUDA_TRY (cudaGetDevice (&dev));
  cudaDeviceProp prop;
  CUDA_TRY (cudaGetDeviceProperties (&prop, dev));
  if (name && name_len)
    {
      strncpy (name, prop.name, name_len - 1);
      name[name_len - 1] = '\0';
    }
  if (cc_major)
    *cc_major = prop.major;
  if (cc_minor)
    *cc_minor = prop.minor;
  return 0;
}

extern "C" int
ms_gpu_device_size (int *sm_count, unsigned long long *memory_bytes, char *err,
                    size_t errlen)
{
  int dev = 0;
  CUDA_TRY (cudaGetDevice (&dev));
  cudaDeviceProp prop;
  CUDA_TRY (cudaGetDeviceProperties (&prop, dev));
  if (sm_count)
    *sm_count = prop.multiProcessorCount;
  if (memory_bytes)
    *memory_bytes = prop.totalGlobalMem;
  return 0;
}

/* ------------------------------------------------------------------ */
/* L2 flush and queue-filling helpers                                  */

/* Reads a buffer twice the size of L2.  Reading (not writing) leaves L2 full
 * of clean lines, so the kernel measured next is not charged for writing
 * back the flusher's dirty lines; dirty lines left by earlier work are
 * written back here, outside the measurement. */
__global__ void
ms_gpu_flush_kernel (const int4 *buf, size_t n, int *sink)
{
  int acc = 0;
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n;
       i += (size_t) blockDim.x * gridDim.x)
    {
      int4 v = buf[i];
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  if (acc == 0x7fffffff) /* never: the buffer is zero */
    *sink = acc;
}

/* Keeps the GPU busy for about ns nanoseconds so that the launches queued
 * behind it are already in the queue when it ends: the start event then
 * measures the kernel, not the host's launch latency. */
__global__ void
ms_gpu_spin_kernel (unsigned long long ns)
{
  unsigned long long t0, t;
  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < ns);
}

namespace {
struct L2Flusher
{
  int4 *buf = nullptr;
  int *sink = nullptr;
  size_t n = 0;
  int blocks = 1;
  ~L2Flusher ()
  {
    if (buf)
      cudaFree (buf);
    if (sink)
      cudaFree (sink);
  }
  int init (int dev, char *err, size_t errlen)
  {
    int l2 = 0, sms = 1;
    CUDA_TRY (cudaDeviceGetAttribute (&l2, cudaDevAttrL2CacheSize, dev));
    CUDA_TRY (cudaDeviceGetAttribute (&sms, cudaDevAttrMultiProcessorCount, dev));
    size_t bytes = 2 * (size_t) (l2 > 0 ? l2 : (32 << 20));
    n = bytes / sizeof (int4);
    blocks = 4 * sms;
    CUDA_TRY (cudaMalloc ((void **) &buf, bytes));
    CUDA_TRY (cudaMalloc ((void **) &sink, sizeof (int)));
    CUDA_TRY (cudaMemset (buf, 0, bytes));
    CUDA_TRY (cudaDeviceSynchronize ());
    return 0;
  }
  int run (char *err, size_t errlen)
  {
    ms_gpu_flush_kernel<<<blocks, 256>>> (buf, n, sink);
    CUDA_TRY (cudaGetLastError ());
    return 0;
  }
};
} // namespace

/* ------------------------------------------------------------------ */
/* profiling                                                           */

namespace {

/* Owns the CUPTI objects of one ms_gpu_profile call. */
struct Session
{
  CUpti_Profiler_Host_Object *host = nullptr;
  CUpti_RangeProfiler_Object *rp = nullptr;
  bool started = false;

  ~Session ()
  {
    if (rp && started)
      {
        CUpti_RangeProfiler_Stop_Params s = {
          CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
        s.pRangeProfilerObject = rp;
        (void) cuptiRangeProfilerStop (&s);
      }
    if (rp)
      {
        CUpti_RangeProfiler_Disable_Params d = {
          CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE };
        d.pRangeProfilerObject = rp;
        (void) cuptiRangeProfilerDisable (&d);
      }
    if (host)
      {
        CUpti_Profiler_Host_Deinitialize_Params d = {
          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE };
        d.pHostObject = host;
        (void) cuptiProfilerHostDeinitialize (&d);
      }
  }
};

const char *
support_str (CUpti_Profiler_Support_Level l)
{
  switch (l)
    {
    case CUPTI_PROFILER_CONFIGURATION_UNSUPPORTED: return "unsupported";
    case CUPTI_PROFILER_CONFIGURATION_DISABLED: return "disabled";
    case CUPTI_PROFILER_CONFIGURATION_SUPPORTED: return "supported";
    default: return "unknown";
    }
}

} // namespace

static int
profile_impl (void (*launch) (void *), void *user,
              const char *const *metrics, int n_metrics, double *values_out,
              unsigned flags, char *err, size_t errlen)
{
  const bool dbg = debug_on ();
  const bool flush = (flags & MS_GPU_PROFILE_FLUSH_L2) != 0;
  const bool cold = flush || (flags & MS_GPU_PROFILE_COLD_START) != 0;
  int dev = 0;
  if (ensure_device (&dev, err, errlen) != 0)
    return -1;
  CUcontext ctx = NULL;
  if (current_context (&ctx, err, errlen) != 0)
    return -1;

  static bool cupti_initialized = false;
  if (!cupti_initialized)
    {
      CUpti_Profiler_Initialize_Params ip = {
        CUpti_Profiler_Initialize_Params_STRUCT_SIZE };
      CUPTI_TRY (cuptiProfilerInitialize, ip);
      cupti_initialized = true;
    }

  /* Is profiling possible on this device at all?  Only used for a clearer
   * message; if the query itself fails we just go on. */
  {
    CUpti_Profiler_DeviceSupported_Params sp = {
      CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE };
    sp.cuDevice = (CUdevice) dev;
    sp.api = CUPTI_PROFILER_RANGE_PROFILING;
    if (cuptiProfilerDeviceSupported (&sp) == CUPTI_SUCCESS
        && sp.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED)
      {
        set_err (err, errlen,
                 "CUPTI range profiling not supported on device %d: "
                 "architecture %s, sli %s, vGPU %s, confidential compute %s,"
                 " CMP %s, WSL %s",
                 dev, support_str (sp.architecture), support_str (sp.sli),
                 support_str (sp.vGpu), support_str (sp.confidentialCompute),
                 support_str (sp.cmp), support_str (sp.wsl));
        return -1;
      }
  }

  /* chip name and counter availability */
  CUpti_Device_GetChipName_Params cn = { CUpti_Device_GetChipName_Params_STRUCT_SIZE };
  cn.deviceIndex = (size_t) dev;
  CUPTI_TRY (cuptiDeviceGetChipName, cn);
  std::string chip = cn.pChipName ? cn.pChipName : "";

  std::vector<uint8_t> avail;
  {
    CUpti_Profiler_GetCounterAvailability_Params ca = {
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE };
    ca.ctx = ctx;
    CUPTI_TRY (cuptiProfilerGetCounterAvailability, ca);
    avail.resize (ca.counterAvailabilityImageSize);
    ca.pCounterAvailabilityImage = avail.data ();
    CUPTI_TRY (cuptiProfilerGetCounterAvailability, ca);
  }

  L2Flusher F;
  if (cold && F.init (dev, err, errlen) != 0)
    return -1;

  Session S;

  {
    CUpti_Profiler_Host_Initialize_Params hi = {
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE };
    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = chip.c_str ();
    hi.pCounterAvailabilityImage = avail.data ();
    CUPTI_TRY (cuptiProfilerHostInitialize, hi);
    S.host = hi.pHostObject;
  }

  std::vector<const char *> names (metrics, metrics + n_metrics);

  /* Check each name first so that the message can say which one is bad. */
  for (int i = 0; i < n_metrics; i++)
    {
      CUpti_Profiler_Host_GetMetricProperties_Params mp = {
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE };
      mp.pHostObject = S.host;
      mp.pMetricName = names[i];
      CUptiResult r = cuptiProfilerHostGetMetricProperties (&mp);
      if (r != CUPTI_SUCCESS)
        {
          set_err (err, errlen, "metric '%s' is not available on chip %s: %s",
                   names[i], chip.c_str (), cupti_str (r).c_str ());
          return -1;
        }
    }

  std::vector<uint8_t> config;
  {
    CUpti_Profiler_Host_ConfigAddMetrics_Params am = {
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE };
    am.pHostObject = S.host;
    am.ppMetricNames = names.data ();
    am.numMetrics = names.size ();
    CUPTI_TRY (cuptiProfilerHostConfigAddMetrics, am);

    CUpti_Profiler_Host_GetConfigImageSize_Params cs = {
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE };
    cs.pHostObject = S.host;
    CUPTI_TRY (cuptiProfilerHostGetConfigImageSize, cs);
    config.resize (cs.configImageSize);

    CUpti_Profiler_Host_GetConfigImage_Params ci = {
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE };
    ci.pHostObject = S.host;
    ci.configImageSize = config.size ();
    ci.pConfigImage = config.data ();
    CUPTI_TRY (cuptiProfilerHostGetConfigImage, ci);

    if (dbg)
      {
        CUpti_Profiler_Host_GetNumOfPasses_Params np = {
          CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE };
        np.configImageSize = config.size ();
        np.pConfigImage = config.data ();
        if (cuptiProfilerHostGetNumOfPasses (&np) == CUPTI_SUCCESS)
          fprintf (stderr, "[memsim-gpu] chip %s, %d metrics, %zu pass(es)\n",
                   chip.c_str (), n_metrics, np.numOfPasses);
      }
  }

  {
    CUpti_RangeProfiler_Enable_Params en = {
      CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE };
    en.ctx = ctx;
    CUPTI_TRY (cuptiRangeProfilerEnable, en);
    S.rp = en.pRangeProfilerObject;
  }

  /* kernel replay + auto range: one range per kernel, CUPTI replays each
   * kernel (restoring memory) for every pass.
   * user replay + user range (flush mode): one range around the whole call,
   * we call launch once per pass with an L2 flush before it. */
  const size_t max_ranges = flush ? 1 : MS_GPU_MAX_KERNELS + (cold ? 1 : 0);
  std::vector<uint8_t> counter_data;
  {
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE };
    ds.pRangeProfilerObject = S.rp;
    ds.pMetricNames = names.data ();
    ds.numMetrics = names.size ();
    ds.maxNumOfRanges = max_ranges;
    ds.maxNumRangeTreeNodes = (uint32_t) max_ranges;
    CUPTI_TRY (cuptiRangeProfilerGetCounterDataSize, ds);
    counter_data.assign (ds.counterDataSize, 0);

    CUpti_RangeProfiler_CounterDataImage_Initialize_Params di = {
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE };
    di.pRangeProfilerObject = S.rp;
    di.counterDataSize = counter_data.size ();
    di.pCounterData = counter_data.data ();
    CUPTI_TRY (cuptiRangeProfilerCounterDataImageInitialize, di);
  }

  {
    CUpti_RangeProfiler_SetConfig_Params sc = {
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE };
    sc.pRangeProfilerObject = S.rp;
    sc.configSize = config.size ();
    sc.pConfig = config.data ();
    sc.counterDataImageSize = counter_data.size ();
    sc.pCounterDataImage = counter_data.data ();
    sc.range = flush ? CUPTI_UserRange : CUPTI_AutoRange;
    sc.replayMode = cold ? CUPTI_UserReplay : CUPTI_KernelReplay;
    sc.maxRangesPerPass = max_ranges;
    sc.numNestingLevels = 1;
    sc.minNestingLevel = 1;
    sc.passIndex = 0;
    sc.targetNestingLevel = 1;
    CUPTI_TRY (cuptiRangeProfilerSetConfig, sc);
  }

  /* With kernel replay CUPTI replays every kernel internally, so one round
   * normally submits all passes; loop anyway in case it asks for more. */
  int rounds = 0;
  for (;;)
    {
      CUpti_RangeProfiler_Start_Params st = {
        CUpti_RangeProfiler_Start_Params_STRUCT_SIZE };
      st.pRangeProfilerObject = S.rp;
      CUPTI_TRY (cuptiRangeProfilerStart, st);
      S.started = true;
      /* the flush after Start: Start itself leaves dirty lines in the L2
       * (3 MB with a user range, 29 MB with auto ranges, measured on the
       * H200), which a kernel reading more than the L2 holds would write
       * back.  Outside the user range it is not counted; with auto ranges
       * it is the pass's first range, left out below. */
      if (cold)
        {
          if (F.run (err, errlen) != 0)
            return -1;
          CUDA_TRY (cudaDeviceSynchronize ());
        }

      if (flush)
        {
          CUpti_RangeProfiler_PushRange_Params pr = {
            CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE };
          pr.pRangeProfilerObject = S.rp;
          pr.pRangeName = "memsim";
          CUPTI_TRY (cuptiRangeProfilerPushRange, pr);
        }
      launch (user);
      cudaError_t le = cudaGetLastError ();
      if (le != cudaSuccess)
        {
          set_err (err, errlen, "kernel launch inside the profiled call failed: %s",
                   cuda_str (le).c_str ());
          return -1;
        }
      CUDA_TRY (cudaDeviceSynchronize ());
      if (flush)
        {
          CUpti_RangeProfiler_PopRange_Params pp = {
            CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE };
          pp.pRangeProfilerObject = S.rp;
          CUPTI_TRY (cuptiRangeProfilerPopRange, pp);
        }

      CUpti_RangeProfiler_Stop_Params sp = {
        CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE };
      sp.pRangeProfilerObject = S.rp;
      S.started = false;
      CUPTI_TRY (cuptiRangeProfilerStop, sp);
      rounds++;
      if (sp.isAllPassSubmitted)
        break;
      if (rounds >= 64)
        {
          set_err (err, errlen,
                   "CUPTI still asked for more passes after %d rounds", rounds);
          return -1;
        }
    }

  {
    CUpti_RangeProfiler_DecodeData_Params dd = {
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE };
    dd.pRangeProfilerObject = S.rp;
    CUPTI_TRY (cuptiRangeProfilerDecodeData, dd);
    if (dd.numOfRangeDropped > 0)
      {
        set_err (err, errlen,
                 "%zu range(s) dropped: more than %zu ranges (kernels) in one"
                 " profiled call",
                 dd.numOfRangeDropped, max_ranges);
        return -1;
      }
  }

  size_t n_ranges = 0;
  {
    CUpti_RangeProfiler_GetCounterDataInfo_Params gi = {
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE };
    gi.pCounterDataImage = counter_data.data ();
    gi.counterDataImageSize = counter_data.size ();
    CUPTI_TRY (cuptiRangeProfilerGetCounterDataInfo, gi);
    n_ranges = gi.numTotalRanges;
  }
  if (dbg)
    fprintf (stderr, "[memsim-gpu] %s, %d launch round(s), %zu range(s)\n",
             flush ? "user range/user replay, L2 flushed"
                   : "auto range/kernel replay", rounds, n_ranges);
  /* auto ranges with the flush: its kernel is the first range */
  const size_t first_range = cold && !flush ? 1 : 0;
  if (n_ranges <= first_range)
    {
      set_err (err, errlen, "no kernel was launched inside the profiled call");
      return -1;
    }

  std::vector<double> vals (n_metrics);
  for (int i = 0; i < n_metrics; i++)
    values_out[i] = 0.0;
  for (size_t r = first_range; r < n_ranges; r++)
    {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE };
      ev.pHostObject = S.host;
      ev.pCounterDataImage = counter_data.data ();
      ev.counterDataImageSize = counter_data.size ();
      ev.rangeIndex = r;
      ev.ppMetricNames = names.data ();
      ev.numMetrics = names.size ();
      ev.pMetricValues = vals.data ();
      CUPTI_TRY (cuptiProfilerHostEvaluateToGpuValues, ev);
      for (int i = 0; i < n_metrics; i++)
        values_out[i] += vals[i];
      if (dbg)
        {
          CUpti_RangeProfiler_CounterData_GetRangeInfo_Params ri = {
            CUpti_RangeProfiler_CounterData_GetRangeInfo_Params_STRUCT_SIZE };
          ri.pCounterDataImage = counter_data.data ();
          ri.counterDataImageSize = counter_data.size ();
          ri.rangeIndex = r;
          ri.rangeDelimiter = "/";
          if (cuptiRangeProfilerCounterDataGetRangeInfo (&ri) == CUPTI_SUCCESS)
            fprintf (stderr, "[memsim-gpu] range %zu: %s\n", r,
                     ri.rangeName ? ri.rangeName : "?");
        }
    }
  return 0; /* Session destructor disables the profiler and frees the host object */
}

extern "C" int
ms_gpu_profile_ex (void (*launch) (void *user), void *user,
                   const char *const *metrics, int n_metrics,
                   double *values_out, unsigned flags, char *err,
                   size_t errlen)
{
  if (!launch || !metrics || n_metrics <= 0 || !values_out)
    {
      set_err (err, errlen, "ms_gpu_profile: bad arguments (launch %p, metrics %p,"
               " n_metrics %d, values_out %p)", (void *) launch,
               (const void *) metrics, n_metrics, (void *) values_out);
      return -1;
    }
  for (int i = 0; i < n_metrics; i++)
    if (!metrics[i] || !*metrics[i])
      {
        set_err (err, errlen, "ms_gpu_profile: metric %d is empty", i);
        return -1;
      }
  try
    {
      return profile_impl (launch, user, metrics, n_metrics, values_out, flags,
                           err, errlen);
    }
  catch (const std::exception &ex)
    {
      set_err (err, errlen, "ms_gpu_profile: %s", ex.what ());
      return -1;
    }
}

extern "C" int
ms_gpu_profile (void (*launch) (void *user), void *user,
                const char *const *metrics, int n_metrics, double *values_out,
                char *err, size_t errlen)
{
  return ms_gpu_profile_ex (launch, user, metrics, n_metrics, values_out, 0,
                            err, errlen);
}

/* ------------------------------------------------------------------ */
/* timing                                                              */

namespace {
struct Events
{
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Events ()
  {
    if (start)
      cudaEventDestroy (start);
    if (stop)
      cudaEventDestroy (stop);
  }
};
} // namespace

static int
time_impl (void (*launch) (void *), void *user, int warmup, int repeats,
           int flush_l2, double *median_ms, char *err, size_t errlen)
{
  int dev = 0;
  if (ensure_device (&dev, err, errlen) != 0)
    return -1;

  L2Flusher F;
  if (flush_l2 && F.init (dev, err, errlen) != 0)
    return -1;
  Events R;
  CUDA_TRY (cudaEventCreate (&R.start));
  CUDA_TRY (cudaEventCreate (&R.stop));

  std::vector<float> times;
  times.reserve (repeats);
  for (int it = 0; it < warmup + repeats; it++)
    {
      if (flush_l2 && F.run (err, errlen) != 0)
        return -1;
      /* the launch must be queued before the start event runs */
      ms_gpu_spin_kernel<<<1, 1>>> (20000ull);
      CUDA_TRY (cudaGetLastError ());
      const bool timed = it >= warmup;
      if (timed)
        CUDA_TRY (cudaEventRecord (R.start, 0));
      launch (user);
      cudaError_t le = cudaGetLastError ();
      if (le != cudaSuccess)
        {
          set_err (err, errlen, "kernel launch inside the timed call failed: %s",
                   cuda_str (le).c_str ());
          return -1;
        }
      if (timed)
        {
          CUDA_TRY (cudaEventRecord (R.stop, 0));
          CUDA_TRY (cudaEventSynchronize (R.stop));
          float ms = 0.f;
          CUDA_TRY (cudaEventElapsedTime (&ms, R.start, R.stop));
          times.push_back (ms);
        }
      else
        CUDA_TRY (cudaDeviceSynchronize ());
    }
  std::sort (times.begin (), times.end ());
  size_t n = times.size ();
  *median_ms = (n % 2) ? times[n / 2]
                       : 0.5 * ((double) times[n / 2 - 1] + times[n / 2]);
  return 0;
}

extern "C" int
ms_gpu_time (void (*launch) (void *user), void *user, int warmup, int repeats,
             int flush_l2, double *median_ms, char *err, size_t errlen)
{
  if (!launch || !median_ms || warmup < 0 || repeats <= 0)
    {
      set_err (err, errlen, "ms_gpu_time: bad arguments (launch %p, warmup %d,"
               " repeats %d, median_ms %p)", (void *) launch, warmup, repeats,
               (void *) median_ms);
      return -1;
    }
  try
    {
      return time_impl (launch, user, warmup, repeats, flush_l2, median_ms,
                        err, errlen);
    }
  catch (const std::exception &ex)
    {
      set_err (err, errlen, "ms_gpu_time: %s", ex.what ());
      return -1;
    }
}
