#!/usr/bin/env python3
"""gen_mlperf_tiny.py: the four MLPerf Tiny architectures and one attention block as int8 .tflite.

    gen_mlperf_tiny.py OUTDIR [--seed S]

Writes under OUTDIR, reproducibly (a fixed seed):

  resnet8.tflite        image classification, 32x32x3: a 16-channel stem, three residual
                        stacks (16, 32, 64 channels; the last two stride 2 with a 1x1
                        projection), 8x8 average pool, FULLY_CONNECTED 10, SOFTMAX
  ds_cnn.tflite         keyword spotting, 49x10x1: CONV_2D 64 10x4 stride 2, four
                        DEPTHWISE_CONV_2D 3x3 + CONV_2D 1x1 blocks, 25x5 average pool,
                        FULLY_CONNECTED 12, SOFTMAX
  mobilenet_v1_025.tflite  visual wake words, 96x96x3: MobileNetV1 with width 0.25 (13
                        depthwise-separable blocks), 3x3 average pool, FULLY_CONNECTED 2,
                        SOFTMAX
  autoencoder.tflite    anomaly detection, 640 inputs: FULLY_CONNECTED 128 x4, 8, 128 x4, 640
  attention.tflite      one attention block, sequence 64, width 128, 4 heads: Q, K and V as
                        FULLY_CONNECTED (K and V quantized symmetrically), per head
                        BATCH_MATMUL Q Kt, SOFTMAX, BATCH_MATMUL with V, the output projection
                        and the residual ADD
  mlperf_tiny.txt       one line per model: NAME INPUT_DTYPE MACS

The layer shapes are the published ones (MLPerf Tiny's reference models). The
weights are random, drawn per output channel with a log-normal spread of
scales so that per-channel quantization has something to do; the activation
ranges come from a float forward pass of this file's own over random inputs.
These models measure speed and exactness, not accuracy. The files are written
with TFLite's schema module as tests/net/gen_net_models.py writes its models.
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "net"))
from gen_net_models import ACT, O, S, T, Builder, act_qparams, f32, quant_weights, tfl  # noqa: E402

CALIB = 8  # inputs in the float calibration pass


class Val:
    """A tensor: its index in the model, its float values on the calibration batch, its quantization."""

    def __init__(self, idx: int, x: np.ndarray, scale: float, zp: int):
        self.idx, self.x, self.scale, self.zp = idx, x, scale, zp

    @property
    def shape(self):
        return [1] + list(self.x.shape[1:])


def same_pad(n: int, k: int, s: int, d: int) -> tuple[int, int, int]:
    """TFLite's SAME padding along one axis: (output size, pad before, pad after)."""
    eff = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + eff - n, 0)
    return out, total // 2, total - total // 2


def activate(y: np.ndarray, act: int) -> np.ndarray:
    if act == ACT.RELU:
        return np.maximum(y, 0.0)
    if act == ACT.RELU6:
        return np.clip(y, 0.0, 6.0)
    return y


