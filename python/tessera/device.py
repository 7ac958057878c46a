"""device.py: tessera.Device, its jobs (gemm, softmax, layernorm, add, sfu, reduce), results and errors."""
import ctypes
import math
import numbers

import numpy as np

from . import _ffi

TSR_BAD_ARG = 1  # tsr_status_t of sw/hal/tsr_hal.h


class TesseraError(Exception):
    """An error of libtessera (its one-line message and tsr_status_t code), or an argument
    this package refused before calling it (status TSR_BAD_ARG, 1).

    .message  the one line;  .status  the code (int);  .status_name  e.g. "bad argument".
    """

    def __init__(self, message, status=TSR_BAD_ARG, status_name=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name or _status_name(status)

    def __str__(self):
        if self.status is None:
            return self.message
        return f"{self.message} [status {self.status}: {self.status_name}]"


class TesseraMismatch(TesseraError):
    """check=True and the device's result differs from the golden model.

    .count, .row, .col, .got, .want: how many elements and the first one;
    .result: the Result as the device computed it.
    """

    def __init__(self, op, count, row, col, got, want, result):
        lane = "lane" if op == "reduce" else "col"
        super().__init__(f"{op}: {count} element(s) differ from the golden model; the first at"
                         f" (row {row}, {lane} {col}): got {got}, expected {want}",
                         status=None, status_name="mismatch")
        self.count, self.row, self.col, self.got, self.want = count, row, col, got, want
        self.result = result


def _status_name(status):
    if status is None:
        return "mismatch"
    try:
        return _ffi.lib().tessera_flat_status_str(status).decode()
    except ImportError:
        return "?"


def _call(fn, *args):
    """Call a flat function whose last two arguments are err, errlen; raise on failure."""
    err = _ffi.errbuf()
    st = fn(*args, err, _ffi.ERRLEN)
    if st != 0:
        raise TesseraError(err.value.decode(errors="replace"), st)


class Result:
    """What a job returns: .out (numpy array) and .figures (dict).

    figures: cycles, busy_cycles, macs, bus_read_bytes, bus_write_bytes, commands,
    rd_stall_cycles, wr_stall_cycles, sim_cycles, plan_commands, plan_cycles
    (GEMM: the cost model's prediction), plan_tiles (GEMM: stores; SFU: blocks),
    host_reg_accesses (register reads and writes the host made), streamed (1:
    through a command ring) as ints; utilization (GEMM: MACs / (N^2 cycles)) and wall_seconds as floats;
    time: {compute, fill, load_wait, store, sfu, control} busy cycles by class;
    check: "pass" or "skipped". A Result unpacks as (out, figures).
    """

    def __init__(self, out, figures):
        self.out = out
        self.figures = figures

    def __iter__(self):
        return iter((self.out, self.figures))

    def __repr__(self):
        f = self.figures
        return (f"Result(out={self.out.dtype}{self.out.shape}, cycles={f['cycles']},"
                f" utilization={f['utilization']:.3f}, bus_read_bytes={f['bus_read_bytes']},"
                f" bus_write_bytes={f['bus_write_bytes']}, check={f['check']!r})")


# ---- argument checks (before the library sees anything) ----------------------------------------

def _bad(msg):
    raise TesseraError(msg)


def _desc(x):
    return f"{x.dtype} {tuple(x.shape)}" if isinstance(x, np.ndarray) else type(x).__name__


def _int8_tensor(name, x, ndims):
    if not isinstance(x, np.ndarray) or x.dtype != np.int8:
        _bad(f"{name}: expected an int8 numpy array, got {_desc(x)}")
    if x.ndim not in ndims:
        want = " or ".join(f"{d}-D" for d in ndims)
        _bad(f"{name}: expected a {want} array, got shape {tuple(x.shape)}")
    if x.size == 0:
        _bad(f"{name}: shape {tuple(x.shape)} has no elements")
    return np.ascontiguousarray(x)


def _int(name, v, lo, hi):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
        _bad(f"{name}: expected an integer, got {type(v).__name__}")
    if not lo <= int(v) <= hi:
        _bad(f"{name}: {int(v)} is outside {lo}..{hi}")
    return int(v)


def _int32_vector(name, v, n, lo=-2**31, hi=2**31 - 1):
    x = np.asarray(v)
    if x.dtype.kind not in "iu":
        _bad(f"{name}: expected integers, got {_desc(x)}")
    if x.shape != (n,):
        _bad(f"{name}: expected shape ({n},), got {tuple(x.shape)}")
    if n and (x.min() < lo or x.max() > hi):
        _bad(f"{name}: values must be within {lo}..{hi}")
    return np.ascontiguousarray(x, dtype=np.int32)


def _scale(name, v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real):
        _bad(f"{name}: expected a number, got {type(v).__name__}")
    if not (math.isfinite(v) and v > 0):
        _bad(f"{name}: {v} is not a valid scale (it must be positive and finite)")
    return float(v)


def _zp(name, v):
    return _int(name, v, -128, 127)


def _act(act_min, act_max):
    lo, hi = _zp("act_min", act_min), _zp("act_max", act_max)
    if lo > hi:
        _bad(f"act_min {lo} is greater than act_max {hi}")
    return lo, hi


def _ptr(x):
    return None if x is None else x.ctypes.data


# ---- module-level helpers over the C library -------------------------------------------------

def fold_a_zp(b, bias, a_zp):
    """The bias with the input zero point folded in by the library (tessera_gemm_fold_a_zp):
    bias[n] - a_zp * sum_k b[k][n] in wrapping int32. bias may be None (zeros)."""
    b = _int8_tensor("b", b, (2,))
    k, n = b.shape
    bias = None if bias is None else _int32_vector("bias", bias, n)
    a_zp = _zp("a_zp", a_zp)
    out = np.empty(n, np.int32)
    _call(_ffi.lib().tessera_gemm_fold_a_zp, k, n, _ptr(b), _ptr(bias), a_zp, _ptr(out))
    return out


def quantize_scales(a_scale, w_scale, out_scale, n):
    """(mult, shift) int32 arrays of n from real scales, as TFLite prepares a convolution
    (each scale rounded to float32, then QuantizeMultiplier(a * w / out) of the driver).
    w_scale: a number (per tensor) or n numbers (per channel)."""
    a_scale, out_scale = _scale("a_scale", a_scale), _scale("out_scale", out_scale)
    w = np.atleast_1d(np.asarray(w_scale, dtype=np.float64))
    if w.ndim != 1 or w.shape[0] not in (1, n):
        _bad(f"w_scale: expected a number or shape ({n},), got shape {np.shape(w_scale)}")
    for i, v in enumerate(w):
        _scale(f"w_scale[{i}]" if w.shape[0] > 1 else "w_scale", float(v))
    w = np.ascontiguousarray(w)
    mult, shift = np.empty(n, np.int32), np.empty(n, np.int32)
    _call(_ffi.lib().tessera_gemm_quantize_scales, n, a_scale, _ptr(w), w.shape[0], out_scale,
          _ptr(mult), _ptr(shift))
    return mult, shift


def _make_lut(name, in_scale, out_scale, in_zp=0, out_zp=0):
    """The 256-entry int8 table of function `name` (sigmoid, tanh, gelu, gelu-tanh, silu,
    exp, hardswish) for the given int8 scales and zero points (tsr_lut_populate)."""
    t = np.empty(256, np.int8)
    _call(_ffi.lib().tessera_flat_lut, str(name).encode(), _scale("in_scale", in_scale),
          _zp("in_zp", in_zp), _scale("out_scale", out_scale), _zp("out_zp", out_zp), _ptr(t))
    return t


lut = _make_lut


def _lut_table(name, x):
    t = np.asarray(x)
    if t.dtype != np.int8 or t.shape != (256,):
        _bad(f"{name}: a lookup table must be int8 (256,), got {_desc(t)}")
    return np.ascontiguousarray(t)


def _net_declare(lib):
    """ctypes prototypes of the network functions of tessera_flat.h."""
    if getattr(lib, "_tsr_net_declared", False):
        return
    c_int, c_u32, c_sz, c_p, c_s = ctypes.c_int, ctypes.c_uint32, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
    for name, res, args in (
            ("tessera_flat_net_kind", c_s, [ctypes.c_uint]),
            ("tessera_flat_net_describe", c_int, [c_p, c_sz, c_u32, c_u32, c_p, c_p, c_sz]),
            ("tessera_flat_net_run", c_int, [c_p, c_p, c_sz, c_u32, c_p, c_sz, c_p, c_sz, c_int,
                                             c_int, c_p, c_u32, c_p, c_p, c_sz])):
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    lib._tsr_net_declared = True


# ---- the device ----------------------------------------------------------------------------------

class Device:
    """An open Tessera device: Device("sim:8"), Device("sim:4"), or any spec of
    tessera_open ("uart:/dev/ttyUSB0", "uio:/dev/uio0", ...).

    Simulator options: mem_latency (cycles), mem_bw (bytes per cycle, 0: the bus
    width), stall_pct (0..100), seed (of the stalls), trace (an FST file). The
    simulator is opened again with more memory when a job needs it (a trace then
    starts over). submit: "stream" (default: each job's commands go into a command ring in
    device memory that the chip fetches) or "regs" (eight register writes per command). Use as a context manager or call close().
    """

    def __init__(self, spec="sim:8", *, mem_latency=None, mem_bw=None, stall_pct=None, seed=1,
                 trace=None, submit="stream"):
        if not isinstance(spec, str):
            _bad(f"spec: expected a string such as 'sim:8', got {type(spec).__name__}")
        opt = [-1 if v is None else _int(name, v, 0, hi)
               for name, v, hi in (("mem_latency", mem_latency, 100000), ("mem_bw", mem_bw, 4096),
                                   ("stall_pct", stall_pct, 100))]
        seed = _int("seed", seed, 0, 2**32 - 1)
        self._lib = _ffi.lib()
        self._h = ctypes.c_void_p()
        self.spec = spec
        _call(self._lib.tessera_flat_open, spec.encode(), opt[0], opt[1], opt[2], seed,
              None if trace is None else str(trace).encode(), ctypes.byref(self._h))
        self._fig_names = _ffi.names(self._lib.tessera_flat_figure_name)
        if submit not in ("stream", "regs"):
            _bad(f"submit: expected 'stream' or 'regs', got {submit!r}")
        self._lib.tessera_flat_set_submit(self._h, 1 if submit == "regs" else 0)

    # -- life cycle --
    def close(self):
        """Close the device (again: nothing)."""
        if getattr(self, "_h", None) and self._h.value:
            self._lib.tessera_flat_close(self._h)
            self._h = ctypes.c_void_p()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()

    def _handle(self):
        if not self._h.value:
            _bad("the device is closed")
        return self._h

    def info(self):
        """What the device is: backend, dim, axi_bytes, cmdq_depth, spad_rows, acc_rows,
        has_sfu, store_lanes, id, version, is_sim, mem_bytes."""
        names = _ffi.names(self._lib.tessera_flat_info_name)
        vals = (ctypes.c_double * len(names))()
        backend = ctypes.create_string_buffer(32)
        st = self._lib.tessera_flat_info(self._handle(), backend, len(backend), vals)
        if st != 0:
            raise TesseraError("info: the device did not answer", st)
        info = {"backend": backend.value.decode()}
        for name, v in zip(names, vals):
            info[name] = bool(v) if name in ("is_sim", "has_sfu") else int(v)
        return info

    def _figures(self, fig, mm, check):
        out = {}
        for name, v in zip(self._fig_names, fig):
            v = float(v) if name in ("utilization", "wall_seconds") else int(v)
            if name.startswith("time."):
                out.setdefault("time", {})[name[5:]] = v
            else:
                out[name] = v
        out["check"] = "pass" if check else "skipped"
        return out

    def _finish(self, op, out, fig, mm, check):
        res = Result(out, self._figures(fig, mm, check))
        if check and mm[0] != 0:
            raise TesseraMismatch(op, int(mm[0]), int(mm[1]), int(mm[2]), int(mm[3]), int(mm[4]),
                                  res)
        return res

    # -- GEMM --
    def gemm(self, a, b, bias=None, *, a_zp=0, mult=None, shift=None, a_scale=None, w_scale=None,
             out_scale=None, out_zp=0, act_min=-128, act_max=127, act=None, act_lut=None,
             leaky=None, check=False):
        """C = requant((A - a_zp) @ B + bias): A int8 (m, k), B int8 (k, n), bias int32 (n,).

        Output int32 (m, n) (raw accumulators + bias) unless requantized to int8 by
          mult=, shift=   int or (n,) arrays (any array: per channel), or
          a_scale=, w_scale=, out_scale=   real scales (w_scale a number or (n,)):
                          mult/shift from the driver's QuantizeMultiplier, TFLite-style;
        then out_zp, the clamp act_min..act_max, and optionally act= a table function
        name (needs out_scale: the table maps the int8 output to the same scale and
        zero point), act_lut= an int8 (256,) table, leaky= alpha in 0..1.
        a_zp (input zero point) is folded into the bias by the library, exactly.
        check=True compares with the golden model (TesseraMismatch on a difference).
        """
        a = _int8_tensor("a", a, (2,))
        b = _int8_tensor("b", b, (2,))
        (m, k), (k2, n) = a.shape, b.shape
        if k != k2:
            _bad(f"A is {m}x{k} but B is {k2}x{n}: inner dimensions differ")
        if bias is not None:
            bias = _int32_vector("bias", bias, n)
        a_zp = _zp("a_zp", a_zp)
        scales = a_scale is not None or w_scale is not None
        if scales and (mult is not None or shift is not None):
            _bad("give mult/shift or a_scale/w_scale/out_scale, not both")
        if scales and (a_scale is None or w_scale is None or out_scale is None):
            _bad("requantization by scales needs all of a_scale, w_scale and out_scale")
        requant = scales or mult is not None
        if shift is not None and mult is None:
            _bad("shift needs mult")
        mult_v = shift_v = None
        mult_s = shift_s = 0
        if scales:
            w_per_tensor = np.ndim(w_scale) == 0
            mult_v, shift_v = quantize_scales(a_scale, w_scale, out_scale, n)
            if w_per_tensor:
                mult_s, shift_s, mult_v, shift_v = int(mult_v[0]), int(shift_v[0]), None, None
        elif requant:
            shift = 0 if shift is None else shift
            if np.ndim(mult) == 0 and np.ndim(shift) == 0:
                mult_s = _int("mult", mult, -2**31, 2**31 - 1)
                shift_s = _int("shift", shift, -31, 30)
            else:
                mult_v = _int32_vector("mult", np.broadcast_to(mult, (n,)) if np.ndim(mult) == 0
                                       else mult, n)
                shift_v = _int32_vector("shift", np.broadcast_to(shift, (n,))
                                        if np.ndim(shift) == 0 else shift, n, -31, 30)
        elif any(v is not None for v in (act, act_lut, leaky)) or (out_zp, act_min, act_max) != (
                0, -128, 127):
            _bad("out_zp, act_min/act_max, act, act_lut and leaky need requantization"
                 " (mult= or a_scale/w_scale/out_scale)")
        out_zp = _zp("out_zp", out_zp)
        act_min, act_max = _act(act_min, act_max)
        table = None
        act_scale = 0.0
        if act is not None and act_lut is not None:
            _bad("give act or act_lut, not both")
        if act is not None:
            if out_scale is None:
                _bad("act needs out_scale, the real scale of the int8 output")
            if not isinstance(act, str):
                _bad(f"act: expected a function name, got {type(act).__name__}")
            act_scale = _scale("out_scale", out_scale)
        elif act_lut is not None:
            table = _lut_table("act_lut", act_lut)
        alpha = -1.0
        if leaky is not None:
            alpha = float(leaky)
            if not 0.0 <= alpha <= 1.0:
                _bad(f"leaky: alpha {leaky} is outside 0..1")
        out = np.empty((m, n), np.int8 if requant else np.int32)
        fig = (ctypes.c_double * len(self._fig_names))()
        mm = (ctypes.c_int64 * 5)()
        _call(self._lib.tessera_flat_gemm, self._handle(), m, k, n, _ptr(a), _ptr(b), _ptr(bias),
              a_zp, int(requant), _ptr(mult_v), _ptr(shift_v), mult_s, shift_s, out_zp, act_min,
              act_max, None if act is None else act.encode(), act_scale, _ptr(table), alpha,
              int(bool(check)), _ptr(out), fig, mm)
        return self._finish("gemm", out, fig, mm, check)

    # -- SFU jobs --
    def _sfu(self, op, fn, x, *args, check=False):
        """Run flat function fn(h, rows, len, x, *args, check, out, fig, mm, err, errlen)."""
        rows, length = (x.shape if x.ndim == 2 else (1, x.shape[0]))
        if length > 65535:
            _bad(f"{op}: rows of {length} elements are too long: the SFU takes at most 65535")
        out = np.empty((rows, 3), np.int32) if op == "reduce" else np.empty(x.shape, np.int8)
        fig = (ctypes.c_double * len(self._fig_names))()
        mm = (ctypes.c_int64 * 5)()
        _call(fn, self._handle(), rows, length, _ptr(x), *args, int(bool(check)), _ptr(out), fig,
              mm)
        return self._finish(op, out, fig, mm, check)

    def softmax(self, x, in_scale, *, beta=1.0, in_zp=0, check=False):
        """TFLite int8 softmax of each row of x (int8, 1-D or 2-D): output scale 1/256,
        zero point -128. in_zp is checked but changes nothing (softmax subtracts the row's
        maximum, so the input zero point cancels)."""
        x = _int8_tensor("x", x, (1, 2))
        _zp("in_zp", in_zp)
        return self._sfu("softmax", self._lib.tessera_flat_softmax, x,
                         _scale("in_scale", in_scale), _scale("beta", beta), check=check)

    def layernorm(self, x, gamma, beta, *, in_scale, gamma_scale, out_scale, gamma_zp=0,
                  out_zp=0, in_zp=0, eps=1e-5, act_min=-128, act_max=127, check=False):
        """Layer normalization of each row of x (int8, 1-D or 2-D) with the exact integer
        algorithm of docs/sfu.md: gamma int8 (len,) of gamma_scale/gamma_zp; beta (len,)
        float (real values) or int32 (already at the accumulator scale gamma_scale * 2^-12).
        in_zp is checked but changes nothing (the row's mean is subtracted)."""
        x = _int8_tensor("x", x, (1, 2))
        length = x.shape[-1]
        gamma = np.asarray(gamma)
        if gamma.dtype != np.int8 or gamma.shape != (length,):
            _bad(f"gamma: expected int8 ({length},) like a row of x, got {_desc(gamma)}")
        gamma = np.ascontiguousarray(gamma)
        beta = np.asarray(beta)
        if beta.shape != (length,) or not (beta.dtype == np.int32 or beta.dtype.kind == "f"):
            _bad(f"beta: expected float or int32 ({length},) like a row of x, got {_desc(beta)}")
        beta_f = beta_q = None
        if beta.dtype.kind == "f":
            beta_f = np.ascontiguousarray(beta, dtype=np.float32)
        else:
            beta_q = np.ascontiguousarray(beta)
        _zp("in_zp", in_zp)
        if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real) or not (
                math.isfinite(eps) and eps >= 0):
            _bad(f"eps: {eps!r} must be a finite number >= 0")
        act_min, act_max = _act(act_min, act_max)
        return self._sfu("layernorm", self._lib.tessera_flat_layernorm, x, _ptr(gamma),
                         _ptr(beta_f), _ptr(beta_q), _scale("in_scale", in_scale), float(eps),
                         _zp("gamma_zp", gamma_zp), _scale("gamma_scale", gamma_scale),
                         _scale("out_scale", out_scale), _zp("out_zp", out_zp), act_min, act_max,
                         check=check)

    def add(self, a, b, *, a_scale, b_scale, out_scale, a_zp=0, b_zp=0, out_zp=0, act_min=-128,
            act_max=127, check=False):
        """TFLite int8 ADD of two tensors of one shape (1-D or 2-D), with the fused clamp
        act_min..act_max (e.g. act_min=out_zp for ReLU)."""
        return self._two_tensors("add", self._lib.tessera_flat_add, a, b, a_scale, b_scale,
                                 out_scale, a_zp, b_zp, out_zp, act_min, act_max, check)

    def mul(self, a, b, *, a_scale, b_scale, out_scale, a_zp=0, b_zp=0, out_zp=0, act_min=-128,
            act_max=127, check=False):
        """TFLite int8 MUL of two tensors of one shape (1-D or 2-D), element by element, with
        the fused clamp act_min..act_max."""
        return self._two_tensors("mul", self._lib.tessera_flat_mul, a, b, a_scale, b_scale,
                                 out_scale, a_zp, b_zp, out_zp, act_min, act_max, check)

    def _two_tensors(self, op, fn, a, b, a_scale, b_scale, out_scale, a_zp, b_zp, out_zp, act_min,
                     act_max, check):
        a = _int8_tensor("a", a, (1, 2))
        b = _int8_tensor("b", b, (1, 2))
        if a.shape != b.shape:
            _bad(f"A is {tuple(a.shape)} but B is {tuple(b.shape)}: the shapes must be equal")
        act_min, act_max = _act(act_min, act_max)
        return self._sfu(op, fn, a, _ptr(b), _scale("a_scale", a_scale), _zp("a_zp", a_zp),
                         _scale("b_scale", b_scale), _zp("b_zp", b_zp),
                         _scale("out_scale", out_scale), _zp("out_zp", out_zp), act_min, act_max,
                         check=check)

    def sfu(self, x, op, *, in_scale=None, out_scale=None, in_zp=0, out_zp=0, lut=None,
            check=False):
        """y = table[x] on x (int8, 1-D or 2-D). op: a function name (sigmoid, tanh, gelu,
        gelu-tanh, silu, exp, hardswish) tabulated for in_scale/in_zp -> out_scale/out_zp,
        or "lut" with lut= an int8 (256,) table indexed by the input byte (x mod 256)."""
        x = _int8_tensor("x", x, (1, 2))
        if not isinstance(op, str):
            _bad(f"sfu: op: expected a function name or 'lut', got {type(op).__name__}")
        if op == "lut":
            if lut is None:
                _bad("sfu: op 'lut' needs lut=, an int8 (256,) table")
            if in_scale is not None or out_scale is not None or in_zp != 0 or out_zp != 0:
                _bad("sfu: scales and zero points apply to a named function; op 'lut' uses the"
                     " table as it is")
            return self._sfu("sfu lut", self._lib.tessera_flat_map, x, None, 0.0, 0, 0.0, 0,
                             _ptr(_lut_table("lut", lut)), check=check)
        if lut is not None:
            _bad(f"sfu: lut= goes with op 'lut' (op {op!r} builds its own table)")
        if in_scale is None or out_scale is None:
            _bad(f"sfu: op {op!r} needs in_scale and out_scale")
        return self._sfu(f"sfu {op}", self._lib.tessera_flat_map, x, op.encode(),
                         _scale("in_scale", in_scale), _zp("in_zp", in_zp),
                         _scale("out_scale", out_scale), _zp("out_zp", out_zp), None, check=check)

    def reduce(self, x, check=False):
        """Per row of x (int8, 1-D or 2-D): int32 (rows, 3) of max, sum and sum of squares."""
        x = _int8_tensor("x", x, (1, 2))
        return self._sfu("reduce", self._lib.tessera_flat_reduce, x, check=check)

    # -- networks (docs/networks.md) --
    def run(self, model, x, *, check=False, layers=False, allow_host=False, fuse=True):
        """One inference of a network on the device: model is a path (.tflite or .tsr) or its
        bytes; a .tflite is compiled for this device's N first (sw/lib/tsr_net_compile.c).
        x: a numpy array of the model input's dtype (int8, or float32 when the model starts
        with QUANTIZE) and element count. Returns a Result: .out the output (int8 or float32,
        the model output's shape); .figures {cycles, commands, macs, wall_seconds, streams,
        check, layers: [{op, kind, on_chip, cycles, commands, macs, bus_read_bytes,
        bus_write_bytes, mismatches}, ...]}. The chip layers run as one command stream; with
        layers=True each runs alone and its figures are its own (else a layer's cycles read 0
        and commands is its captured count). check=True compares every chip layer with the
        golden model and raises TesseraMismatch (op "run") when any element differs.
        allow_host=True compiles a .tflite as `tessera run --allow-host` does: MUL, a
        BATCH_MATMUL with a right-hand zero point, and MAX_POOL_2D on a chip without an SFU
        run on the host (kind "HOST"); fuse=False as
        `--no-fuse`: a LUT activation after a FULLY_CONNECTED or CONV_2D stays a layer of its
        own. Both are compile options: a .tsr runs as it was compiled."""
        lib = self._lib
        if not isinstance(allow_host, bool) or not isinstance(fuse, bool):
            _bad(f"run: allow_host and fuse take True or False, got {allow_host!r} and {fuse!r}")
        flags = (1 if allow_host else 0) | (0 if fuse else 2)
        _net_declare(lib)
        if isinstance(model, (bytes, bytearray)):
            blob = bytes(model)
        else:
            try:
                with open(model, "rb") as f:
                    blob = f.read()
            except OSError as e:
                _bad(f"run: {model}: {e.strerror}")
        info = self.info()
        io = (ctypes.c_int64 * 13)()
        _call(lib.tessera_flat_net_describe, blob, len(blob), info["dim"], flags, io)
        types = {0: np.float32, 9: np.int8}
        in_t, out_t = types[io[0]], types[io[6]]
        in_shape = tuple(io[2 + d] for d in range(io[1]))
        out_shape = tuple(io[8 + d] for d in range(io[7]))
        n_layers = io[12]
        if not isinstance(x, np.ndarray) or x.dtype != in_t or x.size != int(np.prod(in_shape)):
            _bad(f"run: the model takes {np.dtype(in_t).name} {in_shape}, got {_desc(x)}")
        x = np.ascontiguousarray(x)
        out = np.empty(out_shape, out_t)
        total = (ctypes.c_double * 6)()
        figs_l = (ctypes.c_double * (max(n_layers, 1) * 10))()
        _call(lib.tessera_flat_net_run, self._handle(), blob, len(blob), flags, _ptr(x), x.nbytes,
              _ptr(out), out.nbytes, int(bool(check)), int(bool(layers)), figs_l, n_layers, total)
        figs = {"cycles": int(total[0]), "commands": int(total[1]), "macs": int(total[2]),
                "wall_seconds": float(total[4]), "streams": int(total[5]),
                "check": "pass" if check else "skipped",
                "layers": []}
        for i in range(n_layers):
            r = figs_l[i * 10:(i + 1) * 10]
            figs["layers"].append({
                "op": int(r[0]), "kind": lib.tessera_flat_net_kind(int(r[1])).decode(),
                "on_chip": bool(r[2]), "cycles": int(r[3]), "commands": int(r[4]),
                "macs": int(r[5]), "bus_read_bytes": int(r[6]), "bus_write_bytes": int(r[7]),
                "mismatches": None if r[8] < 0 else int(r[8])})
        res = Result(out, figs)
        if check and total[3] > 0:
            bad = next(layer for layer in figs["layers"] if layer["mismatches"])
            err = TesseraMismatch("run", int(total[3]), bad["op"], 0, 0, 0, res)
            err.message = (f"run: {int(total[3])} element(s) differ from the golden model; the first"
                           f" layer that differs is operator {bad['op']} ({bad['kind']}:"
                           f" {bad['mismatches']} elements)")
            err.args = (err.message,)
            raise err
        return res

    def __repr__(self):
        state = "open" if self._h.value else "closed"
        return f"Device({self.spec!r}, {state})"
