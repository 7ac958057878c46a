#!/usr/bin/env bash
# demo.sh: int8 GEMMs on the Verilated N=8 chip through the real driver and
# firmware, each compared with the golden model. Prints one line per GEMM.
set -euo pipefail
TESSERA=${1:-build/bin/tessera}

shapes=(
  "37 129 61"      # fringe tiles in every dimension, K not a multiple of N
  "64 64 64"
  "128 128 128"
  "256 256 256"
  "300 1 300"      # K = 1
  "1 1024 64"      # batch-1 fully-connected layer
  "512 512 512"
)

printf '%-16s %-10s %12s %12s %10s\n' "M x K x N" "bit-exact" "cycles" "utilization" "wall s"
fail=0
for s in "${shapes[@]}"; do
  read -r m k n <<<"$s"
  if json=$("$TESSERA" gemm --m "$m" --k "$k" --n "$n" --seed 7 --json); then :; else fail=1; fi
  python3 - "$m" "$k" "$n" "$json" <<'PY'
import json, sys
m, k, n, text = sys.argv[1:]
r = json.loads(text)
exact = {"pass": "yes", "fail": "NO", "skipped": "skipped"}[r["check"]]
shape = f"{m}x{k}x{n}"
print(f"{shape:<16} {exact:<10} {r['cycles']:>12} {100*r['utilization']:>11.1f}% {r['wall_seconds']:>10.2f}")
PY
done
if [ "$fail" -ne 0 ]; then
  echo "demo: a GEMM did not match the golden model"
  exit 1
fi
echo "demo: every GEMM bit-exact against the golden model (N=8 array, int8, per-channel requantization)"
