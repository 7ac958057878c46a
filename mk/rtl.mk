# RTL checks: Verilator lint and Yosys synthesis.
LINT_DIMS ?= 4 8 16
VERILATOR ?= verilator
YOSYS     ?= yosys

.PHONY: lint synth-check
lint: ## Verilator -Wall lint of the whole RTL for N = 4, 8, 16 (zero warnings)
	@command -v $(VERILATOR) >/dev/null || { echo "lint: verilator not found; install the Debian package 'verilator'"; exit 1; }
	@for d in $(LINT_DIMS); do \
	  $(VERILATOR) --lint-only -Wall --top-module tsr_top -GArrayDim=$$d $(RTL_SRCS) || exit 1; \
	  echo "lint: tsr_top ArrayDim=$$d clean"; \
	done

# Generic Yosys synthesis. The script is `synth` minus `memory_map`, so the
# scratchpad, accumulator and command queue stay inferred RAM cells ($mem_v2)
# instead of turning into flip-flops: that is the proof that they map to block
# RAM. Fails on any latch.
SYNTH_DIM ?= 8
$(BUILD)/synth/generic-$(SYNTH_DIM)/report.txt: $(RTL_SRCS) mk/rtl.mk
	@command -v $(YOSYS) >/dev/null || { echo "synth: yosys not found; install the Debian package 'yosys'"; exit 1; }
	@mkdir -p $(@D)
	$(YOSYS) -q -l $(@D)/yosys.log -p " \
	  read_verilog -DSYNTHESIS $(RTL_SRCS); \
	  chparam -set ArrayDim $(SYNTH_DIM) tsr_top; \
	  synth -top tsr_top -flatten -run :fine; \
	  opt -fast -full; techmap; opt -fast; abc -fast; opt -fast; \
	  select -assert-none t:\$$dlatch t:\$$_DLATCH_* t:\$$adlatch t:\$$_DLATCHSR_*; \
	  tee -o $@ stat" 
	@echo "synth: tsr_top ArrayDim=$(SYNTH_DIM): no latches;$$(grep -m1 'Number of cells' $@ | tr -s ' '); RAMs:$$(grep -E '\$$mem' $@ | tr -s ' ')"
	@grep -A3 'Memories' $@ | grep -v Memories | sed 's/^/synth: /' || true

synth-check: $(BUILD)/synth/generic-$(SYNTH_DIM)/report.txt ## Yosys synth of tsr_top (N=8), no latches, print the cell count
