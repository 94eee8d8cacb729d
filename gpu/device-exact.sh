#!/bin/bash
# device-exact.sh - compiler-exact counts (docs/model.md) checked on the GPU
# in one go.  Run from the source tree's root on a machine with an NVIDIA
# GPU:
#
#   bash gpu/device-exact.sh [PREBUILT]
#
# Builds memsim out of tree in /tmp (autoreconf -fi; configure --with-cuda;
# make -j16) when autotools, pkg-config, GLib and json-glib are there, and
# checks that configure found cuobjdump and nvdisasm (the SASS table);
# otherwise uses PREBUILT (a folder made by `gpu/device-validate.sh --pack
# DIR` in a build tree configured with CUDA, cuobjdump and nvdisasm: the SASS
# table is compiled into its memsim).  Then, for the kernels whose
# instruction counts depend on the compiler, runs
#
#   memsim trace K --gpu --check-trace --format json                  (compiler-exact)
#   memsim trace K --gpu --source-counts --format json                (source-level)
#
# and prints, per exact metric, both simulated counts beside the measured
# one, with a verdict per kernel; raw JSON and the log go to $OUT.
# KERNELS overrides the list; FULL=1 also runs `make validate` (all kernels,
# regenerating docs/validation.md, copied to $OUT) when built natively.
set -u
src=$(pwd)
pre=${1:-}
OUT=${OUT:-/tmp/memsim-device-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/device-exact.log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
KERNELS=${KERNELS:-"gemm_tiled_nopad gemm_tiled test_early_exit test_atomics per_thread_sum per_thread_sum_capped transpose_shared"}
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
nvcc --version | tail -1
for t in cuobjdump nvdisasm autoreconf pkg-config python3; do
  printf '%-12s %s\n' "$t" "$(command -v $t || echo missing)"
done

memsim=
if [ -z "$pre" ] && command -v autoreconf >/dev/null && command -v pkg-config >/dev/null \
   && pkg-config --exists 'glib-2.0 >= 2.74' gio-2.0 json-glib-1.0; then
  echo "== build (autoreconf -fi; configure --with-cuda; make -j16)"
  t0=$(date +%s)
  (autoreconf -fi >/dev/null 2>&1 && rm -rf /tmp/bx && mkdir -p /tmp/bx && cd /tmp/bx \
     && "$src/configure" --with-cuda >configure.log 2>&1 \
     && grep -E 'CUDA back-end|compiler-exact' configure.log \
     && timeout ${BUILD_TIMEOUT:-200} make -j16 >make.log 2>&1; \
   echo "build exit $? after $(( $(date +%s) - t0 )) s")
  cp /tmp/bx/configure.log /tmp/bx/make.log "$OUT/" 2>/dev/null
  [ -x /tmp/bx/memsim ] && memsim=/tmp/bx/memsim
fi
if [ -z "$memsim" ] && [ -n "$pre" ]; then
  export LD_LIBRARY_PATH=$src/$pre/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export MEMSIM_PLUGIN_DIR=$src/$pre   # the plug-ins the pack carries
  memsim=$src/$pre/memsim
fi
if [ -z "$memsim" ]; then
  echo "device-exact: no memsim (native build failed and no PREBUILT given)"
  exit 1
fi
"$memsim" --version

echo "== kernels"
for k in $KERNELS; do
  timeout 120 "$memsim" trace "$k" --gpu --check-trace --format json >"$OUT/$k.sass.json" 2>"$OUT/$k.sass.err"
  echo "$k compiler-exact exit $?"
  timeout 120 "$memsim" trace "$k" --gpu --source-counts --format json >"$OUT/$k.source.json" 2>"$OUT/$k.source.err"
  echo "$k source-level exit $?"
done

python3 - "$OUT" $KERNELS <<'EOF'
import json, sys
out, kernels = sys.argv[1], sys.argv[2:]
def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except Exception as e:
        return {"error": str(e)}
for k in kernels:
    a, b = load(f"{out}/{k}.sass.json"), load(f"{out}/{k}.source.json")
    if "comparison" not in a:
        print(f"\n{k}: no GPU comparison ({a.get('error', 'see ' + k + '.sass.err')})")
        continue
    src = {x["metric"]: x["simulated"] for x in b.get("comparison", [])}
    print(f"\n{k}: counts={a.get('counts')}  trace: {a.get('gpu', {}).get('trace_check', {}).get('message', '-')}")
    print(f"  {'metric':<66} {'compiler-exact':>14} {'source-level':>13} {'measured':>12}  note")
    agree = total = 0
    for x in a["comparison"]:
        if x["kind"] not in ("exact", "approximate") or x["measured"] is None:
            continue
        if x["kind"] == "exact":
            total += 1
            agree += not x["mismatch"]
        print(f"  {x['metric']:<66} {x['simulated']!s:>14} {src.get(x['metric'], '-')!s:>13} "
              f"{x['measured']!s:>12}  {x.get('note', '')}")
    print(f"  exact metrics: {agree}/{total} agree")
EOF

if [ "${FULL:-0}" = 1 ] && [ -x /tmp/bx/memsim ]; then
  echo "== make validate"
  (cd /tmp/bx && VALIDATE_WORK=/tmp/memsim-validate timeout ${VALIDATE_TIMEOUT:-420} make validate)
  echo "validate exit $?"
  cp docs/validation.md "$OUT/" 2>/dev/null
fi
ls -la "$OUT"
