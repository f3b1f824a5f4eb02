"""Prototype: one GIL release per call (C helper via ctypes) for HoughLines numpy io, 1..8 threads."""
import os, sys, time, threading, statistics, ctypes, subprocess
os.environ.setdefault("CVGPU_ENGINE", "cuda")
import numpy as np, cv2, cupy as cp
import cvgpu
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import throughput  # noqa: E402
from cvgpu.bench.workloads import frame_edges, frame_mask
import cvgpu.hough.lines as hl

here = os.path.dirname(os.path.abspath(__file__))
so = "/tmp/hostcall.so"
r = subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", so, os.path.join(here, "hostcall.c")], capture_output=True)
if r.returncode: so = os.path.join(here, "hostcall.so"); print("gcc failed, prebuilt", r.stderr[-200:])
lib = ctypes.CDLL(so)
cu = ctypes.CDLL("libcuda.so.1")
addr = lambda n: ctypes.cast(getattr(cu, n), ctypes.c_void_p).value
lib.cvg_init(*[ctypes.c_void_p(addr(n)) for n in ("cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuGraphLaunch", "cuStreamQuery", "cuStreamSynchronize")])
LL, VP = ctypes.c_longlong, ctypes.c_void_p
lib.cvg_floor.argtypes = [VP, LL, LL, LL, VP, ctypes.c_uint64, VP, VP]; lib.cvg_floor.restype = LL
lib.cvg_replay.argtypes = [VP, LL, LL, LL, VP, ctypes.c_uint64, VP, VP, VP, ctypes.c_int]; lib.cvg_replay.restype = LL

PH = ("camera", "coins", "page", "astronaut")
sizes = [(640, 480), (1920, 1080)]
print("device", cp.cuda.runtime.getDeviceProperties(0)["name"], "cpus", os.cpu_count())

def tput(make_fn, frames, T, reps=3):
    return throughput(make_fn, frames, T, reps=reps)

def row(label, make_fn, frames, Ts=(1, 2, 4, 8)):
    out = [tput(make_fn, frames, T) for T in Ts]
    print("%-40s " % label + " ".join("T%d %8.0f" % (T, v) for T, v in zip(Ts, out)), flush=True)

def mk_cvgpu(s):
    return lambda img: cvgpu.HoughLines(img, 1, np.pi / 180, 150)

def mk_floor(s):
    st = {}
    def f(img):
        if not st:
            n = img.size
            pin = cp.cuda.alloc_pinned_memory(n); st["pin"] = pin
            st["dev"] = cp.empty(n, cp.uint8); st["out"] = cp.cuda.alloc_pinned_memory(64)
        rc = lib.cvg_floor(img.ctypes.data, img.shape[0], img.shape[1], img.strides[0], st["pin"].ptr,
                           st["dev"].data.ptr, st["out"].ptr, s.ptr)
        assert rc == 0, rc
    return f

def check(rc, what):
    if rc: raise RuntimeError("%s: %d" % (what, rc))

def driver_graph(s, launch):
    check(cu.cuStreamBeginCapture_v2(VP(s.ptr), 2), "begin")
    try:
        launch()
    finally:
        g = VP(); check(cu.cuStreamEndCapture(VP(s.ptr), ctypes.byref(g)), "end")
    ex = VP(); check(cu.cuGraphInstantiateWithFlags(ctypes.byref(ex), g, ctypes.c_ulonglong(0)), "inst")
    check(cu.cuGraphUpload(ex, VP(s.ptr)), "upload"); s.synchronize()
    return ex

def mk_native(s, sample=[None]):
    st = {}
    def f(img):
        if not st:
            cvgpu.HoughLines(img, 1, np.pi / 180, 150)  # workspace + plan for this thread and size
            ws = hl._workspace(cp); plan = ws.last_plan
            rows, cols = img.shape
            d = ws.up_dev[:rows * cols].reshape(rows, cols)
            vals = (d, np.int64(cols), np.int32(hl.load_width(d.data.ptr, cols, cols)), np.int32(150), hl.NULL)
            st["ex"] = driver_graph(s, lambda: plan.launch_direct(vals))
            st["ws"] = ws
        ws = st["ws"]
        n = lib.cvg_replay(img.ctypes.data, img.shape[0], img.shape[1], img.strides[0], ws.up_host.ctypes.data,
                           ws.up_dev.data.ptr, st["ex"], s.ptr, ws.pinned.ptr, -1)
        if n < 0: raise RuntimeError(n)
        if n == 0: return None
        return ws.host[1:1 + n * 2].view(np.float32).reshape(n, 1, 2).copy()
    return f

for size in sizes:
    edges = [frame_edges(p, size) for p in PH]
    # exactness of the prototype
    s = cp.cuda.Stream(non_blocking=True)
    with s:
        f = mk_native(s)
        for e in edges * 2:
            a, b = f(e), cv2.HoughLines(e, 1, np.pi / 180, 150)
            ok = (a is None and b is None) or (a is not None and b is not None and a.shape == b.shape and (a == b).all())
            if not ok: print("MISMATCH", size, None if a is None else a.shape, None if b is None else b.shape)
    n = 1024 if size[0] == 640 else 256
    fe = [edges[i % 4] for i in range(n)]
    print("== %dx%d, %d frames" % (size[0], size[1], n))
    row("cvgpu.HoughLines (current)", mk_cvgpu, fe)
    row("native replay (1 GIL release)", mk_native, fe)
    row("native floor copy+H2D+D2H+sync", mk_floor, fe)
    row("cvgpu.HoughLines (current) again", mk_cvgpu, fe)
