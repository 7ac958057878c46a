#!/usr/bin/env python3
"""gen_net_models.py: the int8 models the network tests run (docs/networks.md, "Tests").

Writes, under OUTDIR:

  digits_mlp.tflite        an MLP trained on scikit-learn's digits (8x8 images, 10 classes):
                           int8 [1,8,8] -> RESHAPE [1,64] -> FULLY_CONNECTED 64->32 RELU
                           -> FULLY_CONNECTED 32->10 -> SOFTMAX (int8, scale 1/256, zp -128)
  digits_mlp_b200.tflite   the same network on a batch of 200 ([200,8,8] -> [200,64])
  digits_mlp_float.tflite  float32 [1,64] -> QUANTIZE -> the same layers -> DEQUANTIZE -> float32
  fc_*.tflite              synthetic FULLY_CONNECTED models: per-tensor and per-channel weights,
                           fused NONE / RELU / RELU6, non-zero input zero points, batch 4 with a
                           2-D input, a 3-D input that FULLY_CONNECTED flattens, two layers
  conv_*.tflite            synthetic CONV_2D models at awkward shapes (channels not a multiple
                           of N, odd sizes with SAME and stride 2, dilation 2, VALID, batch 2,
                           1x1, and a SAME convolution of a convolution)
  digits_cnn.tflite        the committed digits CNN (tools/train_digits_cnn.py), with its held-out
                           split: digits_cnn_test_x.npy (int8 [360,1,8,8,1]), digits_cnn_test_y.npy
  dw_*.tflite              synthetic DEPTHWISE_CONV_2D models (channels not a multiple of N,
                           SAME stride 2 at odd sizes, multiplier 2 with dilation 2, VALID batch
                           2 per tensor, a depthwise-separable block)
  mean_hw_*.tflite         MEAN over height and width (keep_dims): 5x7x10, batch 2, after a SAME
                           stride-2 convolution (5x5), 7x7 into another scale
  pad_*.tflite             PAD of height and width: alone (batch 2), before a VALID convolution
  add_*.tflite             ADD of two tensors of one shape, with different scales: a residual ADD
                           of the input and a 1x1 convolution of it (RELU), two convolution
                           branches, two FULLY_CONNECTED outputs (RELU6), a ResNet block (the
                           ADD between SAME convolutions: its tensors have borders)
  mul_*.tflite             MUL of two tensors of one shape (the SFU's MUL): the input and a 1x1
                           convolution of it (RELU), between SAME convolutions (borders), two
                           FULLY_CONNECTED outputs (RELU6), the input squared
  avgpool_*.tflite         AVERAGE_POOL_2D: 2x2, 3x3 stride 2 at odd sizes, after a convolution
                           (SAME that pads nothing), global 5x7
  bad_avgpool.tflite       an AVERAGE_POOL_2D with SAME padding that pads (refused)
  bad_padded_fc.tflite     a SAME CONV_2D whose input a FULLY_CONNECTED reads too (refused)
  transpose_*, bmm_*,      TRANSPOSE (the last axis moving, rows that move whole, unit axes),
  concat_*, maxpool_*,     CONCATENATION (channels, width with three inputs, rows), MAX_POOL_2D
  fc_keepdims              (3x3 SAME stride 2 odd before a SAME conv, 2x2 VALID RELU6, 3x2 SAME
                           stride 1 RELU), BATCH_MATMUL (adj_x, adj_y, a broadcast batch, lhs zero points 0,
                           non-zero and -128) and FULLY_CONNECTED keep_num_dims, calibrated in
                           float by tools/gen_mlperf_tiny.py's builder
  bad_bmm_rhs_zp.tflite    a BATCH_MATMUL whose right-hand operand has a zero point (refused;
                           with --allow-host the product runs on the host)
  host_*.tflite            MUL broadcast over height: refused, and run on the host with
                           --allow-host (as is bad_bmm_rhs_zp)
  models_host.txt          their names
  digits_test_x.npy        the 200 first test images, int8 [200,8,8] at the input's scale
  digits_test_xf.npy       the same as float32 [200,64] (pixel values 0..16)
  digits_test_y.npy        their labels, int64 [200]
  models.txt               one line per runnable model: NAME INPUT_DTYPE

TensorFlow is not used: the models are written with TFLite's own schema module
(ai_edge_litert.schema_py_generated) and flatbuffers, and the quantization
parameters are chosen here from the float model's observed ranges (weights
symmetric int8, per channel or per tensor; activations asymmetric over the
range seen on the training set; biases int32 at in_scale * w_scale). The
bit-exact reference is TFLite Micro running the same int8 files.

  gen_net_models.py OUTDIR
"""

from __future__ import annotations

import pathlib
import struct
import sys

try:
    import flatbuffers
    import numpy as np
    from ai_edge_litert import schema_py_generated as tfl
except ImportError as e:
    sys.exit(f"gen_net_models: {e.name} not found: make deps (tools/install-deps.sh)")

S = tfl.BuiltinOperator
O = tfl.BuiltinOptions
T = tfl.TensorType
ACT = tfl.ActivationFunctionType


def f32(x: float) -> float:
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


class Builder:
    """One subgraph, built up tensor by tensor and operator by operator."""

    def __init__(self):
        self.tensors, self.buffers, self.ops, self.opcodes = [], [tfl.BufferT()], [], []
        self.code_index = {}

    def buffer(self, data: bytes | None) -> int:
        b = tfl.BufferT()
        b.data = None if data is None else list(data)
        self.buffers.append(b)
        return len(self.buffers) - 1

    def tensor(self, name, ttype, shape, scale=None, zp=None, axis=0, data=None) -> int:
        t = tfl.TensorT()
        t.name = name
        t.type = ttype
        t.shape = list(shape)
        t.buffer = self.buffer(data) if data is not None else 0
        if scale is not None:
            q = tfl.QuantizationParametersT()
            q.scale = [f32(s) for s in np.atleast_1d(scale)]
            q.zeroPoint = [int(z) for z in np.atleast_1d(zp)]
            q.quantizedDimension = axis
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, opt_type=O.NONE, opts=None):
        if code not in self.code_index:
            c = tfl.OperatorCodeT()
            c.deprecatedBuiltinCode = min(code, 127)
            c.builtinCode = code
            c.version = 1
            self.opcodes.append(c)
            self.code_index[code] = len(self.opcodes) - 1
        o = tfl.OperatorT()
        o.opcodeIndex = self.code_index[code]
        o.inputs = list(inputs)
        o.outputs = list(outputs)
        o.builtinOptionsType = opt_type
        o.builtinOptions = opts
        self.ops.append(o)

    def finish(self, inputs, outputs, description="tessera test model") -> bytes:
        g = tfl.SubGraphT()
        g.tensors, g.inputs, g.outputs, g.operators, g.name = self.tensors, inputs, outputs, self.ops, "main"
        m = tfl.ModelT()
        m.version = 3
        m.description = description
        m.operatorCodes, m.subgraphs, m.buffers = self.opcodes, [g], self.buffers
        fb = flatbuffers.Builder(4096)
        fb.Finish(m.Pack(fb), file_identifier=b"TFL3")
        return bytes(fb.Output())


# ---- quantization from float ranges ----

