#!/usr/bin/env python3
"""board_check.py: each board top against its vendor's primitives and its pin constraints.

    tools/board_check.py [--yosys yosys] [--board B ...] RTL_SOURCES...

For every board of tools/synth.py's BOARDS (or the ones named):
  1. Yosys reads the board top, tsr_uart_top and the RTL next to the family's
     own cell library (ecp5/cells_bb.v, ice40/cells_sim.v, xilinx/cells_xtra.v),
     and `hierarchy -check` fails on any port of a PLL or other primitive that
     the vendor's cell does not have;
  2. every port bit of the board top has a pin in the board's constraint file
     (.lpf LOCATE COMP, .pcf set_io, .xdc PACKAGE_PIN), and every pin the file
     names is a port bit of the top: a renamed port cannot silently lose its pin.
Exit status 0 when every board passes; 1 with one line per problem otherwise.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from synth import BOARDS, BOARD_SRCS, ROOT  # noqa: E402

CELL_LIBS = {'ecp5': '+/ecp5/cells_bb.v', 'ice40': '+/ice40/cells_sim.v',
             'xilinx': '+/xilinx/cells_xtra.v'}
PIN_PATTERNS = {
    '.lpf': r'^\s*LOCATE\s+COMP\s+"([^"]+)"\s+SITE',
    '.pcf': r'^\s*set_io\s+(?:-\S+\s+)*(\S+)\s+\S+',
    '.xdc': r'PACKAGE_PIN\s+\S+.*get_ports\s*\{\s*(\S+)\s*\}',
}


def top_ports(yosys, board, srcs):
    """The board top's ports {name: (width, offset)}, after Yosys checked its hierarchy."""
    top = f'tsr_board_{board}'
    fam = BOARDS[board]['target']
    with tempfile.TemporaryDirectory() as tmp:
        js = os.path.join(tmp, 'ports.json')
        script = (f"read_verilog -lib {CELL_LIBS[fam]}; "
                  f"read_verilog -DSYNTHESIS {' '.join(srcs)} fpga/boards/{top}.v; "
                  f"hierarchy -check -top {top}; delete {top} %n; write_json {js}")
        r = subprocess.run([yosys, '-q', '-p', script], cwd=ROOT, capture_output=True, text=True)
        if r.returncode != 0:
            errs = [l for l in (r.stdout + r.stderr).splitlines() if l.startswith('ERROR')]
            return None, errs[-1] if errs else f'yosys exit code {r.returncode}'
        with open(js) as fh:
            ports = json.load(fh)['modules'][top]['ports']
    widths = {name: (len(p['bits']), p.get('offset', 0)) for name, p in ports.items()}
    return widths, None


def port_bits(widths):
    """'led[3]' for each bit of a vector; a one-bit port is just its name."""
    bits = set()
    for name, (n, offset) in widths.items():
        bits |= {name} if n == 1 else {f'{name}[{offset + i}]' for i in range(n)}
    return bits


def pin_name(pin, widths):
    """A pin of a one-bit port may be written 'btn[0]' for `input wire [0:0] btn`."""
    m = re.fullmatch(r'(\w+)\[(\d+)\]', pin)
    if m and widths.get(m.group(1), (0, 0)) == (1, int(m.group(2))):
        return m.group(1)
    return pin


def constraint_pins(path):
    ext = os.path.splitext(path)[1]
    with open(path) as fh:
        text = fh.read()
    return set(re.findall(PIN_PATTERNS[ext], text, re.M))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--yosys', default=os.environ.get('YOSYS', 'yosys'))
    ap.add_argument('--board', action='append', choices=sorted(BOARDS))
    ap.add_argument('srcs', nargs='+')
    a = ap.parse_args()
    srcs = a.srcs + BOARD_SRCS
    problems = 0
    for board in a.board or sorted(BOARDS):
        cons = BOARDS[board]['constraints']
        widths, err = top_ports(a.yosys, board, srcs)
        if err:
            print(f'board-check: {board}: {err}')
            problems += 1
            continue
        ports = port_bits(widths)
        pins = {pin_name(p, widths) for p in constraint_pins(os.path.join(ROOT, cons))}
        missing, extra = sorted(ports - pins), sorted(pins - ports)
        for p in missing:
            print(f'board-check: {board}: port {p} of tsr_board_{board} has no pin in {cons}')
        for p in extra:
            print(f'board-check: {board}: {cons} places {p}, which tsr_board_{board} does not have')
        problems += len(missing) + len(extra)
        if not missing and not extra:
            print(f'board-check: {board}: primitives match the {BOARDS[board]["target"]} cell '
                  f'library; all {len(ports)} port bits pinned in {cons}')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
