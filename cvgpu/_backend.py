"""Which engine computes cvgpu's results: the GPU through CuPy, or cv2 when there is no GPU.

The no-GPU fallback is explicit: it warns once (``CvgpuFallbackWarning``, filterable) and
``cvgpu.backend()`` answers ``"cv2"``. ``CVGPU_BACKEND=cv2`` forces it, for comparisons.
"""
import os
import threading
import warnings


class CvgpuFallbackWarning(RuntimeWarning):
    """cvgpu found no usable GPU and computes with cv2 instead."""


class CvgpuVersionWarning(RuntimeWarning):
    """The installed cv2 is newer than the OpenCV versions cvgpu reproduces."""


# The newest OpenCV cvgpu reproduces is 5.0.x: 5.1.0 returns empty arrays where 5.0 returned None
# (HoughLines and HoughLinesWithAccumulator without lines, RadonTransform without angles), checks
# HoughLines' rho, theta and angle range with errors of its own (code -2), and its RadonTransform
# values differ (float sums in the last bits, normalised uint8 values by a few levels).
# pyproject.toml keeps pip below it; one that is installed anyway is warned of.
VALIDATED_BELOW = (5, 1)


def opencv_major_minor(version):
    """(major, minor) of a cv2 version string such as "5.0.0"."""
    return tuple(int(part) for part in version.split(".")[:2])


def opencv_version_problem(version):
    """The warning text for a cv2 ``version`` string cvgpu does not reproduce, else None."""
    try:
        major_minor = opencv_major_minor(version)
    except ValueError:
        return None
    if major_minor < VALIDATED_BELOW:
        return None
    return ("cvgpu reproduces OpenCV below %d.%d; the installed cv2 is %s, whose results cvgpu's may not "
            "equal (install opencv-contrib-python<%d.%d)" % (VALIDATED_BELOW + (version,) + VALIDATED_BELOW))


def warn_if_unvalidated_opencv(version):
    text = opencv_version_problem(version)
    if text is not None:
        warnings.warn(text, CvgpuVersionWarning, stacklevel=3)


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
