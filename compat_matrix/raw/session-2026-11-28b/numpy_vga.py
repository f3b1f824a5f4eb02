"""HoughLines numpy io at the detector's thresholds on VGA (and two 1080p) edge maps: where the call
sits against its floor (issue 42 asks >= 50x cv2 at 640x480; moon read 43.8x at e220e58). Per row:
cv2, the numpy call (auto and engine cuda), the bench's floor pieces (bit-row upload to a sync;
device-io call), the C call alone (hostcall.c upload_replay: pack + copy + launch + wait) and the
Python around it, and the numpy call sending bytes (TUNING host_bits False). Medians, us.

    python3 .dev/s29/numpy_vga.py
"""
import time

import cv2
import numpy as np

import cvgpu
from cvgpu import _backend, _native
from cvgpu.bench._timing import time_device, time_host
from cvgpu.bench.cuda import _upload_floor_ms
from cvgpu.bench.workloads import frame_edges
from cvgpu.hough import TUNING

cp = _backend.cupy_module()
RHO, THETA = 1.0, np.pi / 180
ROWS = [("moon", (640, 480), 32), ("camera", (640, 480), 160), ("chelsea", (640, 480), 112),
        ("coins", (640, 480), 128), ("moon", (1920, 1080), 32), ("chelsea", (1920, 1080), 64)]
acc = []
helpers = _native.helpers()
orig = helpers.upload_replay


def timed(*a):
    t0 = time.perf_counter_ns()
    r = orig(*a)
    acc.append(time.perf_counter_ns() - t0)
    return r


def us(t):
    return t["median"] * 1e3


print("%-22s %8s %8s %8s %8s %8s %8s %8s %8s %8s %6s" % ("row", "cv2", "auto", "cuda", "floor", "upload", "dev",
                                                       "C call", "py", "bytes", "x cv2"))
for name, size, thr in ROWS:
    img = frame_edges(name, size)
    ref = cv2.HoughLines(img, RHO, THETA, thr)
    cv2_t = time_host(lambda: cv2.HoughLines(img, RHO, THETA, thr), 15, warmup=2)
    res = {}
    for rnd in range(2):
        cvgpu.set_engine("auto")
        for _ in range(30):
            cvgpu.HoughLines(img, RHO, THETA, thr)
        res.setdefault("auto", []).append(us(time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, thr), 300, warmup=10)))
        cvgpu.set_engine("cuda")
        res.setdefault("cuda", []).append(us(time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, thr), 300, warmup=10)))
        helpers.upload_replay = timed
        acc.clear()
        t = time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, thr), 300, warmup=10)
        helpers.upload_replay = orig
        res.setdefault("ccall", []).append(float(np.median(acc)) / 1e3)
        res.setdefault("wrapped", []).append(us(t))
        up = _upload_floor_ms(cp, img) * 1e3
        d = cp.asarray(img)
        dev = us(time_device(cp, lambda: cvgpu.HoughLines(d, RHO, THETA, thr), 300, warmup=10))
        res.setdefault("upload", []).append(up)
        res.setdefault("dev", []).append(dev)
        with TUNING.override(host_bits=False):
            for _ in range(10):
                cvgpu.HoughLines(img, RHO, THETA, thr)
            res.setdefault("bytes", []).append(us(time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, thr), 300,
                                                           warmup=10)))
    same = np.array_equal(cvgpu.HoughLines(img, RHO, THETA, thr), ref)
    m = {k: min(v) for k, v in res.items()}
    floor = m["upload"] + m["dev"]
    print("%-22s %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %5.1fx %s" % (
        "%s %dx%d" % (name, size[0], size[1]), us(cv2_t), m["auto"], m["cuda"], floor, m["upload"], m["dev"],
        m["ccall"], m["wrapped"] - m["ccall"], m["bytes"], us(cv2_t) / m["auto"], "==" if same else "DIFFER"),
        flush=True)
cvgpu.set_engine("auto")
