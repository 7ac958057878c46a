#!/usr/bin/env python3
"""Tessera against Arm's Vela: cycles per model and per layer, for the same .tflite.

    python3 tools/vela_compare.py [--dim 8|16] [--tessera build/bin/tessera] [--json OUT]
                                  [--markdown OUT] MODEL.tflite...

For each model:
  - Vela (PyPI ethos-u-vela, pinned in tools/install-deps.sh) compiles it for an
    Ethos-U55 with as many MACs as the array has PEs (64 against N = 8, 256
    against N = 16), with its default system configuration. Its figure is
    `cycles_npu`: NPU cycles only, without the off-chip weight streaming
    (`cycles_off_chip_flash_access`) that its default configuration adds.
  - Tessera runs it once as one command stream (total cycles) and once with
    `--layers` (each chip layer its own stream, for the per-layer figures), on
    an input of zeros of the model's input type (cycles do not depend on data).

Memory assumptions, printed with the tables: Vela's default
(Ethos_U55_High_End_Embedded: 500 MHz, SRAM at 3.73 GB/s = 8 B/cycle, weights
in off-chip flash, excluded here); Tessera's simulator default (one AXI port
of the build's width, memory latency as `tessera info` reports).

A Vela layer row is given to the TFLite operator whose output tensor carries
its name; the rows Vela splits one operator into (SOFTMAX becomes about 20
elementwise operations) come before it and are summed into it.
"""
from __future__ import annotations

import argparse
import csv
import json
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

VELA_ACCEL = {8: "ethos-u55-64", 16: "ethos-u55-256"}


def vela(model: pathlib.Path, dim: int, out: pathlib.Path) -> tuple[dict, list[dict]]:
    """Vela's summary row and per-layer rows for `model` on the U55 matching N = dim."""
    cmd = [sys.executable, "-c", "import sys; from ethosu.vela.vela import main; sys.exit(main())",
           "--accelerator-config", VELA_ACCEL[dim], "--verbose-performance", "--output-dir", str(out), str(model)]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise SystemExit(f"vela_compare: vela failed on {model}: {run.stderr.strip().splitlines()[-1:]}")
    summary = next(out.glob(f"{model.stem}_summary_*.csv"))
    with summary.open() as f:
        total = next(csv.DictReader(f))
    with (out / f"{model.stem}_per-layer.csv").open() as f:
        layers = list(csv.DictReader(f))
    return total, layers


def tessera(binary: str, model: pathlib.Path, dim: int, x: pathlib.Path, layers: bool) -> dict | str:
    """`tessera run --json` on the model; the message of a refusal (exit status 2) instead."""
    cmd = [binary, "run", str(model), "--input", str(x), "--json", "--dim", str(dim)]
    run = subprocess.run(cmd + (["--layers"] if layers else []), capture_output=True, text=True,
                         check=False)
    if run.returncode == 2 and run.stderr.count("\n") == 1:
        return run.stderr.strip().removeprefix("tessera: ")
    if run.returncode != 0:
        raise SystemExit(f"vela_compare: tessera run failed on {model}: {run.stderr.strip()}")
    return json.loads(run.stdout)


def model_ops(model: pathlib.Path) -> tuple[list[tuple[int, str, str]], dict]:
    """The TFLite operators (index, name, output tensor name) and the input's details."""
    from ai_edge_litert.interpreter import Interpreter  # pylint: disable=import-outside-toplevel

    it = Interpreter(model_path=str(model))
    names = {t["index"]: t["name"] for t in it.get_tensor_details()}
    ops = [(o["index"], o["op_name"], names[int(o["outputs"][0])]) for o in it._get_ops_details()]
    return ops, it.get_input_details()[0]


def vela_per_op(ops: list[tuple[int, str, str]], rows: list[dict]) -> dict[int, int]:
    """Vela's NPU cycles per TFLite operator index (rows matched by output tensor name)."""
    by_name = {name: idx for idx, _, name in ops}
    per_op: dict[int, int] = {}
    pending = 0
    for r in rows:
        pending += int(float(r["NPU"]))
        idx = by_name.get(r["Name"])
        if idx is not None:
            per_op[idx] = per_op.get(idx, 0) + pending
            pending = 0
    return per_op


