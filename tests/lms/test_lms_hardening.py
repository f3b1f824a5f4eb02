"""Hardening of cvgpu's own LMS functions (issue 10): fitLineLMS, fitLineLMSBatch and
refineHoughLines have no cv2 counterpart for their results. Their input validation is compared with
cv2.fitLine's where cvgpu says it mirrors it (the points cv2.fitLine reads as 2-D points), and
otherwise they must raise cv2.error or return, never crash, and not depend on the input's memory
layout. The shared rules and builders are tests/hardening_support.py's.
"""
import math

import cv2
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cvgpu
from cvgpu import _versions
from hardening_support import (DTYPES, FUZZ, INF, NAN, NON_ARRAYS, _COMPAT, _quiet_fallback,  # noqa: F401
                               array_specs, assert_same, assert_unchanged, build, case_inputs, inputs, make,
                               normalize, outcome)


# ================================================================ fitLineLMS / fitLineLMSBatch vs cv2.fitLine

POINT_SHAPES = [(5, 2), (1, 2), (2,), (6, 1, 2), (1, 6, 2), (0, 2), (0,), (5, 3), (2, 5), (5, 4), (3, 1, 3),
                (2, 2, 2), (12, 2), (7, 1, 2), (1, 1, 2)]
# Dtypes cv2's binding converts (OpenCV 5: CV_Bool, CV_32U too), weighted, and all the others.
CV2_POINT_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                    np.float16, np.float32, np.float64] * 2 + DTYPES


def _cv2_fitline(points):
    return cv2.fitLine(points, cv2.DIST_L2, 0, 0.01, 0.01)


@FUZZ
@given(spec=array_specs(dtypes=CV2_POINT_DTYPES, shapes=POINT_SHAPES, kinds=(1, 2, 3)))
def test_fit_line_lms_validation_mirrors_cv2_fitline(spec):
    """Where cv2.fitLine rejects the points, fitLineLMS (and its batch forms) raise a cv2.error with
    the same code; where cv2.fitLine fits 2-D points, fitLineLMS fits them too (its documented
    -213 for 3-D points aside), independently of the memory layout."""
    ref = outcome(lambda: _cv2_fitline(build(spec)))
    pts = build(spec)
    ours = outcome(lambda: cvgpu.fitLineLMS(pts))
    batch = outcome(lambda: cvgpu.fitLineLMSBatch([pts]))
    assert_unchanged(pts, ("array", spec), "fitLineLMS modified its input")
    if ref[0] == "error":
        # Compared by exception type and code: cv2.fitLine's error for points it rejects.
        _COMPAT.record("fitLineLMS", "bad-input", ours[:3] == ref[:3] and batch[:3] == ref[:3],
                       reference="cv2-cpu (cv2.fitLine's error code)", kind="error",
                       inputs=case_inputs(("array", spec)))
        assert ours[0] == "error" and ours[1:3] == ref[1:3], (ours, ref)
        assert batch[0] == "error" and batch[1:3] == ref[1:3], (batch, ref)
        return
    if ref[1][1] == (6, 1):  # cv2 fitted 3-D points
        assert ours[:3] == ("error", "cv2.error", -213), ours
        return
    assert ours[0] == "ok", ours
    line, hw = cvgpu.fitLineLMS(pts)
    assert line.shape == (4, 1) and line.dtype == np.float32 and isinstance(hw, float)
    contiguous = np.ascontiguousarray(build(spec))
    assert_same(ours, outcome(lambda: cvgpu.fitLineLMS(contiguous)), "layout changed the fit")
    lines, hws = cvgpu.fitLineLMSBatch([pts])
    assert lines.shape == (1, 4, 1) and hws.shape == (1,)
    assert lines[0].tobytes() == line.tobytes() and np.float32(hw).tobytes() == hws[0].tobytes()
    n = int(np.asarray(contiguous).reshape(-1, 2).shape[0])
    packed = cvgpu.fitLineLMSBatch(np.asarray(contiguous).reshape(-1, 2), np.array([0, n]))
    assert_same(normalize(packed), normalize((lines, hws)), "packed batch differs from the list batch")


@given(inp=inputs(shapes=POINT_SHAPES, kinds=(1, 2, 3)),
       residual=st.sampled_from(["auto", "vertical", "horizontal", "perpendicular", "AUTO", "", None, 3, b"auto"]),
       offsets=st.sampled_from([None, "n", [0, 1], [1, 0], [0, 0, 2], [-1, 2], [0, 10**6], [0.5, 2], [], [0], "x",
                                [0.0, 1.0], [NAN, 1], [[0, 1]], np.array([0, 1], np.uint8), [True, 2], [0, 2**70]]))
def test_lms_functions_never_crash(inp, residual, offsets):
    """Any input: a result or a cv2.error (no other exception, no crash); the input unchanged."""
    pts = make(inp)
    off = offsets
    if isinstance(off, str) and off == "n":
        off = [0, int(np.asarray(pts).shape[0])] if isinstance(pts, np.ndarray) and np.asarray(pts).ndim else [0, 1]
    for f in (lambda: cvgpu.fitLineLMS(pts, residual), lambda: cvgpu.fitLineLMSBatch([pts, pts], None, residual),
              lambda: cvgpu.fitLineLMSBatch(pts, off, residual)):
        res = outcome(f)
        assert res[0] == "ok" or res[1] == "cv2.error", res
    assert_unchanged(pts, inp, "LMS function modified its input")


