# mk/system.mk: whole-chip system tests: Verilated RTL + C bench + driver + firmware vs the golden model.
#
#   make test-system                 every suite below for N = 4, 8 and 16 (builds what it needs)
#   make test-system SYS_DIMS=8      one array size
#   make test-system-gemm DIM=8      one suite for one size: test-system-<suite> for every suite of
#                                    SYS_SUITES, plus -numpy and -sfu-cli
#   make test-system-cli-asan        `make test-cli` against an ASan+UBSan build of the CLI
#   TSR_SEED=<n> make test-system    replay a run (every suite prints the seed it used)
#
# Suites (tests/system/, one program per suite, built with the house flags,
# linking sw/ + fw/ and loading build/lib/libtsrsim_d<N>.so with dlopen):
#   test_sys_gemm      SYS_GEMM_COUNT_<N> random GEMMs, bit-exact, memory outside C unchanged;
#                      replay one case: build/tests/system/test_sys_gemm --dim 8 --seed S
#   test_sys_errors    every ERR_CODE provoked on purpose: registers, IRQ, W1C, memory, soft
#                      reset and a GEMM afterwards; soft reset in the middle of a LOAD, a STORE
#                      and a partial command; unmapped registers answer SLVERR
#   test_sys_wrap      int32 accumulation wrap (K = 140000)
#   test_sys_counters  CNT_* after a GEMM and after directed commands; clear; soft reset
#   test_sys_directed  what the firmware does not use: KEEP_WEIGHTS, LOAD chunking and zero
#                      fill for both destinations, FENCE/DONE interrupts
#   test_sys_sfu       every SFU function on random tensors with memory stalls, bit-exact
#                      against the golden model; bad parameters, FUNC and ranges
#   test_sys_reset     hard reset (rst_ni) and soft reset at random cycles of random jobs: bus
#                      quiet, chip idle, nothing outside C written, the next job bit-exact
#   test_sys_ring      the command ring: random GEMMs fetched from memory bit-exact, each fetch
#                      error (FETCH_BUS, RING_WINDOW, RING_ALIGN, RING_TAIL, malformed command)
#                      with its address and a recovery, IRQ_CMD and DONE, appends while running
#   test_numpy.py      CLI results against numpy's matmul and requantization written in numpy
#   test_sfu_cli.py    the SFU commands of the CLI (sfu, softmax, layernorm, add, reduce, gemm
#                      --act/--leaky): --check against the golden model, and numpy where exact
#   cli-asan           the CLI error cases of `make test-cli` under ASan+UBSan
# SYS_ARGS adds options to the C suites of the per-suite targets, e.g.
#   make test-system-gemm DIM=4 SYS_ARGS='--count 20 --verbose'

SYS_DIMS        ?= 4 8 16
SYS_DIR         := $(BUILD)/tests/system
SYS_OBJ_DIR     := $(SYS_DIR)/obj
SYS_CFLAGS       = $(CSTD) $(CWARN) $(CFLAGS) $(SAN) $(INCS)
SYS_LIB_SRCS    := tests/system/sys_util.c tests/system/sys_reset.c sw/hal/tsr_hal.c sw/hal/tsr_hal_sim.c sw/driver/tsr_driver.c sw/driver/tsr_ring.c \
                   $(FW_SRCS) sw/golden/tsr_golden.c sw/driver/tsr_quant.c sw/golden/tsr_sfu_golden.c \
                   sw/lib/tsr_sfu_prep.c sw/golden/tsr_golden_params.c
SYS_LIB_OBJS    := $(patsubst %.c,$(SYS_OBJ_DIR)/%.o,$(SYS_LIB_SRCS))
SYS_SUITES      := gemm errors wrap counters directed reset busfault sfu perf ring
SYS_CMOCKA      := errors wrap counters directed reset busfault nosfu ring
SYS_BINS        := $(patsubst %,$(SYS_DIR)/test_sys_%,$(SYS_SUITES))
SYS_ARGS        ?=
SYS_GEMM_COUNT_4  ?= 200
SYS_GEMM_COUNT_8  ?= 200
SYS_GEMM_COUNT_16 ?= 40
SYS_ASAN_BUILD  := $(BUILD)/asan
SYS_ASAN_FLAGS  := -fsanitize=address,undefined -fno-omit-frame-pointer
# Any sanitizer report makes a CLI case print more than its one line (and exit non-zero).
SYS_ASAN_ENV    := ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

