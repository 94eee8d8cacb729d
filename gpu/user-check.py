#!/usr/bin/env python3
"""user-check.py - users' own kernels on the GPU: each launch of
gpu/user-checks.txt is simulated (`memsim trace FILE.cu:KERNEL ... --format
json`) and run for real: a harness that #includes the user's file, makes the
same buffers (cudaMalloc; zeros, a range or random data, as --arg says) and
launches the kernel once, profiled by Nsight Compute for the metrics memsim
reports.  Prints simulated against measured per metric and exits 1 when an
exact metric (instructions, requests, sectors, shared wavefronts) differs.

    python3 gpu/user-check.py --memsim ./memsim [--checks gpu/user-checks.txt] [--out DIR]

With --gpu, each launch also runs as `memsim trace FILE.cu:KERNEL ... --gpu
--format json`: memsim builds the same file with nvcc, runs it on the GPU
with the emulator's input, checks the GPU's output against the emulator's
and measures the same metrics through CUPTI.  Printed per launch: that
output check, memsim's simulated beside memsim's measured value, and the
measured value beside Nsight Compute's (the same kernel and launch, two
profilers).  A failed output check, an exact metric where simulated and
measured differ, or memsim's measurement differing from ncu's count as
failures.

Needs nvcc and ncu (run by gpu/device-user.sh on the GPU machine)."""
import argparse, csv, io, json, os, re, shlex, subprocess, sys

EXACT = re.compile(r"^(smsp__sass_inst_executed_op_(global|shared)_(ld|st|atom|red)"
                   r"|l1tex__t_(requests|sectors)_pipe_lsu_mem_global_op_(ld|st|atom|red)"
                   r"|smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_(ld|st))\.sum$")
FLOATS = {"float", "double", "float2", "float3", "float4", "double2"}


def harness(path, kernel, grid, block, dyn, args):
    """The C++ of a main() that launches kernel once with args' buffers."""
    lines = ["#define main memsim_user_main   // the file's own main, if any, never runs",
             '#include "%s"' % os.path.abspath(path), "#undef main",
             "#include <cstdint>", "#include <cstdio>", "#include <cstdlib>", "#include <cstring>",
             "#include <vector>",
             "int main() {", "  srand(2026);"]
    call = []
    for i, (name, value) in enumerate(args):
        m = re.fullmatch(r"([\w ]+)\[(\d+)\](?:=(.*))?", value)
        if not m:                                   # a scalar
            call.append("(%s)" % value)
            continue
        t, n, fill = m.group(1).strip(), int(m.group(2)), m.group(3)
        lines.append("  size_t b%d = sizeof(%s) * %d;" % (i, t, n))
        lines.append("  std::vector<unsigned char> h%d(b%d);" % (i, i))
        if fill and ".." in fill:
            lo, hi = fill.split("..")
            lines.append("  for (size_t k = 0; k < b%d / 4; k++) { int v = %s + rand() %% (%s - %s + 1);"
                         " memcpy(&h%d[4 * k], &v, 4); }" % (i, lo, hi, lo, i))
        elif fill is None and t in FLOATS:
            lines.append("  for (size_t k = 0; k < b%d / 4; k++) { float v = rand() / (float) RAND_MAX"
                         " * 2 - 1; memcpy(&h%d[4 * k], &v, 4); }" % (i, i))
        elif fill is None:
            lines.append("  for (size_t k = 0; k < b%d / 4; k++) { int v = rand() %% 2001 - 1000;"
                         " memcpy(&h%d[4 * k], &v, 4); }" % (i, i))
        lines.append("  void *d%d; cudaMalloc(&d%d, b%d);" % (i, i, i))
        lines.append("  cudaMemcpy(d%d, h%d.data(), b%d, cudaMemcpyHostToDevice);" % (i, i, i))
        call.append("(%s *) d%d" % (t, i))
    dims = lambda s: "dim3(%s)" % ", ".join(s.lower().split("x"))
    lines.append("  %s<<<%s, %s, %d>>>(%s);" % (kernel, dims(grid), dims(block), dyn, ", ".join(call)))
    lines.append('  cudaError_t e = cudaDeviceSynchronize();')
    lines.append('  if (e != cudaSuccess) { fprintf(stderr, "%s\\n", cudaGetErrorString(e)); return 1; }')
    lines.append("  return 0;\n}")
    return "\n".join(lines) + "\n"


def measure(exe, metrics):
    out = subprocess.run(["ncu", "--metrics", ",".join(metrics), "--csv", exe],
                         capture_output=True, text=True, timeout=300)
    got = {}
    rows = [l for l in out.stdout.splitlines() if l.startswith('"')]
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        try:
            got[row["Metric Name"]] = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            pass
    return got, out.stderr


