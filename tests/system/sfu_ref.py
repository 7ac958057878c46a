#!/usr/bin/env python3
"""sfu_ref.py: TensorFlow Lite's int8 reference semantics of the SFU functions, in Python, independent of our C.

Written from the descriptions of TFLite's reference kernels and gemmlowp's
fixedpoint.h (and, for LAYERNORM, the integer algorithm of docs/sfu.md),
element for element, with Python's unbounded integers: every int32 result is
wrapped explicitly, divisions are written as floor/truncate steps, nothing is
shared with sw/golden/tsr_sfu_golden.c or sw/driver/tsr_quant.c.

  lut_populate(fn, in_scale, in_zp, out_scale, out_zp)  LUTPopulateInt8, float32 via numpy.float32
  softmax(x, mult, left_shift, diff_min)               reference_ops::Softmax (int8 in, int8 out)
  add(a, b, params)                                     reference_integer_ops::Add, left shift 20
  mul(a, b, params)                                     reference_integer_ops::MulElementwise
  layernorm(x, gamma, beta, params)                     docs/sfu.md FUNC 4
  reduce(x)                                             docs/sfu.md FUNC 2
  softmax_prepare / add_prepare / mul_prepare / layernorm_prepare / layernorm_quantize_beta
                                                        the host-side parameters

The float elementary functions of the tables (expf, tanhf, erff) are the C
library's, called through ctypes as the C code calls them (numpy's float32
exp differs from glibc's in the last bit now and then); the arithmetic around
them is numpy float32, one rounding per operation, in the C code's order.

  python3 tests/system/sfu_ref.py --selftest --lib build/sfu/libtsr_sfu.so [--seed S] [--cases N]

compares all of the above with the C golden model, the chip path's
preparation (sw/lib/tsr_sfu_prep.c) and the golden model's own derivation of
the tables and parameters (sw/golden/tsr_golden_params.c), loaded with
ctypes, on random inputs, bit for bit, and exits non-zero on the first
difference, printing the case and the seed.
"""

import argparse
import ctypes
import ctypes.util
import math
import random
import sys
import time

try:
    import numpy as np
except ImportError:
    print("sfu_ref: numpy not found: pip install numpy (or apt-get install python3-numpy)")
    sys.exit(2)

I32_MIN, I32_MAX = -(1 << 31), (1 << 31) - 1
I64_MIN, I64_MAX = -(1 << 63), (1 << 63) - 1

# ---- integer arithmetic (gemmlowp / TFLite) -----------------------------------------


def wrap32(v):
    """The int32 with the same low 32 bits as the integer v."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= (1 << 31) else v


def wrap64(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >= (1 << 63) else v


def trunc_div(n, d):
    """n / d rounded toward zero (C division), d > 0."""
    return n // d if n >= 0 else -((-n) // d)


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul: (a*b + nudge) / 2^31 toward zero; the one overflow saturates."""
    if a == I32_MIN and b == I32_MIN:
        return I32_MAX
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    return trunc_div(ab + nudge, 1 << 31)


def rdbpot(x, exponent):
    """RoundingDivideByPOT: x / 2^exponent to nearest, ties away from zero (any width)."""
    if exponent == 0:
        return x
    d = 1 << exponent
    q, r = divmod(abs(x), d)
    if 2 * r >= d:
        q += 1
    return q if x >= 0 else -q


def sat_pot(x, exponent):
    """SaturatingRoundingMultiplyByPOT<exponent> for exponent > 0 on int32: gemmlowp's symmetric threshold."""
    threshold = (1 << (31 - exponent)) - 1
    if x > threshold:
        return I32_MAX
    if x < -threshold:
        return I32_MIN
    return wrap32(x << exponent)


def mbqm(x, mult, shift):
    """MultiplyByQuantizedMultiplier: rdbpot(srdhm(x * 2^left, mult), right)."""
    left = max(shift, 0)
    right = max(-shift, 0)
    return rdbpot(srdhm(wrap32(x * (1 << left)), mult), right)


def rounding_half_sum(a, b):
    s = a + b
    return trunc_div(s + (1 if s >= 0 else -1), 2)


def clamp(v, lo, hi):
    return lo if v < lo else hi if v > hi else v


# ---- gemmlowp fixed-point functions -------------------------------------------------

EXP_BARREL = [(-2, 1672461947), (-1, 1302514674), (0, 790015084), (1, 290630308),
              (2, 39332535), (3, 720401), (4, 242)]  # exp(-2^k) in Q0.31


