#!/usr/bin/env python3
"""gen_tflite_cases.py: write .tflite models with TFLite's own schema module, and what a reader must find in them.

The models are built with the object API of `schema_py_generated`, the Python
module generated from tensorflow/lite/schema/schema.fbs that ships in the
ai-edge-litert wheel (ai_edge_litert/schema_py_generated.py), and packed by
the flatbuffers package. They are not meant to run: they hold every field the
C reader (sw/lib/tsr_tflite.c) decodes, with values that differ from the
defaults, plus the awkward cases: per-channel quantization on axis 0 and 3,
absent (-1) operator inputs and outputs, operator codes written only in
deprecated_builtin_code (pre-2.4 files), in both fields, and above 127
(deprecated 127), a custom code, options tables absent or with every field at
its default, options the reader does not decode, empty and external buffers
(data after the flatbuffer, the schema's offset and size fields), unnamed
tensors, a second subgraph. TFLite's own loader (the wheel's Interpreter, which
verifies the flatbuffer and parses every tensor and operator) must take each.

For each case NAME it writes NAME.tflite and NAME.expect. The .expect text is
made here from the same Python objects that were packed, never by reading the
file back, in the line format that tests/common/tsr_tflite_dump.h prints from
the C reader (floats as their float32 bit patterns, strings with \\xNN escapes),
so the check is a string comparison. Broken models (a bad index, a per-channel
count that does not match the shape, a rank over 8, no subgraph, an external
buffer outside the file, a vector shared by 50 operators) come with NAME.error,
the text the reader's message must hold. cases.txt lists every NAME.

  gen_tflite_cases.py OUTDIR                  write the cases
  gen_tflite_cases.py OUTDIR --fixture F.h    also write the C header of the unit
                                              test's fixture (FIXTURE_CASES and the broken ones)
"""

from __future__ import annotations

import argparse
import pathlib
import struct
import sys

try:
    import flatbuffers
    from ai_edge_litert import schema_py_generated as tfl
except ImportError as e:  # one line that names the package
    sys.exit(f"gen_tflite_cases: {e.name} not found: pip install ai-edge-litert==2.3.0 (or make deps)")

S = tfl.BuiltinOperator
O = tfl.BuiltinOptions
T = tfl.TensorType
ACT = tfl.ActivationFunctionType
PAD = tfl.Padding

TYPE_NAMES = {v: k for k, v in vars(T).items() if not k.startswith("_")}


# ---- building blocks ----

