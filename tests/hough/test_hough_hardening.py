"""Hardening of HoughLines / HoughLinesWithAccumulator (issue 10): bad and odd input against cv2's
outcome (the rules are tests/hardening_support.py's), every layout of valid images, the ``lines``
output argument, the accumulator sizes cv2 reports when they wrap, and the mismatches issue 10
found (fixed; their tests are at the end).

cv2 itself crashes (segfaults, aborts) on some inputs, so those are never run (neither through cv2 nor
through cvgpu, whose no-GPU fallback would forward them to cv2); ``hough_cv2_safe`` decides this from
the arguments before anything is called:
  * the multi-scale HoughLines (srn or stn nonzero) with some srn/stn values: only two fixed,
    known-safe multi-scale calls are made here (tests/test_hough_lines.py has the rest);
  * HoughLines whose accumulator size (numangle + 2) * (numrho + 2) * 4 is negative and small,
    e.g. a 1x1 image with rho=2, theta=-0.5 (-64 bytes: cv2's allocator adds its alignment to the
    wrapped size_t, allocates a few bytes and writes past them), or where both factors are
    negative (a small positive allocation with negative loop bounds). A size that wraps to
    >= 2**48 is safe (cv2 fails to allocate: -4), as is one of 0 .. 64 MiB with both factors >= 0;
    sizes in between are not run either (cv2 would really allocate and fill gigabytes).
"""
import math

import cv2
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import cvgpu
from cvgpu import _versions
from cvgpu import hough as _hough
from hardening_support import (FORMS, FUZZ, INF, NAN, _quiet_fallback, _to_size_t, array_specs,  # noqa: F401
                               assert_same, assert_unchanged, build, call_forms, case_inputs, inputs, make, normalize,
                               outcome, pick, record_event)

HAS_EDGEVAL = "use_edgeval" in (cv2.HoughLines.__doc__ or "")


# ================================================================ HoughLines / HoughLinesWithAccumulator

HOUGH_PARAMS = ["image", "rho", "theta", "threshold", "lines", "srn", "stn", "min_theta", "max_theta"] + (
    ["use_edgeval"] if HAS_EDGEVAL else [])
RHOS = [1, 1.0, 0.5, 2, 3.7, np.float32(1.5), np.int64(2), 0, -1, -0.5, NAN, INF, -INF, 1e-12, 1e-8, 3e-8, 1e300,
        5e-324, None, True, "1", np.array([1.0]), 1 + 0j, np.complex128(2), np.complex64(1), np.float16(0.5),
        np.longdouble(1), np.array(1.0), 2**1100, np.uint64(3)]
THETAS = [math.pi / 180, 0.1, 0.5, 1.0, 3.0, 4.0, 10.0, 0, -0.1, -4.0, NAN, INF, 1e-300, None, True,
          np.float64(0.2)]
THRESHOLDS = [0, 1, 3, 10, -5, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, -2**63, 5.5, True, None, "5",
              np.int32(3), np.uint8(2), np.int64(2**40), 2**63, -2**63 - 1, 2**70, np.uint64(2**64 - 1),
              np.timedelta64(1, "s"), np.bool_(True)]
HOUGH_EXTRA = [{}, {}, {}, {"srn": 0}, {"srn": None, "stn": None}, {"srn": 0.0, "stn": np.float64(0)},
               {"min_theta": 0.5}, {"min_theta": 1.0, "max_theta": 0.5}, {"max_theta": 1.0},
               {"min_theta": NAN}, {"max_theta": INF}, {"max_theta": NAN}, {"min_theta": -1.0, "max_theta": 2.0},
               {"min_theta": None, "max_theta": None}, {"use_edgeval": True}, {"use_edgeval": 1.0},
               {"use_edgeval": None}, {"lines": None}, {"foo": 1}, {"srn": "x"},
               {"stn": True}, {"min_theta": "0"}, {"max_theta": np.array([1.0])}, {"lines": "x"}, {"lines": 2**70},
               {"lines": (1, "a")}, {"lines": 5}, {"lines": np.zeros((2, 2), np.int64)}, {"lines": [1]}]


