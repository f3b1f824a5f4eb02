"""Why HoughLines numpy io on page 1920x1080 (bench of e220e58: 0.554 ms) sits far above its floor
(0.159 ms) while camera 1920x1080 (0.162 ms) does not: both at the bench's thresholds, interleaved
in one process, bits and bytes, medians of 200; then cProfile's top entries of 200 page calls.

    python3 compat_matrix/raw/session-2026-11-28/page_probe.py
"""
import cProfile
import pstats
import statistics
import time

import cv2
import numpy as np

import cvgpu
from cvgpu.bench.workloads import frame_edges
from cvgpu.hough import TUNING

cvgpu.set_engine("cuda")
ROWS = {"page": 256, "camera": 256, "chelsea": 64, "moon": 32, "coins": 128}
imgs = {n: frame_edges(n, (1920, 1080)) for n in ROWS}


def med(fn, n=200):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e3


for name, img in imgs.items():
    ref = cv2.HoughLines(img, 1, np.pi / 180, ROWS[name])
    got = cvgpu.HoughLines(img, 1, np.pi / 180, ROWS[name])
    same = (ref is None and got is None) or (ref is not None and got is not None and ref.tobytes() == got.tobytes())
    print("%-8s points %6d lines %4d same %s strides %s contiguous %s" % (
        name, np.count_nonzero(img), 0 if ref is None else len(ref), same, img.strides, img.flags.c_contiguous))
for rnd in range(2):
    for bits in (True, False):
        with TUNING.override(host_bits=bits):
            for name, img in imgs.items():
                t = med(lambda: cvgpu.HoughLines(img, 1, np.pi / 180, ROWS[name]))
                print("round %d bits %d %-8s %.4f ms  backend %s" % (rnd, bits, name, t, cvgpu.last_call_backend()))
# Same image memory each call vs a fresh copy each call (a page image's buffer reused?)
for name, img in imgs.items():
    copies = [img.copy() for _ in range(8)]
    i = [0]

    def call():
        i[0] += 1
        cvgpu.HoughLines(copies[i[0] % 8], 1, np.pi / 180, ROWS[name])
    print("8 copies in turn %-8s %.4f ms" % (name, med(call)))
prof = cProfile.Profile()
img = imgs["page"]
prof.enable()
for _ in range(200):
    cvgpu.HoughLines(img, 1, np.pi / 180, ROWS["page"])
prof.disable()
pstats.Stats(prof).sort_stats("tottime").print_stats(14)