def f32(x: float) -> float:
    """x rounded to float32, as the file stores it."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def quant(scales, zero_points, axis=0):
    q = tfl.QuantizationParametersT()
    q.scale = [f32(s) for s in scales] if scales is not None else None
    q.zeroPoint = list(zero_points) if zero_points is not None else None
    q.quantizedDimension = axis
    return q


def tensor(name, ttype, shape, buffer=0, q=None, variable=False):
    t = tfl.TensorT()
    t.name = name
    t.type = ttype
    t.shape = shape
    t.buffer = buffer
    t.quantization = q
    t.isVariable = variable
    return t


def opcode(deprecated, builtin, version=1, custom=None):
    c = tfl.OperatorCodeT()
    c.deprecatedBuiltinCode = deprecated
    c.builtinCode = builtin
    c.version = version
    c.customCode = custom
    return c


def operator(index, inputs, outputs, opt_type=O.NONE, opts=None):
    op = tfl.OperatorT()
    op.opcodeIndex = index
    op.inputs = inputs
    op.outputs = outputs
    op.builtinOptionsType = opt_type
    op.builtinOptions = opts
    return op


def options(cls, **fields):
    o = cls()
    for k, v in fields.items():
        if not hasattr(o, k):
            raise AttributeError(f"{cls.__name__} has no field {k}")
        setattr(o, k, v)
    return o


def buffer(data):
    b = tfl.BufferT()
    b.data = None if data is None else list(data)
    return b


def subgraph(name, tensors, inputs, outputs, ops):
    g = tfl.SubGraphT()
    g.name = name
    g.tensors = tensors
    g.inputs = inputs
    g.outputs = outputs
    g.operators = ops
    return g


def model(description, opcodes, subgraphs, buffers):
    m = tfl.ModelT()
    m.version = 3
    m.description = description
    m.operatorCodes = opcodes
    m.subgraphs = subgraphs
    m.buffers = buffers
    return m


def ramp(n, start=1):
    return bytes((start + 7 * i) & 0xFF for i in range(n))


# ---- the cases ----

def case_all_ops():
    """Every decoded options table, per-channel quantization, -1 inputs, every opcode style."""
    bufs = [
        buffer(None),                 # 0: the empty buffer, by convention
        buffer(ramp(4 * 3 * 3 * 2)),  # 1: conv weights
        buffer(ramp(16, 200)),        # 2: conv bias (4 x int32)
        buffer(ramp(3 * 3 * 8, 9)),   # 3: depthwise weights
        buffer(ramp(6 * 16, 77)),     # 4: fc weights, stored after the flatbuffer (external)
        buffer(struct.pack("<2i", 1, -1)),  # 5: reshape's shape operand
        buffer([]),                   # 6: an empty data vector (not absent)
    ]
    ts = [
        tensor("input", T.INT8, [1, 5, 5, 2], 0, quant([0.5], [-3])),
        tensor("conv/w", T.INT8, [4, 3, 3, 2], 1, quant([0.1, 0.2, 0.3, 0.4], [0, 0, 0, 0], 0)),
        tensor("conv/b", T.INT32, [4], 2, quant([0.05, 0.1, 0.15, 0.2], [0, 0, 0, 0], 0)),
        tensor("conv/out", T.INT8, [1, 2, 3, 4], 0, quant([0.25], [5])),
        tensor("dw/w", T.INT8, [1, 3, 3, 8], 3, quant([0.01 * (i + 1) for i in range(8)], [0] * 8, 3)),
        tensor("dw/out", T.INT8, [1, 2, 2, 8], 0, quant([0.125], [-128])),
        tensor("avg", T.INT8, [1, 1, 1, 8], 0, quant([0.125], [-128])),
        tensor("max", T.INT8, [1, 2, 2, 8], 0, quant([0.125], [-128])),
        tensor("add", T.INT16, [1, 2, 2, 8], 0, quant([1.0 / 32768], [0])),
        tensor("mul", T.UINT8, [1, 2, 2, 8], 0, quant([0.0078125], [128])),
        tensor("fc/w", T.INT8, [6, 16], 4, quant([0.02] * 6, [0] * 6, 0)),
        tensor("fc/out", T.INT8, [1, 6], 0, quant([0.3], [2])),
        tensor("shape", T.INT32, [2], 5),
        tensor("reshaped", T.INT8, [1, 6], 0),
        tensor("concat", T.INT8, [1, 18], 0),
        tensor("bmm", T.FLOAT32, [1, 18, 18], 0),
        tensor("softmax", T.FLOAT32, [1, 18, 18], 0),
        tensor("gelu", T.FLOAT32, [1, 18, 18], 0),
        tensor("custom/out", T.INT64, [3], 0, variable=True),
        tensor("t\u00e4nsor \"q\"\\", T.BOOL, [], 0),  # escapes in the name; a scalar
        tensor(None, T.FLOAT16, None, 0, quant(None, None)),  # unnamed, no shape, empty quantization
    ]
    codes = [
        opcode(S.CONV_2D, 0),                        # 0: pre-2.4 file: only the deprecated field
        opcode(S.DEPTHWISE_CONV_2D, S.DEPTHWISE_CONV_2D, 2),
        opcode(S.AVERAGE_POOL_2D, S.AVERAGE_POOL_2D),
        opcode(S.MAX_POOL_2D, S.MAX_POOL_2D, 3),
        opcode(0, 0),                                # 4: ADD is code 0: both fields at their default
        opcode(S.MUL, S.MUL),
        opcode(S.FULLY_CONNECTED, S.FULLY_CONNECTED, 5),
        opcode(S.RESHAPE, S.RESHAPE),
        opcode(S.CONCATENATION, S.CONCATENATION),
        opcode(S.BATCH_MATMUL, S.BATCH_MATMUL, 4),
        opcode(S.SOFTMAX, S.SOFTMAX),
        opcode(S.PLACEHOLDER_FOR_GREATER_OP_CODES, S.GELU, 2),  # 11: code > 127
        opcode(S.CUSTOM, S.CUSTOM, 1, "TsrCustom"),
    ]
    ops = [
        operator(0, [0, 1, 2], [3], O.Conv2DOptions, options(
            tfl.Conv2DOptionsT, padding=PAD.VALID, strideW=2, strideH=1,
            fusedActivationFunction=ACT.RELU6, dilationWFactor=2, dilationHFactor=3)),
        operator(1, [3, 4, -1], [5], O.DepthwiseConv2DOptions, options(
            tfl.DepthwiseConv2DOptionsT, padding=PAD.SAME, strideW=1, strideH=2, depthMultiplier=2,
            fusedActivationFunction=ACT.RELU, dilationHFactor=2)),
        operator(2, [5], [6], O.Pool2DOptions, options(
            tfl.Pool2DOptionsT, padding=PAD.VALID, strideW=2, strideH=3, filterWidth=3, filterHeight=2)),
        operator(3, [5], [7], O.Pool2DOptions, options(
            tfl.Pool2DOptionsT, padding=PAD.SAME, strideW=1, strideH=1, filterWidth=2, filterHeight=4,
            fusedActivationFunction=ACT.RELU_N1_TO_1)),
        operator(4, [5, 7], [8], O.AddOptions, options(
            tfl.AddOptionsT, fusedActivationFunction=ACT.RELU, potScaleInt16=False)),
        operator(5, [8, 7], [9], O.MulOptions, options(tfl.MulOptionsT, fusedActivationFunction=ACT.TANH)),
        operator(6, [9, 10, -1], [11], O.FullyConnectedOptions, options(
            tfl.FullyConnectedOptionsT, fusedActivationFunction=ACT.RELU, keepNumDims=True,
            asymmetricQuantizeInputs=True, weightsFormat=1)),
        operator(7, [11, 12], [13], O.ReshapeOptions, options(tfl.ReshapeOptionsT, newShape=[1, -1])),
        operator(8, [13, 13, 5], [14], O.ConcatenationOptions, options(
            tfl.ConcatenationOptionsT, axis=-1, fusedActivationFunction=ACT.RELU6)),
        operator(9, [14, 14], [15], O.BatchMatMulOptions, options(tfl.BatchMatMulOptionsT, adjX=True)),
        operator(10, [15], [16], O.SoftmaxOptions, options(tfl.SoftmaxOptionsT, beta=f32(0.7))),
        operator(11, [16], [17], O.GeluOptions, options(tfl.GeluOptionsT, approximate=True)),
        operator(12, [-1, 17], [18, -1]),                       # custom: no builtin options
        operator(0, [0, 1, -1], [3], O.Conv2DOptions, tfl.Conv2DOptionsT()),  # every field default
        operator(6, [9, 10], [11], O.FullyConnectedOptions, None),  # type set, table absent
        operator(7, [11, 12], [13], O.ReshapeOptions, tfl.ReshapeOptionsT()),  # no new_shape
        operator(4, [5, 5], [8], O.AddOptions, tfl.AddOptionsT()),  # pot_scale_int16 default True
    ]
    main = subgraph("main", ts, [0], [18, 16], ops)
    second = subgraph("second", [tensor("x", T.FLOAT32, [1])], [0], [0], [])
    m = model("tessera test: every decoded option", codes, [main, second], bufs)
    return m, {4: ramp(6 * 16, 77)}


def case_old_style():
    """A small pre-2.4 style model: codes only in deprecated_builtin_code, uint8, no names, no description,
    and a custom code that ends the file."""
    bufs = [buffer(None), buffer(ramp(8 * 4, 3)), buffer(struct.pack("<4i", -7, 0, 7, 1 << 20))]
    ts = [
        tensor(None, T.UINT8, [2, 8], 0, quant([0.5], [128])),
        tensor(None, T.UINT8, [4, 8], 1, quant([0.25], [127])),
        tensor(None, T.INT32, [4], 2, quant([0.125], [0])),
        tensor(None, T.UINT8, [2, 4], 0, quant([1.5], [3])),
        tensor(None, T.UINT8, [2, 4], 0, quant([1.5], [3])),
        tensor(None, T.INT32, [], 0),
    ]
    # The custom code's string is the first object the builder writes, so it ends the file:
    # a truncation that keeps its bytes but cuts its NUL must be refused.
    codes = [opcode(S.CUSTOM, 0, 1, "TsrOld"), opcode(S.FULLY_CONNECTED, 0), opcode(S.SOFTMAX, 0, 2),
             opcode(S.MAX_POOL_2D, 0)]
    ops = [
        operator(1, [0, 1, 2], [3], O.FullyConnectedOptions, tfl.FullyConnectedOptionsT()),
        operator(2, [3], [4], O.SoftmaxOptions, options(tfl.SoftmaxOptionsT, beta=f32(1.0))),
        operator(3, [4], [5], O.NONE, None),
        operator(0, [5], [5]),
    ]
    m = model(None, codes, [subgraph(None, ts, [0], [4], ops)], bufs)
    return m, {}


def case_one_op():
    """The smallest useful model: one ADD of two int8 tensors."""
    ts = [tensor("a", T.INT8, [4], 0, quant([0.1], [1])), tensor("b", T.INT8, [4], 0, quant([0.1], [1])),
          tensor("c", T.INT8, [4], 0, quant([0.2], [-1]))]
    m = model("one add", [opcode(S.ADD, S.ADD)],
              [subgraph("add", ts, [0, 1], [2], [operator(0, [0, 1], [2], O.AddOptions,
                                                          options(tfl.AddOptionsT, fusedActivationFunction=ACT.RELU))])],
              [buffer(None)])
    return m, {}


# ---- broken models: the reader must refuse each, with a message holding the given text ----

def small(edit):
    """case_one_op's model, with one part changed by edit(model)."""
    m, _ = case_one_op()
    edit(m)
    return m


