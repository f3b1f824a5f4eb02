"""Same-process A/B of the lines detector's point collection (issue 42, eleventh session, call 7).

Arms (DET_ARMS): "iN" = kernels/cuda/hough.cu built by NVRTC with HOUGH_POINTS_ITEMS N (chunks of
512 pixels a warp takes per tile of hough_collect; 1 is the shipped value). Each arm's detector is
made while its source is the family's. Per workload (Canny edges of photographs, the bench's
thresholds for ~10-500 lines and the camera rows' up to 2,000), ABBA twice: detect +
downloadResults with events around every call (the hot replay, as the bench times it); every arm's
lines and votes equal to the first arm's.

    DET_ARMS=i1,i2,i4 CVGPU_ENGINE=cuda python3 det_ab.py > det-ab.jsonl
"""
import json
import math
import os
import re

os.environ.setdefault("CVGPU_ENGINE", "cuda")
os.environ["CVGPU_KERNELS"] = "nvrtc"

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from cvgpu import _kernels  # noqa: E402
from cvgpu.bench.workloads import frame_edges  # noqa: E402
from cvgpu.cuda import GpuMat, createHoughLinesDetector  # noqa: E402
from cvgpu.cuda import hough as H  # noqa: E402

FAMILY = H.FAMILY
_orig = _kernels.kernel_source
ARM = ["i1"]


def source(arm):
    src = _orig(FAMILY)
    n = int(arm[1:])
    out = re.sub(r"#define HOUGH_POINTS_ITEMS \d+", "#define HOUGH_POINTS_ITEMS %d" % n, src)
    assert n == 1 or out != src
    return out


_kernels.kernel_source = lambda family: source(ARM[0]) if family == FAMILY else _orig(family)


def use(arm):
    for d in (_kernels._functions, _kernels._modules):
        for k in [k for k in d if k[1] == FAMILY]:
            del d[k]
    ARM[0] = arm


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def call_ms(det, d, reps):
    s = cp.cuda.get_current_stream()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        a.record(s)
        det.downloadResults(det.detect(d))
        b.record(s)
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b))
    return med(out)


WORK = [("camera", 3840, 2160, 42), ("coffee", 3840, 2160, 96), ("astronaut", 3840, 2160, 128),
        ("camera", 1920, 1080, 256), ("astronaut", 1920, 1080, 128), ("camera", 1280, 720, 151),
        ("astronaut", 1280, 720, 128), ("camera", 640, 480, 160)]


def main():
    arms = tuple(os.environ.get("DET_ARMS", "i1,i2,i4").split(","))
    for photo, w, h, thr in WORK:
        d = GpuMat(frame_edges(photo, (w, h)))
        dets = {}
        for arm in arms:
            use(arm)
            dets[arm] = createHoughLinesDetector(1.0, math.pi / 180, thr, False, 4096)
            for _ in range(5):
                dets[arm].downloadResults(dets[arm].detect(d))
        ref = dets[arms[0]].downloadResults(dets[arms[0]].detect(d))
        same = {}
        for a in arms:
            got = dets[a].downloadResults(dets[a].detect(d))
            same[a] = all(np.array_equal(x, y) for x, y in zip(got, ref))
        times = {a: [] for a in arms}
        for arm in (arms + arms[::-1]) * 2:
            times[arm].append(call_ms(dets[arm], d, 40))
        row = dict(workload="%s %dx%d thr %d" % (photo, w, h, thr),
                   lines=0 if ref[0] is None else int(ref[0].shape[1]), same=same)
        row.update({"%s_ms" % a: round(med(times[a]), 4) for a in arms})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
