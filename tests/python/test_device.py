"""test_device.py: the Python package tessera on the simulator, against references written in numpy.

GEMM (raw int32 and requantized, per tensor and per channel, by mult/shift and by
scales, with the input zero point), ADD, the table map and REDUCE are compared with
integer arithmetic written here in numpy (TFLite's requantization, independent of
the C code). Softmax, layer norm and named tables cannot be exact in numpy (fixed-
point exp, the rsqrt iteration, float32 libm): they run with check=True against the
golden model in C and are held to a float reference within a few LSB. Then the
errors: wrong dtypes and shapes, unknown specs, bad scales, the library's own messages.
Random tests take their seed from --seed (conftest.py) and name it when they fail.
"""
import math

import numpy as np
import pytest

import tessera
from conftest import DIMS

I32_MIN, I32_MAX = -2**31, 2**31 - 1


# ---- TFLite integer arithmetic in numpy (int64 holding int32 values) ------------------------

def wrap32(x):
    """Wrap int64 values to int32 like the hardware's adders."""
    return ((np.asarray(x, np.int64) + 2**31) % 2**32 - 2**31).astype(np.int64)


def srdhm(a, b):
    """gemmlowp SaturatingRoundingDoublingHighMul: round(a b / 2^31), ties towards +inf."""
    a, b = np.broadcast_arrays(np.asarray(a, np.int64), np.asarray(b, np.int64))
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    s = ab + nudge
    q = np.where(s >= 0, s >> 31, -((-s) >> 31))  # division truncating towards zero
    return np.where((a == I32_MIN) & (b == I32_MIN), I32_MAX, q)


def rdbpot(x, e):
    """gemmlowp RoundingDivideByPOT: x / 2^e, ties away from zero."""
    x, e = np.broadcast_arrays(np.asarray(x, np.int64), np.asarray(e, np.int64))
    mask = (np.int64(1) << e) - 1
    rem = x & mask
    thr = (mask >> 1) + (x < 0)
    return (x >> e) + (rem > thr)


def mbqm(x, mult, shift):
    """TFLite MultiplyByQuantizedMultiplier: left shift wrapping, srdhm, rounding right shift."""
    shift = np.asarray(shift, np.int64)
    left, right = np.maximum(shift, 0), np.maximum(-shift, 0)
    return rdbpot(srdhm(wrap32(np.asarray(x, np.int64) << left), mult), right)


def quantize_multiplier(real):
    """TFLite QuantizeMultiplier in Python floats: (mult, shift)."""
    if real == 0.0:
        return 0, 0
    q, e = math.frexp(real)
    m = int(math.floor(q * 2**31 + 0.5))
    if m == 2**31:
        m, e = m // 2, e + 1
    if e < -31:
        return 0, 0
    return m, e


def f32(x):
    return float(np.float32(x))


def ref_gemm(a, b, bias=None, a_zp=0, mult=None, shift=None, out_zp=0, act_min=-128,
             act_max=127):
    """(A - a_zp) B + bias in wrapping int32; requantized to int8 when mult is given."""
    acc = (a.astype(np.int64) - a_zp) @ b.astype(np.int64)
    if bias is not None:
        acc = acc + np.asarray(bias, np.int64)
    acc = wrap32(acc)
    if mult is None:
        return acc.astype(np.int32)
    y = wrap32(mbqm(acc, mult, shift) + out_zp)
    return np.clip(y, act_min, act_max).astype(np.int8)


def rng_for(seed, case):
    return np.random.default_rng([seed, case])


def i8(rng, shape):
    return rng.integers(-128, 128, size=shape, dtype=np.int8)


def assert_equal(got, want, what, seed):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape} (--seed {seed})"
    bad = np.argwhere(got != want)
    idx = tuple(int(i) for i in bad[0]) if bad.size else ()
    assert bad.size == 0, (f"{what}: {len(bad)} element(s) differ, first at {idx}: got "
                           f"{got[tuple(bad[0])]}, want {want[tuple(bad[0])]} (--seed {seed})")


# ---- GEMM -----------------------------------------------------------------------------------