def set_attr(obj, name, value):
    setattr(obj, name, value)


def shared_inputs_vector() -> bytes:
    """A hostile file: 50 operators share one 300-entry inputs vector, so the
    vectors hold several times more elements than the file has bytes. Built with the
    low-level builder, as the object API writes each vector once per table."""
    b = flatbuffers.Builder(0)
    t0 = tensor("x", T.INT8, [1]).Pack(b)
    tfl.OperatorStartInputsVector(b, 300)
    for _ in range(300):
        b.PrependInt32(0)
    vin = b.EndVector()
    ops = []
    for _ in range(50):
        tfl.OperatorStart(b)
        tfl.OperatorAddInputs(b, vin)
        ops.append(tfl.OperatorEnd(b))

    def tables(start, items):
        start(b, len(items))
        for o in reversed(items):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    vops = tables(tfl.SubGraphStartOperatorsVector, ops)
    vts = tables(tfl.SubGraphStartTensorsVector, [t0])
    tfl.SubGraphStart(b)
    tfl.SubGraphAddTensors(b, vts)
    tfl.SubGraphAddOperators(b, vops)
    sg = tfl.SubGraphEnd(b)
    code = opcode(S.ADD, S.ADD).Pack(b)
    buf = buffer(None).Pack(b)
    vsg = tables(tfl.ModelStartSubgraphsVector, [sg])
    vcodes = tables(tfl.ModelStartOperatorCodesVector, [code])
    vbufs = tables(tfl.ModelStartBuffersVector, [buf])
    tfl.ModelStart(b)
    tfl.ModelAddVersion(b, 3)
    tfl.ModelAddOperatorCodes(b, vcodes)
    tfl.ModelAddSubgraphs(b, vsg)
    tfl.ModelAddBuffers(b, vbufs)
    b.Finish(tfl.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def pack_model(m, ident=b"TFL3"):
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=ident)
    return bytes(b.Output())


