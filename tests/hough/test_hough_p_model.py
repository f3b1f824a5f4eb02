"""The CPU model of cv2.HoughLinesP (tests/models/hough_p_model.py) against the installed cv2, bit for
bit: the pick order (cv::RNG), the walk's float32 quotient, the output's shape and None, and
hypothesis-drawn images and parameters (photographs' Canny edges, segments, grids, noise; rho,
theta, threshold, minLineLength and maxLineGap at their extremes)."""
import math

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, note, settings

from cvgpu import _versions
import hough_p_model as model
from conftest import same
from hough_p_cases import cases, checks_pass, cv2_defined, photo_edges

LINES_N4 = _versions.behaviour("hough_p.lines_shape") == "n4"  # (N, 4), else (N, 1, 4)


def cv2_lines(img, rho, theta, threshold, mll=0.0, mlg=0.0):
    """cv2's result in 5.x's layout ((N, 4) int32 or None)."""
    out = cv2.HoughLinesP(img, rho, theta, threshold, None, mll, mlg)
    return out if out is None or LINES_N4 else out.reshape(-1, 4)


def test_pick_order_is_cv2s():
    """Isolated pixels, threshold 1, maxLineGap 0: every picked pixel is a segment of its own, so
    cv2's output lists the pixels in its pick order (cv::RNG((uint64)-1), uniform(0, count))."""
    img = np.zeros((120, 100), np.uint8)
    img[::2, ::2] = 255
    ys, xs = np.nonzero(img)
    order = model.pick_order(len(xs))
    expect = np.stack([xs[order], ys[order], xs[order], ys[order]], axis=1).astype(np.int32)
    assert same(cv2_lines(img, 1, math.pi / 180, 1), expect)
    assert same(model.hough_lines_p(img, 1, math.pi / 180, 1), expect)


def test_rng_first_draws():
    """cv::RNG's multiply-with-carry from the all-ones state, computed by hand for the first turn:
    lo * a + hi with lo = hi = 2**32 - 1."""
    rng = model.CvRNG()
    first = rng.next()
    assert first == ((2**32 - 1) * model.MWC_A + 2**32 - 1) & model.M32
    assert rng.state == (2**32 - 1) * (model.MWC_A + 1)


def _walk_image(theta, n, j, i, size):
    """The pixels of a walk along angle n from (j, i), as the float32 quotient steps them."""
    na, nr, r32, t32 = model.sizes(size, size, 1.0, theta)
    tab_cos, tab_sin = model.trig_table(na, r32, t32)
    xflag, x0, y0, dx0, dy0 = model.walk_setup(j, i, tab_cos, tab_sin, n, "float")
    img = np.zeros((size, size), np.uint8)
    for sign in (1, -1):
        x, y = x0, y0
        while True:
            jj, ii = (x, y >> 16) if xflag else (x >> 16, y)
            if not (0 <= jj < size and 0 <= ii < size):
                break
            img[ii, jj] = 255
            x, y = x + sign * dx0, y + sign * dy0
    return img


def test_walk_quotient_is_float32():
    """dy0 = cvRound(b * 2**16 / fabs(a)) divides in float32 (fabs(float)): at theta 0.05, angle 9 the
    float32 and double quotients differ by one (1/65536 px a step), and on 1-px lines drawn along
    the float32 steps the double walk stops early somewhere; cv2 agrees with float32 throughout."""
    na, nr, r32, t32 = model.sizes(300, 300, 1.0, 0.05)
    tab_cos, tab_sin = model.trig_table(na, r32, t32)
    assert model.walk_setup(0, 0, tab_cos, tab_sin, 9, "float") != model.walk_setup(0, 0, tab_cos, tab_sin, 9, "double")
    rng = np.random.default_rng(1)
    told_apart = 0
    for _ in range(60):
        img = _walk_image(0.05, 9, int(rng.integers(50, 250)), int(rng.integers(50, 250)), 300)
        ref = cv2_lines(img, 1, 0.05, 20)
        f32 = model.hough_lines_p(img, 1, 0.05, 20, division="float")
        assert same(f32, ref)
        told_apart += not same(model.hough_lines_p(img, 1, 0.05, 20, division="double"), ref)
    assert told_apart > 0


def test_output_layout():
    img = np.zeros((40, 50), np.uint8)
    nothing = cv2_lines(img, 1, math.pi / 180, 5)
    if _versions.behaviour("hough_p.no_segments") == "empty_n4":
        assert nothing.shape == (0, 4) and nothing.dtype == np.int32
    else:
        assert nothing is None
    assert same(model.hough_lines_p(img, 1, math.pi / 180, 5), nothing)
    assert cv2.HoughLinesP(img[:0], 1, math.pi / 180, 5) is None and model.hough_lines_p(img[:0], 1, math.pi / 180, 5) is None
    img[10, 3:45] = 255
    ref = cv2.HoughLinesP(img, 1, math.pi / 180, 5)
    assert ref.dtype == np.int32 and ref.shape[1:] == ((4,) if LINES_N4 else (1, 4))
    assert same(model.hough_lines_p(img, 1, math.pi / 180, 5), cv2_lines(img, 1, math.pi / 180, 5))


@pytest.mark.parametrize("name", ["camera", "astronaut", "coffee", "page"])
@pytest.mark.parametrize("threshold,mll,mlg", [(50, 50, 10), (100, 50, 10), (10, 0, 0), (1, 5, 2)])
def test_photographs(name, threshold, mll, mlg):
    img = photo_edges(name, 240, 320)
    assert same(model.hough_lines_p(img, 1, math.pi / 180, threshold, mll, mlg),
                cv2_lines(img, 1, math.pi / 180, threshold, mll, mlg))


@settings(max_examples=max(settings.default.max_examples, 40))
@given(case=cases())
def test_model_matches_cv2(case):
    img, (rho, theta, threshold, mll, mlg), desc = case
    note(desc)
    assume(checks_pass(rho, theta, threshold, mll, mlg) and cv2_defined(img, rho, theta))
    try:
        ours = model.hough_lines_p(img, rho, theta, threshold, mll, mlg)
    except model.OutOfMemory:
        return  # (a wrapped accumulator size: the argument layer's test compares cv2's -4 error)
    assert same(ours, cv2_lines(img, rho, theta, threshold, mll, mlg))
