"""Hardening of HoughLinesP (issues 10 and 44): bad and odd input against cv2's outcome (the rules are
tests/hardening_support.py's), every layout of valid images, the ``lines`` output argument, and the
accumulator sizes cv2 reports when they wrap.

cv2 itself crashes or is undefined on some inputs, so those are never run (neither through cv2 nor
through cvgpu, whose no-GPU fallback would forward them to cv2); ``hough_p_cv2_safe`` decides from
the arguments (and, for tiny images, the points) before anything is called:
  * numrho == 0 with edge points (rho above about twice the image's perimeter): cv2 votes into an
    empty accumulator (segfault, seen);
  * any vote outside the flat accumulator (rho so coarse that the bins leave it);
  * numangle == 0 (theta <= -pi) with threshold INT_MIN and edge points: cv2 reads angle 0 of an
    empty table;
  * accumulator sizes numangle * numrho * 4 that wrap to a small size_t (one factor negative: cv2's
    allocator adds its alignment and writes past a few bytes; both negative: a positive size with
    negative loop bounds), or that cv2 would really allocate beyond 64 MiB. A wrapped size >= 2**48
    is safe (cv2 fails to allocate: -4).
On those inputs cvgpu raises cv2.error itself (-211 "undefined here", or -4 for wrapped sizes).
"""
import math

import cv2
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import cvgpu
import hough_p_model as seq
from cvgpu import _versions
from cvgpu.hough import probabilistic as hp
from hardening_support import (FORMS, FUZZ, INF, NAN, _quiet_fallback, _to_size_t, array_specs,  # noqa: F401
                               assert_same, assert_unchanged, build, call_forms, inputs, make, normalize, outcome,
                               pick, record_event)

PARAMS = ["image", "rho", "theta", "threshold", "lines", "minLineLength", "maxLineGap"]
RHOS = [1, 1.0, 0.5, 2, 3.7, np.float32(1.5), np.int64(2), 0, -1, -0.5, NAN, INF, -INF, 1e-12, 1e-8, 3e-8, 1e300,
        5e-324, 40.0, 500.0, None, True, "1", np.array([1.0]), 1 + 0j, np.complex128(2), np.float16(0.5),
        np.longdouble(1), np.array(1.0), 2**1100, np.uint64(3)]
THETAS = [math.pi / 180, 0.1, 0.5, 1.0, 3.0, 4.0, 10.0, 0, -0.1, -4.0, NAN, INF, 1e-300, None, True,
          np.float64(0.2)]
THRESHOLDS = [0, 1, 3, 10, -5, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, -2**63, 5.5, True, None, "5",
              np.int32(3), np.uint8(2), np.int64(2**40), 2**63, 2**70, np.uint64(2**64 - 1),
              np.timedelta64(1, "s"), np.bool_(True)]
EXTRA = [{}, {}, {}, {"minLineLength": 3}, {"maxLineGap": 2}, {"minLineLength": 1e10, "maxLineGap": -1},
         {"minLineLength": NAN}, {"maxLineGap": INF}, {"minLineLength": -2**40}, {"minLineLength": None},
         {"maxLineGap": None}, {"minLineLength": "1"}, {"maxLineGap": np.array([1.0])}, {"maxLineGap": True},
         {"lines": None}, {"foo": 1}, {"lines": "x"}, {"lines": 2**70}, {"lines": (1, "a")}, {"lines": 5},
         {"lines": np.zeros((2, 2), np.int64)}, {"lines": [1]}, {"minLineLength": 2**70},
         {"minLineLength": np.float32(2.5)}, {"maxLineGap": 1 + 1j}]


