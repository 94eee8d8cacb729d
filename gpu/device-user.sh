#!/bin/bash
# device-user.sh - users' own plain-CUDA kernels (memsim trace FILE.cu:KERNEL)
# against Nsight Compute on the GPU: every launch of gpu/user-checks.txt,
# simulated and measured (gpu/user-check.py); and each launch again as
# `memsim trace FILE.cu:KERNEL ... --gpu` (memsim's own nvcc build of the
# file, its output check against the emulator, its CUPTI counters beside the
# simulated ones and beside ncu's).  From the top of a built tree, on a
# machine with an NVIDIA GPU, nvcc, ncu and g++:
#
#   bash gpu/device-user.sh [PREBUILT]     -> $OUT/user-check.txt
#
# Success: the last two lines read "0 exact metric(s) differ" and "--gpu: N
# of N launch(es) agree"; the exit status is 0.  CHECKS=FILE runs another
# list (e.g. half of gpu/user-checks.txt, to stay within a time limit).
#
# PREBUILT: a folder made by `bash gpu/device-validate.sh --pack DIR`, or
# empty to use ./memsim.
set -u
pre=${1:-}
OUT=${OUT:-/tmp/memsim-user-out}
if [ -n "$pre" ]; then
  export LD_LIBRARY_PATH=$pre/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
  export MEMSIM_PLUGIN_DIR=$(cd "$pre" && pwd)   # the plug-ins the pack carries
  M=$pre/memsim
else
  M=./memsim
fi
export PATH=$PATH:/usr/local/cuda/bin
mkdir -p "$OUT"
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/memsim-user-cache}   # the builds of users' files
export PYTHONUNBUFFERED=1   # each launch's lines as they come, even if stopped
python3 "$(dirname "$0")/user-check.py" --memsim "$M" --out /tmp/memsim-user-harness --gpu \
  --checks "${CHECKS:-$(dirname "$0")/user-checks.txt}" 2>&1 \
  | tee "$OUT/user-check.txt"
exit "${PIPESTATUS[0]}"
