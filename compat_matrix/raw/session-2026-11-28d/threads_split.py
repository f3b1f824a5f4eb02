"""Eight threads and cvgpu.HoughLines (numpy, 640x480): which part stops scaling (issue 40, part 4).

Rows (frames/s from 1, 2, 4 and 8 threads, each on its own CUDA stream, engine pinned to the GPU):
  full:     cvgpu.HoughLines(edges, 1, pi/180, 150) as users call it;
  c_only:   the one foreign call of that path alone (hostcall.c cvg_upload_replay: pack, copy up,
            graph launch, wait for the count) with the arguments the thread's own call passed;
  py_only:  the full call with that foreign call replaced by a ctypes spin of the C call's
            one-thread duration that returns the count the real call returned (the Python around
            the C call, with one GIL release of the same length);
  full_si:  full with sys.setswitchinterval(1e-4).
Prints one JSON line a row.
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np
import cupy as cp
import cvgpu
from cvgpu import _native
from cvgpu.bench.workloads import frame_edges

SECONDS = float(os.environ.get("SECONDS_A_ROW", "0.6"))
SPIN_C = r"""
#include <time.h>
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
long long spin_ret(long ns, long long ret) { long end = now_ns() + ns; while (now_ns() < end) { } return ret; }
"""


def spin_lib():
    d = tempfile.mkdtemp()
    src, so = os.path.join(d, "spin.c"), os.path.join(d, "spin.so")
    open(src, "w").write(SPIN_C)
    subprocess.check_call(["cc", "-O2", "-shared", "-fPIC", src, "-o", so])
    lib = ctypes.CDLL(so)
    lib.spin_ret.argtypes = [ctypes.c_long, ctypes.c_longlong]
    lib.spin_ret.restype = ctypes.c_longlong
    return lib


def rate(make_fn, threads):
    stop = [False]
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def work(k):
        with cp.cuda.Stream(non_blocking=True):
            fn = make_fn(k)
            for _ in range(16):
                fn()
            barrier.wait(timeout=60)
            c = 0
            while not stop[0]:
                fn()
                c += 1
            counts[k] = c
    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    barrier.wait(timeout=60)
    t0 = time.perf_counter()
    time.sleep(SECONDS)
    stop[0] = True
    for t in ts:
        t.join()
    return round(sum(counts) / (time.perf_counter() - t0))


class Proxy:
    """cvgpu._native's Helpers with upload_replay replaced (other attributes delegated)."""

    def __init__(self, real, replay):
        self._real, self.upload_replay = real, replay

    def __getattr__(self, name):
        return getattr(self._real, name)


def main():
    cvgpu.set_engine("cuda")
    edges = [frame_edges(n, (640, 480)) for n in ("camera", "coins", "page", "astronaut")]
    real = _native.helpers()
    if real is None:
        print(json.dumps({"error": "no native helpers"}))
        return
    theta = np.pi / 180
    spin = spin_lib()
    local = threading.local()
    c_ns = {}

    def replay(*args):
        mode = getattr(local, "mode", "real")
        if mode == "capture":
            local.args = args
            t = time.perf_counter_ns()
            r = real.upload_replay(*args)
            c_ns.setdefault(threading.get_ident(), []).append(time.perf_counter_ns() - t)
            local.ret = r
            return r
        if mode == "spin":
            return spin.spin_ret(local.spin_ns, local.ret)
        return real.upload_replay(*args)

    proxy = Proxy(real, replay)
    _native.helpers = lambda: proxy
    _native._state["helpers"] = proxy

    def full(k):
        img = edges[k % 4]
        return lambda: cvgpu.HoughLines(img, 1, theta, 150)

    def c_only(k):
        img = edges[k % 4]
        local.mode = "capture"
        for _ in range(10):  # (the thread's first calls run before its graph is captured)
            cvgpu.HoughLines(img, 1, theta, 150)
        local.mode = "real"
        args = local.args
        f = real.upload_replay
        return lambda: f(*args)

    def py_only(k):
        img = edges[k % 4]
        local.mode = "capture"
        for _ in range(20):
            cvgpu.HoughLines(img, 1, theta, 150)
        local.spin_ns = int(np.median(c_ns[threading.get_ident()][-10:]))
        local.mode = "spin"
        return lambda: cvgpu.HoughLines(img, 1, theta, 150)

    # one thread: the C call's share of a call
    local.mode = "capture"
    for _ in range(50):
        cvgpu.HoughLines(edges[0], 1, theta, 150)
    n = 300
    c_ns.clear()
    t = time.perf_counter_ns()
    for _ in range(n):
        cvgpu.HoughLines(edges[0], 1, theta, 150)
    wall = (time.perf_counter_ns() - t) / n
    cs = c_ns[threading.get_ident()]
    print(json.dumps({"one_thread_call_us": round(wall / 1e3, 1), "c_call_us": round(float(np.median(cs)) / 1e3, 1),
                      "python_us": round((wall - float(np.median(cs))) / 1e3, 1)}), flush=True)
    for name, make in (("full", full), ("c_only", c_only), ("py_only", py_only)):
        row = {"row": name}
        for th in (1, 2, 4, 8):
            row["t%d" % th] = rate(make, th)
        print(json.dumps(row), flush=True)
    local.mode = "real"
    sys.setswitchinterval(1e-4)
    row = {"row": "full_si"}
    for th in (1, 2, 4, 8):
        row["t%d" % th] = rate(full, th)
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