def external_outside():
    m, _ = case_one_op()
    m.buffers[0].offset = 1 << 20
    m.buffers[0].size = 16
    return pack_model(m)


def g0(m):
    return m.subgraphs[0]


# name -> (bytes maker, text the error message must hold)
INVALID = {
    "bad_identifier": (lambda: pack_model(case_one_op()[0], b"TFL2"), "file identifier is 'TFL2', not 'TFL3'"),
    "bad_opcode_index": (lambda: pack_model(small(lambda m: set_attr(g0(m).operators[0], "opcodeIndex", 1))),
                         "operator 0: opcode_index 1 is past the 1 operator codes"),
    "bad_input_index": (lambda: pack_model(small(lambda m: set_attr(g0(m).operators[0], "inputs", [0, 3]))),
                        "operator 0: inputs[1] is 3, not a tensor index (0..2 or -1)"),
    "bad_output_index": (lambda: pack_model(small(lambda m: set_attr(g0(m).operators[0], "outputs", [-2]))),
                         "operator 0: outputs[0] is -2, not a tensor index (0..2 or -1)"),
    "absent_subgraph_input": (lambda: pack_model(small(lambda m: set_attr(g0(m), "inputs", [0, -1]))),
                              "subgraph 0: inputs[1] is -1, not a tensor index (0..2)"),
    "bad_buffer_index": (lambda: pack_model(small(lambda m: set_attr(g0(m).tensors[2], "buffer", 5))),
                         "tensor 2: buffer index 5 is past the 1 buffers"),
    "channel_count": (lambda: pack_model(small(lambda m: set_attr(
        g0(m).tensors[0], "quantization", quant([0.1, 0.2, 0.3], [0, 0, 0], 0)))),
        "tensor 0: 3 per-channel scales for the 4 channels of axis 0"),
    "channel_axis": (lambda: pack_model(small(lambda m: set_attr(
        g0(m).tensors[0], "quantization", quant([0.1] * 4, [0] * 4, 1)))),
        "tensor 0: quantized_dimension 1 is not an axis of the rank-1 shape"),
    "scale_zero_point_counts": (lambda: pack_model(small(lambda m: set_attr(
        g0(m).tensors[1], "quantization", quant([0.1, 0.2], [0], 0)))),
        "tensor 1: quantization has 2 scales but 1 zero points"),
    "rank_9": (lambda: pack_model(small(lambda m: set_attr(g0(m).tensors[1], "shape", [1] * 9))),
               "tensor 1: rank 9 is more than the 8 this reader takes"),
    "no_subgraph": (lambda: pack_model(small(lambda m: set_attr(m, "subgraphs", []))),
                    "the model has no subgraph"),
    "external_outside": (external_outside, "buffer 0: 16 bytes at offset 1048576 lie outside the"),
    "shared_inputs_vector": (shared_inputs_vector, "more elements than a"),
}


