"""tests/models/tc89_model.py (Teh-Chin approximation from the NONE contour) against cv2, on the CPU.

For every mode x {TC89_L1, TC89_KCOS}: cv2.findContours(img, mode, TC89_*) must equal the model
applied to cv2.findContours(img, mode, CHAIN_APPROX_NONE) bit for bit (count, order, each array's
dtype/shape/bytes, hierarchy), and the hierarchy must be the NONE one unchanged (the GPU path
reuses it). Also chained with tests/models/contours_model.py, so image -> TC89 is modelled end to end.
"""
import cv2
import numpy as np

from cvgpu import _versions
import pytest
from hypothesis import given, settings, strategies as st

from contours_model import find_contours
from tc89_model import approx_tc89, approx_tc89_parallel, find_contours_tc89
from test_contours_model import (assert_same_contours, border_shapes, checkerboard, lines, nested_blobs,

                                 salt_pepper)

# The models and kernels reproduce the findContours of OpenCV 4.10+ (#25146); before, cv2's legacy
# code traces TC89_L1 and label images otherwise and cvgpu lets cv2 compute those (_versions).
pytestmark = pytest.mark.skipif(_versions.behaviour("contours.implementation") == "legacy",
                                reason="the installed cv2 (before 4.10) runs the legacy findContours")

MODES = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE]
TC89 = [cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]

sizes = st.integers(1, 48)
seeds = st.integers(0, 2**32 - 1)
offsets = st.one_of(st.just((0, 0)), st.tuples(st.integers(-5000, 5000), st.integers(-5000, 5000)))


def check_all(img, offset=(0, 0)):
    keep = img.copy()
    for mode in MODES:
        none = cv2.findContours(img, mode, cv2.CHAIN_APPROX_NONE, offset=offset)
        for method in TC89:
            ref = cv2.findContours(img, mode, method, offset=offset)
            assert np.array_equal(img, keep)
            # TC89 changes the points only: same contours in the same order, same hierarchy.
            assert len(ref[0]) == len(none[0])
            assert (ref[1] is None) == (none[1] is None)
            if ref[1] is not None:
                assert ref[1].tobytes() == none[1].tobytes()
            try:
                assert_same_contours(find_contours_tc89(none, method), ref)
                # The parallel form (kernels/contours/'s) gives the same points.
                for c, r in zip(none[0], ref[0]):
                    assert np.array_equal(approx_tc89_parallel(c, method), r.reshape(-1, 2))
            except AssertionError as e:
                raise AssertionError("mode=%d method=%d offset=%r shape=%r\n%s\n%s"
                                     % (mode, method, offset, img.shape, img.astype(bool).astype(int), e))


@given(h=st.integers(1, 96), w=st.integers(1, 96), n=st.integers(1, 6), depth=st.integers(1, 5), seed=seeds,
       offset=offsets)
def test_nested_blobs(h, w, n, depth, seed, offset):
    check_all(nested_blobs(h, w, n, depth, seed), offset)


@given(h=sizes, w=sizes, density=st.floats(0.0, 1.0), seed=seeds, offset=offsets)
def test_salt_and_pepper(h, w, density, seed, offset):
    check_all(salt_pepper(h, w, density, seed), offset)


@given(h=sizes, w=sizes, n=st.integers(1, 8), seed=seeds)
def test_lines(h, w, n, seed):
    check_all(lines(h, w, n, seed))


@given(h=sizes, w=sizes, by=st.integers(1, 5), bx=st.integers(1, 5), oy=st.integers(0, 4),
       ox=st.integers(0, 4), invert=st.booleans())
def test_checkerboard(h, w, by, bx, oy, ox, invert):
    check_all(checkerboard(h, w, by, bx, oy, ox, invert))


@given(h=sizes, w=sizes, n=st.integers(1, 6), seed=seeds)
def test_shapes_touching_border(h, w, n, seed):
    check_all(border_shapes(h, w, n, seed))


@given(h=st.integers(1, 6), w=st.integers(1, 6), density=st.floats(0.0, 1.0), seed=seeds)
def test_tiny_images(h, w, density, seed):
    check_all(salt_pepper(h, w, density, seed))


@given(n=st.integers(1, 64), vertical=st.booleans(), density=st.floats(0.0, 1.0), seed=seeds)
def test_one_by_n(n, vertical, density, seed):
    img = salt_pepper(1, n, density, seed)
    check_all(img.T.copy() if vertical else img)


@settings(max_examples=15)
@given(h=st.integers(8, 40), w=st.integers(8, 40), n=st.integers(1, 4), depth=st.integers(1, 4), seed=seeds,
       method=st.sampled_from(TC89), mode=st.sampled_from(MODES))
def test_end_to_end_with_contours_model(h, w, n, depth, seed, method, mode):
    # Both models chained: image -> NONE (contours_model) -> TC89 (tc89_model), nothing from cv2.
    img = nested_blobs(h, w, n, depth, seed)
    img |= salt_pepper(h, w, 0.05, seed)
    ours = find_contours_tc89(find_contours(img, mode, cv2.CHAIN_APPROX_NONE), method)
    assert_same_contours(ours, cv2.findContours(img, mode, method))


def test_first_point_repeated_at_the_end():
    # L1's wrap-around cleanup: when only point 0 and the chain's last point survive around the
    # seam, point 0 is appended again, and here it stays: the contour ends where it starts.
    img = (np.array([[0, 1, 0, 1, 1, 1], [1, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0],
                     [1, 1, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]) * 255).astype(np.uint8)
    ref = cv2.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_TC89_L1)
    assert [[1, 0], [1, 4], [2, 1], [3, 3], [5, 5], [3, 2], [5, 0], [1, 0]] in [c.reshape(-1, 2).tolist()
                                                                               for c in ref[0]]
    check_all(img)


@pytest.mark.parametrize("shape", [(4, 60000), (60000, 4), (1, 70000), (2, 3), (1, 1), (1, 2), (2, 1)])
def test_long_and_degenerate_rectangles(shape):
    img = np.ones(shape, np.uint8)
    if shape[0] > 2 and shape[1] > 2:
        img[1:-1, 1:-1] = 0
    check_all(img)


def test_single_pixel_and_two_pixel_contours():
    img = np.zeros((7, 9), np.uint8)
    img[1, 1] = 1
    img[3, 3:5] = 1
    img[5, 6] = img[6, 7] = 1
    check_all(img)
    assert approx_tc89(np.array([[4, 2]]), cv2.CHAIN_APPROX_TC89_L1).tolist() == [[4, 2]]


@pytest.mark.parametrize("offset", [(2**31 - 100, 2**31 - 100), (-2**31, -2**31)])
def test_extreme_offsets(offset):
    # Coordinates at the ends of int32 (cv2 itself crashes when x + offset wraps, so no wrapping).
    for seed in range(3):
        check_all(nested_blobs(40, 50, 3, 3, seed) | salt_pepper(40, 50, 0.05, seed), offset)
