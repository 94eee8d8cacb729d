#!/bin/bash
# device-racecheck.sh - the GPU's own opinion of memsim's race check: runs
# NVIDIA's `compute-sanitizer --tool racecheck` on the nvcc build of the
# kernels memsim says race (test_race_transpose, test_race_phases,
# test_warp_flag, and the store probes smem_stride/smem_gather -p op=1),
# of the warp-synchronous ones memsim warns about on sm_70+ (intra-warp
# hazards: test_warp_sync, test_shuffle, reduce_unroll_last) and of the
# clean shared-memory kernels, on a machine with an NVIDIA GPU:
#
#   bash gpu/device-racecheck.sh [PREBUILT]
#
# PREBUILT: a folder made by `bash gpu/device-validate.sh --pack DIR`
# (memsim and its libraries), or empty to use ./memsim.  Each kernel runs as
# `memsim trace K --gpu --allow-races` under compute-sanitizer, which
# checks only the first launch (the GPU run whose output memsim checks;
# the profiler's replays that follow may fail under the sanitizer, which
# does not matter here).  Beside it, memsim's own verdict on the same
# launch (`memsim trace K --allow-races --format json`: races between
# warps and intra-warp hazards).  One line per kernel goes to
# $OUT/racecheck/summary.txt, the full outputs beside it, all packed into
# $OUT/racecheck.tar.gz.
set -u
pre=${1:-}
OUT=${OUT:-/tmp/memsim-racecheck-out}
mkdir -p "$OUT/racecheck"
export PATH=$PATH:/usr/local/cuda/bin
if [ -n "$pre" ]; then
  export LD_LIBRARY_PATH=$pre/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
  export MEMSIM_PLUGIN_DIR=$(cd "$pre" && pwd)   # the plug-ins the pack carries
  M=$pre/memsim
else
  M=./memsim
fi
CS=${COMPUTE_SANITIZER:-compute-sanitizer}
summary=$OUT/racecheck/summary.txt
: >"$summary"
{
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  "$CS" --version | tail -1
  "$M" --version
  date -u '+%Y-%m-%d %H:%M UTC'
} >"$OUT/racecheck/env.txt" 2>&1

# racecheck NAME KERNEL ARGS...: memsim's verdict, then the sanitizer's
racecheck () {
  local name=$1; shift
  local dir=$OUT/racecheck
  "$M" trace "$@" --allow-races --format json -o "$dir/$name.memsim.json" 2>"$dir/$name.memsim.err"
  local verdict
  verdict=$(python3 - "$dir/$name.memsim.json" <<'EOF'
import json, sys
try:
    r = json.load(open(sys.argv[1])).get("races", {})
except Exception as e:
    print("memsim: no report (%s)" % e); sys.exit(0)
b = r.get("between_warps", {}).get("lane_accesses", 0)
w = r.get("intra_warp", {}).get("lane_accesses", 0)
print("memsim: %d racing lane accesses, %d intra-warp hazards" % (b, w))
EOF
)
  # --launch-count 1: the first launch only; --racecheck-report all: the
  # hazards and the analysis; --print-limit: keep the log short
  timeout "${RUN_TIMEOUT:-120}" "$CS" --tool racecheck --launch-count 1 --racecheck-report all \
    --print-limit 20 "$M" trace "$@" --gpu --allow-races >"$dir/$name.sanitizer.txt" 2>&1
  local rc=$?
  local cs_summary
  cs_summary=$(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|hazard' "$dir/$name.sanitizer.txt" \
               | grep -i summary | tail -1)
  printf '%-28s sanitizer rc=%d  %s  |  %s\n' "$name" "$rc" "${cs_summary:-no summary line}" \
    "$verdict" | tee -a "$summary"
}

# memsim: races between warps
racecheck test_race_transpose test_race_transpose
racecheck test_race_phases test_race_phases
racecheck smem_stride-st smem_stride -p width=4 -p stride=2 -p op=1
racecheck smem_gather-st smem_gather -p pattern=0 -p width=4 -p op=1
# memsim: intra-warp hazards only (a warning on sm_70+)
racecheck test_warp_sync test_warp_sync
racecheck test_shuffle test_shuffle
racecheck reduce_unroll_last reduce_unroll_last -p n=65536
# memsim: clean
for k in transpose_shared transpose_padded transpose_padded2 transpose_swizzled \
         transpose_coalesced transpose_nobankconflicts; do
  racecheck "$k" "$k" --size 256x256
done
for k in reduce_interleaved reduce_nondivergent reduce_sequential reduce_firstadd reduce_shfl; do
  racecheck "$k" "$k" -p n=65536
done
for k in stencil_shared stencil_nondivergent stencil_25d stencil_25d_single; do
  racecheck "$k" "$k" --size 64x64x16
done
for k in gemm_tiled gemm_tiled_nopad gemm_regtile gemm_double_buffer; do
  racecheck "$k" "$k" -p n=128 -p m=128 -p k=128
done
for k in test_atomics test_early_exit smem_gather smem_stride; do
  racecheck "$k" "$k"
done

# last: a spin on a flag another warp sets, which the sanitizer's
# instrumentation might slow to a crawl (the timeout stops it)
racecheck test_warp_flag test_warp_flag -p n=256

tar -czf "$OUT/racecheck.tar.gz" -C "$OUT" racecheck
echo "device-racecheck: $(wc -l <"$summary") kernels; summary in $summary"
