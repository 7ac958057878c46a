"""_ffi.py: load libtessera and declare the flat C API of sw/lib/tessera_flat.h (ctypes).

Only functions of tessera_flat.h are declared; no C struct is mirrored. The library is found by
  1. $TESSERA_LIB: the path of libtessera.so, or a folder holding it;
  2. <repo>/build/lib/libtessera.so (what `make sw` builds), <repo> being two
     folders above this package.
The simulator models (libtsrsim_dN.so) are found by the library through
$TSR_SIM_LIB_DIR; when it is not set, it is set here to the library's folder
if a model is there, else to <repo>/build/lib. Device("soc:N") finds the SoC's models and its
firmware image through $TSR_SOC_LIB_DIR and $TSR_SOC_FW_DIR, set here (when unset) to
<repo>/build/soc/lib and <repo>/build/fw/elf.
"""
import ctypes
import glob
import os

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ERRLEN = 512

_lib = None


class LibraryNotFound(ImportError):
    """libtessera.so is not where TESSERA_LIB or the repository's build/ says."""


def library_path():
    """The libtessera.so this package loads (it may not exist)."""
    env = os.environ.get("TESSERA_LIB", "")
    if env:
        return os.path.join(env, "libtessera.so") if os.path.isdir(env) else env
    return os.path.join(REPO, "build", "lib", "libtessera.so")


def _declare(lib):
    c_int, c_u32, c_i32, c_dbl = ctypes.c_int, ctypes.c_uint32, ctypes.c_int32, ctypes.c_double
    c_sz, c_p, c_s = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p
    protos = {
        "tessera_flat_figure_name": (c_s, [ctypes.c_uint]),
        "tessera_flat_info_name": (c_s, [ctypes.c_uint]),
        "tessera_flat_status_str": (c_s, [c_int]),
        "tessera_flat_open": (c_int, [c_s, c_int, c_int, c_int, c_u32, c_s, c_p, c_p, c_sz]),
        "tessera_flat_close": (None, [c_p]),
        "tessera_flat_set_submit": (None, [c_p, c_int]),
        "tessera_flat_info": (c_int, [c_p, c_p, c_sz, c_p]),
        "tessera_gemm_fold_a_zp": (c_int, [c_u32, c_u32, c_p, c_p, c_i32, c_p, c_p, c_sz]),
        "tessera_gemm_quantize_scales": (c_int, [c_u32, c_dbl, c_p, c_u32, c_dbl, c_p, c_p, c_p,
                                                 c_sz]),
        "tessera_flat_gemm": (c_int, [c_p, c_u32, c_u32, c_u32, c_p, c_p, c_p, c_i32, c_int, c_p,
                                      c_p, c_i32, c_i32, c_i32, c_i32, c_i32, c_s, c_dbl, c_p,
                                      c_dbl, c_int, c_p, c_p, c_p, c_p, c_sz]),
        "tessera_flat_lut_names": (c_s, []),
        "tessera_flat_lut": (c_int, [c_s, c_dbl, c_i32, c_dbl, c_i32, c_p, c_p, c_sz]),
        "tessera_flat_map": (c_int, [c_p, c_u32, c_u32, c_p, c_s, c_dbl, c_i32, c_dbl, c_i32, c_p,
                                     c_int, c_p, c_p, c_p, c_p, c_sz]),
        "tessera_flat_softmax": (c_int, [c_p, c_u32, c_u32, c_p, c_dbl, c_dbl, c_int, c_p, c_p,
                                         c_p, c_p, c_sz]),
        "tessera_flat_layernorm": (c_int, [c_p, c_u32, c_u32, c_p, c_p, c_p, c_p, c_dbl, c_dbl,
                                           c_i32, c_dbl, c_dbl, c_i32, c_i32, c_i32, c_int, c_p,
                                           c_p, c_p, c_p, c_sz]),
        "tessera_flat_add": (c_int, [c_p, c_u32, c_u32, c_p, c_p, c_dbl, c_i32, c_dbl, c_i32, c_dbl,
                                     c_i32, c_i32, c_i32, c_int, c_p, c_p, c_p, c_p, c_sz]),
        "tessera_flat_mul": (c_int, [c_p, c_u32, c_u32, c_p, c_p, c_dbl, c_i32, c_dbl, c_i32, c_dbl,
                                     c_i32, c_i32, c_i32, c_int, c_p, c_p, c_p, c_p, c_sz]),
        "tessera_flat_reduce": (c_int, [c_p, c_u32, c_u32, c_p, c_int, c_p, c_p, c_p, c_p, c_sz]),
    }
    for name, (res, args) in protos.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args


def lib():
    """The loaded library (loaded on first use)."""
    global _lib
    if _lib is not None:
        return _lib
    path = os.path.abspath(library_path())
    if not os.path.isfile(path):
        raise LibraryNotFound(
            f"tessera: {path} not found: run 'make sw' (or set TESSERA_LIB to libtessera.so)")
    if not os.environ.get("TSR_SIM_LIB_DIR"):
        here = os.path.dirname(os.path.abspath(path))
        has_model = glob.glob(os.path.join(here, "libtsrsim_d*.so"))
        os.environ["TSR_SIM_LIB_DIR"] = here if has_model else os.path.join(REPO, "build", "lib")
    # Device("soc:8"): the SoC's models and its firmware image (docs/soc.md) from the build tree.
    os.environ.setdefault("TSR_SOC_LIB_DIR", os.path.join(REPO, "build", "soc", "lib"))
    os.environ.setdefault("TSR_SOC_FW_DIR", os.path.join(REPO, "build", "fw", "elf"))
    loaded = ctypes.CDLL(path)
    try:
        _declare(loaded)
    except AttributeError as e:
        raise LibraryNotFound(f"tessera: {path} has no flat API ({e}): rebuild it with 'make sw'")
    _lib = loaded
    return _lib


def names(fn):
    """fn(0), fn(1), ... until NULL, as str."""
    out = []
    while True:
        s = fn(len(out))
        if s is None:
            return out
        out.append(s.decode())


def errbuf():
    return ctypes.create_string_buffer(ERRLEN)
