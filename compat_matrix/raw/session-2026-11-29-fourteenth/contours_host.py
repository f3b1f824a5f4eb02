"""The host side of a camera-frame findContours call, item by item (issue 41): a Gpu whose kernels,
cooperative kernel and device ops are timed where the host calls them (no sync added), cupy.empty
timed, the rest (count reads, Python) by difference. Device input (findContoursPacked, the CuPy
result waited for) and numpy io; engine pinned to the GPU."""
import collections
import os
import statistics
import time

os.environ["CVGPU_ENGINE"] = "cuda"
import cupy as cp  # noqa: E402
import cv2  # noqa: E402

import cvgpu  # noqa: E402
from cvgpu.bench.workloads import frame_mask  # noqa: E402
from cvgpu.contours import _common  # noqa: E402

ACC = collections.Counter()
N = collections.Counter()


class Timed:
    def __init__(self, f, label):
        self.f, self.label = f, label

    def __call__(self, *a, **k):
        t = time.perf_counter()
        try:
            return self.f(*a, **k)
        finally:
            ACC[self.label] += time.perf_counter() - t
            N[self.label] += 1


class Ops:
    def __init__(self, ops):
        self._ops = ops

    def __getattr__(self, name):
        return Timed(getattr(self._ops, name), "ops." + name)


class TimedGpu(_common.Gpu):
    def __init__(self, cp_):
        super().__init__(cp_)
        self.ops = Ops(self.ops)

    def fn(self, module, name, max_dynamic_shared=None, cooperative=False):
        f = super().fn(module, name, max_dynamic_shared=max_dynamic_shared, cooperative=cooperative)
        return f if cooperative else Timed(f, "launch " + name)

    def cooperative(self, module, name, threads):
        r = super().cooperative(module, name, threads)
        return None if r is None else (Timed(r[0], "launch(coop) " + name), r[1])


_empty = cp.empty
cp.empty = Timed(_empty, "cupy.empty")
ROWS = [("camera", (640, 480), cv2.RETR_EXTERNAL, "EXTERNAL"), ("coins", (640, 480), cv2.RETR_TREE, "TREE"),
        ("camera", (1920, 1080), cv2.RETR_EXTERNAL, "EXTERNAL")]
S = cv2.CHAIN_APPROX_SIMPLE
with _common.computing_on(TimedGpu(cp)):
    for name, size, mode, label in ROWS:
        mask = frame_mask(name, size)
        d = cp.asarray(mask)
        for io, call in (("device packed", lambda: cvgpu.findContoursPacked(d, mode, S)),
                         ("numpy", lambda: cvgpu.findContours(mask, mode, S))):
            for _ in range(20):
                call()
            cp.cuda.runtime.deviceSynchronize()
            ACC.clear()
            N.clear()
            walls = []
            reps = 300
            for _ in range(reps):
                t = time.perf_counter()
                call()
                cp.cuda.get_current_stream().synchronize()
                walls.append(time.perf_counter() - t)
            total = sum(walls) / reps * 1e6
            print("== %s %dx%d %s, %s: wall mean %.0f us (median %.0f)" % (
                name, size[0], size[1], label, io, total, statistics.median(walls) * 1e6))
            named = 0.0
            for k, v in sorted(ACC.items(), key=lambda kv: -kv[1]):
                us = v / reps * 1e6
                named += us
                print("   %-40s %6.1f us  (%d a call)" % (k, us, N[k] // reps))
            print("   %-40s %6.1f us" % ("everything else (count reads, Python)", total - named))
