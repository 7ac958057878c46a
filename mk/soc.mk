# mk/soc.mk: the co-simulation SoC (docs/soc.md): the real firmware on a RISC-V core next to tsr_top.
#
#   make soc-lint         Verilator -Wall on rtl/soc/ (with tsr_top) at several sizes; Yosys on
#                         the whole SoC at N = 4 (core, RAM, arbiter, tsr_top), no latches
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
	    $(SOC_RTL) $(SOC_TOP_RTL); chparam -set ArrayDim 4 tsr_soc; hierarchy -check -top tsr_soc; \
	    synth -run :fine -top tsr_soc; select -assert-none t:\$$dlatch t:\$$_DLATCH*_ t:\$$_SR*; stat" >/dev/null 2>&1 || \
	  { grep -E "^(ERROR|Selection|  *tsr_soc)" $(SOC_BUILD)/synth/tsr_soc.log | head -5; echo "soc-lint: Yosys failed on tsr_soc (log: $(SOC_BUILD)/synth/tsr_soc.log)"; exit 1; }
	@echo "soc-lint: tsr_soc (N = 4, with tsr_top) synthesized, no latches, \
	$$(grep -E '^ +Number of cells' $(SOC_BUILD)/synth/tsr_soc.log | tail -1 | awk '{print $$4}') word-level cells"

# ---- the Verilated SoC: build/soc/lib/libtsrsoc_d<N>.so --------------------------------
#   make soc-sim DIM=4    the Verilated tsr_soc (ArrayDim DIM, SOC_RAM bytes of RAM) + the C
#                         bench (tb/tsr_soc_sim.c, the memory model tb/tsr_axi_mem.c);
#                         exports exactly the tsr_ssim_* functions of tb/tsr_soc_sim.h
# Its own tree (build/soc/d<N>/), so the ordinary models in build/sim and build/lib are untouched.
# SOC_AXI: the external bus width in bits (tsr_top's AxiDataWidth, 32, 64 or 128); a width
# other than 64 gets its own tree and library, ..._d<N>_axi<W>.
SOC_DIM     ?= $(DIM)
SOC_RAM     ?= 65536
SOC_AXI     ?= 64
SOC_TAG     := d$(SOC_DIM)$(if $(filter-out 64,$(SOC_AXI)),_axi$(SOC_AXI))
SOC_DIR     := $(SOC_BUILD)/$(SOC_TAG)
SOC_VDIR    := $(SOC_DIR)/verilated
SOC_SO      := $(SOC_BUILD)/lib/libtsrsoc_$(SOC_TAG).so
SOC_VMODEL  := $(SOC_VDIR)/Vtsr_soc__ALL.a
SOC_RT_DIR  := $(SOC_BUILD)/runtime
SOC_RT_OBJS := $(addprefix $(SOC_RT_DIR)/,verilated.o verilated_threads.o verilated_fst_c.o)
SOC_HDRS    := tb/tsr_soc_sim.h tb/tsr_soc_shim.h tb/tsr_vshim.h tb/tsr_axi_mem.h
SOC_VFLAGS  := --cc --build -j 2 --top-module tsr_soc --prefix Vtsr_soc \
  -GArrayDim=$(SOC_DIM) -GRamBytes=$(SOC_RAM) -GAxiDataWidth=$(SOC_AXI) -O3 --x-assign fast --x-initial fast --trace-fst \
  -CFLAGS -fPIC -CFLAGS -fvisibility=hidden -MAKEFLAGS OPT_FAST=-O2
SOC_VCMD     = $(VERILATOR) $(SOC_VFLAGS) --Mdir $(SOC_VDIR) $(SOC_VLT) $(SOC_CORE_V) $(SOC_RTL) $(SOC_TOP_RTL)
SOC_CFLAGS   = $(CSTD) $(CWARN) $(CFLAGS) -fPIC -fvisibility=hidden $(INCS) \
  -DTSR_SSIM_ARRAY_DIM=$(SOC_DIM) -DTSR_SSIM_RAM_BYTES=$(SOC_RAM)
SOC_CXXFLAGS = -std=gnu++17 -Wall -Wextra -Werror $(CFLAGS) -fPIC -fvisibility=hidden \
  -fvisibility-inlines-hidden -Itb -I$(SOC_VDIR) \
  -isystem $(TB_VROOT)/include -isystem $(TB_VROOT)/include/vltstd \
  -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 -DVM_COVERAGE=0 -DVM_SC=0

