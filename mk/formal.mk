# mk/formal.mk: formal proofs (k-induction) of the `ifdef FORMAL properties beside the RTL.
#
# tools/formal.py drives Yosys (read_verilog -formal -DFORMAL; prep; async2sync) and proves
# each property set by k-induction with Yosys's `sat -tempinduct` (base case from reset plus
# induction step). --engine smtbmc uses yosys-smtbmc + z3 instead; see docs/formal.md.
# Outputs and counterexample traces (VCD): build/formal/<name>/.

FORMAL      := $(PYTHON) tools/formal.py --build $(BUILD)
# <name>: <depth> <top> <files> [--set Param=Value ...]
FORMAL_regs := --depth 8 --top tsr_regs rtl/regs/tsr_regs.v
FORMAL_PROOFS ?= regs

.PHONY: formal
formal: ## prove the formal properties by k-induction (AXI4-Lite slave; docs/formal.md)
	@command -v $(YOSYS) >/dev/null || { echo "formal: yosys not found: apt-get install yosys"; exit 1; }
	@fail=0; for p in $(FORMAL_PROOFS); do \
	  case $$p in \
	    regs) $(FORMAL) --name regs $(FORMAL_regs) || fail=1 ;; \
	  esac; \
	done; \
	if [ $$fail -eq 0 ]; then echo "formal: PASS ($(words $(FORMAL_PROOFS)) proofs)"; else echo "formal: FAIL"; exit 1; fi