def hough_p_cv2_safe(args, kwargs):
    """Whether cv2 can be called with these arguments without crashing, undefined behaviour or
    allocating gigabytes (see the module docstring). Reads the arguments as cvgpu's layer does."""
    try:
        a = hp._prepare(args, kwargs)
    except cv2.error:
        return True  # rejected by the binding before any computation
    mat = a["image"]
    if not mat.is_type(np.uint8, 1):
        return True
    numangle, numrho, _, _ = hp.sizes(mat.rows, mat.cols, a["rho"], a["theta"])
    if numangle < 0 or numrho < 0:
        if numangle < 0 and numrho < 0:
            return False
        return (1 << 48) <= _to_size_t(numangle * numrho * 4) <= (1 << 64) - (1 << 20)
    if numangle * numrho * 4 > (64 << 20):
        return False
    img = mat.array
    if img is None or not np.any(img):
        return True
    if numrho == 0:
        return False
    if numangle == 0:
        return a["threshold"] != -(1 << 31)
    try:
        seq.Setup((np.ascontiguousarray(img).reshape(mat.rows, mat.cols) != 0).astype(np.uint8), a["rho"],
                  a["theta"], 1, 0, 0)
    except seq.Undefined:
        return False
    return True


def _beyond_c_long(args, kwargs):
    def big(v):
        return isinstance(v, int) and not -2**63 <= v < 2**63
    return any(big(v) or (isinstance(v, tuple) and any(big(x) for x in v)) for v in list(args) + list(kwargs.values()))


@FUZZ
@given(inp=inputs(valid_dtypes=[np.uint8]), rho=pick(RHOS, 7), theta=pick(THETAS, 7), thr=pick(THRESHOLDS, 6),
       extra=pick(EXTRA, 11), form=FORMS)
def test_hough_p_fuzz_matches_cv2(inp, rho, theta, thr, extra, form):
    pos = [RHOS[rho], THETAS[theta], THRESHOLDS[thr]]
    kwargs = dict(EXTRA[extra])
    img_ref, img_ours = make(inp), make(inp)
    ref_call = call_forms(cv2.HoughLinesP, PARAMS, [img_ref] + pos, kwargs, form)
    ours_call = call_forms(cvgpu.HoughLinesP, PARAMS, [img_ours] + pos, kwargs, form)
    probe = {}
    call_forms(lambda *a, **k: probe.update(a=a, k=k), PARAMS, [make(inp)] + pos, kwargs, form)()
    assume(hough_p_cv2_safe(probe["a"], probe["k"]))
    # (an int beyond a C long pending, then a numpy complex: cv2's message depends on the warnings
    # filters; not compared, as for HoughLines)
    assume(not (_beyond_c_long(probe["a"], probe["k"]) and any(
        isinstance(v, np.complexfloating) for v in list(probe["a"]) + list(probe["k"].values()))))
    ref = outcome(ref_call)
    ours = outcome(ours_call)
    record_event(ref)
    assert_same(ours, ref, "HoughLinesP %r %r form=%s" % (inp, (pos, kwargs), form), function="HoughLinesP")
    assert_unchanged(img_ours, inp, "cvgpu.HoughLinesP modified its input")


_CHECKED = _versions.behaviour("hough_p.arg_checks") == "hough_lines_p"


@FUZZ
@given(cols=st.one_of(st.integers(0, 2**30 - 1), st.integers(0, 5000), st.integers(0, 64)),
       rho=st.one_of(st.floats(1e-9, 1.0), st.floats(0.1, 100.0),
                     st.sampled_from([0.5, 1.0, 1.5, 0.3])).map(np.float32),
       theta=st.sampled_from([-0.1, -0.5, -1.0, -1e-3, -1e-6, -3.0]))
@pytest.mark.skipif(_CHECKED, reason="from 5.1 a negative theta is cv::HoughLinesP's own -2 error and an empty "
                                     "image returns first (test_hough_p_saturated_size_matches_cv2 instead)")
def test_hough_p_wrapped_size_matches_cv2(cols, rho, theta):
    """numangle < 0 (negative theta) times numrho wraps the accumulator's size_t: cv2 reports the
    wrapped byte count (-4); an empty image, so nothing is voted."""
    numangle, numrho, _, _ = hp.sizes(0, cols, float(rho), theta)
    assume(numangle < 0 <= numrho)
    assume((1 << 48) <= _to_size_t(numangle * numrho * 4) <= (1 << 64) - (1 << 20))
    img = np.zeros((0, cols), np.uint8)
    ours = outcome(lambda: cvgpu.HoughLinesP(img, float(rho), theta, 1))
    ref = outcome(lambda: cv2.HoughLinesP(img, float(rho), theta, 1))
    # 4.x's Mat::create asserts each size (setSize's -215) before any allocation: _versions, hough.size_check.
    assert ref[:3] == ("error", "cv2.error", -215 if _versions.behaviour("hough.size_check") == "set_size" else -4), ref
    assert_same(ours, ref, "cols=%d rho=%r theta=%r" % (cols, float(rho), theta))


