#!/usr/bin/env python3
"""regtool.py: generate the Tessera register block, C header and register doc.

One source, three outputs (all committed, all carrying a do-not-edit banner):

    rtl/regs/tessera_regs.toml  -->  rtl/regs/tsr_regs.v         AXI4-Lite slave + storage
                                -->  sw/include/tessera_regs.h   C offsets, masks, bits
                                -->  docs/registers.md           programmer's reference

Why our own generator and not PeakRDL: PeakRDL-regblock emits SystemVerilog
that relies on packages and packed structs (`import pkg::*;`, struct ports).
Yosys 0.23, our synthesis tool, cannot read those, so the register block would
not pass our toolchain. This script is small, uses only the Python standard
library (tomllib, Python >= 3.11) and emits a plain Verilog-2005 subset that
Verilator -Wall and Yosys both accept.

The TOML header comment defines the access types (ro, rw, w1c, wo) and the
port naming; docs/registers.md describes the AXI4-Lite behaviour.

Usage:
    python3 tools/regtool.py rtl/regs/tessera_regs.toml \\
        --rtl rtl/regs/tsr_regs.v --c-header sw/include/tessera_regs.h \\
        --doc docs/registers.md

With no output option the TOML is only validated. Errors go to stderr, one
line each, and the exit status is 1; no output file is written unless every
output was generated without error. Output is deterministic (no timestamps)
and a file whose content is unchanged is not rewritten (its mtime is kept).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import textwrap
import tomllib
from dataclasses import dataclass

ACCESS_TYPES = ("ro", "rw", "w1c", "wo")
ACCESS_TEXT = {
    "ro": "read-only, driven by hardware",
    "rw": "read-write",
    "w1c": "write 1 to clear, set by hardware",
    "wo": "write-only pulse, reads 0",
}
DATA_WIDTH = 32
SLVERR = "2'b10"
OKAY = "2'b00"

TOP_KEYS = {"block", "reg"}
BLOCK_KEYS = {"name", "width", "addr_bits"}
REG_KEYS = {"name", "offset", "desc", "fields", "locked_by"}
FIELD_KEYS = {"name", "lsb", "width", "access", "desc", "reset"}

NAME_RE = re.compile(r"^[A-Z][A-Z0-9_]*$")
BLOCK_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class RegmapError(Exception):
    """A problem with the register map; each argument is one message line."""


# --------------------------------------------------------------------------
# Data model
# --------------------------------------------------------------------------

class BitSpan:
    """Bits [msb:lsb] of a word: what a register field and a command field share.
    The class that mixes it in holds `lsb` and `width`."""

    lsb: int
    width: int

    @property
    def msb(self) -> int:
        return self.lsb + self.width - 1

    @property
    def mask(self) -> int:
        """Unshifted mask, e.g. 0xff for an 8-bit field."""
        return (1 << self.width) - 1

    @property
    def bits(self) -> int:
        """Mask of the field in its word (shifted)."""
        return self.mask << self.lsb


@dataclass(frozen=True)
class Field(BitSpan):
    """One field of a register, already validated."""

    reg: str
    name: str
    lsb: int
    width: int
    access: str
    reset: int
    desc: str

    @property
    def base(self) -> str:
        """Lowercase Verilog base name <reg>_<field>."""
        return f"{self.reg}_{self.name}".lower()

    @property
    def bitrange(self) -> str:
        """Verilog slice suffix: "[msb:lsb]", or "[lsb]" for a 1-bit field."""
        return f"[{self.lsb}]" if self.width == 1 else f"[{self.msb}:{self.lsb}]"


@dataclass(frozen=True)
class Reg:
    """One 32-bit register, already validated; fields sorted by lsb."""

    name: str
    offset: int
    desc: str
    fields: tuple[Field, ...]
    locked_by: str | None = None   # "REG.FIELD" of a 1-bit rw field; while it is 1, writes fail

    @property
    def lname(self) -> str:
        return self.name.lower()

    def has(self, access: str) -> bool:
        return any(f.access == access for f in self.fields)

    @property
    def is_wo(self) -> bool:
        """Write-only pulse register (validation forbids mixing wo with others)."""
        return self.has("wo")

    @property
    def is_writable(self) -> bool:
        return any(f.access != "ro" for f in self.fields)

    @property
    def access_summary(self) -> str:
        kinds = [a for a in ACCESS_TYPES if self.has(a)]
        return "/".join(kinds)


@dataclass(frozen=True)
class Block:
    """The whole register map."""

    name: str
    addr_bits: int
    regs: tuple[Reg, ...]
    source: str  # TOML path relative to the repository root, for banners

    @property
    def prefix(self) -> str:
        """C macro prefix, e.g. TSR."""
        return self.name.upper()

    @property
    def module(self) -> str:
        return f"{self.name}_regs"

    @property
    def space_bytes(self) -> int:
        return 1 << self.addr_bits

    @property
    def word_bits(self) -> int:
        """Width of the word index addr[addr_bits-1:2]."""
        return self.addr_bits - 2

    @property
    def banner(self) -> str:
        return f"generated by tools/regtool.py from {self.source}; do not edit"


# --------------------------------------------------------------------------
# Loading and validation
# --------------------------------------------------------------------------

def _is_int(value: object) -> bool:
    # tomllib parses true/false as bool, which is a subclass of int: reject it.
    return isinstance(value, int) and not isinstance(value, bool)


def _check_keys(table: dict, allowed: set[str], where: str, errors: list[str]) -> None:
    for key in table:
        if key not in allowed:
            errors.append(f"{where}: unknown key '{key}' (allowed: {', '.join(sorted(allowed))})")


def _load_field(raw: object, reg_name: str, index: int, errors: list[str]) -> Field | None:
    where = f"register {reg_name} field #{index}"
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be a table {{ name = ..., lsb = ..., ... }}")
        return None
    name = raw.get("name")
    if isinstance(name, str):
        where = f"register {reg_name} field {name}"
    n_err = len(errors)
    _check_keys(raw, FIELD_KEYS, where, errors)
    if not isinstance(name, str) or not NAME_RE.match(name):
        errors.append(f"{where}: 'name' must be an UPPER_CASE identifier, got {name!r}")
    lsb = raw.get("lsb")
    width = raw.get("width")
    access = raw.get("access")
    desc = raw.get("desc")
    if not _is_int(lsb) or lsb < 0:
        errors.append(f"{where}: 'lsb' must be an integer >= 0, got {lsb!r}")
    if not _is_int(width) or width < 1:
        errors.append(f"{where}: 'width' must be an integer >= 1, got {width!r}")
    if _is_int(lsb) and _is_int(width) and lsb >= 0 and width >= 1 and lsb + width > DATA_WIDTH:
        errors.append(f"{where}: bits [{lsb + width - 1}:{lsb}] extend past bit {DATA_WIDTH - 1}")
    if access not in ACCESS_TYPES:
        errors.append(f"{where}: unknown access type {access!r} (allowed: {', '.join(ACCESS_TYPES)})")
    if not isinstance(desc, str) or not desc.strip():
        errors.append(f"{where}: 'desc' must be a non-empty string")
    reset = raw.get("reset", 0)
    if "reset" in raw:
        if access not in ("rw", "w1c"):
            errors.append(f"{where}: 'reset' is only meaningful for rw and w1c fields, not {access!r}")
        elif not _is_int(reset) or reset < 0:
            errors.append(f"{where}: 'reset' must be an integer >= 0, got {reset!r}")
        elif _is_int(width) and width >= 1 and reset >= (1 << width):
            errors.append(f"{where}: reset value {reset:#x} does not fit in {width} bit(s)")
    if len(errors) != n_err:
        return None
    return Field(reg=reg_name, name=name, lsb=lsb, width=width, access=access,
                 reset=reset, desc=desc.strip())


def _load_reg(raw: object, index: int, addr_bits: int, errors: list[str]) -> Reg | None:
    where = f"register #{index}"
    if not isinstance(raw, dict):
        errors.append(f"{where}: must be a [[reg]] table")
        return None
    name = raw.get("name")
    if isinstance(name, str):
        where = f"register {name}"
    n_err = len(errors)
    _check_keys(raw, REG_KEYS, where, errors)
    if not isinstance(name, str) or not NAME_RE.match(name):
        errors.append(f"{where}: 'name' must be an UPPER_CASE identifier, got {name!r}")
        name = f"#{index}"
    offset = raw.get("offset")
    if not _is_int(offset) or offset < 0:
        errors.append(f"{where}: 'offset' must be an integer >= 0, got {offset!r}")
    elif offset % 4 != 0:
        errors.append(f"{where}: offset {offset:#05x} is not 4-byte aligned")
    elif offset >= (1 << addr_bits):
        errors.append(f"{where}: offset {offset:#05x} is outside the {1 << addr_bits:#x}-byte "
                      f"register space (addr_bits = {addr_bits})")
    desc = raw.get("desc")
    if not isinstance(desc, str) or not desc.strip():
        errors.append(f"{where}: 'desc' must be a non-empty string")
    raw_fields = raw.get("fields")
    if not isinstance(raw_fields, list) or not raw_fields:
        errors.append(f"{where}: 'fields' must be a non-empty list of field tables")
        return None
    fields = []
    for i, raw_field in enumerate(raw_fields):
        field = _load_field(raw_field, name, i, errors)
        if field is not None:
            fields.append(field)
    # Checks across the fields of this register.
    seen: dict[str, Field] = {}
    for field in fields:
        if field.name in seen:
            errors.append(f"{where}: field name {field.name} is used twice")
        seen[field.name] = field
    by_lsb = sorted(fields, key=lambda f: (f.lsb, f.name))
    for i, a in enumerate(by_lsb):
        for b in by_lsb[i + 1:]:
            if a.bits & b.bits:
                errors.append(f"{where}: field {a.name} {a.bitrange} overlaps field "
                              f"{b.name} {b.bitrange}")
    kinds = {f.access for f in fields}
    if "wo" in kinds and len(kinds) > 1:
        others = ", ".join(sorted(kinds - {"wo"}))
        errors.append(f"{where}: mixes wo fields with {others} fields; a wo register reads "
                      f"as 0 and pulses <reg>_we_o, so it may hold only wo fields")
    locked_by = raw.get("locked_by")
    if locked_by is not None and (not isinstance(locked_by, str) or locked_by.count(".") != 1):
        errors.append(f"{where}: 'locked_by' must be \"REG.FIELD\", got {locked_by!r}")
    if len(errors) != n_err:
        return None
    return Reg(name=name, offset=offset, desc=desc.strip(), fields=tuple(by_lsb),
               locked_by=locked_by)


def read_toml(path: str) -> dict:
    """The parsed TOML file; RegmapError with one line when it cannot be read or parsed."""
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise RegmapError(f"cannot read: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise RegmapError(f"TOML syntax: {exc}") from exc


def load_regmap(path: str) -> Block:
    """Read and validate the TOML register map; raise RegmapError listing every problem."""
    doc = read_toml(path)

    errors: list[str] = []
    _check_keys(doc, TOP_KEYS, "top level", errors)
    block = doc.get("block")
    if not isinstance(block, dict):
        raise RegmapError("missing [block] table with name, width and addr_bits")
    _check_keys(block, BLOCK_KEYS, "[block]", errors)
    name = block.get("name")
    if not isinstance(name, str) or not BLOCK_NAME_RE.match(name):
        errors.append(f"[block]: 'name' must be a lower_case identifier, got {name!r}")
    if block.get("width") != DATA_WIDTH:
        errors.append(f"[block]: 'width' must be {DATA_WIDTH}, got {block.get('width')!r} "
                      f"(only 32-bit AXI4-Lite is supported)")
    addr_bits = block.get("addr_bits")
    if not _is_int(addr_bits) or not 3 <= addr_bits <= 32:
        errors.append(f"[block]: 'addr_bits' must be an integer in 3..32, got {addr_bits!r}")
        addr_bits = 32
    raw_regs = doc.get("reg")
    if not isinstance(raw_regs, list) or not raw_regs:
        errors.append("no [[reg]] tables")
        raw_regs = []

    regs = []
    for i, raw in enumerate(raw_regs):
        reg = _load_reg(raw, i, addr_bits, errors)
        if reg is not None:
            regs.append(reg)
    by_name: dict[str, Reg] = {}
    by_offset: dict[int, Reg] = {}
    for reg in regs:
        if reg.name in by_name:
            errors.append(f"register {reg.name}: name is used twice")
        by_name[reg.name] = reg
        if reg.offset in by_offset:
            errors.append(f"register {reg.name}: offset {reg.offset:#05x} is already used by "
                          f"register {by_offset[reg.offset].name}")
        by_offset.setdefault(reg.offset, reg)
    for reg in regs:
        if reg.locked_by is None:
            continue
        lreg, _, lfield = reg.locked_by.partition(".")
        lock = next((f for f in by_name[lreg].fields if f.name == lfield), None) \
            if lreg in by_name else None
        if lock is None or lock.access != "rw" or lock.width != 1:
            errors.append(f"register {reg.name}: locked_by {reg.locked_by} must name a 1-bit "
                          f"rw field")
        elif not reg.is_writable or reg.is_wo:
            errors.append(f"register {reg.name}: locked_by needs rw or w1c fields")
    if errors:
        raise RegmapError(*errors)

    source = os.path.relpath(os.path.abspath(path), REPO_ROOT).replace(os.sep, "/")
    return Block(name=name, addr_bits=addr_bits,
                 regs=tuple(sorted(regs, key=lambda r: r.offset)), source=source)


class NameTable:
    """Collects generated identifiers and fails on the first clash.

    Register and field names are joined with '_', so two different
    (register, field) pairs can produce the same identifier, e.g.
    IRQ.STATUS_DONE and IRQ_STATUS.DONE. The generators declare every name
    here so that such a clash is reported instead of producing broken code.
    """

    def __init__(self, what: str) -> None:
        self.what = what
        self.owner: dict[str, str] = {}

    def add(self, name: str, owner: str) -> str:
        if name in self.owner:
            raise RegmapError(f"{owner}: generated {self.what} name '{name}' clashes with "
                              f"{self.owner[name]}; rename a register or field")
        self.owner[name] = owner
        return name


# --------------------------------------------------------------------------
# Helpers shared by the writers
# --------------------------------------------------------------------------

def _bit_ranges(mask: int) -> list[tuple[int, int]]:
    """Contiguous runs of set bits as (msb, lsb), highest run first."""
    runs = []
    bit = 0
    while bit < DATA_WIDTH:
        if mask >> bit & 1:
            lsb = bit
            while bit < DATA_WIDTH and mask >> bit & 1:
                bit += 1
            runs.append((bit - 1, lsb))
        else:
            bit += 1
    return runs[::-1]


def _slice(signal: str, msb: int, lsb: int) -> str:
    return f"{signal}[{msb}]" if msb == lsb else f"{signal}[{msb}:{lsb}]"


def _vwidth(width: int) -> str:
    """Verilog range for a port/reg declaration ('' for 1 bit)."""
    return "" if width == 1 else f"[{width - 1}:0]"


def _vconst(width: int, value: int) -> str:
    return f"{width}'h{value:x}"


def _word_label(block: "Block", reg: "Reg") -> str:
    """case label of a register's word index addr[addr_bits-1:2], zero-padded."""
    digits = (block.word_bits + 3) // 4
    return f"{block.word_bits}'h{reg.offset >> 2:0{digits}x}"


