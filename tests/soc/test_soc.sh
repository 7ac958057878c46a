#!/usr/bin/env bash
# test_soc.sh: the SoC's end-to-end checks on one library: hello, GEMMs bit-exact, and the faults.
# Usage: tests/soc/test_soc.sh <soc_run> <libtsrsoc_dN.so> <dir of the .elf files>
# Each check prints one line; the first failure prints the run's output and exits 1.
set -u
run=$1 lib=$2 elfs=$3
dim=$(basename "$lib" .so); dim=${dim#libtsrsoc_d}
objdump=${OBJDUMP:-riscv64-unknown-elf-objdump}
pass=0

# check NAME WANT_RC PATTERN... -- ARGS: run soc_run ARGS, want exit status WANT_RC and every
# PATTERN (an extended regular expression) on some line of the output.
check() {
  local name=$1 want=$2; shift 2
  local pats=()
  while [ "$1" != "--" ]; do pats+=("$1"); shift; done
  shift
  local t0 out rc
  t0=$(date +%s%N)
  out=$("$run" --lib "$lib" "$@" 2>&1); rc=$?
  local ms=$(( ($(date +%s%N) - t0) / 1000000 ))
  if [ "$rc" -ne "$want" ]; then
    echo "$out"; echo "test-soc: FAIL: N=$dim $name: exit status $rc, want $want"; exit 1
  fi
  for p in "${pats[@]}"; do
    if ! grep -qE -- "$p" <<<"$out"; then
      echo "$out"; echo "test-soc: FAIL: N=$dim $name: no line matches /$p/"; exit 1
    fi
  done
  printf 'test-soc: N=%s %-32s ok %6d ms  %s\n' "$dim" "$name" "$ms" \
    "$(grep -E '^(soc_run|watchdog):' <<<"$out" | tail -1 | cut -c1-100)"
  pass=$((pass + 1))
}

check "hello (ID through the driver)" 0 '^hello from the core$' "^tsr_top ID=0x5453[0-9a-f]{4} N=$dim " \
  '^external memory: ok$' 'exited with 0 after' -- --max-cycles 2000000 "$elfs/hello.elf"
check "gemm 8x8x8 int32" 0 'int32: bit-exact against the golden model' \
  -- --max-cycles 20000000 --gemm 8x8x8 --seed 1 "$elfs/gemm.elf"
check "gemm 13x40x11 int8 requant+bias" 0 'int8 requant\+bias: bit-exact against the golden model' \
  -- --max-cycles 20000000 --gemm 13x40x11 --requant --seed 7 "$elfs/gemm.elf"

# The illegal instruction's address, from the ELF: the trap line must name it.
ill_pc=$("$objdump" -d "$elfs/illegal.elf" |
  awk '/<main>:/ { m = 1 } m && /\.word[ \t]+0x00000000/ { sub(":", "", $1); print $1; exit }')
[ -n "$ill_pc" ] || { echo "test-soc: FAIL: no illegal instruction found in illegal.elf"; exit 1; }
ill_pc=$(printf '0x%08x' "0x$ill_pc")
check "illegal instruction -> trap" 132 \
  "^trap: illegal instruction \\(IRQ 1, word 0x00000000\\) at PC=$ill_pc, chip STATUS=0x[0-9a-f]{8}$" \
  'exited with 132' -- --max-cycles 2000000 "$elfs/illegal.elf"
check "firmware assert" 134 \
  '^assert: tests/soc/assert.c:[0-9]+: two \+ two == 5u failed at PC=0x[0-9a-f]{8}, chip STATUS=0x[0-9a-f]{8}$' \
  'exited with 134' -- --max-cycles 2000000 "$elfs/assert.elf"
check "hang -> watchdog" 124 '^watchdog: no exit after 300000 cycles, PC=0x[0-9a-f]{8}, chip irq_o=0$' \
  -- --max-cycles 300000 "$elfs/hang.elf"
echo "test-soc: N=$dim: all $pass checks passed"
