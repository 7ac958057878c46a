# The two user-facing commands and the set-up they share.

.PHONY: deps demo test
deps: ## install missing Debian packages and the Python packages (numpy, gcovr; pytest, fusesoc, edalize, ai-edge-litert, flatbuffers, tflite-micro, scikit-learn, pythondata-cpu-picorv32 pinned) (run by demo and test)
	@./tools/install-deps.sh

# Every check CI runs. tools/run-tests.sh runs two steps at once (TEST_JOBS); a
# step written `step:first` starts only after `first` has passed. test-prebuild
# builds what the later steps share (the N = 4, 8, 16 models, the CLI, the
# system programs), so that no two steps ever build the same file at once.
# test-soc links the RV32IM objects fw-size builds, so it waits for fw-size.
# The long tails (the soak past its first minute, the slower proofs, the DMA
# sweep, coverage) are in test-full. The list starts with the longest steps.
TEST_STEPS ?= test-prebuild synth-check formal test-block \
              regs-check layers-check repo-check long-targets-check lint board-check fusesoc-check test-unit test-tflite \
              test-sfu-ref test-tb fw-size test-soc:fw-size \
              test-system:test-prebuild sanitize:test-prebuild fuzz-short:test-prebuild \
              test-xrand:test-prebuild test-uart:test-prebuild test-lanes:test-prebuild \
              test-nosfu:test-prebuild soak-short:test-prebuild sim-smoke:test-prebuild \
              test-readme:test-prebuild test-python:test-prebuild \
              test-net:test-prebuild test-net-luts test-net-bad test-net-mlperf:test-prebuild
TEST_FULL_STEPS ?= $(TEST_STEPS) soak:test-prebuild formal-full test-block-dma-sweep coverage

.PHONY: test-prebuild soak-short test-full
test-prebuild: ## build what the steps of make test share: the N = 4, 8, 16 models, the CLI, the system programs
	@for d in 4 8 16; do $(MAKE) --no-print-directory sim DIM=$$d || exit 1; done
	@$(MAKE) --no-print-directory sw system-bins $(SOAK_BIN)

soak-short: ## the soak's first minute (make test); make soak runs MINUTES (default 2), make test-full 10
	@$(MAKE) --no-print-directory soak MINUTES=1

test-full: deps ## make test plus the long tails: a 10-minute soak, formal-full, the DMA sweep, coverage
	@MINUTES=10 ./tools/run-tests.sh $(TEST_FULL_STEPS)

test: deps ## run every check (what CI runs) and print a one-line summary
	@./tools/run-tests.sh $(TEST_STEPS)

demo: deps ## build the N=8 model and run GEMMs through driver + firmware, checked bit-exact
	@$(MAKE) --no-print-directory sim DIM=8 sw
	@./tools/demo.sh $(BUILD)/bin/tessera

# Cheap checks of the build itself, so that a target nobody runs often cannot rot unseen.
.PHONY: repo-check
repo-check: ## check the build: every package a target names is installed by make deps; every system suite has its target
	@$(PYTHON) tools/deps_check.py
	@for s in $(SYS_SUITES); do \
	  $(MAKE) --no-print-directory -n test-system-$$s DIM=8 >/dev/null 2>&1 || \
	    { echo "repo-check: suite '$$s' of SYS_SUITES has no target test-system-$$s"; exit 1; }; \
	done; echo "repo-check: each of the $(words $(SYS_SUITES)) system suites has its test-system-<suite> target"
