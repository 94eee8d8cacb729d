/* The CPU build of reduce.cu: the kernel source compiled as C (see sim/emulator/kernel.h). */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "reduce.cu"
