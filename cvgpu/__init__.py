"""cvgpu: ``import cvgpu as cv2`` — the same results as cv2, computed on an NVIDIA GPU.

Functions cvgpu implements run in its own CUDA kernels and return what cv2 returns, bit for bit.
Every other name (functions, constants, classes, ``error``, ``__version__``) is cv2's own,
forwarded untouched, so existing code keeps working.

Importing cvgpu starts nothing and imports no family: each family's module is imported when one of
its names is first used, and the GPU is started by the engine (cvgpu/_engine.py) when a call would
gain from it, so ``import cvgpu`` costs a script no more than ``import cv2``.
"""
import importlib
import importlib.util

import cv2 as _cv2

from ._backend import (CvgpuFallbackWarning, CvgpuVersionWarning, backend, fallback_reason, last_call_backend,
                       warn_if_unvalidated_opencv)
from ._engine import get_engine, set_engine

# cvgpu's own version; ``cvgpu.__version__`` is cv2's, as code checking cv2's version expects.
cvgpu_version = "0.1.0"

warn_if_unvalidated_opencv(_cv2.__version__)

# Names a family provides: imported from its module on first use.
_LAZY = {
    "HoughLines": ("hough", "HoughLines"),
    "HoughLinesWithAccumulator": ("hough", "HoughLinesWithAccumulator"),
    "HoughLinesP": ("hough", "HoughLinesP"),
    "findContours": ("contours", "findContours"),
    "findContoursPacked": ("contours", "findContoursPacked"),
    "fitLineLMS": ("lms", "fitLineLMS"),
    "fitLineLMSBatch": ("lms", "fitLineLMSBatch"),
    "refineHoughLines": ("lms", "refineHoughLines"),
    "cuda": ("cuda", None),
    "ximgproc": ("ximgproc", None),
    "cuda_GpuMat": ("cuda.gpumat", "GpuMat"),
    "cuda_Stream": ("cuda.gpumat", "Stream"),
}

# A function the installed cv2 does not have is not cvgpu's either (findContoursLinkRuns before 4.10):
# ``cvgpu.findContoursLinkRuns`` then raises AttributeError as ``cv2.findContoursLinkRuns`` does.
if hasattr(_cv2, "findContoursLinkRuns"):
    _LAZY["findContoursLinkRuns"] = ("contours", "findContoursLinkRuns")

_OWN = set(_LAZY) | {"backend", "fallback_reason", "last_call_backend", "CvgpuFallbackWarning",
                     "CvgpuVersionWarning", "cvgpu_version", "get_engine", "set_engine"}


def __getattr__(name):
    spec = _LAZY.get(name)
    if spec is not None:
        module = importlib.import_module("." + spec[0], __name__)
        value = module if spec[1] is None else getattr(module, spec[1])
        globals()[name] = value
        return value
    if name.startswith("_") and importlib.util.find_spec("." + name, __name__) is not None:
        return importlib.import_module("." + name, __name__)  # cvgpu's own modules (cvgpu._binding, ...)
    try:
        return getattr(_cv2, name)
    except AttributeError:
        raise AttributeError("module 'cvgpu' has no attribute %r (nor has cv2)" % name) from None


def __dir__():
    return sorted(set(dir(_cv2)) | _OWN)
