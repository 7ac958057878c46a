#!/usr/bin/env python3
"""check_mlperf.py: the MLPerf Tiny models and the attention block on the chip against TFLite Micro.

    check_mlperf.py MODELS_DIR TESSERA_BIN [--dims 8,4,16] [--inputs 10,3,3] [--seed S]

MODELS_DIR is what tools/gen_mlperf_tiny.py wrote (mlperf_tiny.txt: NAME INPUT_DTYPE MACS).
For each array size and each model, random int8 inputs go through TFLite Micro's
interpreter and through the chip with tessera.Device.run (the whole inference as
one command stream); the first input also through `tessera run MODEL.tflite
--check --layers --dump-layers DIR` (every chip layer against the golden model, a
stream each), and every layer output it dumps against TFLite Micro's own
intermediate tensor (layer_oracle.py).
Every output byte must equal TFLite Micro's. A model the compiler refuses fails,
unless KNOWN_REFUSED names it with the reason, and then the refusal must still
happen (so that this list is kept true). Prints one line per model and size with
the cycles of one inference; exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime as tflm
except ImportError as e:
    sys.exit(f"check_mlperf: {e.name} not found: make deps (tools/install-deps.sh pins it)")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import tessera  # noqa: E402
import layer_oracle  # noqa: E402  (beside this file)

# Models the compiler does not take yet, with the part of its one-line refusal that says why.
KNOWN_REFUSED: dict[str, str] = {}
# At most this many inputs per size for a model (the attention block's SOFTMAX alone takes 1.4 M
# cycles of simulation per inference).
MAX_INPUTS = {"attention": 2}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("models", type=pathlib.Path)
    ap.add_argument("tessera")
    ap.add_argument("--dims", default="8,4,16")
    ap.add_argument("--inputs", default="10,3,3")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("TSR_SEED", "1")))
    a = ap.parse_args()
    dims = [int(v) for v in a.dims.split(",")]
    counts = [int(v) for v in a.inputs.split(",")]
    if len(dims) != len(counts):
        sys.exit("check_mlperf: --dims and --inputs need as many values each")
    rng = np.random.default_rng(a.seed)
    names = [ln.split()[0] for ln in (a.models / "mlperf_tiny.txt").read_text().splitlines() if ln]
    fails: list[str] = []
    t0 = time.time()
    n_inputs = 0
    n_tensors = 0
    with tempfile.TemporaryDirectory(prefix="tsr_mlperf_") as tmp:
        for dim, count in zip(dims, counts):
            dev = tessera.Device(f"sim:{dim}")
            for name in names:
                path = a.models / f"{name}.tflite"
                blob = path.read_bytes()
                it = tflm.Interpreter.from_bytes(blob, arena_size=16 << 20)
                shape = it.get_input_details(0)["shape"]
                n = min(count, MAX_INPUTS.get(name, count))
                xs = [rng.integers(-128, 128, shape, dtype=np.int8) for _ in range(n)]
                want = []
                for x in xs:
                    it.set_input(x, 0)
                    it.invoke()
                    want.append(np.array(it.get_output(0)))
                try:
                    runs = [dev.run(blob, x) for x in xs]
                except tessera.TesseraError as e:
                    why = KNOWN_REFUSED.get(name)
                    if why is not None and why in str(e):
                        print(f"  {name}, N = {dim}: refused as known: {e}")
                    else:
                        fails.append(f"{name}, N = {dim}: {e}")
                    continue
                if name in KNOWN_REFUSED:
                    fails.append(f"{name}, N = {dim}: compiles now; take it out of KNOWN_REFUSED")
                bad = sum(r.out.tobytes() != w.tobytes() for r, w in zip(runs, want))
                if bad:
                    fails.append(f"{name}, N = {dim}: {bad} of {n} inputs differ from TFLite Micro")
                xin = pathlib.Path(tmp) / "x.npy"
                np.save(xin, xs[0])
                dump = pathlib.Path(tmp) / f"{name}_d{dim}"
                p = subprocess.run([a.tessera, "run", str(path), "--input", str(xin), "--check",
                                    "--layers", "--dump-layers", str(dump), "--dim", str(dim)],
                                   capture_output=True, text=True, check=False)
                if p.returncode != 0 or "bit-exact: yes" not in p.stdout:
                    fails.append(f"{name}, N = {dim}: tessera run --check --layers: exit "
                                 f"{p.returncode}: {(p.stderr or p.stdout).strip()[-200:]}")
                # Every chip layer's output against TFLite Micro's own intermediate tensor.
                n_layers, differ = layer_oracle.compare(blob, xs[0], dump)
                fails += [f"{name}, N = {dim}: --dump-layers: {d}" for d in differ]
                n_tensors += n_layers
                n_inputs += n
                print(f"  {name}, N = {dim}: {n} input(s) {'bit-exact' if not bad else 'DIFFERENT'}"
                      f" vs TFLite Micro, {runs[0].figures['cycles']:,} cycles,"
                      f" {runs[0].figures['commands']:,} commands per inference")
            dev.close()
    for f in fails:
        print(f"check_mlperf: FAIL: {f}")
    print(f"check_mlperf: {len(names)} models at N = {', '.join(map(str, dims))}: {n_inputs} inputs"
          f" compared, and {n_tensors} intermediate tensors of one input per model and size;"
          f" {len(fails)} failures, {time.time() - t0:.1f} s")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