class Net:
    """Builds a model op by op: each op runs in float on the calibration batch, then is emitted in int8."""

    def __init__(self, rng: np.random.Generator):
        self.rng, self.b, self.macs, self.n = rng, Builder(), 0, 0

    def name(self, kind: str) -> str:
        self.n += 1
        return f"{kind}_{self.n}"

    def out(self, y: np.ndarray, name: str, act: int = ACT.NONE, like: Val | None = None,
            symmetric: bool = False) -> Val:
        if like is not None:
            scale, zp = like.scale, like.zp
        elif symmetric:
            scale, zp = f32(max(float(np.abs(y).max()), 1e-6) / 127.0), 0
        else:
            lo, hi = float(y.min()), float(y.max())
            if act in (ACT.RELU, ACT.RELU6):
                lo = 0.0
            scale, zp = act_qparams(lo, hi)
        return Val(self.b.tensor(name, T.INT8, [1] + list(y.shape[1:]), scale, zp), y, scale, zp)

    def input(self, shape, lo=-1.0, hi=1.0, symmetric=False) -> Val:
        x = self.rng.uniform(lo, hi, [CALIB] + list(shape))
        return self.out(x, "input", symmetric=symmetric)

    def weights(self, out_ch: int, fan_in: int, shape) -> np.ndarray:
        """He-scaled normal weights, each output channel (last axis of `shape`) scaled log-normally."""
        w = self.rng.normal(0.0, np.sqrt(2.0 / fan_in), shape)
        return w * self.rng.lognormal(0.0, 0.5, out_ch)

    def bias(self, x: Val, ws: np.ndarray, n: int) -> tuple[np.ndarray, int]:
        """A float bias and its int32 tensor at scale in_scale * w_scale."""
        bf = self.rng.normal(0.0, 0.1, n)
        bs = np.float64(f32(x.scale)) * ws
        bq = np.clip(np.round(bf / bs), -2**31, 2**31 - 1).astype("<i4")
        return bq * bs, self.b.tensor(f"{self.name('bias')}", T.INT32, [n], bs, [0] * n, axis=0,
                                      data=bq.tobytes())

    def conv(self, x: Val, cout: int, k, stride=1, pad="SAME", act=ACT.RELU, dil=1, depthwise=False,
             mult=1) -> Val:
        kh, kw = (k, k) if isinstance(k, int) else k
        n, h, w, c = x.x.shape
        if pad == "SAME":
            oh, pt, pb = same_pad(h, kh, stride, dil)
            ow, pl, pr = same_pad(w, kw, stride, dil)
        else:
            oh, ow = (h - (kh - 1) * dil - 1) // stride + 1, (w - (kw - 1) * dil - 1) // stride + 1
            pt = pb = pl = pr = 0
        xp = np.pad(x.x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
        cols = np.stack([xp[:, i * dil:i * dil + (oh - 1) * stride + 1:stride,
                            j * dil:j * dil + (ow - 1) * stride + 1:stride, :]
                         for i in range(kh) for j in range(kw)], axis=3)  # n, oh, ow, kh*kw, c
        name = self.name("dwconv" if depthwise else "conv")
        if depthwise:
            cout = c * mult
            wf = self.weights(cout, kh * kw, (kh, kw, cout))                       # kh, kw, c*m
            y = np.einsum("nhwkc,kc->nhwc", np.repeat(cols, mult, axis=4), wf.reshape(kh * kw, cout))
            wq, ws = quant_weights(wf.reshape(kh * kw, cout).T, per_channel=True)  # (c*m, kh*kw)
            w_t = self.b.tensor(f"{name}/weights", T.INT8, [1, kh, kw, cout], ws, [0] * cout, axis=3,
                                data=wq.T.reshape(kh, kw, cout).tobytes())
            self.macs += oh * ow * kh * kw * cout
        else:
            wf = self.weights(cout, kh * kw * c, (kh, kw, c, cout))
            y = np.einsum("nhwkc,kco->nhwo", cols, wf.reshape(kh * kw, c, cout))
            wq, ws = quant_weights(wf.reshape(kh * kw * c, cout).T, per_channel=True)  # (cout, kh*kw*c)
            w_t = self.b.tensor(f"{name}/weights", T.INT8, [cout, kh, kw, c], ws, [0] * cout, axis=0,
                                data=wq.tobytes())
            self.macs += oh * ow * kh * kw * c * cout
        bf, b_t = self.bias(x, ws, cout)
        y = activate(y + bf, act)
        yv = self.out(y, name, act)
        if depthwise:
            opts = tfl.DepthwiseConv2DOptionsT()
            opts.depthMultiplier = mult
            code, otype = S.DEPTHWISE_CONV_2D, O.DepthwiseConv2DOptions
        else:
            opts = tfl.Conv2DOptionsT()
            code, otype = S.CONV_2D, O.Conv2DOptions
        opts.padding = tfl.Padding.SAME if pad == "SAME" else tfl.Padding.VALID
        opts.strideH = opts.strideW = stride
        opts.dilationHFactor = opts.dilationWFactor = dil
        opts.fusedActivationFunction = act
        self.b.op(code, [x.idx, w_t, b_t], [yv.idx], otype, opts)
        return yv

    def dwconv(self, x: Val, k, stride=1, act=ACT.RELU, mult=1) -> Val:
        return self.conv(x, 0, k, stride, "SAME", act, depthwise=True, mult=mult)

    def fc(self, x: Val, n: int, act=ACT.NONE, gain=1.0, symmetric=False) -> Val:
        """FULLY_CONNECTED; `gain` scales the weights (a classifier's, so that its softmax is not one-hot);
        `symmetric`: the output's zero point is 0."""
        xf = x.x.reshape(x.x.shape[0], -1) if x.x.ndim < 3 else x.x
        k = xf.shape[-1]
        wf = gain * self.weights(n, k, (k, n)).T                                   # (n, k)
        wq, ws = quant_weights(wf, per_channel=True)
        bf, b_t = self.bias(x, ws, n)
        name = self.name("fc")
        w_t = self.b.tensor(f"{name}/weights", T.INT8, [n, k], ws, [0] * n, axis=0, data=wq.tobytes())
        y = activate(xf @ wf.T + bf, act)
        self.macs += int(np.prod(xf.shape[1:-1], dtype=np.int64)) * k * n
        yv = self.out(y, name, act, symmetric=symmetric)
        opts = tfl.FullyConnectedOptionsT()
        opts.fusedActivationFunction = act
        opts.keepNumDims = x.x.ndim >= 3
        self.b.op(S.FULLY_CONNECTED, [x.idx, w_t, b_t], [yv.idx], O.FullyConnectedOptions, opts)
        return yv

    def add(self, a: Val, c: Val, act=ACT.NONE) -> Val:
        yv = self.out(activate(a.x + c.x, act), self.name("add"), act)
        opts = tfl.AddOptionsT()
        opts.fusedActivationFunction = act
        self.b.op(S.ADD, [a.idx, c.idx], [yv.idx], O.AddOptions, opts)
        return yv

    def avgpool(self, x: Val, k) -> Val:
        kh, kw = (k, k) if isinstance(k, int) else k
        n, h, w, c = x.x.shape
        y = x.x[:, :h // kh * kh, :w // kw * kw, :].reshape(n, h // kh, kh, w // kw, kw, c).mean(axis=(2, 4))
        yv = self.out(y, self.name("avgpool"), like=x)  # TFLite's int8 pooling keeps the input's scale
        opts = tfl.Pool2DOptionsT()
        opts.padding, opts.strideH, opts.strideW = tfl.Padding.VALID, kh, kw
        opts.filterHeight, opts.filterWidth = kh, kw
        self.b.op(S.AVERAGE_POOL_2D, [x.idx], [yv.idx], O.Pool2DOptions, opts)
        return yv

    def reshape(self, x: Val, shape) -> Val:
        y = x.x.reshape([x.x.shape[0]] + list(shape[1:]))
        st = self.b.tensor(self.name("shape"), T.INT32, [len(shape)], data=np.array(shape, "<i4").tobytes())
        yv = self.out(y, self.name("reshape"), like=x)
        opts = tfl.ReshapeOptionsT()
        opts.newShape = list(shape)
        self.b.op(S.RESHAPE, [x.idx, st], [yv.idx], O.ReshapeOptions, opts)
        return yv

    def transpose(self, x: Val, perm) -> Val:
        assert perm[0] == 0, "the calibration batch is axis 0"
        y = x.x.transpose(perm)
        pt = self.b.tensor(self.name("perm"), T.INT32, [len(perm)], data=np.array(perm, "<i4").tobytes())
        yv = self.out(y, self.name("transpose"), like=x)
        self.b.op(S.TRANSPOSE, [x.idx, pt], [yv.idx], O.TransposeOptions, tfl.TransposeOptionsT())
        return yv

    def batch_matmul(self, a: Val, c: Val, adj_y: bool, adj_x: bool = False) -> Val:
        cm = np.swapaxes(c.x, -1, -2) if adj_y else c.x
        am = np.swapaxes(a.x, -1, -2) if adj_x else a.x
        y = am @ cm
        self.macs += int(np.prod(y.shape[1:], dtype=np.int64)) * am.shape[-1]
        yv = self.out(y, self.name("bmm"))
        opts = tfl.BatchMatMulOptionsT()
        opts.adjX, opts.adjY = adj_x, adj_y
        self.b.op(S.BATCH_MATMUL, [a.idx, c.idx], [yv.idx], O.BatchMatMulOptions, opts)
        return yv

    def mul(self, a: Val, c: Val, act=ACT.NONE) -> Val:
        yv = self.out(activate(a.x * c.x, act), self.name("mul"), act)
        opts = tfl.MulOptionsT()
        opts.fusedActivationFunction = act
        self.b.op(S.MUL, [a.idx, c.idx], [yv.idx], O.MulOptions, opts)
        return yv

    def maxpool(self, x: Val, k, stride, pad="SAME", act=ACT.NONE) -> Val:
        """MAX_POOL_2D; the output is quantized as the input (TFLite's requirement)."""
        kh, kw = (k, k) if isinstance(k, int) else k
        n, h, w, c = x.x.shape
        if pad == "SAME":
            oh, pt, pb = same_pad(h, kh, stride, 1)
            ow, pl, pr = same_pad(w, kw, stride, 1)
        else:
            oh, ow, pt, pb, pl, pr = (h - kh) // stride + 1, (w - kw) // stride + 1, 0, 0, 0, 0
        xp = np.pad(x.x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=-np.inf)
        y = np.max(np.stack([xp[:, i:i + (oh - 1) * stride + 1:stride, j:j + (ow - 1) * stride + 1:stride, :]
                             for i in range(kh) for j in range(kw)]), axis=0)
        yv = self.out(activate(y, act), self.name("maxpool"), like=x)
        opts = tfl.Pool2DOptionsT()
        opts.padding = tfl.Padding.SAME if pad == "SAME" else tfl.Padding.VALID
        opts.strideH = opts.strideW = stride
        opts.filterHeight, opts.filterWidth = kh, kw
        opts.fusedActivationFunction = act
        self.b.op(S.MAX_POOL_2D, [x.idx], [yv.idx], O.Pool2DOptions, opts)
        return yv

    def concat(self, xs: list[Val], axis: int) -> Val:
        """CONCATENATION; the output is quantized as the first input (TFLite Micro wants all alike)."""
        y = np.concatenate([v.x for v in xs], axis=axis)
        yv = self.out(y, self.name("concat"), like=xs[0])
        opts = tfl.ConcatenationOptionsT()
        opts.axis, opts.fusedActivationFunction = axis, ACT.NONE
        self.b.op(S.CONCATENATION, [v.idx for v in xs], [yv.idx], O.ConcatenationOptions, opts)
        return yv

    def softmax(self, x: Val) -> Val:
        e = np.exp(x.x - x.x.max(axis=-1, keepdims=True))
        y = e / e.sum(axis=-1, keepdims=True)
        name = self.name("softmax")
        yv = Val(self.b.tensor(name, T.INT8, x.shape, 1.0 / 256.0, -128), y, 1.0 / 256.0, -128)
        opts = tfl.SoftmaxOptionsT()
        opts.beta = 1.0
        self.b.op(S.SOFTMAX, [x.idx], [yv.idx], O.SoftmaxOptions, opts)
        return yv

    def finish(self, x: Val, y: Val, description: str) -> bytes:
        return self.b.finish([x.idx], [y.idx], description)


def resnet8(net: Net) -> tuple[Val, Val]:
    x = net.input([32, 32, 3])
    y = net.conv(x, 16, 3)
    for ch, stride in ((16, 1), (32, 2), (64, 2)):
        r = net.conv(y, ch, 3, stride)
        r = net.conv(r, ch, 3, 1, act=ACT.NONE)
        s = y if stride == 1 else net.conv(y, ch, 1, stride, act=ACT.NONE)
        y = net.add(s, r, ACT.RELU)
    y = net.avgpool(y, 8)
    y = net.reshape(y, [1, 64])
    return x, net.softmax(net.fc(y, 10, gain=0.1))


def ds_cnn(net: Net) -> tuple[Val, Val]:
    x = net.input([49, 10, 1])
    y = net.conv(x, 64, (10, 4), 2)
    for _ in range(4):
        y = net.dwconv(y, 3)
        y = net.conv(y, 64, 1)
    y = net.avgpool(y, (25, 5))
    y = net.reshape(y, [1, 64])
    return x, net.softmax(net.fc(y, 12, gain=0.1))


def mobilenet_v1_025(net: Net) -> tuple[Val, Val]:
    x = net.input([96, 96, 3])
    y = net.conv(x, 8, 3, 2, act=ACT.RELU6)
    for ch, stride in ((16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2), (128, 1), (128, 1),
                       (128, 1), (128, 1), (128, 1), (256, 2), (256, 1)):
        y = net.dwconv(y, 3, stride, ACT.RELU6)
        y = net.conv(y, ch, 1, act=ACT.RELU6)
    y = net.avgpool(y, 3)
    y = net.reshape(y, [1, 256])
    return x, net.softmax(net.fc(y, 2, gain=0.1))


def autoencoder(net: Net) -> tuple[Val, Val]:
    x = net.input([640])
    y = x
    for n in (128, 128, 128, 128, 8, 128, 128, 128, 128):
        y = net.fc(y, n, ACT.RELU)
    return x, net.fc(y, 640)


def attention(net: Net, seq=64, width=128, heads=4) -> tuple[Val, Val]:
    x = net.input([seq, width])
    dh = width // heads

    def split(v: Val) -> Val:  # (1, seq, width) -> (1, heads, seq, dh)
        return net.transpose(net.reshape(v, [1, seq, heads, dh]), [0, 2, 1, 3])

    # K and V, the right-hand operands of the two BATCH_MATMULs, are quantized symmetrically:
    # the compiler takes a right-hand zero point of 0 only (docs/networks.md).
    q, k, v = (split(net.fc(x, width, symmetric=sym)) for sym in (False, True, True))
    s = net.softmax(net.batch_matmul(q, k, adj_y=True))
    o = net.batch_matmul(s, v, adj_y=False)
    o = net.reshape(net.transpose(o, [0, 2, 1, 3]), [1, seq, width])
    return x, net.add(x, net.fc(o, width))


MODELS = {
    "resnet8": (resnet8, "MLPerf Tiny image classification: ResNet-8, random weights"),
    "ds_cnn": (ds_cnn, "MLPerf Tiny keyword spotting: DS-CNN, random weights"),
    "mobilenet_v1_025": (mobilenet_v1_025, "MLPerf Tiny visual wake words: MobileNetV1 0.25, random weights"),
    "autoencoder": (autoencoder, "MLPerf Tiny anomaly detection: FC autoencoder, random weights"),
    "attention": (attention, "attention block: sequence 64, width 128, 4 heads, random weights"),
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("outdir", type=pathlib.Path)
    ap.add_argument("--seed", type=int, default=20261126)
    args = ap.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    lines = []
    for i, (name, (build, desc)) in enumerate(MODELS.items()):
        net = Net(np.random.default_rng(args.seed + i))
        x, y = build(net)
        (args.outdir / f"{name}.tflite").write_bytes(net.finish(x, y, desc))
        lines.append(f"{name} int8 {net.macs}")
    (args.outdir / "mlperf_tiny.txt").write_text("\n".join(lines) + "\n")
    print(f"gen_mlperf_tiny: {len(lines)} models in {args.outdir}: " +
          ", ".join(f"{ln.split()[0]} {int(ln.split()[2]) / 1e6:.2f} M MACs" for ln in lines))


if __name__ == "__main__":
    main()
