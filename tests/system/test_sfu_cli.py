#!/usr/bin/env python3
"""test_sfu_cli.py: the tessera SFU commands (sfu, softmax, layernorm, add, reduce, gemm --act/--leaky) on the simulated chip.

Every run uses --check (bit-exact against the golden model, exit status 0)
and --json; in addition the results are compared with numpy, computed
independently of our C code wherever that can be exact:

  * sfu --op lut:   y = T[x mod 256]
  * reduce:         max, sum, sum of squares per row (int32)
  * add:            TFLite's integer ADD in numpy int64 from the parameter
                    words the CLI reports (mbqm from test_numpy.py)
  * gemm --act-lut --leaky: test_numpy.py's requantization with the
                    negative-side multiplier QuantizeMultiplier(alpha * scale)
                    written here, then the table
  * softmax, layernorm: within 2 LSB of a float64 reference (the integer
                    algorithms are approximations; --check is the exact test)
  * named tables (sigmoid, ...): --check only (libm's expf/erff).

It also checks the one-line errors that need a device (a row that does not
fit the chip's memories) and the JSON fields.

usage: test_sfu_cli.py --tessera build/bin/tessera [--dims 4,8,16] [--seed S] [--tmp DIR]
Exits non-zero on the first failure, printing the case and the seed.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import time

try:
    import numpy as np
except ImportError:
    print("test_sfu_cli: numpy not found: pip install numpy (or apt-get install python3-numpy)")
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_numpy import mbqm, wrap32  # noqa: E402  (numpy reference of TFLite's requantization)

JSON_KEYS = ("op", "rows", "len", "cycles", "cycles_per_element", "check", "bus_read_bytes",
             "bus_write_bytes")


class Fail(Exception):
    pass


def quantize_multiplier(real):
    """TFLite QuantizeMultiplier for real >= 0: (mult, shift), flushed to (0, 0) below 2^-31."""
    if real == 0.0:
        return 0, 0
    q, shift = math.frexp(real)
    qf = math.floor(q * 2**31 + 0.5)          # round half away from zero (q > 0)
    if qf == 2**31:
        qf //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return int(qf), int(shift)


class Runner:
    def __init__(self, tessera, tmp, seed):
        self.tessera = tessera
        self.tmp = tmp
        self.seed = seed
        self.n = 0

    def path(self, name):
        return os.path.join(self.tmp, name)

    def save(self, name, arr):
        p = self.path(name)
        np.save(p, arr)
        return p

    def run(self, where, args, want_rc=0):
        cmd = [self.tessera] + [str(a) for a in args]
        r = subprocess.run(cmd, capture_output=True, text=True)
        self.n += 1
        if r.returncode != want_rc:
            raise Fail(f"{where}: exit {r.returncode} (wanted {want_rc}): {r.stderr.strip()}\n"
                       f"  command: {' '.join(cmd)}")
        return r

    def run_json(self, where, args):
        r = self.run(where, list(args) + ["--check", "--json"])
        try:
            j = json.loads(r.stdout)
        except ValueError:
            raise Fail(f"{where}: --json printed no JSON object: {r.stdout[:200]!r}")
        for k in JSON_KEYS:
            if k not in j:
                raise Fail(f"{where}: JSON lacks \"{k}\": {r.stdout.strip()}")
        if j["check"] != "pass":
            raise Fail(f"{where}: check is {j['check']}: {r.stdout.strip()}")
        if j["cycles"] <= 0 or j["bus_read_bytes"] <= 0 or j["bus_write_bytes"] <= 0:
            raise Fail(f"{where}: implausible counters: {r.stdout.strip()}")
        return j


def compare(where, got, want, tol=0):
    if got.shape != want.shape or got.dtype != want.dtype:
        raise Fail(f"{where}: output is {got.dtype} {got.shape}, expected {want.dtype} {want.shape}")
    diff = np.abs(got.astype(np.int64) - want.astype(np.int64))
    if diff.max(initial=0) > tol:
        idx = np.unravel_index(int(np.argmax(diff)), diff.shape)
        raise Fail(f"{where}: {int((diff > tol).sum())} elements differ by more than {tol}; first at "
                   f"{tuple(int(i) for i in idx)}: {int(got[idx])} vs numpy {int(want[idx])}")


def shapes_for(dim):
    # 1-D, one element, rows of several chunks, many blocks (two buffers), long rows.
    return [(7,), (1, 1), (37, 129), (3000, 40), (2, 1000 + dim // 2)]


def case_lut(R, rng, dim):
    for shape in shapes_for(dim):
        x = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        t = rng.integers(-128, 128, size=256, dtype=np.int64).astype(np.int8)
        where = f"dim {dim} sfu --op lut {shape}"
        px, pt, py = R.save("x.npy", x), R.save("t.npy", t), R.path("y.npy")
        j = R.run_json(where, ["sfu", "--dim", dim, "--op", "lut", "--lut", pt, "--in", px, "--out", py])
        compare(where, np.load(py), t[x.view(np.uint8)])
        rows = 1 if len(shape) == 1 else shape[0]
        if j["rows"] != rows or j["len"] != shape[-1] or j["op"] != "lut":
            raise Fail(f"{where}: JSON rows/len/op {j['rows']}/{j['len']}/{j['op']}")


def case_named(R, rng, dim):
    x = rng.integers(-128, 128, size=(37, 129), dtype=np.int64).astype(np.int8)
    px, py = R.save("x.npy", x), R.path("y.npy")
    for op, si, zi, so, zo in [("sigmoid", 0.05, 3, 1 / 256, -128), ("tanh", 0.03, 0, 1 / 128, 0),
                               ("gelu", 0.05, -5, 0.03, -10), ("gelu-tanh", 0.05, 0, 0.03, -10),
                               ("silu", 0.04, 1, 0.03, -20), ("exp", 0.02, 127, 1 / 32, -128),
                               ("hardswish", 0.05, 0, 0.04, -30)]:
        where = f"dim {dim} sfu --op {op}"
        R.run_json(where, ["sfu", "--dim", dim, "--op", op, "--in", px, "--in-scale", si, "--in-zp", zi,
                           "--out-scale", so, "--out-zp", zo, "--out", py])
        y = np.load(py)
        if y.shape != x.shape or y.dtype != np.int8:
            raise Fail(f"{where}: output is {y.dtype} {y.shape}")


def case_reduce(R, rng, dim):
    for shape in shapes_for(dim) + [(5, 65535)]:
        if shape == (5, 65535) and dim < 16:
            continue  # ceil(65535 / N) chunk rows fit 4096 scratchpad rows only from N = 16
        x = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        x2 = x.reshape(-1, shape[-1]).astype(np.int64)
        want = np.stack([x2.max(axis=1), x2.sum(axis=1), (x2 * x2).sum(axis=1)], axis=1).astype(np.int32)
        where = f"dim {dim} reduce {shape}"
        px, py = R.save("x.npy", x), R.path("r.npy")
        R.run_json(where, ["reduce", "--dim", dim, "--in", px, "--out", py])
        compare(where, np.load(py), want)


def case_add(R, rng, dim):
    for shape, (sa, za, sb, zb, so, zo) in [((37, 129), (0.05, 3, 0.07, -2, 0.1, 1)),
                                           ((3000, 40), (0.02, 0, 0.02, 0, 0.03, -7)),
                                           ((100,), (0.5, -128, 0.01, 127, 0.25, 0))]:
        a = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        b = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        where = f"dim {dim} add {shape}"
        pa, pb, py = R.save("a.npy", a), R.save("b.npy", b), R.path("y.npy")
        j = R.run_json(where, ["add", "--dim", dim, "--a", pa, "--a-scale", sa, "--a-zp", za, "--b", pb,
                               "--b-scale", sb, "--b-zp", zb, "--out-scale", so, "--out-zp", zo,
                               "--out", py])
        p = j["params"]
        xa = mbqm(wrap32((a.astype(np.int64) + p[0]) << 20), p[1], p[2])
        xb = mbqm(wrap32((b.astype(np.int64) + p[3]) << 20), p[4], p[5])
        y = wrap32(mbqm(wrap32(xa + xb), p[6], p[7]) + p[8])
        compare(where, np.load(py), np.clip(y, p[9], p[10]).astype(np.int8))


def case_mul(R, rng, dim):
    # TFLite's MUL Prepare (QuantizeMultiplier of s1 s2 / s_out from the float32 scales) and
    # MulElementwise in numpy; an output scale below s1 s2 gives a left shift.
    f32 = lambda v: float(np.float32(v))  # noqa: E731
    for shape, (sa, za, sb, zb, so, zo, lo, hi) in [
            ((37, 129), (0.05, 3, 0.07, -2, 0.4, 1, -128, 127)),
            ((3000, 40), (0.02, 0, 0.02, 0, 0.0002, -7, -7, 127)),
            ((100,), (0.5, -128, 0.01, 127, 2.5, 0, -20, 90))]:
        a = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        b = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        where = f"dim {dim} mul {shape}"
        pa, pb, py = R.save("a.npy", a), R.save("b.npy", b), R.path("y.npy")
        R.run_json(where, ["mul", "--dim", dim, "--a", pa, "--a-scale", sa, "--a-zp", za, "--b", pb,
                           "--b-scale", sb, "--b-zp", zb, "--out-scale", so, "--out-zp", zo,
                           "--act-min", lo, "--act-max", hi, "--out", py])
        m, s = quantize_multiplier(f32(sa) * f32(sb) / f32(so))
        y = wrap32(mbqm((a.astype(np.int64) - za) * (b.astype(np.int64) - zb), m, s) + zo)
        compare(where, np.load(py), np.clip(y, lo, hi).astype(np.int8))


def case_softmax(R, rng, dim):
    for shape, scale, beta in [((37, 129), 0.05, 1.0), ((1000,), 0.1, 0.5), ((300, 17), 0.2, 2.0)]:
        x = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        where = f"dim {dim} softmax {shape}"
        px, py = R.save("x.npy", x), R.path("y.npy")
        R.run_json(where, ["softmax", "--dim", dim, "--in", px, "--in-scale", scale, "--beta", beta,
                           "--out", py])
        z = beta * scale * x.astype(np.float64)
        z -= z.max(axis=-1, keepdims=True)
        s = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
        want = np.clip(np.round(s * 256) - 128, -128, 127).astype(np.int8)
        compare(where + " vs float", np.load(py), want, tol=2)


def case_layernorm(R, rng, dim):
    for shape in [(37, 129), (64,), (3, 1000)]:
        n = shape[-1]
        x = rng.integers(-128, 128, size=shape, dtype=np.int64).astype(np.int8)
        g = rng.integers(-128, 128, size=n, dtype=np.int64).astype(np.int8)
        bf = (rng.standard_normal(n) * 0.5).astype(np.float32)
        si, sg, zg, so, zo, eps = 0.05, 0.01, 2, 0.03, -5, 1e-5
        where = f"dim {dim} layernorm {shape}"
        px, pg, pb, py = R.save("x.npy", x), R.save("g.npy", g), R.save("b.npy", bf), R.path("y.npy")
        R.run_json(where, ["layernorm", "--dim", dim, "--in", px, "--in-scale", si, "--gamma", pg,
                           "--gamma-scale", sg, "--gamma-zp", zg, "--beta", pb, "--eps", eps,
                           "--out-scale", so, "--out-zp", zo, "--out", py])
        xf = si * x.astype(np.float64)
        mu = xf.mean(axis=-1, keepdims=True)
        var = xf.var(axis=-1, keepdims=True)
        z = (xf - mu) / np.sqrt(var + eps) * (sg * (g.astype(np.float64) - zg)) + bf.astype(np.float64)
        want = np.clip(np.round(z / so) + zo, -128, 127).astype(np.int8)
        compare(where + " vs float", np.load(py), want, tol=2)
        # beta as int32 at the accumulator scale gives the same bytes as float beta quantized.
        bq = np.round(bf.astype(np.float64) / (sg / 4096)).astype(np.int32)
        pq, py2 = R.save("bq.npy", bq), R.path("y2.npy")
        R.run_json(where + " int32 beta", ["layernorm", "--dim", dim, "--in", px, "--in-scale", si,
                                           "--gamma", pg, "--gamma-scale", sg, "--gamma-zp", zg,
                                           "--beta", pq, "--eps", eps, "--out-scale", so,
                                           "--out-zp", zo, "--out", py2])
        compare(where + " int32 beta", np.load(py2), np.load(py), tol=1)


def case_gemm_fused(R, rng, dim):
    m, k, n = 37, 129, 61
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int64).astype(np.int8)
    bias = rng.integers(-20000, 20000, size=n, dtype=np.int64).astype(np.int32)
    mult = rng.integers(2**30, 2**31, size=n, dtype=np.int64).astype(np.int32)
    shift = rng.integers(-10, -8, size=n, dtype=np.int64).astype(np.int32)
    t = rng.integers(-128, 128, size=256, dtype=np.int64).astype(np.int8)
    pa, pb, pbias = R.save("A.npy", a), R.save("B.npy", b), R.save("bias.npy", bias)
    pm, ps, pt, pc = R.save("M.npy", mult), R.save("S.npy", shift), R.save("T.npy", t), R.path("C.npy")
    zp, lo, hi = -3, -100, 120
    for alpha, table in [(0.1, True), (0.0, False), (1.0, True), (0.015625, False)]:
        where = f"dim {dim} gemm --leaky {alpha}{' --act-lut' if table else ''}"
        args = ["gemm", "--dim", dim, "--a", pa, "--b", pb, "--bias", pbias, "--mult-npy", pm,
                "--shift-npy", ps, "--out-zp", zp, "--act-min", lo, "--act-max", hi, "--leaky", alpha,
                "--out", pc, "--check"]
        if table:
            args += ["--act-lut", pt]
        R.run(where, args)
        acc = wrap32(a.astype(np.int64) @ b.astype(np.int64) + bias.astype(np.int64))
        neg = [quantize_multiplier(alpha * int(mult[c]) * 2.0 ** (int(shift[c]) - 31)) for c in range(n)]
        mn = np.array([q[0] for q in neg], dtype=np.int64)
        sn = np.array([q[1] for q in neg], dtype=np.int64)
        y_pos = mbqm(acc, mult.astype(np.int64), shift.astype(np.int64))
        y_neg = mbqm(acc, mn, sn)
        y = np.clip(wrap32(np.where(acc < 0, y_neg, y_pos) + zp), lo, hi).astype(np.int8)
        if table:
            y = t[y.view(np.uint8)]
        compare(where, np.load(pc), y)
    # Named activation: bit-exact with the golden model (--check).
    R.run(f"dim {dim} gemm --act gelu", ["gemm", "--dim", dim, "--a", pa, "--b", pb, "--mult", 1518500250,
                                         "--shift", -9, "--out-zp", -3, "--act", "gelu", "--out-scale",
                                         0.05, "--act-out-scale", 0.03, "--act-out-zp", -10, "--check"])


def f32(x):
    """A scale as a .tflite file holds it."""
    return float(np.float32(x))


def add_prepare(sa, za, sb, zb, so, zo):
    """TFLite's int8 ADD Prepare (left shift 20) on float32 scales, as the parameter words."""
    sa, sb, so = f32(sa), f32(sb), f32(so)
    twice = 2 * max(sa, sb)
    (m1, s1), (m2, s2) = quantize_multiplier(sa / twice), quantize_multiplier(sb / twice)
    mo, s_o = quantize_multiplier(twice / (2**20 * so))
    return [-za, m1, s1, -zb, m2, s2, mo, s_o, zo]


