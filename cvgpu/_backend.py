"""Which engine computes cvgpu's results: the GPU through CuPy, or cv2 when there is no GPU.

The no-GPU fallback is explicit: it warns once (``CvgpuFallbackWarning``, filterable) and
``cvgpu.backend()`` answers ``"cv2"`` (cvgpu's own CPU code computes what cv2 cannot: cvgpu.cuda's
objects, the LMS fits; ``last_call_backend()`` then says ``"numpy"``). ``CVGPU_BACKEND=cv2`` forces
it, for comparisons.
"""
import os
import sys
import threading
import warnings


class CvgpuFallbackWarning(RuntimeWarning):
    """cvgpu found no usable GPU and computes with cv2 instead."""


class CvgpuVersionWarning(RuntimeWarning):
    """The installed cv2 is outside the OpenCV releases cvgpu was validated beside."""


def opencv_version_problem(version):
    """The warning text for a cv2 ``version`` outside the releases cvgpu was validated beside
    (cvgpu/_versions.py), else None. Beside such a cv2 cvgpu still computes, with the behaviour of
    the nearest validated release."""
    from . import _versions
    status = _versions.status(version)
    if status == "validated":
        return None
    nearest = _versions.version_text(_versions.effective(version))
    return ("cvgpu was validated beside OpenCV %s to %s; the installed cv2 is %s (%s): cvgpu follows %s's "
            "behaviour, which this cv2 may not share. 'python -m cvgpu selftest' compares the two and says "
            "what matches." % (_versions.version_text(_versions.VALIDATED[0]),
                               _versions.version_text(_versions.VALIDATED[-1]), version,
                               "newer" if status == "newer" else "older", nearest))


def warn_if_unvalidated_opencv(version):
    text = opencv_version_problem(version)
    if text is not None:
        warnings.warn(text, CvgpuVersionWarning, stacklevel=caller_stacklevel())


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def caller_stacklevel():
    """The ``stacklevel`` for warnings.warn that names the first frame outside cvgpu (the caller's
    line, whichever family and decorators the call went through)."""
    level, frame = 1, sys._getframe(1)
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_PACKAGE_DIR + os.sep) and "importlib" not in filename:
            return level
        frame, level = frame.f_back, level + 1
    return level


_lock = threading.Lock()
_state = {"checked": False, "cupy": None, "reason": None, "warned": False}
_last_call = threading.local()


NO_DRIVER = "no NVIDIA GPU/driver found"
# CUDA runtime errors that mean the same: no driver, or no device behind it.
_NO_DRIVER_ERRORS = ("cudaErrorInsufficientDriver", "cudaErrorNoDevice", "CUDA_ERROR_NO_DEVICE",
                     "CUDA_ERROR_NOT_INITIALIZED", "libcuda")


def _driver_present():
    """Whether an NVIDIA driver is installed: its device nodes (Linux), its kernel module's version
    file, or a loadable libcuda (WSL, other systems)."""
    if any(os.path.exists(p) for p in ("/dev/nvidiactl", "/proc/driver/nvidia/version", "/dev/dxg")):
        return True
    # Loaded by name (cvgpu._native), not found with ctypes.util.find_library: its import costs every
    # script ~10 ms and each search runs ldconfig or a compiler in a subprocess (tens of milliseconds).
    from ._native import _cuda_library
    return _cuda_library() is not None


def _probe():
    if os.environ.get("CVGPU_BACKEND", "").lower() == "cv2":
        return None, "CVGPU_BACKEND=cv2 is set"
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising at import
        if not _driver_present():
            return None, NO_DRIVER
        return None, ("CuPy is not importable (%s: %s; pip install 'cvgpu[cuda12]' or 'cvgpu[cuda13]')"
                      % (type(exc).__name__, exc))
    try:
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None, NO_DRIVER
        # A real allocation and memset: a driver too old for CuPy's runtime fails here (a newer
        # minor runtime on an older driver of the same major version is fine).
        cupy.zeros(1, dtype=cupy.uint8)
        cupy.cuda.get_current_stream().synchronize()
    except Exception as exc:
        text = "%s: %s" % (type(exc).__name__, exc)
        if any(e in text for e in _NO_DRIVER_ERRORS) or not _driver_present():
            return None, NO_DRIVER
        return None, "CUDA is not usable (%s)" % text
    return cupy, None