def test_gemm_raw_int32_matches_numpy_on_random_shapes(dev, seed):
    """Raw accumulators + bias - a_zp * colsum, for shapes off multiples of N."""
    for case, (m, k, n) in enumerate([(1, 1, 1), (5, 9, 3), (17, 31, 13), (33, 8, 20),
                                      (9, 70, 11)]):
        rng = rng_for(seed, case)
        a, b = i8(rng, (m, k)), i8(rng, (k, n))
        bias = rng.integers(-2**20, 2**20, size=n, dtype=np.int32)
        a_zp = int(rng.integers(-128, 128))
        res = dev.gemm(a, b, bias, a_zp=a_zp)
        assert res.out.dtype == np.int32
        assert_equal(res.out, ref_gemm(a, b, bias, a_zp), f"gemm {m}x{k}x{n} a_zp={a_zp}", seed)
        assert res.figures["macs"] == m * k * n


def test_gemm_through_the_command_ring_is_exact_and_costs_constant_register_accesses(seed):
    """submit="stream": the same bytes as numpy; the host's register accesses per job do not
    grow with the job, and are fewer than with submit="regs"."""
    accesses = {}
    for submit in ("stream", "regs"):
        with tessera.Device("sim:8", submit=submit) as d:
            for case, (m, k, n) in enumerate([(3, 9, 5), (40, 70, 30)]):
                rng = rng_for(seed, 900 + case)
                a, b = i8(rng, (m, k)), i8(rng, (k, n))
                res = d.gemm(a, b)
                assert_equal(res.out, ref_gemm(a, b), f"gemm {m}x{k}x{n} submit={submit}", seed)
                assert res.figures["streamed"] == (submit == "stream")
                accesses[submit, case] = res.figures["host_reg_accesses"]
    assert accesses["stream", 0] == accesses["stream", 1], accesses
    assert accesses["regs", 1] > accesses["regs", 0] > accesses["stream", 0], accesses
    with pytest.raises(tessera.TesseraError, match="submit: expected 'stream' or 'regs'"):
        tessera.Device("sim:8", submit="ring")


def test_gemm_requant_per_tensor_and_per_channel_by_mult_shift(dev, seed):
    for case, (m, k, n, per_channel) in enumerate([(7, 19, 5, False), (12, 40, 17, True),
                                                   (3, 5, 9, True), (20, 16, 8, False)]):
        rng = rng_for(seed, 100 + case)
        a, b = i8(rng, (m, k)), i8(rng, (k, n))
        bias = rng.integers(-5000, 5000, size=n, dtype=np.int32)
        a_zp = int(rng.integers(-128, 128))
        if per_channel:
            mult = rng.integers(2**30, 2**31 - 1, size=n, dtype=np.int64).astype(np.int32)
            shift = rng.integers(-12, -6, size=n, dtype=np.int64).astype(np.int32)
        else:
            mult, shift = int(rng.integers(2**30, 2**31 - 1)), -9
        out_zp = int(rng.integers(-20, 20))
        act_min, act_max = int(rng.integers(-128, -90)), int(rng.integers(90, 128))
        res = dev.gemm(a, b, bias, a_zp=a_zp, mult=mult, shift=shift, out_zp=out_zp,
                       act_min=act_min, act_max=act_max, check=True)
        assert res.out.dtype == np.int8 and res.figures["check"] == "pass"
        want = ref_gemm(a, b, bias, a_zp, mult, shift, out_zp, act_min, act_max)
        assert_equal(res.out, want, f"gemm {m}x{k}x{n} per_channel={per_channel}", seed)
        assert len(np.unique(res.out)) > 3, "requantized output collapsed: the test is too weak"


