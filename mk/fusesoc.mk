# mk/fusesoc.mk: Tessera as a FuseSoC core (tessera.core; the guide is docs/integration.md).
#
#   make fusesoc-check   the core, checked the way an integrator would use it (in make test,
#                        a few seconds):
#                        1. tools/fusesoc_check.py: the core's filesets are exactly the files
#                           the Makefile builds (RTL_SRCS, RTL_INCS, PERF_TB, the ULX3S top's
#                           sources and pins) and its version is the ID register's;
#                        2. FuseSoC parses it (fusesoc core-info);
#                        3. its lint target (Verilator --lint-only -Wall) passes at the RTL's
#                           defaults and at ArrayDim=16 StoreLanes=4 EnableSfu=0, and fails
#                           with StoreLanes=3 (so the parameters do reach the RTL);
#                        4. its sim and ulx3s targets set up, and Yosys reads and elaborates
#                           the ulx3s target's files as edalize wrote them
#                           (fpga/tsr_fusesoc_ulx3s.tcl). Nothing is synthesized or routed.
#
# FuseSoC runs with a configuration of its own, written to build/fusesoc/fusesoc.conf (its
# cache, libraries and build root all under build/fusesoc/), and with this repository as its
# only core library, so it writes nothing in ~ or in the source tree, and a user's
# fusesoc.conf or FUSESOC_CORES changes nothing. build/FUSESOC_IGNORE keeps FuseSoC from
# looking for cores in build/. Every run is --clean, so that a work directory holds only
# what the core lists now, never a file exported by an earlier run.
# fusesoc and edalize are pinned in tools/install-deps.sh.

FUSESOC_DIR  := $(BUILD)/fusesoc
FUSESOC_CONF := $(FUSESOC_DIR)/fusesoc.conf
FUSESOC_CORE := tessera:tessera:tessera
FUSESOC       = env -u FUSESOC_CORES $(PYTHON) -m fusesoc.main --config $(FUSESOC_CONF) --cores-root $(CURDIR)
# The ulx3s target's files besides the RTL: the board top, the fpga/ sources every board top
# uses (mk/synth.mk's lint list without its vendor stubs) and the pins.
FUSESOC_ULX3S = fpga/boards/tsr_board_ulx3s.v $(filter-out fpga/lint/%,$(filter fpga/%,$(BOARD_LINT_SRCS))) \
                constraints/ulx3s.lpf

# $(call fusesoc_step,WHAT,LOG,COMMAND): run COMMAND with its output in LOG; when it fails,
# one line: what failed, the log's first error (or its last line) and where the log is.
fusesoc_step = $(3) >$(2) 2>&1 || { \
  echo "fusesoc-check: FAIL: $(1): $$(grep -m1 -E '^%(Error|Warning)|Error validating|ERROR|[Ee]rror:' $(2) || tail -n1 $(2)) (log: $(2))"; \
  exit 1; }

.PHONY: fusesoc-check
fusesoc-check: ## the FuseSoC core tessera.core: lists the Makefile's files, parses, lint target clean (Verilator -Wall), sim and ulx3s targets set up
	@$(PYTHON) -c 'import fusesoc.main, edalize' 2>/dev/null || { echo "fusesoc-check: FuseSoC not found for $(PYTHON): run make deps (or pip install fusesoc edalize at the versions tools/install-deps.sh pins)"; exit 1; }
	@command -v $(VERILATOR) >/dev/null || { echo "fusesoc-check: verilator not found; install the Debian package 'verilator'"; exit 1; }
	@command -v $(YOSYS) >/dev/null || { echo "fusesoc-check: yosys not found; install the Debian package 'yosys'"; exit 1; }
	@mkdir -p $(FUSESOC_DIR) && touch $(BUILD)/FUSESOC_IGNORE
	@printf '[main]\ncache_root = %s\nlibrary_root = %s\nbuild_root = %s\n' \
	  $(abspath $(FUSESOC_DIR))/cache $(abspath $(FUSESOC_DIR))/lib $(abspath $(FUSESOC_DIR))/build > $(FUSESOC_CONF)
	@$(PYTHON) tools/fusesoc_check.py --core tessera.core --rtl "$(RTL_SRCS) $(RTL_INCS)" \
	  --sim "$(PERF_TB)" --ulx3s "$(FUSESOC_ULX3S)"
	@$(call fusesoc_step,FuseSoC does not parse tessera.core,$(FUSESOC_DIR)/core-info.log,\
	  $(FUSESOC) core-info $(FUSESOC_CORE))
	@grep -q '^Name: *$(FUSESOC_CORE):' $(FUSESOC_DIR)/core-info.log || \
	  { echo "fusesoc-check: FAIL: FuseSoC finds no core $(FUSESOC_CORE) in tessera.core (log: $(FUSESOC_DIR)/core-info.log)"; exit 1; }
	@echo "fusesoc-check: FuseSoC parses $$(sed -n 's/^Name: *//p' $(FUSESOC_DIR)/core-info.log)"
	@$(call fusesoc_step,the lint target (Verilator -Wall) at the RTL's defaults,$(FUSESOC_DIR)/lint.log,\
	  $(FUSESOC) run --clean --work-root $(FUSESOC_DIR)/lint --target=lint $(FUSESOC_CORE))
	@$(call fusesoc_step,the lint target at ArrayDim=16 StoreLanes=4 EnableSfu=0,$(FUSESOC_DIR)/lint-16.log,\
	  $(FUSESOC) run --clean --work-root $(FUSESOC_DIR)/lint-16 --target=lint $(FUSESOC_CORE) --ArrayDim=16 --StoreLanes=4 --EnableSfu=0)
	@$(FUSESOC) run --clean --work-root $(FUSESOC_DIR)/lint-bad --target=lint $(FUSESOC_CORE) --StoreLanes=3 \
	  >$(FUSESOC_DIR)/lint-bad.log 2>&1; \
	  grep -q StoreLanes_must_be_a_power_of_two $(FUSESOC_DIR)/lint-bad.log || { \
	  echo "fusesoc-check: FAIL: the lint target did not refuse StoreLanes=3 at elaboration: parameters do not reach the RTL (log: $(FUSESOC_DIR)/lint-bad.log)"; exit 1; }
	@echo "fusesoc-check: lint target clean (Verilator -Wall) at the defaults and at ArrayDim=16 StoreLanes=4 EnableSfu=0; StoreLanes=3 refused"
	@$(call fusesoc_step,the sim target does not set up,$(FUSESOC_DIR)/sim-setup.log,\
	  $(FUSESOC) run --clean --setup --work-root $(FUSESOC_DIR)/sim --target=sim $(FUSESOC_CORE))
	@$(call fusesoc_step,the ulx3s target does not set up,$(FUSESOC_DIR)/ulx3s-setup.log,\
	  $(FUSESOC) run --clean --setup --work-root $(FUSESOC_DIR)/ulx3s --target=ulx3s $(FUSESOC_CORE))
	@$(call fusesoc_step,Yosys cannot elaborate the ulx3s target's files,$(FUSESOC_DIR)/ulx3s-read.log,\
	  (cd $(FUSESOC_DIR)/ulx3s && $(YOSYS) -q -c $(CURDIR)/fpga/tsr_fusesoc_ulx3s.tcl))
	@echo "fusesoc-check: PASSED: sim and ulx3s targets set up; Yosys elaborates tsr_board_ulx3s from the ulx3s target's files"
