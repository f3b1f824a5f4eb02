"""Benchmark of cvgpu.cuda.createHoughLinesDetector against OpenCV-CUDA's published figures.

Workload (as in the spec issue): square images of horizontal 1-px segments (512 px long, so each
segment gives one line at theta = pi/2 above threshold 400), rho 1, theta pi/180, threshold 400.
cvgpu_ms: CUDA events around detect + downloadResults on a device-resident GpuMat, after warm-up,
median of `repeats` per call (cvgpu.bench.time_device: calls in back-to-back batches). cv2_ms:
cv2.HoughLines (CPU) on the same image in the same run, median.
reference_ms: OpenCV-CUDA's detector (numbers from the spec issue).
"""
import math
import time

import cv2
import numpy as np

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


def _median_ms(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return float(np.median(times))


def bench_rows(repeats=200, sizes=None, warmup=20):
    import cupy as cp

    from ..bench import time_device  # the one timing helper
    from . import GpuMat, createHoughLinesDetector

    rows = []
    for side, points in (sizes or REFERENCE_MS):
        img = segments_image(side, points)
        det = createHoughLinesDetector(RHO, THETA, THRESHOLD)
        d_img = GpuMat(img)

        def run():
            return det.downloadResults(det.detect(d_img))

        cvgpu_ms = time_device(cp, run, repeats, warmup=warmup)["median"]
        cv2.HoughLines(img, RHO, THETA, THRESHOLD)
        cv2_ms = _median_ms(lambda: cv2.HoughLines(img, RHO, THETA, THRESHOLD), max(3, min(repeats, 20)))
        ref = REFERENCE_MS.get((side, points))
        rows.append({
            "function": "cuda.HoughLinesDetector",
            "workload": "%dx%d horizontal segments, %d points, rho 1, theta pi/180, threshold 400"
                        % (side, side, points),
            "cv2_ms": round(cv2_ms, 4),
            "cvgpu_ms": round(cvgpu_ms, 4),
            "reference_ms": ref,
            "speedup_vs_reference": None if ref is None else round(ref / cvgpu_ms, 2),
            "speedup_vs_cv2": round(cv2_ms / cvgpu_ms, 1),
            "lines": 0 if run()[1] is None else int(run()[1].shape[1]),
            "io": "device",
        })
    return rows


if __name__ == "__main__":
    import json
    for row in bench_rows():
        print(json.dumps(row))
