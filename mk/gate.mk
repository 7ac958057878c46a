# mk/gate.mk: gate-level simulation of the synthesized chip (issue #5, item 5).
#
#   make gate-sim     Yosys generic synthesis of tsr_top (GATE_DIM, default 4; GATE_LANES
#                     store lanes, default GATE_DIM; the same recipe as synth-check:
#                     `synth` minus memory_map, so the RAMs stay arrays) written out as a
#                     gate-level Verilog netlist (build/gate/d<N>-l<L>/tsr_top_netlist.v),
#                     Verilated into the same C bench as the RTL (its own tree, b/ next to
#                     the netlist), then GATE_GEMMS random GEMMs
#                     (test_sys_gemm), every error case (test_sys_errors) and GATE_SFU
#                     rounds of every SFU function (test_sys_sfu: MAP, REDUCE, SOFTMAX,
#                     LAYERNORM, ADD, fused GEMM + table, its error paths) and the GEMM
#                     case seeds GATE_REPLAY on it, all bit-exact against the golden
#                     model. A mismatch between simulation and synthesis semantics
#                     fails here and nowhere else.
#
# Not part of `make test` (synthesis and the netlist's Verilator build take minutes).

GATE_DIM     ?= 4
GATE_LANES   ?= $(GATE_DIM)
GATE_GEMMS   ?= 20
GATE_SFU     ?= 2
GATE_DIR     := $(BUILD)/gate/d$(GATE_DIM)-l$(GATE_LANES)
GATE_NETLIST := $(GATE_DIR)/tsr_top_netlist.v
# The system test programs (mk/system.mk).
GATE_SYS     := $(BUILD)/tests/system
# The chip only: the UART bridge is not part of tsr_top.
GATE_RTL     := $(filter-out rtl/tsr_uart_%,$(RTL_SRCS))

$(GATE_NETLIST): $(GATE_RTL) mk/gate.mk
	@command -v $(YOSYS) >/dev/null || { echo "gate-sim: yosys not found; install the Debian package 'yosys'"; exit 1; }
	@mkdir -p $(@D)
	@printf '%s\n' 'read_verilog -DSYNTHESIS $(GATE_RTL)' 'chparam -set ArrayDim $(GATE_DIM) -set StoreLanes $(GATE_LANES) tsr_top' \
	  'synth -top tsr_top -flatten -run :fine' 'opt -fast -full' 'techmap' 'opt -fast' 'abc -fast' \
	  'opt -fast' 'clean -purge' 'splitnets' 'write_verilog -noattr $@.tmp' 'stat' > $(GATE_DIR)/gate.ys
	@echo "gate-sim: Yosys netlist of tsr_top, N = $(GATE_DIM), $(GATE_LANES) store lanes (log: $(GATE_DIR)/yosys.log)"
	@start=$$(date +%s); nice $(YOSYS) -q -l $(GATE_DIR)/yosys.log $(GATE_DIR)/gate.ys \
	  || { tail -20 $(GATE_DIR)/yosys.log; exit 1; }; \
	  mv $@.tmp $@; echo "gate-sim: netlist in $$(( $$(date +%s) - start )) s: $$(grep -c '^  assign\|always' $@) assigns and processes"

# Every internal net is split into single bits (`splitnets`) before the netlist is
# written. Without it, Yosys' gate-level vectors have bits that feed one another, which
# Verilator sees as combinational loops (UNOPTFLAT), and Verilator 5.006 then computed
# wrong values: a synthesized tsr_array that Icarus simulates correctly failed its block
# test under Verilator (N = 16 on the int32 array of db7c170; N = 4 with narrow partial
# sums). Split, the netlist has no UNOPTFLAT and nothing is waived.
#
# The netlist is Verilated without V3Const's bit-op-tree rewrite (-fno-const-bit-op-tree).
# With it, Verilator 5.006 computed the netlist of a1a58a4 (the SFU register file in LUT
# RAM) wrong: bit 31 of tsr_requant's stage-2 product ah*bh in store lanes 1 and 2 came
# out 1 for two zero operands, so requant(x, mult 0, shift 30) gave zp - 1
# (test_sys_gemm seed 3914115480: C[0][102] = 42, expected -28). The netlist itself is
# right: that product's 2,010 gates, cut out (fpga/gate/tsr_gate_cone.v), give a*b
# under Icarus Verilog and under Verilator with the flag, and are wrong for every input
# under Verilator without it (gate-cone-check). Upstream: verilator/verilator#4059 (a
# Yosys netlist, fixed after 5.009) and #5186 (an XOR tree at bit 31).
GATE_WFLAGS  := -fno-const-bit-op-tree
# Case seeds replayed on every netlist: ones that have caught a mismatch before.
GATE_REPLAY  ?= 3914115480
# The cut of that netlist Verilator got wrong (fpga/gate/tsr_gate_cone.v: lane 1's ah*bh),
# built the way the netlist is (-O3, TB_XFLAGS, GATE_WFLAGS): it must compute 2,000
# products right. Without -fno-const-bit-op-tree Verilator 5.006 gets all 2,000 wrong.
GATE_CONE_DIR := $(BUILD)/gate/cone
GATE_CONE_SRC := fpga/gate/tsr_gate_cone_tb.v fpga/gate/tsr_gate_cone.v