def _ascii(text: str) -> str:
    """Descriptions go into Verilog/C comments: keep them plain ASCII on one line."""
    return " ".join(text.encode("ascii", "replace").decode("ascii").split())


# --------------------------------------------------------------------------
# Verilog
# --------------------------------------------------------------------------

def _field_ports(block: Block, names: NameTable) -> list[tuple[str | None, str, str]]:
    """Per-register port declarations as (group comment or None, declaration, comment)."""
    ports: list[tuple[str | None, str, str]] = []
    for reg in block.regs:
        group = f"{reg.name} @ {reg.offset:#05x} ({reg.access_summary}): {_ascii(reg.desc)}"
        owner = f"register {reg.name}"
        for f in reg.fields:
            fo = f"register {reg.name} field {f.name}"
            w = _vwidth(f.width)
            if f.access == "ro":
                ports.append((group, f"input  wire {w:7} {names.add(f.base + '_i', fo)}",
                              _ascii(f.desc)))
            elif f.access == "w1c":
                ports.append((group, f"input  wire {w:7} {names.add(f.base + '_set_i', fo)}",
                              "1: set (wins over a clear in the same cycle)"))
                group = None
                ports.append((None, f"output wire {w:7} {names.add(f.base + '_o', fo)}",
                              _ascii(f.desc)))
            elif f.access == "rw":
                ports.append((group, f"output wire {w:7} {names.add(f.base + '_o', fo)}",
                              _ascii(f.desc)))
            else:  # wo
                ports.append((group, f"output wire {w:7} {names.add(f.base + '_o', fo)}",
                              _ascii(f.desc)))
            group = None
        if reg.is_wo:
            ports.append((None, f"output wire {'':7} {names.add(reg.lname + '_we_o', owner)}",
                          "one-cycle pulse on each accepted write"))
    return ports


