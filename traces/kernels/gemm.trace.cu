#include "kernel.h"
#include "trace-device.cuh"
namespace ms_gpu_trace {
#include "/work/main/traces/kernels/gemm.cu"
}
