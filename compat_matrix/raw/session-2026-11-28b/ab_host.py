"""One process's host-path timings (issue 40/42), printed as JSON: HoughLines numpy io at the
detector's thresholds (auto and engine cuda, time_host medians of 300) and the detector's detect +
download (events, batches). Run once per source tree (PYTHONPATH) and round; compare the same job.

    PYTHONPATH=<tree> python3 .dev/s29/ab_host.py <label>
"""
import json
import sys

import numpy as np

import cvgpu
from cvgpu import _backend
from cvgpu.bench._timing import time_device, time_host
from cvgpu.bench.workloads import frame_edges
from cvgpu.cuda import GpuMat, createHoughLinesDetector

cp = _backend.cupy_module()
RHO, THETA = 1.0, np.pi / 180
out = {"label": sys.argv[1], "file": cvgpu.__file__}
for name, size, thr in [("moon", (640, 480), 32), ("camera", (640, 480), 160), ("chelsea", (640, 480), 112),
                        ("coins", (640, 480), 128), ("chelsea", (1920, 1080), 64)]:
    img = frame_edges(name, size)
    for mode in ("auto", "cuda"):
        cvgpu.set_engine(mode)
        for _ in range(50):
            cvgpu.HoughLines(img, RHO, THETA, thr)
        t = time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, thr), 300, warmup=10)["median"] * 1e3
        out["HL numpy %s %dx%d %s" % (name, size[0], size[1], mode)] = round(t, 2)
cvgpu.set_engine("auto")
for name, size, thr in [("camera", (640, 480), 160), ("camera", (1280, 720), 151), ("astronaut", (1920, 1080), 128),
                        ("camera", (3840, 2160), 42)]:
    d = GpuMat(frame_edges(name, size))
    det = createHoughLinesDetector(RHO, THETA, thr, False, 4096)
    fn = lambda: det.downloadResults(det.detect(d))
    fn()
    fn()
    t = time_device(cp, fn, 300, warmup=30)["median"] * 1e3
    out["detector %s %dx%d thr %d" % (name, size[0], size[1], thr)] = round(t, 2)
print(json.dumps(out), flush=True)
