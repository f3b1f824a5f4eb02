"""tests/models/linkruns_model.py is the reference the GPU findContoursLinkRuns must match; cv2 is the judge.

CPU tests (no ``gpu`` marker): the model against cv2.findContoursLinkRuns bit for bit (contours
tuple: count, each array's dtype, shape and bytes; hierarchy: None vs array, dtype, shape, bytes),
on drawn images (nested blobs with holes, salt-and-pepper, 1-px lines, checkerboards, shapes
touching the border, full/empty, single pixels, 1xN, Nx1, non-square), 8-bit unsigned and signed.
"""
import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

from linkruns_model import find_contours_link_runs
from test_contours_model import assert_same_contours, border_shapes, checkerboard, lines, nested_blobs, salt_pepper

# cv2.findContoursLinkRuns exists from OpenCV 4.10 (_versions: contours.implementation); before, cvgpu
# has none either (tests/test_versions.py checks that).
pytestmark = pytest.mark.skipif(not hasattr(cv2, "findContoursLinkRuns"),
                                reason="the installed cv2 (before 4.10) has no findContoursLinkRuns")


sizes = st.integers(1, 40)
seeds = st.integers(0, 2**32 - 1)


def check(img):
    keep = img.copy()
    ref = cv2.findContoursLinkRuns(img)
    assert np.array_equal(img, keep)
    try:
        assert_same_contours(find_contours_link_runs(img), ref)
    except AssertionError as e:
        raise AssertionError("shape=%r\n%s\n%s" % (img.shape, (img != 0).astype(int), e))


@given(h=sizes, w=sizes, n=st.integers(1, 6), depth=st.integers(1, 5), seed=seeds, noise=st.floats(0, 0.3))
def test_nested_blobs_with_noise(h, w, n, depth, seed, noise):
    check(nested_blobs(h, w, n, depth, seed) | salt_pepper(h, w, noise, seed))


@given(h=sizes, w=sizes, density=st.floats(0.0, 1.0), seed=seeds)
def test_salt_and_pepper(h, w, density, seed):
    check(salt_pepper(h, w, density, seed))


@given(h=sizes, w=sizes, n=st.integers(1, 8), seed=seeds)
def test_lines(h, w, n, seed):
    check(lines(h, w, n, seed))


@given(h=sizes, w=sizes, by=st.integers(1, 5), bx=st.integers(1, 5), oy=st.integers(0, 4),
       ox=st.integers(0, 4), invert=st.booleans())
def test_checkerboard(h, w, by, bx, oy, ox, invert):
    check(checkerboard(h, w, by, bx, oy, ox, invert))


@given(h=sizes, w=sizes, n=st.integers(1, 6), seed=seeds)
def test_shapes_touching_border(h, w, n, seed):
    check(border_shapes(h, w, n, seed))


@given(n=st.integers(1, 64), vertical=st.booleans(), density=st.floats(0.0, 1.0), seed=seeds)
def test_one_by_n(n, vertical, density, seed):
    img = salt_pepper(1, n, density, seed)
    check(img.T.copy() if vertical else img)


@given(h=st.integers(1, 12), w=st.integers(1, 12), value=st.integers(0, 255), signed=st.booleans())
def test_full_empty_and_signed(h, w, value, signed):
    img = np.full((h, w), value, np.uint8)
    check(img.view(np.int8) if signed else img)


@given(h=sizes, w=sizes, seed=seeds)
def test_signed_images(h, w, seed):
    # CV_8SC1 is accepted: negative values are foreground too.
    check((nested_blobs(h, w, 3, 3, seed) | salt_pepper(h, w, 0.1, seed)).view(np.int8))


def test_single_row_channel_axis_and_pixel():
    check(np.ones((1, 1), np.uint8))
    check(np.zeros((1, 1), np.uint8))
    check(nested_blobs(20, 30, 3, 3, 1)[:, :, None])


@pytest.mark.parametrize("seed", [1, 2])
def test_larger_images(seed):
    check(nested_blobs(300, 257, 8, 5, seed) | salt_pepper(300, 257, 0.02, seed))


def test_many_random_images():
    # A fixed sweep wider than the hypothesis budget.
    rng = np.random.default_rng(7)
    for it in range(300):
        h, w = (int(v) for v in rng.integers(1, 48, 2))
        check(nested_blobs(h, w, 1 + it % 6, 1 + it % 5, it) | salt_pepper(h, w, float(rng.random()) * 0.6, it))
