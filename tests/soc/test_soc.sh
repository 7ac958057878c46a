#!/usr/bin/env bash
# test_soc.sh: the SoC's end-to-end checks on one library: hello, GEMMs bit-exact, and the faults.
# Usage: tests/soc/test_soc.sh <soc_run> <libtsrsoc_dN.so> <dir of the .elf files>
# Each check prints one line; the first failure prints the run's output and exits 1.
set -u
run=$1 lib=$2 elfs=$3
dim=$(basename "$lib" .so); dim=${dim#libtsrsoc_d}; dim=${dim%%_*}
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
  printf 'test-soc: N=%s %-36s ok %6d ms  %s\n' "$dim" "$name" "$ms" \
    "$(grep -E '^(soc_run|watchdog):' <<<"$out" | tail -1 | cut -c1-100)"
  pass=$((pass + 1))
}

check "hello (ID through the driver)" 0 '^hello from the core$' "^tsr_top ID=0x5453[0-9a-f]{4} N=$dim " \
  '^external memory: ok$' 'exited with 0 after' -- --max-cycles 2000000 "$elfs/hello.elf"
check "gemm 8x8x8 int32" 0 'int32: bit-exact against the golden model' \
  -- --max-cycles 20000000 --gemm 8x8x8 --seed 1 "$elfs/gemm.elf"
check "gemm 13x40x11 int8 requant+bias" 0 'int8 requant\+bias: bit-exact against the golden model' \
  -- --max-cycles 20000000 --gemm 13x40x11 --requant --seed 7 "$elfs/gemm.elf"

check "interrupt path (3 IRQs, 1 timeout)" 0 '^irq: fence 3: IRQ 3 taken \(count 3\), IRQ_STATUS=0x[0-9a-f]{7}[4-7] cleared$' \
  '^irq: wait_irq\(5000 cycles\) with no interrupt enabled: timeout after [56][0-9]{3} cycles$' 'exited with 0 after' -- --max-cycles 2000000 "$elfs/irq.elf"
check "core + DMA share the memory" 0 '^share: 8 DMA copies of [0-9]+ bytes verified; [1-9][0-9]* core accesses' \
  'exited with 0 after' -- --max-cycles 5000000 "$elfs/share.elf"
check "... with 30% memory stalls" 0 '^share: 8 DMA copies of [0-9]+ bytes verified; [1-9][0-9]* core accesses' \
  'exited with 0 after' -- --max-cycles 5000000 --stall 30 --mem-seed 5 "$elfs/share.elf"
check "... with 60% memory stalls" 0 '^share: 8 DMA copies of [0-9]+ bytes verified; [1-9][0-9]* core accesses' \
  'exited with 0 after' -- --max-cycles 5000000 --stall 60 --mem-seed 11 "$elfs/share.elf"
check "gemm 8x12x8 int8, 40% memory stalls" 0 'int8 requant\+bias: bit-exact against the golden model' \
  -- --max-cycles 20000000 --stall 40 --mem-seed 9 --gemm 8x12x8 --requant --seed 2 "$elfs/gemm.elf"

# addr ELF PATTERN: the address of the first instruction of main whose disassembly matches PATTERN.
. "$(dirname "$0")/soc_elf_addr.sh"
chip='chip STATUS=0x[0-9a-f]{8}'
ill_pc=$(addr "$elfs/illegal.elf" '\.word[ \t]+0x00000000') || exit 1
check "illegal instruction -> trap" 132 \
  "^trap: illegal instruction \\(IRQ 1, word 0x00000000\\) at PC=$ill_pc, $chip$" \
  'exited with 132' -- --max-cycles 2000000 "$elfs/illegal.elf"
check "firmware assert" 134 \
  "^assert: tests/soc/assert.c:[0-9]+: two \\+ two == 5u failed at PC=0x[0-9a-f]{8}, $chip$" \
  'exited with 134' -- --max-cycles 2000000 "$elfs/assert.elf"
lw_pc=$(addr "$elfs/nodev.elf" 'lw[ \t].*0x60000000|lw[ \t]+[a-z0-9]+,0\(') || exit 1
check "no device -> bus fault" 125 \
  "^soc_run: bus fault: nothing answers at 0x60000000, PC=$lw_pc after [0-9]+ cycles; $chip ERR_CODE=0 irq_o=0$" \
  -- --max-cycles 2000000 "$elfs/nodev.elf"
err_pc=$(addr "$elfs/buserr.elf" 'lw[ \t]') || exit 1
check "DECERR on the window -> bus fault" 125 \
  "^soc_run: bus fault: DECERR answered to the core's access at 0x84000000, PC=$err_pc after [0-9]+ cycles; $chip" \
  -- --max-cycles 2000000 "$elfs/buserr.elf"
halt_pc=$(addr "$elfs/halt.elf" '\.word[ \t]+0x00000000') || exit 1
check "masked illegal -> core halted" 126 "^soc_run: the core halted .* at PC=$halt_pc after [0-9]+ cycles; $chip" \
  -- --max-cycles 2000000 "$elfs/halt.elf"
nop_pc=$(addr "$elfs/hang.elf" '[ \t]nop$') || exit 1
j_pc=$(printf '0x%08x' $((nop_pc + 4)))
check "hang -> watchdog" 124 "^watchdog: no exit after 300000 cycles, PC=($nop_pc|$j_pc); $chip ERR_CODE=0 irq_o=0$" \
  -- --max-cycles 300000 "$elfs/hang.elf"
echo "test-soc: N=$dim: all $pass checks passed"
