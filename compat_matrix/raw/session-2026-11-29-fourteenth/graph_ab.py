"""findContours RETR_EXTERNAL on camera frames: the shape's captured graph (cvgpu/contours/_graph.py)
against the launched pipeline (TUNING graph_max_pixels 0), arms alternating per round in one
process, numpy io, engine pinned to the GPU; the four photographs' masks of a row in turn (a video's
frames: each call a new image of the same shape). Every call's result compared with cv2's."""
import json
import os
import statistics
import time

os.environ["CVGPU_ENGINE"] = "cuda"
import cv2  # noqa: E402
import numpy as np  # noqa: E402

import cvgpu  # noqa: E402
from cvgpu.bench.workloads import frame_mask  # noqa: E402
from cvgpu.contours import TUNING  # noqa: E402

ARMS = {"launched": {"graph_max_pixels": 0}, "graph": {}}
METHODS = {"SIMPLE": cv2.CHAIN_APPROX_SIMPLE, "NONE": cv2.CHAIN_APPROX_NONE}


def same(a, b):
    return len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and (
        (a[1] is None and b[1] is None) or np.array_equal(a[1], b[1]))


for size in ((640, 480), (1280, 720), (1920, 1080)):
    for kind in ("otsu", "adaptive", "canny"):
        for method_name, method in METHODS.items():
            if kind != "otsu" and method_name == "NONE":
                continue
            masks = [frame_mask(name, size, kind) for name in ("camera", "coins", "page", "astronaut")]
            refs = [cv2.findContours(m, cv2.RETR_EXTERNAL, method) for m in masks]
            t0 = time.perf_counter()
            for _ in range(5):
                for m in masks:
                    cv2.findContours(m, cv2.RETR_EXTERNAL, method)
            cv2_us = (time.perf_counter() - t0) / 20 * 1e6
            res = {arm: {"us": [], "ok": True, "paths": {}} for arm in ARMS}
            for r in range(4):
                for arm, values in ARMS.items():
                    with TUNING.override(**values):
                        before = TUNING.paths()
                        for m, ref in zip(masks, refs):   # (the first round also builds the graph)
                            res[arm]["ok"] &= same(cvgpu.findContours(m, cv2.RETR_EXTERNAL, method), ref)
                        n = 25
                        t0 = time.perf_counter()
                        for _ in range(n):
                            for m in masks:
                                cvgpu.findContours(m, cv2.RETR_EXTERNAL, method)
                        res[arm]["us"].append((time.perf_counter() - t0) / (4 * n) * 1e6)
                        ran = TUNING.paths() - before
                        res[arm]["paths"] = {k: v for k, v in ran.items() if k.startswith("graph")}
            print(json.dumps({"row": "%dx%d %s EXTERNAL %s" % (size[0], size[1], kind, method_name),
                              "contours": [len(r[0]) for r in refs], "cv2_us": cv2_us,
                              **{arm: {"us": statistics.median(v["us"]), "ok": v["ok"], "paths": v["paths"]}
                                 for arm, v in res.items()}}), flush=True)
