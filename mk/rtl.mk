# RTL checks: Verilator lint and Yosys synthesis.
LINT_DIMS ?= 4 8 16
VERILATOR ?= verilator
YOSYS     ?= yosys

.PHONY: lint synth-check
lint: ## Verilator -Wall lint of the whole RTL for N = 4, 8, 16, and N = 4 without the SFU (zero warnings)
	@command -v $(VERILATOR) >/dev/null || { echo "lint: verilator not found; install the Debian package 'verilator'"; exit 1; }
	@for d in $(LINT_DIMS); do \
	  $(VERILATOR) --lint-only -Wall --top-module tsr_top -GArrayDim=$$d $(RTL_SRCS) || exit 1; \
	  echo "lint: tsr_top ArrayDim=$$d clean"; \
	done
	@$(VERILATOR) --lint-only -Wall --top-module tsr_top -GArrayDim=4 -GEnableSfu=0 $(RTL_SRCS)
	@echo "lint: tsr_top ArrayDim=4 EnableSfu=0 clean"

# Generic Yosys synthesis, the same recipe as `make synth TARGET=generic`
# (tools/synth.py, mk/synth.mk). The script is `synth` minus `memory_map`, so
# the scratchpad, accumulator and command queue stay inferred RAM cells
# ($mem_v2) instead of turning into flip-flops: that is the proof that they map
# to block RAM. Fails on any latch. Does not touch docs/fpga.md.
SYNTH_DIM ?= 8
$(BUILD)/synth/generic-$(SYNTH_DIM)/report.txt: $(RTL_SRCS) mk/rtl.mk tools/synth.py
	@command -v $(YOSYS) >/dev/null || { echo "synth: yosys not found; install the Debian package 'yosys'"; exit 1; }
	@$(PYTHON) tools/synth.py --target generic --dim $(SYNTH_DIM) --build $(BUILD) --no-doc $(RTL_SRCS) \
	  || { rm -f $@; exit 1; }

synth-check: $(BUILD)/synth/generic-$(SYNTH_DIM)/report.txt ## Yosys synth of tsr_top (N=8), no latches, print the cell count