sys_comma := ,
sys_space := $(subst ,, )

# The command of suite $(1) for array size $(2).
sys_cmd = TSR_SIM_LIB_DIR=$(BUILD)/lib $(SYS_DIR)/test_sys_$(1) --dim $(2) \
  $(if $(filter gemm,$(1)),--count $(SYS_GEMM_COUNT_$(2)))
sys_numpy_cmd = $(PYTHON) tests/system/test_numpy.py --tessera $(SW_BIN) \
  --dims $(subst $(sys_space),$(sys_comma),$(strip $(1))) --tmp $(SYS_DIR)/numpy
sys_sfu_cli_cmd = $(PYTHON) tests/system/test_sfu_cli.py --tessera $(SW_BIN) \
  --dims $(subst $(sys_space),$(sys_comma),$(strip $(1))) --tmp $(SYS_DIR)/sfu-cli
sys_asan_cmd = $(SYS_ASAN_ENV) $(MAKE) --no-print-directory BUILD=$(SYS_ASAN_BUILD) \
  SAN='$(SYS_ASAN_FLAGS)' test-cli

# One timed step of a recipe: $(1) name, $(2) command; stops the recipe on failure.
sys_step = echo "== $(1)"; t0=$$(date +%s%N); \
  $(2) || { echo "test-system: FAILED: $(1)"; exit 1; }; \
  ms=$$(( ($$(date +%s%N) - t0) / 1000000 )); \
  times="$$times$$(printf '\n  %-22s %4d.%02d s' '$(1)' $$((ms / 1000)) $$((ms % 1000 / 10)))";

# ---- build ---------------------------------------------------------------------------------

# Rebuild when the flags change.
SYS_FLAGS_FILE := $(SYS_OBJ_DIR)/flags.txt
$(SYS_FLAGS_FILE): sys-flags-force
	@mkdir -p $(@D)
	@echo '$(SYS_CFLAGS)' | cmp -s - $@ || echo '$(SYS_CFLAGS)' > $@

.PHONY: sys-flags-force
sys-flags-force:

# One line naming the package when cmocka is missing.
$(SYS_DIR)/cmocka.ok:
	@mkdir -p $(@D)
	@printf '#include <stdarg.h>\n#include <stddef.h>\n#include <stdint.h>\n#include <setjmp.h>\n#include <cmocka.h>\n' \
	  | $(CC) -E -x c - -o /dev/null 2>/dev/null \
	  || { echo "test-system: cmocka headers not found: install libcmocka-dev (apt-get install libcmocka-dev)"; exit 1; }
	@touch $@

$(SYS_OBJ_DIR)/%.o: %.c $(SYS_FLAGS_FILE) | $(SYS_DIR)/cmocka.ok
	@mkdir -p $(@D)
	$(CC) $(SYS_CFLAGS) -MMD -MP -c $< -o $@

.PRECIOUS: $(SYS_OBJ_DIR)/%.o

$(SYS_DIR)/test_sys_%: $(SYS_OBJ_DIR)/tests/system/test_sys_%.o $(SYS_LIB_OBJS)
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ $(if $(filter $*,$(SYS_CMOCKA)),-lcmocka) -ldl -lm

.PHONY: system-bins
system-bins: $(SYS_BINS) ## build the system test programs (build/tests/system/)

-include $(shell find $(SYS_OBJ_DIR) -name '*.d' 2>/dev/null)

# ---- run -----------------------------------------------------------------------------------

SYS_NEED_NUMPY = @$(PYTHON) -c 'import numpy' 2>/dev/null || \
  { echo "test-system: numpy not found: pip install numpy (or apt-get install python3-numpy)"; exit 1; }

