#!/usr/bin/env python3
"""test_numpy.py: the tessera CLI on the simulated chip against numpy, computed independently of our C code.

For each case: random int8 A (M x K) and B (K x N), int32 bias and per-channel
multipliers/shifts are made with numpy and saved as .npy; `tessera gemm --a
--b [--bias] [--mult/--mult-npy --shift/--shift-npy ...] --out C.npy` runs them
through the driver, firmware and Verilated RTL; C.npy must equal

  * without requantization: numpy's own A @ B + bias in int64, wrapped to int32;
  * with requantization: TFLite's MultiplyByQuantizedMultiplier written here in
    numpy int64 arithmetic from the definitions in docs/programming.md
    (srdhm: round(a*b / 2^31) with ties toward +infinity, saturating
    INT32_MIN*INT32_MIN; rdbpot: x / 2^e rounded to nearest, ties away from
    zero; mbqm: wrapping left shift, srdhm, rdbpot), + zero point (wrapping),
    clamped to [act_min, act_max].

usage: test_numpy.py --tessera build/bin/tessera [--dims 4,8,16] [--seed S] [--tmp DIR]
Exits non-zero on the first mismatch, printing the case, the seed and the element.
"""

import argparse
import os
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:
    print("test_numpy: numpy not found: pip install numpy (or apt-get install python3-numpy)")
    sys.exit(2)

I32_MIN = -(2**31)
I32_MAX = 2**31 - 1


def wrap32(x):
    """int64 array -> the int32 values with the same low 32 bits (still int64)."""
    x = np.asarray(x, dtype=np.int64)
    return ((x + 2**31) & 0xFFFFFFFF) - 2**31


def srdhm(a, b):
    """round(a * b / 2^31), ties toward +infinity; INT32_MIN * INT32_MIN -> INT32_MAX.
    a, b: int64 arrays of int32 values; |a * b| <= 2^62 fits int64."""
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    ab = a * b
    # floor((ab + 2^30) / 2^31): round half up, i.e. toward +infinity.
    r = (ab + 2**30) >> 31
    return np.where((a == I32_MIN) & (b == I32_MIN), I32_MAX, r)


def rdbpot(x, e):
    """x / 2^e rounded to nearest, ties away from zero; 0 <= e <= 31."""
    x = np.asarray(x, dtype=np.int64)
    e = np.asarray(e, dtype=np.int64)
    q = x >> e                        # floor
    r = x - (q << e)                  # 0 <= r < 2^e
    half = np.where(e > 0, np.left_shift(np.int64(1), np.maximum(e - 1, 0)), 0)
    up = (r > half) | ((r == half) & (x >= 0))
    return np.where(e > 0, q + up.astype(np.int64), x)


def mbqm(x, mult, shift):
    """TFLite MultiplyByQuantizedMultiplier (double rounding): wrapping left
    shift by max(shift, 0), srdhm by mult, rdbpot by max(-shift, 0)."""
    shift = np.asarray(shift, dtype=np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0)
    xl = wrap32(np.left_shift(np.asarray(x, dtype=np.int64), left))
    return rdbpot(srdhm(xl, mult), right)


def self_test():
    """The helpers on values worked out by hand from the definitions."""
    checks = [
        (srdhm(I32_MIN, I32_MIN), I32_MAX),
        (srdhm(2**30, 2**30), 2**29),
        (srdhm(1, 2**30), 1),            # +0.5 -> 1
        (srdhm(-1, 2**30), 0),           # -0.5 -> 0 (toward +infinity)
        (srdhm(-3, 2**30), -1),          # -1.5 -> -1
        (srdhm(I32_MAX, I32_MIN), -I32_MAX),
        (rdbpot(3, 1), 2), (rdbpot(-3, 1), -2), (rdbpot(5, 2), 1), (rdbpot(-5, 2), -1),
        (rdbpot(6, 2), 2), (rdbpot(-6, 2), -2), (rdbpot(-7, 0), -7), (rdbpot(I32_MIN, 31), -1),
        (rdbpot(I32_MAX, 31), 1), (rdbpot(2**30 - 1, 31), 0),
        (mbqm(100, 2**30, 1), 100),      # (100 << 1) * 0.5
        (mbqm(-5, 2**30, -1), -1),       # srdhm: -2.5 -> -2; rdbpot: -2 / 2 = -1
        (mbqm(3, 2**30, -1), 1),         # srdhm: 1.5 -> 2; rdbpot: 2 / 2 = 1
        (mbqm(2**30, 2**30, 2), 0),      # 2^30 << 2 wraps to 0
    ]
    for i, (got, want) in enumerate(checks):
        if int(got) != want:
            print(f"test_numpy: self-test {i} of the numpy reference failed: {int(got)} != {want}")
            sys.exit(1)


def expected(a, b, bias, rq):
    acc = a.astype(np.int64) @ b.astype(np.int64)          # exact; |acc| < 2^31 for K <= 300
    x = wrap32(acc + (bias.astype(np.int64) if bias is not None else 0))
    if rq is None:
        return x.astype(np.int32)
    y = wrap32(mbqm(x, rq["mult"].astype(np.int64), rq["shift"].astype(np.int64)) + rq["zp"])
    return np.clip(y, rq["min"], rq["max"]).astype(np.int8)