def _beyond_c_long(args, kwargs):
    def big(v):
        return isinstance(v, int) and not -2**63 <= v < 2**63
    return any(big(v) or (isinstance(v, tuple) and any(big(x) for x in v)) for v in list(args) + list(kwargs.values()))


def hough_cv2_safe(fn_name, args, kwargs):
    """Whether cv2 can be called with these arguments without crashing or allocating gigabytes
    (see the module docstring). Reads the arguments as cvgpu's argument layer does."""
    try:
        a = _hough._prepare(fn_name, args, kwargs)
    except cv2.error:
        return True  # rejected by the binding before any computation
    if a["srn"] != 0 or a["stn"] != 0:
        return False  # multi-scale: only the fixed calls of test_hough_multiscale_fixed
    mat = a["image"]
    if not mat.is_type(np.uint8, 1) or not a["max_theta"] >= a["min_theta"]:
        return True
    na, nr = _hough.accumulator_size(mat.rows, mat.cols, np.float32(a["rho"]), np.float32(a["theta"]),
                                     a["min_theta"], a["max_theta"])
    fa, fr = na + 2, nr + 2
    if fa >= 0 and fr >= 0:
        nbytes = fa * fr * 4
        return nbytes <= (64 << 20) or (1 << 48) <= nbytes < (1 << 64) - (1 << 20)
    if fa < 0 and fr < 0:
        return False
    return (1 << 48) <= _to_size_t(fa * fr * 4) <= (1 << 64) - (1 << 20)


@FUZZ
@given(fn=st.sampled_from(["HoughLines", "HoughLinesWithAccumulator"]), inp=inputs(valid_dtypes=[np.uint8]),
       rho=pick(RHOS, 7), theta=pick(THETAS, 7), thr=pick(THRESHOLDS, 6), extra=pick(HOUGH_EXTRA, 6), form=FORMS)
def test_hough_fuzz_matches_cv2(fn, inp, rho, theta, thr, extra, form):
    pos = [RHOS[rho], THETAS[theta], THRESHOLDS[thr]]
    kwargs = dict(HOUGH_EXTRA[extra])
    img_ref, img_ours = make(inp), make(inp)
    ref_call = call_forms(getattr(cv2, fn), HOUGH_PARAMS, [img_ref] + pos, kwargs, form)
    ours_call = call_forms(getattr(cvgpu, fn), HOUGH_PARAMS, [img_ours] + pos, kwargs, form)
    probe = {}
    call_forms(lambda *a, **k: probe.update(a=a, k=k), HOUGH_PARAMS, [make(inp)] + pos, kwargs, form)()
    assume(hough_cv2_safe(fn, probe["a"], probe["k"]))
    # An int beyond a C long in an array argument leaves a Python error pending in cv2's binding; a
    # numpy complex double after it then warns (ComplexWarning) with that error set, and cv2's
    # message depends on the warnings filters in force. Not compared.
    assume(not (_beyond_c_long(probe["a"], probe["k"]) and any(
        isinstance(v, np.complexfloating) for v in list(probe["a"]) + list(probe["k"].values()))))
    ref = outcome(ref_call)
    ours = outcome(ours_call)
    record_event(ref)
    assert_same(ours, ref, "%s %r %r form=%s" % (fn, inp, (pos, kwargs), form), function=fn,
                inputs=case_inputs(inp, pos, kwargs, form))
    assert_unchanged(img_ours, inp, "cvgpu.%s modified its input" % fn)


# The accumulator size (numangle + 2) * (numrho + 2) * 4 is observable on the CPU: when it wraps
# (a negative factor) cv2 fails with -4 "Failed to allocate N bytes", N the size_t it asked for, and
# cvgpu raises that error itself from cvgpu.hough.accumulator_size (the GPU path's sizes). With one
# factor fixed, N gives the other exactly. Only wrapped sizes >= 2**20 below 2**64 are run (see the
# module docstring), decided here in double from the arguments, not from cvgpu's arithmetic.

