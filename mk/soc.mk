# mk/soc.mk: the co-simulation SoC (docs/soc.md): the real firmware on a RISC-V core next to tsr_top.
#
#   make soc-lint         Verilator -Wall on rtl/soc/ (with tsr_top) at several sizes; Yosys on
#                         the SoC's own logic and the core (tsr_top a black box: synth-check
#                         synthesizes it), no latches
#
# The core is picorv32 (RV32IM) from the PyPI package pythondata-cpu-picorv32, pinned in
# tools/install-deps.sh; tools/picorv32_path.py prints where its picorv32.v is (or one line
# naming the package and exits 1). Nothing here is in `make test`.

SOC_NICE     ?= nice -n 10
SOC_BUILD    := $(BUILD)/soc
# Expanded where used, so that reading the Makefile does not run Python.
SOC_CORE_V    = $(shell $(PYTHON) tools/picorv32_path.py)
SOC_RTL       := rtl/soc/tsr_soc.v rtl/soc/tsr_soc_axi_arb.v rtl/soc/tsr_soc_srcq.v rtl/soc/tsr_soc_ram.v
SOC_VLT       := rtl/soc/tsr_soc.vlt
# The SoC and what it instantiates: tsr_top's RTL without the UART bridge (a board part).
SOC_TOP_RTL   := $(filter-out rtl/tsr_uart_%.v,$(RTL_SRCS))
SOC_NEED_CORE = @$(PYTHON) tools/picorv32_path.py >/dev/null || exit 1

.PHONY: soc-lint
soc-lint: ## the SoC (rtl/soc/): Verilator -Wall at N = 4, 8, 16 and bus widths 32..128; Yosys, no latches
	$(SOC_NEED_CORE)
	@for p in "-GArrayDim=4" "-GArrayDim=8" "-GArrayDim=4 -GAxiDataWidth=32 -GRamBytes=16384" \
	          "-GArrayDim=16 -GAxiDataWidth=128"; do \
	  $(SOC_NICE) $(VERILATOR) --lint-only -Wall --top-module tsr_soc $$p $(SOC_VLT) $(SOC_CORE_V) \
	    $(SOC_RTL) $(SOC_TOP_RTL) || { echo "soc-lint: Verilator -Wall failed on tsr_soc $$p"; exit 1; }; \
	  echo "soc-lint: tsr_soc $$p clean"; done
	@mkdir -p $(SOC_BUILD)/synth
	@$(SOC_NICE) $(YOSYS) -q -l $(SOC_BUILD)/synth/tsr_soc.log -p "read_verilog -DSYNTHESIS $(SOC_CORE_V) \
	    $(SOC_RTL); read_verilog -lib -DSYNTHESIS rtl/tsr_top.v; chparam -set ArrayDim 4 tsr_soc; \
	    hierarchy -check -top tsr_soc; synth -run :fine -top tsr_soc; \
	    select -assert-none t:\$$dlatch t:\$$_DLATCH*_ t:\$$_SR*; techmap; abc; stat" >/dev/null || \
	  { echo "soc-lint: Yosys failed on tsr_soc (log: $(SOC_BUILD)/synth/tsr_soc.log)"; exit 1; }
	@echo "soc-lint: tsr_soc synthesized (tsr_top a black box), no latches, \
	$$(grep -E '^ +Number of cells' $(SOC_BUILD)/synth/tsr_soc.log | tail -1 | awk '{print $$4}') generic cells"
