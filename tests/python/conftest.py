"""conftest.py: --seed for the Python package's tests, and the devices they share (one per array size)."""
import os

import pytest

import tessera

# Array sizes to test (TESSERA_TEST_DIMS, default "8 4"). A size whose model is not built
# is skipped with the command that builds it.
DIMS = [int(d) for d in os.environ.get("TESSERA_TEST_DIMS", "8 4").split()]


def pytest_addoption(parser):
    parser.addoption("--seed", type=int, default=20261125,
                     help="base seed of the random tests (printed when one fails)")


@pytest.fixture
def seed(request):
    """The base seed; a failing test's report shows it (replay with --seed)."""
    return request.config.getoption("--seed")


def _model(dim):
    d = os.environ.get("TSR_SIM_LIB_DIR") or os.path.join(tessera._ffi.REPO, "build", "lib")
    return os.path.join(d, f"libtsrsim_d{dim}.so")


@pytest.fixture(scope="session", params=DIMS, ids=[f"N{d}" for d in DIMS])
def dev(request):
    """An open simulator of each size in DIMS, shared by the tests."""
    dim = request.param
    tessera._ffi.lib()  # sets TSR_SIM_LIB_DIR when it is not set
    if not os.path.isfile(_model(dim)):
        pytest.skip(f"no model {_model(dim)}: make sim DIM={dim}")
    d = tessera.Device(f"sim:{dim}")
    yield d
    d.close()


@pytest.fixture(scope="session")
def dev8():
    """The N=8 simulator alone, for tests that need one device of any size."""
    d = tessera.Device("sim:8")
    yield d
    d.close()
