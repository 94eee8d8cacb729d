#!/bin/bash
# device-programs.sh - the GPU's half of the whole-program check: builds each
# program of gpu/program-checks.txt with nvcc and runs it under Nsight
# Compute, profiling the first launch of every kernel for the metrics memsim
# reports.  memsim's half runs anywhere (gpu/program-check.py --simulate);
# gpu/program-check.py --compare puts the two side by side.
#
#   bash gpu/device-programs.sh SAMPLES [NAME,...]  -> $OUT/NAME.ncu.txt, $OUT/NAME.out
#   LIST=gpu/program-checks-polybench.txt bash gpu/device-programs.sh POLYBENCH
#
# SAMPLES: a copy of NVIDIA's cuda-samples (Common/ and the samples' folders),
# or of the suite LIST names.  Each program builds and runs in its folder
# (where it finds its data files; the list's `%folder`), with the list's
# build flags (memsim's own, --allow-races, left out) and its `%include`.
# NAMEs: these programs alone.
set -u
samples=$(cd "${1:?the cuda-samples folder}" && pwd)
OUT=${OUT:-/tmp/memsim-programs-out}
here=$(cd "$(dirname "$0")" && pwd)
LIST=$(cd "$(dirname "${LIST:-$here/program-checks.txt}")" && pwd)/$(basename "${LIST:-program-checks.txt}")
only=",${2:-},"
include=$(sed -n 's/^%include //p' "$LIST"); include=${include:-Common}
folder=$(sed -n 's/^%folder //p' "$LIST"); folder=${folder:-3}
# a program's folder, from its first file
folder_of() {
  if [ "$folder" = file ]; then dirname "$1"; else echo "$1" | cut -d/ -f1-"$folder"; fi
}
# the list's lines (NAME | FILES | ARGS | FLAGS), those of `only` when given
list() {
  grep -v '^[#%]' "$LIST" | while IFS='|' read -r name files args flags; do
    n=$(echo $name)
    [ -n "$n" ] || continue
    [ "$only" = ",," ] || case "$only" in *",$n,"*) ;; *) continue;; esac
    echo "$name|$files|$args|$flags"
  done
}
mkdir -p "$OUT"
export PATH=$PATH:/usr/local/cuda/bin
# the metrics this ncu knows (a name it does not know would fail every run)
known=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
metrics=$(python3 "$here/program-check.py" --metrics | tr , '\n' | while read -r m; do
  [ -z "$known" ] || echo "$known" | grep -qx "${m%.*}" && echo "$m"; done | paste -sd, -)
echo "metrics: $metrics" >"$OUT/metrics.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/machine.txt"
nvcc --version | tail -1 | tee -a "$OUT/machine.txt"
ncu --version | tail -1 | tee -a "$OUT/machine.txt"
# the builds first, all at once (one per set of files; the machine's cores)
list | { while IFS='|' read -r name files args flags; do
  name=$(echo $name); files=$(echo $files); flags=$(echo $flags | sed "s/--allow-[a-z-]*//g")
  srcs=""
  for f in $files; do srcs="$srcs $samples/$f"; done
  dir=$samples/$(folder_of $(echo $files | cut -d' ' -f1))
  exe=/tmp/memsim-program-$(echo "$files $flags" | md5sum | cut -c1-12)
  # (programs that share their files build once: the first to claim it)
  [ -x "$exe" ] || ! mkdir "$exe.claim" 2>/dev/null \
    || (cd "$dir" && nvcc -O3 -arch=sm_90 -I"$samples/$include" $flags -o "$exe" $srcs \
          >"$OUT/$name.build" 2>&1) &
done; wait; }
list | while IFS='|' read -r name files args flags; do
  name=$(echo $name); files=$(echo $files); args=$(echo $args); flags=$(echo $flags | sed "s/--allow-[a-z-]*//g")
  dir=$samples/$(folder_of $(echo $files | cut -d' ' -f1))
  exe=/tmp/memsim-program-$(echo "$files $flags" | md5sum | cut -c1-12)   # one build per set of files
  t0=$(date +%s)
  if [ ! -x "$exe" ]; then
    echo "$name: nvcc failed"; tail -3 "$OUT/$name.build" 2>/dev/null; continue
  fi
  # the first invocation of each kernel (the rest run unprofiled)
  ( cd "$dir" && timeout ${NCU_TIMEOUT:-300} ncu --kernel-id :::1 --kernel-name-base demangled --metrics "$metrics" --csv \
      "$exe" $args >"$OUT/$name.ncu.txt" 2>"$OUT/$name.err" )
  rc=$?
  ( cd "$dir" && timeout ${RUN_TIMEOUT:-300} "$exe" $args >"$OUT/$name.out" 2>&1 )
  echo "$name: ncu exit $rc, program exit $?, $(( $(date +%s) - t0 )) s"
done
