"""Issue 41 A/B: the labelling with the frame's root and halving (default) vs plain (-DCVGPU_CCL_PLAIN)."""
import json, os, statistics, sys, time
import numpy as np, cv2
sys.path.insert(0, os.getcwd())
import cvgpu
from cvgpu import contours as cc, _kernels
from cvgpu.contours import _common, _suzuki, TUNING
from cvgpu.bench.workloads import frame_mask
import cupy as cp

PLAIN = ("-DCVGPU_FINISH_PLAIN",)
orig = _common.Gpu.fn
ARM = {"opts": ()}
def fn(self, module, name, max_dynamic_shared=None, cooperative=False):
    if module == "suzuki" and ARM["opts"]:
        return _kernels.get_function("contours/suzuki", name, options=ARM["opts"], max_dynamic_shared=max_dynamic_shared,
                                     cooperative=cooperative)
    return orig(self, module, name, max_dynamic_shared, cooperative)
_common.Gpu.fn = fn
ARMS = {"new": (), "plain": PLAIN}
JUMP = {"new": 0, "plain": 0}
SIZES = [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]

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

gpu = _common.current_gpu()
def stages_us(d, reps=40):
    """GPU us per call of pad_init, ccl_union, ccl_finish, each timed back to back (reps) between events."""
    h, w = d.shape; w2 = w + 2; n = w2 * (h + 2)
    ws = gpu.workspace()
    f = ws.grown("f", n, cp.uint8); L = ws.grown("labels", n, cp.int32); fl = ws.grown("fl", n, cp.uint8)
    nb = -(-n // 1024); blk = ws.grown("blk", nb, cp.uint64); offs = ws.grown("offs", nb, cp.uint64)
    i32, i64 = np.int32, np.int64
    pad = lambda: gpu.fn("suzuki", "pad_init")(gpu.grid(n), (256,), (d, i64(d.strides[0]), i32(h), i32(w), i32(n), f, L))
    uni = lambda: gpu.fn("suzuki", "ccl_union")(gpu.grid(n), (256,), (f, i32(w2), i32(n), L))
    fin = lambda: gpu.fn("suzuki", "ccl_finish")((nb,), (1024,), (f, i32(w2), i32(n), L, fl, blk, offs, ws.counter, ws.total))
    out = {}
    for name, seq in (("pad", [pad]), ("pad+union", [pad, uni]), ("pad+union+finish", [pad, uni, fin])):
        for k in seq: k()
        cp.cuda.get_current_stream().synchronize()
        e0, e1 = cp.cuda.Event(), cp.cuda.Event(); e0.record()
        for _ in range(reps):
            for k in seq: k()
        e1.record(); e1.synchronize()
        out[name] = cp.cuda.get_elapsed_time(e0, e1) * 1e3 / reps
    return {"pad": round(out["pad"], 1), "union": round(out["pad+union"] - out["pad"], 1),
            "finish": round(out["pad+union+finish"] - out["pad+union"], 1)}

rows = []
for size in SIZES:
    for photo in ("camera", "coins", "page", "astronaut"):
        for maskn in ("otsu", "adaptive", "canny"):
            img = frame_mask(photo, size, maskn)
            d = cp.asarray(img)
            r = {"size": "%dx%d" % size, "photo": photo, "mask": maskn}
            for a, opts in ARMS.items():
                ARM["opts"] = opts
                r["stages_" + a] = stages_us(d)
            for mname, mode in (("EXTERNAL", cv2.RETR_EXTERNAL), ("TREE", cv2.RETR_TREE)):
                meth = cv2.CHAIN_APPROX_SIMPLE
                ref = cv2.findContours(img, mode, meth)
                rr = dict(r, mode=mname, cv2=t_host(lambda: cv2.findContours(img, mode, meth), 7))
                res = {a: {"np": [], "dev": []} for a in ARMS}
                for a, opts in ARMS.items():
                    ARM["opts"] = opts
                    if not same(cvgpu.findContours(img, mode, meth), ref):
                        print("MISMATCH", a, rr, flush=True)
                    if not np.array_equal(cvgpu.findContoursPacked(d, mode, meth)[0].get(), cc.pack(*ref)[0]):
                        print("MISMATCH dev", a, rr, flush=True)
                for rnd in range(4):
                    for a in (list(ARMS) if rnd % 2 == 0 else list(ARMS)[::-1]):
                        ARM["opts"] = ARMS[a]
                        res[a]["np"].append(t_host(lambda: cvgpu.findContours(img, mode, meth), 7))
                        res[a]["dev"].append(t_dev(lambda: cvgpu.findContoursPacked(d, mode, meth), 7))
                for a in ARMS:
                    rr[a] = {"np": round(statistics.median(res[a]["np"]), 4), "dev": round(statistics.median(res[a]["dev"]), 4)}
                print(json.dumps(rr), flush=True)
                rows.append(rr)
print("SUMMARY (median over photos and masks; ms; stages us)")
for size in SIZES:
    s = "%dx%d" % size
    for mname in ("EXTERNAL", "TREE"):
        sel = [r for r in rows if r["size"] == s and r["mode"] == mname]
        print("%-10s %-8s cv2 %.3f | new np %.3f dev %.3f | plain np %.3f dev %.3f" % (
            s, mname, statistics.median(r["cv2"] for r in sel), statistics.median(r["new"]["np"] for r in sel),
            statistics.median(r["new"]["dev"] for r in sel), statistics.median(r["plain"]["np"] for r in sel),
            statistics.median(r["plain"]["dev"] for r in sel)))
    sel = [r for r in rows if r["size"] == s and r["mode"] == "EXTERNAL"]
    for a in ARMS:
        print("   stages %-5s pad %.1f union %.1f finish %.1f" % (a, *(statistics.median(r["stages_" + a][k] for r in sel) for k in ("pad", "union", "finish"))))
