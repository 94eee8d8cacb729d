#!/usr/bin/env python3
"""validate.py - writes docs/validation.md from the files gpu/validate.sh
collected: per kernel the JSON of `memsim trace KERNEL --gpu --check-trace`,
its exit status and stderr, the SASS of the kernels' nvcc builds, and
hand-written explanations (gpu/validation-notes.md, one "### NAME" section
per kernel, "### *" for the introduction).

--resimulate MEMSIM: after a model change, recompute the simulated side of
every result with that memsim (CPU only: `memsim trace KERNEL -p ...
--format json`), keeping the GPU's measured numbers, and say so in the
report; the simulated numbers of the run stay in the JSON as
"simulated_at_run" (the broadcasts section shows both).
"""
import argparse
import json
import os
import re
import subprocess
import sys

MEM_OPS = re.compile(r"^(LDG|STG|LDS|STS|LD|ST|ATOM|ATOMS|ATOMG|RED|REDG|REDUX|LDGSTS|LDSM|STSM|UBLKCP|UTMALDG)(\.|$)")
EXACT_NOTE = "instructions, requests and sectors of global memory, instructions and wavefronts of shared memory"


def demangle(name):
    """_Z15transpose_naivePfPKfii -> transpose_naive (the C++ base name only)."""
    m = re.match(r"_Z(?:N\d*[A-Za-z_]\w*?)?(\d+)(\w+)", name)
    if not m:
        return name
    n = int(m.group(1))
    return m.group(2)[:n]


def parse_sass(path):
    """{function base name: [memory instruction lines]} of one cuobjdump -sass output."""
    funcs = {}
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.search(r"Function : (\S+)", line)
            if m:
                cur = demangle(m.group(1))
                funcs.setdefault(cur, [])
                continue
            if cur is None:
                continue
            m = re.search(r"\*/\s+(.*?)\s*;", line)
            if not m:
                continue
            text = m.group(1)
            op = text.split()
            if not op:
                continue
            opcode = op[1] if op[0].startswith("@") and len(op) > 1 else op[0]
            if MEM_OPS.match(opcode):
                funcs[cur].append(text)
    return funcs


def sass_for(kernel, sass):
    exact = {f: v for f, v in sass.items() if f == kernel}
    if exact:
        return exact
    return {f: v for f, v in sass.items() if f.startswith(kernel + "_")}


def opcode_summary(lines):
    counts = {}
    for t in lines:
        toks = t.split()
        op = toks[1] if toks[0].startswith("@") and len(toks) > 1 else toks[0]
        counts[op] = counts.get(op, 0) + 1
    return ", ".join(f"{op} x{n}" for op, n in sorted(counts.items()))


def read_notes(path):
    notes = {}
    if not path or not os.path.exists(path):
        return notes
    cur = None
    with open(path) as f:
        for line in f:
            m = re.match(r"^### (\S+)\s*$", line)
            if m:
                cur = m.group(1)
                notes[cur] = []
                continue
            if cur is not None:
                notes[cur].append(line)
    return {k: "".join(v).strip() for k, v in notes.items()}


def fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:.4g}"
    return f"{int(v):,}".replace(",", " ")


def short(metric):
    return metric.replace(".sum", "")


def metric_space_op(metric):
    """'..._shared_op_ld.sum' -> ('shared', 'ld')."""
    m = re.search(r"_(global|shared)_(?:op_)?([a-z]+)\.sum$", metric)
    return (m.group(1), m.group(2)) if m else (None, None)


