#!/usr/bin/env python3
"""check_luts.py: the compiler's activation tables against TFLite Micro, every input byte.

    check_luts.py LUT_TABLES [--cases N] [--seed S]

For each of LOGISTIC, TANH, HARD_SWISH, RELU and RELU6 and N random
quantizations (input scale 2^-8..2^2 log-uniform, zero points anywhere in
int8; the output quantization TFLite requires for LOGISTIC and TANH, random
otherwise): write a one-operator int8 model with TFLite's schema module, run
TFLite Micro's interpreter on the 256 possible input bytes, and require the
table `LUT_TABLES` (tests/net/lut_tables.c: sw/lib/tsr_sfu_prep.c) prints to
equal it entry for entry. A parameter set TFLite Micro refuses must be
refused by the table too. Prints one line per operator; exit 1 on any
difference.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import subprocess
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gen_net_models import S, T, Builder, f32  # noqa: E402

try:
    from tflite_micro.python.tflite_micro import runtime as tflm
except ImportError:
    sys.exit("check_luts: tflite-micro not found: make deps (tools/install-deps.sh)")

OPS = {"LOGISTIC": S.LOGISTIC, "TANH": S.TANH, "HARD_SWISH": S.HARD_SWISH, "RELU": S.RELU,
       "RELU6": S.RELU6}
FIXED_OUT = {"LOGISTIC": (1.0 / 256.0, -128), "TANH": (1.0 / 128.0, 0)}


def model(code: int, qin, qout) -> bytes:
    b = Builder()
    x = b.tensor("x", T.INT8, [1, 256], *qin)
    y = b.tensor("y", T.INT8, [1, 256], *qout)
    b.op(code, [x], [y])
    return b.finish([x], [y], "one activation")


def micro(blob: bytes) -> list[int] | None:
    """TFLite Micro's outputs for the 256 input bytes; None when it refuses the model (its
    own message, printed by the C++ side, goes to /dev/null)."""
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 2)
    try:
        it = tflm.Interpreter.from_bytes(blob)
        it.set_input(np.arange(-128, 128, dtype=np.int8).reshape(1, 256), 0)
        it.invoke()
    except RuntimeError:
        return None
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)
    return [int(v) for v in np.array(it.get_output(0)).reshape(-1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("lut_tables")
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    cases = []
    for name in OPS:
        for _ in range(a.cases):
            qin = (f32(2.0 ** rng.uniform(-8, 2)), int(rng.integers(-128, 128)))
            qout = FIXED_OUT.get(name) or (f32(2.0 ** rng.uniform(-8, 2)), int(rng.integers(-128, 128)))
            cases.append((name, qin, qout))
    req = "".join(f"{n} {qi[0]!r} {qi[1]} {qo[0]!r} {qo[1]}\n" for n, qi, qo in cases)
    got = subprocess.run([a.lut_tables], input=req, capture_output=True, text=True, check=True).stdout
    fails = 0
    counts = {n: [0, 0] for n in OPS}
    for (name, qin, qout), line in zip(cases, got.splitlines(), strict=True):
        want = micro(model(OPS[name], qin, qout))
        have = None if line == "refused" else [int(v) for v in line.split()]
        if have == want:
            counts[name][want is None] += 1
        else:
            fails += 1
            if fails <= 5:
                diff = "refused by one side" if have is None or want is None else \
                    f"{sum(h != w for h, w in zip(have, want))} entries differ"
                print(f"check_luts: FAIL: {name} in {qin} out {qout}: {diff}")
    for name, (ok, refused) in counts.items():
        print(f"check_luts: {name}: {ok} tables equal to TFLite Micro's on all 256 inputs"
              + (f", {refused} quantizations refused by both" if refused else ""))
    if fails:
        sys.exit(f"check_luts: {fails} of {len(cases)} tables differ")


if __name__ == "__main__":
    main()
