# mk/uart.mk: the UART host link (issue #5, item 4; docs/host-link.md).
#
#   make test-uart        everything below: lint + synthesis of the bridge, the block test,
#                         the unit tests, the end-to-end simulation test, the CLI over the
#                         simulated link (not in `make test`)
#   make uart-sim DIM=8   build/uart/lib/libtsruart_d8.so: Verilated fpga/tsr_uart_top.v + the
#                         C line model (tb/tsr_uart_sim.c); `tessera --hal uart-sim` loads it
#   make test-uart-e2e    GEMMs through driver + firmware + HAL + UART frames + RTL bridge,
#                         bit-exact against the golden model and the direct (sim HAL) path,
#                         then damaged, dropped and late bytes (UART_E2E_ARGS='--seed S ...')
#   make test-uart-cli    `tessera --hal uart-sim gemm ... --check` from the CLI
#   make uart-lint        Verilator -Wall on the bridge and the board top; Yosys on the bridge
#                         and the memory (no latches)
#
# Everything is built under build/uart/ (the direct-path model too: build/uart/lib/
# libtsrsim_d<N>.so), so nothing in build/lib or build/sim is touched.
#
# The simulated board: ArrayDim DIM, the default tsr_top memories (so the planner makes the
# same plan as on the direct path), UART_MEM bytes of on-chip memory, baud divisor
# UART_CLK_PER_BIT, inter-byte timeout UART_RX_TIMEOUT bit times, frames of UART_MAX_LEN.

# The block test is registered in mk/block-uart.mk (read before mk/block.mk).

UNIT_SRCS_test_uart_proto := sw/hal/tsr_uart_proto.c
UNIT_SRCS_test_hal_uart := sw/hal/tsr_hal_uart.c sw/hal/tsr_uart_serial.c sw/hal/tsr_uart_proto.c sw/hal/tsr_hal.c

UART_DIM          ?= $(DIM)
UART_MEM          ?= 65536
UART_CLK_PER_BIT  ?= 4
UART_RX_TIMEOUT   ?= 64
UART_MAX_LEN      ?= 256
UART_BUILD        := $(BUILD)/uart
UART_SIM_DIR      := $(UART_BUILD)/board/d$(UART_DIM)
UART_VDIR         := $(UART_SIM_DIR)/verilated
UART_SO           := $(UART_BUILD)/lib/libtsruart_d$(UART_DIM).so
UART_VMODEL       := $(UART_VDIR)/Vtsr_uart_top__ALL.a
UART_RT_DIR       := $(UART_BUILD)/runtime
UART_RT_OBJS      := $(addprefix $(UART_RT_DIR)/,verilated.o verilated_threads.o verilated_fst_c.o)
UART_TOP_SRCS     := $(RTL_SRCS) fpga/tsr_axi_ram.v fpga/tsr_uart_top.v
UART_BRIDGE_SRCS  := rtl/tsr_uart_bridge.v rtl/tsr_uart_rx.v rtl/tsr_uart_tx.v rtl/tsr_sram.v
UART_HDRS         := tb/tsr_uart_sim.h tb/tsr_uart_shim.h tb/tsr_vshim.h
# The direct path: the ordinary sim library, built in UART_BUILD from the RTL without the
# bridge files (which tsr_top does not use), so that adding them did not change its command.
UART_DIRECT_RTL   := $(filter-out rtl/tsr_uart_%.v,$(RTL_SRCS))
UART_DIRECT_SO    := $(UART_BUILD)/lib/libtsrsim_d$(UART_DIM).so
UART_NICE         ?= nice -n 10

UART_VFLAGS := --cc --build -j 2 --top-module tsr_uart_top --prefix Vtsr_uart_top \
  -GArrayDim=$(UART_DIM) -GMemBytes=$(UART_MEM) -GClkPerBit=$(UART_CLK_PER_BIT) \
  -GRxTimeoutBits=$(UART_RX_TIMEOUT) -GMaxLen=$(UART_MAX_LEN) \
  -O3 --x-assign fast --x-initial fast --trace-fst \
  -CFLAGS -fPIC -CFLAGS -fvisibility=hidden -MAKEFLAGS OPT_FAST=-O2
