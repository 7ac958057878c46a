#!/usr/bin/env bash
# test_soc_cli.sh: `tessera --hal soc` end to end: random GEMMs, every SFU function and a compiled network, each run by the firmware image on the SoC's core and checked bit for bit.
# Usage: tests/soc/test_soc_cli.sh <tessera> <N> <models dir or -> <dir of the .bin and .elf images> [--seed S] [--gemms G]
#   The models dir holds gen_net_models.py's fc_two_layers.tflite (make test-net writes it);
#   "-" skips the network. Each check prints one line; the first failure prints the run's
#   output and the seed, and exits 1. TSR_SEED=S or --seed S replays the random shapes.
set -u
tessera=$1 dim=$2 models=$3 images=$4
shift 4
seed=${TSR_SEED:-1} gemms=20
while [ $# -gt 0 ]; do
  case $1 in
    --seed) seed=$2; shift 2 ;;
    --gemms) gemms=$2; shift 2 ;;
    *) echo "test_soc_cli.sh: unknown option $1"; exit 2 ;;
  esac
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tsr_soc_cli.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0

# check NAME PATTERN -- ARGS: tessera --hal soc --dim N ARGS must exit 0 and print PATTERN.
check() {
  local name=$1 pat=$2; shift 3
  local t0 out rc
  t0=$(date +%s%N)
  out=$("$tessera" --hal soc "$@" --dim "$dim" 2>&1); rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ "$rc" -ne 0 ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "$out"
    echo "test-soc: FAIL: N=$dim $name: exit status $rc, want 0 and /$pat/ (replay: TSR_SEED=$seed)"
    exit 1
  fi
  printf 'test-soc: N=%s %-44s ok %6d ms\n' "$dim" "$name" "$ms"
  pass=$((pass + 1))
}

# Random shapes from the seed: M up to 2N + 5, K up to 2N + 3 (one to three K blocks), N up to
# 2N + 1 (one to three column blocks), most of them not multiples of N; every other one int32
# (--raw). Small, because the core's planner takes 0.3-3 M cycles for these (docs/soc.md).
RANDOM=$seed
for i in $(seq 1 "$gemms"); do
  m=$((RANDOM % (2 * dim + 5) + 1)) k=$((RANDOM % (2 * dim + 3) + 1)) n=$((RANDOM % (2 * dim + 1) + 1))
  raw=""; kind=int8
  if [ $((i % 2)) -eq 0 ]; then raw=--raw; kind=int32; fi
  check "gemm ${m}x${k}x${n} $kind (seed $((seed * 100 + i)))" '"check": "pass".*"core": \{' -- \
    gemm --m "$m" --k "$k" --n "$n" --seed $((seed * 100 + i)) $raw --json
done

# The wait by interrupt in a real job: with 1,000 cycles of memory latency the chip is still
# fetching and storing the last commands when the core reaches tsr_wait, which sleeps in
# waitirq until IRQ 3 (one taken). (400 was enough until the job's parameters went into one
# LOAD: 14 commands became 9 and the chip then finished first at N = 4; 600 takes the IRQ.)
check "gemm 8x8x8, latency 1000: the wait takes IRQ 3" '"check": "pass".*"chip_irqs": 1,' -- \
  gemm --m 8 --k 8 --n 8 --mem-latency 1000 --json

# The SFU: every function (MAP through a named table and through --lut, REDUCE, SOFTMAX,
# LAYERNORM, ADD) on rows that are not a multiple of N long.
python3 - "$tmp" "$dim" "$seed" <<'EOF' || { echo "test-soc: FAIL: N=$dim: numpy could not write the SFU inputs"; exit 1; }
import sys
import numpy as np
d, dim, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(seed)
rows, n = 5, 2 * dim + 3
i8 = lambda *s: rng.integers(-128, 128, size=s, dtype=np.int64).astype(np.int8)
np.save(f"{d}/x.npy", i8(rows, n))
np.save(f"{d}/y.npy", i8(rows, n))
np.save(f"{d}/t.npy", i8(256))
np.save(f"{d}/g.npy", i8(n))
np.save(f"{d}/b.npy", (rng.standard_normal(n) * 0.5).astype(np.float32))
EOF
ok='"check": "pass".*"core": \{'
check "sfu --op sigmoid (MAP, named table)" "$ok" -- sfu --op sigmoid --in "$tmp/x.npy" --in-scale 0.05 --in-zp 3 \
  --out-scale 0.00390625 --out-zp -128 --check --json
check "sfu --op lut (MAP, given table)" "$ok" -- sfu --op lut --lut "$tmp/t.npy" --in "$tmp/x.npy" --check --json
check "reduce" "$ok" -- reduce --in "$tmp/x.npy" --check --json
check "softmax" "$ok" -- softmax --in "$tmp/x.npy" --in-scale 0.07 --check --json
check "layernorm" "$ok" -- layernorm --in "$tmp/x.npy" --in-scale 0.05 --gamma "$tmp/g.npy" --gamma-scale 0.01 \
  --gamma-zp 2 --beta "$tmp/b.npy" --out-scale 0.03 --out-zp -5 --check --json
check "add" "$ok" -- add --a "$tmp/x.npy" --a-scale 0.05 --a-zp 3 --b "$tmp/y.npy" --b-scale 0.04 \
  --out-scale 0.06 --out-zp -2 --check --json
