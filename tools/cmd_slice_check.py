#!/usr/bin/env python3
"""cmd_slice_check.py: find hand-written command field positions outside the generated files.

The command format has one source, rtl/regs/tessera_cmds.toml; tools/cmdtool.py
generates rtl/regs/tsr_cmd_fields.vh (Verilog) and sw/include/tessera_cmds.h (C).
Everything else must name fields through those outputs. This script greps
rtl/ tb/ sw/ fw/ tests/ for the ways a field position gets written by hand and
prints one line per finding ("path:line: what"); the exit status is 1 if any.

Verilog (.v, .vh, .sv):
  - a constant bit or part select of a command vector: a signal, argument or
    memory declared [255:0] (or [CmdBits-1:0]), e.g. cmd_q[111:96], c[16];
  - a constant select of a command word wire named w0..w7 or <x>_w0..<x>_w7;
  - a 256-bit constant shifted into place (256'h1 << 19);
  - a local copy of an opcode, SFU function or error code value
    (Op<Name> / Fn<Name> / Err<Name> = <n>'d..).
C and C++ (.c, .h, .cpp):
  - a statement that touches a command word (w[0..7], ->w[..], .w[..], w0..w7)
    or an opcode/function constant (TSR_OP_*, TSR_FUNC_*) and shifts by a
    number or masks with a hex literal, e.g. `c->w[3] >> 16`, `1u << 16`;
  - a #define or enum entry giving a TSR_OP_, TSR_FUNC_ or TSR_ERR_ name a number.

Usage: python3 tools/cmd_slice_check.py [PATH ...]   (default: rtl tb sw fw tests)
"""

from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_DIRS = ("rtl", "tb", "sw", "fw", "tests")
# The generated outputs (the only places allowed to spell positions out).
GENERATED = {
    "rtl/regs/tsr_cmd_fields.vh",
    "sw/include/tessera_cmds.h",
    "sw/include/tessera_regs.h",
    "rtl/regs/tsr_regs.v",
    "rtl/tsr_sfu_rom.v",
}
V_EXT = (".v", ".vh", ".sv", ".svh")
C_EXT = (".c", ".h", ".cpp", ".hpp", ".cc")

# ---------------------------------------------------------------- Verilog

V_CMD_DECL = re.compile(r"\[\s*(?:255|CmdBits\s*-\s*1)\s*:\s*0\s*\]\s*([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)")
V_CONST_SEL = r"\[\s*\d+\s*(?::\s*\d+\s*|\+:\s*\d+\s*)?\]"
V_WORD_SEL = re.compile(r"\b((?:[A-Za-z]\w*_)?w[0-7])\s*" + V_CONST_SEL)
V_VALUE_COPY = re.compile(r"\b((?:Op|Fn|Err)[A-Z]\w*)\s*=\s*\d+\s*'\s*[dhb]")
V_SHIFTED_ONE = re.compile(r"\b256\s*'\s*[hdb][0-9a-fA-F_]+\s*<<\s*\d+")
V_KEYWORDS = {"input", "output", "inout", "wire", "reg", "logic", "integer", "signed"}


def _generated_names(rel: str, pattern: str) -> set[str]:
    """Names the generated file defines (a local copy of one is a finding)."""
    try:
        with open(os.path.join(ROOT, rel), "r", encoding="utf-8") as fh:
            return set(re.findall(pattern, fh.read()))
    except OSError:
        return set()


V_GEN_NAMES = _generated_names("rtl/regs/tsr_cmd_fields.vh", r"localparam\s+\[[^\]]*\]\s+(\w+)\s*=")
C_GEN_NAMES = (_generated_names("sw/include/tessera_cmds.h", r"#define\s+(\w+)")
               | {"TSR_ERR_" + n for n in _generated_names("sw/include/tessera_cmds.h",
                                                              r"\n\s+X\((\w+), \d+, \"")})