UART_VCMD = $(VERILATOR) $(UART_VFLAGS) --Mdir $(UART_VDIR) $(UART_TOP_SRCS)
UART_CFLAGS = $(CSTD) $(CWARN) $(CFLAGS) -fPIC -fvisibility=hidden $(INCS) \
  -DTSR_USIM_ARRAY_DIM=$(UART_DIM) -DTSR_USIM_CLK_PER_BIT=$(UART_CLK_PER_BIT)
UART_CXXFLAGS = -std=gnu++17 -Wall -Wextra -Werror $(CFLAGS) -fPIC -fvisibility=hidden \
  -fvisibility-inlines-hidden -Itb -I$(UART_VDIR) \
  -isystem $(TB_VROOT)/include -isystem $(TB_VROOT)/include/vltstd \
  -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 -DVM_COVERAGE=0 -DVM_SC=0

.PHONY: uart-sim uart-force uart-lint test-uart test-uart-e2e

uart-sim: $(UART_SO) ## build the Verilated UART board top for DIM=N (build/uart/lib/libtsruart_dN.so)

$(UART_SIM_DIR)/verilator.cmd: uart-force
	@mkdir -p $(@D)
	@echo '$(UART_VCMD)' | cmp -s - $@ || echo '$(UART_VCMD)' > $@

uart-force:

$(UART_VMODEL): $(UART_TOP_SRCS) $(UART_SIM_DIR)/verilator.cmd
	$(TB_NEED_VERILATOR)
	@mkdir -p $(UART_VDIR)
	@echo "uart: verilating tsr_uart_top ArrayDim=$(UART_DIM) into $(UART_VDIR) (log: $(UART_SIM_DIR)/verilator.log)"
	@start=$$(date +%s); \
	  $(UART_NICE) $(UART_VCMD) > $(UART_SIM_DIR)/verilator.log 2>&1 || { cat $(UART_SIM_DIR)/verilator.log; exit 1; }; \
	  echo "uart: model for DIM=$(UART_DIM) built in $$(( $$(date +%s) - start )) s"
	@grep -E '^%(Warning|Error)' $(UART_SIM_DIR)/verilator.log || true
	@touch $@

$(UART_RT_DIR)/%.o:
	$(TB_NEED_VERILATOR)
	@mkdir -p $(@D)
	$(UART_NICE) $(CXX) $(TB_RT_FLAGS) -c $(TB_VROOT)/include/$*.cpp -o $@

$(UART_SIM_DIR)/tsr_uart_sim.o: tb/tsr_uart_sim.c $(UART_HDRS) mk/uart.mk
	@mkdir -p $(@D)
	$(CC) $(UART_CFLAGS) -c $< -o $@

$(UART_SIM_DIR)/tsr_uart_shim.o: tb/tsr_uart_shim.cpp $(UART_HDRS) $(UART_VMODEL)
	$(UART_NICE) $(CXX) $(UART_CXXFLAGS) -c $< -o $@

$(UART_SIM_DIR)/tsr_usim.exports: tb/tsr_uart_sim.h
	@mkdir -p $(@D)
	@grep -oE '\btsr_usim_[a-z0-9_]+\(' $< | tr -d '(' | sort -u > $@

$(UART_SIM_DIR)/tsr_usim.map: $(UART_SIM_DIR)/tsr_usim.exports
	@{ echo '{ global:'; sed 's/$$/;/' $<; echo 'local: *; };'; } > $@

