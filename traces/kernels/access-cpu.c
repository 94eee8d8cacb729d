/* The CPU build of access.cu: the kernel source compiled as C (see sim/emulator/kernel.h). */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "access.cu"
