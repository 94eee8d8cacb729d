#!/usr/bin/env python3
"""time-fit.py - fits the time model's instruction constants to the built-ins'
measured times: issue_efficiency, dependence_scale, barrier_wait_cycles,
the loaded L2 and DRAM latencies ([time] l2_loaded_latency_cycles,
dram_loaded_latency_cycles) and conflict_wavefront_cost, the same six for
every GPU given (the H100 and the H200 share their SM).  The idle latencies
([memory]) are measured (gpu/probes/latency.cu), not fitted.

    python3 gpu/time-fit.py [--memsim ./memsim] [--jobs N] [--cache DIR]
        --gpu COSTS.json[,MORE.json...] [--gpu ...]

Each run is re-simulated (`memsim trace --format json`, the preset of its
GPU); the model of sim/models/kernel-time.c is then evaluated here for
candidate constants.  Before fitting, the script checks that its copy of
the formula gives memsim's own prediction for every run, so the two cannot
drift apart.  The fit minimises the squared log error of the predicted
time (Nsight's duration or CUDA events, as each file measured it) over the
built-ins at the seeds', the default and the small sizes; the probes
(gmem_stride, aos/soa/broadcast_read, copy at other sizes) test the DRAM
rules, not time, and are left out.  Prints the constants, how many runs
they were fitted to, and the median and worst error per GPU.
"""
import argparse
import importlib.util
import json
import math
import os
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("costs_report", os.path.join(here, "costs-report.py"))
costs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(costs)

PROBES = ("gmem_stride-", "aos_", "soa_", "broadcast_", "copy-")
FITTED = ("issue_efficiency", "dependence_scale", "barrier_wait_cycles",
          "l2_loaded_latency_cycles", "dram_loaded_latency_cycles", "conflict_wavefront_cost")
ADDRESSING = ("global_ld", "global_st", "global_atom", "global_red", "shared_ld", "shared_st")
CONFLICTS = ("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum")


def inputs(sim):
    """What the formula needs of a run, from memsim's JSON."""
    m, o, t, ins = sim["metrics"], sim["occupancy"], sim["time"], sim.get("instructions", {})
    g = sim["grid"]
    return dict(blocks=g[0] * g[1] * g[2], wpb=o["warps_per_block"], abps=o["active_blocks_per_sm"],
                rd=m["dram__bytes_read.sum"], l2r=m["lts__t_sectors_srcunit_tex_op_read.sum"],
                ldsec=m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0),
                inst=ins.get("executed", 0), rounds=ins.get("load_rounds", 0),
                barriers=ins.get("barriers", 0), dependent=ins.get("dependent_cycles", 0),
                l2loads=t.get("l2_load_requests", 0), dramloads=t.get("dram_load_requests", 0),
                conflicts=sum(m.get(k, 0) for k in CONFLICTS),
                addresses=any(m.get(f"smsp__sass_inst_executed_op_{k}.sum", 0) > 0 for k in ADDRESSING),
                ns=t["resources_ns"], pred=t["gpu__time_duration.sum"])


def loaded(idle, full, resident):
    return idle + (full - idle) * min(1.0, resident) if full > 0 else idle


def predict(x, a, c):
    """kernel-time.c's gpu__time_duration, seconds, with constants c; the
    DRAM, L2, atomics and LSU times are memsim's (they hold none of them)."""
    ns = x["ns"]
    sms = min(a["sm_count"], x["blocks"])
    clock = a["clock_mhz"] * 1e6
    slots = x["abps"] * a["sm_count"]
    waves = math.ceil(x["blocks"] / slots)
    warps = x["blocks"] * x["wpb"]
    resident = min(x["blocks"], slots) * x["wpb"] / (a["sm_count"] * a["max_warps_per_sm"])
    l2 = loaded(a["l2_latency_cycles"], c["l2_loaded_latency_cycles"], resident)
    t_issue = x["inst"] / (sms * 4 * clock * c["issue_efficiency"])
    # memsim's LSU time, its conflicts' wavefronts at the constant given
    t_lsu = ns["lsu"] * 1e-9 + ((c["conflict_wavefront_cost"] - a["conflict_wavefront_cost"])
                                * x["conflicts"] / (sms * clock * a["lsu_per_clock"]))
    # the launch's own time and every block's start: measured, not fitted
    launch = ns["launch"] * 1e-9
    others = max(ns.get("dispatch", 0), ns["dram"], ns["l2"], ns.get("atomics", 0)) * 1e-9
    # the blocks an SM holds together
    per_sm = min(x["abps"], math.ceil(x["blocks"] / a["sm_count"]))

    # a round waits for its slowest load: the requests that went to DRAM
    # and to the L2, each in a round of its own
    r = x["rounds"]
    dram_r = min(r, x["dramloads"]) / r if r > 0 else 0.0
    l2_r = min(r - min(r, x["dramloads"]), x["l2loads"]) / r if r > 0 else 0.0

    def work(w):
        # the DRAM's latency rises with the share of the work's time it is busy
        busy = min(1.0, ns["dram"] * 1e-9 / w) if w > 0 else 0.0
        dram = loaded(a["dram_latency_cycles"], c["dram_loaded_latency_cycles"], busy)
        l1 = a["l1_latency_cycles"]
        lat = l1 + (l2 - l1) * l2_r + (dram - l1) * dram_r
        # every run here has instruction counts: the warp's dependence path
        # and its barriers' waits (the shared term is for runs without counts)
        chain = x["rounds"] / warps * lat + (x["dependent"] * c["dependence_scale"]
                                             + x["barriers"] * c["barrier_wait_cycles"]) / warps
        # the first wave's cold start: its parameters from DRAM, once
        cold = a["dram_latency_cycles"] if x["addresses"] else 0.0
        t = sorted([t_lsu, t_issue, (waves * chain + cold) / clock])
        return max(others, t[2] + t[1] / per_sm)

    # the work's time that gives itself (kernel-time.c's bisection)
    lo = others
    hi = work(lo)
    for _ in range(64):
        if hi - lo <= 1e-12 * hi:
            break
        w = (lo + hi) / 2
        if work(w) > w:
            lo = w
        else:
            hi = w
    return launch + work(hi)