def ref_add(a, b, p, lo=-128, hi=127):
    xa = mbqm(wrap32((a.astype(np.int64) + p[0]) << 20), p[1], p[2])
    xb = mbqm(wrap32((b.astype(np.int64) + p[3]) << 20), p[4], p[5])
    y = wrap32(mbqm(wrap32(xa + xb), p[6], p[7]) + p[8])
    return np.clip(y, lo, hi).astype(np.int8)


def case_add_tflite(R, rng, dim):
    """Decimal scales (0.0937-style) as float32: the parameters of TFLite's Prepare, 60 sets;
    and a fused activation (--act-min/--act-max)."""
    a = rng.integers(-128, 128, size=(3, 16), dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, size=(3, 16), dtype=np.int64).astype(np.int8)
    pa, pb, py = R.save("a.npy", a), R.save("b.npy", b), R.path("y.npy")
    for i in range(60):
        sa, sb, so = (round(float(rng.uniform(0.001, 0.2)), 4) for _ in range(3))
        za, zb, zo = (int(z) for z in rng.integers(-20, 20, size=3))
        where = f"dim {dim} add scales {sa} {sb} {so}"
        j = R.run_json(where, ["add", "--dim", dim, "--a", pa, "--a-scale", sa, "--a-zp", za,
                               "--b", pb, "--b-scale", sb, "--b-zp", zb, "--out-scale", so,
                               "--out-zp", zo, "--out", py])
        want = add_prepare(sa, za, sb, zb, so, zo)
        if j["params"][:9] != want:
            raise Fail(f"{where}: parameters {j['params'][:9]}, TFLite's Prepare on float32 "
                       f"scales gives {want}")
        compare(where, np.load(py), ref_add(a, b, want))
    lo, hi = 5, 100  # RELU at an output zero point of 5, capped
    where = f"dim {dim} add --act-min {lo} --act-max {hi}"
    R.run_json(where, ["add", "--dim", dim, "--a", pa, "--a-scale", 0.05, "--a-zp", 3, "--b", pb,
                       "--b-scale", 0.04, "--out-scale", 0.03, "--out-zp", lo, "--act-min", lo,
                       "--act-max", hi, "--out", py])
    y = np.load(py)
    compare(where, y, ref_add(a, b, add_prepare(0.05, 3, 0.04, 0, 0.03, lo), lo, hi))
    if y.min() != lo or y.max() != hi:
        raise Fail(f"{where}: the clamp was not reached ({y.min()}..{y.max()}): the case tests nothing")


