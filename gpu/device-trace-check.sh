#!/bin/bash
# device-trace-check.sh - the GPU's own address traces as memsim traces, on
# a machine with a GPU (docs/trace-format.md, docs/validation.md):
#
#   bash gpu/device-trace-check.sh [MEMSIM]
#
# For each kernel: `memsim trace K --gpu --save-gpu-trace` (the measured
# counters beside the simulated ones, and the GPU's trace saved), then
# `memsim replay` of that GPU trace on the H100 preset and on kepler64.  The
# replayed GPU trace must give the emulator's own simulated counts wherever
# --check-trace found the traces identical.  MEMSIM defaults to ./memsim; a
# prebuilt one from `gpu/device-validate.sh --pack DIR` runs with
# LD_LIBRARY_PATH=DIR/lib.  Results go to $OUT.
set -u
M=${1:-./memsim}
OUT=${OUT:-/tmp/memsim-trace-check}
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
kernels="transpose_naive transpose_shared transpose_padded reduce_shfl stencil_shared gemm_tiled smem_gather aos_read test_atomics"
for k in $kernels; do
  size=
  case $k in gemm_tiled) size="-p n=256";; esac
  "$M" trace "$k" $size --gpu --save-gpu-trace "$OUT/$k.gpu.trace" --format json \
    -o "$OUT/$k.live.json" 2> "$OUT/$k.err"
  echo "$k trace rc=$? $(head -c 300 "$OUT/$k.err")"
  "$M" replay "$OUT/$k.gpu.trace" --format json -o "$OUT/$k.gpu-replay.json" \
    && "$M" replay "$OUT/$k.gpu.trace" --arch kepler64 -o "$OUT/$k.gpu-replay-kepler64.txt"
  echo "$k replay rc=$?"
  ls -l "$OUT/$k.gpu.trace" 2>/dev/null | awk '{print "  trace bytes", $5}'
done
