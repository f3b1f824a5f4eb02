"""Where a camera-frame findContours call (numpy io, engine pinned to the GPU) and a HoughLines
device-io call spend their host time (issues 41, 42): wall medians, then cProfile of the same
calls, top entries by own time. Run from the repository root on the device machine."""
import cProfile
import io
import pstats
import statistics
import sys
import time

import cv2
import numpy as np

import cvgpu
from cvgpu import _engine
from cvgpu.bench.workloads import frame_edges, frame_mask

_engine.set_engine("cuda")
import cupy as cp  # noqa: E402


def wall(fn, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e6


def profile(label, fn, n, top=28):
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(n):
        fn()
    pr.disable()
    s = io.StringIO()
    st = pstats.Stats(pr, stream=s)
    st.sort_stats("tottime").print_stats(top)
    print("---- cProfile %s (%d calls)" % (label, n))
    print("\n".join(s.getvalue().splitlines()[4:4 + top + 6]))


def contours(size, name, mode, label, n=300):
    mask = frame_mask(name, size)
    ref = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
    got = cvgpu.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
    assert cvgpu.last_call_backend() == "cuda"
    ok = len(ref[0]) == len(got[0]) and all(np.array_equal(a, b) for a, b in zip(ref[0], got[0]))
    for _ in range(20):
        cvgpu.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
    g = wall(lambda: cvgpu.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE), n)
    c = wall(lambda: cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE), n)
    print("== findContours %s %s %dx%d: %d contours, exact %s, cvgpu %.1f us, cv2 %.1f us" % (
        label, name, size[0], size[1], len(ref[0]), ok, g, c))
    profile("findContours %s %s %dx%d" % (label, name, *size), lambda: cvgpu.findContours(
        mask, mode, cv2.CHAIN_APPROX_SIMPLE), n)


def hough(size, name, n=2000):
    edges = frame_edges(name, size)
    d = cp.asarray(edges)
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 150)
    gm = cvgpu.cuda.GpuMat(edges)
    for _ in range(50):
        det.downloadResults(det.detect(gm))
        cvgpu.HoughLines(d, 1.0, np.pi / 180, 150)
    cp.cuda.Device().synchronize()
    a = wall(lambda: det.downloadResults(det.detect(gm)), n)
    b = wall(lambda: cvgpu.HoughLines(d, 1.0, np.pi / 180, 150), n)
    a2 = wall(lambda: det.downloadResults(det.detect(gm)), n)
    b2 = wall(lambda: cvgpu.HoughLines(d, 1.0, np.pi / 180, 150), n)
    print("== hough %s %dx%d: detector detect+download %.1f / %.1f us, HoughLines device %.1f / %.1f us" % (
        name, size[0], size[1], a, a2, b, b2))
    profile("detector %s" % name, lambda: det.downloadResults(det.detect(gm)), n, top=18)
    profile("HoughLines device %s" % name, lambda: cvgpu.HoughLines(d, 1.0, np.pi / 180, 150), n, top=18)


print(cp.cuda.runtime.getDeviceProperties(0)["name"].decode(), cv2.__version__, cp.__version__, sys.version.split()[0])
for size in ((640, 480), (1920, 1080)):
    for name in ("camera", "coins"):
        for mode, label in ((cv2.RETR_EXTERNAL, "EXTERNAL"), (cv2.RETR_TREE, "TREE")):
            contours(size, name, mode, label)
for size in ((640, 480), (1920, 1080)):
    hough(size, "coffee")
