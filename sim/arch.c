/* arch.c - architecture descriptions.  The H100 is built in. */
#include "config.h"
#include "arch.h"

static const MsArch h100 = {
  .name = (char *) "h100",
  .description = (char *) "NVIDIA H100 (Hopper, sm_90)",
  .compute_capability = 90,
  .warp_size = 32,
  .sector_bytes = 32,
  .line_bytes = 128,
  .banks = 32,
  .bank_bytes = 4,
  .phase_bytes = 128,
};

const MsArch *
ms_arch_default (void)
{
  return &h100;
}
