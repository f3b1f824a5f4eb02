"""cvgpu.HoughLines / HoughLinesWithAccumulator against the installed cv2.

CPU part (runs everywhere): forwarding, argument parsing and every error compared with cv2's, the
host-side plan (sizes, trig table, output formula) checked through an independent numpy voting
model against cv2, the no-GPU fallback. GPU part (``gpu``): cvgpu == cv2 bit for bit on
hypothesis-generated images and parameters.
"""
import math
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, note, settings, strategies as st

import cvgpu
from cvgpu import _kernels, _versions
from cvgpu.hough import _voting
from cvgpu.hough import TUNING, lines as hough
from conftest import HAS_GPU, examples, same
from hough_cases import (HAS_EDGEVAL, build, call, cases, drawn_lines, inputs, noise, numangle_numrho, rhos,
                         segments, thetas)


def outcome(f):
    """A result, or the (type, code, err, func) of the cv2.error it raised."""
    try:
        return ("ok", f())
    except cv2.error as e:
        return ("error", e.code, e.err, e.func)


def assert_same_outcome(ours, ref):
    assert ours[0] == ref[0], (ours, ref)
    if ours[0] == "ok":
        assert same(ours[1], ref[1]), (ours[1], ref[1])
    else:
        assert ours[1:] == ref[1:]


# ================================================================ CPU part

def test_forwarding_mirrors_cv2():
    assert cvgpu.RETR_TREE == cv2.RETR_TREE
    assert cvgpu.error is cv2.error
    assert cvgpu.__version__ == cv2.__version__
    assert cvgpu.Canny is cv2.Canny
    assert "Canny" in dir(cvgpu) and "HoughLines" in dir(cvgpu)
    assert cvgpu.HoughLines is not cv2.HoughLines
    assert isinstance(cvgpu.cuda.getCudaEnabledDeviceCount(), int)
    assert cvgpu.cuda.getCudaEnabledDeviceCount() == (cvgpu.cuda.getCudaEnabledDeviceCount() if HAS_GPU else 0)
    with pytest.raises(AttributeError):
        cvgpu.no_such_function_anywhere
    if hasattr(cv2, "ximgproc"):
        assert cvgpu.ximgproc.thinning is cv2.ximgproc.thinning


def test_backend_reports_engine():
    assert cvgpu.backend() in ("cuda", "cv2")
    assert (cvgpu.backend() == "cuda") == HAS_GPU


IMG = np.zeros((20, 30), np.uint8)
IMG[7, :] = 255
IMG[:, 11] = 3

BAD_CALLS = [
    ("float image", (IMG.astype(np.float32), 1, np.pi / 180, 5), {}),
    ("3 channels", (np.dstack([IMG] * 3), 1, np.pi / 180, 5), {}),
    ("2 channels", (np.dstack([IMG] * 2), 1, np.pi / 180, 5), {}),
    ("int16", (IMG.astype(np.int16), 1, np.pi / 180, 5), {}),
    ("bool", (IMG.astype(bool), 1, np.pi / 180, 5), {}),
    ("float64 empty", (np.zeros((0, 0)), 1, 0.1, 5), {}),
    ("complex", (IMG.astype(np.complex64), 1, 0.1, 5), {}),
    ("object", (IMG.astype(object), 1, 0.1, 5), {}),
    ("4-d", (IMG[None, :, :, None], 1, np.pi / 180, 5), {}),
    ("129 channels", (np.ones((4, 4, 129), np.uint8), 1, 0.1, 0), {}),
    ("scalar image", (5, 1, 0.1, 5), {}),
    ("tuple image", ((1, 2, 3), 1, 0.1, 5), {}),
    ("bytes image", (b"abc", 1, 0.1, 5), {}),
    ("list image", ([[0, 1], [1, 0]], 1, 0.1, 5), {}),
    ("rho 0", (IMG, 0, np.pi / 180, 5), {}),
    ("rho negative", (IMG, -1, np.pi / 180, 5), {}),
    ("rho nan", (IMG, float("nan"), 0.1, 5), {}),
    ("rho tiny", (IMG, 1e-9, 0.1, 5), {}),
    ("rho None", (IMG, None, 0.1, 5), {}),
    ("theta 0", (IMG, 1, 0, 5), {}),
    ("theta negative", (IMG, 1, -0.1, 5), {}),
    ("theta nan", (IMG, 1, float("nan"), 5), {}),
    ("min > max", (IMG, 1, np.pi / 180, 5), dict(min_theta=1.0, max_theta=0.5)),
    ("min nan", (IMG, 1, np.pi / 180, 5), dict(min_theta=float("nan"))),
    ("min > max empty", (np.zeros((0, 0), np.uint8), 1, 0.1, 5), dict(min_theta=2, max_theta=1)),
    ("None image rho 0", (None, 0, 0.1, 5), {}),
    ("threshold float", (IMG, 1, 0.1, 5.5), {}),
    ("threshold str", (IMG, 1, 0.1, "5"), {}),
    ("threshold bool", (IMG, 1, 0.1, True), {}),
    ("threshold too big", (IMG, 1, 0.1, 2**31), {}),
    ("rho str", (IMG, "a", 0.1, 5), {}),
    ("rho bool", (IMG, True, 0.1, 5), {}),
    ("rho array", (IMG, np.array([1.0]), 0.1, 5), {}),
    ("missing threshold", (IMG, 1, 0.1), {}),
    ("no arguments", (), {}),
    ("unknown keyword", (IMG, 1, 0.1, 5), dict(foo=1)),
    ("name and position", (IMG, 1, 0.1, 5), dict(rho=2)),
    ("too many", (IMG, 1, 0.1, 5, None, 0, 0, 0, 3, False, 5, 6), {}),
]
if HAS_EDGEVAL:
    BAD_CALLS.append(("use_edgeval float", (IMG, 1, 0.1, 5), dict(use_edgeval=1.0)))