def case_softmax_in_zp(R, rng, dim):
    """--in-zp is accepted and cancels: the same bytes as without it."""
    x = rng.integers(-128, 128, size=(5, 33), dtype=np.int64).astype(np.int8)
    px, py0, py1 = R.save("x.npy", x), R.path("y0.npy"), R.path("y1.npy")
    R.run_json(f"dim {dim} softmax", ["softmax", "--dim", dim, "--in", px, "--in-scale", 0.07,
                                      "--out", py0])
    R.run_json(f"dim {dim} softmax --in-zp", ["softmax", "--dim", dim, "--in", px, "--in-scale", 0.07,
                                              "--in-zp", -17, "--out", py1])
    compare(f"dim {dim} softmax --in-zp -17", np.load(py1), np.load(py0))


def case_gemm_quant(R, rng, dim):
    """gemm --a-zp (folded into the bias) and requantization by scales, against numpy."""
    m, k, n = 19, 70, 13
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int64).astype(np.int8)
    bias = rng.integers(-20000, 20000, size=n, dtype=np.int64).astype(np.int32)
    pa, pb, pbias, pc = R.save("A.npy", a), R.save("B.npy", b), R.save("bias.npy", bias), R.path("C.npy")
    zp = int(rng.integers(-128, 128))
    acc = wrap32((a.astype(np.int64) - zp) @ b.astype(np.int64) + bias.astype(np.int64))
    R.run(f"dim {dim} gemm --a-zp {zp}", ["gemm", "--dim", dim, "--a", pa, "--b", pb, "--bias", pbias,
                                          "--a-zp", zp, "--out", pc, "--check"])
    compare(f"dim {dim} gemm --a-zp {zp} (int32)", np.load(pc), acc.astype(np.int32))
    a_scale, out_scale, out_zp = 0.0213, 0.731, -5
    w = rng.uniform(0.002, 0.02, size=n).astype(np.float32)
    for per_channel in (False, True):
        ws = w if per_channel else np.full(n, np.float32(0.0117))
        qm = [quantize_multiplier(f32(a_scale) * float(x) / f32(out_scale)) for x in ws]
        mult = np.array([q[0] for q in qm], np.int64)
        shift = np.array([q[1] for q in qm], np.int64)
        want = np.clip(wrap32(mbqm(acc, mult, shift) + out_zp), -128, 127).astype(np.int8)
        wopt = ["--w-scale-npy", R.save("W.npy", w)] if per_channel else ["--w-scale", 0.0117]
        where = f"dim {dim} gemm by scales ({'per channel' if per_channel else 'per tensor'})"
        R.run(where, ["gemm", "--dim", dim, "--a", pa, "--b", pb, "--bias", pbias, "--a-zp", zp,
                      "--a-scale", a_scale, "--out-scale", out_scale, "--out-zp", out_zp, "--out", pc,
                      "--check"] + wopt)
        compare(where, np.load(pc), want)


