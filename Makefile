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

# Each area keeps its rules in mk/<area>.mk.
include $(sort $(wildcard mk/*.mk))

.PHONY: help
help: ## print this list
	@echo "Tessera make targets (DIM=$(DIM) selects the array size: 4, 8 or 16):"
	@grep -hE '^[a-zA-Z0-9_.-]+:.*## ' $(MAKEFILE_LIST) | sort -u | \
	  awk -F':.*## ' '{printf "  %-16s %s\n", $$1, $$2}'

.PHONY: clean
clean: ## remove build/
	rm -rf $(BUILD)
