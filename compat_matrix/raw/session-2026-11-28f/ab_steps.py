"""rank_jump_inplace: two jumps a round (default) against one (-DJUMP_STEPS=1), same job, arms alternating."""
import json, os, statistics, sys, time
import numpy as np, cv2
sys.path.insert(0, os.getcwd())
import cvgpu
from cvgpu import contours as cc, _kernels
from cvgpu.contours import _common
from cvgpu.bench.workloads import frame_mask
import cupy as cp

orig = _common.Gpu.fn
ARM = {"opts": ()}
def fn(self, module, name, max_dynamic_shared=None, cooperative=False):
    if module == "ranking_block" and ARM["opts"]:
        return _kernels.get_function("contours/ranking_block", name, options=ARM["opts"],
                                     max_dynamic_shared=max_dynamic_shared, cooperative=cooperative)
    return orig(self, module, name, max_dynamic_shared, cooperative)
_common.Gpu.fn = fn
ARMS = {"two": (), "one": ("-DJUMP_STEPS=1",)}
def use(a):
    ARM["opts"] = ARMS[a]
    _common._cooperative.clear()

def same(a, b):
    return len(a[0]) == len(b[0]) and all(x.shape == y.shape and np.array_equal(x, y) for x, y in zip(a[0], b[0])) and (
        (a[1] is None) == (b[1] is None)) and (a[1] is None or np.array_equal(a[1], b[1]))
def t_host(f, n):
    ts = []
    for _ in range(n):
        t = time.perf_counter(); f(); ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)
def t_dev(f, n):
    s = cp.cuda.get_current_stream(); ts = []
    for _ in range(n):
        s.synchronize(); t = time.perf_counter(); f(); s.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)

rows = []
for size in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
    for photo in ("camera", "coins", "page", "astronaut"):
        for maskn in ("otsu", "adaptive", "canny"):
            img = frame_mask(photo, size, maskn)
            d = cp.asarray(img)
            for mname, mode in (("EXTERNAL", cv2.RETR_EXTERNAL), ("TREE", cv2.RETR_TREE), ("LIST", cv2.RETR_LIST)):
                meth = cv2.CHAIN_APPROX_SIMPLE if mname != "LIST" else cv2.CHAIN_APPROX_NONE
                ref = cv2.findContours(img, mode, meth)
                r = {"size": "%dx%d" % size, "photo": photo, "mask": maskn, "mode": mname}
                res = {a: {"np": [], "dev": []} for a in ARMS}
                for a in ARMS:
                    use(a)
                    if not same(cvgpu.findContours(img, mode, meth), ref):
                        print("MISMATCH", a, r, flush=True)
                    if not np.array_equal(cvgpu.findContoursPacked(d, mode, meth)[0].get(), cc.pack(*ref)[0]):
                        print("MISMATCH dev", a, r, flush=True)
                for rnd in range(4):
                    for a in (list(ARMS) if rnd % 2 == 0 else list(ARMS)[::-1]):
                        use(a)
                        res[a]["np"].append(t_host(lambda: cvgpu.findContours(img, mode, meth), 5))
                        res[a]["dev"].append(t_dev(lambda: cvgpu.findContoursPacked(d, mode, meth), 5))
                for a in ARMS:
                    r[a] = {k: round(statistics.median(v), 4) for k, v in res[a].items()}
                print(json.dumps(r), flush=True)
                rows.append(r)
print("SUMMARY (median over photos and masks, ms: numpy / device input)")
for size in ("640x480", "1280x720", "1920x1080", "3840x2160"):
    for mname in ("EXTERNAL", "TREE", "LIST"):
        sel = [r for r in rows if r["size"] == size and r["mode"] == mname]
        print("%-10s %-8s " % (size, mname) + " | ".join("%s %.3f / %.3f" % (a, statistics.median(r[a]["np"] for r in sel),
                                                                       statistics.median(r[a]["dev"] for r in sel)) for a in ARMS)
              + "  dev ratio one/two %.3f" % statistics.median(r["one"]["dev"] / r["two"]["dev"] for r in sel))
