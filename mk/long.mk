# mk/long.mk: a cheap guard for the long targets, which `make test` does not run.
#
#   make long-targets-check   for each long target, print what it will run (suites, array
#                             sizes, seeds, proofs, minutes...) as its recipe will see it,
#                             and fail if any of those lists is empty (or 0); reads
#                             variables only and runs nothing, so it takes well under a second
#
# Why: a target that runs nothing passes. mk/coverage.mk once set COV_RTL_SUITES with
# := while mk/system.mk, which sets SYS_SUITES, was read after it: coverage-rtl ran no
# suite and only the report script's crash showed it. (`make -n` cannot be the check:
# make runs a recipe line that calls $(MAKE) even under -n, and in coverage-c and
# test-system that line runs the suites.)
#
# Each long target lists the variables its recipe loops over, by name. Adding a long
# target, or renaming one of these variables, means one line here; a name left stale
# reads as empty and fails the check, it does not pass silently.

LONG_TARGETS := coverage-rtl coverage-c test-system test-lanes test-xrand test-block \
                test-block-dma-sweep formal formal-full synth-all gate-sim bench bench-sim \
                fuzz soak net-vela soc-figures test
long_vars_coverage-rtl         := COV_RTL_SUITES
long_vars_coverage-c           := SYS_SUITES
long_vars_test-system          := SYS_DIMS SYS_SUITES
long_vars_test-lanes           := LANES_SUITES
long_vars_test-xrand           := XR_SEEDS
long_vars_test-block           := BLOCK_TESTS
long_vars_test-block-dma-sweep := DMA_SWEEP
long_vars_formal               := FORMAL_PROOFS
long_vars_formal-full          := FORMAL_FULL_PROOFS
long_vars_synth-all            := SYNTH_SWEEP
long_vars_gate-sim             := GATE_GEMMS GATE_SFU
long_vars_bench                := BENCH_DIMS
long_vars_bench-sim            := BENCH_SIM_DIMS
long_vars_net-vela             := VELA_DIMS
long_vars_soc-figures          := SOC_FIG_DIM SOC_FIG_JOBS
long_vars_fuzz                 := FUZZ_CHIP_SECONDS FUZZ_LIBFUZZER_SECONDS
long_vars_soak                 := MINUTES
long_vars_test                 := TEST_STEPS

# One shell step: target $(1), variable $(2). Long lists print their first 8 words.
long_show = $(wordlist 1,8,$(1))$(if $(word 9,$(1)), ...)
long_one = v='$(strip $($(2)))'; \
  if [ -z "$$v" ] || [ "$$v" = 0 ]; then \
    echo "long-targets-check: FAIL: $(1) would run nothing: $(2) is empty"; fail=1; \
  else printf '  %-21s %-22s %3d: %s\n' '$(1)' '$(2)' $(words $($(2))) '$(call long_show,$(strip $($(2))))'; fi;

.PHONY: long-targets-check
long-targets-check: ## check that no long target (coverage, bench, fuzz, soak, test-system...) would run an empty list of suites
	@fail=0; \
	  $(foreach t,$(LONG_TARGETS),$(if $(long_vars_$(t)),$(foreach v,$(long_vars_$(t)),$(call long_one,$(t),$(v))),\
	    echo "long-targets-check: FAIL: $(t) has no long_vars_$(t) in mk/long.mk"; fail=1;)) \
	  if [ $$fail -ne 0 ]; then exit 1; fi; \
	  echo "long-targets-check: PASSED: $(words $(LONG_TARGETS)) long targets, none would run an empty list"
