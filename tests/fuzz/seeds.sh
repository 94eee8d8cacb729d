#!/bin/sh
# seeds.sh DATA OUT - seed corpora for `make fuzz`: small traces of a few
# built-in kernels in each format (memsim, its uncompressed payload, NVBit,
# Accel-Sim) and the importers' sample files (tests/data).  $MEMSIM is the
# memsim to use.
set -e
data=$1 out=$2
for t in memsim memsim-payload nvbit accelsim; do mkdir -p "$out/seeds-$t"; done
for k in transpose_naive transpose_shared reduce_shfl smem_gather gemm_tiled test_atomics; do
  size=; case $k in transpose_*) size="--size 64x64";; gemm_tiled) size="-p n=64";; esac
  t="$out/seeds-memsim/$k.trace"
  "$MEMSIM" trace "$k" $size --save-trace "$t" -o "$out/$k.txt"
  tail -c +17 "$t" | zstd -dq > "$out/seeds-memsim-payload/$k.raw"
  "$MEMSIM" convert "$t" --to nvbit -o "$out/seeds-nvbit/$k.txt"
  "$MEMSIM" convert "$t" --to accelsim -o "$out/accelsim-$k"
  cp "$out/accelsim-$k/kernel-1.traceg" "$out/seeds-accelsim/$k.traceg"
done
cp "$data"/nvbit-*.txt "$data"/bad/nvbit-*.txt "$out/seeds-nvbit/"
cp "$data"/accelsim/*.traceg "$data"/accelsim/*.g "$data"/bad/accelsim-* "$out/seeds-accelsim/"