def gen_verilog(block: Block) -> str:
    """The AXI4-Lite register block as Verilog-2005 text."""
    ab = block.addr_bits
    names = NameTable("Verilog")
    fixed = ["clk_i", "rst_ni", "w1c_clear_i",
             "s_axil_awvalid", "s_axil_awready", "s_axil_awaddr", "s_axil_wvalid",
             "s_axil_wready", "s_axil_wdata", "s_axil_wstrb", "s_axil_bvalid", "s_axil_bready",
             "s_axil_bresp", "s_axil_arvalid", "s_axil_arready", "s_axil_araddr",
             "s_axil_rvalid", "s_axil_rready", "s_axil_rdata", "s_axil_rresp",
             "aw_held_q", "aw_held_d", "awaddr_q", "awaddr_d", "w_held_q", "w_held_d",
             "wdata_q", "wdata_d", "wstrb_q", "wstrb_d", "bvalid_q", "bvalid_d",
             "bresp_q", "bresp_d", "rvalid_q", "rvalid_d", "rdata_q", "rdata_d",
             "rresp_q", "rresp_d", "rd_data", "rd_err", "wr_commit", "wr_err", "wr_en",
             "wr_strb_mask", "wr_bits", "unused_addr_hi", "unused_wr_bits"]
    for n in fixed:
        names.add(n, "the bus interface")
    ports = _field_ports(block, names)
    for reg in block.regs:
        if reg.is_writable:
            names.add(f"{reg.lname}_wr_sel", f"register {reg.name}")
            names.add(f"{reg.lname}_wr_en", f"register {reg.name}")
        if reg.is_wo:
            names.add(f"{reg.lname}_we_q", f"register {reg.name}")
            names.add(f"{reg.lname}_we_d", f"register {reg.name}")
        for f in reg.fields:
            if f.access != "ro":
                names.add(f"{f.base}_q", f"register {reg.name} field {f.name}")
                names.add(f"{f.base}_d", f"register {reg.name} field {f.name}")

    wregs = [r for r in block.regs if r.is_writable]
    stored = [f for r in block.regs for f in r.fields if f.access in ("rw", "w1c")]
    strobed_bits = 0
    for f in stored:
        strobed_bits |= f.bits

    o: list[str] = []
    emit = o.append
    emit(f"// {block.module}: AXI4-Lite register block of {block.prefix} ({len(block.regs)} registers).")
    emit(f"// {block.banner}.")
    emit("// Regenerate with `make regs`; `make regs-check` fails when this file is stale.")
    emit("//")
    emit("// Bus contract (AXI4-Lite slave, 32-bit data, no PROT):")
    emit(f"//  - Only addr[{ab - 1}:0] is decoded; upper address bits are ignored.")
    emit("//  - AW and W are each taken into a one-entry holding register and may arrive")
    emit("//    in either order or together. When both are held the write takes effect,")
    emit("//    and BVALID rises the next cycle. One write is in flight at a time: AWREADY")
    emit("//    and WREADY stay low from the moment their beat is held until B is taken.")
    emit("//  - AR is taken when no R beat is pending; RVALID and the registered RDATA")
    emit("//    follow the next cycle. One read is in flight at a time. Reads and writes")
    emit("//    are independent; a read in the cycle a write takes effect sees the old value.")
    emit("//  - BVALID/BRESP and RVALID/RDATA/RRESP hold until their READY; READY may stay")
    emit("//    low for any time. No VALID or READY output waits on the master's READY.")
    emit("//  - RESP is SLVERR (2'b10) with no side effect for: an unmapped offset, a")
    emit("//    misaligned address (addr[1:0] != 0), a write to a register with only ro")
    emit("//    fields, a write to a wo register whose WSTRB is not 4'hf, and a write to")
    emit("//    a register whose lock field (locked_by in the source) is 1. Else OKAY.")
    emit("//  - rw and w1c fields honour WSTRB byte lanes. Unused bits and wo registers")
    emit("//    read as 0.")
    emit("//  - w1c: a hardware set (<reg>_<field>_set_i) wins over a software clear and")
    emit("//    over w1c_clear_i in the same cycle, so no event is lost.")
    emit("//  - wo: <reg>_<field>_o carries the written bits, and <reg>_we_o is high, for")
    emit("//    exactly one cycle (the cycle BVALID rises); otherwise both are 0.")
    emit("//  - rw and w1c outputs change in the cycle BVALID rises.")
    emit("`default_nettype none")
    emit("")
    emit(f"module {block.module} (")
    decls: list[tuple[str | None, str, str]] = [
        (None, "input  wire         clk_i", ""),
        (None, "input  wire         rst_ni", "active-low, asynchronous"),
        ("AXI4-Lite slave (names and widths as in tsr_top)", "input  wire         s_axil_awvalid", ""),
        (None, "output wire         s_axil_awready", ""),
        (None, "input  wire [31:0]  s_axil_awaddr", f"bits [31:{ab}] ignored" if ab < 32 else ""),
        (None, "input  wire         s_axil_wvalid", ""),
        (None, "output wire         s_axil_wready", ""),
        (None, "input  wire [31:0]  s_axil_wdata", ""),
        (None, "input  wire [3:0]   s_axil_wstrb", ""),
        (None, "output wire         s_axil_bvalid", ""),
        (None, "input  wire         s_axil_bready", ""),
        (None, "output wire [1:0]   s_axil_bresp", ""),
        (None, "input  wire         s_axil_arvalid", ""),
        (None, "output wire         s_axil_arready", ""),
        (None, "input  wire [31:0]  s_axil_araddr", f"bits [31:{ab}] ignored" if ab < 32 else ""),
        (None, "output wire         s_axil_rvalid", ""),
        (None, "input  wire         s_axil_rready", ""),
        (None, "output wire [31:0]  s_axil_rdata", ""),
        (None, "output wire [1:0]   s_axil_rresp", ""),
        ("Soft reset of the w1c fields", "input  wire         w1c_clear_i",
         "1: clear every w1c field (a same-cycle set wins)"),
    ]
    decls += ports
    col = max(len(d) for _, d, _ in decls) + 1
    for i, (group, decl, comment) in enumerate(decls):
        if group is not None:
            emit("")
            for text in textwrap.wrap(group, 96, subsequent_indent="  "):
                emit(f"  // {text}")
        sep = "," if i != len(decls) - 1 else ""
        line = f"  {decl}{sep}"
        if comment:
            line = f"{line:{col + 3}}// {comment}"
        emit(line.rstrip())
    emit(");")
    emit("")

    # ---- bus state -------------------------------------------------------
    emit("  localparam [1:0] RespOkay   = 2'b00;")
    emit("  localparam [1:0] RespSlvErr = 2'b10;")
    emit("")
    emit("  // Write channel: AW and W holding registers and the B response.")
    emit(f"  reg          aw_held_q, aw_held_d;")
    emit(f"  reg {_vwidth(ab):8} awaddr_q, awaddr_d;")
    emit(f"  reg          w_held_q, w_held_d;")
    emit(f"  reg [31:0]   wdata_q, wdata_d;")
    emit(f"  reg [3:0]    wstrb_q, wstrb_d;")
    emit(f"  reg          bvalid_q, bvalid_d;")
    emit(f"  reg [1:0]    bresp_q, bresp_d;")
    emit("  // Read channel: registered R beat.")
    emit(f"  reg          rvalid_q, rvalid_d;")
    emit(f"  reg [31:0]   rdata_q, rdata_d;")
    emit(f"  reg [1:0]    rresp_q, rresp_d;")
    emit("")
    emit("  // Register storage (rw, w1c) and write pulses (wo).")
    for reg in block.regs:
        for f in reg.fields:
            if f.access != "ro":
                emit(f"  reg {_vwidth(f.width):8} {f.base}_q, {f.base}_d;")
        if reg.is_wo:
            emit(f"  reg          {reg.lname}_we_q, {reg.lname}_we_d;")
    emit("")
    if ab < 32:
        emit(f"  // Only addr[{ab - 1}:0] is decoded; the upper bits are deliberately unused.")
        emit("  // (Verilator's default --unused-regexp exempts unused_* from UNUSEDSIGNAL.)")
        emit(f"  wire unused_addr_hi = ^{{s_axil_awaddr[31:{ab}], s_axil_araddr[31:{ab}]}};")
        emit("")

    emit("  assign s_axil_awready = ~aw_held_q & ~bvalid_q;")
    emit("  assign s_axil_wready  = ~w_held_q & ~bvalid_q;")
    emit("  assign s_axil_bvalid  = bvalid_q;")
    emit("  assign s_axil_bresp   = bresp_q;")
    emit("  assign s_axil_arready = ~rvalid_q;")
    emit("  assign s_axil_rvalid  = rvalid_q;")
    emit("  assign s_axil_rdata   = rdata_q;")
    emit("  assign s_axil_rresp   = rresp_q;")
    emit("")

    # ---- write decode ----------------------------------------------------
    emit("  // Write decode. The write takes effect in the cycle both beats are held;")
    emit("  // wr_err (SLVERR) blocks every side effect.")
    emit("  wire wr_commit = aw_held_q & w_held_q;")
    emit("  reg  wr_err;")
    for reg in wregs:
        emit(f"  reg  {reg.lname}_wr_sel;")
    emit("  always @(*) begin")
    emit("    wr_err = 1'b0;")
    for reg in wregs:
        emit(f"    {reg.lname}_wr_sel = 1'b0;")
    emit(f"    case (awaddr_q[{ab - 1}:2])")
    for reg in wregs:
        label = _word_label(block, reg)
        if reg.is_wo:
            emit(f"      {label}: begin  // {reg.offset:#05x} {reg.name}: wo, needs all four strobes")
            emit(f"        {reg.lname}_wr_sel = 1'b1;")
            emit("        wr_err = ~&wstrb_q;")
            emit("      end")
        elif reg.locked_by is not None:
            lock = reg.locked_by.replace(".", "_").lower() + "_q"
            emit(f"      {label}: begin  // {reg.offset:#05x} {reg.name}: refused while {reg.locked_by}")
            emit(f"        {reg.lname}_wr_sel = 1'b1;")
            emit(f"        wr_err = {lock};")
            emit("      end")
        else:
            emit(f"      {label}: {reg.lname}_wr_sel = 1'b1;  // {reg.offset:#05x} {reg.name}")
    emit("      default: wr_err = 1'b1;  // unmapped, or only ro fields")
    emit("    endcase")
    emit("    if (awaddr_q[1:0] != 2'b00) begin")
    emit("      wr_err = 1'b1;  // misaligned")
    emit("    end")
    emit("  end")
    emit("  wire wr_en = wr_commit & ~wr_err;")
    for reg in wregs:
        emit(f"  wire {reg.lname}_wr_en = wr_en & {reg.lname}_wr_sel;")
    emit("")
    emit("  // Byte-lane mask from WSTRB; wr_bits are the data bits a strobed write sets.")
    emit("  wire [31:0] wr_strb_mask = {{8{wstrb_q[3]}}, {8{wstrb_q[2]}},")
    emit("                              {8{wstrb_q[1]}}, {8{wstrb_q[0]}}};")
    emit("  wire [31:0] wr_bits      = wdata_q & wr_strb_mask;")
    unused = ((1 << DATA_WIDTH) - 1) & ~strobed_bits
    if unused:
        parts = ", ".join(_slice("wr_bits", m, l) for m, l in _bit_ranges(unused))
        emit("  // Bits that hold no rw or w1c field are not stored.")
        emit(f"  wire unused_wr_bits = ^{{{parts}}};")
    emit("")

    # ---- per-register next state -----------------------------------------
    for reg in block.regs:
        if not reg.is_writable:
            continue
        emit(f"  // {reg.name} @ {reg.offset:#05x}: next state.")
        emit("  always @(*) begin")
        en = f"{reg.lname}_wr_en"
        if reg.is_wo:
            emit(f"    {reg.lname}_we_d = {en};")
            for f in reg.fields:
                emit(f"    {f.base}_d = {en} ? wdata_q{f.bitrange} : {_vconst(f.width, 0)};")
        else:
            for f in reg.fields:
                if f.access != "ro":
                    emit(f"    {f.base}_d = {f.base}_q;")
            emit(f"    if ({en}) begin")
            for f in reg.fields:
                sl = f.bitrange
                if f.access == "rw":
                    emit(f"      {f.base}_d = ({f.base}_q & ~wr_strb_mask{sl}) | wr_bits{sl};")
                elif f.access == "w1c":
                    emit(f"      {f.base}_d = {f.base}_q & ~wr_bits{sl};")
            emit("    end")
            w1c = [f for f in reg.fields if f.access == "w1c"]
            if w1c:
                emit("    if (w1c_clear_i) begin")
                for f in w1c:
                    emit(f"      {f.base}_d = {_vconst(f.width, 0)};")
                emit("    end")
                emit("    // A hardware set wins over any clear in the same cycle.")
                for f in w1c:
                    emit(f"    {f.base}_d = {f.base}_d | {f.base}_set_i;")
        emit("  end")
        emit("")

    # ---- outputs -----------------------------------------------------------
    for reg in block.regs:
        for f in reg.fields:
            if f.access != "ro":
                emit(f"  assign {f.base}_o = {f.base}_q;")
        if reg.is_wo:
            emit(f"  assign {reg.lname}_we_o = {reg.lname}_we_q;")
    emit("")

    # ---- read mux ----------------------------------------------------------
    emit("  // Read mux, decoded from the AR address in the cycle AR is taken. Only")
    emit("  // used with ARVALID, so it is zero without: the simulator then skips the")
    emit("  // decode in the cycles without a read.")
    emit("  reg [31:0] rd_data;")
    emit("  reg        rd_err;")
    emit("  always @(*) begin")
    emit("    rd_data = 32'h0;")
    emit("    rd_err  = 1'b0;")
    emit("    if (s_axil_arvalid) begin")
    emit(f"      case (s_axil_araddr[{ab - 1}:2])")
    for reg in block.regs:
        label = _word_label(block, reg)
        emit(f"        {label}: rd_data = {_read_expr(reg)};  // {reg.offset:#05x} {reg.name}")
    emit("        default: rd_err = 1'b1;  // unmapped")
    emit("      endcase")
    emit("      if (s_axil_araddr[1:0] != 2'b00) begin")
    emit("        rd_data = 32'h0;")
    emit("        rd_err  = 1'b1;  // misaligned")
    emit("      end")
    emit("    end")
    emit("  end")
    emit("")

    # ---- bus next state ----------------------------------------------------
    emit("  // Bus handshakes: next state.")
    emit("  always @(*) begin")
    for n in ("aw_held", "awaddr", "w_held", "wdata", "wstrb", "bvalid", "bresp",
              "rvalid", "rdata", "rresp"):
        emit(f"    {n}_d = {n}_q;")
    emit("    if (s_axil_awvalid && s_axil_awready) begin")
    emit("      aw_held_d = 1'b1;")
    emit(f"      awaddr_d  = s_axil_awaddr[{ab - 1}:0];")
    emit("    end")
    emit("    if (s_axil_wvalid && s_axil_wready) begin")
    emit("      w_held_d = 1'b1;")
    emit("      wdata_d  = s_axil_wdata;")
    emit("      wstrb_d  = s_axil_wstrb;")
    emit("    end")
    emit("    if (bvalid_q && s_axil_bready) begin")
    emit("      bvalid_d = 1'b0;")
    emit("    end")
    emit("    if (wr_commit) begin  // implies bvalid_q == 0: no beat is taken while B is pending")
    emit("      aw_held_d = 1'b0;")
    emit("      w_held_d  = 1'b0;")
    emit("      bvalid_d  = 1'b1;")
    emit("      bresp_d   = wr_err ? RespSlvErr : RespOkay;")
    emit("    end")
    emit("    if (rvalid_q && s_axil_rready) begin")
    emit("      rvalid_d = 1'b0;")
    emit("    end")
    emit("    if (s_axil_arvalid && s_axil_arready) begin")
    emit("      rvalid_d = 1'b1;")
    emit("      rdata_d  = rd_data;")
    emit("      rresp_d  = rd_err ? RespSlvErr : RespOkay;")
    emit("    end")
    emit("  end")
    emit("")

    # ---- flops -------------------------------------------------------------
    seq = [("aw_held", "1'b0"), ("awaddr", _vconst(ab, 0)), ("w_held", "1'b0"),
           ("wdata", "32'h0"), ("wstrb", "4'h0"), ("bvalid", "1'b0"), ("bresp", "2'b00"),
           ("rvalid", "1'b0"), ("rdata", "32'h0"), ("rresp", "2'b00")]
    for reg in block.regs:
        for f in reg.fields:
            if f.access != "ro":
                seq.append((f.base, _vconst(f.width, f.reset)))
        if reg.is_wo:
            seq.append((f"{reg.lname}_we", "1'b0"))
    w = max(len(n) for n, _ in seq) + 2
    emit("  always @(posedge clk_i or negedge rst_ni) begin")
    emit("    if (!rst_ni) begin")
    for n, v in seq:
        emit(f"      {n + '_q':{w}} <= {v};")
    emit("    end else begin")
    for n, _ in seq:
        emit(f"      {n + '_q':{w}} <= {n}_d;")
    emit("    end")
    emit("  end")
    emit("")
    o.extend(_formal_props(block))
    emit("endmodule")
    emit("")
    emit("`default_nettype wire")
    return "\n".join(o) + "\n"


