# mk/trust.mk: reset and X robustness, sanitizers and soak (issue 6, items 3, 6 and 8).
#
#   make test-xrand          the system tests on a model Verilated with --x-assign unique
#                            --x-initial unique, once per seed of XR_SEEDS, every un-reset
#                            register and memory starting from random bits
#                            (+verilator+seed+S +verilator+rand+reset+2)
#   make sanitize            every C test (unit, bench, system, CLI) built with
#                            -fsanitize=address,undefined into build/san and run
#   make soak MINUTES=30     random jobs, stalls, soft and hard resets and injected errors
#                            for MINUTES minutes; counts at the end (tests/system/soak.c)
#
# The X-randomized library lives in its own tree, $(XR_BUILD)/lib/libtsrsim_d<N>.so,
# so it never replaces the normal one; the test programs are the normal ones,
# pointed at it with TSR_SIM_LIB_DIR. Plusargs reach the model through
# TSR_SIM_PLUSARGS (tb/tsr_sim.h).

XR_BUILD     := $(BUILD)/xrand
XR_DIM       ?= 8
XR_SEEDS     ?= 1 77 4242
XR_GEMMS     ?= 30
# Wall-clock limit of one suite run: a register escaping reset can also hang a
# job, and the suites' own watchdog (400M cycles) would take many minutes.
XR_TIMEOUT   ?= 300
XR_XFLAGS    := --x-assign unique --x-initial unique
XR_LIB       := $(XR_BUILD)/lib/libtsrsim_d$(XR_DIM).so
xr_plusargs   = +verilator+seed+$(1) +verilator+rand+reset+2
xr_env        = TSR_SIM_LIB_DIR=$(XR_BUILD)/lib TSR_SIM_PLUSARGS='$(call xr_plusargs,$(1))'

.PHONY: xrand-sim test-xrand
xrand-sim: ## build the X-randomized model (--x-assign/--x-initial unique) in build/xrand/lib
	@$(MAKE) --no-print-directory BUILD=$(XR_BUILD) DIM=$(XR_DIM) TB_XFLAGS='$(XR_XFLAGS)' sim

test-xrand: xrand-sim ## system tests on the X-randomized model with seeds XR_SEEDS (gemm, errors, reset, counters, directed)
	@$(MAKE) --no-print-directory system-bins $(SYS_DIR)/xrand_probe
	@set -u; start=$$(date +%s); hashes=""; \
	  for s in $(XR_SEEDS) $(firstword $(XR_SEEDS)); do \
	    out=$$(TSR_SIM_LIB_DIR=$(XR_BUILD)/lib TSR_SIM_PLUSARGS="$(call xr_plusargs,$$s)" \
	      $(SYS_DIR)/xrand_probe --dim $(XR_DIM)) || { echo "test-xrand: FAILED: xrand_probe seed $$s"; exit 1; }; \
	    echo "  seed $$s: $$out"; \
	    hashes="$$hashes $$(echo "$$out" | sed -n 's/.*hash \([0-9a-f]*\), \([0-9]*\) of.*/\1:\2/p')"; \
	  done; \
	  set -- $$hashes; first=$$1; \
	  uniq=$$(printf '%s\n' $$hashes | sort -u | wc -l); \
	  if [ "$$uniq" != "$(words $(XR_SEEDS))" ] || [ "$${first#*:}" = 0 ] || [ "$$first" != "$${@: -1}" ]; then \
	    echo "test-xrand: FAILED: the seeds do not set the power-up state (hash:non-zero bytes per seed, first seed repeated:$$hashes)"; exit 1; fi; \
	  echo "test-xrand: $(words $(XR_SEEDS)) seeds give $(words $(XR_SEEDS)) different power-up states; the same seed gives the same one"; \
	  for s in $(XR_SEEDS); do \
	    pa="$(call xr_plusargs,$$s)"; \
	    echo "== test-xrand: seed $$s ($$pa)"; \
	    for t in "gemm --count $(XR_GEMMS) --mixed --base-seed $$s" "errors --seed $$s" "reset --seed $$s" \
	             "counters --seed $$s" "directed --seed $$s"; do \
	      set -- $$t; suite=$$1; shift; \
	      TSR_SIM_LIB_DIR=$(XR_BUILD)/lib TSR_SIM_PLUSARGS="$$pa" \
	        timeout $(XR_TIMEOUT) $(SYS_DIR)/test_sys_$$suite --dim $(XR_DIM) "$$@" \
	        || { echo "test-xrand: FAILED: $$suite with $$pa (exit $$?; 124: hung past $(XR_TIMEOUT) s)"; exit 1; }; \
	    done; \
	  done; \
	  echo "test-xrand: PASSED for seeds $(XR_SEEDS) (N=$(XR_DIM)) in $$(( $$(date +%s) - start )) s"

