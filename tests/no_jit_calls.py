"""Every family's public calls on their GPU paths, each forced path included, for
tests/test_no_jit.py (issue 40: no GPU path of cvgpu may make CuPy compile a kernel). Run as a
subprocess, it prints one JSON object:

    python tests/no_jit_calls.py fake   # CuPy replaced by tools/fake_cupy.py in strict mode (CPU):
                                        # an operation that CuPy compiles raises CompiledByCupy
    python tests/no_jit_calls.py gpu    # the real CuPy (run with an empty CUPY_CACHE_DIR): every
                                        # kernel CuPy compiles is recorded by a hook on its compiler

{"errors": [[call, error]], "compiled": [[call, kernels, cvgpu frames]], "calls": n,
 "control": whether the hook saw the compile of a control expression run at the end (gpu)}.
Modules cvgpu loads from its own kernel sources (an NVRTC build where no fatbin matches) are not
CuPy's and are not listed."""
import json
import math
import os
import re
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

MODE = sys.argv[1] if len(sys.argv) > 1 else "gpu"
_OWN_PREFIX = [None]   # how every source of cvgpu's own modules starts (cvgpu._kernels.kernel_source)
compiled = []
current = ["start"]

if MODE == "fake":
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import fake_cupy
    fake_cupy.install(strict=True)
    cp = fake_cupy
else:
    fake_cupy = None
    import cupy as cp
    import cupy.cuda.compiler as _compiler

    def _hook(fn, label):
        def inner(source, *args, **kwargs):
            text = source if isinstance(source, str) else ""
            if not (_OWN_PREFIX[0] and text.startswith(_OWN_PREFIX[0])):
                frames = ["%s:%d:%s" % (os.path.relpath(f.filename, ROOT), f.lineno, f.name)
                          for f in traceback.extract_stack() if os.sep + "cvgpu" + os.sep in f.filename]
                compiled.append([current[0], re.findall(r"__global__\s+void\s+(\w+)", text)[:3] or [label],
                                 frames[-3:]])
            return fn(source, *args, **kwargs)
        return inner

    for _name in ("compile_with_cache", "_compile_module_with_cache"):
        if hasattr(_compiler, _name):
            setattr(_compiler, _name, _hook(getattr(_compiler, _name), _name))
    import cupy._core.core as _core
    if hasattr(_core, "compile_with_cache"):
        _core.compile_with_cache = _hook(_core.compile_with_cache, "core.compile_with_cache")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

import cvgpu  # noqa: E402
from cvgpu import _kernels, _versions, contours as cc, lms  # noqa: E402
from cvgpu.cuda import hough as cuda_hough  # noqa: E402
from cvgpu.hough import lines as hough_lines  # noqa: E402
from cvgpu.ximgproc import radon  # noqa: E402

_OWN_PREFIX[0] = _kernels.kernel_source("device_ops")[:200]
cvgpu.set_engine("cuda")
rng = np.random.default_rng(0)
THETA = np.pi / 180


def lines_published(n):
    """fake: the line count (or -1 - maxima for the detector's host path) the kernels publish."""
    if fake_cupy is not None:
        fake_cupy.LINES[0] = n


def edge_image(h, w, n=30):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        x0, y0, x1, y1 = (int(v) for v in rng.integers(0, [w, h, w, h]))
        cv2.line(img, (x0, y0), (x1, y1), 255, 1)
    return img


BLOBS = (cv2.GaussianBlur(rng.random((300, 400)).astype(np.float32), (0, 0), 5) > 0.5).astype(np.uint8) * 255
NOISE = ((rng.random((256, 256)) < 0.45) * 255).astype(np.uint8)           # thousands of contours
LABELS = cv2.connectedComponents(BLOBS)[1].astype(np.int32)
NOISE_LABELS = cv2.connectedComponents(NOISE)[1].astype(np.int32)
EDGES = edge_image(240, 320)
DENSE = ((rng.random((512, 512)) < 0.3) * 255).astype(np.uint8)            # more lines than one block sorts


def strided(a):
    """A strided device view of a's content (every other column of a twice as wide copy, rows flipped
    back): the paths that copy strided input."""
    wide = np.zeros((a.shape[0], 2 * a.shape[1]) + a.shape[2:], a.dtype)
    wide[::-1, ::2] = a
    return cp.asarray(wide)[::-1, ::2]