# name -> (builder of (model, external buffer data by index), force_defaults)
CASES = {
    "all_ops": (case_all_ops, False),
    "all_ops_forced_defaults": (case_all_ops, True),  # every default value written out
    "old_style": (case_old_style, False),
    "one_op": (case_one_op, False),
}
FIXTURE_CASES = ("all_ops", "old_style")  # the valid models the unit test carries


def pack(m, force_defaults):
    b = flatbuffers.Builder(1024)
    if force_defaults:
        b.ForceDefaults(True)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def build(case):
    """The file's bytes and the model object as it was packed (external buffers filled in)."""
    make, force = CASES[case]
    m, external = make()
    if not external:
        return pack(m, force), m, external
    # External buffers: data after the flatbuffer at a 16-byte boundary. The offsets are
    # uint64 fields present in both passes, so the flatbuffer keeps its size.
    for i, data in external.items():
        m.buffers[i].data = None
        m.buffers[i].offset = 1 << 40
        m.buffers[i].size = len(data)
    first = pack(m, force)
    pos = (len(first) + 15) // 16 * 16
    tail = b""
    for i, data in sorted(external.items()):
        m.buffers[i].offset = pos + len(tail)
        tail += data + bytes(-len(data) % 16)
    fb = pack(m, force)
    assert len(fb) == len(first), "repacking changed the flatbuffer's size"
    out = fb + bytes(pos - len(fb)) + tail
    return out, m, external


# ---- the expected text (tests/common/tsr_tflite_dump.h prints the same from C) ----

def s(text) -> str:
    raw = text.encode() if isinstance(text, str) else (text or b"")
    return '"' + "".join(chr(c) if 0x20 <= c < 0x7F and chr(c) not in '"\\' else f"\\x{c:02x}" for c in raw) + '"'


def ints(v) -> str:
    return "[" + ",".join(str(int(x)) for x in (v or [])) + "]"


def bits(x: float) -> str:
    return f"0x{struct.unpack('<I', struct.pack('<f', x))[0]:08x}"


