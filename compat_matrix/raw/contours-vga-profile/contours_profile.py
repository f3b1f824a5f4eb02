"""Where a findContours call's host time goes at camera-frame sizes (numpy in and out, engine cuda):
cProfile over 300 calls on the camera photograph's Otsu mask at 640x480 and 1920x1080, EXTERNAL and
TREE with CHAIN_APPROX_SIMPLE; the medians without the profiler first. Top entries by own time
and by cumulative time.

    python3 compat_matrix/raw/contours-vga-profile/contours_profile.py
"""
import cProfile
import io
import pstats
import statistics
import time

import cv2

import cvgpu
from cvgpu.bench.workloads import frame_mask

cvgpu.set_engine("cuda")
for size in ((640, 480), (1920, 1080)):
    mask = frame_mask("camera", size)
    for mode, mname in ((cv2.RETR_EXTERNAL, "EXTERNAL"), (cv2.RETR_TREE, "TREE")):
        call = lambda: cvgpu.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)  # noqa: E731
        for _ in range(20):
            call()
        ts = []
        for _ in range(200):
            t = time.perf_counter()
            call()
            ts.append(time.perf_counter() - t)
        c2 = []
        for _ in range(50):
            t = time.perf_counter()
            r = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
            c2.append(time.perf_counter() - t)
        print("=== %dx%d %s: %d contours, cvgpu %.3f ms, cv2 %.3f ms (medians)" % (
            size[0], size[1], mname, len(r[0]), statistics.median(ts) * 1e3, statistics.median(c2) * 1e3))
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(300):
            call()
        prof.disable()
        for key in ("tottime", "cumulative"):
            s = io.StringIO()
            pstats.Stats(prof, stream=s).sort_stats(key).print_stats(22)
            lines = [ln for ln in s.getvalue().splitlines() if ln.strip()][3:]
            print("--- by %s (300 calls)" % key)
            print("\n".join(lines))
