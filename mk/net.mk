# mk/net.mk: networks (docs/networks.md): the TFLite reader (sw/lib/tsr_tflite.c), the compiler
# (sw/lib/tsr_net_compile.c), the .tsr program (sw/lib/tsr_net_prog.c) and the runtime
# (sw/lib/tsr_net_run.c) under `tessera compile` / `tessera run` and Device.run.
#
#   make test-net [DIM=N]    write the digits MLP, the synthetic FULLY_CONNECTED, CONV_2D,
#                            DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MEAN, PAD and ADD models
#                            (tests/net/gen_net_models.py, scikit-learn + TFLite's schema module)
#                            and copy the committed digits CNN under $(NET_MODELS_DIR), run each on
#                            TFLite Micro and on the chip (Device.run, tessera run .tflite/.tsr
#                            --check) and require every output byte equal; the digits accuracies
#                            (MLP, and the CNN on its 360 held-out images); refused models and
#                            malformed .tsr files give one line and exit 2 (~80 s at N = 8)
#   TSR_SEED=<n> make test-net      other random inputs for the synthetic models
#   make digits-cnn          retrain the digits CNN with JAX (tools/train_digits_cnn.py, ~30 s) and
#                            write tests/net/models/digits_cnn.tflite, the committed model that
#                            make test-net runs (make test never trains)
#   make test-net SAN='-fsanitize=address,undefined -fno-omit-frame-pointer'
#                            the container checks (every truncation, flip and forged byte of
#                            a .tsr) under the sanitizers
#
#   make test-unit-tflite    the reader on the committed fixture (tests/unit/tsr_tflite_fixture.h):
#                            every field, broken models, every truncation and byte flip (~1 s, ~3 s
#                            under SAN; part of make test-unit, needs no Python)
#   make test-tflite         write models with TFLite's own schema module (ai-edge-litert's
#                            schema_py_generated, tests/net/gen_tflite_cases.py) under
#                            $(NET_TFLITE_DIR), check that the C reader finds every field the
#                            Python objects held, that broken models are refused with the right
#                            message, that truncated and corrupted copies of each are refused or
#                            read cleanly, and that the committed fixture is the generator's
#                            (~4 s; ~12 s under SAN). When the generator changes:
#                            cp $(NET_TFLITE_DIR)/tsr_tflite_fixture.h tests/unit/
#   make test-tflite SAN='-fsanitize=address,undefined -fno-omit-frame-pointer'
#   TSR_SEED=<n> make test-tflite   replay the random corruptions

NET_DIR         := $(BUILD)/tests/net
NET_TFLITE_DIR  := $(NET_DIR)/tflite
NET_CHECK       := $(NET_DIR)/tflite_check
NET_FIXTURE     := tests/unit/tsr_tflite_fixture.h
NET_CFLAGS       = $(CSTD) $(CWARN) $(CFLAGS) $(SAN) $(INCS)

UNIT_SRCS_test_tflite := sw/lib/tsr_tflite.c

$(NET_CHECK): tests/net/tflite_check.c sw/lib/tsr_tflite.c sw/lib/tsr_tflite.h tests/common/tsr_tflite_dump.h \
              tests/common/tsr_prng.h tests/common/tsr_seed.h $(UNIT_FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(NET_CFLAGS) -o $@ tests/net/tflite_check.c sw/lib/tsr_tflite.c

.PHONY: test-tflite
test-tflite: $(NET_CHECK) ## the TFLite reader against models written by TFLite's schema module (ai-edge-litert), plus broken and corrupted ones (~4 s)
	@$(PYTHON) -c 'import ai_edge_litert.schema_py_generated, flatbuffers' 2>/dev/null || \
	  { echo "test-tflite: ai_edge_litert not found: pip install ai-edge-litert==2.3.0 flatbuffers==25.12.19 (or make deps)"; exit 1; }
	@rm -rf $(NET_TFLITE_DIR)
	$(PYTHON) tests/net/gen_tflite_cases.py $(NET_TFLITE_DIR) --fixture $(NET_TFLITE_DIR)/tsr_tflite_fixture.h
	@cmp -s $(NET_TFLITE_DIR)/tsr_tflite_fixture.h $(NET_FIXTURE) || \
	  { echo "test-tflite: $(NET_FIXTURE) is stale: cp $(NET_TFLITE_DIR)/tsr_tflite_fixture.h $(NET_FIXTURE)"; exit 1; }
	$(UNIT_RUN_ENV) $(NET_CHECK) $(NET_TFLITE_DIR)

NET_MODELS_DIR  := $(NET_DIR)/models
NET_PROG_CHECK  := $(NET_DIR)/net_prog_check

# The container and the compiler without a device, built from the library's sources so that
# SAN='-fsanitize=...' reaches them.
$(NET_PROG_CHECK): tests/net/net_prog_check.c $(SW_LIB_SRCS) $(wildcard sw/lib/*.h) $(UNIT_FLAGS_FILE)
	@mkdir -p $(@D)
	$(CC) $(NET_CFLAGS) -o $@ tests/net/net_prog_check.c $(SW_LIB_SRCS) -ldl -lm

.PHONY: test-net
test-net: $(SW_BIN) $(SW_LIB_SO) $(NET_PROG_CHECK) $(if $(filter $(BUILD)/lib,$(CLI_SIM_LIB_DIR)),$(BUILD)/lib/libtsrsim_d$(DIM).so) ## int8 networks (digits MLP and CNN, synthetic FULLY_CONNECTED and CONV_2D) on the chip byte for byte against TFLite Micro, refusals, malformed .tsr (~80 s)
	@$(PYTHON) -c 'import tflite_micro, sklearn, ai_edge_litert.schema_py_generated, flatbuffers' 2>/dev/null || \
	  { echo "test-net: tflite-micro, scikit-learn or ai-edge-litert not found: make deps (tools/install-deps.sh pins them)"; exit 1; }
	$(PYTHON) tests/net/gen_net_models.py $(NET_MODELS_DIR)
	$(UNIT_RUN_ENV) TSR_SIM_LIB_DIR=$(CLI_SIM_LIB_DIR) $(NET_PROG_CHECK) $(NET_MODELS_DIR)
	TESSERA_LIB=$(SW_LIB_SO) TSR_SIM_LIB_DIR=$(CLI_SIM_LIB_DIR) \
	  $(PYTHON) tests/net/check_net.py $(NET_MODELS_DIR) $(SW_BIN) $(DIM)

.PHONY: digits-cnn
digits-cnn: ## retrain the digits CNN (JAX, ~30 s) into the committed tests/net/models/digits_cnn.tflite
	@$(PYTHON) -c 'import jax, sklearn, ai_edge_litert.schema_py_generated, flatbuffers' 2>/dev/null || \
	  { echo "digits-cnn: jax, scikit-learn or ai-edge-litert not found: make deps (tools/install-deps.sh pins them)"; exit 1; }
	$(PYTHON) tools/train_digits_cnn.py tests/net/models/digits_cnn.tflite
