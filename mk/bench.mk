# mk/bench.mk: the performance sweep and its roofline (docs/performance.md).
#
#   make bench              `tessera bench` on each array size of BENCH_DIMS (8 and 16): the whole
#                           sweep, each point checked bit-exact, into build/bench/dN/{bench.json,
#                           bench.csv,roofline.gp,roofline.png,roofline.svg}; then tools/bench.py
#                           regenerates docs/performance.md and docs/roofline-dN.svg from them.
#                           About a minute.
#   make bench-quick        `tessera bench --quick`: 12 of the 23 points into build/bench-quick (no docs;
#                           without gnuplot the plot is skipped with a message)

BENCH_DIR  := $(BUILD)/bench
BENCH_DIMS ?= 8 16

.PHONY: bench bench-quick
bench: $(SW_BIN) ## GEMM sweep (tessera bench: square, batch, ResNet-50, BERT, bandwidth) on N = 8 and 16 with gnuplot rooflines; regenerates docs/performance.md
	@command -v gnuplot >/dev/null || { echo "bench: gnuplot not found: run tools/install-deps.sh (Debian package gnuplot-nox)"; exit 1; }
	@for d in $(BENCH_DIMS); do $(MAKE) --no-print-directory sim DIM=$$d || exit 1; done
	@for d in $(BENCH_DIMS); do \
	  TSR_SIM_LIB_DIR=$(BUILD)/lib $(SW_BIN) bench --dim $$d --out $(BENCH_DIR)/d$$d || exit 1; done
	$(PYTHON) tools/bench.py --doc-only --doc docs/performance.md $(foreach d,$(BENCH_DIMS),--out $(BENCH_DIR)/d$(d))

bench-quick: sim $(SW_BIN) ## tessera bench --quick: a short subset of the sweep (build/bench-quick), no docs
	TSR_SIM_LIB_DIR=$(BUILD)/lib $(SW_BIN) bench --dim $(DIM) --out $(BUILD)/bench-quick --quick

# Simulation speed: the C bench (tessera gemm 256^3) and one Verilog bench under Verilator
# (1 and 2 threads) and Icarus, for N = 8 and 16 (BENCH_SIM_DIMS).
BENCH_SIM_DIMS ?= 8 16
PERF_DIR       := $(BUILD)/perf
PERF_TB        := tests/perf/tsr_top_perf_tb.v
PERF_VFLAGS    := --binary --timing -j 2 -O3 --quiet-exit -Wno-fatal -Wno-lint -Wno-style \
                  --top-module tsr_top_perf_tb -o Vtb

$(PERF_DIR)/d%/verilator/Vtb: $(PERF_TB) $(RTL_SRCS)
	@mkdir -p $(@D)
	$(VERILATOR) $(PERF_VFLAGS) -GArrayDim=$* --Mdir $(@D) $(PERF_TB) $(RTL_SRCS) > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }

$(PERF_DIR)/d%/verilator-mt/Vtb: $(PERF_TB) $(RTL_SRCS)
	@mkdir -p $(@D)
	$(VERILATOR) $(PERF_VFLAGS) --threads 2 -GArrayDim=$* --Mdir $(@D) $(PERF_TB) $(RTL_SRCS) > $(@D)/build.log 2>&1 || { cat $(@D)/build.log; exit 1; }

$(PERF_DIR)/d%/iverilog/tb.vvp: $(PERF_TB) $(RTL_SRCS)
	@command -v $(IVERILOG) >/dev/null || { echo "bench-sim: $(IVERILOG) not found: apt-get install iverilog"; exit 1; }
	@mkdir -p $(@D)
	$(IVERILOG) -g2012 -Wno-timescale -P tsr_top_perf_tb.ArrayDim=$* -s tsr_top_perf_tb -o $@ $(PERF_TB) $(RTL_SRCS)

.PHONY: bench-sim
bench-sim: $(SW_BIN) $(foreach d,$(BENCH_SIM_DIMS),$(PERF_DIR)/d$(d)/verilator/Vtb $(PERF_DIR)/d$(d)/verilator-mt/Vtb $(PERF_DIR)/d$(d)/iverilog/tb.vvp) ## simulation speed (cycles/s, PE-cycles/s) for N = 8, 16: Verilator 1 and 2 threads, Icarus; updates docs/performance.md
	@for d in $(BENCH_SIM_DIMS); do $(MAKE) --no-print-directory sim DIM=$$d || exit 1; done
	TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tools/bench_sim.py --tessera $(SW_BIN) --build $(PERF_DIR) \
	  --dims $(subst $(sys_space),$(sys_comma),$(strip $(BENCH_SIM_DIMS))) --out $(BENCH_DIR) --doc docs/performance.md
