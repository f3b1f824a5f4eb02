"""The Hough line families: cv2.HoughLines / HoughLinesWithAccumulator (cvgpu.hough.lines) and the
voting machinery they share with cv2.cuda's HoughLinesDetector (cvgpu.hough._voting, used by
cvgpu.cuda.hough). ``TUNING`` holds both families' tuned values (cvgpu._tuning)."""
from ._voting import TUNING
from .lines import HoughLines, HoughLinesWithAccumulator, accumulator_size, trig_table, uses_gpu
# tests/test_hardening.py reads the argument layer's parse of a call.
from .lines import _prepare  # noqa: F401

__all__ = ["HoughLines", "HoughLinesWithAccumulator", "TUNING", "accumulator_size", "trig_table", "uses_gpu"]