def _formal_props(block: Block) -> list[str]:
    """`ifdef FORMAL properties of the AXI4-Lite slave (proved by `make formal`).

    Assumptions describe a well-behaved master; assertions check the slave. See
    docs/formal.md for what is proved and how.
    """
    ab = block.addr_bits
    o: list[str] = []
    emit = o.append

    def labels(regs: list[Reg]) -> str | None:
        return ", ".join(_word_label(block, r) for r in regs) or None

    rd_map = labels(block.regs)
    wr_wo = labels([r for r in block.regs if r.is_wo])
    wr_rw = labels([r for r in block.regs if r.is_writable and not r.is_wo])
    locked = [r for r in block.regs if getattr(r, "locked_by", None)]

    emit("`ifdef FORMAL")
    emit("  // ---- Formal properties: `make formal` proves them by k-induction (docs/formal.md).")
    emit("  // Assumptions (assume) describe a well-behaved AXI4-Lite master; assertions (assert)")
    emit("  // check this slave. Every accepted AW+W gets exactly one B and every AR exactly one")
    emit("  // R; VALID and payload hold until READY; no deadlock; RESP as in the contract above.")
    emit("  localparam integer FMaxStall = 3;  // master holds BREADY/RREADY low at most this long")
    emit("  reg f_past_valid = 1'b0;")
    emit("  always @(posedge clk_i) f_past_valid <= 1'b1;")
    emit("  always @(*) if (!f_past_valid) assume (!rst_ni);")
    emit("  // Master: no VALID in reset; VALID and payload hold until READY.")
    emit("  always @(*) if (!rst_ni) assume (!s_axil_awvalid && !s_axil_wvalid && !s_axil_arvalid);")
    emit("  always @(posedge clk_i) begin")
    emit("    if (f_past_valid && $past(rst_ni) && rst_ni) begin")
    emit("      if ($past(s_axil_awvalid && !s_axil_awready))")
    emit("        assume (s_axil_awvalid && s_axil_awaddr == $past(s_axil_awaddr));")
    emit("      if ($past(s_axil_wvalid && !s_axil_wready))")
    emit("        assume (s_axil_wvalid && s_axil_wdata == $past(s_axil_wdata) &&")
    emit("                s_axil_wstrb == $past(s_axil_wstrb));")
    emit("      if ($past(s_axil_arvalid && !s_axil_arready))")
    emit("        assume (s_axil_arvalid && s_axil_araddr == $past(s_axil_araddr));")
    emit("    end")
    emit("  end")
    emit("")
    emit("  // Outstanding requests (accepted, response not yet taken), stall counters and the")
    emit("  // addresses of the requests in flight, all seen from the bus.")
    emit("  wire f_aw_hs = s_axil_awvalid & s_axil_awready;")
    emit("  wire f_w_hs  = s_axil_wvalid & s_axil_wready;")
    emit("  wire f_b_hs  = s_axil_bvalid & s_axil_bready;")
    emit("  wire f_ar_hs = s_axil_arvalid & s_axil_arready;")
    emit("  wire f_r_hs  = s_axil_rvalid & s_axil_rready;")
    emit("  reg [1:0] f_aw_out, f_w_out, f_ar_out;")
    emit("  reg [3:0] f_bstall, f_rstall, f_awstall, f_wstall, f_arstall, f_bwait;")
    emit(f"  reg [{ab - 1}:0] f_awaddr, f_araddr;")
    emit("  reg [3:0]  f_wstrb;")
    emit("  reg        f_wr_locked;  // the write's lock field was 1 when it took effect")
    emit("  wire f_aw_wait_w = (f_aw_out != 2'd0) && (f_w_out == 2'd0);  // master owes W")
    emit("  wire f_w_wait_aw = (f_w_out != 2'd0) && (f_aw_out == 2'd0);  // master owes AW")
    emit("  always @(posedge clk_i or negedge rst_ni) begin")
    emit("    if (!rst_ni) begin")
    emit("      f_aw_out  <= 2'd0; f_w_out  <= 2'd0; f_ar_out  <= 2'd0;")
    emit("      f_bstall  <= 4'd0; f_rstall <= 4'd0; f_awstall <= 4'd0;")
    emit("      f_wstall  <= 4'd0; f_arstall <= 4'd0; f_bwait <= 4'd0;")
    emit(f"      f_awaddr  <= {_vconst(ab, 0)}; f_araddr <= {_vconst(ab, 0)}; f_wstrb <= 4'h0;")
    emit("      f_wr_locked <= 1'b0;")
    emit("    end else begin")
    emit("      f_aw_out <= f_aw_out + {1'b0, f_aw_hs} - {1'b0, f_b_hs};")
    emit("      f_w_out  <= f_w_out + {1'b0, f_w_hs} - {1'b0, f_b_hs};")
    emit("      f_ar_out <= f_ar_out + {1'b0, f_ar_hs} - {1'b0, f_r_hs};")
    emit("      f_bstall  <= (s_axil_bvalid && !s_axil_bready) ? f_bstall + 4'd1 : 4'd0;")
    emit("      f_rstall  <= (s_axil_rvalid && !s_axil_rready) ? f_rstall + 4'd1 : 4'd0;")
    emit("      f_awstall <= (s_axil_awvalid && !s_axil_awready && !f_aw_wait_w) ? f_awstall + 4'd1 : 4'd0;")
    emit("      f_wstall  <= (s_axil_wvalid && !s_axil_wready && !f_w_wait_aw) ? f_wstall + 4'd1 : 4'd0;")
    emit("      f_arstall <= (s_axil_arvalid && !s_axil_arready) ? f_arstall + 4'd1 : 4'd0;")
    emit("      f_bwait   <= (f_aw_out != 2'd0 && f_w_out != 2'd0 && !s_axil_bvalid) ? f_bwait + 4'd1 : 4'd0;")
    emit(f"      if (f_aw_hs) f_awaddr <= s_axil_awaddr[{ab - 1}:0];")
    emit("      if (f_w_hs)  f_wstrb  <= s_axil_wstrb;")
    emit(f"      if (f_ar_hs) f_araddr <= s_axil_araddr[{ab - 1}:0];")
    emit("      if (wr_commit) f_wr_locked <= f_lock_now;")
    emit("    end")
    emit("  end")
    emit("  // Master: BREADY and RREADY are low for at most FMaxStall cycles in a row.")
    emit("  always @(*) assume (f_bstall <= FMaxStall && f_rstall <= FMaxStall);")
    emit("")
    emit("  // Address classes of the register map (from the same source as the decoder).")
    emit("  reg f_rd_mapped, f_wr_wo, f_wr_rw, f_lock_now;")
    emit("  always @(*) begin")
    emit("    f_rd_mapped = 1'b0;")
    emit("    f_wr_wo     = 1'b0;")
    emit("    f_wr_rw     = 1'b0;")
    emit("    f_lock_now  = 1'b0;")
    emit(f"    case (f_araddr[{ab - 1}:2])")
    if rd_map:
        emit(f"      {rd_map}: f_rd_mapped = 1'b1;")
    emit("      default: f_rd_mapped = 1'b0;")
    emit("    endcase")
    emit(f"    case (f_awaddr[{ab - 1}:2])")
    if wr_wo:
        emit(f"      {wr_wo}: f_wr_wo = 1'b1;")
    if wr_rw:
        emit(f"      {wr_rw}: f_wr_rw = 1'b1;")
    emit("      default: f_wr_rw = 1'b0;")
    emit("    endcase")
    if locked:
        emit(f"    case (awaddr_q[{ab - 1}:2])")
        for r in locked:
            lock = r.locked_by.replace(".", "_").lower() + "_q"
            emit(f"      {_word_label(block, r)}: f_lock_now = {lock};")
        emit("      default: f_lock_now = 1'b0;")
        emit("    endcase")
    emit("  end")
    emit("  wire f_rd_ok = f_rd_mapped && (f_araddr[1:0] == 2'b00);")
    emit("  wire f_wr_ok = (f_awaddr[1:0] == 2'b00) &&")
    emit("                 ((f_wr_wo && f_wstrb == 4'hf) || (f_wr_rw && !f_wr_locked));")
    emit("")
    emit("  always @(*) begin")
    emit("    if (rst_ni) begin")
    emit("      // Exactly one response per request: none without a request, at most one")
    emit("      // request of each kind in flight, and every one answered (no deadlock).")
    emit("      assert (!s_axil_bvalid || (f_aw_out == 2'd1 && f_w_out == 2'd1));")
    emit("      assert (f_aw_out <= 2'd1 && f_w_out <= 2'd1 && f_ar_out <= 2'd1);")
    emit("      assert (f_bwait <= 4'd1);                         // B one cycle after AW+W")
    emit("      assert (s_axil_rvalid == (f_ar_out == 2'd1));     // R the cycle after AR")
    emit("      assert (f_awstall <= FMaxStall + 2 && f_wstall <= FMaxStall + 2 &&")
    emit("              f_arstall <= FMaxStall + 1);              // requests are taken")
    emit("      // Response codes.")
    emit("      if (s_axil_bvalid) assert (s_axil_bresp == (f_wr_ok ? RespOkay : RespSlvErr));")
    emit("      if (s_axil_rvalid) assert (s_axil_rresp == (f_rd_ok ? RespOkay : RespSlvErr));")
    emit("      if (s_axil_rvalid && !f_rd_ok) assert (s_axil_rdata == 32'h0);")
    emit("      // Inductive invariants linking the bus view to the holding registers.")
    emit("      assert (f_aw_out == {1'b0, aw_held_q} + {1'b0, bvalid_q});")
    emit("      assert (f_w_out == {1'b0, w_held_q} + {1'b0, bvalid_q});")
    emit("      if (f_aw_out != 2'd0) assert (awaddr_q == f_awaddr);")
    emit("      if (f_w_out != 2'd0) assert (wstrb_q == f_wstrb);")
    emit("    end")
    emit("  end")
    emit("  // BVALID/BRESP and RVALID/RDATA/RRESP hold until READY.")
    emit("  always @(posedge clk_i) begin")
    emit("    if (f_past_valid && $past(rst_ni) && rst_ni) begin")
    emit("      if ($past(s_axil_bvalid && !s_axil_bready))")
    emit("        assert (s_axil_bvalid && s_axil_bresp == $past(s_axil_bresp));")
    emit("      if ($past(s_axil_rvalid && !s_axil_rready))")
    emit("        assert (s_axil_rvalid && s_axil_rresp == $past(s_axil_rresp) &&")
    emit("                s_axil_rdata == $past(s_axil_rdata));")
    emit("    end")
    emit("  end")
    emit("`endif  // FORMAL")
    emit("")
    return o


