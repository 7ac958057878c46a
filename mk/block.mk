# mk/block.mk: RTL block tests (one self-checking Verilog test bench per block).
#
# A block test is tests/block/tsr_<name>_tb.v holding `module tsr_<name>_tb`.
# It prints PASS, or FAIL and ends with $fatal (non-zero exit). To add one:
#
#   BLOCK_TESTS     += foo                          # runs tests/block/tsr_foo_tb.v
#   BLOCK_RTL_foo   := rtl/tsr_foo.v rtl/tsr_sram.v # RTL it needs (default: all RTL_SRCS)
#
# `make test-block` runs them all; `make test-block-foo` runs one.
# BLOCK_SIM=iverilog uses Icarus (iverilog -g2012) instead of Verilator.
# BLOCK_ARGS passes plusargs, e.g. BLOCK_ARGS='+seed=7 +trace=build/block/regs.vcd'.
# Benches include their checks, random numbers and shared models from tests/block/*.vh
# (tsr_tb_check.vh, tsr_tb_prng.vh, ...: BLOCK_INCS). BLOCK_DPI_foo: objects or archives linked into the Verilator
# build (a DPI-C reference model); add them as prerequisites of $(BUILD)/block/foo/verilator/Vtb.

BLOCK_TESTS += regs
BLOCK_RTL_regs := rtl/regs/tsr_regs.v

BLOCK_INCS := $(wildcard tests/block/*.vh)
BLOCK_SIM  ?= verilator
BLOCK_ARGS ?=
BLOCK_DIR  := $(BUILD)/block
VERILATOR  ?= verilator
IVERILOG   ?= iverilog
VVP        ?= vvp

# RTL for a block test: its BLOCK_RTL_<name>, else every RTL source.
block_rtl = $(or $(BLOCK_RTL_$(1)),$(RTL_SRCS))

.PHONY: test-block
test-block: $(addprefix test-block-,$(BLOCK_TESTS)) ## run every RTL block test (BLOCK_SIM=verilator|iverilog)
	@echo "test-block: PASS ($(words $(BLOCK_TESTS)) blocks: $(BLOCK_TESTS))"

# Build rules depend on all RTL and the test bench, so any edit rebuilds.
# (A pattern rule replaces only one %, hence <name>/<sim>/ directories.)
.PRECIOUS: $(BLOCK_DIR)/%/verilator/Vtb $(BLOCK_DIR)/%/iverilog/tb.vvp

$(BLOCK_DIR)/%/verilator/Vtb: tests/block/tsr_%_tb.v $(RTL_SRCS) $(RTL_INCS) $(BLOCK_INCS)
	@command -v $(VERILATOR) >/dev/null || { echo "block: $(VERILATOR) not found: apt-get install verilator (>= 5.006)"; exit 1; }
	@mkdir -p $(@D)
	@echo "block $*: verilator --binary --timing (log: $(@D)/build.log)"
	@$(VERILATOR) --binary --timing -j 2 --trace --quiet-exit -Itests/block \
	  --top-module tsr_$*_tb --Mdir $(@D) -o $(@F) \
	  $< $(call block_rtl,$*) $(BLOCK_DPI_$*) > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }

$(BLOCK_DIR)/%/iverilog/tb.vvp: tests/block/tsr_%_tb.v $(RTL_SRCS) $(RTL_INCS) $(BLOCK_INCS)
	@command -v $(IVERILOG) >/dev/null || { echo "block: $(IVERILOG) not found: apt-get install iverilog"; exit 1; }
	@mkdir -p $(@D)
	$(IVERILOG) -g2012 -Wall -Wno-timescale -Itests/block -s tsr_$*_tb -o $@ $< $(call block_rtl,$*)

BLOCK_BIN = $(if $(filter iverilog,$(BLOCK_SIM)),$(BLOCK_DIR)/%/iverilog/tb.vvp,$(BLOCK_DIR)/%/verilator/Vtb)
BLOCK_RUN = $(if $(filter iverilog,$(BLOCK_SIM)),$(VVP) -n,)

# Not .PHONY (pattern rules cannot be); no file has this name, so it always runs.
test-block-%: $(BLOCK_BIN)
	@echo "block $* ($(BLOCK_SIM)):"
	@$(BLOCK_RUN) $< $(BLOCK_ARGS) || { echo "block $*: FAIL"; exit 1; }