.PHONY: soc-sim soc-force
soc-sim: $(SOC_SO) ## build the Verilated SoC (picorv32 + tsr_top, DIM=N) as build/soc/lib/libtsrsoc_dN.so

soc-force:

$(SOC_DIR)/verilator.cmd: soc-force
	$(SOC_NEED_CORE)
	@mkdir -p $(@D)
	@echo '$(SOC_VCMD)' | cmp -s - $@ || echo '$(SOC_VCMD)' > $@

$(SOC_VMODEL): $(SOC_RTL) $(SOC_VLT) $(SOC_TOP_RTL) $(RTL_INCS) $(SOC_DIR)/verilator.cmd
	$(TB_NEED_VERILATOR)
	@mkdir -p $(SOC_VDIR)
	@echo "soc: verilating tsr_soc ArrayDim=$(SOC_DIM) into $(SOC_VDIR) (log: $(SOC_DIR)/verilator.log)"
	@start=$$(date +%s); \
	  $(SOC_NICE) $(SOC_VCMD) > $(SOC_DIR)/verilator.log 2>&1 || { cat $(SOC_DIR)/verilator.log; exit 1; }; \
	  echo "soc: model for DIM=$(SOC_DIM) built in $$(( $$(date +%s) - start )) s"
	@grep -E '^%(Warning|Error)' $(SOC_DIR)/verilator.log || true
	@touch $@

$(SOC_RT_DIR)/%.o:
	$(TB_NEED_VERILATOR)
	@mkdir -p $(@D)
	$(SOC_NICE) $(CXX) $(TB_RT_FLAGS) -c $(TB_VROOT)/include/$*.cpp -o $@

$(SOC_DIR)/%.o: tb/%.c $(SOC_HDRS) mk/soc.mk
	@mkdir -p $(@D)
	$(CC) $(SOC_CFLAGS) -c $< -o $@

$(SOC_DIR)/tsr_soc_shim.o: tb/tsr_soc_shim.cpp $(SOC_HDRS) $(SOC_VMODEL)
	$(SOC_NICE) $(CXX) $(SOC_CXXFLAGS) -c $< -o $@

$(SOC_DIR)/tsr_ssim.exports: tb/tsr_soc_sim.h
	@mkdir -p $(@D)
	@grep -oE '\btsr_ssim_[a-z0-9_]+\(' $< | tr -d '(' | sort -u > $@

$(SOC_DIR)/tsr_ssim.map: $(SOC_DIR)/tsr_ssim.exports
	@{ echo '{ global:'; sed 's/$$/;/' $<; echo 'local: *; };'; } > $@

SOC_SO_OBJS := $(SOC_DIR)/tsr_soc_shim.o $(SOC_DIR)/tsr_soc_sim.o $(SOC_DIR)/tsr_axi_mem.o

$(SOC_SO): $(SOC_SO_OBJS) $(SOC_VMODEL) $(SOC_RT_OBJS) $(SOC_DIR)/tsr_ssim.map
	@mkdir -p $(@D)
	$(CXX) -shared -o $@ $(SOC_SO_OBJS) $(SOC_VMODEL) $(SOC_RT_OBJS) \
	  -Wl,--version-script=$(SOC_DIR)/tsr_ssim.map -Wl,--no-undefined -Wl,-O1 $(TB_LDLIBS)
	@nm -D --defined-only $@ | awk '{ print $$3 }' | sort -u > $(SOC_DIR)/tsr_ssim.exported
	@cmp -s $(SOC_DIR)/tsr_ssim.exports $(SOC_DIR)/tsr_ssim.exported || { \
	  echo "soc: $@ exports differ from the functions of tb/tsr_soc_sim.h" >&2; \
	  diff $(SOC_DIR)/tsr_ssim.exports $(SOC_DIR)/tsr_ssim.exported >&2; rm -f $@; exit 1; }
	@echo "soc: $@ ready (ArrayDim=$(SOC_DIM), $(SOC_RAM) bytes of RAM, $(SOC_AXI)-bit memory bus)"