def _read_expr(reg: Reg) -> str:
    """Verilog expression of a register's 32-bit read value."""
    if reg.is_wo:
        return "32'h0"
    parts = []
    pos = DATA_WIDTH
    for f in sorted(reg.fields, key=lambda x: -x.lsb):
        if pos > f.msb + 1:
            parts.append(_vconst(pos - f.msb - 1, 0))
        parts.append(f"{f.base}_i" if f.access == "ro" else f"{f.base}_q")
        pos = f.lsb
    if pos > 0:
        parts.append(_vconst(pos, 0))
    return parts[0] if len(parts) == 1 else "{" + ", ".join(parts) + "}"


# --------------------------------------------------------------------------
# C header
# --------------------------------------------------------------------------

def gen_c_header(block: Block) -> str:
    """The C header with OpenTitan-style offset/mask/bit macros."""
    p = block.prefix
    guard = "TESSERA_REGS_H"
    names = NameTable("C macro")
    for n in (f"{p}_REG_SPACE_BYTES", f"{p}_REG_COUNT", f"{p}_REG_LIST", guard):
        names.add(n, "the header")
    o: list[str] = []
    emit = o.append
    emit(f"/* tessera_regs.h: {p} register map: offsets, field masks and bit positions.")
    emit(f" * {block.banner}.")
    emit(" * Regenerate with `make regs`; docs/registers.md describes every register.")
    emit(" *")
    emit(f" * {p}_<REG>_REG_OFFSET      byte offset of a register")
    emit(f" * {p}_<REG>_<FIELD>_OFFSET  bit position of a field's lsb")
    emit(f" * {p}_<REG>_<FIELD>_MASK    unshifted mask: (reg >> OFFSET) & MASK")
    emit(f" * {p}_<REG>_<FIELD>_BIT     bit position, only for 1-bit fields")
    emit(" */")
    emit(f"#ifndef {guard}")
    emit(f"#define {guard}")
    emit("")
    emit("#ifdef __cplusplus")
    emit('extern "C" {')
    emit("#endif")
    emit("")
    emit(f"/** Bytes of address space the register block decodes (addr[{block.addr_bits - 1}:0]). */")
    emit(f"#define {p}_REG_SPACE_BYTES {block.space_bytes:#x}u")
    emit("")
    emit("/** Number of registers in the map. */")
    emit(f"#define {p}_REG_COUNT {len(block.regs)}u")
    emit("")
    lines: list[tuple[str, str]] = []
    for reg in block.regs:
        emit(f"/* {reg.name} ({reg.access_summary}): {_ascii(reg.desc)} */")
        lines = [(names.add(f"{p}_{reg.name}_REG_OFFSET", f"register {reg.name}"),
                  f"{reg.offset:#05x}u")]
        for f in reg.fields:
            fo = f"register {reg.name} field {f.name}"
            base = f"{p}_{reg.name}_{f.name}"
            if f.width == 1:
                lines.append((names.add(base + "_BIT", fo), f"{f.lsb}"))
            lines.append((names.add(base + "_OFFSET", fo), f"{f.lsb}"))
            lines.append((names.add(base + "_MASK", fo), f"{f.mask:#x}u"))
        w = max(len(n) for n, _ in lines) + 1
        for n, v in lines:
            emit(f"#define {n:{w}}{v}")
        emit("")
    emit("/**")
    emit(f" * X-macro over every register, in offset order: X(name, offset), where name is")
    emit(f" * the bare register name (token-paste {p}_##name##_REG_OFFSET, stringize #name).")
    emit(" */")
    emit(f"#define {p}_REG_LIST(X) \\")
    for i, reg in enumerate(block.regs):
        tail = " \\" if i != len(block.regs) - 1 else ""
        emit(f"  X({reg.name}, {reg.offset:#05x}u){tail}")
    emit("")
    emit("#ifdef __cplusplus")
    emit("}  /* extern \"C\" */")
    emit("#endif")
    emit("")
    emit(f"#endif /* {guard} */")
    return "\n".join(o) + "\n"


