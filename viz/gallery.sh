#!/bin/sh
# gallery.sh DIR KERNEL_SOURCES - redraws the diagram gallery (`make gallery`).
#
# Draws every figure below with $MEMSIM into DIR/NAME.svg and writes
# DIR/README.md: what each figure shows and the exact command that made it.
# Source lines are looked up in the kernel sources by their text, so the
# gallery follows edits of the kernels.  Each file is written whole or not
# at all (memsim writes atomically; the README last, through a temporary).
set -eu

dir=$1
src=$2
memsim=${MEMSIM:-memsim}
mkdir -p "$dir"

# line_of FILE TEXT: the first line of traces/kernels/FILE containing TEXT
line_of () {
  n=$(grep -nF -- "$2" "$src/$1" | head -n 1 | cut -d: -f1)
  if [ -z "$n" ]; then
    echo "gallery.sh: '$2' not found in $1" >&2
    exit 1
  fi
  echo "$n"
}

readme=$dir/README.md.tmp
trap 'rm -f "$readme"' EXIT
cat > "$readme" <<'EOF'
# Diagram gallery

The classic figures of the seed lectures, redrawn by `memsim diagram` from the
built-in kernels: every number in them comes from the emulator and the models
(H100, sm_90, unless the command says `--arch`), so they are right by
construction.  `make gallery` redraws all of them (SVG; the same commands with
`-o NAME.png` or `-o NAME.pdf` give PNG or PDF for slides).  `docs/diagrams.md`
explains the kinds, the options and the colours.

EOF

# fig NAME "TITLE" "WHAT IT SHOWS" memsim-diagram-arguments...
fig () {
  name=$1
  title=$2
  text=$3
  shift 3
  echo "  DIAGRAM  $dir/$name.svg"
  "$memsim" diagram "$@" -o "$dir/$name.svg"
  {
    printf '### %s\n\n%s\n\n' "$title" "$text"
    printf '![%s](%s.svg)\n\n' "$title" "$name"
    printf '```\nmemsim diagram %s -o %s.svg\n```\n\n' "$*" "$name"
  } >> "$readme"
}

echo "## Shared memory: bank conflicts" >> "$readme"
echo >> "$readme"