@FUZZ
@given(theta=st.one_of(st.floats(1e-44, 1.4e-9), st.sampled_from([1e-40, 1e-30, 1e-12])),
       rho=st.one_of(st.floats(1e-44, 1e-8), st.sampled_from([1.0, 0.5, 1e-9])))
@pytest.mark.skipif(not _CHECKED, reason="5.1's checks and saturating cvFloor: test_hough_p_wrapped_size_matches_cv2 "
                                         "covers the releases before")
def test_hough_p_saturated_size_matches_cv2(theta, rho):
    """5.1: a tiny positive theta saturates cvFloor(pi / theta) at INT_MAX, the + 1 wraps numangle to
    INT_MIN, and cv2 reports the wrapped accumulator size (-4) for a 1 x 1 image."""
    with np.errstate(all="ignore"):
        assume(float(np.float32(theta)) > 0 and float(np.float32(rho)) > 0)
    img = np.zeros((1, 1), np.uint8)
    ours = outcome(lambda: cvgpu.HoughLinesP(img, rho, theta, 1))
    ref = outcome(lambda: cv2.HoughLinesP(img, rho, theta, 1))
    assert ref[:3] == ("error", "cv2.error", -4), ref
    assert_same(ours, ref, "rho=%r theta=%r" % (rho, theta))


@FUZZ
@given(spec=array_specs(dtypes=[np.uint8], shapes=[(1, 1), (1, 9), (9, 1), (8, 6), (13, 11), (8, 6, 1), (20, 30)],
                        kinds=(0, 1, 3)),
       rho=st.sampled_from([0.5, 1, 1.5, 2, 3]), theta=st.sampled_from([0.01, 0.05, math.pi / 180, 0.3]),
       thr=st.integers(0 if _CHECKED else -2, 6), lines_kind=st.sampled_from(["none", "match", "column", "row", "flat", "wrong",
                                                            "readonly", "int64", "float", "number", "str"]))
def test_hough_p_valid_layouts_and_lines_argument(spec, rho, theta, thr, lines_kind):
    """Valid 8-bit images in every layout, with a ``lines`` output argument as cv2 fills it (or not:
    it writes into an (N, 1, 4) or (1, N, 4) int32 array, not an (N, 4) one, and returns it)."""
    ref = cv2.HoughLinesP(build(spec), rho, theta, thr, None, 1, 1)
    n = 1 if ref is None else ref.shape[0]

    def lines_arg():
        shapes = {"match": (1, 1, 4) if ref is None else ref.shape, "column": (n, 1, 4), "row": (1, n, 4),
                  "flat": (n, 4), "wrong": (n + 1, 1, 4)}
        if lines_kind in shapes:
            return np.zeros(shapes[lines_kind], np.int32)
        if lines_kind == "readonly":
            arr = np.zeros((n, 1, 4), np.int32)
            arr.setflags(write=False)
            return arr
        if lines_kind in ("int64", "float"):
            return np.zeros((n, 1, 4), np.int64 if lines_kind == "int64" else np.float32)
        return {"none": None, "number": 5, "str": "x"}[lines_kind]

    r_lines, o_lines = lines_arg(), lines_arg()
    img = build(spec)
    ours, theirs = [None], [None]
    assert_same(outcome(lambda: ours.__setitem__(0, cvgpu.HoughLinesP(img, rho, theta, thr, o_lines, 1, 1))
                        or ours[0]),
                outcome(lambda: theirs.__setitem__(0, cv2.HoughLinesP(build(spec), rho, theta, thr, r_lines, 1, 1))
                        or theirs[0]))
    assert_same(normalize(o_lines), normalize(r_lines), "lines argument filled differently")
    assert (ours[0] is o_lines) == (theirs[0] is r_lines), "lines argument returned differently"
    assert_unchanged(img, ("array", spec), "input modified")
