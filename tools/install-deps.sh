#!/usr/bin/env bash
# install-deps.sh: install what the build and tests need on a fresh Debian machine.
# Idempotent: does nothing (quickly) when everything is present.
set -euo pipefail

# Debian package -> a file or command that proves it is installed.
declare -A probe=(
  [verilator]=/usr/bin/verilator
  [yosys]=/usr/bin/yosys
  [libcmocka-dev]=/usr/include/cmocka.h
  [gcc-riscv64-unknown-elf]=/usr/bin/riscv64-unknown-elf-gcc
  [make]=/usr/bin/make
  [g++]=/usr/bin/g++
  [python3]=/usr/bin/python3
  [zlib1g-dev]=/usr/include/zlib.h
  [clang]=/usr/bin/clang
  [libclang-rt-14-dev]=/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a
  [gnuplot-nox]=/usr/bin/gnuplot
  [iverilog]=/usr/bin/iverilog
  [gtkwave]=/usr/bin/fst2vcd
)

missing=()
for pkg in "${!probe[@]}"; do
  [ -e "${probe[$pkg]}" ] || missing+=("$pkg")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "deps: need root (or sudo) to install: ${missing[*]}"; exit 1; }
    SUDO=sudo
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# numpy: only for the test that checks the CLI against an outside tool.
PY=${PYTHON:-python3}
if ! "$PY" -c 'import numpy' 2>/dev/null; then
  echo "deps: installing numpy for $PY (pip)"
  "$PY" -m pip install -q numpy || { echo "deps: pip could not install numpy"; exit 1; }
fi
# gcovr: C line and branch coverage for `make coverage`.
if ! "$PY" -c 'import gcovr' 2>/dev/null; then
  echo "deps: installing gcovr for $PY (pip)"
  "$PY" -m pip install -q gcovr || { echo "deps: pip could not install gcovr"; exit 1; }
fi
# pytest (pinned): the Python package's tests, `make test-python`.
if ! "$PY" -c 'import pytest' 2>/dev/null; then
  echo "deps: installing pytest for $PY (pip)"
  "$PY" -m pip install -q pytest==8.3.3 || { echo "deps: pip could not install pytest"; exit 1; }
fi
# fusesoc and its back end edalize (pinned together): `make fusesoc-check` runs the core
# tessera.core through them. Either one missing or at another version: both pins installed.
pyver() { "$PY" -c "import importlib.metadata as m; print(m.version('$1'))" 2>/dev/null || true; }
if [ "$(pyver fusesoc)" != 2.4.7 ] || [ "$(pyver edalize)" != 0.6.8 ]; then
  echo "deps: installing fusesoc 2.4.7 and edalize 0.6.8 for $PY (pip)"
  "$PY" -m pip install -q fusesoc==2.4.7 edalize==0.6.8 || { echo "deps: pip could not install fusesoc and edalize"; exit 1; }
fi
# ai-edge-litert and flatbuffers (pinned): TFLite's schema module (ai_edge_litert/
# schema_py_generated.py) writes the models `make test-tflite` reads with the C reader.
# Checked by version, so that a new pin reinstalls.
if [ "$(pyver ai-edge-litert)" != 2.3.0 ] || [ "$(pyver flatbuffers)" != 25.12.19 ]; then
  echo "deps: installing ai-edge-litert 2.3.0 and flatbuffers 25.12.19 for $PY (pip)"
  "$PY" -m pip install -q ai-edge-litert==2.3.0 flatbuffers==25.12.19 ||
    { echo "deps: pip could not install ai-edge-litert==2.3.0 flatbuffers==25.12.19"; exit 1; }
fi
# tflite-micro (TFLite Micro's interpreter, the bit-exact oracle of `make test-net`) and
# scikit-learn (the digits data set and the MLP the network generator trains), pinned.
if [ "$(pyver tflite-micro)" != 0.dev20261023182759 ] || [ "$(pyver scikit-learn)" != 1.9.1 ]; then
  echo "deps: installing tflite-micro 0.dev20261023182759 and scikit-learn 1.9.1 for $PY (pip)"
  "$PY" -m pip install -q tflite-micro==0.dev20261023182759 scikit-learn==1.9.1 ||
    { echo "deps: pip could not install tflite-micro==0.dev20261023182759 scikit-learn==1.9.1"; exit 1; }
fi
# jax (pinned, the CPU wheel: jaxlib 0.10.2 comes with it): trains the digits CNN
# (`make digits-cnn`, tools/train_digits_cnn.py). make test does not train: the model is committed.
if [ "$(pyver jax)" != 0.10.2 ] || [ "$(pyver jaxlib)" != 0.10.2 ]; then
  echo "deps: installing jax 0.10.2 (CPU) for $PY (pip)"
  "$PY" -m pip install -q jax==0.10.2 jaxlib==0.10.2 ||
    { echo "deps: pip could not install jax==0.10.2 jaxlib==0.10.2"; exit 1; }
fi
# pythondata-cpu-picorv32 (pinned): the RV32IM core of the co-simulation SoC (rtl/soc/tsr_soc.v,
# `make test-soc`); its Verilog is YosysHQ/picorv32 at 87c89acc, found by tools/picorv32_path.py.
if [ "$(pyver pythondata-cpu-picorv32)" != 1.0.post218 ]; then
  echo "deps: installing pythondata-cpu-picorv32 1.0.post218 for $PY (pip)"
  "$PY" -m pip install -q pythondata-cpu-picorv32==1.0.post218 ||
    { echo "deps: pip could not install pythondata-cpu-picorv32==1.0.post218"; exit 1; }
fi
echo "deps: all present"
