"""Where a hot detect + downloadResults spends its time outside the GPU's span (issue 42), on the
H100: (1) the detector's rows, events around batches (as the bench); (2) the same calls with the
host pieces timed (perf_counter_ns around detect, the graph launch, the wait for the published
count and downloadResults; the wrappers add their own ~0.1-0.3 us); (3) floors: a captured graph of
1 or 3 trivial kernels whose last writes the pinned flag (fenced, as ch_maxima), launched and
awaited exactly as detect does (DriverGraph.launch + cvgpu._graphs.await_published), events
around batches; and a Python-only loop of detect's own host steps without a launch.

    python3 .dev/s29/host_floor.py
"""
import time

import numpy as np

from cvgpu import _backend, _graphs, _native
from cvgpu.bench._timing import time_device
from cvgpu.bench.workloads import frame_edges
from cvgpu.cuda import GpuMat, createHoughLinesDetector
import cvgpu.cuda.hough as H

cp = _backend.cupy_module()
INT_MIN = -2**31
ROWS = [("camera", (640, 480), 160), ("camera", (640, 480), 110), ("camera", (3840, 2160), 128),
        ("astronaut", (1920, 1080), 128)]


def med(xs):
    return float(np.median(np.array(xs))) / 1e3  # ns -> us


acc = {}


def timed(name, fn):
    def w(*a, **k):
        t0 = time.perf_counter_ns()
        try:
            return fn(*a, **k)
        finally:
            acc.setdefault(name, []).append(time.perf_counter_ns() - t0)
    return w


print("(1)+(2) detector rows, us")
for name, size, thr in ROWS:
    img = frame_edges(name, size)
    d = GpuMat(img)
    det = createHoughLinesDetector(1.0, np.pi / 180, thr, False, 4096)
    fn = lambda: det.downloadResults(det.detect(d))
    n = fn()[1].shape[1]
    t = time_device(cp, fn, 300, warmup=30)["median"] * 1e3
    # pieces
    acc.clear()
    orig_wait = H.await_published
    H.await_published = timed("wait", orig_wait)
    hot = det._hot
    kinds = {type(g).__name__ for g in hot.leans}

    class Timed:
        def __init__(self, g):
            self.g = g

        def launch(self, stream):
            t0 = time.perf_counter_ns()
            self.g.launch(stream)
            acc.setdefault("launch", []).append(time.perf_counter_ns() - t0)
    real_leans = hot.leans
    hot.leans = tuple(Timed(g) for g in real_leans)
    det_detect, det_dl = det.detect, det.downloadResults
    for _ in range(30):
        fn()
    acc.clear()
    for _ in range(500):
        t0 = time.perf_counter_ns()
        r = det_detect(d)
        t1 = time.perf_counter_ns()
        det_dl(r)
        t2 = time.perf_counter_ns()
        acc.setdefault("detect", []).append(t1 - t0)
        acc.setdefault("download", []).append(t2 - t1)
        acc.setdefault("call", []).append(t2 - t0)
    H.await_published = orig_wait
    hot.leans = real_leans
    print("%s: " % "/".join(sorted(kinds)), end="")
    print("%-30s lines %4d  events %.2f | call %.2f = detect %.2f (launch %.2f, wait %.2f) + download %.2f" % (
        "%s %dx%d thr %d" % (name, size[0], size[1], thr), n, t, med(acc["call"]), med(acc["detect"]),
        med(acc["launch"]), med(acc["wait"]), med(acc["download"])), flush=True)

SRC = r"""
extern "C" __global__ void nop(int* x) { if (threadIdx.x == 0 && x[1] == 12345) x[2] = 1; }
extern "C" __global__ void publish(int* host) {
    if (threadIdx.x == 0) { __threadfence_system(); host[0] = 7; }
}
"""
mod = cp.RawModule(code=SRC)
nop, publish = mod.get_function("nop"), mod.get_function("publish")
pinned = cp.cuda.alloc_pinned_memory(64)
flag = np.frombuffer(pinned, np.int32, 16)
flag_ptr = flag.ctypes.data
dev_words = cp.zeros(4, cp.int32)
stream = cp.cuda.Stream(non_blocking=True)
print("(3) floors, us (events around batches, as the bench)")
with stream:
    for kernels in (1, 3):
        def launches():
            for _ in range(kernels - 1):
                nop((132,), (256,), (dev_words,))
            publish((1,), (32,), (np.uint64(flag_ptr),))
        g = _native.capture(stream, launches)

        def one():
            flag[0] = INT_MIN
            g.launch(stream)
            _graphs.await_published(flag, INT_MIN, stream, flag_ptr)
        t = time_device(cp, one, 300, warmup=30)["median"] * 1e3
        print("graph of %d kernel(s), launch + wait for the flag: %.2f" % (kernels, t), flush=True)
    out = cp.empty(4096, cp.float32)
    spare = _graphs.SpareOutput()

    def steps():
        s = cp.cuda.get_current_stream()
        o = spare.take(cp, s, 4096)
        flag[1] = o.ptr & 0x7fffffff
        flag[0] = INT_MIN
        spare.refill(cp, s, 4096)
    ts = []
    for _ in range(2000):
        t0 = time.perf_counter_ns()
        steps()
        ts.append(time.perf_counter_ns() - t0)
    print("python: spare take + refill + two pinned stores: %.2f" % med(ts[200:]))
    ts = []
    for _ in range(2000):
        t0 = time.perf_counter_ns()
        H._lines_mat(cp.ndarray((2, 300, 2), dtype=cp.float32, memptr=out.data, strides=(4096 * 8, 8, 4)), None)
        ts.append(time.perf_counter_ns() - t0)
    print("python: the result GpuMat (cp.ndarray view + _lines_mat): %.2f" % med(ts[200:]))
