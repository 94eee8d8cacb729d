#!/bin/bash
# device-occupancy.sh - the occupancy Nsight Compute reports for every
# built-in kernel's launch (its launch__* and sm__maximum_warps_* metrics),
# to check `memsim occupancy` against (gpu/occupancy-check.py).  On a
# machine with an NVIDIA GPU and ncu:
#
#   bash gpu/device-occupancy.sh [PREBUILT]     -> $OUT/occupancy-ncu.tar.gz
#
# ncu profiles the first launch of `memsim trace KERNEL --gpu` (the output
# check's plain launch); memsim's own CUPTI session then fails under ncu,
# which is expected: only ncu's numbers are kept.
set -u
pre=${1:-}
OUT=${OUT:-/tmp/memsim-occupancy-out}
if [ -n "$pre" ]; then
  export LD_LIBRARY_PATH=$pre/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
  export MEMSIM_PLUGIN_DIR=$(cd "$pre" && pwd)   # the plug-ins the pack carries
  M=$pre/memsim
else
  M=./memsim
fi
export PATH=$PATH:/usr/local/cuda/bin
dir=$OUT/occupancy-ncu
mkdir -p "$dir"
metrics=launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
metrics=$metrics,launch__occupancy_limit_warps,launch__occupancy_limit_blocks,launch__occupancy_limit_barriers
metrics=$metrics,sm__maximum_warps_per_active_cycle_pct,launch__waves_per_multiprocessor
metrics=$metrics,launch__shared_mem_per_block_static,launch__block_size,launch__grid_size
metrics=$metrics,launch__shared_mem_config_size,launch__shared_mem_per_block_driver,launch__shared_mem_per_block_dynamic,launch__occupancy_per_register_count
for k in $("$M" list | awk '/^[a-z]/ && $1 !~ /^test_/ {print $1}'); do
  timeout 60 ncu --launch-count 1 --metrics "$metrics" --csv "$M" trace "$k" --gpu \
    >"$dir/$k.csv" 2>"$dir/$k.err"
  echo "$k: $(grep -c launch__ "$dir/$k.csv") launch metrics"
done
tar -czf "$OUT/occupancy-ncu.tar.gz" -C "$OUT" occupancy-ncu && rm -rf "$dir"
