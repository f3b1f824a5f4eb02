"""Follow-up of threads_split.py: (a) the synthetic call at py_only's shape (Python P us, then a
C spin of C us without the GIL) with k extra GIL releases (a ctypes no-op each) before the spin;
(b) the C functions one hot cvgpu.HoughLines numpy call enters (sys.setprofile's c_call events),
in order; (c) the full call again. One JSON line a row."""
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

SECONDS = 0.6
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


LOOP_PER_US = 1.0


def python_work(us):
    x = 0
    for i in range(int(us * LOOP_PER_US)):
        x += i
    return x


def calibrate():
    global LOOP_PER_US
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        python_work(100000)
        best = min(best, time.perf_counter() - t)
    LOOP_PER_US = 100000 / (best * 1e6)


def rate(fn, threads, setup=None):
    stop = [False]
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def work(k):
        ctx = setup() if setup else None
        if ctx is not None:
            ctx.__enter__()
        f = fn(k)
        for _ in range(16):
            f()
        barrier.wait(timeout=60)
        c = 0
        while not stop[0]:
            f()
            c += 1
        counts[k] = c
        if ctx is not None:
            ctx.__exit__(None, None, None)
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


def main():
    calibrate()
    lib = spin_lib()
    for p_us, c_us, extra in ((21, 57, 0), (21, 57, 1), (21, 57, 3), (21, 57, 6), (10, 57, 3)):
        def make(_k, p_us=p_us, c_us=c_us, extra=extra):
            def call():
                python_work(p_us / (extra + 1))
                for _ in range(extra):
                    lib.spin_ret(0, 0)
                    python_work(p_us / (extra + 1))
                lib.spin_ret(c_us * 1000, 0)
            return call
        row = {"probe": "python %d us + %d extra releases + C %d us" % (p_us, extra, c_us)}
        for th in (1, 2, 4, 8):
            row["t%d" % th] = rate(make, th)
        print(json.dumps(row), flush=True)

    import numpy as np
    import cupy as cp
    import cvgpu
    from cvgpu.bench.workloads import frame_edges
    cvgpu.set_engine("cuda")
    img = frame_edges("camera", (640, 480))
    theta = np.pi / 180
    for _ in range(30):
        cvgpu.HoughLines(img, 1, theta, 150)
    calls = []

    def prof(frame, event, arg):
        if event == "c_call":
            calls.append("%s.%s" % (getattr(arg, "__module__", None) or type(arg).__name__,
                                    getattr(arg, "__qualname__", getattr(arg, "__name__", repr(arg)))))
        elif event == "call":
            calls.append("py %s:%s" % (os.path.basename(frame.f_code.co_filename), frame.f_code.co_name))
    sys.setprofile(prof)
    cvgpu.HoughLines(img, 1, theta, 150)
    sys.setprofile(None)
    print(json.dumps({"hot_call_trace": calls}), flush=True)
    edges = [frame_edges(n, (640, 480)) for n in ("camera", "coins", "page", "astronaut")]
    row = {"row": "full"}
    for th in (1, 2, 4, 8):
        row["t%d" % th] = rate(lambda k: (lambda: cvgpu.HoughLines(edges[k % 4], 1, theta, 150)), th,
                               lambda: cp.cuda.Stream(non_blocking=True))
    print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
