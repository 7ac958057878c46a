# mk/netref.mk: networks against outside references (docs/networks.md): TFLite Micro's int8
# activation kernels, which the compiler takes as tables, and Arm's Vela estimate.
#
#   make test-net-luts  the tables of sw/lib/tsr_sfu_prep.c (tsr_lut_*_tflm: LOGISTIC, TANH,
#                    HARD_SWISH, RELU, RELU6) against TFLite Micro's interpreter on every input
#                    byte, 200 random quantizations each (tests/net/check_luts.py, ~15 s)
#   TSR_SEED=<n> make test-net-luts    other quantizations
#   make test-net-bad   bad models give one line and exit 2: truncated, offsets outside the
#                    buffer, a float model, an unsupported operator, a tensor past the device
#                    memory a program may use (tests/net/check_bad_models.py, ~3 s)
#   make test-net-mlperf  the MLPerf Tiny architectures and the attention block
#                    (tools/gen_mlperf_tiny.py) on the chip against TFLite Micro: 10 inputs
#                    each at N = 8, 3 at N = 4 and 16, every output byte, and one input a layer
#                    at a time against the golden model (tests/net/check_mlperf.py, ~2 min)
#   make net-vela    write the network models (tests/net/gen_net_models.py, as make test-net
#                    does, and the MLPerf Tiny architectures and the attention block,
#                    tools/gen_mlperf_tiny.py), compile each with Vela (PyPI ethos-u-vela, pinned) for an Ethos-U55
#                    with as many MACs as the array (U55-64 against N = 8, U55-256 against
#                    N = 16), run each on the chip, and write the total and per-layer tables
#                    (tools/vela_compare.py) to $(VELA_DIR)/vela.md and vela.json (~2 min)
#   make net-vela VELA_DIMS=8   one array size

NET_LUT_TABLES := $(BUILD)/tests/net/lut_tables

$(NET_LUT_TABLES): tests/net/lut_tables.c sw/lib/tsr_sfu_prep.c sw/driver/tsr_quant.c sw/golden/tsr_sfu_golden.c \
                   sw/golden/tsr_sfu.h sw/driver/tsr_quant.h $(UNIT_FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(NET_CFLAGS) -o $@ tests/net/lut_tables.c sw/lib/tsr_sfu_prep.c sw/driver/tsr_quant.c \
	  sw/golden/tsr_sfu_golden.c -lm

.PHONY: test-net-luts
test-net-luts: $(NET_LUT_TABLES) ## the compiler's activation tables (LOGISTIC, TANH, HARD_SWISH, RELU, RELU6) against TFLite Micro on every input byte (~15 s)
	@$(PYTHON) -c 'import tflite_micro, ai_edge_litert.schema_py_generated, flatbuffers' 2>/dev/null || \
	  { echo "test-net-luts: tflite-micro or ai-edge-litert not found: make deps (tools/install-deps.sh pins them)"; exit 1; }
	$(PYTHON) tests/net/check_luts.py $(NET_LUT_TABLES) $(if $(TSR_SEED),--seed $(TSR_SEED))

.PHONY: test-net-bad
test-net-bad: $(SW_BIN) ## bad models (truncated, offsets outside, float, unsupported operator, too big) give one line and exit 2 (~3 s)
	@$(PYTHON) -c 'import ai_edge_litert.schema_py_generated, flatbuffers' 2>/dev/null || \
	  { echo "test-net-bad: ai-edge-litert not found: make deps (tools/install-deps.sh pins it)"; exit 1; }
	$(PYTHON) tests/net/check_bad_models.py $(SW_BIN)

NET_MLPERF_DIR := $(BUILD)/tests/net/mlperf

.PHONY: test-net-mlperf
test-net-mlperf: $(SW_BIN) $(SW_LIB_SO) ## the MLPerf Tiny models and an attention block on the chip at N = 4, 8, 16, byte for byte against TFLite Micro (~2 min)
	@$(PYTHON) -c 'import tflite_micro, ai_edge_litert.schema_py_generated, flatbuffers' 2>/dev/null || \
	  { echo "test-net-mlperf: tflite-micro or ai-edge-litert not found: make deps (tools/install-deps.sh pins them)"; exit 1; }
	@for d in 4 8 16; do $(MAKE) --no-print-directory sim DIM=$$d || exit 1; done
	$(PYTHON) tools/gen_mlperf_tiny.py $(NET_MLPERF_DIR)
	TESSERA_LIB=$(SW_LIB_SO) TSR_SIM_LIB_DIR=$(BUILD)/lib $(PYTHON) tests/net/check_mlperf.py $(NET_MLPERF_DIR) $(SW_BIN)

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