def exp_on_interval_between_negative_one_quarter_and_0_excl(a):
    """exp(a) for Q0.31 a in [-1/4, 0): Taylor series around -1/8, result Q0.31."""
    constant_term = 1895147668  # exp(-1/8)
    constant_1_over_3 = 715827883
    x = wrap32(a + (1 << 28))
    x2 = srdhm(x, x)
    x3 = srdhm(x2, x)
    x4 = srdhm(x2, x2)
    x4_over_4 = rdbpot(x4, 2)
    x4_over_24_plus_x3_over_6_plus_x2_over_2 = rdbpot(wrap32(srdhm(wrap32(x4_over_4 + x3), constant_1_over_3) + x2), 1)
    return wrap32(constant_term + srdhm(constant_term, wrap32(x + x4_over_24_plus_x3_over_6_plus_x2_over_2)))


def exp_on_negative_values(a, integer_bits=5):
    """gemmlowp exp_on_negative_values for a raw Q(integer_bits) value; result Q0.31."""
    fractional_bits = 31 - integer_bits
    one_quarter = 1 << (fractional_bits - 2)
    a_mod_quarter_minus_one_quarter = wrap32((a & (one_quarter - 1)) - one_quarter)
    # Rescale<0>: multiply the raw value by 2^integer_bits, saturating
    result = exp_on_interval_between_negative_one_quarter_and_0_excl(sat_pot(a_mod_quarter_minus_one_quarter, integer_bits))
    remainder = wrap32(a_mod_quarter_minus_one_quarter - a)
    for exponent, multiplier in EXP_BARREL:
        if integer_bits > exponent and (remainder >> (fractional_bits + exponent)) & 1:
            result = srdhm(result, multiplier)
    if a == 0:
        result = I32_MAX
    return result


def one_over_one_plus_x_for_x_in_0_1(a):
    """1 / (1 + a) for Q0.31 a in [0, 1): Newton-Raphson on half the denominator, Q2.29 iterate."""
    half_denominator = rounding_half_sum(a, I32_MAX)
    x = wrap32(1515870810 + srdhm(half_denominator, -1010580540))  # 48/17 - 32/17 * d
    for _ in range(3):
        half_denominator_times_x = srdhm(half_denominator, x)
        one_minus = wrap32((1 << 29) - half_denominator_times_x)
        x = wrap32(x + sat_pot(srdhm(x, one_minus), 2))
    return sat_pot(x, 1)  # ExactMulByPot<-1> then Rescale<0>


def count_leading_zeros32(u):
    u &= 0xFFFFFFFF
    return 32 - u.bit_length()


def get_reciprocal(x, x_integer_digits=12):
    """TFLite GetReciprocal: (Q0.31 reciprocal of the normalized sum, num_bits_over_unit)."""
    headroom_plus_one = count_leading_zeros32(x)
    num_bits_over_unit = x_integer_digits - headroom_plus_one
    shifted_sum_minus_one = wrap32(((x & 0xFFFFFFFF) << headroom_plus_one) - (1 << 31))
    return one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one), num_bits_over_unit


def rsqrt_q29(m):
    """docs/sfu.md rsqrt: y0 = 2.25 - 1.25 m, four Newton steps y (3 - m y^2) / 2; Q0.31 in, Q2.29 out."""
    y = wrap32(9 * (1 << 27) - srdhm(m, 5 * (1 << 27)))
    for _ in range(4):
        t = srdhm(y, y)
        u = srdhm(m, t)
        w = wrap32(3 * (1 << 27) - u)
        y = sat_pot(srdhm(y, w), 3)
    return y


# ---- the SFU functions ----------------------------------------------------------------


def reduce(x):
    """[[max, sum, sumsq] per row] of the raw int8 values."""
    return [[max(max(row), -128), wrap32(sum(row)), wrap32(sum(v * v for v in row))] for row in x]


def softmax(x, mult, left_shift, diff_min):
    """reference_ops::Softmax for int8 rows (list of lists); output scale 1/256, zero point -128."""
    out = []
    for row in x:
        row = [int(v) for v in row]
        max_in_row = max(row)

        def scaled_exp(v):
            diff = v - max_in_row
            # MultiplyByQuantizedMultiplierGreaterThanOne -> Q5.26
            return exp_on_negative_values(srdhm(wrap32(diff * (1 << left_shift)), mult))

        sum_of_exps = 0
        for v in row:
            if v - max_in_row >= diff_min:
                sum_of_exps = wrap32(sum_of_exps + rdbpot(scaled_exp(v), 12))  # Rescale<12>
        shifted_scale, num_bits_over_unit = get_reciprocal(sum_of_exps, 12)
        y = []
        for v in row:
            if v - max_in_row >= diff_min:
                # the division is exact for any shift here (docs/sfu.md: rdbpot64)
                unsat = rdbpot(srdhm(shifted_scale, scaled_exp(v)), num_bits_over_unit + 31 - 8)
                y.append(clamp(unsat - 128, -128, 127))
            else:
                y.append(-128)
        out.append(y)
    return out


