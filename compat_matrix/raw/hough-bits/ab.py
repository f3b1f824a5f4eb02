"""HoughLines with numpy input: the image sent as bits (TUNING.host_bits, the default) against its
bytes, interleaved in one process, cv2 beside. Canny 50/150 edges of the bench's eight photographs
at the four camera-frame sizes, each at the threshold where cvgpu's device HoughLines keeps 10-500
lines (bisection). Medians (ms a call) per round; every result compared with cv2's. Then frames/s
from 1 and 8 threads (the bench's threads rows: four photographs, threshold 150), bits and bytes,
each thread warmed first; and single calls with 1-8 packing threads (hostcall.c's bands).

    python3 compat_matrix/raw/hough-bits/ab.py
"""
import statistics
import time

import cv2
import numpy as np

import cvgpu
from cvgpu.bench.threads import _throughput
from cvgpu.bench.workloads import FRAMES, FRAME_PHOTOS, frame_edges
from cvgpu.hough._voting import TUNING

import cupy as cp

THETA = np.pi / 180
ROUNDS = 3


def same(a, b):
    return (a is None and b is None) or (a is not None and b is not None and a.shape == b.shape
                                         and np.array_equal(a, b))


def med(fn, calls):
    fn()
    out = []
    for _ in range(calls):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e3


def threshold_for(img):
    d = cp.asarray(img)
    lo, hi = 1, 4000
    while lo < hi:   # the smallest threshold keeping <= 500 lines
        mid = (lo + hi) // 2
        r = cvgpu.HoughLines(d, 1, THETA, mid)
        n = 0 if r is None else len(r)
        if n > 500:
            lo = mid + 1
        else:
            hi = mid
    return lo


print("frame       photo       thr  lines     cv2    bits   bytes   x(bits)  rounds bits / bytes")
for size in FRAMES:
    for name in FRAME_PHOTOS:
        img = frame_edges(name, size)
        if img is None:
            continue
        thr = threshold_for(img)
        ref = cv2.HoughLines(img, 1, THETA, thr)
        calls = 20 if img.size > 4e6 else 60
        t_cv2 = med(lambda: cv2.HoughLines(img, 1, THETA, thr), 3 if img.size > 4e6 else 7)
        rb, ry = [], []
        ok = True
        for _ in range(ROUNDS):
            rb.append(med(lambda: cvgpu.HoughLines(img, 1, THETA, thr), calls))
            ok &= same(cvgpu.HoughLines(img, 1, THETA, thr), ref)
            with TUNING.override(host_bits=False):
                cvgpu.HoughLines(img, 1, THETA, thr)
                ry.append(med(lambda: cvgpu.HoughLines(img, 1, THETA, thr), calls))
                ok &= same(cvgpu.HoughLines(img, 1, THETA, thr), ref)
        b, y = statistics.median(rb), statistics.median(ry)
        print("%-11s %-10s %4d %5d %8.3f %7.4f %7.4f %7.1fx  %s / %s%s" % (
            "%dx%d" % size, name, thr, 0 if ref is None else len(ref), t_cv2, b, y, t_cv2 / b,
            " ".join("%.4f" % v for v in rb), " ".join("%.4f" % v for v in ry), "" if ok else "  NOT EXACT"),
            flush=True)

print()
print("packing threads (hostcall.c's bands), bits, ms a call, medians of 3 rounds")
helpers = cvgpu._native.helpers()
print("frame       photo         1 thread   2        4        8")
for size in FRAMES[1:]:
    for name in ("camera", "coins", "page", "astronaut"):
        img = frame_edges(name, size)
        calls = 20 if img.size > 4e6 else 60
        cells = []
        for n in (1, 2, 4, 8):
            helpers.set_pack_threads(n)
            cells.append(statistics.median(med(lambda: cvgpu.HoughLines(img, 1, THETA, 150), calls)
                                           for _ in range(ROUNDS)))
        helpers.set_pack_threads(4)
        print("%-11s %-10s %s" % ("%dx%d" % size, name, "  ".join("%7.4f" % v for v in cells)), flush=True)

print()
print("frames/s, every thread warmed first (bench.threads._throughput); pack threads 4 (default) / 1")
print("frame        threads   cv2 fps   bits fps (2 rounds)   bytes fps (2 rounds)   bits, 1 pack thread")
for size in FRAMES[:3]:
    imgs = [frame_edges(p, size) for p in ("camera", "coins", "page", "astronaut")]
    n = 256 if size[0] <= 640 else 96
    frames = [imgs[i % 4] for i in range(n)]
    ours = lambda f: cvgpu.HoughLines(f, 1, THETA, 150)  # noqa: E731
    for f in imgs:
        ours(f)
        with TUNING.override(host_bits=False):
            ours(f)
    for threads in (1, 8):
        c = _throughput(lambda f: cv2.HoughLines(f, 1, THETA, 150), frames, threads)
        bits, byts, one = [], [], []
        for _ in range(2):
            bits.append(_throughput(ours, frames, threads, cp, own_streams=True))
            with TUNING.override(host_bits=False):
                for f in imgs:
                    ours(f)
                byts.append(_throughput(ours, frames, threads, cp, own_streams=True))
            helpers.set_pack_threads(1)
            one.append(_throughput(ours, frames, threads, cp, own_streams=True))
            helpers.set_pack_threads(4)
        print("%-12s %7d %9.0f   %s   %s   %s" % ("%dx%d" % size, threads, c, " ".join("%7.0f" % v for v in bits),
                                                  " ".join("%7.0f" % v for v in byts),
                                                  " ".join("%7.0f" % v for v in one)), flush=True)
