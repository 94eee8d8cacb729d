/* device-runtime.c - what the device runtime's own code adds to Nsight
 * Compute's counters: printf's.
 *
 * Assumptions (measured on the H200 with nvcc 13.0's vprintf,
 * gpu/probes/runtime-counts.cu, gpu/measurements/h200-2026-12-01-runtime-counts.txt;
 * every other preset takes them as they are):
 *  - A warp-level call of printf (the lanes of a warp that call it
 *    together) runs the runtime's code once for the warp.  Its global
 *    accesses are in the LSU's requests and sectors
 *    (l1tex__t_requests/sectors_pipe_lsu_mem_global_op_*) but not in the
 *    SASS instruction counts (smsp__sass_inst_executed_op_global_*): 0 on
 *    the GPU.
 *  - It loads 3 x (the format's bytes + each %s argument's bytes with its
 *    NUL, the longest lane's) + 5 requests of one sector each: exact in
 *    all 23 cases measured (1 to 60 bytes, 0 to 6 arguments, 1 to 32
 *    lanes) and in simplePrintf and simpleCooperativeGroups.
 *  - It stores 222 - 7 x (conversions, '*' included; %% none) requests,
 *    each of one sector per calling lane (every lane writes its own
 *    record): exact in the same cases.
 *  - Its 5 atomic requests a call are left out: among warps that call at
 *    once their count depends on timing (17 to 20 for 4 warps).
 *  - Its warp instructions: 6797 + 15.9 x format bytes - 68.1 x
 *    conversions + 53.3 x %s bytes + 14.8 x (lanes - 1), a least-squares
 *    fit to the 23 cases (the GPU's count less memsim's for the kernel's
 *    own code), all within 0.3%.
 *  - malloc and free add no count here: the GPU's allocator's accesses
 *    depend on its heap's state (newdelete's kernels differ).
 */
#include "config.h"

#include "device-runtime.h"

#include "model.h"

void
ms_device_runtime_counts (const MsRuntimeCalls *c, MsCounters own[MS_N_OPS], double *instructions)
{
  for (guint op = 0; op < MS_N_OPS; op++)
    own[op] = (MsCounters) { 0 };
  /* per warp-level call, summed: the sums are linear in what each call had */
  double calls = (double) c->calls[MS_RUNTIME_PRINTF];
  double lanes = (double) c->lanes[MS_RUNTIME_PRINTF];
  double bytes = (double) c->printf_format_bytes, strings = (double) c->printf_string_bytes;
  double conversions = (double) c->printf_conversions;
  guint64 loads = (guint64) (3 * (bytes + strings) + 5 * calls);
  guint64 stores = (guint64) (222 * calls - 7 * conversions);
  own[MS_OP_LD].v[MS_SLOT_REQUESTS] = own[MS_OP_LD].v[MS_SLOT_SECTORS] = loads;
  own[MS_OP_ST].v[MS_SLOT_REQUESTS] = stores;
  own[MS_OP_ST].v[MS_SLOT_SECTORS] = (guint64) (222 * lanes - 7 * (double) c->printf_lane_conversions);
  *instructions = 6797 * calls + 15.9 * bytes - 68.1 * conversions + 53.3 * strings
                  + 14.8 * (lanes - calls);
}
