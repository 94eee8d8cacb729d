/* emulator-kernels.h - the entries of tests/emulator-kernels.c. */
#pragma once

#include "kernel.h"

void ms_cpu_entry_em_two_arrays (const MsLaunchArgs *L);
