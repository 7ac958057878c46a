# The two user-facing commands and the set-up they share.

.PHONY: deps demo test
deps: ## install missing Debian packages and numpy (run by demo and test)
	@./tools/install-deps.sh

# Every check CI runs, in order; the first failure stops the run.
TEST_STEPS ?= regs-check layers-check lint synth-check board-check formal test-unit test-sfu-ref test-tb test-block test-system test-nosfu test-lanes \
              test-uart sim-smoke \
              fuzz-short test-xrand sanitize soak fw-size

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