def resimulate(j, memsim):
    """Recomputes j's simulated numbers with memsim (same kernel, parameters
    and block), and the mismatch flags and notes as memsim's side by side
    does (gpu/side-by-side.c).  Returns None or a one-line error."""
    cmd = [memsim, "trace", j["kernel"], "--format", "json",
           "--block", "x".join(str(b) for b in j["block"])]
    for k, v in j.get("params", {}).items():
        cmd += ["-p", f"{k}={v}"]
    if j.get("arch"):
        cmd += ["--arch", j["arch"]]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return (r.stderr.strip().splitlines() or ["?"])[-1]
    report = json.loads(r.stdout)
    new = report["metrics"]
    # spaces whose atomics nvcc made compare-and-swap loops (docs/model.md)
    contended = {l["space"] for l in report.get("lines", []) if l.get("contention_dependent")}
    # (space, op) of loops nvcc unrolled in a way memsim does not model
    dependent = {(l["space"], l["op"]) for l in report.get("lines", []) if l.get("compiler_dependent")}
    rows = j.get("comparison", [])
    for x in rows:
        if x["metric"] in new and (x["simulated"] is not None or x["kind"] == "measured-only"):
            x.setdefault("simulated_at_run", x["simulated"])
            x["simulated"] = new[x["metric"]]
            if x["kind"] == "measured-only":
                x["kind"] = "predicted"   # a cost model gives it now
    byname = {x["metric"]: x for x in rows}
    for x in rows:
        if x["kind"] not in ("exact", "approximate") or x["measured"] is None:
            continue
        sp, op = metric_space_op(x["metric"])
        inst = byname.get(f"smsp__sass_inst_executed_op_{sp}_{op}.sum")
        inst_differs = inst is not None and inst["measured"] is not None and round(inst["measured"]) != inst["simulated"]
        x.pop("note", None)
        x["mismatch"] = False
        if round(x["measured"]) != x["simulated"] or x["measured"] != int(x["measured"]):
            if op == "atom" and sp in contended:
                x["note"] = ("contention-dependent: a compare-and-swap in the SASS, repeated "
                             "until it succeeds (docs/model.md)")
                x["kind"] = "approximate"
            elif (sp, op) in dependent:
                x["note"] = ("compiler-dependent: a loop nvcc unrolled in a way memsim does not "
                             "model (docs/model.md)")
                x["kind"] = "approximate"
            elif x["kind"] == "approximate":
                x["note"] = ("approximate metric: it also counts conflicts from other traffic "
                             "(arbitration); compare the wavefronts")
            elif x["metric"].startswith("smsp__sass_inst_executed"):
                x["note"] = "instruction count differs: the compiler vectorised/split accesses; see SASS"
            elif inst_differs:
                x["note"] = "follows from the instruction count (compiler), not the model"
            else:
                x["note"] = "MISMATCH: same instructions, different count (model error?)"
            x["mismatch"] = x["kind"] == "exact"
    return None


def pct(predicted, measured):
    """Error of a prediction in percent of the measurement."""
    return 100.0 * (predicted - measured) / measured if measured else 0.0


def predicted_summary(w, results):
    """The cost models' predictions (L2 sectors, DRAM bytes) against the
    measurements: one row per kernel, then median and worst error."""
    metrics = ["dram__bytes_read.sum", "dram__bytes_write.sum",
               "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_write.sum"]
    rows = []
    for r in results:
        j = r["json"]
        cmp = {x["metric"]: x for x in (j or {}).get("comparison", []) if x["kind"] == "predicted"}
        if not cmp:
            continue
        rows.append((r["name"], [cmp.get(m) for m in metrics]))
    if not rows:
        return
    w("## L2 and DRAM: predicted vs measured\n")
    w("The cache model (sim/models/cache.c) against the GPU (cold L2). "
      "Cells: predicted / measured (error of the prediction).\n")
    w("| kernel | " + " | ".join(short(m) for m in metrics) + " |")
    w("|---|" + "---:|" * len(metrics))
    errs = {m: [] for m in metrics}
    for name, xs in rows:
        cells = []
        for m, x in zip(metrics, xs):
            if x is None or x["measured"] is None or x["simulated"] is None:
                cells.append("-")
                continue
            e = pct(x["simulated"], x["measured"])
            if x["measured"] >= 65536:   # errors on a few sectors or bytes say nothing
                errs[m].append(abs(e))
            cells.append(f"{fmt(x['simulated'])} / {fmt(x['measured'])} ({e:+.1f}%)")
        w(f"| {name} | " + " | ".join(cells) + " |")
    w("")
    for m in metrics:
        e = sorted(errs[m])
        if e:
            w(f"- `{short(m)}`: median error {e[len(e) // 2]:.1f}%, worst {e[-1]:.1f}% "
              f"over {len(e)} kernels with at least 65,536 measured")
    w("")


