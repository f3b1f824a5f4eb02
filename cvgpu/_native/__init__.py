"""Host-side helpers in C (hostcall.c), and the CUDA driver entry points cvgpu calls with ctypes.

``hostcall.c`` is built ahead of time by ``tools/build_native.py`` into one shared library per
platform, shipped beside its source with a manifest of both hashes (like the kernels' fatbins): it
is loaded only when the manifest's source hash is the shipped source's and the platform matches,
else ``helpers()`` is None and every caller keeps its pure-Python path (same results, more GIL
hand-overs). It needs no compiler and no CUDA at load time: the driver's entry points are handed to
it by address.

``driver()`` gives the driver functions the graph plans use to capture and launch graphs whose
handle the helpers can take (CuPy's Graph does not expose its executable graph).
"""
import ctypes
import os
import platform
import sys
import threading

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = "hostcall.c"
MANIFEST = "manifest.json"
ERROR = -(1 << 40)      # = CVG_ERROR in hostcall.c: results below it carry a CUDA driver error code
NOT_READY = 600          # CUDA_ERROR_NOT_READY

_lock = threading.RLock()  # (helpers() holds it while driver() takes it)
_state = {}


def platform_tag():
    """The platform a shipped library is built for: e.g. "linux-x86_64"."""
    return "%s-%s" % (sys.platform, platform.machine().lower())


def library_name(tag=None):
    return "libcvgpu_host.%s.so" % (tag or platform_tag())