def _wrapped_size_outcomes(img, rho, theta, min_theta, max_theta):
    ours = outcome(lambda: cvgpu.HoughLinesWithAccumulator(img, rho, theta, 0, None, 0, 0, min_theta, max_theta))
    ref = outcome(lambda: cv2.HoughLinesWithAccumulator(img, rho, theta, 0, None, 0, 0, min_theta, max_theta))
    if _versions.behaviour("hough.arg_checks") == "hough_lines" and img.size == 0:
        assert ref[0] == "ok", ref  # 5.1 returns at once on an empty image, before any size
    elif _versions.behaviour("hough.size_check") == "set_size":
        assert ref[:2] == ("error", "cv2.error") and ref[2] in (-4, -215), ref  # 4.x: setSize's assertion too
    else:
        assert ref[:3] == ("error", "cv2.error", -4), ref
    return ours, ref


@FUZZ
@given(cols=st.one_of(st.integers(0, 2**30 - 1), st.integers(0, 5000), st.integers(0, 64)),
       rho=st.one_of(st.floats(1e-9, 1.0), st.floats(1e-9, 1e-3), st.floats(0.1, 100.0),
                     st.sampled_from([0.5, 1.0, 1.5, 0.7, 0.3, 3.0])).map(np.float32),
       theta=st.sampled_from([-0.1, -0.5, -1.0, -1e-3, -1e-6]))
@pytest.mark.skipif(_versions.behaviour("hough.arg_checks") == "hough_lines",
                    reason="from 5.1 a negative theta is cv::HoughLines' own -2 error (test_hough_lines covers it)")
def test_hough_numrho_matches_cv2(cols, rho, theta):
    """numrho = cvRound(float(2 (w + h) + 1) / rho) in float32 (float32 rounding of both the int and
    the quotient), for every quotient from 0 to 2**31; numangle + 2 < 0 makes the size wrap.
    (2 (w + h) + 1 stays below 2**31: beyond, numrho turns negative too and cv2 would try to
    allocate a positive size.)"""
    q = (2 * cols + 1) / float(rho)
    # |numangle + 2| (numrho + 2) * 4 >= 2**21 (twice the margin of the rule), numrho < 2**31.
    assume((math.pi / -theta - 3) * (q + 1) * 4 >= 2**21 and q <= 2.1e9)
    img = np.zeros((0, cols), np.uint8)
    ours, ref = _wrapped_size_outcomes(img, float(rho), theta, 0.0, math.pi)
    assert_same(ours, ref, "cols=%d rho=%r theta=%r" % (cols, float(rho), theta))


_SPANS = [0.0, 1.0, math.pi, 1e5, 2147483647.5, 2147483648.0, 2147483648.5, 2147483649.5, 3e9, 1e300, INF]
_NUMANGLE_THETAS = [-1.0, -1e-5, -1e-30, -5e-45, 0.0, -0.0, NAN, 1.0, 1e-3, -INF, INF]


# From 5.1 theta must be positive and finite as a float (cv::HoughLines' -2 check) and an empty image
# returns before the sizes: the overflowing quotients then come from tiny thetas on a 1 x 1 image.
_CHECKED = _versions.behaviour("hough.arg_checks") == "hough_lines"
_THETAS = (st.one_of(st.sampled_from([1e-30, 1e-38, 5e-45, 1e-12]), st.floats(1e-44, 1e-9)) if _CHECKED else
           st.one_of(st.sampled_from(_NUMANGLE_THETAS), st.floats(width=32), st.floats(-1e-3, 0).map(np.float32)))
_SPAN_VALUES = (st.one_of(st.sampled_from(_SPANS[2:]), st.floats(2.5, 1e12)) if _CHECKED else
                st.one_of(st.sampled_from(_SPANS), st.floats(0, 1e12), st.floats(2147483000.0, 2147484000.0)))


