# Tessera: one entry point. `make` with no target prints the targets.
SHELL := /bin/bash
.DEFAULT_GOAL := help

BUILD   ?= build
DIM     ?= 8
PYTHON  ?= python3
CC      ?= gcc
CXX     ?= g++
CSTD    := -std=c11
CWARN   := -Wall -Wextra -Werror -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes
CFLAGS  ?= -O2 -g
SAN     ?=
INCS    := -Isw/include -Isw/hal -Isw/driver -Isw/golden -Isw/lib -Ifw/include -Itb

FW_SRCS  := $(sort $(wildcard fw/*.c))
RTL_SRCS := $(sort $(wildcard rtl/*.v)) rtl/regs/tsr_regs.v
# Verilog includes the RTL reads (by their path from here): prerequisites, never sources.
RTL_INCS := rtl/regs/tsr_cmd_fields.vh

# Each area keeps its rules in mk/<area>.mk, read in this order, which is the order of
# their dependencies: a fragment may use, at read time (:= values, rule targets and
# prerequisites), only the variables of the fragments above it. Recipes and `=` values are
# expanded later and may use anything. A new fragment must be added here; one on disk but
# not listed stops make, so that no fragment is silently left out or read by name order.
#   regs rtl tb       register map, RTL lint/synth tools, the Verilated model (VERILATOR, TB_*)
#   sw unit net sfu   host C, firmware and CLI (SW_BIN, FW_RV_*), unit tests, TFLite reader, SFU reference
#   system            system suites (SYS_SUITES, SYS_DIR, SYS_LIB_OBJS; needs SW_BIN)
#   block-*, block    block tests: the block-*.mk add to BLOCK_TESTS, which block.mk's rules use
#   formal .. docs    the areas built on the above (coverage needs SYS_SUITES, fuzz and trust
#                     SYS_LIB_OBJS, bench, uart and docs SW_BIN and the tb's variables;
#                     fusesoc reads synth's and bench's file lists, in its recipe only)
#   soc               the co-simulation SoC (needs tb's TB_* and sw's FW_RV_*, SW's objects)
#   long              long-targets-check: reads the lists of every area above
#   top               make test and make demo
MK_FRAGMENTS := regs rtl tb sw unit net netref sfu python system block-core block-dma block-uart block-out block \
                formal synth fusesoc gate coverage fuzz trust bench uart soc docs long top
mk_unlisted := $(filter-out $(MK_FRAGMENTS:%=mk/%.mk),$(wildcard mk/*.mk))
$(if $(mk_unlisted),$(error Makefile: $(mk_unlisted) not in MK_FRAGMENTS: add it in dependency order))
include $(MK_FRAGMENTS:%=mk/%.mk)

.PHONY: help
help: ## print this list
	@echo "Tessera make targets (DIM=$(DIM) selects the array size: 4, 8 or 16):"
	@grep -hE '^[a-zA-Z0-9_.-]+:.*## ' $(MAKEFILE_LIST) | sort -u | \
	  awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: clean
clean: ## remove build/
	rm -rf $(BUILD)
