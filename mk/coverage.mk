# mk/coverage.mk: how much of the RTL and of the C code the tests exercise.
#
#   make coverage      RTL line, branch and toggle coverage (Verilator) and C
#                      line and branch coverage of sw/ and fw/ (gcov + gcovr);
#                      report in build/coverage/, fails below the targets
#
# RTL: a copy of the N=8 model Verilated with --coverage-line --coverage-toggle
# ($(COV_BUILD)/lib, TB_COVERAGE=1 in mk/tb.mk) runs the system suites; every
# simulation writes its counts to $(COV_DAT) and tools/covreport.py merges them.
# C: the CLI, libtessera, unit tests and system suites rebuilt with --coverage
# into $(COVC_BUILD) (the areas' own rules honour BUILD and SAN), run against the
# normal model (the system suites, the CLI's numpy and SFU checks, the Python
# package on libtessera, test-net for the network compiler and runtime, one GEMM
# over the UART link; test-cli with its quick `tessera bench`, the only user of
# sw/lib/tsr_lib_bench.c), then gcovr over sw/ and fw/.
# It takes about 10 minutes on 2 cores (the toggle-instrumented model runs
# about 100 times slower than the normal one), so it is not part of make test.

COV_BUILD   := $(BUILD)/coverage
COV_DAT     := $(COV_BUILD)/dat
COV_DIM     := 8
COV_LIB_DIR := $(COV_BUILD)/lib
COVC_BUILD  := $(BUILD)/coverage-c
COVC_MAKE    = $(MAKE) --no-print-directory BUILD=$(COVC_BUILD) SAN=--coverage CFLAGS='-O0 -g'
COV_MIN_RTL_LINE  ?= 90
COV_MIN_C_LINE    ?= 85
COV_MIN_C_BRANCH  ?= 75
# Both runs use the system suites of mk/system.mk ($(SYS_SUITES)) with
# TSR_SEED=1; on the slow instrumented model the random GEMMs are fewer and
# the int32 wrap suite (K = 140000, long, no new lines) is left out.
# (:= reads SYS_SUITES now: the Makefile includes mk/system.mk before this file.
# `make long-targets-check` fails if this list, or any other long target's, is empty.)
COV_RTL_SUITES := $(filter-out wrap,$(SYS_SUITES))
# gcov counts are 64-bit, but gcovr takes any count above 2^32 for a corrupted
# one (SuspiciousHitsError). Ours are real: the planner's search calls its cost
# model billions of times (e.g. 7.7e9 hits on one line of max64 in a full run).
# The threshold stays on, 2^40 instead of 2^32, so that garbage counts (of
# concurrent writes to a .gcda, typically near 2^64) still stop the report.
COV_GCOVR_HITS_MAX := 1099511627776

.PHONY: coverage coverage-rtl coverage-c
coverage: coverage-rtl coverage-c ## RTL line/toggle and C line/branch coverage with targets (build/coverage/)
	@echo "coverage: reports in $(COV_BUILD)/rtl.md and $(COV_BUILD)/c.txt"