def case_gemm_any_mult(R, rng, dim):
    """Multipliers outside QuantizeMultiplier's range are applied as gemmlowp's arithmetic says."""
    m, k, n = 9, 40, 7
    a = rng.integers(-128, 128, size=(m, k), dtype=np.int64).astype(np.int8)
    b = rng.integers(-128, 128, size=(k, n), dtype=np.int64).astype(np.int8)
    pa, pb, pc = R.save("A.npy", a), R.save("B.npy", b), R.path("C.npy")
    acc = wrap32(a.astype(np.int64) @ b.astype(np.int64))
    for mult, shift in [(-5, 20), (1000, 16), (-2**31, 0), (-2**31, -7)]:
        where = f"dim {dim} gemm --mult {mult} --shift {shift}"
        R.run(where, ["gemm", "--dim", dim, "--a", pa, "--b", pb, "--mult", mult, "--shift", shift,
                      "--out", pc, "--check"])
        want = np.clip(wrap32(mbqm(acc, np.int64(mult), np.int64(shift))), -128, 127).astype(np.int8)
        compare(where, np.load(pc), want)


def case_submit_stream(R, rng, dim):
    """--submit stream (the default): bit-exact like regs, and the host's register accesses do
    not grow with the job (one RING_TAIL write; no CMDQ_PUSH or queue polls)."""
    r = R.run(f"dim {dim} gemm, no --submit", ["gemm", "--dim", dim, "--m", 8, "--k", 8, "--n", 8,
                                               "--json"])
    if json.loads(r.stdout)["submit"] != "stream":
        raise Fail(f"dim {dim}: without --submit, gemm did not go through the ring: {r.stdout.strip()}")
    acc = {}
    for sub in ("regs", "stream"):
        for shape in ((16, 16, 16), (1, 256, 256), (64, 64, 64)):
            where = f"dim {dim} gemm {shape} --submit {sub}"
            r = R.run(where, ["gemm", "--dim", dim, "--m", shape[0], "--k", shape[1], "--n", shape[2],
                              "--submit", sub, "--json"])
            j = json.loads(r.stdout)
            if j["check"] != "pass" or j["submit"] != sub:
                raise Fail(f"{where}: check {j['check']}, submit {j['submit']}")
            acc[sub, shape] = j["host_reg_accesses"]
    sizes = sorted({s for _, s in acc})
    stream = {acc["stream", s] for s in sizes}
    if len(stream) != 1:
        raise Fail(f"dim {dim}: host register accesses through the ring differ between shapes: "
                   f"{ {s: acc['stream', s] for s in sizes} }")
    if not all(acc["regs", s] > acc["stream", s] for s in sizes) or \
            acc["regs", (64, 64, 64)] <= acc["regs", (16, 16, 16)]:
        raise Fail(f"dim {dim}: register submission should cost more accesses and grow: {acc}")
    x = rng.integers(-128, 128, size=(9, 40), dtype=np.int64).astype(np.int8)
    px = R.save("x.npy", x)
    R.run_json(f"dim {dim} softmax --submit regs", ["softmax", "--dim", dim, "--in", px,
                                                    "--in-scale", 0.05, "--submit", "regs"])


