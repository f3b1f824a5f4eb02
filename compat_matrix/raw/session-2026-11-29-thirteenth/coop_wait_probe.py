"""Does HoughLinesP (one persistent kernel, a block on every SM) wait for a one-thread kernel of
another stream?  Variants: the spin kernel's shared-memory carveout, and the grid one block short
of the SM count; then findContours' cooperative list ranking (rank_jump_inplace) on large lists.
Prints seconds per call and whether the other stream was still busy.  Call 3 ran it at 93edb37
(cooperative launch), call 4 at the grid join (hp_join, plain launch)."""
import os
import sys
import time

import numpy as np
import cupy as cp
import cv2

os.environ.setdefault("CVGPU_ENGINE", "cuda")
import cvgpu  # noqa: E402
from cvgpu import _kernels  # noqa: E402
from cvgpu.hough import probabilistic as hp  # noqa: E402

rng = np.random.default_rng(11)
img = np.zeros((96, 128), np.uint8)
for _ in range(6):
    p = rng.integers(0, 128, 4)
    cv2.line(img, (int(p[0]), int(p[1]) % 96), (int(p[2]), int(p[3]) % 96), 255, 1)
dev = cp.asarray(img)
call = lambda x: cvgpu.HoughLinesP(x, 1, np.pi / 180, 10, None, 5, 2)  # noqa: E731
for _ in range(3):
    call(dev), call(img)
cp.cuda.Device().synchronize()
try:
    fn = _kernels.get_function(hp.FAMILY, "hough_p_main", cooperative=True)
except Exception:
    fn = _kernels.get_function(hp.FAMILY, "hough_p_main")
sms, max_shared = _kernels.device_properties()
print("SMs", sms, "max_shared", max_shared, "regs", fn.num_regs, "static", fn.shared_size_bytes,
      "resident(64K dyn)", _kernels.resident_blocks(fn, hp.THREADS, 64 << 10), "MPS", os.environ.get("MPS_TAG"))

src = r'''extern "C" __global__ void spin(long long cycles) {
    long long start = clock64(); while (clock64() - start < cycles) { } }'''
khz = cp.cuda.Device().attributes["ClockRate"]


def trial(label, carveout=None, grid_short=0, seconds=1.5, threads=1):
    k = cp.RawKernel(src, "spin")
    if carveout is not None:
        k.preferred_shared_memory_carveout = carveout
    orig = hp._grid
    if grid_short:
        hp._grid = lambda f, s: max(1, orig(f, s) - grid_short)
    other = cp.cuda.Stream(non_blocking=True)
    mine = cp.cuda.Stream(non_blocking=True)
    with other:
        k((1,), (threads,), (np.int64(khz * 1000 * seconds),))
    time.sleep(0.05)
    out = []
    with mine:
        for name, x in (("cupy", dev), ("numpy", img)):
            t0 = time.perf_counter()
            r = call(x)
            if hasattr(r, "get"):
                r = r.get()
            out.append("%s %.4f s busy=%s" % (name, time.perf_counter() - t0, not other.done))
    other.synchronize()
    hp._grid = orig
    print("%-28s %s" % (label, " | ".join(out)), flush=True)


trial("default spin")
trial("spin carveout 0")
trial("spin carveout 0 (explicit)", carveout=0)
trial("spin carveout 50", carveout=50)
trial("spin carveout 100", carveout=100)
trial("grid SMs-1", grid_short=1)
trial("grid SMs-1, carveout 0", carveout=0, grid_short=1)
trial("spin 256 threads", threads=256)


# findContours: which ranking path ran, and whether it waited for the busy SM.
from cvgpu.contours import TUNING as CT  # noqa: E402
for side in (1024, 2048, 4096):
    noise = (np.random.default_rng(side).random((side, side)) > 0.5).astype(np.uint8) * 255
    dnoise = cp.asarray(noise)
    for _ in range(2):
        cvgpu.findContours(dnoise, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    cp.cuda.Device().synchronize()
    before = CT.paths()
    other = cp.cuda.Stream(non_blocking=True)
    mine = cp.cuda.Stream(non_blocking=True)
    with other:
        cp.RawKernel(src, "spin")((1,), (1,), (np.int64(khz * 1000 * 1.5),))
    time.sleep(0.05)
    with mine:
        t0 = time.perf_counter()
        cvgpu.findContours(dnoise, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
        dt = time.perf_counter() - t0
    busy = not other.done
    other.synchronize()
    print("findContours noise %d TREE NONE: %.4f s busy=%s paths %s" % (side, dt, busy, dict(CT.paths() - before)),
          flush=True)