def test_gemm_random_sweep_raw_per_tensor_per_channel(dev, seed):
    """40 random jobs: shapes 1..70, raw / per tensor / per channel, random a_zp and bias."""
    rng = rng_for(seed, 150)
    for case in range(40):
        m, k, n = (int(v) for v in rng.integers(1, 71, size=3))
        a, b = i8(rng, (m, k)), i8(rng, (k, n))
        bias = rng.integers(-2**15, 2**15, size=n, dtype=np.int32) if case % 3 else None
        a_zp = int(rng.integers(-128, 128))
        kind = case % 3
        lg = max(int(math.log2(k)), 0)
        mult = shift = None
        if kind == 1:
            mult, shift = int(rng.integers(2**30, 2**31 - 1)), -(7 + lg // 2)
        elif kind == 2:
            mult = rng.integers(2**30, 2**31 - 1, size=n, dtype=np.int64).astype(np.int32)
            shift = (-(7 + lg // 2) + rng.integers(-1, 2, size=n)).astype(np.int32)
        zp = case % 7 - 3 if kind else 0
        res = dev.gemm(a, b, bias, a_zp=a_zp, mult=mult, shift=shift, out_zp=zp)
        want = ref_gemm(a, b, bias, a_zp, mult, shift, zp)
        assert_equal(res.out, want, f"sweep case {case}: {m}x{k}x{n} kind {kind} a_zp {a_zp}",
                     seed)


def test_gemm_requant_by_scales_matches_tflite_prepare(dev, seed):
    """a_scale * w_scale / out_scale, each rounded to float32 first, through QuantizeMultiplier."""
    for case, per_channel in enumerate([False, True]):
        rng = rng_for(seed, 200 + case)
        m, k, n = 10, 24, 13
        a, b = i8(rng, (m, k)), i8(rng, (k, n))
        bias = rng.integers(-3000, 3000, size=n, dtype=np.int32)
        a_scale, out_scale = 0.0213, 0.731
        w_scale = (rng.uniform(0.002, 0.02, size=n) if per_channel else 0.0117)
        ws = np.broadcast_to(np.asarray(w_scale, np.float64), (n,))
        qm = [quantize_multiplier(f32(a_scale) * f32(w) / f32(out_scale)) for w in ws]
        mult = np.array([q[0] for q in qm], np.int64)
        shift = np.array([q[1] for q in qm], np.int64)
        res = dev.gemm(a, b, bias, a_zp=-7, a_scale=a_scale, w_scale=w_scale, out_scale=out_scale,
                       out_zp=3, check=True)
        assert_equal(res.out, ref_gemm(a, b, bias, -7, mult, shift, 3),
                     f"gemm by scales per_channel={per_channel}", seed)
        m_c, s_c = tessera.quantize_scales(a_scale, w_scale, out_scale, n)
        assert_equal(m_c, mult, "quantize_scales mult", seed)
        assert_equal(s_c, shift, "quantize_scales shift", seed)


def test_fold_a_zp_is_exact_and_wraps(seed):
    rng = rng_for(seed, 300)
    b = i8(rng, (50, 6))
    bias = np.array([I32_MAX, I32_MIN, 0, -1, 12345, I32_MAX - 7], np.int32)
    for a_zp in (-128, -1, 0, 5, 127):
        want = wrap32(bias.astype(np.int64) - a_zp * b.astype(np.int64).sum(axis=0))
        assert_equal(tessera.fold_a_zp(b, bias, a_zp), want, f"fold a_zp={a_zp}", seed)
    assert_equal(tessera.fold_a_zp(b, None, 3), -3 * b.astype(np.int64).sum(axis=0), "no bias",
                 seed)


def test_gemm_figures_are_filled(dev8):
    a, b = np.ones((16, 16), np.int8), np.ones((16, 8), np.int8)
    out, fig = dev8.gemm(a, b)
    assert (out == 16).all()
    for key in ("cycles", "busy_cycles", "bus_read_bytes", "bus_write_bytes", "commands",
                "plan_cycles"):
        assert fig[key] > 0, key
    assert fig["bus_write_bytes"] == 16 * 8 * 4
    assert sum(fig["time"].values()) == fig["busy_cycles"]
    assert set(fig["time"]) == {"compute", "fill", "load_wait", "store", "sfu", "control"}
    assert 0 < fig["utilization"] <= 1
    assert fig["check"] == "skipped"


def test_gemm_fused_table_and_leaky_pass_the_golden_model(dev8, seed):
    rng = rng_for(seed, 400)
    a, b = i8(rng, (9, 20)), i8(rng, (20, 10))
    res = dev8.gemm(a, b, mult=1 << 30, shift=-8, act="gelu", out_scale=0.05, check=True)
    assert res.figures["check"] == "pass"
    table = i8(rng, (256,))
    plain = dev8.gemm(a, b, mult=1 << 30, shift=-8)
    res = dev8.gemm(a, b, mult=1 << 30, shift=-8, act_lut=table)
    assert_equal(res.out, table[plain.out.view(np.uint8)], "gemm act_lut", seed)
    dev8.gemm(a, b, mult=1 << 30, shift=-8, leaky=0.1, check=True)


# ---- SFU jobs -------------------------------------------------------------------------------------

def ref_add(a, b, sa, za, sb, zb, so, zo, act_min=-128, act_max=127):
    """TFLite int8 ADD (left shift 20) with its Prepare, in numpy."""
    sa, sb, so = f32(sa), f32(sb), f32(so)
    twice = 2 * max(sa, sb)
    m1, s1 = quantize_multiplier(sa / twice)
    m2, s2 = quantize_multiplier(sb / twice)
    mo, s_o = quantize_multiplier(twice / (2**20 * so))
    x1 = mbqm(wrap32((a.astype(np.int64) - za) << 20), m1, s1)
    x2 = mbqm(wrap32((b.astype(np.int64) - zb) << 20), m2, s2)
    y = wrap32(mbqm(wrap32(x1 + x2), mo, s_o) + zo)
    return np.clip(y, act_min, act_max).astype(np.int8)


def test_add_matches_numpy_with_fused_clamp(dev, seed):
    for case, shape in enumerate([(7, 13), (40,), (3, 64)]):
        rng = rng_for(seed, 500 + case)
        a, b = i8(rng, shape), i8(rng, shape)
        p = dict(a_scale=0.05, a_zp=int(rng.integers(-20, 20)), b_scale=0.031,
                 b_zp=int(rng.integers(-20, 20)), out_scale=0.07, out_zp=-4)
        act_min = -4 if case == 1 else -128  # ReLU at the output zero point
        res = dev.add(a, b, act_min=act_min, check=True, **p)
        want = ref_add(a, b, p["a_scale"], p["a_zp"], p["b_scale"], p["b_zp"], p["out_scale"],
                       p["out_zp"], act_min)
        assert_equal(res.out, want, f"add {shape}", seed)


def ref_mul(a, b, sa, za, sb, zb, so, zo, act_min=-128, act_max=127):
    """TFLite int8 MUL (MulElementwise) with its Prepare, in numpy."""
    m, s = quantize_multiplier(float(f32(sa)) * float(f32(sb)) / float(f32(so)))
    y = wrap32(mbqm((a.astype(np.int64) - za) * (b.astype(np.int64) - zb), m, s) + zo)
    return np.clip(y, act_min, act_max).astype(np.int8)


def test_mul_matches_numpy_with_fused_clamp(dev, seed):
    # An output scale below the product of the input scales (a left shift: most of it
    # saturates) and two that span the output range.
    for case, (shape, so) in enumerate([((7, 13), 0.0008), ((40,), 0.4), ((3, 64), 0.8)]):
        rng = rng_for(seed, 550 + case)
        a, b = i8(rng, shape), i8(rng, shape)
        p = dict(a_scale=0.05, a_zp=int(rng.integers(-128, 128)), b_scale=0.031,
                 b_zp=int(rng.integers(-128, 128)), out_scale=so, out_zp=-4)
        act_min = -4 if case == 1 else -128  # ReLU at the output zero point
        res = dev.mul(a, b, act_min=act_min, check=True, **p)
        want = ref_mul(a, b, p["a_scale"], p["a_zp"], p["b_scale"], p["b_zp"], p["out_scale"],
                       p["out_zp"], act_min)
        assert_equal(res.out, want, f"mul {shape}", seed)
        assert case == 0 or len(np.unique(want)) > min(want.size // 3, 30), "it spans the output"


def test_sfu_raw_table_and_reduce_match_numpy(dev, seed):
    rng = rng_for(seed, 600)
    x, table = np.arange(-128, 128, dtype=np.int8).reshape(8, 32), i8(rng, (256,))
    assert_equal(dev.sfu(x, "lut", lut=table).out, table[x.view(np.uint8)], "sfu lut", seed)
    x1 = i8(rng, (50,))
    assert_equal(dev.sfu(x1, "lut", lut=table).out, table[x1.view(np.uint8)], "sfu lut 1-D", seed)
    xi = x.astype(np.int64)
    want = np.stack([xi.max(axis=1), xi.sum(axis=1), (xi * xi).sum(axis=1)], axis=1)
    assert_equal(dev.reduce(x, check=True).out, want, "reduce", seed)


@pytest.mark.parametrize("op,fn", [
    ("sigmoid", lambda v: 1 / (1 + np.exp(-v))),
    ("tanh", np.tanh),
    ("gelu", lambda v: 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))),
    ("silu", lambda v: v / (1 + np.exp(-v))),
    ("exp", np.exp),
    ("gelu-tanh",
     lambda v: 0.5 * v * (1 + np.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v**3)))),
    ("hardswish", lambda v: v * np.clip(v + 3, 0, 6) / 6),
])
def test_sfu_named_functions_pass_golden_and_float(dev8, seed, op, fn):
    rng = rng_for(seed, 700)
    x = rng.permutation(np.arange(-128, 128, dtype=np.int8)).reshape(4, 64)  # every entry
    in_scale, in_zp, out_scale, out_zp = 0.04, 3, (0.5 if op == "exp" else 1 / 128), -2
    res = dev8.sfu(x, op, in_scale=in_scale, in_zp=in_zp, out_scale=out_scale, out_zp=out_zp,
                   check=True)
    want = np.clip(np.round(fn(in_scale * (x.astype(np.float64) - in_zp)) / out_scale) + out_zp,
                   -128, 127)
    assert np.abs(res.out.astype(np.int64) - want).max() <= 1, f"sfu {op} (--seed {seed})"


