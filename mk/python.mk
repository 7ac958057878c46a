# mk/python.mk: the Python package python/tessera (ctypes over libtessera's flat API,
# sw/lib/tessera_flat.h) and its tests.
#
#   make test-python              pytest tests/python on libtessera.so and the DIM=N model,
#                                 and on the other sizes of PY_TEST_DIMS whose model is built
#                                 (a size without one is skipped, naming `make sim DIM=..`); ~5 s
#   PYTHONPATH=python python3 -c 'import tessera'   after `make sw` (README.md, "Python")
#
# The package loads $(SW_LIB_SO) (or $TESSERA_LIB) and the models from CLI_SIM_LIB_DIR.

PY_TEST_DIMS ?= $(DIM) $(filter-out $(DIM),8 4)
PY_PYTEST    ?= $(PYTHON) -m pytest

.PHONY: test-python
test-python: $(SW_LIB_SO) $(if $(filter $(BUILD)/lib,$(CLI_SIM_LIB_DIR)),$(BUILD)/lib/libtsrsim_d$(DIM).so) ## pytest tests/python: the Python package against numpy references and the golden model (~5 s)
	@$(PYTHON) -c 'import numpy' 2>/dev/null || { echo "test-python: numpy not found: pip install numpy (or make deps)"; exit 1; }
	@$(PYTHON) -c 'import pytest' 2>/dev/null || { echo "test-python: pytest not found: pip install pytest==8.3.3 (or make deps)"; exit 1; }
	TESSERA_LIB=$(SW_LIB_SO) TSR_SIM_LIB_DIR=$(CLI_SIM_LIB_DIR) TESSERA_TEST_DIMS='$(PY_TEST_DIMS)' \
	  PYTHONPATH=python $(PY_PYTEST) -q -rs -p no:cacheprovider tests/python
