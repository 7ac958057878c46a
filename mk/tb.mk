# mk/tb.mk: the Verilator test bench library (tb/) and its tests.
#
#   make sim DIM=8        build/lib/libtsrsim_d8.so: Verilated tsr_top (ArrayDim=8) + the C bench
#   make test-tb          unit tests of the C memory model (no Verilator)
#   make sim-smoke DIM=8  dlopen the library and run one end-to-end transaction set
#
# One library per DIM, each in its own build/sim/d<N>/ tree, so 4, 8 and 16
# coexist. The library exports exactly the tsr_sim_* functions of tb/tsr_sim.h;
# the link step checks this. Tracing is compiled in and costs nothing unless
# tsr_sim_cfg_t.trace_path is set.
#
# TB_RTL_SRCS selects what is Verilated (default: the whole RTL, $(RTL_SRCS)).
# Override it to try the bench on another tsr_top, e.g.
#   make sim TB_RTL_SRCS="/tmp/standin/tsr_top.v /tmp/standin/tsr_ctrl.v"
# A change of sources or flags rebuilds the model.

VERILATOR ?= verilator
TB_RTL_SRCS ?= $(RTL_SRCS)

TB_DIR      := $(BUILD)/sim/d$(DIM)
TB_VDIR     := $(TB_DIR)/verilated
TB_SO       := $(BUILD)/lib/libtsrsim_d$(DIM).so
TB_VMODEL   := $(TB_VDIR)/Vtsr_top__ALL.a
TB_RT_DIR   := $(BUILD)/sim/runtime
TB_RT_OBJS  := $(addprefix $(TB_RT_DIR)/,verilated.o verilated_threads.o verilated_fst_c.o \
                 $(if $(filter 1,$(TB_COVERAGE)),verilated_cov.o))
TB_C_OBJS   := $(TB_DIR)/tsr_sim.o $(TB_DIR)/tsr_axi_mem.o
TB_SHIM_OBJ := $(TB_DIR)/tsr_sim_shim.o
TB_HDRS     := tb/tsr_sim.h tb/tsr_sim_shim.h tb/tsr_vshim.h tb/tsr_axi_mem.h

# Verilator: -O3 on the netlist. Its C++ for the per-cycle code gets -O2
# instead of Verilator's -Os (15-20% faster simulation at N=8); run-once
# code (constructors, trace declarations) keeps -O0, since -O1 there doubles
# the compile time for no speed. The generated Makefile compiles the split
# files with -j 2. Everything is -fPIC for the shared library and hidden
# unless marked for export.
# TB_XFLAGS: how X and initial values are modelled (mk/trust.mk builds a
# copy with "--x-assign unique --x-initial unique" for make test-xrand).
TB_XFLAGS ?= --x-assign fast --x-initial fast
# TB_COVERAGE=1: line, branch and toggle coverage (mk/coverage.mk builds such a
# copy); the shim writes it to $$TSR_SIM_COVERAGE_DIR when a simulation ends.
TB_COVERAGE ?= 0
TB_COV_VFLAGS := $(if $(filter 1,$(TB_COVERAGE)),--coverage-line --coverage-toggle)
# TB_PARAMS: tsr_top's parameters (empty for a netlist, which has none: mk/gate.mk).
TB_PARAMS ?= -GArrayDim=$(DIM)
# TB_WFLAGS: warning waivers for a tsr_top other than the RTL (empty for the RTL, which
# lints clean; mk/gate.mk waives UNOPTFLAT for the netlist). Empty, it leaves the
# command line, and so every model already built, unchanged.
TB_WFLAGS ?=
TB_VFLAGS := --cc --build -j 2 --top-module tsr_top --prefix Vtsr_top \
  $(TB_PARAMS) -O3 $(TB_XFLAGS)$(if $(TB_WFLAGS), $(TB_WFLAGS)) $(TB_COV_VFLAGS) --trace-fst \
  -CFLAGS -fPIC -CFLAGS -fvisibility=hidden -MAKEFLAGS OPT_FAST=-O2
TB_VCMD = $(VERILATOR) $(TB_VFLAGS) --Mdir $(TB_VDIR) $(TB_RTL_SRCS)

# Verilator's run-time library, compiled once for every DIM with the flags its
# generated Makefile would use (plus -fPIC, hidden symbols, -O2).
TB_RT_FLAGS = -I$(TB_VROOT)/include -I$(TB_VROOT)/include/vltstd \
  -DVM_COVERAGE=$(TB_COVERAGE) -DVM_SC=0 -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 \
  -faligned-new -Wno-bool-operation -Wno-sign-compare -Wno-uninitialized \
  -Wno-unused-but-set-variable -Wno-unused-parameter -Wno-unused-variable -Wno-shadow \
  -fPIC -fvisibility=hidden -O2