fig banks-transpose-shared "transpose_shared: the column read, 32-way" \
"The tile of \`transpose_shared\` is \`float tile[32][32]\` and the second half of the
kernel reads it by column, \`tile[threadIdx.x][threadIdx.y]\`: lane *l* of warp 0
reads word 32*l*, and every one of those words is in bank 0.  One bank serves 32
distinct words: 32 wavefronts where 1 would do (seed 002's \"32x32-way bank
conflicts\").  This is the default of \`memsim diagram\`: the line with the most
excessive wavefronts." \
  transpose_shared

fig banks-transpose-padded "transpose_padded: one pad column, conflict-free" \
"The same read of a \`tile[32][32 + 1]\`: a row is 33 words long, so lane *l* reads
word 33*l*, in bank *l*.  32 lanes, 32 banks, 1 wavefront (seed 002's fix)." \
  transpose_padded

fig banks-transpose-padded2 "transpose_padded2: two pad columns, 2-way" \
"Seed 000 pads by 2 (\`[BDIM_X + 2]\`), an idea for Kepler's 64-bit bank mode.  With
4-byte banks a row is 34 words, lane *l* reads word 34*l*, bank 2*l* mod 32: the
even banks serve two words each, a 2-way conflict, 2 wavefronts.  Worse than
+1 on Hopper." \
  transpose_padded2

fig banks-transpose-padded2-kepler64 "The same +2 padding in Kepler's 64-bit bank mode" \
"What seed 000's padding was for: with \`--arch kepler64\` (32 banks of 8 bytes) a
34-float row is 17 eight-byte words, an odd stride: lane *l* reads word 17*l*, bank
17*l* mod 32, all different: conflict-free.  Compare with the 2-way conflict of
the same kernel on Hopper above." \
  transpose_padded2 --arch kepler64

fig banks-transpose-swizzled "transpose_swizzled: XOR swizzle, conflict-free without padding" \
"No pad column: element (r, c) is stored in column c XOR r.  Warp 5 reads
\`tile[lane][5 ^ lane]\`, word 32*l* + (5 XOR *l*), bank 5 XOR *l*: a permutation of
the 32 banks, 1 wavefront, and no memory wasted.  (Warp 0's banks are simply
0..31; \`--in-warp 5\` shows the permutation.)" \
  transpose_swizzled --in-warp 5

fig banks-reduce-nondivergent "reduce_nondivergent: stride 2, 2-way" \
"The reduction with \`index = 2 * s * tid\` keeps whole warps busy but strides
shared memory: at s = 1, lane *l* reads word 2*l*, and the 16 even banks each serve
two words: 2-way, 2 wavefronts.  Sequential addressing (\`reduce_sequential\`)
removes it." \
  reduce_nondivergent

fig banks-float2-stride2 "8-byte accesses are served in two phases" \
"\`smem_stride\` with \`float2\` elements (8 bytes per lane) at a stride of 2 elements:
the hardware serves a warp's 8-byte access as two phases of 16 lanes (128 bytes
each), drawn side by side.  In each phase the lanes' 32 words fall in 16 banks,
two words each: 2 wavefronts per phase, 4 for an ideal of 2." \
  smem_stride -p n=32 -p width=8 -p stride=2

fig banks-broadcast "A broadcast is not a conflict" \
"\`broadcast_read\`: every lane of the warp reads the same shared word.  One word,
one bank, one wavefront: the value is broadcast (dashed arrows), no conflict
(seed 002, \"Bank Conflict 2\")." \
  broadcast_read --line "$(line_of access.cu 'int w = LD (sh[warp])')"

echo "## Shared memory: the tile as a grid" >> "$readme"
echo >> "$readme"

fig tile-transpose-shared "The 32x32 tile: a column is one bank" \
"Every cell of \`transpose_shared\`'s tile coloured by its bank; the cells warp 0's
column read touches are framed, in full colour, with their lane numbers.  In a
32-float row the banks run 0..31, so every column is one colour: the 32 cells
of column 0 all sit in bank 0." \
  transpose_shared --kind tile

fig tile-transpose-padded "The 32x33 tile: a column crosses every bank" \
"The same read of \`transpose_padded\`'s \`tile[32][32 + 1]\`: the grey pad column
shifts each row by one bank, the colours run diagonally, and column 0 now
crosses all 32 banks." \
  transpose_padded --kind tile

fig tile-transpose-padded2 "The 32x34 tile: two rows share each bank" \
"\`transpose_padded2\`: each row is shifted by two banks, so column 0 touches only
the even banks, each twice." \
  transpose_padded2 --kind tile

fig tile-transpose-swizzled "The swizzled tile: no padding, no conflict" \
"\`transpose_swizzled\`, warp 5: the 32 cells it reads (row *l*, column 5 XOR *l*) are
scattered so that each lies in a different bank." \
  transpose_swizzled --kind tile --in-warp 5

echo "## Global memory: sectors and lines" >> "$readme"
echo >> "$readme"

fig sectors-seed001 "Seed 001: threads 0-15 access addresses 116-176" \
"Seed 001's coalescing figure, for the sector rule of Maxwell..Hopper: 16 threads
read 4-byte words from byte 116 (\`gmem_stride\` with 16 threads, element offset 29).
They touch three 32-byte sectors (96-127, 128-159, 160-191) in two 128-byte lines:
96 bytes fetched for 64 used, 66.7%.  (Compute capability 1.2 issued a 32-byte
and a 64-byte transaction for this half-warp, seed 001's slides: the same 96
bytes.)" \
  gmem_stride -p n=16 -p offset=29 --kind sectors

fig sectors-transpose-naive-load "transpose_naive: the coalesced load" \
"\`transpose_naive\` reads a row: 32 consecutive floats, 128 bytes, 4 sectors of
one line: 100%, the minimum." \
  transpose_naive --kind sectors --line "$(line_of transpose.cu 'LD (idata[index_in])')"

fig sectors-transpose-naive-store "transpose_naive: the strided store" \
"...and writes a column: consecutive lanes are \`height\` floats apart, so each lane
needs its own sector (only the fetched sectors are drawn): 32 sectors, 1024
bytes moved for 128, 12.5%.  This is what the shared-memory tile of
\`transpose_shared\` fixes.  The default of \`--kind sectors\`: the line with the
most sectors per request." \
  transpose_naive --kind sectors

fig sectors-offset1 "One word past a line boundary: 5 sectors" \
"\`gmem_stride\` with an offset of one element: 32 consecutive floats starting 4
bytes into a line span 5 sectors (BRIEF section 4): 160 bytes fetched for 128." \
  gmem_stride -p n=32 -p offset=1 --kind sectors

echo "## Per-line summaries" >> "$readme"
echo >> "$readme"

fig lines-transpose-shared "transpose_shared, line by line" \
"Every memory line of \`transpose_shared\` with its cost per instruction (sectors
per request, wavefronts per instruction) as a bar, the ideal, the excess over
the whole run and the efficiency: the column read of the tile stands out." \
  transpose_shared --kind lines --line "$(line_of transpose.cu 'LD (tile[threadIdx.x][threadIdx.y])')"

fig lines-reduce-nondivergent "reduce_nondivergent, line by line" \
"The reduction's tree loop: its two loads and its store of \`sdata\` all conflict
(3.9 wavefronts per instruction on average over the strides 1, 2, 4, ...); every
other line is at its ideal (thread 0's final store needs its one sector
whatever it does)." \
  reduce_nondivergent --kind lines

mv "$readme" "$dir/README.md"
trap - EXIT
echo "  GALLERY  $dir/README.md"
