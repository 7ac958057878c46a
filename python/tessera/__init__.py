"""tessera: Python over libtessera (sw/lib/tessera_flat.h), the host library of the Tessera int8 accelerator.

    import numpy as np, tessera
    with tessera.Device("sim:8") as dev:
        out, fig = dev.gemm(a, b, bias, a_zp=-3, a_scale=0.02, w_scale=ws, out_scale=0.1)

Every job returns a Result: .out (numpy) and .figures (dict: cycles, utilization,
bus_read_bytes, bus_write_bytes, time {compute, fill, load_wait, store, sfu, control}, ...);
it unpacks as (out, figures). Errors raise TesseraError (.message, .status);
check=True raises TesseraMismatch on a difference from the golden model.
The library is $TESSERA_LIB or <repo>/build/lib/libtessera.so (`make sw`).
"""
from ._ffi import LibraryNotFound, library_path
from .device import (Device, Result, TesseraError, TesseraMismatch, fold_a_zp, lut,
                     quantize_scales)

__all__ = ["Device", "Result", "TesseraError", "TesseraMismatch", "LibraryNotFound",
           "fold_a_zp", "quantize_scales", "lut", "library_path"]
