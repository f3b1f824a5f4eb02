"""OpenCV-CUDA's own HoughLinesDetector kernels, timed in the same job as cvgpu's.

OpenCV's pip wheels have no CUDA. ../shared/ocv_harness holds a driver that runs OpenCV's two
cudaimgproc kernel files the way ``cv::cuda::HoughLinesDetector::detect`` does and prints the median
detect+download time over CUDA events; built on the device from a git-ignored copy (``.ocv/``, its
README says how) it is found here through ``CVGPU_OCV_HARNESS`` or ``.ocv/harness``. Each row runs it
before and after cvgpu on the same image and keeps the lower time, so host drift shows as a spread
rather than as a speedup. Without the binary the recorded figures are used and marked "recorded".
"""
import os
import pathlib
import subprocess
import tempfile

import numpy as np


def find_harness():
    """The path of the built OpenCV-CUDA harness, or None."""
    for path in (os.environ.get("CVGPU_OCV_HARNESS"), ".ocv/harness",
                 str(pathlib.Path(__file__).resolve().parents[2] / ".ocv" / "harness")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def run(harness, img, rho, theta, threshold, do_sort=False, max_lines=4096, reps=50):
    """(median ms of detect + download, line count, shared-memory voting) of OpenCV-CUDA's kernels."""
    with tempfile.TemporaryDirectory() as d:
        raw, out = os.path.join(d, "img.raw"), os.path.join(d, "out.bin")
        np.ascontiguousarray(img, dtype=np.uint8).tofile(raw)
        h, w = img.shape
        text = subprocess.run([harness, raw, str(w), str(h), repr(float(np.float32(rho))),
                               repr(float(np.float32(theta))), str(int(threshold)), str(int(bool(do_sort))),
                               str(int(max_lines)), str(int(reps)), out],
                              check=True, capture_output=True, text=True, timeout=120).stdout
    fields = dict(part.split("=") for part in text.split())
    return float(fields["median_ms"]), int(fields["count"]), fields.get("smem") == "1"


def find_segments_harness():
    """The path of the built OpenCV-CUDA segment harness (``harness_seg``), or None."""
    for path in (os.environ.get("CVGPU_OCV_HARNESS_SEG"), ".ocv/harness_seg",
                 str(pathlib.Path(__file__).resolve().parents[2] / ".ocv" / "harness_seg")):
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def run_segments(harness, img, rho, theta, min_len, max_gap, max_lines=4096, threshold=-1, reps=50):
    """(median ms of detect + download, segment count) of OpenCV-CUDA's segment kernels
    (../shared/ocv_harness/README.md: harness_seg)."""
    with tempfile.TemporaryDirectory() as d:
        raw, out = os.path.join(d, "img.raw"), os.path.join(d, "out.bin")
        np.ascontiguousarray(img, dtype=np.uint8).tofile(raw)
        h, w = img.shape
        text = subprocess.run([harness, raw, str(w), str(h), repr(float(np.float32(rho))),
                               repr(float(np.float32(theta))), str(int(min_len)), str(int(max_gap)),
                               str(int(max_lines)), str(int(threshold)), str(int(reps)), out],
                              check=True, capture_output=True, text=True, timeout=300).stdout
    fields = dict(part.split("=") for part in text.split())
    return float(fields["median_ms"]), int(fields["count"])