def case_trace_error(R, rng, dim):
    """A trace file that cannot be created: one line, exit 2."""
    r = R.run(f"dim {dim} gemm --trace", ["gemm", "--dim", dim, "--m", 4, "--k", 4, "--n", 4, "--trace",
                                          R.path("no-such-dir/t.fst")], want_rc=2)
    if r.stderr.count("\n") != 1 or "cannot open trace file" not in r.stderr or r.stdout:
        raise Fail(f"dim {dim}: a bad --trace path: wanted one line with 'cannot open trace file', "
                   f"got {r.stderr!r}")


def case_device_errors(R, rng, dim):
    # One row that does not fit: a one-line error, exit 2, nothing else.
    x = rng.integers(-128, 128, size=(2, 65535), dtype=np.int64).astype(np.int8)
    px = R.save("wide.npy", x)
    r = R.run(f"dim {dim} add 65535 wide", ["add", "--dim", dim, "--a", px, "--b", px, "--a-scale", 1,
                                                "--b-scale", 1, "--out-scale", 1], want_rc=2)
    if r.stderr.count("\n") != 1 or "does not fit" not in r.stderr or r.stdout:
        raise Fail(f"dim {dim}: a row too wide for the scratchpad: wanted one line with 'does not fit', "
                   f"got {r.stderr!r}")


