#!/bin/bash
# device-user.sh - users' own plain-CUDA kernels (memsim trace FILE.cu:KERNEL)
# against Nsight Compute on the GPU: every launch of gpu/user-checks.txt,
# simulated and measured (gpu/user-check.py).  From the top of a built tree,
# on a machine with an NVIDIA GPU, nvcc, ncu and g++:
#
#   bash gpu/device-user.sh [PREBUILT]     -> $OUT/user-check.txt
#
# PREBUILT: a folder made by `bash gpu/device-validate.sh --pack DIR`, or
# empty to use ./memsim.
set -u
pre=${1:-}
OUT=${OUT:-/tmp/memsim-user-out}
if [ -n "$pre" ]; then
  export LD_LIBRARY_PATH=$pre/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
  M=$pre/memsim
else
  M=./memsim
fi
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$OUT"
python3 "$(dirname "$0")/user-check.py" --memsim "$M" --out "$OUT/harness" 2>&1 \
  | tee "$OUT/user-check.txt"
exit "${PIPESTATUS[0]}"
