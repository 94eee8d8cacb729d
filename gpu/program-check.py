#!/usr/bin/env python3
"""program-check.py - whole CUDA programs (NVIDIA's cuda-samples, PolyBench/GPU),
memsim run against Nsight Compute on the GPU, kernel by kernel.

    python3 gpu/program-check.py --metrics
        the metrics ncu collects (gpu/device-programs.sh asks)
    python3 gpu/program-check.py --simulate SUITE --memsim ./memsim --out DIR [--only A,B]
        memsim run of every program of the list (--launches 1, JSON), in the
        program's folder: DIR/NAME.memsim.json
    python3 gpu/program-check.py --bench SUITE --memsim ./memsim --ncu-log LOG ...
        make bench-programs: each program's time here beside its time under
        Nsight Compute on the GPU (gpu/device-programs.sh's log)
    python3 gpu/program-check.py --compare DIR
        DIR/NAME.memsim.json beside DIR/NAME.ncu.txt (gpu/device-programs.sh's
        output copied into DIR): per kernel, the first launch's exact metrics
        simulated | measured; exits 1 if one differs in a kernel the list's
        `%differs` lines do not name.

SUITE is a checkout of the suite the list names; --list FILE picks the list
(gpu/program-checks.txt, NVIDIA's cuda-samples, by default;
gpu/program-checks-polybench.txt, PolyBench/GPU).  A list's `%include DIR`
and `%folder N|file` lines say what its programs include and where they run.
"""
import argparse, csv, io, json, os, re, shlex, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
EXACT = ["smsp__sass_inst_executed_op_global_%s.sum" % o for o in ("ld", "st", "atom", "red")] + \
        ["l1tex__t_requests_pipe_lsu_mem_global_op_%s.sum" % o for o in ("ld", "st", "atom", "red")] + \
        ["l1tex__t_sectors_pipe_lsu_mem_global_op_%s.sum" % o for o in ("ld", "st", "atom", "red")] + \
        ["smsp__sass_inst_executed_op_shared_%s.sum" % o for o in ("ld", "st")] + \
        ["smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_%s.sum" % o for o in ("ld", "st")]
# warp-level instructions executed, and by pipe (the time model's inputs):
# memsim estimates the first from PTX through ptxas's SASS (docs/model.md)
INSTRUCTIONS = ["smsp__inst_executed.sum"] + \
        ["smsp__inst_executed_pipe_%s.sum" % p for p in
         ("alu", "fma", "fmaheavy", "fp16", "fp64", "xu", "lsu", "cbu", "adu", "uniform")] + \
        ["sm__cycles_elapsed.max", "smsp__cycles_active.avg"]
PREDICTED = ["lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum",
             "dram__bytes_read.sum", "dram__bytes_write.sum", "gpu__time_duration.sum"]


LIST = os.path.join(HERE, "program-checks.txt")
# the list's directives: the folder its programs include (-I, from the suite's
# root) and where each runs (its first file's first N folders, or the file's own)
SUITE = {"include": "Common", "folder": "3"}
# `%differs PROGRAM | KERNEL | WHY`: a kernel (its name without namespaces and
# template arguments) whose exact counts may differ from the GPU's, and why:
# they depend on timing (a spin-wait, the order atomics won), on the device
# runtime's own code (malloc) or on memory no thread wrote
DIFFERS = {}


def checks(only=None):
    """(name, files, program arguments, build flags) of each program of
    the list (of those named in `only`, when given)"""
    out = []
    for line in open(LIST):
        if line.startswith("%"):
            key, value = line[1:].split(None, 1)
            if key == "differs":
                prog, kernel, why = [x.strip() for x in (value.split("|") + ["", ""])[:3]]
                DIFFERS.setdefault(prog, []).append((kernel, why))
            else:
                SUITE[key] = value.strip()
            continue
        if line.startswith("#") or not line.strip():
            continue
        fields = [x.strip() for x in line.split("|")] + [""]
        name, files, args, flags = fields[:4]
        if only and name not in only:
            continue
        out.append((name, files.split(), shlex.split(args), shlex.split(flags)))
    return out


