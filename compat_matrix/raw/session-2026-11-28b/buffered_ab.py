"""Per-block key gathering in the detector's ch_maxima (CH_BUFFERED=1, d857782) against the scan
before it (CH_BUFFERED=0), on the rows of `cvgpu bench --only cuda`, interleaved in one process
beside OpenCV-CUDA's kernels (the harness, before and after). Detect + downloadResults on a
device-resident GpuMat, CUDA events, medians of 200 after warm-up, the best of two rounds. Both
variants compiled at run time with the same options but the one macro. Variants: old (auto),
new (auto), new-direct (direct always), new-lastblk (direct off). Lines compared (==).
Then (TRACE=1) a globaltimer stage trace of four rows in both builds (.dev/trace.patch applied).

    python3 .dev/s29/buffered_ab.py [trace]
"""
import json
import sys

import numpy as np

import cvgpu._kernels as K
from cvgpu import _backend
from cvgpu.bench import ocv
from cvgpu.bench._timing import time_device
from cvgpu.bench.cuda import RHO, THETA, _threshold_for, _threshold_for_many, _workloads
from cvgpu.bench.workloads import frame_edges
from cvgpu.cuda import GpuMat, createHoughLinesDetector
from cvgpu.hough import TUNING

cp = _backend.cupy_module()
EXTRA = [()]
_orig = K.get_function


def _gf(family, name, options=(), **kw):
    return _orig(family, name, tuple(options) + EXTRA[0], **kw)


K.get_function = _gf

if sys.argv[1:] == ["trace"]:
    ROWS = [("camera", (640, 480), 110), ("camera", (640, 480), 160), ("camera", (1280, 720), 151),
            ("camera", (3840, 2160), 42), ("camera", (3840, 2160), 128), ("astronaut", (1920, 1080), 128)]
    print("slots: 0 collect start, 1 collect end, 2 vote start, 3 vote end, 4 maxima start, 5 scan end, "
          "6 chain done (direct), 7 written+fenced (direct), 8 last block's tail starts, 9 count published, "
          "10 zeroed; ns after slot 0, medians of 100")
    for name, size, thr in ROWS:
        img = frame_edges(name, size)
        d = GpuMat(img)
        for b in (0, 1):
            opts = ("-DHOUGH_TRACE=1", "-DCH_BUFFERED=%d" % b)
            EXTRA[0] = opts
            det = createHoughLinesDetector(RHO, THETA, thr, False, 4096)
            fn = lambda: det.downloadResults(det.detect(d))
            n = fn()[1].shape[1]
            fn()
            t = round(time_device(cp, fn, 200, warmup=20)["median"] * 1e3, 2)
            mod = K._modules[(cp.cuda.Device().id, "cuda/hough", opts, False)]
            tr = cp.ndarray((16,), cp.uint64, mod.get_global("hough_trace"))
            init = np.array([2**64 - 1, 0, 2**64 - 1, 0, 2**64 - 1] + [0] * 11, np.uint64)
            samples = []
            for _ in range(100):
                tr.set(init)
                cp.cuda.runtime.deviceSynchronize()
                fn()
                cp.cuda.runtime.deviceSynchronize()
                h = tr.get().astype(np.int64)
                samples.append(np.where(h > 0, h - h[0], -1))
            med = np.median(np.array(samples), axis=0).astype(int)
            print(json.dumps({"row": "%s %dx%d thr %d lines %d" % (name, size[0], size[1], thr, n),
                              "buffered": b, "us": t, "ns": {str(i): int(med[i]) for i in range(11)}}), flush=True)
    sys.exit(0)

harness = ocv.find_harness()
print("harness", harness)
B0, B1 = ("-DCH_BUFFERED=0",), ("-DCH_BUFFERED=1",)
VARIANTS = {"old": (B0, {}), "new": (B1, {}), "new-dir": (B1, dict(detector_direct_min_lines=0)),
            "new-lb": (B1, dict(detector_direct_write=False))}
print("%-50s %5s %5s %8s %8s %8s %8s %8s %6s %6s %s" % ("row", "thr", "lines", "ocv ms", "old", "new", "new-dir",
                                                       "new-lb", "o/ocv", "n/ocv", "same"))
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
        for variant, (opts, values) in VARIANTS.items():
            EXTRA[0] = opts
            with TUNING.override(**values):
                det = createHoughLinesDetector(RHO, THETA, threshold, do_sort, max_lines)
                t = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 200, warmup=20)["median"]
                times.setdefault(variant, []).append(t)
                res = det.downloadResults(det.detect(d_img))
                outs[variant] = tuple(None if a is None else np.asarray(a).tobytes() for a in res)
    if harness:
        ref.append(ocv.run(harness, img, RHO, THETA, threshold, do_sort, max_lines, 200)[0])
    o = min(ref) if ref else float("nan")
    t = {v: min(times[v]) for v in VARIANTS}
    lines = det.downloadResults(det.detect(d_img))[1]
    n = 0 if lines is None else lines.shape[1]
    print("%-50s %5d %5d %8.4f %8.4f %8.4f %8.4f %8.4f %5.2fx %5.2fx %s" % (
        name[:50], threshold, n, o, t["old"], t["new"], t["new-dir"], t["new-lb"], o / t["old"], o / t["new"],
        "==" if len(set(outs.values())) == 1 else "DIFFER"), flush=True)
print("paths", {k: v for k, v in TUNING.paths().items() if "maxima" in k})