def compare(binary: str, model: pathlib.Path, dim: int, work: pathlib.Path) -> dict:
    ops, inp = model_ops(model)
    x = work / f"{model.stem}_x.npy"
    np.save(x, np.zeros(inp["shape"], inp["dtype"]))
    total, rows = vela(model, dim, work / f"vela-{model.stem}-{dim}")
    vela_fig = {"model": model.stem, "dim": dim, "vela_accelerator": total["accelerator_configuration"],
                "vela_macs": int(float(total["nn_macs"])),
                "vela_npu_cycles": int(float(total["cycles_npu"])),
                "vela_total_cycles": int(float(total["cycles_total"]))}
    whole = tessera(binary, model, dim, x, layers=False)
    if isinstance(whole, str):
        return vela_fig | {"refused": whole, "layers": []}
    split = tessera(binary, model, dim, x, layers=True)
    per_op = vela_per_op(ops, rows)
    kinds = {idx: name for idx, name, _ in ops}
    layers = []
    for lay in split["layers"]:
        if not lay["on_chip"] and lay["op"] not in per_op:
            continue
        layers.append({"op": lay["op"], "operator": kinds.get(lay["op"], lay["kind"]),
                       "macs": lay["macs"], "tessera_cycles": lay["cycles"],
                       "vela_npu_cycles": per_op.get(lay["op"])})
    # Utilization counts the network's MACs (Vela's count), not the chip's: the chip also
    # counts the zeros it multiplies (K padded to N, a depthwise layer's block diagonal).
    macs = vela_fig["vela_macs"]
    return vela_fig | {"macs": macs, "chip_macs": whole["macs"], "tessera_cycles": whole["cycles"],
                       "tessera_dram_bytes": whole["dram_read_bytes"] + whole["dram_write_bytes"],
                       "tessera_utilization": macs / (dim * dim * whole["cycles"]) if whole["cycles"] else 0.0,
                       # Vela leaves a model it cannot map to the NPU to the CPU: no NPU cycles.
                       "ratio": (whole["cycles"] / vela_fig["vela_npu_cycles"]
                                 if vela_fig["vela_npu_cycles"] else None), "layers": layers}


def markdown(results: list[dict]) -> str:
    out = ["MACs are the network's (Vela's count); utilization is MACs ÷ N² ÷ Tessera's cycles.", "",
           "| model | N | MACs | Tessera cycles | utilization | Tessera DRAM bytes | Vela | Vela NPU cycles | Tessera ÷ Vela |",
           "|---|--:|--:|--:|--:|--:|---|--:|--:|"]
    refused = [r for r in results if "refused" in r]
    for r in results:
        if "refused" in r:
            out.append(f"| {r['model']} | {r['dim']} | {r['vela_macs']:,} | refused ¹ | - | - | "
                       f"{r['vela_accelerator']} | {r['vela_npu_cycles']:,} | - |")
            continue
        ratio = "- (Vela: CPU only)" if r["ratio"] is None else f"{r['ratio']:.2f}"
        out.append(f"| {r['model']} | {r['dim']} | {r['macs']:,} | {r['tessera_cycles']:,} | "
                   f"{100 * r['tessera_utilization']:.1f} % | {r['tessera_dram_bytes']:,} | {r['vela_accelerator']} | "
                   f"{r['vela_npu_cycles']:,} | {ratio} |")
    if refused:
        out += ["", "¹ not compiled by `tessera`:", ""]
        out += sorted({f"- {r['model']}: {r['refused']}" for r in refused})
    for r in results:
        if "refused" in r:
            continue
        out += ["", f"{r['model']}, N = {r['dim']} against {r['vela_accelerator']}, per layer "
                "(Tessera: each chip layer its own stream):", "",
                "| op | operator | chip MACs | Tessera cycles | Vela NPU cycles |", "|--:|---|--:|--:|--:|"]
        for lay in r["layers"]:
            v = "-" if lay["vela_npu_cycles"] is None else f"{lay['vela_npu_cycles']:,}"
            out.append(f"| {lay['op']} | {lay['operator']} | {lay['macs']:,} | "
                       f"{lay['tessera_cycles']:,} | {v} |")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("models", nargs="+", type=pathlib.Path)
    ap.add_argument("--dim", type=int, action="append", choices=sorted(VELA_ACCEL))
    ap.add_argument("--tessera", default="build/bin/tessera")
    ap.add_argument("--json", type=pathlib.Path)
    ap.add_argument("--markdown", type=pathlib.Path)
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for dim in args.dim or [8, 16]:
            for m in args.models:
                results.append(compare(args.tessera, m, dim, pathlib.Path(tmp)))
    text = markdown(results)
    if args.markdown:
        args.markdown.write_text(text)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
