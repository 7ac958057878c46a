#!/usr/bin/env python3
"""layers_check.py: the C layers only include downward (docs: CONVENTIONS.md, "layers").

    cli -> lib -> fw -> driver -> hal        lib, hal -> tb (the simulator's C API)
                  golden -> driver (quant)   tests -> anything

Every `#include "X"` of a file under a layer folder is resolved the way the
compiler resolves it (the file's own folder first, then the -I folders of the
Makefile) and must land in a folder the layer may use. Besides the folders:
  - no file includes a .c file (tests link objects instead);
  - freestanding files (fw/, sw/driver/, the HAL interface and the bare-metal
    backend, everything the firmware compiles) include no host-only header.
Prints one line per violation, "file:line: what", and exits 1 if there is any.
Usage: tools/layers_check.py [--root DIR]
"""
import argparse
import os
import re
import sys

# Folder -> layer name. A file belongs to the longest folder that holds it.
LAYERS = {
    "sw/cli": "cli",
    "sw/lib": "lib",
    "fw": "fw",
    "fw/include": "fw",
    "sw/golden": "golden",
    "sw/driver": "driver",
    "sw/hal": "hal",
    "sw/include": "include",
    "tb": "tb",
    "tests": "tests",
}

# Layer -> layers its files may include (its own layer is always allowed).
ALLOWED = {
    "cli": {"lib", "fw", "golden", "driver", "hal", "include"},
    "lib": {"fw", "golden", "driver", "hal", "include", "tb"},
    "fw": {"driver", "hal", "include"},
    "golden": {"driver", "include"},
    "driver": {"hal", "include"},
    "hal": {"include", "tb"},
    "include": set(),
    "tb": set(),
    "tests": {"cli", "lib", "fw", "golden", "driver", "hal", "include", "tb"},
}

# The -I folders of the Makefile's INCS, in order.
INCLUDE_DIRS = ["sw/include", "sw/hal", "sw/driver", "sw/golden", "sw/lib", "fw/include", "tb"]

# Freestanding: compiled into the RV32IM firmware (make fw-size).
FREESTANDING_DIRS = ["fw", "sw/driver"]
FREESTANDING_FILES = ["sw/hal/tsr_hal.h", "sw/hal/tsr_hal.c", "sw/hal/tsr_hal_baremetal.h",
                      "sw/hal/tsr_hal_baremetal.c"]
HOST_ONLY = {"tsr_hal_host.h", "tsr_uart.h", "tsr_sim.h", "tsr_npy.h", "tessera.h", "stdio.h",
             "stdlib.h", "dlfcn.h", "unistd.h"}

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(rel):
    best = None
    for folder in LAYERS:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return LAYERS[best] if best else None


def freestanding(rel):
    return rel in FREESTANDING_FILES or any(rel.startswith(d + "/") for d in FREESTANDING_DIRS)


def resolve(root, rel, name):
    for d in [os.path.dirname(rel)] + INCLUDE_DIRS:
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def check_file(root, rel):
    problems = []
    me = layer_of(rel)
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        lines = f.readlines()
    for no, line in enumerate(lines, 1):
        m = INCLUDE_RE.match(line)
        if not m:
            continue
        kind, name = m.groups()
        where = f"{rel}:{no}"
        if name.endswith(".c"):
            problems.append(f"{where}: includes the source file {name} (link its object instead)")
            continue
        if freestanding(rel) and os.path.basename(name) in HOST_ONLY:
            problems.append(f"{where}: freestanding file includes the host-only header {name}")
            continue
        if kind == "<":
            continue
        target = resolve(root, rel, name)
        if target is None:
            continue  # generated (Verilator) or system headers
        them = layer_of(target)
        if them is None or them == me or me is None:
            continue
        if them not in ALLOWED[me]:
            problems.append(f"{where}: {me} includes {target} of the layer {them} "
                            f"({me} may use: {', '.join(sorted(ALLOWED[me])) or 'nothing else'})")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".")
    args = ap.parse_args()
    problems = []
    count = 0
    for top in sorted({f.split("/")[0] for f in LAYERS}):
        for dirpath, _, files in os.walk(os.path.join(args.root, top)):
            for fn in sorted(files):
                if fn.endswith((".c", ".h", ".cpp")):
                    rel = os.path.relpath(os.path.join(dirpath, fn), args.root)
                    count += 1
                    problems += check_file(args.root, rel)
    for p in problems:
        print(f"layers-check: {p}")
    if problems:
        print(f"layers-check: FAIL: {len(problems)} include(s) against the layering")
        return 1
    print(f"layers-check: {count} files, every include points down the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main())
