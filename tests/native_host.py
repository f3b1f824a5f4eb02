"""cvgpu._native's C library on the CPU, for tests: a private copy of the shipped library (so the
process's own instance keeps the real driver's entry points) bound to stand-in driver functions."""
import ctypes
import os
import shutil

from cvgpu import _native

HTOD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
QUERY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


def private_library(tmp_path):
    """(a private copy of the shipped library with its types declared, None) or (None, why)."""
    lib, why = _native.load_library()
    if lib is None:
        return None, why
    entry = _native.manifest()["libraries"][_native.platform_tag()]
    path = tmp_path / entry["file"]
    shutil.copy(os.path.join(_native.HERE, entry["file"]), path)
    return _native.declare(ctypes.CDLL(str(path))), None


def bind(lib, htod, launch, query):
    """cvg_init with Python stand-ins for cuMemcpyHtoDAsync, cuGraphLaunch and cuStreamQuery;
    returns the callbacks, which the caller keeps alive while the library uses them."""
    keep = (HTOD(htod), LAUNCH(launch), QUERY(query))
    assert lib.cvg_init(*[ctypes.cast(f, ctypes.c_void_p) for f in keep]) == 0
    return keep
