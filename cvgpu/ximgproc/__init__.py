"""cvgpu.ximgproc: opencv-contrib's ximgproc; names cvgpu does not implement are forwarded to
``cv2.ximgproc``."""
import cv2 as _cv2

_OWN = set()


def __getattr__(name):
    return getattr(_cv2.ximgproc, name)


def __dir__():
    return sorted(set(dir(_cv2.ximgproc)) | _OWN)
