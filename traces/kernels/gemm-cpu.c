/* The CPU build of gemm.cu: the kernel source compiled as C (see sim/emulator/kernel.h). */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "gemm.cu"