def test_softmax_passes_golden_and_is_near_float(dev, seed):
    rng = rng_for(seed, 800)
    for shape, in_scale, beta in [((4, 30), 0.05, 1.0), ((1, 9), 0.1, 0.5), ((64,), 0.02, 1.0)]:
        x = i8(rng, shape)
        res = dev.softmax(x, in_scale, beta=beta, in_zp=5, check=True)
        v = beta * in_scale * np.atleast_2d(x).astype(np.float64)
        e = np.exp(v - v.max(axis=1, keepdims=True))
        want = np.clip(np.round(e / e.sum(axis=1, keepdims=True) * 256) - 128, -128, 127)
        assert np.abs(np.atleast_2d(res.out) - want).max() <= 2, f"softmax (--seed {seed})"
        assert res.out.shape == x.shape


def test_layernorm_passes_golden_and_is_near_float(dev, seed):
    rng = rng_for(seed, 900)
    rows, length = 5, 48
    x = i8(rng, (rows, length))
    gamma = rng.integers(40, 120, size=length, dtype=np.int8)
    beta = rng.uniform(-0.5, 0.5, size=length).astype(np.float32)
    p = dict(in_scale=0.03, gamma_scale=0.01, gamma_zp=2, out_scale=0.02, out_zp=1, eps=1e-5)
    res = dev.layernorm(x, gamma, beta, in_zp=-3, check=True, **p)
    v = x.astype(np.float64) * p["in_scale"]
    z = (v - v.mean(axis=1, keepdims=True)) / np.sqrt(v.var(axis=1, keepdims=True) + p["eps"])
    g = p["gamma_scale"] * (gamma.astype(np.float64) - p["gamma_zp"])
    want = np.clip(np.round((z * g + beta) / p["out_scale"]) + p["out_zp"], -128, 127)
    assert np.abs(res.out - want).max() <= 2, f"layernorm (--seed {seed})"
    # beta given as int32 at the accumulator scale gives the same result
    beta_q = np.round(beta.astype(np.float64) / (p["gamma_scale"] / 4096)).astype(np.int32)
    again = dev.layernorm(x, gamma, beta_q, **p)
    assert_equal(again.out, res.out, "layernorm int32 beta", seed)


