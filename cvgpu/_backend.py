"""Which engine computes cvgpu's results: the GPU through CuPy, or cv2 when there is no GPU.

The no-GPU fallback is explicit: it warns once (``CvgpuFallbackWarning``, filterable) and
``cvgpu.backend()`` answers ``"cv2"``. ``CVGPU_BACKEND=cv2`` forces it, for comparisons.
"""
import os
import threading
import warnings


class CvgpuFallbackWarning(RuntimeWarning):
    """cvgpu found no usable GPU and computes with cv2 instead."""


_lock = threading.Lock()
_state = {"checked": False, "cupy": None, "reason": None, "warned": False}
_last_call = threading.local()


def _probe():
    if os.environ.get("CVGPU_BACKEND", "").lower() == "cv2":
        return None, "CVGPU_BACKEND=cv2 is set"
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising at import
        return None, "CuPy is not importable (%s: %s)" % (type(exc).__name__, exc)
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, "no CUDA device is visible"
        # A real allocation and memset: a driver too old for CuPy's runtime fails here (a newer
        # minor runtime on an older driver of the same major version is fine).
        cupy.zeros(1, dtype=cupy.uint8)
        cupy.cuda.get_current_stream().synchronize()
    except Exception as exc:
        return None, "CUDA is not usable (%s: %s)" % (type(exc).__name__, exc)
    return cupy, None


def cupy_module():
    """CuPy when a GPU is usable, else None (probed once per process)."""
    if not _state["checked"]:
        with _lock:
            if not _state["checked"]:
                _state["cupy"], _state["reason"] = _probe()
                _state["checked"] = True
    return _state["cupy"]


def backend():
    """``"cuda"`` when cvgpu computes on the GPU, ``"cv2"`` when it falls back to OpenCV."""
    return "cuda" if cupy_module() is not None else "cv2"


def fallback_reason():
    cupy_module()
    return _state["reason"]


def warn_fallback():
    if not _state["warned"]:
        _state["warned"] = True
        warnings.warn("cvgpu: no usable GPU (%s); results are computed by cv2 on the CPU"
                      % fallback_reason(), CvgpuFallbackWarning, stacklevel=4)


def record(engine):
    """Remember which engine computed the current thread's latest cvgpu call."""
    _last_call.engine = engine


def last_call_backend():
    """``"cuda"`` or ``"cv2"``: what computed this thread's most recent cvgpu result (None before any)."""
    return getattr(_last_call, "engine", None)


def device_count():
    cp = cupy_module()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()