# The bench's own code: C with the house flags, C++ only in the shim.
TB_CFLAGS   = $(CSTD) $(CWARN) $(CFLAGS) -fPIC -fvisibility=hidden $(INCS) -DTSR_SIM_ARRAY_DIM=$(DIM)
TB_VROOT    = $(shell $(VERILATOR) --getenv VERILATOR_ROOT)
TB_CXXFLAGS = -std=gnu++17 -Wall -Wextra -Werror $(CFLAGS) -fPIC -fvisibility=hidden \
  -fvisibility-inlines-hidden -Itb -I$(TB_VDIR) \
  -isystem $(TB_VROOT)/include -isystem $(TB_VROOT)/include/vltstd \
  -DVM_TRACE=1 -DVM_TRACE_FST=1 -DVM_TRACE_VCD=0 -DVM_COVERAGE=$(TB_COVERAGE) -DVM_SC=0
TB_LDLIBS   = -lz -pthread -latomic

TB_NEED_VERILATOR = @command -v $(VERILATOR) >/dev/null 2>&1 || \
  { echo "tb: $(VERILATOR) not found: apt-get install verilator (>= 5.006)" >&2; exit 1; }

.PHONY: sim tb-force
sim: $(TB_SO) ## build the Verilator model for DIM=N (build/lib/libtsrsim_dN.so)

# The Verilator command line, rewritten only when it changes (new sources,
# flags or DIM override), so that such a change forces a new model.
$(TB_DIR)/verilator.cmd: tb-force
	@mkdir -p $(@D)
	@echo '$(TB_VCMD)' | cmp -s - $@ || echo '$(TB_VCMD)' > $@

$(TB_VMODEL): $(TB_RTL_SRCS) $(RTL_INCS) $(TB_DIR)/verilator.cmd $(TB_RT_DIR)/flags.txt
	$(TB_NEED_VERILATOR)
	@mkdir -p $(TB_VDIR)
	@echo "tb: verilating tsr_top ArrayDim=$(DIM) into $(TB_VDIR) (log: $(TB_DIR)/verilator.log)"
	@start=$$(date +%s); \
	  $(TB_VCMD) > $(TB_DIR)/verilator.log 2>&1 || { cat $(TB_DIR)/verilator.log; exit 1; }; \
	  echo "tb: model for DIM=$(DIM) built in $$(( $$(date +%s) - start )) s"
	@grep -E '^%(Warning|Error)' $(TB_DIR)/verilator.log || true
	@touch $@

# Same trick for the run-time library: its flags and the Verilator version
# (a new Verilator also rebuilds every model).
$(TB_RT_DIR)/flags.txt: tb-force
	$(TB_NEED_VERILATOR)
	@mkdir -p $(@D)
	@{ $(VERILATOR) --version; echo '$(CXX) $(TB_RT_FLAGS)'; } > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

$(TB_RT_DIR)/%.o: $(TB_RT_DIR)/flags.txt
	$(CXX) $(TB_RT_FLAGS) -c $(TB_VROOT)/include/$*.cpp -o $@

$(TB_DIR)/%.o: tb/%.c $(TB_HDRS) mk/tb.mk
	@mkdir -p $(@D)
	$(CC) $(TB_CFLAGS) -c $< -o $@

$(TB_SHIM_OBJ): tb/tsr_sim_shim.cpp $(TB_HDRS) $(TB_VMODEL)
	$(CXX) $(TB_CXXFLAGS) -c $< -o $@

# Export list: every tsr_sim_* function declared in tb/tsr_sim.h.
$(TB_DIR)/tsr_sim.exports: tb/tsr_sim.h
	@mkdir -p $(@D)
	@grep -oE '\btsr_sim_[a-z0-9_]+\(' $< | tr -d '(' | sort -u > $@

$(TB_DIR)/tsr_sim.map: $(TB_DIR)/tsr_sim.exports
	@{ echo '{ global:'; sed 's/$$/;/' $<; echo 'local: *; };'; } > $@

