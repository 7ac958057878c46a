#!/usr/bin/env python3
"""formal.py: prove one module's `ifdef FORMAL properties with Yosys + yosys-smtbmc.

A small stand-in for SymbiYosys (not packaged for Debian), doing what its `prove` mode
does with the smtbmc engine:

  1. yosys: read_verilog -formal -DFORMAL <files>; chparam; prep -top <top>;
     memory_nordff; async2sync; dffunmap; write_smt2 -wires  -> model.smt2
  2. yosys-smtbmc -t <depth>        base case: no assertion fails in the first
                                    <depth> cycles from reset (BMC)
  3. yosys-smtbmc -i -t <depth>     induction step: <depth> consecutive cycles that
                                    satisfy every assertion are always followed by one
                                    that does too (k-induction, from any state)

Both must pass for a proof (they run in parallel). On a counterexample it prints one line
naming the failing assertion and the trace (VCD) under build/formal/<name>/, and exits 1.

  tools/formal.py --name regs --top tsr_regs --depth 8 rtl/regs/tsr_regs.v
  tools/formal.py --name dma_rd_w32 --top tsr_dma_rd --depth 20 \
      --set AxiDataWidth=32 --set ArrayDim=4 rtl/tsr_dma_rd.v
Options: --solver z3 (default) or boolector/yices if installed; --bmc-only.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time


def fail(name: str, msg: str) -> int:
    print(f"formal {name}: FAIL: {msg}")
    return 1


def first_failure(log: str) -> str:
    """The first failing assertion (file:line) or error line of a yosys-smtbmc log."""
    for pat in (r"Assert failed in [^\n]*", r"Assumptions are unsatisfiable[^\n]*",
                r"ERROR[^\n]*", r"Error[^\n]*"):
        m = re.search(pat, log)
        if m:
            return m.group(0).strip()
    lines = [ln for ln in log.splitlines() if ln.strip()]
    return lines[-1].strip() if lines else "no output"


def run_sat(args: argparse.Namespace, out: str, defines: str, chparams: list[str],
            t0: float) -> int:
    """k-induction with Yosys's built-in SAT solver: base case and induction step."""
    name = args.name
    vcd = os.path.join(out, "trace.vcd")
    # --bmc-only also runs `sat -tempinduct` (its base case is BMC from reset, and it is far
    # faster here than one `sat -seq` problem); reaching --depth without a base-case
    # counterexample is a bounded proof to that depth, whatever the induction step says.
    mode = "-tempinduct"
    script = "; ".join(
        [f"read_verilog -formal {defines} {' '.join(args.files)}"] + chparams +
        [f"prep -flatten -top {args.top}", "memory_map", "opt -fast", "async2sync", "dffunmap",
         f"sat {mode} -prove-asserts -set-assumes "
         f"-set-init-zero -maxsteps {args.depth} "
         f"-show-inputs -dump_vcd {vcd}"])
    ylog = os.path.join(out, "yosys.log")
    r = subprocess.run(["yosys", "-l", ylog, "-p", script],
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, text=True)
    log = open(ylog).read()
    secs = time.monotonic() - t0
    params = (" " + " ".join(args.set)) if args.set else ""
    base_ok = "model found for base case" not in log and (
        "Reached maximum number of time steps" in log or "SUCCESS!" in log)
    if args.bmc_only and base_ok:
        print(f"formal {name}: PASS (bmc, depth {args.depth}{params}) {secs:.1f} s")
        return 0
    if r.returncode == 0 and "Induction step proven: SUCCESS" in log:
        m = re.findall(r"Trying induction with length (\d+)", log)
        k = m[-1] if m else str(args.depth)
        what = "bmc" if args.bmc_only else f"k-induction, k = {k}"
        print(f"formal {name}: PASS ({what}{params}) {secs:.1f} s")
        return 0
    if "model found for base case" in log or "FAIL" in log:
        what = "counterexample from reset (base case)"
    elif "Reached maximum number of time steps" in log:
        what = f"induction not proven within {args.depth} steps (add an invariant or raise --depth)"
    else:
        what = first_failure(log)
    print(f"formal {name}: FAIL: {what}; trace {vcd}, log {ylog}")
    return 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True, help="proof name; outputs in <build>/formal/<name>/")
    ap.add_argument("--top", required=True, help="top module")
    ap.add_argument("--depth", type=int, required=True, help="BMC depth and induction length k")
    ap.add_argument("--set", action="append", default=[], metavar="PARAM=VALUE",
                    help="override a parameter of the top module (chparam)")
    ap.add_argument("--define", action="append", default=[], metavar="MACRO[=VALUE]",
                    help="extra `define for read_verilog (FORMAL is always defined)")
    ap.add_argument("--engine", choices=("sat", "smtbmc"), default="sat",
                    help="sat: Yosys's own `sat -tempinduct` (default; works with yosys 0.23); "
                         "smtbmc: yosys-smtbmc (z3 4.8.12 hangs parsing some models here)")
    ap.add_argument("--solver", default="z3")
    ap.add_argument("--build", default="build")
    ap.add_argument("--bmc-only", action="store_true", help="skip the induction step")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    name = args.name

    tools = ("yosys",) if args.engine == "sat" else ("yosys", "yosys-smtbmc", args.solver)
    for tool in tools:
        if shutil.which(tool) is None:
            pkg = "yosys" if tool.startswith("yosys") else tool
            return fail(name, f"{tool} not found: apt-get install {pkg}")

    out = os.path.join(args.build, "formal", name)
    os.makedirs(out, exist_ok=True)
    for f in os.listdir(out):
        os.remove(os.path.join(out, f))
    t0 = time.monotonic()

    defines = " ".join(f"-D{d}" for d in ["FORMAL"] + args.define)
    chparams = []
    for s in args.set:
        if "=" not in s:
            return fail(name, f"--set {s}: expected PARAM=VALUE")
        p, v = s.split("=", 1)
        chparams.append(f"chparam -set {p} {v} {args.top}")
    if args.engine == "sat":
        return run_sat(args, out, defines, chparams, t0)
    model = os.path.join(out, "model.smt2")
    script = "; ".join(
        [f"read_verilog -formal {defines} {' '.join(args.files)}"] + chparams +
        [f"prep -flatten -top {args.top}", "memory_map", "opt -fast", "async2sync", "dffunmap",
         "check -assert", f"write_smt2 -wires {model}"])
    ylog = os.path.join(out, "yosys.log")
    r = subprocess.run(["yosys", "-q", "-l", ylog, "-p", script],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return fail(name, f"yosys: {first_failure(r.stdout)} (log: {ylog})")

    steps = [("bmc", [])] + ([] if args.bmc_only else [("induction", ["-i"])])
    procs = {}
    for step, extra in steps:
        vcd = os.path.join(out, f"{step}.vcd")
        cmd = ["yosys-smtbmc", "-s", args.solver, "--presat", *extra, "-t", str(args.depth),
               "--dump-vcd", vcd, model]
        logf = open(os.path.join(out, f"{step}.log"), "w")
        procs[step] = (subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT), logf, vcd)
    result = 0
    for step, (p, logf, vcd) in procs.items():
        p.wait()
        logf.close()
        log = open(logf.name).read()
        if p.returncode != 0 or "Status: PASSED" not in log:
            if result == 0:
                what = "counterexample" if step == "bmc" else "induction step fails"
                print(f"formal {name}: FAIL ({step}, depth {args.depth}): {what}: "
                      f"{first_failure(log)}; trace {vcd}, log {logf.name}")
            result = 1
    if result:
        return 1
    secs = time.monotonic() - t0
    what = "bmc" if args.bmc_only else "k-induction"
    params = (" " + " ".join(args.set)) if args.set else ""
    print(f"formal {name}: PASS ({what}, depth {args.depth}{params}) {secs:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