@FUZZ
@given(span=_SPAN_VALUES, theta=_THETAS, min_theta=st.sampled_from([0.0, -1.0, 0.5, -1e300]))
def test_hough_numangle_matches_cv2(span, theta, min_theta):
    """numangle = cvFloor((max_theta - min_theta) / theta) + 1 (then the angle at pi dropped): cvFloor of
    NaN / +-inf / quotients outside int is INT_MIN (saturated from 5.1), the + 1 wraps. A 0x0 image:
    numrho = 1."""
    max_theta = min_theta + span
    assume(max_theta >= min_theta)
    if _CHECKED:
        t32 = float(np.float32(theta))
        assume(math.isfinite(t32) and t32 > 0)
    with np.errstate(all="ignore"):
        q = float(np.float64(max_theta - min_theta) / np.float64(np.float32(theta)))
    # numangle + 2 <= -87382 (the size wraps at least 2**20 below 2**64): q <= -87400, NaN, or
    # beyond int on either side (cvFloor's INT_MIN; INT_MAX + 1 wraps to INT_MIN too).
    assume(math.isnan(q) or q <= -87400 or q >= 2147483647)
    img = np.zeros((1, 1) if _CHECKED else (0, 0), np.uint8)
    ours, ref = _wrapped_size_outcomes(img, 1.0, float(np.float32(theta)), min_theta, max_theta)
    assert_same(ours, ref, "span=%r theta=%r min_theta=%r" % (span, float(np.float32(theta)), min_theta))


@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
@pytest.mark.parametrize("kwargs", [dict(srn=2, stn=2), dict(srn=0.5)])
def test_hough_multiscale_fixed(fn, kwargs):
    # Multi-scale calls that cv2 survives (tests/test_hough_lines.py); other srn/stn values can
    # segfault cv2 itself and are never run.
    img = np.zeros((20, 30), np.uint8)
    img[7, :] = 255
    img[:, 11] = 3
    ours_img = build((np.uint8, (20, 30), "negative", 0, 0))
    ref_img = build((np.uint8, (20, 30), "negative", 0, 0))
    assert_same(outcome(lambda: getattr(cvgpu, fn)(img.copy(), 1, np.pi / 180, 5, **kwargs)),
                outcome(lambda: getattr(cv2, fn)(img.copy(), 1, np.pi / 180, 5, **kwargs)))
    assert_same(outcome(lambda: getattr(cvgpu, fn)(ours_img, 1, np.pi / 180, 5, **kwargs)),
                outcome(lambda: getattr(cv2, fn)(ref_img, 1, np.pi / 180, 5, **kwargs)))


@FUZZ
@given(fn=st.sampled_from(["HoughLines", "HoughLinesWithAccumulator"]),
       spec=array_specs(dtypes=[np.uint8], shapes=[(1, 1), (1, 9), (9, 1), (8, 6), (13, 11), (8, 6, 1)],
                        kinds=(0, 1, 3)),
       rho=st.sampled_from([0.5, 1, 1.5, 2, 3]), theta=st.sampled_from([0.01, 0.05, math.pi / 180, 0.3]),
       thr=st.integers(-2, 6), lines_kind=st.sampled_from(["none", "match", "column", "row", "wrong", "readonly",
                                                            "int64", "number", "str"]))
