# mk/bench.mk: the performance sweep and its roofline (docs/performance.md).
#
#   make bench              the whole sweep on DIM=N (default 8): build/bench/{bench.json,bench.csv,
#                           roofline.png,roofline.svg}; regenerates docs/performance.md and
#                           docs/roofline.svg. Every point is checked bit-exact. A few minutes.
#   make bench-quick        a short subset into build/bench-quick (no docs)

BENCH_DIR := $(BUILD)/bench

.PHONY: bench bench-quick
bench: sim $(SW_BIN) ## GEMM sweep (square, batch, ResNet-50, BERT, bandwidth) with a gnuplot roofline; regenerates docs/performance.md
	@command -v gnuplot >/dev/null || { echo "bench: gnuplot not found: run tools/install-deps.sh (Debian package gnuplot-nox)"; exit 1; }
	TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tools/bench.py --tessera $(SW_BIN) --dim $(DIM) \
	  --out $(BENCH_DIR) --doc docs/performance.md

bench-quick: sim $(SW_BIN) ## a short subset of the bench sweep (build/bench-quick), no docs
	@command -v gnuplot >/dev/null || { echo "bench: gnuplot not found: run tools/install-deps.sh (Debian package gnuplot-nox)"; exit 1; }
	TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tools/bench.py --tessera $(SW_BIN) --dim $(DIM) \
	  --out $(BUILD)/bench-quick --quick
