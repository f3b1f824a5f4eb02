"""A bounded GPU workload for compute-sanitizer (compat_matrix/run_device.sh sanitize with
SANITIZER_WORKLOAD=1): the pytest properties take too long under the tools to reach these paths in
one device call. It runs findContours with the walk states ranked both ways (pointer jumping and
rulers, both through the cooperative rank_jump_inplace), every mode and three methods, on a few
small images against cv2; two findContoursPacked calls on two streams; and HoughLines and the
detector past their second call, so their captured CUDA graphs (PDL launches) replay. Prints what
ran (the cooperative blocks, whether the graphs were captured) and exits 1 on any mismatch."""
import sys

import cupy as cp
import cv2
import numpy as np

import cvgpu
from cvgpu.bench import workloads as bench
from cvgpu.bench.contours import blobs_image
from cvgpu import contours as cc
from cvgpu.contours import _common as contours_common
from cvgpu import hough as hh

cp.cuda.set_allocator(None)  # one cudaMalloc per array: memcheck sees each array's bounds


def same(a, b):
    return len(a[0]) == len(b[0]) and all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and (
        (a[1] is None and b[1] is None) or np.array_equal(a[1], b[1]))


rng = np.random.default_rng(5)
bad = n = 0
imgs = [blobs_image(120, 150, seed=1, noise=0.02), (rng.random((64, 90)) < 0.5).astype(np.uint8),
        blobs_image(200, 170, seed=3), np.ones((33, 17), np.uint8), np.zeros((5, 5), np.uint8)]
for img in imgs:
    for ranking in (0, 1 << 62):
        with cc.TUNING.override(ruler_min_slots=ranking):
            for mode in (cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE):
                for method in (cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1):
                    n += 1
                    bad += not same(cvgpu.findContours(img, mode, method), cv2.findContours(img, mode, method))
s1, s2 = cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True)
d = cp.asarray(imgs[0])
with s1:
    a = cvgpu.findContoursPacked(d, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
with s2:
    b = cvgpu.findContoursPacked(d, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
s1.synchronize()
s2.synchronize()
bad += not all(np.array_equal(x.get(), y.get()) for x, y in zip(a, b))
n += 1
print("contours cases", n, "bad", bad, flush=True)
# HoughLines: the graph is captured at a plan's second call and replayed from then on
hb = 0
for h, w, pts in ((256, 256, 4000), (256, 256, 9000), (300, 200, 3000)):
    for k in range(4):
        img = bench.segments(h, w, pts, seed=k)
        ref = cv2.HoughLines(img, 1, np.pi / 180, 60)
        for arg in (img, cp.asarray(img)):
            got = cvgpu.HoughLines(arg, 1, np.pi / 180, 60)
            got = got.get() if isinstance(got, cp.ndarray) else got
            hb += not ((ref is None and got is None) or
                       (ref is not None and got is not None and np.array_equal(ref, got)))
det = cvgpu.cuda.createHoughLinesDetector(1, np.pi / 180, 60, True)
outs = []
for k in range(4):
    img = bench.segments(256, 256, 6000, seed=k % 2)
    outs.append(det.downloadResults(det.detect(cvgpu.cuda.GpuMat(img))))
hb += not (np.array_equal(outs[0][0], outs[2][0]) and np.array_equal(outs[1][1], outs[3][1]))
ws = hh._workspace(cp)
print("hough bad", hb, "cooperative", dict(contours_common._cooperative), "hough graphs", [bool(p.graph) for p in ws.plans.values()],
      "detector graphs", [bool(g) for g in det._buf.graphs.values()], flush=True)
sys.exit(1 if bad or hb else 0)
