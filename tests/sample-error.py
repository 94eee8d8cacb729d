#!/usr/bin/env python3
"""sample-error.py - what --sample costs in accuracy: runs every kernel of the
transpose, reduce, stencil and gemm families at the seeds' sizes (as
`memsim compare --seed-sizes`) exactly and with --sample P, and prints the
relative error of each count and of the predicted time, with the speed-up.

Usage: tests/sample-error.py [--memsim ./memsim] [--percent 10] [--only K1,K2]
                             [--exact-cache FILE]
"""
import argparse, json, subprocess, sys, time

SIZES = {"transpose": "8192x8192", "reduce": "16777216", "stencil": "256x256x256",
         "gemm": "1024x1024x1024"}
METRICS = [("global sectors", ["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                               "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]),
           ("shared wavefronts", ["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                                  "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]),
           ("L2 read", ["lts__t_sectors_srcunit_tex_op_read.sum"]),
           ("L2 write", ["lts__t_sectors_srcunit_tex_op_write.sum"]),
           ("DRAM read", ["dram__bytes_read.sum"]),
           ("DRAM write", ["dram__bytes_write.sum"])]


def run(memsim, kernel, size, extra):
    t0 = time.monotonic()
    out = subprocess.run([memsim, "trace", kernel, "--size", size, "--format", "json"] + extra,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out), time.monotonic() - t0


def kernels(memsim):
    out = subprocess.run([memsim, "list"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and not line.startswith(" ") and f[1] in SIZES:
            yield f[0], f[1]


def rel(a, b):
    return 0.0 if a == b else (b - a) / a * 100.0 if a else float("inf")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", default="./memsim")
    ap.add_argument("--percent", default="10")
    ap.add_argument("--exact-cache", help="JSON file of exact runs to reuse (and extend)")
    ap.add_argument("--only", help="comma-separated kernels")
    a = ap.parse_args()
    cache = {}
    if a.exact_cache:
        try:
            cache = json.load(open(a.exact_cache))
        except (OSError, ValueError):
            cache = {}
    cols = [m for m, _ in METRICS] + ["time"]
    print("| kernel | size | blocks run | " + " | ".join(cols) + " | exact s | sampled s |")
    print("|---|---|---:|" + "---:|" * len(cols) + "---:|---:|")
    worst = {c: 0.0 for c in cols}
    for k, fam in kernels(a.memsim):
        if a.only and k not in a.only.split(","):
            continue
        key = "%s %s" % (k, SIZES[fam])
        if key in cache:
            exact, te = cache[key]
        else:
            exact, te = run(a.memsim, k, SIZES[fam], [])
            cache[key] = [exact, te]
            if a.exact_cache:
                json.dump(cache, open(a.exact_cache, "w"))
        samp, ts = run(a.memsim, k, SIZES[fam], ["--sample", a.percent])
        cells = []
        for name, keys in METRICS:
            e = sum(exact["metrics"].get(x, 0) for x in keys)
            s = sum(samp["metrics"].get(x, 0) for x in keys)
            r = rel(e, s)
            worst[name] = max(worst[name], abs(r)) if e else worst[name]
            cells.append("%+.1f%%" % r if e else "-")
        # the kernel's predicted duration (Nsight's meaning: no launch latency)
        r = rel(exact["time"]["gpu__time_duration.sum"], samp["time"]["gpu__time_duration.sum"])
        worst["time"] = max(worst["time"], abs(r))
        cells.append("%+.1f%%" % r)
        s = samp.get("sample", {})
        ran = "%d of %d" % (s["blocks_run"], s["blocks"]) if s else "all"
        print("| %s | %s | %s | %s | %.2f | %.2f |" % (k, SIZES[fam], ran, " | ".join(cells), te, ts))
        sys.stdout.flush()
    print("| **worst** | | | " + " | ".join("%.1f%%" % worst[c] for c in cols) + " | | |")


if __name__ == "__main__":
    main()
