"""HoughLines device and numpy io beside the lines detector, on the bench's photograph rows (Canny
edges at the detector's threshold, cvgpu.bench.cuda's rule), for an A/B of two cvgpu trees run in
turn in one job (the tree is the one on PYTHONPATH; it prints which). One JSON line a row:
HoughLines device (CUDA events, back-to-back batches: cvgpu.bench._timing.time_device), HoughLines
numpy (host clock), the detector (detect + downloadResults, events), each a median in ms.

    PYTHONPATH=<tree> python3 hl_ab.py LABEL [sizes...]      sizes as 640x480 (default: all four)

LABEL "C...": the working tree with TUNING.lines_windowed False (the plain maxima scan; calls 3-4);
"V...": with TUNING.lines_one_wave False (vote_config's voting grid; call 7).
"""
import json, math, os, sys
os.environ["CVGPU_ENGINE"] = "cuda"  # (numpy calls too: the GPU path, as the bench pins it)
import numpy as np
import cvgpu
from cvgpu import _backend
from cvgpu.bench._timing import time_device, time_host
from cvgpu.bench.cuda import RHO, THETA, _threshold_for
from cvgpu.bench.workloads import FRAME_PHOTOS, FRAMES, frame_edges
from cvgpu.cuda import GpuMat, createHoughLinesDetector

label = sys.argv[1]
sizes = [tuple(int(v) for v in s.split("x")) for s in sys.argv[2:]] or list(FRAMES)
cp = _backend.cupy_module()
if label.startswith("C"):
    from cvgpu.hough import TUNING
    TUNING.override(lines_windowed=False).__enter__()
if label.startswith("V"):
    from cvgpu.hough import TUNING
    TUNING.override(lines_one_wave=False).__enter__()
print(json.dumps({"label": label, "cvgpu": os.path.dirname(cvgpu.__file__)}), flush=True)
for w, h in sizes:
    for name in FRAME_PHOTOS:
        img = frame_edges(name, (w, h))
        if img is None:
            continue
        d_img = GpuMat(img)
        thr = _threshold_for(lambda t: createHoughLinesDetector(RHO, THETA, t, False, 4096), d_img)
        if thr is None:
            continue
        det = createHoughLinesDetector(RHO, THETA, thr, False, 4096)
        dev = cp.asarray(img)
        ref = cvgpu.HoughLines(img, RHO, THETA, thr)
        assert cvgpu.last_call_backend() == "cuda"
        got = cvgpu.HoughLines(dev, RHO, THETA, thr)
        assert (ref is None and got is None) or np.array_equal(ref, got.get())
        t_det = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 200, warmup=20)
        t_dev = time_device(cp, lambda: cvgpu.HoughLines(dev, RHO, THETA, thr), 200, warmup=20)
        t_np = time_host(lambda: cvgpu.HoughLines(img, RHO, THETA, thr), 100, warmup=10)
        print(json.dumps({"label": label, "row": "%s %dx%d" % (name, w, h), "threshold": thr,
                          "lines": 0 if ref is None else len(ref), "det_ms": t_det["median"],
                          "hl_dev_ms": t_dev["median"], "hl_np_ms": t_np["median"]}), flush=True)