.PHONY: test-system test-system-suites test-system-numpy test-system-sfu-cli test-system-cli-asan

test-system: ## whole-chip tests on the Verilated RTL for N = 4, 8, 16 (SYS_DIMS): GEMMs, errors, wrap, counters, directed, numpy, CLI under ASan
	$(SYS_NEED_NUMPY)
	@for d in $(SYS_DIMS); do $(MAKE) --no-print-directory sim DIM=$$d || exit 1; done
	@$(MAKE) --no-print-directory sw system-bins
	@set -u; start=$$(date +%s); times=""; \
	  $(foreach d,$(SYS_DIMS),$(foreach s,$(SYS_SUITES),$(call sys_step,$(s) N=$(d),$(call sys_cmd,$(s),$(d)) $(SYS_ARGS)))) \
	  $(call sys_step,numpy N=$(subst $(sys_space),$(sys_comma),$(strip $(SYS_DIMS))),$(call sys_numpy_cmd,$(SYS_DIMS))) \
	  $(call sys_step,sfu-cli N=$(subst $(sys_space),$(sys_comma),$(strip $(SYS_DIMS))),$(call sys_sfu_cli_cmd,$(SYS_DIMS))) \
	  $(call sys_step,cli-asan,$(sys_asan_cmd)) \
	  echo "test-system: time per step:$$times"; \
	  echo "test-system: PASSED for N = $(SYS_DIMS) in $$(( $$(date +%s) - start )) s"

# One suite, one array size (DIM): test-system-<suite> for every suite of SYS_SUITES
# (gemm errors wrap counters directed reset busfault sfu perf), e.g.
#   make test-system-gemm DIM=4 SYS_ARGS='--count C --seed S ...'
SYS_ONE = $(BUILD)/lib/libtsrsim_d$(DIM).so
SYS_SUITE_TARGETS := $(addprefix test-system-,$(SYS_SUITES))
.PHONY: $(SYS_SUITE_TARGETS)
$(SYS_SUITE_TARGETS): test-system-%: $(SYS_ONE) $(SYS_DIR)/test_sys_%
	$(call sys_cmd,$*,$(DIM)) $(SYS_ARGS)
test-system-suites: ## list the suites that have a test-system-<suite> target (one line)
	@echo "test-system-suites: $(SYS_SUITES)"
test-system-numpy: $(SYS_ONE) $(SW_BIN) ## tessera CLI on the DIM=N model against numpy
	$(SYS_NEED_NUMPY)
	$(call sys_numpy_cmd,$(DIM))
test-system-sfu-cli: $(SYS_ONE) $(SW_BIN) ## the CLI's SFU commands on the DIM=N model against the golden model and numpy
	$(SYS_NEED_NUMPY)
	$(call sys_sfu_cli_cmd,$(DIM))
test-system-cli-asan: ## the CLI error cases of test-cli against an ASan+UBSan build of the CLI (build/asan)
	$(sys_asan_cmd)

# ---- shared output-stage lanes --------------------------------------------------------------
#
# make test-lanes: tsr_top with StoreLanes < N (the ECP5 N = 16 build shares 4 lanes, docs/fpga.md),
# Verilated into its own tree. Each stored row passes the lanes in N / StoreLanes chunks. The
# random GEMMs (per-channel, leaky, table, raw int32), the error cases, the directed commands,
# the SFU (its SPAD stores) and the cost model (test_sys_perf) run on it unchanged.
LANES_BUILD := $(BUILD)/lanes
LANES_DIM   ?= 8
LANES_N     ?= 2
LANES_SUITES ?= gemm errors directed sfu perf
lanes_cmd = TSR_SIM_LIB_DIR=$(LANES_BUILD)/lib $(SYS_DIR)/test_sys_$(1) --dim $(LANES_DIM) \
  $(if $(filter gemm,$(1)),--count $(SYS_GEMM_COUNT_$(LANES_DIM)))

