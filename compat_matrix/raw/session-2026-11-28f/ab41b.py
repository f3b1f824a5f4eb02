"""Issue 41 A/B: labelling in tiles vs global, rulers at small sizes; numpy and device calls, alternating arms."""
import json, os, statistics, sys, time
import numpy as np, cv2
sys.path.insert(0, os.getcwd())
import cvgpu
from cvgpu import contours as cc
from cvgpu.contours import _common, _suzuki, TUNING
from cvgpu.bench.workloads import frame_mask
import cupy as cp

ARMS = {
    "cupy": dict(driver_launch=False),
    "driver": dict(driver_launch=True),
}
only = os.environ.get("ARMS")
if only:
    ARMS = {k: v for k, v in ARMS.items() if k in only.split(",")}
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
    s = cp.cuda.get_current_stream()
    ts = []
    for _ in range(n):
        s.synchronize(); t = time.perf_counter(); f(); s.synchronize(); ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)

def labelling_gpu_us(gpu, d, arm, reps=50):
    """GPU time of pad_init + labelling + ccl_finish alone, back to back between two events (us/call)."""
    h, w = d.shape
    w2 = w + 2; n = w2 * (h + 2)
    ws = gpu.workspace()
    f = ws.grown("f", n, cp.uint8); labels = ws.grown("labels", n, cp.int32); fl = ws.grown("fl", n, cp.uint8)
    nb = -(-n // 1024); blk = ws.grown("blk", nb, cp.uint64); offs = ws.grown("offs", nb, cp.uint64)
    i32, i64 = np.int32, np.int64
    with TUNING.override(**ARMS[arm]):
        tile = _suzuki.ccl_tile(w2)
        def once():
            gpu.fn("suzuki", "pad_init")(gpu.grid(n), (256,), (d, i64(d.strides[0]), i32(h), i32(w), i32(n), f, labels))
            if tile:
                nt = (-(-n // tile),)
                gpu.fn("suzuki", "ccl_local")(nt, (TUNING.ccl_block,), (f, i32(w2), i32(n), labels, i32(tile)))
                gpu.fn("suzuki", "ccl_cross")(nt, (256,), (f, i32(w2), i32(n), labels, i32(tile)))
            else:
                gpu.fn("suzuki", "ccl_union")(gpu.grid(n), (256,), (f, i32(w2), i32(n), labels))
            gpu.fn("suzuki", "ccl_finish")((nb,), (1024,), (f, i32(w2), i32(n), labels, fl, blk, offs, ws.counter, ws.total))
        once(); cp.cuda.get_current_stream().synchronize()
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        for _ in range(reps): once()
        e1.record(); e1.synchronize()
        return cp.cuda.get_elapsed_time(e0, e1) * 1e3 / reps

gpu = _common.current_gpu()
rows = []
for size in SIZES:
    for photo in ("camera", "coins", "page", "astronaut"):
        for maskn in ("otsu", "canny"):
            img = frame_mask(photo, size, maskn)
            d = cp.asarray(img)
            for mname, mode in (("EXTERNAL", cv2.RETR_EXTERNAL), ("TREE", cv2.RETR_TREE)):
                meth = cv2.CHAIN_APPROX_SIMPLE
                ref = cv2.findContours(img, mode, meth)
                r = {"size": "%dx%d" % size, "photo": photo, "mask": maskn, "mode": mname, "contours": len(ref[0]),
                     "cv2": t_host(lambda: cv2.findContours(img, mode, meth), 9)}
                res = {a: {"np": [], "dev": []} for a in ARMS}
                for a in ARMS:
                    with TUNING.override(**ARMS[a]):
                        ok = same(cvgpu.findContours(img, mode, meth), ref)
                        pk = cvgpu.findContoursPacked(d, mode, meth)
                        ok = ok and np.array_equal(pk[0].get(), cc.pack(*ref)[0])
                        if not ok:
                            print("MISMATCH", a, r, flush=True)
                        for _ in range(3):
                            cvgpu.findContours(img, mode, meth)
                for rnd in range(4):
                    for a in (list(ARMS) if rnd % 2 == 0 else list(ARMS)[::-1]):
                        with TUNING.override(**ARMS[a]):
                            res[a]["np"].append(t_host(lambda: cvgpu.findContours(img, mode, meth), 7))
                            res[a]["dev"].append(t_dev(lambda: cvgpu.findContoursPacked(d, mode, meth), 7))
                for a in ARMS:
                    r[a] = {"np": round(statistics.median(res[a]["np"]), 4), "dev": round(statistics.median(res[a]["dev"]), 4)}
                print(json.dumps(r), flush=True)
                rows.append(r)
# summary
print("SUMMARY median over photos/masks: np ms / dev ms per arm, and labelling us")
for size in SIZES:
    for mname in ("EXTERNAL", "TREE"):
        sel = [r for r in rows if r["size"] == "%dx%d" % size and r["mode"] == mname]
        line = "%-10s %-8s cv2 %.3f" % ("%dx%d" % size, mname, statistics.median(r["cv2"] for r in sel))
        for a in ARMS:
            line += " | %s %.3f/%.3f" % (a, statistics.median(r[a]["np"] for r in sel), statistics.median(r[a]["dev"] for r in sel))
        print(line)
        lab = [r for r in sel if "label_us" in r]
        if lab:
            print("   label_us " + " ".join("%s %.1f" % (a, statistics.median(r["label_us"][a] for r in lab)) for a in lab[0]["label_us"]))
