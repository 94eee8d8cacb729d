#!/usr/bin/env python3
"""costs-report.py - the cost models (L2/DRAM traffic, kernel time) against
measurements: re-simulates every run of a measurement file with this
memsim and writes a Markdown report.

    python3 gpu/costs-report.py [--memsim ./memsim] [--jobs N] [--occupancy FILE]
        --gpu COSTS.json[,DEFAULT-SIZES.json] [--gpu ...] -o docs/validation-costs.md

A measurement file holds the measured side of `memsim trace ... --gpu
--format json` runs on one GPU (gpu/device-costs.sh on a machine with a GPU,
then `--collect FILE DIR...` here turns its JSON files into one file).  Each
--gpu gets a section: its runs re-simulated with the preset of that GPU
(the file's "arch"), the time compared as the file measured it: Nsight
Compute's gpu__time_duration.sum where the file says so ("duration":
"nsight"), else CUDA events (memsim__event_time).  Nothing here needs a
GPU: the simulated side is recomputed, so the report follows the models as
they change.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

KEEP = ["dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_sectors_srcunit_tex_op_read.sum",
        "lts__t_sectors_srcunit_tex_op_write.sum", "gpu__time_duration.sum", "smsp__inst_executed.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"]
FAMILY_OF = {"transpose": ["transpose_", "copy"], "reduce": ["reduce_"],
             "stencil": ["stencil_"], "gemm": ["gemm_"]}


def collect(dirs, out):
    """--collect: device-costs.sh output folders -> one measurement file."""
    runs, device, dates = [], "", []
    for d in dirs:
        if os.path.exists(os.path.join(d, "env.txt")):
            env = open(os.path.join(d, "env.txt")).read().strip().splitlines()
            device = env[1] if len(env) > 1 else device   # nvidia-smi's row
            dates += env[3:4]
        for f in sorted(os.listdir(d)):
            if not f.endswith(".json"):
                continue
            j = json.load(open(os.path.join(d, f)))
            c = {x["metric"]: x["measured"] for x in j["comparison"]}
            g = j["gpu"]
            # device-costs.sh names a sampled run NAME-sampleP (P percent of the blocks)
            sample = f[:-5].rsplit("-sample", 1)[1] if "sample" in j else None
            runs.append(dict(name=f[:-5], kernel=j["kernel"], params=j["params"], grid=j["grid"],
                             sample=sample,
                             block=j["block"], measured={k: c.get(k) for k in KEEP},
                             time_ms=g["time_ms"], time_warm_ms=g["time_warm_ms"],
                             repeats=g["repeats"], output_check=g["output_check"]))
    arch = "h200" if "H200" in device else "h100"
    json.dump(dict(device=device, dates=dates, arch=arch, duration="nsight",
                   flush="after-start", runs=runs), open(out, "w"), indent=1)


def simulate(memsim, arch, run):
    args = [memsim, "trace", run["kernel"], "--arch", arch, "--format", "json"]
    for k, v in run["params"].items():
        args += ["-p", f"{k}={v}"]
    if run.get("sample"):
        args += ["--sample", str(run["sample"])]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr.strip().splitlines() or ["?"])[-1]
    sim = json.loads(r.stdout)
    if sim["grid"] != run["grid"] and "blocks" not in run["params"]:
        # a default that changed since the measurement (reduce_multiple's
        # blocks): simulate the launch that was measured
        return simulate(memsim, arch, dict(run, params=dict(run["params"],
                                                            blocks=run["grid"][0])))
    if sim["grid"] != run["grid"]:
        return None, f"memsim launches a grid of {sim['grid']}, the measurement had {run['grid']}"
    return sim, None


def pct(p, m):
    return 100.0 * (p - m) / m if m else 0.0


def fmt(v):
    return f"{v:,.0f}".replace(",", " ")


def family(name):
    for fam, prefixes in FAMILY_OF.items():
        if any(name.startswith(p) for p in prefixes):
            return fam
    return None


def measured_time(m, run):
    """(seconds, the predicted figure's key): as the file measured the time"""
    if m.get("duration") == "nsight" and run["measured"].get("gpu__time_duration.sum"):
        return run["measured"]["gpu__time_duration.sum"] * 1e-9, "gpu__time_duration.sum"
    return run["time_ms"] * 1e-3, "memsim__event_time"


def superseded_note(w, m):
    """runs a measurement file keeps but marks "superseded": measured with
    a kernel that has changed since, so not compared"""
    old = [r for r in m["runs"] if r.get("superseded")]
    if old:
        w("Not compared: " + "; ".join(f"{r['name']}, {r['superseded']}" for r in old) + ".\n")


def unique_runs(m):
    seen, runs = set(), []
    for r in m["runs"]:   # a run measured twice (two groups) counts once: the first
        if r.get("superseded"):
            continue
        if r["name"] not in seen:
            seen.add(r["name"])
            runs.append(r)
    return runs


def instructions_section(w, more_file, h, runs, sims):
    """Warp instructions executed (smsp__inst_executed.sum), estimated
    against measured"""
    w("### Warp instructions executed\n")
    w(f"`{os.path.relpath(more_file)}`: {h.get('device', '')}, {', '.join(h.get('dates', []))}. "
      "Every built-in kernel at its default parameters (`bash gpu/device-costs.sh defaults "
      "PREBUILT`) and those whose loops ptxas unrolls at other sizes: memsim's estimate from "
      "the engine's block counts and the SASS (docs/model.md, \"Warp instructions executed\") "
      "against Nsight's count.\n")
    w("| run | estimated | measured | error |")
    w("|---|---:|---:|---:|")
    errs = []
    for run, (sim, err) in zip(runs, sims):
        q = run["measured"].get("smsp__inst_executed.sum")
        if sim is None or not q:
            continue
        p = sim["metrics"].get("smsp__inst_executed.sum", 0)
        e = pct(p, q)
        errs.append(abs(e))
        w(f"| {run['name']} | {fmt(p)} | {fmt(q)} | {e:+.1f}% |")
    w("")
    if errs:
        w(f"{sum(1 for e in errs if e == 0)} exact, {sum(1 for e in errs if e <= 10)} of "
          f"{len(errs)} within 10%; median error {statistics.median(errs):.1f}%, worst "
          f"{max(errs):.1f}%.\n")


def gpu_section(w, memsim, jobs, costs_file, more_files):
    m = json.load(open(costs_file))
    arch = m.get("arch", "h100")
    runs = unique_runs(m)
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        sims = list(ex.map(lambda r: simulate(memsim, arch, r), runs))
    nsight = m.get("duration") == "nsight"
    w(f"## {m.get('device', '').split(',')[0] or arch} (`--arch {arch}`)\n")
    w("| | |\n|---|---|")
    w(f"| measured | {m.get('device', '')}; {', '.join(m.get('dates', []))} |")
    w(f"| file | `{os.path.relpath(costs_file)}` |")
    w(f"| measured with | `bash gpu/device-costs.sh big|probes|gemm|gemm4096 PREBUILT` (memsim trace ... --gpu --format json) |")
    # since 2026-11-29 22:00 UTC gpu/profiler.cu flushes after starting the
    # profiler; before, the profiler's start left dirty lines the kernel wrote back
    after = m.get("flush") == "after-start"
    w("| DRAM, L2 | CUPTI with the L2 flushed before each pass (`dram__bytes_*`, "
      "`lts__t_sectors_srcunit_tex_op_*`), " + ("after the profiler's start |" if after else
      "before the profiler's start, which left megabytes of dirty lines the kernels that read "
      "more than the L2 holds wrote back |"))
    if nsight:
        w("| time | `gpu__time_duration.sum` as Nsight Compute measures it: each kernel from its start "
          "to its end, the L2 flushed before (CUPTI, a range per kernel) |")
    else:
        w("| time | CUDA events around each launch (launch latency included: memsim__event_time), "
          "L2 flushed before each, median of the repeats |")
    w("")
    w("The time model's DRAM, L2 and LSU constants were fitted to the H100's runs at the "
      "seeds' sizes (2026-11-24); its six instruction constants (`issue_efficiency`, "
      "`dependence_scale`, `barrier_wait_cycles`, the loaded L2 and DRAM latencies, "
      "`conflict_wavefront_cost`) "
      "to the H200's built-in runs at the seeds', the default and small sizes, the probes left out (`gpu/time-fit.py`).  "
      "So the H200's time errors below are in-sample.  The DRAM and L2 traffic come from the "
      "cache model's rules with one measured constant, the capacity of the L2 a kernel spread "
      "over every SM sees (fitted on `copy`: 42 MiB on the H200, one 25 MiB half on the H100).\n")
    superseded_note(w, m)

    # traffic
    w("### L2 and DRAM traffic\n")
    w("Cells: predicted / measured (error of the prediction).\n")
    w("| run | DRAM read | DRAM write | DRAM total | L2 read sectors | L2 write sectors |")
    w("|---|---:|---:|---:|---:|---:|")
    errs = {"read": [], "write": [], "total": [], "l2r": [], "l2w": []}
    rows = []
    for run, (sim, err) in zip(runs, sims):
        if sim is None:
            w(f"| {run['name']} | not simulated: {err} | | | | |")
            continue
        sm, me = sim["metrics"], run["measured"]
        cells = []
        for key, metric in [("read", "dram__bytes_read.sum"), ("write", "dram__bytes_write.sum")]:
            p, q = sm[metric], me[metric]
            cells.append((p, q))
        tot = (cells[0][0] + cells[1][0], cells[0][1] + cells[1][1])
        l2r = (sm["lts__t_sectors_srcunit_tex_op_read.sum"], me["lts__t_sectors_srcunit_tex_op_read.sum"])
        l2w = (sm["lts__t_sectors_srcunit_tex_op_write.sum"], me["lts__t_sectors_srcunit_tex_op_write.sum"])
        out = []
        for key, (p, q) in zip(["read", "write", "total", "l2r", "l2w"], cells + [tot, l2r, l2w]):
            if q >= 1 << 20 or (key in ("l2r", "l2w") and q >= 32768):   # errors on a few KB say nothing
                errs[key].append(abs(pct(p, q)))
            out.append(f"{fmt(p)} / {fmt(q)} ({pct(p, q):+.1f}%)")
        w(f"| {run['name']} | " + " | ".join(out) + " |")
        rows.append((run, sim))
    w("")
    names = {"read": "DRAM read", "write": "DRAM write", "total": "DRAM read + write",
             "l2r": "L2 read sectors", "l2w": "L2 write sectors"}
    for key, e in errs.items():
        if e:
            w(f"- {names[key]}: median error {statistics.median(e):.1f}%, worst {max(e):.1f}% "
              f"({len(e)} runs with at least 1 MiB / 32768 sectors measured)")
    w("")

    # time
    w("### Kernel time\n")
    w("| run | predicted (ms) | measured (ms) | error | bound (predicted) |")
    w("|---|---:|---:|---:|---|")
    terr, seed_err = [], []
    for run, sim in rows:
        t = sim.get("time")
        if not t:
            continue
        q, key = measured_time(m, run)
        p = t[key] / 1e9
        e = pct(p, q)
        terr.append(abs(e))
        if family(run["kernel"]) and run["name"].endswith(("-8192", "-16M", "-256", "-sample1")):
            seed_err.append(abs(e))
        w(f"| {run['name']} | {p * 1e3:.4f} | {q * 1e3:.4f} | {e:+.1f}% | {t['bound']} |")
    w("")
    if terr:
        w(f"All runs: median error {statistics.median(terr):.1f}%, worst {max(terr):.1f}%, "
          f"{sum(1 for e in terr if e <= 15)} of {len(terr)} runs within 15%.")
    if seed_err:
        w(f"The seeds' sizes (transposes 8192x8192, reductions 16M, stencils 256^3, GEMMs 4096^3 "
          f"sampled): median error {statistics.median(seed_err):.1f}%, worst {max(seed_err):.1f}% "
          f"({len(seed_err)} runs).")
    w("")

    # rankings
    w("### Rankings inside each family\n")
    w("Every pair of a family's variants (at the same size) whose measured times differ by more "
      "than 10%: does the prediction order them the same way?\n")
    w("| family | pairs | same order | pairs in the other order |")
    w("|---|---:|---:|---|")
    by = {}
    for run, sim in rows:
        fam = family(run["kernel"])
        if fam and sim.get("time"):
            q, key = measured_time(m, run)
            by.setdefault(fam, []).append((run, sim["time"][key] / 1e9, q))
    for fam, items in by.items():
        pairs = same = 0
        wrong = []
        for i in range(len(items)):
            for k in range(i + 1, len(items)):
                (ra, pa, ma), (rb, pb, mb) = items[i], items[k]
                if ra["params"] != rb["params"]:
                    continue
                if max(ma, mb) < 1.1 * min(ma, mb):
                    continue
                pairs += 1
                if (ma < mb) == (pa < pb):
                    same += 1
                else:
                    wrong.append(f"{ra['kernel']} / {rb['kernel']}")
        w(f"| {fam} | {pairs} | {same} | {', '.join(wrong) or '-'} |")
    w("")
    for more_file in more_files:
        h = json.load(open(more_file))
        hruns = [r for r in h["runs"] if not r.get("superseded")]
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            hsims = list(ex.map(lambda r: simulate(memsim, arch, r), hruns))
        if "instructions" in os.path.basename(more_file):
            instructions_section(w, more_file, h, hruns, hsims)
            continue
        if "small" in os.path.basename(more_file):
            w("### Kernel time at small sizes\n")
            about = ("Every family at sizes that fill a fraction of the GPU (`bash "
                     "gpu/device-costs.sh small PREBUILT`): launches whose time is the warps' "
                     "latency and the launch's own, not a bandwidth.")
        else:
            w("### Kernel time at the default parameters\n")
            about = ("Every built-in kernel at its default parameters (small problems: 4 to 8 "
                     "MB for most; `bash gpu/device-costs.sh defaults PREBUILT`).")
        w(f"`{os.path.relpath(more_file)}`: {h.get('device', '')}, {', '.join(h.get('dates', []))}. "
          f"{about}\n")
        superseded_note(w, h)
        w("| run | predicted (ms) | measured (ms) | error | DRAM read + write | bound (predicted) |")
        w("|---|---:|---:|---:|---:|---|")
        herr = []
        for run, (sim, err) in zip(hruns, hsims):
            if sim is None or not sim.get("time"):
                continue
            q, key = measured_time(h, run)
            p = sim["time"][key] / 1e9
            e = pct(p, q)
            herr.append(abs(e))
            sm, me = sim["metrics"], run["measured"]
            dp = sm["dram__bytes_read.sum"] + sm["dram__bytes_write.sum"]
            dm = (me["dram__bytes_read.sum"] or 0) + (me["dram__bytes_write.sum"] or 0)
            w(f"| {run['name']} | {p * 1e3:.4f} | {q * 1e3:.4f} | {e:+.1f}% | "
              f"{fmt(dp)} / {fmt(dm)} ({pct(dp, dm):+.1f}%) | {sim['time']['bound']} |")
        w("")
        if herr:
            w(f"Median time error {statistics.median(herr):.1f}%, worst {max(herr):.1f}%, "
              f"{sum(1 for e in herr if e <= 15)} of {len(herr)} runs within 15%.\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", default="./memsim")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--occupancy", metavar="FILE",
                    help="Nsight's launch metrics (gpu/device-occupancy.sh, saved by "
                         "gpu/occupancy-check.py --save): add the occupancy check")
    ap.add_argument("--gpu", action="append", default=[], metavar="COSTS[,MORE...]",
                    help="one GPU's measurements at the seeds' sizes and, after commas, "
                         "others (the default parameters, small sizes) (repeatable)")
    ap.add_argument("--collect", nargs="+", metavar="DIR",
                    help="turn device-costs.sh folders into the measurement file -o names")
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    if a.collect:
        if not a.output:
            ap.error("--collect needs -o FILE")
        collect(a.collect, a.output)
        return 0
    if not a.gpu:
        ap.error("give at least one --gpu COSTS.json")
    version = subprocess.run([a.memsim, "--version"], capture_output=True, text=True).stdout.strip()
    lines = []
    w = lines.append
    w("# memsim cost models: predicted vs measured\n")
    w("Generated by `gpu/costs-report.py` (`make validate-costs`) from the measurements named in "
      f"each section, re-simulated with {version}; do not edit by hand.\n")
    for g in a.gpu:
        costs, *more = g.split(",")
        gpu_section(w, a.memsim, a.jobs, costs, [f for f in more if f])
    if a.occupancy:
        here = os.path.dirname(os.path.abspath(__file__))
        r = subprocess.run([sys.executable, os.path.join(here, "occupancy-check.py"), "--memsim",
                            a.memsim, a.occupancy], capture_output=True, text=True)
        w("## Occupancy (H100)\n")
        w(f"`memsim occupancy KERNEL` against Nsight Compute's launch metrics of the same launch "
          f"(`{os.path.relpath(a.occupancy)}`, from `gpu/device-occupancy.sh`; "
          "`python3 gpu/occupancy-check.py` reruns the check, and `make check` runs it).  "
          "Compared: `launch__registers_per_thread`, `launch__occupancy_limit_registers`, "
          "`..._warps`, `..._blocks`, `sm__maximum_warps_per_active_cycle_pct`, "
          "`launch__waves_per_multiprocessor`, `launch__shared_mem_per_block_static`, block and "
          "grid size, and the shared-memory limit at the carveout the driver chose.\n")
        w("Two things the H100 showed: the driver allocates at least 16 registers per thread "
          "(ptxas' 10 to 15 are reported as 16; memsim does the same), and it picks the "
          "shared-memory carveout itself (`launch__shared_mem_config_size`: 8 KiB for "
          "`transpose_naive`, 100 KiB for the reductions), not the largest one that "
          "`cuda_occupancy.h` assumes by default; so `launch__occupancy_limit_shared_mem` "
          "differs from memsim's (which uses the calculator's default) while the active blocks "
          "and the occupancy agree: shared memory limits none of these launches.  How the "
          "driver chooses is not modelled.\n")
        w("```")
        w(r.stdout.strip())
        w("```\n")
    text = "\n".join(lines) + "\n"
    if a.output:
        open(a.output, "w").write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
