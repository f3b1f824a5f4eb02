"""cv2-computed calls with the GPU cold (auto mode, nothing started): cvgpu's wrapper against cv2
itself, interleaved in one fresh process, then again after importing every cvgpu module as
`cvgpu compare`'s child does. Medians of 200 calls (us).

    python3 compat_matrix/raw/engine-cold/cold_calls.py
"""
import importlib
import pkgutil
import statistics
import time

import cv2
import numpy as np

import cvgpu
from cvgpu import _engine
from cvgpu.bench.workloads import frame_edges, frame_mask


def med(fn, n=200):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e6


def rows(tag):
    m = cv2.resize(frame_mask("coins", (640, 480)), (400, 300))
    e = frame_edges("camera", (640, 480))
    for name, a, b in (
            ("findContours 400x300 EXTERNAL", lambda: cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE),
             lambda: cvgpu.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)),
            ("HoughLines 640x480 thr 150", lambda: cv2.HoughLines(e, 1, np.pi / 180, 150),
             lambda: cvgpu.HoughLines(e, 1, np.pi / 180, 150))):
        ra, rb = [], []
        for _ in range(3):
            ra.append(med(a, 60 if "Hough" in name else 200))
            rb.append(med(b, 60 if "Hough" in name else 200))
        print("%-10s %-30s cv2 %9.1f  cvgpu %9.1f  (%s, last %s)" % (
            tag, name, statistics.median(ra), statistics.median(rb), _engine.startup_state(),
            cvgpu.last_call_backend()), flush=True)


with _engine.TUNING.override(start_after_ms=1e12):   # stay cold whatever cv2 time accrues
    rows("fresh")
    for info in pkgutil.walk_packages(cvgpu.__path__, "cvgpu."):
        if info.name != "cvgpu.__main__":
            try:
                importlib.import_module(info.name)
            except Exception as exc:
                print("import", info.name, type(exc).__name__)
    rows("all-mods")
    import threading
    print("threads:", [t.name for t in threading.enumerate()])