def memsim_gpu(memsim, argv, ncu):
    """memsim trace ... --gpu: (lines to print, failures)."""
    run = subprocess.run([memsim, "trace"] + argv + ["--gpu", "--format", "json"],
                         capture_output=True, text=True, timeout=600)
    try:
        report = json.loads(run.stdout)
    except ValueError:
        return ["  --gpu: memsim failed (exit %d): %s" % (run.returncode, run.stderr.strip())], 1
    gpu = report.get("gpu", {})
    lines = ["  --gpu: exit %d; %s; output check: %s; %.4f ms" % (
        run.returncode, gpu.get("name", "?"), gpu.get("output_check", "?"),
        gpu.get("time_ms", 0.0))]
    failed = 0 if gpu.get("output_ok") else 1
    raw = report.get("measured_raw", {})
    for row in report.get("comparison", []):
        key = row["metric"]
        if not EXACT.match(key) or row.get("measured") is None:
            continue
        sim, meas = row.get("simulated"), row["measured"]
        same = sim == meas
        other = ncu.get(key)
        agree = other is None or other == raw.get(key, meas)
        failed += (not same) + (not agree)
        lines.append("    %-64s %12s %14s %14s  %s%s" % (
            key, sim, "%.0f" % meas, "-" if other is None else "%.0f" % other,
            "ok" if same else "DIFFERS (%s)" % row.get("note", ""),
            "" if agree else "; memsim's measurement differs from ncu's"))
    return lines, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", default="./memsim")
    ap.add_argument("--checks", default=os.path.join(os.path.dirname(__file__), "user-checks.txt"))
    ap.add_argument("--out", default="/tmp/memsim-user-check")
    ap.add_argument("--gpu", action="store_true",
                    help="also run each launch with `memsim trace ... --gpu`")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    failed = 0
    gpu_failed = gpu_launches = 0
    for n, line in enumerate(open(a.checks)):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        argv = shlex.split(line)
        spec = argv[0]
        path, kernel = spec.rsplit(":", 1)
        opts = dict(grid=None, block=None, dyn=0)
        args = []
        i = 1
        while i < len(argv):
            if argv[i] == "--grid": opts["grid"] = argv[i + 1]
            elif argv[i] == "--block": opts["block"] = argv[i + 1]
            elif argv[i] == "--dynamic-shared": opts["dyn"] = int(argv[i + 1])
            elif argv[i] == "--arg": args.append(tuple(argv[i + 1].split("=", 1)))
            i += 2
        sim = subprocess.run([a.memsim, "trace"] + argv + ["--format", "json"],
                             capture_output=True, text=True)
        if sim.returncode != 0:
            print("%s: memsim failed: %s" % (spec, sim.stderr.strip()))
            failed += 1
            continue
        metrics = json.loads(sim.stdout)["metrics"]
        src = os.path.join(a.out, "harness%d.cu" % n)
        exe = os.path.join(a.out, "harness%d" % n)
        open(src, "w").write(harness(path, kernel, opts["grid"], opts["block"], opts["dyn"], args))
        build = subprocess.run(["nvcc", "-arch=sm_90", "-O3", "-o", exe, src],
                               capture_output=True, text=True)
        if build.returncode != 0:
            print("%s: nvcc failed: %s" % (spec, build.stderr.strip()[:400]))
            failed += 1
            continue
        got, err = measure(exe, sorted(metrics))
        print("%s  (%s)" % (spec, " ".join(argv[1:])))
        for key in sorted(metrics):
            if key not in got:
                continue
            exact = bool(EXACT.match(key))
            same = got[key] == metrics[key]
            failed += exact and not same
            print("  %-66s %12d %14.0f  %s" % (key, metrics[key], got[key],
                  "ok" if same else ("DIFFERS" if exact else "(model)")))
        if a.gpu:
            print("  --gpu: metric | simulated | measured (memsim --gpu) | measured (ncu)")
            lines, bad = memsim_gpu(a.memsim, argv, got)
            print("\n".join(lines))
            gpu_launches += 1
            gpu_failed += bad > 0
    print("%d exact metric(s) differ" % failed)
    if a.gpu:
        print("--gpu: %d of %d launch(es) agree (output check passed, every exact metric "
              "simulated = measured = ncu)" % (gpu_launches - gpu_failed, gpu_launches))
    return 1 if failed or gpu_failed else 0


if __name__ == "__main__":
    sys.exit(main())
