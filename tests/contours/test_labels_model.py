"""tests/models/labels_model.py (findContours on CV_32SC1 label images) against cv2, on the CPU.

RETR_FLOODFILL and RETR_CCOMP (the same mode inside cv2 for CV_32SC1 input) x all four methods,
with offsets (small and int32-wrapping): the contours tuple and the hierarchy bit for bit. Label
images: random small label sets, blown-up blocks, rectangles on zero, extreme values (negative,
INT_MIN/INT_MAX, values with the top two bits set, which cv2 reads as flags), many distinct
labels, regions touching the border, 1xN / Nx1 / 1x1, non-contiguous and read-only views. Images
for which cv2 indexes its tree with -1 (undefined behaviour, it may crash: see the model) are
detected by the model first and never given to cv2.
"""
import cv2
import numpy as np

from cvgpu import _versions
import pytest
from hypothesis import assume, given, strategies as st

from labels_model import UNDEFINED_IMAGE, LabelUndefined, defined, find_contours_labels, trace_borders
from test_contours_model import assert_same_contours

# The models and kernels reproduce the findContours of OpenCV 4.10+ (#25146); before, cv2's legacy
# code traces TC89_L1 and label images otherwise and cvgpu lets cv2 compute those (_versions).
pytestmark = pytest.mark.skipif(_versions.behaviour("contours.implementation") == "legacy",
                                reason="the installed cv2 (before 4.10) runs the legacy findContours")


METHODS = [cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]
EXTREMES = np.array([0, 1, -1, 2, 5, -5, 129, 2**31 - 1, -2**31, 2**30, 2**30 + 1, 2**30 - 1, -2**30,
                     0x7FFFFF80, 0x3FFFFF80], np.int64)
FAMILIES = ("few", "blocks", "rects", "extreme", "many", "full", "stripes")


def label_image(family, h, w, seed, p):
    rng = np.random.default_rng(seed)
    if family == "few":
        img = rng.integers(0, 1 + p % 5, (h, w))
    elif family == "blocks":
        by, bx = 1 + p % 4, 1 + (p // 4) % 4
        small = rng.integers(-2, 4, (-(-h // by), -(-w // bx)))
        img = np.repeat(np.repeat(small, by, 0), bx, 1)[:h, :w]
    elif family == "rects":
        img = np.zeros((h, w), np.int64)
        for _ in range(1 + p % 8):
            y0, x0 = rng.integers(0, h), rng.integers(0, w)
            img[y0:y0 + rng.integers(1, 10), x0:x0 + rng.integers(1, 10)] = rng.integers(-3, 6)
    elif family == "extreme":
        img = EXTREMES[rng.integers(0, len(EXTREMES), (h, w))]
    elif family == "many":
        by = 1 + p % 3
        small = rng.integers(0, 1 << 30, (-(-h // by), -(-w // by)))
        img = np.repeat(np.repeat(small, by, 0), by, 1)[:h, :w]
    elif family == "full":
        img = np.full((h, w), EXTREMES[p % len(EXTREMES)])
    else:
        img = (np.arange(w)[None, :] // (1 + p % 3) + np.arange(h)[:, None] * (p % 2)) % (2 + p % 4)
    return np.ascontiguousarray(img.astype(np.int64).astype(np.int32))


@st.composite
def label_images(draw, top=24):
    family = draw(st.sampled_from(FAMILIES))
    h = draw(st.integers(1, top))
    w = draw(st.integers(1, top))
    return label_image(family, h, w, draw(st.integers(0, 2**32 - 1)), draw(st.integers(0, 1000)))


offsets = st.one_of(st.just((0, 0)), st.tuples(st.integers(-5000, 5000), st.integers(-5000, 5000)),
                    st.tuples(st.sampled_from([2**31 - 1, 2**31 - 7, -2**31, -2**31 + 3, 0]),
                              st.sampled_from([2**31 - 2, -2**31, -2**31 + 1, 0])))



def check(img, offset=(0, 0), methods=METHODS):
    keep = img.copy()
    for method in methods:
        ours = find_contours_labels(img, method, offset)
        for mode in (cv2.RETR_FLOODFILL, cv2.RETR_CCOMP):
            ref = cv2.findContours(img, mode, method, offset=offset)
            assert np.array_equal(img, keep)
            try:
                assert_same_contours(ours, ref)
            except AssertionError as e:
                raise AssertionError("mode=%d method=%d offset=%r\n%r\n%s" % (mode, method, offset, img, e))


@given(img=label_images(), offset=offsets)
def test_label_images(img, offset):
    assume(defined(img, offset))
    check(img, offset)


@given(n=st.integers(1, 64), vertical=st.booleans(), seed=st.integers(0, 2**32 - 1), p=st.integers(0, 1000),
       family=st.sampled_from(FAMILIES))
def test_one_by_n(n, vertical, seed, p, family):
    img = label_image(family, n, 1, seed, p) if vertical else label_image(family, 1, n, seed, p)
    assume(defined(img))
    check(img)


def test_examples():
    a = np.zeros((8, 10), np.int32)
    a[1:5, 1:5] = 3
    a[2:4, 2:4] = 0
    a[5:7, 5:9] = 3
    a[1:3, 6:9] = 7
    check(a)
    b = np.ones((9, 9), np.int32)
    b[3:6, 3:6] = 2
    check(b)
    _, hier = find_contours_labels(b, cv2.CHAIN_APPROX_NONE)
    assert hier[0, 2, 3] == 1          # the hole of the 1-region around the 2-block
    for v in (0, 1, -1, 2**31 - 1, -2**31, 2**30):
        check(np.full((1, 1), v, np.int32))
        check(np.full((3, 4), v, np.int32), (7, -9))


def test_views_and_read_only():
    base = label_image("blocks", 30, 40, 3, 5)
    for view in (base[::2, ::3], base[3:20, 5:35], base.T, np.flipud(base)):
        assert defined(np.ascontiguousarray(view))
        check(view)
    ro = base.copy()
    ro.setflags(write=False)
    check(ro)


def test_many_labels_larger_image():
    # Hundreds of regions with holes in regions (the hole rule and LNBD are exercised).
    rng = np.random.default_rng(2)
    img = np.repeat(np.repeat(rng.integers(1, 40, (20, 24)), 3, 0), 3, 1).astype(np.int32)
    img[10:40, 10:50] = 0
    img[15:35, 20:40] = 7
    img[20:30, 25:35] = 0
    assert defined(img)
    check(img, (3, -2), methods=[cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE])


def test_undefined_case_is_detected():
    # A hole whose LNBD lies on an input pixel with the flag bits set that no border visited
    # (found by search; cv2 returned garbage on it and crashed on similar images).
    with pytest.raises(LabelUndefined):
        trace_borders(UNDEFINED_IMAGE.copy())