def make_case(rng, m, k, n, mode):
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int64).astype(np.int8)
    spread = int(5000 * np.sqrt(k))
    bias = rng.integers(-spread, spread + 1, size=n, dtype=np.int64)
    if mode == "raw-extreme-bias":
        bias[0] = I32_MAX                 # the bias add wraps for positive sums
        if n > 1:
            bias[1] = I32_MIN
    bias = bias.astype(np.int32)
    lg = int(np.ceil(np.log2(max(k, 1))))
    base = 5 - (12 + lg // 2)
    mult = rng.integers(2**30, 2**31, size=n, dtype=np.int64)
    shift = np.clip(base + rng.integers(-2, 3, size=n), -31, 30)
    if mode == "per-channel-wild" and n >= 4:
        mult[:4] = [0, -(2**31), I32_MAX, -123456789]
        shift[:4] = [-31, 30, 0, -1]
    args, rq = [], None
    use_bias = mode not in ("raw", "per-tensor-nobias")
    if mode.startswith("raw"):
        pass
    elif mode.startswith("per-tensor"):
        rq = {"mult": np.full(n, mult[0]), "shift": np.full(n, shift[0]),
              "zp": int(rng.integers(-20, 21)), "min": -100, "max": 90}
        args += ["--mult", str(int(mult[0])), "--shift", str(int(shift[0])),
                 "--out-zp", str(rq["zp"]), "--act-min", "-100", "--act-max", "90"]
    elif mode == "mult-npy-only":
        rq = {"mult": mult, "shift": np.full(n, base), "zp": 0, "min": -128, "max": 127}
        args += ["--mult-npy", "MULT", "--shift", str(base)]
    else:
        lo, hi = int(rng.integers(-128, -30)), int(rng.integers(30, 128))
        rq = {"mult": mult, "shift": shift, "zp": int(rng.integers(-128, 128)), "min": lo, "max": hi}
        args += ["--mult-npy", "MULT", "--shift-npy", "SHIFT", "--out-zp", str(rq["zp"]),
                 "--act-min", str(lo), "--act-max", str(hi)]
    return a, b, (bias if use_bias else None), mult.astype(np.int32), shift.astype(np.int32), rq, args


CASES = [
    (1, 1, 1, "raw"),
    (1, 1, 1, "per-channel"),
    (37, 129, 61, "raw-bias"),
    (37, 129, 61, "per-channel"),
    (5, 300, 7, "per-tensor"),
    (64, 64, 64, "mult-npy-only"),
    (3, 17, 300, "raw-extreme-bias"),
    (300, 9, 2, "per-tensor-nobias"),
    (23, 129, 16, "per-channel-wild"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tessera", required=True, help="path of the tessera binary")
    ap.add_argument("--dims", default="8", help="comma-separated array sizes (default 8)")
    ap.add_argument("--seed", type=int, default=None, help="seed (default: $TSR_SEED or the clock)")
    ap.add_argument("--tmp", default="build/tests/system/numpy", help="directory for the .npy files")
    opt = ap.parse_args()
    seed = opt.seed
    if seed is None:
        env = os.environ.get("TSR_SEED")
        seed = int(env, 0) if env else time.time_ns() & 0xFFFFFFFF
    dims = [int(d) for d in opt.dims.replace(" ", ",").split(",") if d]
    os.makedirs(opt.tmp, exist_ok=True)
    self_test()
    print(f"test_numpy: seed {seed} (replay with --seed {seed}), dims {dims}, {len(CASES)} cases each")
    rng = np.random.default_rng(seed)
    t0 = time.time()
    for dim in dims:
        for (m, k, n, mode) in CASES:
            a, b, bias, mult, shift, rq, extra = make_case(rng, m, k, n, mode)
            p = lambda name: os.path.join(opt.tmp, f"d{dim}_{m}x{k}x{n}_{mode}_{name}.npy")
            np.save(p("A"), a)
            np.save(p("B"), b)
            np.save(p("MULT"), mult)
            np.save(p("SHIFT"), shift)
            cmd = [opt.tessera, "gemm", "--dim", str(dim), "--a", p("A"), "--b", p("B"),
                   "--out", p("C"), "--check"]
            if bias is not None:
                np.save(p("BIAS"), bias)
                cmd += ["--bias", p("BIAS")]
            cmd += [p(x) if x in ("MULT", "SHIFT") else x for x in extra]
            if os.path.exists(p("C")):
                os.remove(p("C"))
            run = subprocess.run(cmd, capture_output=True, text=True)
            where = f"dim {dim}, {m}x{k}x{n} {mode} (seed {seed})"
            if run.returncode != 0:
                print(f"test_numpy: FAIL {where}: tessera exited {run.returncode}: "
                      f"{run.stderr.strip()}\n  command: {' '.join(cmd)}")
                return 1
            got = np.load(p("C"))
            want = expected(a, b, bias, rq)
            if got.dtype != want.dtype or got.shape != want.shape:
                print(f"test_numpy: FAIL {where}: C.npy is {got.dtype} {got.shape}, "
                      f"expected {want.dtype} {want.shape}")
                return 1
            bad = np.argwhere(got != want)
            if bad.size:
                r, c = (int(v) for v in bad[0])
                print(f"test_numpy: FAIL {where}: {len(bad)} elements differ; first C[{r}][{c}] = "
                      f"{int(got[r, c])}, numpy expects {int(want[r, c])}\n  command: {' '.join(cmd)}")
                return 1
            if rq is not None:
                inside = np.mean((want > rq["min"]) & (want < rq["max"]))
                note = f", {100 * inside:.0f} % inside the clamp range"
            else:
                note = ""
            print(f"  ok: {where.split(' (')[0]}{note}")
    print(f"test_numpy: all {len(dims) * len(CASES)} runs equal numpy ({time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
