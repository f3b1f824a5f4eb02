"""cvgpu: ``import cvgpu as cv2`` — the same results as cv2, computed on an NVIDIA GPU.

Functions cvgpu implements run in its own CUDA kernels and return what cv2 returns, bit for bit.
Every other name (functions, constants, classes, ``error``, ``__version__``) is cv2's own,
forwarded untouched, so existing code keeps working.
"""
import cv2 as _cv2

from . import cuda, ximgproc
from ._backend import (CvgpuFallbackWarning, CvgpuVersionWarning, backend, fallback_reason, last_call_backend,
                       warn_if_unvalidated_opencv)
from .cuda import GpuMat as cuda_GpuMat, Stream as cuda_Stream
from .contours import findContours, findContoursLinkRuns, findContoursPacked
from .hough import HoughLines, HoughLinesWithAccumulator
from .lms import fitLineLMS, fitLineLMSBatch, refineHoughLines

# cvgpu's own version; ``cvgpu.__version__`` is cv2's, as code checking cv2's version expects.
cvgpu_version = "0.1.0"

warn_if_unvalidated_opencv(_cv2.__version__)

# A function the installed cv2 does not have is not cvgpu's either (findContoursLinkRuns before 4.10):
# ``cvgpu.findContoursLinkRuns`` then raises AttributeError as ``cv2.findContoursLinkRuns`` does.
if not hasattr(_cv2, "findContoursLinkRuns"):
    del findContoursLinkRuns

_OWN = {"HoughLines", "HoughLinesWithAccumulator", "cuda", "ximgproc", "backend", "fallback_reason",
        "last_call_backend", "CvgpuFallbackWarning", "CvgpuVersionWarning", "cvgpu_version", "cuda_GpuMat",
        "cuda_Stream", "findContours", "findContoursLinkRuns", "findContoursPacked", "fitLineLMS", "fitLineLMSBatch",
        "refineHoughLines"}


def __getattr__(name):
    try:
        return getattr(_cv2, name)
    except AttributeError:
        raise AttributeError("module 'cvgpu' has no attribute %r (nor has cv2)" % name) from None


def __dir__():
    return sorted(set(dir(_cv2)) | {n for n in _OWN if n in globals()})