def act_qparams(lo: float, hi: float):
    """Asymmetric int8 over [min(lo,0), max(hi,0)]: (scale, zero point)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = f32((hi - lo) / 255.0) if hi > lo else f32(1.0 / 255.0)
    zp = int(np.clip(round(-128 - lo / scale), -128, 127))
    return scale, zp


def quant_weights(w: np.ndarray, per_channel: bool):
    """w float (out, in) -> int8 (out, in), scales (out,) or (1,), symmetric."""
    if per_channel:
        # A near-dead channel keeps a scale of at least 1/64 of the largest, so its bias fits int32.
        m = np.maximum(np.abs(w).max(axis=1), np.abs(w).max() / 64.0)
        s = np.array([f32(x / 127.0) for x in m], dtype=np.float64)
        q = np.clip(np.round(w / s[:, None]), -127, 127).astype(np.int8)
    else:
        s = np.array([f32(max(np.abs(w).max(), 1e-8) / 127.0)])
        q = np.clip(np.round(w / s[0]), -127, 127).astype(np.int8)
    return q, s


def fc(b: Builder, x: int, x_scale: float, w: np.ndarray, bias: np.ndarray, per_channel: bool,
       out_scale: float, out_zp: int, act: int, out_shape, name: str, keep_num_dims=False) -> int:
    wq, ws = quant_weights(w, per_channel)
    bq = np.clip(np.round(bias / (np.float64(f32(x_scale)) * ws)), -2**31, 2**31 - 1).astype(np.int32)
    n = w.shape[0]
    wt = b.tensor(f"{name}/weights", T.INT8, w.shape, ws, [0] * len(ws), axis=0, data=wq.tobytes())
    bt = b.tensor(f"{name}/bias", T.INT32, [n], np.float64(f32(x_scale)) * ws, [0] * len(ws), axis=0,
                  data=bq.astype("<i4").tobytes())
    y = b.tensor(name, T.INT8, out_shape, out_scale, out_zp)
    opts = tfl.FullyConnectedOptionsT()
    opts.fusedActivationFunction = act
    opts.keepNumDims = keep_num_dims
    b.op(S.FULLY_CONNECTED, [x, wt, bt], [y], O.FullyConnectedOptions, opts)
    return y


def reshape(b: Builder, x: int, shape, scale, zp, name) -> int:
    st = b.tensor(f"{name}/shape", T.INT32, [len(shape)], data=np.array(shape, "<i4").tobytes())
    y = b.tensor(name, T.INT8, shape, scale, zp)
    opts = tfl.ReshapeOptionsT()
    opts.newShape = list(shape)
    b.op(S.RESHAPE, [x, st], [y], O.ReshapeOptions, opts)
    return y


def softmax(b: Builder, x: int, shape, name) -> int:
    y = b.tensor(name, T.INT8, shape, 1.0 / 256.0, -128)
    opts = tfl.SoftmaxOptionsT()
    opts.beta = 1.0
    b.op(S.SOFTMAX, [x], [y], O.SoftmaxOptions, opts)
    return y


# ---- the digits MLP ----

def train_digits():
    from sklearn.datasets import load_digits
    from sklearn.neural_network import MLPClassifier

    d = load_digits()
    x, y = d.data.astype(np.float64), d.target
    xtr, ytr, xte, yte = x[:1597], y[:1597], x[1597:], y[1597:]
    clf = MLPClassifier(hidden_layer_sizes=(32,), activation="relu", max_iter=600, random_state=1)
    clf.fit(xtr / 16.0, ytr)
    # Fold the 1/16 input scaling into the first layer: the model takes pixels 0..16.
    w1, b1 = clf.coefs_[0].T / 16.0, clf.intercepts_[0]
    w2, b2 = clf.coefs_[1].T, clf.intercepts_[1]
    h = np.maximum(xtr @ w1.T + b1, 0.0)
    logits = h @ w2.T + b2
    float_acc = float((np.argmax(np.maximum(xte @ w1.T + b1, 0) @ w2.T + b2, axis=1) == yte).mean())
    return (w1, b1, w2, b2), (h.min(), h.max()), (logits.min(), logits.max()), xte, yte, float_acc


def digits_model(params, hrange, lrange, batch: int, float_edges: bool) -> bytes:
    w1, b1, w2, b2 = params
    b = Builder()
    in_scale, in_zp = f32(16.0 / 255.0), -128
    h_scale, h_zp = act_qparams(*hrange)
    l_scale, l_zp = act_qparams(*lrange)
    if float_edges:
        xf = b.tensor("input_f32", T.FLOAT32, [batch, 64])
        x = b.tensor("input_q", T.INT8, [batch, 64], in_scale, in_zp)
        b.op(S.QUANTIZE, [xf], [x])
        flat, graph_in = x, xf
    else:
        x = b.tensor("input", T.INT8, [batch, 8, 8], in_scale, in_zp)
        flat = reshape(b, x, [batch, 64], in_scale, in_zp, "flatten")
        graph_in = x
    h = fc(b, flat, in_scale, w1, b1, True, h_scale, h_zp, ACT.RELU, [batch, 32], "hidden")
    lg = fc(b, h, h_scale, w2, b2, True, l_scale, l_zp, ACT.NONE, [batch, 10], "logits")
    p = softmax(b, lg, [batch, 10], "probs")
    graph_out = p
    if float_edges:
        graph_out = b.tensor("probs_f32", T.FLOAT32, [batch, 10])
        b.op(S.DEQUANTIZE, [p], [graph_out])
    return b.finish([graph_in], [graph_out], "digits MLP 64-32-10, int8")


# ---- synthetic FULLY_CONNECTED models ----

def synthetic(rng, name, in_shape, k, n, per_channel, act, in_zp, layers=1):
    b = Builder()
    in_scale = f32(0.05)
    x = b.tensor("input", T.INT8, in_shape, in_scale, in_zp)
    rows = int(np.prod(in_shape)) // k
    cur, cur_scale, cur_k = x, in_scale, k
    for li in range(layers):
        nn = n if li == layers - 1 else 24
        w = rng.normal(0, 1, (nn, cur_k)) * rng.uniform(0.2, 2.0, (nn, 1))
        bias = rng.normal(0, 2, nn)
        # The float output range for inputs of the input's range, then the output's parameters.
        xs = (rng.integers(-128, 128, (256, cur_k)) - (in_zp if li == 0 else 0)) * cur_scale
        yr = xs @ w.T + bias
        out_scale, out_zp = act_qparams(float(yr.min()) * 0.7, float(yr.max()) * 0.7)
        a = act if li == layers - 1 else ACT.RELU
        if a == ACT.RELU6:
            out_scale, out_zp = f32(0.03), -100  # 6 / 0.03 = 200: the clamp lands inside int8
        cur = fc(b, cur, cur_scale, w, bias, per_channel, out_scale, out_zp, a, [rows, nn], f"fc{li}")
        cur_scale, cur_k = out_scale, nn
    return b.finish([x], [cur], name)


def synthetic_act(rng, name, code, in_shape, in_zp, after_fc) -> bytes:
    """One activation (LOGISTIC, TANH, HARD_SWISH, RELU, RELU6) on the graph input or after a
    FULLY_CONNECTED, with the output quantization TFLite requires or a random one."""
    b = Builder()
    in_scale = f32(0.05)
    x = b.tensor("input", T.INT8, in_shape, in_scale, in_zp)
    cur, cur_scale, shape = x, in_scale, list(in_shape)
    if after_fc:
        k, n = in_shape[-1], 21
        w, bias = rng.normal(0, 1, (n, k)), rng.normal(0, 2, n)
        yr = ((rng.integers(-128, 128, (256, k)) - in_zp) * in_scale) @ w.T + bias
        cur_scale, cur_zp = act_qparams(float(yr.min()) * 0.5, float(yr.max()) * 0.5)
        shape = [int(np.prod(in_shape)) // k, n]
        cur = fc(b, x, in_scale, w, bias, True, cur_scale, cur_zp, ACT.NONE, shape, "fc")
    fixed = {S.LOGISTIC: (1.0 / 256.0, -128), S.TANH: (1.0 / 128.0, 0)}
    out_scale, out_zp = fixed.get(code) or (f32(cur_scale * rng.uniform(0.3, 2.0)), int(rng.integers(-128, 0)))
    y = b.tensor("y", T.INT8, shape, out_scale, out_zp)
    b.op(code, [cur], [y])
    return b.finish([x], [y], name)


def bad_avgpool() -> bytes:
    b = Builder()
    x = b.tensor("input", T.INT8, [1, 4, 4, 2], 0.1, 0)
    y = b.tensor("y", T.INT8, [1, 2, 2, 2], 0.1, 0)
    xr = b.tensor("flat", T.INT8, [1, 32], 0.1, 0)
    st = b.tensor("shape", T.INT32, [2], data=np.array([1, 32], "<i4").tobytes())
    b.op(S.RESHAPE, [x, st], [xr], O.ReshapeOptions, tfl.ReshapeOptionsT())
    opts = tfl.Pool2DOptionsT()  # SAME 3x3 stride 2 on 4x4: the windows reach past the image
    opts.padding, opts.strideW, opts.strideH, opts.filterWidth, opts.filterHeight = tfl.Padding.SAME, 2, 2, 3, 3
    b.op(S.AVERAGE_POOL_2D, [x], [y], O.Pool2DOptions, opts)
    return b.finish([x], [y], "average pool")


def bad_padded_fc() -> bytes:
    """A SAME CONV_2D whose input (it needs a zero-point border) is also read by a
    FULLY_CONNECTED through a RESHAPE: refused."""
    b = Builder()
    rng = np.random.default_rng(3)
    x = b.tensor("input", T.INT8, [1, 4, 4, 2], 0.1, 0)
    flat = reshape(b, x, [1, 32], 0.1, 0, "flat")
    fc(b, flat, 0.1, rng.normal(0, 1, (3, 32)), rng.normal(0, 1, 3), False, 0.2, 0, ACT.NONE, [1, 3],
       "fc")
    y = conv2d(b, x, 0.1, [1, 4, 4, 2], rng.normal(0, 1, (3, 3, 3, 2)), rng.normal(0, 1, 3), True,
               0.2, 0, ACT.NONE, 1, 1, 1, 1, True, "conv")
    return b.finish([x], [y], "padded input read by FULLY_CONNECTED")


# ---- CONV_2D ----

def conv_out(n: int, k: int, s: int, d: int, same: bool) -> int:
    eff = (k - 1) * d + 1
    return (n + s - 1) // s if same else (n - eff + s) // s


def conv_float(x: np.ndarray, w: np.ndarray, bias: np.ndarray, sh: int, sw: int, dh: int, dw: int,
               same: bool) -> np.ndarray:
    """NHWC x, OHWI w, float, TFLite's padding (the test's own plain reference for ranges)."""
    n, h, wd, _ = x.shape
    o, kh, kw, _ = w.shape
    oh, ow = conv_out(h, kh, sh, dh, same), conv_out(wd, kw, sw, dw, same)
    pt = max(((oh - 1) * sh + (kh - 1) * dh + 1 - h) // 2, 0)
    pl = max(((ow - 1) * sw + (kw - 1) * dw + 1 - wd) // 2, 0)
    y = np.zeros((n, oh, ow, o)) + bias
    for ky in range(kh):
        for kx in range(kw):
            for oy in range(oh):
                yy = oy * sh + ky * dh - pt
                if not 0 <= yy < h:
                    continue
                for ox in range(ow):
                    xx = ox * sw + kx * dw - pl
                    if 0 <= xx < wd:
                        y[:, oy, ox, :] += x[:, yy, xx, :] @ w[:, ky, kx, :].T
    return y


def conv2d(b: Builder, x: int, x_scale: float, x_shape, w: np.ndarray, bias: np.ndarray,
           per_channel: bool, out_scale: float, out_zp: int, act: int, sh: int, sw: int, dh: int,
           dw: int, same: bool, name: str) -> int:
    o, kh, kw, i = w.shape
    wq, ws = quant_weights(w.reshape(o, -1), per_channel)
    bq = np.clip(np.round(bias / (np.float64(f32(x_scale)) * ws)), -2**31, 2**31 - 1).astype(np.int32)
    wt = b.tensor(f"{name}/weights", T.INT8, w.shape, ws, [0] * len(ws), axis=0,
                  data=wq.reshape(w.shape).tobytes())
    bt = b.tensor(f"{name}/bias", T.INT32, [o], np.float64(f32(x_scale)) * ws, [0] * len(ws), axis=0,
                  data=bq.astype("<i4").tobytes())
    n, h, wd, _ = x_shape
    y = b.tensor(name, T.INT8, [n, conv_out(h, kh, sh, dh, same), conv_out(wd, kw, sw, dw, same), o],
                 out_scale, out_zp)
    opts = tfl.Conv2DOptionsT()
    opts.padding = tfl.Padding.SAME if same else tfl.Padding.VALID
    opts.strideH, opts.strideW, opts.dilationHFactor, opts.dilationWFactor = sh, sw, dh, dw
    opts.fusedActivationFunction = act
    b.op(S.CONV_2D, [x, wt, bt], [y], O.Conv2DOptions, opts)
    return y


def dwconv_float(x, w, bias, sh, sw, dh, dw, same):
    """Depthwise: w (1, KH, KW, C*dm); output channel c*dm + j reads input channel c."""
    c = x.shape[3]
    dm = w.shape[3] // c
    ys = []
    for ci in range(c):
        wc = w[0, :, :, ci * dm:(ci + 1) * dm].transpose(2, 0, 1)[..., None]  # (dm, KH, KW, 1)
        ys.append(conv_float(x[..., ci:ci + 1], wc, bias[ci * dm:(ci + 1) * dm], sh, sw, dh, dw, same))
    return np.concatenate(ys, axis=3)


def dwconv2d(b: Builder, x: int, x_scale: float, x_shape, w: np.ndarray, bias: np.ndarray,
             per_channel: bool, out_scale: float, out_zp: int, act: int, sh: int, sw: int, dh: int,
             dw: int, same: bool, name: str) -> int:
    _, kh, kw, o = w.shape
    wq, ws = quant_weights(w.reshape(-1, o).T, per_channel)  # per output channel: axis 3
    wq = wq.T.reshape(w.shape)
    bq = np.clip(np.round(bias / (np.float64(f32(x_scale)) * ws)), -2**31, 2**31 - 1).astype(np.int32)
    wt = b.tensor(f"{name}/weights", T.INT8, w.shape, ws, [0] * len(ws), axis=3, data=wq.tobytes())
    bt = b.tensor(f"{name}/bias", T.INT32, [o], np.float64(f32(x_scale)) * ws, [0] * len(ws), axis=0,
                  data=bq.astype("<i4").tobytes())
    n, h, wd, c = x_shape
    y = b.tensor(name, T.INT8, [n, conv_out(h, kh, sh, dh, same), conv_out(wd, kw, sw, dw, same), o],
                 out_scale, out_zp)
    opts = tfl.DepthwiseConv2DOptionsT()
    opts.padding = tfl.Padding.SAME if same else tfl.Padding.VALID
    opts.strideH, opts.strideW, opts.dilationHFactor, opts.dilationWFactor = sh, sw, dh, dw
    opts.depthMultiplier = o // c
    opts.fusedActivationFunction = act
    b.op(S.DEPTHWISE_CONV_2D, [x, wt, bt], [y], O.DepthwiseConv2DOptions, opts)
    return y


def add(b: Builder, x1: int, x2: int, shape, out_scale: float, out_zp: int, act: int, name: str) -> int:
    y = b.tensor(name, T.INT8, shape, out_scale, out_zp)
    opts = tfl.AddOptionsT()
    opts.fusedActivationFunction = act
    b.op(S.ADD, [x1, x2], [y], O.AddOptions, opts)
    return y


def mul(b: Builder, x1: int, x2: int, shape, out_scale: float, out_zp: int, act: int, name: str) -> int:
    y = b.tensor(name, T.INT8, shape, out_scale, out_zp)
    opts = tfl.MulOptionsT()
    opts.fusedActivationFunction = act
    b.op(S.MUL, [x1, x2], [y], O.MulOptions, opts)
    return y


def avgpool(b: Builder, x: int, shape, scale, zp, fh, fw, sh, sw, same, act, name) -> int:
    n, h, w, c = shape
    y = b.tensor(name, T.INT8, [n, conv_out(h, fh, sh, 1, same), conv_out(w, fw, sw, 1, same), c], scale, zp)
    opts = tfl.Pool2DOptionsT()
    opts.padding = tfl.Padding.SAME if same else tfl.Padding.VALID
    opts.strideH, opts.strideW, opts.filterHeight, opts.filterWidth = sh, sw, fh, fw
    opts.fusedActivationFunction = act
    b.op(S.AVERAGE_POOL_2D, [x], [y], O.Pool2DOptions, opts)
    return y


def synthetic_pool(rng, name: str, shape, in_zp, fh, fw, sh, sw, same, act, conv_first=False) -> bytes:
    """AVERAGE_POOL_2D (VALID, or SAME that pads nothing); after a convolution with conv_first."""
    b = Builder()
    xs = f32(0.05)
    x = b.tensor("input", T.INT8, shape, xs, in_zp)
    cur, cs, cz = x, xs, in_zp
    if conv_first:
        cur = conv2d(b, x, xs, shape, rng.normal(0, 0.5, (12, 3, 3, shape[3])), rng.normal(0, 1, 12), True,
                     f32(0.07), -11, ACT.RELU, 1, 1, 1, 1, True, "conv")
        shape, cs, cz = [shape[0], shape[1], shape[2], 12], f32(0.07), -11
    y = avgpool(b, cur, shape, cs, cz, fh, fw, sh, sw, same, act, "pool")
    return b.finish([x], [y], name)


def mean_hw(b: Builder, x: int, shape, scale, zp, name) -> int:
    ax = b.tensor(f"{name}/axes", T.INT32, [2], data=np.array([1, 2], "<i4").tobytes())
    y = b.tensor(name, T.INT8, [shape[0], 1, 1, shape[3]], scale, zp)
    opts = tfl.ReducerOptionsT()
    opts.keepDims = True
    b.op(S.MEAN, [x, ax], [y], O.ReducerOptions, opts)
    return y


def synthetic_mean(rng, name: str, shape, in_zp, conv_first=False, out_q=None) -> bytes:
    """MEAN over height and width (keep_dims); the output quantized as the input or out_q."""
    b = Builder()
    xs = f32(0.05)
    x = b.tensor("input", T.INT8, shape, xs, in_zp)
    cur, cs, cz = x, xs, in_zp
    if conv_first:
        cur = conv2d(b, x, xs, shape, rng.normal(0, 0.5, (11, 3, 3, shape[3])), rng.normal(0, 1, 11), True,
                     f32(0.06), 13, ACT.NONE, 2, 2, 1, 1, True, "conv")
        shape = list(b.tensors[cur].shape)
        cs, cz = f32(0.06), 13
    y = mean_hw(b, cur, shape, *(out_q or (cs, cz)), "mean")
    return b.finish([x], [y], name)


def pad_hw(b: Builder, x: int, shape, scale, zp, pads, name) -> int:
    """PAD of height and width: pads ((top, bottom), (left, right))."""
    (t, bo), (le, r) = pads
    p = b.tensor(f"{name}/paddings", T.INT32, [4, 2],
                 data=np.array([[0, 0], [t, bo], [le, r], [0, 0]], "<i4").tobytes())
    y = b.tensor(name, T.INT8, [shape[0], shape[1] + t + bo, shape[2] + le + r, shape[3]], scale, zp)
    b.op(S.PAD, [x, p], [y], O.PadOptions, tfl.PadOptionsT())
    return y


def synthetic_pad(rng, name: str, shape, in_zp, pads, conv_after: bool) -> bytes:
    """PAD (with the zero point), alone or before a VALID 3x3 convolution."""
    b = Builder()
    xs = f32(0.05)
    x = b.tensor("input", T.INT8, shape, xs, in_zp)
    y = pad_hw(b, x, shape, xs, in_zp, pads, "pad")
    if conv_after:
        ps = list(b.tensors[y].shape)
        y = conv2d(b, y, xs, ps, rng.normal(0, 0.5, (7, 3, 3, shape[3])), rng.normal(0, 1, 7), True,
                   f32(0.08), -6, ACT.RELU, 1, 1, 1, 1, False, "conv")
    return b.finish([x], [y], name)


def synthetic_add(rng, name: str, kind: str) -> bytes:
    """ADD of two int8 tensors of one shape (different scales and zero points): a residual
    ADD of the graph input and a 1x1 convolution of it (fused RELU), two branches of
    convolutions (NONE), two FULLY_CONNECTED outputs (RELU6), or a ResNet block whose ADD
    reads and writes bordered tensors."""
    b = Builder()
    if kind == "residual":
        shape, xs, xz = [1, 6, 7, 5], f32(0.05), 5
        x = b.tensor("input", T.INT8, shape, xs, xz)
        w = rng.normal(0, 0.5, (5, 1, 1, 5))
        h = conv2d(b, x, xs, shape, w, rng.normal(0, 1, 5), True, f32(0.04), -20, ACT.RELU, 1, 1, 1,
                   1, True, "conv")
        y = add(b, x, h, shape, f32(0.08), -10, ACT.RELU, "add")
    elif kind == "branches":
        shape, xs, xz = [1, 8, 8, 3], f32(0.05), -3
        x = b.tensor("input", T.INT8, shape, xs, xz)
        h1 = conv2d(b, x, xs, shape, rng.normal(0, 0.6, (10, 3, 3, 3)), rng.normal(0, 1, 10), True,
                    f32(0.09), 4, ACT.NONE, 1, 1, 1, 1, True, "conv1")
        h2 = conv2d(b, h1, f32(0.09), [1, 8, 8, 10], rng.normal(0, 0.4, (10, 1, 1, 10)),
                    rng.normal(0, 1, 10), False, f32(0.06), -7, ACT.NONE, 1, 1, 1, 1, True, "conv2")
        y = add(b, h2, h1, [1, 8, 8, 10], f32(0.12), 2, ACT.NONE, "add")
    elif kind == "resblock":
        # A ResNet block: the input feeds a SAME convolution and the ADD, and the ADD's output
        # feeds a SAME convolution: the ADD reads and writes tensors with borders.
        shape, xs, xz = [1, 6, 7, 8], f32(0.05), -4
        x = b.tensor("input", T.INT8, shape, xs, xz)
        h = conv2d(b, x, xs, shape, rng.normal(0, 0.3, (8, 3, 3, 8)), rng.normal(0, 1, 8), True,
                   f32(0.06), -30, ACT.RELU, 1, 1, 1, 1, True, "conv1")
        h2 = conv2d(b, h, f32(0.06), shape, rng.normal(0, 0.3, (8, 3, 3, 8)), rng.normal(0, 1, 8), True,
                    f32(0.07), 5, ACT.NONE, 1, 1, 1, 1, True, "conv2")
        a = add(b, x, h2, shape, f32(0.09), -40, ACT.RELU, "add")
        y = conv2d(b, a, f32(0.09), shape, rng.normal(0, 0.3, (5, 3, 3, 8)), rng.normal(0, 1, 5), True,
                   f32(0.1), 0, ACT.NONE, 2, 2, 1, 1, True, "conv3")
    else:
        shape, xs, xz = [3, 20], f32(0.05), 9
        x = b.tensor("input", T.INT8, shape, xs, xz)
        f1 = fc(b, x, xs, rng.normal(0, 0.5, (12, 20)), rng.normal(0, 1, 12), True, f32(0.07), -5,
                ACT.NONE, [3, 12], "fc1")
        f2 = fc(b, x, xs, rng.normal(0, 0.5, (12, 20)), rng.normal(0, 1, 12), False, f32(0.05), 12,
                ACT.NONE, [3, 12], "fc2")
        y = add(b, f1, f2, [3, 12], f32(0.03), -100, ACT.RELU6, "add")
    return b.finish([x], [y], name)


def synthetic_mul(rng, name: str, kind: str) -> bytes:
    """MUL of two int8 tensors of one shape (an SFU MUL job): the graph input and a 1x1
    convolution of it (fused RELU), a ResNet-like block whose MUL reads and writes bordered
    tensors, two FULLY_CONNECTED outputs (RELU6), and the input squared (one tensor, both
    operands; rows of 7, not a multiple of N)."""
    b = Builder()
    if kind == "residual":
        shape, xs, xz = [1, 6, 7, 5], f32(0.05), 5
        x = b.tensor("input", T.INT8, shape, xs, xz)
        h = conv2d(b, x, xs, shape, rng.normal(0, 0.5, (5, 1, 1, 5)), rng.normal(0, 1, 5), True,
                   f32(0.04), -20, ACT.RELU, 1, 1, 1, 1, True, "conv")
        y = mul(b, x, h, shape, f32(0.12), -10, ACT.RELU, "mul")
    elif kind == "resblock":
        shape, xs, xz = [1, 6, 7, 8], f32(0.05), -4
        x = b.tensor("input", T.INT8, shape, xs, xz)
        h = conv2d(b, x, xs, shape, rng.normal(0, 0.3, (8, 3, 3, 8)), rng.normal(0, 1, 8), True,
                   f32(0.06), 7, ACT.NONE, 1, 1, 1, 1, True, "conv1")
        m = mul(b, x, h, shape, f32(0.2), 3, ACT.NONE, "mul")
        y = conv2d(b, m, f32(0.2), shape, rng.normal(0, 0.3, (5, 3, 3, 8)), rng.normal(0, 1, 5), True,
                   f32(0.1), 0, ACT.NONE, 2, 2, 1, 1, True, "conv2")
    elif kind == "fc":
        shape, xs, xz = [3, 20], f32(0.05), 9
        x = b.tensor("input", T.INT8, shape, xs, xz)
        f1 = fc(b, x, xs, rng.normal(0, 0.5, (12, 20)), rng.normal(0, 1, 12), True, f32(0.07), -5,
                ACT.NONE, [3, 12], "fc1")
        f2 = fc(b, x, xs, rng.normal(0, 0.5, (12, 20)), rng.normal(0, 1, 12), False, f32(0.05), 12,
                ACT.NONE, [3, 12], "fc2")
        y = mul(b, f1, f2, [3, 12], f32(0.03), -100, ACT.RELU6, "mul")
    else:
        shape, xs, xz = [2, 5, 7], f32(0.05), 0
        x = b.tensor("input", T.INT8, shape, xs, xz)
        y = mul(b, x, x, shape, f32(0.16), -128, ACT.NONE, "mul")
    return b.finish([x], [y], name)


def synthetic_conv(rng, name, in_shape, in_zp, layers) -> bytes:
    """Random CONV_2D layers; each (kh, kw, out_c, sh, sw, dh, dw, same, per_channel, act)."""
    b = Builder()
    in_scale = f32(0.05)
    x = b.tensor("input", T.INT8, in_shape, in_scale, in_zp)
    cur, cur_scale, cur_shape, cur_zp = x, in_scale, list(in_shape), in_zp
    xf = (rng.integers(-128, 128, (8, *in_shape[1:])) - in_zp) * in_scale
    for li, (kh, kw, oc, sh, sw, dh, dw, same, pc, act, *depthwise) in enumerate(layers):
        if depthwise:  # oc is the depth multiplier
            oc = oc * cur_shape[3]
            w = rng.normal(0, 1, (1, kh, kw, oc)) * rng.uniform(0.2, 2.0, (1, 1, 1, oc))
        else:
            w = rng.normal(0, 1, (oc, kh, kw, cur_shape[3])) * rng.uniform(0.2, 2.0, (oc, 1, 1, 1))
        bias = rng.normal(0, 2, oc)
        yf = (dwconv_float if depthwise else conv_float)(xf, w, bias, sh, sw, dh, dw, same)
        out_scale, out_zp = act_qparams(float(yf.min()) * 0.7, float(yf.max()) * 0.7)
        if act == ACT.RELU6:
            out_scale, out_zp = f32(0.03), -100
        cur = (dwconv2d if depthwise else conv2d)(b, cur, cur_scale, cur_shape, w, bias, pc, out_scale,
                                                  out_zp, act, sh, sw, dh, dw, same, f"conv{li}")
        cur_shape = list(b.tensors[cur].shape)
        # The next layer's float input: this one's output, as the int8 would hold it.
        lo, hi = (out_scale * (-128 - out_zp), out_scale * (127 - out_zp))
        yf = np.clip(yf, lo, hi)
        if act in (ACT.RELU, ACT.RELU6):
            yf = np.maximum(yf, 0.0)
        xf, cur_scale, cur_zp = yf, out_scale, out_zp
    return b.finish([x], [cur], name)


def synthetic_fuse(rng, name: str, kind: str) -> bytes:
    """A LUT activation after the layer that computes its input (#20: it fuses into that
    layer's STOREs): CONV_2D -> LOGISTIC -> a SAME CONV_2D (whose input needs a border: only
    the fused program can give it one), FULLY_CONNECTED -> TANH, CONV_2D (stride 2, odd
    sizes) -> HARD_SWISH, DEPTHWISE_CONV_2D -> TANH, MEAN -> LOGISTIC (a window sum), and
    CONV_2D -> LOGISTIC whose input an ADD reads too (must not fuse)."""
    b = Builder()
    fixed = {S.LOGISTIC: (1.0 / 256.0, -128), S.TANH: (1.0 / 128.0, 0)}

    def act(cur, cur_scale, shape, code, nm):
        out_scale, out_zp = fixed.get(code) or (f32(cur_scale * rng.uniform(0.3, 2.0)),
                                                int(rng.integers(-128, 0)))
        y = b.tensor(nm, T.INT8, shape, out_scale, out_zp)
        b.op(code, [cur], [y])
        return y, out_scale, out_zp

    def conv(x, xs, xz, shape, oc, k, s, nm):
        w = rng.normal(0, 1, (oc, k, k, shape[3])) * rng.uniform(0.2, 2.0, (oc, 1, 1, 1))
        bias = rng.normal(0, 2, oc)
        xf = (rng.integers(-128, 128, (8, *shape[1:])) - xz) * xs
        yf = conv_float(xf, w, bias, s, s, 1, 1, True)
        ys, yz = act_qparams(float(yf.min()) * 0.6, float(yf.max()) * 0.6)
        y = conv2d(b, x, xs, shape, w, bias, True, ys, yz, ACT.NONE, s, s, 1, 1, True, nm)
        return y, ys, yz, list(b.tensors[y].shape)

    xs = f32(0.05)
    if kind == "fc_tanh":
        x = b.tensor("input", T.INT8, [4, 24], xs, 11)
        w, bias = rng.normal(0, 1, (20, 24)), rng.normal(0, 2, 20)
        yr = ((rng.integers(-128, 128, (256, 24)) - 11) * xs) @ w.T + bias
        hs, hz = act_qparams(float(yr.min()) * 0.5, float(yr.max()) * 0.5)
        h = fc(b, x, xs, w, bias, True, hs, hz, ACT.NONE, [4, 20], "fc")
        y, _, _ = act(h, hs, [4, 20], S.TANH, "tanh")
        return b.finish([x], [y], name)
    shape = {"conv_logistic": [1, 20, 18, 16], "conv_hard_swish": [1, 11, 9, 5],
             "conv_logistic_shared": [1, 8, 8, 6], "dw_tanh": [1, 12, 10, 16],
             "mean_logistic": [1, 6, 6, 24]}[kind]
    x = b.tensor("input", T.INT8, shape, xs, -7)
    if kind == "dw_tanh":
        w, bias = rng.normal(0, 1, (1, 3, 3, 16)), rng.normal(0, 2, 16)
        xf = (rng.integers(-128, 128, (8, *shape[1:])) + 7) * xs
        yf = dwconv_float(xf, w, bias, 1, 1, 1, 1, True)
        hs, hz = act_qparams(float(yf.min()) * 0.6, float(yf.max()) * 0.6)
        h = dwconv2d(b, x, xs, shape, w, bias, True, hs, hz, ACT.NONE, 1, 1, 1, 1, True, "dw")
        y, _, _ = act(h, hs, list(b.tensors[h].shape), S.TANH, "tanh")
    elif kind == "mean_logistic":
        h = mean_hw(b, x, shape, f32(0.02), 5, "mean")
        y, _, _ = act(h, f32(0.02), [1, 1, 1, 24], S.LOGISTIC, "logistic")
    elif kind == "conv_logistic":
        h, hs, hz, hshape = conv(x, xs, -7, shape, 24, 3, 1, "conv0")
        a, a_s, a_z = act(h, hs, hshape, S.LOGISTIC, "logistic")
        y, _, _, _ = conv(a, a_s, a_z, hshape, 7, 3, 1, "conv1")
    elif kind == "conv_hard_swish":
        h, hs, hz, hshape = conv(x, xs, -7, shape, 10, 3, 2, "conv0")
        y, _, _ = act(h, hs, hshape, S.HARD_SWISH, "hard_swish")
    else:
        h, hs, hz, hshape = conv(x, xs, -7, shape, 8, 3, 1, "conv0")
        a, a_s, a_z = act(h, hs, hshape, S.LOGISTIC, "logistic")
        y = add(b, h, a, hshape, f32(hs * 1.5), 3, ACT.NONE, "add")
    return b.finish([x], [y], name)


def attention_ops(seed: int) -> dict:
    """TRANSPOSE, BATCH_MATMUL and FULLY_CONNECTED with keep_num_dims, built with
    tools/gen_mlperf_tiny.py's float-calibrated builder (Net), at awkward shapes."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    from gen_mlperf_tiny import Net  # noqa: E402  (it imports this file's helpers)

    def build(i, f):
        net = Net(np.random.default_rng(seed + i))
        x, y = f(net)
        return net.finish(x, y, "tessera directed model")

    def transpose_0312(net):  # the last axis moves: one element per scratchpad row
        x = net.input([5, 7, 3], lo=-0.3, hi=1.0)
        return x, net.transpose(x, [0, 3, 1, 2])

    def transpose_keep_inner(net):  # rows of 10 bytes (not a multiple of N) move as runs
        x = net.input([6, 3, 10], lo=-1.0, hi=0.2)
        return x, net.transpose(x, [0, 2, 1, 3])

    def transpose_alias_then_swap(net):  # a permutation of unit axes (no copy), then a swap
        x = net.input([1, 7, 5])
        t = net.transpose(x, [0, 2, 1, 3])                                 # (1, 7, 1, 5)
        return x, net.transpose(t, [0, 3, 2, 1])                           # (1, 5, 1, 7)

    def fc_keepdims(net):  # FULLY_CONNECTED of a rank-4 tensor, keep_num_dims
        x = net.input([2, 3, 11], lo=-0.5, hi=1.0)
        return x, net.fc(x, 13, ACT.RELU)

    def bmm_adj_y(net):  # Q K^T: two heads, lhs zero point non-zero (one colsum GEMM)
        x = net.input([2, 7, 9], lo=-0.4, hi=1.0)
        k = net.fc(x, 9, symmetric=True)
        return x, net.batch_matmul(x, k, adj_y=True)

    def bmm_softmax_v(net):  # softmax (zero point -128: two colsum GEMMs) times V
        x = net.input([2, 7, 9])
        s = net.softmax(x)
        v = net.fc(net.transpose(x, [0, 1, 3, 2]), 6, symmetric=True)   # (1, 2, 9, 6)
        return x, net.batch_matmul(s, v, adj_y=False)

    def bmm_adj_x_bcast(net):  # lhs adjoint, its one batch broadcast over three
        x = net.input([1, 9, 5], lo=-1.0, hi=0.3)
        r = net.reshape(net.fc(x, 12, symmetric=True), [1, 3, 9, 4])
        return x, net.batch_matmul(x, r, adj_y=False, adj_x=True)

    def bmm_rank3_zp0(net):  # rank 3, both zero points 0 (no colsum), adj_y
        x = net.input([13, 10], symmetric=True)
        r = net.fc(x, 10, symmetric=True)
        return x, net.batch_matmul(x, r, adj_y=True)

    def concat_channels(net):  # channels 3 + 3 (rows of 3 bytes into rows of 6), axis -1
        x = net.input([6, 6, 3], lo=-0.2, hi=1.0)
        return x, net.concat([x, net.transpose(x, [0, 2, 1, 3])], -1)

    def concat_width3(net):  # three inputs (one twice) along width 5 + 5 + 5
        x = net.input([5, 5, 3])
        t = net.transpose(x, [0, 2, 1, 3])
        return x, net.concat([x, t, x], 2)

    def concat_rows(net):  # along axis 1 of a rank-3 tensor: whole blocks
        x = net.input([7, 9], lo=-1.0, hi=0.5)
        return x, net.concat([net.transpose(net.reshape(x, [1, 9, 7]), [0, 2, 1]), x], 1)

    def maxpool_same_s2_conv(net):  # 3x3 SAME stride 2 at odd sizes, then a SAME convolution
        x = net.input([7, 9, 5], lo=-1.0, hi=0.4)                         # (its output has a border)
        return x, net.conv(net.maxpool(x, 3, 2, "SAME"), 6, 3, act=ACT.NONE)

    def maxpool_valid_relu6(net):  # 2x2 VALID after a SAME convolution, channels 10, RELU6
        x = net.input([8, 6, 3])
        return x, net.maxpool(net.conv(x, 10, 3, act=ACT.NONE), 2, 2, "VALID", ACT.RELU6)

    def maxpool_same_3x2_relu(net):  # a 3x2 window, stride 1, SAME (pads right and bottom), RELU
        x = net.input([5, 6, 9], lo=-1.0, hi=0.6)
        return x, net.maxpool(x, (3, 2), 1, "SAME", ACT.RELU)

    fs = [transpose_0312, transpose_keep_inner, transpose_alias_then_swap, fc_keepdims, bmm_adj_y,
          bmm_softmax_v, bmm_adj_x_bcast, bmm_rank3_zp0, concat_channels, concat_width3, concat_rows,
          maxpool_same_s2_conv, maxpool_valid_relu6, maxpool_same_3x2_relu]
    return {f.__name__: build(i, f) for i, f in enumerate(fs)}


