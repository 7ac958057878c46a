# mk/vela.mk: Tessera's cycles beside Arm's Vela estimate for the same .tflite (docs/networks.md).
#
#   make net-vela    write the network models (tests/net/gen_net_models.py, as make test-net
#                    does, and the MLPerf Tiny architectures and the attention block,
#                    tools/gen_mlperf_tiny.py), compile each with Vela (PyPI ethos-u-vela, pinned) for an Ethos-U55
#                    with as many MACs as the array (U55-64 against N = 8, U55-256 against
#                    N = 16), run each on the chip, and write the total and per-layer tables
#                    (tools/vela_compare.py) to $(VELA_DIR)/vela.md and vela.json (~2 min)
#   make net-vela VELA_DIMS=8   one array size

VELA_DIR  := $(BUILD)/net-vela
VELA_MLPERF_DIR := $(VELA_DIR)/mlperf
VELA_DIMS ?= 8 16

.PHONY: net-vela
net-vela: $(SW_BIN) ## Tessera's cycles per network and per layer beside Vela's Ethos-U55 estimate (not in make test)
	@$(PYTHON) -c 'import ethosu.vela, ai_edge_litert.interpreter, tflite_micro, sklearn' 2>/dev/null || \
	  { echo "net-vela: ethos-u-vela, ai-edge-litert, tflite-micro or scikit-learn not found: make deps (tools/install-deps.sh pins them)"; exit 1; }
	@for d in $(VELA_DIMS); do $(MAKE) --no-print-directory sim DIM=$$d || exit 1; done
	$(PYTHON) tests/net/gen_net_models.py $(NET_MODELS_DIR)
	$(PYTHON) tools/gen_mlperf_tiny.py $(VELA_MLPERF_DIR)
	TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tools/vela_compare.py --tessera $(SW_BIN) \
	  $(foreach d,$(VELA_DIMS),--dim $(d)) --json $(VELA_DIR)/vela.json --markdown $(VELA_DIR)/vela.md \
	  $$(awk '{print "$(VELA_MLPERF_DIR)/" $$1 ".tflite"}' $(VELA_MLPERF_DIR)/mlperf_tiny.txt) \
	  $$(awk '{print "$(NET_MODELS_DIR)/" $$1 ".tflite"}' $(NET_MODELS_DIR)/models.txt)
