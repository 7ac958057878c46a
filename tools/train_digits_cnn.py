#!/usr/bin/env python3
"""train_digits_cnn.py: train the digits CNN and write it as an int8 .tflite (make digits-cnn).

The network (docs/networks.md, "The digits CNN"):

  int8 [1,8,8,1] -> CONV_2D 3x3 SAME 1->16 RELU -> CONV_2D 3x3 SAME stride 2 16->32 RELU
  -> RESHAPE [1,512] -> FULLY_CONNECTED 512->10 -> SOFTMAX (int8, scale 1/256, zp -128)

It is trained in float with JAX (CPU wheel, pinned by tools/install-deps.sh) on
scikit-learn's digits (1,797 8x8 images, pixels 0..16), with a fixed held-out
split: every fifth image (index % 5 == 0, 360 images) is never trained on.
Then it is quantized with TFLite's int8 scheme: weights symmetric per output
channel, activations asymmetric over the range seen on the training images,
biases int32 at in_scale * w_scale, the input at scale 16/255 and zero point
-128. The file is written with TFLite's schema module and flatbuffers by the
same builder as tests/net/gen_net_models.py.

The result is committed (tests/net/models/digits_cnn.tflite): `make test` never
trains. Training is deterministic for a given JAX and scikit-learn (seeded
initialization and batch order, float32 on the CPU).

  train_digits_cnn.py OUT.tflite [--epochs E] [--seed S]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

try:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from sklearn.datasets import load_digits
except ImportError as e:
    sys.exit(f"train_digits_cnn: {e.name} not found: make deps (tools/install-deps.sh pins jax)")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests" / "net"))
import gen_net_models as g  # noqa: E402  (the .tflite builder and quantizers)

IN_SCALE, IN_ZP = g.f32(16.0 / 255.0), -128


def split():
    """(x_train, y_train, x_test, y_test): float NHWC pixels 0..16; test = index % 5 == 0."""
    d = load_digits()
    x = d.images.astype(np.float32)[..., None]
    test = np.arange(len(x)) % 5 == 0
    return x[~test], d.target[~test], x[test], d.target[test]


def conv(x, w, b, stride):
    y = jax.lax.conv_general_dilated(x, w, (stride, stride), "SAME",
                                     dimension_numbers=("NHWC", "OHWI", "NHWC"))
    return y + b


def forward(p, x):
    """The float network; every intermediate, for calibration."""
    h1 = jax.nn.relu(conv(x, p["w1"], p["b1"], 1))
    h2 = jax.nn.relu(conv(h1, p["w2"], p["b2"], 2))
    logits = h2.reshape(h2.shape[0], -1) @ p["w3"].T + p["b3"]
    return h1, h2, logits


def loss(p, x, y):
    logits = forward(p, x)[2]
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], axis=1))


def train(xtr, ytr, epochs: int, seed: int):
    k = jax.random.split(jax.random.PRNGKey(seed), 3)
    he = lambda key, shape, fan_in: jax.random.normal(key, shape) * np.sqrt(2.0 / fan_in)  # noqa: E731
    p = {"w1": he(k[0], (16, 3, 3, 1), 9), "b1": jnp.zeros(16),
         "w2": he(k[1], (32, 3, 3, 16), 144), "b2": jnp.zeros(32),
         "w3": he(k[2], (10, 512), 512) * 0.5, "b3": jnp.zeros(10)}
    # Adam, written out (JAX alone; no optimizer library).
    m = jax.tree_util.tree_map(jnp.zeros_like, p)
    v = jax.tree_util.tree_map(jnp.zeros_like, p)
    lr, b1, b2, eps = 2e-3, 0.9, 0.999, 1e-8

    @jax.jit
    def step(p, m, v, t, x, y):
        gr = jax.grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda a, g_: b1 * a + (1 - b1) * g_, m, gr)
        v = jax.tree_util.tree_map(lambda a, g_: b2 * a + (1 - b2) * g_ * g_, v, gr)
        p = jax.tree_util.tree_map(
            lambda w, a, c: w - lr * (a / (1 - b1 ** t)) / (jnp.sqrt(c / (1 - b2 ** t)) + eps), p, m, v)
        return p, m, v

    rng = np.random.default_rng(seed)
    xs = jnp.asarray(xtr / 16.0)  # trained on 0..1; the 1/16 is folded into w1 afterwards
    t = 0
    for _ in range(epochs):
        order = rng.permutation(len(xtr))
        for i in range(0, len(order), 64):
            idx = order[i:i + 64]
            t += 1
            p, m, v = step(p, m, v, t, xs[idx], jnp.asarray(ytr[idx]))
    p = {k_: np.asarray(v_, np.float64) for k_, v_ in p.items()}
    p["w1"] = p["w1"] / 16.0  # the model takes pixels 0..16
    return p


def model(p, ranges) -> bytes:
    b = g.Builder()
    (h1r, h2r, lr_) = ranges
    s1, z1 = g.act_qparams(*h1r)
    s2, z2 = g.act_qparams(*h2r)
    s3, z3 = g.act_qparams(*lr_)
    x = b.tensor("input", g.T.INT8, [1, 8, 8, 1], IN_SCALE, IN_ZP)
    h1 = g.conv2d(b, x, IN_SCALE, [1, 8, 8, 1], p["w1"], p["b1"], True, s1, z1, g.ACT.RELU, 1, 1, 1, 1,
                  True, "conv1")
    h2 = g.conv2d(b, h1, s1, [1, 8, 8, 16], p["w2"], p["b2"], True, s2, z2, g.ACT.RELU, 2, 2, 1, 1,
                  True, "conv2")
    flat = g.reshape(b, h2, [1, 512], s2, z2, "flatten")
    lg = g.fc(b, flat, s2, p["w3"], p["b3"], True, s3, z3, g.ACT.NONE, [1, 10], "logits")
    pr = g.softmax(b, lg, [1, 10], "probs")
    return b.finish([x], [pr], "digits CNN conv3x3-16, conv3x3/2-32, fc-10, int8")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    xtr, ytr, xte, yte = split()
    p = train(xtr, ytr, a.epochs, a.seed)
    h1, h2, logits = (np.asarray(t) for t in forward({k: jnp.asarray(v, jnp.float32) for k, v in p.items()},
                                                     jnp.asarray(xtr)))
    ranges = ((float(h1.min()), float(h1.max())), (float(h2.min()), float(h2.max())),
              (float(logits.min()), float(logits.max())))
    test_logits = np.asarray(forward({k: jnp.asarray(v, jnp.float32) for k, v in p.items()},
                                     jnp.asarray(xte))[2])
    acc = float((test_logits.argmax(1) == yte).mean())
    out = pathlib.Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(model(p, ranges))
    print(f"train_digits_cnn: float accuracy {acc:.4f} on the {len(yte)} held-out images "
          f"(trained on {len(ytr)}, {a.epochs} epochs, jax {jax.__version__}) -> {out}")


if __name__ == "__main__":
    main()