coverage-rtl: system-bins ## RTL coverage only (Verilator --coverage, N=8 system suites)
	@test -n "$(strip $(COV_RTL_SUITES))" || \
	  { echo "coverage-rtl: no suite to run: COV_RTL_SUITES is empty (SYS_SUITES = '$(SYS_SUITES)')"; exit 1; }
	@$(MAKE) --no-print-directory BUILD=$(COV_BUILD) DIM=$(COV_DIM) TB_COVERAGE=1 sim
	@rm -rf $(COV_DAT) && mkdir -p $(COV_DAT)
	@set -e; for s in $(COV_RTL_SUITES); do \
	  echo "== coverage-rtl: $$s"; \
	  TSR_SEED=1 TSR_SIM_COVERAGE_DIR=$(abspath $(COV_DAT)) TSR_SIM_LIB_DIR=$(COV_LIB_DIR) \
	    $(SYS_DIR)/test_sys_$$s --dim $(COV_DIM) $$(test $$s != gemm || echo --count 12) \
	    > $(COV_BUILD)/$$s.log 2>&1 \
	    || { tail -20 $(COV_BUILD)/$$s.log; echo "coverage-rtl: suite $$s failed"; exit 1; }; \
	done
	@set -o pipefail; $(PYTHON) tools/covreport.py --min-line $(COV_MIN_RTL_LINE) --out $(COV_BUILD)/rtl.md \
	  $(COV_DAT)/*.dat | tail -n 40

coverage-c: ## C coverage only (gcov/gcovr of sw/ and fw/ over unit, system and CLI tests)
	@command -v gcovr >/dev/null || { echo "coverage: gcovr not found: make deps (pip install gcovr)"; exit 1; }
	@$(MAKE) --no-print-directory sim uart-sim DIM=$(COV_DIM)
	@find $(COVC_BUILD) -name '*.gcda' -delete 2>/dev/null || true
	@$(COVC_MAKE) system-bins $(COVC_BUILD)/bin/tessera $(COVC_BUILD)/lib/libtessera.so >/dev/null
	@set -e; mkdir -p $(COV_BUILD); \
	  $(COVC_MAKE) test-unit > $(COV_BUILD)/c-unit.log 2>&1 || { tail $(COV_BUILD)/c-unit.log; exit 1; }; \
	  $(COVC_MAKE) test-cli > $(COV_BUILD)/c-cli.log 2>&1 || { tail $(COV_BUILD)/c-cli.log; exit 1; }; \
	  for s in $(SYS_SUITES); do \
	    TSR_SEED=1 TSR_SIM_LIB_DIR=$(BUILD)/lib $(COVC_BUILD)/tests/system/test_sys_$$s \
	      --dim $(COV_DIM) $$(test $$s != gemm || echo --count 40) \
	      > $(COV_BUILD)/c-$$s.log 2>&1 || { tail $(COV_BUILD)/c-$$s.log; exit 1; }; \
	  done; \
	  TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tests/system/test_numpy.py --tessera $(COVC_BUILD)/bin/tessera \
	    --dims $(COV_DIM) --tmp $(COVC_BUILD)/numpy > $(COV_BUILD)/c-numpy.log 2>&1 \
	    || { tail $(COV_BUILD)/c-numpy.log; exit 1; }; \
	  TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tests/system/test_sfu_cli.py --tessera $(COVC_BUILD)/bin/tessera \
	    --dims $(COV_DIM) --tmp $(COVC_BUILD)/sfu-cli > $(COV_BUILD)/c-sfu-cli.log 2>&1 \
	    || { tail $(COV_BUILD)/c-sfu-cli.log; exit 1; }; \
	  $(COVC_MAKE) test-python PY_TEST_DIMS=$(COV_DIM) > $(COV_BUILD)/c-python.log 2>&1 \
	    || { tail $(COV_BUILD)/c-python.log; exit 1; }; \
	  $(COVC_MAKE) test-net DIM=$(COV_DIM) CLI_SIM_LIB_DIR=$(abspath $(BUILD)/lib) > $(COV_BUILD)/c-net.log 2>&1 \
	    || { tail $(COV_BUILD)/c-net.log; exit 1; }; \
	  TSR_UART_LIB_DIR=$(BUILD)/uart/lib $(COVC_BUILD)/bin/tessera --hal uart-sim gemm --m 16 --k 16 --n 16 \
	    --check > $(COV_BUILD)/c-uart.log 2>&1 || { tail $(COV_BUILD)/c-uart.log; exit 1; }
	@gcovr -r . --filter 'sw/' --filter 'fw/' --object-directory $(COVC_BUILD) \
	  --gcov-suspicious-hits-threshold $(COV_GCOVR_HITS_MAX) \
	  --txt $(COV_BUILD)/c.txt --json-summary $(COV_BUILD)/c.json $(COVC_BUILD) >/dev/null
	@tail -n 25 $(COV_BUILD)/c.txt
	@$(PYTHON) -c 'import json, sys; s = json.load(open("$(COV_BUILD)/c.json")); \
	  l, b = s["line_percent"], s["branch_percent"]; \
	  print(f"coverage-c: sw/ + fw/ lines {l:.1f} %, branches {b:.1f} %"); \
	  bad = [f"lines {l:.1f} % < $(COV_MIN_C_LINE) %"] * (l < $(COV_MIN_C_LINE)) + \
	        [f"branches {b:.1f} % < $(COV_MIN_C_BRANCH) %"] * (b < $(COV_MIN_C_BRANCH)); \
	  sys.exit("coverage-c: below target: " + ", ".join(bad) if bad else 0)'
