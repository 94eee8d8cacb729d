#!/usr/bin/env python3
"""occupancy-check.py - `memsim occupancy` against Nsight Compute's launch
metrics for the same launches (gpu/device-occupancy.sh's CSV files).

    python3 gpu/occupancy-check.py [--memsim ./memsim] DIR_OR_JSON [--save FILE.json]

DIR: the occupancy-ncu folder of device-occupancy.sh (one ncu --csv file per
kernel); or a JSON file saved with --save (gpu/measurements/).  Prints one
row per kernel and every metric that differs; exits 1 if any does.
"""
import argparse, csv, io, json, os, subprocess, sys

METRICS = ["launch__registers_per_thread", "launch__occupancy_limit_registers",
           "launch__occupancy_limit_warps",
           "launch__occupancy_limit_blocks", "sm__maximum_warps_per_active_cycle_pct",
           "launch__waves_per_multiprocessor", "launch__shared_mem_per_block_static",
           "launch__block_size", "launch__grid_size"]


def read_ncu(path):
    text = open(path).read()
    start = text.find('"ID"')
    out = {}
    for row in csv.DictReader(io.StringIO(text[start:])):
        v = row["Metric Value"].replace(",", "")
        try:
            out[row["Metric Name"]] = float(v)
        except ValueError:
            out[row["Metric Name"]] = None
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--memsim", default="./memsim")
    ap.add_argument("--save")
    ap.add_argument("source")
    a = ap.parse_args()
    if os.path.isdir(a.source):
        measured = {f[:-4]: read_ncu(os.path.join(a.source, f))
                    for f in sorted(os.listdir(a.source)) if f.endswith(".csv")}
    else:
        measured = json.load(open(a.source))["kernels"]
    if a.save:
        json.dump({"description": "Nsight Compute launch metrics of each built-in kernel's "
                   "first launch at default parameters (gpu/device-occupancy.sh)",
                   "kernels": measured}, open(a.save, "w"), indent=1)
    bad = 0
    old = {k: m["superseded"] for k, m in measured.items() if m.get("superseded")}
    measured = {k: m for k, m in measured.items() if k not in old}
    for k, m in measured.items():
        r = subprocess.run([a.memsim, "occupancy", k, "--format", "json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{k}: memsim failed: {r.stderr.strip()}")
            bad += 1
            continue
        s = json.loads(r.stdout)
        s = s.get("occupancy", s)
        diffs = []
        for name in METRICS:
            mv, sv = m.get(name), s.get(name)
            if mv is None:
                continue
            if sv is None or abs(float(sv) - mv) > (0.01 if "waves" in name else 0.5):
                diffs.append(f"{name}: memsim {sv} ncu {mv:g}")
        # the shared-memory limit depends on the carveout the driver chose
        # (launch__shared_mem_config_size), which memsim does not predict: it
        # uses the calculator's default, the largest.  Check the rule at the
        # driver's carveout instead: limit = carveout / allocated bytes.
        cfg = m.get("launch__shared_mem_config_size")
        alloc = s.get("allocated_shared_per_block")
        note = ""
        if cfg is not None and alloc:
            at_cfg = int(cfg // alloc)
            if at_cfg != m.get("launch__occupancy_limit_shared_mem"):
                diffs.append(f"shared-memory limit at the driver's {cfg:g}-byte carveout: "
                             f"memsim {at_cfg} ncu {m.get('launch__occupancy_limit_shared_mem'):g}")
            note = (f" (driver carveout {cfg / 1024:g} KiB: shared limit {at_cfg}; memsim's "
                    f"default carveout gives {s.get('launch__occupancy_limit_shared_mem')})")
        print(f"{k:28s} {'agrees' + note if not diffs else 'DIFFERS: ' + '; '.join(diffs)}")
        bad += bool(diffs)
    for k, why in old.items():   # measured with a kernel that has changed since
        print(f"{k:28s} not compared: {why}")
    print(f"{len(measured) - bad} of {len(measured)} kernels agree on every metric")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
