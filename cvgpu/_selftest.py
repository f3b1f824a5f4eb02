"""``python -m cvgpu selftest``: a few hundred generated calls through cvgpu and through the installed
cv2, compared as the tests compare them (values bit for bit, shapes, dtypes, None vs empty, and for
errors the class, code, err, func, file and line), with a per-function tally.

Meant for a cv2 newer than the newest release cvgpu was validated against (``_versions``): it says
what still matches there. It runs in seconds on the CPU and in well under a minute with a GPU
(the first calls compile kernels).
"""
import argparse
import math
import sys
import time

import cv2
import numpy as np

from . import _backend, _versions


def _describe(value):
    """A comparable, printable form of a result: arrays by shape, dtype and bytes."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(_describe(v) for v in value)
    if hasattr(value, "get") and not isinstance(value, np.ndarray):  # CuPy
        value = value.get()
    if isinstance(value, np.ndarray):
        return ("ndarray", value.shape, value.dtype.str, value.tobytes())
    return ("other", type(value).__name__, repr(value))


def _outcome(fn):
    try:
        return ("ok", _describe(fn()))
    except cv2.error as exc:
        # cv2 keeps these on the class: read them before anything else raises.
        return ("cv2.error", exc.code, exc.err, exc.func, exc.file, exc.line, str(exc))
    except Exception as exc:  # the binding's TypeError / ValueError / OverflowError, AttributeError
        return (type(exc).__name__, str(exc))


def _short(outcome):
    if outcome[0] == "ok":
        v = outcome[1]
        if isinstance(v, tuple) and v and v[0] == "ndarray":
            return "ndarray%s %s" % (v[1], np.dtype(v[2]))
        return "ok %.80r" % (v,)
    if outcome[0] == "cv2.error":
        return "cv2.error %d %.60r in %.40r at %s:%s" % (outcome[1], outcome[2], outcome[3], outcome[4], outcome[5])
    return "%s %.80r" % outcome


# ---------------------------------------------------------------- generated cases

def _images(rng, count, max_side=48):
    out = []
    for i in range(count):
        h, w = int(rng.integers(1, max_side)), int(rng.integers(1, max_side))
        kind = i % 4
        if kind == 0:
            img = ((rng.random((h, w)) < rng.uniform(0.01, 0.3)) * 255).astype(np.uint8)
        elif kind == 1:
            img = np.zeros((h, w), np.uint8)
            for _ in range(int(rng.integers(1, 4))):
                p = [int(v) for v in rng.integers(0, max(h, w), 4)]
                cv2.line(img, (p[0], p[1]), (p[2], p[3]), int(rng.integers(1, 256)), 1)
        elif kind == 2:
            img = np.zeros((h, w), np.uint8)
            cv2.rectangle(img, (w // 4, h // 4), (3 * w // 4, 3 * h // 4), 255, -1)
        else:
            img = np.zeros((h, w), np.uint8)
        out.append(img)
    return out


def hough_cases(rng, n):
    cases = []
    for img in _images(rng, n):
        rho = float(rng.choice([0.5, 1.0, 2.0, 3.7]))
        theta = float(rng.choice([math.pi / 180, 0.05, 0.3]))
        thr = int(rng.integers(0, 30))
        kw = {}
        if rng.random() < 0.3:
            kw = dict(min_theta=float(rng.uniform(-0.5, 1.0)), max_theta=float(rng.uniform(1.0, 3.5)))
        cases.append(("%dx%d rho=%g theta=%.4g thr=%d %s" % (img.shape + (rho, theta, thr, kw)), (img, rho, theta, thr), kw))
    img = _images(rng, 1)[0]
    bad = [("float image", (img.astype(np.float32), 1, 0.1, 5), {}), ("rho 0", (img, 0, 0.1, 5), {}),
           ("theta negative", (img, 1, -0.1, 5), {}), ("threshold negative", (img, 1, 0.1, -3), {}),
           ("min > max", (img, 1, 0.1, 5), dict(min_theta=2.0, max_theta=1.0)),
           ("empty image", (np.zeros((0, 0), np.uint8), 1, 0.1, 5), {}), ("1-d image", (np.ones(9, np.uint8), 1, 0.1, 0), {}),
           ("129 channels", (np.ones((4, 4, 129), np.uint8), 1, 0.1, 0), {}), ("tiny rho", (img, 1e-9, 0.1, 5), {}),
           ("no lines", (np.zeros((9, 9), np.uint8), 1, 0.1, 5), {}), ("uint64 image", (img.astype(np.uint64), 1, 0.1, 5), {}),
           ("bool image", (img.astype(bool), 1, 0.1, 5), {}), ("unknown keyword", (img, 1, 0.1, 5), dict(foo=1))]
    return cases + bad


def hough_p_cases(rng, n):
    cases = []
    for img in _images(rng, n):
        # (rho at most 2: a coarser rho on these small images can put votes outside cv2's accumulator)
        rho = float(rng.choice([0.5, 1.0, 2.0]))
        theta = float(rng.choice([math.pi / 180, 0.05, 0.3]))
        thr = int(rng.integers(1, 30))
        mll, mlg = float(rng.choice([0, 3, 10])), float(rng.choice([0, 2, 5]))
        cases.append(("%dx%d rho=%g theta=%.4g thr=%d len=%g gap=%g" % (img.shape + (rho, theta, thr, mll, mlg)),
                      (img, rho, theta, thr, None, mll, mlg), {}))
    img = _images(rng, 1)[0]
    cases += [("float image", (img.astype(np.float32), 1, 0.1, 5), {}),
              ("empty image", (np.zeros((0, 0), np.uint8), 1, 0.1, 5), {}), ("negative rho", (img, -1, 0.1, 5), {}),
              ("no lines", (np.zeros((9, 9), np.uint8), 1, 0.1, 5), {}),
              ("unknown keyword", (img, 1, 0.1, 5), dict(foo=1))]
    return cases


def contours_cases(rng, n):
    cases = []
    modes = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE]
    methods = [cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]
    for i, img in enumerate(_images(rng, n, 64)):
        mode, method = modes[i % 4], methods[(i // 4) % 4]
        cases.append(("%dx%d mode=%d method=%d" % (img.shape + (mode, method)), (img, mode, method), {}))
    labels = rng.integers(0, 4, (17, 23)).astype(np.int32)
    cases += [("labels ccomp", (labels, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE), {}),
              ("labels floodfill", (labels, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_NONE), {}),
              ("float image", (labels.astype(np.float32), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE), {}),
              ("bad mode", (labels.astype(np.uint8), 17, cv2.CHAIN_APPROX_SIMPLE), {}),
              ("empty", (np.zeros((0, 0), np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE), {})]
    return cases


def radon_cases(rng, n):
    cases = []
    for i in range(n):
        h, w = int(rng.integers(1, 40)), int(rng.integers(1, 40))
        dtype = [np.uint8, np.float32, np.float64][i % 3]
        img = (rng.integers(0, 256, (h, w)) if dtype == np.uint8 else rng.random((h, w))).astype(dtype)
        theta = float(rng.choice([1.0, 2.5, 7.0]))
        start = float(rng.uniform(-90, 90))
        end = start + float(rng.uniform(1, 180))
        crop, norm = bool(rng.random() < 0.5), bool(rng.random() < 0.3)
        cases.append(("%s %dx%d theta=%g [%.3g, %.3g] crop=%s norm=%s" % (np.dtype(dtype), h, w, theta, start, end, crop, norm),
                      (img, None, theta, start, end, crop, norm), {}))
    cases += [("no angles", (np.ones((5, 5), np.uint8), None, 400.0), {}),
              ("1-d src", (np.ones(7, np.uint8),), {}), ("3 channels", (np.ones((5, 5, 3), np.uint8),), {})]
    return cases


def _families(rng, scale):
    fams = [("HoughLines", lambda m: m.HoughLines, hough_cases(rng, 40 * scale)),
            ("HoughLinesWithAccumulator", lambda m: m.HoughLinesWithAccumulator, hough_cases(rng, 40 * scale)),
            ("HoughLinesP", lambda m: m.HoughLinesP, hough_p_cases(rng, 40 * scale)),
            ("findContours", lambda m: m.findContours, contours_cases(rng, 48 * scale))]
    if hasattr(cv2, "findContoursLinkRuns"):
        fams.append(("findContoursLinkRuns", lambda m: m.findContoursLinkRuns,
                     [(d, a[:1], {}) for d, a, _ in contours_cases(rng, 16 * scale)]))
    if hasattr(cv2, "ximgproc"):
        fams.append(("ximgproc.RadonTransform", lambda m: m.ximgproc.RadonTransform, radon_cases(rng, 30 * scale)))
    return fams


def _copy_args(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


def run(scale=2, seed=0, out=sys.stdout, show=5):
    import warnings
    with warnings.catch_warnings():
        # The tally says which engine computed: no fallback warning in the middle of it.
        warnings.simplefilter("ignore", _backend.CvgpuFallbackWarning)
        warnings.simplefilter("ignore", _backend.CvgpuVersionWarning)
        return _run(scale, seed, out, show)


def _run(scale, seed, out, show):
    import cvgpu
    rng = np.random.default_rng(seed)
    status = _versions.status()
    print("cvgpu %s beside cv2 %s (%s; behaviour of OpenCV %s), backend %s" % (
        cvgpu.cvgpu_version, cv2.__version__, status, _versions.version_text(_versions.effective()),
        _backend.backend()), file=out)
    if _backend.backend() != "cuda":
        print("  no GPU (%s): this checks cvgpu's argument, error and output layers; values come from cv2"
              % _backend.fallback_reason(), file=out)
    t0 = time.perf_counter()
    total = matched = 0
    for name, get, cases in _families(rng, scale):
        bad = []
        engines = set()
        for desc, args, kw in cases:
            ref = _outcome(lambda: get(cv2)(*_copy_args(args), **kw))
            ours = _outcome(lambda: get(cvgpu)(*_copy_args(args), **kw))
            engines.add(cvgpu.last_call_backend())
            if ours != ref:
                bad.append((desc, ours, ref))
        total += len(cases)
        matched += len(cases) - len(bad)
        print("  %-26s %4d/%-4d match  (computed by %s)" % (name, len(cases) - len(bad), len(cases),
                                                         "/".join(sorted(e for e in engines if e))), file=out)
        for desc, ours, ref in bad[:show]:
            print("      differs: %s\n        cvgpu: %s\n        cv2:   %s" % (desc, _short(ours), _short(ref)), file=out)
    print("%d of %d calls match cv2 (%.1f s)" % (matched, total, time.perf_counter() - t0), file=out)
    return 0 if matched == total else 1


def main(argv=None):
    p = argparse.ArgumentParser(prog="cvgpu selftest", description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=int, default=2, help="multiply the number of generated cases (2: about 400)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--show", type=int, default=5, help="differences printed per function")
    a = p.parse_args(argv)
    return run(a.scale, a.seed, show=a.show)
