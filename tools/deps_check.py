#!/usr/bin/env python3
"""deps_check.py: every package a make target tells the user to install is one
that `make deps` installs.

A target that misses a tool prints one line such as
"waves-check: fst2vcd not found: apt-get install gtkwave". When `make deps`
(tools/install-deps.sh) does not install that package, a fresh machine fails
the target although the user did what the README said. This script collects
the Debian packages named after "apt-get install" and the PyPI packages named
after "pip install" in mk/*.mk and tools/*, and checks that install-deps.sh
installs each one: a Debian package as a key of its probe table, a PyPI
package by name. One line per package that is missing; exit 1 if any.

Board and FPGA flows (tools/install-fpga-deps.sh, `make synth-deps`) have an
installer of their own and are not checked here.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

APT_RE = re.compile(r"apt-get install ((?:[a-z0-9][a-z0-9.+-]* ?)+)")
PIP_RE = re.compile(r"pip install ([A-Za-z0-9_.-]+)")
PROBE_RE = re.compile(r"^\s*\[([a-z0-9.+-]+)\]=", re.M)


def hints(paths: list[pathlib.Path]) -> tuple[dict[str, str], dict[str, str]]:
    """Debian and PyPI packages named in install hints, each with where it was seen."""
    apt: dict[str, str] = {}
    pip: dict[str, str] = {}
    for path in paths:
        for lineno, line in enumerate(path.read_text().splitlines(), 1):
            where = f"{path}:{lineno}"
            # "pip install numpy (or apt-get install python3-numpy)": the Debian
            # package is only an alternative to the PyPI one.
            alternative = PIP_RE.search(line) is not None
            for m in APT_RE.finditer(line if not alternative else ""):
                for pkg in m.group(1).split():
                    if not pkg.startswith("-"):
                        apt.setdefault(pkg, where)
            for m in PIP_RE.finditer(line):
                if not m.group(1).startswith("-"):
                    pip.setdefault(m.group(1), where)
    return apt, pip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=".", help="project root (default: .)")
    args = ap.parse_args()
    root = pathlib.Path(args.root)
    installer = root / "tools" / "install-deps.sh"
    text = installer.read_text()
    probes = set(PROBE_RE.findall(text))
    sources = sorted(root.glob("mk/*.mk")) + sorted(
        p for p in (root / "tools").iterdir()
        if p.is_file() and p.name not in ("install-deps.sh", "install-fpga-deps.sh", "deps_check.py")
    )
    apt, pip = hints(sources)
    missing = [f"deps-check: {where} tells the user to apt-get install {pkg}, "
               f"which tools/install-deps.sh does not install"
               for pkg, where in sorted(apt.items()) if pkg not in probes]
    missing += [f"deps-check: {where} tells the user to pip install {pkg}, "
                f"which tools/install-deps.sh does not install"
                for pkg, where in sorted(pip.items())
                if not re.search(rf"pip install (-q )?{re.escape(pkg)}\b", text)]
    for line in missing:
        print(line)
    if missing:
        return 1
    print(f"deps-check: the {len(apt)} Debian and {len(pip)} PyPI packages the targets name "
          f"are all installed by make deps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