$(UART_SO): $(UART_SIM_DIR)/tsr_uart_shim.o $(UART_SIM_DIR)/tsr_uart_sim.o $(UART_VMODEL) $(UART_RT_OBJS) $(UART_SIM_DIR)/tsr_usim.map
	@mkdir -p $(@D)
	$(CXX) -shared -o $@ $(UART_SIM_DIR)/tsr_uart_shim.o $(UART_SIM_DIR)/tsr_uart_sim.o $(UART_VMODEL) \
	  $(UART_RT_OBJS) -Wl,--version-script=$(UART_SIM_DIR)/tsr_usim.map -Wl,--no-undefined -Wl,-O1 $(TB_LDLIBS)
	@nm -D --defined-only $@ | awk '{ print $$3 }' | sort -u > $(UART_SIM_DIR)/tsr_usim.exported
	@cmp -s $(UART_SIM_DIR)/tsr_usim.exports $(UART_SIM_DIR)/tsr_usim.exported || { \
	  echo "uart: $@ exports differ from the functions of tb/tsr_uart_sim.h" >&2; \
	  diff $(UART_SIM_DIR)/tsr_usim.exports $(UART_SIM_DIR)/tsr_usim.exported >&2; rm -f $@; exit 1; }
	@echo "uart: $@ ready (ArrayDim=$(UART_DIM), $(UART_MEM) bytes on chip, $(UART_CLK_PER_BIT) cycles per bit)"

# The direct path's model (the ordinary sim library) in the UART build tree; it is stale
# when the RTL or the C bench around it (tb/tsr_sim*, tb/tsr_axi_mem*) changes.
$(UART_DIRECT_SO): $(UART_DIRECT_RTL) $(TB_HDRS) tb/tsr_sim.c tb/tsr_sim_shim.cpp tb/tsr_axi_mem.c
	@$(MAKE) --no-print-directory sim BUILD=$(UART_BUILD) DIM=$(UART_DIM) TB_RTL_SRCS='$(UART_DIRECT_RTL)' \
	  VERILATOR='$(UART_NICE) $(VERILATOR)'

# ---- the end-to-end test ------------------------------------------------------------------
UART_E2E_BIN  := $(UART_BUILD)/tests/test_uart_e2e
UART_E2E_SRCS := tests/uart/test_uart_e2e.c sw/hal/tsr_hal.c sw/hal/tsr_hal_sim.c sw/hal/tsr_hal_uart.c \
  sw/hal/tsr_uart_proto.c sw/hal/tsr_uart_serial.c sw/hal/tsr_uart_simlink.c sw/driver/tsr_driver.c $(FW_SRCS) \
  sw/golden/tsr_golden.c sw/driver/tsr_quant.c
UART_E2E_ARGS ?=

$(UART_E2E_BIN): $(UART_E2E_SRCS) sw/hal/tsr_uart.h sw/hal/tsr_hal.h tb/tsr_uart_sim.h tb/tsr_sim.h mk/uart.mk
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(CWARN) $(CFLAGS) $(SAN) $(INCS) -o $@ $(UART_E2E_SRCS) -ldl -lm

test-uart-e2e: $(UART_SO) $(UART_DIRECT_SO) $(UART_E2E_BIN) ## GEMMs over the simulated UART link vs golden model and direct path, plus injected line faults
	TSR_UART_LIB_DIR=$(UART_BUILD)/lib TSR_SIM_LIB_DIR=$(UART_BUILD)/lib $(UART_E2E_BIN) --dim $(UART_DIM) $(UART_E2E_ARGS)

# ---- the CLI over the simulated link ------------------------------------------------------
.PHONY: test-uart-cli
test-uart-cli: $(UART_SO) $(SW_BIN) ## tessera --hal uart-sim gemm ... --check through the whole path from the CLI
	@out=$$(TSR_UART_LIB_DIR=$(UART_BUILD)/lib $(SW_BIN) --hal uart-sim gemm --m 16 --k 16 --n 16 --check) || \
	  { echo "$$out"; echo "test-uart-cli: FAIL: tessera --hal uart-sim gemm --m 16 --k 16 --n 16 --check"; exit 1; }; \
	  echo "$$out"; echo "$$out" | grep -q '^gemm 16x16x16 .*(uart)' && echo "$$out" | grep -q 'bit-exact: yes' || \
	  { echo "test-uart-cli: FAIL: no '(uart)' backend or no 'bit-exact: yes' in the output"; exit 1; }; \
	  echo "$$out" | grep -q '^  note: over the serial link .* include the chip waiting for the link' || \
	  { echo "test-uart-cli: FAIL: no note that the serial link sets the pace of the cycles and utilization"; exit 1; }
	@out=$$(TSR_UART_LIB_DIR=$(UART_BUILD)/lib $(SW_BIN) gemm --m 9 --k 70 --n 13 --seed 5 --raw --check --json --hal uart-sim) && \
	  echo "$$out" | grep -q '"check": "pass"' && echo "$$out" | grep -q '"paced_by": "serial link"' || \
	  { echo "$$out"; echo "test-uart-cli: FAIL: gemm --raw --json over uart-sim (check pass, paced_by serial link)"; exit 1; }
	@echo "test-uart-cli: tessera --hal uart-sim gemm: bit-exact (int8 16^3, raw int32 9x70x13), the link named as the pace"