.PHONY: lanes-sim test-lanes
lanes-sim: ## build the model with StoreLanes=LANES_N at N=LANES_DIM in build/lanes/lib
	@$(MAKE) --no-print-directory BUILD=$(LANES_BUILD) DIM=$(LANES_DIM) \
	  TB_PARAMS='-GArrayDim=$(LANES_DIM) -GStoreLanes=$(LANES_N)' sim

test-lanes: lanes-sim $(patsubst %,$(SYS_DIR)/test_sys_%,$(LANES_SUITES)) ## the system suites on a chip with StoreLanes < N (default N=8, 2 lanes)
	@set -e; $(foreach t,$(LANES_SUITES),$(call lanes_cmd,$(t)) $(SYS_ARGS);)
	@echo "test-lanes: PASSED (N=$(LANES_DIM), StoreLanes=$(LANES_N): $(LANES_SUITES))"

# ---- a chip without the SFU ------------------------------------------------------------------
#
# make test-nosfu: tsr_top with EnableSfu = 0 (the small-FPGA build, docs/fpga.md), Verilated
# into its own tree so build/lib keeps the full chip. tests/system/test_sys_nosfu.c: CONFIG.SFU
# = 0, NO_UNIT for every SFU command and a STORE through the table, TSR_UNSUPPORTED from the
# driver and firmware, random GEMMs bit-exact; then the CLI's one-line refusal.
NOSFU_BUILD := $(BUILD)/nosfu
NOSFU_DIM   ?= 4
NOSFU_LIB   := $(NOSFU_BUILD)/lib/libtsrsim_d$(NOSFU_DIM).so

.PHONY: nosfu-sim test-nosfu
nosfu-sim: ## build the model without the SFU (EnableSfu=0) in build/nosfu/lib
	@$(MAKE) --no-print-directory BUILD=$(NOSFU_BUILD) DIM=$(NOSFU_DIM) \
	  TB_PARAMS='-GArrayDim=$(NOSFU_DIM) -GEnableSfu=0' sim

NOSFU_CLI := $(NOSFU_BUILD)/cli
nosfu_tessera = TSR_SIM_LIB_DIR=$(NOSFU_BUILD)/lib $(SW_BIN) $(1) --dim $(NOSFU_DIM)

test-nosfu: nosfu-sim $(SYS_DIR)/test_sys_nosfu $(SW_BIN) ## a chip built without the SFU: NO_UNIT errors, driver refusals, GEMMs bit-exact, CLI refusals
	$(SYS_NEED_NUMPY)
	TSR_SIM_LIB_DIR=$(NOSFU_BUILD)/lib $(SYS_DIR)/test_sys_nosfu --dim $(NOSFU_DIM) $(SYS_ARGS)
	@mkdir -p $(NOSFU_CLI)
	@$(PYTHON) -c 'import numpy as np; r = np.random.default_rng(1); \
	  [np.save("$(NOSFU_CLI)/" + n, r.integers(-128, 128, s, dtype=np.int8)) for n, s in (("x", (2, 8)), ("a", (8, 8)), ("b", (8, 8)))]'
	@set -u; info=$$($(call nosfu_tessera,info) --json) || exit 1; \
	  printf '%s' "$$info" | grep -q '"sfu": false' || { echo "test-nosfu: FAILED: tessera info --json: $$info"; exit 1; }; \
	  echo "  tessera info: \"sfu\": false"; \
	  for args in "softmax --in $(NOSFU_CLI)/x.npy --in-scale 0.1" \
	              "gemm --a $(NOSFU_CLI)/a.npy --b $(NOSFU_CLI)/b.npy --mult 1073741824 --shift 8 --act sigmoid --out-scale 0.05"; do \
	    out=$$($(call nosfu_tessera,$$args) 2>&1); rc=$$?; \
	    if [ $$rc -eq 0 ] || ! printf '%s' "$$out" | grep -q 'built without'; then \
	      echo "test-nosfu: FAILED: tessera $$args: exit $$rc, expected a refusal naming the missing SFU: $$out"; exit 1; fi; \
	    echo "  tessera $${args%% *}: exit $$rc: $$out"; \
	  done
	@echo "test-nosfu: PASSED (N=$(NOSFU_DIM), EnableSfu=0)"