$(TB_SO): $(TB_SHIM_OBJ) $(TB_C_OBJS) $(TB_VMODEL) $(TB_RT_OBJS) $(TB_DIR)/tsr_sim.map
	@mkdir -p $(@D)
	$(CXX) -shared -o $@ $(TB_SHIM_OBJ) $(TB_C_OBJS) $(TB_VMODEL) $(TB_RT_OBJS) \
	  -Wl,--version-script=$(TB_DIR)/tsr_sim.map -Wl,--no-undefined -Wl,-O1 $(TB_LDLIBS)
	@nm -D --defined-only $@ | awk '{ print $$3 }' | sort -u > $(TB_DIR)/tsr_sim.exported
	@cmp -s $(TB_DIR)/tsr_sim.exports $(TB_DIR)/tsr_sim.exported || { \
	  echo "tb: $@ exports differ from the functions of tb/tsr_sim.h (< wanted, > exported):" >&2; \
	  diff $(TB_DIR)/tsr_sim.exports $(TB_DIR)/tsr_sim.exported >&2; rm -f $@; exit 1; }
	@echo "tb: $@ ready (ArrayDim=$(DIM), $$(wc -l < $(TB_DIR)/tsr_sim.exported) functions exported)"

# ---- tests ---------------------------------------------------------------

TB_TEST_DIR := $(BUILD)/tests/tb
TB_TFLAGS    = $(CSTD) $(CWARN) $(CFLAGS) $(SAN) $(INCS)
TB_NEED_CMOCKA = @printf '\#include <stdarg.h>\n\#include <stddef.h>\n\#include <setjmp.h>\n\#include <cmocka.h>\n' | \
  $(CC) -E -x c - >/dev/null 2>&1 || { echo "tb: cmocka not found: apt-get install libcmocka-dev" >&2; exit 1; }

$(TB_TEST_DIR)/test_tb_memmodel: tests/tb/test_tb_memmodel.c tb/tsr_axi_mem.c tb/tsr_axi_mem.h tb/tsr_sim.h mk/tb.mk
	$(TB_NEED_CMOCKA)
	@mkdir -p $(@D)
	$(CC) $(TB_TFLAGS) -o $@ tests/tb/test_tb_memmodel.c tb/tsr_axi_mem.c -lcmocka

$(TB_TEST_DIR)/smoke_sim: tests/tb/smoke_sim.c tb/tsr_sim.h mk/tb.mk
	@mkdir -p $(@D)
	$(CC) $(TB_TFLAGS) -o $@ $< -ldl

.PHONY: test-tb sim-smoke
test-tb: $(TB_TEST_DIR)/test_tb_memmodel ## test the bench's memory model
	$(TB_TEST_DIR)/test_tb_memmodel

# SMOKE_ARGS passes options, e.g. SMOKE_ARGS='--trace build/smoke.fst --seed 7'.
SMOKE_ARGS ?=
sim-smoke: $(TB_SO) $(TB_TEST_DIR)/smoke_sim ## dlopen libtsrsim_dN.so and run registers, DMA, IRQ, watchdog end to end
	$(TB_TEST_DIR)/smoke_sim $(TB_SO) $(SMOKE_ARGS)

# Every signal named in tb/tessera.gtkw must exist in a trace (GTKWave skips
# unknown names silently). The names come from fst2vcd's header.
FST ?=
.PHONY: waves-check
waves-check: ## list signals of tb/tessera.gtkw missing from FST=<trace.fst>
	@test -n "$(FST)" || { echo "waves-check: give a trace: make waves-check FST=out.fst" >&2; exit 1; }
	@command -v fst2vcd >/dev/null 2>&1 || { echo "waves-check: fst2vcd not found: apt-get install gtkwave" >&2; exit 1; }
	@mkdir -p $(BUILD)
	@fst2vcd $(FST) 2>/dev/null | sed '/\$$enddefinitions/q' | awk ' \
	  $$1 == "$$scope" { path[++d] = $$3; next } \
	  $$1 == "$$upscope" { d--; next } \
	  $$1 == "$$var" { n = ""; for (i = 1; i <= d; i++) n = n path[i] "."; \
	    n = n $$5; if ($$6 != "$$end") n = n $$6; print n }' | sort -u > $(BUILD)/waves-check.names
	@grep -vE '^(\[|@|-|\*)' tb/tessera.gtkw | sort -u > $(BUILD)/waves-check.wanted
	@missing=$$(comm -23 $(BUILD)/waves-check.wanted $(BUILD)/waves-check.names); \
	  if [ -n "$$missing" ]; then echo "waves-check: not in $(FST):"; echo "$$missing" | sed 's/^/  /'; exit 1; fi; \
	  echo "waves-check: all $$(wc -l < $(BUILD)/waves-check.wanted) signals of tb/tessera.gtkw are in $(FST)"