# ---- device and errors --------------------------------------------------------------------------

def test_info_and_context_manager():
    with tessera.Device("sim:8", mem_latency=3, mem_bw=4, stall_pct=10) as d:
        info = d.info()
        assert info["dim"] == 8 and info["backend"] == "sim" and info["is_sim"]
        out, fig = d.gemm(np.ones((4, 4), np.int8), np.ones((4, 4), np.int8))
        assert (out == 4).all() and fig["rd_stall_cycles"] > 0
    with pytest.raises(tessera.TesseraError, match="closed"):
        d.gemm(np.ones((4, 4), np.int8), np.ones((4, 4), np.int8))


def test_memory_options_reach_the_model_and_the_cost_model():
    a = np.ones((64, 64), np.int8)
    cycles = {}
    for bw in (None, 1):
        with tessera.Device("sim:8", mem_bw=bw) as d:
            f = d.gemm(a, a).figures
        assert abs(f["plan_cycles"] - f["cycles"]) <= 0.15 * f["cycles"], (bw, f)
        cycles[bw] = f["cycles"]
    assert cycles[1] > 2 * cycles[None]


def test_trace_option_writes_a_waveform(tmp_path):
    fst = tmp_path / "gemm.fst"
    with tessera.Device(f"sim:{min(DIMS)}", trace=str(fst)) as d:   # the smallest model built
        d.gemm(np.ones((2, 3), np.int8), np.ones((3, 2), np.int8), check=True)
    assert fst.is_file() and fst.stat().st_size > 0