def contours_calls():
    T = cc.TUNING
    out = []
    for img, name in ((BLOBS, "blobs"), (NOISE, "noise")):
        for mode in (0, 1, 2, 3):
            for method in (1, 2, 3, 4):
                out.append(("findContours %s %d %d" % (name, mode, method),
                            lambda i=img, m=mode, me=method: cvgpu.findContours(i, m, me)))
        out.append(("findContours device %s" % name, lambda i=img: cvgpu.findContours(cp.asarray(i), 3, 2)))
        out.append(("findContours strided %s" % name, lambda i=img: cvgpu.findContours(strided(i), 1, 1)))
        out.append(("findContoursPacked %s" % name, lambda i=img: cvgpu.findContoursPacked(i, 2, 2)))
        out.append(("findContoursPacked device %s" % name,
                    lambda i=img: cvgpu.findContoursPacked(cp.asarray(i), 0, 3)))
    forced = [dict(offsets_scan_max=-1), dict(host_sort_max=-1), dict(device_select_max=-1),
              dict(tree_sort_small_max=-1), dict(ruler_min_slots=0), dict(tc89_rounds_l1=0, tc89_rounds_kcos=0),
              dict(jump_shared_max=-1), dict(grouped_min=1, host_sort_max=-1)]
    for values in forced:
        for img, name in ((BLOBS, "blobs"), (NOISE, "noise")):
            def call(v=values, i=img):
                with T.override(**v):
                    for mode, method in ((0, 2), (1, 1), (3, 3), (2, 4)):
                        cvgpu.findContours(i, mode, method)
                        cvgpu.findContoursPacked(cp.asarray(i), mode, method)
            out.append(("findContours %s %r" % (name, values), call))
    for lab, name in ((LABELS, "labels"), (NOISE_LABELS, "noise labels")):
        for method in (1, 2, 3, 4):
            out.append(("findContours %s FLOODFILL %d" % (name, method),
                        lambda i=lab, me=method: cvgpu.findContours(i, cv2.RETR_FLOODFILL, me)))
        out.append(("findContours %s device" % name, lambda i=lab: cvgpu.findContours(cp.asarray(i), 4, 2)))
        out.append(("findContours %s strided" % name, lambda i=lab: cvgpu.findContours(strided(i), 4, 1)))
        for values in (dict(lab_max_rounds=0), dict(offsets_scan_max=-1, tree_sort_small_max=-1),
                       dict(grouped_min=1, host_sort_max=-1)):
            def call(v=values, i=lab):
                with T.override(**v):
                    for method in (1, 3):
                        cvgpu.findContours(i, cv2.RETR_FLOODFILL, method)
            out.append(("findContours %s %r" % (name, values), call))
    # (findContoursLinkRuns exists from OpenCV 4.10.)
    for img, name in ((BLOBS, "blobs"), (NOISE, "noise")) if hasattr(cv2, "findContoursLinkRuns") else ():
        out.append(("findContoursLinkRuns %s" % name, lambda i=img: cvgpu.findContoursLinkRuns(i)))
        out.append(("findContoursLinkRuns device %s" % name, lambda i=img: cvgpu.findContoursLinkRuns(cp.asarray(i))))
        out.append(("findContoursLinkRuns strided %s" % name, lambda i=img: cvgpu.findContoursLinkRuns(strided(i))))

        def grouped(i=img):
            with T.override(grouped_min=1, host_sort_max=-1):
                cvgpu.findContoursLinkRuns(i)
        out.append(("findContoursLinkRuns grouped %s" % name, grouped))
    return out