@given(spec=array_specs(dtypes=[np.uint8, np.uint8, np.float32, bool], shapes=[(1, 1), (8, 6), (13, 11), (8, 6, 1),
                                                                                (0, 0), (7,)],
                        kinds=(0, 1)),
       lines=st.sampled_from(["valid", "none", "empty", "float64", "flat", "wrong shape", "nan", "list"]),
       rho=st.sampled_from([1, 0.5, 0, -1, NAN, INF, 1e308, "x", np.float32(1)]),
       theta=st.sampled_from([math.pi / 180, 0.1, 0, NAN, INF, None]),
       band=st.sampled_from([0.5, 0, 2, -1, NAN, INF, -INF, 1e308, None, "x"]), segments=st.booleans())
def test_refine_hough_lines_never_crashes(spec, lines, rho, theta, band, segments):
    img = build(spec)
    ln = {"valid": np.array([[[3.0, 0.5]], [[2.0, 1.5]]], np.float32), "none": None,
          "empty": np.zeros((0, 1, 2), np.float32), "float64": np.array([[[3.0, 0.5]]]),
          "flat": np.array([3.0, 0.5], np.float32), "wrong shape": np.zeros((2, 2, 2), np.float32),
          "nan": np.array([[[NAN, 0.5]]], np.float32), "list": [[[3.0, 0.5]]]}[lines]
    ln_copy = None if ln is None else np.array(ln, copy=True)
    res = outcome(lambda: cvgpu.refineHoughLines(img, ln, rho, theta, band, segments))
    assert res[0] == "ok" or res[1] == "cv2.error", res
    assert_unchanged(img, ("array", spec), "refineHoughLines modified the image")
    if ln is not None:
        assert np.array_equal(np.asarray(ln), ln_copy, equal_nan=True)
    if res[0] == "ok":
        again = outcome(lambda: cvgpu.refineHoughLines(np.ascontiguousarray(build(spec)), ln, rho, theta, band,
                                                       segments))
        assert_same(res, again, "layout changed the refinement")


# -- cvgpu's own functions: cv2.error for what they reject (no cv2 counterpart to compare with)

@pytest.mark.parametrize("offsets,expected", [([0], "ok"), ("x", -5), ([0.5, 5], -5), ([NAN, 5], -5),
                                              ([0.0, 5.0], "ok"), (None, -5)])
def test_lms_batch_offsets_give_a_result_or_cv2_error(offsets, expected):
    res = outcome(lambda: cvgpu.fitLineLMSBatch(np.zeros((5, 2), np.float32), offsets))
    assert res[0] == expected if expected == "ok" else res[:3] == ("error", "cv2.error", expected), res
    if offsets == [0]:  # no sets: as an empty list of sets
        assert_same(res, outcome(lambda: cvgpu.fitLineLMSBatch([])))


@pytest.mark.parametrize("rho,band,code", [(1, NAN, -211), (1, INF, -211), (INF, 0.5, -211), (1, -INF, -211),
                                           (1e300, 1e300, -211), (1, "x", -5), ("x", 0.5, -5), (1 + 0j, 0.5, -5)])
def test_refine_hough_lines_nonfinite_or_bad_parameters(rho, band, code):
    lines = np.array([[[3.0, 0.5]]], np.float32)
    res = outcome(lambda: cvgpu.refineHoughLines(np.zeros((5, 5), np.uint8), lines, rho, np.pi / 180, band))
    assert res[:3] == ("error", "cv2.error", code), res


# -- fitLineLMS's input validation against cv2.fitLine's (the points cv2.fitLine reads as 2-D points)

@pytest.mark.skipif("bool" not in _versions.behaviour("binding.dtypes"),
                    reason="cv2's binding converts bool arrays from 5.0 (the fuzz test compares the error before)")
def test_lms_bool_points_are_fitted_as_cv2_fitline_does():
    pts = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [1, 1]], bool)
    assert _cv2_fitline(pts).shape == (4, 1)
    assert_same(outcome(lambda: cvgpu.fitLineLMS(pts)), outcome(lambda: cvgpu.fitLineLMS(pts.astype(np.float32))))
    assert_same(outcome(lambda: cvgpu.fitLineLMSBatch([pts, pts[:3]])),
                outcome(lambda: cvgpu.fitLineLMSBatch([pts.astype(np.uint8), pts[:3].astype(np.uint8)])))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, object, np.longdouble, "U3", "S3", "V2",
                                   "datetime64[s]"])
def test_lms_unsupported_dtype_is_cv2_fitlines_error(dtype):
    pts = np.zeros((5, 2), dtype)
    ref = outcome(lambda: _cv2_fitline(pts))
    assert ref[:3] == ("error", "cv2.error", -5)
    assert outcome(lambda: cvgpu.fitLineLMS(pts)) == ref  # message included
    assert outcome(lambda: cvgpu.fitLineLMSBatch([pts]))[:3] == ref[:3]


@pytest.mark.parametrize("points", NON_ARRAYS + [2**70, (2**70, 1), (1, "a"), np.float64(2)], ids=repr)
def test_lms_non_array_points_are_cv2_fitlines_error(points):
    """None, numbers and tuples: cv2.fitLine reads an empty Mat or a CV_64F column and fails -215;
    other objects (lists, numpy scalars other than float64): its binding's -5."""
    ref = outcome(lambda: _cv2_fitline(points))
    assert ref[0] == "error"
    assert outcome(lambda: cvgpu.fitLineLMS(points))[:3] == ref[:3]
    assert outcome(lambda: cvgpu.fitLineLMSBatch([points]))[:3] == ref[:3]
