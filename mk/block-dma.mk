# mk/block-dma.mk: block tests of the DMA engines (rtl/tsr_dma_rd.v, rtl/tsr_dma_wr.v).
#
# `make test-block` (mk/block.mk) runs both benches at their default parameters
# (ArrayDim 8, AxiDataWidth 64, MaxBurstBeats 16, MaxOutstanding 4).
# `make test-block-dma-sweep` builds and runs them for every AxiDataWidth (32, 64,
# 128) x ArrayDim (4, 8, 16), plus burst/outstanding corner cases, with
# DMA_SWEEP_JOBS random jobs each. BLOCK_SIM and BLOCK_ARGS work as in mk/block.mk,
# e.g. make test-block-dma-sweep BLOCK_SIM=iverilog BLOCK_ARGS=+seed=7
# One configuration: make dma-sweep-rd-32-4-16-4 (engine-width-dim-burst-outstanding).
# (This file is read before mk/block.mk, so rule lines only use variables of the
# top Makefile or of this file.)

BLOCK_TESTS += dma_rd dma_wr
BLOCK_RTL_dma_rd := rtl/tsr_dma_rd.v
BLOCK_RTL_dma_wr := rtl/tsr_dma_wr.v

DMA_SWEEP_SIM  := $(if $(filter iverilog,$(BLOCK_SIM)),iverilog,verilator)
DMA_SWEEP_JOBS ?= $(if $(filter iverilog,$(DMA_SWEEP_SIM)),150,1000)
DMA_SWEEP_DIR  := $(BUILD)/block/dma-sweep
# <engine>-<AxiDataWidth>-<ArrayDim>-<MaxBurstBeats>-<MaxOutstanding>
DMA_SWEEP := $(foreach e,rd wr,$(foreach w,32 64 128,$(foreach n,4 8 16,$(e)-$(w)-$(n)-16-4))) \
             $(foreach e,rd wr,$(e)-32-4-1-1 $(e)-128-16-3-2 $(e)-32-16-256-8)

dma_word   = $(word $(1),$(subst -, ,$(2)))
dma_params = AxiDataWidth=$(call dma_word,2,$(1)) ArrayDim=$(call dma_word,3,$(1)) \
             MaxBurstBeats=$(call dma_word,4,$(1)) MaxOutstanding=$(call dma_word,5,$(1))

.PRECIOUS: $(DMA_SWEEP_DIR)/%/Vtb $(DMA_SWEEP_DIR)/%/tb.vvp

$(DMA_SWEEP_DIR)/%/Vtb: tests/block/tsr_dma_rd_tb.v tests/block/tsr_dma_wr_tb.v \
                        rtl/tsr_dma_rd.v rtl/tsr_dma_wr.v $(wildcard tests/block/*.vh)
	@command -v $(VERILATOR) >/dev/null || { echo "block: $(VERILATOR) not found: apt-get install verilator (>= 5.006)"; exit 1; }
	@mkdir -p $(@D)
	@echo "dma-sweep $*: verilator --binary --timing (log: $(@D)/build.log)"
	@$(VERILATOR) --binary --timing -j 2 --trace --quiet-exit -Itests/block \
	  --top-module tsr_dma_$(call dma_word,1,$*)_tb $(addprefix -G,$(call dma_params,$*)) \
	  --Mdir $(@D) -o $(@F) tests/block/tsr_dma_$(call dma_word,1,$*)_tb.v \
	  rtl/tsr_dma_$(call dma_word,1,$*).v > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }

$(DMA_SWEEP_DIR)/%/tb.vvp: tests/block/tsr_dma_rd_tb.v tests/block/tsr_dma_wr_tb.v \
                           rtl/tsr_dma_rd.v rtl/tsr_dma_wr.v $(wildcard tests/block/*.vh)
	@command -v $(IVERILOG) >/dev/null || { echo "block: $(IVERILOG) not found: apt-get install iverilog"; exit 1; }
	@mkdir -p $(@D)
	@$(IVERILOG) -g2012 -Wall -Wno-timescale -Itests/block -s tsr_dma_$(call dma_word,1,$*)_tb \
	  $(addprefix -Ptsr_dma_$(call dma_word,1,$*)_tb.,$(call dma_params,$*)) -o $@ \
	  tests/block/tsr_dma_$(call dma_word,1,$*)_tb.v rtl/tsr_dma_$(call dma_word,1,$*).v

DMA_SWEEP_BIN = $(if $(filter iverilog,$(DMA_SWEEP_SIM)),$(DMA_SWEEP_DIR)/%/tb.vvp,$(DMA_SWEEP_DIR)/%/Vtb)
DMA_SWEEP_RUN = $(if $(filter iverilog,$(DMA_SWEEP_SIM)),$(VVP) -n,)

# Not .PHONY (pattern rule); no file has this name, so it always runs.
dma-sweep-%: $(DMA_SWEEP_BIN)
	@set -o pipefail; $(DMA_SWEEP_RUN) $< +jobs=$(DMA_SWEEP_JOBS) $(BLOCK_ARGS) | grep -E '^(PASS|FAIL)' \
	  || { echo "dma-sweep $*: FAIL (rerun: $(DMA_SWEEP_RUN) $< +jobs=$(DMA_SWEEP_JOBS) $(BLOCK_ARGS))"; exit 1; }

.PHONY: test-block-dma-sweep
test-block-dma-sweep: $(addprefix dma-sweep-,$(DMA_SWEEP)) ## DMA block tests for every AxiDataWidth x ArrayDim and burst corner cases
	@echo "test-block-dma-sweep: PASS ($(words $(DMA_SWEEP)) configurations, $(DMA_SWEEP_JOBS) random jobs each)"
