"""HoughLines with many lines, before / after the sampled-bucket ordering of the maxima's last block
(issue 42): one arm per process (PYTHONPATH picks the tree), engine pinned to the GPU.
    python3 hl_ab.py thresholds OUT.json          cv2's thresholds for ~300 / ~1500 / ~4000 lines
    PYTHONPATH=<tree> python3 hl_ab.py LABEL OUT.json
Per row: HoughLines device io (CUDA events, back-to-back calls each waiting for its count), numpy
io (host clock), the lines detector (unsorted and doSort) at the same threshold; lines equal to
cv2's."""
import json
import os
import sys

os.environ["CVGPU_ENGINE"] = "cuda"
import cv2  # noqa: E402
import numpy as np  # noqa: E402

from cvgpu.bench.workloads import frame_edges  # noqa: E402

ROWS = [(name, size) for size in ((640, 480), (1920, 1080), (3840, 2160)) for name in ("coffee", "camera", "astronaut")]
TARGETS = (300, 1500, 4000)
THETA = np.pi / 180


def count(edges, t):
    r = cv2.HoughLines(edges, 1.0, THETA, t)
    return 0 if r is None else len(r)


if sys.argv[1] == "thresholds":
    out = {}
    for name, size in ROWS:
        edges = frame_edges(name, size)
        for target in TARGETS:
            a, b = 1, 1 << 12
            while a < b:
                t = (a + b) // 2
                if count(edges, t) > target:
                    a = t + 1
                else:
                    b = t
            out["%s %dx%d ~%d" % (name, size[0], size[1], target)] = [a, count(edges, a)]
    json.dump(out, open(sys.argv[2], "w"), indent=1)
    print(json.dumps(out))
    sys.exit(0)

import cupy as cp  # noqa: E402
import cvgpu  # noqa: E402
from cvgpu.bench._timing import time_device, time_host, same  # noqa: E402
from cvgpu.cuda import GpuMat, createHoughLinesDetector  # noqa: E402

label, thr = sys.argv[1], json.load(open(sys.argv[2]))
for name, size in ROWS:
    edges = frame_edges(name, size)
    d = cp.asarray(edges)
    g = GpuMat(edges)
    for target in TARGETS:
        row = "%s %dx%d ~%d" % (name, size[0], size[1], target)
        t, n = thr[row]
        ref = cv2.HoughLines(edges, 1.0, THETA, t)
        ok = same(cvgpu.HoughLines(d, 1.0, THETA, t), ref) and same(cvgpu.HoughLines(edges, 1.0, THETA, t), ref)
        dev = time_device(cp, lambda: cvgpu.HoughLines(d, 1.0, THETA, t), 60, warmup=10)["median"]
        host = time_host(lambda: cvgpu.HoughLines(edges, 1.0, THETA, t), 40, warmup=5)["median"]
        det = createHoughLinesDetector(1.0, THETA, t, False, 8192)
        dts = createHoughLinesDetector(1.0, THETA, t, True, 8192)
        td = time_device(cp, lambda: det.downloadResults(det.detect(g)), 60, warmup=10)["median"]
        tds = time_device(cp, lambda: dts.downloadResults(dts.detect(g)), 60, warmup=10)["median"]
        print(json.dumps({"label": label, "row": row, "threshold": t, "lines": n, "same": bool(ok),
                          "hl_device_us": dev * 1e3, "hl_numpy_us": host * 1e3, "det_us": td * 1e3,
                          "det_sorted_us": tds * 1e3}), flush=True)
