"""Where eight host threads stop scaling (issue 40, part 4): a GIL floor probe beside the real calls.

A call that holds the GIL for P us of Python and then waits C us in C without it (as cvgpu's numpy
calls do: argument layer and result making in Python, pack + copy + launch + wait in hostcall.c)
is run from 1, 2, 4 and 8 threads: frames/s for P/C pairs bracketing HoughLines and findContours at
640x480, then the real calls (engine pinned to the GPU, each thread on its own stream), and each
call's thread CPU time against its wall time on one thread. Prints one JSON line per row.

    python3 threads_floor.py [--seconds 0.6]
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

SPIN_C = r"""
#include <time.h>
static long now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
void spin_ns(long ns) { long end = now_ns() + ns; while (now_ns() < end) { } }
"""


def spin_lib():
    d = tempfile.mkdtemp()
    src, so = os.path.join(d, "spin.c"), os.path.join(d, "spin.so")
    open(src, "w").write(SPIN_C)
    subprocess.check_call(["cc", "-O2", "-shared", "-fPIC", src, "-o", so])
    lib = ctypes.CDLL(so)           # CDLL calls release the GIL
    lib.spin_ns.argtypes = [ctypes.c_long]
    return lib


def python_work(us):
    """Pure-Python work of about ``us`` microseconds (calibrated below)."""
    n = int(us * LOOP_PER_US)
    x = 0
    for i in range(n):
        x += i
    return x


LOOP_PER_US = 1.0


def calibrate():
    global LOOP_PER_US
    LOOP_PER_US = 1.0
    best = min(_timed(python_work, 100000) for _ in range(5))
    LOOP_PER_US = 100000 / (best * 1e6)


def _timed(fn, arg):
    t = time.perf_counter()
    fn(arg)
    return time.perf_counter() - t


def rate(fn, threads, seconds, per_thread_setup=None):
    stop = [False]
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def work(k):
        ctx = per_thread_setup() if per_thread_setup else None
        try:
            if ctx is not None:
                ctx.__enter__()
            for _ in range(8):
                fn(k)
            barrier.wait()
            c = 0
            while not stop[0]:
                fn(k)
                c += 1
            counts[k] = c
        finally:
            if ctx is not None:
                ctx.__exit__(None, None, None)
    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop[0] = True
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=0.6)
    args = ap.parse_args()
    calibrate()
    lib = spin_lib()
    print(json.dumps({"host_cores": os.cpu_count(), "python": sys.version.split()[0],
                      "switch_interval_s": sys.getswitchinterval()}), flush=True)
    for p_us, c_us in ((15, 40), (5, 40), (15, 0), (0, 40), (300, 400), (150, 600)):
        def call(_k, p_us=p_us, c_us=c_us):
            python_work(p_us)
            if c_us:
                lib.spin_ns(int(c_us * 1000))
        row = {"probe": "python %d us + C %d us" % (p_us, c_us)}
        for t in (1, 2, 4, 8):
            row["t%d" % t] = round(rate(call, t, args.seconds))
        print(json.dumps(row), flush=True)

    import numpy as np
    import cv2
    import cvgpu
    import cupy as cp
    from cvgpu.bench.workloads import frame_edges, frame_mask
    cvgpu.set_engine("cuda")
    edges = [frame_edges(n, (640, 480)) for n in ("camera", "coins", "page", "astronaut")]
    masks = [frame_mask(n, (640, 480), "otsu") for n in ("camera", "coins", "page", "astronaut")]
    real = {
        "HoughLines VGA": lambda k: cvgpu.HoughLines(edges[k % 4], 1, np.pi / 180, 150),
        "findContours VGA TREE": lambda k: cvgpu.findContours(masks[k % 4], cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE),
        "findContours VGA EXTERNAL": lambda k: cvgpu.findContours(masks[k % 4], cv2.RETR_EXTERNAL,
                                                                  cv2.CHAIN_APPROX_SIMPLE),
        "cv2.HoughLines VGA": lambda k: cv2.HoughLines(edges[k % 4], 1, np.pi / 180, 150),
    }
    for name, fn in real.items():
        # One thread: wall and thread CPU time per call (the C wait spins, so CPU ~ wall there).
        for _ in range(20):
            fn(0)
        n = 300
        w, c = time.perf_counter(), time.thread_time()
        for i in range(n):
            fn(i)
        row = {"call": name, "wall_us": round((time.perf_counter() - w) / n * 1e6, 1),
               "thread_cpu_us": round((time.thread_time() - c) / n * 1e6, 1)}
        for t in (1, 2, 4, 8):
            row["t%d" % t] = round(rate(fn, t, args.seconds, lambda: cp.cuda.Stream(non_blocking=True)))
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
