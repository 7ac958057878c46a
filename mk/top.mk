# The two user-facing commands and the set-up they share.

.PHONY: deps demo test
deps: ## install missing Debian packages and numpy (run by demo and test)
	@./tools/install-deps.sh

# Every check CI runs, in order; the first failure stops the run.
TEST_STEPS ?= regs-check lint synth-check board-check formal test-unit test-sfu-ref test-tb test-block test-system test-nosfu test-lanes \
              test-uart sim-smoke \
              fuzz-short test-xrand sanitize soak fw-size

test: deps ## run every check (what CI runs) and print a one-line summary
	@./tools/run-tests.sh $(TEST_STEPS)

demo: deps ## build the N=8 model and run GEMMs through driver + firmware, checked bit-exact
	@$(MAKE) --no-print-directory sim DIM=8 sw
	@./tools/demo.sh $(BUILD)/bin/tessera