CASES = [case_lut, case_named, case_reduce, case_add, case_mul, case_softmax, case_layernorm, case_gemm_fused,
         case_add_tflite, case_softmax_in_zp, case_gemm_quant, case_gemm_any_mult, case_submit_stream, case_trace_error, case_device_errors]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tessera", required=True, help="path of the tessera binary")
    ap.add_argument("--dims", default="8", help="comma-separated array sizes (default 8)")
    ap.add_argument("--seed", type=int, default=None, help="seed (default: $TSR_SEED or the clock)")
    ap.add_argument("--tmp", default="build/tests/system/sfu-cli", help="directory for the .npy files")
    opt = ap.parse_args()
    seed = opt.seed
    if seed is None:
        env = os.environ.get("TSR_SEED")
        seed = int(env, 0) if env else time.time_ns() & 0xFFFFFFFF
    dims = [int(d) for d in opt.dims.replace(" ", ",").split(",") if d]
    os.makedirs(opt.tmp, exist_ok=True)
    print(f"test_sfu_cli: seed {seed} (replay with --seed {seed}), dims {dims}")
    R = Runner(opt.tessera, opt.tmp, seed)
    rng = np.random.default_rng(seed)
    t0 = time.time()
    for dim in dims:
        for case in CASES:
            try:
                case(R, rng, dim)
            except Fail as e:
                print(f"test_sfu_cli: FAIL (seed {seed}): {e}")
                return 1
            print(f"  ok: dim {dim} {case.__name__[5:]}")
    print(f"test_sfu_cli: all {R.n} runs passed ({time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
