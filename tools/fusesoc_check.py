#!/usr/bin/env python3
"""fusesoc_check.py: tessera.core lists what the Makefile builds, at the chip's version.

    tools/fusesoc_check.py --core tessera.core --rtl "RTL_SRCS RTL_INCS" \\
        --sim "the bench" --ulx3s "board top, its fpga/ sources and the .lpf"

The core file names its files one by one (CAPI2 has no wildcards), so a file added
to rtl/ and to the Makefile's RTL_SRCS is missing from the core until someone adds
it there too. FuseSoC's own lint then fails only when tsr_top instantiates the new
module; this check fails at once, naming the file. It also checks:

- the `default` target's files (every fileset it uses) are exactly --rtl, and the
  `sim` and `ulx3s` targets' files are exactly --rtl plus --sim or --ulx3s;
- the core's version MAJOR.MINOR.PATCH has the MAJOR and MINOR that tsr_top drives
  into the ID register (`.id_major_i`, `.id_minor_i`), so a user can tell which
  core a chip was built from.

One line per problem; exit 1 if there is any. FuseSoC itself (does the file parse,
do the targets set up, does the lint pass) is run by `make fusesoc-check`.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

import yaml


def fileset_files(core: dict, target: str) -> tuple[set[str], list[str]]:
    """The files of every fileset a target uses, and the problems found on the way."""
    problems: list[str] = []
    tgt = core.get("targets", {}).get(target)
    if tgt is None:
        return set(), [f"the core has no target '{target}'"]
    files: set[str] = set()
    for name in tgt.get("filesets", []):
        fs = core.get("filesets", {}).get(name)
        if fs is None:
            problems.append(f"target '{target}' uses fileset '{name}', which the core lacks")
            continue
        for entry in fs.get("files", []):
            files.add(next(iter(entry)) if isinstance(entry, dict) else str(entry))
    return files, problems


def compare(what: str, have: set[str], want: set[str], root: pathlib.Path) -> list[str]:
    out = [f"{what}: {f} is in the Makefile's list but not in the core"
           for f in sorted(want - have)]
    out += [f"{what}: the core lists {f}, which the Makefile does not build"
            for f in sorted(have - want)]
    out += [f"{what}: the core lists {f}, which does not exist"
            for f in sorted(have) if not (root / f).is_file()]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--core", default="tessera.core")
    ap.add_argument("--rtl", required=True, help="RTL sources and includes, space-separated")
    ap.add_argument("--sim", required=True, help="the sim target's bench, besides the RTL")
    ap.add_argument("--ulx3s", required=True, help="ULX3S files besides the RTL, space-separated")
    ap.add_argument("--top", default="rtl/tsr_top.v", help="where the ID register's version is")
    args = ap.parse_args()

    core_path = pathlib.Path(args.core)
    root = core_path.parent
    text = core_path.read_text()
    if not text.startswith("CAPI=2:"):
        print(f"fusesoc-check: {core_path} does not start with 'CAPI=2:'")
        return 1
    try:
        core = yaml.safe_load(text)
    except yaml.YAMLError as e:
        where = getattr(e, "problem_mark", None)
        line = f" line {where.line + 1}" if where else ""
        print(f"fusesoc-check: {core_path}{line}: not valid YAML: {getattr(e, 'problem', e)}")
        return 1
    rtl = set(args.rtl.split())
    board = set(args.ulx3s.split())

    problems: list[str] = []
    files, p = fileset_files(core, "default")
    problems += p + compare("target default", files, rtl, root)
    files, p = fileset_files(core, "sim")
    problems += p + compare("target sim", files, rtl | set(args.sim.split()), root)
    files, p = fileset_files(core, "ulx3s")
    problems += p + compare("target ulx3s", files, rtl | board, root)

    m = re.fullmatch(r"[^:]+:[^:]+:[^:]+:(\d+)\.(\d+)\.(\d+)", str(core.get("name", "")))
    top = (root / args.top).read_text()
    major = re.search(r"\.id_major_i\s*\(\s*8'd(\d+)\s*\)", top)
    minor = re.search(r"\.id_minor_i\s*\(\s*8'd(\d+)\s*\)", top)
    if not m:
        problems.append(f"name '{core.get('name')}' is not vendor:library:name:MAJOR.MINOR.PATCH")
    elif not (major and minor):
        problems.append(f"{args.top}: no .id_major_i (8'dN) / .id_minor_i (8'dN) found")
    elif (int(m.group(1)), int(m.group(2))) != (int(major.group(1)), int(minor.group(1))):
        problems.append(f"core version {m.group(1)}.{m.group(2)}.{m.group(3)} but {args.top} "
                        f"reports ID {major.group(1)}.{minor.group(1)}: bump the core's name")

    for line in problems:
        print(f"fusesoc-check: {core_path}: {line}")
    if problems:
        return 1
    print(f"fusesoc-check: {core_path} lists the {len(rtl)} RTL files and the "
          f"{len(board)} ULX3S files the Makefile uses; version {m.group(1)}.{m.group(2)} "
          f"= the ID register's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