def norm(kernel):
    """'void reduce6<int, 256, true>(const int *, ...)' -> 'reduce6<int,256,true>'"""
    k = re.sub(r"^void\s+", "", kernel.strip())
    depth, end = 0, len(k)
    for i, c in enumerate(k):
        depth += c == "<"
        depth -= c == ">"
        if c == "(" and depth == 0:
            end = i
            break
    k = re.sub(r"\s+", "", k[:end])
    # ncu names a kernel without its namespaces (CUB's 'cub::CUB_300001_SM_900::detail::
    # radix_sort::DeviceRadixSortHistogramKernel<...>') and an enum's value without its
    # cast ('(cub::...::SortOrder)0' -> '0')
    k = re.sub(r"(?<![>\w])(?:[A-Za-z_]\w*::)+", "", k)
    k = re.sub(r"\([A-Za-z_]\w*\)(?=-?\d)", "", k)
    k = re.sub(r"(?<![\w.])(\d+)(?:ul|ull|u|l|ll)\b", r"\1", k)   # 256ul (memsim) = 256 (ncu)
    return re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", k))   # ncu prints bools as numbers


def folder(first):
    """where a program runs: its first file's folder (%folder file) or
    first N folders (%folder N), as path parts"""
    parts = first.split("/")
    return parts[:-1] if SUITE["folder"] == "file" else parts[:int(SUITE["folder"])]


# a line of a program's output that reports its own check failed
SELF_CHECK_FAILED = re.compile(r"\bFAIL(ED|URE|S)?\b|\bmismatch", re.IGNORECASE)


