# mk/sfu.mk: the SFU golden model against an independent Python reference of TFLite's int8 semantics.
#
#   make test-sfu-ref                     build/sfu/libtsr_sfu.so, then tests/system/sfu_ref.py --selftest
#   make test-sfu-ref SFU_REF_ARGS='--seed 123 --cases 200'
#
# The unit tests of the golden model are tests/unit/test_sfu_golden.c (make test-unit-sfu_golden).

SFU_DIR      := $(BUILD)/sfu
SFU_REF_LIB  := $(SFU_DIR)/libtsr_sfu.so
SFU_REF_SRCS := sw/golden/tsr_sfu_golden.c sw/golden/tsr_golden_params.c sw/lib/tsr_sfu_prep.c sw/driver/tsr_quant.c
SFU_REF_ARGS ?=

# One shared library of the golden model (with its own tables and parameters) and the chip path's
# preparation, loaded by sfu_ref.py through ctypes.
$(SFU_REF_LIB): $(SFU_REF_SRCS) sw/golden/tsr_sfu.h sw/golden/tsr_golden_params.h sw/driver/tsr_quant.h
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(CWARN) $(CFLAGS) -fPIC -shared -Isw/include -Isw/driver -Isw/golden -Isw/lib -o $@ $(SFU_REF_SRCS) -lm

.PHONY: test-sfu-ref
test-sfu-ref: $(SFU_REF_LIB) ## compare the SFU golden model with tests/system/sfu_ref.py (TFLite int8 semantics in Python)
	@$(PYTHON) -c 'import numpy' 2>/dev/null || { echo "test-sfu-ref: numpy not found: pip install numpy (or apt-get install python3-numpy)"; exit 1; }
	$(PYTHON) tests/system/sfu_ref.py --selftest --lib $(SFU_REF_LIB) $(SFU_REF_ARGS)
