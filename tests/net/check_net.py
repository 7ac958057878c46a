#!/usr/bin/env python3
"""check_net.py: int8 networks on the chip against TFLite Micro, byte for byte (make test-net).

For every runnable model that gen_net_models.py wrote (models.txt), many
inputs go through TFLite Micro's interpreter (the tflite-micro wheel: its
reference kernels with integer requantization, the bit-exact oracle) and
through the chip (the Verilated model): all of them in process through
tessera.Device.run (the network as one command stream; every fourth input
a layer at a time), a few through `tessera run MODEL.tflite --check
--layers` and through `tessera compile` + `tessera run MODEL.tsr --check`
(one stream; for the first input, every chip layer's output from
--dump-layers against TFLite Micro's own intermediate tensor, layer_oracle.py), and the 200 digits images at once through the batch-200
model. Every output byte must be equal. Then:

  - the digits accuracy of the chip's int8 outputs (argmax against the labels)
    must be within 3 points of the float model's;
  - the committed digits CNN runs the whole held-out split (360 images) on the
    chip: every output equal to TFLite Micro's, top-1 >= 95 %, and equal to
    LiteRT's accuracy;
  - LiteRT's interpreter (ai-edge-litert) is run as a cross-check and its
    agreement is reported (not required: its optimized kernels may round differently);
  - refused models (AVERAGE_POOL_2D, a BATCH_MATMUL right-hand zero point, a padded CONV_2D input that a
    FULLY_CONNECTED reads too) exit 2 with exactly one line
    naming the operator, its index and the supported list;
  - a LUT activation fused into the layer before it (fuse_fc_tanh) shows as FUSED in --json,
    and with --no-fuse as a LUT layer: both bit-exact, the fused one in fewer cycles;
  - MUL and MAX_POOL_2D models are refused with one line, and with --allow-host run (the
    operator on the host through the golden model, marked HOST in --json) byte for byte as
    TFLite Micro, from the .tflite and from the compiled .tsr;
  - a malformed .tsr (truncated, bad magic, a flipped byte) exits 2 with one line.

  check_net.py MODELS_DIR TESSERA_BIN DIM [--seed S] [--per-model K]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from tflite_micro.python.tflite_micro import runtime as tflm
except ImportError as e:
    sys.exit(f"check_net: {e.name} not found: pip install tflite-micro (make deps pins the version)")

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "python"))
import tessera  # noqa: E402
import layer_oracle  # noqa: E402  (beside this file)

FAILS: list[str] = []


def fail(msg: str) -> None:
    FAILS.append(msg)
    print(f"check_net: FAIL: {msg}")


def micro(model: bytes, xs: list[np.ndarray]) -> list[np.ndarray]:
    it = tflm.Interpreter.from_bytes(model, arena_size=16 << 20)
    out = []
    for x in xs:
        it.set_input(x.reshape(it.get_input_details(0)["shape"]), 0)
        it.invoke()
        out.append(np.array(it.get_output(0)))
    return out


def litert(path: pathlib.Path, xs: list[np.ndarray], ref: bool = False) -> list[np.ndarray] | None:
    """LiteRT's outputs: its default (optimized) kernels, or with ref its reference ones
    (the BUILTIN_REF resolver)."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        return None
    kw = {"experimental_op_resolver_type": OpResolverType.BUILTIN_REF} if ref else {}
    it = Interpreter(model_path=str(path), **kw)
    it.allocate_tensors()
    di, do = it.get_input_details()[0], it.get_output_details()[0]
    out = []
    for x in xs:
        it.set_tensor(di["index"], x.reshape(di["shape"]))
        it.invoke()
        out.append(np.array(it.get_tensor(do["index"])))
    return out


def float_ties(blob: bytes, rng) -> list[np.ndarray]:
    """Float inputs whose x / scale (in float32, as QUANTIZE divides) is exactly k + 1/2, for k
    across and beyond the int8 range: rounding half away from zero, not to even, must show."""
    from ai_edge_litert import schema_py_generated as tfl
    g = tfl.ModelT.InitFromPackedBuf(blob, 0).subgraphs[0]
    q = next(op for op in g.operators if op.inputs[0] == g.inputs[0])  # the QUANTIZE
    scale = np.float32(g.tensors[q.outputs[0]].quantization.scale[0])
    shape = tuple(g.tensors[g.inputs[0]].shape)
    ties = []
    for k in range(-140, 140):
        x = np.float32((k + 0.5) * np.float64(scale))
        if x / scale == np.float32(k + 0.5):
            ties.append(x)
    ties = np.array(ties, np.float32)
    return [rng.choice(ties, size=shape).astype(np.float32) for _ in range(8)]