def cupy_module():
    """CuPy when a GPU is usable, else None (probed once per process)."""
    if not _state["checked"]:
        with _lock:
            if not _state["checked"]:
                _state["cupy"], _state["reason"] = _probe()
                _state["checked"] = True
    return _state["cupy"]


def quick_unusable_reason():
    """Why no GPU can be used, when that is known without starting anything (CVGPU_BACKEND=cv2, or
    CuPy not installed: then, as _probe says it, no driver first, since installing CuPy would not
    help); else None."""
    if os.environ.get("CVGPU_BACKEND", "").lower() == "cv2":
        return "CVGPU_BACKEND=cv2 is set"
    if not _state["checked"]:
        if not _cupy_installed():
            if not _driver_present():
                return NO_DRIVER
            return "CuPy is not installed (pip install 'cvgpu[cuda12]' or 'cvgpu[cuda13]')"
    return None


_cupy_found = []


def _cupy_installed():
    """Whether CuPy can be found, searched once per process: auto mode asks on every call before the
    GPU starts, and each search stats every sys.path entry (~30 us a call, a third of cvgpu's own
    time around a cv2-computed findContours at VGA)."""
    if not _cupy_found:
        import importlib.util
        _cupy_found.append(importlib.util.find_spec("cupy") is not None)
    return _cupy_found[0]


def label_without_start():
    """(backend, no-GPU reason) as far as it is known without starting anything: the probed state
    once probed; before that "cv2" with the reason when one is known without CuPy (CVGPU_BACKEND,
    CuPy missing, no driver), else "cuda" (what the first call that benefits would start)."""
    if gpu_probed():
        return backend(), fallback_reason()
    reason = quick_unusable_reason()
    if reason is None and not _driver_present():
        reason = NO_DRIVER
    return ("cv2", reason) if reason is not None else ("cuda", None)


def gpu_probed():
    """True once the GPU has been probed (started, or found unusable) in this process."""
    return _state["checked"]


def mark_unusable(reason):
    """From now on there is no usable GPU, for ``reason`` (a forked child of a CUDA process)."""
    with _lock:
        _state["cupy"], _state["reason"], _state["checked"] = None, reason, True


def backend():
    """``"cuda"`` when cvgpu computes on the GPU, ``"cv2"`` when it falls back to OpenCV."""
    return "cuda" if cupy_module() is not None else "cv2"


def fallback_reason():
    cupy_module()
    return _state["reason"]


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def caller_stacklevel():
    """The ``stacklevel`` of warnings.warn (called by the function calling this one) that names the
    first frame outside the cvgpu package: the user's line, whatever the depth of cvgpu's calls."""
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    return level


def warn_fallback():
    if not _state["warned"]:
        _state["warned"] = True
        warnings.warn("cvgpu: no usable GPU (%s); results are computed on the CPU (by cv2, or by "
                      "cvgpu's numpy code where cv2 has no equivalent)"
                      % fallback_reason(), CvgpuFallbackWarning, stacklevel=caller_stacklevel())


def record(engine):
    """Remember which engine computed the current thread's latest cvgpu call."""
    _last_call.engine = engine


def last_call_backend():
    """What computed this thread's most recent cvgpu result (None before any): ``"cuda"`` cvgpu's
    kernels on the GPU, ``"cv2"`` OpenCV (forwarded, or the no-GPU fallback), ``"numpy"`` cvgpu's own
    CPU code, where cv2 has no equivalent to fall back to (without a usable GPU: fitLineLMS and
    its batch form, and cvgpu.cuda's HoughLinesDetector, OpenCV-CUDA's results that cv2's wheels
    cannot compute), ``"none"`` an answer that needed no pixel work."""
    return getattr(_last_call, "engine", None)


def device_count():
    cp = cupy_module()
    return 0 if cp is None else cp.cuda.runtime.getDeviceCount()
