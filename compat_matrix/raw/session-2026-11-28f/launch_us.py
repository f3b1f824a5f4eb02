import os, sys, time, statistics
sys.path.insert(0, os.getcwd())
import numpy as np, cupy as cp
from cvgpu.contours import _common, TUNING
gpu = _common.current_gpu()
a = cp.zeros(1024, cp.int32); b = cp.zeros(1024, cp.int32)
for flag in (False, True, False, True):
    with TUNING.override(driver_launch=flag):
        f = gpu.fn("ranking_block", "offsets_scan")
        out = cp.zeros(1025, cp.int64)
        for _ in range(100): f((1,), (1024,), (np.int32(10), a, out))
        cp.cuda.get_current_stream().synchronize()
        ts = []
        for _ in range(2000):
            t = time.perf_counter(); gpu.fn("ranking_block", "offsets_scan")((1,), (1024,), (np.int32(10), a, out)); ts.append(time.perf_counter() - t)
        cp.cuda.get_current_stream().synchronize()
        print("driver_launch", flag, "fn+launch us median %.2f p10 %.2f" % (1e6 * statistics.median(ts), 1e6 * sorted(ts)[200]))