def _strip_v_comments(text: str) -> str:
    """Blank out // and /* */ comments, keeping line numbers."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def check_verilog(path: str, text: str) -> list[str]:
    code = _strip_v_comments(text)
    names: set[str] = set()
    for m in V_CMD_DECL.finditer(code):
        for n in m.group(1).split(","):
            if n.strip() not in V_KEYWORDS:
                names.add(n.strip())
    out = []
    sel = None
    if names:
        alt = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        # An optional memory index first: prog[i][11:8].
        sel = re.compile(r"\b(" + alt + r")\s*(?:\[[^\[\]:]*\]\s*)?" + V_CONST_SEL)
    for no, line in enumerate(code.split("\n"), 1):
        hits = []
        if sel is not None:
            hits += [f"constant select of command vector '{m.group(1)}': {m.group(0).strip()}"
                     for m in sel.finditer(line)]
        hits += [f"constant select of command word '{m.group(1)}': {m.group(0).strip()}"
                 for m in V_WORD_SEL.finditer(line)]
        hits += [f"hand-kept copy of a generated value: {m.group(0).strip()}"
                 for m in V_VALUE_COPY.finditer(line) if m.group(1) in V_GEN_NAMES]
        hits += [f"command bit placed by a constant shift: {m.group(0).strip()}"
                 for m in V_SHIFTED_ONE.finditer(line)]
        for h in hits:
            out.append(f"{path}:{no}: {h} (use rtl/regs/tsr_cmd_fields.vh)")
    return out


# ---------------------------------------------------------------- C

C_TOUCH = re.compile(r"(?:\bw\s*\[\s*[0-7]\s*\]|(?:->|\.)\s*w\s*\[|\bw[0-7]\b|\bTSR_(?:OP|FUNC)_[A-Z_]+)")
C_SHIFT = re.compile(r"(?:<<|>>)\s*\(?\s*\d+\s*[uUlL]*\b")
C_HEXMASK = re.compile(r"&\s*0[xX][0-9a-fA-F]+[uUlL]*")
C_DEFINE = re.compile(r"^\s*#\s*define\s+(TSR_(?:OP|FUNC|ERR)_[A-Z0-9_]+)\s+\(?\s*\d")
C_ENUM = re.compile(r"\b(TSR_(?:OP|FUNC|ERR)_[A-Z0-9_]+)\s*=\s*\d")


def _strip_c(text: str) -> str:
    """Blank out comments and string/char literals, keeping line numbers."""
    def blank(m: re.Match) -> str:
        return re.sub(r"[^\n]", " ", m.group(0))
    pat = re.compile(r"/\*.*?\*/|//[^\n]*|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.S)
    return pat.sub(blank, text)


def check_c(path: str, text: str) -> list[str]:
    code = _strip_c(text)
    out = []
    lines = code.split("\n")
    for no, line in enumerate(lines, 1):
        m = C_DEFINE.match(line)
        if m and m.group(1) in C_GEN_NAMES:
            out.append(f"{path}:{no}: hand-kept copy of a generated value: #define {m.group(1)} "
                       f"(use sw/include/tessera_cmds.h)")
    for m in C_ENUM.finditer(code):
        if m.group(1) not in C_GEN_NAMES:
            continue
        no = code.count("\n", 0, m.start()) + 1
        out.append(f"{path}:{no}: hand-kept copy of a generated value: {m.group(0)} "
                   f"(use sw/include/tessera_cmds.h)")
    # Statements: split at ';', '{' and '}' (preprocessor lines are their own statements).
    start = 0
    for m in re.finditer(r"[;{}]|\n\s*#[^\n]*", code):
        stmt = code[start:m.end()]
        base = start
        start = m.end()
        if not C_TOUCH.search(stmt):
            continue
        for bad in (C_SHIFT, C_HEXMASK):
            for b in bad.finditer(stmt):
                no = code.count("\n", 0, base + b.start()) + 1
                what = "shift by a number" if bad is C_SHIFT else "hex mask"
                out.append(f"{path}:{no}: {what} '{b.group(0).strip()}' on a command word "
                           f"(use TSR_CMD_GET/TSR_CMD_PUT and the names in sw/include/tessera_cmds.h)")
    return sorted(set(out), key=lambda s: (int(s.split(":")[1]), s))


# ---------------------------------------------------------------- main

def files_under(paths: list[str]):
    for p in paths:
        full = os.path.join(ROOT, p)
        if os.path.isfile(full):
            yield p
            continue
        for dirpath, dirnames, filenames in os.walk(full):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "build")
            for f in sorted(filenames):
                yield os.path.relpath(os.path.join(dirpath, f), ROOT).replace(os.sep, "/")


def main(argv: list[str]) -> int:
    paths = argv or list(DEFAULT_DIRS)
    findings: list[str] = []
    n_files = 0
    for rel in files_under(paths):
        if rel in GENERATED or not rel.endswith(V_EXT + C_EXT):
            continue
        try:
            with open(os.path.join(ROOT, rel), "r", encoding="utf-8", errors="replace") as fh:
                text = fh.read()
        except OSError as exc:
            findings.append(f"{rel}: cannot read: {exc.strerror}")
            continue
        n_files += 1
        findings += check_verilog(rel, text) if rel.endswith(V_EXT) else check_c(rel, text)
    for f in findings:
        print(f"cmd-slice-check: {f}")
    if findings:
        print(f"cmd-slice-check: FAIL: {len(findings)} hand-written command field position(s) "
              f"in {n_files} files; the format's source is rtl/regs/tessera_cmds.toml")
        return 1
    print(f"cmd-slice-check: no hand-written command field positions in {n_files} files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
