"""cvgpu.ximgproc: opencv-contrib's ximgproc; names cvgpu does not implement are forwarded to
``cv2.ximgproc`` (absent when the installed cv2 has no contrib modules; cvgpu's own names work
regardless)."""
import cv2 as _cv2

from .radon import RadonTransform

_OWN = {"RadonTransform"}


def __getattr__(name):
    ximgproc = getattr(_cv2, "ximgproc", None)
    if ximgproc is None:
        raise AttributeError("module 'cvgpu.ximgproc' has no attribute %r (the installed cv2 has no "
                             "ximgproc: install opencv-contrib-python)" % name)
    return getattr(ximgproc, name)


def __dir__():
    ximgproc = getattr(_cv2, "ximgproc", None)
    return sorted((set(dir(ximgproc)) if ximgproc is not None else set()) | _OWN)