def add(a, b, p):
    """reference_integer_ops::Add element-wise; p: the 11 words of docs/sfu.md."""
    (in1_offset, in1_mult, in1_shift, in2_offset, in2_mult, in2_shift,
     out_mult, out_shift, out_offset, act_min, act_max) = p
    y = []
    for x1, x2 in zip(a, b):
        shifted1 = wrap32(wrap32(int(x1) + in1_offset) * (1 << 20))
        shifted2 = wrap32(wrap32(int(x2) + in2_offset) * (1 << 20))
        raw_sum = wrap32(mbqm(shifted1, in1_mult, in1_shift) + mbqm(shifted2, in2_mult, in2_shift))
        raw_out = wrap32(mbqm(raw_sum, out_mult, out_shift) + out_offset)
        y.append(clamp(raw_out, act_min, act_max))
    return y


def mul(a, b, p):
    """reference_integer_ops::MulElementwise; p: the 7 words of docs/sfu.md (FUNC 6)."""
    in1_offset, in2_offset, out_mult, out_shift, out_offset, act_min, act_max = p
    y = []
    for x1, x2 in zip(a, b):
        prod = wrap32(wrap32(int(x1) + in1_offset) * wrap32(int(x2) + in2_offset))
        y.append(clamp(wrap32(mbqm(prod, out_mult, out_shift) + out_offset), act_min, act_max))
    return y


def layernorm(x, gamma, beta, p):
    """docs/sfu.md FUNC 4 for int8 rows; gamma int8[len], beta int32[len]; p: the 8 words."""
    gamma_offset, eps_lo, eps_hi, out_mult, out_shift, out_offset, act_min, act_max = p
    e = wrap64((eps_hi << 32) | (eps_lo & 0xFFFFFFFF))
    out = []
    for row in x:
        row = [int(v) for v in row]
        n_len = len(row)
        s1 = wrap32(sum(row))
        s2 = wrap32(sum(v * v for v in row))
        d = max(wrap64(((n_len * s2 - s1 * s1) << 8) + e), 1)  # 8 fraction bits
        half_bits = (d.bit_length() + 1) // 2
        shift = 31 - 2 * half_bits
        m = d << shift if shift >= 0 else d >> -shift
        r = rsqrt_q29(m)
        y = []
        for v, g, bt in zip(row, gamma, beta):
            n = wrap32(n_len * v - s1)
            z = wrap32(rdbpot(n * r, 13 + half_bits))
            acc = wrap32(wrap32(int(g) + gamma_offset) * z + int(bt))
            y.append(clamp(wrap32(mbqm(acc, out_mult, out_shift) + out_offset), act_min, act_max))
        out.append(y)
    return out


# ---- lookup tables: LUTPopulateInt8 in float32 ------------------------------------------

F = np.float32
LUT_FNS = ["logistic", "tanh", "gelu", "gelu_tanh", "silu", "exp", "hardswish"]  # tsr_lut_fn_t order


def _libm():
    name = ctypes.util.find_library("m")
    lib = ctypes.CDLL(name) if name else None
    funcs = {}
    for fn, fallback in (("expf", math.exp), ("tanhf", math.tanh), ("erff", math.erf)):
        if lib is not None and hasattr(lib, fn):
            c = getattr(lib, fn)
            c.restype, c.argtypes = ctypes.c_float, [ctypes.c_float]
            funcs[fn] = (lambda c_: lambda v: F(c_(float(v))))(c)
        else:  # correctly rounded through double: differs from a C library only in rare last bits
            funcs[fn] = (lambda f_: lambda v: _through_double(f_, v))(fallback)
    return funcs


def _through_double(f, v):
    try:
        return F(f(float(v)))
    except OverflowError:
        return F(math.inf)


_M = _libm()


def transform(fn, x):
    """The float32 function of the table, in the C code's operation order."""
    one, half = F(1.0), F(0.5)
    if fn == "logistic":
        return one / (one + _M["expf"](-x))
    if fn == "tanh":
        return _M["tanhf"](x)
    if fn == "gelu":
        return half * x * (one + _M["erff"](x * F(0.70710678118654752440)))
    if fn == "gelu_tanh":
        inner = F(0.7978845608028654) * (x + F(0.044715) * x * x * x)
        return half * x * (one + _M["tanhf"](inner))
    if fn == "silu":
        return x / (one + _M["expf"](-x))
    if fn == "exp":
        return _M["expf"](x)
    if fn == "hardswish":
        return x * min(max(x + F(3.0), F(0.0)), F(6.0)) / F(6.0)
    raise ValueError(fn)