def opts_text(op) -> str:
    o = op.builtinOptions
    t = op.builtinOptionsType
    defaults = {
        O.Conv2DOptions: tfl.Conv2DOptionsT, O.DepthwiseConv2DOptions: tfl.DepthwiseConv2DOptionsT,
        O.FullyConnectedOptions: tfl.FullyConnectedOptionsT, O.Pool2DOptions: tfl.Pool2DOptionsT,
        O.AddOptions: tfl.AddOptionsT, O.MulOptions: tfl.MulOptionsT, O.SoftmaxOptions: tfl.SoftmaxOptionsT,
        O.ReshapeOptions: tfl.ReshapeOptionsT, O.ConcatenationOptions: tfl.ConcatenationOptionsT,
        O.BatchMatMulOptions: tfl.BatchMatMulOptionsT,
    }
    if t not in defaults:
        return "-"
    if o is None:
        o = defaults[t]()  # an absent table reads as the schema's defaults
    b = int  # bools print as 0/1
    if t == O.Conv2DOptions:
        return (f"conv2d padding {o.padding} stride_w {o.strideW} stride_h {o.strideH} "
                f"act {o.fusedActivationFunction} dilation_w {o.dilationWFactor} dilation_h {o.dilationHFactor}")
    if t == O.DepthwiseConv2DOptions:
        return (f"dwconv padding {o.padding} stride_w {o.strideW} stride_h {o.strideH} "
                f"depth_multiplier {o.depthMultiplier} act {o.fusedActivationFunction} "
                f"dilation_w {o.dilationWFactor} dilation_h {o.dilationHFactor}")
    if t == O.FullyConnectedOptions:
        return (f"fc act {o.fusedActivationFunction} weights_format {o.weightsFormat} "
                f"keep_num_dims {b(o.keepNumDims)} asymmetric_quantize_inputs {b(o.asymmetricQuantizeInputs)}")
    if t == O.Pool2DOptions:
        return (f"pool padding {o.padding} stride_w {o.strideW} stride_h {o.strideH} filter_w {o.filterWidth} "
                f"filter_h {o.filterHeight} act {o.fusedActivationFunction}")
    if t == O.AddOptions:
        return f"add act {o.fusedActivationFunction} pot_scale_int16 {b(o.potScaleInt16)}"
    if t == O.MulOptions:
        return f"mul act {o.fusedActivationFunction}"
    if t == O.SoftmaxOptions:
        return f"softmax beta {bits(o.beta)}"
    if t == O.ReshapeOptions:
        return f"reshape new_shape {ints(o.newShape)}"
    if t == O.ConcatenationOptions:
        return f"concat axis {o.axis} act {o.fusedActivationFunction}"
    return (f"bmm adj_x {b(o.adjX)} adj_y {b(o.adjY)} "
            f"asymmetric_quantize_inputs {b(o.asymmetricQuantizeInputs)}")


def expect_text(m, external) -> str:
    codes = m.operatorCodes or []
    g = m.subgraphs[0]
    lines = [
        f"model version {m.version} subgraphs {len(m.subgraphs)} description {s(m.description)}",
        f"subgraph name {s(g.name)} tensors {len(g.tensors or [])} operators {len(g.operators or [])} "
        f"inputs {ints(g.inputs)} outputs {ints(g.outputs)}",
        f"opcodes {len(codes)}",
    ]
    for i, c in enumerate(codes):
        lines.append(f"opcode {i} builtin {max(c.deprecatedBuiltinCode, c.builtinCode)} "
                     f"deprecated {c.deprecatedBuiltinCode} builtin_field {c.builtinCode} "
                     f"version {c.version} custom {s(c.customCode)}")
    lines.append(f"buffers {len(m.buffers or [])}")
    for i, bf in enumerate(m.buffers or []):
        data = bytes(external[i]) if i in external else bytes(bf.data or [])
        lines.append(f"buffer {i} size {len(data)} external {int(i in external)} data {data.hex() or '-'}")
    for i, t in enumerate(g.tensors or []):
        q = t.quantization
        qtext = "none" if q is None else (
            "scale [" + ",".join(bits(x) for x in (q.scale or [])) + f"] zero_point {ints(q.zeroPoint)} "
            f"qdim {q.quantizedDimension}")
        lines.append(f"tensor {i} name {s(t.name)} type {TYPE_NAMES[t.type]} shape {ints(t.shape)} "
                     f"buffer {t.buffer} variable {int(t.isVariable)} quant {qtext}")
    for i, op in enumerate(g.operators or []):
        c = codes[op.opcodeIndex]
        lines.append(f"op {i} opcode {op.opcodeIndex} builtin {max(c.deprecatedBuiltinCode, c.builtinCode)} "
                     f"inputs {ints(op.inputs)} outputs {ints(op.outputs)} options {op.builtinOptionsType} "
                     f"{opts_text(op)}")
    return "\n".join(lines) + "\n"


