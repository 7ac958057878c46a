#!/usr/bin/env python3
"""bench.py: the GEMM performance sweep behind `make bench` (docs/performance.md).

Runs `tessera gemm --m M --k K --n N --seed 1 --json` for every point of the
sweep on the Verilated model (each result is checked bit-exact against the
golden model by the CLI itself), then writes:

  OUT/bench.json, OUT/bench.csv   one record per point
  OUT/roofline.gp                 the gnuplot script
  OUT/roofline.png, .svg          the roofline plot (gnuplot)
  --doc FILE                      docs/performance.md, regenerated, with
                                  the SVG copied next to it (roofline.svg)

Arithmetic intensity counts the DRAM bytes the firmware actually moved
(CNT_DMA_RD + CNT_DMA_WR). The roofs are N^2 MACs per cycle and
bandwidth x intensity, bandwidth being the bus width or the --mem-bw cap.

usage: bench.py --tessera BIN --dim N [--out DIR] [--doc FILE] [--quick]
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

SQUARE = [16, 32, 64, 128, 256, 512, 1024]
BATCH = [1, 8, 32, 256]                       # M at K = N = 1024
RESNET = [(3136, 576, 64), (784, 1152, 128), (196, 2304, 256), (49, 4608, 512)]
BERT = [(128, 768, 768), (128, 768, 3072), (128, 3072, 768)]
BANDWIDTH = [1, 2, 4, 8, 16]                  # bytes per cycle at 256^3


def sweep(quick):
    """(group, label, m, k, n, mem_bw) for every point; mem_bw 0 = the bus width."""
    pts = []
    for s in (SQUARE[:5] if quick else SQUARE):
        pts.append(("square", f"{s}^3", s, s, s, 0))
    for m in (BATCH[:2] if quick else BATCH):
        pts.append(("batch", f"M={m}", m, 1024, 1024, 0))
    for m, k, n in (RESNET[3:] if quick else RESNET):
        pts.append(("resnet50", f"{m}x{k}x{n}", m, k, n, 0))
    for m, k, n in (BERT[:1] if quick else BERT):
        pts.append(("bert", f"{m}x{k}x{n}", m, k, n, 0))
    for bw in (BANDWIDTH[1:4] if quick else BANDWIDTH):
        pts.append(("bandwidth", f"{bw} B/c", 256, 256, 256, bw))
    return pts


def run_point(tessera, dim, m, k, n, bw, env):
    cmd = [tessera, "gemm", "--m", str(m), "--k", str(k), "--n", str(n), "--seed", "1",
           "--dim", str(dim), "--json"]
    if bw:
        cmd += ["--mem-bw", str(bw)]
    res = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if res.returncode != 0:
        sys.exit(f"bench: {' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
    return json.loads(res.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--dim", type=int, default=8)
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--doc")
    ap.add_argument("--quick", action="store_true", help="a short subset (smoke test)")
    ap.add_argument("--doc-only", action="store_true",
                    help="rewrite --doc and the plot from OUT/bench.json without running")
    a = ap.parse_args()
    if a.doc_only:
        with open(os.path.join(a.out, "bench.json")) as f:
            data = json.load(f)
        meta, rows = data["meta"], data["points"]
        plot(a.out, rows, meta["peak_macs_per_cycle"], meta["axi_bytes"])
        if a.doc:
            shutil.copy(os.path.join(a.out, "roofline.svg"),
                        os.path.join(os.path.dirname(a.doc), "roofline.svg"))
            write_doc(a.doc, meta, rows)
        return
    os.makedirs(a.out, exist_ok=True)
    env = dict(os.environ)

    info = json.loads(subprocess.run([a.tessera, "info", "--dim", str(a.dim), "--json"],
                                     capture_output=True, text=True, env=env, check=True).stdout)
    bus = int(info["axi_bytes"])
    peak = a.dim * a.dim
    rows = []
    t0 = time.time()
    for group, label, m, k, n, bw in sweep(a.quick):
        r = run_point(a.tessera, a.dim, m, k, n, bw, env)
        if r["check"] != "pass":
            sys.exit(f"bench: {label}: result differs from the golden model")
        bw_eff = min(bw, bus) if bw else bus
        moved = r["dma_read_bytes"] + r["dma_write_bytes"]
        macs = m * k * n
        intensity = macs / moved
        attained = macs / r["cycles"]
        roof = min(peak, bw_eff * intensity)
        pred = r["plan"]["est_cycles"]
        rows.append({
            "group": group, "label": label, "m": m, "k": k, "n": n, "dim": a.dim,
            "bytes_per_cycle": bw_eff, "bytes_per_cycle_asked": bw or bus, "macs": macs, "dram_bytes": moved,
            "intensity": round(intensity, 4), "cycles": r["cycles"],
            "utilization": round(r["utilization"], 6), "macs_per_cycle": round(attained, 4),
            "roof": round(roof, 4), "attainment": round(attained / roof, 6),
            "predicted_cycles": pred, "model_error": round((pred - r["cycles"]) / r["cycles"], 6),
            "time": r["time"], "memory_stall": r["memory_stall"],
            "sim_cycles_per_second": r.get("sim_cycles_per_second", 0),
        })
        print(f"bench: {label:>16}: {r['cycles']:>10} cycles, utilization "
              f"{100 * r['utilization']:5.1f} %, attainment {100 * attained / roof:5.1f} %, "
              f"model {100 * (pred - r['cycles']) / r['cycles']:+6.1f} %", flush=True)
    wall = time.time() - t0

    meta = {"dim": a.dim, "axi_bytes": bus, "peak_macs_per_cycle": peak,
            "machine": f"{platform.node()} ({platform.machine()}, {os.cpu_count()} CPUs, "
                       f"{platform.system()} {platform.release()})",
            "date": time.strftime("%Y-%m-%d"), "wall_seconds": round(wall, 1)}
    with open(os.path.join(a.out, "bench.json"), "w") as f:
        json.dump({"meta": meta, "points": rows}, f, indent=1)
    cols = ["group", "label", "m", "k", "n", "bytes_per_cycle", "macs", "dram_bytes", "intensity",
            "cycles", "utilization", "macs_per_cycle", "roof", "attainment", "predicted_cycles",
            "model_error"]
    with open(os.path.join(a.out, "bench.csv"), "w") as f:
        f.write(",".join(cols) + "\n")
        for r in rows:
            f.write(",".join(str(r[c]) for c in cols) + "\n")
    plot(a.out, rows, peak, bus)
    if a.doc:
        shutil.copy(os.path.join(a.out, "roofline.svg"),
                    os.path.join(os.path.dirname(a.doc), "roofline.svg"))
        write_doc(a.doc, meta, rows)
    print(f"bench: {len(rows)} points in {wall:.0f} s; results in {a.out}/")


def plot(out, rows, peak, bus):
    dat = os.path.join(out, "roofline.dat")
    with open(dat, "w") as f:
        for g in ["square", "batch", "resnet50", "bert", "bandwidth"]:
            f.write(f"# {g}\n")
            for r in rows:
                if r["group"] == g:
                    f.write(f"{r['intensity']} {r['macs_per_cycle']} \"{r['label']}\"\n")
            f.write("\n\n")
    gp = os.path.join(out, "roofline.gp")
    xs = [r["intensity"] for r in rows]
    xmin, xmax = max(min(xs) / 2, 0.1), max(xs) * 2
    # The bandwidth sweep's lower memory roofs, dashed.
    capped = "".join(
        f'  roof(x, {b}) title "memory roof at {b} B/cycle" with lines dt 2 lc rgb "gray", \\\n'
        for b in sorted({r["bytes_per_cycle"] for r in rows if r["bytes_per_cycle"] < bus}))
    with open(gp, "w") as f:
        f.write(f"""# Roofline of the Tessera bench (tools/bench.py writes this file).