def hough_calls():
    out = []
    for fn in ("HoughLines", "HoughLinesWithAccumulator"):
        f = getattr(cvgpu, fn)
        out.append((fn, lambda f=f: f(EDGES, 1, THETA, 40)))
        out.append((fn + " device", lambda f=f: f(cp.asarray(EDGES), 1, THETA, 40)))
        out.append((fn + " strided", lambda f=f: f(strided(EDGES), 1, THETA, 40)))

        def sorted_on_device(f=f):
            lines_published(hough_lines.SORT_CAPACITY + 5)
            try:
                f(DENSE, 1, THETA, 2)
                f(cp.asarray(DENSE), 1, THETA, 2)
            finally:
                lines_published(6)
        out.append((fn + " sort", sorted_on_device))
    if hough_lines.HAS_USE_EDGEVAL:
        out.append(("HoughLines use_edgeval", lambda: cvgpu.HoughLines(EDGES, 1, THETA, 40, use_edgeval=True)))
    out.append(("HoughLinesP", lambda: cvgpu.HoughLinesP(EDGES, 1, THETA, 30, None, 20, 5)))
    out.append(("HoughLinesP device", lambda: cvgpu.HoughLinesP(cp.asarray(EDGES), 1, THETA, 30, None, 20, 5)))
    out.append(("HoughLinesP strided", lambda: cvgpu.HoughLinesP(strided(EDGES), 1, THETA, 30, None, 20, 5)))
    out.append(("HoughLinesP wrap mode", lambda: cvgpu.HoughLinesP(EDGES[:30, :40], 60.0, THETA, 3)))

    def hough_p_forced():
        from cvgpu.hough.probabilistic import TUNING as P
        for values in (dict(window=7, forward=0, stage_bytes=0), dict(window=64, forward=64, stage_bytes=4096)):
            with P.override(**values):
                cvgpu.HoughLinesP(EDGES, 1, THETA, 5, None, 0, 0)
    out.append(("HoughLinesP forced", hough_p_forced))

    def detector(do_sort, image):
        det = cvgpu.cuda.createHoughLinesDetector(1, THETA, 40, do_sort)
        det.downloadResults(det.detect(image()))

    def host_path(do_sort):
        many = cvgpu.cuda.createHoughLinesDetector(1, THETA, 2, do_sort, 20000)
        lines_published(-1 - (cuda_hough.SMEM_CAP + 5))
        try:
            many.downloadResults(many.detect(cp.asarray(DENSE)))
        finally:
            lines_published(6)
    for do_sort in (True, False):
        out.append(("detector %s GpuMat" % do_sort,
                    lambda s=do_sort: detector(s, lambda: cvgpu.cuda.GpuMat(cp.asarray(EDGES)))))
        out.append(("detector %s strided" % do_sort, lambda s=do_sort: detector(s, lambda: strided(EDGES))))
        out.append(("detector %s sort" % do_sort, lambda s=do_sort: host_path(s)))

    def no_angles():
        det = cvgpu.cuda.createHoughLinesDetector(1, 10.0, 40)   # numangle 0: cv2 checks for points
        try:
            det.detect(cp.asarray(EDGES))
        except cv2.error:
            pass
        det.detect(cp.zeros((20, 30), cp.uint8))
    out.append(("detector numangle 0", no_angles))

    def foreign_lines():
        det = cvgpu.cuda.createHoughLinesDetector(1, THETA, 40)
        wide = cp.zeros((2, 9, 2), cp.float32)
        det.downloadResults(cvgpu.cuda.GpuMat(wide[:, 2:7]))       # no pinned mirror, strided
    out.append(("detector downloadResults of a strided GpuMat", foreign_lines))
    return out


def gpumat_calls():
    G = cvgpu.cuda.GpuMat

    def all_ops():
        for cv_type, value in ((cv2.CV_8UC3, (1, 2, 3)), (cv2.CV_32FC1, 2.5), (cv2.CV_16SC2, (-4, 7))):
            m = G(5, 7, cv_type, value)
            m.setTo(9)
            m.download()
            m.clone().download()
            m.copyTo(G())
        m = G()
        m.upload(np.arange(60, dtype=np.uint8).reshape(6, 10))
        m.download()
        G(strided(np.arange(60, dtype=np.float32).reshape(6, 10))).download()
        three = cp.zeros((6, 10, 3), cp.uint8)
        G(three[:, :, ::2]).download()                  # channels apart: made contiguous
        roi = G(cp.zeros((8, 12), cp.uint8)).colRange(2, 9)
        roi.download()
        roi.setTo(3)
        roi.clone()
    return [("GpuMat", all_ops)]


