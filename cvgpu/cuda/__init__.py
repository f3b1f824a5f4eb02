"""cvgpu.cuda: OpenCV's CUDA module as pip users never had it. Names cvgpu does not implement are
forwarded to ``cv2.cuda``."""
import cv2 as _cv2

from .._backend import device_count as _device_count
from .gpumat import GpuMat, Stream, Stream_Null
from .hough import HoughLinesDetector, createHoughLinesDetector
from .segments import HoughSegmentDetector, createHoughSegmentDetector

_OWN = {"getCudaEnabledDeviceCount", "GpuMat", "Stream", "Stream_Null", "createHoughLinesDetector",
        "HoughLinesDetector", "createHoughSegmentDetector", "HoughSegmentDetector"}


def getCudaEnabledDeviceCount():
    """getCudaEnabledDeviceCount() -> retval: the number of GPUs cvgpu can compute on."""
    return _device_count()


def __getattr__(name):
    return getattr(_cv2.cuda, name)


def __dir__():
    return sorted(set(dir(_cv2.cuda)) | _OWN)
