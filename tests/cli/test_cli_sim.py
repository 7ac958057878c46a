#!/usr/bin/env python3
"""test_cli_sim.py: the CLI cases of `make test-cli` that load the simulator but run no long job.

1. `tessera gemm --plan`, text and --json, on shapes that need one or many tiles,
   K chunks and N-column blocks: every field is there, the two outputs agree, the
   tiling covers the problem without a spare tile, the command and byte counts
   follow from it, and the prediction is positive and not below the compute roof.
   A 2048^3 plan must come back at once: --plan does not simulate.
2. `tessera bench --quick --out TMP` (about 20 s): exit 0, one progress line per
   point and a summary, bench.json with the 12 points of the quick sweep, each
   checked against the golden model ("check": "pass") with cycles > 0,
   bench.csv with the same rows, roofline.gp, and the plot (PNG and SVG) if
   gnuplot is on the PATH, else the one-line message that it was skipped.

Prints one line per failure and a summary; exits 1 if anything failed.

usage: test_cli_sim.py --tessera BIN --dim N --tmp DIR [--no-bench]
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

FAILS = []


def expect(cond, what):
    if not cond:
        FAILS.append(what)
        print(f"test-cli: FAIL: {what}")
    return cond


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


# (m, k, n, extra options): one tile; many K chunks and m-tiles (caps); a wide N; int32 output.
PLAN_CASES = [
    (37, 129, 61, []),
    (300, 500, 70, ["--max-mt", "64", "--max-kc", "128"]),
    (1, 1024, 1024, []),
    (3136, 576, 64, []),
    (96, 40, 33, ["--raw"]),
]

TEXT_RES = {
    "head": r"^gemm (\d+)x(\d+)x(\d+) on a (\d+)x\d+ array: plan$",
    "tiles": r"^  tiles: (\d+) x (\d+) rows, (\d+) N-column blocks, K chunk (\d+) \((\d+) chunks?\)$",
    "groups": r"^  n-groups: (\d+) of (\d+) N-column blocks? \(one A chunk feeds each group's blocks\)$",
    "order": r"^  loop order: (.*)$",
    "buffers": r"^  buffers: (\d+) scratchpad A/W pairs?, (\d+) accumulator tiles?; (.*)$",
    # "other": the table's LUT_LOAD, the NOP that ends the tail token (fw/tsr_gemm_emit.c)
    "commands": r"^  commands: (\d+) \((\d+) LOAD, (\d+) MATMUL, (\d+) parameter LOAD, (\d+) STORE(?:, (\d+) other)?\)$",
    "dma": r"^  DMA payload: (\d+) B read, (\d+) B written \(([\d.]+) MACs per byte\)$",
    "roofs": r"^  roofs: compute (\d+) cycles \(MACs / N\^2\), memory (\d+) cycles \(bytes / (\d+) B per cycle\)$",
    "predicted": r"^  predicted: (\d+) cycles, utilization ([\d.]+) % ",
}

PLAN_KEYS = ["tile_m", "k_chunk", "m_tiles", "n_blocks", "k_chunks", "n_group", "n_groups",
             "preload", "a_resident", "spad_bufs",
             "acc_bufs", "commands", "dma_read_bytes", "dma_write_bytes", "compute_cycles",
             "memory_cycles", "est_cycles", "est_utilization"]


def ceil_div(a, b):
    return -(-a // b)


def check_plan(tessera, dim, axi, m, k, n, extra):
    name = f"gemm --plan {m}x{k}x{n} {' '.join(extra)}".rstrip()
    base = [tessera, "gemm", "--m", str(m), "--k", str(k), "--n", str(n), "--dim", str(dim),
            "--plan"] + extra
    rj, rt = run(base + ["--json"]), run(base)
    if not (expect(rj.returncode == 0 and rj.stderr == "", f"{name} --json: exit {rj.returncode}, "
                   f"stderr {rj.stderr.strip()!r}") and
            expect(rt.returncode == 0 and rt.stderr == "", f"{name}: exit {rt.returncode}, "
                   f"stderr {rt.stderr.strip()!r}")):
        return
    try:
        top = json.loads(rj.stdout)
    except ValueError:
        expect(False, f"{name} --json: not one JSON object: {rj.stdout[:200]!r}")
        return
    expect((top.get("m"), top.get("k"), top.get("n"), top.get("dim")) == (m, k, n, dim),
           f"{name} --json: m, k, n, dim are {top.get('m')}, {top.get('k')}, {top.get('n')}, "
           f"{top.get('dim')}")
    expect("cycles" not in top, f"{name} --json: reports measured cycles, so it ran the job")
    p = top.get("plan", {})
    missing = [key for key in PLAN_KEYS if key not in p]
    if not expect(not missing, f"{name} --json: plan lacks {missing}"):
        return
    # The tiling covers M, K and N, with no tile, chunk or block to spare.
    mt, kc = p["tile_m"], p["k_chunk"]
    expect(mt > 0 and p["m_tiles"] == ceil_div(m, mt),
           f"{name}: {p['m_tiles']} m-tiles of {mt} rows for M = {m}")
    expect(kc > 0 and kc % dim == 0 and p["k_chunks"] == ceil_div(k, kc),
           f"{name}: {p['k_chunks']} K chunks of {kc} for K = {k} (a chunk is a multiple of N = {dim})")
    expect(p["n_blocks"] == ceil_div(n, dim), f"{name}: {p['n_blocks']} N-column blocks for N = {n}")
    expect(1 <= p["n_group"] <= p["n_blocks"] and p["n_groups"] == ceil_div(p["n_blocks"], p["n_group"]),
           f"{name}: {p['n_groups']} n-groups of {p['n_group']} blocks for {p['n_blocks']} blocks")
    expect(p["a_resident"] == (p["k_chunks"] == 1),
           f"{name}: a_resident {p['a_resident']} with {p['k_chunks']} K chunks")
    caps = dict(zip(extra[::2], extra[1::2]))
    if "--max-mt" in caps:
        expect(mt <= int(caps["--max-mt"]), f"{name}: tile_m {mt} above --max-mt")
    if "--max-kc" in caps:
        expect(kc <= max(int(caps["--max-kc"]), dim), f"{name}: k_chunk {kc} above --max-kc")
    # Bytes: every operand is read at least once; C is written exactly once.
    esize = 4 if "--raw" in extra else 1
    expect(p["dma_read_bytes"] >= m * k + k * n,
           f"{name}: {p['dma_read_bytes']} bytes read, less than A and B ({m * k + k * n})")
    expect(p["dma_write_bytes"] == m * n * esize,
           f"{name}: {p['dma_write_bytes']} bytes written, C is {m * n * esize}")
    # Roofs and the prediction.
    macs = m * k * n
    expect(p["compute_cycles"] == macs // (dim * dim),
           f"{name}: compute roof {p['compute_cycles']}, MACs / N^2 = {macs // (dim * dim)}")
    moved = p["dma_read_bytes"] + p["dma_write_bytes"]
    expect(p["memory_cycles"] == ceil_div(moved, axi),
           f"{name}: memory roof {p['memory_cycles']}, bytes / {axi} = {ceil_div(moved, axi)}")
    expect(p["est_cycles"] > 0 and p["est_cycles"] >= p["compute_cycles"],
           f"{name}: est_cycles {p['est_cycles']} is 0 or below the compute roof "
           f"{p['compute_cycles']}")
    expect(p["est_cycles"] > 0 and
           abs(p["est_utilization"] - p["compute_cycles"] / p["est_cycles"]) < 1e-5,
           f"{name}: est_utilization {p['est_utilization']} is not compute / est_cycles")

    # The text says the same.
    lines = rt.stdout.splitlines()
    got = {}
    for key, pat in TEXT_RES.items():
        hit = [re.match(pat, ln) for ln in lines]
        hit = [h for h in hit if h]
        if expect(len(hit) == 1, f"{name}: text output has {len(hit)} '{key}' lines:\n{rt.stdout}"):
            got[key] = hit[0].groups()
    if len(got) != len(TEXT_RES):
        return
    i = lambda key, g: int(got[key][g])  # noqa: E731
    expect((i("head", 0), i("head", 1), i("head", 2), i("head", 3)) == (m, k, n, dim),
           f"{name}: text heading {got['head']}")
    expect((i("tiles", 0), i("tiles", 1), i("tiles", 2), i("tiles", 3), i("tiles", 4)) ==
           (p["m_tiles"], mt, p["n_blocks"], kc, p["k_chunks"]),
           f"{name}: text tiles {got['tiles']} differ from the JSON plan")
    expect(("A tile stays resident" in got["order"][0]) == p["a_resident"],
           f"{name}: loop order '{got['order'][0]}' with a_resident {p['a_resident']}")
    expect((i("buffers", 0), i("buffers", 1)) == (p["spad_bufs"], p["acc_bufs"]),
           f"{name}: text buffers {got['buffers']}")
    expect(("weights preloaded" in got["buffers"][2]) == p["preload"],
           f"{name}: text buffers '{got['buffers'][2]}' with preload {p['preload']}")
    expect((i("groups", 0), i("groups", 1)) == (p["n_groups"], p["n_group"]),
           f"{name}: text n-groups {got['groups']}")
    cmds = [int(x) for x in got["commands"] if x is not None]
    expect(cmds[0] == p["commands"] and cmds[0] == sum(cmds[1:]),
           f"{name}: {cmds[0]} commands, JSON {p['commands']}, the kinds add up to {sum(cmds[1:])}")
    tiles = p["m_tiles"] * p["n_blocks"]
    expect(cmds[2] == tiles * p["k_chunks"],  # one MATMUL per sub-tile and K chunk
           f"{name}: {cmds[2]} MATMULs, {tiles} tiles x {p['k_chunks']} K chunks")
    expect(cmds[4] == tiles, f"{name}: {cmds[4]} STOREs for {tiles} tiles")
    expect((i("dma", 0), i("dma", 1)) == (p["dma_read_bytes"], p["dma_write_bytes"]),
           f"{name}: text DMA {got['dma']}")
    expect(abs(float(got["dma"][2]) - macs / moved) < 0.051,
           f"{name}: text intensity {got['dma'][2]}, MACs / bytes = {macs / moved:.2f}")
    expect((i("roofs", 0), i("roofs", 1), i("roofs", 2)) == (p["compute_cycles"], p["memory_cycles"], axi),
           f"{name}: text roofs {got['roofs']}")
    expect(i("predicted", 0) == p["est_cycles"],
           f"{name}: text predicts {got['predicted'][0]} cycles, JSON {p['est_cycles']}")
    expect(abs(float(got["predicted"][1]) - 100 * p["est_utilization"]) < 0.051,
           f"{name}: text utilization {got['predicted'][1]} %")


QUICK_LABELS = ["16^3", "32^3", "64^3", "128^3", "256^3", "M=1", "M=8", "49x4608x512",
                "128x768x768", "2 B/c", "4 B/c", "8 B/c"]
CSV_HEADER = ("group,label,m,k,n,bytes_per_cycle,macs,dram_bytes,intensity,cycles,utilization,"
              "macs_per_cycle,roof,attainment,predicted_cycles,model_error")


def check_bench(tessera, dim, tmp):
    out = os.path.join(tmp, "bench-quick")
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.time()
    r = run([tessera, "bench", "--quick", "--dim", str(dim), "--out", out])
    took = time.time() - t0
    print(f"test-cli: tessera bench --quick took {took:.1f} s")
    plot = shutil.which("gnuplot") is not None
    if not expect(r.returncode == 0, f"bench --quick: exit {r.returncode}: {r.stderr.strip()}"):
        return
    if plot:
        expect(r.stderr == "", f"bench --quick: stderr {r.stderr.strip()!r}")
        for ext in ("png", "svg"):
            f = os.path.join(out, f"roofline.{ext}")
            expect(os.path.exists(f) and os.path.getsize(f) > 0, f"bench --quick: no {f}")
    else:
        expect(r.stderr.count("\n") == 1 and "the roofline plot was skipped" in r.stderr
               and "gnuplot-nox" in r.stderr,
               f"bench --quick without gnuplot: stderr {r.stderr.strip()!r}")
    lines = r.stdout.splitlines()
    expect(len(lines) == len(QUICK_LABELS) + 1 and all(ln.startswith("bench: ") for ln in lines)
           and "12 points" in lines[-1], f"bench --quick: stdout is not a line per point and a "
           f"summary:\n{r.stdout}")
    try:
        with open(os.path.join(out, "bench.json")) as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        expect(False, f"bench --quick: bench.json: {e}")
        return
    meta, pts = data.get("meta", {}), data.get("points", [])
    expect(meta.get("dim") == dim and meta.get("peak_macs_per_cycle") == dim * dim
           and meta.get("axi_bytes", 0) > 0, f"bench --quick: meta {meta}")
    expect([p.get("label") for p in pts] == QUICK_LABELS,
           f"bench --quick: points {[p.get('label') for p in pts]}, expected {QUICK_LABELS}")
    for p in pts:
        expect(p.get("check") == "pass" and p.get("cycles", 0) > 0 and p.get("dram_bytes", 0) > 0,
               f"bench --quick: {p.get('label')}: check {p.get('check')}, cycles {p.get('cycles')}, "
               f"dram_bytes {p.get('dram_bytes')}")
        if all(key in p for key in ("macs", "m", "k", "n", "cycles", "utilization")):
            expect(p["macs"] == p["m"] * p["k"] * p["n"] and
                   abs(p["utilization"] - p["macs"] / (dim * dim * p["cycles"])) < 1e-5,
                   f"bench --quick: {p['label']}: macs {p['macs']}, utilization {p['utilization']}")
    try:
        with open(os.path.join(out, "bench.csv")) as f:
            csv = f.read().splitlines()
    except OSError as e:
        expect(False, f"bench --quick: bench.csv: {e}")
        return
    expect(csv[:1] == [CSV_HEADER], f"bench --quick: bench.csv header {csv[:1]}")
    expect([ln.split(",")[1] for ln in csv[1:]] == [p.get("label") for p in pts],
           "bench --quick: bench.csv rows differ from bench.json")
    expect(os.path.exists(os.path.join(out, "roofline.gp")), "bench --quick: no roofline.gp")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tessera", required=True)
    ap.add_argument("--dim", type=int, default=8)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--no-bench", action="store_true", help="skip the quick bench (20 s)")
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    info = run([a.tessera, "info", "--dim", str(a.dim), "--json"])
    if info.returncode != 0:
        sys.exit(f"test-cli: tessera info failed: {info.stderr.strip()}")
    axi = json.loads(info.stdout)["axi_bytes"]
    n = 0
    for m, k, nn, extra in PLAN_CASES:
        check_plan(a.tessera, a.dim, axi, m, k, nn, extra)
        n += 1
    # A plan of a job that would simulate for hours (2048^3: over 10^8 cycles) comes back
    # without running it: no measured figure in its JSON, and well inside a minute (about
    # 2 s here; 20 s in make coverage's instrumented build on a loaded machine).
    t0 = time.time()
    r = run([a.tessera, "gemm", "--m", "2048", "--k", "2048", "--n", "2048", "--dim", str(a.dim),
             "--plan", "--json"])
    took = time.time() - t0
    ran = r.returncode == 0 and "cycles" in json.loads(r.stdout)
    expect(r.returncode == 0 and not ran and took < 60,
           f"gemm --plan 2048^3: exit {r.returncode} after {took:.1f} s"
           + (", and it ran the job" if ran else ""))
    n += 1
    if not a.no_bench:
        check_bench(a.tessera, a.dim, a.tmp)
        n += 1
    if FAILS:
        sys.exit(f"test-cli: {len(FAILS)} check(s) failed in the --plan/bench cases")
    print(f"test-cli: --plan on {n - (0 if a.no_bench else 1)} shapes"
          f"{'' if a.no_bench else ' and bench --quick'}: all passed")


if __name__ == "__main__":
    main()