def lms_calls():
    T = lms.TUNING
    pts = rng.random((200, 2)).astype(np.float32) * 50
    lines = cvgpu.HoughLines(EDGES, 1, THETA, 40) if MODE == "gpu" else np.array([[[30, 1.0]], [[80, 0.3]]], np.float32)
    lines = lines if lines is not None else np.array([[[30, 1.0]]], np.float32)
    out = [
        ("fitLineLMS", lambda: cvgpu.fitLineLMS(pts)),
        ("fitLineLMS int host", lambda: cvgpu.fitLineLMS(pts.astype(np.int32))),
        ("fitLineLMS device f64", lambda: cvgpu.fitLineLMS(cp.asarray(pts.astype(np.float64)))),
        ("fitLineLMS device strided", lambda: cvgpu.fitLineLMS(strided(pts.reshape(-1, 1, 2)))),
    ]
    if "float16" in _versions.behaviour("binding.dtypes"):  # the binding takes float16 from 4.8
        out.append(("fitLineLMS device f16",
                    lambda: cvgpu.fitLineLMS(cp.asarray(pts.astype(np.float16)), "perpendicular")))
    out += [
        ("fitLineLMSBatch list",
         lambda: cvgpu.fitLineLMSBatch([cp.asarray(pts[:50]), strided(pts[50:].astype(np.int16))])),
        ("fitLineLMSBatch offsets", lambda: cvgpu.fitLineLMSBatch(pts.astype(np.uint8), np.array([0, 60, 200]))),
        ("fitLineLMSBatch offsets device",
         lambda: cvgpu.fitLineLMSBatch(cp.asarray(pts), cp.asarray(np.array([0, 60, 200])))),
        ("refineHoughLines", lambda: lms.refineHoughLines(EDGES, lines, 1, THETA)),
        ("refineHoughLines segments", lambda: lms.refineHoughLines(EDGES, lines, 1, THETA, segments=True)),
        ("refineHoughLines device", lambda: lms.refineHoughLines(cp.asarray(EDGES), cp.asarray(lines), 1, THETA)),
        ("refineHoughLines strided", lambda: lms.refineHoughLines(strided(EDGES), lines, 1, THETA)),
        ("support_points", lambda: lms.support_points(EDGES, lines, 1, THETA)),
    ]

    def windowed():
        # A candidate list of 16 entries overflows: the decision runs window by window (two
        # problems: windows of 8 candidates, a few thousand rounds).
        with T.override(list_min=16, list_max=16, list_per_point=0):
            cvgpu.fitLineLMS(pts)
            lms.refineHoughLines(EDGES, lines[:2], 1, THETA)
            lms.refineHoughLines(cp.asarray(EDGES), cp.asarray(lines[:2]), 1, THETA)
    out.append(("LMS windowed", windowed))
    return out


def radon_calls():
    if _versions.behaviour("radon.warp") == "fixed_point" and not hasattr(cv2, "ximgproc"):
        return []   # (beside 4.x cv2 computes RadonTransform; a cv2 without contrib has none to call)
    R = cvgpu.ximgproc.RadonTransform
    out = []
    for dtype in (np.uint8, np.float32, np.float64):
        src = rng.integers(0, 255, (64, 80)).astype(dtype)
        out.append(("Radon %s" % np.dtype(dtype), lambda s=src: R(s, theta=2)))
        out.append(("Radon %s crop norm" % np.dtype(dtype), lambda s=src: R(s, theta=2, crop=True, norm=True)))
        out.append(("Radon %s device strided" % np.dtype(dtype), lambda s=src: R(strided(s), theta=3, norm=True)))

        def plain(s=src):
            with radon.TUNING.override(use_texture=False):
                R(s, theta=2, norm=True)
                R(strided(s), theta=2, crop=True)
        out.append(("Radon %s without textures" % np.dtype(dtype), plain))
    return out


def main():
    families = [contours_calls, hough_calls, gpumat_calls, lms_calls, radon_calls]
    errors, n = [], 0
    for family in families:
        for name, call in family():
            if MODE == "fake" and "Radon" in name and "without textures" not in name and "uint8" in name:
                continue   # the texture path needs CUDA arrays, which the fake has not
            current[0] = name
            n += 1
            try:
                call()
            except Exception as exc:  # noqa: BLE001 - every failure is reported
                errors.append([name, "%s: %s" % (type(exc).__name__, str(exc)[:400])])
    control = None
    if MODE == "gpu":
        current[0] = "control"
        before = len(compiled)
        (cp.arange(7, dtype=cp.int8) * 3).get()   # compiled by CuPy (no family uses int8): the hook sees it
        control = len(compiled) > before
        del compiled[before:]
    from cvgpu.hough import TUNING as hough_tuning
    paths = {}
    for tuning in (cc.TUNING, hough_tuning, lms.TUNING, radon.TUNING):
        paths.update({k: int(v) for k, v in tuning.paths().items()})
    print(json.dumps({"errors": errors, "compiled": compiled, "calls": n, "control": control, "paths": paths,
                      "origins": sorted({v for v in _kernels.module_origins().values()})}))


if __name__ == "__main__":
    main()
