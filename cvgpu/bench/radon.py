"""Benchmark rows of ximgproc.RadonTransform."""
import re
import statistics
import time

import cv2
import numpy as np

from .. import _backend
from .._cvmath import cv_round
from ..ximgproc.radon import RadonTransform
from ._timing import same as _same


def bench_radon(quick=False, progress=None):
    if _backend.cupy_module() is None and not hasattr(cv2, "ximgproc"):
        return []  # neither side can run: cv2 here has no contrib modules, and there is no GPU
    sizes = (512,) if quick else (512, 1024, 2048)
    rows = bench_rows(sizes=sizes, steps=(1.0,) if quick else (1.0, 0.25), reps=7, cv2_reps=1 if quick else 3)
    out, checked = [], {}
    for r in rows:
        r = dict(r)
        r.setdefault("family", "radon")
        if r.get("exact") is None:
            r["exact"] = _radon_exact(r.get("workload", ""), checked)
        out.append(r)
    return out


def bench_rows(sizes=(512, 1024, 2048), steps=(1.0, 0.25), reps=5, cv2_reps=3, seed=0):
    """Timing rows: uint8 images, angles 0..180 at each step, numpy in/out. cvgpu_ms: CUDA events
    around upload + transform + download, median after warm-up. cv2_ms: host clock, only where
    cv2.ximgproc exists."""
    rng = np.random.default_rng(seed)
    cp = _backend.cupy_module()
    ximgproc = getattr(cv2, "ximgproc", None)
    rows = []
    for side in sizes:
        img = rng.integers(0, 256, (side, side), dtype=np.uint8)
        for step in steps:
            count = cv_round(180.0 / step)
            workload = "%dx%d uint8, %d angles (%g deg steps)" % (side, side, count, step)
            cv2_ms = None
            if ximgproc is not None:
                times = []
                for _ in range(cv2_reps):
                    src = img.copy()  # cv2 transposes a square src in place
                    t0 = time.perf_counter()
                    ximgproc.RadonTransform(src, None, step, 0.0, 180.0)
                    times.append((time.perf_counter() - t0) * 1e3)
                cv2_ms = statistics.median(times)
            cvgpu_ms = None
            if cp is not None:
                for _ in range(2):
                    RadonTransform(img, theta=step)
                stream = cp.cuda.get_current_stream()
                times = []
                for _ in range(reps):
                    start, stop = cp.cuda.Event(), cp.cuda.Event()
                    start.record(stream)
                    RadonTransform(img, theta=step)
                    stop.record(stream)
                    stop.synchronize()
                    times.append(cp.cuda.get_elapsed_time(start, stop))
                cvgpu_ms = statistics.median(times)
            speedup = cv2_ms / cvgpu_ms if cv2_ms is not None and cvgpu_ms else None
            rows.append({"function": "ximgproc.RadonTransform", "workload": workload, "cv2_ms": cv2_ms,
                         "cvgpu_ms": cvgpu_ms, "speedup": speedup, "io": "numpy"})
    return rows


def _radon_exact(workload, checked):
    """cvgpu's RadonTransform == cv2.ximgproc's on a random image of the row's size and angle step
    (None without a GPU, without cv2.ximgproc, or when the workload text does not say)."""
    m = re.match(r"(\d+)x(\d+) uint8, \d+ angles \(([\d.]+) deg steps\)", workload)
    if m is None or _backend.cupy_module() is None or not hasattr(cv2, "ximgproc"):
        return None
    key = (int(m.group(1)), int(m.group(2)), float(m.group(3)))
    if key not in checked:
        img = np.random.default_rng(1).integers(0, 256, key[:2][::-1], dtype=np.uint8)
        ref = cv2.ximgproc.RadonTransform(img.copy(), None, key[2], 0.0, 180.0)  # cv2 may transpose src
        checked[key] = _same(RadonTransform(img, theta=key[2]), ref)
    return checked[key]