# ---- lint and synthesis of the new RTL ----------------------------------------------------
uart-lint: ## Verilator -Wall on the UART bridge and board top, Yosys (no latches) on the bridge and memory
	@$(UART_NICE) $(VERILATOR) --lint-only -Wall --top-module tsr_uart_bridge $(UART_BRIDGE_SRCS)
	@$(UART_NICE) $(VERILATOR) --lint-only -Wall --top-module tsr_uart_bridge -GClkPerBit=4 -GRxTimeoutBits=8 \
	  -GMaxLen=16 -GMemBytes=1000 $(UART_BRIDGE_SRCS)
	@for p in "" "-GArrayDim=4 -GAxiDataWidth=32 -GMemBytes=4096" "-GArrayDim=16 -GAxiDataWidth=128"; do \
	  $(UART_NICE) $(VERILATOR) --lint-only -Wall --top-module tsr_uart_top $$p $(UART_TOP_SRCS) || exit 1; done
	@echo "uart-lint: tsr_uart_bridge and tsr_uart_top clean under verilator --lint-only -Wall"
	@mkdir -p $(UART_BUILD)/synth
	@for top in tsr_uart_bridge tsr_axi_ram; do \
	  $(UART_NICE) $(YOSYS) -q -l $(UART_BUILD)/synth/$$top.log -p "read_verilog -DSYNTHESIS \
	    $(UART_BRIDGE_SRCS) fpga/tsr_axi_ram.v; hierarchy -top $$top; synth -run :fine -top $$top; \
	    select -assert-none t:\$$dlatch t:\$$_DLATCH*_ t:\$$_SR*; techmap; abc; stat" >/dev/null || \
	    { echo "uart-lint: Yosys failed on $$top (log: $(UART_BUILD)/synth/$$top.log)"; exit 1; }; \
	  echo "uart-lint: $$top synthesized, no latches, $$(grep -E '^ +Number of cells' $(UART_BUILD)/synth/$$top.log | tail -1 | awk '{print $$4}') generic cells"; \
	done

test-uart: ## UART host link: lint + synthesis, block test, unit tests, end-to-end GEMMs and faults (not in make test)
	@set -u; start=$$(date +%s%N); times=""; \
	  step() { name=$$1; shift; echo "== $$name"; t0=$$(date +%s%N); \
	    "$$@" || { echo "test-uart: FAILED: $$name"; exit 1; }; \
	    ms=$$(( ($$(date +%s%N) - t0) / 1000000 )); \
	    times="$$times$$(printf '\n  %-14s %4d.%02d s' "$$name" $$((ms / 1000)) $$((ms % 1000 / 10)))"; }; \
	  step lint $(MAKE) --no-print-directory uart-lint; \
	  step block $(MAKE) --no-print-directory test-block-uart_bridge; \
	  step unit-proto $(MAKE) --no-print-directory test-unit-uart_proto; \
	  step unit-hal $(MAKE) --no-print-directory test-unit-hal_uart; \
	  step e2e $(MAKE) --no-print-directory test-uart-e2e; \
	  step cli $(MAKE) --no-print-directory test-uart-cli; \
	  echo "test-uart: time per step:$$times"; \
	  ms=$$(( ($$(date +%s%N) - start) / 1000000 )); \
	  echo "test-uart: PASSED in $$((ms / 1000)).$$((ms % 1000 / 100)) s"
