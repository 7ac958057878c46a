#!/usr/bin/env python3
"""check_bad_models.py: bad models give one clear line and exit 2, never a crash.

    check_bad_models.py TESSERA_BIN

Writes, with TFLite's schema module, models that are broken or that the chip
cannot run, and requires `tessera compile` on each to exit with status 2, print
nothing on stdout and exactly one line on stderr that holds the expected words:

  - a truncated file (every length from 0 to the whole, in steps);
  - offsets that point outside the buffer (the root table, a vector, a string);
  - a float model (FULLY_CONNECTED on float32 tensors);
  - an unsupported operator (SUB), which the line names with its index and the
    supported list;
  - a tensor over the chip's address range (activations of 256 MiB, four of them
    needed at once: even with the arena reused by liveness the program needs more
    than the 1 GiB the compiler allows);
  - a program past the command limit (a TRANSPOSE that needs 8,388,610 commands),
    refused with the limit named.

Prints one line per case; exit 1 on any failure.
"""

from __future__ import annotations

import pathlib
import struct
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from gen_net_models import ACT, O, S, T, Builder, add, fc, tfl  # noqa: E402

FAILS: list[str] = []


def good_model() -> bytes:
    b = Builder()
    x = b.tensor("input", T.INT8, [1, 16], 0.05, 3)
    rng = np.random.default_rng(5)
    y = fc(b, x, 0.05, rng.normal(0, 1, (8, 16)), rng.normal(0, 1, 8), True, 0.1, -4, ACT.RELU, [1, 8], "fc")
    return b.finish([x], [y], "good")


def float_model() -> bytes:
    b = Builder()
    x = b.tensor("input", T.FLOAT32, [1, 4])
    w = b.tensor("w", T.FLOAT32, [2, 4], data=np.ones((2, 4), "<f4").tobytes())
    y = b.tensor("y", T.FLOAT32, [1, 2])
    b.op(S.FULLY_CONNECTED, [x, w, -1], [y])
    return b.finish([x], [y], "float")


def sub_model() -> bytes:
    b = Builder()
    x = b.tensor("input", T.INT8, [1, 6], 0.05, 0)
    y = b.tensor("y", T.INT8, [1, 6], 0.05, 0)
    z = b.tensor("z", T.INT8, [1, 6], 0.1, 0)
    b.op(S.RELU, [x], [y])
    b.op(S.SUB, [x, y], [z])
    return b.finish([x], [z], "sub")


def huge_model() -> bytes:
    """Activations of 256 MiB (2^28 elements, the most a tensor may have), four of them needed
    at once: while y3 is computed, x and y1 wait for the ADDs at the end and y2 is its input.
    The arena reused by liveness still needs more than the 1 GiB the compiler allows."""
    b = Builder()
    shape = [16384, 16384]
    x = b.tensor("input", T.INT8, shape, 0.05, 0)
    ys = [x]
    for i in range(3):
        y = b.tensor(f"y{i + 1}", T.INT8, shape, 0.05, 0)
        b.op(S.RELU, [ys[-1]], [y])
        ys.append(y)
    a = add(b, x, ys[3], shape, 0.05, 0, ACT.NONE, "a")
    out = add(b, ys[1], a, shape, 0.05, 0, ACT.NONE, "out")
    return b.finish([0], [out], "huge")


def many_commands_model() -> bytes:
    """A TRANSPOSE of [2, 4194305] into [4194305, 2]: the DMA moves one output row (two
    bytes, a LOAD and a STORE) per input column, 8,388,610 commands, two past the program's
    limit (TSR_NET_MAX_CMDS): refused with the limit named, not as "out of memory"."""
    b = Builder()
    n = 4194305
    x = b.tensor("input", T.INT8, [2, n], 0.05, 0)
    perm = b.tensor("perm", T.INT32, [2], data=np.array([1, 0], "<i4").tobytes())
    y = b.tensor("y", T.INT8, [n, 2], 0.05, 0)
    b.op(S.TRANSPOSE, [x, perm], [y], O.TransposeOptions, tfl.TransposeOptionsT())
    return b.finish([x], [y], "many commands")


def expect(tessera: str, tmp: pathlib.Path, what: str, blob: bytes, words: list[str]) -> None:
    path = tmp / "bad.tflite"
    path.write_bytes(blob)
    p = subprocess.run([tessera, "compile", str(path), "-o", str(tmp / "bad.tsr"), "--dim", "8"],
                       capture_output=True, text=True, check=False, timeout=60)
    lines = p.stderr.splitlines()
    if p.returncode != 2 or p.stdout or len(lines) != 1 or not all(w in lines[0] for w in words):
        FAILS.append(f"{what}: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r} "
                     f"(want exit 2 and one line with {words})")
        return
    print(f"  {what}: {lines[0]}")


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit("usage: check_bad_models.py TESSERA_BIN")
    tessera = sys.argv[1]
    good = good_model()
    with tempfile.TemporaryDirectory(prefix="tsr_bad_") as d:
        tmp = pathlib.Path(d)
        for n in sorted({0, 3, 4, 8, 16, len(good) // 3, len(good) // 2, len(good) - 1}):
            expect(tessera, tmp, f"truncated to {n} of {len(good)} bytes", good[:n], ["bad.tflite"])
        # The root table's offset, then every 4-byte word in turn set to a far offset: whatever
        # it was (an offset, a length, a count), the reader refuses or reads in bounds.
        far = struct.pack("<I", len(good) + 4096)
        expect(tessera, tmp, "root offset outside the buffer", far + good[4:], ["bad.tflite"])
        outside = 0
        for at in range(8, len(good) - 4, 4):
            blob = good[:at] + far + good[at + 4:]
            path = tmp / "bad.tflite"
            path.write_bytes(blob)
            p = subprocess.run([tessera, "compile", str(path), "-o", str(tmp / "bad.tsr"), "--dim", "8"],
                               capture_output=True, text=True, check=False, timeout=60)
            if p.returncode not in (0, 2) or (p.returncode == 2 and len(p.stderr.splitlines()) != 1):
                FAILS.append(f"word {at // 4} set to an outside offset: exit {p.returncode}, {p.stderr!r}")
            outside += p.returncode == 2
        print(f"  every word set to an outside offset: {outside} of {(len(good) - 12) // 4} refused with "
              f"one line, the rest compiled")
        expect(tessera, tmp, "a float model", float_model(), ["FLOAT32", "not supported"])
        expect(tessera, tmp, "an unsupported operator", sub_model(),
               ["operator 1 (SUB) is not supported", "supported: FULLY_CONNECTED"])
        expect(tessera, tmp, "a tensor over the chip's address range", huge_model(),
               ["bytes of device memory"])
        expect(tessera, tmp, "a program past the command limit", many_commands_model(),
               ["operator 0 (COPY)", "command limit of 8388608 commands"])
    for f in FAILS:
        print(f"check_bad_models: FAIL: {f}")
    print(f"check_bad_models: {'PASS' if not FAILS else 'FAIL'}")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
