#!/bin/bash
# device-costs.sh - the measurements the cost models (L2/DRAM traffic,
# time) are checked against, on a machine with an NVIDIA GPU: every built-in
# kernel family at the seeds' sizes, and probes of the DRAM rules (strided
# reads and writes, how much written data stays in the L2).
#
#   bash gpu/device-costs.sh GROUP [PREBUILT]
#
# GROUP: big (transposes 8192x8192, reductions 16M, stencils 256^3, matrix
# add), gemm (GEMMs 1024^3), gemm4096 (GEMMs at seed 004's 4096^3, the
# emulator on a 1% sample of the blocks, --sample), probes (gmem_stride/aos/soa/broadcast at large
# n, copy at several sizes), small (every family at sizes that fill a
# fraction of the GPU: launches whose time is the warps' latency, not a
# bandwidth), defaults (every built-in at its default parameters); all =
# big, gemm, probes.  PREBUILT: a folder made by
# `bash gpu/device-validate.sh --pack DIR` (memsim and its libraries), or
# empty to use ./memsim.  Each run is `memsim trace ... --gpu --format json`
# (simulated and measured side by side, the GPU timed with a cold L2,
# median of repeats); the JSON files, stderr and a one-line status per run
# go to $OUT/costs/, packed into $OUT/costs.tar.gz.  ONLY (an extended
# regular expression): only the runs whose whole name matches it, e.g.
# ONLY='reduce_multiple.*' to measure again a kernel that changed.
set -u
group=${1:?usage: device-costs.sh big|gemm|gemm4096|probes|small|defaults|all [PREBUILT]}
pre=${2:-}
OUT=${OUT:-/tmp/memsim-costs-out}
mkdir -p "$OUT/costs"
if [ -n "$pre" ]; then
  export LD_LIBRARY_PATH=$pre/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64
  export MEMSIM_PLUGIN_DIR=$(cd "$pre" && pwd)   # the plug-ins the pack carries
  M=$pre/memsim
else
  M=./memsim
fi
status=$OUT/costs/status.txt

# run NAME KERNEL ARGS...: one side-by-side run
run () {
  local name=$1; shift
  if [ -n "${ONLY:-}" ] && ! printf '%s\n' "$name" | grep -qE "^(${ONLY})\$"; then
    return
  fi
  local t0=$SECONDS
  timeout "${RUN_TIMEOUT:-150}" "$M" trace "$@" --gpu --format json -o "$OUT/costs/$name.json" \
    2>"$OUT/costs/$name.err"
  local rc=$?
  printf '%-40s rc=%d %4d s  %s\n' "$name" "$rc" "$((SECONDS - t0))" "$*" \
    | tee -a "$status"
}

big () {
  for k in transpose_naive transpose_shared transpose_padded transpose_padded2 transpose_swizzled \
           copy transpose_coalesced transpose_nobankconflicts; do
    run "$k-8192" "$k" --size 8192x8192
  done
  for k in reduce_interleaved reduce_nondivergent reduce_sequential reduce_firstadd \
           reduce_unroll_last reduce_unroll_complete reduce_multiple reduce_shfl; do
    run "$k-16M" "$k" -p n=16777216
  done
  for k in stencil_naive stencil_shared stencil_nondivergent stencil_25d stencil_25d_single; do
    run "$k-256" "$k" --size 256x256x256
  done
  run matrix_add-4096 matrix_add --size 4096x4096
}

gemm4096 () {
  for k in gemm_naive gemm_tiled gemm_tiled_nopad gemm_regtile gemm_double_buffer; do
    run "$k-4096-sample1" "$k" -p n=4096 -p m=4096 -p k=4096 --sample 1
  done
}

gemm () {
  for k in gemm_naive gemm_tiled gemm_tiled_nopad gemm_regtile gemm_double_buffer; do
    run "$k-1024" "$k" -p n=1024 -p m=1024 -p k=1024
  done
}

probes () {
  # strided reads: DRAM bytes per sector by stride and width
  for w in 4 8 16; do
    for s in 1 2 4 8 16 32 64; do
      run "gmem_stride-w$w-s$s" gmem_stride -p n=1048576 -p stride=$s -p width=$w
    done
  done
  # how much written data the L2 keeps at the end: copies of growing size
  for n in 1024 2048 3072 4096 6144 8192; do
    run "copy-$n" copy --size ${n}x$n
  done
  for k in aos_read soa_read aos_float3_read broadcast_read; do
    run "$k-4M" "$k" -p n=4194304
  done
}

small () {
  for k in transpose_naive transpose_shared transpose_padded transpose_padded2 transpose_swizzled \
           copy transpose_coalesced transpose_nobankconflicts; do
    run "$k-64" "$k" --size 64x64
    run "$k-512" "$k" --size 512x512
  done
  for k in reduce_interleaved reduce_nondivergent reduce_sequential reduce_firstadd \
           reduce_unroll_last reduce_unroll_complete reduce_multiple reduce_shfl; do
    run "$k-2048" "$k" -p n=2048
    run "$k-64K" "$k" -p n=65536
  done
  for k in stencil_naive stencil_shared stencil_nondivergent stencil_25d stencil_25d_single; do
    run "$k-32" "$k" --size 32x32x32
  done
  for k in gemm_naive gemm_tiled gemm_tiled_nopad gemm_regtile gemm_double_buffer; do
    run "$k-64" "$k" -p n=64 -p m=64 -p k=64
    run "$k-256" "$k" -p n=256 -p m=256 -p k=256
  done
  run matrix_add-128 matrix_add --size 128x128
  run per_thread_sum-4K per_thread_sum -p n=4096 -p peak=4096
  run per_thread_sum_capped-4K per_thread_sum_capped -p n=4096 -p peak=4096
}

defaults () {
  for k in $("$M" list | awk '/^[a-z]/ { print $1 }'); do
    run "$k" "$k"
  done
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv \
  >"$OUT/costs/env.txt" 2>&1
"$M" --version >>"$OUT/costs/env.txt" 2>&1
date -u '+%Y-%m-%d %H:%M UTC' >>"$OUT/costs/env.txt"
case $group in
  big) big ;;
  gemm) gemm ;;
  gemm4096) gemm4096 ;;
  probes) probes ;;
  small) small ;;
  defaults) defaults ;;
  all) big; gemm; probes ;;
  *) echo "device-costs.sh: unknown group '$group' (big, gemm, gemm4096, probes, small, defaults or all)" >&2; exit 2 ;;
esac
ok=$(grep -c 'rc=0' "$status")
tar -czf "$OUT/costs-$group.tar.gz" -C "$OUT" costs && rm -rf "$OUT/costs"
echo "device-costs: $ok runs ok"
