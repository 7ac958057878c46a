"""test_soc.py: tessera.Device("soc:4"): the package drives the co-simulation SoC, whose core runs each job in the firmware image (docs/soc.md).

Skipped unless the SoC model (make soc-sim DIM=4) and the image (make fw-elf) are built. Two
jobs on one device: the second reuses the SoC after a reset (its memory kept), so a wrong
reset or a lost upload shows as a wrong result there.
"""
import os

import numpy as np
import pytest

import tessera

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NEED = [os.path.join(REPO, "build", "soc", "lib", "libtsrsoc_d4.so"),
        os.path.join(REPO, "build", "fw", "elf", "tessera.bin")]


@pytest.mark.skipif(not all(os.path.exists(p) for p in NEED),
                    reason="no SoC build: make soc-sim DIM=4 fw-elf")
def test_soc_device_runs_gemms_on_the_core_bit_exact():
    rng = np.random.default_rng(21)
    with tessera.Device("soc:4") as d:
        info = d.info()
        assert info["backend"] == "soc" and info["dim"] == 4
        for m, k, n in [(5, 7, 3), (9, 4, 6)]:
            a = rng.integers(-128, 128, size=(m, k), dtype=np.int64).astype(np.int8)
            b = rng.integers(-128, 128, size=(k, n), dtype=np.int64).astype(np.int8)
            r = d.gemm(a, b, check=True)
            want = a.astype(np.int64) @ b.astype(np.int64)
            assert np.array_equal(np.asarray(r.out, np.int64), want), f"{m}x{k}x{n}"
