"""Device timing of findContours TC89_L1 / TC89_KCOS (not a test; run by hand on a GPU machine).

numpy in, CUDA events around the call after warm-up (medians), cv2 timed on the host in the same
run, exactness against cv2, and one profiled call per case (events around every kernel of _tc89)
with the number of contours the KCOS nms finish had to take.
    python3 tests/tc89_timing.py
"""
import collections
import time

import cupy as cp
import cv2
import numpy as np

import cvgpu
from cvgpu import contours as cc


def same(a, b):
    return len(a[0]) == len(b[0]) and all(x.tobytes() == y.tobytes() for x, y in zip(a[0], b[0])) and (
        (a[1] is None and b[1] is None) or a[1].tobytes() == b[1].tobytes())


def profile(img, mode, method):
    real = cc._fn
    times = collections.defaultdict(float)
    pend = []
    evs = []

    def fn(name):
        f = real(name)

        def launch(grid, block, args):
            a, b = cp.cuda.Event(), cp.cuda.Event()
            a.record()
            f(grid, block, args)
            b.record()
            evs.append((name, a, b))
            if name == "tc89_nms_finish":
                pend.append(args[-1])
        return launch
    cc._fn = fn
    try:
        cvgpu.findContours(img, mode, method)
    finally:
        cc._fn = real
    cp.cuda.Device().synchronize()
    for name, a, b in evs:
        times[name] += cp.cuda.get_elapsed_time(a, b)
    tc = {k: round(v, 3) for k, v in times.items() if k.startswith("tc89")}
    return tc, int(pend[0].get().astype(bool).sum()) if pend else None


def main():
    cases = [("snake 2048x2048", cc.worst_snake(2048, 2048)), ("blobs 4928x4112", cc.blobs_image(4112, 4928))]
    for label, img in cases:
        for mname, method in (("NONE", cv2.CHAIN_APPROX_NONE), ("TC89_L1", cv2.CHAIN_APPROX_TC89_L1),
                              ("TC89_KCOS", cv2.CHAIN_APPROX_TC89_KCOS)):
            mode = cv2.RETR_LIST
            t_cv = []
            for _ in range(3):
                t0 = time.perf_counter()
                ref = cv2.findContours(img, mode, method)
                t_cv.append((time.perf_counter() - t0) * 1e3)
            ours = cvgpu.findContours(img, mode, method)
            exact = same(ours, ref)
            for _ in range(2):
                cvgpu.findContours(img, mode, method)
            t_gpu = []
            for _ in range(9):
                a, b = cp.cuda.Event(), cp.cuda.Event()
                a.record()
                cvgpu.findContours(img, mode, method)
                b.record()
                b.synchronize()
                t_gpu.append(cp.cuda.get_elapsed_time(a, b))
            line = "%-16s %-9s contours=%-6d points=%-8d exact=%s cv2_ms=%.1f cvgpu_ms=%.1f (min %.1f)" % (
                label, mname, len(ref[0]), sum(len(c) for c in ref[0]), exact, np.median(t_cv), np.median(t_gpu),
                min(t_gpu))
            if method != cv2.CHAIN_APPROX_NONE:
                tc, pend = profile(img, mode, method)
                line += " finish_contours=%s tc89_kernels_ms=%s" % (pend, tc)
            print(line, flush=True)


if __name__ == "__main__":
    main()
