# mk/formal.mk: formal proofs of the `ifdef FORMAL properties beside the RTL.
#
# tools/formal.py drives Yosys (read_verilog -formal -DFORMAL; prep -flatten; async2sync) and
# proves each property set with Yosys's `sat -tempinduct`: k-induction (base case from reset
# plus induction step), or with --bmc-only a bounded proof to --depth cycles from reset.
# --engine smtbmc uses yosys-smtbmc + z3 instead; see docs/formal.md.
# Outputs and counterexample traces (VCD): build/formal/<name>/.

FORMAL      := $(PYTHON) tools/formal.py --build $(BUILD)
# <name>: <depth> <top> <files> [--set Param=Value ...] [--bmc-only]
FORMAL_regs    := --depth 8 --top tsr_regs rtl/regs/tsr_regs.v
# Command queue of tsr_ctrl (k-induction), CmdQDepth 4 (with N = 4) and 16 (N = 8).
FORMAL_cmdq4   := --depth 4 --top tsr_ctrl --set CmdQDepth=4 --set ArrayDim=4 rtl/tsr_ctrl.v rtl/tsr_stage_fifo.v rtl/tsr_sram.v
FORMAL_cmdq16  := --depth 4 --top tsr_ctrl --set CmdQDepth=16 rtl/tsr_ctrl.v rtl/tsr_stage_fifo.v rtl/tsr_sram.v
# AXI4 masters of the DMA, by k-induction (k = 2; helper invariants beside the properties,
# jobs of 1..3 rows). Small bursts (MaxBurstBeats 4, MaxOutstanding 2) with N 4 on a 32-bit
# bus and N 8 on a 64-bit bus; `_chip`: tsr_top's configuration (N 8, 64-bit, 16 beats;
# 8 bursts outstanding each way; the FIFO invariants take a power of two). Proofs
# taking over ~60 s run only in formal-full (times: docs/formal.md).
# Both masters bind the shared AXI4 address-channel properties (rtl/formal/).
FORMAL_AXI_PROPS := rtl/formal/tsr_axi_master_props.v
FORMAL_DMA_SMALL := --depth 2 --set MaxBurstBeats=4 --set MaxOutstanding=2
FORMAL_DMA_CHIP  := --depth 2 --set MaxBurstBeats=16 --set ArrayDim=8 --set AxiDataWidth=64
FORMAL_dma_rd_n4_w32 := $(FORMAL_DMA_SMALL) --top tsr_dma_rd --set ArrayDim=4 --set AxiDataWidth=32 rtl/tsr_dma_rd.v $(FORMAL_AXI_PROPS)
FORMAL_dma_rd_n8_w64 := $(FORMAL_DMA_SMALL) --top tsr_dma_rd --set ArrayDim=8 --set AxiDataWidth=64 rtl/tsr_dma_rd.v $(FORMAL_AXI_PROPS)
FORMAL_dma_wr_n4_w32 := $(FORMAL_DMA_SMALL) --top tsr_dma_wr --set ArrayDim=4 --set AxiDataWidth=32 rtl/tsr_dma_wr.v $(FORMAL_AXI_PROPS)
FORMAL_dma_wr_n8_w64 := $(FORMAL_DMA_SMALL) --top tsr_dma_wr --set ArrayDim=8 --set AxiDataWidth=64 rtl/tsr_dma_wr.v $(FORMAL_AXI_PROPS)
FORMAL_dma_rd_chip   := $(FORMAL_DMA_CHIP) --set MaxOutstanding=8 --top tsr_dma_rd rtl/tsr_dma_rd.v $(FORMAL_AXI_PROPS)
FORMAL_dma_wr_chip   := $(FORMAL_DMA_CHIP) --set MaxOutstanding=8 --top tsr_dma_wr rtl/tsr_dma_wr.v $(FORMAL_AXI_PROPS)

# The command ring fetcher (rtl/tsr_cmd_fetch.v): its AR side with the same AXI4 master
# properties, one burst in flight, and the ring pointers (head inside the ring, never past
# the tail), by k-induction; 32-bit bus with 2-command bursts, and the chip's 64-bit bus
# with 8-command bursts (tsr_top's FetchBurst).
FORMAL_fetch_w32   := --depth 3 --top tsr_cmd_fetch --set AxiDataWidth=32 --set FetchBurst=2 rtl/tsr_cmd_fetch.v $(FORMAL_AXI_PROPS)
FORMAL_fetch_chip  := --depth 3 --top tsr_cmd_fetch --set AxiDataWidth=64 --set FetchBurst=8 rtl/tsr_cmd_fetch.v $(FORMAL_AXI_PROPS)

# The read-channel arbiter between the DMA and the fetcher (rtl/tsr_axi_rd_arb.v): the port's
# AR held until ARREADY whichever reader it serves, R beats only to the burst's reader.
FORMAL_arb         := --depth 3 --top tsr_axi_rd_arb --set OrdDepth=4 rtl/tsr_axi_rd_arb.v

FORMAL_PROOFS      ?= regs cmdq4 cmdq16 dma_rd_n4_w32 dma_wr_n4_w32 dma_rd_chip fetch_w32 fetch_chip arb
FORMAL_FULL_PROOFS ?= $(FORMAL_PROOFS) dma_rd_n8_w64 dma_wr_n8_w64 dma_wr_chip

# One shell line per proof: run it, remember a failure, go on with the next.
formal_run = @fail=0; $(foreach p,$(1),$(FORMAL) --name $(p) $(FORMAL_$(p)) || fail=1;) \
	if [ $$fail -eq 0 ]; then echo "formal: PASS ($(words $(1)) proofs)"; else echo "formal: FAIL"; exit 1; fi

.PHONY: formal formal-full
formal: ## formal proofs by k-induction (AXI4-Lite slave, command queue, DMA masters; docs/formal.md)
	@command -v $(YOSYS) >/dev/null || { echo "formal: yosys not found: apt-get install yosys"; exit 1; }
	$(call formal_run,$(FORMAL_PROOFS))

formal-full: ## formal plus the slower DMA write-master proofs (k-induction, ~1-2 min each)
	@command -v $(YOSYS) >/dev/null || { echo "formal: yosys not found: apt-get install yosys"; exit 1; }
	$(call formal_run,$(FORMAL_FULL_PROOFS))
