"""layer_oracle.py: every intermediate tensor the chip wrote against TFLite Micro's, byte for byte.

`tessera run MODEL --dump-layers DIR` writes each chip layer's output as
DIR/op<operator index>.npy. TFLite Micro's interpreter, built with
kPreserveAllTensors, keeps every tensor of an inference and reads it back with
GetTensor; the operator's first output (from the model's own flatbuffer, through
the schema module of ai-edge-litert) names the tensor. So each layer of the chip
is compared with the reference kernels' own intermediate result, not with our
golden model.
"""

from __future__ import annotations

import pathlib

import numpy as np
from ai_edge_litert import schema_py_generated as tfl
from tflite_micro.python.tflite_micro import runtime as tflm


# TFLite Micro's arena: every tensor kept, so more than an inference needs (it crashes, not
# fails, when the arena is too small). The largest model here, MobileNetV1 0.25, keeps < 2 MiB.
ARENA = 32 << 20


def op_outputs(model: bytes) -> list[int]:
    """The first output tensor of each operator of subgraph 0."""
    g = tfl.Model.GetRootAsModel(model, 0).Subgraphs(0)
    return [g.Operators(i).Outputs(0) for i in range(g.OperatorsLength())]


def compare(model: bytes, x: np.ndarray, dump: pathlib.Path) -> tuple[int, list[str]]:
    """(tensors compared, one line per tensor that differs or is missing)."""
    it = tflm.Interpreter.from_bytes(model, arena_size=ARENA,
                                     intrepreter_config=tflm.InterpreterConfig.kPreserveAllTensors)
    it.set_input(x.reshape(it.get_input_details(0)["shape"]), 0)
    it.invoke()
    outs = op_outputs(model)
    files = sorted(dump.glob("op*.npy"), key=lambda f: int(f.stem[2:]))
    bad = []
    for f in files:
        op = int(f.stem[2:])
        if op >= len(outs):
            bad.append(f"{f.name}: the model has {len(outs)} operators")
            continue
        want = np.asarray(it.GetTensor(outs[op], 0)["tensor_data"])
        got = np.load(f)
        if got.tobytes() != want.tobytes():
            n = int(np.sum(got.ravel() != want.ravel())) if got.size == want.size else got.size
            bad.append(f"operator {op} (tensor {outs[op]}): {n} of {want.size} bytes differ from "
                       f"TFLite Micro's")
    if not files:
        bad.append(f"{dump}: no layer outputs")
    return len(files), bad
