#!/bin/bash
# One-shot device script: build, self-test and cross-check with ncu on a GPU
# machine.  Usage (from the repo root): bash gpu/device-run.sh  (writes $OUT/*)
OUT=${OUT:-/tmp/memsim-gpu-out}
mkdir -p "$OUT"
cd "$(dirname "$0")"
exec > >(tee "$OUT/run.log") 2>&1
echo "== env"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
export PATH=$PATH:/usr/local/cuda/bin
which nvcc ncu cuobjdump
nvcc --version | tail -2
ncu --version
ls /usr/local/cuda/lib64 2>/dev/null | grep -i -E 'cupti|nvperf'
ls -d /usr/local/cuda/extras/CUPTI 2>/dev/null
echo "== build"
make -f Makefile.selftest clean >/dev/null
make -f Makefile.selftest show-flags all || { echo BUILD FAILED; exit 1; }
echo "== ctest"
timeout 60 ./profiler-ctest; echo "ctest rc=$?"
echo "== selftest"
MEMSIM_GPU_DEBUG=1 timeout 200 ./profiler-selftest > "$OUT/selftest.txt" 2>&1
echo "selftest rc=$?"
cat "$OUT/selftest.txt"
echo "== sass"
cuobjdump --dump-sass profiler-selftest 2>&1 | grep -E 'Function|LDG|STG|LDS|STS' > "$OUT/sass.txt"
cat "$OUT/sass.txt"
echo "== ncu cross-check"
timeout 120 ncu --clock-control none \
  --metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,gpu__time_duration.sum \
  ./profiler-selftest --launch-only > "$OUT/ncu.txt" 2>&1
echo "ncu rc=$?"
cat "$OUT/ncu.txt"
