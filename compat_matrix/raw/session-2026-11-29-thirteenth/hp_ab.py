"""HoughLinesP before / after the grid join: median ms of numpy-in calls (engine pinned to the GPU)
on Canny edges of photographs, one arm per process (PYTHONPATH picks the tree).
    PYTHONPATH=<tree> python3 hp_ab.py LABEL"""
import json
import os
import statistics
import sys
import time

os.environ["CVGPU_ENGINE"] = "cuda"
import cv2  # noqa: E402
import numpy as np  # noqa: E402
import cvgpu  # noqa: E402
from skimage import data  # noqa: E402

label = sys.argv[1]
for name in ("camera", "astronaut", "coffee"):
    img = getattr(data, name)()
    if img.ndim == 3:
        img = cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    for w, h in ((640, 480), (1920, 1080)):
        edges = cv2.Canny(cv2.resize(img, (w, h)), 50, 150)
        ref = cv2.HoughLinesP(edges, 1, np.pi / 180, 50, None, 50, 10)
        got = cvgpu.HoughLinesP(edges, 1, np.pi / 180, 50, None, 50, 10)
        same = (ref is None and got is None) or (ref is not None and got is not None and np.array_equal(ref, got))
        ts = []
        for _ in range(25):
            t0 = time.perf_counter()
            cvgpu.HoughLinesP(edges, 1, np.pi / 180, 50, None, 50, 10)
            ts.append(time.perf_counter() - t0)
        print(json.dumps({"label": label, "row": "%s %dx%d" % (name, w, h), "ms": 1e3 * statistics.median(ts[5:]),
                          "same": bool(same)}), flush=True)