def per_inst(rows, sp, op, key, what="wavefronts"):
    """Per warp-level instruction: (wavefronts, excessive) of rows[key]."""
    inst = rows.get(f"smsp__sass_inst_executed_op_{sp}_{op}.sum")
    wf = rows.get(f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_{sp}_op_{op}.sum")
    cf = rows.get(f"l1tex__data_bank_conflicts_pipe_lsu_mem_{sp}_op_{op}.sum")
    if not inst or not wf or not cf:
        return None
    ikey = "measured" if key == "measured" else "simulated"
    n = inst[ikey]
    w, c = wf.get(key, wf["simulated"]), cf.get(key, cf["simulated"])
    if not n or w is None or c is None:
        return None
    return w / n, c / n


def num(v):
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 else f"{v:.2f}"


def gather_section(w, probe_json, notes, resimulated):
    """## Shared-memory broadcasts and partial patterns: the smem_gather
    probes (labels gather-wWIDTH-NAME-ld/st) as pattern x width tables."""
    cells = {}
    names = []
    for label, j in probe_json.items():
        m = re.match(r"gather-w(\d+)-(.+)-(ld|st)$", label)
        if not m or "gpu" not in j:
            continue
        width, name, op = int(m.group(1)), m.group(2), m.group(3)
        rows = {x["metric"]: x for x in j.get("comparison", [])}
        meas = per_inst(rows, "shared", op, "measured")
        run = per_inst(rows, "shared", op, "simulated_at_run")
        now = per_inst(rows, "shared", op, "simulated")
        if not meas or not now:
            continue
        if name not in names:
            names.append(name)
        cells[(name, width, op)] = (meas, run or now, now)
    if not cells:
        return
    w("## Shared-memory broadcasts and partial patterns\n")
    w("The `gather-*` probes: `smem_gather -p pattern=N -p width=W -p op=0|1 [-p mask=M]`, lane l")
    w("of every warp accesses element P(l) of a named pattern (docs/kernels.md), 512 warp-level")
    w("accesses per probe.  Each cell, per warp-level instruction: wavefronts (excessive) measured")
    w("(`smsp__sass_l1tex_data_pipe_lsu_wavefronts_*`, `l1tex__data_bank_conflicts_*`)" + (
      " \u00b7 memsim at the run \u2192 memsim now; bold: differs from the measurement."
      if resimulated else " \u00b7 memsim; bold: differs from the measurement."))
    w("")
    for op, title in (("ld", "Loads"), ("st", "Stores")):
        widths = sorted({k[1] for k in cells if k[2] == op})
        if not widths:
            continue
        w(f"**{title}**\n")
        w("| pattern | " + " | ".join(f"{x} B" for x in widths) + " |")
        w("|---|" + "---:|" * len(widths))
        for name in names:
            out = []
            for width in widths:
                c = cells.get((name, width, op))
                if not c:
                    out.append("")
                    continue
                (mw, mx), (rw, rx), (nw, nx) = c

                def mark(v, x):
                    t = f"{num(v)} ({num(x)})"
                    return t if abs(v - mw) < 1e-9 and abs(x - mx) < 1e-9 else f"**{t}**"
                model = f"{mark(rw, rx)} \u2192 {mark(nw, nx)}" if resimulated else mark(nw, nx)
                out.append(f"{num(mw)} ({num(mx)}) \u00b7 {model}")
            w(f"| {name} | " + " | ".join(out) + " |")
        w("")
    if "broadcasts" in notes:
        w(notes["broadcasts"] + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--command", required=True)
    ap.add_argument("--notes")
    ap.add_argument("--probes", default="")
    ap.add_argument("--resimulate", metavar="MEMSIM",
                    help="recompute the simulated numbers with this memsim (CPU only)")
    ap.add_argument("kernels", nargs="*")
    a = ap.parse_args()
    resim_errors = []

    def load_result(path, what):
        j = json.load(open(path))
        if a.resimulate and "gpu" in j:
            err = resimulate(j, a.resimulate)
            if err:
                resim_errors.append(f"{what}: {err}")
        return j

    listing = {k["name"]: k for k in json.load(open(os.path.join(a.work, "list.json")))}
    env = open(os.path.join(a.work, "env.txt")).read().splitlines()
    notes = read_notes(a.notes)
    sass = {}
    for f in sorted(os.listdir(a.work)):
        if f.startswith("sass-") and f.endswith(".txt"):
            sass[f[5:-4] + ".cu"] = parse_sass(os.path.join(a.work, f))

    results = []
    gpu = None
    for k in a.kernels:
        r = {"name": k, "family": listing.get(k, {}).get("family", "?")}
        try:
            r["rc"] = int(open(os.path.join(a.work, k + ".rc")).read().strip())
        except (OSError, ValueError):
            r["rc"] = None
        try:
            r["err"] = open(os.path.join(a.work, k + ".err")).read().strip()
        except OSError:
            r["err"] = ""
        try:
            r["json"] = load_result(os.path.join(a.work, k + ".json"), k)
        except (OSError, ValueError):
            r["json"] = None
        j = r["json"]
        if j and "gpu" in j and gpu is None:
            gpu = j["gpu"]
        results.append(r)

    probes = a.probes.split()
    probe_json = {}
    for label in probes:
        try:
            probe_json[label] = load_result(os.path.join(a.work, f"probe-{label}.json"), f"probe {label}")
        except (OSError, ValueError):
            pass

    o = []
    w = o.append
    gname = gpu["name"] if gpu else "(no GPU result)"
    w(f"# memsim validation: simulated vs measured on {gname}\n")
    w("Generated by `make validate` (gpu/validate.sh, gpu/validate.py); do not edit by hand:")
    w("explanations come from `gpu/validation-notes.md`.  The cost models (L2/DRAM traffic,")
    w("occupancy, kernel time) at the seeds' sizes are checked in `docs/validation-costs.md`.\n")
    w("| | |")
    w("|---|---|")
    w(f"| date | {env[0] if env else '?'} |")
    if gpu:
        w(f"| GPU | {gpu['name']}, compute capability {gpu['cc']} |")
        w(f"| driver / CUDA runtime | {gpu['driver']} / {gpu['runtime']} |")
    for line in env[1:]:
        w(f"| environment | {line} |")
    w(f"| command | {a.command} |")
    w(f"| per kernel | `memsim trace KERNEL --gpu --check-trace --format json` (default parameters) |")
    if a.resimulate:
        w("| simulated | recomputed after the run with the memsim of this source tree "
          "(`gpu/validate.py --resimulate MEMSIM`: the model changed since; the measured numbers "
          "are the run's) |")
        for e in resim_errors:
            w(f"| not resimulated | {e} |")
    w("")
    if "*" in notes:
        w(notes["*"] + "\n")

    # summary
    w("## Summary\n")
    w("| kernel | family | GPU output | exact metrics | address trace | time (ms) | GB/s |")
    w("|---|---|---|---|---|---:|---:|")
    mismatched = []
    for r in results:
        j = r["json"]
        if not j or "gpu" not in j:
            why = (r["err"].splitlines() or ["no output"])[-1].replace("|", "\\|")
            w(f"| {r['name']} | {r['family']} | not run: {why} | | | | |")
            continue
        g = j["gpu"]
        rows = j.get("comparison", [])
        exact = [x for x in rows if x["kind"] == "exact" and x["measured"] is not None]
        bad = [x for x in exact if x["mismatch"]]
        if bad:
            mismatched.append(r)
        out = "bit-identical" if "bit-identical" in g["output_check"] else (
            "within tolerance" if g["output_ok"] else "**WRONG**")
        tr = g.get("trace_check")
        trace = "-" if not tr else ("identical" if tr["identical"] else "**differs**")
        if tr and tr["identical"] and tr.get("shared_base"):
            trace += f" (shared base {tr['shared_base']:+d})"
        if tr and not tr.get("grouping_identical", True):
            trace += f"; lanes grouped differently ({tr['gpu_accesses']} vs {tr['emulator_accesses']})"
        agree = f"{len(exact) - len(bad)}/{len(exact)} agree" if not bad else f"**{len(exact) - len(bad)}/{len(exact)} agree**"
        w(f"| {r['name']} | {r['family']} | {out} | {agree} | {trace} | {g['time_ms']:.4f} | {g['bandwidth_gbs']:.0f} |")
    w("")
    w("Exact metrics are the instruction-level counters memsim simulates (" + EXACT_NOTE + ");")
    w("`l1tex__data_bank_conflicts_*` is shown but approximate (it also counts arbitration conflicts")
    w("with other traffic).  Time: median of the launches with the L2 flushed before each; GB/s: the")
    w("sizes of all the kernel's buffers (each input read once, each output written once) / time.\n")

    # mismatches
    w("## Mismatches and their explanations\n")
    if not mismatched:
        w("None: every exact metric of every kernel that ran agrees.\n")
    for r in mismatched:
        j = r["json"]
        w(f"### {r['name']}\n")
        w("| metric | simulated | measured | difference | note |")
        w("|---|---:|---:|---:|---|")
        for x in j["comparison"]:
            if x["mismatch"]:
                d = x["measured"] - x["simulated"]
                w(f"| `{short(x['metric'])}` | {fmt(x['simulated'])} | {fmt(x['measured'])} | {d:+,.0f} | {x.get('note', '')} |")
        w("")
        if r["name"] in notes:
            w(notes[r["name"]] + "\n")
        else:
            w("*Not yet explained (add a `### " + r["name"] + "` section to gpu/validation-notes.md).*\n")
        src = j["gpu"].get("source", "")
        fs = sass_for(r["name"], sass.get(src, {}))
        if fs:
            w(f"SASS memory instructions of the nvcc build (`cuobjdump -sass {src.replace('.cu', '.gpu.o')}`):\n")
            w("```")
            for f, lines in fs.items():
                w(f"{f}:")
                for t in lines:
                    w(f"    {t}")
            w("```\n")

    # probes
    if probes:
        w("## Open questions, settled by measurement\n")
        w("Extra runs (gpu/validation-probes.txt) of the access-pattern kernels with one option changed:")
        w("width (bytes per lane), stride (elements between lanes; 0 = every lane of a warp on one")
        w("element), pattern (smem_gather: lane l on element P(l), see the next section), ld/st.  Per")
        w("warp-level instruction: simulated / measured, from the exact counters.\n")
        w("| probe | options | space op | inst sim / meas | per instruction: sectors or wavefronts, sim / meas | trace | verdict |")
        w("|---|---|---|---:|---:|---|---|")
        for label in probes:
            j = probe_json.get(label)
            if j is None:
                err = open(os.path.join(a.work, f"probe-{label}.err")).read().strip().splitlines()
                w(f"| {label} | | | | | | not run: {(err or ['?'])[-1]} |")
                continue
            args = open(os.path.join(a.work, f"probe-{label}.args")).read().strip()
            rows = {x["metric"]: x for x in j.get("comparison", [])}
            tr = j["gpu"].get("trace_check", {})
            for sp, op, what in (("global", "ld", "sectors"), ("global", "st", "sectors"),
                                 ("shared", "ld", "wavefronts"), ("shared", "st", "wavefronts")):
                inst = rows.get(f"smsp__sass_inst_executed_op_{sp}_{op}.sum")
                if sp == "global":
                    cost = rows.get(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum")
                else:
                    cost = rows.get(f"smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
                if not inst or not cost or not inst["simulated"]:
                    continue
                if (sp == "global") != label.startswith("gmem"):
                    continue   # the access the probe is about
                si, mi = inst["simulated"], inst["measured"] or 0
                sc, mc = cost["simulated"], cost["measured"] or 0
                ps = sc / si if si else 0
                pm = mc / mi if mi else 0
                ok = si == mi and sc == mc
                verdict = "agrees" if ok else ("**model differs**" if si == mi else "instruction count differs (compiler)")
                w(f"| {label} | `{args}` | {sp} {op} | {fmt(si)} / {fmt(mi)} | {ps:.2f} / {pm:.2f} | {'identical' if tr.get('identical') else 'differs'} | {verdict} |")
        w("")
        if "probes" in notes:
            w(notes["probes"] + "\n")
        gather_section(w, probe_json, notes, bool(a.resimulate))

    predicted_summary(w, results)

    # per kernel
    w("## Per kernel\n")
    for r in results:
        j = r["json"]
        w(f"### {r['name']}\n")
        if not j or "gpu" not in j:
            w(f"Not run on the GPU (exit status {r['rc']}): `{(r['err'].splitlines() or ['?'])[-1]}`\n")
            if r["name"] in notes:
                w(notes[r["name"]] + "\n")
            continue
        g = j["gpu"]
        params = " ".join(f"{k}={v}" for k, v in j.get("params", {}).items())
        w(f"{listing.get(r['name'], {}).get('description', '')}  ")
        w(f"params: {params or '-'}; grid {'x'.join(map(str, j['grid']))}, block {'x'.join(map(str, j['block']))}  ")
        w(f"GPU output: {g['output_check']}  ")
        w(f"time {g['time_ms']:.4f} ms (warm L2 {g['time_warm_ms']:.4f} ms), {g['bytes']:,} bytes, {g['bandwidth_gbs']:.1f} GB/s  ")
        tr = g.get("trace_check")
        if tr:
            w(f"address trace: {tr['message']}  ")
        if r["rc"]:
            w(f"exit status {r['rc']}: `{(r['err'].splitlines() or ['?'])[-1]}`")
        w("")
        w("| metric | simulated | measured | difference | |")
        w("|---|---:|---:|---:|---|")
        for x in j.get("comparison", []):
            if x["simulated"] is None or x["measured"] is None:
                d = "-"
            elif x["kind"] == "predicted":
                d = f"{pct(x['simulated'], x['measured']):+.1f}%"
            else:
                d = f"{x['measured'] - x['simulated']:+,.0f}"
            mark = ("**" + x.get("note", "") + "**") if x["mismatch"] else x.get("note", "")
            w(f"| `{short(x['metric'])}` | {fmt(x['simulated'])} | {fmt(x['measured'])} | {d} | {mark} |")
        w("")
        src = g.get("source", "")
        fs = sass_for(r["name"], sass.get(src, {}))
        if fs:
            w("SASS memory instructions (static): " + "; ".join(f"`{f}`: {opcode_summary(v) or 'none'}" for f, v in fs.items()) + "\n")
        if r["name"] in notes and r not in mismatched:
            w(notes[r["name"]] + "\n")

    text = "\n".join(o) + "\n"
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, a.out)
    print(f"validate: wrote {a.out} ({len(results)} kernels, {len(mismatched)} with exact mismatches)", file=sys.stderr)


if __name__ == "__main__":
    main()
