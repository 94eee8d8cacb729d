#!/bin/sh
# validate.sh - `make validate`: every built-in kernel, simulated and on the
# GPU, side by side, written to a Markdown report.
#
#   MEMSIM=./memsim OBJDIR=traces/kernels sh gpu/validate.sh docs/validation.md
#
# For each kernel of `memsim list --all --format json` it runs
#   memsim trace KERNEL --gpu --check-trace --format json
# keeps the JSON, the exit status and stderr, dumps the SASS of the kernels'
# nvcc builds (OBJDIR/*.gpu.o, with cuobjdump) as evidence for instruction
# counts, and hands everything to gpu/validate.py, which writes the report.
# Environment: MEMSIM (memsim binary), OBJDIR (its traces/kernels build dir),
# PYTHON (python3), CUOBJDUMP (cuobjdump), KERNELS (space-separated subset),
# VALIDATE_WORK (keep the raw files there instead of a temporary folder),
# VALIDATE_DEADLINE (epoch seconds: runs not started by then are left out,
# and the report is still written), NO_PROBES (skip the probes).
set -u
out=${1:?usage: validate.sh OUTPUT.md}
here=$(cd "$(dirname "$0")" && pwd)
MEMSIM=${MEMSIM:-./memsim}
OBJDIR=${OBJDIR:-traces/kernels}
PYTHON=${PYTHON:-python3}
if [ -n "${VALIDATE_WORK:-}" ]; then
  work=$VALIDATE_WORK
  mkdir -p "$work"
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/memsim-validate.XXXXXX") || exit 1
  trap 'rm -rf "$work"' EXIT
fi

# Fail early, with memsim's own one-line reason, where no GPU can be used.
if ! "$MEMSIM" trace copy --size 32x32 --gpu --format json -o "$work/probe.json" 2>"$work/probe.err"; then
  echo "validate: $(cat "$work/probe.err")" >&2
  exit 1
fi

"$MEMSIM" list --all --format json >"$work/list.json" || exit 1
if [ -z "${KERNELS:-}" ]; then
  KERNELS=$("$PYTHON" -c 'import json,sys; print(" ".join(k["name"] for k in json.load(open(sys.argv[1]))))' "$work/list.json") || exit 1
fi

{
  date -u '+%Y-%m-%d %H:%M UTC'
  "$MEMSIM" --version
  (nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader) 2>/dev/null
  (nvcc --version | tail -1) 2>/dev/null
} >"$work/env.txt"

# the records of the first differing warp of a trace comparison, as evidence
MEMSIM_TRACE_DUMP=${MEMSIM_TRACE_DUMP:-$work}
export MEMSIM_TRACE_DUMP

# a kernel that hangs the GPU must not stop the others
limit=
command -v timeout >/dev/null 2>&1 && limit="timeout ${KERNEL_TIMEOUT:-120}"
deadline=${VALIDATE_DEADLINE:-0}
late () { [ "$deadline" -gt 0 ] && [ "$(date +%s)" -ge "$deadline" ]; }
n=0
for k in $KERNELS; do
  n=$((n + 1))
  if late; then
    echo "memsim: not run: validate's time budget (VALIDATE_DEADLINE) ran out" >"$work/$k.err"
    continue
  fi
  start=$(date +%s)
  # test_warp_flag spins on a flag another warp sets: a race by design that
  # the GPU runs fine (the test_race_* kernels fail, as they must)
  allow=
  [ "$k" = test_warp_flag ] && allow=--allow-races
  # shellcheck disable=SC2086
  $limit "$MEMSIM" trace "$k" $allow --gpu --check-trace --format json -o "$work/$k.json" \
    2>"$work/$k.err"
  echo $? >"$work/$k.rc"
  echo "validate: $k: exit $(cat "$work/$k.rc"), $(( $(date +%s) - start )) s" >&2
done

# probes: the same with options (gpu/validation-probes.txt: LABEL KERNEL OPTION...)
probes=
if [ -z "${NO_PROBES:-}" ] && [ -f "$here/validation-probes.txt" ]; then
  while read -r label kernel args; do
    case "$label" in ''|'#'*) continue ;; esac
    late && continue
    # shellcheck disable=SC2086
    $limit "$MEMSIM" trace "$kernel" $args --gpu --check-trace --format json \
      -o "$work/probe-$label.json" 2>"$work/probe-$label.err" </dev/null
    rc=$?
    echo "$kernel $args" >"$work/probe-$label.args"
    echo "validate: probe $label: exit $rc" >&2
    probes="$probes $label"
  done <"$here/validation-probes.txt"
fi

CUOBJDUMP=${CUOBJDUMP:-cuobjdump}
if command -v "$CUOBJDUMP" >/dev/null 2>&1; then
  for o in "$OBJDIR"/*.gpu.o; do
    [ -e "$o" ] || continue
    "$CUOBJDUMP" -sass "$o" >"$work/sass-$(basename "$o" .gpu.o).txt" 2>&1
  done
else
  echo "validate: no cuobjdump: the report will have no SASS evidence" >&2
fi

command="\`make validate\` in a build tree configured --with-cuda (= \`MEMSIM=./memsim sh gpu/validate.sh docs/validation.md\`)"
"$PYTHON" "$here/validate.py" --work "$work" --out "$out" --command "$command" \
  --notes "$here/validation-notes.md" --probes "$probes" $KERNELS