def test_hough_valid_layouts_and_lines_argument(fn, spec, rho, theta, thr, lines_kind):
    """Valid 8-bit images in every layout, with a ``lines`` output argument as cv2 fills it (or not:
    it writes into an array whose Mat has the result's size and type, e.g. (N, 1, 3) float32 but not
    (N, 3) float32 for HoughLinesWithAccumulator, and returns that array)."""
    if _versions.behaviour("hough.arg_checks") == "hough_lines":
        assume(thr >= 0)  # from 5.1 a negative threshold is an error, not a valid call
    ref = getattr(cv2, fn)(build(spec), rho, theta, thr)
    n, per_line = (1, 2) if ref is None else (ref.shape[0], ref.shape[-1])

    def lines_arg():
        if lines_kind == "none":
            return None
        if lines_kind == "match":
            return np.zeros((1, 1, per_line) if ref is None else ref.shape, np.float32)
        if lines_kind == "column":
            return np.zeros((n, 1, per_line), np.float32)
        if lines_kind == "row":
            return np.zeros((1, n, per_line), np.float32)
        if lines_kind == "readonly":
            arr = np.zeros((n, 1, per_line), np.float32)
            arr.setflags(write=False)
            return arr
        if lines_kind == "int64":
            return np.zeros((n, 1, per_line), np.int64)
        if lines_kind == "number":
            return 5
        if lines_kind == "str":
            return "x"
        return np.zeros((1, 1, 7), np.float32)

    r_lines, o_lines = lines_arg(), lines_arg()
    img = build(spec)
    ours = [None]
    theirs = [None]
    assert_same(outcome(lambda: ours.__setitem__(0, getattr(cvgpu, fn)(img, rho, theta, thr, o_lines)) or ours[0]),
                outcome(lambda: theirs.__setitem__(0, getattr(cv2, fn)(build(spec), rho, theta, thr, r_lines))
                        or theirs[0]))
    assert_same(normalize(o_lines), normalize(r_lines), "lines argument filled differently")
    assert (ours[0] is o_lines) == (theirs[0] is r_lines), "lines argument returned differently"
    assert_unchanged(img, ("array", spec), "input modified")


# ================================================================ former mismatches (issue 10), now as cv2

@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
def test_mismatch_hough_lines_argument_of_wrong_type(fn):
    img = np.zeros((4, 4), np.uint8)
    assert_same(outcome(lambda: getattr(cvgpu, fn)(img, 1, 0.1, 1, "x")),
                outcome(lambda: getattr(cv2, fn)(img, 1, 0.1, 1, "x")))


def test_mismatch_int_beyond_c_long_message():
    img = np.zeros((4, 4), np.uint8)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1, 0.1, 2**70)),
                outcome(lambda: cv2.HoughLines(img, 1, 0.1, 2**70)))


@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
def test_mismatch_hough_numpy_scalar_image(fn):
    assert_same(outcome(lambda: getattr(cvgpu, fn)(np.float32(2), 1, 0.1, 0)),
                outcome(lambda: getattr(cv2, fn)(np.float32(2), 1, 0.1, 0)))


def test_mismatch_hough_with_accumulator_writes_into_lines():
    img = np.zeros((20, 30), np.uint8)
    img[7, :] = 255
    n = len(cv2.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5))
    ref_lines, our_lines = np.zeros((n, 3), np.float32), np.zeros((n, 3), np.float32)
    ref = cv2.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5, ref_lines)
    ours = cvgpu.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5, our_lines)
    assert normalize(ours) == normalize(ref)
    assert (ours is our_lines) == (ref is ref_lines)
    assert normalize(our_lines) == normalize(ref_lines)


def test_mismatch_complex_parameter_message():
    img = np.zeros((4, 4), np.uint8)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1 + 0j, 0.1, 1)),
                outcome(lambda: cv2.HoughLines(img, 1 + 0j, 0.1, 1)))


@pytest.mark.parametrize("dtype", ["U3", "S3", "V2"])
def test_mismatch_flexible_dtype_name_in_message(dtype):
    img = np.zeros((4, 4), dtype)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1, 0.1, 1)),
                outcome(lambda: cv2.HoughLines(img, 1, 0.1, 1)))


def test_mismatch_hough_numrho_division_precision():
    img = np.zeros((0, 0), np.uint8)
    # theta < 0: numangle + 2 < 0, so the size wraps far above what can be allocated (cv2 -4, no crash).
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1e-9, -0.1, 0)),
                outcome(lambda: cv2.HoughLines(img, 1e-9, -0.1, 0)))


def test_mismatch_hough_numangle_floor_of_minus_inf():
    img = np.zeros((0, 0), np.uint8)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1, -0.1, 0, max_theta=INF)),
                outcome(lambda: cv2.HoughLines(img, 1, -0.1, 0, max_theta=INF)))