def host_ops(seed: int) -> dict:
    """A MUL that broadcasts, which the chip cannot run: compiled with --allow-host only."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    from gen_mlperf_tiny import Net  # noqa: E402

    def build(i, f):
        net = Net(np.random.default_rng(seed + i))
        x, y = f(net)
        return net.finish(x, y, "tessera host-operator model")

    def host_mul_bcast(net):  # MUL of the input and its column means (broadcast over height), RELU
        x = net.input([5, 7, 6], lo=-0.3, hi=1.0)
        return x, net.mul(x, net.avgpool(x, (5, 1)), ACT.RELU)

    fs = [host_mul_bcast]
    return {f.__name__: build(i, f) for i, f in enumerate(fs)}


def bad_bmm_rhs_zp(seed: int) -> bytes:
    """A BATCH_MATMUL whose right-hand operand has a non-zero zero point (refused)."""
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    from gen_mlperf_tiny import Net  # noqa: E402
    net = Net(np.random.default_rng(seed))
    x = net.input([4, 6], lo=-0.2, hi=1.0)
    r = net.fc(x, 6)
    return net.finish(x, net.batch_matmul(x, r, adj_y=True), "rhs zero point")



def vela20_models() -> dict:
    """Depthwise convolutions, convolutions and window sums large enough for tsr_dw_run's paths
    (fw/tsr_conv.c): several tiles of output rows (double-buffered, STOREs beside the next
    tile's MATMULs), several passes of channel groups, stride 2 (input phases), a MATMUL per
    output row, depth multiplier 2 (channel phases), and window sums over one output pixel
    that take one run of pixels or one per window row, several passes or images."""
    rng = np.random.default_rng(20)
    #                         shape          zp   kh kw dm sh sw dh dw same  pc    act
    dw = {
        "dw20_tiles_c20": ([1, 30, 21, 20], 9, [(3, 3, 1, 1, 1, 1, 1, True, True, ACT.RELU, "dw")]),
        "dw20_s2_dm2_c10": ([1, 27, 19, 10], -40, [(3, 3, 2, 2, 2, 1, 1, True, True, ACT.NONE, "dw")]),
        "dw20_dil2_b2": ([2, 20, 16, 12], 60, [(3, 3, 1, 1, 1, 2, 2, True, False, ACT.RELU6, "dw")]),
        "dw20_s2_wide": ([1, 33, 40, 8], -128, [(3, 3, 1, 2, 2, 1, 1, True, True, ACT.RELU, "dw")]),
        "dw20_5x5_c90": ([1, 9, 9, 90], 3, [(5, 5, 1, 1, 1, 1, 1, True, True, ACT.NONE, "dw")]),
        "dw20_chain_s2": ([1, 17, 15, 6], -3, [(3, 3, 12, 1, 1, 1, 1, True, True, ACT.RELU),
                                               (3, 3, 1, 2, 2, 1, 1, True, True, ACT.RELU6, "dw"),
                                               (3, 3, 2, 1, 1, 1, 1, True, True, ACT.NONE, "dw")]),
    }
    # CONV_2D through the same path (a block of N output channels per group, every input
    # chunk per tap): stride 1, stride 2 SAME at odd sizes, dilation 2 with channels not a
    # multiple of N (one B segment per tap), several passes of output blocks, and a 1x1
    # whose output the next SAME convolution reads with a border.
    dw.update({
        "conv20_s1_c16": ([1, 20, 18, 16], -60, [(3, 3, 24, 1, 1, 1, 1, True, True, ACT.RELU)]),
        "conv20_s2_odd_c16": ([1, 19, 17, 16], 8, [(3, 3, 20, 2, 2, 1, 1, True, True, ACT.NONE)]),
        "conv20_dil2_c10": ([1, 15, 13, 10], 30, [(3, 3, 12, 1, 1, 2, 2, True, False, ACT.RELU6)]),
        "conv20_passes": ([1, 10, 10, 32], -2, [(3, 3, 80, 1, 1, 1, 1, True, True, ACT.NONE)]),
        "conv20_1x1_border": ([1, 24, 20, 24], 77, [(1, 1, 32, 1, 1, 1, 1, True, True, ACT.RELU),
                                                    (3, 3, 8, 1, 1, 1, 1, True, True, ACT.NONE)]),
    })
    models = {nm: (synthetic_conv(rng, nm, shape, zp, layers), "int8") for nm, (shape, zp, layers) in dw.items()}
    models["avgpool20_3x3_in_5x5_b2"] = (synthetic_pool(rng, "avgpool20_3x3_in_5x5_b2", [2, 5, 5, 20], -17,
                                                       3, 3, 3, 3, False, ACT.NONE), "int8")
    models["avgpool20_global_c33"] = (synthetic_pool(rng, "avgpool20_global_c33", [1, 10, 6, 33], 44,
                                                    10, 6, 2, 2, False, ACT.RELU), "int8")
    models["mean20_c130"] = (synthetic_mean(rng, "mean20_c130", [1, 12, 12, 130], -90), "int8")
    models["mean20_b2_c40"] = (synthetic_mean(rng, "mean20_b2_c40", [2, 6, 6, 40], 5, conv_first=True), "int8")
    return models


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: gen_net_models.py OUTDIR")
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    params, hr, lr, xte, yte, float_acc = train_digits()
    models = {
        "digits_mlp": (digits_model(params, hr, lr, 1, False), "int8"),
        "digits_mlp_b200": (digits_model(params, hr, lr, 200, False), "int8"),
        "digits_mlp_float": (digits_model(params, hr, lr, 1, True), "float32"),
    }
    rng = np.random.default_rng(7)
    for pc in (False, True):
        for an, a in (("none", ACT.NONE), ("relu", ACT.RELU), ("relu6", ACT.RELU6)):
            nm = f"fc_{'pc' if pc else 'pt'}_{an}"
            models[nm] = (synthetic(rng, nm, [1, 40], 40, 12, pc, a, in_zp=17), "int8")
    models["fc_batch4_2d"] = (synthetic(rng, "fc_batch4_2d", [4, 19], 19, 9, True, ACT.RELU, -5), "int8")
    models["fc_flatten3d"] = (synthetic(rng, "fc_flatten3d", [2, 3, 16], 16, 5, False, ACT.NONE, 40), "int8")
    models["fc_two_layers"] = (synthetic(rng, "fc_two_layers", [3, 70], 70, 33, True, ACT.RELU6, -128,
                                         layers=2), "int8")
    # CONV_2D at awkward shapes: channels not a multiple of N, odd sizes with SAME and stride 2,
    # dilation 2, VALID, batch 2, a 1x1 kernel, and a SAME convolution of a convolution (its
    # input, stored by the chip, needs a border).
    #                    kh kw  oc sh sw dh dw  same  pc     act
    conv_cases = {
        "conv_same_s2_odd": ([1, 7, 9, 5], 17, [(3, 3, 11, 2, 2, 1, 1, True, True, ACT.RELU)]),
        "conv_valid_b2": ([2, 6, 5, 3], -9, [(3, 2, 9, 1, 1, 1, 1, False, False, ACT.NONE)]),
        "conv_dil2_same": ([1, 9, 8, 4], 3, [(3, 3, 6, 1, 1, 2, 2, True, True, ACT.RELU6)]),
        "conv_dil2_s2_valid": ([1, 11, 10, 3], -128, [(3, 2, 10, 2, 1, 2, 3, False, True, ACT.NONE)]),
        "conv_1x1_c20": ([1, 5, 5, 20], 0, [(1, 1, 13, 1, 1, 1, 1, True, True, ACT.RELU)]),
        "conv_chain_same": ([1, 8, 8, 3], -20, [(3, 3, 12, 1, 1, 1, 1, True, True, ACT.RELU),
                                                (5, 3, 7, 2, 2, 1, 1, True, True, ACT.NONE)]),
    }
    # DEPTHWISE_CONV_2D (the third field is the depth multiplier; "dw" marks it): channels
    # not a multiple of N, odd sizes with SAME and stride 2, multiplier 2 with dilation 2,
    # VALID with batch 2, and a depthwise-separable block (depthwise SAME, then 1x1).
    conv_cases.update({
        "dw_same_s2_odd": ([1, 7, 9, 10], 11, [(3, 3, 1, 2, 2, 1, 1, True, True, ACT.RELU, "dw")]),
        "dw_dm2_dil2": ([1, 9, 8, 5], -7, [(3, 3, 2, 1, 1, 2, 2, True, True, ACT.RELU6, "dw")]),
        "dw_valid_b2_pt": ([2, 6, 7, 3], 25, [(3, 2, 1, 1, 1, 1, 1, False, False, ACT.NONE, "dw")]),
        "dw_separable": ([1, 8, 8, 6], -30, [(3, 3, 12, 1, 1, 1, 1, True, True, ACT.RELU),
                                             (3, 3, 1, 2, 2, 1, 1, True, True, ACT.RELU, "dw"),
                                             (1, 1, 9, 1, 1, 1, 1, True, True, ACT.NONE)]),
    })
    for nm, (shape, zp, layers) in conv_cases.items():
        models[nm] = (synthetic_conv(rng, nm, shape, zp, layers), "int8")
    # AVERAGE_POOL_2D: channels not a multiple of N, odd sizes, even and odd window counts
    # (ties: sum / count = k + 1/2), after a SAME convolution, fused RELU6.
    pools = {
        "avgpool_2x2_c10": ([1, 8, 6, 10], 7, 2, 2, 2, 2, False, ACT.NONE, False),
        "avgpool_3x3_s2_odd": ([2, 9, 7, 5], -30, 3, 3, 2, 2, False, ACT.RELU, False),
        "avgpool_conv_same": ([1, 8, 8, 3], 0, 4, 4, 4, 4, True, ACT.RELU6, True),
        "avgpool_global": ([1, 5, 7, 9], 100, 5, 7, 1, 1, False, ACT.NONE, False),
    }
    for nm, args in pools.items():
        models[nm] = (synthetic_pool(rng, nm, *args), "int8")
    # MEAN over height and width: channels not a multiple of N, batch 2, after a convolution.
    models["mean_hw_c10"] = (synthetic_mean(rng, "mean_hw_c10", [1, 5, 7, 10], 100), "int8")
    models["mean_hw_b2"] = (synthetic_mean(rng, "mean_hw_b2", [2, 4, 4, 8], -128), "int8")
    models["mean_hw_conv"] = (synthetic_mean(rng, "mean_hw_conv", [1, 9, 9, 3], -5, conv_first=True), "int8")
    models["mean_hw_7x7_rescale"] = (synthetic_mean(rng, "mean_hw_7x7_rescale", [1, 7, 7, 4], 3,
                                                    out_q=(f32(0.018), -50)), "int8")
    # PAD of height and width (zero point), alone with batch 2, and before a VALID convolution.
    models["pad_b2"] = (synthetic_pad(rng, "pad_b2", [2, 4, 5, 3], 21, ((0, 1), (3, 0)), False), "int8")
    models["pad_conv_valid"] = (synthetic_pad(rng, "pad_conv_valid", [1, 7, 6, 5], -60, ((1, 2), (2, 1)),
                                              True), "int8")
    for kind in ("residual", "branches", "fc", "resblock"):
        models[f"add_{kind}"] = (synthetic_add(rng, f"add_{kind}", kind), "int8")
    # (their own generators, so that the models after them keep their weights)
    for i, kind in enumerate(("residual", "resblock", "fc", "square")):
        models[f"mul_{kind}"] = (synthetic_mul(np.random.default_rng(70 + i), f"mul_{kind}", kind),
                                 "int8")
    # The activations TFLite Micro computes in integer arithmetic, each after a
    # FULLY_CONNECTED and on the graph input (a last dimension not a multiple of N).
    for an, code in (("logistic", S.LOGISTIC), ("tanh", S.TANH), ("hard_swish", S.HARD_SWISH),
                     ("relu", S.RELU), ("relu6", S.RELU6)):
        models[f"act_{an}_fc"] = (synthetic_act(rng, f"act_{an}_fc", code, [3, 30], 9, True), "int8")
        models[f"act_{an}_in"] = (synthetic_act(rng, f"act_{an}_in", code, [2, 5, 7], -20, False), "int8")
    # A LUT activation fused into the layer before it, and one whose input a second operator
    # reads (not fused).
    for kind in ("conv_logistic", "fc_tanh", "conv_hard_swish", "conv_logistic_shared", "dw_tanh",
                 "mean_logistic"):
        models[f"fuse_{kind}"] = (synthetic_fuse(rng, f"fuse_{kind}", kind), "int8")
    # TRANSPOSE, BATCH_MATMUL (adjoint operands, broadcast batches, every colsum case) and
    # FULLY_CONNECTED with keep_num_dims.
    for nm, blob in attention_ops(11).items():
        models[nm] = (blob, "int8")
    models.update(vela20_models())
    # The digits CNN: trained by tools/train_digits_cnn.py (make digits-cnn), committed; its
    # held-out split is every fifth image.
    from sklearn.datasets import load_digits
    models["digits_cnn"] = ((pathlib.Path(__file__).parent / "models" / "digits_cnn.tflite").read_bytes(),
                            "int8")
    dd = load_digits()
    held = np.arange(len(dd.images)) % 5 == 0
    xc = np.clip(np.round(dd.images[held].astype(np.float32) / np.float32(f32(16.0 / 255.0))) - 128,
                 -128, 127).astype(np.int8)
    np.save(out / "digits_cnn_test_x.npy", xc.reshape(-1, 1, 8, 8, 1))
    np.save(out / "digits_cnn_test_y.npy", dd.target[held].astype(np.int64))
    lines = []
    for nm, (blob, dt) in models.items():
        (out / f"{nm}.tflite").write_bytes(blob)
        lines.append(f"{nm} {dt}")
    (out / "bad_avgpool.tflite").write_bytes(bad_avgpool())
    (out / "bad_padded_fc.tflite").write_bytes(bad_padded_fc())
    (out / "bad_bmm_rhs_zp.tflite").write_bytes(bad_bmm_rhs_zp(12))
    host = host_ops(31)
    host["bad_bmm_rhs_zp"] = bad_bmm_rhs_zp(12)  # refused on the chip; --allow-host takes it
    for nm, blob in host.items():
        (out / f"{nm}.tflite").write_bytes(blob)
    (out / "models_host.txt").write_text("\n".join(host) + "\n")
    xq = np.clip(np.round(xte[:200] / np.float32(f32(16.0 / 255.0))) - 128, -128, 127).astype(np.int8)
    np.save(out / "digits_test_x.npy", xq.reshape(200, 8, 8))
    np.save(out / "digits_test_xf.npy", xte[:200].astype(np.float32))
    np.save(out / "digits_test_y.npy", yte[:200].astype(np.int64))
    (out / "models.txt").write_text("\n".join(lines) + "\n")
    (out / "float_accuracy.txt").write_text(f"{float_acc:.4f}\n")
    print(f"gen_net_models: {len(models)} models, 3 refused ones, 200 digits test images "
          f"(float model accuracy {float_acc:.3f}) in {out}")


if __name__ == "__main__":
    main()