def cli(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True)


def run_out(args: list[str], yout: pathlib.Path, what: str):
    """Run the CLI; its --json report and the output it wrote, or (report, None, None) after
    a failure named `what`."""
    p = cli(args)
    try:
        return p, json.loads(p.stdout), np.load(yout)
    except (ValueError, OSError) as e:
        fail(f"{what}: exit {p.returncode}: {p.stderr.strip()} ({e})")
        return p, None, None


def one_line_error(p: subprocess.CompletedProcess, what: str, must: list[str]) -> None:
    lines = p.stderr.splitlines()
    if p.returncode != 2 or len(lines) != 1 or not all(m in p.stderr for m in must):
        fail(f"{what}: exit {p.returncode}, stderr {p.stderr!r} (want exit 2, one line with {must})")
    else:
        print(f"  refused ({what}): {lines[0]}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("models")
    ap.add_argument("tessera")
    ap.add_argument("dim", type=int)
    ap.add_argument("--seed", type=int, default=int(os.environ.get("TSR_SEED", "1")))
    ap.add_argument("--per-model", type=int, default=40)
    a = ap.parse_args()
    t0 = time.time()
    d = pathlib.Path(a.models)
    rng = np.random.default_rng(a.seed)
    tmpdir = tempfile.TemporaryDirectory(prefix="tsr_net_")
    tmp = pathlib.Path(tmpdir.name)
    dx, dxf, dy = (np.load(d / f) for f in ("digits_test_x.npy", "digits_test_xf.npy", "digits_test_y.npy"))
    cx, cy = np.load(d / "digits_cnn_test_x.npy"), np.load(d / "digits_cnn_test_y.npy")
    models = [line.split() for line in (d / "models.txt").read_text().split("\n") if line]
    n_inputs = n_bytes = n_models = n_tensors = 0
    lite_agree = lite_total = 0
    dev = tessera.Device(f"sim:{a.dim}")
    for name, dtype in models:
        path = d / f"{name}.tflite"
        blob = path.read_bytes()
        shape = tflm.Interpreter.from_bytes(blob, arena_size=16 << 20).get_input_details(0)["shape"]
        if name == "digits_mlp_b200":
            xs = [dx]
        elif name == "digits_mlp":
            xs = [dx[i:i + 1] for i in range(200)]
        elif name == "digits_cnn":
            xs = [cx[i] for i in range(len(cx))]  # the whole held-out split
        elif name == "digits_mlp_float":
            xs = [dxf[i:i + 1] for i in range(a.per_model)] + float_ties(blob, rng)
        else:
            xs = [rng.integers(-128, 128, shape, dtype=np.int8) for _ in range(a.per_model)]
        want = micro(blob, xs)
        got = []
        for i, x in enumerate(xs):
            try:
                r = dev.run(blob if i % 2 else str(path), x, check=True, layers=(i % 4 == 0))
                if r.figures["streams"] != (sum(layer["on_chip"] for layer in r.figures["layers"])
                                            if i % 4 == 0 else 1):
                    fail(f"{name}: Device.run (input {i}): {r.figures['streams']} command streams")
                got.append(r.out)
            except tessera.TesseraError as e:
                got.append(np.zeros_like(want[i]))
                if len(FAILS) < 20:
                    fail(f"{name}: Device.run (input {i}): {e}")
        # The CLI: the .tflite with --check, and the compiled .tsr, on the first inputs.
        tsr = tmp / f"{name}.tsr"
        p = cli([a.tessera, "compile", str(path), "-o", str(tsr), "--dim", str(a.dim)])
        if p.returncode != 0:
            fail(f"{name}: compile: {p.stderr.strip()}")
        for i, x in enumerate(xs[:3]):
            xin, yout = tmp / "x.npy", tmp / "y.npy"
            np.save(xin, x)
            # The .tflite a layer at a time (--layers), the .tsr as one command stream.
            dump = tmp / f"{name}_layers"
            for src, how in ((str(path), ["--layers", "--dump-layers", str(dump)] if i == 0
                              else ["--layers"]), (str(tsr), [])):
                p = cli([a.tessera, "run", src, "--input", str(xin), "--out", str(yout), "--check",
                         "--dim", str(a.dim)] + how)
                if p.returncode != 0 or "bit-exact: yes" not in p.stdout or (
                        not how and ", 1 command stream\n" not in p.stdout):
                    fail(f"{name}: tessera run {src} (input {i}): exit {p.returncode}: "
                         f"{p.stderr.strip() or p.stdout.strip()}")
                elif np.load(yout).tobytes() != want[i].tobytes():
                    fail(f"{name}: tessera run {src} (input {i}) differs from TFLite Micro")
        # Every chip layer's output of the first input against TFLite Micro's own tensor.
        n_layers, differ = layer_oracle.compare(blob, xs[0], tmp / f"{name}_layers")
        for d in differ:
            fail(f"{name}: --dump-layers: {d}")
        n_tensors += n_layers
        bad = [i for i in range(len(xs)) if got[i].tobytes() != want[i].tobytes()]
        if bad:
            i = bad[0]
            fail(f"{name}: {len(bad)} of {len(xs)} inputs differ from TFLite Micro; the first, input "
                 f"{i}: chip {got[i].ravel()[:12]} vs micro {want[i].ravel()[:12]}")
        lr = litert(path, xs)
        lite = ""
        if lr is not None:
            agree = sum(lr[i].tobytes() == want[i].tobytes() for i in range(len(xs)))
            lite_total += len(xs)
            lite_agree += agree
            lite = f"; LiteRT agrees on {agree}"
        n_models += 1
        n_inputs += sum(x.shape[0] if name == "digits_mlp_b200" else 1 for x in xs)
        n_bytes += sum(w.nbytes for w in want)
        print(f"  {name}: {len(xs)} input(s), {'bit-exact' if not bad else 'DIFFERENT'} vs TFLite Micro"
              f" ({sum(w.nbytes for w in want)} output bytes{lite})")
        if name == "digits_cnn":
            acc = float(np.mean([np.argmax(g_) == cy[i] for i, g_ in enumerate(got)]))
            lr = litert(path, xs, ref=True)
            acc_lite = float(np.mean([np.argmax(r_) == cy[i] for i, r_ in enumerate(lr)])) if lr else -1.0
            same = sum(lr[i].tobytes() == want[i].tobytes() for i in range(len(xs))) if lr else 0
            print(f"  digits CNN: int8 chip accuracy {acc:.4f} on the {len(cy)} held-out images "
                  f"(LiteRT's reference kernels {acc_lite:.4f}, equal outputs on {same})")
            if acc < 0.95:
                fail(f"digits CNN accuracy {acc:.4f} is below 0.95")
            if lr is not None and acc != acc_lite:
                fail(f"digits CNN accuracy {acc:.4f} differs from LiteRT's {acc_lite:.4f}")
        if name == "digits_mlp_b200":
            acc = float((np.argmax(got[0].astype(np.int32), axis=1) == dy).mean())
            facc = float((d / "float_accuracy.txt").read_text())
            print(f"  digits: int8 chip accuracy {acc:.3f} on 200 test images (float model {facc:.3f})")
            if acc < facc - 0.03:
                fail(f"digits accuracy {acc:.3f} is more than 3 points below the float model's {facc:.3f}")
    dev.close()
    x0 = tmp / "x0.npy"
    np.save(x0, dx[:1])
    # --json: the figures add up, and the run is bit-exact.
    p = cli([a.tessera, "run", str(d / "digits_mlp.tflite"), "--input", str(x0), "--json", "--check",
             "--dim", str(a.dim)])
    try:
        j = json.loads(p.stdout)
        chip = [layer for layer in j["layers"] if layer["on_chip"]]
        ok = (p.returncode == 0 and j["bit_exact"] is True and j["dim"] == a.dim and len(chip) == 3
              and sum(layer["commands"] for layer in j["layers"]) == j["commands"] > 0
              and sum(layer["cycles"] for layer in j["layers"]) == j["cycles"] > 0
              and all(layer["mismatches"] == 0 and layer["streamed"] for layer in chip)
              and sum(layer["bus_read_bytes"] for layer in j["layers"]) == j["dram_read_bytes"] > 0
              and sum(layer["bus_write_bytes"] for layer in j["layers"]) == j["dram_write_bytes"] > 0
              and abs(j["latency_us_at_100mhz"] - j["cycles"] / 100) < 0.01
              and j["arena_bytes"] > 0
              and all(0 < sum(layer["time"].values()) <= layer["cycles"] for layer in chip)
              and all(abs(layer["utilization"] - layer["macs"] / (a.dim ** 2 * layer["cycles"])) <= 5e-5
                      for layer in chip))
    except (ValueError, KeyError) as e:
        ok = False
        p.stderr += f" ({e})"
    if not ok:
        fail(f"tessera run --json: exit {p.returncode}: {p.stdout.strip()} {p.stderr.strip()}")
    else:
        print(f"  --json: {j['cycles']} cycles, {j['commands']} commands over {len(j['layers'])} layers")
    # A program compiled for another array size is refused by the runtime.
    other = 4 if a.dim != 4 else 8
    p = cli([a.tessera, "compile", str(d / "digits_mlp.tflite"), "-o", str(tmp / "other.tsr"),
             "--dim", str(other)])
    one_line_error(cli([a.tessera, "run", str(tmp / "other.tsr"), "--input", str(x0), "--dim",
                        str(a.dim)]), f"compiled for N = {other}", [f"compiled for N = {other}"])
    # Refusals.
    one_line_error(cli([a.tessera, "compile", str(d / "bad_avgpool.tflite"), "-o", str(tmp / "c.tsr")]),
                   "AVERAGE_POOL_2D", ["operator 1 (AVERAGE_POOL_2D)", "not supported",
                                       "supported: FULLY_CONNECTED, CONV_2D, DEPTHWISE_CONV_2D, ADD and MUL"])
    one_line_error(cli([a.tessera, "run", str(d / "bad_avgpool.tflite"), "--input", str(x0)]),
                   "AVERAGE_POOL_2D run", ["operator 1 (AVERAGE_POOL_2D)", "supported: FULLY_CONNECTED"])
    one_line_error(cli([a.tessera, "compile", str(d / "bad_padded_fc.tflite"), "-o", str(tmp / "p.tsr")]),
                   "padded input read by FULLY_CONNECTED",
                   ["operator 0 (RESHAPE)", "padded CONV_2D", "supported: FULLY_CONNECTED"])
    one_line_error(cli([a.tessera, "compile", str(d / "bad_bmm_rhs_zp.tflite"), "-o", str(tmp / "k.tsr")]),
                   "BATCH_MATMUL rhs zero point", ["operator 1 (BATCH_MATMUL)", "zero point other than 0",
                                                   "supported: "])
    # Operators the chip cannot run (MUL, MAX_POOL_2D): refused with one line, and with
    # --allow-host run on the host through the golden model, marked so, every output byte equal
    # to TFLite Micro's (.tflite and the compiled .tsr).
    for nm in (d / "models_host.txt").read_text().split():
        path = d / f"{nm}.tflite"
        one_line_error(cli([a.tessera, "compile", str(path), "-o", str(tmp / "h.tsr")]),
                       f"{nm} without --allow-host", ["is not supported", "supported: ", "--allow-host"])
        p = cli([a.tessera, "compile", str(path), "-o", str(tmp / "h.tsr"), "--allow-host",
                 "--dim", str(a.dim)])
        if p.returncode != 0:
            fail(f"{nm}: compile --allow-host: exit {p.returncode}: {p.stderr.strip()}")
            continue
        blob = path.read_bytes()
        shape = tflm.Interpreter.from_bytes(blob).get_input_details(0)["shape"]
        xs = [rng.integers(-128, 128, shape, dtype=np.int8) for _ in range(6)]
        want = micro(blob, xs)
        hosts = 0
        for i, (x, w) in enumerate(zip(xs, want)):
            xin, yout = tmp / "hx.npy", tmp / "hy.npy"
            np.save(xin, x)
            model = str(tmp / "h.tsr") if i % 2 else str(path)
            p, j, y = run_out([a.tessera, "run", model, "--allow-host", "--input", str(xin), "--out",
                               str(yout), "--check", "--json", "--dim", str(a.dim)], yout,
                              f"{nm}: run --allow-host #{i}")
            if j is None:
                break
            hosts = sum(1 for layer in j["layers"] if layer["kind"] == "HOST" and not layer["on_chip"])
            if y.tobytes() != w.tobytes() or hosts == 0 or p.returncode != 0:
                fail(f"{nm}: run --allow-host #{i}: exit {p.returncode}, {hosts} host layers, "
                     f"{int((y.reshape(-1) != w.reshape(-1)).sum())} bytes differ from TFLite Micro")
                break
        else:
            print(f"  {nm}: --allow-host, {len(xs)} inputs bit-exact vs TFLite Micro ({hosts} host layer(s))")
    # LUT fusion through the CLI: fuse_fc_tanh's TANH goes into the GEMM's STOREs (FUSED in
    # --json, fused_into its producer, from the .tflite and the compiled .tsr) and stays a LUT
    # layer with --no-fuse; both outputs equal TFLite Micro's, the fused one in fewer cycles.
    path = d / "fuse_fc_tanh.tflite"
    blob = path.read_bytes()
    x = rng.integers(-128, 128, tflm.Interpreter.from_bytes(blob).get_input_details(0)["shape"],
                     dtype=np.int8)
    want = micro(blob, [x])[0]
    xin, yout = tmp / "fx.npy", tmp / "fy.npy"
    np.save(xin, x)
    cli([a.tessera, "compile", str(path), "-o", str(tmp / "f.tsr"), "--dim", str(a.dim)])
    seen = {}
    for model, flags in ((str(path), []), (str(tmp / "f.tsr"), []), (str(path), ["--no-fuse"])):
        p, j, y = run_out([a.tessera, "run", model, "--input", str(xin), "--out", str(yout), "--check",
                           "--json", "--dim", str(a.dim)] + flags, yout, f"fuse_fc_tanh {model} {flags}")
        if j is None:
            continue
        kinds = [(layer["kind"], layer.get("fused_into")) for layer in j["layers"]]
        expect = [("GEMM", None), ("LUT", None)] if flags else [("GEMM", None), ("FUSED", 0)]
        if p.returncode != 0 or y.tobytes() != want.tobytes() or kinds != expect:
            fail(f"fuse_fc_tanh {model} {flags}: exit {p.returncode}, layers {kinds} (want {expect}), "
                 f"{int((y.reshape(-1) != want.reshape(-1)).sum())} bytes differ from TFLite Micro")
        seen[bool(flags)] = j["cycles"]
    if len(seen) == 2 and not seen[False] < seen[True]:
        fail(f"fuse_fc_tanh: fused {seen[False]} cycles, not fewer than --no-fuse's {seen[True]}")
    elif len(seen) == 2:
        print(f"  fuse_fc_tanh: TANH fused into the GEMM ({seen[False]} cycles a layer at a time;"
              f" --no-fuse {seen[True]}), bit-exact vs TFLite Micro")
    # Bad command lines and inputs: one line, exit 2.
    xf = tmp / "xf.npy"
    np.save(xf, dxf[:1])
    tfl = str(d / "digits_mlp.tflite")
    for args, must in (
            (["run"], ["give the model first"]),
            (["compile", tfl], ["-o MODEL.tsr"]),
            (["run", tfl], ["--input X.npy"]),
            (["run", str(tmp / "missing.tflite"), "--input", str(x0)], ["cannot open"]),
            (["run", tfl, "--input", str(xf)], ["the model takes int8 (1,8,8)", "float32"]),
            (["run", tfl, "--input", str(x0), "--frob"], ["unknown option '--frob'"]),
            (["run", str(d / "digits_test_y.npy"), "--input", str(x0)], ["not a TFLite model"]),
            (["run", str(tmp / "digits_mlp.tsr") + ".tflite", "--input", str(x0)], ["cannot open"])):
        one_line_error(cli([a.tessera] + args), " ".join(args[:1] + must[:1]), must)
    # Malformed programs.
    good = (tmp / "digits_mlp.tsr").read_bytes()
    cases = {"truncated": [good[:n] for n in (0, 3, 10, 64, 100, len(good) // 2, len(good) - 1)],
             "bad magic": [b"XSRN" + good[4:]],
             "checksum": [good[:200] + bytes([good[200] ^ 1]) + good[201:],
                          good[:-5] + bytes([good[-5] ^ 0x80]) + good[-4:]]}
    for what, blobs in cases.items():
        for j, b in enumerate(blobs):
            bad_tsr = tmp / "bad.tsr"
            bad_tsr.write_bytes(b)
            want_words = ["bad magic"] if what == "bad magic" or len(b) < 4 else [what]
            one_line_error(cli([a.tessera, "run", str(bad_tsr), "--input", str(x0)]),
                           f"{what} .tsr #{j} ({len(b)} bytes)", want_words)
    print(f"check_net: {n_models} models, {n_inputs} inputs, {n_bytes} output bytes equal to TFLite "
          f"Micro's on the chip (N = {a.dim}), and {n_tensors} intermediate tensors of one input"
          f" per model; LiteRT agrees on {lite_agree} of {lite_total}; "
          f"{time.time() - t0:.1f} s")
    if FAILS:
        print(f"check_net: {len(FAILS)} failure(s)")
        return 1
    print("check_net: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
