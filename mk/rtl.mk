# RTL checks: Verilator lint and Yosys synthesis.
LINT_DIMS ?= 4 8 16
VERILATOR ?= verilator
YOSYS     ?= yosys

.PHONY: lint synth-check
lint: ## Verilator -Wall lint of the whole RTL for N = 4, 8, 16, N = 4 without the SFU, and shared store lanes (zero warnings)
	@command -v $(VERILATOR) >/dev/null || { echo "lint: verilator not found; install the Debian package 'verilator'"; exit 1; }
	@for d in $(LINT_DIMS); do \
	  $(VERILATOR) --lint-only -Wall --top-module tsr_top -GArrayDim=$$d $(RTL_SRCS) || exit 1; \
	  echo "lint: tsr_top ArrayDim=$$d clean"; \
	done
	@$(VERILATOR) --lint-only -Wall --top-module tsr_top -GArrayDim=4 -GEnableSfu=0 $(RTL_SRCS)
	@echo "lint: tsr_top ArrayDim=4 EnableSfu=0 clean"
	@for c in 16:4 8:2 4:1; do \
	  $(VERILATOR) --lint-only -Wall --top-module tsr_top -GArrayDim=$${c%:*} -GStoreLanes=$${c#*:} $(RTL_SRCS) || exit 1; \
	  echo "lint: tsr_top ArrayDim=$${c%:*} StoreLanes=$${c#*:} clean"; \
	done
	@if $(VERILATOR) --lint-only --top-module tsr_top -GArrayDim=8 -GStoreLanes=3 $(RTL_SRCS) >/dev/null 2>&1; then \
	  echo "lint: StoreLanes=3 was accepted (it must be a power of two dividing N)"; exit 1; fi
	@echo "lint: StoreLanes=3 refused at elaboration"

# Generic Yosys synthesis, the same recipe as `make synth TARGET=generic`
# (tools/synth.py, mk/synth.mk). The script is `synth` minus `memory_map`, so
# the scratchpad, accumulator and command queue stay inferred RAM cells
# ($mem_v2) instead of turning into flip-flops: that is the proof that they map
# to block RAM. Fails on any latch. Does not touch docs/fpga.md.
SYNTH_DIM ?= 8
$(BUILD)/synth/generic-$(SYNTH_DIM)/report.txt: $(RTL_SRCS) $(RTL_INCS) mk/rtl.mk tools/synth.py
	@command -v $(YOSYS) >/dev/null || { echo "synth: yosys not found; install the Debian package 'yosys'"; exit 1; }
	@$(PYTHON) tools/synth.py --target generic --dim $(SYNTH_DIM) --build $(BUILD) --no-doc $(RTL_SRCS) \
	  || { rm -f $@; exit 1; }

# The multipliers outside the DSP blocks (fpga/tsr_softmul_map.v, applied by tools/synth.py on
# ice40, ecp5 and xilinx): the map on eight shapes, to gates, then every input against `*`.
SOFTMUL_DIR := $(BUILD)/softmul
.PHONY: softmul-check
softmul-check: ## the FPGA flows' soft-multiplier map (fpga/tsr_softmul_map.v), gate-level, every input of 8 shapes
	@mkdir -p $(SOFTMUL_DIR)
	@$(YOSYS) -q -l $(SOFTMUL_DIR)/yosys.log fpga/tsr_softmul_check.ys
	@$(VERILATOR) --binary --timing -Wno-fatal -Wno-lint -Wno-style --top-module tsr_softmul_tb \
	  tests/block/tsr_softmul_tb.v $(SOFTMUL_DIR)/softmul_gates.v -o vtb --Mdir $(SOFTMUL_DIR)/obj \
	  > $(SOFTMUL_DIR)/build.log 2>&1 || { tail -20 $(SOFTMUL_DIR)/build.log; exit 1; }
	@$(SOFTMUL_DIR)/obj/vtb | grep -v '^- '

synth-check: softmul-check $(BUILD)/synth/generic-$(SYNTH_DIM)/report.txt ## Yosys synth of tsr_top (N=8), no latches, print the cell count