def preset(arch):
    """The preset's figures the formula reads, from sim/arch/ARCH.arch."""
    import configparser
    kf = configparser.ConfigParser(interpolation=None)
    kf.read(os.path.join(here, "..", "sim", "arch", f"{arch}.arch"))
    get = {}
    for group in kf.sections():
        for k, v in kf.items(group):
            get[("sm_count" if (group, k) == ("sm", "count") else k)] = v
    return {k: float(get.get(k, 0)) for k in ("sm_count", "clock_mhz", "max_warps_per_sm",
                                              "l1_latency_cycles", "l2_latency_cycles",
                                              "dram_latency_cycles", "lsu_per_clock")
            + FITTED}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", default="./memsim")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--cache", help="keep the re-simulations' JSON here")
    ap.add_argument("--gpu", action="append", default=[], metavar="COSTS[,MORE...]")
    a = ap.parse_args()
    runs = []
    for g in a.gpu:
        for f in filter(None, g.split(",")):
            m = json.load(open(f))
            arch = m.get("arch", "h100")
            for r in costs.unique_runs(m):
                if r["name"].startswith(PROBES) and r["name"] != "copy-8192":
                    continue
                runs.append((m, arch, r, os.path.basename(f)))

    def sim(item):
        m, arch, r, tag = item
        path = os.path.join(a.cache, f"{tag}-{r['name']}.json") if a.cache else None
        if path and os.path.exists(path):
            return json.load(open(path))
        s, err = costs.simulate(a.memsim, arch, r)
        if s is not None and path:
            json.dump(s, open(path, "w"))
        return s

    if a.cache:
        os.makedirs(a.cache, exist_ok=True)
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        sims = list(ex.map(sim, runs))
    presets = {}
    data = []
    for (m, arch, r, tag), s in zip(runs, sims):
        if s is None or not s.get("time"):
            continue
        if arch not in presets:
            presets[arch] = preset(arch)
        p = presets[arch]
        q, key = costs.measured_time(m, r)
        if key == "memsim__event_time":   # events: the model's duration + the event latency
            q -= s["time"]["memsim__event_time"] * 1e-9 - s["time"]["gpu__time_duration.sum"] * 1e-9
        data.append((arch, r["name"], inputs(s), p, q))
    # the formula here is memsim's
    for arch, name, x, p, q in data:
        c = {k: p[k] for k in FITTED}
        mine, theirs = predict(x, p, c), x["pred"] * 1e-9
        if abs(mine - theirs) > 1e-3 * theirs:
            sys.exit(f"time-fit.py: {arch} {name}: this script predicts {mine:.6g} s, memsim "
                     f"{theirs:.6g} s: update predict() to kernel-time.c's formula")

    def loss(c):
        return sum(math.log(predict(x, p, c) / q) ** 2 for _, _, x, p, q in data)

    # coordinate descent in log space: a few constants, a smooth loss
    c = {k: float(data[0][3][k]) for k in FITTED}
    step = 0.2
    while step > 1e-4:
        better = False
        for k in FITTED:
            for f in (math.exp(step), math.exp(-step)):
                d = dict(c, **{k: c[k] * f})
                if d["issue_efficiency"] <= 1 and loss(d) < loss(c):
                    c, better = d, True
        if not better:
            step /= 2
    print(f"fitted {len(FITTED)} constants to {len(data)} launches:")
    for k in FITTED:
        print(f"  {k} = {c[k]:.4g}")
    for arch in sorted(presets):
        e = [abs(predict(x, p, c) / q - 1) * 100 for ar, _, x, p, q in data if ar == arch]
        print(f"  {arch}: {len(e)} launches, median error {statistics.median(e):.1f}%, "
              f"worst {max(e):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