def tflite_accepts(name: str, data: bytes) -> None:
    """TFLite's own loader (flatbuffer verifier, tensor and operator parsing) takes the model.
    The models are not meant to run, so tensors are not allocated."""
    from ai_edge_litert.interpreter import Interpreter
    try:
        Interpreter(model_content=data)
    except (ValueError, RuntimeError) as e:
        raise SystemExit(f"gen_tflite_cases: {name}: TFLite itself refuses the model: {e}") from None


def c_string(text: str) -> str:
    return "\n".join('  "' + line.replace("\\", "\\\\").replace('"', '\\"') + '\\n"'
                     for line in text.splitlines())


def c_bytes(data: bytes) -> str:
    return ",\n  ".join(", ".join(f"0x{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16))


def c_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def fixture_header(valid: dict[str, tuple[bytes, str]], broken: dict[str, tuple[bytes, str]]) -> str:
    parts = [
        "/* tsr_tflite_fixture.h: TFLite models written by TFLite's schema module, and what the reader must make of them. */",
        f"/* Generated by tests/net/gen_tflite_cases.py (cases {', '.join(valid)} and the broken cases): do not edit;",
        "   `make test-tflite` regenerates it and fails when this copy differs. */",
        "#ifndef TSR_TFLITE_FIXTURE_H\n#define TSR_TFLITE_FIXTURE_H\n",
        "#include <stddef.h>\n#include <stdint.h>\n",
    ]
    for i, (raw, _) in enumerate(valid.values()):
        parts.append(f"static const uint8_t tsr_tflite_valid_{i}[{len(raw)}] = {{\n  {c_bytes(raw)}\n}};\n")
    for i, (raw, _) in enumerate(broken.values()):
        parts.append(f"static const uint8_t tsr_tflite_broken_{i}[{len(raw)}] = {{\n  {c_bytes(raw)}\n}};\n")
    parts.append("/* Valid models: `text` is what tests/common/tsr_tflite_dump.h must print for each. */")
    parts.append("static const struct {\n  const char *name;\n  const uint8_t *bytes;\n  size_t len;\n"
                 "  const char *text;\n} tsr_tflite_valid[] = {")
    for i, (name, (_, text)) in enumerate(valid.items()):
        parts.append(f"    {{{c_quote(name)}, tsr_tflite_valid_{i}, sizeof tsr_tflite_valid_{i},\n{c_string(text)}}},")
    parts.append("};\n")
    parts.append("/* Broken models: tsr_tflite_open must refuse each with a message holding `message`. */")
    parts.append("static const struct {\n  const char *name;\n  const uint8_t *bytes;\n  size_t len;\n"
                 "  const char *message;\n} tsr_tflite_broken[] = {")
    for i, (name, (_, msg)) in enumerate(broken.items()):
        parts.append(f"    {{{c_quote(name)}, tsr_tflite_broken_{i}, sizeof tsr_tflite_broken_{i}, {c_quote(msg)}}},")
    parts.append("};\n\n#endif /* TSR_TFLITE_FIXTURE_H */")
    return "\n".join(parts) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir", type=pathlib.Path)
    ap.add_argument("--fixture", type=pathlib.Path, help="also write the unit test's fixture header here")
    args = ap.parse_args()
    args.outdir.mkdir(parents=True, exist_ok=True)
    valid = {}
    for name in CASES:
        data, m, external = build(name)
        tflite_accepts(name, data)
        expect = expect_text(m, external)
        (args.outdir / f"{name}.tflite").write_bytes(data)
        (args.outdir / f"{name}.expect").write_text(expect)
        if name in FIXTURE_CASES:
            valid[name] = (data, expect)
    broken = {}
    for name, (make_bytes, message) in INVALID.items():
        broken[name] = (make_bytes(), message)
        (args.outdir / f"{name}.tflite").write_bytes(broken[name][0])
        (args.outdir / f"{name}.error").write_text(message + "\n")
    if args.fixture is not None:
        args.fixture.parent.mkdir(parents=True, exist_ok=True)
        args.fixture.write_text(fixture_header(valid, broken))
    (args.outdir / "cases.txt").write_text("".join(f"{n}\n" for n in list(CASES) + list(INVALID)))
    print(f"gen_tflite_cases: {len(CASES)} models and {len(INVALID)} broken ones in {args.outdir} "
          f"(schema module {tfl.__file__.split('site-packages/')[-1]}, flatbuffers {flatbuffers.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
