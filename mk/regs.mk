# mk/regs.mk: the register map. One source, rtl/regs/tessera_regs.toml, and three
# committed outputs generated from it by tools/regtool.py (see docs/registers.md).
# The command format likewise (rtl/regs/tessera_cmds.toml, tools/cmdtool.py, below).

REGS_TOML := rtl/regs/tessera_regs.toml
REGS_TOOL := tools/regtool.py
REGS_RTL  := rtl/regs/tsr_regs.v
REGS_HDR  := sw/include/tessera_regs.h
REGS_DOC  := docs/registers.md
REGS_OUTS := $(REGS_RTL) $(REGS_HDR) $(REGS_DOC)
REGS_CHECK_DIR := $(BUILD)/regs-check

# $(call regs_gen,<rtl>,<header>,<doc>)
regs_gen = $(PYTHON) $(REGS_TOOL) $(REGS_TOML) --rtl $(1) --c-header $(2) --doc $(3)

# The command format: one source, rtl/regs/tessera_cmds.toml, and tools/cmdtool.py
# (regtool's sibling) generates the Verilog include, the C header and the tables
# between "cmdtool:" markers in the docs (docs/commands.md describes the format).
CMDS_TOML := rtl/regs/tessera_cmds.toml
CMDS_TOOL := tools/cmdtool.py
CMDS_VH   := rtl/regs/tsr_cmd_fields.vh
CMDS_HDR  := sw/include/tessera_cmds.h
CMDS_DOCS := docs/commands.md docs/sfu.md
cmds_gen = $(PYTHON) $(CMDS_TOOL) $(CMDS_TOML) --vh $(CMDS_VH) --c-header $(CMDS_HDR) $(addprefix --doc ,$(CMDS_DOCS))

.PHONY: regs
regs: ## regenerate register and command-format outputs (RTL, C headers, docs) from the TOMLs
	$(call regs_gen,$(REGS_RTL),$(REGS_HDR),$(REGS_DOC))
	$(cmds_gen)

.PHONY: regs-check
regs-check: ## fail if generated register or command-format files are stale, or a command field is hand-written
	@rm -rf $(REGS_CHECK_DIR) && mkdir -p $(REGS_CHECK_DIR)
	@$(call regs_gen,$(REGS_CHECK_DIR)/$(notdir $(REGS_RTL)),$(REGS_CHECK_DIR)/$(notdir $(REGS_HDR)),$(REGS_CHECK_DIR)/$(notdir $(REGS_DOC))) -q
	@stale=0; \
	for f in $(REGS_OUTS); do \
	  if ! cmp -s "$$f" "$(REGS_CHECK_DIR)/$$(basename $$f)"; then \
	    echo "regs-check: $$f is stale (or missing): run 'make regs'"; stale=1; \
	  fi; \
	done; \
	if [ $$stale -eq 0 ]; then echo "regs-check: generated register files are up to date"; fi; \
	exit $$stale

# The command format's outputs, and no hand-written command field slice anywhere.
regs-check: cmds-check cmd-slice-check
.PHONY: cmds-check cmd-slice-check
cmds-check:
	@$(cmds_gen) --check
cmd-slice-check: ## fail on a hand-written command field slice in rtl/ tb/ sw/ fw/ tests/ (use the generated names)
	@$(PYTHON) tools/cmd_slice_check.py

# Lint (Verilator -Wall, zero warnings) and synthesize (Yosys, no latches) the register block.
.PHONY: regs-lint
regs-lint: ## lint (verilator -Wall) and synthesize (yosys, latch check) tsr_regs.v
	@command -v verilator >/dev/null || { echo "regs-lint: verilator not found: apt-get install verilator"; exit 1; }
	@command -v yosys >/dev/null || { echo "regs-lint: yosys not found: apt-get install yosys"; exit 1; }
	verilator --lint-only -Wall --top-module tsr_regs $(REGS_RTL)
	@mkdir -p $(BUILD)/regs
	yosys -q -l $(BUILD)/regs/synth.log -p 'read_verilog $(REGS_RTL); synth -top tsr_regs; check -assert; select -assert-none t:$$dlatch* t:$$adlatch* t:$$_DLATCH* t:$$sr t:$$_SR_*; tee -o $(BUILD)/regs/stat.txt stat'
	@echo "regs-lint: clean, no latches, $$(awk '/Number of cells/ {print $$4; exit}' $(BUILD)/regs/stat.txt) cells"

# The SFU microcode: rtl/sfu/tsr_sfu.ucode assembled by tools/sfuasm.py into
# the committed ROM rtl/tsr_sfu_rom.v (docs/sfu.md). regs-check also checks it.
SFU_UCODE := rtl/sfu/tsr_sfu.ucode
SFU_ROM   := rtl/tsr_sfu_rom.v

.PHONY: sfu-rom
sfu-rom: ## reassemble the SFU microcode ROM (rtl/tsr_sfu_rom.v)
	$(PYTHON) tools/sfuasm.py $(SFU_UCODE) -o $(SFU_ROM)

regs-check: sfu-rom-check
.PHONY: sfu-rom-check
sfu-rom-check:
	@mkdir -p $(REGS_CHECK_DIR)
	@$(PYTHON) tools/sfuasm.py $(SFU_UCODE) -o $(REGS_CHECK_DIR)/tsr_sfu_rom.v
	@cmp -s $(SFU_ROM) $(REGS_CHECK_DIR)/tsr_sfu_rom.v || \
	  { echo "regs-check: $(SFU_ROM) is stale (or missing): run 'make sfu-rom'"; exit 1; }
	@echo "regs-check: SFU microcode ROM is up to date"
