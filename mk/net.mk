# mk/net.mk: the network compiler's parts; for now the TFLite reader (sw/lib/tsr_tflite.c).
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
