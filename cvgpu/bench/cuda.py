"""Benchmark rows of cvgpu.cuda.createHoughLinesDetector against OpenCV-CUDA's recorded figures.

Workload (as in the spec issue): square images of horizontal 1-px segments (512 px long, so each
segment gives one line at theta = pi/2 above threshold 400), rho 1, theta pi/180, threshold 400.
cvgpu_ms: CUDA events around detect + downloadResults on a device-resident GpuMat, after warm-up,
median per call (_timing.time_device: calls in back-to-back batches). cv2_ms:
cv2.HoughLines (CPU) on the same image in the same run, median.
reference_ms: OpenCV-CUDA's detector (numbers from the spec issue).
"""
import math

import cv2
import numpy as np

from .. import _backend
from ._timing import time_device, time_host, timing_row

# (image side, edge points) -> OpenCV-CUDA milliseconds
REFERENCE_MS = {
    (1024, 10240): 0.069, (1024, 20480): 0.073, (1024, 40960): 0.070, (1024, 81920): 0.076,
    (1024, 163840): 0.093,
    (512, 81920): 0.077, (2048, 81920): 0.102, (4096, 81920): 0.205, (8192, 81920): 0.282,
}
RHO, THETA, THRESHOLD = 1.0, math.pi / 180, 400
SEGMENT = 512


def segments_image(side, points, seed=0):
    """side x side uint8 image with `points` edge pixels in horizontal 1-px segments of SEGMENT px
    (shorter only for the last), on distinct, evenly spread rows."""
    rng = np.random.default_rng(seed)
    img = np.zeros((side, side), np.uint8)
    seg = min(SEGMENT, side)
    nseg = -(-points // seg)
    if nseg > side:
        raise ValueError("too many points for %d rows" % side)
    rows = np.linspace(0, side - 1, nseg).astype(np.int64)
    left = points
    for y in rows:
        length = min(seg, left)
        x0 = int(rng.integers(0, side - length + 1))
        img[y, x0:x0 + length] = 255
        left -= length
    return img


def bench_cuda_hough(quick=False, progress=None):
    """cvgpu.cuda.HoughLinesDetector (detect + downloadResults on a device-resident GpuMat) on the
    spec's workloads, beside OpenCV-CUDA's own kernels (their recorded H100 times)."""
    cp = _backend.cupy_module()
    if cp is None:
        return []
    from ..cuda import GpuMat, createHoughLinesDetector
    sizes = list(REFERENCE_MS)[:2] if quick else list(REFERENCE_MS)
    progress = progress or (lambda label: None)
    if hasattr(progress, "expect"):
        progress.expect(len(sizes))
    rows = []
    for side, points in sizes:
        progress("cuda: %dx%d %d pts" % (side, side, points))
        img = segments_image(side, points)
        det = createHoughLinesDetector(RHO, THETA, THRESHOLD)
        d_img = GpuMat(img)
        t = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 50 if quick else 200, warmup=20)
        t_one = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 50, warmup=0, batch=1)
        cv2_t = time_host(lambda: cv2.HoughLines(img, RHO, THETA, THRESHOLD),
                          7 if quick else 20)
        base = dict(family="cuda", function="cuda.HoughLinesDetector",
                    workload="%dx%d horizontal segments, %d pts" % (side, side, points), points=points,
                    width=side, height=side, reference_ms=REFERENCE_MS.get((side, points)))
        rows.append(timing_row(base, cv2_t, t, "device", None, single_call_ms=t_one["median"]))
    return rows