def source_hash():
    import hashlib  # (here: a process whose calls stay on cv2 never needs it)
    with open(os.path.join(HERE, SOURCE), "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def manifest():
    import json
    try:
        with open(os.path.join(HERE, MANIFEST)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _cuda_library():
    for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


class Driver:
    """The driver functions cvgpu calls through ctypes (each call releases the GIL)."""

    NAMES = ("cuStreamBeginCapture_v2", "cuStreamEndCapture", "cuGraphInstantiateWithFlags", "cuGraphUpload",
             "cuGraphLaunch", "cuGraphExecDestroy", "cuGraphDestroy", "cuMemcpyHtoDAsync_v2", "cuStreamQuery")

    def __init__(self, lib):
        vp = ctypes.c_void_p
        for name in self.NAMES:
            fn = getattr(lib, name)
            fn.restype = ctypes.c_int
            setattr(self, name.split("_v2")[0], fn)
        self.cuStreamBeginCapture.argtypes = [vp, ctypes.c_int]
        self.cuStreamEndCapture.argtypes = [vp, ctypes.POINTER(vp)]
        self.cuGraphInstantiateWithFlags.argtypes = [ctypes.POINTER(vp), vp, ctypes.c_ulonglong]
        self.cuGraphUpload.argtypes = [vp, vp]
        self.cuGraphLaunch.argtypes = [vp, vp]
        self.cuGraphExecDestroy.argtypes = [vp]
        self.cuGraphDestroy.argtypes = [vp]
        self.address = {name: ctypes.cast(getattr(lib, name), vp).value for name in self.NAMES}


def driver():
    """The Driver, or None (no CUDA driver library, or one without these entry points)."""
    if "driver" not in _state:
        with _lock:
            if "driver" not in _state:
                lib = _cuda_library()
                try:
                    _state["driver"] = Driver(lib) if lib is not None else None
                except AttributeError:
                    _state["driver"] = None
    return _state["driver"]


def declare(lib):
    """hostcall.c's argument and result types on ``lib`` (a ctypes library of it)."""
    vp, ll, i32, u64 = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int32, ctypes.c_uint64
    lib.cvg_init.argtypes, lib.cvg_init.restype = [vp, vp, vp], ctypes.c_int
    lib.cvg_wait.argtypes, lib.cvg_wait.restype = [vp, i32, vp], ll
    lib.cvg_upload_replay.argtypes = [vp, ll, ll, ll, vp, u64, vp, vp, vp, i32, ctypes.c_int]
    lib.cvg_upload_replay.restype = ll
    lib.cvg_upload.argtypes, lib.cvg_upload.restype = [vp, ll, ll, ll, vp, u64, vp, ctypes.c_int], ll
    lib.cvg_pack_bits.argtypes, lib.cvg_pack_bits.restype = [vp, ll, ll, ll, vp, ctypes.c_int], ll
    lib.cvg_set_pack_threads.argtypes, lib.cvg_set_pack_threads.restype = [ctypes.c_int], ctypes.c_int
    return lib


def check(rc, func, file):
    """Raise cv2's GPU API error for a hostcall.c result carrying a driver error (below ERROR)."""
    if rc <= ERROR:
        from .. import _errors  # (not at import: cvgpu._native loads without cv2's error module)
        raise _errors.cv_error(_errors.GPU_API_ERROR, "a CUDA driver call failed (error %d)" % (ERROR - rc),
                               func, file, 0)
    return rc


def bit_row_bytes(cols):
    """Bytes of a row of hostcall.c's bit image (cvg_pack_bits): whole 16-bit words."""
    return 2 * -(-cols // 16)


def rows_contiguous(image):
    """A 2-D uint8 numpy ``image`` as hostcall.c reads it: elements contiguous within a row (any row
    step, negative included); copied only where they are not."""
    return image if image.strides[1] == 1 else np.ascontiguousarray(image)


def send_bit_rows(helpers, image, staging_ptr, dev_ptr, stream_ptr, func, file):
    """hostcall.c's cvg_upload with bits: ``image`` (rows_contiguous) packed into the pinned staging
    buffer and sent to ``dev_ptr`` on the stream, both holding rows * bit_row_bytes(cols) bytes;
    a driver error is raised as cv2's (check)."""
    rows, cols = image.shape
    check(helpers.upload(image.ctypes.data, rows, cols, image.strides[0], staging_ptr, dev_ptr, stream_ptr, 1),
          func, file)


class Helpers:
    """hostcall.c's functions with their argument types, bound to the driver's entry points."""

    def __init__(self, lib, drv):
        declare(lib)
        vp = ctypes.c_void_p
        if lib.cvg_init(vp(drv.address["cuMemcpyHtoDAsync_v2"]), vp(drv.address["cuGraphLaunch"]),
                        vp(drv.address["cuStreamQuery"])) != 0:
            raise OSError("cvg_init failed")
        self.wait = lib.cvg_wait
        self.upload_replay = lib.cvg_upload_replay
        self.upload = lib.cvg_upload
        self.set_pack_threads = lib.cvg_set_pack_threads


def load_library():
    """The shipped library for this platform (ctypes.CDLL), or None with the reason as a string."""
    tag = platform_tag()
    entry = manifest().get("libraries", {}).get(tag)
    if entry is None:
        return None, "no library built for %s" % tag
    if entry.get("source_sha256") != source_hash():
        return None, "the library for %s is older than %s" % (tag, SOURCE)
    path = os.path.join(HERE, entry["file"])
    try:
        return ctypes.CDLL(path), None
    except OSError as exc:
        return None, str(exc)


def helpers():
    """The Helpers, or None: disabled (CVGPU_NATIVE=0), no library for this platform or a stale
    one, or no CUDA driver. Callers then take their Python path."""
    if "helpers" not in _state:
        with _lock:
            if "helpers" not in _state:
                out = None
                if os.environ.get("CVGPU_NATIVE", "1") != "0":
                    lib, _why = load_library()
                    drv = driver() if lib is not None else None
                    if drv is not None:
                        try:
                            out = Helpers(lib, drv)
                        except (OSError, AttributeError):
                            out = None
                _state["helpers"] = out
    return _state["helpers"]


class DriverGraph:
    """An executable graph captured through the driver (``handle``: its CUgraphExec for the helpers),
    with CuPy Graph's ``launch(stream)`` and ``upload(stream)``."""

    __slots__ = ("drv", "graph", "handle")

    def __init__(self, drv, graph, handle):
        self.drv, self.graph, self.handle = drv, graph, handle

    def launch(self, stream):
        status = self.drv.cuGraphLaunch(self.handle, stream.ptr)
        if status:
            raise RuntimeError("cuGraphLaunch failed with CUDA error %d" % status)

    def upload(self, stream):
        status = self.drv.cuGraphUpload(self.handle, stream.ptr)
        if status:
            raise RuntimeError("cuGraphUpload failed with CUDA error %d" % status)

    def __del__(self):
        try:
            self.drv.cuGraphExecDestroy(self.handle)
            self.drv.cuGraphDestroy(self.graph)
        except Exception:  # at interpreter exit the library may be gone: the process frees it
            pass


_RELAXED = 2  # CU_STREAM_CAPTURE_MODE_RELAXED: other threads' calls during the capture are not refused


def capture(stream, launches):
    """Run ``launches()`` under stream capture on ``stream`` and instantiate the graph through the
    driver: a DriverGraph (raises RuntimeError where the driver refuses)."""
    drv = driver()
    vp = ctypes.c_void_p
    status = drv.cuStreamBeginCapture(stream.ptr, _RELAXED)
    if status:
        raise RuntimeError("cuStreamBeginCapture failed with CUDA error %d" % status)
    graph = vp()
    try:
        launches()
    except BaseException:
        if drv.cuStreamEndCapture(stream.ptr, ctypes.byref(graph)) == 0 and graph.value:
            drv.cuGraphDestroy(graph)
        raise
    end = drv.cuStreamEndCapture(stream.ptr, ctypes.byref(graph))
    if end:
        raise RuntimeError("cuStreamEndCapture failed with CUDA error %d" % end)
    handle = vp()
    status = drv.cuGraphInstantiateWithFlags(ctypes.byref(handle), graph, 0)
    if status:
        drv.cuGraphDestroy(graph)
        raise RuntimeError("cuGraphInstantiateWithFlags failed with CUDA error %d" % status)
    return DriverGraph(drv, graph, handle)
