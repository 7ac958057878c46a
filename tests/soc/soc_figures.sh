#!/usr/bin/env bash
# soc_figures.sh: the firmware's figures on the SoC (docs/performance.md, "The firmware on the SoC's core"): each job on the chip alone (--hal sim) and then on the SoC (--hal soc), back to back, one summary line each.
# Usage: tests/soc/soc_figures.sh <tessera> <N> <models dir> <out dir> JOB...
#   JOB is gemm:MxKxN or net:NAME, NAME.tflite in the models dir or in tests/net/models, its
#   input the first image of NAME_test_x.npy (digits_mlp: digits_test_x.npy) in the models dir.
#   Each run's output goes to <out dir>/<job>.{sim,soc}.out; the runs are checked bit for bit
#   (gemm --check, run --check) and the first failure exits 1. Minutes: it simulates the core's
#   planning (tens of millions of cycles for 256^3) at 0.2-1 M cycles/s.
set -u
tessera=$1 dim=$2 models=$3 out=$4
shift 4
mkdir -p "$out"

# One job on one backend: its output in $out/$tag.$hal.out (gemm: JSON with "core"; run: the
# text with its `core:` line, which run's JSON does not carry), its wall time in ms on stdout.
run() {
  local hal=$1 tag=$2; shift 2
  local t0 rc
  t0=$(date +%s%N)
  "$tessera" --hal "$hal" "$@" --dim "$dim" > "$out/$tag.$hal.out" 2> "$out/$tag.$hal.err"; rc=$?
  if [ "$rc" -ne 0 ]; then
    cat "$out/$tag.$hal.err" "$out/$tag.$hal.out"
    echo "soc-figures: FAIL: $tag on --hal $hal exited $rc" >&2
    exit 1
  fi
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

for job in "$@"; do
  case $job in
    gemm:*)
      shape=${job#gemm:}
      IFS=x read -r m k n <<<"$shape"
      tag=gemm_$shape
      args=(gemm --m "$m" --k "$k" --n "$n" --check --json)
      ;;
    net:*)
      name=${job#net:}
      model=$models/$name.tflite
      [ -f "$model" ] || model=tests/net/models/$name.tflite
      xs=$models/${name}_test_x.npy
      [ "$name" = digits_mlp ] && xs=$models/digits_test_x.npy
      tag=net_$name
      "$tessera" compile "$model" -o "$out/$name.tsr" --dim "$dim" > /dev/null || { echo "soc-figures: FAIL: compile $model" >&2; exit 1; }
      python3 -c "import sys, numpy as np; np.save(sys.argv[2], np.load(sys.argv[1])[0])" "$xs" "$out/$name.x0.npy" ||
        { echo "soc-figures: FAIL: no input from $xs" >&2; exit 1; }
      args=(run "$out/$name.tsr" --input "$out/$name.x0.npy" --check)
      ;;
    *) echo "soc_figures.sh: unknown job $job (gemm:MxKxN or net:NAME)" >&2; exit 2 ;;
  esac
  ms_sim=$(run sim "$tag" "${args[@]}") || exit 1
  ms_soc=$(run soc "$tag" "${args[@]}") || exit 1
  python3 - "$out/$tag.sim.out" "$out/$tag.soc.out" "$ms_sim" "$ms_soc" "$dim" "$job" <<'PY' || exit 1
import json, re, sys
ms_sim, ms_soc, dim, job = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6]
texts = [open(p).read() for p in sys.argv[1:3]]
if job.startswith("gemm:"):
    sim, soc = (json.loads(t) for t in texts)
    c = soc["core"]
    chip_sim = sim["cycles"]
    line = (f"planning {c['plan_cycles']} cycles ({c['plan_instructions']} instructions), "
            f"commands {c['run_cycles']} cycles ({c['run_instructions']} instructions); {c['commands']} commands, "
            f"{c['instructions_per_command']} instructions and {c['submit_cycles_per_command']} cycles each; "
            f"ring ahead: {'yes' if c['ring_ahead'] else 'no'}; {c['chip_irqs']} IRQs; chip on the SoC "
            f"{c['chip_cycles']} cycles, busy {c['chip_busy_cycles']}")
    soc_cycles = c["soc_cycles"]
else:
    chip_sim = int(re.search(r"cycles: (\d+)", texts[0]).group(1))
    core = re.search(r"core: .*", texts[1]).group(0)
    soc_cycles = int(re.search(r"(\d+) SoC cycles in all", core).group(1))
    line = core
print(f"soc-figures: N={dim} {job}: chip alone {chip_sim} cycles; on the SoC {line}; "
      f"{soc_cycles} SoC cycles in {ms_soc / 1000:.1f} s ({soc_cycles / (ms_soc / 1000):.0f} cycles/s)")
PY
done

# Simulation speed, chip alone against the SoC at the same N, back to back: 256^3 on the chip
# alone (a quarter of a million cycles, the array mostly busy) and the SoC on a 16x16x16 job
# (about a million cycles, the core mostly planning), each the JSON's cycles over the job's
# own wall time (no process start-up).
run sim speed gemm --m 256 --k 256 --n 256 --json > /dev/null || exit 1
run soc speed16 gemm --m 16 --k 16 --n 16 --json > /dev/null || exit 1
python3 - "$out/speed.sim.out" "$out/speed16.soc.out" "$dim" <<'PY' || exit 1
import json, sys
sim, soc = (json.load(open(p)) for p in sys.argv[1:3])
print(f"soc-figures: N={sys.argv[3]} simulation speed: chip alone (256^3) {sim['sim_cycles_per_second']:.0f} cycles/s, "
      f"SoC (16^3) {soc['sim_cycles_per_second']:.0f} cycles/s")
PY
