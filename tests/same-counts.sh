#!/bin/sh
# same-counts.sh - speed work must not change a single count: saves, then
# compares byte for byte, the JSON report and the saved access stream of
# every built-in kernel at its default size and at odd sizes, on several
# presets (and that the report is the same without the saved stream).
#   tests/same-counts.sh save DIR     # before a change
#   tests/same-counts.sh check DIR    # after it: lists every difference
# MEMSIM (default ./memsim) is the binary, srcdir (default .) the source
# tree.  `make same-counts-save` and `make same-counts` run it.
set -u
mode=${1:?save or check}
dir=${2:?directory}
memsim=${MEMSIM:-./memsim}
mkdir -p "$dir"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# name, then memsim trace arguments
cases () {
  for k in $("$memsim" list | awk '/^[a-z]/ { print $1 }'); do
    echo "$k-default $k"
    echo "$k-a100 $k -a a100"
    for s in 1000x700 33x17 77 100003 45x33x9; do
      echo "$k-$s $k --size $s"
    done
  done
  for a in cc13 kepler64 fermi v100; do
    for k in transpose_naive transpose_shared gmem_stride smem_gather reduce_shfl gemm_tiled; do
      echo "$k-$a $k -a $a"
    done
  done
  for p in $(seq 0 20); do
    for w in 4 8 16; do
      echo "smem_gather-p$p-w$w smem_gather -p pattern=$p -p width=$w -p op=$((p % 3))"
    done
  done
  for s in 1 2 3 7 32 33; do
    echo "gmem_stride-s$s gmem_stride -p stride=$s -j 1"
  done
  # users' files (compiler-instrumented: sim/emulator/native.c)
  sed -n 's/^    memsim trace \(examples\/[a-z]*\.cu:\([a-z_]*\) .*\)/user-\2 \1/p' "${srcdir:-.}/examples/README.md"
  echo "transpose_naive-j1 transpose_naive --size 2048x512 -j 1"
  echo "transpose_padded-sample transpose_padded --size 2048 --sample 10"
}

status=0
cases | while read -r name args; do
  out="$tmp/$name.json"
  alone="$tmp/$name.alone.json"
  # the report alone, then again with the saved stream (the trace writer
  # takes every record in order; the models' run alone lets the emulator
  # leave out the records no ordered model uses: stream.h,
  # ms_sinks_ordered_skips): the two reports must agree
  # shellcheck disable=SC2086
  "$memsim" trace $args --format json -o "$alone" 2>/dev/null || rm -f "$alone"
  # shellcheck disable=SC2086
  if ! "$memsim" trace $args --format json -o "$out" --save-trace "$tmp/$name.trace" \
       2>"$tmp/$name.err"; then
    # a size the kernel does not take: the error message is the result
    # (or, for a run that saves no stream, such as a sampled one, its report)
    if [ -f "$alone" ]; then cp "$alone" "$out"; else cp "$tmp/$name.err" "$out"; fi
  elif [ -f "$alone" ] && ! cmp -s "$out" "$alone"; then
    echo "DIFFERS without --save-trace: $name ($args)"
    diff "$out" "$alone" | head -10
    echo x >>"$tmp/failed"
  fi
  if [ -f "$tmp/$name.trace" ]; then
    sha256sum <"$tmp/$name.trace" | cut -d' ' -f1 >>"$out"
    rm -f "$tmp/$name.trace"
  fi
  if [ "$mode" = save ]; then
    cp "$out" "$dir/$name.json"
  elif ! cmp -s "$out" "$dir/$name.json"; then
    echo "DIFFERS: $name ($args)"
    diff "$dir/$name.json" "$out" | head -10
    echo x >>"$tmp/failed"
  fi
done
if [ "$mode" = check ]; then
  n=$(ls "$dir" | wc -l)
  if [ -f "$tmp/failed" ]; then
    echo "same-counts: $(wc -l <"$tmp/failed") of $n cases differ"
    exit 1
  fi
  echo "same-counts: all $n cases identical"
fi
