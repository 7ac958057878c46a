#!/usr/bin/env bash
# run-tests.sh: what `make test` runs. Each step is a make target; up to
# TEST_JOBS steps (default: the number of cores) run at once, each with its
# output in $BUILD/test-logs/<step>.log, printed whole when the step ends.
#
# A step may name steps it needs first: `test-system:sim-d4,sim-d8`. A step
# starts when a slot is free and every step it needs has passed; the first
# startable step of the list goes first, so list the long ones early. The
# first failure stops the run (the steps still running are killed) and prints
# that step's log. The run ends with every step's time, the total, and one
# summary line.
set -u
MAKE_CMD=${MAKE:-make}
BUILD_DIR=${BUILD:-build}
JOBS=${TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
LOG_DIR=$BUILD_DIR/test-logs
mkdir -p "$LOG_DIR"

names=(); needs=()
for spec in "$@"; do
  names+=("${spec%%:*}")
  if [[ $spec == *:* ]]; then needs+=("${spec#*:}"); else needs+=(""); fi
done
n=${#names[@]}
for ((i = 0; i < n; i++)); do
  for d in ${needs[i]//,/ }; do
    found=0
    for ((j = 0; j < i; j++)); do [ "${names[j]}" = "$d" ] && found=1; done
    if [ $found -eq 0 ]; then
      echo "test: step '${names[i]}' needs '$d', which is not an earlier step"; exit 2
    fi
  done
done

# state[i]: wait, run, ok
declare -a state pid t0 secs
for ((i = 0; i < n; i++)); do state[i]=wait; done
start=$(date +%s)
running=0; passed=0

kill_all() {
  for ((k = 0; k < n; k++)); do
    if [ "${state[k]}" = run ]; then kill -TERM -- "-${pid[k]}" 2>/dev/null; fi
  done
  wait 2>/dev/null
}
trap 'kill_all; echo "test: interrupted"; exit 130' INT TERM

ready() { # $1: index; true when every step it needs has passed
  local d k
  for d in ${needs[$1]//,/ }; do
    for ((k = 0; k < n; k++)); do
      if [ "${names[k]}" = "$d" ] && [ "${state[k]}" != ok ]; then return 1; fi
    done
  done
  return 0
}

launch() {
  local i=$1 log=$LOG_DIR/${names[$1]}.log
  rm -f "$log.rc"
  setsid bash -c "$MAKE_CMD --no-print-directory ${names[i]} > '$log' 2>&1; echo \$? > '$log.rc'" &
  pid[i]=$!; t0[i]=$(date +%s); state[i]=run; running=$((running + 1))
  echo "--> ${names[i]} started ($running running)"
}

while :; do
  # Start what can start.
  for ((i = 0; i < n && running < JOBS; i++)); do
    if [ "${state[i]}" = wait ] && ready "$i"; then launch "$i"; fi
  done
  if [ $running -eq 0 ]; then break; fi
  wait -n 2>/dev/null
  # Collect every step that has ended.
  for ((i = 0; i < n; i++)); do
    [ "${state[i]}" = run ] || continue
    log=$LOG_DIR/${names[i]}.log
    [ -f "$log.rc" ] || continue
    wait "${pid[i]}" 2>/dev/null
    rc=$(cat "$log.rc"); running=$((running - 1)); secs[i]=$(( $(date +%s) - t0[i] ))
    echo "==> ${names[i]}"
    cat "$log"
    if [ "$rc" -ne 0 ]; then
      state[i]=failed
      kill_all
      echo "test: FAILED at '${names[i]}' after $passed of $n steps passed ($(( $(date +%s) - start )) s; log: $log)"
      echo "test: $passed passed, 1 failed"
      exit 1
    fi
    state[i]=ok; passed=$((passed + 1))
    echo "<== ${names[i]} ok (${secs[i]} s)"
  done
done

total=$(( $(date +%s) - start ))
echo "test: time per step ($JOBS at once):"
for ((i = 0; i < n; i++)); do printf '  %-22s %5d s\n' "${names[i]}" "${secs[i]}"; done
echo "test: PASSED all $n steps in $total s"
echo "test: $passed passed, 0 failed"