check "mul" "$ok" -- mul --a "$tmp/x.npy" --a-scale 0.05 --a-zp 3 --b "$tmp/y.npy" --b-scale 0.04 \
  --out-scale 0.2 --out-zp -2 --check --json

# A compiled network: the MLP's chip layers as one command stream relocated by the core, every
# layer against the golden model (--check), and the output byte for byte the simulator's.
if [ "$models" != "-" ]; then
  model=$models/fc_two_layers.tflite
  [ -f "$model" ] || { echo "test-soc: FAIL: N=$dim: no $model (make test-net writes it)"; exit 1; }
  "$tessera" compile "$model" -o "$tmp/net.tsr" --dim "$dim" >/dev/null || { echo "test-soc: FAIL: N=$dim: tessera compile"; exit 1; }
  python3 - "$tmp" "$model" "$seed" <<'EOF' || { echo "test-soc: FAIL: N=$dim: no input for the network"; exit 1; }
import sys
import numpy as np
from tflite_micro.python.tflite_micro import runtime as tflm
d, model, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
it = tflm.Interpreter.from_bytes(open(model, "rb").read())
det = it.get_input_details(0)
rng = np.random.default_rng(seed)
x = (rng.standard_normal(det["shape"]) * 2).astype(det["dtype"]) if det["dtype"] == np.float32 else \
    rng.integers(-128, 128, size=det["shape"], dtype=np.int64).astype(det["dtype"])
np.save(f"{d}/in.npy", x)
it.set_input(x, 0)
it.invoke()
np.save(f"{d}/micro.npy", np.array(it.get_output(0)))
EOF
  check "run fc_two_layers.tsr --check (one stream)" '^bit-exact: yes$' -- \
    run "$tmp/net.tsr" --input "$tmp/in.npy" --out "$tmp/soc.npy" --check
  check "... --layers (a job per layer, one memory)" '^bit-exact: yes$' -- \
    run "$tmp/net.tsr" --input "$tmp/in.npy" --check --layers
  check "... --json: the core's side summed over the run" '"core": \{"soc_cycles": [1-9][0-9]*, .*"instructions_per_command": [1-9]' -- \
    run "$tmp/net.tsr" --input "$tmp/in.npy" --json
  python3 - "$tmp" <<'EOF' || { echo "test-soc: FAIL: N=$dim: the SoC's network output differs from TFLite Micro's"; exit 1; }
import sys
import numpy as np
d = sys.argv[1]
a, b = np.load(f"{d}/soc.npy"), np.load(f"{d}/micro.npy")
if a.shape != b.shape or a.dtype != b.dtype or a.tobytes() != b.tobytes():
    sys.exit(f"{a.dtype}{a.shape} vs TFLite Micro {b.dtype}{b.shape}: {np.count_nonzero(a.reshape(-1) != b.reshape(-1))} differ")
EOF
  printf 'test-soc: N=%s %-44s ok\n' "$dim" "... output byte for byte TFLite Micro's"
  pass=$((pass + 1))
fi
# A failed run is one line naming the PC, the cause and the chip's STATUS, exit status 2: the
# images of the fault programs in place of the firmware ($TSR_SOC_FW).
fault() {
  local name=$1 image=$2 pat=$3 out rc
  out=$(TSR_SOC_FW="$images/$image" TSR_SOC_MAX_CYCLES=300000 "$tessera" --hal soc gemm --m 5 --k 6 --n 7 --dim "$dim" 2>&1)
  rc=$?
  if [ "$rc" -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "$out"; echo "test-soc: FAIL: N=$dim $name: exit status $rc, want 2 and one line /$pat/"; exit 1
  fi
  printf 'test-soc: N=%s %-44s ok  %s\n' "$dim" "$name" "$(cut -c1-60 <<<"$out")"
  pass=$((pass + 1))
}
# The PCs the lines must name, from the ELF files (as test_soc.sh finds them).
. "$(dirname "$0")/soc_elf_addr.sh"
ill_pc=$(addr "$images/illegal.elf" '\.word[ \t]+0x00000000') || exit 1
lw_pc=$(addr "$images/nodev.elf" 'lw[ \t].*0x60000000|lw[ \t]+[a-z0-9]+,0\(') || exit 1
nop_pc=$(addr "$images/hang.elf" '[ \t]nop$') || exit 1
j_pc=$(printf '0x%08x' $((nop_pc + 4)))
chip='chip STATUS=0x[0-9a-f]{8}'
fault "fault: trap -> one line" illegal.bin \
  "^tessera: soc: the firmware exited with 132 after [0-9]+ cycles: trap: illegal instruction \\(IRQ 1, word 0x00000000\\) at PC=$ill_pc, $chip$"
fault "fault: bus fault -> one line" nodev.bin \
  "^tessera: soc: bus fault: nothing answers at 0x60000000, PC=$lw_pc after [0-9]+ cycles; $chip ERR_CODE=0 irq_o=0$"
fault "fault: hang -> watchdog, one line" hang.bin \
  "^tessera: soc: watchdog: no exit after 300000 cycles, PC=($nop_pc|$j_pc); $chip ERR_CODE=0 irq_o=0$"
echo "test-soc: N=$dim: all $pass tessera --hal soc checks passed"
