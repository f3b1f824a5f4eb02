"""Where a 1080p / 4K numpy image's bit-row upload goes (issue 42's HoughLines numpy rows): hostcall.c's
cvg_pack_bits alone at 1, 2, 4, 8 packing threads (threads made per call), numpy's copy of the same
bytes (the memory's pace), and cvg_upload (pack + copy up) to a stream sync. Medians of 200, us.

    python3 .dev/s29/pack_probe.py
"""
import time

import numpy as np

from cvgpu import _backend, _native
from cvgpu.bench.workloads import frame_edges

cp = _backend.cupy_module()
lib, why = _native.load_library()
_native.declare(lib)
helpers = _native.helpers()


def med(fn, n=200):
    for _ in range(20):
        fn()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter_ns()
        fn()
        ts.append(time.perf_counter_ns() - t0)
    return float(np.median(ts)) / 1e3


for size in ((1920, 1080), (3840, 2160), (640, 480)):
    img = frame_edges("chelsea", size)
    rows, cols = img.shape
    nb = rows * _native.bit_row_bytes(cols)
    out = np.empty(nb, np.uint8)
    dst = np.empty_like(img)
    line = ["%dx%d" % size, "memcpy %.1f" % med(lambda: np.copyto(dst, img))]
    for n in (1, 2, 3, 4, 8):
        lib.cvg_set_pack_threads(n)
        line.append("pack%d %.1f" % (n, med(lambda: lib.cvg_pack_bits(img.ctypes.data, rows, cols, cols,
                                                                         out.ctypes.data, 0))))
    lib.cvg_set_pack_threads(4)
    host = np.frombuffer(cp.cuda.alloc_pinned_memory(nb), np.uint8, nb)
    dev = cp.empty(nb, cp.uint8)
    stream = cp.cuda.get_current_stream()
    hp, dp, sp = host.ctypes.data, dev.data.ptr, stream.ptr

    def up():
        helpers.upload(img.ctypes.data, rows, cols, cols, hp, dp, sp, 1)
        stream.synchronize()

    def copy_only():
        cp.cuda.runtime.memcpyAsync(dp, hp, nb, cp.cuda.runtime.memcpyHostToDevice, sp)
        stream.synchronize()
    line.append("upload4 %.1f" % med(up))
    line.append("h2d+sync %.1f" % med(copy_only))
    line.append("sync %.1f" % med(stream.synchronize))
    print("  ".join(line), flush=True)