@pytest.mark.parametrize("call,msg", [
    (lambda d: d.gemm(np.ones((3, 4), np.int32), np.ones((4, 2), np.int8)),
     r"a: expected an int8 numpy array, got int32 \(3, 4\)"),
    (lambda d: d.gemm([[1, 2]], np.ones((2, 2), np.int8)), "a: expected an int8 numpy array"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((5, 2), np.int8)),
     "A is 3x4 but B is 5x2: inner dimensions differ"),
    (lambda d: d.gemm(np.ones(4, np.int8), np.ones((4, 2), np.int8)), "a: expected a 2-D array"),
    (lambda d: d.gemm(np.ones((0, 4), np.int8), np.ones((4, 2), np.int8)), "has no elements"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), np.ones(3, np.int32)),
     r"bias: expected shape \(2,\), got \(3,\)"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), np.ones(2, np.float32)),
     "bias: expected integers"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), mult=1 << 30,
                      shift=31), "shift: 31 is outside -31..30"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), a_zp=200),
     "a_zp: 200 is outside -128..127"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), out_zp=3),
     "need requantization"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), a_scale=0.1,
                      w_scale=0.1, out_scale=0), "out_scale: 0 is not a valid scale"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), a_scale=0.1,
                      w_scale=[0.1, 0.0], out_scale=1), r"w_scale\[1\]: 0.0 is not a valid scale"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), a_scale=0.1,
                      w_scale=[0.1, 0.1, 0.1], out_scale=1), r"w_scale: expected a number or shape"),
    (lambda d: d.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), mult=1, a_scale=0.1,
                      w_scale=0.1, out_scale=1), "not both"),
    (lambda d: d.softmax(np.ones((2, 3), np.int8), 0), "in_scale: 0 is not a valid scale"),
    (lambda d: d.sfu(np.ones(3, np.int8), "frob", in_scale=1, out_scale=1),
     "unknown function 'frob'"),
    (lambda d: d.sfu(np.ones(3, np.int8), "lut", lut=np.zeros(255, np.int8)),
     r"a lookup table must be int8 \(256,\)"),
    (lambda d: d.sfu(np.ones((2, 2, 2), np.int8), "lut", lut=np.zeros(256, np.int8)),
     "expected a 1-D or 2-D array"),
    (lambda d: d.add(np.ones((3, 4), np.int8), np.ones((4, 3), np.int8), a_scale=1, b_scale=1,
                     out_scale=1), r"A is \(3, 4\) but B is \(4, 3\)"),
    (lambda d: d.add(np.ones(4, np.int8), np.ones(4, np.int8), a_scale=1, b_scale=1,
                     out_scale=1, act_min=5, act_max=4), "act_min 5 is greater than act_max 4"),
    (lambda d: d.layernorm(np.ones((2, 4), np.int8), np.ones(5, np.int8), np.zeros(4, np.int32),
                           in_scale=0.1, gamma_scale=0.1, out_scale=0.1),
     r"gamma: expected int8 \(4,\)"),
    (lambda d: d.layernorm(np.ones((2, 4), np.int8), np.ones(4, np.int8), np.zeros(4, np.uint8),
                           in_scale=0.1, gamma_scale=0.1, out_scale=0.1),
     "beta: expected float or int32"),
])
def test_bad_arguments_raise_a_clear_error_before_the_library(dev8, call, msg):
    with pytest.raises(tessera.TesseraError, match=msg) as e:
        call(dev8)
    assert e.value.status == 1 and e.value.status_name == "bad argument"