# ---- firmware for the core: build/fw/elf/<prog>.elf (+ .bin, .hex) ------------------------
#   make fw-elf           the SoC programs of tests/soc/ linked with the runtime (fw/rt/), the
#                         firmware (fw/), the driver and the bare-metal HAL, RV32IM -Os: the same
#                         objects `make fw-size` checks for undefined symbols
SOC_FW_DIR    := $(BUILD)/fw/elf
SOC_FW_PROGS  := hello gemm irq share illegal assert hang nodev buserr halt
SOC_FW_CFLAGS := $(FW_RV_FLAGS) $(CSTD) $(CWARN) -Isw/include -Isw/hal -Isw/driver -Ifw/include -Ifw/rt
SOC_FWRT_OBJS   := $(SOC_FW_DIR)/obj/crt0.o $(SOC_FW_DIR)/obj/tsr_rt.o
# tessera.elf, the firmware image `tessera --hal soc` runs (fw/rt/tsr_soc_main.c: one job of
# fw/include/tsr_soc_job.h), and the test programs of tests/soc/.
SOC_FW_ELFS   := $(SOC_FW_DIR)/tessera.elf $(SOC_FW_PROGS:%=$(SOC_FW_DIR)/%.elf)
SOC_FW_NEED_GCC = @command -v $(FW_RV_PREFIX)gcc >/dev/null || \
  { echo "fw-elf: $(FW_RV_PREFIX)gcc not found: apt-get install gcc-riscv64-unknown-elf"; exit 1; }

.PHONY: fw-elf
fw-elf: $(SOC_FW_ELFS) $(SOC_FW_ELFS:.elf=.bin) $(SOC_FW_ELFS:.elf=.hex) ## RV32IM programs for the SoC (tessera.elf, the firmware image of --hal soc; tests/soc/*.c) with the fw/rt runtime, fw, driver, HAL: build/fw/elf/
	@for e in $(SOC_FW_ELFS); do $(FW_RV_PREFIX)size $$e | tail -n 1 | \
	  awk -v e=$$e '{ printf "fw-elf: %-28s %6d bytes of code, %5d of data and bss\n", e, $$1, $$2 + $$3 }'; done

$(SOC_FW_DIR)/obj/crt0.o: fw/rt/crt0.S mk/soc.mk
	$(SOC_FW_NEED_GCC)
	@mkdir -p $(@D)
	$(FW_RV_PREFIX)gcc $(FW_RV_FLAGS) -c $< -o $@

$(SOC_FW_DIR)/obj/tsr_rt.o: fw/rt/tsr_rt.c fw/rt/tsr_rt.h mk/soc.mk
	$(SOC_FW_NEED_GCC)
	@mkdir -p $(@D)
	$(FW_RV_PREFIX)gcc $(SOC_FW_CFLAGS) -c $< -o $@

$(SOC_FW_DIR)/obj/tessera.o: fw/rt/tsr_soc_main.c fw/rt/tsr_rt.h mk/soc.mk
	$(SOC_FW_NEED_GCC)
	@mkdir -p $(@D)
	$(FW_RV_PREFIX)gcc $(SOC_FW_CFLAGS) -MMD -MP -c $< -o $@

$(SOC_FW_DIR)/obj/%.o: tests/soc/%.c fw/rt/tsr_rt.h mk/soc.mk
	$(SOC_FW_NEED_GCC)
	@mkdir -p $(@D)
	$(FW_RV_PREFIX)gcc $(SOC_FW_CFLAGS) -MMD -MP -c $< -o $@

# The firmware and driver objects are fw-size's (mk/sw.mk): one build, one set of flags. In an
# archive, so that a program links only what it calls.
$(SOC_FW_DIR)/libtsrfw.a: $(FW_RV_OBJS)
	@rm -f $@
	$(FW_RV_PREFIX)ar rcs $@ $^

$(SOC_FW_DIR)/%.elf: $(SOC_FW_DIR)/obj/%.o $(SOC_FWRT_OBJS) $(SOC_FW_DIR)/libtsrfw.a fw/rt/tsr_soc.ld
	$(FW_RV_PREFIX)gcc $(FW_RV_FLAGS) -T fw/rt/tsr_soc.ld -Wl,--defsym=RAM_SIZE=$(SOC_RAM) \
	  -Wl,--no-relax -Wl,--no-warn-rwx-segments -o $@ $(SOC_FWRT_OBJS) $< $(SOC_FW_DIR)/libtsrfw.a -lgcc

.SECONDARY: $(SOC_FW_DIR)/obj/tessera.o $(SOC_FW_PROGS:%=$(SOC_FW_DIR)/obj/%.o)

$(SOC_FW_DIR)/%.bin: $(SOC_FW_DIR)/%.elf
	$(FW_RV_PREFIX)objcopy -O binary $< $@

# One 32-bit little-endian word per line, for $readmemh (a board's RAM initial contents).
$(SOC_FW_DIR)/%.hex: $(SOC_FW_DIR)/%.bin
	od -An -v -tx4 -w4 $< | tr -d ' ' > $@

