"""findContours at camera-frame sizes: the walk states ranked by rulers (each ruler walks ~16 states,
the rulers ranked in one block's shared memory) against jumping over every state (one cooperative
launch of grid-wide rounds once 8 x border pixels pass TUNING.jump_shared_max), issue 41. One
process, the arms alternating per round (TUNING.override), numpy io, engine pinned to the GPU;
every arm's result compared with cv2's."""
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

ARMS = {"jump": {}, "rulers": {"ruler_min_slots": 0}}
MODES = {"EXTERNAL": cv2.RETR_EXTERNAL, "TREE": cv2.RETR_TREE, "LIST": cv2.RETR_LIST}
METHODS = {"SIMPLE": cv2.CHAIN_APPROX_SIMPLE, "NONE": cv2.CHAIN_APPROX_NONE}


def same(a, b):
    return len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and (
        (a[1] is None and b[1] is None) or np.array_equal(a[1], b[1]))


def timed(fn, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t)
    return statistics.median(ts) * 1e6


cases = []
for size in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
    for name in ("camera", "coins", "page", "astronaut"):
        for kind in ("otsu", "adaptive", "canny"):
            for mode, method in (("EXTERNAL", "SIMPLE"), ("TREE", "SIMPLE"), ("LIST", "NONE")):
                if kind != "otsu" and (mode, method) == ("LIST", "NONE"):
                    continue
                cases.append((size, name, kind, mode, method))
for size, name, kind, mode, method in cases:
    mask = frame_mask(name, size, kind)
    args = (mask, MODES[mode], METHODS[method])
    ref = cv2.findContours(*args)
    cv2_us = timed(lambda: cv2.findContours(*args), 15)
    res = {}
    for arm, values in ARMS.items():
        with TUNING.override(**values):
            before = TUNING.paths()
            ok = same(cvgpu.findContours(*args), ref)
            after = TUNING.paths()
            paths = sorted(k for k in after if after[k] > before.get(k, 0) and k.startswith(("jump", "rulers")))
            res[arm] = {"ok": ok, "paths": paths, "us": []}
    reps = 40 if size[0] < 3000 else 15
    for _ in range(3):
        for arm, values in ARMS.items():
            with TUNING.override(**values):
                cvgpu.findContours(*args)
                res[arm]["us"].append(timed(lambda: cvgpu.findContours(*args), reps))
    print(json.dumps({"row": "%s %dx%d %s %s %s" % (name, size[0], size[1], kind, mode, method),
                      "contours": len(ref[0]), "cv2_us": cv2_us,
                      **{arm: {"ok": r["ok"], "paths": r["paths"], "us": statistics.median(r["us"])}
                         for arm, r in res.items()}}), flush=True)
