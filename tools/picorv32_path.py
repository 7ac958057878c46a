#!/usr/bin/env python3
"""picorv32_path.py: print the path of picorv32.v inside the pinned pythondata-cpu-picorv32 package.

The SoC of `make test-soc` (rtl/soc/tsr_soc.v) takes its RV32IM core from that PyPI package
(tools/install-deps.sh pins the version). This prints the Verilog file's path, or one line
on stderr naming the package to install, and exits 1, when it is missing or at another version.
"""
import importlib.metadata
import os
import sys

PIN = "1.0.post218"


def main() -> int:
    try:
        version = importlib.metadata.version("pythondata-cpu-picorv32")
        import pythondata_cpu_picorv32 as pkg  # noqa: PLC0415 (only after the version check)
    except (importlib.metadata.PackageNotFoundError, ImportError):
        print(f"picorv32: pythondata-cpu-picorv32 not installed: make deps "
              f"(pip install pythondata-cpu-picorv32=={PIN})", file=sys.stderr)
        return 1
    if version != PIN:
        print(f"picorv32: pythondata-cpu-picorv32 {version} installed, {PIN} pinned: make deps",
              file=sys.stderr)
        return 1
    path = os.path.join(pkg.data_location, "picorv32.v")
    if not os.path.isfile(path):
        print(f"picorv32: {path} missing from pythondata-cpu-picorv32 {version}", file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