def simulate(samples, memsim, out, only=None, timeout=None, arch=None):
    """memsim run of each program; its wall time in seconds by name (None: it
    did not finish)"""
    memsim, out = os.path.abspath(memsim), os.path.abspath(out)
    seconds = {}
    for name, files, args, flags in checks(only):
        # in the sample's folder, where it finds its data files (as on the GPU)
        here = os.path.join(samples, *folder(files[0]))
        argv = [memsim, "run"] + [os.path.join(samples, f) for f in files] + \
               ["-I", os.path.join(samples, SUITE["include"])] + flags + \
               (["--arch", arch] if arch else []) + ["--launches", "1", "--format", "json",
                "-o", os.path.join(out, name + ".memsim.json"), "--"] + args
        t0 = time.time()
        try:
            r = subprocess.run(argv, capture_output=True, text=True, errors="replace", cwd=here,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            print("%s: memsim run took more than %d s" % (name, timeout), flush=True)
            seconds[name] = None
            continue
        seconds[name] = time.time() - t0 if r.returncode == 0 else None
        last = r.stderr.strip().splitlines()[-1:] or [""]
        # the program's own check of the GPU's results against its CPU's
        # (some print FAILED and still exit 0)
        with open(os.path.join(out, name + ".stdout.txt"), "w") as f:
            f.write(r.stdout)
        failed = [l.strip() for l in r.stdout.splitlines() if SELF_CHECK_FAILED.search(l)]
        print("%s: memsim run exit %d, %.1f s %s%s" % (name, r.returncode, time.time() - t0,
                                                     "" if r.returncode == 0 else last[0],
                                                     "; its own check says: " + failed[0]
                                                     if failed else ""),
              flush=True)
    return seconds


def bench(samples, memsim, logs, timeout):
    """make bench-programs: each program's memsim run here beside its run
    under Nsight Compute on the GPU (gpu/device-programs.sh's log: ncu's
    run and one plain run of the program)"""
    ncu = {}
    for log in logs:
        for line in open(log):
            m = re.match(r"(\S+): ncu exit \d+, program exit \d+, (\d+) s", line)
            if m:
                ncu[m.group(1)] = int(m.group(2))
    with tempfile.TemporaryDirectory() as out:
        seconds = simulate(samples, memsim, out, None, timeout)
    print("\n%-28s %14s %14s" % ("program", "memsim run (s)", "ncu on GPU (s)"))
    faster = runs = 0
    for name, s in seconds.items():
        g = ncu.get(name)
        print("%-28s %14s %14s" % (name, "-" if s is None else "%.1f" % s,
                                   "-" if g is None else g))
        if s is not None and g is not None:
            runs += 1
            faster += s <= g
    print("%d of the %d programs that run and were measured take no longer here than "
          "under Nsight Compute on the GPU" % (faster, runs))
    both = [n for n, s in seconds.items() if s is not None and n in ncu]
    print("together: %.0f s here, %d s under Nsight Compute (the programs both ran)"
          % (sum(seconds[n] for n in both), sum(ncu[n] for n in both)))
    return 0


def ncu_rows(path):
    got = {}
    text = open(path, errors="replace").read().splitlines()
    rows = [l for l in text if l.startswith('"')]
    for row in csv.DictReader(io.StringIO("\n".join(rows))):
        try:
            k = norm(row["Kernel Name"])
            v = float(row["Metric Value"].replace(",", ""))
        except (KeyError, ValueError):
            continue
        if v != v:   # "nan": the launch failed under ncu (no counts)
            continue
        unit = row.get("Metric Unit", "")
        if row["Metric Name"] == "gpu__time_duration.sum":   # -> ns, as memsim's JSON
            v = v * {"nsecond": 1, "usecond": 1e3, "msecond": 1e6, "second": 1e9}.get(unit, 1)
        elif unit in ("Kbyte", "Mbyte", "Gbyte", "byte"):
            v = v * {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}[unit]
        got.setdefault(k, {})[row["Metric Name"]] = v
    return got


def listed_difference(program, kernel):
    """why the list says the counts of program's kernel (norm's name) may
    differ from the GPU's, or None"""
    for name, why in DIFFERS.get(program, []):
        if kernel.split("<")[0] == name:
            return why
    return None


def compare(d):
    differ = agree = kernels = compared = 0
    listed = {}    # why -> exact metrics that differ in kernels the list names
    inst_err, time_err = [], []
    for name, files, args, flags in checks():
        jp, np_ = os.path.join(d, name + ".memsim.json"), os.path.join(d, name + ".ncu.txt")
        if not os.path.exists(np_):   # the stored measurements: the CSV rows alone
            np_ = os.path.join(d, name + ".ncu.csv")
        if not os.path.exists(np_):
            print("== %s: no ncu output" % name)
            continue
        measured = ncu_rows(np_)
        if not os.path.exists(jp):
            print("== %s: memsim run did not finish (see the simulate step); measured kernels: %s"
                  % (name, ", ".join(sorted(measured))))
            continue
        sim = json.load(open(jp))
        for launch in sim["launches"]:
            k = norm(launch["kernel"])
            m = measured.get(k)
            print("== %s: %s  grid %s block %s" % (name, launch["kernel"], launch["grid"],
                                                  launch["block"]))
            if m is None:
                print("   not measured (ncu kernels: %s)" % ", ".join(sorted(measured)))
                continue
            kernels += 1
            bad = 0
            why = listed_difference(name, k)
            for metric in EXACT:
                s = launch["metrics"].get(metric)
                v = m.get(metric)
                if s is None or v is None or (s == 0 and v == 0):
                    continue
                ok = abs(s - v) < 0.5
                bad += not ok
                compared += 1
                print("   %-66s %12d %12d %s" % (metric, s, v, "" if ok else
                                                   "DIFFERS" if why is None else "differs: " + why))
            # warp instructions: estimated from the PTX run through the SASS
            # (docs/model.md), so an error, not a difference
            si, vi = launch["metrics"].get("smsp__inst_executed.sum"), m.get("smsp__inst_executed.sum")
            if si is not None and vi:
                inst_err.append(si / vi - 1)
                print("   %-66s %12d %12d (%+.1f%%)" % ("smsp__inst_executed.sum", si, vi,
                                                     100.0 * (si / vi - 1)))
            # both Nsight's meaning: the kernel alone, no launch latency (memsim's
            # memsim__event_time adds it; ncu does not measure that)
            t = launch.get("time", {}).get("gpu__time_duration.sum")
            if t is not None and "gpu__time_duration.sum" in m:
                time_err.append(t / m["gpu__time_duration.sum"] - 1)
                print("   %-66s %12.4f %12.4f ms (predicted, %+.0f%%)"
                      % ("gpu__time_duration.sum", t / 1e6, m["gpu__time_duration.sum"] / 1e6,
                         100.0 * (t / m["gpu__time_duration.sum"] - 1)))
            differ += bad
            agree += bad == 0
            if why is not None and bad:
                listed[why] = listed.get(why, 0) + bad
    unlisted = differ - sum(listed.values())
    print("%d of %d kernels agree on every exact metric; %d of %d exact metrics equal, %d differ"
          % (agree, kernels, compared - differ, compared, differ))
    print("of those that differ: %d in kernels the list says may differ (%%differs), %d elsewhere"
          % (differ - unlisted, unlisted))
    for why, n in sorted(listed.items(), key=lambda x: -x[1]):
        print("   %4d  %s" % (n, why))
    if time_err:
        e = sorted(abs(x) for x in time_err)
        print("gpu__time_duration.sum (predicted): %d kernels, median error %.1f%%, 90th "
              "percentile %.1f%%, %d within 15%%"
              % (len(e), 100 * e[len(e) // 2], 100 * e[min(len(e) - 1, int(0.9 * len(e)))],
                 sum(x <= 0.15 for x in e)))
    if inst_err:
        e = sorted(abs(x) for x in inst_err)
        print("smsp__inst_executed.sum: %d kernels, %d within 10%%, %d exact; median error "
              "%.1f%%, 90th percentile %.1f%%, worst %.1f%%"
              % (len(e), sum(x <= 0.10 for x in e), sum(x == 0 for x in e),
                 100 * e[len(e) // 2], 100 * e[min(len(e) - 1, int(0.9 * len(e)))], 100 * e[-1]))
    return 1 if unlisted else 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metrics", action="store_true")
    ap.add_argument("--list", metavar="FILE",
                    help="the programs (default gpu/program-checks.txt; gpu/program-checks-polybench.txt)")
    ap.add_argument("--simulate", metavar="SAMPLES")
    ap.add_argument("--memsim", default="./memsim")
    ap.add_argument("--out", default="/tmp/memsim-programs")
    ap.add_argument("--compare", metavar="DIR")
    ap.add_argument("--only", metavar="NAMES", help="comma-separated: these programs alone")
    ap.add_argument("--timeout", type=int, metavar="S", help="stop a program's run after S s")
    ap.add_argument("--arch", help="--simulate with this preset (h200 for the H200's measurements)")
    ap.add_argument("--bench", metavar="SAMPLES",
                    help="time every program here beside the GPU's logs (--ncu-log)")
    ap.add_argument("--ncu-log", action="append", default=[], metavar="FILE")
    a = ap.parse_args()
    global LIST
    LIST = a.list or LIST
    if a.metrics:
        print(",".join(EXACT + INSTRUCTIONS + PREDICTED))
        return 0
    if a.simulate:
        os.makedirs(a.out, exist_ok=True)
        simulate(a.simulate, a.memsim, a.out, a.only.split(",") if a.only else None, a.timeout,
                 a.arch)
        return 0
    if a.compare:
        return compare(a.compare)
    if a.bench:
        return bench(a.bench, a.memsim, a.ncu_log, a.timeout)
    ap.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
