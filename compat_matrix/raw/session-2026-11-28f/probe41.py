"""Issue 41 probe: where a camera-frame findContours call's time goes (host launches, syncs, GPU)."""
import json, os, statistics, sys, time
import numpy as np, cv2
sys.path.insert(0, os.getcwd())
import cvgpu
from cvgpu import _engine
from cvgpu.contours import _common, _suzuki
from cvgpu.bench.workloads import frame_mask
import cupy as cp
_engine.set_engine("cuda") if hasattr(_engine, "set_engine") else None
os.environ["CVGPU_ENGINE"] = "cuda"
gpu = _common.current_gpu()
orig_fn = _common.Gpu.fn
MODE = {"wrap": None}
LOG = []

class Wrap:
    def __init__(self, f, name): self.f, self.name = f, name
    def __call__(self, *a, **k):
        mode = MODE["wrap"]
        if mode == "iso":
            cp.cuda.get_current_stream().synchronize()
            e0 = cp.cuda.Event(); e1 = cp.cuda.Event(); e0.record()
            r = self.f(*a, **k); e1.record(); e1.synchronize()
            LOG.append((self.name, cp.cuda.get_elapsed_time(e0, e1) * 1e3))
            return r
        if mode == "host":
            t = time.perf_counter(); r = self.f(*a, **k); LOG.append((self.name, (time.perf_counter() - t) * 1e6)); return r
        return self.f(*a, **k)
    def __getattr__(self, k): return getattr(self.f, k)

def fn(self, module, name, **kw):
    return Wrap(orig_fn(self, module, name, **kw), name)
_common.Gpu.fn = fn

def med(f, n=30, w=3):
    for _ in range(w): f()
    ts = []
    for _ in range(n):
        cp.cuda.get_current_stream().synchronize()
        t = time.perf_counter(); f(); ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)

out = []
for size in ((640, 480), (1920, 1080)):
  for photo in ("camera", "coins", "page", "astronaut"):
    for maskn in ("otsu", "canny"):
      img = frame_mask(photo, size, maskn)
      for mname, mode in (("EXTERNAL", cv2.RETR_EXTERNAL), ("TREE", cv2.RETR_TREE)):
        meth = cv2.CHAIN_APPROX_SIMPLE
        r = {"size": size, "photo": photo, "mask": maskn, "mode": mname}
        r["cv2"] = med(lambda: cv2.findContours(img, mode, meth))
        r["cvgpu"] = med(lambda: cvgpu.findContours(img, mode, meth))
        d = cp.asarray(img)
        r["packed_dev"] = med(lambda: cvgpu.findContoursPacked(d, mode, meth))
        r["pipe_np"] = med(lambda: _suzuki.gpu_contours(gpu, img, mode, meth, 0, 0, grouped=True))
        r["pipe_dev"] = med(lambda: _suzuki.gpu_contours(gpu, d, mode, meth, 0, 0))
        # host time inside launches
        MODE["wrap"] = "host"; LOG.clear()
        for _ in range(10): _suzuki.gpu_contours(gpu, d, mode, meth, 0, 0)
        names = {}
        for nme, t in LOG: names.setdefault(nme, []).append(t)
        r["launch_host_us"] = {k: round(statistics.median(v), 1) for k, v in names.items()}
        r["launches"] = len(LOG) // 10
        MODE["wrap"] = "iso"; LOG.clear()
        for _ in range(10): _suzuki.gpu_contours(gpu, d, mode, meth, 0, 0)
        names = {}
        for nme, t in LOG: names.setdefault(nme, []).append(t)
        r["kernel_gpu_us"] = {k: round(statistics.median(v), 1) for k, v in names.items()}
        r["kernel_gpu_sum_us"] = round(sum(statistics.median(v) * (len(v) / 10) for v in names.values()), 1)
        MODE["wrap"] = None
        r["contours"] = len(cv2.findContours(img, mode, meth)[0])
        # sync round trip
        x = cp.zeros(1, cp.int64)
        r["get_us"] = med(lambda: x.get()) * 1e3
        print(json.dumps(r), flush=True)
        out.append(r)
