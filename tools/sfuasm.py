#!/usr/bin/env python3
"""sfuasm.py: assemble the SFU microcode (rtl/sfu/tsr_sfu.ucode) into rtl/tsr_sfu_rom.v.

The opcode numbers are read from rtl/tsr_sfu.v (its "localparam [5:0] U<Name>
= 6'd<n>;" lines), so the RTL is the one place that defines them; this file
only knows each opcode's operand form. See docs/sfu.md and the header of
rtl/tsr_sfu.v for the instruction format.

Source syntax: one instruction per line, "label:" on its own or before an
instruction, ";" starts a comment, ".alias name reg" names a register.
Operands: r0-r15, p0-p10, x, x2, beta, len, zero; immediates are Python
integer literals (decimal, 0x.., negative); labels for jump targets.

  python3 tools/sfuasm.py rtl/sfu/tsr_sfu.ucode -o rtl/tsr_sfu_rom.v
"""

import argparse
import os
import re
import sys

# Operand forms: d destination, a/b/c sources, i immediate, k bit index, L label.
FORMS = {
    "ADD": "dab", "SUB": "dab", "ADD32": "dab", "MUL": "dab", "SRDHM": "dab",
    "SHL": "dab", "SHL32": "dab", "RDIV": "dab", "MAX": "dab", "MIN": "dab",
    "HALFSUM": "dab", "ECSUB": "dab",
    "ADDI32": "dai", "RSUBI32": "dai", "SRDHMI": "dai", "SHLI": "dai", "SSHLI": "dai",
    "RDIVI": "dai", "ANDI": "dai", "MAXI": "dai", "MINI": "dai",
    "CLZ32": "da", "CLZ64": "da", "ZEXT32": "da",
    "SELNEG": "dabc", "SELZ": "dabc",
    "SRDHMIF": "dakci",
    "FIRST": "", "RET": "", "DONE": "",
    "NEXT": "L", "NEXTROW": "L", "CALL": "L",
    "OUT": "a", "OUTLUT": "a", "OUTACC": "abc", "OUTNEXT": "aL", "OUTLUTNEXT": "aL",
    "RQOUTNEXT": "aPL", "ADDNEXT": "L", "ADDFLUSH": "",
    "ERRLT": "ai", "ERRGT": "ai",
    "ECALL": "dL", "ECPUT": "a",
}

# Entry points: the label of each microcoded SFU function is its name in
# rtl/regs/tessera_cmds.toml, lowercased, and the ROM maps its FUNC value to it.
# FUNC 0, LUT_LOAD, is not microcoded.
def _entries() -> list[tuple[int, str]]:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from cmdtool import load_cmds  # the command format's single source
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fmt = load_cmds(os.path.join(root, "rtl", "regs", "tessera_cmds.toml"))
    return [(f.value, f.name.lower()) for f in fmt.funcs if f.name != "LUT_LOAD"]


ENTRIES_BY_FUNC = _entries()
ENTRIES = [name for _, name in ENTRIES_BY_FUNC]

SOURCES = {f"r{i}": i for i in range(16)}
SOURCES.update({f"p{i}": 16 + i for i in range(11)})
SOURCES.update({"x": 27, "x2": 28, "beta": 29, "len": 30, "zero": 31})

ROM_DEPTH = 256


class AsmError(Exception):
    pass


def read_opcodes(rtl_path):
    ops = {}
    with open(rtl_path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"\s*localparam \[5:0\] U(\w+)\s*=\s*6'd(\d+);", line)
            if m:
                ops[m.group(1).upper()] = int(m.group(2))
    missing = set(FORMS) - set(ops)
    extra = set(ops) - set(FORMS)
    if missing or extra:
        raise AsmError(f"{rtl_path}: opcode list differs from the assembler's: "
                       f"missing {sorted(missing)}, unknown {sorted(extra)}")
    return ops


def parse(src_path):
    """Return (instructions, labels); an instruction is (line_no, text, mnemonic, args)."""
    insts, labels, aliases = [], {}, {}
    with open(src_path, encoding="utf-8") as f:
        for no, raw in enumerate(f, 1):
            line = raw.split(";", 1)[0].strip()
            if not line:
                continue
            if line.startswith(".alias"):
                parts = line.split()
                if len(parts) != 3 or parts[2] not in SOURCES:
                    raise AsmError(f"{src_path}:{no}: bad alias: {raw.strip()}")
                aliases[parts[1]] = parts[2]
                continue
            m = re.match(r"(\w+):\s*(.*)$", line)
            if m:
                if m.group(1) in labels:
                    raise AsmError(f"{src_path}:{no}: label {m.group(1)} defined twice")
                labels[m.group(1)] = len(insts)
                line = m.group(2).strip()
                if not line:
                    continue
            parts = line.split(None, 1)
            mnem = parts[0].upper()
            args = [a.strip() for a in parts[1].split(",")] if len(parts) > 1 else []
            args = [aliases.get(a, a) for a in args]
            insts.append((no, raw.strip(), mnem, args))
    return insts, labels


