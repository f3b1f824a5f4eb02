"""rank_jump_inplace's grid cap A/B on camera frames (whole calls, device input), alternating arms."""
import json, os, statistics, sys, time
import numpy as np, cv2
sys.path.insert(0, os.getcwd())
import cvgpu
from cvgpu.contours import TUNING
from cvgpu.bench.workloads import frame_mask
import cupy as cp
CAPS = [0, 66, 33, 16]
def t_dev(f, n):
    s = cp.cuda.get_current_stream(); ts = []
    for _ in range(n):
        s.synchronize(); t = time.perf_counter(); f(); s.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)
out = {}
for size in ((640, 480), (1280, 720), (1920, 1080)):
    for photo in ("camera", "coins", "page", "astronaut"):
        for maskn in ("otsu", "canny"):
            d = cp.asarray(frame_mask(photo, size, maskn))
            ref = cvgpu.findContoursPacked(d, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)[0].get()
            res = {c: [] for c in CAPS}
            for rnd in range(4):
                for c in (CAPS if rnd % 2 == 0 else CAPS[::-1]):
                    with TUNING.override(jump_blocks_max=c):
                        got = cvgpu.findContoursPacked(d, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)[0].get()
                        assert np.array_equal(got, ref), c
                        res[c].append(t_dev(lambda: cvgpu.findContoursPacked(d, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE), 9))
            for c in CAPS:
                out.setdefault("%dx%d" % size, {}).setdefault(c, []).append(statistics.median(res[c]))
for s, per in out.items():
    print(s, " ".join("cap %d: %.4f" % (c, statistics.median(v)) for c, v in per.items()))