.PHONY: gate-cone-check
gate-cone-check: ## the netlist cut Verilator 5.006 mis-simulated (fpga/gate/): right with the gate-sim flags
	@rm -rf $(GATE_CONE_DIR) && mkdir -p $(GATE_CONE_DIR)
	@$(VERILATOR) --binary --timing -O3 $(TB_XFLAGS) $(GATE_WFLAGS) -Wall --top-module tsr_gate_cone_tb \
	  --Mdir $(GATE_CONE_DIR) -j 2 $(GATE_CONE_SRC) > $(GATE_CONE_DIR)/verilator.log 2>&1 \
	  || { tail -20 $(GATE_CONE_DIR)/verilator.log; exit 1; }
	@set -o pipefail; $(GATE_CONE_DIR)/Vtsr_gate_cone_tb 2>/dev/null | grep '^tsr_gate_cone_tb' \
	  || { echo "gate-cone-check: FAIL: Verilator flags '$(GATE_WFLAGS)' mis-simulate the netlist cut"; exit 1; }

.PHONY: gate-sim
gate-sim: gate-cone-check $(GATE_NETLIST) $(GATE_SYS)/test_sys_gemm $(GATE_SYS)/test_sys_errors $(GATE_SYS)/test_sys_sfu ## gate-level simulation: the Yosys netlist of tsr_top (N=4) through the C bench, random GEMMs, every error case and every SFU function bit-exact
	@$(MAKE) --no-print-directory BUILD=$(GATE_DIR)/b sim DIM=$(GATE_DIM) TB_RTL_SRCS=$(GATE_NETLIST) TB_PARAMS= \
	  TB_WFLAGS="$(GATE_WFLAGS)"
	@set -o pipefail; TSR_SIM_LIB_DIR=$(GATE_DIR)/b/lib $(GATE_SYS)/test_sys_gemm --dim $(GATE_DIM) \
	  --count $(GATE_GEMMS) 2>&1 | tee $(GATE_DIR)/gemm.log
	@set -o pipefail; for s in $(GATE_REPLAY); do TSR_SIM_LIB_DIR=$(GATE_DIR)/b/lib \
	  $(GATE_SYS)/test_sys_gemm --dim $(GATE_DIM) --seed $$s || exit 1; done 2>&1 | tee $(GATE_DIR)/replay.log
	@set -o pipefail; TSR_SIM_LIB_DIR=$(GATE_DIR)/b/lib $(GATE_SYS)/test_sys_errors --dim $(GATE_DIM) \
	  2>&1 | tee $(GATE_DIR)/errors.log
	@set -o pipefail; TSR_SIM_LIB_DIR=$(GATE_DIR)/b/lib $(GATE_SYS)/test_sys_sfu --dim $(GATE_DIM) \
	  --count $(GATE_SFU) 2>&1 | tee $(GATE_DIR)/sfu.log
	@gemms=$$(sed -n 's/.*: all \([0-9]*\) cases bit-exact.*/\1/p' $(GATE_DIR)/gemm.log); \
	  errs=$$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' $(GATE_DIR)/errors.log); \
	  seed=$$(sed -n 's/.*, base seed \([0-9]*\) .*/\1/p' $(GATE_DIR)/gemm.log); \
	  cells=$$(sed -n 's/^ *Number of cells: *\([0-9]*\)$$/\1/p' $(GATE_DIR)/yosys.log | tail -1); \
	  echo "gate-sim: PASS: netlist of tsr_top (N = $(GATE_DIM), $(GATE_LANES) store lanes, $$cells cells): $$gemms random GEMMs, $$errs error cases, $(GATE_SFU) rounds of every SFU function and the replayed case seeds $(GATE_REPLAY) bit-exact (base seed $$seed)"