def encode(ops, inst, labels, src_path):
    no, _, mnem, args = inst
    if mnem not in FORMS:
        raise AsmError(f"{src_path}:{no}: unknown instruction {mnem}")
    form = FORMS[mnem]
    if len(args) != len(form):
        raise AsmError(f"{src_path}:{no}: {mnem} takes {len(form)} operands, got {len(args)}")
    f = {"d": 0, "a": 31, "b": 31, "c": 31, "i": 0}
    for kind, arg in zip(form, args):
        if kind == "d":
            if arg not in SOURCES or SOURCES[arg] > 15:
                raise AsmError(f"{src_path}:{no}: destination must be r0-r15: {arg}")
            f["d"] = SOURCES[arg]
        elif kind in "abc":
            if arg not in SOURCES:
                raise AsmError(f"{src_path}:{no}: unknown operand {arg}")
            f[kind] = SOURCES[arg]
        elif kind == "P":  # the first of five parameter words: p0..p6
            if arg not in SOURCES or not 16 <= SOURCES[arg] <= 22:
                raise AsmError(f"{src_path}:{no}: parameter base must be p0-p6: {arg}")
            f["b"] = SOURCES[arg]
        elif kind == "k":
            bit = int(arg, 0)
            if not 0 <= bit <= 31:
                raise AsmError(f"{src_path}:{no}: bit index out of range: {arg}")
            f["b"] = bit
        elif kind == "i":
            val = int(arg, 0)
            if not -(1 << 31) <= val < (1 << 32):
                raise AsmError(f"{src_path}:{no}: immediate does not fit 32 bits: {arg}")
            f["i"] = val & 0xFFFFFFFF
        elif kind == "L":
            if arg not in labels:
                raise AsmError(f"{src_path}:{no}: unknown label {arg}")
            f["i"] = labels[arg]
    return (ops[mnem] << 58) | (f["d"] << 54) | (f["a"] << 49) | (f["b"] << 44) | (f["c"] << 39) | f["i"]


def generate(src_path, rtl_path):
    ops = read_opcodes(rtl_path)
    insts, labels = parse(src_path)
    if len(insts) > ROM_DEPTH:
        raise AsmError(f"{src_path}: {len(insts)} instructions, the ROM holds {ROM_DEPTH}")
    for name in ENTRIES:
        if name not in labels:
            raise AsmError(f"{src_path}: entry point '{name}:' is missing")
    done = (ops["DONE"] << 58) | (31 << 49) | (31 << 44) | (31 << 39)
    out = [
        "// tsr_sfu_rom: SFU microcode ROM. GENERATED by tools/sfuasm.py from",
        f"// {src_path}: do not edit; run 'make sfu-rom'.",
        "`default_nettype none",
        "",
        "module tsr_sfu_rom (",
        "  input  wire [7:0]  addr_i,",
        "  input  wire [2:0]  func_i,",
        "  output reg  [63:0] data_o,",
        "  output reg  [7:0]  entry_o",
        ");",
        "  always @(*) begin",
        "    case (addr_i)",
    ]
    for pc, inst in enumerate(insts):
        word = encode(ops, inst, labels, src_path)
        out.append(f"      8'd{pc}: data_o = 64'h{word:016x};  // {inst[1]}")
    out += [
        f"      default: data_o = 64'h{done:016x};  // DONE",
        "    endcase",
        "  end",
        "",
        "  // FUNC -> first microinstruction.",
        "  always @(*) begin",
        "    case (func_i)",
    ]
    for func, name in ENTRIES_BY_FUNC:
        out.append(f"      3'd{func}: entry_o = 8'd{labels[name]};  // {name}")
    out += [
        "      default: entry_o = 8'd0;",
        "    endcase",
        "  end",
        "endmodule",
        "",
        "`default_nettype wire",
        "",
    ]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--rtl", default="rtl/tsr_sfu.v", help="where the opcodes are defined")
    args = ap.parse_args()
    try:
        text = generate(args.source, args.rtl)
    except (AsmError, ValueError) as e:
        print(f"sfuasm: {e}", file=sys.stderr)
        return 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
