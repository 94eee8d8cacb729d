/* The CPU build of tests.cu: the kernel source compiled as C (see sim/emulator/kernel.h). */
#include "config.h"
#define MS_KERNEL_SOURCE 1
#include "tests.cu"