# --------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------

def _md(text: str) -> str:
    return " ".join(text.replace("|", "\\|").split())


def _reset_text(f: Field) -> str:
    if f.access == "ro":
        return "hw"
    if f.access == "wo":
        return "0"
    return f"{f.reset:#x}"


def gen_markdown(block: Block) -> str:
    """docs/registers.md: register summary, AXI4-Lite behaviour, field tables."""
    p = block.prefix
    o: list[str] = []
    emit = o.append
    emit(f"<!-- {block.banner}. -->")
    emit("")
    emit("# Tessera register map")
    emit("")
    emit(f"> **Generated** by `tools/regtool.py` from `{block.source}`; do not edit.")
    emit("> Change the TOML, then run `make regs`. `make regs-check` fails when the")
    emit("> committed outputs are stale.")
    emit("")
    emit(f"The register block `rtl/regs/{block.module}.v` is an AXI4-Lite slave with "
         f"{len(block.regs)} 32-bit registers in a {block.space_bytes:#x}-byte space. "
         f"C code uses `sw/include/tessera_regs.h`: `{p}_<REG>_REG_OFFSET`, "
         f"`{p}_<REG>_<FIELD>_OFFSET`/`_MASK` (unshifted) and, for 1-bit fields, "
         f"`{p}_<REG>_<FIELD>_BIT`; `{p}_REG_LIST(X)` visits every register.")
    emit("")
    emit("Why a small in-house generator instead of SystemRDL + PeakRDL: PeakRDL-regblock "
         "emits SystemVerilog with packages and packed-struct ports, which Yosys 0.23 "
         "(our synthesis tool) cannot read. `tools/regtool.py` uses only the Python "
         "standard library and emits plain Verilog-2005 that passes `verilator --lint-only "
         "-Wall` and Yosys `synth`.")
    emit("")
    emit("## Access types")
    emit("")
    emit("| Access | Meaning | Hardware ports |")
    emit("|---|---|---|")
    emit("| ro | read-only; the value comes from the hardware | `<reg>_<field>_i` |")
    emit("| rw | read-write storage | `<reg>_<field>_o` |")
    emit("| w1c | hardware sets bits, software writes 1 to clear them; a set wins over a "
         "clear in the same cycle; `w1c_clear_i` (soft reset) clears every w1c field | "
         "`<reg>_<field>_set_i`, `<reg>_<field>_o` |")
    emit("| wo | write-only pulse: for one cycle `<reg>_we_o` is high and "
         "`<reg>_<field>_o` carries the written bits (0 otherwise); reads return 0 | "
         "`<reg>_<field>_o`, `<reg>_we_o` |")
    emit("")
    emit("## AXI4-Lite behaviour")
    emit("")
    emit(f"- Only `addr[{block.addr_bits - 1}:0]` is decoded; upper address bits are ignored, "
         f"so the block repeats every {block.space_bytes:#x} bytes.")
    emit("- AW and W may arrive in either order or in the same cycle. One write and one "
         "read are in flight at a time. B is raised the cycle after both AW and W are held; "
         "R (registered data) is raised the cycle after AR is taken.")
    emit("- BVALID and RVALID, with their data and response, hold until the master's READY. "
         "The master may hold BREADY/RREADY low for any time; the slave just waits.")
    emit("- A response is **SLVERR** (`2'b10`) and the access has **no side effect** when:")
    emit("  - the offset is unmapped (read or write);")
    emit("  - the address is misaligned (`addr[1:0] != 0`);")
    emit("  - a write targets a register with only ro fields;")
    emit("  - a write targets a wo register with `WSTRB != 4'b1111`;")
    emit("  - a write targets a register whose lock field is 1 (\"Locked by\" below); only "
         "`rst_ni` clears a lock that locks itself.")
    emit("  Every other access answers OKAY (`2'b00`).")
    emit("- Byte strobes: rw and w1c fields honour WSTRB per byte lane (a lane whose strobe "
         "is 0 keeps its value, or clears nothing). wo registers act on a full-word "
         "write only, because a partial command word or pulse has no meaning.")
    emit("- Reads of unused bits and of wo registers return 0.")
    emit("- rw/w1c outputs change, and wo pulses fire, in the cycle BVALID rises.")
    emit("")
    emit("## Summary")
    emit("")
    emit("| Offset | Name | Access | Description |")
    emit("|---|---|---|---|")
    for reg in block.regs:
        emit(f"| `{reg.offset:#05x}` | [{reg.name}](#{reg.name.lower()}) | "
             f"{reg.access_summary} | {_md(reg.desc)} |")
    emit("")
    emit("## Registers")
    for reg in block.regs:
        emit("")
        emit(f"### {reg.name}")
        emit("")
        locked = f" Locked by `{reg.locked_by}`." if reg.locked_by else ""
        emit(f"Offset `{reg.offset:#05x}`, access {reg.access_summary}. {_md(reg.desc)}{locked}")
        emit("")
        emit("| Bits | Field | Access | Reset | Description |")
        emit("|---|---|---|---|---|")
        pos = DATA_WIDTH
        rows = []
        for f in sorted(reg.fields, key=lambda x: -x.lsb):
            if pos > f.msb + 1:
                rows.append((pos - 1, f.msb + 1, None))
            rows.append((f.msb, f.lsb, f))
            pos = f.lsb
        if pos > 0:
            rows.append((pos - 1, 0, None))
        for msb, lsb, f in rows:
            bits = f"{msb}" if msb == lsb else f"{msb}:{lsb}"
            if f is None:
                emit(f"| {bits} | - | - | 0 | Reserved, reads 0. |")
            else:
                emit(f"| {bits} | {f.name} | {f.access} | {_reset_text(f)} | {_md(f.desc)} |")
    emit("")
    emit("Reset column: `hw` means the value is driven by the hardware input, not stored.")
    return "\n".join(o) + "\n"


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def _write_if_changed(path: str, text: str) -> bool:
    """Write text to path unless it already holds exactly that; True if written."""
    try:
        with open(path, "r", encoding="utf-8") as fh:
            if fh.read() == text:
                return False
    except FileNotFoundError:
        pass
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="regtool.py",
        description="Generate the register block (Verilog), C header and markdown doc "
                    "from the TOML register map.")
    parser.add_argument("toml", help="register map, e.g. rtl/regs/tessera_regs.toml")
    parser.add_argument("--rtl", metavar="FILE", help="write the Verilog register block here")
    parser.add_argument("--c-header", metavar="FILE", help="write the C header here")
    parser.add_argument("--doc", metavar="FILE", help="write the markdown reference here")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing on success")
    args = parser.parse_args(argv)

    try:
        block = load_regmap(args.toml)
        outputs = []
        if args.rtl:
            outputs.append((args.rtl, gen_verilog(block)))
        if args.c_header:
            outputs.append((args.c_header, gen_c_header(block)))
        if args.doc:
            outputs.append((args.doc, gen_markdown(block)))
    except RegmapError as exc:
        for msg in exc.args:
            print(f"regtool: error: {args.toml}: {msg}", file=sys.stderr)
        return 1

    for path, text in outputs:
        changed = _write_if_changed(path, text)
        if not args.quiet:
            print(f"regtool: {path}: {'written' if changed else 'unchanged'}")
    if not outputs and not args.quiet:
        print(f"regtool: {args.toml}: {len(block.regs)} registers, valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