def round_away_f32(v):
    """roundf: to nearest, ties away from zero, in float32."""
    t = np.trunc(v)
    if abs(v - t) >= F(0.5):
        t = t + (F(1.0) if v > 0 else F(-1.0))
    return F(t)


def lut_populate(fn, in_scale, in_zp, out_scale, out_zp):
    """256 int8 entries indexed by the input byte, or None where the C code returns -1."""
    in_scale, out_scale = F(in_scale), F(out_scale)
    if not (math.isfinite(in_scale) and in_scale > 0 and math.isfinite(out_scale) and out_scale > 0):
        return None
    if not (-128 <= in_zp <= 127 and -128 <= out_zp <= 127):
        return None
    with np.errstate(all="ignore"):
        inverse_scale = F(1.0) / out_scale
        if not math.isfinite(inverse_scale):
            return None
        lut = [0] * 256
        for val in range(-128, 128):
            dequantized = in_scale * F(val - in_zp)
            rescaled = round_away_f32(transform(fn, dequantized) * inverse_scale)
            quantized = rescaled + F(out_zp)
            if math.isnan(quantized):
                return None
            lut[val & 0xFF] = int(clamp(quantized, -128.0, 127.0))
    return lut


# ---- host-side parameters (TFLite Prepare) -------------------------------------------------


def round_away(v):
    """C round() on a double."""
    t = math.trunc(v)
    if abs(v - t) >= 0.5:
        t += 1 if v > 0 else -1
    return t


def quantize_multiplier(real, max_shift=30):
    """TFLite QuantizeMultiplier: (mult, shift) with real ~ mult * 2^(shift - 31); None if not representable."""
    if math.isnan(real) or math.isinf(real) or real < 0:
        return None
    if real == 0:
        return 0, 0
    q, shift = math.frexp(real)
    q_fixed = round_away(q * (1 << 31))
    if q_fixed == 1 << 31:
        q_fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    if shift > max_shift:
        return None
    return q_fixed, shift


def f32(x):
    """A scale as TFLite keeps it: float32 (inf when x is beyond float32's range)."""
    with np.errstate(over="ignore"):
        return float(F(x))


def softmax_prepare(beta, in_scale):
    """PreprocessSoftmaxScaling(beta, in_scale, 5) and diff_min = -CalculateInputRadius(5, shift, 31),
    on beta and the scale as float32."""
    beta, in_scale = f32(beta), f32(in_scale)
    if not (math.isfinite(beta) and beta > 0 and math.isfinite(in_scale) and in_scale > 0):
        return None
    real = min(beta * in_scale * float(1 << 26), float((1 << 31) - 1))
    if not real > 1.0:
        return None
    qm = quantize_multiplier(real, max_shift=31)
    if qm is None:
        return None
    mult, left_shift = qm
    radius = (((1 << 5) - 1) << 26) >> left_shift  # floor(31 * 2^26 / 2^left_shift)
    return [mult, left_shift, -radius]


def add_prepare(s1, zp1, s2, zp2, s_out, zp_out):
    s1, s2, s_out = f32(s1), f32(s2), f32(s_out)  # TFLite's scales are float32
    for s in (s1, s2, s_out):
        if not (math.isfinite(s) and s > 0):
            return None
    if not all(-128 <= z <= 127 for z in (zp1, zp2, zp_out)):
        return None
    twice_max = 2.0 * max(s1, s2)
    q1 = quantize_multiplier(s1 / twice_max)
    q2 = quantize_multiplier(s2 / twice_max)
    qo = quantize_multiplier(twice_max / (float(1 << 20) * s_out))
    if q1 is None or q2 is None or qo is None:
        return None
    return [-zp1, q1[0], q1[1], -zp2, q2[0], q2[1], qo[0], qo[1], zp_out, -128, 127]


def mul_prepare(s1, zp1, s2, zp2, s_out, zp_out):
    s1, s2, s_out = f32(s1), f32(s2), f32(s_out)  # TFLite's scales are float32, the rest double
    for s in (s1, s2, s_out):
        if not (math.isfinite(s) and s > 0):
            return None
    if not all(-128 <= z <= 127 for z in (zp1, zp2, zp_out)):
        return None
    qo = quantize_multiplier(s1 * s2 / s_out)
    return None if qo is None else [-zp1, -zp2, qo[0], qo[1], zp_out, -128, 127]