-include $(wildcard $(SOC_FW_DIR)/obj/*.d)

# ---- the runner and the tests ----------------------------------------------------------
SOC_RUN      := $(SOC_BUILD)/bin/soc_run
SOC_RUN_SRCS := tests/soc/soc_run.c sw/golden/tsr_golden.c sw/driver/tsr_quant.c

$(SOC_RUN): $(SOC_RUN_SRCS) tests/soc/soc_gemm_job.h tb/tsr_soc_sim.h tb/tsr_soc_api.h tests/common/tsr_prng.h mk/soc.mk
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(CWARN) $(CFLAGS) $(SAN) $(INCS) -o $@ $(SOC_RUN_SRCS) -ldl -lm

#   make test-soc         soc-lint, soc-formal, fw-elf, then for each configuration of SOC_CONFIGS (N, or
#                         N/bus-width in bits): the model and tests/soc/test_soc.sh (hello,
#                         GEMMs bit-exact against the golden model, the interrupt path, core and
#                         DMA sharing the memory with and without stalls, the fault cases), and
#                         for the 64-bit bus tests/soc/test_soc_cli.sh (tessera --hal soc: random
#                         GEMMs, every SFU function, fc_two_layers.tflite, faults), then soc-waves-check
SOC_CONFIGS ?= 4 8 4/32 8/128
# The network of test_soc_cli.sh (tests/net/gen_net_models.py, as make test-net writes them; ~6 s).
SOC_NET_MODELS = $(if $(wildcard $(NET_MODELS_DIR)/fc_two_layers.tflite),true,$(PYTHON) tests/net/gen_net_models.py $(NET_MODELS_DIR))
SOC_DIMS    := $(sort $(foreach c,$(SOC_CONFIGS),$(firstword $(subst /, ,$(c)))))

.PHONY: test-soc
test-soc: ## the firmware on a RISC-V core next to the RTL: lint, fw-elf, hello/GEMM/IRQ/shared-memory/fault runs for N = 4, 8 and buses of 32..128 bits (SOC_CONFIGS); tessera --hal soc: 20 random GEMMs, the SFU functions, a network, faults at N = 4, 8
	@set -u; start=$$(date +%s%N); times=""; \
	  step() { name=$$1; shift; t0=$$(date +%s%N); \
	    "$$@" || { echo "test-soc: FAILED: $$name"; exit 1; }; \
	    ms=$$(( ($$(date +%s%N) - t0) / 1000000 )); \
	    times="$$times$$(printf '\n  %-16s %4d.%02d s' "$$name" $$((ms / 1000)) $$((ms % 1000 / 10)))"; }; \
	  step lint $(MAKE) --no-print-directory soc-lint; \
	  step formal $(MAKE) --no-print-directory soc-formal; \
	  step fw-elf $(MAKE) --no-print-directory fw-elf; \
	  step runner $(MAKE) --no-print-directory $(SOC_RUN) $(SW_BIN); \
	  step models $(SOC_NET_MODELS); \
	  for c in $(SOC_CONFIGS); do \
	    d=$${c%/*}; w=64; case $$c in */*) w=$${c#*/};; esac; \
	    tag=d$$d; [ $$w = 64 ] || tag=d$${d}_axi$$w; \
	    step "model $$c" $(MAKE) --no-print-directory soc-sim DIM=$$d SOC_AXI=$$w; \
	    echo "test-soc: N=$$d, $$w-bit memory bus"; \
	    step "runs $$c" $(SOC_NICE) tests/soc/test_soc.sh $(SOC_RUN) $(SOC_BUILD)/lib/libtsrsoc_$$tag.so $(SOC_FW_DIR); \
	    if [ $$w = 64 ]; then \
	      step "tessera $$c" $(SOC_NICE) tests/soc/test_soc_cli.sh $(SW_BIN) $$d $(NET_MODELS_DIR) $(SOC_FW_DIR); fi; \
	  done; \
	  step waves $(MAKE) --no-print-directory soc-waves-check; \
	  echo "test-soc: time per step:$$times"; \
	  ms=$$(( ($$(date +%s%N) - start) / 1000000 )); \
	  echo "test-soc: PASSED in $$((ms / 1000)).$$((ms % 1000 / 100)) s"

# Every signal of tb/tsr_soc.gtkw must be in a trace (GTKWave skips unknown names silently):
# irq.elf traced at N = $(firstword $(SOC_DIMS)), the names read from fst2vcd's header as in
# tb.mk's waves-check (which is tied to tb/tessera.gtkw).
SOC_WAVES_DIR := $(SOC_BUILD)/waves
.PHONY: soc-waves-check
soc-waves-check: $(SOC_RUN) ## trace irq.elf on the SoC and check that every signal of tb/tsr_soc.gtkw is in it
	@command -v fst2vcd >/dev/null 2>&1 || { echo "soc-waves-check: fst2vcd not found: apt-get install gtkwave" >&2; exit 1; }
	@$(MAKE) --no-print-directory soc-sim fw-elf DIM=$(firstword $(SOC_DIMS)) >/dev/null
	@mkdir -p $(SOC_WAVES_DIR)
	@$(SOC_RUN) --lib $(SOC_BUILD)/lib/libtsrsoc_d$(firstword $(SOC_DIMS)).so --trace $(SOC_WAVES_DIR)/irq.fst \
	  $(SOC_FW_DIR)/irq.elf > $(SOC_WAVES_DIR)/irq.log || { cat $(SOC_WAVES_DIR)/irq.log; exit 1; }
	@fst2vcd $(SOC_WAVES_DIR)/irq.fst 2>/dev/null | sed '/\$$enddefinitions/q' | awk ' \
	  $$1 == "$$scope" { path[++d] = $$3; next } \
	  $$1 == "$$upscope" { d--; next } \
	  $$1 == "$$var" { n = ""; for (i = 1; i <= d; i++) n = n path[i] "."; \
	    n = n $$5; if ($$6 != "$$end") n = n $$6; print n }' | sort -u > $(SOC_WAVES_DIR)/names
	@grep -vE '^(\[|@|-|\*)' tb/tsr_soc.gtkw | grep . | sort -u > $(SOC_WAVES_DIR)/wanted
	@missing=$$(comm -23 $(SOC_WAVES_DIR)/wanted $(SOC_WAVES_DIR)/names); \
	  if [ -n "$$missing" ]; then echo "soc-waves-check: not in the trace:"; echo "$$missing" | sed 's/^/  /'; exit 1; fi; \
	  echo "soc-waves-check: all $$(wc -l < $(SOC_WAVES_DIR)/wanted) signals of tb/tsr_soc.gtkw are in a trace of irq.elf"

# The arbiter's `ifdef FORMAL properties (rtl/soc/tsr_soc_axi_arb.v), bounded model checking
# from reset with tools/formal.py: depth 8 takes about 12 s, 12 about 4 minutes.
SOC_FORMAL_DEPTH ?= 8
.PHONY: soc-formal
soc-formal: ## BMC of the SoC arbiter's properties (AXI held until taken, every beat to its owner), depth SOC_FORMAL_DEPTH
	@$(SOC_NICE) $(PYTHON) tools/formal.py --name soc_arb --top tsr_soc_axi_arb --depth $(SOC_FORMAL_DEPTH) --bmc-only \
	  --set Depth=4 --build $(BUILD) rtl/soc/tsr_soc_axi_arb.v rtl/soc/tsr_soc_srcq.v

# tests/unit/test_gemm_search.c (make test-unit-gemm_search): the planner's bounded search, which
# keeps the planning on the SoC's core short, against the exhaustive one.
UNIT_SRCS_test_gemm_search := $(FW_SRCS) sw/driver/tsr_driver.c sw/hal/tsr_hal.c

#   make soc-figures      the figures of docs/performance.md's SoC section (long: ~15-30 minutes):
#                         each job of SOC_FIG_JOBS on the chip alone and on the SoC at
#                         N = SOC_FIG_DIM (tests/soc/soc_figures.sh), JSON in build/soc/figures/
SOC_FIG_DIM  ?= 8
SOC_FIG_JOBS ?= gemm:64x64x64 gemm:256x256x256 gemm:1x1024x1024 net:digits_mlp net:digits_cnn
.PHONY: soc-figures
soc-figures: ## (long) the SoC figures of docs/performance.md: SOC_FIG_JOBS on the chip alone and on the SoC at N = SOC_FIG_DIM
	@$(MAKE) --no-print-directory fw-elf $(SW_BIN) >/dev/null
	@$(MAKE) --no-print-directory soc-sim sim DIM=$(SOC_FIG_DIM)
	@$(if $(wildcard $(NET_MODELS_DIR)/digits_mlp.tflite),true,$(PYTHON) tests/net/gen_net_models.py $(NET_MODELS_DIR))
	$(SOC_NICE) tests/soc/soc_figures.sh $(SW_BIN) $(SOC_FIG_DIM) $(NET_MODELS_DIR) $(SOC_BUILD)/figures $(SOC_FIG_JOBS)
