"""The detector's direct write (TUNING.detector_direct_write) against the last-block tail, on the
rows of `cvgpu bench --only cuda`, interleaved in one process beside OpenCV-CUDA's kernels (the
harness, before and after). Detect + downloadResults on a device-resident GpuMat, CUDA events,
medians of 200 after warm-up, the best of two rounds. Variants: "auto" (the defaults: direct once
the last detect found detector_direct_min_lines), "direct" (min_lines 0: always), "last-blk"
(direct_write off). The variants' lines are compared (==).

    python3 compat_matrix/raw/session-2026-11-28/direct_ab.py
"""
import numpy as np

from cvgpu import _backend
from cvgpu.bench import ocv
from cvgpu.bench._timing import time_device
from cvgpu.bench.cuda import RHO, THETA, _threshold_for, _threshold_for_many, _workloads
from cvgpu.cuda import GpuMat, createHoughLinesDetector
from cvgpu.hough import TUNING

cp = _backend.cupy_module()
harness = ocv.find_harness()
print("harness", harness)
VARIANTS = {"auto": {}, "direct": dict(detector_direct_min_lines=0), "last-blk": dict(detector_direct_write=False)}
print("%-50s %5s %5s %8s %8s %8s %8s %6s %6s %6s %s" % ("row", "thr", "lines", "ocv ms", "auto", "direct", "last-blk",
                                                       "a/ocv", "d/ocv", "l/ocv", "same"))
for name, build, threshold, do_sort, max_lines, seed_key in _workloads(False):
    img = build()
    if img is None:
        continue
    d_img = GpuMat(img)
    if threshold in (None, "many"):
        search = _threshold_for if threshold is None else _threshold_for_many
        threshold = search(lambda t: createHoughLinesDetector(RHO, THETA, t, do_sort, 4096), d_img)
        if threshold is None:
            continue
    ref = [ocv.run(harness, img, RHO, THETA, threshold, do_sort, max_lines, 200)[0]] if harness else []
    times, outs = {}, {}
    for _ in range(2):
        for variant, values in VARIANTS.items():
            with TUNING.override(**values):
                det = createHoughLinesDetector(RHO, THETA, threshold, do_sort, max_lines)
                t = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 200, warmup=20)["median"]
                times.setdefault(variant, []).append(t)
                res = det.downloadResults(det.detect(d_img))
                outs[variant] = tuple(None if a is None else np.asarray(a).tobytes() for a in res)
    if harness:
        ref.append(ocv.run(harness, img, RHO, THETA, threshold, do_sort, max_lines, 200)[0])
    o = min(ref) if ref else float("nan")
    a, d, l = (min(times[v]) for v in VARIANTS)
    lines = det.downloadResults(det.detect(d_img))[1]
    n = 0 if lines is None else lines.shape[1]
    print("%-50s %5d %5d %8.4f %8.4f %8.4f %8.4f %5.2fx %5.2fx %5.2fx %s" % (
        name[:50], threshold, n, o, a, d, l, o / a, o / d, o / l,
        "==" if len(set(outs.values())) == 1 else "DIFFER"), flush=True)
print("paths", {k: v for k, v in TUNING.paths().items() if "maxima" in k})