def test_library_errors_carry_its_message_and_status(dev8):
    # The library's own checks: the preparation, the multiplier range, the device spec.
    with pytest.raises(tessera.TesseraError, match="gives no usable multiplier") as e:
        dev8.softmax(np.ones((2, 3), np.int8), 1e-9)
    assert e.value.status == 1
    with pytest.raises(tessera.TesseraError, match="cannot be represented") as e:
        dev8.gemm(np.ones((3, 4), np.int8), np.ones((4, 2), np.int8), a_scale=1e6, w_scale=1e6,
                  out_scale=1e-6)
    assert e.value.status == 1 and "column 0" in e.value.message
    with pytest.raises(tessera.TesseraError, match="no simulator build") as e:
        tessera.Device("sim:64")
    assert e.value.status != 0 and "\n" not in e.value.message
    with pytest.raises(tessera.TesseraError) as e:
        tessera.Device("frob:1")
    assert e.value.status != 0 and e.value.message and e.value.status_name
    with pytest.raises(tessera.TesseraError, match="spec: expected a string"):
        tessera.Device(8)
    with pytest.raises(tessera.TesseraError, match="stall_pct: 101 is outside 0..100"):
        tessera.Device("sim:8", stall_pct=101)
    with pytest.raises(tessera.TesseraError, match="mem_bw: 5000 is outside 0..4096"):
        tessera.Device("sim:8", mem_bw=5000)


def _net_models():
    """tests/net/gen_net_models.py's builders (they need ai-edge-litert's schema module)."""
    pytest.importorskip("ai_edge_litert.schema_py_generated")
    pytest.importorskip("flatbuffers")
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "net"))
    import gen_net_models
    return gen_net_models


def test_run_allow_host_runs_mul_on_the_host(dev8):
    # A MUL that broadcasts has no chip lowering: refused with the option named, and with
    # allow_host=True the layer runs on the host (kind HOST), every chip layer checked against
    # the golden model.
    g = _net_models()
    blob = g.host_ops(31)["host_mul_bcast"]
    x = np.random.default_rng(5).integers(-128, 128, (5, 7, 6)).astype(np.int8)
    with pytest.raises(tessera.TesseraError, match=r"operator \d+ \(MUL\): a MUL whose inputs broadcast.*--allow-host") as e:
        dev8.run(blob, x)
    assert "\n" not in e.value.message
    r = dev8.run(blob, x, allow_host=True, check=True, layers=True)
    kinds = [layer["kind"] for layer in r.figures["layers"]]
    assert kinds.count("HOST") == 1 and r.out.size == 5 * 7 * 6 and r.out.dtype == np.int8
    assert [layer["on_chip"] for layer in r.figures["layers"] if layer["kind"] == "HOST"] == [False]
    try:
        from tflite_micro.python.tflite_micro import runtime as tflm
    except ImportError:
        return
    it = tflm.Interpreter.from_bytes(blob, arena_size=1 << 20)
    it.set_input(x.reshape(it.get_input_details(0)["shape"]), 0)
    it.invoke()
    assert r.out.tobytes() == np.asarray(it.get_output(0)).tobytes()


def test_run_fuse_option_and_flags_are_checked(dev8):
    # FULLY_CONNECTED -> TANH: fused into the GEMM's STOREs by default (kind FUSED), a layer of
    # its own with fuse=False; the same output in fewer cycles.
    g = _net_models()
    blob = g.synthetic_fuse(np.random.default_rng(3), "fuse_fc_tanh", "fc_tanh")
    x = np.random.default_rng(6).integers(-128, 128, (4, 24)).astype(np.int8)
    fused = dev8.run(blob, x, check=True)
    alone = dev8.run(blob, x, check=True, fuse=False)
    assert [la["kind"] for la in fused.figures["layers"]] == ["GEMM", "FUSED"]
    assert [la["kind"] for la in alone.figures["layers"]] == ["GEMM", "LUT"]
    assert np.array_equal(fused.out, alone.out)
    assert fused.figures["cycles"] < alone.figures["cycles"]
    with pytest.raises(tessera.TesseraError, match="allow_host and fuse take True or False"):
        dev8.run(blob, x, allow_host=1)


def test_readme_python_example_prints_what_it_shows():
    """The ```python block of README.md's "## Python" runs and prints its "# prints:" lines."""
    import contextlib
    import io
    import os
    import re
    text = open(os.path.join(tessera._ffi.REPO, "README.md")).read()
    section = text[text.index("## Python\n"):]
    block = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code, _, shown = block.partition("# prints:\n")
    want = [line[2:] for line in shown.splitlines()]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md (## Python)", "exec"), {})
    assert out.getvalue().splitlines() == want, (
        "README.md's Python example prints something else now: update its '# prints:' lines")