@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
@pytest.mark.parametrize("label,args,kwargs", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_errors_match_cv2(fn, label, args, kwargs):
    ref = outcome(lambda: getattr(cv2, fn)(*args, **kwargs))
    ours = outcome(lambda: getattr(cvgpu, fn)(*args, **kwargs))
    assert_same_outcome(ours, ref)


ODD_CALLS = [
    ("1-d image", (np.ones(7, np.uint8), 1, 0.1, 0), {}),
    ("0-d image", (np.array(1, np.uint8), 1, 0.1, 0), {}),
    ("h x w x 1", (IMG[:, :, None], 1, np.pi / 180, 5), {}),
    ("empty 0x0", (np.zeros((0, 0), np.uint8), 1, 0.1, 0), {}),
    ("empty 0x5", (np.zeros((0, 5), np.uint8), 1, 0.1, 0), {}),
    ("None image", (None, 1, 0.1, 0), {}),
    ("theta inf", (IMG, 1, float("inf"), 0), {}),
    ("rho inf", (IMG, float("inf"), 0.1, 0), {}),
    ("rho huge", (IMG, 1e6, 0.1, 0), {}),
    ("theta huge", (IMG, 1, 10.0, 0), {}),
    ("threshold None", (IMG, 1, 0.1, None), {}),
    ("optional None keeps default", (IMG, 1, np.pi / 180, 5), dict(max_theta=None, min_theta=None, srn=None)),
    ("threshold numpy", (IMG, 1, 0.1, np.int64(3)), {}),
    ("negative threshold", (IMG, 1, 0.1, -5), {}),
    ("keywords", (), dict(image=IMG, rho=1, theta=np.pi / 180, threshold=5)),
    ("non-contiguous", (IMG[::2, ::3], 1, 0.1, 1), {}),
    ("negative strides", (IMG[::-1, ::-1], 1, 0.1, 1), {}),
    ("multi-scale", (IMG, 1, np.pi / 180, 5), dict(srn=2, stn=2)),
    ("multi-scale float srn", (IMG, 1, np.pi / 180, 5), dict(srn=0.5)),
]


@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
@pytest.mark.parametrize("label,args,kwargs", ODD_CALLS, ids=[c[0] for c in ODD_CALLS])
def test_unusual_but_valid_calls_match_cv2(fn, label, args, kwargs):
    ref = outcome(lambda: getattr(cv2, fn)(*args, **kwargs))
    ours = outcome(lambda: getattr(cvgpu, fn)(*args, **kwargs))
    assert_same_outcome(ours, ref)


def test_lines_argument_is_filled_like_cv2():
    out = np.zeros((2, 1, 2), np.float32)
    ref = cv2.HoughLines(IMG, 1, np.pi / 180, 5)
    got = cvgpu.HoughLines(IMG, 1, np.pi / 180, 5, np.zeros(ref.shape, np.float32))
    assert same(got, ref)
    exact = np.zeros(ref.shape, np.float32)
    assert cvgpu.HoughLines(IMG, 1, np.pi / 180, 5, exact) is exact
    assert cvgpu.HoughLines(IMG, 1, np.pi / 180, 5, out) is not out


def test_caller_array_is_not_modified():
    img = IMG.copy()
    img.setflags(write=False)
    cvgpu.HoughLines(img, 1, np.pi / 180, 5)
    assert np.array_equal(img, IMG)


# -- the host-side plan (sizes, trig table, output formula) through an independent voting model

def _no_lines(with_votes, empty_image):
    """cv2's answer without a line: None, or from 5.1 (binding.empty_output) an empty float32 array,
    (0, 1, 2) or (0, 3); an empty image gives HoughLines None still."""
    if _versions.behaviour("binding.empty_output") == "none" or (empty_image and not with_votes):
        return None
    if with_votes:
        return np.zeros((0, 1, 3) if _versions.behaviour("hough.accumulator_shape") == "n13" else (0, 3), np.float32)
    return np.zeros((0, 1, 2), np.float32)


def reference_model(img, rho, theta, threshold, min_theta=0.0, max_theta=math.pi, use_edgeval=False,
                    with_votes=False, rho_mode=None):
    """A numpy transcription of cv2's standard transform, fed by cvgpu's host-side plan; ``rho_mode``
    the output formula (cvgpu.hough.lines.RHO_MODE: the installed cv2's)."""
    rho_mode = hough.RHO_MODE if rho_mode is None else rho_mode
    h, w = img.shape
    rho32, theta32 = np.float32(rho), np.float32(theta)
    numangle, numrho = hough.accumulator_size(h, w, rho32, theta32, min_theta, max_theta)
    if numangle <= 0 or numrho <= 0 or h * w == 0:
        return _no_lines(with_votes, h * w == 0)
    tab_cos, tab_sin = hough.trig_table(numangle, rho32, theta32, min_theta)
    ys, xs = np.nonzero(img)
    weight = img[ys, xs].astype(np.int64) if use_edgeval else np.ones(len(xs), np.int64)
    acc = np.zeros((numangle + 2) * (numrho + 2), np.int64)
    for n in range(numangle):
        # float32 products and sum, no fused multiply-add; np.rint is round-half-even.
        r = np.rint(xs.astype(np.float32) * tab_cos[n] + ys.astype(np.float32) * tab_sin[n]).astype(np.int64)
        np.add.at(acc, (n + 1) * (numrho + 2) + r + (numrho - 1) // 2 + 1, weight)
    acc = acc.astype(np.int32).reshape(numangle + 2, numrho + 2)
    a = acc[1:-1, 1:-1]
    is_max = ((a > threshold) & (a > acc[1:-1, :-2]) & (a >= acc[1:-1, 2:]) & (a > acc[:-2, 1:-1])
              & (a >= acc[2:, 1:-1]))
    n_idx, r_idx = np.nonzero(is_max)
    votes = a[n_idx, r_idx]
    order = np.lexsort((r_idx, n_idx, -votes.astype(np.int64)))
    n_idx, r_idx, votes = n_idx[order], r_idx[order], votes[order]
    if len(votes) == 0:
        return _no_lines(with_votes, False)
    if rho_mode == 0:
        rho_out = (r_idx - (numrho - 1) // 2).astype(np.float32) * rho32
    else:
        rho_out = (r_idx.astype(np.float32) - np.float32(numrho - 1) * np.float32(0.5)) * rho32
    theta_out = np.float32(min_theta) + n_idx.astype(np.float32) * theta32
    cols = [rho_out, theta_out] + ([votes.astype(np.float32)] if with_votes else [])
    lines = np.stack(cols, 1).astype(np.float32)
    if with_votes:
        return lines.reshape(-1, 1, 3) if hough.ACCUMULATOR_3D else lines
    return lines.reshape(-1, 1, 2)


@settings(max_examples=300)  # a CPU check of the plan; the GPU properties carry the 10,000 runs
@given(cases(families=("noise", "lines", "shapes", "segments", "empty"), max_side=96))
def test_host_plan_reproduces_cv2(c):
    """cvgpu's numangle/numrho, trig table, ordering and output formula, checked on the CPU."""
    img, c = build(c)
    # (4.11's HoughLinesWithAccumulator has no use_edgeval: the plain vote there)
    c["use_edgeval"] = c["use_edgeval"] and "HoughLinesWithAccumulator" in hough.EDGEVAL_FUNCTIONS
    note(str(c))
    ref = call(cv2, "HoughLinesWithAccumulator", img, c)
    ours = reference_model(img, c["rho"], c["theta"], c["threshold"], c["min_theta"], c["max_theta"],
                           c["use_edgeval"], with_votes=True)
    assert same(ours, ref)


def every_bin(h, w, rho, theta, min_theta, max_theta):
    """(numrho, per-row lowest and highest accumulator column of every pixel's vote): the voting
    arithmetic of reference_model over all h x w pixels; None without a cell."""
    rho32, theta32 = np.float32(rho), np.float32(theta)
    numangle, numrho = hough.accumulator_size(h, w, rho32, theta32, min_theta, max_theta)
    if numangle <= 0 or numrho <= 0 or h * w == 0:
        return None
    tab_cos, tab_sin = hough.trig_table(numangle, rho32, theta32, min_theta)
    ys, xs = np.divmod(np.arange(h * w), w)
    with np.errstate(all="ignore"):
        v = xs.astype(np.float32)[None, :] * tab_cos[:, None] + ys.astype(np.float32)[None, :] * tab_sin[:, None]
    finite = bool(np.all(np.abs(v) < np.float32(1 << 30)))
    cols = np.rint(np.where(np.isfinite(v), v, 0)).astype(np.int64) + (numrho - 1) // 2 + 1
    return numangle, numrho, tab_cos, tab_sin, finite, cols.min(axis=1), cols.max(axis=1)


# Large rho against small images: few columns, votes that leave their row (cv2 writes them into a
# neighbour row's cells), the case where HoughLines scans and zeroes its whole accumulator.
@st.composite
def spilling(draw):
    """(h, w, rho, theta, min_theta) with rho giving the image about 2 to 5 accumulator columns
    (with 2, a wide image's votes near theta = pi fall left of its row)."""
    h, w = draw(st.integers(1, 40)), draw(st.integers(1, 40))
    rho = (2 * (h + w) + 1) / draw(st.sampled_from([1.6, 2.0, 2.2, 2.45, 3.0, 5.0]))
    theta = draw(st.sampled_from([math.pi / 180, math.pi / 7, 0.3, 1.0]))
    return h, w, rho, theta, draw(st.sampled_from([0.0, 0.5, 1.5]))


@settings(max_examples=400)
@given(st.one_of(spilling(), st.tuples(st.integers(1, 64), st.integers(1, 64), rhos, thetas, st.just(0.0))))
def test_rows_inside_is_every_pixels_vote(args):
    """hough.rows_inside (the host's choice of the windowed maxima scan, from the image's corners)
    says exactly whether every pixel's vote of every row lands in the row's interior columns."""
    h, w, rho, theta, min_theta = args
    got = every_bin(h, w, rho, theta, min_theta, math.pi)
    assume(got is not None)
    numangle, numrho, tab_cos, tab_sin, finite, lo, hi = got
    note("numrho %d, columns %d..%d" % (numrho, lo.min(), hi.max()))
    expected = finite and int(lo.min()) >= 1 and int(hi.max()) <= numrho
    assert hough.rows_inside(tab_cos, tab_sin, h, w, numrho) == expected


def test_numangle_drops_the_angle_at_pi():
    rho32, theta32 = np.float32(1), np.float32(math.pi / 180)
    # From 4.7 (#22164): cvFloor + 1, less the angle at pi.
    assert hough.accumulator_size(10, 10, rho32, theta32, 0.0, math.pi, "floor_drop_pi") == (180, 41)
    assert hough.accumulator_size(10, 10, rho32, theta32, 0.0, math.pi / 2, "floor_drop_pi")[0] == 91
    # Before: cvRound of the range over theta.
    assert hough.accumulator_size(10, 10, rho32, theta32, 0.0, math.pi / 2, "round")[0] == 90


def test_version_switch_matches_the_running_cv2():
    """Both behaviours exist; the one in force is the one the installed cv2 shows."""
    img = np.zeros((30, 51), np.uint8)  # 2*(30+51)+1 = 163 bins at rho 1.5 -> 109, odd; at 1 -> 163
    img[7, :] = 1
    img[:, 9] = 1
    ref = cv2.HoughLines(img, 2.0, np.pi / 180, 5)  # numrho = round(163/2) = 82, even: modes differ
    for mode in (0, 1):
        model = reference_model(img, 2.0, np.pi / 180, 5, rho_mode=mode)
        assert same(model, ref) == (mode == hough.RHO_MODE)
    acc = cv2.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5)
    assert (acc.ndim == 3) == hough.ACCUMULATOR_3D


def test_no_gpu_fallback_warns_once_and_says_cv2():
    script = textwrap.dedent("""
        import warnings, numpy as np, cv2, cvgpu
        img = np.zeros((20, 30), np.uint8); img[7, :] = 255
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            a = cvgpu.HoughLines(img, 1, np.pi / 180, 5)
            b = cvgpu.HoughLines(img, 1, np.pi / 180, 5)
        kinds = [w.category.__name__ for w in caught]
        assert kinds == ["CvgpuFallbackWarning"], kinds
        assert cvgpu.backend() == "cv2" and cvgpu.last_call_backend() == "cv2"
        assert np.array_equal(a, cv2.HoughLines(img, 1, np.pi / 180, 5)) and np.array_equal(a, b)
        print("fallback-ok")
    """)
    env = dict(os.environ, CVGPU_BACKEND="cv2")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    assert "fallback-ok" in out.stdout, out.stderr


def test_opencv_outside_the_validated_releases_is_warned_of_and_not_pinned():
    """Beside a cv2 newer (or older) than the validated releases (cvgpu/_versions.py) cvgpu still
    computes, with the nearest validated release's behaviour, and warns once at import
    (CvgpuVersionWarning) pointing at 'python -m cvgpu selftest'; pyproject.toml has no upper pin."""
    from cvgpu import _backend, _versions
    newest = _versions.VALIDATED[-1]
    assert _backend.opencv_version_problem(cv2.__version__) is None  # what these tests run beside
    for ok in ("5.0.0", "4.12.0", "4.5.5", "%d.%d.7" % newest[:2]):
        assert _backend.opencv_version_problem(ok) is None
    newer = "%d.%d.0" % (newest[0], newest[1] + 1)
    for version in (newer, "6.0.0-pre"):
        text = _backend.opencv_version_problem(version)
        assert "newer" in text and "selftest" in text and _versions.version_text(newest) in text
    assert "older" in _backend.opencv_version_problem("4.4.0")
    script = textwrap.dedent("""
        import warnings, cv2
        cv2.__version__ = %r
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            import cvgpu
        kinds = [w.category.__name__ for w in caught]
        assert kinds == ["CvgpuVersionWarning"], kinds
        print("version-warning-ok")
    """ % newer)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert "version-warning-ok" in out.stdout, out.stderr
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text()
    assert '"opencv-contrib-python"' in pyproject and "opencv-contrib-python<" not in pyproject


# ================================================================ GPU part

def check_case(compat, img, c, variant):
    """Both functions on one case, cvgpu against cv2 (a compat row each). A call with nothing to vote
    for (no cell: an empty image or accumulator) does no pixel work and says so ("none")."""
    numangle, numrho = numangle_numrho(img.shape[0], img.shape[1], c["rho"], c["theta"], c["min_theta"],
                                       c["max_theta"])
    work = img.size > 0 and numangle > 0 and numrho > 0
    for fn in ("HoughLines", "HoughLinesWithAccumulator"):
        ref = call(cv2, fn, img, c)
        ours = call(cvgpu, fn, img, c)
        assert cvgpu.last_call_backend() == ("cuda" if work else "none")
        compat.check(fn, variant, ours, ref, inputs=inputs(img, c))


# Device-profile examples per property, set so that each compat row has at least 10,000 cases whose
# cv2 answer is lines, with a margin (the shares measured by tests/dry_run_cases.py without a GPU:
# 80-95 % non-empty, 30-55 % above 256 px): the "standard" row gathers the first four properties,
# 14,000 cases of which about 12,000 non-empty.
@pytest.mark.gpu
@settings(max_examples=examples(1_500))
@given(cases(families=("noise", "empty", "full")))
def test_gpu_noise_and_extremes(compat, c):
    img, c = build(c)
    note(str(c))
    check_case(compat, img, c, "standard")


@pytest.mark.gpu
@settings(max_examples=examples(5_000))
@given(cases(families=("lines", "shapes")))
def test_gpu_drawn_lines_and_shapes(compat, c):
    img, c = build(c)
    note(str(c))
    check_case(compat, img, c, "standard")


@pytest.mark.gpu
@settings(max_examples=examples(6_500))
@given(cases(families=("photo", "photo", "segments")))
def test_gpu_photo_edges_and_segments(compat, c):
    img, c = build(c)
    note(str(c))
    check_case(compat, img, c, "standard")


@pytest.mark.gpu
@settings(max_examples=examples(1_000))
@given(cases(max_side=16))
def test_gpu_tiny_images(compat, c):
    img, c = build(c)
    note(str(c))
    check_case(compat, img, c, "standard")


@pytest.mark.gpu
@pytest.mark.skipif(not HAS_EDGEVAL, reason="this cv2 has no use_edgeval")
@settings(max_examples=examples(13_500))
@given(cases(families=("photo", "photo", "lines", "shapes", "segments", "noise", "full")))
def test_gpu_use_edgeval(compat, c):
    img, c = build(dict(c, use_edgeval=True))
    note(str(c))
    check_case(compat, img, c, "use_edgeval")


@pytest.mark.gpu
@pytest.mark.parametrize("h,w", [(2048, 2048), (1024, 2048), (2048, 1000), (4096, 4096), (1, 4096),
                                 (4096, 1)])
def test_gpu_large_images(compat, h, w):
    img = segments(h, w, min(h * w // 8, 82_000))
    c = dict(rho=1.0, theta=math.pi / 180, threshold=100, min_theta=0.0, max_theta=math.pi, use_edgeval=False)
    check_case(compat, img, c, "standard")


@pytest.mark.gpu
@pytest.mark.parametrize("shape,rho", [((0, 0), 1.0), ((0, 7), 1.0), ((5, 0), 2.0), ((20, 30), 1e6)],
                         ids=["0x0", "0x7", "5x0", "no rho cell"])
def test_gpu_calls_without_pixel_work_say_none(compat, shape, rho):
    """An empty image, or an accumulator without a cell to vote in: cv2 finds nothing and cvgpu returns
    before any pixel work, and says so (last_call_backend() "none"; the matrix does not count these
    as GPU results)."""
    img = np.full(shape, 255, np.uint8)
    c = dict(rho=rho, theta=math.pi / 180, threshold=0, min_theta=0.0, max_theta=math.pi, use_edgeval=False)
    check_case(compat, img, c, "standard")


@pytest.mark.gpu
def test_gpu_more_lines_than_one_block_sorts(compat):
    """Threshold -1 (0 from 5.1, which refuses negative thresholds) on noise yields tens of thousands
    of maxima: the CuPy sort path."""
    img = noise(np.random.default_rng(3), 300, 400, 0.05)
    c = dict(rho=1.0, theta=math.pi / 180, threshold=0 if _versions.behaviour("hough.arg_checks") == "hough_lines" else -1, min_theta=0.0, max_theta=math.pi, use_edgeval=False)
    ref = call(cv2, "HoughLines", img, c)
    assert ref.shape[0] > hough.SORT_CAPACITY
    before = TUNING.paths()
    check_case(compat, img, c, "standard")
    assert TUNING.paths()["lines.sort-host"] == before["lines.sort-host"] + 2  # both functions


def _threshold_for_lines(img, c, lo, hi):
    """The lowest threshold at which cv2 finds at most ``hi`` lines, if it finds more than ``lo``."""
    def count(t):
        r = call(cv2, "HoughLines", img, dict(c, threshold=t))
        return 0 if r is None else len(r)

    a, b = 0, 1 << 12   # the count falls as the threshold rises
    while a < b:
        t = (a + b) // 2
        if count(t) > hi:
            a = t + 1
        else:
            b = t
    return a if count(a) > lo else None


@pytest.mark.gpu
@pytest.mark.parametrize("h,w,density,lines", [(300, 400, 0.05, 1100), (300, 400, 0.05, 4000), (480, 640, 0.1, 8192),
                                               (600, 800, 0.02, 2500), (1080, 1920, 0.01, 6000)])
def test_gpu_many_lines_ranked_in_one_block(compat, h, w, density, lines):
    """1024 < lines <= 8192 (SORT_CAPACITY): the windowed maxima's last block orders them by sampled
    buckets (kernels/hough/lines.cu, lines_sampled_rank), not one thread a line. On noise most
    lines share a few vote counts near the threshold: the crowding that evenly split buckets
    would leave in one bucket. Numpy and device input, both functions, equal to cv2."""
    cp = pytest.importorskip("cupy")
    img = noise(np.random.default_rng(h + lines), h, w, density)
    c = dict(rho=1.0, theta=math.pi / 180, threshold=0, min_theta=0.0, max_theta=math.pi, use_edgeval=False)
    t = _threshold_for_lines(img, c, 1024, lines)
    assert t is not None
    c["threshold"] = t
    ref = call(cv2, "HoughLines", img, c)
    assert 1024 < ref.shape[0] <= hough.SORT_CAPACITY
    votes = call(cv2, "HoughLinesWithAccumulator", img, c).reshape(-1, 3)[:, 2]
    assert np.bincount(votes.astype(np.int64)).max() > ref.shape[0] // 64  # crowded vote counts
    before = TUNING.paths()
    with TUNING.override(lines_windowed=True):  # (the default; an override starts without plans)
        check_case(compat, img, c, "standard")
        d = cp.asarray(img)
        for fn in ("HoughLines", "HoughLinesWithAccumulator"):
            ours = call(cvgpu, fn, d, c)
            assert isinstance(ours, cp.ndarray)
            assert same(ours.get(), call(cv2, fn, img, c))
    assert TUNING.paths()["lines.maxima-windowed"] >= before["lines.maxima-windowed"] + 1


VOTE_FAMILIES = ("noise", "lines", "segments", "photo")


def _forced_vote(compat, c, variant, path, **force):
    """HoughLinesWithAccumulator with a voting path forced through TUNING: cv2's answer, and the
    forced path decided (counted once: an override starts without plans)."""
    img, c = build(c)
    note(str(c))
    numangle, numrho = numangle_numrho(c["h"], c["w"], c["rho"], c["theta"], c["min_theta"], c["max_theta"])
    # (A 1 x 1 image with rho 10 has numrho cvRound(0.5) = 0: nothing to vote.)
    assume(numangle > 0 and numrho > 0 and img.size > 0)
    if force.get("vote") == "shared":
        # A forced shared-memory block must fit the device's shared memory (the auto rule never
        # chooses one that does not): K angles x the window's columns x 4 bytes.
        k = force["vote_grid"][0] if "vote_grid" in force else 1
        rho32, theta32 = np.float32(c["rho"]), np.float32(c["theta"])
        tab_cos, tab_sin = hough.trig_table(numangle, rho32, theta32, c["min_theta"])
        window = _voting.vote_window(tab_cos, tab_sin, c["h"], c["w"], k, numrho + 2)
        assume(k * window * 4 <= _kernels.device_properties()[1] - 4096)
    ref = call(cv2, "HoughLinesWithAccumulator", img, c)
    before = TUNING.paths()
    with TUNING.override(**force):
        ours = call(cvgpu, "HoughLinesWithAccumulator", img, c)
    assert cvgpu.last_call_backend() == "cuda"
    assert TUNING.paths()[path] == before[path] + 1
    compat.check("HoughLinesWithAccumulator", variant, ours, ref, inputs=inputs(img, c))


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["shared", "global"])
@settings(max_examples=examples(14_000))
@given(c=cases(families=VOTE_FAMILIES, max_side=1024))
def test_gpu_both_voting_variants(compat, variant, c):
    _forced_vote(compat, c, "vote-" + variant, "lines.vote-" + variant, vote=variant)


@pytest.mark.gpu
@pytest.mark.parametrize("grid", [(1, 1), (1, 7), (2, 3), (4, 1), (4, 16)])
@settings(max_examples=examples(2_800))  # five grids: one "vote-grid" row of 14,000 cases
@given(c=cases(families=VOTE_FAMILIES, max_side=1024))
def test_gpu_forced_voting_grids(compat, grid, c):
    """Every shared-memory voting kernel (1, 2 and 4 angles per block) with few and many point
    slices, forced through TUNING.vote_grid: the grid never changes a vote."""
    _forced_vote(compat, c, "vote-grid", "lines.vote-grid", vote="shared", vote_grid=grid)


@pytest.mark.gpu
def test_gpu_device_input_stays_on_device(compat):
    import cupy as cp
    img = drawn_lines(np.random.default_rng(5), 300, 500, 6)
    ref = cv2.HoughLines(img, 1, np.pi / 180, 40)
    d_img = cp.asarray(img)
    before = d_img.copy()
    ours = cvgpu.HoughLines(d_img, 1, np.pi / 180, 40)
    assert isinstance(ours, cp.ndarray)
    assert bool((d_img == before).all())
    args = (img, 1, np.pi / 180, 40)
    compat.check("HoughLines", "device-input", ours, ref, inputs=args)
    # Strided device views and objects exposing only __cuda_array_interface__ / DLPack.
    big = cp.zeros((600, 1000), cp.uint8)
    big[::2, ::2] = d_img
    compat.check("HoughLines", "device-input", cvgpu.HoughLines(big[::2, ::2], 1, np.pi / 180, 40), ref,
                 inputs=args + ("strided view",))

    class OnlyInterface:
        def __init__(self, a):
            self.__cuda_array_interface__ = a.__cuda_array_interface__

    compat.check("HoughLines", "device-input", cvgpu.HoughLines(OnlyInterface(d_img), 1, np.pi / 180, 40), ref,
                 inputs=args + ("__cuda_array_interface__ only",))


@pytest.mark.gpu
def test_gpu_host_input_variants(compat):
    img = drawn_lines(np.random.default_rng(7), 257, 333, 5)
    ref = cv2.HoughLines(img, 1, np.pi / 180, 30)
    ro = img.copy()
    ro.setflags(write=False)
    args = (img, 1, np.pi / 180, 30)
    compat.check("HoughLines", "host-input", cvgpu.HoughLines(ro, 1, np.pi / 180, 30), ref,
                 inputs=args + ("read-only",))
    f = np.asfortranarray(img)
    compat.check("HoughLines", "host-input", cvgpu.HoughLines(f, 1, np.pi / 180, 30),
                 cv2.HoughLines(f, 1, np.pi / 180, 30), inputs=args + ("fortran",))
    strided = np.zeros((514, 666), np.uint8)
    strided[::2, ::2] = img
    compat.check("HoughLines", "host-input", cvgpu.HoughLines(strided[::2, ::2], 1, np.pi / 180, 30), ref,
                 inputs=args + ("strided",))


@pytest.mark.gpu
@pytest.mark.parametrize("h,w", [(512, 512), (1024, 1024), (301, 517)])
def test_gpu_graph_replays_on_changing_images(compat, h, w):
    """From a plan's second call on, its kernels replay as one captured CUDA graph in which each
    kernel launches as a programmatic dependent of the one before (kernels/graphs.cuh). Each
    replay must give cv2's lines for its own image and threshold: consecutive images differ in
    family and density, so a kernel that read anything left by the call before would show it."""
    import cupy as cp
    rng = np.random.default_rng(h * 7919 + w)
    for i in range(40):
        kind = i % 4
        if kind == 0:
            img = segments(h, w, int(rng.integers(1, h * w // 6)))
        elif kind == 1:
            img = noise(rng, h, w, float(rng.uniform(0.001, 0.2)))
        elif kind == 2:
            img = drawn_lines(rng, h, w, int(rng.integers(1, 12)))
        else:
            img = np.zeros((h, w), np.uint8)
        threshold = int(rng.integers(20, 400))
        for fn in ("HoughLines", "HoughLinesWithAccumulator"):
            ref = getattr(cv2, fn)(img, 1, np.pi / 180, threshold)
            for src in (cp.asarray(img), img):
                ours = getattr(cvgpu, fn)(src, 1, np.pi / 180, threshold)
                assert cvgpu.last_call_backend() == "cuda"
                compat.check(fn, "graph-replay", ours, ref,
                             inputs=(img, 1, np.pi / 180, threshold, "device" if src is not img else "host"))


@pytest.mark.gpu
@settings(max_examples=examples(1_000))
@given(st.one_of(spilling(), st.tuples(st.integers(1, 96), st.integers(1, 96), rhos, thetas, st.just(0.0))))
def test_gpu_row_bounds_hold_every_vote(args):
    """hough_row_bounds (kernels/hough/lines.cu) against every pixel's vote: where every vote stays
    in its row, each row's window is exactly its votes' lowest and highest column and bounds[0]
    the widest; otherwise the flag that makes HoughLines scan and zero the whole accumulator."""
    import cupy as cp
    h, w, rho, theta, min_theta = args
    got = every_bin(h, w, rho, theta, min_theta, math.pi)
    assume(got is not None)
    numangle, numrho, tab_cos, tab_sin, finite, lo, hi = got
    bounds = cp.zeros(2 + 2 * numangle, dtype=cp.int32)
    _kernels.get_function(hough.FAMILY, "hough_row_bounds")(
        ((numangle + 127) // 128,), (128,), (cp.asarray(tab_cos), cp.asarray(tab_sin), np.int32(numangle),
                                             np.int32(numrho), np.int64(h), np.int64(w), bounds))
    b = bounds.get()
    inside = finite and int(lo.min()) >= 1 and int(hi.max()) <= numrho
    assert b[1 + 2 * numangle] == (0 if inside else 1)
    if inside:
        assert np.array_equal(b[1:1 + 2 * numangle:2], lo) and np.array_equal(b[2:2 + 2 * numangle:2], hi)
        assert b[0] == int((hi - lo).max()) + 1


@pytest.mark.gpu
@pytest.mark.parametrize("windowed", [True, False])
def test_gpu_accumulator_is_zero_after_every_call(compat, windowed):
    """Every plan's last kernel (hough_zero_after) leaves the workspace's accumulator all zeros,
    whatever plan comes next: plans of other sizes over the same buffer, windowed scans and the
    whole-accumulator ones (votes that leave their row), use_edgeval, a larger plan that makes a new
    buffer, and calls that change streams (a call on another stream waits for the last one's
    zeroing). Each call equals cv2's; the accumulator is checked after each."""
    import cupy as cp
    rng = np.random.default_rng(2024 + windowed)
    streams = [cp.cuda.Stream(non_blocking=True), cp.cuda.Stream(non_blocking=True), cp.cuda.Stream.null]
    shapes = [(120, 97, 1.0), (33, 41, 60.0), (301, 517, 1.0), (64, 64, 2.0), (7, 9, 4.0), (700, 900, 1.0)]
    with TUNING.override(lines_windowed=windowed):
        before = TUNING.paths()
        for i in range(36):
            h, w, rho = shapes[i % len(shapes)]
            img = noise(rng, h, w, float(rng.uniform(0.01, 0.3))) if i % 3 else drawn_lines(rng, h, w, 4)
            edgeval = bool(i % 2) and HAS_EDGEVAL
            if edgeval:
                img = img // 255 * rng.integers(1, 256, img.shape).astype(np.uint8)
            threshold = int(rng.integers(1, 40))
            c = dict(rho=rho, theta=np.pi / 180, threshold=threshold, min_theta=0.0, max_theta=np.pi,
                     use_edgeval=edgeval)
            with streams[(i // 2) % 3]:
                src = cp.asarray(img) if i % 4 == 1 else img
                ours = call(cvgpu, "HoughLinesWithAccumulator", src, c)
                assert cvgpu.last_call_backend() == "cuda"
                compat.check("HoughLinesWithAccumulator", "graph-replay", ours,
                             call(cv2, "HoughLinesWithAccumulator", img, c), inputs=inputs(img, c))
                cp.cuda.get_current_stream().synchronize()
            accum = hough._workspace(cp).arrays[("accum", np.int32)]
            assert int(cp.count_nonzero(accum)) == 0, (i, h, w, rho)
        paths = TUNING.paths()
    windowed_plans = paths["lines.maxima-windowed"] - before["lines.maxima-windowed"]
    plain_plans = paths["lines.maxima-plain"] - before["lines.maxima-plain"]
    assert plain_plans > 0 and (windowed_plans > 0) == windowed


@pytest.mark.gpu
def test_gpu_repeated_calls_on_one_device_array(compat):
    """A device array called twice in a row becomes hot (cvgpu.hough.lines._Hot): its repeats skip
    the fast path's checks, and while the workspace's device call words still hold its pointer,
    step and load width, the lean graph replays (no load node; its first kernel brings the
    threshold and output pointer). Every step below is checked against cv2 on the array's current
    contents: in-place writes, thresholds that change every call, another array, the accumulator
    variant on the same array, an in-place reshape, another stream, other parameters and another
    thread. The paths are counted where they are decided (TUNING.paths(); a replay itself counts
    nothing): 5 direct launches, 3 captured graphs, 3 arrays made hot and 3 lean graphs captured,
    so the test fails if either the hot or the lean path is never reached. (Of the 19 calls, 10 are
    hot repeats and 10 replay a lean graph.)"""
    import cupy as cp
    rng = np.random.default_rng(347)
    h, w = 347, 461

    def image():
        kind = int(rng.integers(3))
        if kind == 0:
            return drawn_lines(rng, h, w, int(rng.integers(2, 10)))
        return noise(rng, h, w, float(rng.uniform(0.01, 0.1))) if kind == 1 else segments(h, w, 20000)

    a, b = cp.asarray(image()), cp.asarray(image())

    def call(fn, arr, rho=1, threshold=None):
        threshold = int(rng.integers(10, 120)) if threshold is None else threshold
        ours = getattr(cvgpu, fn)(arr, rho, np.pi / 180, threshold)
        assert cvgpu.last_call_backend() == "cuda"
        host = arr.get()
        compat.check(fn, "graph-replay", ours, getattr(cv2, fn)(host, rho, np.pi / 180, threshold),
                     inputs=(host, rho, np.pi / 180, threshold, "hot device array"))

    with TUNING.override():  # (no values: a start without plans or hot arrays of earlier tests)
        before = TUNING.paths()
        call("HoughLines", a)                       # direct launch of a new plan
        call("HoughLines", a)                       # graph captured, full graph; a becomes hot
        call("HoughLines", a)                       # hot, lean graph captured
        a.set(image())
        call("HoughLines", a)                       # hot, lean, new contents
        call("HoughLines", b)                       # another array: full graph
        call("HoughLines", a)                       # hot, full graph: the words are b's
        call("HoughLines", a)                       # hot, lean
        call("HoughLinesWithAccumulator", a)        # its own plan: direct launch
        call("HoughLinesWithAccumulator", a)        # graph captured; the words are a's: lean; hot
        call("HoughLines", a)                       # hot, lean
        call("HoughLinesWithAccumulator", a)        # hot, lean
        a.shape = (w, h)                            # in place: the same memory read with another step
        call("HoughLines", a)                       # not hot (shape): a new plan, direct launch
        call("HoughLines", a)                       # graph captured, full graph; hot again
        a.set(np.ascontiguousarray(image().reshape(w, h)))
        call("HoughLines", a, threshold=0)          # hot, lean graph captured
        with cp.cuda.Stream(non_blocking=True):
            call("HoughLines", a)                   # another stream: hot, lean
        call("HoughLines", a, rho=2)                # other parameters: direct launch of a new plan
        call("HoughLines", a)                       # hot, lean
        _in_another_thread(lambda: call("HoughLines", a))   # its own workspace: direct launch
        call("HoughLines", a)                       # hot, lean
        after = TUNING.paths()
    ran = {path: after[path] - before[path] for path in ("lines.direct", "lines.graph", "lines.hot", "lines.lean-graph")}
    assert ran == {"lines.direct": 5, "lines.graph": 3, "lines.hot": 3, "lines.lean-graph": 3}, ran


def _in_another_thread(fn):
    """fn() on a new thread, its exception raised here."""
    errors = []

    def run():
        try:
            fn()
        except BaseException as exc:  # (reported in the calling thread)
            errors.append(exc)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert not errors, errors


def _host_images(rng, h, w, n):
    out = []
    for i in range(n):
        kind = i % 3
        if kind == 0:
            out.append(drawn_lines(rng, h, w, int(rng.integers(2, 12))))
        else:
            # (segments() places points until there are this many: at most a third of the pixels)
            out.append(noise(rng, h, w, float(rng.uniform(0.01, 0.1))) if kind == 1
                       else segments(h, w, min(20000, h * w // 3)))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("way", ["bits", "bytes", "python"])
def test_gpu_host_images_replayed(compat, monkeypatch, way):
    """Host (numpy) images after a plan's graph exists: with cvgpu._native's helpers each call is
    one C call (copy into pinned staging, upload, replay, wait), the image sent as bits (path
    "lines.native-bits", TUNING.host_bits) or as bytes ("lines.native"); without the helpers, the
    Python path. Each against cv2 on new contents every call, changing thresholds, a view into a
    wider image, a flipped view (negative row step: bits or the Python path), both functions and
    another size; the native path count must match the calls that can take it."""
    from cvgpu import _native
    if way != "python" and _native.helpers() is None:
        pytest.skip("no host-helper library for this platform (cvgpu._native)")
    if way == "python":
        monkeypatch.setitem(_native._state, "helpers", None)
    rng = np.random.default_rng(8123)
    h, w = 240, 320
    wide = _host_images(rng, h, w + 40, 1)[0]
    calls = [("HoughLines", img) for img in _host_images(rng, h, w, 9)]
    calls += [("HoughLines", wide[:, 20:20 + w]), ("HoughLines", calls[0][1][::-1]),
              ("HoughLinesWithAccumulator", calls[1][1]), ("HoughLinesWithAccumulator", calls[2][1]),
              ("HoughLinesWithAccumulator", calls[3][1])]
    calls += [("HoughLines", img) for img in _host_images(rng, 97, 131, 4)]
    path = "lines.native-bits" if way == "bits" else "lines.native"
    with TUNING.override(host_bits=way == "bits"):
        before = TUNING.paths()
        for fn, img in calls:
            threshold = int(rng.integers(5, 120))
            snapshot = img.copy()
            ours = getattr(cvgpu, fn)(img, 1, np.pi / 180, threshold)
            assert cvgpu.last_call_backend() == "cuda"
            assert (img == snapshot).all()
            compat.check(fn, "host-replay", ours, getattr(cv2, fn)(img, 1, np.pi / 180, threshold),
                         inputs=(img, 1, np.pi / 180, threshold, "numpy"))
        ran = TUNING.paths()[path] - before[path]
    # Per plan the first call launches directly and the second captures the graph: HoughLines
    # 240x320 takes 9 + 2 - 2 calls natively (bytes: not the flipped view), the accumulator
    # variant 1, the 97x131 plan 2.
    assert ran == {"bits": 9 + 1 + 2, "bytes": 8 + 1 + 2, "python": 0}[way], ran


@pytest.mark.gpu
def test_gpu_host_hot_calls(compat):
    """The host hot path: a numpy image layout, rho and theta called twice in a row on a thread
    become hot ("lines.host-hot", counted when made) and the calls like them skip to the native
    replay. Against cv2 on every call: new contents and thresholds, another layout in between (a
    view, another shape), other rho, the accumulator variant, another stream, a TUNING change,
    another thread, and inputs the hot path must not take (float32, a negative threshold: cv2's
    errors from the full path)."""
    import cupy as cp
    from cvgpu import _native
    if _native.helpers() is None:
        pytest.skip("no host-helper library for this platform (cvgpu._native)")
    rng = np.random.default_rng(4321)
    h, w = 200, 280
    frames = _host_images(rng, h, w, 6)
    wide = _host_images(rng, h, w + 30, 1)[0]

    def call(fn, img, rho=1, threshold=None):
        threshold = int(rng.integers(5, 100)) if threshold is None else threshold
        ours = getattr(cvgpu, fn)(img, rho, np.pi / 180, threshold)
        assert cvgpu.last_call_backend() == "cuda"
        compat.check(fn, "host-hot", ours, getattr(cv2, fn)(img, rho, np.pi / 180, threshold),
                     inputs=(img, rho, np.pi / 180, threshold, "numpy, host hot path"))

    with TUNING.override():  # (no values: plans and hot calls of earlier tests forgotten)
        before = TUNING.paths()
        for img in frames:                           # made hot at the second call
            call("HoughLines", img)
        call("HoughLines", wide[:, 10:10 + w])       # same shape, other strides: not hot
        call("HoughLines", frames[0])                # the hot layout again: still hot
        call("HoughLines", frames[1], rho=2)         # other rho: the fast path, a new plan
        call("HoughLines", frames[2])                # rho 1: hot
        call("HoughLinesWithAccumulator", frames[0])
        call("HoughLinesWithAccumulator", frames[1])  # its own slot, made hot
        call("HoughLinesWithAccumulator", frames[2])
        with cp.cuda.Stream(non_blocking=True):
            call("HoughLines", frames[4])            # hot, on another stream
        for bad in (frames[0].astype(np.float32), -1):
            img, threshold = (bad, 10) if isinstance(bad, np.ndarray) else (frames[0], bad)
            try:
                cv2.HoughLines(img, 1, np.pi / 180, threshold)
                expected = None
            except cv2.error as exc:
                expected = exc.code
            if expected is None:
                call("HoughLines", img, threshold=threshold)
            else:
                with pytest.raises(cv2.error) as info:
                    cvgpu.HoughLines(img, 1, np.pi / 180, threshold)
                assert info.value.code == expected
        call("HoughLines", frames[5])                # hot still
        # its own workspace: hot from its second call
        _in_another_thread(lambda: [call("HoughLines", img) for img in frames[:3]])
        made = TUNING.paths()["lines.host-hot"] - before["lines.host-hot"]
    assert made == 3, made   # this thread's HoughLines and accumulator calls, the other thread's
    with TUNING.override(host_bits=True):            # a TUNING change: the hot call is made again
        before = TUNING.paths()
        for img in frames[:3]:
            call("HoughLines", img)
        assert TUNING.paths()["lines.host-hot"] - before["lines.host-hot"] == 1


@pytest.mark.gpu
def test_gpu_host_images_from_threads(compat):
    """Eight threads calling HoughLines on numpy frames at once (each on its own stream, then all
    on the default one): every result equals cv2's for its frame."""
    import cupy as cp
    rng = np.random.default_rng(77)
    frames = _host_images(rng, 180, 240, 12)
    thresholds = [int(t) for t in rng.integers(10, 90, len(frames))]
    expected = [cv2.HoughLines(f, 1, np.pi / 180, t) for f, t in zip(frames, thresholds)]
    for own_stream in (True, False):
        results, errors = {}, []

        def work(k):
            try:
                stream = cp.cuda.Stream(non_blocking=True) if own_stream else cp.cuda.Stream.null
                with stream:
                    for rep in range(3):
                        for i in range(k, len(frames), 8):
                            results[(i, rep)] = cvgpu.HoughLines(frames[i], 1, np.pi / 180, thresholds[i])
            except BaseException as exc:  # (reported in the main thread)
                errors.append(exc)
        pool = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
        assert not errors, errors
        for (i, rep), ours in sorted(results.items(), key=lambda kv: kv[0]):
            compat.check("HoughLines", "threads", ours, expected[i],
                         inputs=(frames[i], 1, np.pi / 180, thresholds[i], "numpy, 8 threads"))
        assert len(results) == 3 * len(frames)


MULTISCALE = [(1.0, math.pi / 180, 10, 2, 2), (1.0, math.pi / 180, 30, 4, 1), (2.0, math.pi / 90, 20, 1, 3),
              (0.5, math.pi / 180, 15, 3, 3), (1.5, 0.05, 5, 2, 0), (1.0, math.pi / 180, 0, 0, 2)]


# cv2's multi-scale code itself crashes (segfaults) on some parameters, so this path is exercised
# on fixed, sane cases rather than hypothesis: it is cv2's computation, forwarded and reported.
@pytest.mark.gpu
@pytest.mark.parametrize("rho,theta,threshold,srn,stn", MULTISCALE)
def test_multiscale_is_cv2s_and_says_so(compat, rho, theta, threshold, srn, stn):
    for seed in range(4):
        img = drawn_lines(np.random.default_rng(seed), 120 + seed * 37, 160, 5)
        ref = cv2.HoughLines(img, rho, theta, threshold, srn=srn, stn=stn)
        ours = cvgpu.HoughLines(img, rho, theta, threshold, srn=srn, stn=stn)
        assert cvgpu.last_call_backend() == "cv2"
        compat.check("HoughLines", "multiscale", ours, ref, inputs=(img, rho, theta, threshold, srn, stn))