def layernorm_prepare(length, in_scale, eps, gamma_zp, gamma_scale, out_scale, out_zp):
    in_scale, gamma_scale, out_scale = f32(in_scale), f32(gamma_scale), f32(out_scale)
    if not (1 <= length <= 65535) or not (math.isfinite(eps) and eps >= 0):
        return None
    for s in (in_scale, gamma_scale, out_scale):
        if not (math.isfinite(s) and s > 0):
            return None
    if not (-128 <= gamma_zp <= 127 and -128 <= out_zp <= 127):
        return None
    big_l = float(length)
    e_real = eps / (in_scale * in_scale) * (big_l * big_l) * 256.0  # 8 fraction bits
    if not e_real < 2.0 ** 63:
        return None
    e = round_away(e_real)
    if e >= 1 << 63:
        return None
    qo = quantize_multiplier(gamma_scale * 2.0 ** -12 / out_scale)
    if qo is None:
        return None
    return [-gamma_zp, wrap32(e & 0xFFFFFFFF), e >> 32, qo[0], qo[1], out_zp, -128, 127]


def layernorm_quantize_beta(beta_f32, gamma_scale):
    scale = f32(gamma_scale) * 2.0 ** -12
    out = []
    for b in beta_f32:
        v = float(F(b)) / scale
        if not math.isfinite(v) or not (-2.0 ** 31 <= round_away(v) <= 2.0 ** 31 - 1):
            return None
        out.append(round_away(v))
    return out


# ---- self-test against the C golden model ---------------------------------------------------


