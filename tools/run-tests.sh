#!/usr/bin/env bash
# run-tests.sh: what `make test` runs. Each step is a make target; the first
# failure stops the run. Ends with one summary line.
set -u
MAKE_CMD=${MAKE:-make}
steps=("$@")
start=$(date +%s)
passed=0
for step in "${steps[@]}"; do
  t0=$(date +%s)
  echo "==> $step"
  if ! $MAKE_CMD --no-print-directory "$step"; then
    echo "test: FAILED at '$step' after $passed of ${#steps[@]} steps passed ($(( $(date +%s) - start )) s)"
    exit 1
  fi
  passed=$((passed + 1))
  echo "<== $step ok ($(( $(date +%s) - t0 )) s)"
done
echo "test: PASSED all ${#steps[@]} steps (${steps[*]}) in $(( $(date +%s) - start )) s"