set logscale xy
set xrange [{xmin}:{xmax}]
set yrange [0.1:{peak * 2}]
set xlabel "arithmetic intensity (MACs per DRAM byte moved)"
set ylabel "MACs per cycle"
set title "Tessera N={int(peak ** 0.5)} roofline: compute roof {peak} MACs/cycle, memory roof {bus} B/cycle"
set key left top
set grid
roof(x, b) = (x * b < {peak}) ? x * b : {peak}
plot roof(x, {bus}) title "roof: min(N^2, {bus} B/cycle x intensity)" with lines lw 2 lc rgb "black", \\
{capped}  for [i=0:4] "{dat}" index i using 1:2 with points pt 7 ps 1 \\
    title word("square batch(K=N=1024) resnet50 bert-base bandwidth(256^3)", i+1), \\
  "{dat}" using 1:2:3 with labels offset 0.6,0.6 left font ",7" notitle
""")
    for term, ext in (("pngcairo size 1200,800", "png"), ("svg size 1200,800", "svg")):
        subprocess.run(["gnuplot", "-e", f"set terminal {term}; set output '{out}/roofline.{ext}'",
                        gp], check=True)


LOSS = {"fill": "weight load / drain", "load_wait": "waiting on DMA read", "store": "store",
        "control": "command control"}


def write_doc(path, meta, rows):
    below = [r for r in rows if r["attainment"] < 0.9]
    off = [r for r in rows if abs(r["model_error"]) > 0.10]
    res = [r for r in rows if r["group"] == "resnet50"]
    lines = [
        "# Performance",
        "",
        "<!-- Generated by `make bench` (tools/bench.py); edit the script, not this file. -->",
        "",
        f"Measured on the Verilated model, N = {meta['dim']}, AXI bus {meta['axi_bytes']} bytes "
        f"per beat, memory latency 10 cycles, on {meta['machine']}, {meta['date']}. "
        f"The sweep took {meta['wall_seconds']} s of wall time. Every point is checked bit-exact "
        "against the golden model.",
        "",
        "![roofline](roofline.svg)",
        "",
        "(`make bench` also leaves `build/bench/roofline.png`, `bench.csv` and `bench.json`.)",
        "",
        "Utilization is useful MACs / (N² × cycles) for the whole job, DMA included. "
        "Intensity counts the DRAM bytes the firmware moved. Attainment is MACs per cycle "
        "over min(N², bandwidth × intensity). The prediction is the firmware's cost model "
        "(`tessera gemm --plan`).",
        "",
        "| group | shape (M×K×N) | B/cycle | MACs | DRAM bytes | MACs/B | cycles | util. | "
        "attainment | predicted | error | compute / fill / load wait / store | main loss |",
        "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|",
    ]
    for r in rows:
        t = r["time"]
        busy = sum(t.values()) or 1
        split = " / ".join(f"{100 * t[c] / busy:.0f}%" for c in ("compute", "fill", "load_wait",
                                                                  "store"))
        loss = max(("fill", "load_wait", "store", "control"), key=lambda c: t[c])
        bw = str(r["bytes_per_cycle"])
        if r["bytes_per_cycle_asked"] != r["bytes_per_cycle"]:
            bw += f" ({r['bytes_per_cycle_asked']} asked; the bus carries {r['bytes_per_cycle']})"
        lines.append(
            f"| {r['group']} | {r['m']}×{r['k']}×{r['n']} | {bw} | {r['macs']:,} | "
            f"{r['dram_bytes']:,} | {r['intensity']:.1f} | {r['cycles']:,} | "
            f"{100 * r['utilization']:.1f}% | {100 * r['attainment']:.1f}% | "
            f"{r['predicted_cycles']:,} | {100 * r['model_error']:+.1f}% | {split} | "
            f"{LOSS[loss]} |")
    lines += ["", "## Against the targets", ""]
    lines.append(f"- Points below 90% of their roof: {len(below)} of {len(rows)}; the main loss "
                 "of each is in the last column. The common cause: the command processor runs "
                 "LOAD, MATMUL and STORE one after another, so DMA time adds to compute time "
                 "instead of hiding under it (load wait), and each MATMUL pays its N-cycle weight "
                 "load (fill), which dominates when M is small. Large K also forces the tiler to "
                 "reload A for every N-column block, which lowers the intensity (1024³: 7.8 "
                 "MACs per byte).")
    lines.append(f"- Model error above 10%: {len(off)} of {len(rows)} points (the model assumes "
                 "the full bus bandwidth and under-counts per-MATMUL costs at tiny M)"
                 + (": " + ", ".join(f"{r['label']} ({100 * r['model_error']:+.0f}%)" for r in off)
                    if off else "") + ".")
    if res:
        lines.append("- ResNet-50 layers: " + ", ".join(
            f"{r['label']} {100 * r['utilization']:.0f}%" for r in res) + " utilization.")
    lines.append("")
    # Keep the simulation-speed section that `make bench-sim` maintains.
    old = open(path).read() if os.path.exists(path) else ""
    begin, end = "<!-- sim-speed:begin", "<!-- sim-speed:end -->"
    if begin in old and end in old:
        lines += [old[old.index(begin):old.index(end) + len(end)], ""]
    with open(path, "w") as f:
        f.write("\n".join(lines))


if __name__ == "__main__":
    main()