class CLib:
    """The C golden model and preparation, through ctypes."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        i8p, i32p = ctypes.POINTER(ctypes.c_int8), ctypes.POINTER(ctypes.c_int32)
        sz, i32, i64, d, f = ctypes.c_size_t, ctypes.c_int32, ctypes.c_int64, ctypes.c_double, ctypes.c_float
        sig = {
            "tsr_gemmlowp_exp_on_negative_values": (i32, [i32]),
            "tsr_gemmlowp_reciprocal": (i32, [i32, ctypes.POINTER(ctypes.c_int)]),
            "tsr_rdbpot64": (i64, [i64, ctypes.c_int]),
            "tsr_sfu_rsqrt_q29": (i32, [i32]),
            "tsr_golden_reduce": (None, [sz, sz, i8p, i32p]),
            "tsr_golden_softmax": (ctypes.c_int, [sz, sz, i8p, i32p, i8p]),
            "tsr_golden_layernorm": (ctypes.c_int, [sz, sz, i8p, i8p, i32p, i32p, i8p]),
            "tsr_golden_add": (ctypes.c_int, [sz, i8p, i8p, i32p, i8p]),
            "tsr_golden_sfu_mul": (ctypes.c_int, [sz, i8p, i8p, i32p, i8p]),
            "tsr_mul_prepare": (ctypes.c_int, [f, i32, f, i32, f, i32, i32p]),
            "tsr_golden_mul_params": (ctypes.c_int, [d, i32, d, i32, d, i32, i32p]),
            "tsr_lut_populate": (ctypes.c_int, [ctypes.c_int, f, i32, f, i32, i8p]),
            "tsr_softmax_prepare": (ctypes.c_int, [f, f, i32p]),
            "tsr_add_prepare": (ctypes.c_int, [f, i32, f, i32, f, i32, i32p]),
            "tsr_layernorm_prepare": (ctypes.c_int, [sz, f, d, i32, f, f, i32, i32p]),
            "tsr_layernorm_quantize_beta": (ctypes.c_int, [sz, ctypes.POINTER(f), f, i32p]),
            "tsr_golden_lut": (ctypes.c_int, [ctypes.c_int, d, i32, d, i32, i8p]),
            "tsr_golden_softmax_params": (ctypes.c_int, [d, d, i32p]),
            "tsr_golden_add_params": (ctypes.c_int, [d, i32, d, i32, d, i32, i32p]),
            "tsr_golden_layernorm_params": (ctypes.c_int, [sz, d, d, i32, d, d, i32, i32p]),
            "tsr_golden_layernorm_beta": (ctypes.c_int, [sz, ctypes.POINTER(f), d, i32p]),
        }
        for name, (res, args) in sig.items():
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = res, args
        self.lib = lib

    @staticmethod
    def i8(values):
        return (ctypes.c_int8 * max(len(values), 1))(*values)

    @staticmethod
    def i32(values):
        return (ctypes.c_int32 * max(len(values), 1))(*values)

    def exp(self, a):
        return self.lib.tsr_gemmlowp_exp_on_negative_values(a)

    def reciprocal(self, x):
        nbou = ctypes.c_int(0)
        r = self.lib.tsr_gemmlowp_reciprocal(x, ctypes.byref(nbou))
        return r, nbou.value

    def rdbpot64(self, x, e):
        return self.lib.tsr_rdbpot64(x, e)

    def rsqrt(self, m):
        return self.lib.tsr_sfu_rsqrt_q29(m)

    def reduce(self, rows):
        n, ln = len(rows), len(rows[0])
        out = self.i32([0] * (3 * n))
        self.lib.tsr_golden_reduce(n, ln, self.i8([v for r in rows for v in r]), out)
        return [list(out[3 * i:3 * i + 3]) for i in range(n)]

    def softmax(self, rows, p):
        n, ln = len(rows), len(rows[0])
        y = self.i8([0] * (n * ln))
        rc = self.lib.tsr_golden_softmax(n, ln, self.i8([v for r in rows for v in r]), self.i32(p), y)
        return None if rc != 0 else [list(y[i * ln:(i + 1) * ln]) for i in range(n)]

    def layernorm(self, rows, gamma, beta, p):
        n, ln = len(rows), len(rows[0])
        y = self.i8([0] * (n * ln))
        rc = self.lib.tsr_golden_layernorm(n, ln, self.i8([v for r in rows for v in r]), self.i8(gamma),
                                           self.i32(beta), self.i32(p), y)
        return None if rc != 0 else [list(y[i * ln:(i + 1) * ln]) for i in range(n)]

    def add(self, a, b, p):
        y = self.i8([0] * len(a))
        rc = self.lib.tsr_golden_add(len(a), self.i8(a), self.i8(b), self.i32(p), y)
        return None if rc != 0 else list(y[:len(a)])

    def mul(self, a, b, p):
        y = self.i8([0] * len(a))
        rc = self.lib.tsr_golden_sfu_mul(len(a), self.i8(a), self.i8(b), self.i32(p), y)
        return None if rc != 0 else list(y[:len(a)])

    def lut_populate(self, fn, in_scale, in_zp, out_scale, out_zp, golden=False):
        lut = self.i8([0] * 256)
        populate = self.lib.tsr_golden_lut if golden else self.lib.tsr_lut_populate
        rc = populate(LUT_FNS.index(fn), in_scale, in_zp, out_scale, out_zp, lut)
        return None if rc != 0 else list(lut)

    # golden=True: the golden model's own derivation (tsr_golden_params.c) instead of the preparation.
    def softmax_prepare(self, beta, in_scale, golden=False):
        p = self.i32([0] * 3)
        prepare = self.lib.tsr_golden_softmax_params if golden else self.lib.tsr_softmax_prepare
        return None if prepare(beta, in_scale, p) != 0 else list(p)

    def add_prepare(self, *args, golden=False):
        p = self.i32([0] * 11)
        prepare = self.lib.tsr_golden_add_params if golden else self.lib.tsr_add_prepare
        return None if prepare(*args, p) != 0 else list(p)

    def mul_prepare(self, *args, golden=False):
        p = self.i32([0] * 7)
        prepare = self.lib.tsr_golden_mul_params if golden else self.lib.tsr_mul_prepare
        return None if prepare(*args, p) != 0 else list(p)

    def layernorm_prepare(self, *args, golden=False):
        p = self.i32([0] * 8)
        prepare = self.lib.tsr_golden_layernorm_params if golden else self.lib.tsr_layernorm_prepare
        return None if prepare(*args, p) != 0 else list(p)

    def layernorm_quantize_beta(self, beta_f32, gamma_scale, golden=False):
        q = self.i32([0] * len(beta_f32))
        fa = (ctypes.c_float * len(beta_f32))(*[float(b) for b in beta_f32])
        quantize = self.lib.tsr_golden_layernorm_beta if golden else self.lib.tsr_layernorm_quantize_beta
        return None if quantize(len(beta_f32), fa, gamma_scale, q) != 0 else list(q)


class Mismatch(Exception):
    pass


def expect(what, got_c, got_py):
    if got_c != got_py:
        raise Mismatch(f"{what}: C {got_c!r} != Python {got_py!r}")


def rand_row(rng, length):
    center, spread = rng.randint(-128, 127), rng.choice([0, 1, 3, 20, 128, 255])
    return [clamp(center + rng.randint(-spread, spread), -128, 127) for _ in range(length)]


def log2_uniform(rng, lo, hi):
    return 2.0 ** rng.uniform(lo, hi)


def selftest(c, seed, cases):
    rng = random.Random(seed)
    counts = {}

    def count(name, n=1):
        counts[name] = counts.get(name, 0) + n

    # building blocks, including inputs outside their meaningful ranges (all wrap the same way)
    for _ in range(cases * 200):
        a = rng.choice([rng.randint(I32_MIN, 0), rng.randint(I32_MIN, I32_MAX), -(rng.randint(0, 7) << rng.randint(20, 28))])
        expect(f"exp_on_negative_values({a})", c.exp(a), exp_on_negative_values(a))
        x = rng.choice([rng.randint(1 << 19, I32_MAX), rng.randint(I32_MIN, I32_MAX), 0, rng.randint(0, 1 << 19)])
        expect(f"reciprocal({x})", c.reciprocal(x), get_reciprocal(x))
        m = rng.choice([rng.randint(1 << 29, I32_MAX), rng.randint(I32_MIN, I32_MAX)])
        expect(f"rsqrt_q29({m})", c.rsqrt(m), rsqrt_q29(m))
        e = rng.randint(0, 63)
        v = rng.choice([rng.randint(I64_MIN, I64_MAX), wrap64(rng.randint(-9, 9) << max(e - 1, 0))])
        expect(f"rdbpot64({v}, {e})", c.rdbpot64(v, e), rdbpot(v, e))
        count("building-block inputs", 4)

    # lookup tables
    for fn in LUT_FNS:
        for _ in range(cases):
            args = (float(F(log2_uniform(rng, -9, 2))), rng.randint(-128, 127),
                    float(F(log2_uniform(rng, -10, 1))), rng.randint(-128, 127))
            want = lut_populate(fn, *args)
            expect(f"lut_populate({fn}, {args})", c.lut_populate(fn, *args), want)
            expect(f"golden lut({fn}, {args})", c.lut_populate(fn, *args, golden=True), want)
            count("tables")
    for args in ((1.0, 0, 0.0, 0), (-1.0, 0, 1.0, 0), (1.0, 128, 1.0, 0), (1.0, 0, 1e-45, 0), (1.0, 0, 1.0, -129)):
        expect(f"lut_populate(tanh, {args})", c.lut_populate("tanh", *args), lut_populate("tanh", *args))
        expect(f"golden lut(tanh, {args})", c.lut_populate("tanh", *args, golden=True), lut_populate("tanh", *args))

    # reduce
    for _ in range(cases):
        rows = [rand_row(rng, 7) for _ in range(3)]
        expect("reduce", c.reduce(rows), reduce(rows))

    # softmax: prepared parameters, and raw ones over the whole accepted range
    for i in range(cases * 4):
        beta, scale = log2_uniform(rng, -2, 2), log2_uniform(rng, -10, 3)
        p = softmax_prepare(beta, scale)
        expect(f"softmax_prepare({beta}, {scale})", c.softmax_prepare(beta, scale), p)
        expect(f"golden softmax params({beta}, {scale})", c.softmax_prepare(beta, scale, golden=True), p)
        if p is None or i % 4 == 3:
            p = [rng.randint(1, I32_MAX), rng.randint(0, 31), -rng.randint(0, 1 << rng.randint(0, 31))]
        length = rng.choice([1, 2, 3, rng.randint(1, 64), rng.randint(1, 600)])
        rows = [rand_row(rng, length) for _ in range(rng.randint(1, 3))]
        expect(f"softmax(p={p}, rows={rows})", c.softmax(rows, p), softmax(rows, *p))
        count("softmax rows", len(rows))
    long_rows = [[5] * 8192, [-3] * 4096, [7] * 512]  # the sum wraps to 0, to 2^31, and the shift reaches 32
    p = softmax_prepare(1.0, 0.01)
    for row in long_rows:
        expect(f"softmax(len {len(row)})", c.softmax([row], p), softmax([row], *p))

    # add
    for i in range(cases * 4):
        s1, s2 = log2_uniform(rng, -10, 2), log2_uniform(rng, -10, 2)
        args = (s1, rng.randint(-128, 127), s2, rng.randint(-128, 127),
                max(s1, s2) * log2_uniform(rng, -3, 3), rng.randint(-128, 127))
        p = add_prepare(*args)
        expect(f"add_prepare{args}", c.add_prepare(*args), p)
        expect(f"golden add params{args}", c.add_prepare(*args, golden=True), p)
        if i % 4 == 3:
            act_min = rng.randint(-128, 127)
            p = [rng.randint(-300, 300), rng.randint(I32_MIN, I32_MAX), rng.randint(-31, 0),
                 rng.randint(-300, 300), rng.randint(I32_MIN, I32_MAX), rng.randint(-31, 0),
                 rng.randint(I32_MIN, I32_MAX), rng.randint(-31, 30), rng.randint(-300, 300),
                 act_min, rng.randint(act_min, 127)]
        n = rng.randint(1, 64)
        a = [rng.randint(-128, 127) for _ in range(n)]
        b = [rng.randint(-128, 127) for _ in range(n)]
        expect(f"add(p={p}, a={a}, b={b})", c.add(a, b, p), add(a, b, p))
        count("add elements", n)

    # mul: output scales from half the product of the input scales (a left shift) to 2^10 times
    # it; every fourth case a random block (shifts -31..30, any multiplier and clamp).
    for i in range(cases * 4):
        s1, s2 = log2_uniform(rng, -10, 2), log2_uniform(rng, -10, 2)
        args = (s1, rng.randint(-128, 127), s2, rng.randint(-128, 127),
                s1 * s2 * log2_uniform(rng, -1, 10), rng.randint(-128, 127))
        p = mul_prepare(*args)
        expect(f"mul_prepare{args}", c.mul_prepare(*args), p)
        expect(f"golden mul params{args}", c.mul_prepare(*args, golden=True), p)
        if p is None or i % 4 == 3:
            act_min = rng.randint(-128, 127)
            p = [rng.randint(-300, 300), rng.randint(-300, 300), rng.randint(I32_MIN, I32_MAX),
                 rng.randint(-31, 30), rng.randint(-300, 300), act_min, rng.randint(act_min, 127)]
        n = rng.randint(1, 64)
        a = [rng.randint(-128, 127) for _ in range(n)]
        b = [rng.randint(-128, 127) for _ in range(n)]
        expect(f"mul(p={p}, a={a}, b={b})", c.mul(a, b, p), mul(a, b, p))
        count("mul elements", n)

    # layernorm
    for i in range(cases * 4):
        length = rng.choice([1, 2, 3, rng.randint(1, 40), rng.randint(1, 300)])
        args = (length, log2_uniform(rng, -9, 0), rng.choice([0.0, 1e-12, 1e-5, 1e-3, 1.0]), rng.randint(-10, 10),
                log2_uniform(rng, -9, -3), log2_uniform(rng, -8, 0), rng.randint(-30, 30))
        p = layernorm_prepare(*args)
        expect(f"layernorm_prepare{args}", c.layernorm_prepare(*args), p)
        expect(f"golden layernorm params{args}", c.layernorm_prepare(*args, golden=True), p)
        beta_f = [F(rng.gauss(0.0, 1.0) * args[4] * 64) for _ in range(length)]
        beta = layernorm_quantize_beta(beta_f, args[4])
        expect("layernorm_quantize_beta", c.layernorm_quantize_beta(beta_f, args[4]), beta)
        expect("golden layernorm beta", c.layernorm_quantize_beta(beta_f, args[4], golden=True), beta)
        if p is None or i % 4 == 3:
            act_min = rng.randint(-128, 127)
            p = [rng.randint(-300, 300), rng.randint(I32_MIN, I32_MAX), rng.randint(-(1 << 31), (1 << 31) - 1),
                 rng.randint(I32_MIN, I32_MAX), rng.randint(-31, 30), rng.randint(-300, 300),
                 act_min, rng.randint(act_min, 127)]
            beta = [rng.randint(I32_MIN, I32_MAX) for _ in range(length)]
        gamma = [rng.randint(-128, 127) for _ in range(length)]
        rows = [rand_row(rng, length) for _ in range(rng.randint(1, 3))]
        expect(f"layernorm(p={p}, rows={rows}, gamma={gamma}, beta={beta})",
               c.layernorm(rows, gamma, beta, p), layernorm(rows, gamma, beta, p))
        count("layernorm rows", len(rows))
    return counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--selftest", action="store_true", help="compare with the C golden model (needs --lib)")
    ap.add_argument("--lib", default="build/sfu/libtsr_sfu.so", help="shared library of sw/golden/tsr_sfu_golden.c, sw/golden/tsr_golden_params.c, sw/lib/tsr_sfu_prep.c and sw/driver/tsr_quant.c")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--cases", type=int, default=60, help="random cases per kind (default 60)")
    args = ap.parse_args()
    if not args.selftest:
        ap.print_help()
        return 0
    seed = args.seed if args.seed is not None else int(time.time() * 1000) % (1 << 32)
    try:
        c = CLib(args.lib)
    except OSError as err:
        print(f"sfu_ref: cannot load {args.lib}: {err} (build it with: make test-sfu-ref)")
        return 2
    t0 = time.time()
    try:
        counts = selftest(c, seed, args.cases)
    except Mismatch as err:
        print(f"sfu_ref: MISMATCH (seed {seed}; replay with --seed {seed}): {err}")
        return 1
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    print(f"sfu_ref: C golden model == Python reference bit for bit: {summary} (seed {seed}, {time.time() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