# ---- soak ----------------------------------------------------------------------------------

MINUTES      ?= 2
SOAK_DIM     ?= 8
SOAK_ARGS    ?=
SOAK_BIN     := $(SYS_DIR)/soak

$(SOAK_BIN): $(SYS_OBJ_DIR)/tests/system/soak.o $(SYS_LIB_OBJS)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ -ldl -lm

.PHONY: soak
soak: ## random jobs, stalls, mid-job hard/soft resets and injected errors for MINUTES (default 2) minutes on DIM=SOAK_DIM
	@$(MAKE) --no-print-directory sim DIM=$(SOAK_DIM)
	@$(MAKE) --no-print-directory $(SOAK_BIN)
	TSR_SIM_LIB_DIR=$(BUILD)/lib $(SOAK_BIN) --dim $(SOAK_DIM) --minutes $(MINUTES) $(SOAK_ARGS)

$(SYS_DIR)/xrand_probe: $(SYS_OBJ_DIR)/tests/system/xrand_probe.o $(SYS_LIB_OBJS)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ -ldl -lm

# ---- sanitizers ----------------------------------------------------------------------------
#
# Everything C is rebuilt with SAN_FLAGS into $(SAN_BUILD) by the areas' own
# rules (they honour BUILD and SAN): the unit tests, the bench's tests
# (memory model, smoke), the system suites, the soak and the CLI. The
# Verilated model stays the normal, uninstrumented build/lib/libtsrsim_d<N>.so:
# ASan in the program and not in a dlopen'ed library is supported (the
# library's allocations are simply not checked), so nothing is Verilated twice.
# Any report fails the run: halt_on_error for UBSan, leaks included for ASan.

SAN_BUILD   := $(BUILD)/san
SAN_FLAGS   := -fsanitize=address,undefined -fno-omit-frame-pointer
SAN_DIM     ?= 8
SAN_ENV     := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1 \
               UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
SAN_SYS     := $(SAN_BUILD)/tests/system
SAN_MAKE     = $(MAKE) --no-print-directory BUILD=$(SAN_BUILD) SAN='$(SAN_FLAGS)'
san_run      = $(SAN_ENV) TSR_SIM_LIB_DIR=$(BUILD)/lib

# One timed step of a recipe: $(1) name, $(2) command; stops the recipe on failure.
trust_step = echo "== $(1)"; t0=$$(date +%s%N); \
  $(2) || { echo "sanitize: FAILED: $(1)"; exit 1; }; \
  ms=$$(( ($$(date +%s%N) - t0) / 1000000 )); \
  times="$$times$$(printf '\n  %-22s %4d.%02d s' '$(1)' $$((ms / 1000)) $$((ms % 1000 / 10)))";

.PHONY: sanitize
sanitize: ## every C test (unit, bench, system suites, soak, CLI) under AddressSanitizer + UBSan (build/san)
	@$(MAKE) --no-print-directory sim DIM=$(SAN_DIM)
	@$(SAN_MAKE) system-bins $(SAN_SYS)/soak $(SAN_BUILD)/tests/tb/smoke_sim \
	  $(SAN_BUILD)/tests/tb/test_tb_memmodel $(SAN_BUILD)/bin/tessera
	@set -u; start=$$(date +%s); times=""; \
	  $(call trust_step,unit,$(SAN_MAKE) test-unit) \
	  $(call trust_step,tb memmodel,$(san_run) $(SAN_BUILD)/tests/tb/test_tb_memmodel) \
	  $(call trust_step,tb smoke,$(san_run) $(SAN_BUILD)/tests/tb/smoke_sim $(BUILD)/lib/libtsrsim_d$(SAN_DIM).so) \
	  $(call trust_step,gemm,$(san_run) $(SAN_SYS)/test_sys_gemm --dim $(SAN_DIM) --count 20 --mixed) \
	  $(foreach s,errors wrap counters directed reset,$(call trust_step,$(s),$(san_run) $(SAN_SYS)/test_sys_$(s) --dim $(SAN_DIM))) \
	  $(call trust_step,soak 20 sessions,$(san_run) $(SAN_SYS)/soak --dim $(SAN_DIM) --sessions 20) \
	  $(call trust_step,cli errors,$(SAN_ENV) $(SAN_MAKE) test-cli CLI_BENCH=0) \
	  $(call trust_step,cli gemm,$(san_run) $(SAN_BUILD)/bin/tessera gemm --dim $(SAN_DIM) --m 37 --k 129 --n 61 --seed 7 --check) \
	  echo "sanitize: time per step:$$times"; \
	  echo "sanitize: PASSED: every C test under ASan+UBSan in $$(( $$(date +%s) - start )) s"
