"""Where a camera-frame findContours call's time goes (issue 41): wall medians of the numpy call, of
findContours and findContoursPacked on a device mask, and (argument "ncu") two profiled calls of
each row for `ncu --profile-from-start off`: the kernels' own durations."""
import os
import statistics
import sys
import time

os.environ["CVGPU_ENGINE"] = "cuda"
import cupy as cp  # noqa: E402
import cv2  # noqa: E402

import cvgpu  # noqa: E402
from cvgpu.bench.workloads import frame_mask  # noqa: E402

ROWS = [("camera", (640, 480), cv2.RETR_EXTERNAL, "EXTERNAL"), ("coins", (640, 480), cv2.RETR_TREE, "TREE"),
        ("camera", (1920, 1080), cv2.RETR_EXTERNAL, "EXTERNAL"), ("coins", (1920, 1080), cv2.RETR_TREE, "TREE")]
S = cv2.CHAIN_APPROX_SIMPLE


def wall(fn, n=200):
    for _ in range(10):
        fn()
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e6


for name, size, mode, label in ROWS:
    mask = frame_mask(name, size)
    d = cp.asarray(mask)

    def packed():
        p = cvgpu.findContoursPacked(d, mode, S)
        p[0].data.ptr  # (device arrays: the call has waited for its counts)
        cp.cuda.get_current_stream().synchronize()

    def dev():
        cvgpu.findContours(d, mode, S)
        cp.cuda.get_current_stream().synchronize()

    if sys.argv[1:] == ["ncu"]:
        for f in (lambda: cvgpu.findContours(mask, mode, S), packed):
            for _ in range(3):
                f()
            cp.cuda.runtime.deviceSynchronize()
            cp.cuda.profiler.start()
            f()
            cp.cuda.runtime.deviceSynchronize()
            cp.cuda.profiler.stop()
        continue
    print("%s %dx%d %s: numpy io %.0f us, device findContours %.0f, device findContoursPacked %.0f, cv2 %.0f" % (
        name, size[0], size[1], label, wall(lambda: cvgpu.findContours(mask, mode, S)), wall(dev), wall(packed),
        wall(lambda: cv2.findContours(mask, mode, S), 50)), flush=True)
