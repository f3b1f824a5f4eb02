"""Where eight threads calling HoughLines on numpy VGA frames serialise (H100 machine, one process).
Frames/s from 1, 2, 4 and 8 threads, each thread warmed first, of:
  full     cvgpu.HoughLines(frame, 1, pi/180, 150) as users call it (bits, native replay)
  c-only   the same thread's hostcall.c call alone (pack, copy up, graph launch, wait), looped:
           the driver's and the GPU's share, no Python around it
  py-only  cvgpu.HoughLines with the C call replaced by a Python stand-in that returns the count of
           the thread's last real call: the Python work alone, never releasing the GIL
  full@0.1ms  'full' with sys.setswitchinterval(1e-4) (diagnostic only)

    python3 compat_matrix/raw/hough-bits/threads_probe.py [auto|cuda]
"""
import sys
import threading
import time

import cupy as cp
import numpy as np

import cvgpu
from cvgpu import _native
from cvgpu.bench.workloads import frame_edges
from cvgpu.hough import lines as L

THETA = np.pi / 180
helpers = _native.helpers()
frames = [frame_edges(p, (640, 480)) for p in ("camera", "coins", "page", "astronaut")]
N = 2048


def run(threads, body):
    barrier = threading.Barrier(threads + 1)
    errors = []

    def work(k):
        try:
            with cp.cuda.Stream(non_blocking=True):
                loop = body(k)
                barrier.wait()
                loop(N // threads)
        except BaseException as exc:
            errors.append(exc)
            barrier.abort()
    pool = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    barrier.wait()
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    if errors:
        raise errors[0]
    return N / (time.perf_counter() - t0)


def full(k):
    for i in range(8):
        cvgpu.HoughLines(frames[(k + i) % 4], 1, THETA, 150)

    def loop(n):
        for i in range(n):
            cvgpu.HoughLines(frames[(k + i) % 4], 1, THETA, 150)
    return loop


def c_only(k):
    for i in range(8):
        cvgpu.HoughLines(frames[k % 4], 1, THETA, 150)
    ws = L._workspace(cp)
    plan = ws.last_plan
    img = frames[k % 4]
    rows, cols = img.shape
    step = _native.bit_row_bytes(cols)
    ptr = ws.up_dev.data.ptr
    head = (ptr, step, 0)
    L._pack_words(ws.call_bytes, 0, *head, 150, 0)
    graph = plan.pick(head)
    stream = cp.cuda.get_current_stream().ptr

    def loop(n):
        for _ in range(n):
            helpers.upload_replay(img.ctypes.data, rows, cols, cols, ws.up_host.ctypes.data, ptr, graph.handle,
                                  stream, ws.flag_ptr, -1, 1)
    return loop


class PyOnly:
    """helpers with upload_replay in Python: the count of the thread's last real call."""

    def __init__(self, real):
        self.real, self.counts = real, {}

    def __getattr__(self, name):
        return getattr(self.real, name)

    def upload_replay(self, *args):
        ident = threading.get_ident()
        if ident not in self.counts:   # the thread's warm-up calls: real, the last count kept
            return self.real.upload_replay(*args)
        return self.counts[ident]


def main():
    engine = sys.argv[1] if len(sys.argv) > 1 else "auto"
    cvgpu.set_engine(engine)
    print("engine %s" % engine)
    print("threads   full    c-only   py-only   full@0.1ms   (frames/s, VGA Canny, threshold 150)")
    for threads in (1, 2, 4, 8):
        row = [run(threads, full), run(threads, c_only)]
        stub = PyOnly(helpers)

        def py_only(k):
            for i in range(8):
                cvgpu.HoughLines(frames[k % 4], 1, THETA, 150)
            cp.cuda.get_current_stream().synchronize()
            ws = L._workspace(cp)
            stub.counts[threading.get_ident()] = int(ws.flag[0])
            img = frames[k % 4]

            def loop(n):
                for _ in range(n):
                    cvgpu.HoughLines(img, 1, THETA, 150)
            return loop
        _native._state["helpers"] = stub
        try:
            row.append(run(threads, py_only))
        finally:
            _native._state["helpers"] = helpers
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-4)
        try:
            row.append(run(threads, full))
        finally:
            sys.setswitchinterval(old)
        print("%7d %8.0f %8.0f %9.0f %10.0f" % (threads, *row), flush=True)


main()
