#!/bin/bash
# device-validate.sh - everything the GPU back-end needs a GPU for, in one go
# (GPU time is scarce: batch it).  Run from the source tree's root on a
# machine with an NVIDIA GPU:
#
#   bash gpu/device-validate.sh [PREBUILT]
#
# Builds memsim (autoreconf -fi; configure; make -j16) out of tree in /tmp
# when autotools, pkg-config, GLib and json-glib are there; otherwise uses
# PREBUILT (a folder with memsim, tests/test-gpu, lib/ with the shared
# libraries they need and objs/ with the kernels' *.gpu.o, made by
# `gpu/device-validate.sh --pack DIR` in a build tree on another machine).
# Then runs the GPU tests and `make validate` (gpu/validate.sh), and copies
# docs/validation.md, the logs and the raw results to $OUT.
set -u
if [ "${1:-}" = "--pack" ]; then
  # --pack DIR: run in a configured build tree; puts what PREBUILT needs in DIR
  dir=${2:?--pack DIR}
  rm -rf "$dir" && mkdir -p "$dir/lib" "$dir/objs" "$dir/tests" || exit 1
  cp memsim "$dir/" && cp tests/test-gpu "$dir/tests/" || exit 1
  cp memsim-*.so "$dir/" || exit 1   # the plug-ins (GPU back-end, Graphviz): MEMSIM_PLUGIN_DIR
  cp traces/kernels/*.gpu.o "$dir/objs/"
  ldd memsim "$dir/tests/test-gpu" memsim-*.so | awk '$3 ~ /^\// {print $3}' | sort -u \
    | grep -v -E '/(libc|libm|libdl|libpthread|librt|libutil|ld-linux[^/]*|libstdc\+\+|libgcc_s)\.so|/cuda|cupti' \
    | while read -r l; do cp -L "$l" "$dir/lib/"; done
  du -sh "$dir"
  exit 0
fi

src=$(pwd)
pre=${1:-}
OUT=${OUT:-/tmp/memsim-device-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/device.log") 2>&1
export PATH=$PATH:/usr/local/cuda/bin
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,memory.total --format=csv
nvcc --version | tail -1
for t in autoreconf automake pkg-config gcc cuobjdump python3; do
  printf '%-12s %s\n' "$t" "$(command -v $t || echo missing)"
done
native=no
if [ -z "${MS_FORCE_PREBUILT:-}" ] && command -v autoreconf >/dev/null && command -v pkg-config >/dev/null \
   && pkg-config --exists 'glib-2.0 >= 2.74' gio-2.0 json-glib-1.0; then
  native=yes
fi
echo "native build: $native"

work=/tmp/memsim-validate
rm -rf "$work"
if [ $native = yes ]; then
  echo "== build (autoreconf -fi; configure; make -j16)"
  t0=$(date +%s)
  (autoreconf -fi >/dev/null 2>&1 && mkdir -p /tmp/b && cd /tmp/b \
     && "$src/configure" --with-cuda >configure.log 2>&1 && tail -7 configure.log \
     && timeout ${BUILD_TIMEOUT:-150} make -j16 >make.log 2>&1 \
     && timeout 90 make -j16 check >check.log 2>&1; \
   echo "build+check exit $? after $(( $(date +%s) - t0 )) s")
  cp /tmp/b/make.log /tmp/b/check.log "$OUT/" 2>/dev/null
  cat /tmp/b/tests/test-gpu.log 2>/dev/null
  grep -E '^(FAIL|SKIP|ERROR|# )' /tmp/b/check.log | tail -20
  if [ -x /tmp/b/memsim ]; then
    echo "== make validate"
    export VALIDATE_DEADLINE=$(( $(date +%s) + ${BUDGET:-450} - SECONDS - 45 ))
    (cd /tmp/b && VALIDATE_WORK=$work timeout $(( ${BUDGET:-450} - SECONDS - 20 )) make validate)
    echo "validate exit $?"
    timeout 20 /tmp/b/memsim compare transpose --gpu >"$OUT/compare-transpose.txt" 2>&1
    echo "compare exit $?"
  else
    echo "native build failed: using the prebuilt tree"
    native=failed
  fi
fi
if [ $native != yes ]; then
  echo "== prebuilt: $pre"
  export LD_LIBRARY_PATH=$src/$pre/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export MEMSIM_PLUGIN_DIR=$src/$pre   # the plug-ins the pack carries
  "$src/$pre/memsim" --version
  echo "== tests/test-gpu"
  timeout 60 "$src/$pre/tests/test-gpu" 2>&1 | tee "$OUT/test-gpu.log"
  echo "== validate"
  export VALIDATE_DEADLINE=$(( $(date +%s) + ${BUDGET:-450} - SECONDS - 45 ))
  MEMSIM=$src/$pre/memsim OBJDIR=$src/$pre/objs VALIDATE_WORK=$work \
    timeout $(( ${BUDGET:-450} - SECONDS - 20 )) sh gpu/validate.sh docs/validation.md
  echo "validate exit $?"
  timeout 20 "$src/$pre/memsim" compare transpose --gpu >"$OUT/compare-transpose.txt" 2>&1
  echo "compare exit $?"
fi
cp docs/validation.md "$OUT/" 2>/dev/null
tar czf "$OUT/validate-work.tar.gz" -C /tmp memsim-validate 2>/dev/null
ls -la "$OUT"
